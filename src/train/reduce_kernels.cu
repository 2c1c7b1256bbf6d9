// The bias-gradient reduction launched as PyTorch launches an outer-dimension sum (reduce_kernels.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "collectives/kernels.h"
#include "train/reduce_kernels.h"

namespace {

constexpr int kBx = 32, kBy = 4, kVec = 4; // 128 threads; 4 columns a thread
// rows a thread loads before it adds them (PyTorch's reduce_kernel keeps 4 loads in flight too: Reduce.cuh vt0 = 4).
// 8 at 16-bit types was slower where it matters: 124.6 against 103.1 us at 4096 x 30522 bf16, G = 32
// (results/h200x1-session45c, h200x1-session45b)
constexpr int kRows = 4;

template <typename T> __device__ __forceinline__ float load_f(const T *p, size_t i) { return (float)p[i]; }
template <> __device__ __forceinline__ float load_f<__nv_bfloat16>(const __nv_bfloat16 *p, size_t i)
{
    return __bfloat162float(p[i]);
}
template <> __device__ __forceinline__ float load_f<__half>(const __half *p, size_t i) { return __half2float(p[i]); }

__device__ __forceinline__ void store_f(void *out, int elem, int c, float v)
{
    if (elem == NVS_ELEM_BF16)
        ((__nv_bfloat16 *)out)[c] = __float2bfloat16_rn(v);
    else if (elem == NVS_ELEM_F16)
        ((__half *)out)[c] = __float2half_rn(v);
    else
        ((float *)out)[c] = v;
}

// 4 adjacent columns of one row: one 4-element access where the row start and column allow it (vec), else four.
// A row start aligned to 2 elements only (ld = 2 mod 4: BERT's 30522-word vocabulary) takes the four: two
// 2-element accesses measured no faster there (4096 x 30522 bf16, four rows in flight: 103.1 us at G = 32 and
// 149.6 at G = 9 as pairs, results/h200x1-session45b; 100.3 and 117.4 as four, h200x1-session45d)
template <typename T>
__device__ __forceinline__ void load4(const T *x, size_t at, bool vec, int left, float *v)
{
    if (vec && sizeof(T) == 2) {
        uint2 u = *(const uint2 *)(x + at);
        const T *h = (const T *)&u;
        for (int k = 0; k < kVec; k++) v[k] = load_f<T>(h, k);
    } else if (vec) {
        float4 u = *(const float4 *)(x + at);
        v[0] = u.x, v[1] = u.y, v[2] = u.z, v[3] = u.w;
    } else {
        for (int k = 0; k < kVec; k++) v[k] = k < left ? load_f<T>(x, at + k) : 0.0f;
    }
}

// Rows r, r + kBy, ... (n of them) added into acc: the n rows' loads are issued before any is added (the adds keep
// the rows' order: the same sums as one row at a time). One row's 8 or 16 bytes a thread in flight left HBM idle on
// a matrix that does not fit in L2.
template <int n, typename T>
__device__ __forceinline__ void add_rows(const T *x, long long r, long long ld, int c0, bool vec, int left, float *acc)
{
    float v[n][kVec];
#pragma unroll
    for (int u = 0; u < n; u++) load4<T>(x, (size_t)(r + u * kBy) * (size_t)ld + c0, vec, left, v[u]);
#pragma unroll
    for (int u = 0; u < n; u++)
        for (int k = 0; k < kVec; k++) acc[k] += v[u][k];
}

// grid: (column groups of 128, G row slices); block (32, 4)
template <typename T>
__global__ void outer_sum_kernel(const T *x, long long rows, int cols, long long ld, void *out, int out_elem,
                                 float *staging, unsigned *sems)
{
    __shared__ float part[kBy][kBx * kVec];
    __shared__ bool last;
    const int c0 = (blockIdx.x * kBx + threadIdx.x) * kVec;
    const int left = cols - c0;
    const bool vec = ((ld % kVec) == 0) && left >= kVec &&
                     ((reinterpret_cast<size_t>(x) % (kVec * sizeof(T))) == 0);
    const long long per = (rows + gridDim.y - 1) / gridDim.y;
    const long long r0 = (long long)blockIdx.y * per, r1 = r0 + per < rows ? r0 + per : rows;
    float acc[kVec] = {0, 0, 0, 0};
    if (left > 0) {
        long long r = r0 + threadIdx.y;
        for (; r + (kRows - 1) * kBy < r1; r += kRows * kBy) add_rows<kRows, T>(x, r, ld, c0, vec, left, acc);
        for (; r < r1; r += kBy) add_rows<1, T>(x, r, ld, c0, vec, left, acc);
    }
    for (int k = 0; k < kVec; k++) part[threadIdx.y][threadIdx.x * kVec + k] = acc[k];
    __syncthreads();
    // the block's 128 column sums: thread (tx, ty) finishes column tx + 32 ty of the block
    const int lc = threadIdx.x + kBx * threadIdx.y, c = blockIdx.x * kBx * kVec + lc;
    float s = 0;
    for (int y = 0; y < kBy; y++) s += part[y][lc];
    if (gridDim.y == 1) {
        if (c < cols) store_f(out, out_elem, c, s);
        return;
    }
    if (c < cols) staging[(size_t)blockIdx.y * cols + c] = s;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) last = atomicAdd(&sems[blockIdx.x], 1u) == gridDim.y - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    if (c < cols) {
        float t = 0;
        for (unsigned y = 0; y < gridDim.y; y++) t += ((volatile float *)staging)[(size_t)y * cols + c];
        store_f(out, out_elem, c, t);
    }
    if (threadIdx.x == 0 && threadIdx.y == 0) sems[blockIdx.x] = 0; // ready for the next launch
}

} // namespace

