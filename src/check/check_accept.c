/* health / host / sustain / gpu rules against a run document (check_accept.h). */
#include "check/check_accept.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_gpus.h"
#include "core/digits.h"
#include "check/gpu_specs.h"
#include "health/health.h"

static const char *const dir_key[3] = {"h2d_gbps", "d2h_gbps", "bidir_gbps"};
static const char *const dir_name[3] = {"h2d", "d2h", "bidir"};
static const char *const mode_name[3] = {"single", "all", "remote"};

static void not_measured(nvs_verdicts *vs, nvs_verdict *v, const nvs_rule *r, const char *why)
{
    snprintf(v->measured, sizeof v->measured, "not measured");
    snprintf(v->note, sizeof v->note, "not measured: %.170s", why);
    nvs_verdict_miss(vs, v, r);
}

/* Which rank drives which GPU (ranks[].topo_gpu), sorted by GPU and then by place in "ranks": looked up once per
 * row by binary search (a scan of every rank per row took most of the 9.9 s `check` spent on 8192 GPUs' health). */
typedef struct {
    long long gpu;
    size_t order;
    int rank;
} gpu_rank;
typedef struct {
    gpu_rank *v;
    size_t n;
} gpu_ranks;

static int cmp_gpu_rank(const void *a, const void *b)
{
    const gpu_rank *x = a, *y = b;
    return x->gpu != y->gpu ? (x->gpu < y->gpu ? -1 : 1) : (x->order > y->order) - (x->order < y->order);
}

/* 0, -1 out of memory */
static int gpu_ranks_build(const json_t *root, gpu_ranks *gr)
{
    const json_t *ranks = json_object_get(root, "ranks");
    size_t n = json_array_size(ranks);
    gr->n = 0;
    gr->v = malloc((n ? n : 1) * sizeof *gr->v);
    if (!gr->v) return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(ranks, i), *tg = json_object_get(r, "topo_gpu");
        if (json_is_integer(tg) && json_integer_value(tg) >= 0)
            gr->v[gr->n++] = (gpu_rank){json_integer_value(tg), i, (int)json_integer_value(json_object_get(r, "rank"))};
    }
    qsort(gr->v, gr->n, sizeof *gr->v, cmp_gpu_rank);
    return 0;
}

/* The rank that drives the GPU with this topology index (the first that names it), -1 if none does. */
static int rank_of_gpu(const gpu_ranks *gr, int gpu)
{
    size_t lo = 0, hi = gr->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gr->v[mid].gpu < gpu) lo = mid + 1;
        else hi = mid;
    }
    return gpu >= 0 && lo < gr->n && gr->v[lo].gpu == gpu ? gr->v[lo].rank : -1;
}

/* The run's health section, read and evaluated once for all health rules (the built-in ones are ten: reading it
 * per rule took 9.2 s of `check` on 8192 GPUs, 2.4 s once) */
typedef struct {
    const json_t *section; /* NULL: the run has none */
    int unreadable;        /* the section is malformed: err says how */
    char err[256];
    nvs_health_report rep;
    nvs_health_findings f;
} health_facts;

/* 0, -1 out of memory */
static int health_facts_read(const json_t *root, health_facts *h)
{
    memset(h, 0, sizeof *h);
    h->section = json_object_get(root, "health");
    if (!h->section) return 0;
    nvs_result_t res = nvs_health_from_json(h->section, &h->rep, h->err, sizeof h->err);
    if (res == NVS_ERR_NOMEM) return -1;
    if (res != NVS_OK) {
        h->unreadable = 1;
        return 0;
    }
    if (h->rep.ngpus && nvs_health_evaluate(&h->rep, &h->f)) {
        nvs_health_report_free(&h->rep);
        return -1;
    }
    return 0;
}

static void health_facts_free(health_facts *h)
{
    if (!h->section || h->unreadable) return;
    if (h->rep.ngpus) nvs_health_findings_free(&h->f);
    nvs_health_report_free(&h->rep);
}

/* named: the checks that a health rule of the ruleset names itself (bit per nvs_health_check); `health *` leaves
 * them to that rule (`health *` with `health ecc severity=warn`: ECC warns, everything else fails) */
