/* The what-if model's compute: the per-layer times (GEMMs, elementwise passes, norms, bias gradients, view
 * copies), the optimizer's, and the defaults of their efficiencies with their sources (the tables and JSON
 * name this file for them). The collectives: model_allreduce.c; the link graph: model_links.c; the schedule:
 * model_sched.c; the memory: model_mem.c. Formulas and sources: model.h, docs/model.md. */
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_priv.h"
#include "workload/framework.h"

/* --- compute ------------------------------------------------------------------------------------------------ */

nvs_compute_terms nvs_compute_defaults(void)
{
    nvs_compute_terms t;
    /* 70% of peak: cuBLAS reaches 70-90% of the dense peak on large GEMMs and less on the small, skinny ones of
     * a network's later layers; 70% is a middle value until calibration measures it (--calibrate). */
    t.gemm_eff = 0.70;
    /* 80% of peak bandwidth: a streaming read+write kernel (STREAM-like copy) reaches about 80-90% of the HBM
     * or GDDR peak; elementwise passes rarely do better. */
    t.mem_eff = 0.80;
    t.compute_scale = 1.0;
    /* cuDNN's convolutions reach about half the dense peak: PyTorch 2.11's ResNet-50 step at fp32, batch 128, on
     * H200 spends 89.7 ms in convolution kernels (results/h200x1-census-b64, cudnn.benchmark on) for 3,139 GFLOP
     * of them = 35 TFLOP/s of the 67 TFLOP/s peak, 0.52. Checked at batch 64 (48.6 ms measured, 45.0 modelled) and at
     * bf16, where the roofline sets more of their time (9.3 ms measured without cuDNN's layout transforms, 7.3
     * modelled): docs/model.md. */
    t.conv_eff = 0.52;
    /* Batch norm is bound by elements, not bytes (docs/fidelity.md): over ResNet-50's 53 batch norms at batch 128,
     * 8 accesses of each (BN_FWD_ACCESSES + BN_BWD_ACCESSES) = 11.4 G element accesses per step, cuDNN's kernels
     * take 21.3 ms at fp32 (results/h200x1-census: 534 G/s, x 4 B = 0.445 of H200's 4.8 TB/s) and 19.7 ms at fp16
     * (578 G/s); PyTorch's own NCHW kernels at bf16 take 30.7 ms (h200x1-census-fp16: 371 G/s = 0.31). */
    t.bn_cudnn_eff = 0.445;
    t.bn_own_eff = 0.31;
    /* PyTorch's reduce_kernel for Linear's bias gradients is a reduction across blocks with a global step: its time
     * is a latency plus bytes, not bytes alone. Fitted, t = a + bytes / B per launch, on the per-step sums of
     * PyTorch 2.11's profiles on H200 (results/h200x1-tfm-census6, census-nodp.txt): BERT-large 145 launches (121 of
     * 4096 x 1024, 24 of 4096 x 4096) in 2.06 ms at bf16 and 2.44 at fp32, lm290m 72 (18 each of 4096 x 3072, 1024,
     * 4096, 1024) in 1.19 and 1.54 ms: a = 9.6 and 7.5 us, B = 2.73 and 2.71 TB/s at bf16 and fp32; 8.5 us and
     * 2.72 / 4.8 = 0.57 of the peak. With those the four sums come to -7.7, +5.5, -6.6 and +4.3 %. */
    t.bias_reduce_us = 8.5;
    t.bias_reduce_eff = 0.57;
    /* PyTorch's copies through lm290m's (batch, sequence)-swapped views, the profile's perm= passes (a read and a
     * write of in_proj's and context's outputs, 1.21 GB per step each way at bf16, batch 8), took 0.73 ms forward
     * and 0.99 ms backward in PyTorch 2.11's profile on H200 (results/h200x1-tfm-census9, census-nodp.txt:
     * elementwise_kernel<128, 4> and <128, 2> direct copies): 2.42 GB in 1.72 ms = 1.40 TB/s, 0.29 of the peak */
    t.view_copy_eff = 0.29;
    /* PyTorch's LayerNorm kernels on H200 at fp32, 4096 x 1024 (a transformer's LayerNorm under autocast; per
     * kernel in results/h200x1-tfm-census9, census-nodp.txt, lm290m's 37): forward 14.5 us for 2 accesses of the
     * 16.8 MB tensor (2.31 TB/s), input gradient 14.2 us for 3, weight and bias gradients 22.6 us for 2: 5 accesses
     * in 36.8 us (2.28 TB/s) backward; both 0.48 of the 4.8 TB/s peak */
    t.ln_eff = 0.48;
    /* BERT-large's MLM decoder (4096 x 30522 x 1024, rows of 61,044 bytes) under PyTorch 2.11 on H200 at bf16: its
     * forward, input and weight gradients in cutlass_80_tensorop_bf16_s16816gemm_bf16_*_align2 kernels, 1012, 953
     * and 1024 us for 3 x 256 GFLOP (results/h200x1-tfm-census6, census-nodp.txt): 257 TFLOP/s, 0.26 of 989.5,
     * where the aligned GEMMs of the same step run at about 0.70 */
    t.gemm_unaligned_eff = 0.26;
    return t;
}

