/* LayerNorm's launch shapes (train/ln_plan.h), without a GPU: the shapes PyTorch 2.x launches for a 1024-wide
 * transformer's 4096 tokens (its H200 profile names vectorized_layer_norm_kernel, layer_norm_grad_input_kernel_
 * vectorized and GammaBetaBackwardCUDAKernelTemplate<float, float, 32, 32, 256, false, true, false>), the
 * vectorized paths' conditions, the gamma/beta tile by rows and the M >> N path, and, over a range of shapes,
 * that the launches cover every row and column exactly once (the kernels' index arithmetic, replayed here). */
#include <stdint.h>
#include <stdlib.h>

#include "train/ln_plan.h"
#include "train/reduce_plan.h"
#include "t.h"

/* an H200: 132 SMs of 2048 threads */
#define H200_SMS ((nvs_sm_shape){132, 2048})

static void t_transformer_shapes(void)
{
    struct nvs_ln_plan p;
    T_EQ_I(nvs_ln_make_plan(4096, 1024, 4, H200_SMS, &p), 0);
    T_EQ_I(p.fwd_vec_cols, 1);
    T_EQ_I(p.bwd_vec_cols, 1);
    T_EQ_I(p.align_bytes, 16);
    /* vectorized_layer_norm_kernel: a row a block of (32, 4), 4 x 3 / 2 floats of shared memory */
    T_EQ_U(p.fwd_vec.grid_x, 4096);
    T_EQ_U(p.fwd_vec.grid_y, 1);
    T_EQ_U(p.fwd_vec.block_x, 32);
    T_EQ_U(p.fwd_vec.block_y, 4);
    T_EQ_U(p.fwd_vec.shmem, 24);
    /* the fallback: RowwiseMomentsCUDAKernel <<<M, 512>>>, LayerNormForwardCUDAKernel <<<M, 256>>> */
    T_EQ_U(p.fwd_moments.grid_x, 4096);
    T_EQ_U(p.fwd_moments.block_x, 512);
    T_EQ_U(p.fwd_apply.grid_x, 4096);
    T_EQ_U(p.fwd_apply.block_x, 256);
    /* layer_norm_grad_input_kernel_vectorized: a row a block of 128, a float per warp */
    T_EQ_U(p.bwd_input.grid_x, 4096);
    T_EQ_U(p.bwd_input.block_x, 128);
    T_EQ_U(p.bwd_input.block_y, 1);
    T_EQ_U(p.bwd_input.shmem, 16);
    /* GammaBetaBackwardCUDAKernelTemplate<float, float, 32, 32, 256, false, true, false>: 32 blocks of (32, 32),
     * (32 + 1) x 32 x 2 floats of shared memory, 8 rows a thread a tile, aligned, no scratch */
    T_EQ_I(p.gb_kind, NVS_LN_GB_TILED);
    T_EQ_U(p.gb.grid_x, 32);
    T_EQ_U(p.gb.grid_y, 1);
    T_EQ_U(p.gb.block_x, 32);
    T_EQ_U(p.gb.block_y, 32);
    T_EQ_I(p.gb_rows_per_block, 256);
    T_EQ_I(p.gb_rows_per_thread, 8);
    T_EQ_I(p.gb_aligned, 1);
    T_EQ_U(p.gb.shmem, 33 * 32 * 2 * 4);
    T_EQ_U(p.scratch_floats, 0);
    T_EQ_I(p.sems, 0);
    /* bf16 and 4096-wide (the MLP's width): the same kinds; 8-byte vectors, 128 column blocks */
    T_EQ_I(nvs_ln_make_plan(4096, 4096, 2, H200_SMS, &p), 0);
    T_EQ_I(p.align_bytes, 8);
    T_EQ_I(p.fwd_vec_cols, 1);
    T_EQ_U(p.gb.grid_x, 128);
    T_EQ_I(p.gb_kind, NVS_LN_GB_TILED);
    T_EQ_I(p.gb_aligned, 1);
}

