/* GPU executor of the synthetic step: cuBLAS GEMMs (cuDNN convolutions where the profile gives their geometry and
 * cuDNN loads: train/conv.h) and element-wise passes on a compute stream, NCCL all-reduces of the gradient buckets
 * on a communication stream that waits for each bucket's event — the overlap PyTorch DDP gets, competing for SMs
 * and memory bandwidth in the same way. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/backend_nccl.h"
#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "core/log.h"
#include "train/conv_cudnn.h"
#include "train/norm_kernels.h"
#include "train/reduce_kernels.h"
#include "train/ln_kernels.h"
#include "train/ln_step.h"
#include "train/view_kernels.h"
#include "train/train_exec.h"
#include "workload/framework.h"

struct gpu_impl {
    cublasHandle_t blas;
    cudaStream_t compute, comm;
    cudaEvent_t *bucket_ev, comm_done;
    cudaEvent_t mark[2]; /* compute timeline: step start, end of backward (timing events) */
    void *weights, *acts, *ws_x, *ws_dx;
    float *ws_w;           /* fp32 weight-gradient scratch */
    void *ones;            /* plan->max_bias_rows ones of the compute type: the bias gradients' sums */
    /* the framework's own bias-gradient reduction (framework.h bias_reduce; train/reduce_kernels.h): its staging
     * floats and semaphores, sized for the largest of the step's bias gradients on this GPU's SMs */
    float *bias_staging;
    unsigned *bias_sems;
    size_t bias_staging_elems;
    int bias_nsems;
    nvs_sm_shape sm;       /* this GPU, for the reductions' launch shapes (reduce_plan.h) */
    float *f32;            /* autocast's fp32 tensors (plan->f32_elems), else NULL */
    float *master, *momentum; /* momentum: SGD's, or AdamW's exp_avg (m) */
    float *adam_v;            /* AdamW's exp_avg_sq (v); NULL under SGD */
    float *adam_tmp;          /* foreach AdamW's exp_avg_sq_sqrt (nvs_kern_adamw_foreach); NULL otherwise */
    long long adam_t;         /* AdamW's step count (its bias corrections) */
    void *grads;
    void *buckets;         /* the framework's bucket buffers (plan->bucket_bytes > 0), else NULL */
    size_t es;             /* element size of the compute precision */
    /* the batch norms' statistics for the executor's own kernels: layer l's 4 x its channels at bn_off[l] */
    float *bn_stats;
    size_t *bn_off;
    nvs_ln_bufs ln;        /* the LayerNorms' statistics, scratch, weights (train/ln_step.h) */
    /* the module buffers a framework broadcasts before a full step's forward (plan->buffers > 0): the floats, then the int64s;
     * their flat copy laid out the same; events between the compute stream and the broadcast */
    char *bufs, *bufs_flat;
    cudaEvent_t buf_ev[2];
};

static struct gpu_impl *G(nvs_train_exec *x) { return x->impl; }

/* The element type of the step's weights and activations (kernels.h), and as cuBLAS names it. */
static int elem_of(const nvs_train_plan *pl)
{
    if (pl->precision == NVS_PREC_BF16) return NVS_ELEM_BF16;
    return pl->precision == NVS_PREC_FP16 ? NVS_ELEM_F16 : NVS_ELEM_F32;
}

/* The gradients' element type (fp32, or bf16 with --grad-type bf16) */
static int grad_elem_of(const nvs_train_plan *pl) { return pl->grad_bf16 ? NVS_ELEM_BF16 : NVS_ELEM_F32; }

/* Whether cuBLAS can write a product of the step's operands in the gradients' type: fp32 from any operands, bf16
 * from bf16 ones (else the product goes through fp32 scratch and a cast) */
static int blas_writes_grads(const nvs_train_plan *pl) { return pl->grad_bf16 ? elem_of(pl) == NVS_ELEM_BF16 : 1; }

/* The launches in which autocast casts layer ly's 16-bit gradients back into the fp32 gradients, one per tensor
 * (framework.h nvs_framework_cast_split): its weight's pieces (bias = 0) or its bias's; 0 where nothing is cast back
 * (fp32, bf16 gradients, a framework without weight casts, no such tensor) */
static int grad_cast_pieces(const nvs_train_plan *pl, const nvs_layer *ly, int bias)
{
    nvs_cast_split sp;
    if (pl->grad_bf16 || !nvs_framework_cast_split(pl->framework, ly, pl->precision, &sp)) return 0;
    return bias ? sp.b_pieces : sp.w_pieces;
}

static cudaDataType_t cuda_type_of(int elem)
{
    return elem == NVS_ELEM_BF16 ? CUDA_R_16BF : elem == NVS_ELEM_F16 ? CUDA_R_16F : CUDA_R_32F;
}

/* A cast of `elems` elements as `pieces` launches (0: one), one per tensor autocast casts (framework.h
 * nvs_framework_cast_split); element sizes from the types */
static nvs_result_t convert_pieces(const void *src, int src_el, void *dst, int dst_el, double elems, int pieces,
                                   cudaStream_t s)
{
    const size_t ss = src_el == NVS_ELEM_F32 ? 4 : 2, ds = dst_el == NVS_ELEM_F32 ? 4 : 2;
    for (int i = 0; i < (pieces > 0 ? pieces : 1); i++) {
        size_t first, count;
        nvs_cast_piece(elems, pieces > 0 ? pieces : 1, i, &first, &count);
        CUDA_TRY(nvs_kern_convert((const char *)src + first * ss, src_el, (char *)dst + first * ds, dst_el, count, s));
    }
    return NVS_OK;
}

static nvs_result_t gmem(nvs_train_exec *x, double *free_bytes)
{
    (void)x;
    size_t fr = 0, tot = 0;
    CUDA_TRY(cudaMemGetInfo(&fr, &tot));
    *free_bytes = (double)fr;
    return NVS_OK;
}

