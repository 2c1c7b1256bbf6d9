/* PURE planning of the synthetic step: DDP buckets, gradient layout, memory, FLOPs. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train/reduce_plan.h"
#include "train/train.h"
#include "workload/buckets.h"


void nvs_train_plan_free(nvs_train_plan *plan)
{
    free(plan->buckets);
    free(plan->bucket_of_layer);
    free(plan->bucket_closes_at);
    free(plan->grad_offset);
    free(plan->w_off);
    free(plan->a_off);
    free(plan->buffer_size);
    memset(plan, 0, sizeof *plan);
}

nvs_result_t nvs_train_plan_make(const nvs_profile *p, int batch, nvs_precision prec, int grad_bf16,
                                 size_t first_bytes, size_t cap_bytes, nvs_train_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    int L = p->nlayers;
    plan->profile = p;
    plan->batch = batch;
    plan->precision = prec;
    plan->grad_bf16 = grad_bf16;
    plan->bucket_of_layer = malloc((size_t)L * sizeof(int));
    plan->bucket_closes_at = malloc((size_t)L * sizeof(int));
    plan->grad_offset = calloc((size_t)L, sizeof(size_t));
    plan->buckets = calloc((size_t)L + 1, sizeof *plan->buckets);
    plan->w_off = calloc((size_t)L + 1, sizeof(size_t));
    plan->a_off = calloc((size_t)L + 1, sizeof(size_t));
    plan->buffer_size = calloc((size_t)nvs_profile_buffers(p, NULL, NULL, NULL) + 1, sizeof(size_t));
    if (!plan->bucket_of_layer || !plan->bucket_closes_at || !plan->grad_offset || !plan->buckets || !plan->w_off ||
        !plan->a_off || !plan->buffer_size) {
        nvs_train_plan_free(plan);
        return NVS_ERR_NOMEM;
    }
    size_t gsize = grad_bf16 ? 2 : 4;
    nvs_ddp_bucket *ddp = malloc(((size_t)L + 1) * sizeof *ddp);
    if (!ddp) {
        nvs_train_plan_free(plan);
        return NVS_ERR_NOMEM;
    }
    int nb = nvs_ddp_buckets(p->layers, L, (double)gsize, (double)first_bytes, (double)cap_bytes, ddp, L + 1,
                             plan->bucket_of_layer);
    /* Gradients laid out in bucket order (reverse layers), each bucket contiguous: DDP's flat bucket views. */
    size_t offset = 0;
    for (int l = L - 1; l >= 0; l--) {
        plan->bucket_closes_at[l] = -1;
        int b = plan->bucket_of_layer[l];
        if (b < 0) continue;
        nvs_bucket *cur = &plan->buckets[b];
        if (ddp[b].first_layer == l) { /* the bucket's first gradient */
            cur->last_layer = l;
            cur->offset_elems = offset;
        }
        size_t n = (size_t)p->layers[l].params;
        plan->grad_offset[l] = offset;
        cur->first_layer = l;
        cur->elems += n;
        cur->bytes += n * gsize;
        offset += n;
    }
    free(ddp);
    plan->nbuckets = nb;
    for (int b = 0; b < nb; b++) plan->bucket_closes_at[plan->buckets[b].first_layer] = b;
    plan->grad_elems = offset;

    size_t es = nvs_precision_bytes(prec);
    size_t wtot = 0, atot = 0;
    for (int l = 0; l < L; l++) {
        const nvs_layer *ly = &p->layers[l];
        /* each layer's weights and output start on a 128-element boundary (256 bytes at bf16/fp16, 512 at fp32):
         * at least the alignment cudaMalloc gives, which cuBLAS's and cuDNN's fastest kernels need and with which
         * cuDNN's Find timed its candidates (an ssd300 head's output is 6 elements past one otherwise) */
        wtot = (wtot + 127) / 128 * 128;
        atot = (atot + 127) / 128 * 128;
        plan->w_off[l] = wtot;
        plan->a_off[l] = atot;
        size_t w = (size_t)(ly->gemm_n * ly->gemm_k);
        wtot += w;
        atot += (size_t)(fmax(ly->act_elems, ly->gemm_m * ly->gemm_n) * batch); /* the stored output */
        size_t x = (size_t)(ly->gemm_m * batch * ly->gemm_k); /* GEMM input (im2col for a convolution) */
        if (nvs_layer_has_geom(ly)) { /* or the convolution's own input, larger for a strided 1x1 (train/conv.h) */
            size_t in = (size_t)(nvs_layer_geom_channels(ly) * ly->geom.h * ly->geom.w * batch);
            if (in > x) x = in;
        }
        if (ly->bn_passes > 0 && (size_t)(ly->act_elems * batch) > x) /* a batch norm's output and its gradient */
            x = (size_t)(ly->act_elems * batch);
        /* a copy through a view (perm=, under a framework with view_copies) lands in the input-gradient scratch */
        if (ly->perm_passes > 0 && (size_t)(ly->act_elems * batch) > x)
            x = (size_t)(ly->act_elems * batch);
        /* a LayerNorm in its kernels (ln=): output and gradient in the scratch, at 4 bytes where autocast makes it
         * fp32; its parameters' gradients in the fp32 weight scratch */
        if (ly->ln_passes > 0 && (size_t)(ly->act_elems * batch * (ly->ew32_passes > 0 ? 4.0 / es : 1)) > x)
            x = (size_t)(ly->act_elems * batch * (ly->ew32_passes > 0 ? 4.0 / es : 1));
        if (ly->ln_passes > 0 && (size_t)ly->params > w) w = (size_t)ly->params;
        if (ly->bn_passes > 0 && (size_t)ly->params > w) w = (size_t)ly->params; /* its fp32 parameter gradients */
        if (nvs_layer_bias_elems(ly) > 0 && (size_t)(ly->gemm_m * batch) > plan->max_bias_rows)
            plan->max_bias_rows = (size_t)(ly->gemm_m * batch);
        if (nvs_layer_bias_elems(ly) > 0 && nvs_layer_bias_elems(ly) <= INT_MAX) {
            size_t st = nvs_outer_sum_staging_max((long long)(ly->gemm_m * batch), (int)nvs_layer_bias_elems(ly));
            if (st > plan->bias_staging_elems) plan->bias_staging_elems = st;
        }
        if (x > plan->max_x_elems) plan->max_x_elems = x;
        if (w > plan->max_w_elems) plan->max_w_elems = w;
        double f = nvs_layer_fwd_flops(ly) * batch;
        plan->fwd_flops += f;
        /* backward, as step.c issues it: none for a frozen layer (autograd never reaches it), else the weight
         * gradient, and the input gradient where the layer's input needs one (not the first layer's, nor one after a
         * frozen layer: framework.h nvs_layer_no_input_grad) */
        plan->step_flops += f + (ly->nograd ? 0 : nvs_layer_no_input_grad(p, l) ? f : 2 * f);
    }
    plan->w_off[L] = wtot;
    plan->a_off[L] = atot;
    plan->weight_bytes = (double)wtot * (double)es;
    plan->act_bytes = (double)atot * (double)es;
    /* fp32 master weights + the optimizer's fp32 states for every parameter (SGD with momentum keeps one buffer;
     * nvs_train_plan_set_optimizer changes it) */
    plan->optimizer = NVS_OPT_SGD;
    plan->optimizer_fused = 0;
    plan->master_bytes = (double)plan->grad_elems * 4.0 * (1.0 + nvs_optimizer_states(plan->optimizer));
    plan->grad_bytes = (double)plan->grad_elems * (double)gsize;
    /* two scratch buffers of the largest GEMM input (forward input / input gradient), an fp32 one of the largest
     * weight matrix (weight-gradient scratch for GEMMs without parameters, or before a cast to bf16 gradients),
     * the bias gradients' ones, the staging of their reduction (framework.h bias_reduce), and 64 MiB for cuBLAS's
     * workspace */
    plan->workspace_bytes = 2.0 * (double)plan->max_x_elems * (double)es + (double)plan->max_w_elems * 4.0 +
                            (double)plan->max_bias_rows * (double)es + (double)plan->bias_staging_elems * 4.0 +
                            64.0 * 1024 * 1024;
    plan->total_bytes = plan->weight_bytes + plan->master_bytes + plan->grad_bytes + plan->act_bytes +
                        plan->workspace_bytes;
    plan->framework = nvs_framework_find("ideal");
    return NVS_OK;
}

