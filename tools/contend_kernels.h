/* The resident kernel of tools/contend.c (tools/contend_kernels.cu). */
#ifndef CONTEND_KERNELS_H
#define CONTEND_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

enum { CONTEND_SPIN = 0, CONTEND_COPY = 1 };

#ifdef __cplusplus
extern "C" {
#endif
/* ctas CTAs of 512 threads on stream s: spin, or copy src to dst (bytes, a multiple of 16) round and round, until
 * *stop (device memory) is set; *started (host-mapped) is set once the first CTA runs; *moved gains the bytes read
 * and written.
 * Returns the launch's cudaError_t. */
int contend_launch(int mode, int ctas, void *dst, const void *src, size_t bytes, volatile int *stop,
                   volatile int *started, unsigned long long *moved, cudaStream_t s);
#ifdef __cplusplus
}
#endif

#endif
