/* The precisions of a training step, in ONE table shared by the measuring side (train), the profiles, the
 * what-if model and run.json (PURE). Names are what flags, profiles and run.json spell. */
#ifndef NVS_PRECISION_H
#define NVS_PRECISION_H

#include <stddef.h>

typedef enum { NVS_PREC_FP32 = 0, NVS_PREC_TF32, NVS_PREC_BF16, NVS_PREC_FP16, NVS_PREC_COUNT } nvs_precision;

typedef struct {
    nvs_precision id;
    const char *name;      /* "fp32", "tf32", "bf16", "fp16" */
    const char *describe;  /* for --help and reports */
    size_t elem_bytes;     /* activations and GEMM operands */
    int half;              /* 16-bit operands (autocast / apex AMP): a 16-bit weight copy, tensor-core GEMMs at
                            * the 16-bit rate with FP32 accumulate */
} nvs_precision_info;

const nvs_precision_info *nvs_precision_info_of(nvs_precision p); /* never NULL: unknown -> fp32 */
const char *nvs_precision_name(nvs_precision p);
size_t nvs_precision_bytes(nvs_precision p);
/* Case-insensitive name; 0 on success, -1 when s is not one. */
int nvs_precision_parse(const char *s, nvs_precision *out);
/* "fp32|tf32|bf16|fp16", for usage lines (every precision the model knows). */
const char *nvs_precision_choices(void);

#endif
