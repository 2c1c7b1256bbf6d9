/* The what-if model's pure core: alpha-beta all-reduce costs, the link graph of one node, per-layer compute,
 * DDP buckets, the overlap schedule and the memory estimate. Formulas and sources: model.h, docs/model.md. */
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/preset.h"
#include "workload/framework.h"

/* GB/s -> bytes per microsecond */
#define GBPS_TO_BPUS 1e3
/* TFLOP/s -> FLOP per microsecond */
#define TFLOPS_TO_FPUS 1e6

const char *nvs_algo_name(nvs_algo a)
{
    static const char *const n[] = {"ring", "tree", "nvls", "nvlstree", "collnet", "auto"};
    return (a >= 0 && a <= NVS_ALGO_AUTO) ? n[a] : "?";
}

int nvs_algo_parse(const char *s, nvs_algo *out)
{
    for (int i = 0; i <= NVS_ALGO_AUTO; i++)
        if (s && !strcasecmp(s, nvs_algo_name((nvs_algo)i))) {
            *out = (nvs_algo)i;
            return 0;
        }
    return -1;
}

const char *nvs_transport_name(nvs_transport t)
{
    static const char *const n[] = {"none", "NVLink", "P2P", "SHM", "NET"};
    return (t >= 0 && t <= NVS_TR_NET) ? n[t] : "?";
}

/* --- alpha-beta ------------------------------------------------------------------------------------------------ */

int nvs_ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n && k < 30) k++;
    return k;
}

double nvs_ring_allreduce_us(double bytes, int n, double alpha_us, double gbps)
{
    if (n <= 1 || gbps <= 0) return 0;
    return 2.0 * (n - 1) * (alpha_us + bytes / n / (gbps * GBPS_TO_BPUS));
}

double nvs_ring_half_us(double bytes, int n, double alpha_us, double gbps)
{
    if (n <= 1 || gbps <= 0) return 0;
    return (double)(n - 1) * (alpha_us + bytes / n / (gbps * GBPS_TO_BPUS));
}

/* NCCL's tuner scales the tree all-reduce's bus bandwidth by .92 at every node count (src/graph/tuning.cc,
 * ncclTopoTuneModel; it also caps it per channel, perChMaxTreeBws, not modelled: the model has no channels) */
#define TREE_FACTOR 0.92

/* One node of n GPUs: NCCL's tree inside a node is a chain (src/graph/connect.cc, ncclTopoPreset: tree.up is the
 * previous GPU of the tree graph's intra order, tree.down[0] the next), reduced up and broadcast down the chain
 * (src/device/all_reduce.h, runTreeUpDown / runTreeSplit), and its tuner charges the tree's latency as twice the
 * sum of (GPUs per node - 1) intra-node hops and log2(nodes) network hops (tuning.cc): n - 1 hops each way here.
 * This is algo_us's tree at N = 1. */
double nvs_tree_allreduce_us(double bytes, int n, double alpha_us, double gbps)
{
    if (n <= 1 || gbps <= 0) return 0;
    return 2.0 * (n - 1) * alpha_us + 2.0 * (n - 1) / n * bytes / (TREE_FACTOR * gbps * GBPS_TO_BPUS);
}

static double min2(double a, double b) { return a < b ? a : b; }

