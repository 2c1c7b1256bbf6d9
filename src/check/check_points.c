/* A rule -> the points it demands of a reference run (the run, or the baseline for below_baseline): check_eval.h
 * says what each metric expands into. PURE. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_eval_priv.h"
#include "core/units.h"

int *nvs_ck_run_ns(const nvs_run *run, size_t *n)
{
    int *ns = NULL;
    int k = nvs_run_ns(run, &ns);
    *n = k > 0 ? (size_t)k : 0;
    return ns;
}

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
    int *ref_ns = nvs_ck_run_ns(ref, &nref);
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
                    !nvs_ck_row_matches(r, c))
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

int nvs_ck_expand(const nvs_rule *r, const nvs_run *ref, const char *what, points *ps)
{
    switch (r->metric) {
    case NVS_RULE_BUSBW: return expand_busbw(r, ref, what, ps);
    case NVS_RULE_P2P: return expand_p2p(r, ref, what, ps);
    case NVS_RULE_EFFICIENCY: return expand_eff(r, ref, what, ps);
    default: return 0;
    }
}