static int eval_health(const nvs_rule *r, const health_facts *h, const gpu_ranks *gr, unsigned named, nvs_verdicts *vs)
{
    const char *name = r->health_check < 0 ? "*" : nvs_health_check_name((nvs_health_check)r->health_check);
    if (!h->section || h->unreadable || !h->rep.ngpus) {
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "health");
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "health %s", name);
        not_measured(vs, v, r, !h->section ? "the run has no health section (nvscale accept measures it)"
                               : h->unreadable ? h->err
                               : h->rep.source[0] ? h->rep.source : "no GPU in the health section");
        return 0;
    }
    for (size_t i = 0; i < h->f.n; i++) {
        const nvs_health_finding *x = &h->f.v[i];
        if (r->health_check >= 0 && (int)x->check != r->health_check) continue;
        if (r->health_check < 0 && (named >> x->check & 1u)) continue; /* its own rule judges it */
        const nvs_health_gpu *g = &h->rep.gpus[x->gpu_entry];
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "health");
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "%s", x->what);
        snprintf(v->measured, sizeof v->measured, "%.47s", x->measured);
        snprintf(v->expected, sizeof v->expected, "%.47s", x->expected);
        snprintf(v->note, sizeof v->note, "%s", x->note);
        v->measured_v = x->measured_v;
        v->expected_v = x->expected_v;
        snprintf(v->host, sizeof v->host, "%s", g->host);
        v->gpu = g->gpu;
        v->rank = rank_of_gpu(gr, g->gpu);
        int sev = x->severity;
        if (sev == NVS_SEV_FAIL && r->warn_only) sev = NVS_SEV_WARN;
        nvs_verdict_set(vs, v, sev);
    }
    return 0;
}

static double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* why a host (or every host) skipped the host copies, from p2p.skipped; "" if no host said */
static void skipped_why(const json_t *p2p, char *buf, size_t len)
{
    buf[0] = '\0';
    const json_t *sk = json_object_get(p2p, "skipped");
    for (size_t i = 0; i < json_array_size(sk); i++) {
        const json_t *s = json_array_get(sk, i);
        const char *what = json_string_value(json_object_get(s, "what")), *why = json_string_value(json_object_get(s, "why"));
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
        if (json_is_string(n) && !strcmp(json_string_value(n), name) && json_is_array(g)) return (int)json_array_size(g);
    }
    return -1;
}

static int eval_host(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, nvs_verdicts *vs)
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
        not_measured(vs, v, r, why[0] ? why : "the run has no host copies (nvscale p2p --host or accept measures them)");
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
        v->rank = rank_of_gpu(gr, gpu);
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
            if (r->has_min_bound && bound > 0) snprintf(v->expected, sizeof v->expected, ">= %.1f GB/s (%g%% of %.1f)", expected, r->min_bound_pct, bound);
            else snprintf(v->expected, sizeof v->expected, ">= %.1f GB/s", expected);
        }
        if (!json_is_object(m)) {
            const char *why = json_string_value(json_object_get(g, "remote_why"));
            char all_why[128];
            snprintf(all_why, sizeof all_why, "this process saw one of the host's %d GPUs; all at once needs them in one process", host_n);
            not_measured(vs, v, r, r->host_mode == 2 && why && *why ? why
                                   : r->host_mode == 1 && host_n > 1 ? all_why : "this mode was not measured for this GPU");
            continue;
        }
        const json_t *nn = json_object_get(m, "numa_node");
        char node[48] = "";
        if (json_is_integer(nn)) snprintf(node, sizeof node, "buffer on NUMA node %lld", (long long)json_integer_value(nn));
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
                snprintf(v->expected, sizeof v->expected, ">= %.*f GB/s (%g%% of %.1f)", d, expected, r->min_bound_pct, bound);
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
                         "%sall GPUs at once: GPUs behind one PCIe switch or root port share its uplink", node[0] ? "; " : "");
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

/* A sustained load's first and last chunk against max_drop=, its lowest against min=: fills the row's values and
 * returns whether it passes. `unit`: GB/s or TFLOPS. */
