/* The values of the training step's flags (--model .. --cudnn, --no-train): run's and train's. */
#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli_common.h"
#include "cli/options_priv.h"
#include "core/units.h"
#include "run/phases.h"
#include "train/conv.h"
#include "workload/framework.h"
#include "workload/optimizer.h"
#include "workload/profile.h"

int nvs_opt_train(nvs_opt_parse *ps, int opt, const char *flag, const char *a)
{
    nvs_config *c = ps->c;
    const char *sub = ps->sub;
    switch (opt) {
    case OPT_NO_TRAIN: c->no_train = 1; break;
    case OPT_FRAMEWORK:
        if (!nvs_framework_find(a)) return nvs_opt_bad(sub, flag, a, "expected pytorch-ddp or ideal");
        snprintf(c->framework, sizeof c->framework, "%s", a);
        break;
    case OPT_OPTIMIZER: {
        nvs_optimizer o;
        int fused;
        if (nvs_optimizer_parse(a, &o, &fused)) return nvs_opt_bad(sub, flag, a, "expected sgd, adamw or adamw-fused");
        c->optimizer = (int)o;
        c->optimizer_fused = fused;
        break;
    }
    case OPT_CUDNN: {
        nvs_cudnn_mode m;
        if (nvs_cudnn_mode_parse(a, &m)) return nvs_opt_bad(sub, flag, a, "expected auto, on or off");
        c->cudnn = (int)m;
        break;
    }
    case OPT_MODEL: {
        char *copy, *items[NVS_MAX_WORKLOADS], why[160];
        int n = nvs_list_split(a, &copy, items, NVS_MAX_WORKLOADS, why, sizeof why);
        /* "-" was looked up as a profile named '-'; /dev/stdin or a named pipe read by rank 0 left the others
         * an empty profile (a built-in name wins over a file of that name: not one to look at) */
        for (int i = 0; i < n; i++)
            if (!nvs_profile_is_builtin(items[i]) &&
                nvs_cli_stdin_refused(sub, flag, items[i], "a profile is read by every rank, and again for the "
                                                           "run.json")) {
                free(copy);
                return NVS_ERR_USAGE;
            }
        /* one workload measured twice in one run is a typo, not a repeat (--rounds repeats) */
        for (int i = 0; i < n; i++) /* n = -1 ends it */
            for (int k = 0; k < i; k++)
                if (!strcmp(items[i], items[k])) {
                    snprintf(why, sizeof why, "'%.100s' given twice", items[i]);
                    n = -1;
                    break;
                }
        free(copy);
        if (n < 0) return nvs_opt_bad(sub, flag, a, why);
        if (strlen(a) >= sizeof c->model) return nvs_opt_bad(sub, flag, a, "expected a model name or profile file");
        snprintf(c->model, sizeof c->model, "%s", a);
        break;
    }
    case OPT_BATCH:
        if (nvs_opt_int_range(a, 1, 1000000, &c->batch))
            return nvs_opt_bad(sub, flag, a, "expected a batch of 1..1000000 samples per GPU");
        break;
    case OPT_PRECISION:
        if (nvs_precision_parse(a, &c->precision))
            return nvs_opt_bad(sub, flag, a, "expected fp32, tf32, bf16 or fp16");
        c->precision_explicit = 1;
        break;
    case OPT_GRAD:
        if (!strcasecmp(a, "fp32")) c->grad_bf16 = 0;
        else if (!strcasecmp(a, "bf16")) c->grad_bf16 = 1;
        else return nvs_opt_bad(sub, flag, a, "expected fp32 or bf16");
        break;
    case OPT_BFIRST:
        if (nvs_opt_size(sub, flag, a, 1, &c->bucket_first_bytes, "expected a size from 1 to 1T such as 1M"))
            return NVS_ERR_USAGE;
        break;
    case OPT_BCAP:
        if (nvs_opt_size(sub, flag, a, 1, &c->bucket_cap_bytes, "expected a size from 1 to 1T such as 25M"))
            return NVS_ERR_USAGE;
        break;
    case OPT_STEPS:
        if (nvs_opt_int_range(a, 1, 1000000, &c->steps)) return nvs_opt_bad(sub, flag, a, "expected 1..1000000");
        c->steps_explicit = 1;
        break;
    case OPT_ROUNDS:
        if (nvs_opt_int_range(a, 1, 100, &c->rounds)) return nvs_opt_bad(sub, flag, a, "expected 1..100");
        break;
    case OPT_WSTEPS:
        if (nvs_opt_int_range(a, 0, 1000000, &c->warmup_steps)) return nvs_opt_bad(sub, flag, a, "expected 0..1000000");
        c->warmup_steps_explicit = 1;
        break;
    default: return NVS_OPT_NOT_MINE;
    }
    return NVS_OK;
}
