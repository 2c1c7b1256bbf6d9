/* See precision.h. */
#include "core/precision.h"

#include <strings.h>

static const nvs_precision_info table[NVS_PREC_COUNT] = {
    {NVS_PREC_FP32, "fp32", "FP32 GEMMs (TF32 off)", 4, 0},
    {NVS_PREC_TF32, "tf32", "FP32 data, TF32 tensor-core GEMMs", 4, 0},
    {NVS_PREC_BF16, "bf16", "bfloat16 autocast: bf16 GEMMs, fp32 parameters", 2, 1},
    /* fp16 mixed precision (torch.autocast(float16) with a GradScaler, apex AMP O1/O2): fp16 GEMMs with FP32
     * accumulate, fp32 master parameters; the training step adds the scaler's work under a framework that has
     * one (src/workload/framework.h) */
    {NVS_PREC_FP16, "fp16", "fp16 mixed precision (AMP): fp16 GEMMs, fp32 master parameters", 2, 1},
};

const nvs_precision_info *nvs_precision_info_of(nvs_precision p)
{
    return (p >= 0 && p < NVS_PREC_COUNT) ? &table[p] : &table[NVS_PREC_FP32];
}

const char *nvs_precision_name(nvs_precision p) { return nvs_precision_info_of(p)->name; }
size_t nvs_precision_bytes(nvs_precision p) { return nvs_precision_info_of(p)->elem_bytes; }

int nvs_precision_parse(const char *s, nvs_precision *out)
{
    for (int i = 0; s && i < NVS_PREC_COUNT; i++)
        if (!strcasecmp(s, table[i].name)) {
            *out = (nvs_precision)i;
            return 0;
        }
    return -1;
}

const char *nvs_precision_choices(void) { return "fp32|tf32|bf16|fp16"; }