int nvs_train_plan_opt_foreach(const nvs_train_plan *plan)
{
    return plan->framework->optimizer_foreach && !plan->optimizer_fused;
}

/* fp32 master weights, the optimizer's states, and foreach AdamW's temporary (torch/optim/adam.py
 * _multi_tensor_adam: exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs), as large as the parameters) */
static void set_master_bytes(nvs_train_plan *plan)
{
    plan->total_bytes -= plan->master_bytes;
    plan->master_bytes = (double)plan->grad_elems * 4.0 *
                         (1.0 + nvs_optimizer_fp32_words(plan->optimizer, nvs_train_plan_opt_foreach(plan)));
    plan->total_bytes += plan->master_bytes;
}

void nvs_train_plan_set_framework(nvs_train_plan *plan, const nvs_framework *fw)
{
    plan->framework = fw ? fw : nvs_framework_find("ideal");
    set_master_bytes(plan);
    plan->total_bytes -= plan->bucket_bytes + plan->buffer_bytes + plan->f32_bytes;
    plan->f32_elems = 0;
    for (int l = 0; l < plan->profile->nlayers; l++) {
        const nvs_layer *ly = &plan->profile->layers[l];
        size_t n = (size_t)(ly->act_elems * plan->batch);
        if (nvs_framework_ew32_passes(plan->framework, ly, plan->precision) > 0 && n > plan->f32_elems)
            plan->f32_elems = n;
    }
    plan->f32_bytes = (double)plan->f32_elems * 4.0;
    plan->bucket_bytes = plan->framework->bucket_copy ? plan->grad_bytes : 0.0;
    plan->buffers = plan->buffer_longs = 0;
    plan->buffer_floats = plan->buffer_bytes = 0;
    if (plan->framework->broadcast_buffers) {
        plan->buffers =
            nvs_profile_buffers(plan->profile, &plan->buffer_floats, &plan->buffer_longs, plan->buffer_size);
        /* the buffers, and their flat copy for the broadcast */
        plan->buffer_bytes = 2.0 * (plan->buffer_floats * 4.0 + plan->buffer_longs * 8.0);
    }
    plan->total_bytes += plan->bucket_bytes + plan->buffer_bytes + plan->f32_bytes;
}

