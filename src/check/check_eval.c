/* Rules x run [x baseline] -> verdict rows (PURE). Semantics: check_eval.h and docs/check.md. */
#include "check/check_eval.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/digits.h"
#include "collectives/coll.h"
#include "core/dtype.h"
#include "core/units.h"
#include "fleet/fleet.h"
#include "runjson/sanity.h"

/* A string of the run that may be absent (NULL) as text. */
static const char *str(const char *s) { return s ? s : ""; }

/* The GPU counts a run measured at, ascending (nvs_run_ns: collectives, training, scaling, transports). NULL with
 * *n = 0 when out of memory; the callers then see a run that measured nothing. */
static int *run_ns(const nvs_run *run, size_t *n)
{
    int *ns = NULL;
    int k = nvs_run_ns(run, &ns);
    *n = k > 0 ? (size_t)k : 0;
    return ns;
}

/* One thing a rule demands: a (collective, N, size), a GPU pair, or a training N. `empty` = the rule selected
 * nothing at all in the reference run; `why` says what was missing. */
typedef struct {
    char coll[32];
    char model[64]; /* efficiency: the workload (its model); "" when the reference names none */
    int labelled;   /* efficiency: the reference trained several workloads, so the row names this one */
    int n;
    size_t bytes;
    int src, dst;
    int empty;
    char why[160];
} point;

typedef struct {
    point *v;
    size_t n, cap;
} points;

/* What a run holds for a point. */
typedef struct {
    int found;   /* at least one row matches */
    int rows;    /* how many (busbw: in-place/out-of-place, types, ops) */
    int mixed_type; /* the rows differ in type or op */
    char worst[48]; /* the variant the value comes from: "in-place", "out-of-place half max" */
    int null;    /* a matching row has no value */
    int self_ref; /* efficiency: the point is its own reference (--gpus 2 alone): its 100 % is no scaling */
    int ref_n;    /* efficiency: the N it is relative to, step(ref_n) / step(N) (1 in runs without the key) */
    double value;
    long long wrong; /* summed wrong elements of the matching rows (0 when unchecked) */
    int slowest_rank; /* busbw: the slowest rank of the row the value comes from; -1 unknown */
} meas;

static int push(points *ps, const point *p)
{
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 16;
        point *v = realloc(ps->v, cap * sizeof *v);
        if (!v) return -1;
        ps->v = v;
        ps->cap = cap;
    }
    ps->v[ps->n++] = *p;
    return 0;
}

static int push_empty(points *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int push_empty(points *ps, const char *fmt, ...)
{
    point p = {.empty = 1, .src = -1, .dst = -1};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p.why, sizeof p.why, fmt, ap);
    va_end(ap);
    return push(ps, &p);
}

/* Whether row c measured the sweep size `size`: its run.json "size" (or bytes) is that size, or (a file written
 * before "size") its bytes are that size as the collective rounds it
 * at the row's N (collectives/coll.h: all_gather, reduce_scatter and alltoall keep whole 16-byte blocks per rank,
 * as nccl-tests does, so 1 GiB of float is 1073741808 B at N=3, while the rule says 1G: accept's `busbw
 * all_gather size=1G n=max` read "not measured", a FAIL, on every machine of 3, 5, 6 or 7 GPUs). */
static int row_of_size(const nvs_run_coll *c, size_t size)
{
    if (c->size == (double)size || c->bytes == (double)size) return 1;
    const nvs_coll *k = nvs_coll_find(c->collective);
    int t = c->type ? nvs_dtype_parse(c->type) : -1;
    nvs_coll_counts cc;
    return k && t >= 0 && k->counts(size, nvs_dtype_size((nvs_dtype)t), c->n, 0, &cc) == 0 &&
           c->bytes == (double)cc.bytes;
}

static int row_matches(const nvs_rule *r, const nvs_run_coll *c)
{
    if (r->type >= 0 && nvs_dtype_parse(str(c->type)) != r->type) return 0;
    if (r->op >= 0 && nvs_redop_parse(str(c->op)) != r->op) return 0;
    if (r->inplace >= 0 && c->inplace != r->inplace) return 0;
    return 1;
}

