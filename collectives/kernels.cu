// Fill / verify kernels for the collective and copy benchmarks, and the element-wise passes of the synthetic
// training step. The pattern and expectations are defined once, in pattern.h and coll.h, shared with the host.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "collectives/copy_split.h"
#include "collectives/grid.h"
#include "collectives/kernels.h"

namespace {

using nvs_grid::blocks_for;
using nvs_grid::kThreads;

template <typename T> __device__ __forceinline__ T from_double(double v) { return (T)v; }
template <> __device__ __forceinline__ __half from_double<__half>(double v) { return __float2half_rn((float)v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_double<__nv_bfloat16>(double v)
{
    return __float2bfloat16_rn((float)v);
}
template <typename T> __device__ __forceinline__ double to_double(T v) { return (double)v; }
template <> __device__ __forceinline__ double to_double<__half>(__half v) { return (double)__half2float(v); }
template <> __device__ __forceinline__ double to_double<__nv_bfloat16>(__nv_bfloat16 v)
{
    return (double)__bfloat162float(v);
}

template <typename T>
__global__ void fill_kernel(T *ptr, size_t count, nvs_pattern p, int rank, size_t offset)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
        ptr[k] = from_double<T>(nvs_pattern_value(&p, rank, offset + k));
}

template <typename T>
__global__ void verify_kernel(const T *ptr, nvs_pattern p, nvs_expect e, unsigned long long *wrong,
                              unsigned long long *first)
{
    __shared__ unsigned long long block_wrong;
    if (threadIdx.x == 0) block_wrong = 0;
    __syncthreads();
    unsigned long long mine = 0;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < e.check_count;
         k += (size_t)gridDim.x * blockDim.x) {
        size_t idx = e.index_offset + (e.chunk ? k % e.chunk : k);
        double want;
        if (e.reduce)
            want = nvs_pattern_reduced(&p, idx);
        else
            want = nvs_pattern_value(&p, e.fixed_src >= 0 ? e.fixed_src : (int)(k / e.chunk), idx);
        // compare in the element type: the expectation is exact in it (pattern.h)
        if (to_double<T>(ptr[k]) != to_double<T>(from_double<T>(want))) {
            mine++;
            atomicMin(first, (unsigned long long)k);
        }
    }
    if (mine) atomicAdd(&block_wrong, mine);
    __syncthreads();
    if (threadIdx.x == 0 && block_wrong) atomicAdd(wrong, block_wrong);
}

template <typename T> int launch_fill(void *ptr, size_t count, const nvs_pattern *p, int rank, size_t off,
                                      cudaStream_t s)
{
    if (!count) return cudaSuccess;
    fill_kernel<T><<<blocks_for(count), kThreads, 0, s>>>((T *)ptr, count, *p, rank, off);
    return cudaGetLastError();
}

template <typename T> int launch_verify(const void *ptr, const nvs_pattern *p, const nvs_expect *e,
                                        unsigned long long *w, unsigned long long *f, cudaStream_t s)
{
    if (!e->check_count) return cudaSuccess;
    verify_kernel<T><<<blocks_for(e->check_count), kThreads, 0, s>>>((const T *)ptr, *p, *e, w, f);
    return cudaGetLastError();
}

__device__ __forceinline__ uint32_t mix32(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (uint32_t)x;
}

__global__ void init_random_kernel(void *ptr, size_t count, int elem, unsigned seed, float scale)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x) {
        float v = ((float)(mix32(k * 2654435761ull + seed) & 0xffffff) / 16777216.0f * 2.0f - 1.0f) * scale;
        if (elem == NVS_ELEM_BF16)
            ((__nv_bfloat16 *)ptr)[k] = __float2bfloat16_rn(v);
        else if (elem == NVS_ELEM_F16)
            ((__half *)ptr)[k] = __float2half_rn(v);
        else
            ((float *)ptr)[k] = v;
    }
}