static nvs_result_t dalloc(void **p, double bytes, const char *what)
{
    size_t b = bytes > 0 ? (size_t)ceil(bytes) : 256;
    cudaError_t e = cudaMalloc(p, b);
    return e == cudaSuccess ? NVS_OK : nvs_cuda_alloc_fail(b, what, e);
}

/* What PyTorch runs in cuDNN runs in cuDNN (train/conv.h), unless --cudnn off, or cuDNN is missing under --cudnn
 * auto (then x->conv_why says why, and the layers run as implicit GEMMs and passes): the convolutions whose
 * geometry the profile gives, their algorithms found by timing within half the memory left after the step's own
 * buffers; and the batch norms (bn=) at fp32 and fp16, where PyTorch calls cuDNN's (cudnn::bn_fw_tr_1C11 and
 * bn_bw_1C11 kernels in its ResNet-50 step), not at bf16, where it runs its own (batch_norm_collect_statistics,
 * batch_norm_transform_input: results/h200x1-census). */
/* cudaMalloc's alignment (256 bytes), which the buffers cuDNN's Find times its candidates on have */
static int aligned(const void *p) { return ((uintptr_t)p & 255) == 0; }

/* A buffer the plan did not size for the call (internal error: the plan and the step disagree) */
static nvs_result_t not_sized(int l, const char *what)
{
    nvs_error("layer %d: %s larger than the plan allocated (internal error)", l, what);
    return NVS_ERR_SYSTEM;
}

static nvs_result_t cuda_sync(cudaStream_t s)
{
    CUDA_TRY(cudaStreamSynchronize(s));
    return NVS_OK;
}

/* Every batch norm cuDNN does not run runs in the executor's own kernels (norm_kernels.h). */
static void norms_to_kernels(nvs_train_exec *x)
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
    norms_to_kernels(x);
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
static nvs_result_t cudnn_setup(nvs_train_exec *x)
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

/* Layer l's batch norm, in cuDNN or in the executor's own kernels (norm_native[l]): its stored output stands for
 * its input, the input-gradient scratch for its output (forward) and for the gradient arriving (backward); scale
 * and bias are the fp32 master parameters, their gradients go straight into aligned fp32 gradients, otherwise
 * through fp32 scratch. */
static nvs_result_t gnorm(nvs_train_exec *x, int l, int backward)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    const size_t ch = (size_t)(ly->params / 2);
    const long long hw = (long long)(ly->act_elems / (double)ch); /* whole (profile_layer.c checks bn= layers) */
    const int kern = x->norm_native[l] == NVS_NORM_KERNELS, el = elem_of(pl);
    char *Y = (char *)g->acts + pl->a_off[l] * g->es;
    const float *scale = g->master + pl->grad_offset[l], *bias = scale + ch;
    float *st = kern ? g->bn_stats + g->bn_off[l] : NULL;
    if (!backward && kern) {
        CUDA_TRY(nvs_kern_bn_fwd(Y, g->ws_x, el, pl->batch, (int)ch, hw, scale, bias, st, NVS_BN_MOMENTUM, NVS_BN_EPS,
                                 g->compute));
        return NVS_OK;
    }
    if (!backward) return nvs_cudnn_bn_fwd(x->dnn, l, Y, g->ws_x, scale, bias);
    char *slot = (char *)g->grads + pl->grad_offset[l] * (pl->grad_bf16 ? 2 : 4);
    const int direct = !pl->grad_bf16 && aligned(slot);
    float *dw = direct ? (float *)slot : g->ws_w;
    if (kern)
        CUDA_TRY(nvs_kern_bn_bwd(Y, g->ws_x, g->ws_dx, el, pl->batch, (int)ch, hw, scale, st, dw, dw + ch, g->compute));
    else
        NVS_CHECK(nvs_cudnn_bn_bwd(x->dnn, l, Y, g->ws_x, g->ws_dx, scale, dw, dw + ch));
    if (!direct) CUDA_TRY(nvs_kern_convert(g->ws_w, NVS_ELEM_F32, slot, pl->grad_bf16, 2 * ch, g->compute));
    return NVS_OK;
}

/* Layer l's LayerNorm in the LayerNorm kernels (ln_kernels.h), over autocast's fp32 tensor (fp32) or the stored
 * output: forward into the GEMM input scratch, backward from it (the gradient arriving) into the input-gradient
 * scratch, the weight and bias gradients as gnorm writes a batch norm's. gamma, beta: the layer's own, aligned as
 * PyTorch's parameter tensors are (ln_step.h). */
static nvs_result_t gln(nvs_train_exec *x, int l, int backward, int fp32)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    const int cols = nvs_ln_cols(ly), el = fp32 ? NVS_ELEM_F32 : elem_of(pl);
    const long long rows = nvs_ln_rows(ly, pl->batch);
    const size_t count = (size_t)rows * (size_t)cols, es = fp32 ? 4 : g->es;
    if (fp32 && (!g->f32 || count > pl->f32_elems)) return not_sized(l, "an fp32 LayerNorm");
    if (count * es > pl->max_x_elems * g->es || rows > g->ln.rows || (size_t)ly->params > pl->max_w_elems)
        return not_sized(l, "a LayerNorm");
    const void *X = fp32 ? (const void *)g->f32 : (const char *)g->acts + pl->a_off[l] * g->es;
    const float *gamma, *beta, *mean = g->ln.stats, *rstd = g->ln.stats + g->ln.rows;
    nvs_ln_params(&g->ln, l, cols, &gamma, &beta);
    if (!backward) {
        CUDA_TRY(nvs_kern_ln_fwd(X, g->ws_x, el, rows, cols, gamma, beta, g->ln.stats, g->ln.stats + g->ln.rows,
                                 (float)NVS_LN_EPS, g->compute));
        return NVS_OK;
    }
    CUDA_TRY(nvs_kern_ln_bwd_input(g->ws_x, X, g->ws_dx, el, rows, cols, gamma, mean, rstd, g->compute));
    char *slot = (char *)g->grads + pl->grad_offset[l] * (pl->grad_bf16 ? 2 : 4);
    const int direct = !pl->grad_bf16 && aligned(slot);
    float *dw = direct ? (float *)slot : g->ws_w;
    CUDA_TRY(nvs_kern_ln_bwd_params(g->ws_x, X, el, rows, cols, mean, rstd, dw, dw + cols, g->ln.scratch,
                                    g->ln.scratch_floats, g->ln.sems, g->ln.nsems, g->ln.sm, g->compute));
    if (!direct) CUDA_TRY(nvs_kern_convert(g->ws_w, NVS_ELEM_F32, slot, pl->grad_bf16, 2 * (size_t)cols, g->compute));
    return NVS_OK;
}