/* The workload of `run` that an efficiency point is about: a run of one workload is compared as it is (as
 * before runs named their workloads); in a run of several, the one of the point's model (NULL: not trained). */
static const nvs_run_train *workload_of(const nvs_run *run, const point *p)
{
    if (nvs_run_workloads(run) <= 1 || !p->model[0]) return nvs_run_workload(run, 0);
    return nvs_run_workload_named(run, p->model);
}

/* A busbw row's data type, reduction ("float", "sum"; op "none" where nothing is reduced) and placement (in- or
 * out-of-place: NCCL's in-place all_reduce reads and writes one buffer and can run at another speed): what a
 * baseline's row must be compared with. */
typedef struct {
    const char *type, *op;
    int inplace;
} variant;
#define MAX_VARIANTS 128 /* types x ops x placements of one (collective, N, size): 10 x 5 x 2 = 100 in a sweep of
                          * every one (-d all -o all --inplace both) */

static int variant_of(const variant *v, size_t n, const nvs_run_coll *c)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].type, str(c->type)) && !strcmp(v[i].op, str(c->op)) && v[i].inplace == c->inplace)
            return 1;
    return 0;
}

/* The variants of the rows of `run` at busbw point p that rule r selects, each once, in file order; how many. */
static size_t variants_at(const nvs_rule *r, const nvs_run *run, const point *p, variant *v, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < run->ncolls && k < cap; i++) {
        const nvs_run_coll *c = &run->colls[i];
        if (strcmp(c->collective, p->coll) || c->n != p->n || !row_of_size(c, p->bytes) || !row_matches(r, c) ||
            variant_of(v, k, c))
            continue;
        v[k++] = (variant){str(c->type), str(c->op), c->inplace};
    }
    return k;
}

/* "float sum out-of-place, half sum in-place" */
static void variants_text(const variant *v, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s%s%s %s", i ? ", " : "", v[i].type,
                 strcmp(v[i].op, "none") && v[i].op[0] ? " " : "", strcmp(v[i].op, "none") ? v[i].op : "",
                 v[i].inplace ? "in-place" : "out-of-place");
}

/* What run holds at point p for rule r; busbw rows of a variant outside `only` (nonly > 0) are left out: compared
 * with a baseline, the run's rows of the baseline's variants alone. */
static meas measure_only(const nvs_rule *r, const nvs_run *run, const point *p, const variant *only, size_t nonly)
{
    meas m = {.value = NAN, .slowest_rank = -1};
    const nvs_run_coll *first = NULL, *worst = NULL;
    switch (r->metric) {
    case NVS_RULE_BUSBW:
        for (size_t i = 0; i < run->ncolls; i++) {
            const nvs_run_coll *c = &run->colls[i];
            if (strcmp(c->collective, p->coll) || c->n != p->n || !row_of_size(c, p->bytes) || !row_matches(r, c) ||
                (nonly && !variant_of(only, nonly, c)))
                continue;
            if (m.found && (strcmp(str(c->type), str(first->type)) || strcmp(str(c->op), str(first->op))))
                m.mixed_type = 1;
            if (!m.found) first = c;
            m.found = 1;
            m.rows++;
            if (isnan(c->busbw_gbps)) m.null = 1;
            else if (isnan(m.value) || c->busbw_gbps < m.value) { /* the worst variant */
                m.value = c->busbw_gbps;
                worst = c;
            }
            if (c->wrong > 0) m.wrong += c->wrong;
        }
        if (worst) m.slowest_rank = worst->slowest_rank;
        if (worst && m.rows > 1) {
            snprintf(m.worst, sizeof m.worst, "%s", worst->inplace ? "in-place" : "out-of-place");
            if (m.mixed_type)
                snprintf(m.worst + strlen(m.worst), sizeof m.worst - strlen(m.worst), " %s %s", str(worst->type),
                         str(worst->op));
        }
        break;
    case NVS_RULE_P2P:
        for (size_t i = 0; i < run->p2p.npairs; i++) {
            const nvs_run_p2p_pair *q = &run->p2p.pairs[i];
            if (q->src != p->src || q->dst != p->dst) continue;
            double v = r->bidir ? q->bidir_gbps : q->uni_gbps;
            m.found = 1;
            if (isnan(v)) m.null = 1;
            else if (isnan(m.value) || v < m.value) m.value = v;
            if (q->wrong > 0) m.wrong += q->wrong;
        }
        break;
    case NVS_RULE_EFFICIENCY: {
        const nvs_run_train *tr = workload_of(run, p);
        for (size_t i = 0; tr && i < tr->nresults; i++) {
            const nvs_run_train_result *t = &tr->results[i];
            if (t->n != p->n) continue;
            m.found = 1;
            m.ref_n = t->reference_n > 0 ? t->reference_n : 1;
            if (t->n > 1 && t->reference_n == t->n) m.null = m.self_ref = 1;
            else if (isnan(t->efficiency)) m.null = 1;
            else if (isnan(m.value) || t->efficiency < m.value) m.value = t->efficiency;
        }
        break;
    }
    default: break;
    }
    return m;
}

