/* Checking CUDA, cuBLAS and NCCL return codes: one message naming the call and the library's own error string
 * (and NCCL's last error text), then the matching nvs_result_t. Every CUDA/cuBLAS/NCCL call of nvscale goes
 * through these (or handles its code explicitly where a failure is an answer, e.g. "no GPU here").
 *
 *   CUDA_TRY(call)            return NVS_ERR_CUDA from the enclosing function on failure
 *   CUDA_TRY_AT(call, ...)    same, the message prefixed with a printf-style context ("copy 0->1")
 *   BLAS_TRY(call)            NVS_ERR_CUBLAS
 *   NCCL_TRY(call, comm)      NVS_ERR_NCCL (comm may be NULL)
 *
 * A failure said here is read off the thread (cudaGetLastError): a non-sticky error such as a failed allocation
 * would otherwise stay the thread's last error, and the next kernel launch's check would report it as its own,
 * so a fallback taken after it (--cudnn auto) would fail at an unrelated kernel. A sticky error stays anyway.
 *
 * Cleanup (a teardown, or undoing a set-up that failed): what was measured is in, or the run has already failed,
 * so a failure there is a warning and the cleanup goes on; it is still said, since a buffer not freed is memory
 * the next workload lacks. Only a thread's first cleanup failure is a warning: after a failed kernel every later
 * call fails alike, and the rest go to the debug log.
 *   CUDA_CLEANUP(call)   BLAS_CLEANUP(call)   NCCL_CLEANUP(call) */
#ifndef NVS_GPU_CHECK_H
#define NVS_GPU_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "core/err.h"

nvs_result_t nvs_cuda_fail(const char *context, const char *call, cudaError_t e);
nvs_result_t nvs_blas_fail(const char *call, cublasStatus_t s);
nvs_result_t nvs_nccl_fail(const char *call, ncclResult_t r, ncclComm_t comm);
/* A failed cudaMalloc whose code the caller holds: "cudaMalloc of B bytes for WHAT failed: ...", and
 * NVS_ERR_NOMEM when memory ran out (else NVS_ERR_CUDA). Like nvs_cuda_fail, it reads the error off (below). */
nvs_result_t nvs_cuda_alloc_fail(size_t bytes, const char *what, cudaError_t e);
void nvs_cuda_cleanup_fail(const char *call, cudaError_t e);
void nvs_blas_cleanup_fail(const char *call, cublasStatus_t s);
void nvs_nccl_cleanup_fail(const char *call, ncclResult_t r);

#define CUDA_TRY(call)                                                                                      \
    do {                                                                                                    \
        cudaError_t e_ = (cudaError_t)(call);                                                               \
        if (e_ != cudaSuccess) return nvs_cuda_fail(NULL, #call, e_);                                       \
    } while (0)

#define CUDA_TRY_AT(call, ...)                                                                              \
    do {                                                                                                    \
        cudaError_t e_ = (cudaError_t)(call);                                                               \
        if (e_ != cudaSuccess) {                                                                            \
            char what_[160];                                                                                \
            snprintf(what_, sizeof what_, __VA_ARGS__);                                                     \
            return nvs_cuda_fail(what_, #call, e_);                                                         \
        }                                                                                                   \
    } while (0)

#define BLAS_TRY(call)                                                                                      \
    do {                                                                                                    \
        cublasStatus_t s_ = (call);                                                                         \
        if (s_ != CUBLAS_STATUS_SUCCESS) return nvs_blas_fail(#call, s_);                                   \
    } while (0)

#define NCCL_TRY(call, comm)                                                                                \
    do {                                                                                                    \
        ncclResult_t r_ = (call);                                                                           \
        if (r_ != ncclSuccess) return nvs_nccl_fail(#call, r_, comm);                                       \
    } while (0)

#define CUDA_CLEANUP(call)                                                                                  \
    do {                                                                                                    \
        cudaError_t e_ = (cudaError_t)(call);                                                               \
        if (e_ != cudaSuccess) nvs_cuda_cleanup_fail(#call, e_);                                            \
    } while (0)

#define BLAS_CLEANUP(call)                                                                                  \
    do {                                                                                                    \
        cublasStatus_t s_ = (call);                                                                         \
        if (s_ != CUBLAS_STATUS_SUCCESS) nvs_blas_cleanup_fail(#call, s_);                                  \
    } while (0)

#define NCCL_CLEANUP(call)                                                                                  \
    do {                                                                                                    \
        ncclResult_t r_ = (call);                                                                           \
        if (r_ != ncclSuccess) nvs_nccl_cleanup_fail(#call, r_);                                            \
    } while (0)

#endif