template <typename T> __device__ __forceinline__ float to_float(T v) { return (float)v; }
template <> __device__ __forceinline__ float to_float<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T of_float(float v) { return (T)v; }
template <> __device__ __forceinline__ __half of_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 of_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// y = y * a + b in 16-byte accesses (8 half/bf16 or 4 float per thread and turn), as a framework's vectorized
// element-wise kernels move memory (PyTorch's vectorized_elementwise_kernel<8, ...> for 2-byte types in its
// ResNet-50 step, results/h200x1-census); scalar 2-byte accesses reached 1.4 TB/s on an H200
// (results/h200x1-bnex, ncu). The last count % (16 / sizeof(T)) elements: block 0's first threads.
template <typename T> __global__ void axpb_kernel(T *ptr, size_t count, float a, float b)
{
    constexpr int K = 16 / sizeof(T);
    const size_t nvec = count / K;
    uint4 *v = reinterpret_cast<uint4 *>(ptr);
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nvec; k += (size_t)gridDim.x * blockDim.x) {
        uint4 w = v[k];
        T *e = reinterpret_cast<T *>(&w);
#pragma unroll
        for (int i = 0; i < K; i++) e[i] = of_float<T>(to_float(e[i]) * a + b);
        v[k] = w;
    }
    const size_t t = nvec * K + threadIdx.x;
    if (blockIdx.x == 0 && t < count) ptr[t] = of_float<T>(to_float(ptr[t]) * a + b);
}

// The same one element per thread, for a pointer not 16-byte aligned.
template <typename T> __global__ void axpb_scalar_kernel(T *ptr, size_t count, float a, float b)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
        ptr[k] = of_float<T>(to_float(ptr[k]) * a + b);
}

template <typename T> int launch_axpb(void *ptr, size_t count, float a, float b, cudaStream_t s)
{
    if ((uintptr_t)ptr % 16)
        axpb_scalar_kernel<T><<<blocks_for(count), kThreads, 0, s>>>((T *)ptr, count, a, b);
    else
        axpb_kernel<T><<<blocks_for(count / (16 / sizeof(T)) + 1), kThreads, 0, s>>>((T *)ptr, count, a, b);
    return cudaGetLastError();
}

__global__ void sgd_kernel(float *w, float *m, const void *g, int g_bf16, size_t count, float gscale, float lr,
                           float mu)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x) {
        float gv = g_bf16 ? __bfloat162float(((const __nv_bfloat16 *)g)[k]) : ((const float *)g)[k];
        float mv = mu * m[k] + gv * gscale;
        m[k] = mv;
        w[k] -= lr * mv;
    }
}

__global__ void adamw_kernel(float *w, float *m, float *v, const void *g, int g_elem, size_t count, float gscale,
                             float lr, float b1, float b2, float eps, float decay, float step_size, float bc2)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x) {
        float gv = g_elem == NVS_ELEM_BF16  ? __bfloat162float(((const __nv_bfloat16 *)g)[k])
                   : g_elem == NVS_ELEM_F16 ? __half2float(((const __half *)g)[k])
                                            : ((const float *)g)[k];
        gv *= gscale;
        float mv = b1 * m[k] + (1.0f - b1) * gv, vv = b2 * v[k] + (1.0f - b2) * gv * gv;
        m[k] = mv;
        v[k] = vv;
        w[k] = w[k] * decay - step_size * mv / (sqrtf(vv / bc2) + eps);
    }
}

// The foreach passes of PyTorch's AdamW (workload/optimizer.h nvs_adamw_foreach lists them, with their source):
// one simple kernel per foreach operation that is not a scalar multiply or add (those run as axpb), each reading
// and writing what the operation does. The gradient is read as its type and scaled by gscale (1/N: DDP's average,
// which PyTorch applies in the reducer, not the optimizer: no traffic of its own here).
__device__ __forceinline__ float grad_at(const void *g, int g_elem, size_t k)
{
    return g_elem == NVS_ELEM_BF16  ? __bfloat162float(((const __nv_bfloat16 *)g)[k])
           : g_elem == NVS_ELEM_F16 ? __half2float(((const __half *)g)[k])
                                    : ((const float *)g)[k];
}

// _foreach_lerp_(exp_avgs, grads, wt): m + wt (g - m) (wt < 0.5, else g - (g - m)(1 - wt): ATen's lerp,
// aten/src/ATen/native/Lerp.h)
__global__ void lerp_kernel(float *m, const void *g, int g_elem, size_t count, float gscale, float wt)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x) {
        float gv = grad_at(g, g_elem, k) * gscale, mv = m[k];
        m[k] = wt < 0.5f ? mv + wt * (gv - mv) : gv - (gv - mv) * (1.0f - wt);
    }
}

// _foreach_addcmul_(exp_avg_sqs, grads, grads, value): v + value g g, g read once (both operands one tensor)
__global__ void addcmul_sq_kernel(float *v, const void *g, int g_elem, size_t count, float gscale, float value)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x) {
        float gv = grad_at(g, g_elem, k) * gscale;
        v[k] += value * gv * gv;
    }
}

// exp_avg_sq_sqrt = _foreach_sqrt(exp_avg_sqs): read v, write the temporary
__global__ void sqrt_kernel(float *dst, const float *src, size_t count)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
        dst[k] = sqrtf(src[k]);
}

