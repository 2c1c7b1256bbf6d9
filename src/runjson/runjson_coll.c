/* run.json reader: the collective sweep's sections (run/out_json.c, run/run_flow.c): scaling (the ranks and GPUs
 * of each count), collectives (one row per collective, count and size), transports (what NCCL chose per count) and
 * explain (each count's bound and slowest hop). Their own file: together they are what `coll` and `run` measured
 * and what report, compare and check's busbw rules read. */
#include "runjson/runjson_read.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rj_read_scaling(vctx *v, nvs_run *r)
{
    json_t *a = rj_typed(v, r->root, "scaling", "", JSON_ARRAY, 0);
    if (!a || !(r->scaling = rj_alloc(v, json_array_size(a), sizeof *r->scaling))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "scaling", p);
        if (!e) break;
        nvs_run_scaling *s = &r->scaling[r->nscaling++];
        s->n = (int)rj_int(v, e, "n", p, 1, 1000000, 0, 1);
        s->ranks = rj_int_array(v, e, "ranks", p, 0, &s->nranks);
        s->gpus = rj_int_array(v, e, "gpus", p, 0, &s->ngpus);
    }
}

/* NULL-safe strcmp: an absent type or op sorts first */
static int cmp_str(const char *a, const char *b) { return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL); }

static int cmp_num(double a, double b) { return (a > b) - (a < b); }

/* What two collective rows measured, compared: collective, N, size and bytes, data type, reduction, root,
 * placement and launch (a row's identity; its times and bandwidths are the measurement). 0: the same. */
static int cmp_row_key(const nvs_run_coll *a, const nvs_run_coll *b)
{
    int c = strcmp(a->collective, b->collective);
    if (!c) c = (a->n > b->n) - (a->n < b->n);
    if (!c) c = cmp_num(a->size, b->size);
    if (!c) c = cmp_num(a->bytes, b->bytes);
    if (!c) c = cmp_str(a->type, b->type);
    if (!c) c = cmp_str(a->op, b->op);
    if (!c) c = (a->root > b->root) - (a->root < b->root);
    if (!c) c = (a->inplace > b->inplace) - (a->inplace < b->inplace);
    if (!c) c = (a->graph > b->graph) - (a->graph < b->graph);
    return c;
}

/* qsort's: by identity, then file order (the rows are one array: their addresses are file order) */
static int cmp_row(const void *x, const void *y)
{
    const nvs_run_coll *a = *(const nvs_run_coll *const *)x, *b = *(const nvs_run_coll *const *)y;
    int c = cmp_row_key(a, b);
    return c ? c : (a > b) - (a < b);
}

/* One row per measurement: readers look a row up by what it measured (check's thresholds and variants, report's
 * tables and plots, compare's pairs), so a second row of the same was judged beside the first or instead of it
 * (check's "worst of 2 rows" of one row given twice) and shown twice; nvscale never writes one. Refused here, for
 * every reader, naming both (as a workload's N given twice: runjson_train.c). Sorted, not compared pairwise: a
 * sweep of every type, op and placement holds 10^5 rows. Named: the repeat earliest in the file, and the first row
 * of the same. */
static void refuse_repeated_rows(vctx *v, const nvs_run *r)
{
    if (r->ncolls < 2) return;
    const nvs_run_coll **by = rj_alloc(v, r->ncolls, sizeof *by);
    if (!by) return;
    for (size_t i = 0; i < r->ncolls; i++) by[i] = &r->colls[i];
    qsort(by, r->ncolls, sizeof *by, cmp_row);
    const nvs_run_coll *again = NULL, *first = NULL;
    for (size_t i = 1, start = 0; i < r->ncolls; i++) {
        if (cmp_row_key(by[start], by[i])) start = i;
        else if (i == start + 1 && (!again || by[i] < again)) { /* each group's second row is its first repeat */
            again = by[i];
            first = by[start];
        }
    }
    free(by);
    if (!again) return;
    char size[64];
    snprintf(size, sizeof size, "%.0f", again->size);
    rj_fail(v, "collectives[%td]: %s N=%d size %s %s %s %s given twice (first at collectives[%td]): one row per "
            "collective, N, size and variant", again - r->colls, again->collective, again->n, size,
            again->type ? again->type : "(no type)", again->op ? again->op : "(no op)",
            again->inplace ? "in-place" : "out-of-place", first - r->colls);
}

