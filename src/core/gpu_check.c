/* See gpu_check.h. */
#include "core/gpu_check.h"

#include <stdio.h>

#include "core/log.h"

nvs_result_t nvs_cuda_fail(const char *context, const char *call, cudaError_t e)
{
    nvs_error("%s%s%s failed: %s (%s)", context ? context : "", context ? ": " : "", call, cudaGetErrorString(e),
              cudaGetErrorName(e));
    (void)cudaGetLastError(); /* said now: not again at the next launch (gpu_check.h) */
    return NVS_ERR_CUDA;
}

nvs_result_t nvs_cuda_alloc_fail(size_t bytes, const char *what, cudaError_t e)
{
    nvs_error("cudaMalloc of %zu bytes for %s failed: %s (%s)", bytes, what, cudaGetErrorString(e),
              cudaGetErrorName(e));
    (void)cudaGetLastError(); /* said now: not again at the next launch (gpu_check.h) */
    return e == cudaErrorMemoryAllocation ? NVS_ERR_NOMEM : NVS_ERR_CUDA;
}

nvs_result_t nvs_blas_fail(const char *call, cublasStatus_t s)
{
    nvs_error("%s failed: %s (%s)", call, cublasGetStatusString(s), cublasGetStatusName(s));
    return NVS_ERR_CUBLAS;
}

nvs_result_t nvs_nccl_fail(const char *call, ncclResult_t r, ncclComm_t comm)
{
    const char *last = comm ? ncclGetLastError(comm) : ncclGetLastError(NULL);
    nvs_error("%s failed: %s%s%s", call, ncclGetErrorString(r), last && *last ? ": " : "", last ? last : "");
    return NVS_ERR_NCCL;
}

/* cleanup failures: the first of a thread is a warning, the rest debug (gpu_check.h) */
static __thread int cleanup_failures;

static int cleanup_level(void) { return cleanup_failures++ ? NVS_LOG_DEBUG : NVS_LOG_WARN; }

void nvs_cuda_cleanup_fail(const char *call, cudaError_t e)
{
    nvs_log(cleanup_level(), "cleanup: %s failed: %s (%s)", call, cudaGetErrorString(e), cudaGetErrorName(e));
    (void)cudaGetLastError(); /* said now: not again at the next launch (gpu_check.h) */
}

void nvs_blas_cleanup_fail(const char *call, cublasStatus_t s)
{
    nvs_log(cleanup_level(), "cleanup: %s failed: %s (%s)", call, cublasGetStatusString(s), cublasGetStatusName(s));
}

void nvs_nccl_cleanup_fail(const char *call, ncclResult_t r)
{
    const char *last = ncclGetLastError(NULL);
    nvs_log(cleanup_level(), "cleanup: %s failed: %s%s%s", call, ncclGetErrorString(r), last && *last ? ": " : "",
            last ? last : "");
}
