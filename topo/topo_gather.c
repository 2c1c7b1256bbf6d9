/* Many hosts: every rank's topology JSON to every rank, one entry per host (the runtime's node number), merged
 * with pairs across hosts classed NET. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "core/log.h"
#include "topo/topo_live.h"

void nvs_blobs_free(char **all, int n)
{
    if (!all) return;
    for (int i = 0; i < n; i++) free(all[i]);
    free(all);
}

nvs_result_t nvs_allgather_blobs(nvs_rt *rt, const char *mine, size_t len, char ***all, size_t **lens,
                                 const char *what)
{
    *all = NULL;
    *lens = NULL;
    int n = rt->size;
    uint64_t my = len, *sizes = calloc((size_t)n, sizeof *sizes);
    char *send = NULL, *recv = NULL, **out = NULL;
    size_t *outl = NULL;
    nvs_result_t res = NVS_ERR_NOMEM;
    if (!sizes) goto done;
    NVS_CHECK_GOTO(nvs_allgather(rt, &my, sizes, sizeof my, what), res, done);
    uint64_t max = 0;
    for (int r = 0; r < n; r++) max = sizes[r] > max ? sizes[r] : max;
    size_t slot = (size_t)max + 1;
    res = NVS_ERR_NOMEM;
    send = calloc(1, slot);
    recv = calloc((size_t)n, slot);
    out = calloc((size_t)n, sizeof *out);
    outl = calloc((size_t)n, sizeof *outl);
    if (!send || !recv || !out || !outl) goto done;
    if (len) memcpy(send, mine, len);
    NVS_CHECK_GOTO(nvs_allgather(rt, send, recv, slot, what), res, done);
    res = NVS_ERR_NOMEM;
    for (int r = 0; r < n; r++) {
        out[r] = malloc((size_t)sizes[r] + 1);
        if (!out[r]) goto done;
        memcpy(out[r], recv + (size_t)r * slot, (size_t)sizes[r]);
        out[r][sizes[r]] = '\0';
        outl[r] = (size_t)sizes[r];
    }
    *all = out;
    *lens = outl;
    out = NULL;
    outl = NULL;
    res = NVS_OK;
done:
    if (res == NVS_ERR_NOMEM) nvs_error("out of memory gathering %s", what);
    nvs_blobs_free(out, n);
    free(outl);
    free(sizes);
    free(send);
    free(recv);
    return res;
}

/* Hosts of the same name (containers all called "localhost"): each becomes "<name>#<index>", the index being its
 * place in the merged list, which is the runtime's node number in a gather, and the name the runtime gives such a
 * host (runtime.h nvs_rt_distinct_host): the printed topology, run.json and whatever matches GPUs by host name
 * (the health monitor) tell them apart. Every host sharing the name is renamed, the first too. */
static void distinct_names(nvs_topology *t)
{
    char *dup = calloc((size_t)t->nhosts + 1, 1);
    if (!dup) return; /* the names stay as they came: no worse than before */
    for (int h = 0; h < t->nhosts; h++)
        for (int k = h + 1; k < t->nhosts; k++)
            if (!strcmp(t->hosts[h].name, t->hosts[k].name)) dup[h] = dup[k] = 1;
    for (int h = 0; h < t->nhosts; h++) {
        if (!dup[h]) continue;
        char suffix[16], name[sizeof t->hosts[h].name];
        int room = (int)sizeof name - 1 - snprintf(suffix, sizeof suffix, "#%d", h);
        memcpy(name, t->hosts[h].name, sizeof name);
        snprintf(t->hosts[h].name, sizeof t->hosts[h].name, "%.*s%s", room, name, suffix);
    }
    free(dup);
}

