/* The what-if model's link graph of one node: the class and transport of a GPU pair (NCCL's P2P rules by
 * version), each ring flow's route over the node's links, the ring's bottleneck, and the network's share per
 * node. Formulas and sources: model.h, docs/model.md. */
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/preset.h"

/* --- link graph ---------------------------------------------------------------------------------------------- */

static int gpus_per_socket(const nvs_machine_spec *m) { return m->gpus / (m->sockets > 0 ? m->sockets : 1); }
static int socket_of(const nvs_machine_spec *m, int i) { return i / gpus_per_socket(m); }
static int switch_of(const nvs_machine_spec *m, int i) { return m->gpus_per_switch > 0 ? i / m->gpus_per_switch : -1; }

static int nvlinked(const nvs_machine_spec *m, const nvs_gpu_spec *g, int a, int b)
{
    if (g->nvlink_links <= 0 || a == b) return 0;
    if (m->nvlink == NVS_NVLINK_SWITCH) return 1;
    if (m->nvlink == NVS_NVLINK_PAIRS) return a / 2 == b / 2;
    return 0;
}

int nvs_machine_class(const nvs_machine_spec *m, const nvs_gpu_spec *g, int a, int b)
{
    if (nvlinked(m, g, a, b)) return NVS_CLS_NV;
    if (m->gpus_per_switch > 0 && switch_of(m, a) == switch_of(m, b)) return NVS_CLS_PIX;
    if (socket_of(m, a) == socket_of(m, b))
        return (m->gpus_per_switch > 0 && m->switch_cascade) ? NVS_CLS_PXB : NVS_CLS_NODE;
    return NVS_CLS_SYS;
}

/* NCCL releases where its P2P rule changed (github.com/NVIDIA/nccl, src/graph/paths.cc at each tag) */
#define NCCL_2_9_6 20906   /* Intel x86 (and Zhaoxin) -> PATH_PXB; before: PATH_PHB (Broadwell PXB) */
#define NCCL_2_23_4 22304  /* default PATH_PXB; AMD with <= 2 GPUs -> PATH_SYS */

int nvs_nccl_p2p_level(int nccl, int cpu, int gpus)
{
    if (nccl == 0 || nccl >= NCCL_2_23_4) return (cpu == NVS_CPU_AMD && gpus <= 2) ? NVS_CLS_SYS : NVS_CLS_PXB;
    if (cpu == NVS_CPU_AMD) return NVS_CLS_SYS;
    /* NCCL's PATH_PHB is "through a CPU": nvidia-smi's PHB and NODE, not SYS */
    if (cpu == NVS_CPU_INTEL) return nccl >= NCCL_2_9_6 ? NVS_CLS_PXB : NVS_CLS_NODE;
    return NVS_CLS_PXB; /* ARM (every version), or a CPU not stated */
}

int nvs_nccl_version_parse(const char *s, int *code)
{
    int v[3] = {0, 0, 0}, k = 0;
    const char *p = s;
    if (!s || !*s) return -1;
    while (k < 3) {
        if (*p < '0' || *p > '9') return -1;
        long x = 0;
        while (*p >= '0' && *p <= '9' && x < 1000) x = x * 10 + (*p++ - '0');
        if (x >= (k == 0 ? 1000 : 100)) return -1;
        v[k++] = (int)x;
        if (!*p) break;
        if (k == 3 || *p++ != '.') return -1; /* after the third number nothing more: "2.7.8." is no version */
    }
    if (*p || k < 2 || v[0] < 1) return -1;
    *code = v[0] * 10000 + v[1] * 100 + v[2];
    return 0;
}

int nvs_machine_p2p_level(const nvs_machine_spec *m, int n)
{
    return m->p2p_by_rules ? nvs_nccl_p2p_level(m->nccl, m->cpu, n) : m->p2p_level;
}