/* The time of algorithm a for this shape without base and per-call costs; INFINITY when not available. */
static double algo_us(const nvs_ar_params *p, nvs_algo a, double S)
{
    int N = p->nodes, g = p->gpn, n = N * g;
    double bi = g >= 2 && p->intra_gbps > 0 ? p->intra_gbps : INFINITY; /* one GPU per node: no intra hop */
    double ai = g >= 2 ? p->intra_alpha_us : 0;
    double fac = 2.0 * (n - 1) / n;  /* nccl-tests' busbw factor: T = fac * S / busbw */
    double bw;
    switch (a) {
    case NVS_ALGO_RING:
        if (N <= 1) return nvs_ring_allreduce_us(S, g, p->intra_alpha_us, p->intra_gbps);
        bw = min2(bi, p->inter_gbps);
        if (!(bw > 0) || !isfinite(bw)) return INFINITY;
        return 2.0 * (n - N) * ai + 2.0 * (N - 1) * p->inter_alpha_us + fac * S / (bw * GBPS_TO_BPUS);
    case NVS_ALGO_TREE:
        /* One formula for every N (docs/model.md, "All-reduce"). Bandwidth: NCCL's tuner takes the tree graph's
         * intra-node bandwidth (bwIntra) on 1 and 2 nodes and its network bandwidth (bwInter) beyond (tuning.cc);
         * on 2 nodes its graph search lets bwIntra rise to twice bwInter (src/graph/search.cc, ncclTopoCompute,
         * the comment "increase bwIntra for trees (2 nodes or collnet)"): half the tree's traffic crosses the
         * network there. Then 0.92 at every N (TREE_FACTOR). So busbw never rises with N:
         * B_i >= min(B_i, 2 B_net) >= min(B_i, B_net). Latency: g - 1 chain hops and ceil(log2 N) tree levels,
         * each way (tuning.cc; NCCL's log2i rounds down, the model up). Time per byte: nccl-tests' 2(n-1)/n,
         * as for the ring, so that busbw is one quantity across algorithms; NCCL's tuner turns the tree's busBw
         * into algbw with a ratio of .5 (tuning.cc, "Convert bus BW to algorithm BW"), n/(n-1) slower: 8/7 on one node
         * of 8, 16/15 on 2 x 8. On one node the tree has the ring's latency and 0.92 of its bandwidth, so auto
         * never picks it there (NCCL 2.4 disabled it below 2 nodes: src/init.cc, ncclTreeThreshold; today's
         * tuner charges per-hop latencies by link and protocol, hwLatencies, and may pick it for small messages
         * on a PCIe node: one alpha per hop cannot). */
        bw = TREE_FACTOR * (N <= 1 ? bi : N == 2 ? min2(bi, 2 * p->inter_gbps) : min2(bi, p->inter_gbps));
        if (!(bw > 0) || !isfinite(bw)) return INFINITY;
        return 2.0 * ((g - 1) * ai + nvs_ceil_log2(N) * p->inter_alpha_us) + fac * S / (bw * GBPS_TO_BPUS);
    case NVS_ALGO_NVLS:
        if (N > 1 || g < 2 || !(p->nvls_gbps > 0)) return INFINITY;
        return 2.0 * ai + S / (p->nvls_gbps * GBPS_TO_BPUS);
    case NVS_ALGO_NVLSTREE:
        /* NCCL disables NVLSTree on one node (tuning.cc, "Disable NVLS Tree on a single node"): there NVLS is
         * the family's member, and this formula at N = 1 (no network term) is NVLS's: fac S / (A 2(g-1)/g) =
         * S / A. Two nodes see twice the network (tuning.cc, "Handle 2 node case of NVLSTree": bwInter doubled). */
        if (N < 2 || g < 2 || !(p->nvls_gbps > 0)) return INFINITY;
        bw = min2(p->nvls_gbps * 2.0 * (g - 1) / g, (N == 2 ? 2 : 1) * p->inter_gbps);
        if (!(bw > 0)) return INFINITY;
        return 2.0 * ai + 2.0 * nvs_ceil_log2(N) * p->inter_alpha_us + fac * S / (bw * GBPS_TO_BPUS);
    case NVS_ALGO_COLLNET:
        if (N < 2 || !p->sharp) return INFINITY;
        /* each node sends its partial sum once and receives the result once: algbw up to B_net */
        bw = min2(p->nvls_gbps > 0 && g >= 2 ? p->nvls_gbps : bi, p->inter_gbps);
        if (!(bw > 0) || !isfinite(bw)) return INFINITY;
        return 2.0 * ai + 2.0 * p->inter_alpha_us + S / (bw * GBPS_TO_BPUS);
    case NVS_ALGO_AUTO:
        break;
    }
    return INFINITY;
}