extern "C" int nvs_kern_outer_sum_g(const void *x, int elem, long long rows, int cols, long long ld, void *out,
                                    int out_elem, float *staging, size_t staging_elems, unsigned *sems, int nsems,
                                    int g, cudaStream_t s)
{
    const long long gx = (cols + kBx * kVec - 1) / (kBx * kVec);
    if (rows < 1 || cols < 1 || ld < cols || g < 1 || g > 65535 || elem < NVS_ELEM_F32 || elem > NVS_ELEM_F16 ||
        out_elem < NVS_ELEM_F32 || out_elem > NVS_ELEM_F16)
        return cudaErrorInvalidValue;
    if (g > 1 && (!staging || !sems || staging_elems < (size_t)g * (size_t)cols || nsems < gx))
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)gx, (unsigned)g), block(kBx, kBy);
    if (elem == NVS_ELEM_BF16)
        outer_sum_kernel<__nv_bfloat16><<<grid, block, 0, s>>>((const __nv_bfloat16 *)x, rows, cols, ld, out,
                                                               out_elem, staging, sems);
    else if (elem == NVS_ELEM_F16)
        outer_sum_kernel<__half><<<grid, block, 0, s>>>((const __half *)x, rows, cols, ld, out, out_elem, staging,
                                                        sems);
    else
        outer_sum_kernel<float><<<grid, block, 0, s>>>((const float *)x, rows, cols, ld, out, out_elem, staging,
                                                       sems);
    return cudaGetLastError();
}

extern "C" int nvs_kern_outer_sum(const void *x, int elem, long long rows, int cols, long long ld, void *out,
                                  int out_elem, float *staging, size_t staging_elems, unsigned *sems, int nsems,
                                  nvs_sm_shape sm, cudaStream_t s)
{
    return nvs_kern_outer_sum_g(x, elem, rows, cols, ld, out, out_elem, staging, staging_elems, sems, nsems,
                                nvs_outer_sum_ctas(rows, cols, sm), s);
}

extern "C" int nvs_sm_shape_of(int dev, nvs_sm_shape *out)
{
    nvs_sm_shape sm = {0, 0};
    cudaError_t e = cudaDeviceGetAttribute(&sm.sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sm.threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    if (e == cudaSuccess) *out = sm;
    return e;
}
