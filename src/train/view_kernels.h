/* A copy through a permuted view, as PyTorch copies a non-contiguous tensor into a contiguous one: element by
 * element, each element's source offset computed from its index one dimension at a time (TensorIterator's
 * legacy elementwise kernel and offset calculator; the launch shape in view_plan.h). nn.MultiheadAttention with
 * batch_first splits its heads and merges them back through a view whose batch and sequence dimensions are
 * swapped, and such copies run at well under the memory's bandwidth: lm290m's bf16 step on an H200 spends 1.7 ms
 * in them, 72 elementwise_kernel<128, 4> and 18 <128, 2> launches (results/h200x1-tfm-census9). The training step
 * runs a profile's perm= passes with this kernel under a framework that copies so (workload/framework.h
 * view_copies). Returns a cudaError_t (as int). */
#ifndef NVS_TRAIN_VIEW_KERNELS_H
#define NVS_TRAIN_VIEW_KERNELS_H

#include <cuda_runtime_api.h>

#include "train/view_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[o][j][i][r] = src[o][i][j][r] (nvs_view_plan_of's shape), elements of `elem` (collectives/kernels.h
 * NVS_ELEM_*), copied bit for bit; src and dst must not overlap. cudaErrorInvalidValue for a bad type or shape,
 * or 2^31 elements or more (copy such a tensor in pieces). */
int nvs_kern_view_copy(const void *src, void *dst, int elem, long long outer, long long a, long long b,
                       long long run, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