double nvs_gemm_tflops(const nvs_gpu_spec *g, nvs_precision p)
{
    switch (p) {
    case NVS_PREC_TF32: return g->tf32_tflops;
    /* AMP's fp16 GEMMs accumulate in FP32 (cuBLAS CUBLAS_COMPUTE_32F), as bf16 does: the same tensor rate
     * (GA102 whitepaper: "FP16/BF16 Tensor TFLOPS with FP32 Accumulate", one figure for both) */
    case NVS_PREC_BF16:
    case NVS_PREC_FP16: return g->bf16_tflops;
    case NVS_PREC_FP32:
    case NVS_PREC_COUNT: break;
    }
    return g->fp32_tflops; /* fp32 GEMMs run on CUDA cores (PyTorch allow_tf32=False) */
}

/* A batch norm in training touches its tensor 8 times: forward, a read for the statistics and a read and a write
 * to normalise; backward, a read of the input and of the output gradient for the reductions, and both again with a
 * write of the input gradient (cuDNN's bn_bw_1C11 and PyTorch's batch_norm_backward_kernel alike). */
#define BN_FWD_ACCESSES 3.0
#define BN_BWD_ACCESSES 5.0
/* A LayerNorm (PyTorch's vectorized kernels, train/ln_kernels.h): forward a read of x and a write of y (its second
 * read of a row hits the cache); backward the input gradient reads dy and x and writes dx, the weight and bias
 * gradients read dy and x again */
#define LN_FWD_ACCESSES 2.0
#define LN_BWD_ACCESSES 5.0

void nvs_ln_us(const nvs_layer *l, int batch, const nvs_gpu_spec *g, double elem_bytes, const nvs_compute_terms *t,
               double *fwd_us, double *bwd_us)
{
    *fwd_us = *bwd_us = 0;
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->ln_eff;
    if (!(l->ln_passes > 0) || !(bw > 0)) return;
    double bytes = (double)batch * l->act_elems * elem_bytes;
    *fwd_us = LN_FWD_ACCESSES * bytes / bw * t->compute_scale;
    *bwd_us = l->nograd ? 0 : LN_BWD_ACCESSES * bytes / bw * t->compute_scale;
}

int nvs_gemm_unaligned(const nvs_layer *l, nvs_precision p)
{
    const nvs_precision_info *pi = nvs_precision_info_of(p);
    if (l->conv || !pi->half || !(l->gemm_m > 0)) return 0;
    /* the leading dimensions of PyTorch's layouts (train/train_gpu_gemm.c nvs_tg_gemm): the features, N and K */
    return fmod(l->gemm_n * 2, 16) != 0 || fmod(l->gemm_k * 2, 16) != 0;
}

/* The longer of a GEMM's FLOPs at the matrix rate and its bytes at the memory rate (us, unscaled). A convolution
 * with its geometry reads its input (C x H x W); without one, an input of its output's size stands in (over a
 * bottleneck block the inputs and outputs of its convolutions add up to the same). */
static double gemm_us(const nvs_layer *l, int batch, const nvs_gpu_spec *g, nvs_precision p,
                      const nvs_compute_terms *t)
{
    double eff = l->conv && t->conv_eff > 0                                 ? t->conv_eff
                 : t->gemm_unaligned_eff > 0 && nvs_gemm_unaligned(l, p) ? t->gemm_unaligned_eff
                                                                           : t->gemm_eff;
    double rate = nvs_gemm_tflops(g, p) * TFLOPS_TO_FPUS * eff;
    double flops = nvs_layer_fwd_flops(l) * batch;
    if (!(rate > 0) || !(flops > 0)) return 0;
    double in = nvs_layer_has_geom(l) ? nvs_layer_geom_channels(l) * l->geom.h * l->geom.w
                : l->conv                 ? l->act_elems
                                          : l->gemm_m * l->gemm_k;
    double bytes = ((in + l->act_elems) * batch + l->gemm_n * l->gemm_k) * (double)nvs_precision_bytes(p);
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->mem_eff;
    double mem = bw > 0 ? bytes / bw : 0;
    return flops / rate > mem ? flops / rate : mem;
}