double nvs_allreduce_us(const nvs_ar_params *p, double bytes, nvs_algo *used)
{
    if (used) *used = NVS_ALGO_RING;
    if (p->nodes * p->gpn <= 1 || bytes <= 0) return 0;
    nvs_algo a = NVS_ALGO_RING;
    double t = algo_us(p, NVS_ALGO_RING, bytes);
    if (p->algo == NVS_ALGO_AUTO) {
        /* NCCL's tuner: the fastest of what the node and the fabric allow; CollNet only when enabled */
        static const nvs_algo cand[] = {NVS_ALGO_TREE, NVS_ALGO_NVLS, NVS_ALGO_NVLSTREE, NVS_ALGO_COLLNET};
        for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
            double x = algo_us(p, cand[i], bytes);
            if (x < t) {
                t = x;
                a = cand[i];
            }
        }
    } else if (p->algo != NVS_ALGO_RING) {
        double x = algo_us(p, p->algo, bytes);
        if (isfinite(x)) {
            t = x;
            a = p->algo;
        }
    }
    if (used) *used = a;
    return p->base_us + p->per_call_us + t;
}

double nvs_allreduce_busbw(const nvs_ar_params *p, double bytes, nvs_algo *used)
{
    int n = p->nodes * p->gpn;
    if (used) *used = NVS_ALGO_RING;
    if (n <= 1 || bytes <= 0) return 0;
    nvs_algo a;
    nvs_allreduce_us(p, bytes, &a);
    if (used) *used = a;
    /* the chosen algorithm alone, at two sizes: the latency terms cancel in the difference */
    nvs_ar_params q = *p;
    q.algo = a;
    double s1 = bytes, s2 = 2 * bytes;
    double dt = nvs_allreduce_us(&q, s2, NULL) - nvs_allreduce_us(&q, s1, NULL);
    return dt > 0 ? 2.0 * (n - 1) / n * (s2 - s1) / dt / GBPS_TO_BPUS : 0;
}

/* --- NVLink SHARP: the GPU's side (model.h) ------------------------------------------------------------------ */

int nvs_gpu_nvls(const nvs_gpu_spec *g, char *why, size_t len)
{
    char what[96];
    if (g->compute_capability > 0)
        snprintf(what, sizeof what, "compute capability %.1f, ", g->compute_capability);
    else
        snprintf(what, sizeof what, "compute capability not stated, ");
    size_t l = strlen(what);
    if (g->nvlink_links > 0)
        snprintf(what + l, sizeof what - l, "NVLink gen %d", g->nvlink_gen);
    else
        snprintf(what + l, sizeof what - l, "no NVLink");
    if (g->compute_capability >= NVS_NVLS_MIN_CC && g->nvlink_gen >= NVS_NVLS_MIN_NVLINK_GEN && g->nvlink_links > 0 &&
        g->nvlink_gbps_per_link > 0)
        return 1;
    if (why && len)
        snprintf(why, len,
                 "GPU '%s' (%s) cannot do NVLink SHARP: it needs compute capability %.1f or later (Hopper) and "
                 "NVLink%d to an NVSwitch (NCCL docs, NCCL_NVLS_ENABLE)",
                 g->id ? g->id : "?", what, NVS_NVLS_MIN_CC, NVS_NVLS_MIN_NVLINK_GEN);
    return 0;
}

double nvs_nvls_gbps(const nvs_machine_spec *m, const nvs_gpu_spec *g, int *capped)
{
    if (capped) *capped = 0;
    if (!(m->nvls_gbps > 0) || m->nvlink != NVS_NVLINK_SWITCH || !nvs_gpu_nvls(g, NULL, 0)) return 0;
    double eff = m->nvlink_eff > 0 ? m->nvlink_eff : 1;
    double link = g->nvlink_links * g->nvlink_gbps_per_link * eff;
    if (link < m->nvls_gbps) {
        if (capped) *capped = 1;
        return link;
    }
    return m->nvls_gbps;
}

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
    if (socket_of(m, a) == socket_of(m, b)) return (m->gpus_per_switch > 0 && m->switch_cascade) ? NVS_CLS_PXB : NVS_CLS_NODE;
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
                snprintf(out->why, sizeof out->why, "GPU %d -> GPU %d (%s, SHM): the SHM transport's cap, %.3g GB/s per flow",
                         i, b, nvs_class_name(out->cls), bw);
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

/* --- compute ------------------------------------------------------------------------------------------------ */