static meas measure(const nvs_rule *r, const nvs_run *run, const point *p) { return measure_only(r, run, p, NULL, 0); }

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The GPU counts a rule's n= selects from a list of measured counts (ascending). */
static size_t select_ns(int rule_n, const int *ns, size_t nns, int *out)
{
    size_t k = 0;
    if (rule_n >= 1) out[k++] = rule_n;
    else if (rule_n == NVS_RULE_N_MAX) {
        if (nns) out[k++] = ns[nns - 1];
    } else
        for (size_t i = 0; i < nns; i++)
            if (ns[i] >= 2) out[k++] = ns[i];
    return k;
}

static const char *n_text(int n, char *buf, size_t len)
{
    if (n == NVS_RULE_N_ALL) return "*";
    if (n == NVS_RULE_N_MAX) return "max";
    snprintf(buf, len, "%d", n);
    return buf;
}

static int expand_busbw(const nvs_rule *r, const nvs_run *ref, const char *what, points *ps)
{
    /* collectives: the rule's, or every one the reference measured, in the order it measured them */
    char colls[16][32];
    int ncolls = 0;
    if (r->coll[0]) snprintf(colls[ncolls++], sizeof colls[0], "%s", r->coll);
    else
        for (size_t i = 0; i < ref->ncolls && ncolls < 16; i++) {
            int seen = 0;
            for (int k = 0; k < ncolls; k++) seen |= !strcmp(colls[k], ref->colls[i].collective);
            if (!seen) snprintf(colls[ncolls++], sizeof colls[0], "%s", ref->colls[i].collective);
        }
    if (!ncolls) return push_empty(ps, "%s measured no collective", what);

    size_t before = ps->n, nref;
    int *ref_ns = run_ns(ref, &nref);
    int *ns = calloc(nref + 1, sizeof *ns);
    size_t *sizes = calloc(ref->ncolls + 1, sizeof *sizes);
    int res = -1;
    if (!ref_ns || !ns || !sizes) goto out;
    size_t nsel = select_ns(r->n, ref_ns, nref, ns);
    if (!nsel) {
        char b[16];
        res = push_empty(ps, "%s has no GPU count for n=%s (it measured %s)", what, n_text(r->n, b, sizeof b),
                         nref ? "only N = 1" : "none");
        goto out;
    }
    for (int ci = 0; ci < ncolls; ci++)
        for (size_t ni = 0; ni < nsel; ni++) {
            point p = {.n = ns[ni], .src = -1, .dst = -1};
            memcpy(p.coll, colls[ci], sizeof p.coll);
            if (!r->coll[0]) { /* `*`: only the (collective, N) pairs the reference measured at all */
                int any = 0;
                for (size_t i = 0; i < ref->ncolls && !any; i++)
                    any = ref->colls[i].n == p.n && !strcmp(ref->colls[i].collective, p.coll);
                if (!any) continue;
            }
            if (r->size_exact) {
                p.bytes = r->size_lo;
                if (push(ps, &p)) goto out;
                continue;
            }
            size_t k = 0;
            for (size_t i = 0; i < ref->ncolls; i++) {
                const nvs_run_coll *c = &ref->colls[i];
                size_t bytes = (size_t)c->bytes; /* an integer: the reader checked */
                if (strcmp(c->collective, p.coll) || c->n != p.n || bytes < r->size_lo || bytes > r->size_hi ||
                    !row_matches(r, c))
                    continue;
                int seen = 0;
                for (size_t j = 0; j < k; j++) seen |= sizes[j] == bytes;
                if (!seen) sizes[k++] = bytes;
            }
            if (!k) {
                char lo[32], hi[32], range[80];
                nvs_format_size(r->size_lo, lo, sizeof lo);
                nvs_format_size(r->size_hi, hi, sizeof hi);
                if (r->size_hi == (size_t)-1 && r->size_lo == 0) snprintf(range, sizeof range, "of any size");
                else if (r->size_hi == (size_t)-1) snprintf(range, sizeof range, "with size >= %s", lo);
                else if (r->size_lo == 0) snprintf(range, sizeof range, "with size <= %s", hi);
                else snprintf(range, sizeof range, "with size in [%s, %s]", lo, hi);
                p.empty = 1;
                snprintf(p.why, sizeof p.why, "%s has no %s row at n=%d %s%s", what, p.coll, p.n, range,
                         (r->type >= 0 || r->op >= 0 || r->inplace >= 0) ? " matching type/op/inplace" : "");
                if (push(ps, &p)) goto out;
                continue;
            }
            qsort(sizes, k, sizeof *sizes, cmp_size);
            for (size_t j = 0; j < k; j++) {
                p.bytes = sizes[j];
                if (push(ps, &p)) goto out;
            }
        }
    if (ps->n == before) { /* `*` matched nothing at any selected N */
        char b[16];
        res = push_empty(ps, "%s has no collective row at n=%s", what, n_text(r->n, b, sizeof b));
        goto out;
    }
    res = 0;
out:
    free(ref_ns);
    free(ns);
    free(sizes);
    return res;
}

