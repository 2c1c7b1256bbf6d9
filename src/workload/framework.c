/* The frameworks of framework.h. */
#include "workload/framework.h"

#include <string.h>

static const nvs_framework frameworks[] = {
    {"pytorch-ddp",
     "PyTorch eager + DistributedDataParallel (defaults): host work per operation and per bucket, bucket copies, "
     "NCHW layout copies around convolutions at bf16/fp16, a gradient scaler at fp16, its buffers broadcast "
     "before each synchronised forward, autocast's weight casts and fp32 residual stream at bf16/fp16, the optimizer "
     "as foreach passes",
     /* Fitted on ONE configuration, declared: lm290m at bf16, batch 8, on H200 (PyTorch 2.11), a host-bound step
      * (results/diag-issue9: 38.3 ms while the GPU was busy 25.9 ms). Its profile (tools/profiles/lm290m.prof)
      * dispatches 1,297 operations per step at bf16 (ops= 241 forward + 692 backward,
      * 182 casts each way) and SGD's update of its 221 tensors. Over the 34 runs of that configuration in results/
      * (30 November - 1 December 2026; results/fidelity/fit.md, made by tools/fidelity_fit.py), the plain 1-GPU
      * step's median is 42.8 ms; less the update's 221 x 2.62 us (torch.optim's measured host time per tensor:
      * optimizer.c), / 1,297 = 32.5 us per operation (32.9 when the update was counted as one operation); DDP at
      * world 1 took a median 9.8 ms more, over its 29 buckets: 338 us per bucket. Every other configuration
      * validates these: in the same runs bert-large-mlm128's medians are 65.6 and 77.4 ms, against 67.9 and 80.8
      * ms by these counts (2,057 operations, 394 tensors, 38 buckets;
      * 64.6 and 77.5 ms before the casts of a LayerNorm's output for each of query, key and value were counted), and
      * resnet50's host work, 17 ms, stays below its GPU work as PyTorch's does. In one call's profile DDP
      * at world 1 cost lm290m and bert-large-mlm128 283 and 284 us per bucket, but 37 and 27 us per parameter
      * tensor: the reducer's cost goes with its buckets (results/h200x1-census, docs/fidelity.md). */
     32.5, 338.0, 1, 1,
     /* Counted, not fitted: PyTorch 2.11's profile of resnet50 at bf16, batch 128, on H200 (results/h200x1-census,
      * raw/pt-prof.jsonl, gpu1_nodp) has cuDNN's nchwToNhwc and nhwcToNchw kernels 78 times in the forward pass
      * (47 + 31) and 167 times in the backward (120 + 47) for its 53 convolutions, 6.5 ms of a 53.4 ms busy GPU;
      * each transform reads a convolution's input or output (or output gradient) once and writes it once. The
      * copies are of the output: over a bottleneck block the inputs and outputs of its convolutions add up to
      * the same (docs/fidelity.md). At fp32 cuDNN takes NCHW for nearly all: 18 transforms per step in the same
      * census, none among the profile's costliest kernels; not modelled. */
     78.0 / 53, 167.0 / 53,
     /* GradScaler at fp16, as torch/amp/grad_scaler.py does it: scale(loss), unscale_ (one foreach operation
      * over the gradients), a found_inf.item() sync in step(), update() */
     1,
     /* broadcast_buffers=True, DDP's default. PyTorch's ResNet-50 DDP step at world 1 is 3.5-4.9 ms longer than
      * the plain one at every precision and batch, GPU-bound or not (fp32 batch 128: 131.7 against 127.2 ms,
      * bf16 59.3 / 55.5, fp16 50.6 / 45.7; results/h200x1-census, -census-fp16), and its profile shows the GPU
      * idle the more (2.0 -> 6.4 % at fp32): its 159 buffers are copied back one by one before the forward's
      * first kernel. lm290m has no buffers. The cost per operation is measured by turning the broadcast off
      * (tools/ddp_bench.py --no-broadcast-buffers) in the same calls: over ResNet-50 at fp32, bf16 and fp16,
      * batch 128 (two calls) and 64, the DDP step at world 1 loses a median 2.98 ms more with it than without
      * (results/h200x1-buffers, -buffers-r2, -buffers-b64; docs/fidelity.md): 2.98 ms / 163 operations. */
     1, 18.3,
     /* autocast's weight casts and the foreach optimizer: PyTorch 2.11's profile of lm290m at bf16, batch 8, DDP at
      * world 1 on H200 (results/h200x1-tfm-census2, census.txt) has 182 bfloat16_copy_kernel launches in the forward
      * (0.83 ms per step) and 182 direct_copy_kernel launches in the backward (bf16 to fp32, 1.44 ms): one per
      * parameter tensor of its GEMM layers (145) and per LayerNorm output (37: autocast_fp32 below); and 45
      * multi_tensor_apply_kernel launches in the optimizer, 2.45 ms, where one fused pass of 20 bytes per
      * parameter took nvscale's step 1.67 ms (ncu-lm290m-bf16-sum.txt) */
     1, 1,
     /* autocast's fp32 residual stream and LayerNorms: the same profile (census.txt) has 37 LayerNorm forward kernels
      * in fp32 (vectorized_layer_norm_kernel<float, float>, 0.54 ms), 36 fp32 adds of a bf16 output to the stream
      * (0.66 ms), their backward in fp32 (layer_norm_grad_input and GammaBetaBackward<float>, 1.37 ms; fp32 adds
      * 0.45 ms), and the 37 casts of a LayerNorm's output to bf16 for the next GEMM (among the 182 forward casts) with
      * their 37 gradients' casts back */
     1,
     /* the bias gradients: PyTorch 2.11's profile of BERT-large at bf16 (results/h200x1-tfm-census6, census-nodp.txt)
      * has 145 reduce_kernel<128, 4> launches in the backward, one per Linear bias, 2.06 ms per step; lm290m's 72,
      * 1.19 ms; at fp32 146 and 73 (2.44 and 1.54 ms) */
     1,
     /* the copies through views: the same profile of lm290m has the head split and merge as elementwise_kernel<128,
      * 4> direct copies, 36 forward (0.73 ms) and 36 backward (0.75 ms) beside 18 elementwise_kernel<128, 2> (0.25
      * ms; results/h200x1-tfm-census9, census-nodp.txt); BERT's SDPA takes strided heads and has none */
     1,
     /* torch.optim's host time per tensor: optimizer.c, from tools/device/optim_host.py on one H100 VM's host
      * (results/fidelity/optim-host.md) */
     1,
     /* cuDNN's host work per convolution execution, measured on ResNet-50's host time, not on its step: PyTorch
      * 2.11's plain 1-GPU step (step_nodp_1_detail.host_us, the time the host took to issue it; bf16 and fp32 have
      * no wait inside it, fp16's GradScaler does and is left out) has a median 19.8-21.2 ms at fp32 and 23.0-24.4
      * at bf16 over batch 64, 128 and 256 (the median record of each; 179 records on H200 in results/), where
      * its operations at host_us_per_op come to 13.6 and 17.3 ms. The excess does not grow with the batch, is the
      * same at fp32 and bf16 (so not the 227 more layout-transform launches bf16 makes, nor autocast: the casts
      * account for the whole bf16 - fp32 difference, 112 x 32.5 us), and lm290m and BERT, which have no
      * convolutions, have none (their medians are what host_us_per_op predicts): it goes with ResNet-50's 53
      * forward convolutions and 105 backward executions (convolution_backward runs cuDNN twice, the input and the
      * weight gradient; the first layer once). Pooled over those records the excess has a median of 6.37 ms:
      * / 158 = 40.3 us per execution (36-48 us at each precision and batch). docs/fidelity.md, "ResNet-50's host
      * time per convolution". */
     40.3,
     "fitted on lm290m bf16 batch 8, H200, PyTorch 2.11: medians of 34 runs of the 1-GPU step without DDP and with "
     "DDP at world 1 (tools/fidelity_fit.py); operations per layer from tools/gen_profiles.py; NCHW layout copies "
     "counted in PyTorch's profile of resnet50 bf16 (results/h200x1-census); torch.optim's host time per tensor "
     "measured on an H100 VM (tools/optim_host_fit.py)"},
    {"ideal", "the hardware alone: kernels queued at once, gradients written straight into the buckets", 0.0, 0.0, 0,
     0, 0.0, 0.0, 0, 0, 0.0, 0, 0, 0, 0, 0, 0, 0.0, "no framework cost"},
};
#define NFW ((int)(sizeof frameworks / sizeof frameworks[0]))