/* Layer l's convolution in cuDNN: input (ws_x) and output (the layer's stored output) in NCHW. The weight
 * gradient goes straight into the layer's gradient slot when the types agree (an fp32 step with fp32 gradients,
 * bf16 with bf16) and the slot is aligned; otherwise cuDNN writes it in the data type into scratch, and it is
 * cast into the gradients as autograd does for autocast's cast weight. */
static nvs_result_t gconv(nvs_train_exec *x, int l, int kind)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    const int el = elem_of(pl);
    char *W = (char *)g->weights + pl->w_off[l] * g->es;
    char *Y = (char *)g->acts + pl->a_off[l] * g->es;
    if (kind == NVS_GEMM_FWD) return nvs_cudnn_fwd(x->dnn, l, g->ws_x, W, Y);
    if (kind == NVS_GEMM_DGRAD) return nvs_cudnn_dgrad(x->dnn, l, Y, W, g->ws_dx);
    size_t wn = (size_t)(ly->gemm_n * ly->gemm_k), ges = pl->grad_bf16 ? 2 : 4;
    int same_type = el == NVS_ELEM_BF16 ? pl->grad_bf16 : el == NVS_ELEM_F32 && !pl->grad_bf16;
    char *slot = (char *)g->grads + pl->grad_offset[l] * ges;
    /* gradients lie packed in bucket order, so a slot may start anywhere: straight in only where it is as
     * aligned as the buffers cuDNN's Find timed on */
    int direct = (size_t)ly->params >= wn && same_type && aligned(slot);
    NVS_CHECK(nvs_cudnn_wgrad(x->dnn, l, g->ws_x, Y, direct ? (void *)slot : (void *)g->ws_w));
    if (!direct && ly->params > 0) {
        size_t cnt = (size_t)ly->params < wn ? (size_t)ly->params : wn;
        NVS_CHECK(convert_pieces(g->ws_w, el, slot, pl->grad_bf16, (double)cnt, grad_cast_pieces(pl, ly, 0), g->compute));
    }
    return NVS_OK;
}

/* Statistics for every batch norm, since any may run in the executor's kernels (conv_agree, src/run, can turn
 * cuDNN off after setup), and those cuDNN does not run, to the kernels. */
static nvs_result_t bn_kernels_setup(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_profile *p = x->plan->profile;
    size_t tot = 0;
    g->bn_off = calloc((size_t)p->nlayers + 1, sizeof *g->bn_off);
    if (!g->bn_off) return NVS_ERR_NOMEM;
    for (int l = 0; l < p->nlayers; l++) {
        g->bn_off[l] = tot;
        if (p->layers[l].bn_passes > 0) tot += 4 * (size_t)(p->layers[l].params / 2);
    }
    if (!tot) return NVS_OK;
    NVS_CHECK(dalloc((void **)&g->bn_stats, (double)tot * 4, "batch-norm statistics"));
    CUDA_TRY(cudaMemsetAsync(g->bn_stats, 0, tot * 4, g->compute)); /* finite before the first forward */
    norms_to_kernels(x);
    return cuda_sync(g->compute);
}

/* The staging and semaphores of the framework's bias-gradient reduction: the most any bias of the step needs on
 * this GPU (a few MB at most: G <= rows / 128 partial sums per column, reduce_kernels.h; inside the 64 MB the
 * plan's memory check keeps spare, train_plan.c); the semaphores start at
 * zero and every launch leaves them so */
static nvs_result_t bias_reduce_setup(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    for (int l = 0; l < pl->profile->nlayers; l++) {
        const nvs_layer *ly = &pl->profile->layers[l];
        double rows = ly->gemm_m * pl->batch, n = nvs_layer_bias_elems(ly);
        if (n <= 0 || n > INT_MAX || rows < 1) continue;
        const int pieces = nvs_layer_bias_tensors(ly);
        for (int i = 0; i < pieces; i++) { /* a launch per bias tensor (gbias) */
            size_t first, count;
            nvs_cast_piece(n, pieces, i, &first, &count);
            size_t st = nvs_outer_sum_staging((long long)rows, (int)count, g->sm);
            int se = nvs_outer_sum_sems((long long)rows, (int)count, g->sm);
            if (st > g->bias_staging_elems) g->bias_staging_elems = st;
            if (se > g->bias_nsems) g->bias_nsems = se;
        }
    }
    if (g->bias_staging_elems > 0)
        NVS_CHECK(dalloc((void **)&g->bias_staging, (double)g->bias_staging_elems * 4, "bias-gradient staging"));
    if (g->bias_nsems > 0) {
        NVS_CHECK(dalloc((void **)&g->bias_sems, (double)g->bias_nsems * sizeof(unsigned), "bias-gradient semaphores"));
        CUDA_TRY(cudaMemsetAsync(g->bias_sems, 0, (size_t)g->bias_nsems * sizeof(unsigned), g->compute));
    }
    return NVS_OK;
}

