/* One GPU alone, the way dcgmi diag's memory-bandwidth and targeted-stress plugins look at it: how fast its
 * memory and its tensor cores are, and whether they compute and store the right values. `nvscale accept`
 * (level 2 and 3) runs it on every rank's GPU at once (src/run/phase_selftest.c); check's `gpu` rules judge it
 * against the GPU model's datasheet and the run's other GPUs of the same model.
 *
 *   membw   a device-local copy of `membw_bytes` by the SMs (collectives/kernels.h nvs_kern_copy, 16-byte
 *           accesses), counted as bytes read + bytes written per second (the STREAM "copy" convention, which is
 *           how a datasheet's HBM bandwidth counts), the median of `iters` timed copies after warm-up; then the
 *           copy is checked element by element against the values the source was filled with.
 *   gemm    cuBLAS cublasGemmEx, bf16 inputs, fp32 accumulate and output, n x n x n, TFLOPS = 2 n^3 / time, the
 *           median of `iters` after warm-up, on pseudo-random inputs (tensor cores run faster on zeros and on
 *           simple patterns, which would flatter the GPU); then one product of structured inputs whose every
 *           element is known in closed form (A = s u^T, B = v t^T, so C = (u.v) s t^T, all exact in bf16 and
 *           fp32) is checked element by element on the GPU.
 *   burn    (accept --level 3) the GEMM back to back for minutes, its throughput read every chunk of about 10 s:
 *           a GPU whose cooling or power delivery cannot hold the load slows down from chunk to chunk (while the
 *           health sampler sees its clocks, temperature and throttle reasons); then the structured product is
 *           checked again, hot. dcgmi diag's targeted stress and targeted power run the same kind of load.
 * What cannot be measured says why; a failure of a CUDA or cuBLAS call is an error of the run. */
#ifndef NVS_SELFTEST_H
#define NVS_SELFTEST_H

#include <jansson.h>
#include <stddef.h>

#include "core/err.h"

#define NVS_SELFTEST_MEMBW_BYTES (1ull << 30) /* per buffer: far beyond any GPU's L2 (H200: 50 MB) */
#define NVS_SELFTEST_GEMM_N 8192              /* large enough for cuBLAS's best tiles on every recent GPU */
#define NVS_SELFTEST_ITERS 20
#define NVS_SELFTEST_WARMUP 3

typedef struct {
    size_t membw_bytes; /* per buffer (source and destination) */
    int gemm_n;
    int iters, warmup;
} nvs_selftest_cfg;

typedef struct {
    double membw_gbps;        /* read + write bytes per second / 1e9; < 0 not measured */
    long long membw_wrong;    /* elements of the copy that differ; < 0 not checked */
    double gemm_tflops;       /* < 0 not measured */
    long long gemm_wrong;     /* elements of the structured product that differ; < 0 not checked */
    char why[160];            /* "" or why a part was not measured (not enough memory for it) */
} nvs_selftest_result;

#define NVS_SELFTEST_BURN_CHUNKS 64 /* chunks of a burn: about 10 s each, longer for burns beyond 10 minutes */

typedef struct {
    double requested_s, elapsed_s;
    int nchunks;                            /* chunk 0 is a short probe that sizes the others */
    double end_s[NVS_SELFTEST_BURN_CHUNKS]; /* GPU time at the end of each chunk, from the start */
    double tflops[NVS_SELFTEST_BURN_CHUNKS];
    long long wrong;                        /* the structured product checked after the load; < 0 not checked */
    char why[160];                          /* "" or why it did not run (not enough free memory) */
} nvs_selftest_burn;

/* The defaults above. */
nvs_selftest_cfg nvs_selftest_defaults(void);

/* Measures the calling thread's current CUDA device (selftest_gpu.c). NVS_ERR_CUDA / NVS_ERR_CUBLAS when a call
 * fails (said on stderr); a part that does not fit in the GPU's free memory is skipped with `why`. */
nvs_result_t nvs_selftest_measure(const nvs_selftest_cfg *cfg, nvs_selftest_result *out);
/* The GEMM of cfg (n, bf16) back to back for `seconds` on the current device, then the structured check. */
nvs_result_t nvs_selftest_burn_run(const nvs_selftest_cfg *cfg, double seconds, nvs_selftest_burn *out);

/* --- run.json (selftest_json.c, PURE) ------------------------------------------------------------------ */
/* The section's head: {"membw": {"bytes", "iters"}, "gemm": {"type": "bf16", "n", "iters"}} */
json_t *nvs_selftest_head_json(const nvs_selftest_cfg *cfg);
/* One GPU's measurements: membw_gbps, membw_wrong, gemm_tflops, gemm_wrong (null when not measured), why. */
json_t *nvs_selftest_result_json(const nvs_selftest_result *r);
/* A burn: requested_s, elapsed_s, tflops_first (the first chunk after the probe), tflops_last, tflops_min, wrong,
 * why, chunks [{end_s, tflops}] (the probe included). */
json_t *nvs_selftest_burn_json(const nvs_selftest_burn *b);

#endif
