/* nvscale's types and operations as NCCL's (ncclDataType_t, ncclRedOp_t): one row per nvs_dtype / nvs_redop,
 * apart from the backend so that the map is unit-tested without a GPU (tests/unit/test_nccl_types.c). */
#ifndef NVS_NCCL_TYPES_H
#define NVS_NCCL_TYPES_H

#include <nccl.h>

#include "core/dtype.h"

ncclDataType_t nvs_nccl_type(nvs_dtype t);
/* ncclAvg needs NCCL >= 2.10 at build time: nvs_nccl_has_avg() says whether this build has it (0: avg is
 * refused before the sweep, backend_nccl.c) */
ncclRedOp_t nvs_nccl_op(nvs_redop op);
int nvs_nccl_has_avg(void);

#endif
