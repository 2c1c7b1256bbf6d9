// LayerNorm in nvscale's own kernels, launched in PyTorch's shapes (ln_kernels.h says which and why, ln_plan.h
// where each shape comes from in aten/src/ATen/native/cuda/layer_norm_kernel.cu; no code of PyTorch's here). The
// arithmetic is fp32 whatever the element type; the kernels' small reduction buffers are static shared memory (a
// few hundred bytes: no effect on occupancy), the gamma/beta kernel's is PyTorch's dynamic size (ln_plan.c).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "collectives/kernels.h"
#include "train/elem_access.cuh"
#include "train/ln_kernels.h"
#include "train/ln_plan.h"
#include "train/reduce_kernels.h"

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarp = NVS_LN_WARP, kVec = NVS_LN_VEC, kGbCols = NVS_LN_GB_COLS;

// 4 adjacent elements in one access (PyTorch's vec_size = 4 whatever the type): 16 bytes of float, 8 of a 16-bit
// type; the launcher checked the alignment (ln_plan.h align_bytes)
struct alignas(8) Bf16x4 {
    __nv_bfloat162 a, b;
};
struct alignas(8) F16x4 {
    __half2 a, b;
};

__device__ __forceinline__ void ld4(const float *p, float *v)
{
    const float4 u = *reinterpret_cast<const float4 *>(p);
    v[0] = u.x, v[1] = u.y, v[2] = u.z, v[3] = u.w;
}
__device__ __forceinline__ void ld4(const __nv_bfloat16 *p, float *v)
{
    const Bf16x4 u = *reinterpret_cast<const Bf16x4 *>(p);
    const float2 a = __bfloat1622float2(u.a), b = __bfloat1622float2(u.b);
    v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
}
__device__ __forceinline__ void ld4(const __half *p, float *v)
{
    const F16x4 u = *reinterpret_cast<const F16x4 *>(p);
    const float2 a = __half22float2(u.a), b = __half22float2(u.b);
    v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
}
__device__ __forceinline__ void st4(float *p, const float *v)
{
    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
__device__ __forceinline__ void st4(__nv_bfloat16 *p, const float *v)
{
    Bf16x4 u;
    u.a = __floats2bfloat162_rn(v[0], v[1]);
    u.b = __floats2bfloat162_rn(v[2], v[3]);
    *reinterpret_cast<Bf16x4 *>(p) = u;
}
__device__ __forceinline__ void st4(__half *p, const float *v)
{
    F16x4 u;
    u.a = __floats2half2_rn(v[0], v[1]);
    u.b = __floats2half2_rn(v[2], v[3]);
    *reinterpret_cast<F16x4 *>(p) = u;
}

// --- reductions ----------------------------------------------------------------------------------------------
// Welford's running mean and sum of squared deviations, the count a float (as PyTorch's WelfordDataLN keeps it)
struct Moments {
    float mean, m2, n;
};

__device__ __forceinline__ void welford_add(Moments &a, float v)
{
    a.n += 1.0f;
    const float d = v - a.mean;
    a.mean += d * (1.0f / a.n);
    a.m2 += d * (v - a.mean);
}

// Chan, Golub and LeVeque's merge of two partial results (either may be empty)
__device__ __forceinline__ Moments welford_merge(const Moments &a, const Moments &b)
{
    const float n = a.n + b.n;
    if (n == 0.0f) return a;
    const float d = b.mean - a.mean, fb = b.n / n;
    return {a.mean + d * fb, a.m2 + b.m2 + d * d * a.n * fb, n};
}

// lane 0 ends with the warp's moments
__device__ __forceinline__ Moments warp_welford(Moments a)
{
    for (int o = kWarp / 2; o > 0; o /= 2) {
        const Moments b = {__shfl_down_sync(kFull, a.mean, o), __shfl_down_sync(kFull, a.m2, o),
                           __shfl_down_sync(kFull, a.n, o)};
        a = welford_merge(a, b);
    }
    return a;
}

// The row's mean and population variance from every thread's moments (a block of whole warps, at most 32): each
// warp by shuffles, then the warps' results in shared memory merged by the first warp. Every thread gets both.
__device__ void block_welford(Moments a, float &mean, float &var)
{
    __shared__ float sm[kWarp], s2[kWarp], sn[kWarp];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, lane = tid % kWarp, warp = tid / kWarp;
    const int warps = blockDim.x * blockDim.y / kWarp;
    a = warp_welford(a);
    if (lane == 0) sm[warp] = a.mean, s2[warp] = a.m2, sn[warp] = a.n;
    __syncthreads();
    if (warp == 0) {
        Moments b = {0.0f, 0.0f, 0.0f};
        if (lane < warps) b = {sm[lane], s2[lane], sn[lane]};
        b = warp_welford(b); // its shuffles order the lanes' reads above before lane 0's writes below
        if (lane == 0) sm[0] = b.mean, s2[0] = b.n > 0.0f ? b.m2 / b.n : 0.0f;
    }
    __syncthreads();
    mean = sm[0];
    var = s2[0];
}

// Sums a and b over a 1-D block of whole warps (cuda_utils::BlockReduceSum's structure: shuffles, one value per
// warp in shared memory, the first warp finishes); every thread gets the totals.
__device__ void block_sum2(float &a, float &b)
{
    __shared__ float sa[kWarp], sb[kWarp];
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;
    for (int o = kWarp / 2; o > 0; o /= 2) {
        a += __shfl_down_sync(kFull, a, o);
        b += __shfl_down_sync(kFull, b, o);
    }
    if (lane == 0) sa[warp] = a, sb[warp] = b;
    __syncthreads();
    if (warp == 0) {
        a = lane < warps ? sa[lane] : 0.0f;
        b = lane < warps ? sb[lane] : 0.0f;
        for (int o = kWarp / 2; o > 0; o /= 2) {
            a += __shfl_down_sync(kFull, a, o);
            b += __shfl_down_sync(kFull, b, o);
        }
        if (lane == 0) sa[0] = a, sb[0] = b;
    }
    __syncthreads();
    a = sa[0];
    b = sb[0];
}

// --- forward -------------------------------------------------------------------------------------------------
// vectorized_layer_norm_kernel's shape: a row per block of (32, 4); thread t takes the row's 4-element vectors t,
// t + 128, ...: Welford over them, the block's merge, then the row read again for y.
template <typename T>
__global__ void ln_fwd_vec_kernel(const T *__restrict__ x, T *__restrict__ y, int cols, const float *__restrict__ gamma,
                                  const float *__restrict__ beta, float *__restrict__ mean, float *__restrict__ rstd,
                                  float eps)
{
    const long long base = (long long)blockIdx.x * cols;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, nt = blockDim.x * blockDim.y, nv = cols / kVec;
    Moments m = {0.0f, 0.0f, 0.0f};
    for (int i = tid; i < nv; i += nt) {
        float v[kVec];
        ld4(x + base + (long long)i * kVec, v);
#pragma unroll
        for (int k = 0; k < kVec; k++) welford_add(m, v[k]);
    }
    float mu, var;
    block_welford(m, mu, var);
    const float r = rsqrtf(var + eps);
    for (int i = tid; i < nv; i += nt) {
        float v[kVec], g[kVec], b[kVec];
        ld4(x + base + (long long)i * kVec, v);
        ld4(gamma + i * kVec, g);
        ld4(beta + i * kVec, b);
#pragma unroll
        for (int k = 0; k < kVec; k++) v[k] = (v[k] - mu) * r * g[k] + b[k];
        st4(y + base + (long long)i * kVec, v);
    }
    if (tid == 0) {
        mean[blockIdx.x] = mu;
        rstd[blockIdx.x] = r;
    }
}

// RowwiseMomentsCUDAKernel's shape: a row per block of 512 threads, one element a step
template <typename T>
__global__ void ln_moments_kernel(const T *__restrict__ x, int cols, float *__restrict__ mean,
                                  float *__restrict__ rstd, float eps)
{
    const long long base = (long long)blockIdx.x * cols;
    Moments m = {0.0f, 0.0f, 0.0f};
    for (int c = threadIdx.x; c < cols; c += blockDim.x) welford_add(m, ld(x, base + c));
    float mu, var;
    block_welford(m, mu, var);
    if (threadIdx.x == 0) {
        mean[blockIdx.x] = mu;
        rstd[blockIdx.x] = rsqrtf(var + eps);
    }
}

// LayerNormForwardCUDAKernel's shape: a row per block of 256 threads, one element a step
template <typename T>
__global__ void ln_apply_kernel(const T *__restrict__ x, T *__restrict__ y, int cols, const float *__restrict__ gamma,
                                const float *__restrict__ beta, const float *__restrict__ mean,
                                const float *__restrict__ rstd)
{
    const long long base = (long long)blockIdx.x * cols;
    const float mu = mean[blockIdx.x], r = rstd[blockIdx.x];
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        st(y, base + c, (ld(x, base + c) - mu) * r * gamma[c] + beta[c]);
}

// --- backward: input gradient --------------------------------------------------------------------------------
// layer_norm_grad_input_kernel[_vectorized]'s shape: a row per block of 128 threads. First pass: thread t takes
// elements 4t .. 4t + 3, then 512 further on, ... (VEC: one 4-element access per operand, else four scalar loads;
// the row's last cols % 4 elements fall to the one thread whose step lands there); the block sums both totals;
// second pass: dx, by vectors again (VEC) or one element a step.
template <typename T, bool VEC>
__global__ void ln_bwd_input_kernel(const T *__restrict__ dy, const T *__restrict__ x, T *__restrict__ dx, int cols,
                                    const float *__restrict__ gamma, const float *__restrict__ mean,
                                    const float *__restrict__ rstd)
{
    const long long base = (long long)blockIdx.x * cols;
    const float mu = mean[blockIdx.x], r = rstd[blockIdx.x];
    float s1 = 0.0f, s2 = 0.0f; // sum of gamma dy, of gamma dy xhat
    int c = threadIdx.x * kVec;
    for (; c + kVec - 1 < cols; c += blockDim.x * kVec) {
        float g[kVec], d[kVec], v[kVec];
        if (VEC) {
            ld4(gamma + c, g);
            ld4(dy + base + c, d);
            ld4(x + base + c, v);
        } else {
#pragma unroll
            for (int k = 0; k < kVec; k++) g[k] = gamma[c + k], d[k] = ld(dy, base + c + k), v[k] = ld(x, base + c + k);
        }
#pragma unroll
        for (int k = 0; k < kVec; k++) {
            const float gd = g[k] * d[k];
            s1 += gd;
            s2 += gd * (v[k] - mu) * r;
        }
    }
    for (; c < cols; c++) {
        const float gd = gamma[c] * ld(dy, base + c);
        s1 += gd;
        s2 += gd * (ld(x, base + c) - mu) * r;
    }
    block_sum2(s1, s2);
    const float n = (float)cols, scale = r / n;
    if (VEC) {
        for (c = threadIdx.x * kVec; c < cols; c += blockDim.x * kVec) {
            float g[kVec], d[kVec], v[kVec];
            ld4(gamma + c, g);
            ld4(dy + base + c, d);
            ld4(x + base + c, v);
#pragma unroll
            for (int k = 0; k < kVec; k++) v[k] = scale * (n * g[k] * d[k] - s1 - (v[k] - mu) * r * s2);
            st4(dx + base + c, v);
        }
    } else {
        for (c = threadIdx.x; c < cols; c += blockDim.x)
            st(dx, base + c, scale * (n * gamma[c] * ld(dy, base + c) - s1 - (ld(x, base + c) - mu) * r * s2));
    }
}

// --- backward: gamma and beta --------------------------------------------------------------------------------
// One tile's share of one thread: RPT adjacent rows from `first`, one column. A warp is one threadIdx.y (blocks are
// 32 wide): its first RPT lanes fetch the rows' mean and rstd and shuffles hand them round; the RPT loads of dy
// and of x are all issued before the sums. CHECK: rows or the column may run past the matrix (PyTorch's check_y,
// check_x), out-of-range elements count as 0.
template <typename T, int RPT, bool CHECK>
__device__ __forceinline__ void gb_tile(const T *__restrict__ dy, const T *__restrict__ x, long long first,
                                        long long rows, int col, int cols, const float *__restrict__ mean,
                                        const float *__restrict__ rstd, float &sg, float &sb)
{
    const int lane = threadIdx.x;
    float wm = 0.0f, wr = 0.0f;
    if (lane < RPT && (!CHECK || first + lane < rows)) wm = mean[first + lane], wr = rstd[first + lane];
    float d[RPT], v[RPT];
#pragma unroll
    for (int i = 0; i < RPT; i++) {
        const long long at = (first + i) * cols + col;
        const bool in = !CHECK || (first + i < rows && col < cols);
        d[i] = in ? ld(dy, at) : 0.0f;
        v[i] = in ? ld(x, at) : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < RPT; i++) {
        const float m = __shfl_sync(kFull, wm, i), q = __shfl_sync(kFull, wr, i);
        sg += d[i] * (v[i] - m) * q;
        sb += d[i];
    }
}

// GammaBetaBackwardCUDAKernelTemplate's structure: blocks of (32, BY) threads, one column a thread; the block walks
// tiles of RPB rows (RPB / BY adjacent rows a thread), from tile blockIdx.y, gridDim.y tiles apart. BY == 1: each
// column's one thread writes its sums to row blockIdx.y of dg and db (the outputs at grid.y 1, the partial sums
// otherwise). Else the block's BY x 32 sums go through shared memory, [2][BY][33] floats, and warp w adds up
// block columns w, w + BY, ... with XOR shuffles, lane j holding thread row j's sum of the column.
template <typename T, int BY, int RPB, bool ALIGNED>
__global__ void __launch_bounds__(kGbCols * BY)
    ln_gamma_beta_kernel(const T *__restrict__ dy, const T *__restrict__ x, long long rows, int cols,
                         const float *__restrict__ mean, const float *__restrict__ rstd, float *__restrict__ dg,
                         float *__restrict__ db)
{
    constexpr int RPT = RPB / BY, P = kGbCols + 1;
    static_assert(RPT * BY == RPB && RPT <= kWarp, "whole rows a thread, their mean/rstd in one warp's lanes");
    const int col = blockIdx.x * kGbCols + threadIdx.x;
    // checks only in the last block column of an unaligned grid, and in a tile that runs past the last row
    const bool cols_in = ALIGNED || ((long long)blockIdx.x + 1) * kGbCols <= cols;
    float sg = 0.0f, sb = 0.0f;
    for (long long r0 = (long long)blockIdx.y * RPB; r0 < rows; r0 += (long long)RPB * gridDim.y) {
        const long long first = r0 + (long long)threadIdx.y * RPT;
        if (ALIGNED || (cols_in && r0 + RPB <= rows))
            gb_tile<T, RPT, false>(dy, x, first, rows, col, cols, mean, rstd, sg, sb);
        else
            gb_tile<T, RPT, true>(dy, x, first, rows, col, cols, mean, rstd, sg, sb);
    }
    if constexpr (BY == 1) {
        if (col < cols) {
            dg[(long long)blockIdx.y * cols + col] = sg;
            db[(long long)blockIdx.y * cols + col] = sb;
        }
    } else {
        extern __shared__ float sh[];
        float *tg = sh, *tb = sh + BY * P;
        tg[threadIdx.y * P + threadIdx.x] = sg;
        tb[threadIdx.y * P + threadIdx.x] = sb;
        __syncthreads();
        for (int c = threadIdx.y; c < kGbCols; c += BY) {
            float g = threadIdx.x < BY ? tg[threadIdx.x * P + c] : 0.0f;
            float b = threadIdx.x < BY ? tb[threadIdx.x * P + c] : 0.0f;
#pragma unroll
            for (int o = BY / 2; o > 0; o /= 2) {
                g += __shfl_xor_sync(kFull, g, o);
                b += __shfl_xor_sync(kFull, b, o);
            }
            const int oc = blockIdx.x * kGbCols + c;
            if (threadIdx.x == 0 && oc < cols) dg[oc] = g, db[oc] = b;
        }
    }
}

// --- launchers -----------------------------------------------------------------------------------------------
dim3 grid_of(const nvs_ln_launch &l) { return dim3(l.grid_x, l.grid_y); }
dim3 block_of(const nvs_ln_launch &l) { return dim3(l.block_x, l.block_y); }

int elem_size(int elem)
{
    return elem == NVS_ELEM_F32 ? 4 : elem == NVS_ELEM_BF16 || elem == NVS_ELEM_F16 ? 2 : 0;
}

template <typename T>
int fwd(const nvs_ln_plan &p, const void *xv, void *yv, const float *gamma, const float *beta, float *mean,
        float *rstd, float eps, cudaStream_t s)
{
    const T *x = (const T *)xv;
    T *y = (T *)yv;
    if (p.fwd_vec_cols && nvs_ln_aligned(x, p.align_bytes) && nvs_ln_aligned(y, p.align_bytes) &&
        nvs_ln_aligned(gamma, kVec * 4) && nvs_ln_aligned(beta, kVec * 4)) {
        ln_fwd_vec_kernel<T><<<grid_of(p.fwd_vec), block_of(p.fwd_vec), 0, s>>>(x, y, p.cols, gamma, beta, mean, rstd,
                                                                                eps);
        return cudaGetLastError();
    }
    ln_moments_kernel<T><<<grid_of(p.fwd_moments), block_of(p.fwd_moments), 0, s>>>(x, p.cols, mean, rstd, eps);
    // this launch's own error: y must not be computed from statistics that were never written
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    ln_apply_kernel<T><<<grid_of(p.fwd_apply), block_of(p.fwd_apply), 0, s>>>(x, y, p.cols, gamma, beta, mean, rstd);
    return cudaGetLastError();
}

template <typename T>
int bwd_input(const nvs_ln_plan &p, const void *dyv, const void *xv, void *dxv, const float *gamma,
              const float *mean, const float *rstd, cudaStream_t s)
{
    const T *dy = (const T *)dyv, *x = (const T *)xv;
    T *dx = (T *)dxv;
    const dim3 grid = grid_of(p.bwd_input), block = block_of(p.bwd_input);
    if (p.bwd_vec_cols && nvs_ln_aligned(dy, p.align_bytes) && nvs_ln_aligned(x, p.align_bytes) &&
        nvs_ln_aligned(dx, p.align_bytes) && nvs_ln_aligned(gamma, kVec * 4))
        ln_bwd_input_kernel<T, true><<<grid, block, 0, s>>>(dy, x, dx, p.cols, gamma, mean, rstd);
    else
        ln_bwd_input_kernel<T, false><<<grid, block, 0, s>>>(dy, x, dx, p.cols, gamma, mean, rstd);
    return cudaGetLastError();
}

template <typename T, int BY, int RPB>
int gamma_beta(const nvs_ln_plan &p, const T *dy, const T *x, const float *mean, const float *rstd, float *dg,
               float *db, cudaStream_t s)
{
    const dim3 grid = grid_of(p.gb), block = block_of(p.gb);
    if (p.gb_aligned)
        ln_gamma_beta_kernel<T, BY, RPB, true><<<grid, block, p.gb.shmem, s>>>(dy, x, p.rows, p.cols, mean, rstd, dg,
                                                                               db);
    else
        ln_gamma_beta_kernel<T, BY, RPB, false><<<grid, block, p.gb.shmem, s>>>(dy, x, p.rows, p.cols, mean, rstd, dg,
                                                                                db);
    return cudaGetLastError();
}

template <typename T>
int bwd_params(const nvs_ln_plan &p, const void *dyv, const void *xv, const float *mean, const float *rstd,
               float *dgamma, float *dbeta, float *scratch, unsigned *sems, int nsems, nvs_sm_shape sm, cudaStream_t s)
{
    const T *dy = (const T *)dyv, *x = (const T *)xv;
    if (p.gb_kind == NVS_LN_GB_PARTIAL) {
        // partial sums, grid.y rows of them, then their column sums as PyTorch's .sum(0) of them
        const size_t part = (size_t)p.gb.grid_y * (size_t)p.cols;
        float *pg = scratch, *pb = scratch + part, *staging = scratch + 2 * part;
        int e = gamma_beta<T, 1, 32>(p, dy, x, mean, rstd, pg, pb, s);
        if (e != cudaSuccess) return e;
        e = nvs_kern_outer_sum(pg, NVS_ELEM_F32, p.gb.grid_y, p.cols, p.cols, dgamma, NVS_ELEM_F32, staging,
                               p.scratch_floats - 2 * part, sems, nsems, sm, s);
        if (e != cudaSuccess) return e;
        return nvs_kern_outer_sum(pb, NVS_ELEM_F32, p.gb.grid_y, p.cols, p.cols, dbeta, NVS_ELEM_F32, staging,
                                  p.scratch_floats - 2 * part, sems, nsems, sm, s);
    }
    switch (p.gb_rows_per_block) {
    case 8: return gamma_beta<T, 1, 8>(p, dy, x, mean, rstd, dgamma, dbeta, s);
    case 64: return gamma_beta<T, 8, 64>(p, dy, x, mean, rstd, dgamma, dbeta, s);
    case 128: return gamma_beta<T, 16, 128>(p, dy, x, mean, rstd, dgamma, dbeta, s);
    default: return gamma_beta<T, 32, 256>(p, dy, x, mean, rstd, dgamma, dbeta, s);
    }
}

// the forward's and the input gradient's shapes do not depend on the GPU: any will do for their plan
const nvs_sm_shape kAnyGpu = {1, 2048};

} // namespace

