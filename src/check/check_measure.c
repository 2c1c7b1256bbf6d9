/* What a run holds at a point: the value a rule judges, the worst of the rows that match (PURE). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check/check_eval_priv.h"
#include "collectives/coll.h"
#include "core/dtype.h"

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

int nvs_ck_row_matches(const nvs_rule *r, const nvs_run_coll *c)
{
    if (r->type >= 0 && nvs_dtype_parse(str(c->type)) != r->type) return 0;
    if (r->op >= 0 && nvs_redop_parse(str(c->op)) != r->op) return 0;
    if (r->inplace >= 0 && c->inplace != r->inplace) return 0;
    return 1;
}

/* The workload of `run` that an efficiency point is about: a run of one workload is compared as it is (as
 * before runs named their workloads); in a run of several, the one of the point's model (NULL: not trained). */
const nvs_run_train *nvs_ck_workload_of(const nvs_run *run, const point *p)
{
    if (nvs_run_workloads(run) <= 1 || !p->model[0]) return nvs_run_workload(run, 0);
    return nvs_run_workload_named(run, p->model);
}

int nvs_ck_variant_of(const variant *v, size_t n, const nvs_run_coll *c)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].type, str(c->type)) && !strcmp(v[i].op, str(c->op)) && v[i].inplace == c->inplace)
            return 1;
    return 0;
}

/* The variants of the rows of `run` at busbw point p that rule r selects, each once, in file order; how many. */
size_t nvs_ck_variants_at(const nvs_rule *r, const nvs_run *run, const point *p, variant *v, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < run->ncolls && k < cap; i++) {
        const nvs_run_coll *c = &run->colls[i];
        if (strcmp(c->collective, p->coll) || c->n != p->n || !row_of_size(c, p->bytes) || !nvs_ck_row_matches(r, c) ||
            nvs_ck_variant_of(v, k, c))
            continue;
        v[k++] = (variant){str(c->type), str(c->op), c->inplace};
    }
    return k;
}

/* "float sum out-of-place, half sum in-place" */
void nvs_ck_variants_text(const variant *v, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s%s%s %s", i ? ", " : "", v[i].type,
                 strcmp(v[i].op, "none") && v[i].op[0] ? " " : "", strcmp(v[i].op, "none") ? v[i].op : "",
                 v[i].inplace ? "in-place" : "out-of-place");
}

/* What run holds at point p for rule r; busbw rows of a variant outside `only` (nonly > 0) are left out: compared
 * with a baseline, the run's rows of the baseline's variants alone. */
meas nvs_ck_measure(const nvs_rule *r, const nvs_run *run, const point *p, const variant *only, size_t nonly)
{
    meas m = {.value = NAN, .slowest_rank = -1};
    const nvs_run_coll *first = NULL, *worst = NULL;
    switch (r->metric) {
    case NVS_RULE_BUSBW:
        for (size_t i = 0; i < run->ncolls; i++) {
            const nvs_run_coll *c = &run->colls[i];
            if (strcmp(c->collective, p->coll) || c->n != p->n || !row_of_size(c, p->bytes) ||
                !nvs_ck_row_matches(r, c) || (nonly && !nvs_ck_variant_of(only, nonly, c)))
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
        const nvs_run_train *tr = nvs_ck_workload_of(run, p);
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