static int judge_drop(const nvs_rule *r, nvs_verdict *v, double first, double last, double lo, double elapsed,
                      const char *unit)
{
    int ok = 1;
    if (r->has_max_drop) {
        double drop = first > 0 ? (first - last) / first * 100 : 0;
        v->measured_v = drop;
        v->expected_v = r->max_drop_pct;
        v->unit = "%";
        snprintf(v->measured, sizeof v->measured, "%.1f -> %.1f %s", first, last, unit);
        snprintf(v->expected, sizeof v->expected, "drop <= %g%%", r->max_drop_pct);
        int dd = nvs_decimals_apart(drop, r->max_drop_pct, 1);
        snprintf(v->margin, sizeof v->margin, "%+.*f pts", dd, r->max_drop_pct - drop);
        v->margin_v = r->max_drop_pct - drop;
        ok = drop <= r->max_drop_pct;
        snprintf(v->note, sizeof v->note, "%.*f%% %s over %.0f s of load", dd, fabs(drop), drop >= 0 ? "lower at the end" : "higher at the end", elapsed);
        if (!(first > 0)) { /* nothing to drop from: "0.0% lower" would pass a load that never ran */
            ok = 0;
            snprintf(v->margin, sizeof v->margin, "-");
            v->margin_v = NAN;
            snprintf(v->note, sizeof v->note, "first chunk %.1f %s: no throughput to compare the last with", first,
                     unit);
        }
    }
    if (r->has_min && isnan(lo)) { /* not "min nan" */
        if (!r->has_max_drop) {
            snprintf(v->measured, sizeof v->measured, "not measured");
            snprintf(v->note, sizeof v->note, "not measured: no lowest chunk in the run");
        } else
            snprintf(v->note + strlen(v->note), sizeof v->note - strlen(v->note), "; no lowest chunk in the run");
        ok = 0;
    } else if (r->has_min) {
        int pass = lo >= r->min;
        if (!r->has_max_drop) {
            v->measured_v = lo;
            v->expected_v = r->min;
            v->margin_v = lo - r->min;
            int d = nvs_decimals_apart(lo, r->min, 1);
            snprintf(v->measured, sizeof v->measured, "min %.*f %s", d, lo, unit);
            snprintf(v->expected, sizeof v->expected, ">= %.*f %s", d, r->min, unit);
            snprintf(v->margin, sizeof v->margin, "%+.*f %s", d, lo - r->min, unit);
        } else if (!pass)
            snprintf(v->note + strlen(v->note), sizeof v->note - strlen(v->note), "; lowest chunk %.1f %s < %.1f", lo, unit, r->min);
        ok = ok && pass;
    }
    return ok;
}

/* The self-test entries a rule looks at (gpu_selftest.gpus[], gpu= or every one), each through `judge` (given
 * `ctx`), which fills the row made for it here with its host, GPU and rank; one "not measured" row for the rule
 * when the section is absent or skipped or no entry matches. 0, -1 out of memory. */
typedef int (*selftest_judge)(const nvs_rule *r, const json_t *gpus, size_t i, const void *ctx, nvs_verdict *v,
                              nvs_verdicts *vs);
static int each_selftest_gpu(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, const char *kind,
                             const char *absent, selftest_judge judge, const void *ctx, nvs_verdicts *vs)
{
    const json_t *st = json_object_get(root, "gpu_selftest"), *gpus = json_object_get(st, "gpus");
    const char *skipped = json_string_value(json_object_get(st, "skipped"));
    int matched = 0;
    for (size_t i = 0; json_is_object(st) && !(skipped && *skipped) && i < json_array_size(gpus); i++) {
        const json_t *g = json_array_get(gpus, i), *gj = json_object_get(g, "gpu"), *rj = json_object_get(g, "rank");
        int gpu = json_is_integer(gj) ? (int)json_integer_value(gj) : -1;
        if (r->gpu >= 0 && gpu != r->gpu) continue;
        matched++;
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, kind);
        if (!v) return -1;
        v->gpu = gpu;
        v->rank = json_is_integer(rj) ? (int)json_integer_value(rj) : rank_of_gpu(gr, gpu);
        const char *host = json_string_value(json_object_get(g, "host"));
        snprintf(v->host, sizeof v->host, "%s", host ? host : "");
        if (judge(r, gpus, i, ctx, v, vs)) return -1;
    }
    if (!matched) {
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, kind);
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "%s", r->text);
        not_measured(vs, v, r, !json_is_object(st) ? absent
                               : skipped && *skipped ? skipped
                               : json_array_size(gpus) ? "no such GPU in the self-test" : "no GPU in the self-test");
    }
    return 0;
}