extern "C" int nvs_kern_ln_fwd(const void *x, void *y, int elem, long long rows, int cols, const float *gamma,
                               const float *beta, float *mean, float *rstd, float eps, cudaStream_t s)
{
    nvs_ln_plan p;
    if (!x || !y || !gamma || !beta || !mean || !rstd ||
        nvs_ln_make_plan(rows, cols, elem_size(elem), kAnyGpu, &p) != 0)
        return cudaErrorInvalidValue;
    switch (elem) {
    case NVS_ELEM_F32: return fwd<float>(p, x, y, gamma, beta, mean, rstd, eps, s);
    case NVS_ELEM_BF16: return fwd<__nv_bfloat16>(p, x, y, gamma, beta, mean, rstd, eps, s);
    default: return fwd<__half>(p, x, y, gamma, beta, mean, rstd, eps, s);
    }
}

extern "C" int nvs_kern_ln_bwd_input(const void *dy, const void *x, void *dx, int elem, long long rows, int cols,
                                     const float *gamma, const float *mean, const float *rstd, cudaStream_t s)
{
    nvs_ln_plan p;
    if (!dy || !x || !dx || !gamma || !mean || !rstd || nvs_ln_make_plan(rows, cols, elem_size(elem), kAnyGpu, &p) != 0)
        return cudaErrorInvalidValue;
    switch (elem) {
    case NVS_ELEM_F32: return bwd_input<float>(p, dy, x, dx, gamma, mean, rstd, s);
    case NVS_ELEM_BF16: return bwd_input<__nv_bfloat16>(p, dy, x, dx, gamma, mean, rstd, s);
    default: return bwd_input<__half>(p, dy, x, dx, gamma, mean, rstd, s);
    }
}