nvs_transport nvs_machine_transport(const nvs_machine_spec *m, const nvs_gpu_spec *g, int a, int b, int n, int off)
{
    if (!(off & NVS_OFF_P2P)) { /* NCCL_P2P_DISABLE=1 turns off the P2P transport, NVLink included */
        int cls = nvs_machine_class(m, g, a, b);
        if (cls == NVS_CLS_NV) return NVS_TR_NVLINK;
        if (g->p2p_pcie && cls <= nvs_machine_p2p_level(m, n)) return NVS_TR_P2P;
    }
    return (off & NVS_OFF_SHM) ? NVS_TR_NET : NVS_TR_SHM;
}

/* Directed links of one node, as indices into small arrays. */
enum { MAXG = 64, MAXS = 8 };
enum {
    L_GPU_UP = 0,
    L_GPU_DN = L_GPU_UP + MAXG,
    L_SW_UP = L_GPU_DN + MAXG,
    L_SW_DN = L_SW_UP + MAXG,
    L_TOP_UP = L_SW_DN + MAXG,
    L_TOP_DN = L_TOP_UP + MAXS,
    L_SOCK = L_TOP_DN + MAXS,
    L_NV_UP = L_SOCK + MAXS * MAXS,
    L_NV_DN = L_NV_UP + MAXG,
    L_HOST = L_NV_DN + MAXG, /* a socket's host path as NCCL's SHM transport uses it (host_gbps) */
    L_COUNT = L_HOST + MAXS
};

typedef struct {
    int link[8];
    double load[8];     /* how much of the link one byte of this flow uses (1, or xsocket_shm_cost) */
    int n;
    double cap;         /* transport cap (SHM), 0 = none */
    nvs_transport tr;
    double hop_us;
} flow_path;

static void up_to_cpu(const nvs_machine_spec *m, int a, flow_path *f)
{
    f->link[f->n++] = L_GPU_UP + a;
    if (m->gpus_per_switch > 0) {
        f->link[f->n++] = L_SW_UP + switch_of(m, a);
        if (m->switch_cascade) f->link[f->n++] = L_TOP_UP + socket_of(m, a);
    }
}

static void down_from_cpu(const nvs_machine_spec *m, int b, flow_path *f)
{
    if (m->gpus_per_switch > 0) {
        if (m->switch_cascade) f->link[f->n++] = L_TOP_DN + socket_of(m, b);
        f->link[f->n++] = L_SW_DN + switch_of(m, b);
    }
    f->link[f->n++] = L_GPU_DN + b;
}

static void route(const nvs_machine_spec *m, const nvs_gpu_spec *g, int a, int b, int n, int off, flow_path *f)
{
    memset(f, 0, sizeof *f);
    f->tr = nvs_machine_transport(m, g, a, b, n, off);
    int ka = socket_of(m, a), kb = socket_of(m, b);
    if (f->tr == NVS_TR_NVLINK) {
        f->link[f->n++] = L_NV_UP + a;
        f->link[f->n++] = L_NV_DN + b;
        f->hop_us = m->nvlink_hop_us;
        return;
    }
    if (f->tr == NVS_TR_P2P) {
        f->hop_us = m->p2p_hop_us;
        if (m->gpus_per_switch > 0 && switch_of(m, a) == switch_of(m, b)) {
            f->link[f->n++] = L_GPU_UP + a;
            f->link[f->n++] = L_GPU_DN + b;
            return;
        }
        if (m->gpus_per_switch > 0 && m->switch_cascade && ka == kb) {
            f->link[f->n++] = L_GPU_UP + a;
            f->link[f->n++] = L_SW_UP + switch_of(m, a);
            f->link[f->n++] = L_SW_DN + switch_of(m, b);
            f->link[f->n++] = L_GPU_DN + b;
            return;
        }
    } else if (f->tr == NVS_TR_NET) {
        /* NET inside the node: without GPUDirect RDMA, the GPU's kernel writes into pinned host memory, the
         * proxy threads move it through a socket, the peer's kernel reads it from host memory (NCCL
         * src/transport/net.cc): both PCIe links carry it, the sockets cap it (net_local_gbps) */
        f->hop_us = m->net_local_hop_us;
        f->cap = m->net_local_gbps;
    } else {
        /* SHM: the sender writes into host memory, the receiver reads it (NCCL shm transport) */
        f->hop_us = m->shm_hop_us;
        f->cap = m->shm_gbps;
    }
    up_to_cpu(m, a, f);
    if (ka != kb) f->link[f->n++] = L_SOCK + ka * MAXS + kb;
    down_from_cpu(m, b, f);
    if (f->tr == NVS_TR_SHM && m->host_gbps > 0) {
        /* the receive buffer lives in the receiver's socket memory: NCCL binds to the GPU's CPUs before it
         * allocates (init.cc "Set Affinity to a CPU local the our GPU"), and the receiver creates the SHM
         * segment (transport/shm.cc shmRecvSetup). A flow across sockets also loads the sender's socket. */
        double w = ka != kb && m->xsocket_shm_cost > 0 ? m->xsocket_shm_cost : 1.0;
        f->link[f->n++] = L_HOST + kb;
        if (ka != kb) f->link[f->n++] = L_HOST + ka;
        f->load[f->n - 1] = w;
        if (ka != kb) f->load[f->n - 2] = w;
    }
}

