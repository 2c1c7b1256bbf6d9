/* The NCCL backend's device buffers: allocated (cudaMalloc, or ncclMemAlloc with --alloc nccl) and freed, filled
 * with the input pattern, poisoned, and verified on the device (collectives/kernels.h). */
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "core/gpu_check.h"
#include "core/log.h"
#include "collectives/backend.h"
#include "collectives/backend_nccl_priv.h"
#include "collectives/kernels.h"

/* The free memory after a failed allocation, for its message; *fr = 0 when unknown. */
static int free_memory(size_t *fr, size_t *tot)
{
    *fr = *tot = 0;
    (void)cudaGetLastError(); /* an out-of-memory failure is not sticky: clear it before asking */
    return cudaMemGetInfo(fr, tot) == cudaSuccess;
}

/* cudaMalloc, or ncclMemAlloc with --alloc nccl: NCCL's cuMem allocation (cuMemCreate at the recommended
 * granularity, mapped for every peer it can reach), which nccl-tests uses for its buffers since NCCL 2.19. */
nvs_result_t nvs_nb_alloc(nvs_backend *b, size_t bytes, void **p)
{
    const int via_nccl = b->cfg && b->cfg->alloc_nccl;
    const char *call = via_nccl ? "ncclMemAlloc" : "cudaMalloc";
    const char *why;
    if (via_nccl) {
        ncclResult_t r = ncclMemAlloc(p, bytes ? bytes : 1);
        if (r == ncclSuccess) return NVS_OK;
        why = ncclGetErrorString(r);
    } else {
        cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
        if (e == cudaSuccess) return NVS_OK;
        why = cudaGetErrorString(e);
    }
    *p = NULL;
    size_t fr, tot;
    if (free_memory(&fr, &tot))
        nvs_error("%s of %zu bytes failed: %s (GPU has %zu bytes free of %zu)", call, bytes, why, fr, tot);
    else /* the free memory is not known: no made-up figure */
        nvs_error("%s of %zu bytes failed: %s", call, bytes, why);
    return via_nccl ? NVS_ERR_NCCL : NVS_ERR_CUDA;
}

void nvs_nb_free(nvs_backend *b, void *p)
{
    if (!p) return;
    if (b->cfg && b->cfg->alloc_nccl) {
        ncclResult_t r = ncclMemFree(p);
        if (r != ncclSuccess) nvs_nccl_fail("ncclMemFree", r, NULL);
        return;
    }
    cudaError_t e = cudaFree(p);
    if (e != cudaSuccess) nvs_cuda_fail(NULL, "cudaFree", e);
}

nvs_result_t nvs_nb_fill(nvs_backend *b, nvs_dtype t, void *p, size_t count, const nvs_pattern *pat, int rank,
                         size_t off)
{
    CUDA_TRY((cudaError_t)nvs_kern_fill(t, p, count, pat, rank, off, impl_of(b)->stream));
    return NVS_OK;
}

nvs_result_t nvs_nb_poison(nvs_backend *b, void *p, size_t bytes)
{
    CUDA_TRY((cudaError_t)nvs_kern_poison(p, bytes, impl_of(b)->stream));
    return NVS_OK;
}

nvs_result_t nvs_nb_verify(nvs_backend *b, nvs_dtype t, const void *out, const nvs_pattern *pat,
                           const nvs_expect *e, unsigned long long *wrong, unsigned long long *first)
{
    struct nccl_impl *im = impl_of(b);
    unsigned long long h[2] = {0, ~0ull};
    CUDA_TRY(cudaMemcpyAsync(im->d_counters, h, sizeof h, cudaMemcpyHostToDevice, im->stream));
    CUDA_TRY((cudaError_t)nvs_kern_verify(t, out, pat, e, &im->d_counters[0], &im->d_counters[1], im->stream));
    CUDA_TRY(cudaMemcpyAsync(h, im->d_counters, sizeof h, cudaMemcpyDeviceToHost, im->stream));
    CUDA_TRY(cudaStreamSynchronize(im->stream));
    *wrong = h[0];
    *first = h[1];
    return NVS_OK;
}