static int expand_p2p(const nvs_rule *r, const nvs_run *ref, const char *what, points *ps)
{
    if (!ref->p2p.present) return push_empty(ps, "%s has no p2p section (nvscale p2p measures it)", what);
    if (r->src >= 0) {
        point p = {.src = r->src, .dst = r->dst};
        return push(ps, &p);
    }
    char skipped[160];
    if (!ref->p2p.npairs && nvs_run_p2p_skipped(ref, skipped, sizeof skipped)) /* the host that skipped them says why */
        return push_empty(ps, "%s measured no GPU pair: %.130s", what, skipped);
    if (!ref->p2p.npairs) return push_empty(ps, "%s measured no GPU pair", what);
    for (size_t i = 0; i < ref->p2p.npairs; i++) {
        point p = {.src = ref->p2p.pairs[i].src, .dst = ref->p2p.pairs[i].dst};
        int seen = 0;
        for (size_t k = 0; k < ps->n; k++) seen |= ps->v[k].src == p.src && ps->v[k].dst == p.dst;
        if (!seen && push(ps, &p)) return -1;
    }
    return 0;
}

/* One point per (workload, N) of the reference: every workload the run trained is held to the rule, not only
 * the first ("train"): `--model bert-large,resnet50` with resnet50 at 88 % passed min=90% on bert-large's 97 %. */
static int expand_eff(const nvs_rule *r, const nvs_run *ref, const char *what, points *ps)
{
    size_t nw = nvs_run_workloads(ref);
    if (!nw) return push_empty(ps, "%s has no train section (nvscale train or run --model)", what);
    for (size_t w = 0; w < nw; w++) {
        const nvs_run_train *tr = nvs_run_workload(ref, w);
        int *ns = calloc(tr->nresults + 1, sizeof *ns), *sel = calloc(tr->nresults + 1, sizeof *sel);
        int res = -1;
        size_t k = 0;
        if (!ns || !sel) goto next;
        for (size_t i = 0; i < tr->nresults; i++) {
            int seen = 0;
            for (size_t j = 0; j < k; j++) seen |= ns[j] == tr->results[i].n;
            if (!seen) ns[k++] = tr->results[i].n;
        }
        for (size_t i = 1; i < k; i++) /* ascending (insertion sort: a handful of counts) */
            for (size_t j = i; j > 0 && ns[j - 1] > ns[j]; j--) {
                int t = ns[j];
                ns[j] = ns[j - 1];
                ns[j - 1] = t;
            }
        size_t nsel = select_ns(r->n, ns, k, sel);
        if (!nsel) {
            char b[16];
            res = push_empty(ps, "%s has no training result%s%s for n=%s", what, nw > 1 ? " of " : "",
                             nw > 1 ? str(tr->model) : "", n_text(r->n, b, sizeof b));
            goto next;
        }
        res = 0;
        for (size_t i = 0; i < nsel && !res; i++) {
            point p = {.n = sel[i], .src = -1, .dst = -1, .labelled = nw > 1};
            snprintf(p.model, sizeof p.model, "%s", str(tr->model));
            res = push(ps, &p);
        }
    next:
        free(ns);
        free(sel);
        if (res) return -1;
    }
    return 0;
}

