/* Fleet samples and machine facts from run.json files (fleet.h), through the shared reader
 * (runjson/runjson.h); the host copies, which the reader does not expose, from the run's document itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "fleet/fleet.h"

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* the largest size of (collective, n) that every run in `has` measured; 0 if none */
static double common_size(const nvs_run *const *runs, size_t nruns, const char *coll, int n)
{
    double best = 0;
    const nvs_run *first = NULL;
    for (size_t i = 0; i < nruns && !first; i++)
        for (size_t k = 0; k < runs[i]->ncolls && !first; k++)
            if (runs[i]->colls[k].n == n && !strcmp(runs[i]->colls[k].collective, coll)) first = runs[i];
    for (size_t k = 0; first && k < first->ncolls; k++) {
        const nvs_run_coll *c = &first->colls[k];
        if (c->n != n || strcmp(c->collective, coll) || isnan(c->busbw_gbps) || c->size <= best) continue;
        int all = 1;
        for (size_t i = 0; i < nruns && all; i++) {
            int has_coll = 0;
            for (size_t j = 0; j < runs[i]->ncolls; j++)
                has_coll |= runs[i]->colls[j].n == n && !strcmp(runs[i]->colls[j].collective, coll);
            if (has_coll && !nvs_run_coll_find(runs[i], coll, n, c->size)) all = 0;
        }
        if (all) best = c->size;
    }
    return best;
}

/* the smallest value of a host-copy field over a run's GPUs (each GPU alone); NAN if none. A copy whose data came
 * back wrong is no bandwidth (left out). *host: that GPU's host (the run's where the entry names none) */
static double slowest_host_copy(const nvs_run *r, const char *field, const char **host)
{
    const json_t *g = json_object_get(json_object_get(json_object_get(r->root, "p2p"), "host_copies"), "gpus");
    double lo = NAN;
    *host = r->host;
    for (size_t i = 0; i < json_array_size(g); i++) {
        const json_t *gi = json_array_get(g, i), *single = json_object_get(gi, "single");
        const json_t *v = json_object_get(single, field), *w = json_object_get(single, "wrong");
        if (json_is_integer(w) && json_integer_value(w) > 0) continue;
        if (json_is_number(v) && (isnan(lo) || json_number_value(v) < lo)) {
            lo = json_number_value(v);
            const char *h = json_string_value(json_object_get(gi, "host"));
            *host = h ? h : r->host;
        }
    }
    return lo;
}

/* does the run span more than one host (its ranks name two or more)? */
static int multi_host(const nvs_run *r)
{
    for (size_t i = 1; i < r->nranks; i++)
        if (r->ranks[i].host && r->ranks[0].host && strcmp(r->ranks[i].host, r->ranks[0].host)) return 1;
    return 0;
}

const char *nvs_fleet_hosts_of(const nvs_run *r, const int *ranks, size_t n, char *buf, size_t len)
{
    size_t used = 0, count = ranks ? n : r->nranks;
    int cut = 0;
    buf[0] = '\0';
    if (!multi_host(r) && r->host) { /* one host: the run's own name of it, as every single-host reader says */
        snprintf(buf, len, "%s", r->host);
        return buf;
    }
    for (size_t i = 0; i < count && !cut; i++) {
        int k = ranks ? ranks[i] : (int)i;
        if (k < 0 || (size_t)k >= r->nranks || !r->ranks[k].host) continue;
        const char *h = r->ranks[k].host;
        int seen = 0; /* an earlier rank of the list on the same host */
        for (size_t j = 0; j < i && !seen; j++) {
            int q = ranks ? ranks[j] : (int)j;
            seen = q >= 0 && (size_t)q < r->nranks && r->ranks[q].host && !strcmp(r->ranks[q].host, h);
        }
        if (seen) continue;
        size_t need = strlen(h) + (used ? 1 : 0);
        if (used + need + 4 >= len) { /* room for "+..." */
            cut = 1;
            break;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "+" : "", h);
    }
    if (cut) snprintf(buf + used, len - used, "%s...", used ? "+" : "");
    else if (!used) snprintf(buf, len, "%s", r->host ? r->host : "");
    return buf;
}

/* the hosts of the ranks a run measured at N with; the run's hosts when it has no such scaling point */
static const char *hosts_at(const nvs_run *r, int n, char *buf, size_t len)
{
    const nvs_run_scaling *s = nvs_run_scaling_of(r, n);
    return s && s->nranks ? nvs_fleet_hosts_of(r, s->ranks, s->nranks, buf, len)
                          : nvs_fleet_hosts_of(r, NULL, 0, buf, len);
}

/* common_size of each (collective, n), computed once: it reads every row of every run, and was computed again for
 * every row of every run (64 hosts of a 448-row sweep took minutes) */
