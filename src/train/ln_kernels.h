/* LayerNorm over the last dimension of a row-major rows x cols matrix (tokens x features) in nvscale's own kernels,
 * launched the way PyTorch 2.x launches its CUDA ones (aten/src/ATen/native/cuda/layer_norm_kernel.cu): the
 * same kinds of kernels, grids, blocks, vector widths, per-thread work and reduction structure, so that the time
 * and the SMs' occupancy come out like PyTorch's. Which shapes, and where each comes from: train/ln_plan.h. In
 * short, for 4096 x 1024 (a 1024-wide transformer's LayerNorm; PyTorch's H200 times at fp32):
 *   - forward: vectorized_layer_norm_kernel, a row per block of (32, 4), Welford in one pass, y in a second
 *     (14.5 us);
 *   - input gradient: layer_norm_grad_input_kernel_vectorized, a row per block of 128 (14.2 us);
 *   - gamma/beta gradients: GammaBetaBackwardCUDAKernelTemplate<..., 32, 32, 256, ...>, 32 blocks of (32, 32)
 *     threads walking all 4096 rows of 32 columns each (22.6 us: few blocks for 132 SMs).
 * The arithmetic is the textbook one in fp32 (not bit-exact with PyTorch's): xhat = (x - mean) * rstd,
 * rstd = 1 / sqrt(var + eps) with the population variance, y = xhat * gamma + beta;
 * dx = rstd / N * (N * gamma * dy - sum(gamma * dy) - xhat * sum(gamma * dy * xhat)) over the row;
 * dgamma = sum over rows of dy * xhat, dbeta = sum of dy.
 * x, y, dy, dx are `elem` (collectives/kernels.h NVS_ELEM_F32 / BF16 / F16); gamma, beta, dgamma, dbeta (cols
 * floats) and mean, rstd (rows floats) are fp32 whatever `elem` is (PyTorch keeps them in the input's type; under
 * autocast, the step's case, that is fp32 too). Any rows >= 1 (up to 2^31 - 1) and cols >= 1: where PyTorch would
 * not vectorize (cols % 4, cols > 2^24 forward, a pointer off its 4-element alignment, or gamma/beta off 16 bytes)
 * the non-vectorized kernels run, as PyTorch's do. Nothing outside the outputs is written. Every function returns
 * a cudaError_t (as int): cudaErrorInvalidValue for a bad type, shape, NULL pointer or too little scratch, else
 * the launches' error (cudaGetLastError). */
#ifndef NVS_TRAIN_LN_KERNELS_H
#define NVS_TRAIN_LN_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "train/ln_plan.h"

/* nn.LayerNorm's default eps */
#define NVS_LN_EPS 1e-5

#ifdef __cplusplus
extern "C" {
#endif

/* y = (x - mean) * rstd * gamma + beta per row; saves the rows' mean and rstd (for the backward) */
int nvs_kern_ln_fwd(const void *x, void *y, int elem, long long rows, int cols, const float *gamma, const float *beta,
                    float *mean, float *rstd, float eps, cudaStream_t s);

/* dx from dy, x, gamma and the forward's mean and rstd */
int nvs_kern_ln_bwd_input(const void *dy, const void *x, void *dx, int elem, long long rows, int cols,
                          const float *gamma, const float *mean, const float *rstd, cudaStream_t s);

/* dgamma and dbeta (cols floats each), written, not accumulated. `sm`: the GPU (PyTorch's choice of the M >> N
 * path depends on its SM count). scratch / sems: what nvs_ln_make_plan(rows, cols, elem size, sm) says the launch
 * needs (scratch_floats floats, sems unsigned ints zero before the first launch; launches leave them zero and, in
 * one stream, may share them); NULL / 0 when it says 0, as for every rows <= 64 Ki. */
int nvs_kern_ln_bwd_params(const void *dy, const void *x, int elem, long long rows, int cols, const float *mean,
                           const float *rstd, float *dgamma, float *dbeta, float *scratch, size_t scratch_floats,
                           unsigned *sems, int nsems, nvs_sm_shape sm, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