static int expand(const nvs_rule *r, const nvs_run *ref, const char *what, points *ps)
{
    switch (r->metric) {
    case NVS_RULE_BUSBW: return expand_busbw(r, ref, what, ps);
    case NVS_RULE_P2P: return expand_p2p(r, ref, what, ps);
    case NVS_RULE_EFFICIENCY: return expand_eff(r, ref, what, ps);
    default: return 0;
    }
}

static nvs_verdict *new_row(nvs_verdicts *vs, const nvs_rule *r)
{
    nvs_verdict *v = nvs_verdicts_add(vs, !r ? "run" : r->metric == NVS_RULE_BUSBW ? "busbw" : r->metric == NVS_RULE_P2P ? "p2p" : "efficiency");
    if (!v) return NULL;
    v->unit = !r ? "" : r->metric == NVS_RULE_EFFICIENCY ? "fraction" : "GB/s";
    if (r) nvs_rule_where(r, v->rule, sizeof v->rule);
    return v;
}

static void finish(nvs_verdicts *vs, nvs_verdict *v, int pass) { nvs_verdict_set(vs, v, pass ? NVS_SEV_PASS : NVS_SEV_FAIL); }

static void point_label(const nvs_rule *r, const point *p, int vs_baseline, char *buf, size_t len)
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
static void missing_text(const nvs_rule *r, const point *p, const nvs_run *run, char *buf, size_t len)
{
    int has_n = 0;
    size_t nns;
    int *ns = run_ns(run, &nns);
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
        else if (!workload_of(run, p)) snprintf(buf, len, "not measured: the run did not train %s", p->model);
        else snprintf(buf, len, "not measured: no training result at n=%d", p->n);
        break;
    default: buf[0] = '\0';
    }
}

/* Fill measured/expected/margin of a row whose value and threshold are known. */
static void fill_values(nvs_verdict *v, const nvs_rule *r, double value, double expected)
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
            snprintf(v->margin, sizeof v->margin, "%s (%s)", mg, nvs_signed_pct((value - expected) / expected * 100, pct, sizeof pct));
        else snprintf(v->margin, sizeof v->margin, "%s", mg);
    }
}

static void expected_only(nvs_verdict *v, const nvs_rule *r, double expected)
{
    v->expected_v = expected;
    if (r->metric == NVS_RULE_EFFICIENCY) snprintf(v->expected, sizeof v->expected, ">= %.1f%%", expected * 100);
    /* below 1 GB/s three significant digits, as fill_values says a measured row's limit: "%.1f" printed the
     * limit of a baseline's small sizes, not measured in the run, as ">= 0.0 GB/s" */
    else snprintf(v->expected, sizeof v->expected, fabs(expected) < 1 ? ">= %.3g GB/s" : ">= %.1f GB/s", expected);
}

/* A measured value that cannot be trusted: null or wrong results. Returns 1 when it wrote a failing row. */
static int unusable(nvs_verdict *v, const meas *m)
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

/* The run's value at point p: 1 when there is a usable one in *m; else the row is finished as FAIL ("not
 * measured", or why the value cannot be used) and 0 returned. */
