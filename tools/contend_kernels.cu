// The kernel of tools/contend.c: a few CTAs that stay resident beside a GEMM, as NCCL's all-reduce kernel does
// (one CTA per channel), and either spin (SMs taken, no memory traffic) or copy a buffer round and round (SMs and
// memory: device to device like a peer-to-peer transport's traffic in HBM, device to pinned host memory like
// NCCL's SHM and socket transports). They run until the host sets *stop.
#include <cuda_runtime.h>

#include "contend_kernels.h"

namespace {

__global__ void contend(int mode, uint4 *dst, const uint4 *src, size_t n16, volatile int *stop, volatile int *started,
                        unsigned long long *bytes)
{
    // one thread per CTA reads the stop flag, in device memory (the host writes it with a copy engine): polling
    // host memory, even from one thread per CTA, loads the GPU's path to the host and slows a GEMM beside it
    // (results/h200x1-contend2), which is not what an idle resident CTA does
    __shared__ int done;
    if (blockIdx.x == 0 && threadIdx.x == 0) *started = 1;
    unsigned long long moved = 0;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (;;) {
        if (threadIdx.x == 0) done = *stop;
        __syncthreads();
        if (done) break;
        if (mode == CONTEND_SPIN) {
            // a few microseconds between looks at the flag: the SM stays taken, its memory system idle
            for (int i = 0; i < 256; i++) __nanosleep(16);
        } else {
            for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += step) dst[i] = src[i];
            if (threadIdx.x == 0) {
                // this CTA's share of one pass: its elements, read and written
                size_t first = (size_t)blockIdx.x * blockDim.x;
                size_t mine = n16 > first ? ((n16 - first + step - 1) / step) * blockDim.x : 0;
                moved += 2ull * 16ull * mine;
            }
        }
        __syncthreads(); // every thread past its use of `done` before thread 0 reads the flag again
    }
    if (threadIdx.x == 0 && moved) atomicAdd(bytes, moved);
}

} // namespace

extern "C" int contend_launch(int mode, int ctas, void *dst, const void *src, size_t bytes, volatile int *stop,
                              volatile int *started, unsigned long long *moved, cudaStream_t s)
{
    contend<<<ctas, 512, 0, s>>>(mode, (uint4 *)dst, (const uint4 *)src, bytes / 16, stop, started, moved);
    return (int)cudaGetLastError();
}