nvs_compute_terms nvs_compute_defaults(void)
{
    nvs_compute_terms t;
    /* 70% of peak: cuBLAS reaches 70-90% of the dense peak on large GEMMs and less on the small, skinny ones of
     * a network's later layers; 70% is a middle value until calibration measures it (--calibrate). */
    t.gemm_eff = 0.70;
    /* 80% of peak bandwidth: a streaming read+write kernel (STREAM-like copy) reaches about 80-90% of the HBM
     * or GDDR peak; elementwise passes rarely do better. */
    t.mem_eff = 0.80;
    t.compute_scale = 1.0;
    /* cuDNN's convolutions reach about half the dense peak: PyTorch 2.11's ResNet-50 step at fp32, batch 128, on
     * H200 spends 89.7 ms in convolution kernels (results/h200x1-census-b64, cudnn.benchmark on) for 3,139 GFLOP
     * of them = 35 TFLOP/s of the 67 TFLOP/s peak, 0.52. Checked at batch 64 (48.6 ms measured, 45.0 modelled) and at
     * bf16, where the roofline sets more of their time (9.3 ms measured without cuDNN's layout transforms, 7.3
     * modelled): docs/model.md. */
    t.conv_eff = 0.52;
    /* Batch norm is bound by elements, not bytes (docs/fidelity.md): over ResNet-50's 53 batch norms at batch 128,
     * 8 accesses of each (BN_FWD_ACCESSES + BN_BWD_ACCESSES) = 11.4 G element accesses per step, cuDNN's kernels
     * take 21.3 ms at fp32 (results/h200x1-census: 534 G/s, x 4 B = 0.445 of H200's 4.8 TB/s) and 19.7 ms at fp16
     * (578 G/s); PyTorch's own NCHW kernels at bf16 take 30.7 ms (h200x1-census-fp16: 371 G/s = 0.31). */
    t.bn_cudnn_eff = 0.445;
    t.bn_own_eff = 0.31;
    /* PyTorch's reduce_kernel for Linear's bias gradients is a reduction across blocks with a global step: its time
     * is a latency plus bytes, not bytes alone. Fitted, t = a + bytes / B per launch, on the per-step sums of
     * PyTorch 2.11's profiles on H200 (results/h200x1-tfm-census6, census-nodp.txt): BERT-large 145 launches (121 of
     * 4096 x 1024, 24 of 4096 x 4096) in 2.06 ms at bf16 and 2.44 at fp32, lm290m 72 (18 each of 4096 x 3072, 1024,
     * 4096, 1024) in 1.19 and 1.54 ms: a = 9.6 and 7.5 us, B = 2.73 and 2.71 TB/s at bf16 and fp32; 8.5 us and
     * 2.72 / 4.8 = 0.57 of the peak. With those the four sums come to -7.7, +5.5, -6.6 and +4.3 %. */
    t.bias_reduce_us = 8.5;
    t.bias_reduce_eff = 0.57;
    /* PyTorch's copies through lm290m's (batch, sequence)-swapped views, the profile's perm= passes (a read and a
     * write of in_proj's and context's outputs, 1.21 GB per step each way at bf16, batch 8), took 0.73 ms forward
     * and 0.99 ms backward in PyTorch 2.11's profile on H200 (results/h200x1-tfm-census9, census-nodp.txt:
     * elementwise_kernel<128, 4> and <128, 2> direct copies): 2.42 GB in 1.72 ms = 1.40 TB/s, 0.29 of the peak */
    t.view_copy_eff = 0.29;
    /* PyTorch's LayerNorm kernels on H200 at fp32, 4096 x 1024 (a transformer's LayerNorm under autocast; per
     * kernel in results/h200x1-tfm-census9, census-nodp.txt, lm290m's 37): forward 14.5 us for 2 accesses of the
     * 16.8 MB tensor (2.31 TB/s), input gradient 14.2 us for 3, weight and bias gradients 22.6 us for 2: 5 accesses
     * in 36.8 us (2.28 TB/s) backward; both 0.48 of the 4.8 TB/s peak */
    t.ln_eff = 0.48;
    /* BERT-large's MLM decoder (4096 x 30522 x 1024, rows of 61,044 bytes) under PyTorch 2.11 on H200 at bf16: its
     * forward, input and weight gradients in cutlass_80_tensorop_bf16_s16816gemm_bf16_*_align2 kernels, 1012, 953
     * and 1024 us for 3 x 256 GFLOP (results/h200x1-tfm-census6, census-nodp.txt): 257 TFLOP/s, 0.26 of 989.5,
     * where the aligned GEMMs of the same step run at about 0.70 */
    t.gemm_unaligned_eff = 0.26;
    return t;
}