const nvs_framework *nvs_framework_find(const char *name)
{
    for (int i = 0; name && i < NFW; i++)
        if (!strcmp(name, frameworks[i].name)) return &frameworks[i];
    return NULL;
}

const nvs_framework *nvs_framework_default(void) { return &frameworks[0]; }

const char *nvs_framework_choices(void) { return "pytorch-ddp|ideal"; }

nvs_framework nvs_framework_gpu_only(const nvs_framework *fw)
{
    nvs_framework g = *fw;
    g.host_us_per_op = g.reducer_us_per_bucket = g.host_us_per_buffer_op = g.host_us_per_conv_call = 0;
    g.optimizer_host_per_tensor = 0;
    return g;
}

int nvs_framework_has_host_work(const nvs_framework *fw)
{
    return fw->host_us_per_op > 0 || fw->reducer_us_per_bucket > 0 || fw->host_us_per_buffer_op > 0 ||
           fw->host_us_per_conv_call > 0 || fw->optimizer_host_per_tensor;
}

int nvs_layer_no_input_grad(const nvs_profile *p, int l) { return l == 0 || p->layers[l - 1].nograd; }

double nvs_layer_param_tensors(const nvs_layer *ly)
{
    if (ly->tensors >= 0) return ly->tensors;
    return ly->params >= 2 ? 2 : ly->params > 0 ? 1 : 0;
}

