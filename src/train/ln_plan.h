/* The launch shapes of LayerNorm's kernels (train/ln_kernels.h) as PyTorch 2.x launches its own CUDA ones, PURE
 * (arithmetic only, no CUDA) so that they are tested without a GPU (tests/unit/test_ln_plan.c). The facts come
 * from aten/src/ATen/native/cuda/layer_norm_kernel.cu (the version with the `rms_norm` template argument, 2.8+;
 * the shapes below are the same since the gamma/beta template appeared), thread_constants.h and block_reduce.cuh;
 * they are facts, not PyTorch's code. M = rows (tokens), N = cols (features, the contiguous dimension).
 *
 * Forward (LayerNormKernelImplInternal):
 *   - vectorized_layer_norm_kernel when the type is float/half/bf16, N % 4 == 0, N <= 2^24 (the Welford count is
 *     a float) and X, Y, gamma, beta are aligned to 4 elements: one block per row, blocks of (32, 4) threads
 *     (warp_size x num_threads() / warp_size, num_threads() = 4 warps), vectors of 4 elements whatever the type
 *     (vec_size = 4), a thread taking vectors tid, tid + 128, ...; a Welford online pass, merged across each warp
 *     by shuffles and across the 4 warps in shared memory (threads.y * 3 / 2 floats), then a second pass over the
 *     row for y; thread 0 writes the row's mean and rstd;
 *   - otherwise RowwiseMomentsCUDAKernel (one block of 512 threads per row, kCUDABlockReduceNumThreads) then
 *     LayerNormForwardCUDAKernel (one block of 256 threads per row, kCUDANumThreads), both one element a step.
 * Backward, input gradient (LayerNormBackwardKernelImplInternal, CUDA branch): one block of num_threads() = 128
 *   threads per row, (128 / 32) floats of shared memory; layer_norm_grad_input_kernel_vectorized when N % 4 == 0
 *   and dY, X, gamma, dX are aligned to 4 elements (no N <= 2^24 condition here), else
 *   layer_norm_grad_input_kernel (4 scalar loads a step). Each thread sums dy * gamma and dy * gamma * xhat over
 *   its part of the row, the block reduces both (warp shuffles, one float per warp in shared memory, the first warp
 *   finishes), and a second pass over the row writes dx.
 * Backward, gamma/beta (LaunchGammaBetaBackwardCUDAKernel; GammaBetaBackwardCUDAKernelTemplate<T, T_ACC,
 *   block_dim_x, block_dim_y, rows_per_block_y, partial_reduction, aligned_grid, rms_norm>):
 *   - block_dim_x = 32 columns, one per thread; grid.x = ceil(N / 32);
 *   - M > 64 Ki and N / 32 < SMs / 2 ("M >> N"): blocks of (32, 1), tiles of 32 rows, grid.y = min(32 Ki / grid.x,
 *     ceil(M / 32)); each block writes partial sums (one row of grid.y x N partials), which a .sum(0) then reduces
 *     (here: reduce_kernels.h's outer sum, nvscale's model of that reduction);
 *   - otherwise grid.y = 1 and the tile by M: M < 64: (32, 1) threads, 8 rows (no reduction across threads: the
 *     one thread of a column writes its sum); M < 128: (32, 8), 64 rows; M < 256: (32, 16), 128 rows; else
 *     (32, 32), 256 rows. Every thread takes rows_per_block_y / block_dim_y = 8 adjacent rows of each tile (the
 *     block walks the tiles down the whole matrix), their mean and rstd fetched by the first 8 lanes of its warp
 *     and handed round by shuffles; at the end the block's (block_dim_y x 32) sums go through shared memory,
 *     (32 + 1) x block_dim_y x 2 floats (padded against bank conflicts), and each warp sums columns with XOR
 *     shuffles;
 *   - aligned_grid = M % rows_per_block_y == 0 and N % 32 == 0: no bounds checks at all.
 *   For 4096 x 1024 that is GammaBetaBackwardCUDAKernelTemplate<float, float, 32, 32, 256, false, true, false>
 *   (H200 profile, 22.6 us): 32 blocks of 1024 threads, each thread summing 128 rows of one column, on 132 SMs. */