// _foreach_div_(exp_avg_sq_sqrt, bias_correction2_sqrt): a division, as PyTorch's (not a multiply by 1/d)
__global__ void div_kernel(float *x, size_t count, float d)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
        x[k] /= d;
}

// _foreach_addcdiv_(params, exp_avgs, exp_avg_sq_sqrt, step_size): w + value (m / s)
__global__ void addcdiv_kernel(float *w, const float *m, const float *s, size_t count, float value)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
        w[k] += value * (m[k] / s[k]);
}

__global__ void convert_kernel(const void *src, int src_elem, void *dst, int dst_elem, size_t count)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x) {
        float v = src_elem == NVS_ELEM_BF16  ? __bfloat162float(((const __nv_bfloat16 *)src)[k])
                  : src_elem == NVS_ELEM_F16 ? __half2float(((const __half *)src)[k])
                                             : ((const float *)src)[k];
        if (dst_elem == NVS_ELEM_BF16)
            ((__nv_bfloat16 *)dst)[k] = __float2bfloat16_rn(v);
        else if (dst_elem == NVS_ELEM_F16)
            ((__half *)dst)[k] = __float2half_rn(v);
        else
            ((float *)dst)[k] = v;
    }
}

// y += a * x, y float and x float in 16-byte accesses (both 16-byte aligned: PyTorch's foreach kernels move
// 4 floats per access where they can, multi_tensor_apply's ILP), else one element per thread and x of any
// element type
__global__ void axpy4_kernel(float4 *y, const float4 *x, size_t nvec, float a)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nvec; k += (size_t)gridDim.x * blockDim.x) {
        float4 u = y[k], v = x[k];
        u.x += a * v.x;
        u.y += a * v.y;
        u.z += a * v.z;
        u.w += a * v.w;
        y[k] = u;
    }
}

__global__ void axpy_kernel(float *y, const void *x, int x_elem, size_t count, float a)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x) {
        float v = x_elem == NVS_ELEM_BF16  ? __bfloat162float(((const __nv_bfloat16 *)x)[k])
                  : x_elem == NVS_ELEM_F16 ? __half2float(((const __half *)x)[k])
                                           : ((const float *)x)[k];
        y[k] += a * v;
    }
}

// A copy at the widest access width both pointers share (copy_split.h), with four loads in flight per thread
// before the stores: what a bandwidth-bound transpose (cuDNN's layout transforms) achieves, rather than one load
// at a time. The first threads also copy the head and tail bytes (fewer than 16 each) around the aligned body.
template <typename V>
__global__ void copy_vec_kernel(V *dst, const V *src, size_t n, unsigned char *hd, const unsigned char *hs,
                                unsigned head, unsigned char *td, const unsigned char *ts, unsigned tail)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (k < head) hd[k] = hs[k];
    if (k < tail) td[k] = ts[k];
    for (; k + 3 * stride < n; k += 4 * stride) {
        V a = src[k], b = src[k + stride], c = src[k + 2 * stride], d = src[k + 3 * stride];
        dst[k] = a;
        dst[k + stride] = b;
        dst[k + 2 * stride] = c;
        dst[k + 3 * stride] = d;
    }
    for (; k < n; k += stride) dst[k] = src[k];
}

template <typename V> int launch_copy(unsigned char *dst, const unsigned char *src, const nvs_copy_split &sp,
                                      cudaStream_t s)
{
    unsigned char *body_d = dst + sp.head;
    const unsigned char *body_s = src + sp.head;
    size_t body = sp.n * sizeof(V);
    // at least one block: its first threads copy the head and tail (each under 16 bytes) even when n is 0
    copy_vec_kernel<V><<<blocks_for((sp.n + 3) / 4), kThreads, 0, s>>>(
        (V *)body_d, (const V *)body_s, sp.n, dst, src, (unsigned)sp.head, body_d + body, body_s + body,
        (unsigned)sp.tail);
    return cudaGetLastError();
}

} // namespace

