/* The frameworks of framework.h. */
#include "train/framework.h"

#include <string.h>

static const nvs_framework frameworks[] = {
    {"pytorch-ddp",
     "PyTorch eager + DistributedDataParallel (defaults): host work per operation, reducer hooks, bucket copies",
     /* Fitted on ONE configuration, declared: lm290m at bf16, batch 8, on 2x H200 (PyTorch 2.11, results/
      * diag-issue9): the plain 1-GPU step took 38.3 ms while the GPU was busy 25.9 ms (host-bound). Its profile
      * (tools/profiles/lm290m.prof) dispatches 1,298 operations per step at bf16 (ops= 241 forward + 692 backward,
      * 182 casts each way, the optimizer): 38.3 ms / 1,298 = 29.5 us per operation. DDP at world 1 took 51.1 ms:
      * +12.8 ms over its 29 buckets = 441 us per bucket. Every other configuration validates these: the host work
      * of resnet50 and bert-large-mlm128 against lm290m's, 0.40 and 1.51 times by these counts, was 0.43 and 1.61
      * times in PyTorch's profile of one call; in that call DDP at world 1 cost lm290m and bert-large-mlm128 283
      * and 284 us per bucket, and 37 and 27 us per parameter tensor: the reducer's cost goes with its buckets
      * (results/h200x1-census, docs/fidelity.md). */
     29.5, 441.0, 1, 1,
     "fitted on lm290m bf16 batch 8, 2x H200, PyTorch 2.11 (results/diag-issue9): 1-GPU step without DDP and with "
     "DDP at world 1; operations per layer from tools/gen_profiles.py"},
    {"ideal", "the hardware alone: kernels queued at once, gradients written straight into the buckets", 0.0, 0.0, 0,
     0, "no framework cost"},
};
#define NFW ((int)(sizeof frameworks / sizeof frameworks[0]))

const nvs_framework *nvs_framework_find(const char *name)
{
    for (int i = 0; name && i < NFW; i++)
        if (!strcmp(name, frameworks[i].name)) return &frameworks[i];
    return NULL;
}

const nvs_framework *nvs_framework_default(void) { return &frameworks[0]; }

const char *nvs_framework_choices(void) { return "pytorch-ddp|ideal"; }
