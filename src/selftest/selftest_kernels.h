/* The self-test's kernels (selftest_kernels.cu), callable from C, and the values they write, shared with the host
 * so that the host can compute what the structured product must be. Every function returns a cudaError_t (as
 * int): cudaSuccess (0) or the launch error. */
#ifndef NVS_SELFTEST_KERNELS_H
#define NVS_SELFTEST_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "collectives/pattern.h" /* NVS_HD: host and device inline functions */

/* A 32-bit mix of an index (the finalizer of MurmurHash3, a public-domain formula): neighbouring words differ in
 * about half their bits, so a stuck or swapped bit shows. */
NVS_HD uint32_t nvs_selftest_word(uint64_t i, uint32_t seed)
{
    uint32_t h = (uint32_t)i ^ (uint32_t)(i >> 32) * 0x9e3779b9u ^ seed;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* The structured GEMM: A = s u^T and B = v t^T (column-major, n x n), so C = A B = (u.v) s t^T.
 * s, t in {1, 2, 3} with a sign, u, v in {-1, 1}: every input is exact in bf16, every product and sum of up to
 * 2^16 terms exact in fp32 (|C| <= 9 n < 2^24 for n <= 2^16), whatever order the tensor cores add in. */
NVS_HD float nvs_selftest_s(int i, uint32_t seed)
{
    uint32_t h = nvs_selftest_word((uint64_t)i, seed);
    return (float)(1 + (int)(h % 3u)) * ((h >> 8) & 1u ? -1.0f : 1.0f);
}
NVS_HD float nvs_selftest_u(int l, uint32_t seed)
{
    return nvs_selftest_word((uint64_t)l, seed) >> 31 ? -1.0f : 1.0f;
}
enum { NVS_SELFTEST_SEED_S = 11, NVS_SELFTEST_SEED_T = 12, NVS_SELFTEST_SEED_U = 13, NVS_SELFTEST_SEED_V = 14 };

/* u.v over n terms with v drawn from `seed_v` (an integer, exact). */
long long nvs_selftest_dot(int n, uint32_t seed_v);
/* The first seed for v from NVS_SELFTEST_SEED_V on whose u.v is not 0: with u.v = 0 the product would be all
 * zeros, and a GPU that writes zeros would pass (it is 0 for 338 sizes n <= 2^16 with the first seed, n = 16
 * among them). selftest_product.c, pure. */
uint32_t nvs_selftest_seed_v(int n);

#ifdef __cplusplus
extern "C" {
#endif

/* p[i] = nvs_selftest_word(i, seed) for i < n */
int nvs_selftest_fill_words(uint32_t *p, size_t n, uint32_t seed, cudaStream_t s);
/* Adds to *d_wrong (device memory, zero it first) the words of p that differ from nvs_selftest_word(i, seed). */
int nvs_selftest_verify_words(const uint32_t *p, size_t n, uint32_t seed, unsigned long long *d_wrong,
                              cudaStream_t s);
/* bf16 A = s u^T, B = v t^T (column-major n x n), v drawn from seed_v (nvs_selftest_seed_v) */
int nvs_selftest_gemm_inputs(void *a_bf16, void *b_bf16, int n, uint32_t seed_v, cudaStream_t s);
/* Pseudo-random bf16 values in [-1, 1) (timing inputs: no zeros, no simple pattern) */
int nvs_selftest_random_bf16(void *p, size_t n, uint32_t seed, cudaStream_t s);
/* Adds to *d_wrong the elements of the fp32 C (column-major n x n) that differ from dot * s(i) * t(j). */
int nvs_selftest_gemm_verify(const float *c, int n, float dot, unsigned long long *d_wrong, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