static nvs_result_t gsetup(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    g->es = nvs_precision_bytes(pl->precision);
    const int el = elem_of(pl);
    g->bucket_ev = calloc((size_t)pl->nbuckets + 1, sizeof(cudaEvent_t));
    if (!g->bucket_ev) return NVS_ERR_NOMEM;
    /* the buffer layout is the plan's (train_plan.c), the same the memory check counted */
    const int L = pl->profile->nlayers;
    const size_t wtot = pl->w_off[L], atot = pl->a_off[L], maxx = pl->max_x_elems, maxw = pl->max_w_elems;
    CUDA_TRY(cudaStreamCreateWithFlags(&g->compute, cudaStreamNonBlocking));
    CUDA_TRY(cudaStreamCreateWithFlags(&g->comm, cudaStreamNonBlocking));
    for (int b = 0; b < pl->nbuckets; b++) CUDA_TRY(cudaEventCreateWithFlags(&g->bucket_ev[b], cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreateWithFlags(&g->comm_done, cudaEventDisableTiming));
    for (int i = 0; i < 2; i++) CUDA_TRY(cudaEventCreate(&g->mark[i]));
    BLAS_TRY(cublasCreate(&g->blas));
    BLAS_TRY(cublasSetStream(g->blas, g->compute));
    NVS_CHECK(dalloc(&g->weights, (double)wtot * g->es, "GEMM weights"));
    NVS_CHECK(dalloc(&g->acts, (double)atot * g->es, "activations"));
    NVS_CHECK(dalloc(&g->ws_x, (double)maxx * g->es, "GEMM input workspace"));
    NVS_CHECK(dalloc(&g->ws_dx, (double)maxx * g->es, "input-gradient workspace"));
    NVS_CHECK(dalloc((void **)&g->ws_w, (double)maxw * 4, "weight-gradient workspace"));
    if (pl->max_bias_rows > 0) {
        NVS_CHECK(dalloc(&g->ones, (double)pl->max_bias_rows * g->es, "ones for the bias gradients"));
        CUDA_TRY(cudaMemsetAsync(g->ones, 0, pl->max_bias_rows * g->es, g->compute));
        CUDA_TRY(nvs_kern_axpb(g->ones, pl->max_bias_rows, el, 0.0f, 1.0f, g->compute));
    }
    {
        int dev = 0;
        CUDA_TRY(cudaGetDevice(&dev));
        CUDA_TRY(nvs_sm_shape_of(dev, &g->sm));
    }
    if (pl->max_bias_rows > 0 && pl->framework->bias_reduce) NVS_CHECK(bias_reduce_setup(x));
    NVS_CHECK(nvs_ln_bufs_setup(&g->ln, pl, g->sm, g->compute));
    if (pl->f32_elems > 0) {
        NVS_CHECK(dalloc((void **)&g->f32, (double)pl->f32_elems * 4, "autocast's fp32 tensors"));
        CUDA_TRY(nvs_kern_init_random(g->f32, pl->f32_elems, NVS_ELEM_F32, 8, 1.0f, g->compute));
    }
    NVS_CHECK(dalloc((void **)&g->master, (double)pl->grad_elems * 4, "fp32 parameters"));
    NVS_CHECK(dalloc((void **)&g->momentum, (double)pl->grad_elems * 4, "momentum"));
    if (pl->optimizer == NVS_OPT_ADAMW) {
        NVS_CHECK(dalloc((void **)&g->adam_v, (double)pl->grad_elems * 4, "AdamW's second state"));
        CUDA_TRY(cudaMemsetAsync(g->adam_v, 0, pl->grad_elems * 4, g->compute)); /* as torch's: v >= 0 */
        if (nvs_train_plan_opt_foreach(pl)) /* the foreach path's temporary, in master_bytes (train_plan.c) */
            NVS_CHECK(dalloc((void **)&g->adam_tmp, (double)pl->grad_elems * 4, "AdamW's foreach temporary"));
    }
    NVS_CHECK(dalloc(&g->grads, (double)pl->grad_elems * (pl->grad_bf16 ? 2 : 4), "gradients"));
    /* real-looking data everywhere: tensor cores run faster on zeros than on real data */
    CUDA_TRY(nvs_kern_init_random(g->weights, wtot, el, 1, 0.05f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->acts, atot, el, 2, 1.0f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->ws_x, maxx, el, 3, 1.0f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->ws_dx, maxx, el, 4, 1.0f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->master, pl->grad_elems, 0, 5, 0.05f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->grads, pl->grad_elems, pl->grad_bf16, 6, 0.01f, g->compute));
    if (pl->bucket_bytes > 0) {
        NVS_CHECK(dalloc(&g->buckets, pl->bucket_bytes, "gradient buckets"));
        CUDA_TRY(nvs_kern_init_random(g->buckets, pl->grad_elems, pl->grad_bf16, 7, 0.01f, g->compute));
    }
    if (pl->buffers > 0) {
        NVS_CHECK(dalloc((void **)&g->bufs, pl->buffer_bytes / 2, "module buffers"));
        NVS_CHECK(dalloc((void **)&g->bufs_flat, pl->buffer_bytes / 2, "module buffers' flat copy"));
        CUDA_TRY(cudaMemsetAsync(g->bufs, 0, (size_t)(pl->buffer_bytes / 2), g->compute));
        for (int i = 0; i < 2; i++) CUDA_TRY(cudaEventCreateWithFlags(&g->buf_ev[i], cudaEventDisableTiming));
    }
    CUDA_TRY(cudaMemsetAsync(g->momentum, 0, pl->grad_elems * 4, g->compute));
    CUDA_TRY(cudaStreamSynchronize(g->compute));
    x->conv_native = calloc(2 * (size_t)L, 1); /* norm_native is its second half */
    if (!x->conv_native) return NVS_ERR_NOMEM;
    x->norm_native = x->conv_native + L;
    NVS_CHECK(cudnn_setup(x));
    return bn_kernels_setup(x);
}

static nvs_result_t ggemm(nvs_train_exec *x, int l, int kind)
{
    if (x->conv_native && x->conv_native[l]) return gconv(x, l, kind);
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    double rows = ly->gemm_m * pl->batch;
    if (rows > INT_MAX || ly->gemm_n > INT_MAX || ly->gemm_k > INT_MAX) {
        nvs_error("layer %s: a GEMM dimension exceeds what cuBLAS takes (2^31-1): lower --batch", ly->name);
        return NVS_ERR_USAGE;
    }
    int m = (int)rows, n = (int)ly->gemm_n, k = (int)ly->gemm_k;
    const int el = elem_of(pl);
    cudaDataType_t ab = cuda_type_of(el);
    cublasComputeType_t ct = pl->precision == NVS_PREC_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const float one = 1.0f, zero = 0.0f;
    char *W = (char *)g->weights + pl->w_off[l] * g->es;
    char *Y = (char *)g->acts + pl->a_off[l] * g->es;
    /* PyTorch's layouts, as nn.Linear calls cuBLAS (column-major): X [m x k] and Y [m x n] row-major, the weight
     * [n x k] row-major. Forward y = x W^T: Y^T (n x m, ld n) = op_T(W: k x n, ld k) X^T (k x m, ld k); input
     * gradient dX = dY W: dX^T (k x m, ld k) = W (k x n) dY^T (n x m, ld n); weight gradient dW = dY^T X: dW^T
     * (k x n, ld k) = X^T (k x m) op_T(dY^T). The leading dimensions are the features, not the rows: cuBLAS picks
     * its kernels by them (a vocabulary of 30,522 makes BERT's decoder rows 4-byte aligned, and cuBLAS runs
     * slower kernels for it, as under PyTorch). The data are random: only shapes, layouts, precision matter. */
    switch (kind) {
    case NVS_GEMM_FWD:
        BLAS_TRY(cublasGemmEx(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, W, ab, k, g->ws_x, ab, k, &zero, Y,
                              ab, n, ct, CUBLAS_GEMM_DEFAULT));
        break;
    case NVS_GEMM_DGRAD:
        BLAS_TRY(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, k, m, n, &one, W, ab, k, Y, ab, n, &zero, g->ws_dx,
                              ab, k, ct, CUBLAS_GEMM_DEFAULT));
        break;
    default: {
        /* A layer without parameters (attention's second operand): an activation's gradient, in the step's type.
         * Under autocast (weight_casts, half precision) the weight's gradient is computed in 16 bits, as autograd
         * does for the 16-bit copy, then cast into the fp32 gradient (the cast's backward). Otherwise straight into
         * the layer's gradient slot when its parameters hold the whole matrix and cuBLAS can write the gradients'
         * type (fp32 from any operands; bf16 from bf16), else fp32 scratch cast into them (bf16 gradients of an
         * fp32 or fp16 step). */
        size_t slot = (size_t)ly->params, kn = (size_t)k * (size_t)n;
        const int pieces = grad_cast_pieces(pl, ly, 0), cast16 = pieces > 0;
        const int direct = slot >= kn && !cast16 && blas_writes_grads(pl);
        char *gslot = (char *)g->grads + pl->grad_offset[l] * (pl->grad_bf16 ? 2 : 4);
        const int out_el = direct ? grad_elem_of(pl) : (slot == 0 || cast16 ? el : NVS_ELEM_F32);
        BLAS_TRY(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_T, k, n, m, &one, g->ws_x, ab, k, Y, ab, n, &zero,
                              direct ? (void *)gslot : g->ws_w, cuda_type_of(out_el), k, ct, CUBLAS_GEMM_DEFAULT));
        if (!direct && slot > 0) /* under autocast one cast per weight tensor, else one */
            NVS_CHECK(convert_pieces(g->ws_w, out_el, gslot, grad_elem_of(pl), (double)(slot < kn ? slot : kn), pieces,
                                     g->compute));
        break;
    }
    }
    return NVS_OK;
}

