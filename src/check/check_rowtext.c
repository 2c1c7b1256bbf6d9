/* The text of a rule's verdict row: its metric label, why a point is not measured, the measured, expected and
 * margin cells (PURE). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_eval_priv.h"
#include "core/digits.h"
#include "core/units.h"

void nvs_ck_point_label(const nvs_rule *r, const point *p, int vs_baseline, char *buf, size_t len)
{
    char sz[32];
    const char *tail = vs_baseline ? " vs baseline" : "";
    if (p->empty) {
        snprintf(buf, len, "%s", r->text);
        return;
    }
    switch (r->metric) {
    case NVS_RULE_BUSBW:
        snprintf(buf, len, "busbw %s %s n=%d%s", p->coll, nvs_format_size(p->bytes, sz, sizeof sz), p->n, tail);
        break;
    case NVS_RULE_P2P:
        snprintf(buf, len, "p2p %s %d->%d%s", r->bidir ? "bidir" : "uni", p->src, p->dst, tail);
        break;
    case NVS_RULE_EFFICIENCY:
        if (p->labelled) snprintf(buf, len, "efficiency %s n=%d%s", p->model, p->n, tail);
        else snprintf(buf, len, "efficiency train n=%d%s", p->n, tail);
        break;
    default: buf[0] = '\0';
    }
}

/* Why a point has no measurement in a run. */
void nvs_ck_missing_text(const nvs_rule *r, const point *p, const nvs_run *run, char *buf, size_t len)
{
    int has_n = 0;
    size_t nns;
    int *ns = nvs_ck_run_ns(run, &nns);
    for (size_t i = 0; i < nns; i++) has_n |= ns[i] == p->n;
    free(ns);
    char sz[32], skipped[240];
    switch (r->metric) {
    case NVS_RULE_BUSBW: {
        /* a size the sweep left out as too small for the ranks (sweep.skipped): the left-out sizes are the plan's
         * smallest, so every planned size from its first to its last */
        const nvs_run_skip *k = NULL;
        for (size_t i = 0; !k && i < run->nskipped; i++) {
            const nvs_run_skip *e = &run->skipped[i];
            if (e->n == p->n && !strcmp(e->collective, p->coll) && !isnan(e->from_bytes) && !isnan(e->to_bytes) &&
                (double)p->bytes >= e->from_bytes && (double)p->bytes <= e->to_bytes)
                k = e;
        }
        if (k)
            snprintf(buf, len, "not measured: skipped by the sweep (%s at n=%d%s%s: %s)", p->coll, p->n,
                     k->type ? ", " : "", k->type ? k->type : "", k->why ? k->why : "too small for the ranks");
        else if (!has_n) snprintf(buf, len, "not measured: the run has no n=%d", p->n);
        else
            snprintf(buf, len, "not measured: no %s row of %s at n=%d%s", nvs_format_size(p->bytes, sz, sizeof sz),
                     p->coll, p->n, (r->type >= 0 || r->op >= 0 || r->inplace >= 0) ? " matching type/op/inplace" : "");
        break;
    }
    case NVS_RULE_P2P:
        if (!run->p2p.present) snprintf(buf, len, "not measured: the run has no p2p section");
        else if (!run->p2p.npairs && nvs_run_p2p_skipped(run, skipped, sizeof skipped))
            snprintf(buf, len, "not measured: %s", skipped);
        else snprintf(buf, len, "not measured: pair %d->%d is not in the p2p matrix", p->src, p->dst);
        break;
    case NVS_RULE_EFFICIENCY:
        if (!nvs_run_workloads(run)) snprintf(buf, len, "not measured: the run has no train section");
        else if (!nvs_ck_workload_of(run, p)) snprintf(buf, len, "not measured: the run did not train %s", p->model);
        else snprintf(buf, len, "not measured: no training result at n=%d", p->n);
        break;
    default: buf[0] = '\0';
    }
}

/* Fill measured/expected/margin of a row whose value and threshold are known. */
void nvs_ck_fill_values(nvs_verdict *v, const nvs_rule *r, double value, double expected)
{
    v->measured_v = value;
    v->expected_v = expected;
    v->margin_v = value - expected;
    if (r->metric == NVS_RULE_EFFICIENCY) {
        v->unit = "fraction";
        /* as many decimals as it takes for a value and its limit to read as they compare (core/digits.h) */
        int d = nvs_decimals_apart(value * 100, expected * 100, 1);
        snprintf(v->measured, sizeof v->measured, "%.*f%%", d, value * 100);
        snprintf(v->expected, sizeof v->expected, ">= %.*f%%", d, expected * 100);
        snprintf(v->margin, sizeof v->margin, "%+.*f pts", d, (value - expected) * 100);
    } else {
        v->unit = "GB/s";
        /* below 1 GB/s (host backends, tiny sizes) three significant digits: "0.0 GB/s >= 0.0 GB/s (+140.8%)"
         * said nothing; more where a value and its limit would print alike ("1.7 GB/s >= 1.7 GB/s" FAIL) */
        int sig = fabs(value) < 1 || fabs(expected) < 1;
        int p = sig ? nvs_digits_apart(value, expected, 3) : nvs_decimals_apart(value, expected, 1);
        const char *fm = sig ? "%.*g GB/s" : "%.*f GB/s";
        char e[40];
        snprintf(v->measured, sizeof v->measured, fm, p, value);
        snprintf(e, sizeof e, fm, p, expected);
        snprintf(v->expected, sizeof v->expected, ">= %.40s", e);
        const char *fmm = sig ? "%+.*g GB/s" : "%+.*f GB/s";
        char mg[40], pct[24];
        snprintf(mg, sizeof mg, fmm, p, value - expected);
        if (expected > 0)
            snprintf(v->margin, sizeof v->margin, "%s (%s)", mg,
                     nvs_signed_pct((value - expected) / expected * 100, pct, sizeof pct));
        else snprintf(v->margin, sizeof v->margin, "%s", mg);
    }
}

void nvs_ck_expected_only(nvs_verdict *v, const nvs_rule *r, double expected)
{
    v->expected_v = expected;
    if (r->metric == NVS_RULE_EFFICIENCY) snprintf(v->expected, sizeof v->expected, ">= %.1f%%", expected * 100);
    /* below 1 GB/s three significant digits, as fill_values says a measured row's limit: "%.1f" printed the
     * limit of a baseline's small sizes, not measured in the run, as ">= 0.0 GB/s" */
    else snprintf(v->expected, sizeof v->expected, fabs(expected) < 1 ? ">= %.3g GB/s" : ">= %.1f GB/s", expected);
}

/* A measured value that cannot be trusted: null or wrong results. Returns 1 when it wrote a failing row. */
int nvs_ck_unusable(nvs_verdict *v, const meas *m)
{
    if (m->wrong > 0) {
        snprintf(v->measured, sizeof v->measured, "wrong results");
        snprintf(v->note, sizeof v->note, "%lld wrong elements: validation failed, the bandwidth means nothing",
                 m->wrong);
        return 1;
    }
    if (m->null || isnan(m->value)) {
        snprintf(v->measured, sizeof v->measured, "not measured");
        snprintf(v->note, sizeof v->note, "the run records no value (null)");
        return 1;
    }
    return 0;
}
