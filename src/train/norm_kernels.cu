// Batch norm in nvscale's own kernels, in PyTorch's launch shapes (norm_kernels.h says which and why). The
// arithmetic is the textbook one (sums in fp32); what matters for the step is where the work runs: one block per
// channel for the reductions, as PyTorch has it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "collectives/kernels.h"
#include "train/elem_access.cuh"
#include "train/norm_kernels.h"

namespace {

// PyTorch's block size for these kernels (MAX_BLOCK_SIZE in Normalization.cuh), and its choice of threads along
// the pixels: the smallest of 32..512 that covers them (getNumThreads)
constexpr int kMaxBlock = 512;

int threads_for(long long n)
{
    for (int t = 32; t < kMaxBlock; t *= 2)
        if (n <= t) return t;
    return kMaxBlock;
}

// Sums a and b over the block (at most kMaxBlock threads); every thread gets the totals.
__device__ void block_sum2(float &a, float &b)
{
    __shared__ float sa[kMaxBlock / 32], sb[kMaxBlock / 32];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, nthreads = blockDim.x * blockDim.y;
    for (int o = 16; o > 0; o /= 2) {
        a += __shfl_down_sync(0xffffffffu, a, o);
        b += __shfl_down_sync(0xffffffffu, b, o);
    }
    if (tid % 32 == 0) {
        sa[tid / 32] = a;
        sb[tid / 32] = b;
    }
    __syncthreads();
    if (tid < 32) {
        a = tid < nthreads / 32 ? sa[tid] : 0.0f;
        b = tid < nthreads / 32 ? sb[tid] : 0.0f;
        for (int o = 16; o > 0; o /= 2) {
            a += __shfl_down_sync(0xffffffffu, a, o);
            b += __shfl_down_sync(0xffffffffu, b, o);
        }
        if (tid == 0) {
            sa[0] = a;
            sb[0] = b;
        }
    }
    __syncthreads();
    a = sa[0];
    b = sb[0];
}

// One block per channel: mean and inverse standard deviation over n x hw, and the running statistics.
template <typename T>
__global__ void bn_stats_kernel(const T *x, int n, int c, long long hw, float *stats, float momentum, float eps)
{
    const int ch = blockIdx.x;
    float sum = 0.0f, sq = 0.0f;
    for (int i = threadIdx.y; i < n; i += blockDim.y) {
        const long long base = ((long long)i * c + ch) * hw;
        for (long long j = threadIdx.x; j < hw; j += blockDim.x) {
            const float v = ld(x, base + j);
            sum += v;
            sq += v * v;
        }
    }
    block_sum2(sum, sq);
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        const float m = (float)n * (float)hw, mean = sum / m, var = fmaxf(sq / m - mean * mean, 0.0f);
        stats[2 * c + ch] = mean;
        stats[3 * c + ch] = rsqrtf(var + eps);
        stats[ch] = (1.0f - momentum) * stats[ch] + momentum * mean;
        stats[c + ch] = (1.0f - momentum) * stats[c + ch] + momentum * var * (m > 1 ? m / (m - 1) : 1.0f);
    }
}

// Blocks of (channel, slice of the batch): y = (x - mean) * invstd * w + b.
template <typename T>
__global__ void bn_transform_kernel(const T *x, T *y, int n, int c, long long hw, const float *w, const float *b,
                                    const float *stats)
{
    const int ch = blockIdx.x;
    const float mean = stats[2 * c + ch], scale = stats[3 * c + ch] * w[ch], shift = b[ch];
    for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < n; i += gridDim.y * blockDim.y) {
        const long long base = ((long long)i * c + ch) * hw;
        for (long long j = threadIdx.x; j < hw; j += blockDim.x)
            st(y, base + j, (ld(x, base + j) - mean) * scale + shift);
    }
}

