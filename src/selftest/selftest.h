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

/* The defaults above. */
nvs_selftest_cfg nvs_selftest_defaults(void);

/* Measures the calling thread's current CUDA device (selftest_gpu.c). NVS_ERR_CUDA / NVS_ERR_CUBLAS when a call
 * fails (said on stderr); a part that does not fit in the GPU's free memory is skipped with `why`. */
nvs_result_t nvs_selftest_measure(const nvs_selftest_cfg *cfg, nvs_selftest_result *out);

/* --- run.json (selftest_json.c, PURE) ------------------------------------------------------------------ */
/* The section's head: {"membw": {"bytes", "iters"}, "gemm": {"type": "bf16", "n", "iters"}} */
json_t *nvs_selftest_head_json(const nvs_selftest_cfg *cfg);
/* One GPU's measurements: membw_gbps, membw_wrong, gemm_tflops, gemm_wrong (null when not measured), why. */
json_t *nvs_selftest_result_json(const nvs_selftest_result *r);

#endif
