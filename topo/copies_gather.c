/* Gathering the copy measurements of every host (copies.h): one JSON message per measuring rank, through
 * nvs_allgather_blobs; pairs and GPUs re-keyed by (host, PCI bus id) into the gathered topology. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "topo/copies.h"
#include "topo/topo_live.h"

static char *message(const nvs_topology *local, const nvs_p2p_result *pairs, const nvs_h2d_result *host,
                     const char *skip_what, const char *skip_why, const char *hostname)
{
    json_t *o = json_pack("{s:s}", "host", hostname);
    if (!o) return NULL;
    if (pairs && local) json_object_set_new(o, "pairs", nvs_p2p_to_json(local, pairs));
    if (host && local) json_object_set_new(o, "host_copies", nvs_h2d_to_json(local, host));
    if (skip_why)
        json_object_set_new(o, "skipped",
                            json_pack("{s:s, s:s}", "what", skip_what ? skip_what : "copies", "why", skip_why));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

static nvs_result_t add_pairs(const nvs_topology *global, const json_t *pj, int rank, nvs_p2p_result *out)
{
    nvs_p2p_result part;
    char err[256];
    if (nvs_p2p_from_json(pj, &part, err, sizeof err) != NVS_OK) {
        nvs_error("p2p results of rank %d unreadable: %s", rank, err);
        return NVS_ERR_SYSTEM;
    }
    nvs_result_t r = NVS_OK;
    const json_t *pairs = json_object_get(pj, "pairs");
    out->copy_bytes = part.copy_bytes;
    out->iters = part.iters;
    out->warmup = part.warmup;
    out->samples = part.samples;
    out->latency_iters = part.latency_iters;
    nvs_p2p_pair *grown = realloc(out->pairs, (size_t)(out->npairs + part.npairs + 1) * sizeof *grown);
    if (!grown) r = NVS_ERR_NOMEM;
    else out->pairs = grown;
    for (int k = 0; k < part.npairs && r == NVS_OK; k++) {
        const json_t *pk = json_array_get(pairs, (size_t)k);
        const char *host = json_string_value(json_object_get(pk, "host"));
        nvs_p2p_pair p = part.pairs[k];
        p.src = nvs_topo_find_gpu(global, host, json_string_value(json_object_get(pk, "src_pci_bus_id")));
        p.dst = nvs_topo_find_gpu(global, host, json_string_value(json_object_get(pk, "dst_pci_bus_id")));
        if (p.src < 0 || p.dst < 0) {
            nvs_error("p2p pair of rank %d (host %s) not in the gathered topology", rank, host ? host : "?");
            r = NVS_ERR_SYSTEM;
        } else
            out->pairs[out->npairs++] = p;
    }
    nvs_p2p_result_free(&part);
    return r;
}

static nvs_result_t add_host(const nvs_topology *global, const json_t *hj, int rank, nvs_h2d_result *out)
{
    nvs_h2d_result part;
    char err[256];
    if (nvs_h2d_from_json(hj, global, &part, err, sizeof err) != NVS_OK) {
        nvs_error("host copy results of rank %d unreadable: %s", rank, err);
        return NVS_ERR_SYSTEM;
    }
    nvs_h2d_gpu *grown = realloc(out->gpus, (size_t)(out->ngpus + part.ngpus + 1) * sizeof *grown);
    if (!grown) {
        nvs_h2d_result_free(&part);
        return NVS_ERR_NOMEM;
    }
    out->gpus = grown;
    memcpy(out->gpus + out->ngpus, part.gpus, (size_t)part.ngpus * sizeof *part.gpus);
    out->ngpus += part.ngpus;
    out->copy_bytes = part.copy_bytes;
    out->iters = part.iters;
    out->warmup = part.warmup;
    out->samples = part.samples; /* was left 0: run.json's samples 0 failed its own read back (H100, 6 Dec) */
    memcpy(out->numa_binding, part.numa_binding, sizeof out->numa_binding);
    nvs_h2d_result_free(&part);
    return NVS_OK;
}

nvs_result_t nvs_copies_gather(nvs_rt *rt, const nvs_topology *local, const nvs_topology *global,
                               const nvs_p2p_result *pairs, const nvs_h2d_result *host, const char *skip_what,
                               const char *skip_why, nvs_copies *out)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    if (pairs || host || skip_why) {
        text = message(local, pairs, host, skip_what, skip_why, rt->host);
        if (!text) return NVS_ERR_NOMEM;
    }
    char **all;
    size_t *lens;
    nvs_result_t r = nvs_allgather_blobs(rt, text, text ? strlen(text) : 0, &all, &lens, "gathering copy results");
    free(text);
    if (r != NVS_OK) return r;
    if (rt->rank == 0) {
        out->skipped = json_array();
        if (!out->skipped) r = NVS_ERR_NOMEM;
        for (int k = 0; k < rt->size && r == NVS_OK; k++) {
            if (!lens[k]) continue;
            json_error_t je;
            json_t *j = json_loads(all[k], 0, &je);
            if (!j) {
                nvs_error("copy results of rank %d unreadable: %s", k, je.text);
                r = NVS_ERR_SYSTEM;
                break;
            }
            const json_t *pj = json_object_get(j, "pairs"), *hj = json_object_get(j, "host_copies");
            json_t *sj = json_object_get(j, "skipped");
            if (json_is_object(pj)) {
                out->has_pairs = 1;
                r = add_pairs(global, pj, k, &out->pairs);
            }
            if (r == NVS_OK && json_is_object(hj)) {
                out->has_host = 1;
                r = add_host(global, hj, k, &out->host);
            }
            if (r == NVS_OK && json_is_object(sj)) {
                json_object_set(sj, "host", json_object_get(j, "host"));
                json_array_append(out->skipped, sj);
            }
            json_decref(j);
        }
    }
    nvs_blobs_free(all, rt->size);
    free(lens);
    if (r != NVS_OK) nvs_copies_free(out);
    return r;
}

void nvs_copies_free(nvs_copies *c)
{
    nvs_p2p_result_free(&c->pairs);
    nvs_h2d_result_free(&c->host);
    json_decref(c->skipped);
    memset(c, 0, sizeof *c);
}

json_t *nvs_copies_to_json(const nvs_topology *global, const nvs_copies *c)
{
    json_t *o = c->has_pairs ? nvs_p2p_to_json(global, &c->pairs) : json_object();
    if (!o) return NULL;
    if (c->has_host) json_object_set_new(o, "host_copies", nvs_h2d_to_json(global, &c->host));
    if (c->skipped && json_array_size(c->skipped)) json_object_set(o, "skipped", c->skipped);
    return o;
}

long long nvs_copies_wrong_total(const nvs_copies *c)
{
    return (c->has_pairs ? nvs_p2p_wrong_total(&c->pairs) : 0) + (c->has_host ? nvs_h2d_wrong_total(&c->host) : 0);
}