double nvs_gemm_tflops(const nvs_gpu_spec *g, nvs_precision p)
{
    switch (p) {
    case NVS_PREC_TF32: return g->tf32_tflops;
    /* AMP's fp16 GEMMs accumulate in FP32 (cuBLAS CUBLAS_COMPUTE_32F), as bf16 does: the same tensor rate
     * (GA102 whitepaper: "FP16/BF16 Tensor TFLOPS with FP32 Accumulate", one figure for both) */
    case NVS_PREC_BF16:
    case NVS_PREC_FP16: return g->bf16_tflops;
    case NVS_PREC_FP32:
    case NVS_PREC_COUNT: break;
    }
    return g->fp32_tflops; /* fp32 GEMMs run on CUDA cores (PyTorch allow_tf32=False) */
}

/* A batch norm in training touches its tensor 8 times: forward, a read for the statistics and a read and a write
 * to normalise; backward, a read of the input and of the output gradient for the reductions, and both again with a
 * write of the input gradient (cuDNN's bn_bw_1C11 and PyTorch's batch_norm_backward_kernel alike). */
#define BN_FWD_ACCESSES 3.0
#define BN_BWD_ACCESSES 5.0
/* A LayerNorm (PyTorch's vectorized kernels, train/ln_kernels.h): forward a read of x and a write of y (its second
 * read of a row hits the cache); backward the input gradient reads dy and x and writes dx, the weight and bias
 * gradients read dy and x again */
#define LN_FWD_ACCESSES 2.0
#define LN_BWD_ACCESSES 5.0

void nvs_ln_us(const nvs_layer *l, int batch, const nvs_gpu_spec *g, double elem_bytes, const nvs_compute_terms *t,
               double *fwd_us, double *bwd_us)
{
    *fwd_us = *bwd_us = 0;
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->ln_eff;
    if (!(l->ln_passes > 0) || !(bw > 0)) return;
    double bytes = (double)batch * l->act_elems * elem_bytes;
    *fwd_us = LN_FWD_ACCESSES * bytes / bw * t->compute_scale;
    *bwd_us = l->nograd ? 0 : LN_BWD_ACCESSES * bytes / bw * t->compute_scale;
}

int nvs_gemm_unaligned(const nvs_layer *l, nvs_precision p)
{
    const nvs_precision_info *pi = nvs_precision_info_of(p);
    if (l->conv || !pi->half || !(l->gemm_m > 0)) return 0;
    /* the leading dimensions of PyTorch's layouts (train/train_gpu.c ggemm): the features, N and K */
    return fmod(l->gemm_n * 2, 16) != 0 || fmod(l->gemm_k * 2, 16) != 0;
}

/* The longer of a GEMM's FLOPs at the matrix rate and its bytes at the memory rate (us, unscaled). A convolution
 * with its geometry reads its input (C x H x W); without one, an input of its output's size stands in (over a
 * bottleneck block the inputs and outputs of its convolutions add up to the same). */
static double gemm_us(const nvs_layer *l, int batch, const nvs_gpu_spec *g, nvs_precision p,
                      const nvs_compute_terms *t)
{
    double eff = l->conv && t->conv_eff > 0                                 ? t->conv_eff
                 : t->gemm_unaligned_eff > 0 && nvs_gemm_unaligned(l, p) ? t->gemm_unaligned_eff
                                                                           : t->gemm_eff;
    double rate = nvs_gemm_tflops(g, p) * TFLOPS_TO_FPUS * eff;
    double flops = nvs_layer_fwd_flops(l) * batch;
    if (!(rate > 0) || !(flops > 0)) return 0;
    double in = nvs_layer_has_geom(l) ? nvs_layer_geom_channels(l) * l->geom.h * l->geom.w
                : l->conv                 ? l->act_elems
                                          : l->gemm_m * l->gemm_k;
    double bytes = ((in + l->act_elems) * batch + l->gemm_n * l->gemm_k) * (double)nvs_precision_bytes(p);
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->mem_eff;
    double mem = bw > 0 ? bytes / bw : 0;
    return flops / rate > mem ? flops / rate : mem;
}

