/* The copy through a permuted view, timed: nvscale's element-by-element copy in PyTorch's launch shape
 * (train/view_kernels.h) beside its contiguous copy of the same bytes (nvs_kern_copy, 16-byte accesses), on one
 * GPU. Each shape is A x B x R: the source [A][B][R] copied to [B][A][R] (forward: samples, rows, the row's
 * elements), as PyTorch's x.transpose(0, 1).contiguous() does; tools/device/viewcopy_torch.py times that on the
 * same shapes, for the comparison. Each copy is checked element by element against the source first.
 *
 *   make viewbench && build/viewbench [--elem bf16|fp32] AxBxR ...
 *
 * One line per shape and method: "shape elem method us GB/s" (bytes: read once and written once). */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "collectives/kernels.h"
#include "train/view_kernels.h"

#define TRY(call) BENCH_TRY("viewbench", call)

enum { REPS = 50 };

static void usage(const char *bad)
{
    fprintf(stderr, "viewbench: %s: usage: viewbench [--elem bf16|fp32] AxBxR ...\n", bad);
    exit(2);
}

int main(int argc, char **argv)
{
    int elem = NVS_ELEM_BF16, first = 1;
    if (first + 1 < argc && !strcmp(argv[first], "--elem")) {
        const char *v = argv[first + 1];
        elem = !strcmp(v, "bf16") ? NVS_ELEM_BF16 : !strcmp(v, "fp32") ? NVS_ELEM_F32 : -1;
        if (elem < 0) usage(v);
        first += 2;
    }
    if (first >= argc) usage("no shape");
    const size_t es = elem == NVS_ELEM_F32 ? 4 : 2;
    cudaEvent_t e0, e1;
    TRY(cudaEventCreate(&e0));
    TRY(cudaEventCreate(&e1));
    for (int i = first; i < argc; i++) {
        long long a, b, r;
        char tail;
        if (sscanf(argv[i], "%lldx%lldx%lld%c", &a, &b, &r, &tail) != 3 || a < 1 || b < 1 || r < 1 ||
            a * b * r >= (1ll << 31))
            usage(argv[i]);
        const size_t n = (size_t)(a * b * r), bytes = n * es;
        unsigned char *src, *dst, *hs = malloc(bytes), *hd = malloc(bytes);
        if (!hs || !hd) usage("out of host memory");
        for (size_t k = 0; k < bytes; k++) hs[k] = (unsigned char)(k * 2654435761u >> 13);
        TRY(cudaMalloc((void **)&src, bytes));
        TRY(cudaMalloc((void **)&dst, bytes));
        TRY(cudaMemcpy(src, hs, bytes, cudaMemcpyHostToDevice));
        TRY(nvs_kern_view_copy(src, dst, elem, 1, a, b, r, 0));
        TRY(cudaMemcpy(hd, dst, bytes, cudaMemcpyDeviceToHost));
        for (size_t idx = 0; idx < n; idx++) { /* dst [j][i][k] = src [i][j][k] */
            size_t k = idx % (size_t)r, t = idx / (size_t)r, ii = t % (size_t)a, j = t / (size_t)a;
            if (memcmp(hd + idx * es, hs + ((ii * (size_t)b + j) * (size_t)r + k) * es, es)) {
                fprintf(stderr, "viewbench: %s: element %zu wrong\n", argv[i], idx);
                return 1;
            }
        }
        const double gb = 2.0 * (double)bytes / 1e9;
        float ms = 0;
        TRY(cudaEventRecord(e0, 0));
        for (int k = 0; k < REPS; k++) TRY(nvs_kern_view_copy(src, dst, elem, 1, a, b, r, 0));
        TRY(cudaEventRecord(e1, 0));
        TRY(cudaEventSynchronize(e1));
        TRY(cudaEventElapsedTime(&ms, e0, e1));
        double us = ms * 1000.0 / REPS;
        printf("%s %s view_copy %.2f %.1f\n", argv[i], elem == NVS_ELEM_F32 ? "fp32" : "bf16", us, gb / (us * 1e-6));
        TRY(cudaEventRecord(e0, 0));
        for (int k = 0; k < REPS; k++) TRY(nvs_kern_copy(dst, src, bytes, 0));
        TRY(cudaEventRecord(e1, 0));
        TRY(cudaEventSynchronize(e1));
        TRY(cudaEventElapsedTime(&ms, e0, e1));
        us = ms * 1000.0 / REPS;
        printf("%s %s contiguous_copy %.2f %.1f\n", argv[i], elem == NVS_ELEM_F32 ? "fp32" : "bf16", us,
               gb / (us * 1e-6));
        TRY(cudaFree(src));
        TRY(cudaFree(dst));
        free(hs);
        free(hd);
    }
    TRY(cudaEventDestroy(e0));
    TRY(cudaEventDestroy(e1));
    return 0;
}