#ifndef NVS_TRAIN_LN_PLAN_H
#define NVS_TRAIN_LN_PLAN_H

#include <stddef.h>

#include "train/reduce_plan.h"

#define NVS_LN_VEC 4                      /* vec_size: elements per vector access, whatever the type */
#define NVS_LN_VEC_MAX_COLS (1LL << 24)   /* the vectorized forward's N <= 2^24 (float digits) */
#define NVS_LN_WARP 32                    /* C10_WARP_SIZE */
#define NVS_LN_THREADS 128                /* num_threads() = 4 warps (thread_constants.h) */
#define NVS_LN_MOMENTS_THREADS 512        /* cuda_utils::kCUDABlockReduceNumThreads (block_reduce.cuh) */
#define NVS_LN_APPLY_THREADS 256          /* kCUDANumThreads */
#define NVS_LN_GB_COLS 32                 /* block_dim_x of the gamma/beta kernel */
#define NVS_LN_GB_PARTIAL_ROWS (64 * 1024) /* the M >> N path needs M above this ... */
#define NVS_LN_GB_PARTIAL_GRID (64 * 1024 / 2) /* ... and caps grid.x * grid.y here (max_grid_size) */
#define NVS_LN_MAX_ROWS 2147483647LL      /* one block per row: grid.x */

/* One kernel's launch: grid, block, and the dynamic shared memory PyTorch's launch asks for (bytes) */
struct nvs_ln_launch {
    unsigned grid_x, grid_y, block_x, block_y, shmem;
};

/* How the gamma/beta kernel finishes: each column's one thread writes its sum (block_dim_y = 1, grid.y = 1), the
 * block reduces across its block_dim_y threads (grid.y = 1), or partial sums for a column sum after it */
enum { NVS_LN_GB_DIRECT = 0, NVS_LN_GB_TILED = 1, NVS_LN_GB_PARTIAL = 2 };

struct nvs_ln_plan {
    long long rows;
    int cols, elem_size;
    int align_bytes;  /* the vector paths need x, y, dy, dx aligned to this (4 elements); gamma, beta: 16 (floats) */
    int fwd_vec_cols; /* the shape allows vectorized_layer_norm_kernel (pointers permitting) */
    int bwd_vec_cols; /* the shape allows layer_norm_grad_input_kernel_vectorized (pointers permitting) */
    struct nvs_ln_launch fwd_vec, fwd_moments, fwd_apply, bwd_input;
    int gb_kind;            /* NVS_LN_GB_* */
    int gb_rows_per_block;  /* rows_per_block_y: a tile's rows */
    int gb_rows_per_thread; /* rows_per_block_y / block_dim_y */
    int gb_aligned;         /* aligned_grid */
    struct nvs_ln_launch gb;
    /* NVS_LN_GB_PARTIAL only (else 0): floats of scratch (2 x grid.y x cols partials, then the outer sum's
     * staging) and the outer sum's semaphores (zero before the first launch; launches leave them zero) */
    size_t scratch_floats;
    int sems;
};

#ifdef __cplusplus
extern "C" {
#endif

/* The plan for rows x cols of elem_size-byte elements (4: float, 2: bf16/fp16) on GPU `sm`: 0, or -1 (and *p
 * zeroed) for rows outside 1 .. NVS_LN_MAX_ROWS, cols < 1, another element size or sm.sms < 1 */
int nvs_ln_make_plan(long long rows, int cols, int elem_size, nvs_sm_shape sm, struct nvs_ln_plan *p);

/* PyTorch's can_vectorize: the address a multiple of `bytes` */
int nvs_ln_aligned(const void *ptr, int bytes);

/* A LayerNorm's weight and bias as PyTorch holds them, each a tensor of its own (the caching allocator aligns every
 * tensor to at least 16 bytes, which the vector paths ask of gamma and beta): `cols` floats of gamma, beta at
 * nvs_ln_beta_at(cols) floats after it, nvs_ln_param_floats(cols) in all, both multiples of NVS_LN_VEC. 0 for
 * cols < 1. */
size_t nvs_ln_beta_at(int cols);
size_t nvs_ln_param_floats(int cols);

#ifdef __cplusplus
}
#endif

#endif
