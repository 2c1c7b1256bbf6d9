/* The GPU self-test's pure parts (selftest/): the structured GEMM's closed form is the product (checked here by
 * a plain triple loop, no GPU), its inputs are exact in bf16, and the run.json pieces write null for what was not
 * measured. The measurement itself: test_selftest_gpu.c and tests/t/gpu_accept.sh on a GPU machine. */
#include <math.h>
#include <string.h>

#include "selftest/selftest.h"
#include "selftest/selftest_kernels.h"
#include "t.h"

/* exact in bf16: 8 significant bits, so small integers are */
static int bf16_exact(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return (b & 0xffffu) == 0;
}

static void t_closed_form(void)
{
    enum { N = 96 };
    static float a[N * N], b[N * N]; /* column-major, as cuBLAS */
    const uint32_t seed_v = nvs_selftest_seed_v(N);
    for (int col = 0; col < N; col++)
        for (int row = 0; row < N; row++) {
            a[row + col * N] = nvs_selftest_s(row, NVS_SELFTEST_SEED_S) * nvs_selftest_u(col, NVS_SELFTEST_SEED_U);
            b[row + col * N] = nvs_selftest_u(row, seed_v) * nvs_selftest_s(col, NVS_SELFTEST_SEED_T);
        }
    long long dot = nvs_selftest_dot(N, seed_v);
    T_ASSERT(dot != 0);
    int plus = 0;
    for (int l = 0; l < N; l++) plus += nvs_selftest_u(l, NVS_SELFTEST_SEED_U) > 0;
    /* the signs are mixed (a constant u would make every product the same) */
    T_ASSERT(plus > N / 4 && plus < 3 * N / 4);
    int bad = 0, values[4] = {0};
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double c = 0;
            for (int l = 0; l < N; l++) c += (double)a[i + l * N] * b[l + j * N];
            float want = (float)dot * nvs_selftest_s(i, NVS_SELFTEST_SEED_S) * nvs_selftest_s(j, NVS_SELFTEST_SEED_T);
            bad += c != (double)want;
            bad += !bf16_exact(a[i + j * N]) || !bf16_exact(b[i + j * N]);
            values[(int)fabsf(nvs_selftest_s(i, NVS_SELFTEST_SEED_S))]++;
        }
    T_EQ_I(bad, 0);
    T_ASSERT(values[1] && values[2] && values[3] && !values[0]); /* s takes 1, 2 and 3 */
    /* the bound of selftest_kernels.h: 9 n stays exact in fp32 up to n = 2^16 */
    T_ASSERT(9.0 * 65536 < 16777216.0);
}

/* u.v is never 0 (a product of zeros would pass a GPU that writes zeros): with the first seed it is at some sizes
 * (n = 16 among them), and the seed moves on there */
static void t_dot_not_zero(void)
{
    T_EQ_I(nvs_selftest_dot(16, NVS_SELFTEST_SEED_V), 0);
    T_ASSERT(nvs_selftest_seed_v(16) != NVS_SELFTEST_SEED_V);
    int moved = 0;
    for (int n = 16; n <= 8192; n++) {
        uint32_t seed = nvs_selftest_seed_v(n);
        if (nvs_selftest_dot(n, seed) == 0) T_FAIL("n = %d: u.v = 0 with seed %u", n, seed);
        moved += seed != NVS_SELFTEST_SEED_V;
    }
    T_ASSERT(moved > 0);
    T_EQ_I(nvs_selftest_seed_v(8192), NVS_SELFTEST_SEED_V); /* the default size keeps the first seed (u.v = 12) */
    T_EQ_I(nvs_selftest_dot(8192, NVS_SELFTEST_SEED_V), 12);
}

static void t_words_differ(void)
{
    /* neighbouring words differ in many bits, and the seed changes them */
    int low = 0;
    for (uint64_t i = 0; i < 4096; i++) {
        uint32_t x = nvs_selftest_word(i, 7) ^ nvs_selftest_word(i + 1, 7);
        low += __builtin_popcount(x) < 6;
        T_ASSERT(nvs_selftest_word(i, 7) != nvs_selftest_word(i, 8) || i == 0);
    }
    T_ASSERT(low < 40);
}

static void t_json(void)
{
    nvs_selftest_result r = {.membw_gbps = 4213.5, .membw_wrong = 0, .gemm_tflops = -1, .gemm_wrong = -1};
    snprintf(r.why, sizeof r.why, "the GEMM test needs 0.50 GiB, 0.10 GiB free");
    json_t *j = nvs_selftest_result_json(&r);
    char *t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    T_EQ_S(t, "{\"gemm_tflops\":null,\"gemm_wrong\":null,\"membw_gbps\":4213.5,\"membw_wrong\":0,"
              "\"why\":\"the GEMM test needs 0.50 GiB, 0.10 GiB free\"}");
    free(t);
    json_decref(j);
    nvs_selftest_cfg c = nvs_selftest_defaults();
    j = nvs_selftest_head_json(&c);
    t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    T_EQ_S(t, "{\"gemm\":{\"accumulate\":\"fp32\",\"iters\":20,\"n\":8192,\"type\":\"bf16\",\"warmup\":3},"
              "\"membw\":{\"bytes\":1073741824,\"iters\":20,\"warmup\":3}}");
    free(t);
    json_decref(j);
}

/* a burn's JSON: the probe (chunk 0) is listed but not the first reading; first, last and lowest of the rest */
static void t_burn_json(void)
{
    nvs_selftest_burn b = {.requested_s = 30, .elapsed_s = 30.2, .nchunks = 4, .wrong = 0};
    double end[4] = {0.01, 10.1, 20.1, 30.2}, tf[4] = {600.0, 790.0, 770.0, 780.0};
    memcpy(b.end_s, end, sizeof end);
    memcpy(b.tflops, tf, sizeof tf);
    json_t *j = nvs_selftest_burn_json(&b);
    T_ASSERT(j);
    T_NEAR(json_real_value(json_object_get(j, "tflops_first")), 790.0, 1e-12);
    T_NEAR(json_real_value(json_object_get(j, "tflops_last")), 780.0, 1e-12);
    T_NEAR(json_real_value(json_object_get(j, "tflops_min")), 770.0, 1e-12);
    T_EQ_U(json_array_size(json_object_get(j, "chunks")), 4);
    T_EQ_I(json_integer_value(json_object_get(j, "wrong")), 0);
    json_decref(j);
    /* the probe alone: nothing to compare, null */
    b.nchunks = 1;
    b.wrong = -1;
    j = nvs_selftest_burn_json(&b);
    T_ASSERT(json_is_null(json_object_get(j, "tflops_first")) && json_is_null(json_object_get(j, "wrong")));
    json_decref(j);
}

T_LIST = {T_CASE(t_closed_form), T_CASE(t_dot_not_zero), T_CASE(t_words_differ), T_CASE(t_json), T_CASE(t_burn_json)};
T_MAIN