/* A GEMM layer's parameter tensors as casts= (else its parameters) count them, at least one; of those, the bias's
 * are half, at least one (nvs_layer_bias_tensors, before its cap by the bias's elements) */
static int layer_tensors(const nvs_layer *ly)
{
    double c = ly->casts >= 0 ? ly->casts : nvs_layer_param_tensors(ly);
    return c > 1 ? (int)c : 1;
}
static int bias_share(int tensors) { return tensors / 2 > 1 ? tensors / 2 : 1; }

int nvs_layer_bias_tensors(const nvs_layer *ly)
{
    double b = nvs_layer_bias_elems(ly);
    if (b <= 0) return 0;
    int n = bias_share(layer_tensors(ly));
    return n > b ? (int)b : n;
}

double nvs_framework_weight_cast_elems(const nvs_framework *fw, const nvs_layer *ly, nvs_precision prec)
{
    if (!fw || !fw->weight_casts || !nvs_precision_info_of(prec)->half || ly->gemm_m <= 0 || ly->params <= 0) return 0;
    double kn = ly->gemm_n * ly->gemm_k;
    return ly->params < kn ? ly->params : kn;
}

int nvs_framework_cast_split(const nvs_framework *fw, const nvs_layer *ly, nvs_precision prec, nvs_cast_split *out)
{
    *out = (nvs_cast_split){0, 0, 0, 0};
    out->w_elems = nvs_framework_weight_cast_elems(fw, ly, prec);
    if (out->w_elems <= 0) return 0;
    out->b_elems = nvs_layer_bias_elems(ly);
    int t = layer_tensors(ly), b = out->b_elems > 0 ? bias_share(t) : 0;
    out->w_pieces = t - b > 1 ? t - b : 1;
    out->b_pieces = nvs_layer_bias_tensors(ly);
    /* never more pieces than elements */
    if (out->w_pieces > out->w_elems) out->w_pieces = (int)out->w_elems;
    return out->w_pieces + out->b_pieces;
}

void nvs_cast_piece(double elems, int n, int i, size_t *first, size_t *count)
{
    size_t e = (size_t)elems, per = n > 0 ? e / (size_t)n : 0;
    *first = per * (size_t)i;
    *count = i == n - 1 ? e - *first : per;
}

double nvs_framework_ew32_passes(const nvs_framework *fw, const nvs_layer *ly, nvs_precision prec)
{
    if (!fw || !fw->autocast_fp32 || !nvs_precision_info_of(prec)->half || ly->act_elems <= 0) return 0;
    return ly->ew32_passes;
}

double nvs_framework_view_passes(const nvs_framework *fw, const nvs_layer *ly)
{
    return fw && fw->view_copies && ly->act_elems > 0 && ly->gemm_m > 0 ? ly->perm_passes : 0;
}

