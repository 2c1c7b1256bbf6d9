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
 * nvscale's `--framework ideal` sums the bias with cuBLAS instead (a matrix-vector product with ones, train_gpu.c).
 * Every function returns a cudaError_t (as int). */
#ifndef NVS_TRAIN_REDUCE_KERNELS_H
#define NVS_TRAIN_REDUCE_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

/* The fewest rows each thread of a block sums (a block covers at least 4 x this many rows). Fitted, not PyTorch's
 * own heuristic's (which splits a 4096-row gradient over 64 blocks, but spends more per element in its generic
 * indexing than this kernel does): the kernel alone against PyTorch's reduce_kernel alone, on the bias shapes of
 * BERT-large and lm290m on an H200, the same session (results/h200x1-biasgrad: nvs-*.txt at G = 16, 32, 64;
 * h200x1-biasgrad2: torch-kernel-*.txt, PyTorch's kernel time from its profiler). At 32 (G = 32 for 4096 rows) a
 * step's bias sums come to -8 % (lm290m) and +4 % (BERT-large, 121 of 4096 x 1024 and 24 of 4096 x 4096) of
 * PyTorch's at bf16, +1 and +5 % at fp32; at 16 (G = 64) to -16 and -9 %, -11 and -7 %. */
#define NVS_OUTER_SUM_MIN_ROWS 32

#ifdef __cplusplus
extern "C" {
#endif

/* G, the blocks that split the rows of one column group, for `rows` x `cols` on a GPU of `sms` SMs (>= 1) */
int nvs_outer_sum_ctas(long long rows, int cols, int sms);
/* The staging floats and semaphores the launch needs (0 semaphores: G is 1, nothing staged) */
size_t nvs_outer_sum_staging(long long rows, int cols, int sms);
int nvs_outer_sum_sems(long long rows, int cols, int sms);

/* out[c] = sum over r of x[r * ld + c] for c < cols (ld >= cols: one bias's columns of a wider gradient), x of
 * `elem` (collectives/kernels.h NVS_ELEM_*), out of `out_elem`. staging: nvs_outer_sum_staging floats; sems:
 * nvs_outer_sum_sems unsigned ints, zero before the first launch (every launch leaves them zero again; launches in
 * one stream may share them). cudaErrorInvalidValue for a bad type, shape or too small a buffer. */
int nvs_kern_outer_sum(const void *x, int elem, long long rows, int cols, long long ld, void *out, int out_elem,
                       float *staging, size_t staging_elems, unsigned *sems, int nsems, int sms, cudaStream_t s);
/* The same with the row split G given (1 ... 65535): for tools/biasgrad.c, which measures the choice */
int nvs_kern_outer_sum_g(const void *x, int elem, long long rows, int cols, long long ld, void *out, int out_elem,
                         float *staging, size_t staging_elems, unsigned *sems, int nsems, int g, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
