/* The GPU executor's optimizer step (SGD with momentum or AdamW, fused or as the framework's foreach passes) and
 * a gradient scaler's unscale before it. */
#include <cuda_runtime_api.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "train/train_exec.h"
#include "train/train_gpu_priv.h"
#include "workload/optimizer.h"

nvs_result_t nvs_tg_opt(nvs_train_exec *x)
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
nvs_result_t nvs_tg_unscale(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    CUDA_TRY(nvs_kern_axpb(g->grads, pl->grad_elems, grad_elem_of(pl), 1.0f, 0.0f, g->compute));
    return NVS_OK;
}
