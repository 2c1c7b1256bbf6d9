/* The GPU executor's memory-bound passes on the compute stream: element-wise passes over a layer's output,
 * autocast's casts of an fp32 output into 16 bits and back, layout copies, copies through a swapped view
 * (train/view_kernels.h), and the gradient pass of a layer without a GEMM. */
#include <cuda_runtime_api.h>
#include <math.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "train/train_exec.h"
#include "train/train_gpu_priv.h"
#include "train/view_kernels.h"

nvs_result_t nvs_tg_ew(nvs_train_exec *x, int l, double passes, int fp32)
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

/* Autocast's cast of layer l's fp32 output (autocast's fp32 tensor) into its 16-bit output, which the next GEMM
 * reads; backward, the 16-bit gradient cast back into fp32 */
nvs_result_t nvs_tg_cast_act(nvs_train_exec *x, int l, int backward)
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

nvs_result_t nvs_tg_copy(nvs_train_exec *x, int l, double copies)
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
nvs_result_t nvs_tg_view(nvs_train_exec *x, int l, double passes, int backward)
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

nvs_result_t nvs_tg_grad(nvs_train_exec *x, int l)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    size_t es = pl->grad_bf16 ? 2 : 4;
    CUDA_TRY(nvs_kern_axpb((char *)g->grads + pl->grad_offset[l] * es, (size_t)pl->profile->layers[l].params,
                           pl->grad_bf16, 0.5f, 0.0f, g->compute));
    return NVS_OK;
}
