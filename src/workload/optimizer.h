/* The optimizer a training step runs after its last all-reduce (PURE data and formulas): which one, the fp32 state
 * it keeps per parameter, the bytes one update moves per parameter, and AdamW's update rule for one element. An
 * explicit option (--optimizer on train/run and model), written into run.json: real large-model training (BERT, LMs)
 * uses AdamW, whose two states change what batch fits in a GPU's memory and how long the update takes.
 *
 *   sgd     torch.optim.SGD with momentum (the default, what nvscale has always run): one fp32 momentum buffer.
 *   adamw   torch.optim.AdamW (decoupled weight decay): two fp32 buffers, exp_avg (m) and exp_avg_sq (v), updated
 *           as the framework's default runs it (pytorch-ddp: the foreach passes, nvs_adamw_foreach; ideal: fused)
 *   adamw-fused  the same, always as one fused pass: torch.optim.AdamW(params, fused=True) */
#ifndef NVS_OPTIMIZER_H
#define NVS_OPTIMIZER_H

#include <stddef.h>

typedef enum { NVS_OPT_SGD = 0, NVS_OPT_ADAMW = 1 } nvs_optimizer;

/* 0 and *out set, *fused to 1 for adamw-fused (else 0); -1 when s is not one of nvs_optimizer_choices(). */
int nvs_optimizer_parse(const char *s, nvs_optimizer *out, int *fused);
const char *nvs_optimizer_name(nvs_optimizer o);
/* "sgd, adamw or adamw-fused", for messages. */
const char *nvs_optimizer_choices(void);
/* fp32 state buffers per parameter: SGD's momentum (1), AdamW's m and v (2) */
int nvs_optimizer_states(nvs_optimizer o);
/* fp32 words per parameter the update keeps at its peak: the states, plus foreach AdamW's temporary
 * exp_avg_sq_sqrt, as large as the parameters (torch/optim/adam.py _multi_tensor_adam: torch._foreach_sqrt of
 * exp_avg_sqs allocates it; the fused kernel and SGD's foreach passes need none). What the step allocates
 * (train_plan.c) and what the what-if model's memory estimate counts (model/model_mem.c), from one place. */
int nvs_optimizer_fp32_words(nvs_optimizer o, int foreach);
/* Bytes one optimizer update moves per parameter (fp32 master weights and states, gradients of grad_bytes each),
 * fused into one pass (foreach = 0) or as the foreach passes PyTorch runs on CUDA tensors by default
 * (framework.h optimizer_foreach). optimizer.c says where each count comes from. */
double nvs_optimizer_pass_bytes(nvs_optimizer o, int foreach, double grad_bytes);
/* The operations PyTorch dispatches for one update of optimizer o over all its tensors (one device, one dtype), as
 * its foreach path (foreach = 1: torch.optim's default on CUDA tensors) or its fused one (foreach = 0: fused=True):
 * each a host operation of the framework (framework.h nvs_framework_optimizer_ops). optimizer.c says where each
 * count comes from. */
double nvs_optimizer_host_ops(nvs_optimizer o, int foreach);
/* The host time, in microseconds per parameter tensor, PyTorch takes for one such update, its operations' dispatch
 * included (measured: optimizer.c says where) */
double nvs_optimizer_host_us_per_tensor(nvs_optimizer o, int foreach);

/* AdamW's hyperparameters (torch.optim.AdamW's defaults but lr: the values do not change the step's time) */
typedef struct {
    float lr, beta1, beta2, eps, weight_decay;
} nvs_adamw_hyper;
nvs_adamw_hyper nvs_adamw_defaults(void);
/* One element's AdamW update at step t (1, 2, ...), gradient g (already averaged), as torch.optim.AdamW computes it:
 * w *= 1 - lr wd; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; w -= lr / (1 - b1^t) * m / (sqrt(v / (1 - b2^t)) +
 * eps). The host executor (train/train_host.c) runs it (nvs_adamw_update); the GPU kernel (collectives/kernels.cu
 * nvs_kern_adamw) and the unit tests check against it. */
void nvs_adamw_elem(float *w, float *m, float *v, float g, long long t, const nvs_adamw_hyper *h);
/* The same update over n elements, gradients g[i] * scale, with the bias corrections computed once for the step (as a
 * fused kernel does): what the host executor runs; element for element equal to nvs_adamw_elem */
void nvs_adamw_update(float *w, float *m, float *v, const float *g, size_t n, float scale, long long t,
                      const nvs_adamw_hyper *h);
/* The same update as PyTorch's foreach path runs it (torch.optim.AdamW(params) on CUDA tensors, no fused=/foreach=:
 * torch/optim/adam.py _multi_tensor_adam, decoupled weight decay, capturable=False), one pass over the n elements
 * per foreach operation, in its order, with the temporary exp_avg_sq_sqrt in tmp (n floats):
 *   1 _foreach_mul_(params, 1 - lr wd)           5 tmp = _foreach_sqrt(exp_avg_sqs)
 *   2 _foreach_lerp_(exp_avgs, grads, 1 - b1)    6 _foreach_div_(tmp, sqrt(1 - b2^t))
 *   3 _foreach_mul_(exp_avg_sqs, b2)             7 _foreach_add_(tmp, eps)
 *   4 _foreach_addcmul_(exp_avg_sqs, g, g, 1-b2) 8 _foreach_addcdiv_(params, exp_avgs, tmp, -lr / (1 - b1^t))
 * The host executor's update under a foreach framework, and the reference of the GPU's (collectives/kernels.cu
 * nvs_kern_adamw_foreach). Equal to nvs_adamw_update within fp32 rounding (lerp and sqrt(v)/sqrt(bc2) round
 * differently from b1 m + (1 - b1) g and sqrt(v / bc2)). */
void nvs_adamw_foreach(float *w, float *m, float *v, float *tmp, const float *g, size_t n, float scale, long long t,
                       const nvs_adamw_hyper *h);

#endif
