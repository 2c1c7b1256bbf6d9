/* PURE: the connections of a parsed NCCL log counted per transport, and the physical link a transport takes. */
#include <stdio.h>
#include <string.h>

#include "core/link_class.h"
#include "explain/nccl_log_priv.h"

void nvs_nl_summary_add(nvs_nccl_summary *s, const nvs_nccl_conn *cn, unsigned char *seen, size_t nseen)
{
    if (!counted(cn)) return;
    if (!strcmp(cn->transport, "P2P")) {
        s->p2p++;
        if (!s->p2p_detail[0]) set_str(s->p2p_detail, sizeof s->p2p_detail, cn->detail);
    } else if (!strcmp(cn->transport, "SHM"))
        s->shm++;
    else if (!strcmp(cn->transport, "NET")) {
        s->net++;
        if (!s->net_name[0]) set_str(s->net_name, sizeof s->net_name, cn->net);
    } else if (!strcmp(cn->transport, "COLLNET"))
        s->collnet++;
    else
        s->other++;
    s->total++;
    if (cn->channel >= 0 && (size_t)cn->channel < nseen && !seen[cn->channel]) {
        seen[cn->channel] = 1;
        s->nchannels++;
    }
}

void nvs_nccl_log_summary(const nvs_nccl_log *log, int nranks, nvs_nccl_summary *out)
{
    memset(out, 0, sizeof *out);
    unsigned char seen[1024] = {0}; /* NCCL has at most 64 channels (MAXCHANNELS); room to spare */
    for (size_t i = 0; i < log->ncomms; i++) {
        const nvs_nccl_comm *c = &log->comms[i];
        if (nranks > 0 && c->nranks != nranks) continue;
        for (size_t k = 0; k < c->nconns; k++) nvs_nl_summary_add(out, &c->conns[k], seen, sizeof seen);
    }
    if (nranks <= 0)
        for (size_t k = 0; k < log->norphans; k++) nvs_nl_summary_add(out, &log->orphans[k], seen, sizeof seen);
}

const char *nvs_nccl_summary_transport(const nvs_nccl_summary *s, char *buf, size_t len)
{
    const char *names[5] = {"P2P", "SHM", "NET", "COLLNET", "other"};
    int counts[5] = {s->p2p, s->shm, s->net, s->collnet, s->other};
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < 5 && used < len; i++) { /* never a pointer past the buffer */
        if (!counts[i]) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? "+" : "", names[i]);
        if (w > 0) used += (size_t)w;
    }
    if (!used) snprintf(buf, len, "none");
    return buf;
}

nvs_link_kind nvs_nl_link_kind(const char *transport, const char *pair_class)
{
    if (!transport) return NVS_LINK_NONE;
    if (!strcmp(transport, "SHM")) return NVS_LINK_HOST_MEMORY;
    if (!strcmp(transport, "NET") || !strcmp(transport, "COLLNET")) return NVS_LINK_NETWORK;
    if (!strcmp(transport, "P2P")) {
        nvs_link_kind k = nvs_link_kind_of_class(nvs_link_class_parse(pair_class, NULL));
        return k == NVS_LINK_NONE ? NVS_LINK_P2P_UNKNOWN : k;
    }
    return NVS_LINK_NONE;
}

const char *nvs_nccl_link_name(const char *transport, const char *pair_class)
{
    nvs_link_kind k = nvs_nl_link_kind(transport, pair_class);
    return k == NVS_LINK_NONE ? NULL : nvs_link_kind_name(k);
}
