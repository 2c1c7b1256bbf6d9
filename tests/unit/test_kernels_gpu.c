/* The GPU kernels the training step uses for a library's layout transforms (collectives/kernels.h:
 * nvs_kern_copy): every byte arrives at every access width its split picks (collectives/copy_split.h: 16, 8, 4,
 * 2 or 1 bytes, with head and tail bytes around the body), and nothing outside the copy is touched. Skipped
 * without a GPU. */
#include <cuda_runtime_api.h>

#include "collectives/kernels.h"
#include "t.h"

#define N_BYTES (1u << 20)

static unsigned char *dev_src, *dev_dst;
static unsigned char host_src[N_BYTES], host_dst[N_BYTES];

static void need_gpu(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) T_SKIP("no GPU on this machine");
    if (!dev_src) {
        T_EQ_I(cudaMalloc((void **)&dev_src, N_BYTES), cudaSuccess);
        T_EQ_I(cudaMalloc((void **)&dev_dst, N_BYTES), cudaSuccess);
        for (size_t i = 0; i < N_BYTES; i++) host_src[i] = (unsigned char)(i * 131u + 7u);
        T_EQ_I(cudaMemcpy(dev_src, host_src, N_BYTES, cudaMemcpyHostToDevice), cudaSuccess);
    }
}

/* copy `bytes` from src+so to dst+do over a dst filled with 0xa5, then check the copy and the bytes around it */
static void check_copy(size_t so, size_t dof, size_t bytes)
{
    T_EQ_I(cudaMemset(dev_dst, 0xa5, N_BYTES), cudaSuccess);
    T_EQ_I(nvs_kern_copy(dev_dst + dof, dev_src + so, bytes, 0), cudaSuccess);
    T_EQ_I(cudaDeviceSynchronize(), cudaSuccess);
    T_EQ_I(cudaMemcpy(host_dst, dev_dst, N_BYTES, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < N_BYTES; i++) {
        int inside = i >= dof && i < dof + bytes;
        unsigned want = inside ? host_src[so + (i - dof)] : 0xa5u;
        if (host_dst[i] != want)
            T_FAIL("copy of %zu bytes (src +%zu, dst +%zu): byte %zu is 0x%02x, expected 0x%02x", bytes, so, dof, i,
                   host_dst[i], want);
    }
}

static void t_copy_aligned(void)
{
    need_gpu();
    check_copy(0, 0, N_BYTES);
    check_copy(4096, 256, 65536);
}

static void t_copy_unaligned(void)
{
    need_gpu();
    check_copy(1, 0, 1000);     /* source off 16 bytes */
    check_copy(0, 3, 4096);     /* destination off */
    check_copy(16, 32, 4097);   /* size not a multiple of 16 */
    check_copy(8, 0, 100003);   /* 8-byte words, a tail */
    check_copy(4, 0, 50001);    /* 4-byte words */
    check_copy(2, 0, 3001);     /* 2-byte words: a bf16 piece at an odd element offset */
    check_copy(6, 6, 4099);     /* same phase, off the boundary: head bytes, 16-byte words, tail bytes */
    check_copy(5, 5, 10);       /* shorter than the head: no body at all */
    check_copy(3, 0, 7);        /* tiny, byte by byte */
    T_EQ_I(nvs_kern_copy(dev_dst, dev_src, 0, 0), cudaSuccess); /* nothing to copy */
}

T_LIST = {T_CASE(t_copy_aligned), T_CASE(t_copy_unaligned)};
T_MAIN