void nvs_layer_us(const nvs_layer *l, int first, int batch, const nvs_gpu_spec *g, nvs_precision p,
                  const nvs_compute_terms *t, double *fwd_us, double *bwd_us)
{
    double gemm = gemm_us(l, batch, g, p, t);
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->mem_eff;
    double bn_eff = nvs_bn_in_cudnn(p) ? t->bn_cudnn_eff : t->bn_own_eff;
    double bn_rate = bn_eff > 0 ? g->mem_gbps * GBPS_TO_BPUS * bn_eff / 4.0 : 0; /* elements per us */
    double passes = l->ew_passes, bn_f = 0, bn_b = 0;
    if (l->bn_passes > 0 && bn_rate > 0) {
        double el = (double)batch * l->act_elems;
        passes -= l->bn_passes;
        bn_f = BN_FWD_ACCESSES * el / bn_rate;
        bn_b = BN_BWD_ACCESSES * el / bn_rate;
    }
    /* a LayerNorm (ln=) in its kernels, at the step's precision (model_eval.c adds autocast's fp32) */
    double ln_f = 0, ln_b = 0;
    if (l->ln_passes > 0 && t->ln_eff > 0) {
        passes -= l->ln_passes;
        nvs_ln_us(l, batch, g, (double)nvs_precision_bytes(p), t, &ln_f, &ln_b);
        ln_f /= t->compute_scale;
        ln_b /= t->compute_scale;
    }
    double ew_bytes = passes * 2.0 * batch * l->act_elems * (double)nvs_precision_bytes(p);
    double ew = bw > 0 ? ew_bytes / bw : 0;
    /* perm= passes as copies through a view (a framework with view_copies), one each way: in place of as many of
     * the passes, forward and backward */
    double view = 0, view_as_ew = 0;
    if (l->perm_passes > 0 && t->view_copy_eff > 0 && bw > 0) {
        double vbytes = l->perm_passes * 2.0 * batch * l->act_elems * (double)nvs_precision_bytes(p);
        view = vbytes / (g->mem_gbps * GBPS_TO_BPUS * t->view_copy_eff);
        view_as_ew = vbytes / bw;
    }
    /* the backward's own passes (profile.h ewb=) */
    double ewb = bw > 0 ? l->ewb_passes * 2.0 * batch * l->act_elems * (double)nvs_precision_bytes(p) / bw : 0;
    /* a bias's gradient reads the output gradient once (profile.h nvs_layer_bias_elems) */
    double bias_bytes =
        nvs_layer_bias_elems(l) > 0 ? batch * l->gemm_m * l->gemm_n * (double)nvs_precision_bytes(p) : 0;
    double bias_bw = g->mem_gbps * GBPS_TO_BPUS * t->bias_reduce_eff, bias = 0;
    if (bias_bytes > 0 && t->bias_reduce_eff > 0) /* a launch per bias tensor (q, k and v: three) */
        bias = t->bias_reduce_us * nvs_layer_bias_tensors(l) + bias_bytes / bias_bw;
    else if (bias_bytes > 0 && bw > 0)
        bias = bias_bytes / bw;
    *fwd_us = (gemm + ew - view_as_ew + view + bn_f + ln_f) * t->compute_scale;
    /* a layer autograd never reaches (frozen stem) has no backward */
    *bwd_us = l->nograd ? 0
                        : ((first ? 1.0 : 2.0) * gemm + 2.0 * ew - view_as_ew + view + ewb + bias + bn_b + ln_b) *
                              t->compute_scale;
}

double nvs_mem_pass_us(double bytes, const nvs_gpu_spec *g, const nvs_compute_terms *t)
{
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->mem_eff;
    return bw > 0 ? bytes / bw * t->compute_scale : 0;
}

double nvs_optimizer_us(double params, double grad_bytes, int foreach, nvs_optimizer opt, const nvs_gpu_spec *g,
                        const nvs_compute_terms *t)
{
    /* the passes and what each reads and writes: workload/optimizer.c */
    double bytes = params * nvs_optimizer_pass_bytes(opt, foreach, grad_bytes);
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->mem_eff;
    return bw > 0 ? bytes / bw * t->compute_scale : 0;
}
