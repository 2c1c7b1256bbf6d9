/* The what-if model's collectives: the names of NCCL's algorithms and transports, the alpha-beta all-reduce
 * costs of each algorithm and NCCL's choice among them, and whether a GPU can do NVLink SHARP. Formulas and
 * sources: model.h, docs/model.md. */
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/model_priv.h"
#include "model/preset.h"

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
