/* Fleet samples and machine facts from run.json files (fleet.h), through the shared reader
 * (runjson/runjson.h); the host copies, which the reader does not expose, from the run's document itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "fleet/fleet.h"

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
        if (c->n != n || strcmp(c->collective, coll) || isnan(c->busbw_gbps) || c->bytes <= best) continue;
        int all = 1;
        for (size_t i = 0; i < nruns && all; i++) {
            int has_coll = 0;
            for (size_t j = 0; j < runs[i]->ncolls; j++) has_coll |= runs[i]->colls[j].n == n && !strcmp(runs[i]->colls[j].collective, coll);
            if (has_coll && !nvs_run_coll_find(runs[i], coll, n, c->bytes)) all = 0;
        }
        if (all) best = c->bytes;
    }
    return best;
}

/* the smallest value of a host-copy field over a run's GPUs (each GPU alone); NAN if none. A copy whose data came
 * back wrong is no bandwidth (left out) */
static double slowest_host_copy(const nvs_run *r, const char *field)
{
    const json_t *g = json_object_get(json_object_get(json_object_get(r->root, "p2p"), "host_copies"), "gpus");
    double lo = NAN;
    for (size_t i = 0; i < json_array_size(g); i++) {
        const json_t *single = json_object_get(json_array_get(g, i), "single");
        const json_t *v = json_object_get(single, field), *w = json_object_get(single, "wrong");
        if (json_is_integer(w) && json_integer_value(w) > 0) continue;
        if (json_is_number(v) && (isnan(lo) || json_number_value(v) < lo)) lo = json_number_value(v);
    }
    return lo;
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
            if (bytes <= 0 || c->bytes != bytes) continue; /* the one row of this run that stands for the key */
            snprintf(key, sizeof key, "busbw %s %s n=%d", c->collective, nvs_format_size((size_t)bytes, sz, sizeof sz), c->n);
            int seen = 0;
            for (size_t j = 0; j < out->n; j++)
                seen |= out->v[j].run == (int)i && !strncmp(out->v[j].key, key, strlen(key)) &&
                        (!out->v[j].key[strlen(key)] || out->v[j].key[strlen(key)] == ' ');
            if (seen) continue; /* in-place and out-of-place: the reader's choice (out-of-place) below */
            const nvs_run_coll *pick = nvs_run_coll_find(runs[i], c->collective, c->n, bytes);
            /* a sweep of several types or ops (-d float,double -o sum,max): the row is the first out-of-place
             * one, and the key says which, for every run when any run has several */
            int multi = 0;
            for (size_t j = 0; j < nruns && !multi; j++) {
                char vb[64];
                multi = *nvs_run_coll_variant(runs[j], nvs_run_coll_find(runs[j], c->collective, c->n, bytes), vb, sizeof vb);
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
            /* a row whose results were wrong has no bandwidth to compare (its run's result row fails): neither
             * in the median nor a row of its own */
            if (pick->wrong <= 0 && nvs_fleet_add(out, key, "GB/s", (int)i, runs[i]->host, pick->busbw_gbps))
                return -1;
        }
    for (size_t i = 0; i < nruns; i++) {
        const nvs_run *r = runs[i];
        double uni = NAN, bi = NAN;
        for (size_t k = 0; k < r->p2p.npairs; k++) {
            const nvs_run_p2p_pair *p = &r->p2p.pairs[k];
            if (p->wrong > 0) continue; /* wrong data: no bandwidth */
            if (!isnan(p->uni_gbps) && (isnan(uni) || p->uni_gbps < uni)) uni = p->uni_gbps;
            if (!isnan(p->bidir_gbps) && (isnan(bi) || p->bidir_gbps < bi)) bi = p->bidir_gbps;
        }
        if (nvs_fleet_add(out, "p2p uni, slowest pair", "GB/s", (int)i, r->host, uni) ||
            nvs_fleet_add(out, "p2p bidir, slowest pair", "GB/s", (int)i, r->host, bi) ||
            nvs_fleet_add(out, "host h2d, slowest GPU", "GB/s", (int)i, r->host, slowest_host_copy(r, "h2d_gbps")) ||
            nvs_fleet_add(out, "host d2h, slowest GPU", "GB/s", (int)i, r->host, slowest_host_copy(r, "d2h_gbps")))
            return -1;
        for (size_t w = 0; w < nvs_run_workloads(r); w++) { /* every workload, each its own measurement */
            const nvs_run_train *tr = nvs_run_workload(r, w);
            for (size_t k = 0; k < tr->nresults; k++) {
                const nvs_run_train_result *t = &tr->results[k];
                char key[96];
                if (t->n < 2) continue;
                snprintf(key, sizeof key, "efficiency %s n=%d", tr->model ? tr->model : "train", t->n);
                if (nvs_fleet_add(out, key, "%", (int)i, r->host, t->efficiency * 100)) return -1;
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
