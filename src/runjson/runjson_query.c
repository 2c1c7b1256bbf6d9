/* run.json's lookups (see runjson.h): what the report, check, compare and the model ask of a loaded run, by
 * name, GPU count, pair or size. Pure queries over nvs_run; the reader that fills it is runjson.c. */
#include "runjson/runjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "core/net_bound.h"

/* ---- workloads -------------------------------------------------------------------------------------------- */

size_t nvs_run_workloads(const nvs_run *r) { return r->ntrains ? r->ntrains : r->train.present ? 1 : 0; }

const nvs_run_train *nvs_run_workload(const nvs_run *r, size_t i)
{
    if (r->ntrains) return i < r->ntrains ? &r->trains[i] : NULL;
    return i == 0 && r->train.present ? &r->train : NULL;
}

const nvs_run_train *nvs_run_workload_named(const nvs_run *r, const char *model)
{
    for (size_t i = 0; i < nvs_run_workloads(r); i++) {
        const nvs_run_train *t = nvs_run_workload(r, i);
        if (t->model && model && !strcmp(t->model, model)) return t;
    }
    return NULL;
}

int nvs_run_workload_ref_n(const nvs_run_train *t)
{
    if (!t || !t->nresults) return 0;
    for (size_t i = 0; i < t->nresults; i++)
        if (t->results[i].reference_n > 0) return t->results[i].reference_n;
    return 1;
}

int nvs_run_train_ref_n(const nvs_run *r)
{
    for (size_t i = 0; i < nvs_run_workloads(r); i++) {
        int ref = nvs_run_workload_ref_n(nvs_run_workload(r, i));
        if (ref) return ref;
    }
    return 0;
}

/* ---- lookups ----------------------------------------------------------------------------------------------- */

static const char *kv_get(const nvs_run_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(kv[i].key, key)) return kv[i].value;
    return NULL;
}
const char *nvs_run_env(const nvs_run *r, const char *key) { return kv_get(r->env, r->nenv, key); }
const char *nvs_run_version(const nvs_run *r, const char *key) { return kv_get(r->versions, r->nversions, key); }

const nvs_run_pair *nvs_run_topology_pair(const nvs_run_topology *t, int a, int b)
{
    if (!t->pair_index) { /* a topology not made by the loader */
        for (size_t i = 0; i < t->npairs; i++) {
            const nvs_run_pair *p = &t->pairs[i];
            if ((p->a == a && p->b == b) || (p->a == b && p->b == a)) return p;
        }
        return NULL;
    }
    const int ka = a < b ? a : b, kb = a < b ? b : a;
    size_t lo = 0, hi = t->npairs;
    while (lo < hi) { /* the first key not below (ka, kb) */
        size_t mid = lo + (hi - lo) / 2;
        const nvs_run_pair_key *k = &t->pair_index[mid];
        if (k->lo < ka || (k->lo == ka && k->hi < kb)) lo = mid + 1;
        else hi = mid;
    }
    const nvs_run_pair_key *k = lo < t->npairs ? &t->pair_index[lo] : NULL;
    return k && k->lo == ka && k->hi == kb ? &t->pairs[k->pos] : NULL;
}

/* the GPU with topology index `index` (its place in gpus[] when they are in order, as nvscale writes them) */
static const nvs_run_gpu *gpu_at(const nvs_run_topology *t, int index)
{
    if (index >= 0 && (size_t)index < t->ngpus && t->gpus[index].index == index) return &t->gpus[index];
    for (size_t i = 0; i < t->ngpus; i++)
        if (t->gpus[i].index == index) return &t->gpus[i];
    return NULL;
}

const nvs_run_gpu *nvs_run_gpu_at(const nvs_run *r, int index) { return gpu_at(&r->topology, index); }

const nvs_run_pair *nvs_run_pair_of(const nvs_run *r, int a, int b, nvs_run_pair_buf *buf)
{
    const nvs_run_topology *t = &r->topology;
    const nvs_run_pair *p = nvs_run_topology_pair(t, a, b);
    if (p || !buf || a == b) return p;
    const nvs_run_gpu *ga = gpu_at(t, a), *gb = gpu_at(t, b);
    if (!ga || !gb || !ga->host || !gb->host || !strcmp(ga->host, gb->host)) return NULL;
    const nvs_net_end ea = {a, ga->net_gbps, ga->net_source, ga->machine},
                      eb = {b, gb->net_gbps, gb->net_source, gb->machine};
    memset(buf, 0, sizeof *buf);
    nvs_run_pair *x = &buf->pair;
    x->a = a;
    x->b = b;
    x->cls = "NET";
    x->nvlinks = 0;
    x->p2p_cuda = 0;
    double v = nvs_net_hop_bound(&ea, &eb, t->net_gbps_given, buf->source, sizeof buf->source);
    x->bound_gbps = v > 0 ? v : NAN;
    x->bound_source = buf->source;
    return x;
}