extern "C" int nvs_kern_fill(nvs_dtype t, void *ptr, size_t count, const nvs_pattern *p, int rank,
                             size_t index_offset, cudaStream_t s)
{
    switch (t) {
    case NVS_FLOAT: return launch_fill<float>(ptr, count, p, rank, index_offset, s);
    case NVS_HALF: return launch_fill<__half>(ptr, count, p, rank, index_offset, s);
    case NVS_BF16: return launch_fill<__nv_bfloat16>(ptr, count, p, rank, index_offset, s);
    case NVS_INT32: return launch_fill<int32_t>(ptr, count, p, rank, index_offset, s);
    case NVS_DOUBLE: return launch_fill<double>(ptr, count, p, rank, index_offset, s);
    case NVS_INT8: return launch_fill<int8_t>(ptr, count, p, rank, index_offset, s);
    case NVS_UINT8: return launch_fill<uint8_t>(ptr, count, p, rank, index_offset, s);
    case NVS_UINT32: return launch_fill<uint32_t>(ptr, count, p, rank, index_offset, s);
    case NVS_INT64: return launch_fill<int64_t>(ptr, count, p, rank, index_offset, s);
    case NVS_UINT64: return launch_fill<uint64_t>(ptr, count, p, rank, index_offset, s);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" int nvs_kern_poison(void *ptr, size_t bytes, cudaStream_t s)
{
    return cudaMemsetAsync(ptr, 0x7f, bytes, s);
}

extern "C" int nvs_kern_verify(nvs_dtype t, const void *ptr, const nvs_pattern *p, const nvs_expect *e,
                               unsigned long long *d_wrong, unsigned long long *d_first, cudaStream_t s)
{
    switch (t) {
    case NVS_FLOAT: return launch_verify<float>(ptr, p, e, d_wrong, d_first, s);
    case NVS_HALF: return launch_verify<__half>(ptr, p, e, d_wrong, d_first, s);
    case NVS_BF16: return launch_verify<__nv_bfloat16>(ptr, p, e, d_wrong, d_first, s);
    case NVS_INT32: return launch_verify<int32_t>(ptr, p, e, d_wrong, d_first, s);
    case NVS_DOUBLE: return launch_verify<double>(ptr, p, e, d_wrong, d_first, s);
    case NVS_INT8: return launch_verify<int8_t>(ptr, p, e, d_wrong, d_first, s);
    case NVS_UINT8: return launch_verify<uint8_t>(ptr, p, e, d_wrong, d_first, s);
    case NVS_UINT32: return launch_verify<uint32_t>(ptr, p, e, d_wrong, d_first, s);
    case NVS_INT64: return launch_verify<int64_t>(ptr, p, e, d_wrong, d_first, s);
    case NVS_UINT64: return launch_verify<uint64_t>(ptr, p, e, d_wrong, d_first, s);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" int nvs_kern_init_random(void *ptr, size_t count, int elem, unsigned seed, float scale, cudaStream_t s)
{
    if (!count) return cudaSuccess;
    if (elem < NVS_ELEM_F32 || elem > NVS_ELEM_F16) return cudaErrorInvalidValue;
    init_random_kernel<<<blocks_for(count), kThreads, 0, s>>>(ptr, count, elem, seed, scale);
    return cudaGetLastError();
}

extern "C" int nvs_kern_axpb(void *ptr, size_t count, int elem, float a, float b, cudaStream_t s)
{
    if (!count) return cudaSuccess;
    if (elem < NVS_ELEM_F32 || elem > NVS_ELEM_F16) return cudaErrorInvalidValue;
    if (elem == NVS_ELEM_BF16) return launch_axpb<__nv_bfloat16>(ptr, count, a, b, s);
    if (elem == NVS_ELEM_F16) return launch_axpb<__half>(ptr, count, a, b, s);
    return launch_axpb<float>(ptr, count, a, b, s);
}

extern "C" int nvs_kern_copy(void *dst, const void *src, size_t bytes, cudaStream_t s)
{
    if (!bytes) return cudaSuccess;
    nvs_copy_split sp = nvs_copy_split_of((uintptr_t)dst, (uintptr_t)src, bytes);
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *r = (const unsigned char *)src;
    switch (sp.width) {
    case 16: return launch_copy<uint4>(d, r, sp, s);
    case 8: return launch_copy<uint2>(d, r, sp, s);
    case 4: return launch_copy<uint32_t>(d, r, sp, s);
    case 2: return launch_copy<uint16_t>(d, r, sp, s);
    default: return launch_copy<unsigned char>(d, r, sp, s);
    }
}

extern "C" int nvs_kern_sgd(float *w, float *m, const void *g, int g_bf16, size_t count, float gscale, float lr,
                            float mu, cudaStream_t s)
{
    if (!count) return cudaSuccess;
    sgd_kernel<<<blocks_for(count), kThreads, 0, s>>>(w, m, g, g_bf16, count, gscale, lr, mu);
    return cudaGetLastError();
}

extern "C" int nvs_kern_adamw(float *w, float *m, float *v, const void *g, int g_elem, size_t count, float gscale,
                              float lr, float beta1, float beta2, float eps, float weight_decay, long long t,
                              cudaStream_t s)
{
    if (!count) return cudaSuccess;
    if (g_elem < NVS_ELEM_F32 || g_elem > NVS_ELEM_F16 || t < 1) return cudaErrorInvalidValue;
    /* the bias corrections once, on the host, as PyTorch computes them per step */
    float bc1 = 1.0f - powf(beta1, (float)t), bc2 = 1.0f - powf(beta2, (float)t);
    adamw_kernel<<<blocks_for(count), kThreads, 0, s>>>(w, m, v, g, g_elem, count, gscale, lr, beta1, beta2, eps,
                                                        1.0f - lr * weight_decay, lr / bc1, bc2);
    return cudaGetLastError();
}

extern "C" int nvs_kern_adamw_foreach(float *w, float *m, float *v, float *tmp, const void *g, int g_elem,
                                      size_t count, float gscale, float lr, float beta1, float beta2, float eps,
                                      float weight_decay, long long t, cudaStream_t s)
{
    if (!count) return cudaSuccess;
    if (g_elem < NVS_ELEM_F32 || g_elem > NVS_ELEM_F16 || t < 1) return cudaErrorInvalidValue;
    /* the step's scalars on the host, as _multi_tensor_adam computes them (capturable=False) */
    const float bc1 = 1.0f - powf(beta1, (float)t), bc2_sqrt = sqrtf(1.0f - powf(beta2, (float)t));
    const unsigned nb = blocks_for(count);
    int r;
    if ((r = nvs_kern_axpb(w, count, NVS_ELEM_F32, 1.0f - lr * weight_decay, 0.0f, s))) return r; /* 1 mul_ */
    lerp_kernel<<<nb, kThreads, 0, s>>>(m, g, g_elem, count, gscale, 1.0f - beta1);              /* 2 lerp_ */
    if ((r = cudaGetLastError())) return r;
    if ((r = nvs_kern_axpb(v, count, NVS_ELEM_F32, beta2, 0.0f, s))) return r;                  /* 3 mul_ */
    addcmul_sq_kernel<<<nb, kThreads, 0, s>>>(v, g, g_elem, count, gscale, 1.0f - beta2);       /* 4 addcmul_ */
    if ((r = cudaGetLastError())) return r;
    sqrt_kernel<<<nb, kThreads, 0, s>>>(tmp, v, count);                                         /* 5 sqrt */
    if ((r = cudaGetLastError())) return r;
    div_kernel<<<nb, kThreads, 0, s>>>(tmp, count, bc2_sqrt);                                   /* 6 div_ */
    if ((r = cudaGetLastError())) return r;
    if ((r = nvs_kern_axpb(tmp, count, NVS_ELEM_F32, 1.0f, eps, s))) return r;                  /* 7 add_ */
    addcdiv_kernel<<<nb, kThreads, 0, s>>>(w, m, tmp, count, -(lr / bc1));                     /* 8 addcdiv_ */
    return cudaGetLastError();
}

extern "C" int nvs_kern_convert(const void *src, int src_elem, void *dst, int dst_elem, size_t count,
                                cudaStream_t s)
{
    if (!count) return cudaSuccess;
    if (src_elem < NVS_ELEM_F32 || src_elem > NVS_ELEM_F16 || dst_elem < NVS_ELEM_F32 || dst_elem > NVS_ELEM_F16)
        return cudaErrorInvalidValue;
    convert_kernel<<<blocks_for(count), kThreads, 0, s>>>(src, src_elem, dst, dst_elem, count);
    return cudaGetLastError();
}

extern "C" int nvs_kern_axpy(float *y, const void *x, int x_elem, size_t count, float a, cudaStream_t s)
{
    if (!count) return cudaSuccess;
    if (x_elem < NVS_ELEM_F32 || x_elem > NVS_ELEM_F16) return cudaErrorInvalidValue;
    if (x_elem == NVS_ELEM_F32 && (uintptr_t)y % 16 == 0 && (uintptr_t)x % 16 == 0) {
        size_t nvec = count / 4, body = nvec * 4;
        if (nvec) {
            axpy4_kernel<<<blocks_for(nvec), kThreads, 0, s>>>((float4 *)y, (const float4 *)x, nvec, a);
            cudaError_t e = cudaGetLastError();
            if (e != cudaSuccess) return e;
        }
        if (count > body)
            axpy_kernel<<<1, kThreads, 0, s>>>(y + body, (const float *)x + body, x_elem, count - body, a);
    } else {
        axpy_kernel<<<blocks_for(count), kThreads, 0, s>>>(y, x, x_elem, count, a);
    }
    return cudaGetLastError();
}
