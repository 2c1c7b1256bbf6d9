/* GPU kernels of nvscale, callable from C. Only fill/verify for the collectives and copies, and the few
 * element-wise passes of the synthetic training step: the heavy lifting is NCCL's and cuBLAS's.
 * Every function returns a cudaError_t (as int): cudaSuccess (0) or the launch error. */
#ifndef NVS_KERNELS_H
#define NVS_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "core/dtype.h"
#include "collectives/coll.h"
#include "collectives/pattern.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ptr[k] = pattern value of (rank, index_offset + k), for k < count. */
int nvs_kern_fill(nvs_dtype t, void *ptr, size_t count, const nvs_pattern *p, int rank, size_t index_offset,
                  cudaStream_t s);
/* A value no pattern produces (all bytes 0x7f: a large finite float/half/bf16/double, a large int32), so an
 * element the collective did not write is caught. */
int nvs_kern_poison(void *ptr, size_t bytes, cudaStream_t s);
/* Counts output elements that differ from the expectation `e` (see coll.h) into *d_wrong (device memory,
 * accumulated: zero it first) and the smallest wrong index into *d_first (set it to ~0 first). */
int nvs_kern_verify(nvs_dtype t, const void *ptr, const nvs_pattern *p, const nvs_expect *e,
                    unsigned long long *d_wrong, unsigned long long *d_first, cudaStream_t s);

/* Synthetic training step helpers. `elem` is the buffer's element type (NVS_ELEM_*: float, bfloat16 or half;
 * anything else is cudaErrorInvalidValue); bf16 = 1: bfloat16, else float. */
enum { NVS_ELEM_F32 = 0, NVS_ELEM_BF16 = 1, NVS_ELEM_F16 = 2 };
/* Deterministic small pseudo-random values in [-scale, scale] (never all zeros: tensor cores run faster on
 * zeros than on real data). */
int nvs_kern_init_random(void *ptr, size_t count, int elem, unsigned seed, float scale, cudaStream_t s);
/* One memory-bound pass standing in for batch-norm/activation/softmax work: y = y * a + b, read and write. */
int nvs_kern_axpb(void *ptr, size_t count, int elem, float a, float b, cudaStream_t s);
/* Optimizer-like pass (SGD with momentum, PyTorch's update rule): m = mu*m + g*gscale; w -= lr*m.
 * w and m are float; g is float or bfloat16. */
int nvs_kern_sgd(float *w, float *m, const void *g, int g_bf16, size_t count, float gscale, float lr, float mu,
                 cudaStream_t s);
/* AdamW's update, fused into one pass as torch._fused_adamw_ runs it (read w, g, m, v; write w, m, v): g's element
 * type g_elem (NVS_ELEM_*), scaled by gscale (1/N: DDP's average); at step t (1, 2, ...): w *= 1 - lr wd;
 * m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; w -= lr / (1 - b1^t) * m / (sqrt(v / (1 - b2^t)) + eps).
 * The formula of workload/optimizer.h nvs_adamw_elem (tests/unit/test_kernels_gpu.c checks the two agree). */
int nvs_kern_adamw(float *w, float *m, float *v, const void *g, int g_elem, size_t count, float gscale, float lr,
                   float beta1, float beta2, float eps, float weight_decay, long long t, cudaStream_t s);
/* The same update as PyTorch's default AdamW on CUDA runs it, the foreach path (torch/optim/adam.py
 * _multi_tensor_adam): eight passes over the parameters, one kernel per foreach operation in its order, through
 * tmp (count floats: its temporary exp_avg_sq_sqrt). workload/optimizer.h nvs_adamw_foreach lists the passes and
 * is the host's copy; equal to nvs_kern_adamw within fp32 rounding (tests/unit/test_kernels_gpu.c t_adamw_foreach). */
int nvs_kern_adamw_foreach(float *w, float *m, float *v, float *tmp, const void *g, int g_elem, size_t count,
                           float gscale, float lr, float beta1, float beta2, float eps, float weight_decay,
                           long long t, cudaStream_t s);
/* A plain device copy of `bytes` from src to dst (not overlapping) by the SMs, as a library's layout transform
 * (cuDNN's NCHW<->NHWC) does: accesses as wide as both pointers allow (16 bytes when dst - src is a multiple of
 * 16), whatever the offsets and size (collectives/copy_split.h), in one launch. */
int nvs_kern_copy(void *dst, const void *src, size_t bytes, cudaStream_t s);
/* Copy a float, bfloat16 or half buffer (src_elem: NVS_ELEM_*) into another of any of those types (dst_elem): a
 * weight gradient into the gradients' type, fp32 parameters into the half-precision copy autocast makes. */
int nvs_kern_convert(const void *src, int src_elem, void *dst, int dst_elem, size_t count, cudaStream_t s);
/* y += a * x over `count` elements, y float, x float, bfloat16 or half (x_elem): one of the foreach passes of an
 * unfused optimizer (PyTorch's SGD: momentum += grad, param += -lr * momentum). */
int nvs_kern_axpy(float *y, const void *x, int x_elem, size_t count, float a, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