void nvs_layer_us(const nvs_layer *l, int first, int batch, const nvs_gpu_spec *g, nvs_precision p,
                  const nvs_compute_terms *t, double *fwd_us, double *bwd_us)
{
    double gemm = gemm_us(l, batch, g, p, t);
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->mem_eff;
    double bn_eff = nvs_bn_in_cudnn(p) ? t->bn_cudnn_eff : t->bn_own_eff;
    double bn_rate = bn_eff > 0 ? g->mem_gbps * GBPS_TO_BPUS * bn_eff / 4.0 : 0; /* elements per us */
    double passes = l->ew_passes, bn_f = 0, bn_b = 0;
    if (l->bn_passes > 0 && bn_rate > 0) {
        double el = (double)batch * l->act_elems;
        passes -= l->bn_passes;
        bn_f = BN_FWD_ACCESSES * el / bn_rate;
        bn_b = BN_BWD_ACCESSES * el / bn_rate;
    }
    /* a LayerNorm (ln=) in its kernels, at the step's precision (model_eval.c adds autocast's fp32) */
    double ln_f = 0, ln_b = 0;
    if (l->ln_passes > 0 && t->ln_eff > 0) {
        passes -= l->ln_passes;
        nvs_ln_us(l, batch, g, (double)nvs_precision_bytes(p), t, &ln_f, &ln_b);
        ln_f /= t->compute_scale;
        ln_b /= t->compute_scale;
    }
    double ew_bytes = passes * 2.0 * batch * l->act_elems * (double)nvs_precision_bytes(p);
    double ew = bw > 0 ? ew_bytes / bw : 0;
    /* perm= passes as copies through a view (a framework with view_copies), one each way: in place of as many of
     * the passes, forward and backward */
    double view = 0, view_as_ew = 0;
    if (l->perm_passes > 0 && t->view_copy_eff > 0 && bw > 0) {
        double vbytes = l->perm_passes * 2.0 * batch * l->act_elems * (double)nvs_precision_bytes(p);
        view = vbytes / (g->mem_gbps * GBPS_TO_BPUS * t->view_copy_eff);
        view_as_ew = vbytes / bw;
    }
    /* the backward's own passes (profile.h ewb=) */
    double ewb = bw > 0 ? l->ewb_passes * 2.0 * batch * l->act_elems * (double)nvs_precision_bytes(p) / bw : 0;
    /* a bias's gradient reads the output gradient once (profile.h nvs_layer_bias_elems) */
    double bias_bytes = nvs_layer_bias_elems(l) > 0 ? batch * l->gemm_m * l->gemm_n * (double)nvs_precision_bytes(p) : 0;
    double bias_bw = g->mem_gbps * GBPS_TO_BPUS * t->bias_reduce_eff, bias = 0;
    if (bias_bytes > 0 && t->bias_reduce_eff > 0) /* a launch per bias tensor (q, k and v: three) */
        bias = t->bias_reduce_us * nvs_layer_bias_tensors(l) + bias_bytes / bias_bw;
    else if (bias_bytes > 0 && bw > 0)
        bias = bias_bytes / bw;
    *fwd_us = (gemm + ew - view_as_ew + view + bn_f + ln_f) * t->compute_scale;
    /* a layer autograd never reaches (frozen stem) has no backward */
    *bwd_us = l->nograd ? 0
                        : ((first ? 1.0 : 2.0) * gemm + 2.0 * ew - view_as_ew + view + ewb + bias + bn_b + ln_b) *
                              t->compute_scale;
}

double nvs_mem_pass_us(double bytes, const nvs_gpu_spec *g, const nvs_compute_terms *t)
{
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->mem_eff;
    return bw > 0 ? bytes / bw * t->compute_scale : 0;
}

double nvs_optimizer_us(double params, double grad_bytes, int foreach, nvs_optimizer opt, const nvs_gpu_spec *g,
                        const nvs_compute_terms *t)
{
    /* the passes and what each reads and writes: workload/optimizer.c */
    double bytes = params * nvs_optimizer_pass_bytes(opt, foreach, grad_bytes);
    double bw = g->mem_gbps * GBPS_TO_BPUS * t->mem_eff;
    return bw > 0 ? bytes / bw * t->compute_scale : 0;
}

