/* Rules x run [x baseline] -> verdict rows (PURE). Semantics: check_eval.h and docs/check.md. */
#include "check/check_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check/check_eval_priv.h"
#include "collectives/coll.h"
#include "core/digits.h"

nvs_verdict *nvs_ck_new_row(nvs_verdicts *vs, const nvs_rule *r)
{
    nvs_verdict *v = nvs_verdicts_add(vs, !r                            ? "run"
                                          : r->metric == NVS_RULE_BUSBW ? "busbw"
                                          : r->metric == NVS_RULE_P2P   ? "p2p"
                                                                        : "efficiency");
    if (!v) return NULL;
    v->unit = !r ? "" : r->metric == NVS_RULE_EFFICIENCY ? "fraction" : "GB/s";
    if (r) nvs_rule_where(r, v->rule, sizeof v->rule);
    return v;
}

/* The run's value at point p: 1 when there is a usable one in *m; else the row is finished as FAIL ("not
 * measured", or why the value cannot be used) and 0 returned. */
static int measured_in_run(const nvs_rule *r, const nvs_run *run, const point *p, const variant *only, size_t nonly,
                           nvs_verdict *v, nvs_verdicts *vs, meas *m)
{
    *m = nvs_ck_measure(r, run, p, only, nonly);
    if (!m->found) {
        snprintf(v->measured, sizeof v->measured, "not measured");
        nvs_ck_missing_text(r, p, run, v->note, sizeof v->note);
        finish(vs, v, 0);
        return 0;
    }
    if (nvs_ck_unusable(v, m)) {
        /* busbw at one GPU is null by definition (nothing crosses a link): say that, not "records no value" (a
         * rule at n=max, as accept --print-rules writes them, lands there on a one-GPU run) */
        if (r->metric == NVS_RULE_BUSBW && p->n == 1 && !m->wrong)
            snprintf(v->note, sizeof v->note, "%s", "the run has one GPU at this point: one GPU has no bus bandwidth "
                                                    "(nothing crosses a link); run on two or more");
        if (m->self_ref)
            snprintf(v->note, sizeof v->note, "the run trained at no smaller N: n=%d is its own reference, so its "
                                              "100 %% is no scaling; train at 1 too (--gpus 1,..)", p->n);
        finish(vs, v, 0);
        return 0;
    }
    return 1;
}

/* The bound a point is held to by min_bound=: the ring's slowest hop at that N (busbw), the pair's link (p2p);
 * NAN when the run does not know it. */
static double point_bound(const nvs_rule *r, const nvs_run *run, const point *p)
{
    if (r->metric == NVS_RULE_BUSBW) {
        const nvs_run_explain *e = nvs_run_explain_of(run, p->n);
        if (e && e->has_hop && e->bound_gbps > 0) return e->bound_gbps;
    } else if (r->metric == NVS_RULE_P2P) {
        for (size_t i = 0; i < run->p2p.npairs; i++) {
            const nvs_run_p2p_pair *q = &run->p2p.pairs[i];
            if (q->src == p->src && q->dst == p->dst && q->bound_gbps > 0)
                return q->bound_gbps * (r->bidir ? 2 : 1); /* links are full duplex */
        }
    }
    return NAN;
}

/* The threshold of a point: min=, min_bound= of the point's bound, the higher of the two when both are given;
 * NAN (with why) when only min_bound= was given and the bound is unknown. */
static double point_threshold(const nvs_rule *r, const nvs_run *run, const point *p, char *why, size_t len)
{
    double t = r->has_min ? r->min : NAN;
    if (!r->has_min_bound) return t;
    double b = point_bound(r, run, p);
    if (isnan(b)) {
        if (isnan(t))
            snprintf(why, len, "the run has no bound for it (min_bound needs the topology%s; give min= instead)",
                     r->metric == NVS_RULE_BUSBW ? " and its explanation" : "");
        return t;
    }
    double e = b * r->min_bound_pct / 100;
    return isnan(t) || e > t ? e : t;
}

