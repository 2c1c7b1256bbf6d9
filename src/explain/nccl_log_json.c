/* PURE: a parsed NCCL log as JSON, whole (nvs_nccl_log_to_json) or as one run.json "transports" entry. */
#include <string.h>

#include "core/link_class.h"
#include "explain/nccl_log_priv.h"
#include "runjson/runjson_write.h"

/* json_object_set_new that records failure instead of returning it at every call. */
static void put(json_t *o, const char *k, json_t *v, int *bad)
{
    if (!v || json_object_set_new(o, k, v) != 0) *bad = 1;
}

static json_t *str_or_null(const char *s) { return s && *s ? json_string(s) : json_null(); }

static json_t *conn_json(const nvs_nccl_conn *cn, int *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    put(o, "channel", json_integer(cn->channel), bad);
    put(o, "conn_index", nvs_rj_int(cn->conn_index), bad);
    put(o, "from_rank", json_integer(cn->from_rank), bad);
    put(o, "to_rank", json_integer(cn->to_rank), bad);
    put(o, "from_dev", nvs_rj_int(cn->from_dev), bad);
    put(o, "to_dev", nvs_rj_int(cn->to_dev), bad);
    if (cn->ids == NVS_NCCL_IDS_BUS) { /* NCCL < 2.18.3: the PCI bus ids, hex as printed */
        put(o, "from_bus_id", json_string(cn->from_id), bad);
        put(o, "to_bus_id", json_string(cn->to_id), bad);
    }
    put(o, "transport", json_string(cn->transport), bad);
    put(o, "detail", json_string(cn->detail), bad);
    if (cn->net[0]) put(o, "net", json_string(cn->net), bad);
    if (cn->side) put(o, "side", json_string(cn->side == NVS_NCCL_SIDE_SEND ? "send" : "receive"), bad);
    return o;
}

static json_t *summary_json(const nvs_nccl_summary *s, int *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    if (s->p2p) put(o, "P2P", json_integer(s->p2p), bad);
    if (s->shm) put(o, "SHM", json_integer(s->shm), bad);
    if (s->net) put(o, "NET", json_integer(s->net), bad);
    if (s->collnet) put(o, "COLLNET", json_integer(s->collnet), bad);
    if (s->other) put(o, "other", json_integer(s->other), bad);
    return o;
}

static json_t *conns_json(const nvs_nccl_conn *conns, size_t n, int *bad)
{
    json_t *a = json_array();
    if (!a) {
        *bad = 1;
        return NULL;
    }
    for (size_t k = 0; k < n; k++)
        if (json_array_append_new(a, conn_json(&conns[k], bad)) != 0) *bad = 1;
    return a;
}