static int measured_in_run(const nvs_rule *r, const nvs_run *run, const point *p, const variant *only, size_t nonly,
                           nvs_verdict *v, nvs_verdicts *vs, meas *m)
{
    *m = measure_only(r, run, p, only, nonly);
    if (!m->found) {
        snprintf(v->measured, sizeof v->measured, "not measured");
        missing_text(r, p, run, v->note, sizeof v->note);
        finish(vs, v, 0);
        return 0;
    }
    if (unusable(v, m)) {
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
    if (expand(r, run, "the run", &ps)) goto nomem;
    for (size_t i = 0; i < ps.n; i++) {
        const point *p = &ps.v[i];
        nvs_verdict *v = new_row(vs, r);
        if (!v) goto nomem;
        point_label(r, p, 0, v->metric, sizeof v->metric);
        char why[192] = "";
        double thr = p->empty ? (r->has_min ? r->min : NAN) : point_threshold(r, run, p, why, sizeof why);
        if (!isnan(thr)) expected_only(v, r, thr);
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
        fill_values(v, r, m.value, thr);
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
        nvs_verdict *v = new_row(vs, r);
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "%s", r->text);
        snprintf(v->measured, sizeof v->measured, "not measured");
        snprintf(v->note, sizeof v->note, "below_baseline needs a baseline (--baseline FILE)");
        finish(vs, v, 0);
        return 0;
    }
    if (expand(r, base, "the baseline", &ps)) goto nomem;
    for (size_t i = 0; i < ps.n; i++) {
        const point *p = &ps.v[i];
        nvs_verdict *v = new_row(vs, r);
        if (!v) goto nomem;
        point_label(r, p, 1, v->metric, sizeof v->metric);
        if (p->empty) {
            snprintf(v->measured, sizeof v->measured, "not measured");
            snprintf(v->expected, sizeof v->expected, "<= %.1f%% below", r->below_pct);
            snprintf(v->note, sizeof v->note, "nothing to compare: %s", p->why);
            finish(vs, v, 0);
            continue;
        }
        meas b = measure(r, base, p);
        if (!b.found || b.null || isnan(b.value) || b.wrong > 0) {
            snprintf(v->measured, sizeof v->measured, "not measured");
            snprintf(v->expected, sizeof v->expected, "<= %.1f%% below", r->below_pct);
            if (!b.found) missing_text(r, p, base, v->note, sizeof v->note);
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
        expected_only(v, r, expected);
        /* like with like: the run's rows of the data types, reductions and placements the baseline measured here,
         * each of them (a run of -d half held to a float baseline, or of float alone to one of float and double,
         * or of --inplace in to an out-of-place baseline, passed on a number of another measurement without a
         * word) */
        variant bv[MAX_VARIANTS], rv[MAX_VARIANTS];
        size_t nb = r->metric == NVS_RULE_BUSBW ? variants_at(r, base, p, bv, MAX_VARIANTS) : 0;
        size_t nr = nb ? variants_at(r, run, p, rv, MAX_VARIANTS) : 0, lacks = 0;
        for (size_t k = 0; k < nb && nr; k++)
            lacks += !variant_of(rv, nr, &(nvs_run_coll){.type = bv[k].type, .op = bv[k].op,
                                                         .inplace = bv[k].inplace});
        if (lacks) {
            char bt[160], rt[160];
            variants_text(bv, nb, bt, sizeof bt);
            variants_text(rv, nr, rt, sizeof rt);
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
                meas bk = measure_only(r, base, p, &bv[k], 1), rk = measure_only(r, run, p, &bv[k], 1);
                double below_k = bk.value > 0 ? (bk.value - rk.value) / bk.value : 0;
                if (!(below_k > worst)) continue;
                worst = below_k;
                b.value = bk.value;
                m.value = rk.value;
                variants_text(&bv[k], 1, m.worst, sizeof m.worst);
            }
            m.rows = (int)nb;
            expected = b.value * (1 - r->below_pct / 100);
        }
        fill_values(v, r, m.value, expected);
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

static int eval_status(const nvs_run *run, nvs_verdicts *vs)
{
    nvs_verdict *v = new_row(vs, NULL);
    if (!v) return -1;
    snprintf(v->metric, sizeof v->metric, "run result");
    snprintf(v->expected, sizeof v->expected, "ok");
    snprintf(v->rule, sizeof v->rule, "(always)");
    const char *status = run->result_status;
    if (!status) {
        snprintf(v->measured, sizeof v->measured, "none");
        snprintf(v->note, sizeof v->note, "the run has no result section: it did not finish");
        finish(vs, v, 0);
        return 0;
    }
    snprintf(v->measured, sizeof v->measured, "%s", status);
    if (strcmp(status, "ok")) {
        if (run->result_wrong_total > 0)
            snprintf(v->note, sizeof v->note, "%lld wrong elements in the run", run->result_wrong_total);
        else if (!strcmp(status, "interrupted") || !strcmp(status, "running"))
            snprintf(v->note, sizeof v->note, "the run was %s: only what it measured before is judged",
                     !strcmp(status, "running") ? "cut short (a checkpoint)" : "interrupted");
        else
            snprintf(v->note, sizeof v->note, "the run reported status '%s'%s%.120s", status,
                     run->result_reason ? ": " : "", run->result_reason ? run->result_reason : "");
    }
    finish(vs, v, !strcmp(status, "ok"));
    return 0;
}

int nvs_check_run_wrong(nvs_verdicts *vs)
{
    nvs_verdict *v = NULL;
    for (size_t i = 0; i < vs->n && !v; i++)
        if (!strcmp(vs->v[i].kind, "run") && !strcmp(vs->v[i].metric, "run result")) v = &vs->v[i];
    if (v && v->severity == NVS_SEV_FAIL) return 0; /* it says so already, and why */
    if (!v) {
        if (!(v = new_row(vs, NULL))) return -1;
        snprintf(v->metric, sizeof v->metric, "run result");
        snprintf(v->expected, sizeof v->expected, "ok");
        snprintf(v->rule, sizeof v->rule, "(always)");
    } else if (v->severity == NVS_SEV_WARN) /* recounted below as the FAIL it is */
        vs->warned--;
    else if (v->severity == NVS_SEV_SKIP)
        vs->skipped--;
    char was[sizeof v->measured];
    snprintf(was, sizeof was, "%s", v->measured[0] ? v->measured : "no status");
    snprintf(v->measured, sizeof v->measured, "wrong");
    snprintf(v->note, sizeof v->note, "the run's own result check found wrong elements (exit 3: see its messages), "
             "though its run.json says '%.60s'", was);
    finish(vs, v, 0);
    return 0;
}

/* Numbers of the run that cannot be right as they stand (runjson/sanity.h): a WARN row each, whatever the rules
 * ask, so that check never passes over them in silence (efficiency 146 % from a tiny profile did) */
static int eval_sanity(const nvs_run *run, nvs_verdicts *vs)
{
    nvs_sanity s[16];
    size_t n = nvs_sanity_of(run, s, 16);
    for (size_t i = 0; i < n && i < 16; i++) {
        nvs_verdict *v = nvs_verdicts_add(vs, "sanity");
        if (!v) return -1;
        int eff = !strcmp(s[i].kind, "efficiency");
        snprintf(v->metric, sizeof v->metric, "sanity: %s", s[i].what);
        if (!strcmp(s[i].kind, "unvalidated")) {
            snprintf(v->measured, sizeof v->measured, "%.0f rows not validated", s[i].value);
            snprintf(v->expected, sizeof v->expected, "validated (-c 1)");
        } else {
            double k = eff ? 100 : 1; /* a value over its limit must not print as the limit */
            int d = nvs_decimals_apart(k * s[i].value, k * s[i].limit, 1);
            snprintf(v->measured, sizeof v->measured, eff ? "%.*f%%" : "%.*f GB/s", d, k * s[i].value);
            snprintf(v->expected, sizeof v->expected, eff ? "<= %.*f%%" : "<= %.*f GB/s", d, k * s[i].limit);
            v->measured_v = s[i].value;
            v->expected_v = s[i].limit;
        }
        snprintf(v->note, sizeof v->note, "%s", s[i].text);
        nvs_fleet_hosts_of(run, NULL, 0, v->host, sizeof v->host); /* the run's: every host of it */
        snprintf(v->rule, sizeof v->rule, "(always)");
        nvs_verdict_set(vs, v, NVS_SEV_WARN);
    }
    if (n > 16) {
        nvs_verdict *v = nvs_verdicts_add(vs, "sanity");
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "sanity: %zu more", n - 16);
        snprintf(v->measured, sizeof v->measured, "-");
        snprintf(v->expected, sizeof v->expected, "-");
        snprintf(v->note, sizeof v->note, "%zu more numbers above what their run allows (see nvscale report)", n - 16);
        snprintf(v->rule, sizeof v->rule, "(always)");
        nvs_verdict_set(vs, v, NVS_SEV_WARN);
    }
    return 0;
}

int nvs_check_eval(const nvs_ruleset *rules, const nvs_run *run, const nvs_run *base, nvs_verdicts *out)
{
    /* appends: check with several runs (the fleet view) evaluates each into one list. Zeroing `out` here lost
     * the rows of the runs before and leaked their storage (ASan, make check SAN=address: check_fleet.sh) */
    if (eval_status(run, out) || eval_sanity(run, out)) return -1;
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

void nvs_verdicts_free(nvs_verdicts *v)
{
    free(v->v);
    memset(v, 0, sizeof *v);
}

size_t nvs_check_slowest_ranks(const nvs_run *run, nvs_slowest_rank *out, size_t cap)
{
    size_t k = 0, nns;
    int *ns = run_ns(run, &nns);
    for (size_t ni = 0; ni < nns && k < cap; ni++) {
        int n = ns[ni], maxrank = -1;
        if (n < 2) continue;
        for (size_t i = 0; i < run->ncolls; i++)
            if (run->colls[i].n == n && run->colls[i].slowest_rank > maxrank) maxrank = run->colls[i].slowest_rank;
        if (maxrank < 0) continue;
        int *count = calloc((size_t)maxrank + 1, sizeof *count);
        double *lag = calloc((size_t)maxrank + 1, sizeof *lag);
        if (!count || !lag) {
            free(count);
            free(lag);
            break;
        }
        nvs_slowest_rank s = {.n = n, .rank = -1, .lag_pct = NAN, .device = -1};
        double lag_sum = 0;
        int lag_n = 0;
        for (size_t i = 0; i < run->ncolls; i++) {
            const nvs_run_coll *c = &run->colls[i];
            if (c->n != n || c->slowest_rank < 0) continue;
            s.configs++;
            count[c->slowest_rank]++;
            if (!isnan(c->time_max_us) && !isnan(c->time_min_us) && c->time_min_us > 0) {
                lag[c->slowest_rank] += c->time_max_us - c->time_min_us;
                lag_sum += (c->time_max_us - c->time_min_us) / c->time_min_us * 100;
                lag_n++;
            }
        }
        for (int r = 0; r <= maxrank; r++)
            if (count[r] && (s.rank < 0 || count[r] > count[s.rank] ||
                             (count[r] == count[s.rank] && lag[r] > lag[s.rank])))
                s.rank = r;
        s.slowest_in = count[s.rank];
        if (lag_n) s.lag_pct = lag_sum / lag_n;
        for (size_t i = 0; i < run->nranks; i++)
            if (run->ranks[i].rank == s.rank) {
                snprintf(s.host, sizeof s.host, "%s", str(run->ranks[i].host));
                s.device = run->ranks[i].device;
            }
        free(count);
        free(lag);
        out[k++] = s;
    }
    free(ns);
    return k;
}

int nvs_check_slowest_pair(const nvs_run *run)
{
    const nvs_run_p2p_pair *p = run->p2p.pairs;
    int best = -1;
    for (size_t i = 0; i < run->p2p.npairs; i++)
        if (!isnan(p[i].uni_gbps) && (best < 0 || p[i].uni_gbps < p[best].uni_gbps)) best = (int)i;
    return best;
}

const nvs_run_explain *nvs_check_slowest_hop(const nvs_run *run)
{
    const nvs_run_explain *h = NULL;
    for (size_t i = 0; i < run->nexplain; i++) {
        const nvs_run_explain *e = &run->explain[i];
        if (e->has_hop && e->hop_from_gpu >= 0 && e->hop_to_gpu >= 0 && (!h || e->n > h->n)) h = e;
    }
    return h;
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
