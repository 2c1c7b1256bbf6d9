/* nvscale model: the flags that shape a configuration (common settings, batch) and its GPU counts, and the
 * evaluation of a configuration at each count (cmd_model_priv.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_common.h"
#include "cli/cmd_model_priv.h"
#include "core/log.h"
#include "core/units.h"
#include "model/preset.h"

/* A list of positive integers in 1..hi, sorted; one given twice is refused. */
static int parse_int_list(const char *flag, const char *s, long hi, int *out, int *n)
{
    char *copy, *w[MAX_LIST], why[160];
    int k = nvs_list_split(s, &copy, w, MAX_LIST, why, sizeof why);
    if (k < 0) {
        free(copy);
        usage_error("%s '%s': %s (expected a comma-separated list of at most %d numbers)", flag, s, why, MAX_LIST);
        return -1;
    }
    *n = 0;
    for (int i = 0; i < k; i++) {
        long v;
        if (nvs_parse_long(w[i], &v) || v < 1 || v > hi) {
            usage_error("%s: '%s' is not a whole number in 1..%ld", flag, w[i], hi);
            free(copy);
            return -1;
        }
        int j = *n;
        while (j > 0 && out[j - 1] > v) {
            out[j] = out[j - 1];
            j--;
        }
        if (j > 0 && out[j - 1] == v) { /* as run's --gpus: a repeat is a typo, not a second point */
            usage_error("%s '%s': %ld given twice (each count once)", flag, s, v);
            free(copy);
            return -1;
        }
        out[j] = (int)v;
        (*n)++;
    }
    free(copy);
    return 0;
}

/* --bucket-first / --bucket-cap: read as run's and train's are (cli_common.h nvs_cli_size: 1.5M taken, 1.3K refused
 * as no whole number of bytes), with the same words */
static int parse_size_flag(const char *flag, const char *s, const char *expect, double *out)
{
    size_t v;
    char why[256];
    if (nvs_cli_size(s, 1, &v, expect, why, sizeof why)) {
        usage_error("%s '%s': %s", flag, s, why);
        return -1;
    }
    *out = (double)v;
    return 0;
}

/* Shapes (nodes x gpn) to evaluate for one machine. Returns the count, or -1 (message printed). */
static int shapes_of(const opts *o, const nvs_model_config *c, int *nodes, int *gpn)
{
    int g = c->machine.gpus, k = 0, list[MAX_LIST], nl = 0;
    if (o->gpn) {
        long v;
        if (nvs_parse_long(o->gpn, &v) || v < 1 || v > c->machine.gpus) {
            usage_error("--gpus-per-node '%s': machine '%s' has 1..%d GPUs", o->gpn, c->machine.id, c->machine.gpus);
            return -1;
        }
        g = (int)v;
    }
    if (o->nodes) {
        if (parse_int_list("--nodes", o->nodes, MAX_TOTAL_GPUS, list, &nl)) return -1;
        for (int i = 0; i < nl; i++) {
            if ((long)list[i] * g > MAX_TOTAL_GPUS) {
                usage_error("--nodes %d x %d GPUs: more than %d GPUs", list[i], g, MAX_TOTAL_GPUS);
                return -1;
            }
            nodes[k] = list[i];
            gpn[k++] = g;
        }
        return k;
    }
    if (o->gpus) {
        if (parse_int_list("--gpus", o->gpus, MAX_TOTAL_GPUS, list, &nl)) return -1;
        for (int i = 0; i < nl; i++) {
            if (list[i] <= g) {
                nodes[k] = 1;
                gpn[k++] = list[i];
            } else if (list[i] % g == 0) {
                nodes[k] = list[i] / g;
                gpn[k++] = g;
            } else {
                usage_error("--gpus %d: more than one node of %d GPUs (machine '%s') must be a multiple of %d", list[i],
                            g, c->machine.id, g);
                return -1;
            }
        }
        return k;
    }
    /* default: 1, 2, 4 ... the node; with a network, doubling the nodes up to 1024 GPUs */
    for (int n = 1; n < g && k < MAX_LIST; n *= 2) {
        nodes[k] = 1;
        gpn[k++] = n;
    }
    nodes[k] = 1;
    gpn[k++] = g;
    if (c->has_net)
        for (int m = 2; (long)m * g <= 1024 && k < MAX_LIST; m *= 2) {
            nodes[k] = m;
            gpn[k++] = g;
        }
    return k;
}