/* sustain gemm: one GPU's burn (gpu_selftest.gpus[].burn, accept --level 3) */
/* The timed chunks of a load (its `chunks` after the first, the short probe) that have a throughput under one of
 * `keys`; -1 when the section lists no chunks (a document written without them: first and last are all there is).
 * With one timed chunk, first and last are that chunk and their "0.0% lower" compares nothing with nothing. */
static int timed_chunks(const json_t *section, const char *const *keys, size_t nkeys)
{
    const json_t *ch = json_object_get(section, "chunks");
    if (!json_is_array(ch)) return -1;
    int n = 0;
    for (size_t i = 1; i < json_array_size(ch); i++)
        for (size_t k = 0; k < nkeys; k++)
            if (json_is_number(json_object_get(json_array_get(ch, i), keys[k]))) {
                n++;
                break;
            }
    return n;
}

/* a drop is judged between two timed chunks: max_drop over fewer is not measured (why into buf), 0 otherwise */
static int drop_unjudged(const nvs_rule *r, int timed, char *buf, size_t len)
{
    if (!r->has_max_drop || timed < 0 || timed >= 2) return 0;
    snprintf(buf, len, "%s timed chunk after the probe: no drop over the load to judge (a longer --sustain gives more "
                       "10 s chunks)", timed ? "one" : "no");
    return 1;
}

static int judge_burn(const nvs_rule *r, const json_t *gpus, size_t i, const void *ctx, nvs_verdict *v,
                      nvs_verdicts *vs)
{
    (void)ctx;
    const json_t *b = json_object_get(json_array_get(gpus, i), "burn");
    v->unit = "TFLOPS";
    snprintf(v->metric, sizeof v->metric, "sustained gemm GPU%d", v->gpu);
    const char *why = json_string_value(json_object_get(b, "why"));
    double first = num(b, "tflops_first"), last = num(b, "tflops_last"), lo = num(b, "tflops_min");
    const json_t *w = json_object_get(b, "wrong");
    if (!json_is_object(b) || (why && *why) || isnan(first) || isnan(last)) {
        not_measured(vs, v, r, !json_is_object(b) ? "the run has no GEMM burn (accept --level 3)"
                               : why && *why ? why : "fewer than two timed chunks (a longer --sustain)");
        return 0;
    }
    static const char *const tkey[] = {"tflops"};
    char why1[160];
    if (!(json_is_integer(w) && json_integer_value(w) > 0) && drop_unjudged(r, timed_chunks(b, tkey, 1), why1, sizeof why1)) {
        not_measured(vs, v, r, why1);
        return 0;
    }
    int ok = judge_drop(r, v, first, last, lo, num(b, "elapsed_s"), "TFLOPS");
    if (json_is_integer(w) && json_integer_value(w) > 0) {
        snprintf(v->note, sizeof v->note, "%lld wrong elements in a product checked after the load: the GPU "
                 "computes wrong values when hot", (long long)json_integer_value(w));
        nvs_verdict_set(vs, v, NVS_SEV_FAIL);
    } else if (ok)
        nvs_verdict_set(vs, v, NVS_SEV_PASS);
    else
        nvs_verdict_miss(vs, v, r);
    return 0;
}

