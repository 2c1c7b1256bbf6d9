/* The frameworks of framework.h. */
#include "train/framework.h"

#include <string.h>

static const nvs_framework frameworks[] = {
    {"pytorch-ddp",
     "PyTorch eager + DistributedDataParallel (defaults): host work per kernel, reducer hooks, bucket copies",
     /* Fitted on ONE configuration, declared: lm290m at bf16, batch 8, on 2x H200 (PyTorch 2.11, results/
      * diag-issue9): the plain 1-GPU step took 38.3 ms while the GPU was busy 25.9 ms (launch-bound), and
      * nvscale's profile of that model launches 909 kernels per step: 38.3 ms / 909 = 42 us of host work per
      * kernel. DDP at world 1 took 51.1 ms: +12.8 ms over 222 parameter tensors (111 profile layers with
      * parameters, 2 tensors each) = 58 us per tensor. Every other configuration is a validation of these. */
     42.0, 58.0, 2.0, 1,
     "fitted on lm290m bf16 batch 8, 2x H200, PyTorch 2.11 (results/diag-issue9): 1-GPU step without DDP and with "
     "DDP at world 1"},
    {"ideal", "the hardware alone: kernels queued at once, gradients written straight into the buckets", 0.0, 0.0,
     0.0, 0, "no framework cost"},
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
