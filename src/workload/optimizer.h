/* The optimizer a training step runs after its last all-reduce (PURE data and formulas): which one, the fp32 state
 * it keeps per parameter, the bytes one update moves per parameter, and AdamW's update rule for one element. An
 * explicit option (--optimizer on train/run and model), written into run.json: real large-model training (BERT, LMs)
 * uses AdamW, whose two states change what batch fits in a GPU's memory and how long the update takes.
 *
 *   sgd     torch.optim.SGD with momentum (the default, what nvscale has always run): one fp32 momentum buffer.
 *   adamw   torch.optim.AdamW (decoupled weight decay): two fp32 buffers, exp_avg (m) and exp_avg_sq (v). */
#ifndef NVS_OPTIMIZER_H
#define NVS_OPTIMIZER_H

#include <stddef.h>

typedef enum { NVS_OPT_SGD = 0, NVS_OPT_ADAMW = 1 } nvs_optimizer;

/* 0 and *out set; -1 when s is not one of nvs_optimizer_choices(). */
int nvs_optimizer_parse(const char *s, nvs_optimizer *out);
const char *nvs_optimizer_name(nvs_optimizer o);
/* "sgd or adamw", for messages. */
const char *nvs_optimizer_choices(void);
/* fp32 state buffers per parameter: SGD's momentum (1), AdamW's m and v (2) */
int nvs_optimizer_states(nvs_optimizer o);
/* Bytes one optimizer update moves per parameter (fp32 master weights and states, gradients of grad_bytes each),
 * fused into one pass (foreach = 0) or as the foreach passes PyTorch runs on CUDA tensors by default
 * (framework.h optimizer_foreach). optimizer.c says where each count comes from. */
double nvs_optimizer_pass_bytes(nvs_optimizer o, int foreach, double grad_bytes);

/* AdamW's hyperparameters (torch.optim.AdamW's defaults but lr: the values do not change the step's time) */
typedef struct {
    float lr, beta1, beta2, eps, weight_decay;
} nvs_adamw_hyper;
nvs_adamw_hyper nvs_adamw_defaults(void);
/* One element's AdamW update at step t (1, 2, ...), gradient g (already averaged), as torch.optim.AdamW computes it:
 * w *= 1 - lr wd; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; w -= lr / (1 - b1^t) * m / (sqrt(v / (1 - b2^t)) +
 * eps). The host executor (train/train_host.c) runs it (nvs_adamw_update); the GPU kernel (collectives/kernels.cu nvs_kern_adamw) and
 * the unit tests check against it. */
void nvs_adamw_elem(float *w, float *m, float *v, float g, long long t, const nvs_adamw_hyper *h);
/* The same update over n elements, gradients g[i] * scale, with the bias corrections computed once for the step (as a
 * fused kernel does): what the host executor runs; element for element equal to nvs_adamw_elem */
void nvs_adamw_update(float *w, float *m, float *v, const float *g, size_t n, float scale, long long t,
                      const nvs_adamw_hyper *h);

#endif