// One block per channel: sum(dy) and sum(dy * (x - mean)), then dx in the same block.
template <typename T>
__global__ void bn_backward_kernel(const T *x, const T *dy, T *dx, int n, int c, long long hw, const float *w,
                                   const float *stats, float *dw, float *db)
{
    const int ch = blockIdx.x;
    const float mean = stats[2 * c + ch], invstd = stats[3 * c + ch];
    float sdy = 0.0f, sdyx = 0.0f;
    for (int i = threadIdx.y; i < n; i += blockDim.y) {
        const long long base = ((long long)i * c + ch) * hw;
        for (long long j = threadIdx.x; j < hw; j += blockDim.x) {
            const float g = ld(dy, base + j);
            sdy += g;
            sdyx += g * (ld(x, base + j) - mean);
        }
    }
    block_sum2(sdy, sdyx);
    const float m = (float)n * (float)hw, gmean = sdy / m, proj = sdyx / m * invstd * invstd, k = invstd * w[ch];
    for (int i = threadIdx.y; i < n; i += blockDim.y) {
        const long long base = ((long long)i * c + ch) * hw;
        for (long long j = threadIdx.x; j < hw; j += blockDim.x)
            st(dx, base + j, (ld(dy, base + j) - gmean - (ld(x, base + j) - mean) * proj) * k);
    }
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        dw[ch] = sdyx * invstd;
        db[ch] = sdy;
    }
}

template <typename T>
int fwd(const void *xv, void *yv, int n, int c, long long hw, const float *w, const float *b, float *stats,
        float momentum, float eps, cudaStream_t s)
{
    const T *x = (const T *)xv;
    const int tf = threads_for(hw);
    bn_stats_kernel<T><<<c, dim3(tf, kMaxBlock / tf), 0, s>>>(x, n, c, hw, stats, momentum, eps);
    // this launch's own error: the transform must not run on statistics that were never computed
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    // the transform's shape as PyTorch picks it: a quarter of the pixels per thread at most, 64 threads at least
    int tx = threads_for(hw / 4);
    const int t64 = threads_for(hw) < 64 ? threads_for(hw) : 64;
    if (tx < t64) tx = t64;
    const int ty = 64 / tx > 1 ? 64 / tx : 1;
    long long gy = (n + ty - 1) / ty, cap = (256LL * 1024) / c;
    if (gy > cap) gy = cap;
    if (gy < 1) gy = 1;
    if (gy > 65535) gy = 65535;
    bn_transform_kernel<T><<<dim3(c, (unsigned)gy), dim3(tx, ty), 0, s>>>(x, (T *)yv, n, c, hw, w, b, stats);
    return cudaGetLastError();
}

template <typename T>
int bwd(const void *x, const void *dy, void *dx, int n, int c, long long hw, const float *w, const float *stats,
        float *dw, float *db, cudaStream_t s)
{
    const int tf = threads_for(hw);
    bn_backward_kernel<T><<<c, dim3(tf, kMaxBlock / tf), 0, s>>>((const T *)x, (const T *)dy, (T *)dx, n, c, hw, w,
                                                                 stats, dw, db);
    return cudaGetLastError();
}

} // namespace

extern "C" int nvs_kern_bn_fwd(const void *x, void *y, int elem, int n, int c, long long hw, const float *w,
                               const float *b, float *stats, float momentum, float eps, cudaStream_t s)
{
    if (n < 1 || c < 1 || hw < 1) return cudaErrorInvalidValue;
    switch (elem) {
    case NVS_ELEM_F32: return fwd<float>(x, y, n, c, hw, w, b, stats, momentum, eps, s);
    case NVS_ELEM_BF16: return fwd<__nv_bfloat16>(x, y, n, c, hw, w, b, stats, momentum, eps, s);
    case NVS_ELEM_F16: return fwd<__half>(x, y, n, c, hw, w, b, stats, momentum, eps, s);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" int nvs_kern_bn_bwd(const void *x, const void *dy, void *dx, int elem, int n, int c, long long hw,
                               const float *w, const float *stats, float *dw, float *db, cudaStream_t s)
{
    if (n < 1 || c < 1 || hw < 1) return cudaErrorInvalidValue;
    switch (elem) {
    case NVS_ELEM_F32: return bwd<float>(x, dy, dx, n, c, hw, w, stats, dw, db, s);
    case NVS_ELEM_BF16: return bwd<__nv_bfloat16>(x, dy, dx, n, c, hw, w, stats, dw, db, s);
    case NVS_ELEM_F16: return bwd<__half>(x, dy, dx, n, c, hw, w, stats, dw, db, s);
    default: return cudaErrorInvalidValue;
    }
}
