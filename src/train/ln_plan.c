/* LayerNorm's launch shapes (ln_plan.h says where each comes from in PyTorch). */
#include "train/ln_plan.h"

#include <stdint.h>
#include <string.h>

#include "train/reduce_plan.h"

static struct nvs_ln_launch launch(long long gx, long long gy, int bx, int by, long long shmem)
{
    struct nvs_ln_launch l = {(unsigned)gx, (unsigned)gy, (unsigned)bx, (unsigned)by, (unsigned)shmem};
    return l;
}

int nvs_ln_make_plan(long long rows, int cols, int elem_size, nvs_sm_shape sm, struct nvs_ln_plan *p)
{
    memset(p, 0, sizeof *p);
    if (rows < 1 || rows > NVS_LN_MAX_ROWS || cols < 1 || (elem_size != 2 && elem_size != 4) || sm.sms < 1) return -1;
    p->rows = rows;
    p->cols = cols;
    p->elem_size = elem_size;
    p->align_bytes = NVS_LN_VEC * elem_size;
    p->fwd_vec_cols = cols % NVS_LN_VEC == 0 && cols <= NVS_LN_VEC_MAX_COLS;
    p->bwd_vec_cols = cols % NVS_LN_VEC == 0;

    /* forward: a row a block. launch_vectorized_layer_norm_kernel: threads (32, 4), shared threads.y * 3 / 2
     * floats; the fallback's two kernels take their shared memory statically (0 dynamic bytes) */
    const int wy = NVS_LN_THREADS / NVS_LN_WARP;
    p->fwd_vec = launch(rows, 1, NVS_LN_WARP, wy, wy * 3 / 2 * (long long)sizeof(float));
    p->fwd_moments = launch(rows, 1, NVS_LN_MOMENTS_THREADS, 1, 0);
    p->fwd_apply = launch(rows, 1, NVS_LN_APPLY_THREADS, 1, 0);
    /* input gradient: a row a block of num_threads(), one float per warp */
    p->bwd_input = launch(rows, 1, NVS_LN_THREADS, 1, wy * (long long)sizeof(float));

    /* gamma/beta (LaunchGammaBetaBackwardCUDAKernel) */
    const long long gx = (cols + NVS_LN_GB_COLS - 1) / NVS_LN_GB_COLS;
    int by, rpb;
    if (rows > NVS_LN_GB_PARTIAL_ROWS && cols / NVS_LN_GB_COLS < sm.sms / 2) {
        by = 1, rpb = 32;
        long long gy = (rows + rpb - 1) / rpb, cap = NVS_LN_GB_PARTIAL_GRID / gx;
        if (gy > cap) gy = cap;
        p->gb_kind = NVS_LN_GB_PARTIAL;
        p->gb = launch(gx, gy, NVS_LN_GB_COLS, by, 0); /* no shared memory: no reduction across threads */
        p->scratch_floats = 2 * (size_t)gy * (size_t)cols + nvs_outer_sum_staging(gy, cols, sm);
        p->sems = nvs_outer_sum_sems(gy, cols, sm);
    } else {
        /* the tile grows with M: "for small M it is faster to have a smaller tile" */
        if (rows < 64) by = 1, rpb = 8;
        else if (rows < 128) by = 8, rpb = 64;
        else if (rows < 256) by = 16, rpb = 128;
        else by = 32, rpb = 256;
        p->gb_kind = by == 1 ? NVS_LN_GB_DIRECT : NVS_LN_GB_TILED;
        /* ConfigureAndLaunchGammaBetaBackwardKernel: shmem_sz = (block_dim_x + 1) * block_dim_y * 2 floats */
        p->gb = launch(gx, 1, NVS_LN_GB_COLS, by, (NVS_LN_GB_COLS + 1) * by * 2 * (long long)sizeof(float));
    }
    p->gb_rows_per_block = rpb;
    p->gb_rows_per_thread = rpb / by;
    p->gb_aligned = rows % rpb == 0 && cols % NVS_LN_GB_COLS == 0;
    return 0;
}

int nvs_ln_aligned(const void *ptr, int bytes) { return bytes > 0 && (uintptr_t)ptr % (uintptr_t)bytes == 0; }

size_t nvs_ln_beta_at(int cols) { return cols > 0 ? ((size_t)cols + NVS_LN_VEC - 1) / NVS_LN_VEC * NVS_LN_VEC : 0; }

size_t nvs_ln_param_floats(int cols) { return 2 * nvs_ln_beta_at(cols); }