/* --p2p / --shm VALUE: on (the transport as NCCL's rules have it) or off (turned off); 2 after a usage message */
static int transport_off(const char *flag, const char *v, int *off)
{
    if (!strcmp(v, "on") || !strcmp(v, "off")) {
        *off = !strcmp(v, "off");
        return 0;
    }
    return usage_error("%s '%s': expected on or off", flag, v);
}

/* Settings shared by every configuration (precision, grad, algo, p2p, buckets, net). */
int nvs_cm_common_settings(const opts *o, const nvs_presets *ps, nvs_model_config *c)
{
    if (o->precision && nvs_precision_parse(o->precision, &c->prec))
        return usage_error("--precision '%s': expected fp32, tf32, bf16 or fp16", o->precision);
    if (o->grad) {
        if (!strcmp(o->grad, "fp32"))
            c->grad_bytes = 4;
        else if (!strcmp(o->grad, "bf16") || !strcmp(o->grad, "fp16"))
            c->grad_bytes = 2;
        else
            return usage_error("--grad '%s': expected fp32, bf16 or fp16", o->grad);
    }
    if (o->nccl) {
        int code;
        if (nvs_nccl_version_parse(o->nccl, &code))
            return usage_error("--nccl '%s': expected a version such as 2.7.8 or 2.28.3", o->nccl);
        c->machine.nccl = code; /* the machine is set before (mode_project) */
    }
    if (o->dp) {
        nvs_dp_mode m;
        if (nvs_dp_parse(o->dp, &m)) return usage_error("--dp '%s': expected ddp, delay or none", o->dp);
        c->dp = (int)m;
    }
    if (o->framework && !(c->fw = nvs_framework_find(o->framework)))
        return usage_error("--framework '%s': expected %s", o->framework, nvs_framework_choices());
    if (o->optimizer && nvs_optimizer_parse(o->optimizer, &c->opt, &c->adamw_fused))
        return usage_error("--optimizer '%s': expected %s", o->optimizer, nvs_optimizer_choices());
    if (o->step_cv) {
        double v;
        if (nvs_parse_double(o->step_cv, &v) || v < 0 || v > 1)
            return usage_error("--step-cv '%s': expected a fraction from 0 to 1", o->step_cv);
        c->step_cv = v;
    }
    if (o->algo && nvs_algo_parse(o->algo, &c->algo))
        return usage_error("--algo '%s': expected ring, tree, nvls, nvlstree, collnet or auto", o->algo);
    if (c->algo == NVS_ALGO_NVLS || c->algo == NVS_ALGO_NVLSTREE) {
        /* asked by name for what the GPU cannot do: refused (auto falls back to ring or tree; a machine without
         * NVLink SHARP, or a shape NVLS does not take, falls back to the ring: model.h) */
        char why[320];
        if (!nvs_gpu_nvls(&c->gpu, why, sizeof why)) return usage_error("--algo %s: %s", nvs_algo_name(c->algo), why);
    }
    /* NCCL transports turned off, as the environment would (NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1) */
    if (o->p2p && transport_off("--p2p", o->p2p, &c->p2p_disabled)) return 2;
    if (o->shm && transport_off("--shm", o->shm, &c->shm_disabled)) return 2;
    if (o->overlap) {
        /* interference: the share of the time the GPU computes beside an all-reduce that still lengthens the
         * step (NCCL takes SMs, memory and PCIe bandwidth from the compute); by default per transport
         * (model/interference.h), --calibrate measures it, this sets one for every N */
        double v;
        if (nvs_parse_double(o->overlap, &v) || v < 0 || v > 1)
            return usage_error("--overlap-penalty '%s': expected a fraction from 0 to 1", o->overlap);
        c->overlap_penalty = v; /* "-0" is 0 already (nvs_parse_double) */
    }
    if (o->bucket_first && parse_size_flag("--bucket-first", o->bucket_first, "expected a size from 1 to 1T such as 1M",
                                            &c->bucket_first_bytes)) return 2;
    if (o->bucket_cap && parse_size_flag("--bucket-cap", o->bucket_cap, "expected a size from 1 to 1T such as 25M",
                                          &c->bucket_cap_bytes)) return 2;
    /* as DDP 2.x: an explicit bucket_cap_mb sizes the first bucket too (src/cli/options_checks.c says where from) */
    if (o->bucket_cap && !o->bucket_first) c->bucket_first_bytes = c->bucket_cap_bytes;
    if (o->net) {
        const nvs_preset *np = nvs_presets_find(ps, NVS_PK_NET, o->net);
        if (!np) return usage_error("--net '%s': unknown network (nvscale model --list-presets)", o->net);
        nvs_net_spec_from(np, &c->net);
        c->has_net = 1;
    }
    if (c->algo == NVS_ALGO_COLLNET && (!c->has_net || !c->net.sharp))
        return usage_error("%s",
                           "--algo collnet needs --net with in-network reduction (sharp 1: ib-hdr200, ib-ndr400)");
    return 0;
}