static double link_gbps(const nvs_machine_spec *m, const nvs_gpu_spec *g, int l)
{
    if (l < L_SW_UP) return m->gpu_link_gbps;
    if (l < L_SOCK) return m->uplink_gbps;
    if (l < L_NV_UP) return m->socket_gbps;
    if (l < L_HOST) return g->nvlink_links * g->nvlink_gbps_per_link * m->nvlink_eff;
    return m->host_gbps;
}

static void link_name(const nvs_machine_spec *m, int l, char *buf, size_t len)
{
    if (l < L_GPU_DN) snprintf(buf, len, "GPU %d PCIe link (up)", l - L_GPU_UP);
    else if (l < L_SW_UP) snprintf(buf, len, "GPU %d PCIe link (down)", l - L_GPU_DN);
    else if (l < L_SW_DN) snprintf(buf, len, "switch %d uplink (up)", l - L_SW_UP);
    else if (l < L_TOP_UP) snprintf(buf, len, "switch %d uplink (down)", l - L_SW_DN);
    else if (l < L_TOP_DN) snprintf(buf, len, "socket %d parent-switch uplink (up)", l - L_TOP_UP);
    else if (l < L_SOCK) snprintf(buf, len, "socket %d parent-switch uplink (down)", l - L_TOP_DN);
    else if (l < L_NV_UP) snprintf(buf, len, "CPU link socket %d -> %d", (l - L_SOCK) / MAXS, (l - L_SOCK) % MAXS);
    else if (l < L_NV_DN) snprintf(buf, len, "GPU %d NVLink (out)", l - L_NV_UP);
    else if (l < L_HOST) snprintf(buf, len, "GPU %d NVLink (in)", l - L_NV_DN);
    else snprintf(buf, len, "socket %d host memory path (SHM budget %.3g GB/s)", l - L_HOST, m->host_gbps);
}

