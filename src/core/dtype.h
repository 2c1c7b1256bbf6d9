/* Data types and reduction operations of the collective benchmarks (PURE).
 * Names are nccl-tests' column spellings, so tables read the same ("float", "bfloat16", "sum"). */
#ifndef NVS_DTYPE_H
#define NVS_DTYPE_H

#include <stddef.h>

typedef enum { NVS_FLOAT = 0, NVS_HALF, NVS_BF16, NVS_INT32, NVS_DOUBLE, NVS_DTYPE_COUNT } nvs_dtype;
typedef enum { NVS_SUM = 0, NVS_MAX, NVS_MIN, NVS_PROD, NVS_OP_COUNT } nvs_redop;

const char *nvs_dtype_name(nvs_dtype t);
size_t nvs_dtype_size(nvs_dtype t);
/* Largest integer n such that every integer in [-n, n] is exact in this type (2^mantissa_bits+1):
 * what the validation patterns must stay within so that sums are exact in any order. */
double nvs_dtype_exact_int(nvs_dtype t);
const char *nvs_redop_name(nvs_redop op);
/* -1 when unknown. Accept nccl-tests aliases ("fp16"/"half", "bf16"/"bfloat16", "int"/"int32", ...). */
int nvs_dtype_parse(const char *s);
int nvs_redop_parse(const char *s);

#endif