extern "C" int nvs_kern_ln_bwd_params(const void *dy, const void *x, int elem, long long rows, int cols,
                                      const float *mean, const float *rstd, float *dgamma, float *dbeta,
                                      float *scratch, size_t scratch_floats, unsigned *sems, int nsems, nvs_sm_shape sm,
                                      cudaStream_t s)
{
    nvs_ln_plan p;
    if (!dy || !x || !mean || !rstd || !dgamma || !dbeta ||
        nvs_ln_make_plan(rows, cols, elem_size(elem), sm, &p) != 0)
        return cudaErrorInvalidValue;
    if (p.scratch_floats && (!scratch || scratch_floats < p.scratch_floats)) return cudaErrorInvalidValue;
    if (p.sems && (!sems || nsems < p.sems)) return cudaErrorInvalidValue;
    switch (elem) {
    case NVS_ELEM_F32: return bwd_params<float>(p, dy, x, mean, rstd, dgamma, dbeta, scratch, sems, nsems, sm, s);
    case NVS_ELEM_BF16:
        return bwd_params<__nv_bfloat16>(p, dy, x, mean, rstd, dgamma, dbeta, scratch, sems, nsems, sm, s);
    default: return bwd_params<__half>(p, dy, x, mean, rstd, dgamma, dbeta, scratch, sems, nsems, sm, s);
    }
}