nvs_result_t nvs_topo_merge(nvs_topology *const *parts, int nparts, nvs_topology **out)
{
    int nh = 0, ng = 0, nn = 0;
    *out = NULL;
    for (int p = 0; p < nparts; p++)
        if (parts[p]) {
            nh += parts[p]->nhosts;
            ng += parts[p]->ngpus;
            nn += parts[p]->nnics;
        }
    nvs_topology *t = nvs_topo_alloc(nh, ng);
    if (!t) return NVS_ERR_NOMEM;
    if (nvs_topo_alloc_nics(t, nn) != NVS_OK) {
        nvs_topo_free(t);
        return NVS_ERR_NOMEM;
    }
    /* first every GPU and NIC with its host, then the classes within each part (across parts, and so across
     * hosts, they are NET and not stored: topo_store.c) */
    int ho = 0, go = 0, no = 0, used = 0;
    for (int p = 0; p < nparts; p++) {
        const nvs_topology *s = parts[p];
        if (!s) continue;
        used++;
        for (int h = 0; h < s->nhosts; h++) t->hosts[ho + h] = s->hosts[h];
        for (int i = 0; i < s->ngpus; i++) {
            nvs_topo_gpu *g = &t->gpus[go + i];
            *g = s->gpus[i];
            g->index = go + i;
            g->host += ho;
            for (int k = 0; k < g->nvlink.nlinks; k++)
                if (g->nvlink.links[k].remote_gpu >= 0) g->nvlink.links[k].remote_gpu += go;
        }
        for (int k = 0; k < s->nnics; k++) {
            nvs_topo_nic *n = &t->nics[no + k];
            *n = s->nics[k];
            n->index = no + k;
            n->host += ho;
        }
        if (!t->nvml_status[0]) snprintf(t->nvml_status, sizeof t->nvml_status, "%s", s->nvml_status);
        if (!t->cuda_status[0]) snprintf(t->cuda_status, sizeof t->cuda_status, "%s", s->cuda_status);
        if (!t->net_gbps) t->net_gbps = s->net_gbps;
        if (used == 1) snprintf(t->source, sizeof t->source, "%s", s->source);
        ho += s->nhosts;
        go += s->ngpus;
        no += s->nnics;
    }
    distinct_names(t);
    nvs_result_t r = nvs_topo_layout(t); /* NVS_ERR_INPUT: a part's GPU or NIC names a host the part lacks */
    if (r != NVS_OK) {
        nvs_topo_free(t);
        return r;
    }
    go = no = 0;
    for (int p = 0; p < nparts; p++) {
        const nvs_topology *s = parts[p];
        if (!s) continue;
        for (int i = 0; i < s->ngpus; i++) {
            for (int j = 0; j < s->ngpus; j++) {
                nvs_topo_pair *c = nvs_topo_pair_cell(t, go + i, go + j);
                if (c) *c = *nvs_topo_pair_at(s, i, j);
            }
            for (int k = 0; k < s->nnics; k++) {
                char *c = nvs_topo_gpu_nic_cell(t, go + i, no + k);
                if (c) snprintf(c, NVS_TOPO_CLS_LEN, "%s", nvs_topo_gpu_nic_class(s, i, k));
            }
        }
        for (int k = 0; k < s->nnics; k++)
            for (int m = 0; m < s->nnics; m++) {
                char *c = k == m ? NULL : nvs_topo_nic_nic_cell(t, no + k, no + m);
                if (c) snprintf(c, NVS_TOPO_CLS_LEN, "%s", nvs_topo_nic_nic_class(s, k, m));
            }
        go += s->ngpus;
        no += s->nnics;
    }
    if (nh > 1) snprintf(t->source, sizeof t->source, "gathered from %d hosts", nh);
    *out = t;
    return NVS_OK;
}

nvs_result_t nvs_topo_gather(nvs_rt *rt, const nvs_topology *local, nvs_topology **global)
{
    *global = NULL;
    char *text = NULL;
    if (local) {
        json_t *j = nvs_topo_to_json(local);
        text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (!text) {
            nvs_error("cannot serialize the topology");
            return NVS_ERR_NOMEM;
        }
    }
    /* a header with the node number goes in front of the JSON: "<node> <json>" */
    size_t tl = text ? strlen(text) : 0;
    char *msg = malloc(tl + 32);
    if (!msg) {
        free(text);
        return NVS_ERR_NOMEM;
    }
    int ml = snprintf(msg, tl + 32, "%d %s", rt->node, text ? text : "");
    free(text);
    char **all;
    size_t *lens;
    nvs_result_t res = nvs_allgather_blobs(rt, msg, local ? (size_t)ml : 0, &all, &lens, "gathering the topology");
    free(msg);
    if (res != NVS_OK) return res;
    nvs_topology **parts = calloc((size_t)rt->size, sizeof *parts);
    int *node_of = calloc((size_t)rt->size, sizeof *node_of);
    if (!parts || !node_of) res = NVS_ERR_NOMEM;
    int nparts = 0;
    for (int r = 0; r < rt->size && res == NVS_OK; r++) {
        if (!lens[r]) continue;
        char *end;
        long node = strtol(all[r], &end, 10);
        int dup = 0;
        for (int k = 0; k < nparts; k++) dup |= node_of[k] == node;
        if (dup) continue;
        json_error_t je;
        json_t *j = json_loads(end, 0, &je);
        char err[256];
        if (!j || nvs_topo_from_json(j, &parts[nparts], err, sizeof err) != NVS_OK) {
            nvs_error("topology from rank %d unreadable: %s", r, j ? err : je.text);
            res = NVS_ERR_SYSTEM;
        } else
            node_of[nparts++] = (int)node;
        json_decref(j);
    }
    /* node order */
    for (int i = 1; i < nparts; i++)
        for (int k = i; k > 0 && node_of[k - 1] > node_of[k]; k--) {
            int tn = node_of[k];
            node_of[k] = node_of[k - 1];
            node_of[k - 1] = tn;
            nvs_topology *tp = parts[k];
            parts[k] = parts[k - 1];
            parts[k - 1] = tp;
        }
    if (res == NVS_OK) {
        if (!nparts) {
            nvs_error("no rank contributed a topology");
            res = NVS_ERR_SYSTEM;
        } else
            res = nvs_topo_merge(parts, nparts, global);
    }
    /* JSON does not carry the PCIe paths: pairs within a host were copied, so nothing is reclassified */
    for (int k = 0; k < nparts; k++) nvs_topo_free(parts[k]);
    free(parts);
    free(node_of);
    nvs_blobs_free(all, rt->size);
    free(lens);
    return res;
}
