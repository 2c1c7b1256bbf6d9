/* The launch shape of a copy through a permuted view (view_kernels.h), PURE: arithmetic only, no CUDA, so that the
 * shapes and the index arithmetic are tested without a GPU (tests/unit/test_train.c). */
#ifndef NVS_TRAIN_VIEW_PLAN_H
#define NVS_TRAIN_VIEW_PLAN_H

/* PyTorch's legacy elementwise launch for a non-contiguous tensor (aten/src/ATen/native/cuda/Loops.cuh and
 * CUDALoops.cuh, gpu_kernel_impl_nocast -> launch_legacy_kernel; facts, not its code): 128 threads a block, each
 * thread 4 elements of 2 bytes or 2 of 4 bytes (unroll by the element's size), thread t of block b taking elements
 * b x 128 x unroll + t + k x 128; no vector loads. Its profile names them elementwise_kernel<128, 4> (bf16) and
 * elementwise_kernel<128, 2> (fp32) (results/h200x1-tfm-census9). */
#define NVS_VIEW_THREADS 128

#ifdef __cplusplus
extern "C" {
#endif

/* Division by an invariant 32-bit divisor as a multiply-high, an add and a shift (Granlund and Montgomery,
 * "Division by invariant integers using multiplication", PLDI 1994; PyTorch's offset calculator divides each
 * element's index so, aten/src/ATen/cuda/detail/IntegerDivider.cuh): for 1 <= d < 2^31, s the smallest with
 * 2^s >= d and m = floor(2^32 x (2^s - d) / d) + 1, n / d = (mulhi(n, m) + n) >> s for every n < 2^31. */
typedef struct {
    unsigned d, m, s;
} nvs_divider;

nvs_divider nvs_divider_of(unsigned d);
/* n / d by the divider (n < 2^31): what the kernel computes, here on the host to be tested */
unsigned nvs_divider_div(const nvs_divider *v, unsigned n);

/* dst[o][j][i][r] = src[o][i][j][r], o < outer, i < a, j < b, r < run: dimensions a and b swapped, each run of
 * `run` elements contiguous in both */
typedef struct {
    unsigned n;                 /* elements copied */
    int unroll;                 /* elements a thread copies: 4 at 2 bytes, 2 at 4 */
    unsigned blocks;            /* of NVS_VIEW_THREADS threads */
    nvs_divider run, a, b;      /* an element's index into (r, i, j, o) */
} nvs_view_plan;

/* 0, or -1 when a dimension is below 1, elem_bytes is neither 2 nor 4, or the copy has 2^31 elements or more
 * (the caller copies such a tensor in pieces, as TensorIterator splits it for 32-bit indexing) */
int nvs_view_plan_of(long long outer, long long a, long long b, long long run, int elem_bytes, nvs_view_plan *out);
/* The source element of output element idx (< n), by the plan's dividers */
unsigned nvs_view_src_index(const nvs_view_plan *p, unsigned idx);

#ifdef __cplusplus
}
#endif

#endif
