/* Which of the step's layers the GPU executor runs in cuDNN (train/conv.h), planned at setup: the convolutions
 * whose geometry the profile gives and the batch norms PyTorch runs there, or none under --cudnn off or when
 * cuDNN is missing or fails under --cudnn auto (the reasons said); every batch norm cuDNN does not run goes to
 * nvscale's own kernels (train/norm_kernels.h). */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "core/gpu_check.h"
#include "core/log.h"
#include "train/conv_cudnn.h"
#include "train/train_exec.h"
#include "train/train_gpu_priv.h"
#include "workload/framework.h"

/* Every batch norm cuDNN does not run runs in the executor's own kernels (norm_kernels.h). */
void nvs_tg_norms_to_kernels(nvs_train_exec *x)
{
    const int L = x->plan->profile->nlayers;
    x->bn_kernel_layers = 0;
    for (int l = 0; x->norm_native && l < L; l++) {
        if (x->plan->profile->layers[l].bn_passes > 0 && x->norm_native[l] != NVS_NORM_CUDNN)
            x->norm_native[l] = NVS_NORM_KERNELS;
        x->bn_kernel_layers += x->norm_native[l] == NVS_NORM_KERNELS;
    }
}

void nvs_train_exec_cudnn_off(nvs_train_exec *x)
{
    nvs_cudnn_close(x->dnn); /* its workspace and statistics freed */
    x->dnn = NULL;
    const int L = x->plan->profile->nlayers;
    for (int l = 0; x->conv_native && l < L; l++) {
        x->conv_native[l] = 0;
        if (x->norm_native[l] == NVS_NORM_CUDNN) x->norm_native[l] = 0;
    }
    x->conv_layers = x->bn_layers = 0;
    x->conv_engine[0] = '\0';
    x->conv_ws_bytes = 0;
    nvs_tg_norms_to_kernels(x);
}

/* Plans every layer cuDNN runs (the library is open). One of cuDNN's own device buffers not fitting: NVS_ERR_NOMEM
 * and *oom says which (nvs_cudnn_workspace). */
static nvs_result_t cudnn_plan(nvs_train_exec *x, int bn_ok, char *oom, size_t oom_len)
{
    const nvs_train_plan *pl = x->plan;
    const nvs_profile *p = pl->profile;
    size_t fr = 0, tot = 0;
    CUDA_TRY(cudaMemGetInfo(&fr, &tot));
    const int el = elem_of(pl), tf32 = pl->precision == NVS_PREC_TF32;
    int too_big = 0;
    for (int l = 0; l < p->nlayers; l++) {
        const nvs_layer *ly = &p->layers[l];
        if (bn_ok && ly->bn_passes > 0) {
            const double ch = ly->params / 2, pixels = ly->act_elems / ch;
            if (ly->act_elems * pl->batch <= 2147483647.0) { /* cuDNN's int sizes (profile_layer.c: ch, pixels) */
                NVS_CHECK(nvs_cudnn_add_bn(x->dnn, l, pl->batch, (int)ch, (int)pixels, el));
                x->norm_native[l] = NVS_NORM_CUDNN;
                x->bn_layers++;
            }
        }
        nvs_conv_shape cs;
        int k = nvs_conv_shape_of(ly, pl->batch, &cs);
        if (k == -2) too_big++;
        if (k) continue;
        const int dgrad = !ly->nograd && !nvs_layer_no_input_grad(p, l), wgrad = !ly->nograd; /* what step.c runs */
        NVS_CHECK(nvs_cudnn_add_layer(x->dnn, l, &cs, el, tf32, dgrad, wgrad, 0.5 * (double)fr));
        x->conv_native[l] = 1;
        x->conv_layers++;
    }
    NVS_CHECK(nvs_cudnn_workspace(x->dnn, &x->conv_ws_bytes, oom, oom_len));
    if (too_big)
        snprintf(x->conv_why, sizeof x->conv_why,
                 "%d convolutions at batch %d hold 2^31 elements or more, beyond cuDNN's 4-d tensors: they run as "
                 "their implicit GEMMs", too_big, pl->batch);
    if (bn_ok && x->bn_layers < x->bn_total)
        snprintf(x->bn_why, sizeof x->bn_why,
                 "%d at batch %d hold 2^31 elements or more, beyond cuDNN's sizes: they run in nvscale's kernels",
                 x->bn_total - x->bn_layers, pl->batch);
    return NVS_OK;
}

