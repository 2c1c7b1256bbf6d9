/* accept's `host` rules (check_accept.h): the host copies of run.json's p2p section, one row per GPU (gpu=N: that
 * one) against min= and min_bound= of the GPU's PCIe bound, in the direction and mode the rule names. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check/check_accept_priv.h"
#include "core/digits.h"

static const char *const dir_key[3] = {"h2d_gbps", "d2h_gbps", "bidir_gbps"};
static const char *const dir_name[3] = {"h2d", "d2h", "bidir"};
static const char *const mode_name[3] = {"single", "all", "remote"};

/* why a host (or every host) skipped the host copies, from p2p.skipped; "" if no host said */
static void skipped_why(const json_t *p2p, char *buf, size_t len)
{
    buf[0] = '\0';
    const json_t *sk = json_object_get(p2p, "skipped");
    for (size_t i = 0; i < json_array_size(sk); i++) {
        const json_t *s = json_array_get(sk, i);
        const char *what = json_string_value(json_object_get(s, "what")),
                   *why = json_string_value(json_object_get(s, "why"));
        const char *host = json_string_value(json_object_get(s, "host"));
        if (what && strstr(what, "host copies") && why) {
            snprintf(buf, len, "host %s skipped them: %s", host ? host : "?", why);
            return;
        }
    }
}

/* How many GPUs the run's topology gives host `name`, -1 when it does not say. */
static int host_gpus(const json_t *root, const char *name)
{
    const json_t *hosts = json_object_get(json_object_get(root, "topology"), "hosts");
    for (size_t i = 0; name && i < json_array_size(hosts); i++) {
        const json_t *h = json_array_get(hosts, i), *n = json_object_get(h, "name"), *g = json_object_get(h, "gpus");
        if (json_is_string(n) && !strcmp(json_string_value(n), name) && json_is_array(g))
            return (int)json_array_size(g);
    }
    return -1;
}

int nvs_ca_eval_host(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, nvs_verdicts *vs)
{
    const json_t *p2p = json_object_get(root, "p2p"), *hc = json_object_get(p2p, "host_copies");
    const json_t *gpus = json_object_get(hc, "gpus");
    char label[96];
    snprintf(label, sizeof label, "host %s %s", dir_name[r->host_dir], mode_name[r->host_mode]);
    if (!json_is_array(gpus) || !json_array_size(gpus)) {
        char why[256];
        skipped_why(p2p, why, sizeof why);
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "host");
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "%s", r->text);
        not_measured(vs, v, r,
                     why[0] ? why : "the run has no host copies (nvscale p2p --host or accept measures them)");
        return 0;
    }
    int matched = 0;
    for (size_t i = 0; i < json_array_size(gpus); i++) {
        const json_t *g = json_array_get(gpus, i);
        int gpu = json_is_integer(json_object_get(g, "gpu")) ? (int)json_integer_value(json_object_get(g, "gpu")) : -1;
        if (r->gpu >= 0 && gpu != r->gpu) continue;
        matched++;
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "host");
        if (!v) return -1;
        v->unit = "GB/s";
        v->gpu = gpu;
        v->rank = nvs_ca_rank_of_gpu(gr, gpu);
        const char *host = json_string_value(json_object_get(g, "host"));
        snprintf(v->host, sizeof v->host, "%s", host ? host : "");
        snprintf(v->metric, sizeof v->metric, "%s GPU%d", label, gpu);
        const json_t *m = json_object_get(g, mode_name[r->host_mode]);
        const int host_n = host_gpus(root, host);
        /* "all GPUs at once" on a host with one GPU is that GPU alone: the single copies are its measurement */
        int only_gpu = r->host_mode == 1 && !json_is_object(m) && host_n == 1;
        if (only_gpu) m = json_object_get(g, mode_name[0]);
        double bound = num(g, "bound_gbps") * (r->host_dir == 2 ? 2 : 1);
        double expected = r->has_min ? r->min : NAN;
        if (r->has_min_bound && bound > 0) {
            double e = bound * r->min_bound_pct / 100;
            expected = isnan(expected) || e > expected ? e : expected;
        }
        if (!isnan(expected)) {
            v->expected_v = expected;
            if (r->has_min_bound && bound > 0)
                snprintf(v->expected, sizeof v->expected, ">= %.1f GB/s (%g%% of %.1f)", expected, r->min_bound_pct,
                         bound);
            else snprintf(v->expected, sizeof v->expected, ">= %.1f GB/s", expected);
        }
        if (!json_is_object(m)) {
            const char *why = json_string_value(json_object_get(g, "remote_why"));
            char all_why[128];
            snprintf(all_why, sizeof all_why,
                     "this process saw one of the host's %d GPUs; all at once needs them in one process", host_n);
            not_measured(vs, v, r,
                         r->host_mode == 2 && why && *why  ? why
                         : r->host_mode == 1 && host_n > 1 ? all_why
                                                           : "this mode was not measured for this GPU");
            continue;
        }
        const json_t *nn = json_object_get(m, "numa_node");
        char node[48] = "";
        if (json_is_integer(nn))
            snprintf(node, sizeof node, "buffer on NUMA node %lld", (long long)json_integer_value(nn));
        double val = num(m, dir_key[r->host_dir]);
        const json_t *w = json_object_get(m, "wrong");
        if (isnan(val)) {
            not_measured(vs, v, r, "no value in the run");
            continue;
        }
        if (isnan(expected)) {
            not_measured(vs, v, r, "the PCIe bound of this GPU is unknown (min_bound needs it; give min= instead)");
            snprintf(v->measured, sizeof v->measured, "%.1f GB/s", val);
            v->measured_v = val;
            continue;
        }
        v->measured_v = val;
        v->margin_v = val - expected;
        { /* the value and its threshold with the decimals that tell them apart (core/digits.h) */
            int d = nvs_decimals_apart(val, expected, 1);
            snprintf(v->measured, sizeof v->measured, "%.*f GB/s", d, val);
            if (r->has_min_bound && bound > 0)
                snprintf(v->expected, sizeof v->expected, ">= %.*f GB/s (%g%% of %.1f)", d, expected, r->min_bound_pct,
                         bound);
            else snprintf(v->expected, sizeof v->expected, ">= %.*f GB/s", d, expected);
            char pct[24];
            snprintf(v->margin, sizeof v->margin, "%+.*f GB/s (%s)", d, val - expected,
                     nvs_signed_pct((val - expected) / expected * 100, pct, sizeof pct));
        }
        snprintf(v->note, sizeof v->note, "%s%s", only_gpu ? "the host's only GPU, alone; " : "", node);
        if (json_is_integer(w) && json_integer_value(w) > 0) {
            snprintf(v->note, sizeof v->note, "%lld wrong elements in these copies: the data path is broken",
                     (long long)json_integer_value(w));
            nvs_verdict_set(vs, v, NVS_SEV_FAIL);
        } else if (val < expected) {
            if (r->host_mode == 1)
                snprintf(v->note + strlen(v->note), sizeof v->note - strlen(v->note),
                         "%sall GPUs at once: GPUs behind one PCIe switch or root port share its uplink",
                         node[0] ? "; " : "");
            nvs_verdict_miss(vs, v, r);
        } else
            nvs_verdict_set(vs, v, NVS_SEV_PASS);
    }
    if (!matched) {
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "host");
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "%s", r->text);
        not_measured(vs, v, r, "no such GPU among the host copies");
    }
    return 0;
}
