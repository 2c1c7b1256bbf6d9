/* The launch shape of the bias-gradient reduction (reduce_plan.h). */
#include "train/reduce_plan.h"

/* 128 threads a block: 32 columns groups of 4 across, 4 rows down (reduce_kernels.h). The blocks an SM holds at
 * once are counted as PyTorch's setReduceConfig (ATen/native/cuda/Reduce.cuh) counts them: the device's
 * maxThreadsPerMultiProcessor over the block's threads (16 on the sm_90 H200 the kernel was fitted on, 12 on
 * sm_86 and sm_89). */
enum { COLS_PER_BLOCK = 32 * 4, ROWS_PER_BLOCK = 4, BLOCK_THREADS = COLS_PER_BLOCK / 4 * ROWS_PER_BLOCK };

static long long div_up(long long a, long long b) { return (a + b - 1) / b; }

int nvs_outer_sum_ctas(long long rows, int cols, nvs_sm_shape sm)
{
    if (rows < 1 || cols < 1 || sm.sms < 1 || sm.threads < BLOCK_THREADS) return 1;
    long long gx = div_up(cols, COLS_PER_BLOCK);
    long long slots = (long long)sm.sms * (sm.threads / BLOCK_THREADS); /* blocks the GPU holds at once */
    long long waves = NVS_OUTER_SUM_WAVES * slots / gx;                 /* the most G within that many waves */
    long long work = div_up(rows, (long long)ROWS_PER_BLOCK * NVS_OUTER_SUM_MIN_ROWS); /* each thread's fewest rows */
    long long g = waves < work ? waves : work;
    if (g < 1) g = 1;
    if (g > 65535) g = 65535; /* gridDim.y */
    return (int)g;
}

size_t nvs_outer_sum_staging(long long rows, int cols, nvs_sm_shape sm)
{
    int g = nvs_outer_sum_ctas(rows, cols, sm);
    return g > 1 ? (size_t)g * (size_t)cols : 0;
}

int nvs_outer_sum_sems(long long rows, int cols, nvs_sm_shape sm)
{
    return nvs_outer_sum_ctas(rows, cols, sm) > 1 ? (int)div_up(cols, COLS_PER_BLOCK) : 0;
}

size_t nvs_outer_sum_staging_max(long long rows, int cols)
{
    if (rows < 1 || cols < 1) return 0;
    long long g = div_up(rows, (long long)ROWS_PER_BLOCK * NVS_OUTER_SUM_MIN_ROWS);
    return g > 1 ? (size_t)g * (size_t)cols : 0;
}