static void t_vectorized_conditions(void)
{
    struct nvs_ln_plan p;
    /* cols % 4: both vectorized kernels */
    T_EQ_I(nvs_ln_make_plan(37, 1000, 4, H200_SMS, &p), 0);
    T_EQ_I(p.fwd_vec_cols, 1);
    T_EQ_I(p.bwd_vec_cols, 1);
    T_EQ_I(nvs_ln_make_plan(5, 7, 2, H200_SMS, &p), 0);
    T_EQ_I(p.fwd_vec_cols, 0);
    T_EQ_I(p.bwd_vec_cols, 0);
    T_EQ_I(nvs_ln_make_plan(300, 1030, 4, H200_SMS, &p), 0);
    T_EQ_I(p.fwd_vec_cols, 0);
    /* above 2^24 columns the forward is not vectorized (the Welford count is a float), the backward still is */
    T_EQ_I(nvs_ln_make_plan(1, (1 << 24) + 4, 4, H200_SMS, &p), 0);
    T_EQ_I(p.fwd_vec_cols, 0);
    T_EQ_I(p.bwd_vec_cols, 1);
    T_EQ_I(nvs_ln_make_plan(1, 1 << 24, 4, H200_SMS, &p), 0);
    T_EQ_I(p.fwd_vec_cols, 1);
    /* PyTorch's can_vectorize: 4 elements' bytes */
    T_EQ_I(nvs_ln_aligned((const void *)(uintptr_t)256, 16), 1);
    T_EQ_I(nvs_ln_aligned((const void *)(uintptr_t)260, 16), 0);
    T_EQ_I(nvs_ln_aligned((const void *)(uintptr_t)264, 8), 1);
    T_EQ_I(nvs_ln_aligned((const void *)(uintptr_t)266, 8), 0);
    /* out of range */
    T_EQ_I(nvs_ln_make_plan(0, 8, 4, H200_SMS, &p), -1);
    T_EQ_I(nvs_ln_make_plan(8, 0, 4, H200_SMS, &p), -1);
    T_EQ_I(nvs_ln_make_plan(8, 8, 3, H200_SMS, &p), -1);
    T_EQ_I(nvs_ln_make_plan(8, 8, 4, (nvs_sm_shape){0, 2048}, &p), -1);
    T_EQ_I(nvs_ln_make_plan(NVS_LN_MAX_ROWS + 1, 8, 4, H200_SMS, &p), -1);
    T_EQ_U(p.fwd_vec.grid_x, 0); /* zeroed */
}

/* the gamma/beta tile by rows (LaunchGammaBetaBackwardCUDAKernel's M < 64, < 128, < 256, else) */
static void t_gamma_beta_tiles(void)
{
    static const struct { long long rows; int by, rpb, kind; } want[] = {
        {1, 1, 8, NVS_LN_GB_DIRECT},     {63, 1, 8, NVS_LN_GB_DIRECT},     {64, 8, 64, NVS_LN_GB_TILED},
        {127, 8, 64, NVS_LN_GB_TILED},   {128, 16, 128, NVS_LN_GB_TILED},  {255, 16, 128, NVS_LN_GB_TILED},
        {256, 32, 256, NVS_LN_GB_TILED}, {65536, 32, 256, NVS_LN_GB_TILED},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct nvs_ln_plan p;
        T_EQ_I(nvs_ln_make_plan(want[i].rows, 1024, 4, H200_SMS, &p), 0);
        T_EQ_U(p.gb.block_y, want[i].by);
        T_EQ_I(p.gb_rows_per_block, want[i].rpb);
        T_EQ_I(p.gb_rows_per_thread, 8);
        T_EQ_I(p.gb_kind, want[i].kind);
        T_EQ_U(p.gb.grid_y, 1);
        T_EQ_U(p.gb.shmem, 33 * want[i].by * 2 * 4);
        T_EQ_U(p.scratch_floats, 0);
    }
    struct nvs_ln_plan p;
    T_EQ_I(nvs_ln_make_plan(37, 1000, 4, H200_SMS, &p), 0);
    T_EQ_U(p.gb.grid_x, 32); /* ceil(1000 / 32) */
    T_EQ_I(p.gb_aligned, 0);
    T_EQ_I(nvs_ln_make_plan(512, 96, 4, H200_SMS, &p), 0);
    T_EQ_I(p.gb_aligned, 1);
    T_EQ_I(nvs_ln_make_plan(512, 100, 4, H200_SMS, &p), 0);
    T_EQ_I(p.gb_aligned, 0); /* columns not a multiple of 32 */
    T_EQ_I(nvs_ln_make_plan(500, 96, 4, H200_SMS, &p), 0);
    T_EQ_I(p.gb_aligned, 0); /* rows not a multiple of the tile */
}

