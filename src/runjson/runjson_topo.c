/* run.json reader: the "topology" section (topo/topo_json.c): hosts, GPUs with their PCIe, NVLink and network
 * links, GPU pairs with their class and bound, and the pairs' index that nvs_run_topology_pair (runjson_query.c)
 * searches. Its own file: the one section with a derived structure (the sorted index) beside what it reads. */
#include "runjson/runjson_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- keys given twice: GPUs by index, pairs by their two GPUs ------------------------------------------------- */

/* Keys sort by lo, then hi (0 for a GPU's key), then place in the file: a repeat sits right after its first. */
static int cmp_key(const void *x, const void *y)
{
    const nvs_run_pair_key *p = x, *q = y;
    if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
    if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
    return (p->pos > q->pos) - (p->pos < q->pos); /* the same key twice: the first in the file comes first */
}

/* In N keys sorted by cmp_key, the repeat earliest in the file (its first in *first), or NULL: the one a message
 * names. Sorted, not compared pairwise: a topology may hold thousands of GPUs and millions of pairs. */
static const nvs_run_pair_key *earliest_repeat(const nvs_run_pair_key *k, size_t n, const nvs_run_pair_key **first)
{
    const nvs_run_pair_key *again = NULL;
    for (size_t i = 1, start = 0; i < n; i++) {
        if (k[i].lo != k[start].lo || k[i].hi != k[start].hi) start = i;
        else if (i == start + 1 && (!again || k[i].pos < again->pos)) { /* each group's second is its first repeat */
            again = &k[i];
            *first = &k[start];
        }
    }
    return again;
}

/* One entry per GPU index: the lookups by index (nvs_run_gpu_at) found the first and never the second, so which
 * GPU's bus, links and bounds a row used hung on the order of a hand-edited or merged file; nvscale never writes
 * one. Refused, naming the earliest repeat and its first, as a pair given twice is (below). */
static void refuse_repeated_gpus(vctx *v, const nvs_run_topology *tp)
{
    if (tp->ngpus < 2) return;
    nvs_run_pair_key *k = rj_alloc(v, tp->ngpus, sizeof *k);
    if (!k) return;
    for (size_t i = 0; i < tp->ngpus; i++) k[i] = (nvs_run_pair_key){.lo = tp->gpus[i].index, .pos = i};
    qsort(k, tp->ngpus, sizeof *k, cmp_key);
    const nvs_run_pair_key *first = NULL, *again = earliest_repeat(k, tp->ngpus, &first);
    if (again)
        rj_fail(v, "topology.gpus[%zu].index: GPU %d given twice (first at topology.gpus[%zu]): one entry per GPU",
                again->pos, again->lo, first->pos);
    free(k);
}

/* ---- topology pairs: looked up by GPU indices ------------------------------------------------------------------ */

/* A pair's key: its lower GPU index, then its higher one (either order in the file). */
static void pair_key(const nvs_run_pair *p, int *lo, int *hi)
{
    *lo = p->a < p->b ? p->a : p->b;
    *hi = p->a < p->b ? p->b : p->a;
}

/* One entry per pair of GPUs (in either order): the lookups found the first and never the second, so which bound
 * and class report's matrix and check's percentages used hung on the order of a hand-edited or merged file;
 * nvscale never writes one. Refused, naming both, as a collective row or a workload's N given twice
 * (runjson_coll.c, runjson_train.c). */
static void refuse_repeated_pairs(vctx *v, const nvs_run_topology *tp)
{
    const nvs_run_pair_key *first = NULL, *again = earliest_repeat(tp->pair_index, tp->npairs, &first);
    if (again)
        rj_fail(v, "topology.pairs[%zu]: GPUs %d and %d given twice (first at topology.pairs[%zu]): one entry per pair",
                again->pos, again->lo, again->hi, first->pos);
}

/* tp->pair_index: the pairs' keys sorted, for a binary search per lookup (report's matrix looks up every pair of
 * GPUs: a scan per lookup took 15 s for 512 GPUs and grows with the fourth power). */
static void index_pairs(vctx *v, nvs_run_topology *tp)
{
    if (!tp->npairs) return;
    tp->pair_index = rj_alloc(v, tp->npairs, sizeof *tp->pair_index);
    if (!tp->pair_index) return;
    for (size_t i = 0; i < tp->npairs; i++) {
        pair_key(&tp->pairs[i], &tp->pair_index[i].lo, &tp->pair_index[i].hi);
        tp->pair_index[i].pos = i;
    }
    qsort(tp->pair_index, tp->npairs, sizeof *tp->pair_index, cmp_key);
    refuse_repeated_pairs(v, tp);
}

/* topology.hosts, which check's host rules read from the document (a host with one GPU: its "all at once" copies
 * are the single ones): validated so that a hand-edited name or GPU list is bad input naming its path, not a row
 * "not measured" on a guess. Only checked: no reader here keeps it. */
static void read_topo_hosts(vctx *v, const json_t *t)
{
    json_t *a = rj_typed(v, t, "hosts", "topology", JSON_ARRAY, 0);
    for (size_t i = 0; a && i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN], e[PATH_MAX_LEN];
        json_t *h = rj_elem_obj(v, a, i, "topology.hosts", p);
        if (!h) break;
        (void)rj_str(v, h, "name", p, 0);
        (void)rj_str(v, h, "machine", p, 0);
        json_t *g = rj_typed(v, h, "gpus", p, JSON_ARRAY, 0);
        rj_kpath(q, p, "gpus");
        for (size_t k = 0; g && k < json_array_size(g) && !v->failed; k++) {
            json_t *x = json_array_get(g, k);
            if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 1000000000)
                rj_type_fail(v, rj_ipath(e, q, k), "an integer from 0 to 1000000000", x);
        }
    }
}