static nvs_result_t gew(nvs_train_exec *x, int l, double passes, int fp32)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    size_t count = (size_t)(ly->act_elems * pl->batch);
    /* fp32 passes over autocast's fp32 tensor of the output's size (the plan sized it for the largest) */
    const int el = fp32 ? NVS_ELEM_F32 : elem_of(pl);
    void *Y = fp32 ? (void *)g->f32 : (char *)g->acts + pl->a_off[l] * g->es;
    if (fp32 && (!g->f32 || count > pl->f32_elems)) return not_sized(l, "fp32 passes");
    int whole = (int)floor(passes);
    for (int i = 0; i < whole; i++) CUDA_TRY(nvs_kern_axpb(Y, count, el, 0.999f, 0.001f, g->compute));
    size_t part = (size_t)((passes - whole) * (double)count); /* a fractional pass: that share of the tensor */
    if (part) CUDA_TRY(nvs_kern_axpb(Y, part, el, 0.999f, 0.001f, g->compute));
    return NVS_OK;
}

/* Autocast's cast of layer l's fp32 parameters (the master copy) into the 16-bit weights its forward reads: the
 * matrix's share of them (framework.h: the weights buffer holds the matrix only). */
static nvs_result_t gcast(nvs_train_exec *x, int l)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    nvs_cast_split sp;
    if (!nvs_framework_cast_split(pl->framework, ly, pl->precision, &sp)) return NVS_OK;
    const float *m = g->master + pl->grad_offset[l];
    NVS_CHECK(convert_pieces(m, NVS_ELEM_F32, (char *)g->weights + pl->w_off[l] * g->es, elem_of(pl), sp.w_elems,
                             sp.w_pieces, g->compute));
    /* the bias's 16-bit copy: nvscale's GEMM has no bias epilogue, so it lands in the weight-gradient scratch,
     * free until this layer's backward */
    if (sp.b_pieces)
        NVS_CHECK(convert_pieces(m + (size_t)(ly->gemm_n * ly->gemm_k), NVS_ELEM_F32, g->ws_w, elem_of(pl), sp.b_elems,
                                 sp.b_pieces, g->compute));
    return NVS_OK;
}