/* Who a row blames: the slowest rank (busbw) with its host and GPU, or the pair (p2p). */
static void blame(const nvs_rule *r, const nvs_run *run, const point *p, const meas *m, nvs_verdict *v)
{
    if (r->metric == NVS_RULE_P2P) {
        v->src = p->src;
        v->dst = p->dst;
        const char *h = run->host; /* the pair's own host (a multi-host run's pair is not rank 0's host's) */
        for (size_t i = 0; i < run->p2p.npairs; i++)
            if (run->p2p.pairs[i].src == p->src && run->p2p.pairs[i].dst == p->dst && run->p2p.pairs[i].host) {
                h = run->p2p.pairs[i].host;
                break;
            }
        snprintf(v->host, sizeof v->host, "%s", h ? h : "");
    } else if (r->metric == NVS_RULE_BUSBW && m->slowest_rank >= 0) {
        v->rank = m->slowest_rank;
        for (size_t i = 0; i < run->nranks; i++)
            if (run->ranks[i].rank == m->slowest_rank) {
                snprintf(v->host, sizeof v->host, "%s", run->ranks[i].host ? run->ranks[i].host : "");
                v->gpu = run->ranks[i].topo_gpu; /* the GPU in the topology, as every other row names GPUs */
            }
    }
}

static int eval_min(const nvs_rule *r, const nvs_run *run, nvs_verdicts *vs)
{
    points ps = {0};
    if (nvs_ck_expand(r, run, "the run", &ps)) goto nomem;
    for (size_t i = 0; i < ps.n; i++) {
        const point *p = &ps.v[i];
        nvs_verdict *v = nvs_ck_new_row(vs, r);
        if (!v) goto nomem;
        nvs_ck_point_label(r, p, 0, v->metric, sizeof v->metric);
        char why[192] = "";
        double thr = p->empty ? (r->has_min ? r->min : NAN) : point_threshold(r, run, p, why, sizeof why);
        if (!isnan(thr)) nvs_ck_expected_only(v, r, thr);
        if (p->empty) {
            snprintf(v->measured, sizeof v->measured, "not measured");
            snprintf(v->note, sizeof v->note, "not measured: %s", p->why);
            finish(vs, v, 0);
            continue;
        }
        meas m;
        if (!measured_in_run(r, run, p, NULL, 0, v, vs, &m)) continue;
        blame(r, run, p, &m, v);
        if (isnan(thr)) { /* min_bound alone and no bound: the threshold is unknown, which is not a pass */
            snprintf(v->measured, sizeof v->measured, "%.1f GB/s", m.value);
            v->measured_v = m.value;
            snprintf(v->note, sizeof v->note, "%s", why);
            finish(vs, v, 0);
            continue;
        }
        nvs_ck_fill_values(v, r, m.value, thr);
        if (r->has_min_bound && (!r->has_min || thr > r->min))
        { /* the threshold as fill_values printed it, with the digits that tell it from the value */
            char e[sizeof v->expected];
            snprintf(e, sizeof e, "%s", v->expected);
            snprintf(v->expected, sizeof v->expected, "%.24s (%g%% of %.1f)", e, r->min_bound_pct,
                     thr * 100 / r->min_bound_pct);
        }
        if (m.worst[0]) snprintf(v->note, sizeof v->note, "worst of %d rows: %s", m.rows, m.worst);
        /* --gpus 2,4: a threshold written for step(1)/step(N) meets step(2)/step(N); the row says which it is */
        if (r->metric == NVS_RULE_EFFICIENCY && m.ref_n > 1)
            snprintf(v->note, sizeof v->note, "step(%d)/step(N): the run has no N=1 step, so N=%d is the reference",
                     m.ref_n, m.ref_n);
        finish(vs, v, m.value >= thr);
    }
    free(ps.v);
    return 0;
nomem:
    free(ps.v);
    return -1;
}