void nvs_train_plan_set_optimizer(nvs_train_plan *plan, nvs_optimizer o, int fused)
{
    plan->optimizer = o;
    plan->optimizer_fused = fused != 0;
    set_master_bytes(plan);
}

int nvs_train_plan_rows_over_int(const nvs_train_plan *plan)
{
    for (int l = 0; l < plan->profile->nlayers; l++)
        if (plan->profile->layers[l].gemm_m * plan->batch > INT_MAX) return l;
    return -1;
}

double nvs_predict_allreduce_us(const double *sizes, const double *t, int n, double bytes)
{
    if (n <= 0 || bytes <= 0) return 0;
    if (n == 1) return t[0] * (bytes > sizes[0] ? bytes / sizes[0] : 1.0);
    if (bytes <= sizes[0]) return t[0];
    if (bytes >= sizes[n - 1]) {
        /* beyond the sweep: the last interval's bandwidth carries on */
        double slope = (t[n - 1] - t[n - 2]) / (sizes[n - 1] - sizes[n - 2]);
        if (slope < 0) slope = t[n - 1] / sizes[n - 1];
        return t[n - 1] + slope * (bytes - sizes[n - 1]);
    }
    for (int i = 1; i < n; i++) {
        if (bytes <= sizes[i]) {
            double x0 = log(sizes[i - 1]), x1 = log(sizes[i]);
            double y0 = log(t[i - 1] > 0 ? t[i - 1] : 1e-9), y1 = log(t[i] > 0 ? t[i] : 1e-9);
            double f = (log(bytes) - x0) / (x1 - x0);
            return exp(y0 + f * (y1 - y0));
        }
    }
    return t[n - 1];
}
