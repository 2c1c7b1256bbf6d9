/* The GPU self-test on a GPU (selftest/): a small run measures and finds nothing wrong (so the closed form of the
 * structured product is what cuBLAS computes), and each check can fail: one word of a copy changed, one element
 * of a product changed, are counted; a short burn reads its chunks and checks the product after. Skipped without
 * a GPU. */
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "selftest/selftest.h"
#include "selftest/selftest_kernels.h"
#include "t.h"

static void need_gpu(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) T_SKIP("no GPU on this machine");
}

static void t_measure_small(void)
{
    need_gpu();
    nvs_selftest_cfg c = {.membw_bytes = 64u << 20, .gemm_n = 1024, .iters = 3, .warmup = 1};
    nvs_selftest_result r;
    T_EQ_I(nvs_selftest_measure(&c, &r), NVS_OK);
    T_EQ_S(r.why, "");
    T_ASSERT(r.membw_gbps > 0);
    T_ASSERT(r.gemm_tflops > 0);
    T_EQ_I(r.membw_wrong, 0);
    T_EQ_I(r.gemm_wrong, 0);
    /* a size beyond the exact product's bound is refused, not measured wrong */
    c.gemm_n = 70000;
    T_EQ_I(nvs_selftest_measure(&c, &r), NVS_ERR_USAGE);
}

static unsigned long long count(unsigned long long *d)
{
    unsigned long long w = 0;
    T_EQ_I(cudaDeviceSynchronize(), cudaSuccess);
    T_EQ_I(cudaMemcpy(&w, d, sizeof w, cudaMemcpyDeviceToHost), cudaSuccess);
    return w;
}

static void t_checks_fail(void)
{
    need_gpu();
    enum { WORDS = 1 << 20, N = 256 };
    uint32_t *w;
    float *c;
    unsigned long long *d;
    T_EQ_I(cudaMalloc((void **)&w, WORDS * 4), cudaSuccess);
    T_EQ_I(cudaMalloc((void **)&c, N * N * 4), cudaSuccess);
    T_EQ_I(cudaMalloc((void **)&d, sizeof *d), cudaSuccess);
    /* the words: right, then one changed */
    T_EQ_I(nvs_selftest_fill_words(w, WORDS, 3, 0), cudaSuccess);
    T_EQ_I(cudaMemset(d, 0, sizeof *d), cudaSuccess);
    T_EQ_I(nvs_selftest_verify_words(w, WORDS, 3, d, 0), cudaSuccess);
    T_EQ_U(count(d), 0);
    uint32_t bad = nvs_selftest_word(777, 3) ^ 0x10u;
    T_EQ_I(cudaMemcpy(w + 777, &bad, 4, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(nvs_selftest_verify_words(w, WORDS, 3, d, 0), cudaSuccess);
    T_EQ_U(count(d), 1);
    /* the product, written here from the closed form: right, then one element off by one */
    static float h[N * N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            h[i + j * N] = 12.0f * nvs_selftest_s(i, NVS_SELFTEST_SEED_S) * nvs_selftest_s(j, NVS_SELFTEST_SEED_T);
    T_EQ_I(cudaMemcpy(c, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(cudaMemset(d, 0, sizeof *d), cudaSuccess);
    T_EQ_I(nvs_selftest_gemm_verify(c, N, 12.0f, d, 0), cudaSuccess);
    T_EQ_U(count(d), 0);
    h[5 + 9 * N] += 1.0f;
    T_EQ_I(cudaMemcpy(c, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(nvs_selftest_gemm_verify(c, N, 12.0f, d, 0), cudaSuccess);
    T_EQ_U(count(d), 1);
    T_EQ_I(cudaFree(w), cudaSuccess);
    T_EQ_I(cudaFree(c), cudaSuccess);
    T_EQ_I(cudaFree(d), cudaSuccess);
}

/* a short burn: the probe and at least four chunks over two seconds of GPU time, checked after */
static void t_burn_short(void)
{
    need_gpu();
    nvs_selftest_cfg c = {.membw_bytes = 64u << 20, .gemm_n = 2048, .iters = 3, .warmup = 1};
    nvs_selftest_burn *b = calloc(1, sizeof *b);
    T_ASSERT(b);
    T_EQ_I(nvs_selftest_burn_run(&c, 2.0, b), NVS_OK);
    T_EQ_S(b->why, "");
    T_ASSERT(b->nchunks >= 5);
    T_ASSERT(b->elapsed_s >= 2.0 && b->elapsed_s < 3.0);
    for (int i = 0; i < b->nchunks; i++) T_ASSERT(b->tflops[i] > 0);
    T_EQ_I(b->wrong, 0);
    T_EQ_I(nvs_selftest_burn_run(&c, 0, b), NVS_ERR_USAGE);
    free(b);
}

T_LIST = {T_CASE(t_measure_small), T_CASE(t_checks_fail), T_CASE(t_burn_short)};
T_MAIN
