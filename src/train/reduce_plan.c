/* The launch shape of the bias-gradient reduction (reduce_plan.h). */
#include "train/reduce_plan.h"

/* 128 threads a block: 32 columns groups of 4 across, 4 rows down (reduce_kernels.h). BLOCKS_PER_SM: the blocks
 * an SM holds at once, as PyTorch's setReduceConfig (ATen/native/cuda/Reduce.cuh) counts them, the device's
 * maxThreadsPerMultiProcessor over the block's threads: 2048 on sm_80 and sm_90 (the H200 the kernel was fitted
 * on). On sm_86 and sm_89 (1536) PyTorch's G is up to a quarter lower than this one's: not followed yet. */
enum { COLS_PER_BLOCK = 32 * 4, ROWS_PER_BLOCK = 4, BLOCKS_PER_SM = 2048 / 128 };

static long long div_up(long long a, long long b) { return (a + b - 1) / b; }

int nvs_outer_sum_ctas(long long rows, int cols, int sms)
{
    if (rows < 1 || cols < 1 || sms < 1) return 1;
    long long gx = div_up(cols, COLS_PER_BLOCK);
    long long fill = div_up((long long)sms * BLOCKS_PER_SM, gx);            /* blocks the GPU holds at once */
    long long work = div_up(rows, (long long)ROWS_PER_BLOCK * NVS_OUTER_SUM_MIN_ROWS); /* each thread's fewest rows */
    long long g = fill < work ? fill : work;
    if (g < 1) g = 1;
    if (g > 65535) g = 65535; /* gridDim.y */
    return (int)g;
}

size_t nvs_outer_sum_staging(long long rows, int cols, int sms)
{
    int g = nvs_outer_sum_ctas(rows, cols, sms);
    return g > 1 ? (size_t)g * (size_t)cols : 0;
}

int nvs_outer_sum_sems(long long rows, int cols, int sms)
{
    return nvs_outer_sum_ctas(rows, cols, sms) > 1 ? (int)div_up(cols, COLS_PER_BLOCK) : 0;
}

size_t nvs_outer_sum_staging_max(long long rows, int cols)
{
    if (rows < 1 || cols < 1) return 0;
    long long g = div_up(rows, (long long)ROWS_PER_BLOCK * NVS_OUTER_SUM_MIN_ROWS);
    return g > 1 ? (size_t)g * (size_t)cols : 0;
}
