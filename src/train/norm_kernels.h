/* Batch norm (training, NCHW, statistics over N x H x W per channel) in nvscale's own kernels, launched the way
 * PyTorch launches its own CUDA ones (aten/src/ATen/native/cuda/Normalization.cuh), which it runs at bf16 and
 * wherever it does not call cuDNN's (train/conv.h):
 *   - statistics: one block per channel (batch_norm_collect_statistics_kernel), up to 512 threads;
 *   - the normalisation: blocks of (channel, slice of the batch) (batch_norm_transform_input_kernel);
 *   - backward: one block per channel that reduces dy and dy * (x - mean), then writes dx in the same kernel
 *     (batch_norm_backward_kernel), reading x and dy twice.
 * With few channels over many pixels (ResNet-50's 64 channels of 56 x 56 at batch 128) one block per channel
 * leaves most SMs idle: that, not the bytes, is why PyTorch's bf16 batch norms take 30.7 ms per ResNet-50 step
 * on an H200 where cuDNN's at fp16 take 19.7 (results/h200x1-census-fp16), and the step reproduces it by running
 * the same launch shapes. Every function returns a cudaError_t (as int). */
#ifndef NVS_TRAIN_NORM_KERNELS_H
#define NVS_TRAIN_NORM_KERNELS_H

#include <cuda_runtime_api.h>

/* PyTorch's BatchNorm2d defaults: eps 1e-5, momentum 0.1 (cuDNN's exponential average factor); cuDNN's batch
 * norms (conv_cudnn.c) take the same */
#define NVS_BN_EPS 1e-5
#define NVS_BN_MOMENTUM 0.1

#ifdef __cplusplus
extern "C" {
#endif

/* x: n x c x hw elements of `elem` (collectives/kernels.h NVS_ELEM_*); w, b: c fp32 scale and bias; stats: 4 x c
 * floats, running mean, running variance, saved mean, saved inverse standard deviation (as BatchNorm2d keeps
 * them). Forward: y = (x - mean) / sqrt(var + eps) * w + b, the running statistics moved by `momentum`. */
int nvs_kern_bn_fwd(const void *x, void *y, int elem, int n, int c, long long hw, const float *w, const float *b,
                    float *stats, float momentum, float eps, cudaStream_t s);
/* Backward from the saved statistics: dx (n x c x hw, `elem`), and dw, db (c floats each). */
int nvs_kern_bn_bwd(const void *x, const void *dy, void *dx, int elem, int n, int c, long long hw, const float *w,
                    const float *stats, float *dw, float *db, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
