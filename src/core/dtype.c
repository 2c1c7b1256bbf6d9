#include "core/dtype.h"

#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    size_t size;
    /* 2^(significand bits incl. implicit one): IEEE 754 binary32 24, binary16 11, bfloat16 8, binary64 53 */
    double exact;
} dtypes[NVS_DTYPE_COUNT] = {
    [NVS_FLOAT] = {"float", 4, 16777216.0},
    [NVS_HALF] = {"half", 2, 2048.0},
    [NVS_BF16] = {"bfloat16", 2, 256.0},
    [NVS_INT32] = {"int32", 4, 2147483647.0},
    [NVS_DOUBLE] = {"double", 8, 9007199254740992.0},
};

static const char *const ops[NVS_OP_COUNT] = {"sum", "max", "min", "prod"};

const char *nvs_dtype_name(nvs_dtype t) { return (unsigned)t < NVS_DTYPE_COUNT ? dtypes[t].name : "?"; }
size_t nvs_dtype_size(nvs_dtype t) { return (unsigned)t < NVS_DTYPE_COUNT ? dtypes[t].size : 0; }
double nvs_dtype_exact_int(nvs_dtype t) { return (unsigned)t < NVS_DTYPE_COUNT ? dtypes[t].exact : 0; }
const char *nvs_redop_name(nvs_redop op) { return (unsigned)op < NVS_OP_COUNT ? ops[op] : "?"; }

int nvs_dtype_parse(const char *s)
{
    static const struct {
        const char *alias;
        nvs_dtype t;
    } aliases[] = {
        {"float", NVS_FLOAT},   {"float32", NVS_FLOAT}, {"fp32", NVS_FLOAT},     {"half", NVS_HALF},
        {"float16", NVS_HALF},  {"fp16", NVS_HALF},     {"bfloat16", NVS_BF16},  {"bf16", NVS_BF16},
        {"int32", NVS_INT32},   {"int", NVS_INT32},     {"double", NVS_DOUBLE},  {"float64", NVS_DOUBLE},
        {"fp64", NVS_DOUBLE},
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
