// The self-test's kernels (selftest_kernels.h): fill and check words for the copy, the structured and the
// pseudo-random GEMM inputs, and the check of the structured product.
#include <cuda_bf16.h>

#include "collectives/grid.h"
#include "selftest/selftest_kernels.h"

namespace {

using nvs_grid::blocks_for;
using nvs_grid::kThreads;

// one atomic per block: the count of a block's threads, summed in shared memory
__device__ void add_block(unsigned long long mine, unsigned long long *total)
{
    __shared__ unsigned long long block;
    if (threadIdx.x == 0) block = 0;
    __syncthreads();
    if (mine) atomicAdd(&block, mine);
    __syncthreads();
    if (threadIdx.x == 0 && block) atomicAdd(total, block);
}

__global__ void fill_words(uint32_t *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = nvs_selftest_word(i, seed);
}

__global__ void verify_words(const uint32_t *p, size_t n, uint32_t seed, unsigned long long *wrong)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        mine += p[i] != nvs_selftest_word(i, seed);
    add_block(mine, wrong);
}

__global__ void gemm_inputs(__nv_bfloat16 *a, __nv_bfloat16 *b, int n, uint32_t seed_v)
{
    size_t total = (size_t)n * n;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
        int row = (int)(k % n), col = (int)(k / n);
        // A(row = i, col = l) = s(i) u(l); B(row = l, col = j) = v(l) t(j)
        a[k] = __float2bfloat16_rn(nvs_selftest_s(row, NVS_SELFTEST_SEED_S) * nvs_selftest_u(col, NVS_SELFTEST_SEED_U));
        b[k] = __float2bfloat16_rn(nvs_selftest_u(row, seed_v) * nvs_selftest_s(col, NVS_SELFTEST_SEED_T));
    }
}

__global__ void random_bf16(__nv_bfloat16 *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = __float2bfloat16_rn((float)(nvs_selftest_word(i, seed) >> 8) * (2.0f / 16777216.0f) - 1.0f);
}

__global__ void gemm_verify(const float *c, int n, float dot, unsigned long long *wrong)
{
    size_t total = (size_t)n * n;
    unsigned long long mine = 0;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total; k += (size_t)gridDim.x * blockDim.x) {
        int i = (int)(k % n), j = (int)(k / n);
        mine += c[k] != dot * nvs_selftest_s(i, NVS_SELFTEST_SEED_S) * nvs_selftest_s(j, NVS_SELFTEST_SEED_T);
    }
    add_block(mine, wrong);
}

} // namespace

extern "C" int nvs_selftest_fill_words(uint32_t *p, size_t n, uint32_t seed, cudaStream_t s)
{
    fill_words<<<blocks_for(n), kThreads, 0, s>>>(p, n, seed);
    return cudaGetLastError();
}

extern "C" int nvs_selftest_verify_words(const uint32_t *p, size_t n, uint32_t seed, unsigned long long *d_wrong,
                                         cudaStream_t s)
{
    verify_words<<<blocks_for(n), kThreads, 0, s>>>(p, n, seed, d_wrong);
    return cudaGetLastError();
}

extern "C" int nvs_selftest_gemm_inputs(void *a_bf16, void *b_bf16, int n, uint32_t seed_v, cudaStream_t s)
{
    gemm_inputs<<<blocks_for((size_t)n * n), kThreads, 0, s>>>((__nv_bfloat16 *)a_bf16, (__nv_bfloat16 *)b_bf16, n,
                                                               seed_v);
    return cudaGetLastError();
}

extern "C" int nvs_selftest_random_bf16(void *p, size_t n, uint32_t seed, cudaStream_t s)
{
    random_bf16<<<blocks_for(n), kThreads, 0, s>>>((__nv_bfloat16 *)p, n, seed);
    return cudaGetLastError();
}

extern "C" int nvs_selftest_gemm_verify(const float *c, int n, float dot, unsigned long long *d_wrong,
                                        cudaStream_t s)
{
    gemm_verify<<<blocks_for((size_t)n * n), kThreads, 0, s>>>(c, n, dot, d_wrong);
    return cudaGetLastError();
}
