#include "core/dtype.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "core/half.h"

/* 2^53: the largest n with every integer in [-n, n] exact in a double, the type the expectations are computed
 * in (collectives/pattern.h) */
#define EXACT_IN_DOUBLE 9007199254740992.0

static const struct {
    const char *name; /* nccl-tests' spelling, in its -d and in its output */
    size_t size;
    /* floating types: 2^(significand bits incl. implicit one): IEEE 754 binary32 24, binary16 11, bfloat16 8,
     * binary64 53. Integer types: the largest value (signed), half of it (unsigned: see dtype.h) */
    double exact;
    int is_int, is_unsigned;
} dtypes[NVS_DTYPE_COUNT] = {
    [NVS_FLOAT] = {"float", 4, 16777216.0, 0, 0},
    [NVS_HALF] = {"half", 2, 2048.0, 0, 0},
    [NVS_BF16] = {"bfloat16", 2, 256.0, 0, 0},
    [NVS_INT32] = {"int32", 4, 2147483647.0, 1, 0},
    [NVS_DOUBLE] = {"double", 8, EXACT_IN_DOUBLE, 0, 0},
    [NVS_INT8] = {"int8", 1, 127.0, 1, 0},
    [NVS_UINT8] = {"uint8", 1, 127.0, 1, 1},          /* 255 / 2 */
    [NVS_UINT32] = {"uint32", 4, 2147483647.0, 1, 1}, /* (2^32-1) / 2 */
    [NVS_INT64] = {"int64", 8, EXACT_IN_DOUBLE, 1, 0},
    [NVS_UINT64] = {"uint64", 8, EXACT_IN_DOUBLE, 1, 1},
};

static const char *const ops[NVS_OP_COUNT] = {"sum", "max", "min", "prod", "avg"};

const char *nvs_dtype_name(nvs_dtype t) { return (unsigned)t < NVS_DTYPE_COUNT ? dtypes[t].name : "?"; }
size_t nvs_dtype_size(nvs_dtype t) { return (unsigned)t < NVS_DTYPE_COUNT ? dtypes[t].size : 0; }
double nvs_dtype_exact_int(nvs_dtype t) { return (unsigned)t < NVS_DTYPE_COUNT ? dtypes[t].exact : 0; }
int nvs_dtype_is_int(nvs_dtype t) { return (unsigned)t < NVS_DTYPE_COUNT && dtypes[t].is_int; }
int nvs_dtype_is_unsigned(nvs_dtype t) { return (unsigned)t < NVS_DTYPE_COUNT && dtypes[t].is_unsigned; }
const char *nvs_redop_name(nvs_redop op) { return (unsigned)op < NVS_OP_COUNT ? ops[op] : "?"; }

double nvs_dtype_round(nvs_dtype t, double v)
{
    switch (t) {
    case NVS_FLOAT: return (float)v;
    case NVS_HALF: return nvs_f16_to_f32(nvs_f32_to_f16((float)v));
    case NVS_BF16: return nvs_bf16_to_f32(nvs_f32_to_bf16((float)v));
    case NVS_DOUBLE: return v;
    default: return (double)(int64_t)v;
    }
}

int nvs_dtype_parse(const char *s)
{
    /* nccl-tests' -d names (int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16) and the
     * aliases its ncclDataType_t has (ncclChar = int8, ncclInt = int32, ...) */
    static const struct {
        const char *alias;
        nvs_dtype t;
    } aliases[] = {
        {"float", NVS_FLOAT},   {"float32", NVS_FLOAT}, {"fp32", NVS_FLOAT},     {"half", NVS_HALF},
        {"float16", NVS_HALF},  {"fp16", NVS_HALF},     {"bfloat16", NVS_BF16},  {"bf16", NVS_BF16},
        {"int32", NVS_INT32},   {"int", NVS_INT32},     {"double", NVS_DOUBLE},  {"float64", NVS_DOUBLE},
        {"fp64", NVS_DOUBLE},   {"int8", NVS_INT8},     {"char", NVS_INT8},      {"uint8", NVS_UINT8},
        {"uint32", NVS_UINT32}, {"int64", NVS_INT64},   {"uint64", NVS_UINT64},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcasecmp(s, aliases[i].alias)) return (int)aliases[i].t;
    return -1;
}

int nvs_redop_parse(const char *s)
{
    for (int i = 0; i < NVS_OP_COUNT; i++)
        if (!strcasecmp(s, ops[i])) return i;
    return -1;
}