static int eval_sustain(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, nvs_verdicts *vs)
{
    if (r->sustain_gemm)
        return each_selftest_gpu(r, root, gr, "sustain", "the run has no GPU self-test (accept --level 3 burns each GPU)",
                                 judge_burn, NULL, vs);
    const json_t *s = json_object_get(root, "sustain");
    nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "sustain");
    if (!v) return -1;
    v->unit = "GB/s";
    const char *measure = json_string_value(json_object_get(s, "measure"));
    snprintf(v->metric, sizeof v->metric, "sustained all_reduce %s", measure ? measure : "busbw");
    double first = num(s, "busbw_first_gbps"), last = num(s, "busbw_last_gbps"), lo = num(s, "busbw_min_gbps");
    if (!json_is_object(s) || isnan(first) || isnan(last)) {
        not_measured(vs, v, r, s ? "fewer than two timed chunks (a longer --sustain)" : "the run has no sustained-load phase (accept --level 3)");
        return 0;
    }
    static const char *const bkey[] = {"busbw_gbps", "algbw_gbps"};
    char why1[160];
    const json_t *w = json_object_get(s, "wrong");
    if (!(json_is_integer(w) && json_integer_value(w) > 0) && drop_unjudged(r, timed_chunks(s, bkey, 2), why1, sizeof why1)) {
        not_measured(vs, v, r, why1); /* wrong results fail below whatever the chunks */
        return 0;
    }
    int ok = judge_drop(r, v, first, last, lo, num(s, "elapsed_s"), "GB/s");
    if (json_is_integer(w) && json_integer_value(w) > 0) {
        snprintf(v->note, sizeof v->note, "%lld wrong elements in the all_reduce results under load", (long long)json_integer_value(w));
        nvs_verdict_set(vs, v, NVS_SEV_FAIL);
        return 0;
    }
    if (ok) nvs_verdict_set(vs, v, NVS_SEV_PASS);
    else nvs_verdict_miss(vs, v, r);
    return 0;
}

/* gpu membw|gemm: run.json's gpu_selftest.gpus[], one row per GPU */
static const char *const selftest_name[2] = {"membw", "gemm"};
static const char *const selftest_value[2] = {"membw_gbps", "gemm_tflops"};
static const char *const selftest_wrong[2] = {"membw_wrong", "gemm_wrong"};
static const char *const selftest_unit[2] = {"GB/s", "TFLOPS"};

/* The measured values of one test, every GPU's, sorted by name and then value: each GPU's peer median is then a
 * binary search away (a median per GPU over a scan of all of them took 56 s for 8192 GPUs, one rule). */
typedef struct {
    const char *name;
    double v;
} peer_val;
typedef struct {
    peer_val *v;
    size_t n;
} peer_table;

static int cmp_peer(const void *a, const void *b)
{
    const peer_val *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->v < y->v ? -1 : x->v > y->v;
}

/* 0, -1 out of memory */
static int peer_table_build(const json_t *gpus, int test, peer_table *pt)
{
    size_t n = json_array_size(gpus);
    pt->n = 0;
    pt->v = malloc((n ? n : 1) * sizeof *pt->v);
    if (!pt->v) return -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *g = json_array_get(gpus, i);
        const char *nm = json_string_value(json_object_get(g, "name"));
        double x = num(g, selftest_value[test]);
        if (nm && !isnan(x)) pt->v[pt->n++] = (peer_val){nm, x};
    }
    qsort(pt->v, pt->n, sizeof *pt->v, cmp_peer);
    return 0;
}