/* --- buckets and schedule -------------------------------------------------------------------------------------- */

int nvs_assign_buckets(const nvs_layer *layers, int nlayers, double grad_bytes, double first_cap_bytes,
                       double cap_bytes, nvs_model_bucket *out, int maxb)
{
    return nvs_ddp_buckets(layers, nlayers, grad_bytes, first_cap_bytes, cap_bytes, out, maxb, NULL);
}

void nvs_schedule(const double *bwd_layer_us, int nlayers, const nvs_model_bucket *b, int nb, const double *ar_us,
                  double fwd_us, double opt_us, nvs_step_times *out)
{
    memset(out, 0, sizeof *out);
    double bwd = 0;
    for (int i = 0; i < nlayers; i++) bwd += bwd_layer_us[i];
    double end = 0;
    for (int k = 0; k < nb; k++) {
        double ready = 0; /* backward runs layers nlayers-1 .. 0: bucket ready when its last layer is done */
        for (int i = nlayers - 1; i >= b[k].last_layer && i >= 0; i--) ready += bwd_layer_us[i];
        double start = ready > end ? ready : end;
        end = start + ar_us[k];
        out->comm_us += ar_us[k];
    }
    out->fwd_us = fwd_us;
    out->bwd_us = bwd;
    out->opt_us = opt_us;
    out->compute_us = fwd_us + bwd + opt_us;
    out->comm_end_us = end;
    out->step_us = fwd_us + (end > bwd ? end : bwd) + opt_us;
    out->exposed_us = out->step_us - out->compute_us;
}

void nvs_schedule_lanes(const nvs_lanes *l, nvs_step_times *out)
{
    memset(out, 0, sizeof *out);
    double h = l->before_host_us, g = 0, gpu_sum = 0, host_sum = l->before_host_us;
    for (int i = 0; i < l->nlayers; i++) {
        double hw = l->host_fwd_us ? l->host_fwd_us[i] : 0;
        h += hw;
        host_sum += hw;
        g = (g > h ? g : h) + l->fwd_us[i];
        gpu_sum += l->fwd_us[i];
    }
    out->fwd_us = g;
    h += l->between_host_us;
    host_sum += l->between_host_us;
    /* which bucket closes at which layer: buckets close in order, bucket k at its last (lowest-index) layer */
    int k = 0;
    double end = 0;
    for (int i = l->nlayers - 1; i >= 0; i--) {
        double hw = l->host_bwd_us ? l->host_bwd_us[i] : 0;
        h += hw;
        host_sum += hw;
        double start = g > h ? g : h, d = l->bwd_us[i];
        /* the all-reduces queued so far run back to back up to `end` (each bucket was ready before this kernel
         * starts, so none waits past it): the kernel computes beside them until then */
        if (end > start) out->overlap_us += d < end - start ? d : end - start;
        g = start + d;
        gpu_sum += d;
        while (k < l->nb && l->b[k].last_layer >= i) {
            h += l->reducer_host_us;
            host_sum += l->reducer_host_us;
            double ready = g > h ? g : h;
            double start = ready > end ? ready : end;
            end = start + l->ar_us[k];
            out->comm_us += l->ar_us[k];
            k++;
        }
    }
    out->bwd_us = g - out->fwd_us;
    out->comm_end_us = end > out->fwd_us ? end - out->fwd_us : 0;
    if (end > g) g = end; /* the step's next work waits for the last all-reduce */
    g += l->penalty_us;   /* and for the time the interference added to the kernels beside them */
    for (int j = 0; j < l->nafter; j++) {
        h += l->after[j].host_us;
        host_sum += l->after[j].host_us;
        g = (g > h ? g : h) + l->after[j].gpu_us;
        gpu_sum += l->after[j].gpu_us;
        out->opt_us += l->after[j].gpu_us;
        if (l->after[j].sync && h < g) h = g;
    }
    out->compute_us = gpu_sum;
    out->step_us = g > h ? g : h;
    out->exposed_us = out->step_us - out->compute_us;
    out->host_us = host_sum;
}

