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
 * own (its heuristic splits BERT's 4096 rows over 64 blocks, but its generic indexing spends more per element than
 * this kernel does): at 64, G = 16 for a 4096-token gradient, and the kernel takes 15.5-16.0 us per bf16 sum of
 * 4096 x 1024 ... 4096 x 4096 on an H200, 15.3-34.1 at fp32 (results/h200x1-biasgrad, nvs-*.txt, G = 16), so that
 * the per-step sums of BERT-large's 145 and lm290m's 72 bias gradients come to +9.8 and -4.8 % of PyTorch's
 * reduce_kernel times at bf16 (2.06 and 1.19 ms, results/h200x1-tfm-census6), +9.5 and +8.5 % at fp32 (2.44,
 * 1.54 ms). At 16 (G = 64) it took 9.0-11.5 us, 32 to 36 % below them. */
#define NVS_OUTER_SUM_MIN_ROWS 64

#ifdef __cplusplus
extern "C" {
#endif

/* G, the blocks that split the rows of one column group, for `rows` x `cols` on a GPU of `sms` SMs (>= 1) */
int nvs_outer_sum_ctas(long long rows, int cols, int sms);
/* The staging floats and semaphores the launch needs (0 semaphores: G is 1, nothing staged) */
size_t nvs_outer_sum_staging(long long rows, int cols, int sms);
int nvs_outer_sum_sems(long long rows, int cols, int sms);

/* out[c] = sum over r of x[r * cols + c], x of `elem` (collectives/kernels.h NVS_ELEM_*), out of `out_elem`.
 * staging: nvs_outer_sum_staging floats; sems: nvs_outer_sum_sems unsigned ints, zero before the first launch
 * (every launch leaves them zero again). cudaErrorInvalidValue for a bad type, shape or too small a buffer. */
int nvs_kern_outer_sum(const void *x, int elem, long long rows, int cols, void *out, int out_elem, float *staging,
                       size_t staging_elems, unsigned *sems, int nsems, int sms, cudaStream_t s);
/* The same with the row split G given (1 ... 65535): for tools/biasgrad.c, which measures the choice */
int nvs_kern_outer_sum_g(const void *x, int elem, long long rows, int cols, void *out, int out_elem, float *staging,
                         size_t staging_elems, unsigned *sems, int nsems, int g, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
