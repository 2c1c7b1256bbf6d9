/* The slowest hop of the best ring over the GPUs at N, from a run (explain_priv.h), and the hop set into the
 * facts (nvs_explain_set_hop). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "core/ring.h"
#include "explain/explain_priv.h"

/* The topology GPU of each position of the ring at n (n entries), or 0 if the run cannot say. */
static int ring_gpus(const nvs_run *r, int n, int *out)
{
    const nvs_run_scaling *sc = nvs_run_scaling_of(r, n);
    if (sc && sc->gpus && sc->ngpus == (size_t)n) {
        memcpy(out, sc->gpus, (size_t)n * sizeof *out);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        int rank = sc && sc->ranks && sc->nranks == (size_t)n ? sc->ranks[i] : i;
        out[i] = rank;
        for (size_t k = 0; k < r->nranks; k++)
            if (r->ranks[k].rank == rank && r->ranks[k].topo_gpu >= 0) out[i] = r->ranks[k].topo_gpu;
    }
    return 1;
}

void nvs_explain_set_hop(nvs_explain_facts *f, int from_gpu, int to_gpu, const char *cls, double bound_gbps,
                         const char *bound_source, int p2p)
{
    f->has_hop = 1;
    f->hop_from_gpu = from_gpu;
    f->hop_to_gpu = to_gpu;
    f->hop_class = cls;
    f->bound_gbps = bound_gbps;
    f->bound_source = bound_source;
    f->hop_p2p = p2p;
}

/* 1 when hop p is slower than worst: both bounds known, the lower one (ties: the worse class); else the worse
 * class, so that a network hop of unknown rate is not taken for faster than NVLink */
static int slower_hop(const nvs_run_pair *p, const nvs_run_pair *worst)
{
    if (!worst) return 1;
    int pr = nvs_link_class_rank_of(p->cls), wr = nvs_link_class_rank_of(worst->cls);
    if (isnan(p->bound_gbps) || isnan(worst->bound_gbps)) return pr > wr;
    return p->bound_gbps < worst->bound_gbps || (p->bound_gbps == worst->bound_gbps && pr > wr);
}

/* The slowest hop of the best ring over the GPUs at n, as NCCL builds its rings over the GPUs it has, not in rank
 * order. The run's own "explain" entry at n first: the run found that ring over its live topology with the
 * transport NCCL used (run/out_explain.c), and its Why text, check's min_bound and the report's warnings quote
 * that bound. Else the same search (core/ring.h) over the file's pairs; the ring in rank order (0-1-2-3 where
 * 0-2-1-3 is faster) was the bound of a ring NCCL need not build, and the report's "% of bound" disagreed with
 * the Why paragraph above it. */
void nvs_ex_ring_hop(const nvs_run *r, int n, nvs_explain_facts *f)
{
    const nvs_run_explain *e = nvs_run_explain_of(r, n);
    if (e && e->has_hop) {
        nvs_run_pair_buf pb;
        const nvs_run_pair *p = nvs_run_pair_of(r, e->hop_from_gpu, e->hop_to_gpu, &pb);
        nvs_explain_set_hop(f, e->hop_from_gpu, e->hop_to_gpu, e->hop_class, e->bound_gbps, e->hop_source,
                            p ? p->p2p_cuda : -1);
        return;
    }
    int *ring = malloc((size_t)n * sizeof *ring), *order = malloc((size_t)n * sizeof *order), k = 0;
    if (!ring || !order || !ring_gpus(r, n, ring)) goto out;
    /* the distinct GPUs the topology lists: several ranks on one GPU cross no link between them, and a GPU it does not
     * list has no pair to build a ring through or to name (every hop to it is unknown). The topology bounds the
     * work: a file whose scaling says N = 8576 with two GPUs listed made 8576 "GPUs" of the ranks' numbers, and
     * 73 million pair lookups (41 s; fuzz_runjson) */
    for (int i = 0; i < n; i++) {
        if (!nvs_run_gpu_at(r, ring[i])) continue;
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) seen = ring[j] == ring[i];
        if (!seen) ring[k++] = ring[i];
    }
    if (k < 2) goto out;
    double *w = malloc((size_t)k * (size_t)k * sizeof *w);
    if (!w) goto out;
    /* a pair the file does not list (a partial topology) is below every other: no ring is built through it
     * where another exists, and it is not named as the slowest hop, as the file says nothing of it */
    nvs_run_pair_buf cur, kept;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            const nvs_run_pair *p = i == j ? NULL : nvs_run_pair_of(r, ring[i], ring[j], &cur);
            w[i * k + j] = i == j ? 0 : !p ? -2 : isnan(p->bound_gbps) ? -1 : p->bound_gbps;
        }
    nvs_ring_best_cycle(w, k, order);
    free(w);
    const nvs_run_pair *worst = NULL;
    for (int i = 0; i < k; i++) {
        const nvs_run_pair *p = nvs_run_pair_of(r, ring[order[i]], ring[order[(i + 1) % k]], &cur);
        if (!p || !slower_hop(p, worst)) continue;
        if (p == &cur.pair) { /* a hop between hosts is built in `cur`, which the next hop reuses */
            kept = cur;
            kept.pair.bound_source = kept.source;
            p = &kept.pair;
        }
        worst = p;
    }
    if (worst)
        nvs_explain_set_hop(f, worst->a, worst->b, worst->cls, worst->bound_gbps, worst->bound_source,
                            worst->p2p_cuda);
out:
    free(ring);
    free(order);
}