json_t *nvs_nccl_log_to_json(const nvs_nccl_log *log)
{
    int bad = 0;
    json_t *root = json_object();
    if (!root) return NULL;
    put(root, "nccl_version", str_or_null(log->version), &bad);
    put(root, "nccl_version_full", str_or_null(log->version_full), &bad);
    put(root, "version_conflict", json_boolean(log->version_conflict), &bad);
    put(root, "files", json_integer(log->files), &bad);
    put(root, "lines", json_integer((json_int_t)log->lines), &bad);
    put(root, "warn_lines", json_integer(log->warn_lines), &bad);
    json_t *comms = json_array();
    put(root, "comms", comms, &bad);
    for (size_t i = 0; comms && i < log->ncomms; i++) {
        const nvs_nccl_comm *c = &log->comms[i];
        json_t *o = json_object();
        if (!o || json_array_append_new(comms, o) != 0) {
            bad = 1;
            break;
        }
        put(o, "comm", json_string(c->ptr), &bad);
        put(o, "host", str_or_null(c->host), &bad);
        put(o, "pid", nvs_rj_int(c->pid), &bad);
        put(o, "file_index", json_integer(c->file_index), &bad);
        put(o, "init", str_or_null(c->init_fn), &bad);
        put(o, "comm_id", str_or_null(c->comm_id), &bad);
        put(o, "parent", str_or_null(c->parent), &bad);
        put(o, "rank", nvs_rj_int(c->rank), &bad);
        put(o, "nranks", nvs_rj_int(c->nranks), &bad);
        put(o, "nnodes", nvs_rj_int(c->nnodes), &bad);
        put(o, "local_rank", nvs_rj_int(c->local_rank), &bad);
        put(o, "local_ranks", nvs_rj_int(c->local_ranks), &bad);
        put(o, "cuda_dev", nvs_rj_int(c->cuda_dev), &bad);
        put(o, "nvml_dev", nvs_rj_int(c->nvml_dev), &bad);
        put(o, "bus_id", str_or_null(c->bus_id), &bad);
        put(o, "complete", json_boolean(c->complete), &bad);
        put(o, "coll_channels", nvs_rj_int(c->coll_channels), &bad);
        put(o, "collnet_channels", nvs_rj_int(c->collnet_channels), &bad);
        put(o, "nvls_channels", nvs_rj_int(c->nvls_channels), &bad);
        put(o, "p2p_channels", nvs_rj_int(c->p2p_channels), &bad);
        put(o, "p2p_channels_per_peer", nvs_rj_int(c->p2p_channels_per_peer), &bad);
        put(o, "rings_connected", json_boolean(c->rings_connected > 0), &bad);
        put(o, "trees_connected", json_boolean(c->trees_connected > 0), &bad);
        put(o, "nvls", json_boolean(c->nvls), &bad);
        put(o, "channels", conns_json(c->conns, c->nconns, &bad), &bad);
        nvs_nccl_summary s = {0};
        unsigned char seen[1024] = {0};
        for (size_t k = 0; k < c->nconns; k++) nvs_nl_summary_add(&s, &c->conns[k], seen, sizeof seen);
        put(o, "summary", summary_json(&s, &bad), &bad);
    }
    put(root, "orphans", conns_json(log->orphans, log->norphans, &bad), &bad);
    nvs_nccl_summary all;
    nvs_nccl_log_summary(log, 0, &all);
    put(root, "summary", summary_json(&all, &bad), &bad);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

json_t *nvs_nccl_log_transport_json(const nvs_nccl_log *log, int nranks, const int *gpu_of_rank,
                                    nvs_nccl_pair_class_fn pair_class, void *ctx)
{
    int bad = 0;
    json_t *o = json_object();
    if (!o) return NULL;
    put(o, "n", json_integer(nranks), &bad);
    put(o, "nccl_version", str_or_null(log->version), &bad);
    json_t *chans = json_array();
    put(o, "channels", chans, &bad);
    nvs_link_kind worst = NVS_LINK_NONE; /* the ring runs at the pace of its slowest hop */
    int nvls = 0;
    for (size_t i = 0; chans && i < log->ncomms; i++) {
        const nvs_nccl_comm *c = &log->comms[i];
        if (c->nranks != nranks) continue;
        nvls |= c->nvls;
        for (size_t k = 0; k < c->nconns; k++) {
            const nvs_nccl_conn *cn = &c->conns[k];
            if (!counted(cn)) continue;
            json_t *e = json_object();
            if (!e || json_array_append_new(chans, e) != 0) {
                bad = 1;
                break;
            }
            put(e, "comm", json_string(c->ptr), &bad);
            put(e, "channel", json_integer(cn->channel), &bad);
            put(e, "from_rank", json_integer(cn->from_rank), &bad);
            put(e, "to_rank", json_integer(cn->to_rank), &bad);
            const char *cls = NULL;
            if (gpu_of_rank && cn->from_rank < nranks && cn->to_rank < nranks) {
                int ga = gpu_of_rank[cn->from_rank], gb = gpu_of_rank[cn->to_rank];
                put(e, "from_gpu", json_integer(ga), &bad);
                put(e, "to_gpu", json_integer(gb), &bad);
                cls = pair_class ? pair_class(ctx, ga, gb) : NULL;
            }
            nvs_link_kind link = nvs_nl_link_kind(cn->transport, cls);
            put(e, "transport", json_string(cn->transport), &bad);
            put(e, "detail", json_string(cn->detail), &bad);
            if (link != NVS_LINK_NONE) {
                put(e, "link", json_string(nvs_link_kind_name(link)), &bad);
                worst = nvs_link_kind_worst(worst, link);
            }
        }
    }
    nvs_nccl_summary s;
    nvs_nccl_log_summary(log, nranks, &s);
    put(o, "summary", summary_json(&s, &bad), &bad);
    put(o, "nchannels", json_integer(s.nchannels), &bad);
    put(o, "nvls", json_boolean(nvls), &bad); /* a communicator of these ranks used NVLS (NVLink SHARP) */
    put(o, "link", worst == NVS_LINK_NONE ? json_null() : json_string(nvs_link_kind_name(worst)), &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