/* Batch: user value or the largest that fits. */
int nvs_cm_set_batch(const opts *o, nvs_model_config *c, nvs_mem_estimate *mem)
{
    int maxb = nvs_model_max_batch(c, mem);
    if (!o->batch || !strcmp(o->batch, "max")) {
        if (maxb < 1)
            return usage_error("%s does not fit on %s even at batch 1 by the memory estimate "
                               "(weights, gradients, optimizer and reserve take %.2f GB of its %.1f GB; %.1f MB per "
                               "sample): give --batch",
                               c->profile->name, c->gpu.id,
                               (mem->weights_bytes + mem->grads_bytes + mem->buckets_bytes + mem->optimizer_bytes +
                                mem->reserve_bytes) / 1e9,
                               c->gpu.memory_bytes / 1e9, mem->per_sample_bytes / 1e6);
        c->batch = maxb;
        c->batch_is_max = 1;
        return 0;
    }
    long v;
    if (nvs_parse_long(o->batch, &v) || v < 1 || v > MAX_BATCH) {
        return usage_error("--batch '%s': expected a whole number in 1..%d or 'max'", o->batch, MAX_BATCH);
    }
    c->batch = (int)v;
    if (v > maxb)
        nvs_warn("batch %ld on %s is above the largest the memory estimate allows (%d): modelled anyway", v,
                 c->gpu.id, maxb);
    return 0;
}

int nvs_cm_eval_series(const opts *o, nvs_model_series *s)
{
    int nodes[MAX_LIST + 16], gpn[MAX_LIST + 16];
    int k = shapes_of(o, &s->cfg, nodes, gpn);
    if (k < 0) return 2;
    /* a network given but never crossed: the label says "+ NET", and a planner would take it as modelled */
    int across = 0;
    for (int i = 0; i < k; i++) across |= nodes[i] > 1;
    if (s->cfg.has_net && !across)
        nvs_warn("--net %s: %s: every GPU count asked for fits on one machine of %d GPUs, so nothing crosses the "
                 "network (give --gpus above %d, or --nodes)",
                 o->net, s->cfg.label, s->cfg.machine.gpus, s->cfg.machine.gpus);
    s->pts = calloc((size_t)k, sizeof *s->pts);
    if (!s->pts) return 1;
    for (int i = 0; i < k; i++) {
        char err[512];
        nvs_result_t r = nvs_model_eval(&s->cfg, nodes[i], gpn[i], &s->pts[i], err, sizeof err);
        if (r == NVS_ERR_INPUT) return usage_error("%s: %s", s->cfg.label, err); /* a shape the flags asked for */
        if (r != NVS_OK) {
            fprintf(stderr, "nvscale model: %s: %s\n", s->cfg.label, err);
            return 1;
        }
        s->npts++;
    }
    return 0;
}

/* The first flag given that only shapes a projection's configuration (common_settings), or NULL. A mode that has
 * no projection to apply it to refuses it by name rather than drop it. */
const char *nvs_cm_projection_setting(const opts *o)
{
    return o->precision      ? "--precision"
           : o->grad         ? "--grad"
           : o->algo         ? "--algo"
           : o->p2p          ? "--p2p"
           : o->shm          ? "--shm"
           : o->overlap      ? "--overlap-penalty"
           : o->bucket_first ? "--bucket-first"
           : o->bucket_cap   ? "--bucket-cap"
           : o->gpn          ? "--gpus-per-node"
           : o->framework    ? "--framework"
           : o->optimizer    ? "--optimizer"
           : o->nccl         ? "--nccl"
           : o->dp           ? "--dp"
           : o->step_cv      ? "--step-cv"
                             : NULL;
}

/* ... or a flag that picks a projection's configurations and GPU counts (--gpu ... --net), or NULL */
const char *nvs_cm_projection_flag(const opts *o)
{
    return o->gpu ? "--gpu" : o->machine ? "--machine" : o->model ? "--model" : o->batch ? "--batch"
           : o->gpus ? "--gpus" : o->nodes ? "--nodes" : o->net ? "--net" : nvs_cm_projection_setting(o);
}
