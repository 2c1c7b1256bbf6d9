/* Device-side element access in fp32 for the step's kernels over float, half and bfloat16 tensors
 * (norm_kernels.cu, ln_kernels.cu): a load widened to float and a store rounded to nearest, as PyTorch's kernels
 * compute in their accumulate type (float) whatever the tensor's. */
#ifndef NVS_TRAIN_ELEM_ACCESS_CUH
#define NVS_TRAIN_ELEM_ACCESS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

__device__ __forceinline__ float ld(const float *p, long long i) { return p[i]; }
__device__ __forceinline__ float ld(const __half *p, long long i) { return __half2float(p[i]); }
__device__ __forceinline__ float ld(const __nv_bfloat16 *p, long long i) { return __bfloat162float(p[i]); }
__device__ __forceinline__ void st(float *p, long long i, float v) { p[i] = v; }
__device__ __forceinline__ void st(__half *p, long long i, float v) { p[i] = __float2half_rn(v); }
__device__ __forceinline__ void st(__nv_bfloat16 *p, long long i, float v) { p[i] = __float2bfloat16_rn(v); }

} // namespace

#endif
