/* The optimizers of optimizer.h. */
#include "workload/optimizer.h"

#include <math.h>
#include <string.h>

int nvs_optimizer_parse(const char *s, nvs_optimizer *out, int *fused)
{
    if (!s) return -1;
    if (!strcmp(s, "sgd") || !strcmp(s, "adamw") || !strcmp(s, "adamw-fused")) {
        *out = s[0] == 's' ? NVS_OPT_SGD : NVS_OPT_ADAMW;
        *fused = !strcmp(s, "adamw-fused");
        return 0;
    }
    return -1;
}

const char *nvs_optimizer_name(nvs_optimizer o) { return o == NVS_OPT_ADAMW ? "adamw" : "sgd"; }

const char *nvs_optimizer_choices(void) { return "sgd, adamw or adamw-fused"; }

int nvs_optimizer_states(nvs_optimizer o) { return o == NVS_OPT_ADAMW ? 2 : 1; }

int nvs_optimizer_fp32_words(nvs_optimizer o, int foreach)
{
    return nvs_optimizer_states(o) + (o == NVS_OPT_ADAMW && foreach ? 1 : 0);
}

double nvs_optimizer_pass_bytes(nvs_optimizer o, int foreach, double grad_bytes)
{
    if (o == NVS_OPT_ADAMW) {
        /* Fused (torch._fused_adamw_, one kernel): read w, g, m, v; write w, m, v: 6 fp32 accesses and the gradient.
         * Foreach: torch/optim/adam.py _multi_tensor_adam (AdamW: decoupled weight decay, capturable=False, the
         * default) makes 8 passes over every parameter: _foreach_mul_(params) (w: read, write);
         * _foreach_lerp_(exp_avgs, grads) (m: read, write; g read); _foreach_mul_(exp_avg_sqs) (v: 2);
         * _foreach_addcmul_(exp_avg_sqs, grads, grads) (v: 2; g read, both operands the same tensor: once from memory);
         * exp_avg_sq_sqrt = _foreach_sqrt(exp_avg_sqs) (read v, write a temporary); _foreach_div_ and _foreach_add_
         * (eps) on it (2 each); _foreach_addcdiv_(params, exp_avgs, exp_avg_sq_sqrt) (read w, m, temporary; write w):
         * 18 fp32 accesses and the gradient twice */
        return foreach ? 4.0 * 18 + 2.0 * grad_bytes : 4.0 * 6 + grad_bytes;
    }
    /* SGD with momentum, one fused pass: read w, m (fp32), g; write w, m. As foreach passes (torch/optim/sgd.py
     * _multi_tensor_sgd): m *= mu (read, write m), m += g (read m, g; write m), w += -lr m (read w, m; write w) */
    return foreach ? 4.0 * 7 + grad_bytes : 4.0 * 4 + grad_bytes;
}

/* The torch.optim calls one step makes, with the defaults nvscale runs (no maximize, amsgrad or capturable; weight
 * decay on for AdamW, off for SGD; momentum 0.9 for SGD), counted in PyTorch's source (torch/optim/adam.py,
 * torch/optim/sgd.py, 2.3 onwards; AdamW is torch/optim/adamw.py's copy of the same code before 2.6, adam.py's
 * decoupled_weight_decay after), from the second step on (the first clones SGD's momentum):
 *   SGD foreach (_multi_tensor_sgd): _foreach_mul_(bufs, momentum), _foreach_add_(bufs, grads),
 *     _foreach_add_(params, bufs, alpha=-lr): 3. Fused (_fused_sgd: torch._fused_sgd_): 1.
 *   AdamW foreach (_multi_tensor_adam): _foreach_add_(state_steps, 1) (the steps are CPU tensors: still an
 *     operation dispatched), _foreach_mul_(params, 1 - lr wd), _foreach_lerp_(exp_avgs), _foreach_mul_(exp_avg_sqs),
 *     _foreach_addcmul_(exp_avg_sqs), _foreach_sqrt, _foreach_div_, _foreach_add_ (eps), _foreach_addcdiv_(params): 9
 *     (the 8 passes of nvs_optimizer_pass_bytes and the step count). Fused (_fused_adam): _foreach_add_(state_steps,
 *     1) and torch._fused_adamw_: 2 (a third, _foreach_sub_ of found_inf, only when a GradScaler hands it one).
 * Per-tensor Python work (_get_value's step.item() for the bias corrections) is not an operation: not counted.
 * SGD's foreach update stays counted as one operation (run.json ops_per_step and the tests that pin it). Its host
 * time no longer follows the count: under pytorch-ddp it is the update's per tensor (host_us_per_tensor below), and
 * the fit of host_us_per_op leaves the update out (tools/fidelity_fit.py). */
static const struct {
    double fused, foreach;
} host_ops[] = {
    [NVS_OPT_SGD] = {1, 1},
    [NVS_OPT_ADAMW] = {2, 9},
};

double nvs_optimizer_host_ops(nvs_optimizer o, int foreach)
{
    return foreach ? host_ops[o].foreach : host_ops[o].fused;
}

