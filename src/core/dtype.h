/* Data types and reduction operations of the collective benchmarks (PURE).
 * Names are nccl-tests' column spellings, so tables read the same ("float", "bfloat16", "int8", "sum", "avg").
 *
 * How to add a type: append it to nvs_dtype (appending keeps the earlier types' indices, hence their seeds and
 * run.json masks), give it a row in dtype.c, a case in the backends' type maps (collectives/nccl_types.c,
 * backend_mpi.c) and in the fill/verify kernels (collectives/kernels.cu). */
#ifndef NVS_DTYPE_H
#define NVS_DTYPE_H

#include <stddef.h>

typedef enum {
    NVS_FLOAT = 0,
    NVS_HALF,
    NVS_BF16,
    NVS_INT32,
    NVS_DOUBLE,
    NVS_INT8,
    NVS_UINT8,
    NVS_UINT32,
    NVS_INT64,
    NVS_UINT64,
    NVS_DTYPE_COUNT
} nvs_dtype;
/* NVS_AVG: ncclAvg (NCCL >= 2.10); the MPI host backend, which has no MPI_AVG, sums then divides */
typedef enum { NVS_SUM = 0, NVS_MAX, NVS_MIN, NVS_PROD, NVS_AVG, NVS_OP_COUNT } nvs_redop;

const char *nvs_dtype_name(nvs_dtype t);
size_t nvs_dtype_size(nvs_dtype t);
/* Largest integer n such that the validation's sum pattern with M * nranks <= n stays exact in this type
 * (collectives/pattern.h): for floating types every integer in [-n, n] is exact (2^mantissa_bits+1); for
 * signed integers n is the largest value; for unsigned ones half of it (the pattern shifts [-M, M] to [0, 2M]);
 * at most 2^53, what the expectation (a double) holds exactly. */
double nvs_dtype_exact_int(nvs_dtype t);
int nvs_dtype_is_int(nvs_dtype t);
int nvs_dtype_is_unsigned(nvs_dtype t);
/* v rounded to the nearest value of type t (16-bit types through binary32, as the conversions of the GPU
 * kernels and of the MPI host backend go); integer types: v truncated */
double nvs_dtype_round(nvs_dtype t, double v);
const char *nvs_redop_name(nvs_redop op);
/* -1 when unknown. Accept nccl-tests aliases ("fp16"/"half", "bf16"/"bfloat16", "int"/"int32", "char"/"int8",
 * ...). */
int nvs_dtype_parse(const char *s);
int nvs_redop_parse(const char *s);

#endif