static int eval_below(const nvs_rule *r, const nvs_run *run, const nvs_run *base, nvs_verdicts *vs)
{
    points ps = {0};
    if (!base) { /* callers refuse this earlier; a row rather than a crash if one does not */
        nvs_verdict *v = nvs_ck_new_row(vs, r);
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "%s", r->text);
        snprintf(v->measured, sizeof v->measured, "not measured");
        snprintf(v->note, sizeof v->note, "below_baseline needs a baseline (--baseline FILE)");
        finish(vs, v, 0);
        return 0;
    }
    if (nvs_ck_expand(r, base, "the baseline", &ps)) goto nomem;
    for (size_t i = 0; i < ps.n; i++) {
        const point *p = &ps.v[i];
        nvs_verdict *v = nvs_ck_new_row(vs, r);
        if (!v) goto nomem;
        nvs_ck_point_label(r, p, 1, v->metric, sizeof v->metric);
        if (p->empty) {
            snprintf(v->measured, sizeof v->measured, "not measured");
            snprintf(v->expected, sizeof v->expected, "<= %.1f%% below", r->below_pct);
            snprintf(v->note, sizeof v->note, "nothing to compare: %s", p->why);
            finish(vs, v, 0);
            continue;
        }
        meas b = nvs_ck_measure(r, base, p, NULL, 0);
        if (!b.found || b.null || isnan(b.value) || b.wrong > 0) {
            snprintf(v->measured, sizeof v->measured, "not measured");
            snprintf(v->expected, sizeof v->expected, "<= %.1f%% below", r->below_pct);
            if (!b.found) nvs_ck_missing_text(r, p, base, v->note, sizeof v->note);
            else snprintf(v->note, sizeof v->note, "the baseline's value is %s",
                          b.wrong > 0 ? "from wrong results" : "null");
            if (!b.found) { /* "not measured: ..." -> "not in the baseline: ..." */
                char tmp[sizeof v->note];
                snprintf(tmp, sizeof tmp, "not in the baseline:%s", strchr(v->note, ':') + 1);
                snprintf(v->note, sizeof v->note, "%s", tmp);
            }
            finish(vs, v, 0);
            continue;
        }
        double expected = b.value * (1 - r->below_pct / 100);
        nvs_ck_expected_only(v, r, expected);
        /* like with like: the run's rows of the data types, reductions and placements the baseline measured here,
         * each of them (a run of -d half held to a float baseline, or of float alone to one of float and double,
         * or of --inplace in to an out-of-place baseline, passed on a number of another measurement without a
         * word) */
        variant bv[MAX_VARIANTS], rv[MAX_VARIANTS];
        size_t nb = r->metric == NVS_RULE_BUSBW ? nvs_ck_variants_at(r, base, p, bv, MAX_VARIANTS) : 0;
        size_t nr = nb ? nvs_ck_variants_at(r, run, p, rv, MAX_VARIANTS) : 0, lacks = 0;
        for (size_t k = 0; k < nb && nr; k++)
            lacks += !nvs_ck_variant_of(rv, nr, &(nvs_run_coll){.type = bv[k].type, .op = bv[k].op,
                                                         .inplace = bv[k].inplace});
        if (lacks) {
            char bt[160], rt[160];
            nvs_ck_variants_text(bv, nb, bt, sizeof bt);
            nvs_ck_variants_text(rv, nr, rt, sizeof rt);
            snprintf(v->measured, sizeof v->measured, "not comparable");
            snprintf(v->note, sizeof v->note,
                     "the baseline measured %.130s here, the run %.130s: measure the baseline's data types, "
                     "reductions and placements (-d, -o, --inplace)", bt, rt);
            finish(vs, v, 0);
            continue;
        }
        meas m;
        if (!measured_in_run(r, run, p, bv, nb, v, vs, &m)) continue;
        if (nb > 1) { /* each variant against the baseline's of the same: the one furthest below it is the verdict
                       * (the run's worst row against the baseline's worst row set an out-of-place number against
                       * an in-place one) */
            double worst = -INFINITY;
            for (size_t k = 0; k < nb; k++) {
                meas bk = nvs_ck_measure(r, base, p, &bv[k], 1), rk = nvs_ck_measure(r, run, p, &bv[k], 1);
                double below_k = bk.value > 0 ? (bk.value - rk.value) / bk.value : 0;
                if (!(below_k > worst)) continue;
                worst = below_k;
                b.value = bk.value;
                m.value = rk.value;
                nvs_ck_variants_text(&bv[k], 1, m.worst, sizeof m.worst);
            }
            m.rows = (int)nb;
            expected = b.value * (1 - r->below_pct / 100);
        }
        nvs_ck_fill_values(v, r, m.value, expected);
        /* step(1)/step(N) against step(2)/step(N) is no comparison: the one measured from 2 GPUs reads higher */
        if (r->metric == NVS_RULE_EFFICIENCY && m.ref_n != b.ref_n) {
            snprintf(v->note, sizeof v->note, "not comparable: the run's efficiency is step(%d)/step(N), the "
                     "baseline's step(%d)/step(N); measure both from the same smallest N (--gpus)", m.ref_n, b.ref_n);
            finish(vs, v, 0);
            continue;
        }
        double below = b.value > 0 ? (b.value - m.value) / b.value * 100 : 0;
        int dp = nvs_decimals_apart(below, r->below_pct, 1); /* "5.0% below it (limit 5.0%)" read as within it */
        if (r->metric == NVS_RULE_EFFICIENCY)
            snprintf(v->note, sizeof v->note, "baseline %.1f%%, %.*f%% %s it (limit %.*f%%)", b.value * 100, dp,
                     fabs(below), below >= 0 ? "below" : "above", dp, r->below_pct);
        else { /* below 1 GB/s (a host backend's small sizes) three digits, as expected_only says the limit:
                * "%.1f" printed 0.0508 as "baseline 0.1 GB/s" beside ">= 0.0483 GB/s" */
            char bv[32];
            snprintf(bv, sizeof bv, fabs(b.value) < 1 ? "%.3g" : "%.1f", b.value);
            snprintf(v->note, sizeof v->note, "baseline %s GB/s, %.*f%% %s it (limit %.*f%%)", bv, dp, fabs(below),
                     below >= 0 ? "below" : "above", dp, r->below_pct);
        }
        if (m.worst[0])
            snprintf(v->note + strlen(v->note), sizeof v->note - strlen(v->note), "; worst of %d %s: %s", m.rows,
                     nb > 1 ? "variants" : "rows", m.worst);
        finish(vs, v, m.value >= expected);
    }
    free(ps.v);
    return 0;
