/* The launch shape of the bias-gradient reduction (reduce_kernels.h), PURE: arithmetic only, no CUDA, so that the
 * training plan bounds its staging (train_plan.c) and the shapes are tested without a GPU (tests/unit/test_train.c). */
#ifndef NVS_TRAIN_REDUCE_PLAN_H
#define NVS_TRAIN_REDUCE_PLAN_H

#include <stddef.h>

/* The fewest rows each thread of a block sums (a block covers at least 4 x this many rows). Fitted, not PyTorch's
 * own heuristic's (which splits a 4096-row gradient over 64 blocks, but spends more per element in its generic
 * indexing than this kernel does): the kernel alone against PyTorch's reduce_kernel alone, on the bias shapes of
 * BERT-large and lm290m on an H200, the same session (results/h200x1-biasgrad: nvs-*.txt at G = 16, 32, 64;
 * h200x1-biasgrad2: torch-kernel-*.txt, PyTorch's kernel time from its profiler). At 32 (G = 32 for 4096 rows) a
 * step's bias sums came to -8 % (lm290m) and +4 % (BERT-large, 121 of 4096 x 1024 and 24 of 4096 x 4096) of
 * PyTorch's at bf16, +1 and +5 % at fp32; at 16 (G = 64) to -16 and -9 %, -11 and -7 %. With four rows in flight
 * a thread (5 December, results/h200x1-session45d, the decoder's 4096 x 30522 counted): -8.7 and +3.8 % at bf16,
 * -23.6 and -21.4 % at fp32 (0.3-0.4 ms a step faster than PyTorch's; not refitted, docs/fidelity.md). */
#define NVS_OUTER_SUM_MIN_ROWS 32

/* The most waves of blocks a launch may take (a wave: the blocks the GPU holds at once; G rounds down, at least
 * 1). A wide gradient, whose column groups alone nearly fill the GPU, is bound at bf16 by the
 * rows in flight, not by the blocks' turns: BERT's MLM decoder bias (4096 x 30522) took 117.4 us at one wave
 * (G = 9) and 100.3 at 3.6 (G = 32) on an H200 (results/h200x1-session45d; PyTorch 73.5). At fp32 the same split
 * cost 3 us: 122.9 against 126.0 (PyTorch 125.7); one value for both precisions, not fitted per precision. */
#define NVS_OUTER_SUM_WAVES 4

/* The GPU a launch fills: its SMs and the threads an SM holds at once (cudaDevAttrMaxThreadsPerMultiProcessor:
 * 2048 on sm_80 and sm_90, 1536 on sm_86 and sm_89, per the CUDA C Programming Guide's compute capability table) */
typedef struct {
    int sms, threads;
} nvs_sm_shape;

#ifdef __cplusplus
extern "C" {
#endif

/* G, the blocks that split the rows of one column group, for `rows` x `cols` on GPU `sm` (1 for sms or threads
 * below 1, or threads below a block's 128) */
int nvs_outer_sum_ctas(long long rows, int cols, nvs_sm_shape sm);
/* The staging floats and semaphores the launch needs (0 semaphores: G is 1, nothing staged) */
size_t nvs_outer_sum_staging(long long rows, int cols, nvs_sm_shape sm);
int nvs_outer_sum_sems(long long rows, int cols, nvs_sm_shape sm);

/* The staging floats any GPU can need for `rows` x `cols`: G is never above rows / (4 x NVS_OUTER_SUM_MIN_ROWS) */
size_t nvs_outer_sum_staging_max(long long rows, int cols);

#ifdef __cplusplus
}
#endif

#endif