/* Autocast's cast of layer l's fp32 output (autocast's fp32 tensor) into its 16-bit output, which the next GEMM
 * reads; backward, the 16-bit gradient cast back into fp32 */
static nvs_result_t gcast_act(nvs_train_exec *x, int l, int backward)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    size_t count = (size_t)(pl->profile->layers[l].act_elems * pl->batch);
    void *Y = (char *)g->acts + pl->a_off[l] * g->es;
    if (!g->f32 || count > pl->f32_elems) return not_sized(l, "an fp32 output's cast");
    if (backward)
        CUDA_TRY(nvs_kern_convert(Y, elem_of(pl), g->f32, NVS_ELEM_F32, count, g->compute));
    else
        CUDA_TRY(nvs_kern_convert(g->f32, NVS_ELEM_F32, Y, elem_of(pl), count, g->compute));
    return NVS_OK;
}

/* The bias's gradient: the output gradient summed over its m rows, into the bias's part of the layer's slot,
 * after the N x K matrix. Under a framework with its own reduction (framework.h bias_reduce: PyTorch's eager
 * Linear) in that kernel, launched as PyTorch launches it, over the gradient's bytes read as PyTorch holds them
 * (tokens x features, the features contiguous: train/reduce_kernels.h; the step's values are synthetic, the
 * bytes and the access pattern are what it reproduces); else as one matrix-vector product of the m x n
 * column-major gradient with a vector of ones (cuBLAS reads the gradient once), through the fp32 scratch where
 * cuBLAS cannot write the gradients' type (blas_writes_grads). */
static nvs_result_t gbias(nvs_train_exec *x, int l)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    double rows = ly->gemm_m * pl->batch, n = nvs_layer_bias_elems(ly);
    if (rows > (double)pl->max_bias_rows || rows > INT_MAX || n <= 0 || n > INT_MAX)
        return not_sized(l, "a bias gradient's rows");
    const int el = elem_of(pl), m = (int)rows;
    /* under autocast (weight_casts, half precision, fp32 gradients) the bias's gradient is summed in 16 bits, as
     * autograd does for the cast bias (PyTorch's reduce_kernel over bf16), then cast into fp32, one launch per
     * bias tensor (nvs_framework_cast_split) */
    const int pieces = grad_cast_pieces(pl, ly, 1), cast16 = pieces > 0;
    const int own = pl->framework->bias_reduce;
    const int direct = !cast16 && (own || blas_writes_grads(pl));
    const int out_el = direct ? grad_elem_of(pl) : cast16 ? el : NVS_ELEM_F32;
    cudaDataType_t ab = cuda_type_of(el);
    cublasComputeType_t ct = pl->precision == NVS_PREC_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const float one = 1.0f, zero = 0.0f;
    const char *Y = (const char *)g->acts + pl->a_off[l] * g->es;
    char *gb = (char *)g->grads + (pl->grad_offset[l] + (size_t)(ly->gemm_n * ly->gemm_k)) * (pl->grad_bf16 ? 2 : 4);
    if (own) {
        /* a launch per bias tensor, over its columns (HF's query, key and value: three), as autograd sums each
         * Linear's bias on its own */
        const int tensors = nvs_layer_bias_tensors(ly);
        char *dst = direct ? gb : (char *)g->ws_w;
        const size_t oes = out_el == NVS_ELEM_F32 ? 4 : 2;
        for (int i = 0; i < tensors; i++) {
            size_t first, count;
            nvs_cast_piece(n, tensors, i, &first, &count);
            CUDA_TRY(nvs_kern_outer_sum(Y + first * g->es, el, m, (int)count, (long long)n, dst + first * oes, out_el,
                                        g->bias_staging, g->bias_staging_elems, g->bias_sems, g->bias_nsems, g->sm,
                                        g->compute));
        }
    } else
        /* Y row-major [m x n] (ggemm): Y^T (n x m, ld n) times a column of ones */
        BLAS_TRY(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, 1, m, &one, Y, ab, (int)n, g->ones, ab, m,
                              &zero, direct ? (void *)gb : g->ws_w, cuda_type_of(out_el), (int)n, ct,
                              CUBLAS_GEMM_DEFAULT));
    if (!direct)
        NVS_CHECK(convert_pieces(g->ws_w, out_el, gb, grad_elem_of(pl), n, pieces, g->compute));
    return NVS_OK;
}

static nvs_result_t gcopy(nvs_train_exec *x, int l, double copies)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    size_t count = (size_t)(pl->profile->layers[l].act_elems * pl->batch);
    const char *Y = (const char *)g->acts + pl->a_off[l] * g->es;
    /* into the input-gradient scratch, a piece at a time when the output is larger */
    size_t off = 0;
    for (size_t done = 0, c; (c = nvs_copy_piece(done, copies, count, pl->max_x_elems, &off)) > 0; done += c)
        CUDA_TRY(nvs_kern_copy(g->ws_dx, Y + off * g->es, c * g->es, g->compute));
    return NVS_OK;
}

/* Copies of layer l's output through a view that swaps its batch and its rows (framework.h view_copies), into the
 * input-gradient scratch (the plan sized it for the output); backward the gradient's copy back, the other way
 * round. A fractional pass copies that share of the samples. */
static nvs_result_t gview(nvs_train_exec *x, int l, double passes, int backward)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    const long long rows = (long long)ly->gemm_m, run = (long long)(ly->act_elems / ly->gemm_m);
    if ((size_t)(ly->act_elems * pl->batch) > pl->max_x_elems) return not_sized(l, "a copy through a view");
    const char *Y = (const char *)g->acts + pl->a_off[l] * g->es;
    int whole = (int)floor(passes);
    long long part = llround((passes - whole) * pl->batch);
    if (passes > whole && part < 1) part = 1;
    for (int i = 0; i <= whole; i++) {
        long long samples = i < whole ? pl->batch : part;
        if (samples < 1) continue;
        /* forward (samples, rows) -> (rows, samples); backward the other way */
        CUDA_TRY(nvs_kern_view_copy(Y, g->ws_dx, elem_of(pl), 1, backward ? rows : samples, backward ? samples : rows,
                                    run, g->compute));
    }
    return NVS_OK;
}