void rj_read_collectives(vctx *v, nvs_run *r)
{
    json_t *a = rj_typed(v, r->root, "collectives", "", JSON_ARRAY, 0);
    if (!a) return;
    r->has_collectives = 1;
    if (!(r->colls = rj_alloc(v, json_array_size(a), sizeof *r->colls))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "collectives", p);
        if (!e) break;
        nvs_run_coll *c = &r->colls[r->ncolls++];
        c->collective = rj_str(v, e, "collective", p, 1);
        c->n = (int)rj_int(v, e, "n", p, 1, 1000000, 0, 1);
        c->bytes = rj_bytes(v, e, "bytes", p);
        if (isnan(c->bytes) && !v->failed)
            rj_fail(v, "%s: missing (a number of bytes is required here)", rj_kpath(q, p, "bytes"));
        else if (!isnan(c->bytes) && c->bytes != floor(c->bytes)) /* check compares sizes exactly, as integers */
            rj_type_fail(v, rj_kpath(q, p, "bytes"), "a whole number of bytes", json_object_get(e, "bytes"));
        /* the sweep size the row measured (run/out_json.c); "bytes" is that size as the collective rounds it at
         * this N, so rows of one size at several N are matched by it. Absent in run.json files written before it
         * (6 December 2026): the sweep size the file's plan (sweep) rounds to these bytes, or the bytes where it has
         * none or several (runjson_size.c) */
        c->size = rj_bytes(v, e, "size", p);
        if (!isnan(c->size) && c->size != floor(c->size))
            rj_type_fail(v, rj_kpath(q, p, "size"), "a whole number of bytes", json_object_get(e, "size"));
        c->type = rj_str(v, e, "type", p, 0);
        if (isnan(c->size) && !v->failed) /* the planned size that rounds to these bytes at this N, if one does */
            c->size = nvs_run_size_of_bytes(c->collective, c->type, c->n, c->bytes, r->sweep_sizes, r->nsweep_sizes);
        c->op = rj_str(v, e, "op", p, 0);
        c->root = (int)rj_int(v, e, "root", p, -1, 1000000000, -1, 0);
        c->inplace = rj_bool(v, e, "inplace", p, 0);
        c->graph = rj_bool(v, e, "graph", p, 0);
        c->count = rj_num(v, e, "count", p, 0);
        c->iters = (int)rj_int(v, e, "iters", p, 0, 2000000000, -1, 0);
        c->time_min_us = c->time_avg_us = c->time_max_us = NAN;
        json_t *t = rj_typed(v, e, "time_us", p, JSON_OBJECT, 0);
        if (t) {
            rj_kpath(q, p, "time_us");
            c->time_min_us = rj_num(v, t, "min", q, 0);
            c->time_avg_us = rj_num(v, t, "avg", q, 0);
            c->time_max_us = rj_num(v, t, "max", q, 0);
        }
        c->slowest_rank = (int)rj_int(v, e, "slowest_rank", p, 0, 1000000000, -1, 0);
        c->algbw_gbps = rj_num(v, e, "algbw_gbps", p, 0);
        c->busbw_gbps = rj_num(v, e, "busbw_gbps", p, 0);
        c->wrong = rj_int(v, e, "wrong", p, 0, LLONG_MAX, -1, 0);
    }
    if (!v->failed) refuse_repeated_rows(v, r);
}