/* What PyTorch runs in cuDNN runs in cuDNN (train/conv.h), unless --cudnn off, or cuDNN is missing or fails under
 * --cudnn auto (then x->conv_why says why, and the layers run as implicit GEMMs and passes): the convolutions
 * whose geometry the profile gives, their algorithms found by timing within half the memory left after the
 * step's own buffers; and the batch norms (bn=) at the precisions PyTorch runs them there (nvs_bn_in_cudnn). */
nvs_result_t nvs_tg_cudnn_setup(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_profile *p = pl->profile;
    const int any = nvs_cudnn_layers(p, pl->precision, &x->conv_geom_layers, NULL, &x->bn_total);
    const int bn_ok = nvs_bn_in_cudnn(pl->precision);
    if (x->bn_total && !bn_ok)
        snprintf(x->bn_why, sizeof x->bn_why, "PyTorch runs bf16 batch norms in its own kernels, not cuDNN's");
    if (!any || x->cudnn_mode == NVS_CUDNN_OFF) return NVS_OK;
    char why[sizeof x->conv_why] = "", oom[160] = "";
    nvs_result_t r = nvs_cudnn_open(g->compute, p->nlayers, &x->dnn, why, sizeof why);
    int opened = r == NVS_OK;
    if (r == NVS_OK) {
        snprintf(x->conv_engine, sizeof x->conv_engine, "%s", nvs_cudnn_describe(x->dnn));
        /* under --cudnn auto a failure here falls back: said below as an info line, not an error */
        nvs_cudnn_set_fail_level(x->dnn, nvs_cudnn_fail_level(x->cudnn_mode));
        r = cudnn_plan(x, bn_ok, oom, sizeof oom);
        if (r != NVS_OK && oom[0]) /* cuDNN's own buffers did not fit: said as such, whether it falls back or stops */
            snprintf(why, sizeof why, "%s: %s", x->conv_engine, oom);
        else if (r != NVS_OK && nvs_cudnn_last_error(x->dnn)[0])
            snprintf(why, sizeof why, "%s failed planning them: %s", x->conv_engine, nvs_cudnn_last_error(x->dnn));
        else if (r != NVS_OK)
            snprintf(why, sizeof why, "%s failed planning them (%s, above)", x->conv_engine, nvs_result_text(r));
        nvs_cudnn_set_fail_level(x->dnn, NVS_LOG_ERROR); /* the step's calls: a failure there stops the run */
    }
    if (r == NVS_OK) return cuda_sync(g->compute);
    if (nvs_cudnn_falls_back(x->cudnn_mode, r, oom[0] != 0)) { /* --cudnn auto: GEMMs and kernels, and why */
        (void)cudaGetLastError(); /* what cuDNN's failure left is not the GEMMs' (gpu_check.h) */
        if (nvs_cudnn_fallback_said(opened, r)) { /* it loaded, then failed: said (a library absent is said by the
                                                    * summary and run.json) */
            char note[sizeof why + 192];
            nvs_cudnn_fallback_note(note, sizeof note, why);
            nvs_info("%s", note);
        }
        x->cudnn_fallback = 1;
        nvs_train_exec_cudnn_off(x);
        snprintf(x->conv_why, sizeof x->conv_why, "%s", why);
        return cuda_sync(g->compute);
    }
    nvs_error("--cudnn %s: cuDNN cannot run the convolutions and batch norms: %s", nvs_cudnn_mode_name(x->cudnn_mode),
              why);
    return r;
}
