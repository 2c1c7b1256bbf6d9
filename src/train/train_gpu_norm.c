/* The GPU executor's normalizations: batch norms in cuDNN or in nvscale's kernels (train/norm_kernels.h), as
 * train_gpu_cudnn.c assigned them, and LayerNorms in the LayerNorm kernels (train/ln_kernels.h), forward and
 * backward with their parameters' gradients. */
#include <cuda_runtime_api.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "train/conv_cudnn.h"
#include "train/ln_kernels.h"
#include "train/ln_step.h"
#include "train/norm_kernels.h"
#include "train/train_exec.h"
#include "train/train_gpu_priv.h"

/* Layer l's batch norm, in cuDNN or in the executor's own kernels (norm_native[l]): its stored output stands for
 * its input, the input-gradient scratch for its output (forward) and for the gradient arriving (backward); scale
 * and bias are the fp32 master parameters, their gradients go straight into aligned fp32 gradients, otherwise
 * through fp32 scratch. */
nvs_result_t nvs_tg_norm(nvs_train_exec *x, int l, int backward)
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
 * scratch, the weight and bias gradients as nvs_tg_norm writes a batch norm's. gamma, beta: the layer's own, aligned as
 * PyTorch's parameter tensors are (ln_step.h). */
nvs_result_t nvs_tg_ln(nvs_train_exec *x, int l, int backward, int fp32)
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