/* The machine of the host named `host` in topology.hosts (validated by read_topo_hosts), NULL if none says */
static const char *host_machine(const json_t *t, const char *host)
{
    const json_t *hosts = json_object_get(t, "hosts");
    for (size_t i = 0; host && i < json_array_size(hosts); i++) {
        const json_t *h = json_array_get(hosts, i);
        const char *n = json_string_value(json_object_get(h, "name"));
        if (n && !strcmp(n, host)) return json_string_value(json_object_get(h, "machine"));
    }
    return NULL;
}

void rj_read_topology(vctx *v, nvs_run *r)
{
    json_t *t = rj_typed(v, r->root, "topology", "", JSON_OBJECT, 0);
    if (!t) return;
    nvs_run_topology *tp = &r->topology;
    tp->present = 1;
    tp->source = rj_str(v, t, "source", "topology", 0);
    read_topo_hosts(v, t);
    json_t *g = rj_typed(v, t, "gpus", "topology", JSON_ARRAY, 0);
    if (g && (tp->gpus = rj_alloc(v, json_array_size(g), sizeof *tp->gpus))) {
        for (size_t i = 0; i < json_array_size(g) && !v->failed; i++) {
            char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
            json_t *e = rj_elem_obj(v, g, i, "topology.gpus", p);
            if (!e) break;
            nvs_run_gpu *x = &tp->gpus[tp->ngpus++];
            x->index = (int)rj_int(v, e, "index", p, 0, 1000000000, -1, 1);
            x->cuda_device = (int)rj_int(v, e, "cuda_device", p, -1, 1000000, -1, 0);
            x->numa_node = (int)rj_int(v, e, "numa_node", p, -1, 1000000, -1, 0);
            x->host = rj_str(v, e, "host", p, 0);
            x->name = rj_str(v, e, "name", p, 0);
            x->pci_bus_id = rj_str(v, e, "pci_bus_id", p, 0);
            x->cpuset = rj_str(v, e, "cpuset", p, 0);
            x->pcie_gen = x->pcie_width = x->nvlink_links_up = x->nvlink_version = -1;
            x->pcie_gbps = x->nvlink_gbps_per_link = NAN;
            json_t *pc = rj_typed(v, e, "pcie", p, JSON_OBJECT, 0);
            if (pc) {
                rj_kpath(q, p, "pcie");
                x->pcie_gen = (int)rj_int(v, pc, "gen", q, 0, 100, -1, 0);
                x->pcie_width = (int)rj_int(v, pc, "width", q, 0, 1024, -1, 0);
                x->pcie_gbps = rj_num(v, pc, "gbps", q, 0);
            }
            json_t *nv = rj_typed(v, e, "nvlink", p, JSON_OBJECT, 0);
            if (nv) {
                rj_kpath(q, p, "nvlink");
                x->nvlink_links_up = (int)rj_int(v, nv, "links_up", q, 0, 1024, -1, 0);
                x->nvlink_version = (int)rj_int(v, nv, "version", q, 0, 100, -1, 0);
                x->nvlink_gbps_per_link = rj_num(v, nv, "gbps_per_link", q, 0);
            }
            x->net_gbps = NAN;
            json_t *net = rj_typed(v, e, "net", p, JSON_OBJECT, 0);
            if (net) {
                rj_kpath(q, p, "net");
                x->net_gbps = rj_num(v, net, "gbps", q, 0);
                x->net_source = rj_str(v, net, "source", q, 0);
            }
            x->machine = host_machine(t, x->host);
        }
    }
    if (!v->failed) refuse_repeated_gpus(v, tp);
    tp->net_gbps_given = rj_num(v, t, "net_gbps", "topology", 0);
    json_t *pa = rj_typed(v, t, "pairs", "topology", JSON_ARRAY, 0);
    if (pa && (tp->pairs = rj_alloc(v, json_array_size(pa), sizeof *tp->pairs))) {
        for (size_t i = 0; i < json_array_size(pa) && !v->failed; i++) {
            char p[PATH_MAX_LEN];
            json_t *e = rj_elem_obj(v, pa, i, "topology.pairs", p);
            if (!e) break;
            nvs_run_pair *x = &tp->pairs[tp->npairs++];
            x->a = (int)rj_int(v, e, "a", p, 0, 1000000000, -1, 1);
            x->b = (int)rj_int(v, e, "b", p, 0, 1000000000, -1, 1);
            x->cls = rj_str(v, e, "class", p, 0);
            x->nvlinks = (int)rj_int(v, e, "nvlinks", p, 0, 1024, -1, 0);
            x->pcie_class = rj_str(v, e, "pcie_class", p, 0);
            x->bound_gbps = rj_num(v, e, "bound_gbps", p, 0);
            x->bound_source = rj_str(v, e, "bound_source", p, 0);
            x->p2p_cuda = -1;
            json_t *pp = rj_typed(v, e, "p2p", p, JSON_OBJECT, 0);
            if (pp) {
                char q[PATH_MAX_LEN];
                x->p2p_cuda = rj_bool(v, pp, "cuda", rj_kpath(q, p, "p2p"), -1);
            }
        }
    }
    if (!v->failed) index_pairs(v, tp);
}
