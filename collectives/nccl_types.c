#include "collectives/nccl_types.h"

/* NCCL's names for the types nccl-tests sweeps (nccl.h, ncclDataType_t) */
static const ncclDataType_t types[NVS_DTYPE_COUNT] = {
    [NVS_FLOAT] = ncclFloat32, [NVS_HALF] = ncclFloat16, [NVS_BF16] = ncclBfloat16, [NVS_INT32] = ncclInt32,
    [NVS_DOUBLE] = ncclFloat64, [NVS_INT8] = ncclInt8,   [NVS_UINT8] = ncclUint8,   [NVS_UINT32] = ncclUint32,
    [NVS_INT64] = ncclInt64,    [NVS_UINT64] = ncclUint64,
};

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0)
#define HAS_AVG 1
#define AVG ncclAvg
#else
#define HAS_AVG 0
#define AVG ncclSum /* never launched: refused first (nvs_nccl_has_avg) */
#endif

static const ncclRedOp_t ops[NVS_OP_COUNT] = {
    [NVS_SUM] = ncclSum, [NVS_MAX] = ncclMax, [NVS_MIN] = ncclMin, [NVS_PROD] = ncclProd, [NVS_AVG] = AVG,
};

ncclDataType_t nvs_nccl_type(nvs_dtype t) { return (unsigned)t < NVS_DTYPE_COUNT ? types[t] : ncclFloat32; }
ncclRedOp_t nvs_nccl_op(nvs_redop op) { return (unsigned)op < NVS_OP_COUNT ? ops[op] : ncclSum; }
int nvs_nccl_has_avg(void) { return HAS_AVG; }