double nvs_framework_act_casts(const nvs_framework *fw, const nvs_layer *ly, nvs_precision prec)
{
    if (nvs_framework_ew32_passes(fw, ly, prec) <= 0 || ly->gemm_m > 0 || ly->casts <= 0) return 0;
    return ly->casts;
}

int nvs_ew_kernels(double passes)
{
    int whole = (int)passes;
    return whole + (passes - whole > 1e-9 ? 1 : 0);
}

double nvs_framework_layer_ops(const nvs_framework *fw, const nvs_profile *p, int l, int backward, nvs_precision prec)
{
    const nvs_layer *ly = &p->layers[l];
    double ops;
    if (ly->ops_fwd >= 0)
        ops = backward ? ly->ops_bwd : ly->ops_fwd;
    else if (!backward)
        ops = (ly->gemm_m > 0) + (ly->act_elems > 0 ? nvs_ew_kernels(ly->ew_passes) : 0);
    else
        ops = (ly->act_elems > 0 ? nvs_ew_kernels(2 * ly->ew_passes) + nvs_ew_kernels(ly->ewb_passes) : 0) +
              (ly->gemm_m > 0 ? (nvs_layer_no_input_grad(p, l) ? 1 : 2) : ly->params > 0 ? 1 : 0) +
              (nvs_layer_bias_elems(ly) > 0); /* the bias's gradient, a sum of its own */
    if (nvs_precision_info_of(prec)->half && fw->autocast)
        ops += ly->casts >= 0 ? ly->casts : (ly->gemm_m > 0 ? nvs_layer_param_tensors(ly) : 0);
    return ops;
}

int nvs_profile_buffers(const nvs_profile *p, double *floats, int *longs, size_t *bytes)
{
    int bn = 0;
    double f = 0;
    for (int l = 0; l < p->nlayers; l++)
        if (p->layers[l].bn_passes > 0) {
            if (bytes) /* running_mean and running_var: C = params / 2 floats each */
                bytes[2 * bn] = bytes[2 * bn + 1] = (size_t)(p->layers[l].params / 2) * 4;
            bn++;
            f += p->layers[l].params;
        }
    for (int i = 0; bytes && i < bn; i++) bytes[2 * bn + i] = 8; /* num_batches_tracked */
    if (floats) *floats = f;
    if (longs) *longs = bn;
    return 3 * bn;
}

double nvs_framework_optimizer_ops(const nvs_framework *fw, nvs_optimizer o, int foreach)
{
    return fw && fw->optimizer_foreach ? nvs_optimizer_host_ops(o, foreach) : 1;
}

double nvs_framework_optimizer_us_per_tensor(const nvs_framework *fw, nvs_optimizer o, int foreach)
{
    return fw && fw->optimizer_host_per_tensor ? nvs_optimizer_host_us_per_tensor(o, foreach) : 0;
}

double nvs_framework_optimizer_host_us(const nvs_framework *fw, nvs_optimizer o, int foreach, double tensors)
{
    if (!fw) return 0;
    if (fw->optimizer_host_per_tensor) return nvs_framework_optimizer_us_per_tensor(fw, o, foreach) * tensors;
    return fw->host_us_per_op * nvs_framework_optimizer_ops(fw, o, foreach);
}

double nvs_profile_optimizer_tensors(const nvs_profile *p)
{
    double t = 0;
    for (int l = 0; l < p->nlayers; l++)
        if (!p->layers[l].nograd && p->layers[l].params > 0) t += nvs_layer_param_tensors(&p->layers[l]);
    return t;
}

int nvs_framework_scaler_in_kernel(const nvs_framework *fw, nvs_optimizer o, int fused)
{
    return fw && fw->grad_scaler && o == NVS_OPT_ADAMW && fused;
}

double nvs_framework_buffer_ops(const nvs_framework *fw, const nvs_profile *p)
{
    double floats = 0;
    int longs = 0;
    int n = fw && fw->broadcast_buffers ? nvs_profile_buffers(p, &floats, &longs, NULL) : 0;
    int groups = (floats > 0) + (longs > 0); /* dtypes: each its flatten and its broadcast */
    return n > 0 ? n + 2.0 * groups : 0;
}

int nvs_bn_in_cudnn(nvs_precision prec) { return prec != NVS_PREC_BF16; }
