/* Device-memory copy bandwidth of nvscale's copy kernel (collectives/kernels.h: nvs_kern_copy, the training
 * step's layout copies) beside cudaMemcpyAsync device to device, on one GPU, for a few sizes. Bytes counted
 * once read and once written (2 x size per copy), as docs/fidelity.md counts a layout transform.
 *
 *   make devcopy && build/devcopy [MiB ...]      (default 16 51 196 MiB: ResNet-50's activations at batch 128) */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "collectives/kernels.h"

#define TRY(call)                                                                                           \
    do {                                                                                                    \
        cudaError_t e_ = (cudaError_t)(call);                                                               \
        if (e_ != cudaSuccess) {                                                                            \
            fprintf(stderr, "devcopy: %s: %s\n", #call, cudaGetErrorString(e_));                             \
            return 1;                                                                                       \
        }                                                                                                   \
    } while (0)

enum { REPS = 20 };

int main(int argc, char **argv)
{
    double mib_default[] = {16, 51, 196};
    int nsizes = argc > 1 ? argc - 1 : 3;
    void *a, *b;
    cudaEvent_t e0, e1;
    size_t cap = 0;
    for (int i = 0; i < nsizes; i++) {
        double m = argc > 1 ? atof(argv[i + 1]) : mib_default[i];
        if (!(m > 0 && m <= 16384)) {
            fprintf(stderr, "devcopy: size '%s' MiB: expected a number in (0, 16384]\n", argv[i + 1]);
            return 2;
        }
        size_t bytes = (size_t)(m * 1048576.0) / 16 * 16;
        if (bytes > cap) cap = bytes;
    }
    TRY(cudaMalloc(&a, cap));
    TRY(cudaMalloc(&b, cap));
    TRY(cudaMemset(a, 1, cap));
    TRY(cudaEventCreate(&e0));
    TRY(cudaEventCreate(&e1));
    printf("%10s %14s %14s\n", "MiB", "kernel_GB/s", "memcpy_GB/s");
    for (int i = 0; i < nsizes; i++) {
        double m = argc > 1 ? atof(argv[i + 1]) : mib_default[i];
        size_t bytes = (size_t)(m * 1048576.0) / 16 * 16;
        float ms[2];
        for (int which = 0; which < 2; which++) {
            for (int r = -2; r < REPS; r++) { /* two untimed */
                if (r == 0) TRY(cudaEventRecord(e0, 0));
                if (which == 0)
                    TRY(nvs_kern_copy(b, a, bytes, 0));
                else
                    TRY(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
            }
            TRY(cudaEventRecord(e1, 0));
            TRY(cudaEventSynchronize(e1));
            TRY(cudaEventElapsedTime(&ms[which], e0, e1));
        }
        printf("%10.1f %14.1f %14.1f\n", bytes / 1048576.0, 2.0 * bytes * REPS / (ms[0] * 1e6),
               2.0 * bytes * REPS / (ms[1] * 1e6));
    }
    return 0;
}
