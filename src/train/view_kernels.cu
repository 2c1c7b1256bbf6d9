// A copy through a permuted view (view_kernels.h): PyTorch's launch shape and per-element index arithmetic, the
// element moved as its bits (2 or 4 bytes).
#include <stdint.h>

#include "collectives/kernels.h"
#include "train/view_kernels.h"

namespace {

__device__ __forceinline__ unsigned div_by(const nvs_divider &v, unsigned n)
{
    return (__umulhi(n, v.m) + n) >> v.s;
}

template <typename T, int UNROLL>
__global__ void __launch_bounds__(NVS_VIEW_THREADS) view_copy_kernel(const T *__restrict__ src, T *__restrict__ dst,
                                                                     nvs_view_plan p)
{
    unsigned idx = blockIdx.x * (NVS_VIEW_THREADS * UNROLL) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < UNROLL; k++) {
        if (idx < p.n) {
            // the output index into (r, i, j, o), then the source's offset: as nvs_view_src_index
            unsigned t = div_by(p.run, idx), r = idx - t * p.run.d;
            unsigned u = div_by(p.a, t), i = t - u * p.a.d;
            unsigned o = div_by(p.b, u), j = u - o * p.b.d;
            dst[idx] = src[((o * p.a.d + i) * p.b.d + j) * p.run.d + r];
        }
        idx += NVS_VIEW_THREADS;
    }
}

} // namespace

extern "C" int nvs_kern_view_copy(const void *src, void *dst, int elem, long long outer, long long a, long long b,
                                  long long run, cudaStream_t s)
{
    if (elem < NVS_ELEM_F32 || elem > NVS_ELEM_F16 || !src || !dst) return cudaErrorInvalidValue;
    nvs_view_plan p;
    if (nvs_view_plan_of(outer, a, b, run, elem == NVS_ELEM_F32 ? 4 : 2, &p)) return cudaErrorInvalidValue;
    if (elem == NVS_ELEM_F32)
        view_copy_kernel<uint32_t, 2><<<p.blocks, NVS_VIEW_THREADS, 0, s>>>((const uint32_t *)src, (uint32_t *)dst, p);
    else
        view_copy_kernel<uint16_t, 4><<<p.blocks, NVS_VIEW_THREADS, 0, s>>>((const uint16_t *)src, (uint16_t *)dst, p);
    return cudaGetLastError();
}
