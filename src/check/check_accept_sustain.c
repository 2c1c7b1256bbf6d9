/* accept's `sustain` rules (check_accept.h): the sustained all_reduce's busbw (one row) and each GPU's GEMM
 * burn (sustain gemm, a row per GPU), the last chunk against the first (max_drop=) or the lowest against min=. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check/check_accept_priv.h"
#include "core/digits.h"

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
        snprintf(v->note, sizeof v->note, "%.*f%% %s over %.0f s of load", dd, fabs(drop),
                 drop >= 0 ? "lower at the end" : "higher at the end", elapsed);
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
            snprintf(v->note + strlen(v->note), sizeof v->note - strlen(v->note), "; lowest chunk %.1f %s < %.1f", lo,
                     unit, r->min);
        ok = ok && pass;
    }
    return ok;
}

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

/* sustain gemm: one GPU's burn (gpu_selftest.gpus[].burn, accept --level 3) */
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
    if (!(json_is_integer(w) && json_integer_value(w) > 0) &&
        drop_unjudged(r, timed_chunks(b, tkey, 1), why1, sizeof why1)) {
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

int nvs_ca_eval_sustain(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, nvs_verdicts *vs)
{
    if (r->sustain_gemm)
        return nvs_ca_each_selftest_gpu(r, root, gr, "sustain",
                                        "the run has no GPU self-test (accept --level 3 burns each GPU)", judge_burn,
                                        NULL, vs);
    const json_t *s = json_object_get(root, "sustain");
    nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "sustain");
    if (!v) return -1;
    v->unit = "GB/s";
    const char *measure = json_string_value(json_object_get(s, "measure"));
    snprintf(v->metric, sizeof v->metric, "sustained all_reduce %s", measure ? measure : "busbw");
    double first = num(s, "busbw_first_gbps"), last = num(s, "busbw_last_gbps"), lo = num(s, "busbw_min_gbps");
    if (!json_is_object(s) || isnan(first) || isnan(last)) {
        not_measured(vs, v, r,
                     s ? "fewer than two timed chunks (a longer --sustain)"
                       : "the run has no sustained-load phase (accept --level 3)");
        return 0;
    }
    static const char *const bkey[] = {"busbw_gbps", "algbw_gbps"};
    char why1[160];
    const json_t *w = json_object_get(s, "wrong");
    if (!(json_is_integer(w) && json_integer_value(w) > 0) &&
        drop_unjudged(r, timed_chunks(s, bkey, 2), why1, sizeof why1)) {
        not_measured(vs, v, r, why1); /* wrong results fail below whatever the chunks */
        return 0;
    }
    int ok = judge_drop(r, v, first, last, lo, num(s, "elapsed_s"), "GB/s");
    if (json_is_integer(w) && json_integer_value(w) > 0) {
        snprintf(v->note, sizeof v->note, "%lld wrong elements in the all_reduce results under load",
                 (long long)json_integer_value(w));
        nvs_verdict_set(vs, v, NVS_SEV_FAIL);
        return 0;
    }
    if (ok) nvs_verdict_set(vs, v, NVS_SEV_PASS);
    else nvs_verdict_miss(vs, v, r);
    return 0;
}