typedef struct {
    const char *coll;
    int n;
    double bytes;
} size_memo;

static int memo_size(size_memo **m, size_t *nm, const nvs_run *const *runs, size_t nruns, const char *coll, int n,
                     double *bytes)
{
    for (size_t i = 0; i < *nm; i++)
        if ((*m)[i].n == n && !strcmp((*m)[i].coll, coll)) {
            *bytes = (*m)[i].bytes;
            return 0;
        }
    size_memo *v = realloc(*m, (*nm + 1) * sizeof *v);
    if (!v) return -1;
    *m = v;
    v[*nm] = (size_memo){coll, n, common_size(runs, nruns, coll, n)};
    *bytes = v[(*nm)++].bytes;
    return 0;
}

static int collect(const nvs_run *const *runs, size_t nruns, nvs_fleet_samples *out, size_memo **memo, size_t *nmemo);

int nvs_fleet_collect(const nvs_run *const *runs, size_t nruns, nvs_fleet_samples *out)
{
    size_memo *memo = NULL;
    size_t nmemo = 0;
    memset(out, 0, sizeof *out);
    int rc = collect(runs, nruns, out, &memo, &nmemo);
    free(memo);
    return rc;
}

static int collect(const nvs_run *const *runs, size_t nruns, nvs_fleet_samples *out, size_memo **memo, size_t *nmemo)
{
    /* collectives: every (collective, n >= 2) of any run, once */
    for (size_t i = 0; i < nruns; i++)
        for (size_t k = 0; k < runs[i]->ncolls; k++) {
            const nvs_run_coll *c = &runs[i]->colls[k];
            if (c->n < 2) continue;
            char key[96], sz[32];
            double bytes;
            if (memo_size(memo, nmemo, runs, nruns, c->collective, c->n, &bytes)) return -1;
            if (bytes <= 0 || c->size != bytes) continue; /* the one row of this run that stands for the key */
            snprintf(key, sizeof key, "busbw %s %s n=%d", c->collective, nvs_format_size((size_t)bytes, sz, sizeof sz),
                     c->n);
            int seen = 0;
            for (size_t j = 0; j < out->n; j++)
                seen |= out->v[j].run == (int)i && !strncmp(out->v[j].key, key, strlen(key)) &&
                        (!out->v[j].key[strlen(key)] || out->v[j].key[strlen(key)] == ' ');
            if (seen) continue; /* in-place and out-of-place: the reader's choice (out-of-place) below */
            const nvs_run_coll *pick = nvs_run_coll_find(runs[i], c->collective, c->n, bytes);
            /* a sweep of several types or ops (-d float,double -o sum,max): the row is the first out-of-place
             * one, and the key says which, for every run when any run has several */
            int multi = 0, in_differs = 0;
            for (size_t j = 0; j < nruns && !multi; j++) {
                char vb[64];
                const nvs_run_coll *o = nvs_run_coll_find(runs[j], c->collective, c->n, bytes);
                multi = *nvs_run_coll_variant(runs[j], o, vb, sizeof vb);
                /* runs of one (type, op) each, but not the same one (-d float on one host, -d double on another):
                 * not one measurement either, the key says which as above */
                multi |= o && (!same_str(o->type, pick->type) || !same_str(o->op, pick->op));
                in_differs |= o && o->inplace != pick->inplace;
            }
            if (multi) {
                char vb[64];
                nvs_run_coll_variant(runs[i], pick, vb, sizeof vb);
                if (!vb[0]) /* this run measured one (type, op); another run more: name it all the same */
                    snprintf(vb, sizeof vb, "%.20s%s%.12s", pick->type ? pick->type : "?",
                             pick->op && strcmp(pick->op, "none") ? " " : "",
                             pick->op && strcmp(pick->op, "none") ? pick->op : "");
                snprintf(key + strlen(key), sizeof key - strlen(key), " (%.40s)", vb);
            }
            /* a run of --inplace in has only in-place rows (nvs_run_coll_find's pick): they are compared with other
             * in-place rows only, as compare refuses runs whose shown rows differ in kind (nvs_tp_runs_alike) */
            if (pick->inplace && in_differs) snprintf(key + strlen(key), sizeof key - strlen(key), " in-place");
            /* a row whose results were wrong has no bandwidth to compare (its run's result row fails): neither
             * in the median nor a row of its own */
            char hosts[64];
            if (pick->wrong <= 0 &&
                nvs_fleet_add(out, key, "GB/s", (int)i, hosts_at(runs[i], c->n, hosts, sizeof hosts), pick->busbw_gbps))
                return -1;
        }
    for (size_t i = 0; i < nruns; i++) {
        const nvs_run *r = runs[i];
        double uni = NAN, bi = NAN;
        const char *uni_host = r->host, *bi_host = r->host, *h2d_host, *d2h_host; /* the slowest one's host */
        for (size_t k = 0; k < r->p2p.npairs; k++) {
            const nvs_run_p2p_pair *p = &r->p2p.pairs[k];
            if (p->wrong > 0) continue; /* wrong data: no bandwidth */
            if (!isnan(p->uni_gbps) && (isnan(uni) || p->uni_gbps < uni)) {
                uni = p->uni_gbps;
                uni_host = p->host ? p->host : r->host;
            }
            if (!isnan(p->bidir_gbps) && (isnan(bi) || p->bidir_gbps < bi)) {
                bi = p->bidir_gbps;
                bi_host = p->host ? p->host : r->host;
            }
        }
        double h2d = slowest_host_copy(r, "h2d_gbps", &h2d_host), d2h = slowest_host_copy(r, "d2h_gbps", &d2h_host);
        if (nvs_fleet_add(out, "p2p uni, slowest pair", "GB/s", (int)i, uni_host, uni) ||
            nvs_fleet_add(out, "p2p bidir, slowest pair", "GB/s", (int)i, bi_host, bi) ||
            nvs_fleet_add(out, "host h2d, slowest GPU", "GB/s", (int)i, h2d_host, h2d) ||
            nvs_fleet_add(out, "host d2h, slowest GPU", "GB/s", (int)i, d2h_host, d2h))
            return -1;
        for (size_t w = 0; w < nvs_run_workloads(r); w++) { /* every workload, each its own measurement */
            const nvs_run_train *tr = nvs_run_workload(r, w);
            for (size_t k = 0; k < tr->nresults; k++) {
                const nvs_run_train_result *t = &tr->results[k];
                char key[96];
                if (t->n < 2) continue;
                /* the smallest N of --gpus 2,4 is its own reference: its 100 % is no scaling (check_eval.c says
                 * so for a rule), and in the median it made a run that did scale from 1 GPU read as the slow one */
                if (t->reference_n == t->n) continue;
                /* step(2)/step(4) and step(1)/step(4) are not one measurement: the key says the reference */
                if (t->reference_n > 1)
                    snprintf(key, sizeof key, "efficiency %.50s n=%d (vs n=%d)", tr->model ? tr->model : "train",
                             t->n, t->reference_n);
                else snprintf(key, sizeof key, "efficiency %s n=%d", tr->model ? tr->model : "train", t->n);
                char hosts[64];
                if (nvs_fleet_add(out, key, "%", (int)i, hosts_at(r, t->n, hosts, sizeof hosts), t->efficiency * 100))
                    return -1;
            }
        }
    }
    return 0;
}