nvs_result_t nvs_ring_links_of(const nvs_machine_spec *m, const nvs_gpu_spec *g, int n, int off,
                               nvs_ring_links *out)
{
    memset(out, 0, sizeof *out);
    if (n < 2 || n > m->gpus || m->gpus > MAXG || m->sockets > MAXS || m->sockets < 1) return NVS_ERR_INPUT;
    /* every ring flow moves the same bytes at the ring's pace, so a link of bandwidth C used by flows with
     * loads w_i bounds each of them at C / sum(w_i): equal shares when every load is 1 */
    double count[L_COUNT] = {0};
    int flows[L_COUNT] = {0};
    flow_path f[MAXG];
    for (int i = 0; i < n; i++) {
        route(m, g, i, (i + 1) % n, n, off, &f[i]);
        if (f[i].tr == NVS_TR_NET && !(m->net_local_gbps > 0)) {
            snprintf(out->why, sizeof out->why,
                     "GPU %d -> GPU %d: NCCL's NET transport inside machine '%s', whose net_local_gbps is not known",
                     i, (i + 1) % n, m->id ? m->id : "?");
            return NVS_ERR_INPUT;
        }
        for (int k = 0; k < f[i].n; k++) {
            count[f[i].link[k]] += f[i].load[k] > 0 ? f[i].load[k] : 1.0; /* unset: an ordinary link, load 1 */
            flows[f[i].link[k]]++;
        }
    }
    out->gbps = INFINITY;
    for (int i = 0; i < n; i++) {
        double bw = f[i].cap > 0 ? f[i].cap : INFINITY;
        int lim = -1; /* -1: the transport cap decides */
        for (int k = 0; k < f[i].n; k++) {
            int l = f[i].link[k];
            double share = link_gbps(m, g, l) / count[l];
            if (share < bw) {
                bw = share;
                lim = l;
            }
        }
        if (f[i].hop_us > out->alpha_us) out->alpha_us = f[i].hop_us;
        if (bw < out->gbps) {
            int b = (i + 1) % n;
            out->gbps = bw;
            out->from = i;
            out->to = b;
            out->transport = f[i].tr;
            out->cls = nvs_machine_class(m, g, i, b);
            if (lim < 0 && f[i].tr == NVS_TR_NET)
                snprintf(out->why, sizeof out->why,
                         "GPU %d -> GPU %d (%s, NET): sockets inside the node, %.3g GB/s per flow (net_local_gbps)", i,
                         b, nvs_class_name(out->cls), bw);
            else if (lim < 0)
                snprintf(out->why, sizeof out->why,
                         "GPU %d -> GPU %d (%s, SHM): the SHM transport's cap, %.3g GB/s per flow", i, b,
                         nvs_class_name(out->cls), bw);
            else {
                char ln[96], ld[64] = "";
                link_name(m, lim, ln, sizeof ln);
                if (count[lim] != flows[lim]) /* weighted: flows across sockets count more */
                    snprintf(ld, sizeof ld, " (load %.3g: cross-socket flows count %.3g)", count[lim],
                             m->xsocket_shm_cost);
                snprintf(out->why, sizeof out->why, "GPU %d -> GPU %d (%s, %s): %s shared by %d flow%s%s", i, b,
                         nvs_class_name(out->cls), nvs_transport_name(f[i].tr), ln, flows[lim],
                         flows[lim] == 1 ? "" : "s", ld);
            }
        }
    }
    return NVS_OK;
}

int nvs_inter_nics(const nvs_machine_spec *m, int g)
{
    int nics = m->nics > 0 ? m->nics : 1;
    if (g <= 0 || m->gpus <= 0 || g >= m->gpus) return nics;
    int used = (int)(((long)nics * g + m->gpus - 1) / m->gpus); /* ceil(nics g / gpus) */
    return used < 1 ? 1 : used > nics ? nics : used;
}

double nvs_inter_gbps(const nvs_machine_spec *m, const nvs_net_spec *net, int g)
{
    /* a NIC sits on a PCIe link like a GPU's (machine gpu_link_gbps): it cannot move more than that */
    double per_nic = net->gbps < m->gpu_link_gbps || !(m->gpu_link_gbps > 0) ? net->gbps : m->gpu_link_gbps;
    double bw = per_nic * nvs_inter_nics(m, g);
    /* ... nor the GPUs more than their own PCIe links carry (more NICs than GPUs) */
    if (g > 0 && m->gpu_link_gbps > 0 && bw > g * m->gpu_link_gbps) bw = g * m->gpu_link_gbps;
    return bw;
}