static nvs_result_t ggrad(nvs_train_exec *x, int l)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    size_t es = pl->grad_bf16 ? 2 : 4;
    CUDA_TRY(nvs_kern_axpb((char *)g->grads + pl->grad_offset[l] * es, (size_t)pl->profile->layers[l].params,
                           pl->grad_bf16, 0.5f, 0.0f, g->compute));
    return NVS_OK;
}

static nvs_result_t gbucket(nvs_train_exec *x, int b)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_bucket *bk = &pl->buckets[b];
    size_t es = pl->grad_bf16 ? 2 : 4;
    CUDA_TRY(cudaEventRecord(g->bucket_ev[b], g->compute));
    CUDA_TRY(cudaStreamWaitEvent(g->comm, g->bucket_ev[b], 0));
    ncclComm_t comm = nvs_nccl_comm(x->comm);
    char *base = g->buckets ? (char *)g->buckets : (char *)g->grads; /* the framework's buckets, else in place */
    ncclResult_t r = ncclAllReduce(base + bk->offset_elems * es, base + bk->offset_elems * es,
                                   bk->elems, pl->grad_bf16 ? ncclBfloat16 : ncclFloat32, ncclSum, comm, g->comm);
    if (r != ncclSuccess) {
        char what[96];
        snprintf(what, sizeof what, "ncclAllReduce of gradient bucket %d (%zu bytes)", b, bk->bytes);
        return nvs_nccl_fail(what, r, comm); /* with NCCL's own last error */
    }
    return NVS_OK;
}

static nvs_result_t gjoin(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    CUDA_TRY(cudaEventRecord(g->comm_done, g->comm));
    CUDA_TRY(cudaStreamWaitEvent(g->compute, g->comm_done, 0));
    return NVS_OK;
}

static nvs_result_t gopt(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    /* SGD with momentum 0.9, lr 1e-4 (values do not matter; the memory traffic does). Gradients are summed by
     * the all-reduce and divided by N here, as DDP averages them. A framework whose optimizer runs foreach passes
     * (framework.h) makes three: momentum *= mu, momentum += grad, param += -lr * momentum. */
    if (pl->optimizer == NVS_OPT_ADAMW) {
        /* AdamW as the framework runs it: PyTorch's default on CUDA (torch.optim.AdamW(params), no fused=/foreach=)
         * is the foreach path, 8 passes through a temporary (workload/optimizer.h nvs_adamw_foreach); under ideal or
         * --optimizer adamw-fused one fused pass, as torch.optim.AdamW(fused=True) (torch._fused_adamw_) */
        const nvs_adamw_hyper hp = nvs_adamw_defaults();
        if (nvs_train_plan_opt_foreach(pl))
            CUDA_TRY(nvs_kern_adamw_foreach(g->master, g->momentum, g->adam_v, g->adam_tmp, g->grads, grad_elem_of(pl),
                                            pl->grad_elems, 1.0f / (float)x->nranks, hp.lr, hp.beta1, hp.beta2,
                                            hp.eps, hp.weight_decay, ++g->adam_t, g->compute));
        else
            CUDA_TRY(nvs_kern_adamw(g->master, g->momentum, g->adam_v, g->grads, grad_elem_of(pl), pl->grad_elems,
                                    1.0f / (float)x->nranks, hp.lr, hp.beta1, hp.beta2, hp.eps, hp.weight_decay,
                                    ++g->adam_t, g->compute));
        return NVS_OK;
    }
    if (nvs_train_plan_opt_foreach(pl)) {
        CUDA_TRY(nvs_kern_axpb(g->momentum, pl->grad_elems, NVS_ELEM_F32, 0.9f, 0.0f, g->compute));
        CUDA_TRY(nvs_kern_axpy(g->momentum, g->grads, grad_elem_of(pl), pl->grad_elems, 1.0f / (float)x->nranks,
                               g->compute));
        CUDA_TRY(nvs_kern_axpy(g->master, g->momentum, NVS_ELEM_F32, pl->grad_elems, -1e-4f, g->compute));
        return NVS_OK;
    }
    CUDA_TRY(nvs_kern_sgd(g->master, g->momentum, g->grads, pl->grad_bf16, pl->grad_elems, 1.0f / (float)x->nranks,
                          1e-4f, 0.9f, g->compute));
    return NVS_OK;
}

/* A gradient scaler's unscale: every gradient read and written once (PyTorch's
 * _amp_foreach_non_finite_check_and_unscale_ multiplies by 1/scale and looks for inf/NaN in the same pass). */
static nvs_result_t gunscale(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    CUDA_TRY(nvs_kern_axpb(g->grads, pl->grad_elems, grad_elem_of(pl), 1.0f, 0.0f, g->compute));
    return NVS_OK;
}

static nvs_result_t gsync(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    NVS_CHECK(nvs_nccl_wait_stream(x->backend, x->comm, g->comm, "a gradient all-reduce of the training step"));
    return nvs_nccl_wait_stream(x->backend, x->comm, g->compute, "the training step's compute");
}

static nvs_result_t ggrad_to_bucket(nvs_train_exec *x, int l)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    if (!g->buckets) return NVS_OK;
    size_t es = pl->grad_bf16 ? 2 : 4, off = pl->grad_offset[l] * es;
    CUDA_TRY(cudaMemcpyAsync((char *)g->buckets + off, (char *)g->grads + off, (size_t)pl->profile->layers[l].params * es,
                             cudaMemcpyDeviceToDevice, g->compute));
    return NVS_OK;
}

static nvs_result_t gbucket_to_grad(nvs_train_exec *x, int b)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    if (!g->buckets) return NVS_OK;
    size_t es = pl->grad_bf16 ? 2 : 4, off = pl->buckets[b].offset_elems * es;
    CUDA_TRY(cudaMemcpyAsync((char *)g->grads + off, (char *)g->buckets + off, pl->buckets[b].bytes,
                             cudaMemcpyDeviceToDevice, g->compute));
    return NVS_OK;
}