/* the first entry not below key (name, v) */
static size_t peer_lower(const peer_table *pt, const char *name, double v)
{
    size_t lo = 0, hi = pt->n;
    const peer_val key = {name, v};
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_peer(&pt->v[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The median of the measured values of the other GPUs named `name`, whose own measured value is `self` (one entry
 * of that value is left out: with itself in, on a 2-GPU machine the median is the mean of the two, and a GPU at
 * 82 % of the other still passes 90 %); *count gets how many there are. NAN when there is none: one GPU of a model
 * has no peer. */
static double peer_median(const peer_table *pt, const char *name, double self, size_t *count)
{
    *count = 0;
    if (!name) return NAN;
    size_t first = peer_lower(pt, name, -INFINITY), end = peer_lower(pt, name, INFINITY);
    if (end < pt->n && !strcmp(pt->v[end].name, name)) end++; /* a value of +inf would sit at `end` */
    if (end == first) return NAN; /* not even self: never so for an entry of the table's own array */
    size_t skip = peer_lower(pt, name, self); /* self's entry: the table holds it */
    size_t k = end - first - 1;
    *count = k;
    if (!k) return NAN;
#define PEER_AT(j) (first + (j) >= skip ? pt->v[first + (j) + 1].v : pt->v[first + (j)].v)
    double m = k % 2 ? PEER_AT(k / 2) : (PEER_AT(k / 2 - 1) + PEER_AT(k / 2)) / 2;
#undef PEER_AT
    return m;
}

/* appends "; text" (or text, first) to the row's note */
static void note_add(nvs_verdict *v, const char *text)
{
    size_t l = strlen(v->note);
    snprintf(v->note + l, sizeof v->note - l, "%s%s", l ? "; " : "", text);
}

/* gpu membw|gemm: one GPU's self-test entry */
static int judge_selftest(const nvs_rule *r, const json_t *gpus, size_t i, const void *ctx, nvs_verdict *v,
                          nvs_verdicts *vs)
{
    const peer_table *peers = ctx; /* NULL without min_peer= */
    const int t = r->gpu_test;
    const char *unit = selftest_unit[t];
    const json_t *g = json_array_get(gpus, i);
    v->unit = unit;
    const char *name = json_string_value(json_object_get(g, "name"));
    const char *why = json_string_value(json_object_get(g, "why"));
    snprintf(v->metric, sizeof v->metric, "gpu %s GPU%d", selftest_name[t], v->gpu);
    /* NAN when not measured (null); `why` is no test of it: selftest_gpu.c sets it for the part that did not fit
     * in memory and still measures the other */
    double val = num(g, selftest_value[t]);
    const json_t *w = json_object_get(g, selftest_wrong[t]);
    /* wrong results are a FAIL whatever the thresholds: a fast GPU that computes wrong values is broken */
    if (json_is_integer(w) && json_integer_value(w) > 0) {
        if (!isnan(val)) {
            snprintf(v->measured, sizeof v->measured, "%.1f %s", val, unit);
            v->measured_v = val;
        }
        snprintf(v->note, sizeof v->note, "%lld wrong elements: the GPU computes or stores wrong values",
                 (long long)json_integer_value(w));
        nvs_verdict_set(vs, v, NVS_SEV_FAIL);
        return 0;
    }
    if (isnan(val)) {
        not_measured(vs, v, r, why && *why ? why : "no value in the run");
        return 0;
    }
    /* the threshold: the highest of min=, min_bound= of the datasheet peak and min_peer= of the peers' median;
     * a part whose reference is unknown is not judged and the row says so */
    const nvs_gpu_spec *spec = nvs_gpu_spec_find(name);
    double bound = spec ? (t ? spec->bf16_tflops : spec->membw_gbps) : NAN, median = NAN;
    size_t npeers = 0;
    if (peers) median = peer_median(peers, name, val, &npeers);
    double expected = r->has_min ? r->min : NAN;
    enum { BY_MIN, BY_BOUND, BY_PEER } by = BY_MIN;
    char unknown[2][160] = {"", ""};
    if (r->has_min_bound) {
        if (isnan(bound))
            snprintf(unknown[0], sizeof unknown[0], "no datasheet peak for '%.60s' (min_bound not judged)",
                     name ? name : "?");
        else if (isnan(expected) || bound * r->min_bound_pct / 100 > expected)
            expected = bound * r->min_bound_pct / 100, by = BY_BOUND;
    }
    if (r->has_min_peer) {
        if (isnan(median))
            snprintf(unknown[1], sizeof unknown[1], "no other GPU named '%.60s' measured in the run: no peer (min_peer not judged)",
                     name ? name : "?");
        else if (isnan(expected) || median * r->min_peer_pct / 100 > expected)
            expected = median * r->min_peer_pct / 100, by = BY_PEER;
    }
    v->measured_v = val;
    if (isnan(expected)) { /* no threshold could be computed: not a pass (as min_bound without a bound) */
        char whyn[384];
        snprintf(whyn, sizeof whyn, "%s%s%s; give min= instead", unknown[0], unknown[0][0] && unknown[1][0] ? "; " : "", unknown[1]);
        snprintf(v->measured, sizeof v->measured, "%.1f %s", val, unit);
        snprintf(v->note, sizeof v->note, "threshold unknown: %.360s", whyn);
        /* a rule the user wrote asked for a judgement that cannot be made: a miss (FAIL, or WARN under
         * severity=warn); the built-in rules meet every GPU, and a lone GPU of a model not in gpu_specs.c is
         * not faulty for that: WARN */
        if (!strncmp(r->source, "built-in", 8)) nvs_verdict_set(vs, v, NVS_SEV_WARN);
        else nvs_verdict_miss(vs, v, r);
        return 0;
    }
    v->expected_v = expected;
    v->margin_v = val - expected;
    int d = nvs_decimals_apart(val, expected, 1);
    snprintf(v->measured, sizeof v->measured, "%.*f %s", d, val, unit);
    if (by == BY_BOUND)
        snprintf(v->expected, sizeof v->expected, ">= %.*f %s (%g%% of %.1f)", d, expected, unit, r->min_bound_pct, bound);
    else if (by == BY_PEER)
        snprintf(v->expected, sizeof v->expected, ">= %.*f %s (%g%% of peer median %.1f)", d, expected, unit,
                 r->min_peer_pct, median);
    else snprintf(v->expected, sizeof v->expected, ">= %.*f %s", d, expected, unit);
    char pct[24];
    snprintf(v->margin, sizeof v->margin, "%+.*f %s (%s)", d, val - expected, unit,
             nvs_signed_pct((val - expected) / expected * 100, pct, sizeof pct));
    if (name) snprintf(v->note, sizeof v->note, "%.80s", name);
    if (r->has_min_peer && !isnan(median)) {
        char m[96];
        snprintf(m, sizeof m, "median of the %zu other GPU%s of this name %.1f %s", npeers, npeers == 1 ? "" : "s",
                 median, unit);
        note_add(v, m);
    }
    for (int k = 0; k < 2; k++)
        if (unknown[k][0]) note_add(v, unknown[k]);
    if (val < expected) nvs_verdict_miss(vs, v, r);
    else nvs_verdict_set(vs, v, NVS_SEV_PASS);
    return 0;
}

static int eval_gpu(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, nvs_verdicts *vs)
{
    peer_table pt = {NULL, 0};
    if (r->has_min_peer &&
        peer_table_build(json_object_get(json_object_get(root, "gpu_selftest"), "gpus"), r->gpu_test, &pt))
        return -1;
    int res = each_selftest_gpu(r, root, gr, "gpu", "the run has no GPU self-test (nvscale accept --level 2 runs it)",
                                judge_selftest, r->has_min_peer ? &pt : NULL, vs);
    free(pt.v);
    return res;
}

int nvs_check_eval_accept(const nvs_ruleset *rules, const json_t *root, nvs_verdicts *out)
{
    gpu_ranks gr;
    if (gpu_ranks_build(root, &gr)) return -1;
    health_facts hf;
    if (health_facts_read(root, &hf)) {
        free(gr.v);
        return -1;
    }
    int rc = 0;
    unsigned named = 0;
    for (size_t i = 0; i < rules->n; i++)
        if (rules->v[i].metric == NVS_RULE_HEALTH && rules->v[i].health_check >= 0)
            named |= 1u << rules->v[i].health_check;
    for (size_t i = 0; i < rules->n && !rc; i++) {
        const nvs_rule *r = &rules->v[i];
        if (r->metric == NVS_RULE_HEALTH) rc = eval_health(r, &hf, &gr, named, out);
        else if (r->metric == NVS_RULE_HOST) rc = eval_host(r, root, &gr, out);
        else if (r->metric == NVS_RULE_SUSTAIN) rc = eval_sustain(r, root, &gr, out);
        else if (r->metric == NVS_RULE_GPU) rc = eval_gpu(r, root, &gr, out);
        else if (r->metric == NVS_RULE_GPUS) rc = nvs_check_eval_gpus(r, root, out);
    }
    health_facts_free(&hf);
    free(gr.v);
    return rc ? -1 : 0;
}