const nvs_run_scaling *nvs_run_scaling_of(const nvs_run *r, int n)
{
    for (size_t i = 0; i < r->nscaling; i++)
        if (r->scaling[i].n == n) return &r->scaling[i];
    return NULL;
}

const nvs_run_transport *nvs_run_transport_of(const nvs_run *r, int n)
{
    for (size_t i = 0; i < r->ntransports; i++)
        if (r->transports[i].n == n) return &r->transports[i];
    return NULL;
}

const nvs_run_train_result *nvs_run_train_of(const nvs_run *r, int n)
{
    for (size_t i = 0; i < r->train.nresults; i++)
        if (r->train.results[i].n == n) return &r->train.results[i];
    return NULL;
}

const nvs_run_explain *nvs_run_explain_of(const nvs_run *r, int n)
{
    for (size_t i = 0; i < r->nexplain; i++)
        if (r->explain[i].n == n) return &r->explain[i];
    return NULL;
}

const nvs_run_coll *nvs_run_coll_find(const nvs_run *r, const char *collective, int n, double size)
{
    const nvs_run_coll *inplace = NULL;
    for (size_t i = 0; i < r->ncolls; i++) {
        const nvs_run_coll *c = &r->colls[i];
        if (c->n != n || c->size != size || strcmp(c->collective, collective)) continue;
        if (!c->inplace) return c;
        if (!inplace) inplace = c;
    }
    return inplace;
}

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

const char *nvs_run_p2p_skipped(const nvs_run *r, char *buf, size_t len)
{
    if (len) buf[0] = '\0';
    if (!r->p2p.skipped_why || !len) return NULL;
    snprintf(buf, len, "skipped on host %s: %s", r->p2p.skipped_host ? r->p2p.skipped_host : "?", r->p2p.skipped_why);
    return buf;
}

const char *nvs_run_coll_variant(const nvs_run *r, const nvs_run_coll *picked, char *buf, size_t len)
{
    if (len) buf[0] = '\0';
    if (!picked || !len) return buf;
    for (size_t i = 0; i < r->ncolls; i++) {
        const nvs_run_coll *c = &r->colls[i];
        if (strcmp(c->collective, picked->collective)) continue;
        if (!same_str(c->type, picked->type) || !same_str(c->op, picked->op)) {
            int no_op = !picked->op || !strcmp(picked->op, "none"); /* broadcast, all_gather: the type alone */
            snprintf(buf, len, "%s%s%s", picked->type ? picked->type : "?", no_op ? "" : " ", no_op ? "" : picked->op);
            break;
        }
    }
    return buf;
}


int nvs_run_ns(const nvs_run *r, int **out)
{
    size_t cap = r->ncolls + r->train.nresults + r->nscaling + r->ntransports + 1;
    int *v = malloc(cap * sizeof *v);
    if (!v) return -1;
    int n = 0;
    for (size_t i = 0; i < r->ncolls; i++) v[n++] = r->colls[i].n;
    for (size_t i = 0; i < r->train.nresults; i++) v[n++] = r->train.results[i].n;
    for (size_t i = 0; i < r->nscaling; i++) v[n++] = r->scaling[i].n;
    for (size_t i = 0; i < r->ntransports; i++) v[n++] = r->transports[i].n;
    *out = v;
    return nvs_sort_unique_int(v, n);
}

int nvs_run_coll_ns(const nvs_run *r, const char *collective, int **out)
{
    int *v = malloc((r->ncolls + 1) * sizeof *v);
    if (!v) return -1;
    int n = 0;
    for (size_t i = 0; i < r->ncolls; i++)
        if (!strcmp(r->colls[i].collective, collective)) v[n++] = r->colls[i].n;
    *out = v;
    return nvs_sort_unique_int(v, n);
}

int nvs_run_coll_sizes(const nvs_run *r, const char *collective, double **out)
{
    double *v = malloc((r->ncolls + 1) * sizeof *v);
    if (!v) return -1;
    int n = 0;
    for (size_t i = 0; i < r->ncolls; i++)
        if (!strcmp(r->colls[i].collective, collective)) v[n++] = r->colls[i].size;
    int k = nvs_sort_unique_double(v, n);
    *out = v;
    return k;
}

int nvs_run_collective_names(const nvs_run *r, const char ***out)
{
    const char **v = malloc((r->ncolls + 1) * sizeof *v);
    if (!v) return -1;
    int n = 0;
    for (size_t i = 0; i < r->ncolls; i++) {
        int seen = 0;
        for (int k = 0; k < n && !seen; k++) seen = !strcmp(v[k], r->colls[i].collective);
        if (!seen) v[n++] = r->colls[i].collective;
    }
    *out = v;
    return n;
}