void rj_read_transports(vctx *v, nvs_run *r)
{
    json_t *a = rj_typed(v, r->root, "transports", "", JSON_ARRAY, 0);
    if (!a || !(r->transports = rj_alloc(v, json_array_size(a), sizeof *r->transports))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "transports", p);
        if (!e) break;
        nvs_run_transport *t = &r->transports[r->ntransports++];
        t->n = (int)rj_int(v, e, "n", p, 1, 1000000, 0, 1);
        t->nccl_version = rj_str(v, e, "nccl_version", p, 0);
        t->link = rj_str(v, e, "link", p, 0);
        t->nchannels = (int)rj_int(v, e, "nchannels", p, 0, 1000000, -1, 0);
        t->nvls = rj_bool(v, e, "nvls", p, 0); /* absent in runs before NVLS was read: not known used */
        json_t *ch = rj_typed(v, e, "channels", p, JSON_ARRAY, 0);
        t->nchannel_entries = ch ? json_array_size(ch) : 0;
        for (size_t k = 0; k < t->nchannel_entries && !v->failed; k++) {
            char q[PATH_MAX_LEN], q2[PATH_MAX_LEN];
            json_t *ce = rj_elem_obj(v, ch, k, rj_kpath(q2, p, "channels"), q);
            if (!ce) break;
            const char *tr = rj_str(v, ce, "transport", q, 0);
            const char *de = rj_str(v, ce, "detail", q, 0);
            if (!t->net_detail && tr && de && !strcmp(tr, "NET")) t->net_detail = de;
            if (!t->collnet_detail && tr && de && !strcmp(tr, "COLLNET")) t->collnet_detail = de;
        }
        json_t *s = rj_typed(v, e, "summary", p, JSON_OBJECT, 0);
        if (s) {
            t->summary = rj_alloc(v, json_object_size(s), sizeof *t->summary);
            t->summary_counts = rj_alloc(v, json_object_size(s), sizeof *t->summary_counts);
            if (!t->summary || !t->summary_counts) break;
            char q[PATH_MAX_LEN];
            rj_kpath(q, p, "summary");
            const char *k;
            json_t *val;
            json_object_foreach(s, k, val)
            {
                long long c = rj_int(v, s, k, q, 0, 1000000000, -1, 1);
                if (v->failed) break;
                t->summary[t->nsummary].key = k;
                t->summary_counts[t->nsummary] = (int)c;
                t->nsummary++;
            }
        }
    }
}

void rj_read_explain(vctx *v, nvs_run *r)
{
    json_t *a = rj_typed(v, r->root, "explain", "", JSON_ARRAY, 0);
    if (!a || !(r->explain = rj_alloc(v, json_array_size(a), sizeof *r->explain))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "explain", p);
        if (!e) break;
        nvs_run_explain *x = &r->explain[r->nexplain++];
        x->n = (int)rj_int(v, e, "n", p, 1, 1000000, 0, 1);
        x->bound_gbps = NAN;
        x->hop_from_gpu = x->hop_to_gpu = -1;
        json_t *h = rj_typed(v, e, "slowest_hop", p, JSON_OBJECT, 0);
        if (h) {
            rj_kpath(q, p, "slowest_hop");
            x->has_hop = 1;
            x->hop_from_gpu = (int)rj_int(v, h, "from_gpu", q, 0, 1000000000, -1, 0);
            x->hop_to_gpu = (int)rj_int(v, h, "to_gpu", q, 0, 1000000000, -1, 0);
            x->hop_class = rj_str(v, h, "class", q, 0);
            x->hop_link = rj_str(v, h, "link", q, 0);
            x->hop_source = rj_str(v, h, "source", q, 0);
            x->bound_gbps = rj_num(v, h, "bound_gbps", q, 0);
        }
        x->transport = rj_str(v, e, "transport", p, 0);
        x->busbw_gbps = rj_num(v, e, "busbw_gbps", p, 0);
        x->busbw_bytes = rj_bytes(v, e, "busbw_bytes", p);
        x->pct_of_bound = rj_num(v, e, "pct_of_bound", p, 0);
        x->exposed_comm_pct = rj_num(v, e, "exposed_comm_pct", p, -INFINITY);
        x->text = rj_str(v, e, "text", p, 0);
    }
}