/* M > 64 Ki and N / 32 < SMs / 2: blocks of (32, 1) writing partial sums, then their column sums */
static void t_gamma_beta_partial(void)
{
    struct nvs_ln_plan p;
    T_EQ_I(nvs_ln_make_plan(131072, 1024, 4, H200_SMS, &p), 0); /* 32 column blocks < 66 */
    T_EQ_I(p.gb_kind, NVS_LN_GB_PARTIAL);
    T_EQ_U(p.gb.grid_x, 32);
    T_EQ_U(p.gb.grid_y, 1024); /* min(32768 / 32, 131072 / 32) */
    T_EQ_U(p.gb.block_x, 32);
    T_EQ_U(p.gb.block_y, 1);
    T_EQ_U(p.gb.shmem, 0);
    T_EQ_I(p.gb_rows_per_block, 32);
    T_EQ_I(p.gb_rows_per_thread, 32);
    T_EQ_I(p.gb_aligned, 1);
    T_EQ_U(p.scratch_floats, 2 * 1024 * 1024 + nvs_outer_sum_staging(1024, 1024, H200_SMS));
    T_EQ_I(p.sems, nvs_outer_sum_sems(1024, 1024, H200_SMS));
    T_EQ_I(nvs_ln_make_plan(70000, 64, 2, H200_SMS, &p), 0);
    T_EQ_I(p.gb_kind, NVS_LN_GB_PARTIAL);
    T_EQ_U(p.gb.grid_y, 2188); /* ceil(70000 / 32), under 32768 / 2 */
    T_EQ_I(p.gb_aligned, 0);
    /* not M >> N: 64 Ki rows exactly, a wide matrix, or a GPU with few SMs */
    T_EQ_I(nvs_ln_make_plan(65536, 1024, 4, H200_SMS, &p), 0);
    T_EQ_I(p.gb_kind, NVS_LN_GB_TILED);
    T_EQ_I(nvs_ln_make_plan(131072, 2112, 4, H200_SMS, &p), 0); /* 66 column blocks */
    T_EQ_I(p.gb_kind, NVS_LN_GB_TILED);
    T_EQ_U(p.scratch_floats, 0);
    T_EQ_I(nvs_ln_make_plan(131072, 1024, 4, (nvs_sm_shape){64, 2048}, &p), 0); /* 32 < 64 / 2 is false */
    T_EQ_I(p.gb_kind, NVS_LN_GB_TILED);
    T_EQ_I(nvs_ln_make_plan(600000, 40, 4, H200_SMS, &p), 0);
    T_EQ_U(p.gb.grid_y, 16384); /* ceil(600000 / 32) = 18750, capped at 32768 / 2 column blocks */
}

/* Every (row, column) visited exactly once by the gamma/beta launch: block (bx, by), thread (tx, ty) takes column
 * bx * 32 + tx (if < cols) and, in each tile r0 = by * rpb, by * rpb + rpb * grid_y, ..., rows r0 + ty * rpt
 * + 0 .. rpt - 1 (if < rows); the forward and input-gradient launches: one block per row, its threads striding
 * the row (by vectors of 4 when vectorized). */
