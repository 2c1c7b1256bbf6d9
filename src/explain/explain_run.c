/* The facts of the "why" paragraph at N from a run.json (nvs_explain_facts_from_run): the slowest hop
 * (explain_ring.c), the transport, the busbw and the previous N's, the hosts, the training step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/explain_priv.h"
#include "explain/nccl_log.h"

/* Hosts spanned by the ranks at GPU count n, by host name (0 when the run does not say); *each: the ranks on each
 * of them where every host has as many, else 0 (3 + 1 ranks on two hosts are not "2 each") */
static int hosts_at(const nvs_run *r, int n, int *each)
{
    if (each) *each = 0;
    const nvs_run_scaling *sc = nvs_run_scaling_of(r, n);
    if (!sc || !sc->ranks || sc->nranks != (size_t)n || n <= 0) return 0;
    /* one pass: each of the n ranks' host, tallied into the distinct hosts seen so far (host[i], count[i]) */
    const char **host = calloc((size_t)n, sizeof *host);
    int *count = calloc((size_t)n, sizeof *count);
    int hosts = 0;
    for (int i = 0; host && count && i < n; i++) {
        const char *h = NULL;
        int id = sc->ranks[i];
        /* ranks are listed in rank order in a run.json: the direct index, else a search */
        if (id >= 0 && (size_t)id < r->nranks && r->ranks[id].rank == id)
            h = r->ranks[id].host;
        else
            for (size_t k = 0; k < r->nranks && !h; k++)
                if (r->ranks[k].rank == id) h = r->ranks[k].host;
        if (!h) {
            hosts = 0;
            break;
        }
        int j = 0;
        while (j < hosts && strcmp(host[j], h)) j++;
        if (j == hosts) host[hosts++] = h;
        count[j]++;
    }
    if (!host || !count) hosts = 0;
    int same = 1;
    for (int j = 1; j < hosts; j++) same = same && count[j] == count[0];
    if (each && same && hosts > 0) *each = count[0];
    free(host);
    free(count);
    return hosts;
}

/* Whether the run's ranks sit on more than one host. */
static int several_hosts(const nvs_run *r)
{
    for (size_t k = 1; k < r->nranks; k++)
        if (r->ranks[k].host && r->ranks[0].host && strcmp(r->ranks[k].host, r->ranks[0].host)) return 1;
    return 0;
}

/* A row that is evidence of a bandwidth: it has a busbw and did not fail its result check (wrong elements: a
 * collective that moved the wrong data may have moved less of it, and fast) */
static int evidence(const nvs_run_coll *c) { return !isnan(c->busbw_gbps) && c->wrong <= 0; }

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* Largest sweep size of `coll` measured at n with a busbw (by size, not bytes: see nvs_run_coll.size), out of
 * place where both are. */
static const nvs_run_coll *largest(const nvs_run *r, const char *coll, int n)
{
    const nvs_run_coll *best = NULL;
    for (size_t i = 0; i < r->ncolls; i++) {
        const nvs_run_coll *c = &r->colls[i];
        if (c->n != n || strcmp(c->collective, coll) || !evidence(c)) continue;
        if (!best || c->size > best->size || (c->size == best->size && best->inplace && !c->inplace)) best = c;
    }
    return best;
}

/* Transport word from a run.json transports entry: summary keys in the order P2P, SHM, NET, others. */
static const char *transport_of(const nvs_run_transport *t, char *buf, size_t len)
{
    static const char *const order[] = {"P2P", "SHM", "NET"};
    size_t used = 0;
    buf[0] = '\0';
    for (int o = 0; o <= 3; o++) {
        for (size_t i = 0; i < t->nsummary; i++) {
            const char *k = t->summary[i].key;
            int known = !strcmp(k, "P2P") || !strcmp(k, "SHM") || !strcmp(k, "NET");
            if (t->summary_counts[i] <= 0) continue;
            if (o < 3 ? strcmp(k, order[o]) : known) continue;
            int w = snprintf(buf + used, len - used, "%s%s", used ? "+" : "", k);
            if (w < 0 || (size_t)w >= len - used) return buf;
            used += (size_t)w;
        }
    }
    return buf;
}

/* The training result at n of the workload with the lowest efficiency there (the first listed where none has
 * one), and that workload's model name (may be NULL) */
/* the smallest N the workload trained at: its efficiencies' reference */
static int train_ref_n(const nvs_run_train *t)
{
    int ref = 0;
    for (size_t i = 0; i < t->nresults; i++)
        if (t->results[i].n >= 1 && (!ref || t->results[i].n < ref)) ref = t->results[i].n;
    return ref;
}

static const nvs_run_train_result *worst_train_at(const nvs_run *r, int n, const char **model, int *ref_n)
{
    const nvs_run_train_result *worst = NULL;
    for (size_t w = 0; w < nvs_run_workloads(r); w++) {
        const nvs_run_train *t = nvs_run_workload(r, w);
        for (size_t i = 0; i < t->nresults; i++) {
            const nvs_run_train_result *x = &t->results[i];
            if (x->n != n) continue;
            if (!worst || (!isnan(x->efficiency) && (isnan(worst->efficiency) || x->efficiency < worst->efficiency))) {
                worst = x;
                *model = t->model;
                *ref_n = train_ref_n(t);
            }
            break;
        }
    }
    return worst;
}