nomem:
    free(ps.v);
    return -1;
}

int nvs_check_eval(const nvs_ruleset *rules, const nvs_run *run, const nvs_run *base, nvs_verdicts *out)
{
    /* appends: check with several runs (the fleet view) evaluates each into one list. Zeroing `out` here lost
     * the rows of the runs before and leaked their storage (ASan, make check SAN=address: check_fleet.sh) */
    if (nvs_ck_run_rows(run, out)) return -1;
    for (size_t i = 0; i < rules->n; i++) {
        const nvs_rule *r = &rules->v[i];
        size_t first = out->n;
        if (r->metric > NVS_RULE_EFFICIENCY) continue; /* health, host, sustain, gpu, gpus: check_accept.c */
        if ((r->has_min || r->has_min_bound) && eval_min(r, run, out)) return -1;
        if (r->has_below && eval_below(r, run, base, out)) return -1;
        for (size_t k = first; r->warn_only && k < out->n; k++) /* severity=warn: a miss of this rule warns */
            if (out->v[k].severity == NVS_SEV_FAIL) {
                out->v[k].severity = NVS_SEV_WARN;
                out->v[k].pass = 1;
                out->failed--;
                out->warned++;
            }
    }
    return 0;
}

nvs_result_t nvs_check_run_names(nvs_run *run, char *err, size_t errlen)
{
    for (size_t i = 0; i < run->ncolls; i++) {
        const nvs_coll *k = nvs_coll_find(run->colls[i].collective);
        if (!k) {
            snprintf(err, errlen, "collectives[%zu].collective: unknown collective '%s'", i,
                     run->colls[i].collective);
            return NVS_ERR_INPUT;
        }
        run->colls[i].collective = k->name; /* static: outlives the document */
    }
    return NVS_OK;
}
