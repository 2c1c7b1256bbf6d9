/* What the GPU training executor needs from the NCCL backend beyond the collective interface. */
#ifndef NVS_BACKEND_NCCL_H
#define NVS_BACKEND_NCCL_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "collectives/backend.h"

ncclComm_t nvs_nccl_comm(nvs_comm *c);
/* Wait for a stream with the run's timeout, aborting the communicators if a peer stalls. */
nvs_result_t nvs_nccl_wait_stream(nvs_backend *b, nvs_comm *c, cudaStream_t s, const char *what);

#endif