/* An NCCL variable that changes what NCCL does (its debug output does not) */
static int is_setting(const char *key)
{
    return !strncmp(key, "NCCL_", 5) && strcmp(key, "NCCL_DEBUG") && strncmp(key, "NCCL_DEBUG_", 11);
}

void nvs_fleet_machine_of(const nvs_run *r, nvs_fleet_machine *m)
{
    memset(m, 0, sizeof *m);
    m->host = r->host;
    m->backend = r->backend;
    m->ngpus = r->topology.present ? (int)r->topology.ngpus : -1;
    m->gpu_name = r->topology.ngpus ? r->topology.gpus[0].name : NULL;
    if (!m->gpu_name && r->nranks) m->gpu_name = r->ranks[0].gpu;
    /* the classes within hosts: pairs across hosts (NET) are listed only by runs before 3 December 2026 */
    for (size_t k = 0; k < r->topology.npairs && strlen(m->classes) + 16 < sizeof m->classes; k++)
        if (!r->topology.pairs[k].cls || strcmp(r->topology.pairs[k].cls, "NET"))
            snprintf(m->classes + strlen(m->classes), sizeof m->classes - strlen(m->classes), "%s%s",
                     m->classes[0] ? " " : "", r->topology.pairs[k].cls ? r->topology.pairs[k].cls : "?");
    /* the transport settings: what makes the same machine measure differently on purpose. In the keys' order,
     * not the file's: run.json lists env in the launcher's environ order, which differs between launches of the
     * same settings and made them read as different machines. */
    for (const char *last = NULL;;) {
        const nvs_run_kv *next = NULL;
        for (size_t k = 0; k < r->nenv; k++)
            if (is_setting(r->env[k].key) && (!last || strcmp(r->env[k].key, last) > 0) &&
                (!next || strcmp(r->env[k].key, next->key) < 0))
                next = &r->env[k];
        if (!next) break;
        snprintf(m->settings + strlen(m->settings), sizeof m->settings - strlen(m->settings), "%s%s=%s",
                 m->settings[0] ? " " : "", next->key, next->value ? next->value : "");
        last = next->key;
    }
}
