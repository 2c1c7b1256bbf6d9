/* The self-test on the calling thread's current GPU (what and why: selftest.h). Resources live in one struct so
 * that a measurement can return on the first failed call (CUDA_TRY / BLAS_TRY) and everything is still released,
 * in release(), whatever was allocated by then. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "core/log.h"
#include "selftest/selftest.h"
#include "selftest/selftest_kernels.h"

/* headroom left to the rest of the process (NCCL's buffers, cuBLAS's workspace) when sizing a part */
#define HEADROOM_BYTES (256ull << 20)

typedef struct {
    cudaStream_t s;
    cudaEvent_t start, stop;
    cublasHandle_t blas;
    void *a, *b, *c;              /* copy: a source, b destination; GEMM: a, b inputs (bf16), c output (fp32) */
    unsigned long long *d_wrong;
    double *ms;                   /* [iters]: seconds of each timed operation */
} res;

nvs_selftest_cfg nvs_selftest_defaults(void)
{
    return (nvs_selftest_cfg){NVS_SELFTEST_MEMBW_BYTES, NVS_SELFTEST_GEMM_N, NVS_SELFTEST_ITERS, NVS_SELFTEST_WARMUP};
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void free_buffers(res *r)
{
    if (r->a) CUDA_CLEANUP(cudaFree(r->a));
    if (r->b) CUDA_CLEANUP(cudaFree(r->b));
    if (r->c) CUDA_CLEANUP(cudaFree(r->c));
    r->a = r->b = r->c = NULL;
}

static void release(res *r)
{
    free_buffers(r);
    if (r->d_wrong) CUDA_CLEANUP(cudaFree(r->d_wrong));
    if (r->blas) BLAS_CLEANUP(cublasDestroy(r->blas));
    if (r->start) CUDA_CLEANUP(cudaEventDestroy(r->start));
    if (r->stop) CUDA_CLEANUP(cudaEventDestroy(r->stop));
    if (r->s) CUDA_CLEANUP(cudaStreamDestroy(r->s));
    free(r->ms);
}

/* Whether `need` bytes fit beside what the process already holds; if not, why (appended to out->why). */
static nvs_result_t fits(size_t need, const char *what, char *why, size_t whylen, int *ok)
{
    size_t free_b = 0, total_b = 0;
    CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    *ok = need + HEADROOM_BYTES <= free_b;
    if (!*ok) {
        size_t l = strlen(why);
        snprintf(why + l, whylen - l, "%s%s needs %.2f GiB, %.2f GiB free", l ? "; " : "", what,
                 need / 1073741824.0, free_b / 1073741824.0);
    }
    return NVS_OK;
}

static nvs_result_t wrong_count(res *r, long long *out)
{
    unsigned long long w = 0;
    CUDA_TRY(cudaMemcpyAsync(&w, r->d_wrong, sizeof w, cudaMemcpyDeviceToHost, r->s));
    CUDA_TRY(cudaStreamSynchronize(r->s));
    *out = (long long)w;
    return NVS_OK;
}

static nvs_result_t membw(const nvs_selftest_cfg *c, res *r, nvs_selftest_result *out)
{
    size_t bytes = c->membw_bytes & ~(size_t)15, words = bytes / 4; /* whole 16-byte accesses */
    int ok;
    NVS_CHECK(fits(2 * bytes, "the memory bandwidth test", out->why, sizeof out->why, &ok));
    if (!ok) return NVS_OK;
    CUDA_TRY(cudaMalloc(&r->a, bytes));
    CUDA_TRY(cudaMalloc(&r->b, bytes));
    CUDA_TRY(nvs_selftest_fill_words(r->a, words, 0x5e1f, r->s));
    CUDA_TRY(cudaMemsetAsync(r->b, 0x7f, bytes, r->s)); /* what a copy that skips a region would leave */
    for (int i = 0; i < c->warmup; i++) CUDA_TRY(nvs_kern_copy(r->b, r->a, bytes, r->s));
    for (int i = 0; i < c->iters; i++) {
        CUDA_TRY(cudaEventRecord(r->start, r->s));
        CUDA_TRY(nvs_kern_copy(r->b, r->a, bytes, r->s));
        CUDA_TRY(cudaEventRecord(r->stop, r->s));
        CUDA_TRY(cudaEventSynchronize(r->stop));
        float ms = 0;
        CUDA_TRY(cudaEventElapsedTime(&ms, r->start, r->stop));
        r->ms[i] = ms / 1e3;
    }
    double t = median(r->ms, c->iters);
    out->membw_gbps = t > 0 ? 2.0 * (double)bytes / t / 1e9 : -1; /* read + write */
    CUDA_TRY(cudaMemsetAsync(r->d_wrong, 0, sizeof *r->d_wrong, r->s));
    CUDA_TRY(nvs_selftest_verify_words(r->b, words, 0x5e1f, r->d_wrong, r->s));
    NVS_CHECK(wrong_count(r, &out->membw_wrong));
    if (out->membw_wrong)
        nvs_error("self-test: %lld of %zu words of a device-local copy are wrong: the GPU's memory or its SMs "
                  "store wrong values", out->membw_wrong, words);
    free_buffers(r);
    return NVS_OK;
}

/* The GEMM's buffers (bf16 A and B with pseudo-random values, fp32 C), or why they do not fit (*ok = 0). */
static nvs_result_t gemm_alloc(res *r, int n, const char *what, char *why, size_t whylen, int *ok)
{
    size_t nn = (size_t)n * (size_t)n;
    NVS_CHECK(fits(nn * (2 + 2 + 4), what, why, whylen, ok));
    if (!*ok) return NVS_OK;
    CUDA_TRY(cudaMalloc(&r->a, nn * 2));
    CUDA_TRY(cudaMalloc(&r->b, nn * 2));
    CUDA_TRY(cudaMalloc(&r->c, nn * 4));
    CUDA_TRY(nvs_selftest_random_bf16(r->a, nn, 1, r->s));
    CUDA_TRY(nvs_selftest_random_bf16(r->b, nn, 2, r->s));
    return NVS_OK;
}

/* C = A B, n x n x n: bf16 inputs, fp32 accumulate and output */
static nvs_result_t gemm_once(res *r, int n)
{
    const float one = 1.0f, zero = 0.0f;
    BLAS_TRY(cublasGemmEx(r->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, r->a, CUDA_R_16BF, n, r->b, CUDA_R_16BF,
                          n, &zero, r->c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return NVS_OK;
}

/* `k` GEMMs back to back, timed with events: seconds of GPU time */
static nvs_result_t gemm_timed(res *r, int n, int k, double *seconds)
{
    CUDA_TRY(cudaEventRecord(r->start, r->s));
    for (int i = 0; i < k; i++) NVS_CHECK(gemm_once(r, n));
    CUDA_TRY(cudaEventRecord(r->stop, r->s));
    CUDA_TRY(cudaEventSynchronize(r->stop));
    float ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&ms, r->start, r->stop));
    *seconds = ms / 1e3;
    return NVS_OK;
}

/* The structured product (selftest_kernels.h), known exactly: dot = u.v computed here in integers; the wrong
 * elements counted on the GPU. Overwrites A and B. */
static nvs_result_t gemm_check(res *r, int n, long long *wrong)
{
    size_t nn = (size_t)n * (size_t)n;
    uint32_t seed_v = nvs_selftest_seed_v(n);
    long long dot = nvs_selftest_dot(n, seed_v);
    CUDA_TRY(nvs_selftest_gemm_inputs(r->a, r->b, n, seed_v, r->s));
    CUDA_TRY(cudaMemsetAsync(r->c, 0x7f, nn * 4, r->s));
    NVS_CHECK(gemm_once(r, n));
    CUDA_TRY(cudaMemsetAsync(r->d_wrong, 0, sizeof *r->d_wrong, r->s));
    CUDA_TRY(nvs_selftest_gemm_verify(r->c, n, (float)dot, r->d_wrong, r->s));
    NVS_CHECK(wrong_count(r, wrong));
    if (*wrong)
        nvs_error("self-test: %lld of %zu elements of a GEMM with a known product are wrong: the GPU computes "
                  "wrong values", *wrong, nn);
    return NVS_OK;
}

static nvs_result_t gemm(const nvs_selftest_cfg *c, res *r, nvs_selftest_result *out)
{
    int n = c->gemm_n, ok;
    NVS_CHECK(gemm_alloc(r, n, "the GEMM test", out->why, sizeof out->why, &ok));
    if (!ok) return NVS_OK;
    for (int i = 0; i < c->warmup; i++) NVS_CHECK(gemm_once(r, n));
    for (int i = 0; i < c->iters; i++) NVS_CHECK(gemm_timed(r, n, 1, &r->ms[i]));
    double t = median(r->ms, c->iters);
    out->gemm_tflops = t > 0 ? 2.0 * (double)n * n * n / t / 1e12 : -1;
    NVS_CHECK(gemm_check(r, n, &out->gemm_wrong));
    free_buffers(r);
    return NVS_OK;
}

#define BURN_CHUNK_S 10.0 /* a reading every 10 s, as the sustained all_reduce (run/phase_sustain.c) */
#define BURN_PROBE 5      /* GEMMs of the probe chunk that sizes the others */

static nvs_result_t burn(const nvs_selftest_cfg *c, double seconds, res *r, nvs_selftest_burn *out)
{
    int n = c->gemm_n, ok;
    NVS_CHECK(gemm_alloc(r, n, "the burn", out->why, sizeof out->why, &ok));
    if (!ok) return NVS_OK;
    /* at least 4 readings in a short burn, at most NVS_SELFTEST_BURN_CHUNKS in a long one */
    double chunk_s = fmax(fmin(BURN_CHUNK_S, seconds / 4), seconds / (NVS_SELFTEST_BURN_CHUNKS - 2));
    double flops = 2.0 * (double)n * n * n, t = 0;
    int k = BURN_PROBE;
    while (out->nchunks < NVS_SELFTEST_BURN_CHUNKS) {
        double dt;
        NVS_CHECK(gemm_timed(r, n, k, &dt));
        t += dt;
        out->end_s[out->nchunks] = t;
        out->tflops[out->nchunks++] = dt > 0 ? flops * k / dt / 1e12 : 0;
        nvs_progress("burn", "GPU burn: bf16 GEMM for %.0f of %.0f s", t, seconds);
        if (t >= seconds || dt <= 0) break;
        /* a remainder shorter than half a chunk joins the last chunk: a reading of a few GEMMs would be noise */
        double left = seconds - t, next = left < 1.5 * chunk_s ? left : chunk_s;
        k = (int)fmax(1, fmin(1e6, next / (dt / k)));
    }
    nvs_progress_done();
    out->elapsed_s = t;
    NVS_CHECK(gemm_check(r, n, &out->wrong));
    free_buffers(r);
    return NVS_OK;
}

static nvs_result_t setup(const nvs_selftest_cfg *cfg, res *r)
{
    if (!(r->ms = calloc((size_t)cfg->iters, sizeof *r->ms))) return NVS_ERR_NOMEM;
    CUDA_TRY(cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreate(&r->start));
    CUDA_TRY(cudaEventCreate(&r->stop));
    CUDA_TRY(cudaMalloc((void **)&r->d_wrong, sizeof *r->d_wrong));
    BLAS_TRY(cublasCreate(&r->blas));
    BLAS_TRY(cublasSetStream(r->blas, r->s));
    return NVS_OK;
}

nvs_result_t nvs_selftest_burn_run(const nvs_selftest_cfg *cfg, double seconds, nvs_selftest_burn *out)
{
    memset(out, 0, sizeof *out);
    out->requested_s = seconds;
    out->wrong = -1;
    if (!(seconds > 0) || cfg->iters < 1 || cfg->gemm_n < 16 || cfg->gemm_n > 65536) return NVS_ERR_USAGE;
    res r = {0};
    nvs_result_t e = setup(cfg, &r);
    if (e == NVS_OK) e = burn(cfg, seconds, &r, out);
    release(&r);
    return e;
}

nvs_result_t nvs_selftest_measure(const nvs_selftest_cfg *cfg, nvs_selftest_result *out)
{
    memset(out, 0, sizeof *out);
    out->membw_gbps = out->gemm_tflops = -1;
    out->membw_wrong = out->gemm_wrong = -1;
    /* the limits of selftest_kernels.h's exact product and of a timed median: ours, not the user's */
    if (cfg->iters < 1 || cfg->warmup < 0 || cfg->gemm_n < 16 || cfg->gemm_n > 65536 || cfg->membw_bytes < 16)
        return NVS_ERR_USAGE;
    res r = {0};
    nvs_result_t e = setup(cfg, &r);
    if (e == NVS_OK) e = membw(cfg, &r, out); /* each part frees its buffers before it returns */
    if (e == NVS_OK) e = gemm(cfg, &r, out);
    release(&r);
    return e;
}