/* DDP's buffer broadcast as torch/csrc/distributed/c10d/comm.cpp makes it: per dtype the buffers flattened (one
 * copy: they lie together here), the flat tensors broadcast from rank 0 on the communication stream (where
 * ProcessGroupNCCL runs its collectives) with the compute stream waiting for them, then every buffer copied back
 * on its own (copy_ of a small contiguous tensor: cudaMemcpyAsync), in the order of the module's buffers. */
static nvs_result_t gbuffers(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const size_t fbytes = (size_t)pl->buffer_floats * 4, lbytes = (size_t)pl->buffer_longs * 8;
    const cudaStream_t s = g->compute;
    CUDA_TRY(cudaMemcpyAsync(g->bufs_flat, g->bufs, fbytes, cudaMemcpyDeviceToDevice, s));
    CUDA_TRY(cudaMemcpyAsync(g->bufs_flat + fbytes, g->bufs + fbytes, lbytes, cudaMemcpyDeviceToDevice, s));
    CUDA_TRY(cudaEventRecord(g->buf_ev[0], s));
    CUDA_TRY(cudaStreamWaitEvent(g->comm, g->buf_ev[0], 0));
    ncclComm_t comm = nvs_nccl_comm(x->comm);
    ncclResult_t r = ncclBroadcast(g->bufs_flat, g->bufs_flat, fbytes / 4, ncclFloat32, 0, comm, g->comm);
    if (r == ncclSuccess)
        r = ncclBroadcast(g->bufs_flat + fbytes, g->bufs_flat + fbytes, lbytes / 8, ncclInt64, 0, comm, g->comm);
    if (r != ncclSuccess) {
        char what[96];
        snprintf(what, sizeof what, "ncclBroadcast of the module buffers (%zu bytes)", fbytes + lbytes);
        return nvs_nccl_fail(what, r, comm);
    }
    CUDA_TRY(cudaEventRecord(g->buf_ev[1], g->comm));
    CUDA_TRY(cudaStreamWaitEvent(s, g->buf_ev[1], 0));
    /* each buffer copied back on its own, in the plan's order (nvs_profile_buffers), as the host executor does */
    for (size_t i = 0, off = 0; i < (size_t)pl->buffers; off += pl->buffer_size[i++])
        CUDA_TRY(cudaMemcpyAsync(g->bufs + off, g->bufs_flat + off, pl->buffer_size[i], cudaMemcpyDeviceToDevice, s));
    return NVS_OK;
}

static nvs_result_t gmark(nvs_train_exec *x, int which)
{
    struct gpu_impl *g = G(x);
    CUDA_TRY(cudaEventRecord(g->mark[which ? 1 : 0], g->compute));
    return NVS_OK;
}

static nvs_result_t gspan(nvs_train_exec *x, double *us)
{
    struct gpu_impl *g = G(x);
    float ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&ms, g->mark[0], g->mark[1]));
    *us = (double)ms * 1e3;
    return NVS_OK;
}

static void gteardown(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    if (!g) return;
    /* after every workload, and after a failed one: a failure here is a warning (gpu_check.h), since a buffer
     * not freed is memory the next workload lacks */
    void *bufs[] = {g->weights, g->acts,     g->ws_x,  g->ws_dx,   g->ws_w,     g->master, g->momentum,
                    g->grads,   g->buckets, g->bn_stats, g->bufs, g->bufs_flat, g->ones, g->f32,
                    g->bias_staging, g->bias_sems, g->adam_v, g->adam_tmp};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) CUDA_CLEANUP(cudaFree(bufs[i]));
    if (g->bucket_ev)
        for (int b = 0; b < x->plan->nbuckets; b++)
            if (g->bucket_ev[b]) CUDA_CLEANUP(cudaEventDestroy(g->bucket_ev[b]));
    if (g->comm_done) CUDA_CLEANUP(cudaEventDestroy(g->comm_done));
    for (int i = 0; i < 2; i++) {
        if (g->mark[i]) CUDA_CLEANUP(cudaEventDestroy(g->mark[i]));
        if (g->buf_ev[i]) CUDA_CLEANUP(cudaEventDestroy(g->buf_ev[i]));
    }
    if (g->blas) BLAS_CLEANUP(cublasDestroy(g->blas));
    nvs_ln_bufs_free(&g->ln);
    nvs_train_exec_cudnn_off(x); /* before its stream goes */
    free(x->conv_native);
    x->conv_native = x->norm_native = NULL;
    free(g->bn_off);
    if (g->compute) CUDA_CLEANUP(cudaStreamDestroy(g->compute));
    if (g->comm) CUDA_CLEANUP(cudaStreamDestroy(g->comm));
    free(g->bucket_ev);
    free(g);
    x->impl = NULL;
}

static const struct nvs_train_exec_ops gpu_ops = {
    .name = "GPU", .setup = gsetup, .gemm = ggemm, .ew = gew, .copy_out = gcopy, .view_copy = gview, .cast_weights = gcast,
    .cast_act = gcast_act, .bias_grad = gbias, .grad_pass = ggrad,
    .bucket_ready = gbucket,
    .join_comm = gjoin, .unscale = gunscale, .optimizer = gopt, .sync = gsync, .mark = gmark, .span = gspan,
    .grad_to_bucket = ggrad_to_bucket, .bucket_to_grad = gbucket_to_grad, .memory = gmem, .norm = gnorm, .layer_norm = gln,
    .buffers = gbuffers,
    .teardown = gteardown};

nvs_result_t nvs_train_exec_gpu(nvs_train_exec *x)
{
    x->ops = &gpu_ops;
    x->impl = calloc(1, sizeof(struct gpu_impl));
    return x->impl ? NVS_OK : NVS_ERR_NOMEM;
}