/* torch.optim's host time per parameter tensor for one update, its operations' dispatch included: tools/
 * optim_host_fit.py over tools/device/optim_host.py's records (results/fidelity/optim-host.md: BERT-large, lm290m
 * and ResNet-50, two rounds, one H100 VM's host, PyTorch 2.11), pooled: host_us_per_tensor: sgd 2.62, adamw 8.04,
 * adamw-fused 2.29. The cost goes with the tensors, not their elements (ResNet-50's 161 tensors of 26 M parameters
 * cost 2.0 us each with SGD, lm290m's 221 of 293 M 2.6): the Python loops of _init_group over every parameter
 * (its grad, its state), the grouping by device and dtype, the foreach calls' tensor lists, and for foreach AdamW
 * the bias corrections computed per tensor from each step's CPU tensor (_get_value). Counted as host operations
 * (host_ops above) at the framework's fitted host_us_per_op, the update was 0.03-0.3 ms where PyTorch spends 1-3.3
 * ms on BERT-large. Not counted: SGD without momentum (nvscale runs momentum 0.9). */
static const struct {
    double fused, foreach;
} host_us_per_tensor[] = {
    [NVS_OPT_SGD] = {2.62, 2.62}, /* fused SGD not measured: nvscale runs SGD as foreach */
    [NVS_OPT_ADAMW] = {2.29, 8.04},
};

double nvs_optimizer_host_us_per_tensor(nvs_optimizer o, int foreach)
{
    return foreach ? host_us_per_tensor[o].foreach : host_us_per_tensor[o].fused;
}

nvs_adamw_hyper nvs_adamw_defaults(void)
{
    /* torch.optim.AdamW: betas (0.9, 0.999), eps 1e-8, weight_decay 1e-2; lr 1e-4 as the SGD step uses */
    nvs_adamw_hyper h = {1e-4f, 0.9f, 0.999f, 1e-8f, 1e-2f};
    return h;
}

/* the update with the step's bias corrections bc1 = 1 - b1^t, bc2 = 1 - b2^t */
static inline void adamw_bc(float *w, float *m, float *v, float g, float bc1, float bc2, const nvs_adamw_hyper *h)
{
    *w *= 1.0f - h->lr * h->weight_decay;
    *m = h->beta1 * *m + (1.0f - h->beta1) * g;
    *v = h->beta2 * *v + (1.0f - h->beta2) * g * g;
    *w -= h->lr / bc1 * *m / (sqrtf(*v / bc2) + h->eps);
}

void nvs_adamw_elem(float *w, float *m, float *v, float g, long long t, const nvs_adamw_hyper *h)
{
    adamw_bc(w, m, v, g, 1.0f - powf(h->beta1, (float)t), 1.0f - powf(h->beta2, (float)t), h);
}

void nvs_adamw_update(float *w, float *m, float *v, const float *g, size_t n, float scale, long long t,
                      const nvs_adamw_hyper *h)
{
    /* powf per element made the host step's AdamW ~6x SGD's (9.6 against 1.5 ms, tiny-mlp at N=1) */
    const float bc1 = 1.0f - powf(h->beta1, (float)t), bc2 = 1.0f - powf(h->beta2, (float)t);
    for (size_t i = 0; i < n; i++) adamw_bc(&w[i], &m[i], &v[i], g[i] * scale, bc1, bc2, h);
}

/* PyTorch's lerp of one element, self + weight (end - self) (weight < 0.5, else end - (end - self)(1 - weight):
 * aten/src/ATen/native/Lerp.h); foreach pass 2, as collectives/kernels.cu lerp_kernel computes it */
static inline float lerpf(float self, float end, float weight)
{
    return weight < 0.5f ? self + weight * (end - self) : end - (end - self) * (1.0f - weight);
}

void nvs_adamw_foreach(float *w, float *m, float *v, float *tmp, const float *g, size_t n, float scale, long long t,
                       const nvs_adamw_hyper *h)
{
    const float bc1 = 1.0f - powf(h->beta1, (float)t), bc2_sqrt = sqrtf(1.0f - powf(h->beta2, (float)t));
    const float decay = 1.0f - h->lr * h->weight_decay, step_size = -(h->lr / bc1);
    for (size_t i = 0; i < n; i++) w[i] *= decay;
    for (size_t i = 0; i < n; i++) m[i] = lerpf(m[i], g[i] * scale, 1.0f - h->beta1);
    for (size_t i = 0; i < n; i++) v[i] *= h->beta2;
    for (size_t i = 0; i < n; i++) v[i] += (1.0f - h->beta2) * (g[i] * scale) * (g[i] * scale);
    for (size_t i = 0; i < n; i++) tmp[i] = sqrtf(v[i]);
    for (size_t i = 0; i < n; i++) tmp[i] /= bc2_sqrt;
    for (size_t i = 0; i < n; i++) tmp[i] += h->eps;
    for (size_t i = 0; i < n; i++) w[i] += step_size * (m[i] / tmp[i]);
}