double nvs_expected_max_normal(int n)
{
    if (n <= 1) return 0;
    /* integrand x * n * phi(x) * Phi(x)^(n-1); phi, Phi of the standard normal */
    const double lo = -12, hi = 12;
    const int steps = 4800;
    const double h = (hi - lo) / steps;
    double sum = 0;
    for (int i = 0; i <= steps; i++) {
        double x = lo + i * h;
        double phi = exp(-0.5 * x * x) / sqrt(2 * M_PI), cdf = 0.5 * erfc(-x / sqrt(2.0));
        double y = x * n * phi * pow(cdf, n - 1);
        sum += (i == 0 || i == steps) ? 0.5 * y : y;
    }
    return sum * h;
}

/* --- memory ---------------------------------------------------------------------------------------------------- */

void nvs_memory_estimate(const nvs_layer *layers, int nlayers, double params, const nvs_gpu_spec *g,
                         nvs_precision p, double grad_bytes, nvs_optimizer opt, int foreach, nvs_mem_estimate *out)
{
    memset(out, 0, sizeof *out);
    double esz = (double)nvs_precision_bytes(p);
    /* autocast / AMP keeps a 16-bit copy of the weights beside the fp32 master weights */
    out->weights_bytes = params * 4.0 + (nvs_precision_info_of(p)->half ? params * 2.0 : 0);
    out->grads_bytes = params * grad_bytes;
    out->buckets_bytes = params * grad_bytes; /* DDP copies gradients into its buckets (no bucket views) */
    /* fp32 state: SGD's momentum buffer, AdamW's exp_avg and exp_avg_sq, and foreach AdamW's temporary
     * (workload/optimizer.h nvs_optimizer_fp32_words) */
    out->optimizer_bytes = params * 4.0 * nvs_optimizer_fp32_words(opt, foreach);
    /* 1 GiB: CUDA context (~0.3-0.5 GiB per process as nvidia-smi shows) plus cuBLAS/cuDNN workspaces; 5% of
     * the card: caching-allocator fragmentation. An assumption, documented in docs/model.md. */
    out->reserve_bytes = 1073741824.0 + 0.05 * g->memory_bytes;
    double keep = 0, peak_grad = 0;
    for (int i = 0; i < nlayers; i++) {
        /* what autograd saves: every layer's output once (the next layer's input); a GEMM layer followed by
         * elementwise passes (bias + activation, dropout, residual) keeps a second tensor of that size, the
         * GEMM's raw output the activation's backward needs. A layer without a GEMM (norm, pooling) only keeps
         * its output: its input is the previous layer's, already counted, and an in-place ReLU after a
         * batch-norm shares its storage (conv -> BN -> ReLU keeps two tensors, as PyTorch does). `act` is
         * optional in a profile (docs/profiles.md): without it the output is the GEMM's M x N per sample, as the
         * training step's plan stores it (train_plan.c) */
        double act = layers[i].act_elems > 0 ? layers[i].act_elems : layers[i].gemm_m * layers[i].gemm_n;
        double a = act * esz;
        int gemm = layers[i].gemm_m > 0;
        if (layers[i].nograd) {
            /* a frozen stem saves nothing; its last output is the first trainable layer's input */
            if (i + 1 < nlayers && !layers[i + 1].nograd) keep += a;
            continue;
        }
        keep += a * (gemm && layers[i].ew_passes > 0 ? 2.0 : 1.0);
        if (2.0 * a > peak_grad) peak_grad = 2.0 * a; /* incoming + outgoing activation gradient */
    }
    out->per_sample_bytes = keep + peak_grad;
    double fixed = out->weights_bytes + out->grads_bytes + out->buckets_bytes + out->optimizer_bytes +
                   out->reserve_bytes;
    double room = g->memory_bytes - fixed;
    if (room <= 0) {
        out->max_batch = 0;
        return;
    }
    /* nothing that grows with the batch (no activations, no GEMM): memory does not bound it */
    double b = out->per_sample_bytes > 0 ? floor(room / out->per_sample_bytes) : INFINITY;
    out->fit_batch = b;
    out->batch_capped = b > NVS_MODEL_MAX_BATCH;
    out->max_batch = out->batch_capped ? NVS_MODEL_MAX_BATCH : (int)b;
}