void nvs_explain_facts_from_run(const nvs_run *r, int n, nvs_explain_facts *f)
{
    nvs_explain_facts_init(f, n);
    f->host_ranks = r->backend && !strcmp(r->backend, "mpi");
    if (n < 1) return;
    int measured = 0;
    for (size_t i = 0; i < r->ncolls && !measured; i++) measured = r->colls[i].n == n;
    for (size_t w = 0; w < nvs_run_workloads(r) && !measured; w++)
        for (size_t i = 0; i < nvs_run_workload(r, w)->nresults && !measured; i++)
            measured = nvs_run_workload(r, w)->results[i].n == n;
    f->not_measured = !measured;
    /* slowest hop: of the GPUs' ring; ranks of the host backend move host memory, whatever GPUs the machine has */
    if (n >= 2 && r->topology.present && !f->host_ranks) nvs_ex_ring_hop(r, n, f);
    /* transport */
    const nvs_run_transport *t = nvs_run_transport_of(r, n);
    if (t) {
        transport_of(t, f->transport, sizeof f->transport);
        nvs_nccl_net_name(t->net_detail, f->net, sizeof f->net);
        nvs_nccl_net_name(t->collnet_detail, f->collnet, sizeof f->collnet);
        f->nvls = t->nvls;
    }
    const char *pd = nvs_run_env(r, "NCCL_P2P_DISABLE");
    if (pd && strcmp(pd, "0")) f->p2p_disabled_by = pd[0] == '1' && !pd[1] ? "NCCL_P2P_DISABLE=1" : "NCCL_P2P_DISABLE";
    else if (nvs_run_env(r, "NCCL_P2P_LEVEL")) f->p2p_disabled_by = "NCCL_P2P_LEVEL";
    /* busbw */
    const char *coll = NULL;
    for (size_t i = 0; i < r->ncolls && !coll; i++)
        if (r->colls[i].n == n && !strcmp(r->colls[i].collective, "all_reduce")) coll = "all_reduce";
    for (size_t i = 0; i < r->ncolls && !coll; i++)
        if (r->colls[i].n == n) coll = r->colls[i].collective;
    if (coll) {
        f->collective = coll;
        for (size_t i = 0; i < r->ncolls; i++)
            if (r->colls[i].n == n && !strcmp(r->colls[i].collective, coll) && r->colls[i].wrong > 0) {
                f->failed_rows++;
                f->failed_wrong += r->colls[i].wrong;
            }
        const nvs_run_coll *c = largest(r, coll, n);
        if (c) {
            f->busbw_gbps = c->busbw_gbps;
            f->busbw_bytes = c->bytes;
            /* the previous N >= 2 with the same collective at the same sweep size (its bytes may differ: all_gather's
             * 1 GiB of float is 1073741808 B at N=3 and 1073741824 B at N=2), type, op and placement: the row
             * compared is the one that made that N the choice. Not a lookup after the choice: an in-place row with
             * a busbw chose an N whose out-of-place row had none, and nothing was compared */
            const nvs_run_coll *prev = NULL;
            for (size_t i = 0; i < r->ncolls; i++) {
                const nvs_run_coll *p = &r->colls[i];
                if (p->n < 2 || p->n >= n || p->size != c->size || strcmp(p->collective, coll) ||
                    p->inplace != c->inplace || !same_str(p->type, c->type) || !same_str(p->op, c->op) || !evidence(p))
                    continue;
                if (!prev || p->n > prev->n) prev = p;
            }
            if (prev) {
                f->prev_n = prev->n;
                f->prev_busbw_gbps = prev->busbw_gbps;
            }
        }
    }
    if (several_hosts(r)) {
        f->hosts = hosts_at(r, n, &f->per_host);
        if (f->prev_n) f->prev_hosts = hosts_at(r, f->prev_n, NULL);
    }
    /* training: of the workload that scales worst at n, which the verdict names (the first one's figures were said
     * beside a verdict naming another: results/h200x2-final5 "resnet50 keeps 88.9 %" over bert-large's "0.1 % of
     * the step exposed", where resnet50's was 9.8 %) */
    const char *model = NULL;
    const nvs_run_train_result *tr = worst_train_at(r, n, &model, &f->train_ref_n);
    if (tr && nvs_run_workloads(r) > 1) f->workload = model;
    if (tr && !isnan(tr->step_us) && tr->step_us > 0) {
        if (!isnan(tr->compute_us)) f->train_lost_ms = fmax(0.0, tr->step_us - tr->compute_us) / 1e3;
        double exposed = tr->exposed_comm_us;
        if (isnan(exposed) && !isnan(tr->compute_us)) exposed = tr->step_us - tr->compute_us;
        if (!isnan(exposed)) f->exposed_comm_pct = 100.0 * exposed / tr->step_us;
        f->predicted_comm_us = tr->predicted_comm_us;
        f->measured_comm_us = tr->comm_us;
        if (!isnan(tr->rank_wait_us)) f->rank_wait_pct = 100.0 * tr->rank_wait_us / tr->step_us;
        f->step_ms = tr->step_us / 1e3;
        f->contention_ms = tr->contention_us / 1e3;
        f->interference_ms = tr->interference_us / 1e3;
        f->host_rate_p10 = tr->host_rate_p10;
        f->host_rate_p90 = tr->host_rate_p90;
        if (!isnan(tr->issue_us)) f->issue_pct = 100.0 * tr->issue_us / tr->step_us;
        for (int i = 0; i < tr->nissue_by; i++) { /* the two largest, larger first */
            double ms = tr->issue_by_us[i] / 1e3;
            int at = !f->issue_top[0] || ms > f->issue_top_ms[0] ? 0 : 1;
            if (at == 1 && f->issue_top[1] && ms <= f->issue_top_ms[1]) continue;
            if (at == 0) { /* the first moves down */
                f->issue_top[1] = f->issue_top[0];
                f->issue_top_ms[1] = f->issue_top_ms[0];
            }
            f->issue_top[at] = tr->issue_by_kind[i];
            f->issue_top_ms[at] = ms;
        }
    }
}
