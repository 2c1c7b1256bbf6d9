/* The what-if model's memory estimate of a step on one GPU, and the largest batch that fits. Formulas and
 * assumptions: model.h, docs/model.md. */
#include "model/model.h"

#include <math.h>
#include <string.h>

/* --- memory ---------------------------------------------------------------------------------------------------- */

void nvs_memory_estimate(const nvs_layer *layers, int nlayers, double params, const nvs_gpu_spec *g,
                         nvs_precision p, double grad_bytes, nvs_optimizer opt, int foreach, nvs_mem_estimate *out)
{
    memset(out, 0, sizeof *out);
    double esz = (double)nvs_precision_bytes(p);
    /* autocast / AMP keeps a 16-bit copy of the weights beside the fp32 master weights */
    out->weights_bytes = params * 4.0 + (nvs_precision_info_of(p)->half ? params * 2.0 : 0);
    out->grads_bytes = params * grad_bytes;
    out->buckets_bytes = params * grad_bytes; /* DDP copies gradients into its buckets (no bucket views) */
    /* fp32 state: SGD's momentum buffer, AdamW's exp_avg and exp_avg_sq, and foreach AdamW's temporary
     * (workload/optimizer.h nvs_optimizer_fp32_words) */
    out->optimizer_bytes = params * 4.0 * nvs_optimizer_fp32_words(opt, foreach);
    /* 1 GiB: CUDA context (~0.3-0.5 GiB per process as nvidia-smi shows) plus cuBLAS/cuDNN workspaces; 5% of
     * the card: caching-allocator fragmentation. An assumption, documented in docs/model.md. */
    out->reserve_bytes = 1073741824.0 + 0.05 * g->memory_bytes;
    double keep = 0, peak_grad = 0;
    for (int i = 0; i < nlayers; i++) {
        /* what autograd saves: every layer's output once (the next layer's input); a GEMM layer followed by
         * elementwise passes (bias + activation, dropout, residual) keeps a second tensor of that size, the
         * GEMM's raw output the activation's backward needs. A layer without a GEMM (norm, pooling) only keeps
         * its output: its input is the previous layer's, already counted, and an in-place ReLU after a
         * batch-norm shares its storage (conv -> BN -> ReLU keeps two tensors, as PyTorch does). `act` is
         * optional in a profile (docs/profiles.md): without it the output is the GEMM's M x N per sample, as the
         * training step's plan stores it (train_plan.c) */
        double act = layers[i].act_elems > 0 ? layers[i].act_elems : layers[i].gemm_m * layers[i].gemm_n;
        double a = act * esz;
        int gemm = layers[i].gemm_m > 0;
        if (layers[i].nograd) {
            /* a frozen stem saves nothing; its last output is the first trainable layer's input */
            if (i + 1 < nlayers && !layers[i + 1].nograd) keep += a;
            continue;
        }
        keep += a * (gemm && layers[i].ew_passes > 0 ? 2.0 : 1.0);
        if (2.0 * a > peak_grad) peak_grad = 2.0 * a; /* incoming + outgoing activation gradient */
    }
    out->per_sample_bytes = keep + peak_grad;
    double fixed = out->weights_bytes + out->grads_bytes + out->buckets_bytes + out->optimizer_bytes +
                   out->reserve_bytes;
    double room = g->memory_bytes - fixed;
    if (room <= 0) {
        out->max_batch = 0;
        return;
    }
    /* nothing that grows with the batch (no activations, no GEMM): memory does not bound it */
    double b = out->per_sample_bytes > 0 ? floor(room / out->per_sample_bytes) : INFINITY;
    out->fit_batch = b;
    out->batch_capped = b > NVS_MODEL_MAX_BATCH;
    out->max_batch = out->batch_capped ? NVS_MODEL_MAX_BATCH : (int)b;
}
