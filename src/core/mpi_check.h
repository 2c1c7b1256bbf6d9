/* Checking MPI return codes (the communicators use MPI_ERRORS_RETURN): one message naming the call and MPI's
 * own error string, then NVS_ERR_MPI. Shared by the MPI runtime and the MPI host backend. */
#ifndef NVS_MPI_CHECK_H
#define NVS_MPI_CHECK_H

#include <mpi.h>

#include "core/err.h"

nvs_result_t nvs_mpi_fail(const char *call, int rc); /* runtime_mpi.c */
/* a failure while cleaning up (freeing a communicator, an operation): a warning, as CUDA_CLEANUP in gpu_check.h */
void nvs_mpi_cleanup_fail(const char *call, int rc);

#define MPI_TRY(call)                                                                                       \
    do {                                                                                                    \
        int rc_ = (call);                                                                                   \
        if (rc_ != MPI_SUCCESS) return nvs_mpi_fail(#call, rc_);                                            \
    } while (0)

#define MPI_CLEANUP(call)                                                                                   \
    do {                                                                                                    \
        int rc_ = (call);                                                                                   \
        if (rc_ != MPI_SUCCESS) nvs_mpi_cleanup_fail(#call, rc_);                                           \
    } while (0)

#endif
