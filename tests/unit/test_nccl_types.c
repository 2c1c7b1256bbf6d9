/* nvscale's types and operations map onto NCCL's one for one (collectives/nccl_types.c): a wrong row would run
 * nccl-tests' "int8" sweep on another type, its sizes and counts still those of int8. No GPU needed. */
#include "collectives/nccl_types.h"
#include "t.h"

static void t_types(void)
{
    T_EQ_I(nvs_nccl_type(NVS_FLOAT), ncclFloat32);
    T_EQ_I(nvs_nccl_type(NVS_HALF), ncclFloat16);
    T_EQ_I(nvs_nccl_type(NVS_BF16), ncclBfloat16);
    T_EQ_I(nvs_nccl_type(NVS_INT32), ncclInt32);
    T_EQ_I(nvs_nccl_type(NVS_DOUBLE), ncclFloat64);
    T_EQ_I(nvs_nccl_type(NVS_INT8), ncclInt8);
    T_EQ_I(nvs_nccl_type(NVS_UINT8), ncclUint8);
    T_EQ_I(nvs_nccl_type(NVS_UINT32), ncclUint32);
    T_EQ_I(nvs_nccl_type(NVS_INT64), ncclInt64);
    T_EQ_I(nvs_nccl_type(NVS_UINT64), ncclUint64);
}

static void t_ops(void)
{
    T_EQ_I(nvs_nccl_op(NVS_SUM), ncclSum);
    T_EQ_I(nvs_nccl_op(NVS_PROD), ncclProd);
    T_EQ_I(nvs_nccl_op(NVS_MAX), ncclMax);
    T_EQ_I(nvs_nccl_op(NVS_MIN), ncclMin);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0)
    T_EQ_I(nvs_nccl_has_avg(), 1);
    T_EQ_I(nvs_nccl_op(NVS_AVG), ncclAvg);
#else
    T_EQ_I(nvs_nccl_has_avg(), 0);
#endif
}

T_LIST = {T_CASE(t_types), T_CASE(t_ops)};
T_MAIN
