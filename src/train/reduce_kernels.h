/* A bias's gradient as PyTorch's eager Linear backward computes it: the output gradient, a row-major rows x cols
 * matrix (tokens x features, the features contiguous), summed over its rows, in a reduction kernel of its own
 * (TensorIterator's reduce_kernel<128, 4>: results/h200x1-tfm-census6, 145 launches per BERT-large bf16 step),
 * launched the way PyTorch launches an outer-dimension reduction (aten/src/ATen/native/cuda/Reduce.cuh,
 * setReduceConfig; facts, not its code):
 *   - blocks of 128 threads, 32 across the columns and 4 down the rows; each thread sums 4 adjacent columns
 *     (the output vectorised by 4, the template's second argument), accumulating in fp32;
 *   - the rows split over G blocks per column group (ctas_per_output), to fill the GPU: G is the smaller of what
 *     16 blocks of 128 threads on every SM need (2048 threads per SM) and rows / (4 x NVS_OUTER_SUM_MIN_ROWS);
 *   - with G > 1 each block writes its partial sums to a staging buffer and the last block of a column group (a
 *     semaphore counted with an atomic add) sums them and writes the output: a global reduction in the one
 *     launch, which is why such a reduction moves its bytes at a fraction of the memory's bandwidth.
 * nvscale's `--framework ideal` sums the bias with cuBLAS instead (a matrix-vector product with ones,
 * train_gpu_gemm.c). Every function returns a cudaError_t (as int). */
#ifndef NVS_TRAIN_REDUCE_KERNELS_H
#define NVS_TRAIN_REDUCE_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "train/reduce_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shape of CUDA device `dev` (its SMs and threads per SM, cudaDeviceGetAttribute), for the launch plans of this
 * header and of ln_kernels.h: the one place it is read (the executor, its GPU tests and the benchmark tools) */
int nvs_sm_shape_of(int dev, nvs_sm_shape *out);
/* out[c] = sum over r of x[r * ld + c] for c < cols (ld >= cols: one bias's columns of a wider gradient), x of
 * `elem` (collectives/kernels.h NVS_ELEM_*), out of `out_elem`. staging: nvs_outer_sum_staging floats; sems:
 * nvs_outer_sum_sems unsigned ints, zero before the first launch (every launch leaves them zero again; launches in
 * one stream may share them). cudaErrorInvalidValue for a bad type, shape or too small a buffer. */
int nvs_kern_outer_sum(const void *x, int elem, long long rows, int cols, long long ld, void *out, int out_elem,
                       float *staging, size_t staging_elems, unsigned *sems, int nsems, nvs_sm_shape sm,
                       cudaStream_t s);
/* The same with the row split G given (1 ... 65535): for tools/biasgrad.c, which measures the choice */
int nvs_kern_outer_sum_g(const void *x, int elem, long long rows, int cols, long long ld, void *out, int out_elem,
                         float *staging, size_t staging_elems, unsigned *sems, int nsems, int g, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