static void check_cover(long long rows, int cols, nvs_sm_shape sms)
{
    struct nvs_ln_plan p;
    T_EQ_I(nvs_ln_make_plan(rows, cols, 2, sms, &p), 0);
    unsigned char *seen = calloc((size_t)rows * (size_t)cols, 1);
    T_ASSERT(seen);
    const int rpt = p.gb_rows_per_thread;
    T_EQ_I(rpt * (int)p.gb.block_y, p.gb_rows_per_block);
    T_ASSERT(rpt <= 32);
    for (unsigned bx = 0; bx < p.gb.grid_x; bx++)
        for (unsigned by = 0; by < p.gb.grid_y; by++)
            for (long long r0 = (long long)by * p.gb_rows_per_block; r0 < rows;
                 r0 += (long long)p.gb_rows_per_block * p.gb.grid_y)
                for (unsigned ty = 0; ty < p.gb.block_y; ty++)
                    for (int i = 0; i < rpt; i++)
                        for (unsigned tx = 0; tx < p.gb.block_x; tx++) {
                            long long r = r0 + (long long)ty * rpt + i, c = (long long)bx * p.gb.block_x + tx;
                            if (r < rows && c < cols) seen[r * cols + c]++;
                        }
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++) bad += seen[i] != 1;
    free(seen);
    if (bad) T_FAIL("gamma/beta launch for %lldx%d: %zu elements not visited exactly once", rows, cols, bad);
    /* a block per row; within a row the stride loops reach every element once */
    T_EQ_U(p.fwd_vec.grid_x, rows);
    T_EQ_U(p.fwd_moments.grid_x, rows);
    T_EQ_U(p.fwd_apply.grid_x, rows);
    T_EQ_U(p.bwd_input.grid_x, rows);
    /* the outputs: one column a thread of grid_x * 32 >= cols, at most 31 idle */
    T_ASSERT((long long)p.gb.grid_x * 32 >= cols && (long long)(p.gb.grid_x - 1) * 32 < cols);
}

static void t_cover(void)
{
    static const long long rows[] = {1, 2, 7, 8, 9, 63, 64, 65, 100, 127, 128, 200, 255, 256, 257, 300, 1000, 4096};
    static const int cols[] = {1, 4, 7, 31, 32, 33, 64, 100, 1000, 1030};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++) check_cover(rows[i], cols[j], H200_SMS);
    check_cover(70000, 64, H200_SMS);  /* M >> N: partial sums, 2188 row blocks */
    check_cover(66001, 40, H200_SMS);  /* and unaligned */
    check_cover(600000, 40, H200_SMS); /* grid.y capped at 32768 / 2: each block walks several tiles */
}

/* a LayerNorm's own weight and bias: gamma then beta, each starting on a 4-float boundary (16 bytes: what the vector
 * paths ask of them) whatever the width */
static void t_param_layout(void)
{
    static const int cols[] = {1, 3, 4, 5, 7, 1024, 1030, 30522};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        size_t b = nvs_ln_beta_at(cols[i]), n = nvs_ln_param_floats(cols[i]);
        T_ASSERT(b >= (size_t)cols[i] && b < (size_t)cols[i] + NVS_LN_VEC); /* room for gamma, no more than a vector */
        T_EQ_U(b % NVS_LN_VEC, 0);
        T_EQ_U(n, 2 * b); /* room for beta, and the next layer's gamma aligned after it */
    }
    T_EQ_U(nvs_ln_beta_at(1024), 1024);
    T_EQ_U(nvs_ln_beta_at(1030), 1032);
    T_EQ_U(nvs_ln_param_floats(0), 0);
    T_EQ_U(nvs_ln_param_floats(-4), 0);
}

T_LIST = {T_CASE(t_transformer_shapes), T_CASE(t_vectorized_conditions), T_CASE(t_gamma_beta_tiles),
          T_CASE(t_gamma_beta_partial), T_CASE(t_cover), T_CASE(t_param_layout)};
T_MAIN
