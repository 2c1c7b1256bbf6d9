/* run.json (schema nvscale.run/1, docs/run-json.md): everything a run measured, built with jansson. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "run/run.h"
#include "runjson/runjson_write.h"

/* Sets key to a new value, taking the reference; returns -1 (and frees) on failure so callers can chain. */
static int put(json_t *o, const char *k, json_t *v)
{
    if (!v) return -1;
    return json_object_set_new(o, k, v);
}

static json_t *ranks_json(const nvs_ctx *run)
{
    json_t *a = json_array();
    for (int r = 0; a && r < run->rt->size; r++) {
        const nvs_rank_info *ri = &run->ranks[r];
        json_t *o = json_pack("{s:i, s:s, s:i, s:i, s:i, s:s}", "rank", ri->rank, "host", ri->host, "node", ri->node,
                              "local_rank", ri->local_rank, "device", ri->device, "gpu", ri->gpu);
        /* a GPU's: the host backend has no bus id and no device memory, and a value not measured is absent, never
         * 0 or "" (docs/run-json.md); bytes are whole */
        if (o && ri->pci_bus_id[0]) put(o, "pci_bus_id", json_string(ri->pci_bus_id));
        if (o && ri->memory_bytes > 0) put(o, "memory_bytes", json_integer((json_int_t)llround(ri->memory_bytes)));
        if (o && ri->topo_gpu >= 0) put(o, "topo_gpu", json_integer(ri->topo_gpu));
        if (o && run->rt->emulated_nodes) put(o, "machine", json_string(ri->machine));
        if (o && ri->cpus_allowed > 0) put(o, "cpus_allowed", json_integer(ri->cpus_allowed));
        if (!o || json_array_append_new(a, o)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* world: size, hosts (node order) with their ranks; under --emulate-nodes the virtual hosts and their machine */
static json_t *world_json(const nvs_ctx *run)
{
    const nvs_rt *rt = run->rt;
    json_t *w = json_pack("{s:i, s:i}", "size", rt->size, "nodes", rt->nnodes);
    if (!w || !run->ranks) return w;
    if (rt->emulated_nodes) put(w, "emulated_nodes", json_integer(rt->emulated_nodes));
    json_t *hosts = json_array();
    for (int node = 0; hosts && node < rt->nnodes; node++) {
        int first = -1;
        for (int r = 0; r < rt->size && first < 0; r++)
            if (run->ranks[r].node == node) first = r;
        if (first < 0) continue;
        json_t *ranks = json_array();
        for (int r = first; ranks && r < rt->size; r++)
            if (run->ranks[r].node == node) json_array_append_new(ranks, json_integer(r));
        json_t *h = json_pack("{s:s, s:i, s:o}", "name", run->ranks[first].host, "node", node, "ranks", ranks);
        if (h && rt->emulated_nodes) put(h, "machine", json_string(run->ranks[first].machine));
        if (!h || json_array_append_new(hosts, h)) {
            json_decref(hosts);
            hosts = NULL;
        }
    }
    put(w, "hosts", hosts);
    return w;
}

static json_t *mask_names(unsigned mask, int count, const char *(*name)(int))
{
    json_t *a = json_array();
    for (int i = 0; a && i < count; i++)
        if (mask & (1u << i)) json_array_append_new(a, json_string(name(i)));
    return a;
}
static const char *tname(int i) { return nvs_dtype_name((nvs_dtype)i); }
static const char *oname(int i) { return nvs_redop_name((nvs_redop)i); }
static const char *cname(int i) { return nvs_coll_at(i)->name; }

/* `host`: the host backend's buffers are host memory (malloc), whatever --alloc says (it refuses --alloc nccl) */
static json_t *sweep_json(const nvs_config *c, int host)
{
    json_t *o = json_pack("{s:I, s:I, s:f, s:I, s:i, s:i, s:i, s:i, s:f, s:i}", "min_bytes", (json_int_t)c->min_bytes,
                          "max_bytes", (json_int_t)c->max_bytes, "step_factor", c->step_factor, "step_bytes",
                          (json_int_t)c->step_bytes, "iters", c->iters, "warmup", c->warmup, "check", c->check,
                          "graph_launches", c->graph_launches, "timeout_s", c->timeout_s, "root", c->root);
    if (!o) return NULL;
    put(o, "types", mask_names(c->types_mask, NVS_DTYPE_COUNT, tname));
    put(o, "ops", mask_names(c->ops_mask, NVS_OP_COUNT, oname));
    put(o, "collectives", mask_names(c->colls_mask, nvs_coll_count(), cname));
    put(o, "agg_iters", json_integer(c->agg_iters));
    put(o, "blocking", json_integer(c->blocking)); /* -z: 0, 1 (a barrier after each wait), 2 (none) */
    put(o, "alloc", json_string(host ? "host" : c->alloc_nccl ? "ncclMemAlloc" : "cudaMalloc"));
    static const char *const basis[] = {"rank0", "mean", "fastest", "slowest"};
    put(o, "time_basis", json_string(basis[c->time_basis & 3]));
    put(o, "inplace", json_string(c->inplace_mask == (NVS_INPLACE_IN | NVS_INPLACE_OUT) ? "both"
                                  : c->inplace_mask == NVS_INPLACE_IN                   ? "in"
                                                                                         : "out"));
    return o;
}

/* The sizes the sweep left out at some N as too small for its ranks (rows.h), each with why: no silent gap */
static json_t *skipped_json(const nvs_coll_rows *rows)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < rows->nskips; i++) {
        const nvs_coll_skip *k = &rows->skips[i];
        char why[256];
        json_t *o = json_pack("{s:s, s:i, s:s, s:i, s:i, s:I, s:I, s:s}", "collective", nvs_coll_at(k->coll)->name,
                              "n", k->n, "type", nvs_dtype_name(k->type), "sizes", k->sizes, "of", k->planned,
                              "from_bytes", (json_int_t)k->first, "to_bytes", (json_int_t)k->last, "why",
                              nvs_coll_skip_text(k, why, sizeof why));
        if (!o || json_array_append_new(a, o)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *scaling_json(const nvs_ctx *run)
{
    json_t *a = json_array();
    for (int p = 0; a && p < run->npoints; p++) {
        json_t *ranks = json_array(), *gpus = json_array();
        for (int i = 0; i < run->points[p].n; i++) {
            int r = run->points[p].ranks[i];
            json_array_append_new(ranks, json_integer(r));
            if (run->ranks && run->ranks[r].topo_gpu >= 0)
                json_array_append_new(gpus, json_integer(run->ranks[r].topo_gpu));
        }
        json_t *o = json_pack("{s:i, s:o, s:o}", "n", run->points[p].n, "ranks", ranks, "gpus", gpus);
        if (!o || json_array_append_new(a, o)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static json_t *rows_json(const nvs_ctx *run)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < run->rows.n; i++) {
        const nvs_coll_row *r = &run->rows.v[i];
        json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:i, s:b, s:I, s:I, s:I, s:i, s:b, s:{s:f, s:f, s:f}, s:i, s:o,"
                              " s:o}",
                              "collective", nvs_coll_at(r->coll)->name, "n", r->n, "type", nvs_dtype_name(r->type),
                              "op", r->op < 0 ? "none" : nvs_redop_name((nvs_redop)r->op), "root", r->root,
                              "inplace", r->inplace, "size", (json_int_t)r->size, "bytes", (json_int_t)r->bytes,
                              "count", (json_int_t)r->count,
                              "iters", r->iters, "graph", r->graph_launches > 0, "time_us", "min", r->t_min_us, "avg",
                              r->t_avg_us, "max", r->t_max_us, "slowest_rank", r->slowest_rank, "algbw_gbps",
                              nvs_rj_num(r->algbw_gbps), "busbw_gbps", nvs_rj_num(r->busbw_gbps));
        if (!o) {
            json_decref(a);
            return NULL;
        }
        if (r->graph_launches) put(o, "graph_launches", json_integer(r->graph_launches));
        put(o, "wrong", nvs_rj_int(r->wrong));
        if (r->wrong > 0) {
            put(o, "wrong_rank", json_integer(r->wrong_rank));
            put(o, "first_wrong_element", json_integer((json_int_t)r->first_wrong));
        }
        json_array_append_new(a, o);
    }
    return a;
}

json_t *nvs_ctx_to_json(const nvs_ctx *run, nvs_result_t status, double duration_s)
{
    const nvs_config *cfg = run->cfg;
    nvs_rj_head h = {.subcommand = cfg->subcommand, .argc = cfg->argc, .argv = cfg->argv, .launcher = run->launcher,
                     .backend = run->backend.ops ? run->backend.ops->name : "none", .no_gpu = run->no_gpu,
                     .started_utc = run->started_utc,
                     .host = run->rt->host, .versions = &run->versions};
    json_t *root = nvs_rj_doc_new(&h);
    if (!root) return NULL;
    put(root, "duration_s", json_real(duration_s));
    put(root, "world", world_json(run));
    if (run->ranks) put(root, "ranks", ranks_json(run));
    if (run->topology) json_object_set(root, "topology", run->topology);
    if (strcmp(cfg->subcommand, "train")) {
        json_t *sw = sweep_json(cfg, h.backend && !strcmp(h.backend, "mpi"));
        if (sw && run->rows.nskips) put(sw, "skipped", skipped_json(&run->rows));
        put(root, "sweep", sw);
    }
    put(root, "scaling", scaling_json(run));
    put(root, "collectives", rows_json(run)); /* always present (empty for `train`): readers can rely on it */
    if (run->transports) json_object_set(root, "transports", run->transports);
    /* "train": the first workload (what single-workload readers take); "trains": all of them */
    if (run->trains && json_array_size(run->trains)) {
        json_object_set(root, "train", json_array_get(run->trains, 0));
        json_object_set(root, "trains", run->trains);
    }
    if (run->health) json_object_set(root, "health", run->health);
    if (run->p2p) json_object_set(root, "p2p", run->p2p);
    if (run->sustain) json_object_set(root, "sustain", run->sustain);
    if (run->selftest) json_object_set(root, "gpu_selftest", run->selftest);
    long long wrong = run->phase_wrong;
    for (size_t i = 0; i < run->rows.n; i++)
        if (run->rows.v[i].wrong > 0) wrong += run->rows.v[i].wrong;
    if (run->running)
        nvs_rj_set_running(root, wrong);
    else
        nvs_rj_set_result_reason(root, status, wrong, run->reason[0] ? run->reason : NULL);
    return root;
}
