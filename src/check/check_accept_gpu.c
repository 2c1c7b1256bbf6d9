/* accept's `gpu` rules (check_accept.h): each GPU's self-test (membw, gemm) against min=, min_bound= of its
 * datasheet peak and min_peer= of the median of the other GPUs of its name; and the self-test entries a rule looks
 * at, for these and for sustain gemm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_accept_priv.h"
#include "check/gpu_specs.h"
#include "core/digits.h"

int nvs_ca_each_selftest_gpu(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, const char *kind,
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
        v->rank = json_is_integer(rj) ? (int)json_integer_value(rj) : nvs_ca_rank_of_gpu(gr, gpu);
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
            snprintf(unknown[1], sizeof unknown[1],
                     "no other GPU named '%.60s' measured in the run: no peer (min_peer not judged)",
                     name ? name : "?");
        else if (isnan(expected) || median * r->min_peer_pct / 100 > expected)
            expected = median * r->min_peer_pct / 100, by = BY_PEER;
    }
    v->measured_v = val;
    if (isnan(expected)) { /* no threshold could be computed: not a pass (as min_bound without a bound) */
        char whyn[384];
        snprintf(whyn, sizeof whyn, "%s%s%s; give min= instead", unknown[0], unknown[0][0] && unknown[1][0] ? "; " : "",
                 unknown[1]);
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
        snprintf(v->expected, sizeof v->expected, ">= %.*f %s (%g%% of %.1f)", d, expected, unit, r->min_bound_pct,
                 bound);
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

int nvs_ca_eval_gpu(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, nvs_verdicts *vs)
{
    peer_table pt = {NULL, 0};
    if (r->has_min_peer &&
        peer_table_build(json_object_get(json_object_get(root, "gpu_selftest"), "gpus"), r->gpu_test, &pt))
        return -1;
    int res =
        nvs_ca_each_selftest_gpu(r, root, gr, "gpu", "the run has no GPU self-test (nvscale accept --level 2 runs it)",
                                 judge_selftest, r->has_min_peer ? &pt : NULL, vs);
    free(pt.v);
    return res;
}
