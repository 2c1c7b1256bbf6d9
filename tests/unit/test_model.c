/* The what-if model's pure functions (src/model/model.h, src/model/model_eval.h, src/model/model_gap.h), table-driven against
 * values computed by hand in the comments. */
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "model/model_eval.h"
#include "model/model_gap.h"
#include "model/preset.h"
#include "t.h"

#define REL(a, b, r) T_NEAR((a), (b), fabs((double)(b)) * (r) + 1e-12)

/* --- alpha-beta ------------------------------------------------------------------------------------------------ */

static void t_ring_table(void)
{
    static const struct {
        double bytes;
        int n;
        double alpha, gbps, want_us;
    } v[] = {
        /* 2(n-1)/n * S/B: 1e9 B over 8 GPUs at 10 GB/s (1e4 B/us) = 14/8 * 1e5 = 175000 us */
        {1e9, 8, 0, 10, 175000},
        /* + 2(n-1) alpha = 14 * 2 us */
        {1e9, 8, 2, 10, 175028},
        /* n = 2: S/B + 2 alpha = 1e6 B / 1e5 B/us + 2 = 12 us */
        {1e6, 2, 1, 100, 12},
        /* n = 1: nothing to do */
        {1e9, 1, 5, 10, 0},
        /* 3 GPUs, 3e6 B, 1 GB/s: 2*2/3 * 3e6/1e3 = 4000 us, + 4 * 0.5 */
        {3e6, 3, 0.5, 1, 4002},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        REL(nvs_ring_allreduce_us(v[i].bytes, v[i].n, v[i].alpha, v[i].gbps), v[i].want_us, 1e-12);
    /* reduce-scatter is half of the ring all-reduce */
    REL(nvs_ring_half_us(1e9, 8, 2, 10), 175028 / 2.0, 1e-12);
}

static void t_tree_table(void)
{
    T_EQ_I(nvs_ceil_log2(1), 0);
    T_EQ_I(nvs_ceil_log2(2), 1);
    T_EQ_I(nvs_ceil_log2(3), 2);
    T_EQ_I(nvs_ceil_log2(8), 3);
    T_EQ_I(nvs_ceil_log2(9), 4);
    T_EQ_I(nvs_ceil_log2(1024), 10);
    /* one node: NCCL's chain, 2 (n-1) alpha + 2(n-1)/n S / (0.92 B) = 70 + 1.75e6 / 9200 */
    REL(nvs_tree_allreduce_us(1e6, 8, 5, 10), 70 + 1.75e6 / 9200, 1e-12);
    /* the ring's latency and 0.92 of its bandwidth: never faster than the ring on one node */
    for (int n = 2; n <= 1024; n *= 2)
        REL(nvs_tree_allreduce_us(1e6, n, 5, 10) - 2.0 * (n - 1) * 5,
            (nvs_ring_allreduce_us(1e6, n, 5, 10) - 2.0 * (n - 1) * 5) / 0.92, 1e-12);
    T_EQ_I(nvs_tree_allreduce_us(1e6, 1, 5, 10), 0);
}

static void t_allreduce_shapes(void)
{
    nvs_ar_params p = {0};
    nvs_algo used;
    /* one node of 8: base + ring */
    p.nodes = 1;
    p.gpn = 8;
    p.base_us = 7;
    p.intra_alpha_us = 1;
    p.intra_gbps = 10;
    p.algo = NVS_ALGO_RING;
    REL(nvs_allreduce_us(&p, 1e9, &used), 7 + 175014, 1e-12);
    T_EQ_I(used, NVS_ALGO_RING);
    /* auto on one node picks the ring even at a small size: the tree (a chain inside a node) pays the same
     * 14 alpha and 0.92 of the bandwidth: ring 7 + 14 + 1.75e3 / 1e4 */
    p.algo = NVS_ALGO_AUTO;
    double t = nvs_allreduce_us(&p, 1000, &used);
    T_EQ_I(used, NVS_ALGO_RING);
    REL(t, 7 + 14 + 1750.0 / 1e4, 1e-12);
    p.algo = NVS_ALGO_TREE;
    REL(nvs_allreduce_us(&p, 1000, &used), 7 + 14 + 1750.0 / (0.92 * 1e4), 1e-12);
    T_EQ_I(used, NVS_ALGO_TREE);
    /* 4 nodes x 8 (n = 32), S = 8e8 B: the phases pipeline, one bandwidth min(B_i 10, B_net 2) = 2 GB/s;
     * latency 2(n - N) alpha_i + 2(N - 1) alpha_n = 56 + 30: 7 + 86 + 62/32 * 8e8 / 2e3 = 7 + 86 + 775000 */
    p.nodes = 4;
    p.inter_alpha_us = 5;
    p.inter_gbps = 2;
    p.algo = NVS_ALGO_RING;
    REL(nvs_allreduce_us(&p, 8e8, &used), 7 + 86 + 775000, 1e-12);
    /* a tree across them: 0.92 x 2 GB/s, latency 2 (7 alpha_i + 2 alpha_n) = 34 */
    p.algo = NVS_ALGO_TREE;
    REL(nvs_allreduce_us(&p, 8e8, &used), 7 + 34 + 62.0 / 32 * 8e8 / (0.92 * 2e3), 1e-12);
    T_EQ_I(used, NVS_ALGO_TREE);
    /* across nodes auto picks the tree at a small size: latency 34 against the ring's 86 */
    p.algo = NVS_ALGO_AUTO;
    REL(nvs_allreduce_us(&p, 1000, &used), 7 + 34 + 62.0 / 32 * 1000 / (0.92 * 2e3), 1e-12);
    T_EQ_I(used, NVS_ALGO_TREE);
    /* one GPU per node: the network alone, 2(N - 1) alpha_n */
    p.gpn = 1;
    p.algo = NVS_ALGO_RING;
    REL(nvs_allreduce_us(&p, 8e8, NULL), 7 + 2 * 3 * 5 + 6.0 / 4 * 8e8 / 2e3, 1e-12);
    /* one GPU in all: nothing */
    p.nodes = 1;
    T_EQ_I(nvs_allreduce_us(&p, 8e8, NULL), 0);
    /* per-call overhead adds once */
    p.gpn = 2;
    p.per_call_us = 3;
    REL(nvs_allreduce_us(&p, 1e4, NULL), 7 + 3 + 2 * (1 + 1e4 / 2 / 1e4), 1e-12);
}

/* --- the link graph -------------------------------------------------------------------------------------------- */

static nvs_gpu_spec gpu_3090(void)
{
    nvs_gpu_spec g = {"rtx3090", 35.58, 35.6, 71, 936, 24.0 * 1073741824, 0, 4, 14.0625};
    return g;
}
static nvs_gpu_spec gpu_a6000(void)
{
    nvs_gpu_spec g = {"rtxa6000", 38.7, 38.7, 154.8, 768, 48.0 * 1073741824, 1, 4, 14.0625};
    return g;
}

static nvs_machine_spec pcie8(int sockets, int gps, int cascade, int nvlink)
{
    nvs_machine_spec m;
    memset(&m, 0, sizeof m);
    m.id = "test";
    m.gpus = 8;
    m.sockets = sockets;
    m.gpus_per_switch = gps;
    m.switch_cascade = cascade;
    m.nvlink = nvlink;
    m.p2p_level = NVS_CLS_PXB;
    m.gpu_link_gbps = 24;
    m.uplink_gbps = 24;
    m.socket_gbps = 20;
    m.shm_gbps = 13.75;
    m.nvlink_eff = 0.5;
    m.nvlink_hop_us = 1;
    m.p2p_hop_us = 1.5;
    m.shm_hop_us = 3;
    m.coll_base_us = 7;
    m.nics = 1;
    return m;
}

static void t_classes(void)
{
    nvs_gpu_spec a = gpu_a6000();
    nvs_machine_spec cas = pcie8(1, 4, 1, NVS_NVLINK_NONE), sw1 = pcie8(1, 4, 0, NVS_NVLINK_NONE);
    nvs_machine_spec sw2 = pcie8(2, 4, 0, NVS_NVLINK_NONE), nosw = pcie8(2, 0, 0, NVS_NVLINK_NONE);
    nvs_machine_spec pairs = pcie8(2, 4, 0, NVS_NVLINK_PAIRS);
    T_EQ_I(nvs_machine_class(&cas, &a, 0, 3), NVS_CLS_PIX);
    T_EQ_I(nvs_machine_class(&cas, &a, 0, 5), NVS_CLS_PXB);
    T_EQ_I(nvs_machine_class(&sw1, &a, 0, 5), NVS_CLS_NODE);
    T_EQ_I(nvs_machine_class(&sw2, &a, 3, 4), NVS_CLS_SYS);
    T_EQ_I(nvs_machine_class(&nosw, &a, 0, 1), NVS_CLS_NODE);
    T_EQ_I(nvs_machine_class(&pairs, &a, 2, 3), NVS_CLS_NV);
    T_EQ_I(nvs_machine_class(&pairs, &a, 1, 2), NVS_CLS_PIX);
    /* transports: NCCL's default P2P level PXB; GeForce never P2P over PCIe; NCCL_P2P_DISABLE: SHM */
    T_EQ_I(nvs_machine_transport(&cas, &a, 0, 5, 8, 0), NVS_TR_P2P);
    T_EQ_I(nvs_machine_transport(&sw1, &a, 0, 5, 8, 0), NVS_TR_SHM);
    nvs_gpu_spec g = gpu_3090();
    T_EQ_I(nvs_machine_transport(&cas, &g, 0, 1, 8, 0), NVS_TR_SHM);
    T_EQ_I(nvs_machine_transport(&pairs, &g, 0, 1, 8, 0), NVS_TR_NVLINK); /* GeForce P2P works over the bridge */
    T_EQ_I(nvs_machine_transport(&pairs, &g, 0, 1, 8, 1), NVS_TR_SHM);
    sw1.p2p_level = NVS_CLS_SYS; /* NCCL_P2P_LEVEL=SYS */
    T_EQ_I(nvs_machine_transport(&sw1, &a, 0, 5, 8, 0), NVS_TR_P2P);
    /* NCCL_SHM_DISABLE=1: what would go through host memory goes over NET; P2P and NVLink stay */
    T_EQ_I(nvs_machine_transport(&cas, &g, 0, 1, 8, NVS_OFF_SHM), NVS_TR_NET);
    T_EQ_I(nvs_machine_transport(&cas, &a, 0, 5, 8, NVS_OFF_SHM), NVS_TR_P2P);
    T_EQ_I(nvs_machine_transport(&pairs, &g, 0, 1, 8, NVS_OFF_SHM), NVS_TR_NVLINK);
    /* ... and with P2P off too, every pair, NVLink ones included */
    T_EQ_I(nvs_machine_transport(&pairs, &g, 0, 1, 8, NVS_OFF_P2P | NVS_OFF_SHM), NVS_TR_NET);
    T_EQ_I(nvs_machine_transport(&cas, &a, 0, 5, 8, NVS_OFF_P2P | NVS_OFF_SHM), NVS_TR_NET);
}

/* NET between GPUs of one node: the sockets' cap and latency, the PCIe links still shared; refused where the
 * machine does not know its sockets' rate */
static void t_ring_links_net(void)
{
    nvs_gpu_spec g = gpu_3090(), a = gpu_a6000();
    nvs_ring_links r;
    nvs_machine_spec cas = pcie8(1, 4, 1, NVS_NVLINK_NONE);
    T_EQ_I(nvs_ring_links_of(&cas, &g, 8, NVS_OFF_SHM, &r), NVS_ERR_INPUT);
    T_CONTAINS(r.why, "net_local_gbps");
    T_CONTAINS(r.why, "'test'");
    cas.net_local_gbps = 3.4;
    cas.net_local_hop_us = 118;
    /* 2 GPUs of one switch: the sockets (3.4) bind before the shared links; the hop is the sockets' */
    T_EQ_I(nvs_ring_links_of(&cas, &g, 2, NVS_OFF_SHM, &r), NVS_OK);
    REL(r.gbps, 3.4, 1e-12);
    T_EQ_I(r.transport, NVS_TR_NET);
    REL(r.alpha_us, 118, 1e-12);
    T_CONTAINS(r.why, "sockets");
    /* 8 GPUs: every flow crosses the parent switch's x16 (24 / 8 = 3 GB/s), below the sockets' cap */
    T_EQ_I(nvs_ring_links_of(&cas, &g, 8, NVS_OFF_SHM, &r), NVS_OK);
    REL(r.gbps, 3, 1e-12);
    T_EQ_I(r.transport, NVS_TR_NET);
    /* the A6000 peers over P2P with SHM off alone: the sockets' rate is never asked for */
    cas.net_local_gbps = 0;
    T_EQ_I(nvs_ring_links_of(&cas, &a, 8, NVS_OFF_SHM, &r), NVS_OK);
    T_EQ_I(r.transport, NVS_TR_P2P);
    REL(r.gbps, 24, 1e-12);
}

static void t_ring_links(void)
{
    nvs_gpu_spec g = gpu_3090(), a = gpu_a6000();
    nvs_ring_links r;
    /* cascade box, 3090: every flow goes through host memory and the parent switch's one x16: 8 flows up,
     * 24/8 = 3 GB/s */
    nvs_machine_spec cas = pcie8(1, 4, 1, NVS_NVLINK_NONE);
    T_EQ_I(nvs_ring_links_of(&cas, &g, 8, 0, &r), NVS_OK);
    REL(r.gbps, 3, 1e-12);
    T_EQ_I(r.transport, NVS_TR_SHM);
    REL(r.alpha_us, 3, 1e-12);
    /* A6000 there: P2P everywhere, each flow alone on its links: 24 */
    T_EQ_I(nvs_ring_links_of(&cas, &a, 8, 0, &r), NVS_OK);
    REL(r.gbps, 24, 1e-12);
    T_EQ_I(r.transport, NVS_TR_P2P);
    REL(r.alpha_us, 1.5, 1e-12);
    /* 2 sockets, a switch each: the A6000 ring crosses sockets through SHM (3 -> 4 and 7 -> 0), capped 13.75 */
    nvs_machine_spec sw2 = pcie8(2, 4, 0, NVS_NVLINK_NONE);
    T_EQ_I(nvs_ring_links_of(&sw2, &a, 8, 0, &r), NVS_OK);
    REL(r.gbps, 13.75, 1e-12);
    T_EQ_I(r.cls, NVS_CLS_SYS);
    /* the 3090 there: 4 flows leave switch 0 upward (0->1, 1->2, 2->3, 3->4): 6 */
    T_EQ_I(nvs_ring_links_of(&sw2, &g, 8, 0, &r), NVS_OK);
    REL(r.gbps, 6, 1e-12);
    /* 2 GPUs of one switch: 2 flows share the uplink each way: 12, under the SHM cap */
    T_EQ_I(nvs_ring_links_of(&sw2, &g, 2, 0, &r), NVS_OK);
    REL(r.gbps, 12, 1e-12);
    /* NVLink pairs: the PCIe hops decide: 1->2 P2P inside a switch (24), 3->4 SHM across sockets (13.75) */
    nvs_machine_spec pairs = pcie8(2, 4, 0, NVS_NVLINK_PAIRS);
    T_EQ_I(nvs_ring_links_of(&pairs, &a, 8, 0, &r), NVS_OK);
    REL(r.gbps, 13.75, 1e-12);
    /* ... and 2 GPUs of a pair: NVLink, 4 x 14.0625 x eff 0.5 = 28.125 */
    T_EQ_I(nvs_ring_links_of(&pairs, &a, 2, 0, &r), NVS_OK);
    REL(r.gbps, 28.125, 1e-12);
    T_EQ_I(r.transport, NVS_TR_NVLINK);
    REL(r.alpha_us, 1, 1e-12);
    /* bad shapes */
    T_EQ_I(nvs_ring_links_of(&pairs, &a, 9, 0, &r), NVS_ERR_INPUT);
    T_EQ_I(nvs_ring_links_of(&pairs, &a, 1, 0, &r), NVS_ERR_INPUT);
}

static void t_inter_share(void)
{
    nvs_machine_spec m = pcie8(2, 4, 0, NVS_NVLINK_NONE);
    nvs_net_spec n = {"x", 24, 5, 0};
    REL(nvs_inter_gbps(&m, &n, 8), 24, 1e-12);  /* one 24 GB/s NIC: the node's network */
    m.nics = 8;
    REL(nvs_inter_gbps(&m, &n, 8), 192, 1e-12); /* the rings share all of them: 8 x 24, not divided by GPUs */
    n.gbps = 48;
    REL(nvs_inter_gbps(&m, &n, 8), 192, 1e-12); /* each NIC capped by its PCIe link (24) */
    /* fewer GPUs of the node than it has: only the NICs beside them (one per GPU here); 1 GPU of an 8-NIC box drove
     * all 8 (192 GB/s through its own 24 GB/s PCIe link) */
    T_EQ_I(nvs_inter_nics(&m, 1), 1);
    T_EQ_I(nvs_inter_nics(&m, 2), 2);
    T_EQ_I(nvs_inter_nics(&m, 8), 8);
    REL(nvs_inter_gbps(&m, &n, 1), 24, 1e-12);
    REL(nvs_inter_gbps(&m, &n, 2), 48, 1e-12);
    REL(nvs_inter_gbps(&m, &n, 4), 96, 1e-12);
    m.nics = 2; /* 2 NICs for 8 GPUs: 1 GPU reaches one, 5 reach both */
    T_EQ_I(nvs_inter_nics(&m, 1), 1);
    T_EQ_I(nvs_inter_nics(&m, 5), 2);
    m.nics = 1;
    REL(nvs_inter_gbps(&m, &n, 1), 24, 1e-12);
    m.nics = 16; /* more NICs than GPUs: the GPUs' own PCIe links bind, 24 GB/s each */
    REL(nvs_inter_gbps(&m, &n, 1), 24, 1e-12);
    REL(nvs_inter_gbps(&m, &n, 8), 192, 1e-12);
}

/* --- compute, buckets, schedule ---------------------------------------------------------------------------------- */

static void t_layer_times(void)
{
    /* 1 FLOP/us and 1 byte/us at 100% efficiency make the arithmetic visible */
    nvs_gpu_spec g = {"toy", 1e-6, 2e-6, 4e-6, 1e-3, 1e9, 0, 0, 0};
    nvs_compute_terms t = {1, 1, 1};
    nvs_layer l;
    memset(&l, 0, sizeof l);
    l.gemm_m = 10;
    l.gemm_n = 10;
    l.gemm_k = 10;
    l.act_elems = 100;
    l.ew_passes = 1;
    double f, b;
    /* batch 1, fp32: GEMM 2000 FLOP = 2000 us; ew: 1 pass x read+write x 100 x 4 B = 800 us */
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_FP32, &t, &f, &b);
    REL(f, 2800, 1e-12);
    REL(b, 2 * 2000 + 2 * 800, 1e-12);
    /* the first layer computes no input gradient: one GEMM in backward */
    nvs_layer_us(&l, 1, 1, &g, NVS_PREC_FP32, &t, &f, &b);
    REL(b, 2000 + 2 * 800, 1e-12);
    /* batch 3, bf16: GEMM 6000 FLOP at 4 FLOP/us = 1500; ew 3 x 2 x 100 x 2 B = 1200 */
    nvs_layer_us(&l, 0, 3, &g, NVS_PREC_BF16, &t, &f, &b);
    REL(f, 2700, 1e-12);
    /* tf32 uses the tf32 rate, 4-byte activations; efficiencies divide. At half the bandwidth the GEMM's own
     * bytes (100 in + 100 out + 100 weights, x 4 B = 1200 B: 2400 us) outlast its FLOPs (2000 us): the roofline */
    t.gemm_eff = 0.5;
    t.mem_eff = 0.5;
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_TF32, &t, &f, &b);
    REL(f, 1200 / 0.5 + 800 / 0.5, 1e-12);
    t.mem_eff = 0.75; /* 1600 us of bytes: the FLOPs again */
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_TF32, &t, &f, &b);
    REL(f, 2000 / (2 * 0.5) + 800 / 0.75, 1e-12);
    /* compute_scale multiplies */
    t.mem_eff = 0.5;
    t.compute_scale = 2;
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_TF32, &t, &f, &b);
    REL(f, 2 * (2400 + 1600), 1e-12);
    /* optimizer: 1000 params x (16 + 4) bytes at 1 B/us */
    t = (nvs_compute_terms){1, 1, 1};
    REL(nvs_optimizer_us(1000, 4, 0, NVS_OPT_SGD, &g, &t), 20000, 1e-12);
    REL(nvs_optimizer_us(1000, 2, 0, NVS_OPT_SGD, &g, &t), 18000, 1e-12);
    /* foreach: m *= mu (8 bytes), m += g (8 + 4), w += -lr m (12): PyTorch's SGD on CUDA */
    REL(nvs_optimizer_us(1000, 4, 1, NVS_OPT_SGD, &g, &t), 32000, 1e-12);
    REL(nvs_optimizer_us(1000, 2, 1, NVS_OPT_SGD, &g, &t), 30000, 1e-12);
    /* AdamW fused (torch._fused_adamw_): read w, g, m, v, write w, m, v: 24 + 4 bytes */
    REL(nvs_optimizer_us(1000, 4, 0, NVS_OPT_ADAMW, &g, &t), 28000, 1e-12);
    REL(nvs_optimizer_us(1000, 2, 0, NVS_OPT_ADAMW, &g, &t), 26000, 1e-12);
    /* foreach (_multi_tensor_adam): w *= 1 - lr wd (8), lerp m, g (8 + g), v *= b2 (8), addcmul v, g, g (8 + g),
     * sqrt v -> s (8), s /= bc2 (8), s += eps (8), addcdiv w, m, s (16): 72 + 2 g */
    REL(nvs_optimizer_us(1000, 4, 1, NVS_OPT_ADAMW, &g, &t), 80000, 1e-12);
    REL(nvs_optimizer_us(1000, 2, 1, NVS_OPT_ADAMW, &g, &t), 76000, 1e-12);
    /* the parser: the three names (adamw-fused: AdamW, fused), nothing else */
    nvs_optimizer o = NVS_OPT_ADAMW;
    int fused = 1;
    T_EQ_I(nvs_optimizer_parse("sgd", &o, &fused), 0);
    T_EQ_I(o, NVS_OPT_SGD);
    T_EQ_I(fused, 0);
    T_EQ_I(nvs_optimizer_parse("adamw-fused", &o, &fused), 0);
    T_EQ_I(o, NVS_OPT_ADAMW);
    T_EQ_I(fused, 1);
    T_EQ_I(nvs_optimizer_parse("adamw", &o, &fused), 0);
    T_EQ_I(o, NVS_OPT_ADAMW);
    T_EQ_I(fused, 0);
    T_EQ_I(nvs_optimizer_parse("adam", &o, &fused), -1);
    T_EQ_I(nvs_optimizer_parse("adamw-", &o, &fused), -1);
    T_EQ_I(nvs_optimizer_parse("sgd-fused", &o, &fused), -1);
    T_EQ_I(nvs_optimizer_parse("", &o, &fused), -1);
    T_EQ_I(nvs_optimizer_parse(NULL, &o, &fused), -1);
    T_EQ_I(o, NVS_OPT_ADAMW);
    T_EQ_I(fused, 0);
    /* AdamW's element update (the host executor's and the GPU kernel's reference) against the paper's formula in
     * double (Loshchilov & Hutter, decoupled decay; torch.optim.AdamW's defaults), two steps from w 0.5, g 0.25, -0.1 */
    nvs_adamw_hyper h = nvs_adamw_defaults();
    h.lr = 1e-2f;
    float w = 0.5f, m = 0, v = 0;
    double rw = 0.5, rm = 0, rv = 0;
    const double gs[2] = {0.25, -0.1};
    for (int t = 1; t <= 2; t++) {
        nvs_adamw_elem(&w, &m, &v, (float)gs[t - 1], t, &h);
        rw *= 1 - 1e-2 * 1e-2;
        rm = 0.9 * rm + 0.1 * gs[t - 1];
        rv = 0.999 * rv + 0.001 * gs[t - 1] * gs[t - 1];
        rw -= 1e-2 * (rm / (1 - pow(0.9, t))) / (sqrt(rv / (1 - pow(0.999, t))) + 1e-8);
    }
    REL(m, rm, 1e-5);
    REL(v, rv, 1e-4);
    REL(w, rw, 1e-6);
    /* the first step moves w by lr (m-hat / sqrt(v-hat) = sign(g)) after the decay: 0.5 x (1 - 1e-4) - 1e-2 */
    w = 0.5f, m = v = 0;
    nvs_adamw_elem(&w, &m, &v, 0.25f, 1, &h);
    REL(w, 0.5 * (1 - 1e-4) - 1e-2, 1e-6);
    /* the host executor's loop (bias corrections once a step) is the element update, bit for bit, over three steps */
    float wa[5], ma[5] = {0}, va[5] = {0}, wb[5], mb[5] = {0}, vb[5] = {0}, g5[5] = {0.25f, -0.1f, 3.0f, 0, 1e-3f};
    for (int i = 0; i < 5; i++) wa[i] = wb[i] = 0.1f * (float)(i + 1);
    for (int t = 1; t <= 3; t++) {
        nvs_adamw_update(wa, ma, va, g5, 5, 0.5f, t, &h);
        for (int i = 0; i < 5; i++) nvs_adamw_elem(&wb[i], &mb[i], &vb[i], g5[i] * 0.5f, t, &h);
    }
    for (int i = 0; i < 5; i++) {
        T_ASSERT(wa[i] == wb[i]);
        T_ASSERT(ma[i] == mb[i] && va[i] == vb[i]);
    }
    /* the foreach passes (PyTorch's default AdamW on CUDA: the host executor's under pytorch-ddp) are the same update
     * within fp32 rounding over five steps, and not a no-op: w moved by about lr a step */
    float wc[5], mc[5] = {0}, vc[5] = {0}, tmp[5];
    for (int i = 0; i < 5; i++) wc[i] = wb[i] = 0.1f * (float)(i + 1), mb[i] = vb[i] = 0;
    for (int t = 1; t <= 5; t++) {
        nvs_adamw_foreach(wc, mc, vc, tmp, g5, 5, 0.5f, t, &h);
        for (int i = 0; i < 5; i++) nvs_adamw_elem(&wb[i], &mb[i], &vb[i], g5[i] * 0.5f, t, &h);
    }
    for (int i = 0; i < 5; i++) {
        T_NEAR(wc[i], wb[i], 1e-6 * fabs(wb[i]));
        T_NEAR(mc[i], mb[i], 1e-6 * fabs(mb[i]));
        T_NEAR(vc[i], vb[i], 1e-6 * fabs(vb[i]));
        /* tmp holds the last step's denominator, sqrt(v / (1 - b2^5)) + eps, with 1 - b2^5 in float as both take it */
        T_NEAR(tmp[i], sqrtf(vb[i] / (1.0f - powf(h.beta2, 5.0f))) + h.eps, 1e-6 * tmp[i] + 1e-12);
    }
    T_ASSERT(fabs(wc[0] - (0.1 * pow(1 - 1e-4, 5) - 5 * 1e-2)) < 1e-3); /* g > 0 throughout: 5 steps of ~lr */
}

/* The roofline of a GEMM, a convolution's rate, and a batch norm run as the framework runs it at each precision */
static void t_layer_kinds(void)
{
    nvs_gpu_spec g = {"toy", 1e-6, 2e-6, 4e-6, 1e-3, 1e9, 0, 0, 0}; /* fp32 1 FLOP/us, 1 byte/us */
    nvs_compute_terms t = {1, 1, 1, 0.5, 0.25, 0.125};
    nvs_layer l;
    memset(&l, 0, sizeof l);
    double f, b;
    /* a matrix product of 1 x 10 x 10 (20 FLOP) moves (10 in + 10 out) x 4 B + 100 weights x 4 B = 480 B: memory
     * sets its time, forward and each of the two backward GEMMs */
    l.gemm_m = 1;
    l.gemm_n = 10;
    l.gemm_k = 10;
    l.act_elems = 10;
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_FP32, &t, &f, &b);
    REL(f, 480, 1e-12);
    REL(b, 960, 1e-12);
    /* 100 x 10 x 10 (20000 FLOP, 4400 B) is bound by FLOPs at gemm_eff; as a convolution (conv=1, no geometry: an
     * input the size of its output) at conv_eff, half the rate */
    l.gemm_m = 100;
    l.act_elems = 1000;
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_FP32, &t, &f, &b);
    REL(f, 20000, 1e-12);
    l.conv = 1;
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_FP32, &t, &f, &b);
    REL(f, 40000, 1e-12);
    /* with its geometry a convolution reads its real input: 3 channels of 100 x 100 in, 1000 out, 10 x 10 weights =
     * 31400 elements; a 1 x 1 filter over 3 channels makes K = 3 */
    l.gemm_k = 3;
    l.geom.h = l.geom.w = 100;
    l.geom.r = l.geom.s = l.geom.stride = 1;
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_FP32, &t, &f, &b);
    REL(f, (30000 + 1000 + 30) * 4.0, 1e-12);
    /* a batch norm (bn=) of 100 elements, ew 2.5 passes of which 1.5 its own: the norm runs 3 accesses forward and
     * 5 backward at its engine's element rate (bw x eff / 4 B): cuDNN's at fp32 and fp16 (0.25 -> 1/16 element per
     * us), the framework's own at bf16 (0.125 -> 1/32); the other pass moves its bytes at mem_eff */
    memset(&l, 0, sizeof l);
    l.act_elems = 100;
    l.params = 2;
    l.ew_passes = 2.5;
    l.bn_passes = 1.5;
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_FP32, &t, &f, &b);
    REL(f, 3 * 100 * 16.0 + 1 * 2 * 100 * 4.0, 1e-12);
    REL(b, 5 * 100 * 16.0 + 2 * 2 * 100 * 4.0, 1e-12);
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_FP16, &t, &f, &b);
    REL(f, 3 * 100 * 16.0 + 1 * 2 * 100 * 2.0, 1e-12); /* the norm at cuDNN's rate, the pass in 2-byte elements */
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_BF16, &t, &f, &b);
    REL(f, 3 * 100 * 32.0 + 1 * 2 * 100 * 2.0, 1e-12);
    /* without the engines' rates (0) a batch norm is passes like the others */
    t.bn_cudnn_eff = t.bn_own_eff = 0;
    nvs_layer_us(&l, 0, 1, &g, NVS_PREC_BF16, &t, &f, &b);
    REL(f, 2.5 * 2 * 100 * 2.0, 1e-12);
    /* the defaults: convolutions at 0.52 of the peak, batch norms at 0.445 (cuDNN) and 0.31 (PyTorch's own) */
    t = nvs_compute_defaults();
    REL(t.conv_eff, 0.52, 1e-12);
    REL(t.bn_cudnn_eff, 0.445, 1e-12);
    REL(t.bn_own_eff, 0.31, 1e-12);
}

static void t_buckets(void)
{
    const double MiB = 1048576;
    /* fp32 gradient bytes per layer, forward order: 3, 0, 0.5, 0.75, 20, 10 MiB */
    double mb[] = {3, 0, 0.5, 0.75, 20, 10};
    nvs_layer L[6];
    memset(L, 0, sizeof L);
    for (int i = 0; i < 6; i++) L[i].params = mb[i] * MiB / 4;
    nvs_model_bucket b[8];
    /* reverse order: 10 MiB >= 1 MiB closes bucket 0 {5}; then 20, 0.75, 0.5, (skip), 3 = 24.25 < 25: bucket 1 */
    int n = nvs_assign_buckets(L, 6, 4, MiB, 25 * MiB, b, 8);
    T_EQ_I(n, 2);
    REL(b[0].bytes, 10 * MiB, 1e-12);
    T_EQ_I(b[0].first_layer, 5);
    T_EQ_I(b[0].last_layer, 5);
    REL(b[1].bytes, 24.25 * MiB, 1e-12);
    T_EQ_I(b[1].first_layer, 4);
    T_EQ_I(b[1].last_layer, 0);
    T_EQ_I(b[1].nlayers, 4);
    /* bf16 gradients halve the bytes: 5 >= 1 closes {5}; 10 + 0.375 + 0.25 + 1.5 = 12.125: one more */
    n = nvs_assign_buckets(L, 6, 2, MiB, 25 * MiB, b, 8);
    T_EQ_I(n, 2);
    REL(b[1].bytes, 12.125 * MiB, 1e-12);
    /* a small first layer set: 0.5 + 0.75 = 1.25 >= 1 closes the first bucket; a cap of 10 MiB closes at >= 10 */
    double mb2[] = {4, 4, 4, 0.75, 0.5};
    for (int i = 0; i < 5; i++) L[i].params = mb2[i] * MiB / 4;
    n = nvs_assign_buckets(L, 5, 4, MiB, 10 * MiB, b, 8);
    T_EQ_I(n, 2);
    REL(b[0].bytes, 1.25 * MiB, 1e-12);
    T_EQ_I(b[0].last_layer, 3);
    REL(b[1].bytes, 12 * MiB, 1e-12); /* 4 + 4 = 8 < 10, + 4 = 12 >= 10: closes with all three */
    /* maxb smaller than needed: the count is still returned */
    T_EQ_I(nvs_assign_buckets(L, 5, 4, MiB, 1, b, 1), 4);
}

static void t_schedule_by_hand(void)
{
    /* 3 layers; backward times (forward index order) 3600, 4000, 5200; backward runs 2, 1, 0:
     * layer 2 done at 5200, layer 1 at 9200, layer 0 at 12800. Bucket 0 = {2} ready 5200, bucket 1 = {0} ready
     * 12800. All-reduces 10000 and 1000: bucket 0 runs 5200..15200, bucket 1 waits for it: 15200..16200.
     * step = fwd 7400 + max(12800, 16200) + opt 500 = 24100; compute = 7400 + 12800 + 500 = 20700;
     * exposed = 3400; comm = 11000. */
    double bwd[] = {3600, 4000, 5200};
    nvs_model_bucket b[] = {{8e6, 2, 2, 1}, {4e6, 0, 0, 1}};
    double ar[] = {10000, 1000};
    nvs_step_times t;
    nvs_schedule(bwd, 3, b, 2, ar, 7400, 500, &t);
    REL(t.bwd_us, 12800, 1e-12);
    REL(t.comm_end_us, 16200, 1e-12);
    REL(t.step_us, 24100, 1e-12);
    REL(t.compute_us, 20700, 1e-12);
    REL(t.exposed_us, 3400, 1e-12);
    REL(t.comm_us, 11000, 1e-12);
    /* short all-reduces hide completely: bucket 0 5200..6200, bucket 1 12800..13800: exposed 1000 */
    double ar2[] = {1000, 1000};
    nvs_schedule(bwd, 3, b, 2, ar2, 7400, 500, &t);
    REL(t.exposed_us, 1000, 1e-12);
    REL(t.step_us, 7400 + 13800 + 500, 1e-12);
}

/* the host's and the GPU's lanes (nvs_schedule_lanes): by hand, and equal to nvs_schedule without host work */
static void t_lanes(void)
{
    /* 2 layers: GPU fwd 1, 1; bwd 2, 2; host 5 before layer 0's forward and 5 before layer 1's backward; one
     * bucket closing at layer 0, its reducer 1 us of host work, all-reduce 3; after: the optimizer, 1 host 1 GPU.
     * fwd: h 5, g 6; h 5, g 7. bwd layer 1: h 10, g 12; layer 0: h 10, g 14; bucket: h 11, starts 14, ends 17.
     * after: h 12, g 18. step 18; compute (GPU time) 7; host 12. */
    double f[] = {1, 1}, bw[] = {2, 2}, hf[] = {5, 0}, hb[] = {0, 5}, ar[] = {3};
    nvs_model_bucket b[] = {{4e6, 1, 0, 2}};
    nvs_lane_item opt = {1, 1, 0};
    nvs_lanes l = {2, f, bw, hf, hb, 0, b, 1, ar, 1, &opt, 1};
    nvs_step_times t;
    nvs_schedule_lanes(&l, &t);
    REL(t.fwd_us, 7, 1e-12);
    REL(t.bwd_us, 7, 1e-12);
    REL(t.comm_end_us, 10, 1e-12);
    REL(t.step_us, 18, 1e-12);
    REL(t.compute_us, 7, 1e-12);
    REL(t.host_us, 12, 1e-12);
    /* a sync item: the host waits for the GPU there, so host work after it starts late */
    nvs_lane_item two[] = {{0, 10, 1}, {4, 0, 0}};
    l.after = two;
    l.nafter = 2;
    nvs_schedule_lanes(&l, &t);
    REL(t.step_us, 17 + 10 + 4, 1e-12);
    /* host work before the forward (DDP's buffer broadcast), 4 us: every later host time moves by 4; the GPU's
     * first layer starts at 9, not 5. fwd: g 10, 11 (h 9); bwd: h 14, g 16; h 14, g 18; bucket h 15, 18 -> 21;
     * after as before: the sync item ends at 31, then 4 of host work: 35 */
    l.before_host_us = 4;
    nvs_schedule_lanes(&l, &t);
    REL(t.fwd_us, 11, 1e-12);
    REL(t.step_us, 21 + 10 + 4, 1e-12);
    REL(t.host_us, 5 + 5 + 1 + 4 + 4, 1e-12); /* the two lanes' work, the reducer, the after item, the buffers */
    REL(t.compute_us, 6 + 10, 1e-12); /* GPU time alone: the layers and the sync item */
    /* without host work: nvs_schedule's numbers (t_schedule_by_hand's case, forward split in three) */
    double f3[] = {2800, 2000, 2600}, b3[] = {3600, 4000, 5200}, ar3[] = {10000, 1000};
    nvs_model_bucket bk[] = {{8e6, 2, 2, 1}, {4e6, 0, 0, 1}};
    nvs_lane_item o3 = {0, 500, 0};
    nvs_lanes l3 = {3, f3, b3, NULL, NULL, 0, bk, 2, ar3, 0, &o3, 1};
    nvs_step_times a, want;
    nvs_schedule_lanes(&l3, &a);
    nvs_schedule(b3, 3, bk, 2, ar3, 7400, 500, &want);
    REL(a.step_us, want.step_us, 1e-12);
    REL(a.compute_us, want.compute_us, 1e-12);
    REL(a.exposed_us, want.exposed_us, 1e-12);
    REL(a.comm_end_us, want.comm_end_us, 1e-12);
    REL(a.bwd_us, want.bwd_us, 1e-12);
    T_NEAR(a.host_us, 0, 0);
}

/* how long the GPU computes beside the all-reduces (nvs_schedule_lanes overlap_us), by hand */
static void t_lanes_overlap(void)
{
    /* 3 layers, forward 1 us each, backward 4 us each; bucket 0 closes after layer 2's backward (all-reduce 5
     * us), bucket 1 after layer 0's (1 us). GPU-bound: forward ends at 3; layer 2 3..7; bucket 0 7..12; layer 1
     * 7..11 beside it (4 us), layer 0 11..15 (1 us of it beside it); bucket 1 15..16. Overlap 5 = the hidden comm
     * (comm 6, exposed 1). */
    double f[] = {1, 1, 1}, bw[] = {4, 4, 4}, ar[] = {5, 1}, none[] = {0, 0, 0};
    nvs_model_bucket b[] = {{1e6, 2, 2, 1}, {1e6, 1, 0, 2}};
    nvs_lane_item opt = {0, 0, 0};
    nvs_lanes l = {3, f, bw, none, none, 0, b, 2, ar, 0, &opt, 1};
    nvs_step_times t;
    nvs_schedule_lanes(&l, &t);
    REL(t.step_us, 16, 1e-12);
    REL(t.comm_us, 6, 1e-12);
    REL(t.overlap_us, 5, 1e-12);
    REL(t.overlap_us, t.comm_us - t.exposed_us, 1e-12);
    /* host-bound: 10 us of host work before layers 1 and 0's backward. Layer 2 3..7, bucket 0 7..12; layer 1
     * waits for the host until 10, runs 10..14: 2 us beside bucket 0; layer 0 at 20..24, alone; bucket 1
     * 24..25. The GPU computed 2 us of bucket 0's 5 beside it: the rest of the hidden comm met an idle GPU. */
    double hb[] = {10, 10, 0};
    l.host_bwd_us = hb;
    nvs_schedule_lanes(&l, &t);
    REL(t.step_us, 25, 1e-12);
    REL(t.overlap_us, 2, 1e-12);
    /* the all-reduce outlasts backward: bucket 0 of 20 us, 7..27: layers 1 and 0 (8 us) compute beside it */
    double ar2[] = {20, 1};
    l.host_bwd_us = none;
    l.ar_us = ar2;
    nvs_schedule_lanes(&l, &t);
    REL(t.overlap_us, 8, 1e-12);
    /* no buckets, no overlap */
    l.nb = 0;
    nvs_schedule_lanes(&l, &t);
    REL(t.overlap_us, 0, 0);
}

/* the interference table (model/interference.h): a share per transport, a set value wins */
static void t_interference(void)
{
    const nvs_transport tr[] = {NVS_TR_NVLINK, NVS_TR_P2P, NVS_TR_SHM, NVS_TR_NET};
    for (int i = 0; i < 4; i++) {
        const nvs_interference *in = nvs_interference_of(tr[i]);
        T_EQ_I(in->transport, tr[i]);
        T_ASSERT(in->share > 0 && in->share < 1);
        T_ASSERT(in->source && strlen(in->source) > 20);
        REL(nvs_interference_share(NVS_OVERLAP_BY_TRANSPORT, tr[i], 0), in->share, 0);    /* rate not known */
        REL(nvs_interference_share(NVS_OVERLAP_BY_TRANSPORT, tr[i], 1000), in->share, 0); /* above any fit */
        REL(nvs_interference_share(0.3, tr[i], 10), 0.3, 0);
        REL(nvs_interference_share(0, tr[i], 10), 0, 0);
    }
    /* NVLink's share was fitted at 348 GB/s: a slower NVLink pays it by its rate, the others at any rate */
    const nvs_interference *nv = nvs_interference_of(NVS_TR_NVLINK);
    REL(nv->fit_gbps, 348, 0);
    REL(nvs_interference_share(NVS_OVERLAP_BY_TRANSPORT, NVS_TR_NVLINK, 349), nv->share, 0);
    REL(nvs_interference_share(NVS_OVERLAP_BY_TRANSPORT, NVS_TR_NVLINK, 87), nv->share / 4, 1e-12);
    REL(nvs_interference_share(NVS_OVERLAP_BY_TRANSPORT, NVS_TR_SHM, 5), nvs_interference_of(NVS_TR_SHM)->share, 0);
    REL(nvs_interference_share(NVS_OVERLAP_BY_TRANSPORT, NVS_TR_P2P, 5), nvs_interference_of(NVS_TR_P2P)->share, 0);
    /* the faster the transport moves data through the GPU, the more it takes from the compute (measured) */
    T_ASSERT(nvs_interference_of(NVS_TR_NVLINK)->share > nvs_interference_of(NVS_TR_SHM)->share);
    T_ASSERT(nvs_interference_of(NVS_TR_SHM)->share > nvs_interference_of(NVS_TR_NET)->share);
    T_EQ_I(nvs_interference_of(NVS_TR_P2P)->measured, 0); /* no P2P-over-PCIe box was measured: says so */
    T_EQ_I(nvs_interference_of(NVS_TR_NVLINK)->measured, 1);
    REL(nvs_interference_of(NVS_TR_NONE)->share, 0, 0);
    REL(nvs_interference_of((nvs_transport)99)->share, 0, 0);
}

/* the toy profile: the same three layers as t_schedule_by_hand's backward times */
static const char toy_text[] = "nvscale-profile 1\n"
                               "name toy3\n"
                               "source \"hand-made: test_model.c\"\n"
                               "batch 1\n"
                               "layer a params=250000 gemm=10,10,10 act=100 ew=1\n"
                               "layer b gemm=5,10,20 act=50\n"
                               "layer c params=500000 gemm=10,10,5 act=100 ew=2\n";

static void toy_config(nvs_model_config *c, nvs_profile *p)
{
    char err[256];
    T_EQ_I(nvs_profile_parse(toy_text, "toy", p, err, sizeof err), NVS_OK);
    nvs_model_config_init(c);
    c->gpu = (nvs_gpu_spec){"toy", 1e-6, 1e-6, 1e-6, 1e-3, 1e12, 1, 0, 0};
    c->machine = pcie8(1, 4, 1, NVS_NVLINK_NONE);
    c->profile = p;
    c->batch = 1;
    c->ct = (nvs_compute_terms){1, 1, 1};
    c->bucket_first_bytes = 1.5e6;
    c->bucket_cap_bytes = 1e7;
}

static void t_eval_toy(void)
{
    nvs_profile p;
    nvs_model_config c;
    toy_config(&c, &p);
    nvs_model_point pt;
    char err[256];
    /* layer times: a fwd 2000 + 800 = 2800, bwd (first) 2000 + 1600 = 3600; b fwd 2000, bwd 4000;
     * c fwd 1000 + 1600 = 2600, bwd 2000 + 3200 = 5200. fwd = 7400, bwd = 12800; opt: 750000 x 20 B = 15e6 us */
    T_EQ_I(nvs_model_eval(&c, 1, 1, &pt, err, sizeof err), NVS_OK);
    REL(pt.t.fwd_us, 7400, 1e-12);
    REL(pt.t.bwd_us, 12800, 1e-12);
    REL(pt.t.opt_us, 15e6, 1e-12);
    REL(pt.efficiency, 1, 1e-12);
    T_EQ_I(pt.nbuckets, 2); /* c: 2e6 B >= 1.5e6; then a: 1e6 B */
    /* 2 GPUs on the cascade box (P2P, 24 GB/s, alpha 1.5, base 7): bucket c 7 + 2*1.5 + 2e6/2.4e4 = 93.33 us,
     * ready at 5200: hidden. bucket a: 7 + 3 + 1e6/2.4e4 = 51.67 us from 12800: exposed. */
    T_EQ_I(nvs_model_eval(&c, 1, 2, &pt, err, sizeof err), NVS_OK);
    REL(pt.t.comm_us, 10 + 2e6 / 2.4e4 + 10 + 1e6 / 2.4e4, 1e-9);
    REL(pt.t.exposed_us, 10 + 1e6 / 2.4e4, 1e-9);
    REL(pt.step1_us, 7400 + 12800 + 15e6, 1e-12);
    T_EQ_I(pt.transport, NVS_TR_P2P);
    /* by default the interference is the transport's share of the hidden bucket (93.33 us), paid on top */
    const double hidden = 10 + 2e6 / 2.4e4, p2p_share = nvs_interference_of(NVS_TR_P2P)->share;
    T_ASSERT(p2p_share > 0 && p2p_share < 1);
    REL(pt.interference_share, p2p_share, 0);
    REL(pt.t.penalty_us, p2p_share * hidden, 1e-9);
    REL(pt.efficiency, pt.step1_us / (pt.step1_us + 10 + 1e6 / 2.4e4 + p2p_share * hidden), 1e-12);
    /* overlap penalty 0: none; 0.5: half of the hidden bucket is paid */
    c.overlap_penalty = 0;
    nvs_model_point p0, p2;
    T_EQ_I(nvs_model_eval(&c, 1, 2, &p0, err, sizeof err), NVS_OK);
    REL(p0.t.penalty_us, 0, 0);
    REL(p0.efficiency, p0.step1_us / (p0.step1_us + 10 + 1e6 / 2.4e4), 1e-12);
    REL(pt.t.step_us - p0.t.step_us, p2p_share * hidden, 1e-9);
    c.overlap_penalty = 0.5;
    T_EQ_I(nvs_model_eval(&c, 1, 2, &p2, err, sizeof err), NVS_OK);
    REL(p2.t.step_us - p0.t.step_us, 0.5 * hidden, 1e-9);
    REL(p2.t.exposed_us, p0.t.exposed_us, 1e-12); /* the interference is not exposed communication */
    /* errors: more GPUs per node than the machine has; two nodes without a network */
    T_EQ_I(nvs_model_eval(&c, 1, 9, &pt, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "9 GPUs per node");
    T_EQ_I(nvs_model_eval(&c, 2, 8, &pt, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "network");
    /* measured links replace the link graph at their N */
    c.overlap_penalty = 0;
    c.meas[0] = (nvs_meas_link){2, 0, 5, 100};
    c.nmeas = 1;
    T_EQ_I(nvs_model_eval(&c, 1, 2, &pt, err, sizeof err), NVS_OK);
    T_EQ_I(pt.link_measured, 1);
    REL(pt.t.comm_us, 2 * 10 + 3e6 / 1e5, 1e-9); /* two calls of 2*5 us + S/B at 100 GB/s, no base */
    nvs_profile_free(&p);
}

/* a framework on the host's lane: the toy profile has no ops=, so the operations are the step's kernels
 * (forward a 2, b 1, c 3; backward a 3, b 2, c 6) at 10 ms each, far above the GPU's forward and backward */
static void t_eval_framework(void)
{
    nvs_profile p;
    nvs_model_config c;
    toy_config(&c, &p);
    nvs_framework fw = {"t", "test", 1e4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0, "test"};
    c.fw = &fw;
    nvs_model_point pt;
    char err[256];
    T_EQ_I(nvs_model_eval(&c, 1, 1, &pt, err, sizeof err), NVS_OK);
    /* fwd: a queued at 20 ms ends 22.8; b at 30, ends 32; c at 60, ends 62.6. bwd: c at 120, ends 125.2; b at
     * 140, ends 144; a at 170, ends 173.6. optimizer queued at 180 ms, ends 180 ms + 15 s */
    REL(pt.t.compute_us, 180000 + 15e6, 1e-12);
    REL(pt.t.host_us, 180000, 1e-12);
    REL(pt.t.reducer_us, 0, 0);
    REL(pt.step1_us, pt.t.compute_us, 1e-12);
    /* torch.optim's host time per parameter tensor (optimizer.c) in place of the update's one operation */
    fw.optimizer_host_per_tensor = 1;
    T_EQ_I(nvs_model_eval(&c, 1, 1, &pt, err, sizeof err), NVS_OK);
    T_ASSERT(nvs_profile_optimizer_tensors(&p) >= 3);
    REL(pt.t.host_us,
        170000 + nvs_optimizer_host_us_per_tensor(c.opt, nvs_model_opt_foreach(&c)) * nvs_profile_optimizer_tensors(&p),
        1e-12);
    REL(pt.t.compute_us, 173600 + 15e6, 1e-12); /* the host now queues it before a's backward kernel ends */
    fw.optimizer_host_per_tensor = 0;
    /* the reducer's host work per bucket and its copies cost at every N, N=1 included: efficiency at 1 stays 1 */
    fw.reducer_us_per_bucket = 500;
    fw.bucket_copy = 1;
    T_EQ_I(nvs_model_eval(&c, 1, 1, &pt, err, sizeof err), NVS_OK);
    T_ASSERT(pt.t.reducer_us > 0);
    REL(pt.step1_us, pt.t.compute_us + pt.t.reducer_us, 1e-12);
    REL(pt.efficiency, 1, 1e-12);
    nvs_model_point p2;
    T_EQ_I(nvs_model_eval(&c, 1, 2, &p2, err, sizeof err), NVS_OK);
    REL(p2.t.reducer_us, pt.t.reducer_us, 1e-12);
    REL(p2.step1_us, pt.step1_us, 1e-12);
    REL(p2.t.step_us, p2.t.compute_us + p2.t.reducer_us + p2.t.exposed_us + p2.t.penalty_us, 1e-12);
    /* ideal: the hardware alone, as without a framework */
    c.fw = nvs_framework_find("ideal");
    nvs_model_point pi, pn;
    T_EQ_I(nvs_model_eval(&c, 1, 2, &pi, err, sizeof err), NVS_OK);
    c.fw = NULL;
    T_EQ_I(nvs_model_eval(&c, 1, 2, &pn, err, sizeof err), NVS_OK);
    REL(pi.t.step_us, pn.t.step_us, 1e-12);
    REL(pi.step1_us, pn.step1_us, 1e-12);
    nvs_profile_free(&p);
}

/* The model's host lane charges what the training step's dry run counts (tests/unit/test_train.c
 * t_host_work_counts: operations, buckets; the totals are tools/gen_profiles.py --summary's): every operation
 * x host_us_per_op, every bucket x reducer_us_per_bucket, and the compute-only step neither the buckets' copy-back
 * operations nor the reducer. And its GPU lane moves the layout copies' bytes, the same as the step's. */
static void t_framework_counts(void)
{
    static const struct {
        const char *model;
        int batch;
        nvs_precision prec;
        int buckets;
        double ops, layout_bytes;
        /* the weights autocast casts at half precision: the matrices of the layers with a GEMM and parameters
         * (lm290m: 18 x (3 + 1 + 4 + 4) x 1024^2 + 32000 x 1024; resnet50: its 25,557,032 parameters less 53,120
         * of batch norms and the classifier's 1,000 biases), and their biases (test_train.c's bias elements) */
        double cast_elems;
        /* autocast's fp32 tensors per sample (test_train.c t_host_work_counts counts them the same): the ew32=
         * passes forward and twice backward times their outputs, and the LayerNorm outputs cast, times their size */
        double passes32, cast_act_elems;
    } want[] = {
        {"tools/profiles/lm290m.prof", 8, NVS_PREC_BF16, 29, 1298 + 29, 0, 259260416 + 18 * 9216, 3 * 113 * 524288.0,
         37 * 524288.0},
        {"tools/profiles/lm290m.prof", 8, NVS_PREC_FP32, 29, 934 + 29, 0, 0, 0, 0},
        {"resnet50", 128, NVS_PREC_BF16, 5, 520 + 5, (78.0 + 167.0) / 53 * 2 * 11113984.0 * 128 * 2, 25502912 + 1000, 0,
         0},
        {"resnet50", 128, NVS_PREC_FP32, 5, 408 + 5, 0, 0, 0, 0},
        {"resnet50", 128, NVS_PREC_FP16, 5, 520 + 5 + 4, (78.0 + 167.0) / 53 * 2 * 11113984.0 * 128 * 2,
         25502912 + 1000, 0, 0},
        {"tools/profiles/lm290m.prof", 8, NVS_PREC_FP16, 29, 1298 + 29 + 4, 0, 259260416 + 18 * 9216, 3 * 113 * 524288.0,
         37 * 524288.0},
        {"bert-large-mlm128", 32, NVS_PREC_BF16, 38, 2058 + 38, 0, 303068986 + 24 * 9216 + 1024, 3 * 154 * 131072.0,
         98 * 131072.0},
    };
    const nvs_framework *fw = nvs_framework_find("pytorch-ddp");
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        nvs_profile p;
        char err[256];
        T_EQ_I(nvs_profile_load(want[i].model, &p, err, sizeof err), NVS_OK);
        nvs_model_config c;
        nvs_model_config_init(&c);
        c.gpu = (nvs_gpu_spec){"toy", 100, 100, 400, 1000, 1e12, 1, 0, 0};
        c.machine = pcie8(1, 4, 1, NVS_NVLINK_NONE);
        c.profile = &p;
        c.batch = want[i].batch;
        c.prec = want[i].prec;
        c.fw = fw;
        nvs_model_point pt;
        T_EQ_I(nvs_model_eval(&c, 1, 2, &pt, err, sizeof err), NVS_OK);
        T_EQ_I(pt.nbuckets, want[i].buckets);
        /* and resnet50's DDP buffer broadcast before the full step's forward: 163 operations at their own cost (test_train.c
         * says why 163) */
        double buffer_ops = strcmp(want[i].model, "resnet50") ? 0 : 163;
        /* and cuDNN's host work per convolution executed (framework.c host_us_per_conv_call): resnet50's 53
         * forward, 52 input gradients (conv1 needs none) and 53 weight gradients; the transformers have none */
        double conv_calls = strcmp(want[i].model, "resnet50") ? 0 : 53 + 52 + 53;
        /* SGD's update at torch.optim's 2.62 us per parameter tensor (optimizer.c), not its one operation; PyTorch's
         * tensor counts (results/fidelity/optim-host.md) */
        const double tensors = want[i].model[0] == 'r' ? 161 : want[i].model[0] == 'b' ? 394 : 221;
        REL(nvs_profile_optimizer_tensors(&p), tensors, 0);
        REL(pt.t.host_us, (want[i].ops - 1) * fw->host_us_per_op + tensors * 2.62 +
                              want[i].buckets * fw->reducer_us_per_bucket + buffer_ops * fw->host_us_per_buffer_op +
                              conv_calls * fw->host_us_per_conv_call,
            1e-12);
        T_ASSERT(fw->host_us_per_conv_call > 0);
        /* the optimizer's operations are the optimizer's, as the training step counts them (test_train.c
         * t_host_work_defaults): SGD's one above (optimizer.c says why one); AdamW's 9 (torch/optim/adam.py
         * _multi_tensor_adam), 2 with fused=True (--optimizer adamw-fused: the step count and torch._fused_adamw_) */
        for (int fz = 0; fz < 2; fz++) {
            nvs_model_config ca = c;
            ca.opt = NVS_OPT_ADAMW;
            ca.adamw_fused = fz;
            nvs_model_point pa;
            T_EQ_I(nvs_model_eval(&ca, 1, 2, &pa, err, sizeof err), NVS_OK);
            /* under fp16's GradScaler fused AdamW's _foreach_sub_(state_steps, found_inf) too (model_eval.c) */
            const int amp = want[i].prec == NVS_PREC_FP16 && fw->grad_scaler;
            /* and the update's host time per tensor: foreach AdamW's 8.04 us, fused 2.29, against SGD's 2.62 */
            REL(pa.t.host_us - pt.t.host_us, (fz ? amp : 0) * fw->host_us_per_op + ((fz ? 2.29 : 8.04) - 2.62) * tensors,
                1e-9);
        }
        /* the layout copies: the GPU lane of the compute-only step with and without them, no host work */
        nvs_framework no_host = *fw, no_copies;
        no_host.host_us_per_op = no_host.reducer_us_per_bucket = no_host.host_us_per_conv_call = 0;
        no_host.optimizer_host_per_tensor = 0;
        no_copies = no_host;
        no_copies.nchw_copies_fwd = no_copies.nchw_copies_bwd = 0;
        nvs_model_point a, b;
        c.fw = &no_host;
        T_EQ_I(nvs_model_eval(&c, 1, 1, &a, err, sizeof err), NVS_OK);
        c.fw = &no_copies;
        T_EQ_I(nvs_model_eval(&c, 1, 1, &b, err, sizeof err), NVS_OK);
        double bw = c.gpu.mem_gbps * 1e3 * c.ct.mem_eff; /* bytes per us */
        T_NEAR(a.t.compute_us - b.t.compute_us, want[i].layout_bytes / bw, 1e-6 * (1 + want[i].layout_bytes / bw));
        /* autocast's weight casts, forward and backward, each a read and a write: 4 + 2 bytes per element */
        nvs_framework no_casts = no_copies, fused;
        no_casts.weight_casts = 0;
        fused = no_casts;
        fused.optimizer_foreach = 0;
        nvs_model_point d, e;
        c.fw = &no_casts;
        T_EQ_I(nvs_model_eval(&c, 1, 1, &d, err, sizeof err), NVS_OK);
        c.fw = &fused;
        T_EQ_I(nvs_model_eval(&c, 1, 1, &e, err, sizeof err), NVS_OK);
        double cast_us = 2 * want[i].cast_elems * 6 / bw;
        T_NEAR(b.t.compute_us - d.t.compute_us, cast_us, 1e-6 * (1 + cast_us));
        /* PyTorch's foreach SGD moves 12 bytes per parameter more than one fused pass (fp32 gradients) */
        double opt_us = p.total_params * 12 / bw;
        T_NEAR(d.t.compute_us - e.t.compute_us, opt_us, 1e-6 * (1 + opt_us));
        /* autocast's fp32 tensors: each fp32 pass 2 more bytes per access (2 accesses) than at 16 bits, each cast of
         * an fp32 output a read of 4 bytes and a write of 2, forward and backward */
        nvs_framework no_f32 = no_casts;
        no_f32.autocast_fp32 = 0;
        nvs_model_point f;
        c.fw = &no_f32;
        T_EQ_I(nvs_model_eval(&c, 1, 1, &f, err, sizeof err), NVS_OK);
        /* of those passes, the LayerNorms' own (ln=) run in their kernels: 2 + 5 accesses, each 2 bytes more, at
         * ln_eff of the peak */
        double ln_elems = 0;
        for (int l = 0; l < p.nlayers; l++)
            if (p.layers[l].ln_passes > 0 && want[i].passes32 > 0) ln_elems += p.layers[l].act_elems;
        double f32_us = ((want[i].passes32 - 3 * 1.5 * ln_elems) * 4 + 2 * want[i].cast_act_elems * 6) * want[i].batch / bw +
                        ln_elems * want[i].batch * 7 * 2 / (c.gpu.mem_gbps * 1e3 * c.ct.ln_eff);
        T_NEAR(d.t.compute_us - f.t.compute_us, f32_us, 1e-6 * (1 + f32_us));
        nvs_profile_free(&p);
    }
    /* a bias's gradient reads the output gradient once, under any framework or none: a layer of 64 x 32 outputs per
     * sample with a bias of 32 against the same without it, at bf16, batch 4; at mem_eff (cuBLAS's product with
     * ones), or under a framework with its own reduction kernel (bias_reduce) a launch's fixed time plus the bytes
     * at bias_reduce_eff */
    nvs_framework own = *nvs_framework_find("ideal");
    own.bias_reduce = 1;
    for (int withown = 0; withown < 2; withown++) {
    double us[2];
    for (int k = 0; k < 2; k++) {
        nvs_profile p;
        char err[256];
        T_EQ_I(nvs_profile_parse(k ? "nvscale-profile 1\nname b\nsource s\nlayer l params=2080 gemm=64,32,64\n"
                                   : "nvscale-profile 1\nname b\nsource s\nlayer l params=2048 gemm=64,32,64\n",
                                 "t", &p, err, sizeof err),
               NVS_OK);
        nvs_model_config c;
        nvs_model_config_init(&c);
        c.gpu = (nvs_gpu_spec){"toy", 100, 100, 400, 1000, 1e12, 1, 0, 0};
        c.machine = pcie8(1, 4, 1, NVS_NVLINK_NONE);
        c.profile = &p;
        c.batch = 4;
        c.prec = NVS_PREC_BF16;
        c.fw = withown ? &own : NULL;
        nvs_model_point pt;
        T_EQ_I(nvs_model_eval(&c, 1, 1, &pt, err, sizeof err), NVS_OK);
        us[k] = pt.t.compute_us;
        /* and the optimizer's one fused pass over the 32 more parameters: 20 bytes each */
        const double bw = c.gpu.mem_gbps * 1e3, bias_bytes = 4 * 64 * 32 * 2;
        const double bias_us = withown ? c.ct.bias_reduce_us + bias_bytes / (bw * c.ct.bias_reduce_eff)
                                       : bias_bytes / (bw * c.ct.mem_eff);
        if (k) T_NEAR(us[1] - us[0], bias_us + 32 * 20 / (bw * c.ct.mem_eff), 1e-9);
        nvs_profile_free(&p);
    }
    }
    T_ASSERT(nvs_framework_find("pytorch-ddp")->bias_reduce && !nvs_framework_find("ideal")->bias_reduce);
    REL(nvs_compute_defaults().bias_reduce_us, 8.5, 0);
    REL(nvs_compute_defaults().bias_reduce_eff, 0.57, 0);
}

static void t_memory(void)
{
    /* P = 1e6 params; fp32: weights 4e6 + grads 4e6 + buckets 4e6 + momentum 4e6 = 16e6; reserve 1 GiB + 5% of
     * 2e9 = 1173741824; room = 2e9 - 16e6 - 1173741824 = 810258176. Per sample: layer 0 act 1e6 with ew: 2 x 4e6,
     * layer 1 act 5e5 without: 2e6, plus the backward's 2 x 4e6 = 18e6. floor(810258176 / 18e6) = 45 */
    nvs_layer L[3];
    memset(L, 0, sizeof L);
    L[0].act_elems = 1e6;
    L[0].ew_passes = 1;
    L[0].gemm_m = L[0].gemm_n = L[0].gemm_k = 1; /* a GEMM with an activation after it: two tensors kept */
    L[1].act_elems = 5e5;
    nvs_gpu_spec g = {"toy", 1, 1, 1, 1, 2e9, 0, 0, 0};
    nvs_mem_estimate m;
    nvs_memory_estimate(L, 2, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_SGD, 0, &m);
    REL(m.per_sample_bytes, 18e6, 1e-12);
    REL(m.reserve_bytes, 1173741824.0, 1e-12);
    T_EQ_I(m.max_batch, 45);
    T_EQ_I(m.batch_capped, 0);
    REL(m.optimizer_bytes, 4e6, 1e-12);
    /* AdamW keeps two fp32 states (m, v): 8 bytes a parameter, 4e6 more fixed: room 806258176 / 18e6 = 44 */
    nvs_memory_estimate(L, 2, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_ADAMW, 0, &m);
    REL(m.optimizer_bytes, 8e6, 1e-12);
    T_EQ_I(m.max_batch, 44);
    /* foreach AdamW (PyTorch's default) holds a parameter-sized fp32 temporary besides (torch._foreach_sqrt):
     * 12 bytes a parameter; SGD's foreach passes none */
    nvs_memory_estimate(L, 2, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_ADAMW, 1, &m);
    REL(m.optimizer_bytes, 12e6, 1e-12);
    nvs_memory_estimate(L, 2, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_SGD, 1, &m);
    REL(m.optimizer_bytes, 4e6, 1e-12);
    /* where the parameters weigh (1e8 on 4e9 bytes) the batch that fits drops by a third: SGD's fixed 16e8,
     * room 4e9 - 16e8 - (2^30 + 2e8) = 1126258176 / 18e6 = 62; AdamW's 20e8: 726258176 / 18e6 = 40 */
    g.memory_bytes = 4e9;
    nvs_memory_estimate(L, 2, 1e8, &g, NVS_PREC_FP32, 4, NVS_OPT_SGD, 0, &m);
    T_EQ_I(m.max_batch, 62);
    nvs_memory_estimate(L, 2, 1e8, &g, NVS_PREC_FP32, 4, NVS_OPT_ADAMW, 0, &m);
    T_EQ_I(m.max_batch, 40);
    g.memory_bytes = 2e9;
    /* bf16: activations halve (9e6 per sample), weights gain a bf16 copy (+2e6): room 808258176 / 9e6 = 89 */
    nvs_memory_estimate(L, 2, 1e6, &g, NVS_PREC_BF16, 4, NVS_OPT_SGD, 0, &m);
    T_EQ_I(m.max_batch, 89);
    /* twice the memory, more than twice the batch (the fixed part does not grow): the 24 vs 48 GB effect */
    g.memory_bytes = 4e9;
    nvs_memory_estimate(L, 2, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_SGD, 0, &m);
    T_EQ_I(m.max_batch, (int)floor((4e9 - 16e6 - (1073741824.0 + 2e8)) / 18e6));
    /* the memory holds more than the model's limit: the cap decides, and says so (was: 1000000 as "the largest that
     * fits"). 4e9 bytes, a layer of 100 elements: 400 kept + 800 of backward's gradients = 1200 bytes per sample,
     * room 2.71e9: 2.26 million */
    nvs_layer tiny[1];
    memset(tiny, 0, sizeof tiny);
    tiny[0].act_elems = 100;
    nvs_memory_estimate(tiny, 1, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_SGD, 0, &m);
    T_EQ_I(m.max_batch, NVS_MODEL_MAX_BATCH);
    T_EQ_I(m.batch_capped, 1);
    REL(m.fit_batch, floor((4e9 - 16e6 - (1073741824.0 + 2e8)) / 1200), 1e-12);
    /* nothing grows with the batch (parameters only): capped, and the memory bound is none */
    nvs_memory_estimate(tiny, 0, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_SGD, 0, &m);
    T_EQ_I(m.max_batch, NVS_MODEL_MAX_BATCH);
    T_EQ_I(m.batch_capped, 1);
    T_ASSERT(isinf(m.fit_batch));
    /* nothing fits */
    g.memory_bytes = 1e9;
    nvs_memory_estimate(L, 2, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_SGD, 0, &m);
    T_EQ_I(m.max_batch, 0);
    T_EQ_I(m.batch_capped, 0);
    /* fp16 (AMP) counts like bf16: 2-byte activations and a 16-bit weight copy */
    g.memory_bytes = 2e9;
    nvs_memory_estimate(L, 2, 1e6, &g, NVS_PREC_FP16, 4, NVS_OPT_SGD, 0, &m);
    T_EQ_I(m.max_batch, 89);
    /* a layer without a GEMM (a norm after the previous layer) keeps its output once: 4e6 + 2e6 + 8e6 */
    L[0].gemm_m = L[0].gemm_n = L[0].gemm_k = 0;
    nvs_memory_estimate(L, 2, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_SGD, 0, &m);
    REL(m.per_sample_bytes, 14e6, 1e-12);
    /* a frozen stem (nograd) keeps only its last output, the first trainable layer's input: stem 1e6 + 5e5
     * (kept, 2e6), then a layer of 1e5 (4e5) whose backward gradients are the peak: 2 x 4e5 */
    L[0].nograd = L[1].nograd = 1;
    L[2].act_elems = 1e5;
    nvs_memory_estimate(L, 3, 1e6, &g, NVS_PREC_FP32, 4, NVS_OPT_SGD, 0, &m);
    REL(m.per_sample_bytes, 2e6 + 4e5 + 8e5, 1e-12);
}

/* --- NCCL's P2P rule, host budget, data-parallel modes, stragglers ------------------------------------------------ */

static void t_nccl_rules(void)
{
    static const struct {
        int nccl, cpu, gpus, want;
    } v[] = {
        /* NCCL 2.7.8 (v2.7.8-1 src/graph/paths.cc): "In general, use P2P whenever we can": AMD -> SYS */
        {20708, NVS_CPU_AMD, 8, NVS_CLS_SYS},
        {20708, NVS_CPU_INTEL, 8, NVS_CLS_NODE}, /* PATH_PHB: through the CPU, not across sockets */
        {20708, NVS_CPU_ARM, 8, NVS_CLS_PXB},
        {20804, NVS_CPU_INTEL, 8, NVS_CLS_NODE},
        {20906, NVS_CPU_INTEL, 8, NVS_CLS_PXB}, /* v2.9.6: Intel -> PATH_PXB */
        {22203, NVS_CPU_AMD, 8, NVS_CLS_SYS},
        {22304, NVS_CPU_AMD, 8, NVS_CLS_PXB},   /* v2.23.4: PATH_PXB by default ... */
        {22304, NVS_CPU_AMD, 2, NVS_CLS_SYS},   /* ... except AMD with <= 2 GPUs */
        {22803, NVS_CPU_INTEL, 2, NVS_CLS_PXB},
        {0, NVS_CPU_AMD, 8, NVS_CLS_PXB},       /* 0 = today's rules */
        {0, NVS_CPU_UNKNOWN, 8, NVS_CLS_PXB},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (nvs_nccl_p2p_level(v[i].nccl, v[i].cpu, v[i].gpus) != v[i].want)
            T_FAIL("row %zu: NCCL %d cpu %d gpus %d: level %d, expected %d", i, v[i].nccl, v[i].cpu, v[i].gpus,
                   nvs_nccl_p2p_level(v[i].nccl, v[i].cpu, v[i].gpus), v[i].want);
    int code = -1;
    T_EQ_I(nvs_nccl_version_parse("2.7.8", &code), 0);
    T_EQ_I(code, 20708);
    T_EQ_I(nvs_nccl_version_parse("2.28", &code), 0);
    T_EQ_I(code, 22800);
    T_EQ_I(nvs_nccl_version_parse("2.23.4", &code), 0);
    T_EQ_I(code, 22304);
    static const char *const bad[] = {"", "2", "2.", "2.7.8.1", "v2.7", "2.100.1", "0.1", "2.7.x", "2..7",
                                      "2.7.8.", "2.7.8.."}; /* a third dot ended the loop unread */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (nvs_nccl_version_parse(bad[i], &code) == 0) T_FAIL("'%s' parsed", bad[i]);
    /* a machine without an override follows the rule of its CPU and NCCL: an AMD box of 8 A6000s on two sockets
     * uses P2P across sockets under NCCL 2.7.8 and SHM under 2.23.4 and later */
    nvs_gpu_spec a = gpu_a6000();
    nvs_machine_spec m = pcie8(2, 0, 0, NVS_NVLINK_NONE);
    m.p2p_by_rules = 1;
    m.cpu = NVS_CPU_AMD;
    m.nccl = 20708;
    T_EQ_I(nvs_machine_transport(&m, &a, 3, 4, 8, 0), NVS_TR_P2P);
    m.nccl = 22304;
    T_EQ_I(nvs_machine_transport(&m, &a, 3, 4, 8, 0), NVS_TR_SHM);
    T_EQ_I(nvs_machine_transport(&m, &a, 3, 4, 8, 1), NVS_TR_SHM); /* NCCL_P2P_DISABLE=1 */
    /* NCCL counts the communicator's GPUs on the node, not the node's: two of the eight pair over P2P (SYS) */
    T_EQ_I(nvs_machine_transport(&m, &a, 3, 4, 2, 0), NVS_TR_P2P);
    T_EQ_I(nvs_machine_transport(&m, &a, 3, 4, 3, 0), NVS_TR_SHM);
    nvs_ring_links rl;
    T_EQ_I(nvs_ring_links_of(&m, &a, 2, 0, &rl), NVS_OK);
    T_EQ_I(rl.transport, NVS_TR_P2P);
    T_EQ_I(nvs_ring_links_of(&m, &a, 4, 0, &rl), NVS_OK);
    T_EQ_I(rl.transport, NVS_TR_SHM);
}

static void t_host_budget(void)
{
    /* 2 sockets x 4 GPUs on root ports, 3090 (SHM everywhere), no SHM cap, links far faster than the budget */
    nvs_gpu_spec g = gpu_3090(), a = gpu_a6000();
    nvs_machine_spec m = pcie8(2, 0, 0, NVS_NVLINK_NONE);
    m.shm_gbps = 0;
    m.host_gbps = 6;
    m.xsocket_shm_cost = 1;
    nvs_ring_links r;
    /* 2 GPUs of socket 0: 2 flows share its budget: 3 */
    T_EQ_I(nvs_ring_links_of(&m, &g, 2, 0, &r), NVS_OK);
    REL(r.gbps, 3, 1e-12);
    T_CONTAINS(r.why, "socket 0 host memory path");
    /* 4 GPUs of socket 0: 1.5 */
    T_EQ_I(nvs_ring_links_of(&m, &g, 4, 0, &r), NVS_OK);
    REL(r.gbps, 1.5, 1e-12);
    /* 8: socket 0 carries 0->1, 1->2, 2->3 and both crossing flows 3->4, 7->0: load 5, 6/5 = 1.2 */
    T_EQ_I(nvs_ring_links_of(&m, &g, 8, 0, &r), NVS_OK);
    REL(r.gbps, 1.2, 1e-12);
    /* crossing costs 2.5 on each socket: load 3 + 2 x 2.5 = 8: 0.75 */
    m.xsocket_shm_cost = 2.5;
    T_EQ_I(nvs_ring_links_of(&m, &g, 8, 0, &r), NVS_OK);
    REL(r.gbps, 0.75, 1e-12);
    T_CONTAINS(r.why, "load 8");
    /* without a budget the links decide (socket link 20, one crossing flow each way) */
    m.host_gbps = 0;
    T_EQ_I(nvs_ring_links_of(&m, &g, 8, 0, &r), NVS_OK);
    REL(r.gbps, 20, 1e-12);
    /* P2P flows do not touch the host budget: the A6000 with NCCL 2.7.8's AMD rule */
    m.host_gbps = 0.001;
    m.p2p_by_rules = 1;
    m.cpu = NVS_CPU_AMD;
    m.nccl = 20708;
    T_EQ_I(nvs_ring_links_of(&m, &a, 8, 0, &r), NVS_OK);
    REL(r.gbps, 20, 1e-12);
    T_EQ_I(r.transport, NVS_TR_P2P);
}

static void t_dp_modes(void)
{
    nvs_profile p;
    nvs_model_config c;
    toy_config(&c, &p);
    c.gpu.mem_gbps = 1; /* optimizer 15 ms: the all-reduces matter */
    nvs_model_point ddp, delay, none;
    char err[256];
    T_EQ_I(nvs_model_eval(&c, 1, 2, &ddp, err, sizeof err), NVS_OK);
    T_EQ_I(ddp.dp, NVS_DP_DDP);
    c.dp = NVS_DP_DELAY;
    T_EQ_I(nvs_model_eval(&c, 1, 2, &delay, err, sizeof err), NVS_OK);
    /* one all-reduce of all 3e6 bytes after backward, nothing hidden: 7 + 2 x 1.5 + 3e6 / 2.4e4 */
    T_EQ_I(delay.nbuckets, 1);
    REL(delay.t.comm_us, 10 + 3e6 / 2.4e4, 1e-9);
    REL(delay.t.exposed_us, delay.t.comm_us, 1e-12);
    T_ASSERT(delay.efficiency < ddp.efficiency);
    c.dp = NVS_DP_NONE;
    T_EQ_I(nvs_model_eval(&c, 1, 8, &none, err, sizeof err), NVS_OK);
    T_EQ_I(none.nbuckets, 0);
    REL(none.efficiency, 1, 1e-12);
    T_CONTAINS(none.bottleneck, "dp none");
    REL(none.interference_share, 0, 0); /* nothing all-reduced: no share to pay, none reported */
    REL(none.t.penalty_us, 0, 0);
    /* the loss split adds up to 1 - efficiency; under delay it names what the mode exposes */
    c.dp = NVS_DP_DELAY;
    c.overlap_penalty = 0.5;
    c.step_cv = 0.1;
    nvs_loss l;
    T_EQ_I(nvs_model_loss(&c, 1, 8, &l, err, sizeof err), NVS_OK);
    REL(l.comm + l.penalty + l.sync, 1 - l.eff, 1e-9);
    T_ASSERT(l.mode_comm > 0 && l.mode_comm <= l.comm);
    T_NEAR(l.penalty, 0, 1e-15); /* nothing runs under backward: nothing hidden to pay for */
    nvs_profile_free(&p);
}

static void t_stragglers(void)
{
    /* Tippett (1925) / standard tables: E[max of n standard normals] */
    T_NEAR(nvs_expected_max_normal(1), 0, 1e-12);
    T_NEAR(nvs_expected_max_normal(2), 1 / sqrt(M_PI), 1e-6);
    T_NEAR(nvs_expected_max_normal(3), 1.5 / sqrt(M_PI), 1e-6);
    T_NEAR(nvs_expected_max_normal(4), 1.029375, 1e-5);
    T_NEAR(nvs_expected_max_normal(8), 1.423600, 1e-5);
    T_NEAR(nvs_expected_max_normal(100), 2.507594, 1e-4);
    nvs_profile p;
    nvs_model_config c;
    toy_config(&c, &p);
    c.step_cv = 0.05;
    nvs_model_point pt;
    char err[256];
    T_EQ_I(nvs_model_eval(&c, 1, 8, &pt, err, sizeof err), NVS_OK);
    REL(pt.t.sync_us, 0.05 * (7400 + 12800) * nvs_expected_max_normal(8), 1e-12);
    REL(pt.t.step_us, pt.t.compute_us + pt.t.exposed_us + pt.t.penalty_us + pt.t.sync_us, 1e-12);
    T_EQ_I(nvs_model_eval(&c, 1, 1, &pt, err, sizeof err), NVS_OK);
    T_NEAR(pt.t.sync_us, 0, 0); /* one GPU waits for nobody */
    nvs_profile_free(&p);
}

/* --- the gap and its causes --------------------------------------------------------------------------------------- */

static void t_shapley(void)
{
    /* additive game: each factor's share is its own effect */
    double v[8];
    for (int m = 0; m < 8; m++) v[m] = 1.0 * ((m & 1) != 0) + 2.0 * ((m & 2) != 0) + 4.0 * ((m & 4) != 0);
    REL(nvs_shapley3(v, 0), 1, 1e-12);
    REL(nvs_shapley3(v, 1), 2, 1e-12);
    REL(nvs_shapley3(v, 2), 4, 1e-12);
    /* all three needed together: equal thirds */
    for (int m = 0; m < 8; m++) v[m] = m == 7 ? 3 : 0;
    REL(nvs_shapley3(v, 0), 1, 1e-12);
    REL(nvs_shapley3(v, 2), 1, 1e-12);
    /* only factor 1 matters, whatever else: it takes the whole gap */
    for (int m = 0; m < 8; m++) v[m] = (m & 2) ? 0.9 : 0.6;
    REL(nvs_shapley3(v, 1), 0.3, 1e-12);
    REL(nvs_shapley3(v, 0), 0, 1e-12);
    /* four factors: additive shares, and any game's shares add up to v(all) - v(none) */
    double w[16];
    for (int m = 0; m < 16; m++)
        w[m] = 1.0 * ((m & 1) != 0) + 2.0 * ((m & 2) != 0) + 4.0 * ((m & 4) != 0) + 8.0 * ((m & 8) != 0);
    for (int i = 0; i < 4; i++) REL(nvs_shapley(w, 4, i), 1 << i, 1e-12);
    for (int m = 0; m < 16; m++) w[m] = sin(m) * m; /* no structure at all */
    double sum = 0;
    for (int i = 0; i < 4; i++) sum += nvs_shapley(w, 4, i);
    REL(sum, w[15] - w[0], 1e-12);
}

/* NVLink SHARP needs the GPU as well as the machine (model.h, nvs_gpu_nvls): on an HGX H100 board (nvls_gbps
 * 275) an RTX 3090 or an A100 gets no NVLS, --algo nvls falls back to the ring the GPU's own NVLink caps, auto
 * picks ring or tree; an H100 keeps its 275; a Hopper GPU with fewer links is capped by them. */
static void t_nvls_gpu(void)
{
    nvs_presets ps;
    memset(&ps, 0, sizeof ps);
    char err[512];
    T_EQ_I(nvs_presets_load_builtin(&ps, err, sizeof err), NVS_OK);
    nvs_machine_spec hgx;
    nvs_machine_spec_from(nvs_presets_find(&ps, NVS_PK_MACHINE, "hgx-h100-8"), &hgx);
    REL(hgx.nvls_gbps, 275, 0);
    static const struct {
        const char *id;
        int nvls;
        const char *why; /* part of the reason it cannot */
    } v[] = {
        {"rtx3090", 0, "GPU 'rtx3090' (compute capability 8.6, NVLink gen 3) cannot do NVLink SHARP"},
        {"rtx4090", 0, "GPU 'rtx4090' (compute capability 8.9, no NVLink)"},
        {"rtxa6000", 0, "compute capability 8.6, NVLink gen 3"},
        {"l40s", 0, "compute capability 8.9, no NVLink"},
        {"a100-sxm", 0, "GPU 'a100-sxm' (compute capability 8.0, NVLink gen 3) cannot do NVLink SHARP"},
        {"h100-sxm", 1, NULL},
        {"h200-sxm", 1, NULL},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        nvs_gpu_spec g;
        const nvs_preset *gp = nvs_presets_find(&ps, NVS_PK_GPU, v[i].id);
        if (!gp) T_FAIL("no built-in gpu %s", v[i].id);
        nvs_gpu_spec_from(gp, &g);
        char why[256] = "";
        T_EQ_I(nvs_gpu_nvls(&g, why, sizeof why), v[i].nvls);
        int capped = -1;
        REL(nvs_nvls_gbps(&hgx, &g, &capped), v[i].nvls ? 275 : 0, 0);
        T_EQ_I(capped, 0);
        if (!v[i].nvls) {
            T_CONTAINS(why, v[i].why);
            T_CONTAINS(why, "9.0 or later");
        }
    }
    /* the audit's case: an RTX 3090 on the HGX H100 board, 8 GPUs. Its ring over its own NVLink: 4 x 14.0625
     * x 0.73 = 41.06 GB/s; no NVLS whatever the algorithm asked */
    nvs_profile p;
    nvs_model_config c;
    toy_config(&c, &p);
    nvs_gpu_spec_from(nvs_presets_find(&ps, NVS_PK_GPU, "rtx3090"), &c.gpu);
    c.machine = hgx;
    const double ring = 4 * 14.0625 * 0.73;
    static const nvs_algo asked[] = {NVS_ALGO_NVLS, NVS_ALGO_NVLSTREE, NVS_ALGO_AUTO, NVS_ALGO_RING};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        c.algo = asked[i];
        nvs_ar_params ar;
        nvs_ring_links rl;
        int meas;
        T_EQ_I(nvs_model_ar_params(&c, 1, 8, &ar, &rl, &meas, err, sizeof err), NVS_OK);
        REL(ar.nvls_gbps, 0, 0);
        REL(ar.intra_gbps, ring, 1e-12);
        nvs_algo used;
        double bw = nvs_allreduce_busbw(&ar, 1 << 30, &used);
        if (used == NVS_ALGO_NVLS || used == NVS_ALGO_NVLSTREE) T_FAIL("%s: used %s", nvs_algo_name(asked[i]),
                                                                        nvs_algo_name(used));
        T_ASSERT(bw <= ring * (1 + 1e-12));
        nvs_model_point pt;
        T_EQ_I(nvs_model_eval(&c, 1, 8, &pt, err, sizeof err), NVS_OK);
        T_ASSERT(pt.algo_used != NVS_ALGO_NVLS && pt.algo_used != NVS_ALGO_NVLSTREE);
        T_ASSERT(pt.allreduce_busbw <= ring * (1 + 1e-12));
        if (strstr(pt.bottleneck, "NVLink SHARP")) T_FAIL("bottleneck names NVLS: %s", pt.bottleneck);
    }
    /* the H100 on its own board: NVLS at 8 GPUs, busbw 275 x 2 x 7/8 = 481.25 */
    nvs_gpu_spec_from(nvs_presets_find(&ps, NVS_PK_GPU, "h100-sxm"), &c.gpu);
    c.algo = NVS_ALGO_NVLS;
    nvs_model_point pt;
    T_EQ_I(nvs_model_eval(&c, 1, 8, &pt, err, sizeof err), NVS_OK);
    T_EQ_I(pt.algo_used, NVS_ALGO_NVLS);
    REL(pt.allreduce_busbw, 275 * 2.0 * 7 / 8, 1e-9);
    /* a Hopper GPU with 4 links of 26.5625: NVLS capped by its own NVLink, 4 x 26.5625 x 0.73 = 77.5625 */
    c.gpu.nvlink_links = 4;
    int capped = 0;
    REL(nvs_nvls_gbps(&hgx, &c.gpu, &capped), 4 * 26.5625 * 0.73, 1e-12);
    T_EQ_I(capped, 1);
    T_EQ_I(nvs_model_eval(&c, 1, 8, &pt, err, sizeof err), NVS_OK);
    T_EQ_I(pt.algo_used, NVS_ALGO_NVLS);
    REL(pt.allreduce_busbw, 4 * 26.5625 * 0.73 * 2.0 * 7 / 8, 1e-9);
    /* compute capability not stated (a user's preset without it): no NVLS assumed */
    nvs_gpu_spec_from(nvs_presets_find(&ps, NVS_PK_GPU, "h100-sxm"), &c.gpu);
    c.gpu.compute_capability = 0;
    char why[256];
    T_EQ_I(nvs_gpu_nvls(&c.gpu, why, sizeof why), 0);
    T_CONTAINS(why, "compute capability not stated");
    REL(nvs_nvls_gbps(&hgx, &c.gpu, NULL), 0, 0);
    /* a machine without NVLink SHARP: none, whatever the GPU */
    nvs_gpu_spec_from(nvs_presets_find(&ps, NVS_PK_GPU, "h100-sxm"), &c.gpu);
    nvs_machine_spec a100box;
    nvs_machine_spec_from(nvs_presets_find(&ps, NVS_PK_MACHINE, "hgx-a100-8"), &a100box);
    REL(nvs_nvls_gbps(&a100box, &c.gpu, NULL), 0, 0);
    nvs_profile_free(&p);
    nvs_presets_free(&ps);
}

static void t_gap_link(void)
{
    /* toy model on a cascade box: the same GPU except P2P: the gap is all link */
    nvs_profile p;
    nvs_model_config a, b;
    toy_config(&a, &p);
    a.gpu.p2p_pcie = 0;
    a.gpu.mem_gbps = 1; /* optimizer 15 ms instead of 15 s: the all-reduces matter */
    b = a;
    b.gpu.p2p_pcie = 1;
    nvs_gap g;
    char err[256];
    T_EQ_I(nvs_model_gap(&a, &b, 1, 8, &g, err, sizeof err), NVS_OK);
    T_ASSERT(g.gap > 0);
    REL(g.share[NVS_CAUSE_LINK], g.gap, 1e-9);
    T_NEAR(g.share[NVS_CAUSE_BATCH], 0, 1e-15);
    T_NEAR(g.share[NVS_CAUSE_COMPUTE], 0, 1e-15);
    T_NEAR(g.share[NVS_CAUSE_HOST], 0, 1e-15);
    T_NEAR(g.share[NVS_CAUSE_OVERLAP], 0, 1e-15);
    double sum = 0;
    for (int i = 0; i < NVS_CAUSE_COUNT; i++) sum += g.share[i];
    REL(sum, g.gap, 1e-12);
    T_EQ_I(g.cause, NVS_CAUSE_LINK);
    /* A's machine with half the socket links and B's with full ones: the host share appears */
    b.machine.uplink_gbps = 48;
    T_EQ_I(nvs_model_gap(&a, &b, 1, 8, &g, err, sizeof err), NVS_OK);
    T_ASSERT(g.share[NVS_CAUSE_HOST] > 0);
    /* delay on both: the overlap share is the gap's part that dp ddp would not have */
    a.dp = b.dp = NVS_DP_DELAY;
    T_EQ_I(nvs_model_gap(&a, &b, 1, 8, &g, err, sizeof err), NVS_OK);
    sum = 0;
    for (int i = 0; i < NVS_CAUSE_COUNT; i++) sum += g.share[i];
    REL(sum, g.gap, 1e-12);
    T_ASSERT(g.share[NVS_CAUSE_OVERLAP] > 0);
    a.dp = b.dp = -1;
    b = a;
    /* identical configurations: no gap, no cause */
    T_EQ_I(nvs_model_gap(&a, &a, 1, 8, &g, err, sizeof err), NVS_OK);
    T_EQ_I(g.cause, -1);
    nvs_profile_free(&p);
}

/* ewb= (profile.h): backward-only passes count as the backward's kernels where a layer does not give ops=, and the
 * model charges their bytes in the backward only (test_profile.c t_ewb: the key) */
static void t_ewb(void)
{
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname x\nsource s\nlayer a params=20 gemm=4,4,4 act=16\n"
                             "layer b params=20 gemm=4,4,4 act=16 ew=1 ewb=2.5\n",
                             "t", &p, err, sizeof err),
           NVS_OK);
    const nvs_framework *fw = nvs_framework_find("ideal");
    /* b backward: 2 ew passes (2 kernels) + 2.5 ewb (3 kernels) + input and weight gradients + its bias's sum */
    T_NEAR(nvs_framework_layer_ops(fw, &p, 1, 1, NVS_PREC_FP32), 2 + 3 + 2 + 1, 0);
    T_NEAR(nvs_framework_layer_ops(fw, &p, 1, 0, NVS_PREC_FP32), 1 + 1, 0); /* forward: none of them */
    nvs_gpu_spec g;
    memset(&g, 0, sizeof g);
    g.mem_gbps = 1000;
    nvs_compute_terms t;
    memset(&t, 0, sizeof t);
    t.mem_eff = t.compute_scale = 1;
    double fa, ba, fb, bb;
    nvs_layer_us(&p.layers[1], 0, 10, &g, NVS_PREC_FP32, &t, &fb, &bb);
    p.layers[1].ewb_passes = 0;
    nvs_layer_us(&p.layers[1], 0, 10, &g, NVS_PREC_FP32, &t, &fa, &ba);
    T_NEAR(fb, fa, 0);
    T_NEAR(bb - ba, 2.5 * 2 * 10 * 16 * 4 / 1000e3, 1e-12); /* 2.5 passes, a read and a write of 10 x 16 fp32 */
    nvs_profile_free(&p);
}

/* perm=: with view_copy_eff (a framework with view_copies) one pass forward and one backward cost their bytes at that
 * share of the peak in place of mem_eff's; without it nothing changes; and the evaluation turns it off under ideal */
static void t_view_copies(void)
{
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname x\nsource s\nlayer a params=20 gemm=4,4,4 act=16\n"
                             "layer b params=20 gemm=4,4,4 act=16 ew=2.5 perm=1\n",
                             "t", &p, err, sizeof err),
           NVS_OK);
    nvs_gpu_spec g;
    memset(&g, 0, sizeof g);
    g.mem_gbps = 1000;
    nvs_compute_terms t;
    memset(&t, 0, sizeof t);
    t.mem_eff = t.compute_scale = 1;
    double f0, b0, f1, b1;
    nvs_layer_us(&p.layers[1], 0, 10, &g, NVS_PREC_BF16, &t, &f0, &b0);
    t.view_copy_eff = 0.25;
    nvs_layer_us(&p.layers[1], 0, 10, &g, NVS_PREC_BF16, &t, &f1, &b1);
    const double pass = 2 * 10 * 16 * 2 / 1000e3; /* a read and a write of 10 x 16 bf16 at 1000 GB/s */
    T_NEAR(f1 - f0, pass / 0.25 - pass, 1e-12);
    T_NEAR(b1 - b0, pass / 0.25 - pass, 1e-12);
    /* the default share, and ideal's evaluation without it (model_eval.c) */
    T_NEAR(nvs_compute_defaults().view_copy_eff, 0.29, 0);
    T_EQ_I(nvs_framework_find("ideal")->view_copies, 0);
    T_EQ_I(nvs_framework_find("pytorch-ddp")->view_copies, 1);
    T_NEAR(nvs_framework_view_passes(nvs_framework_find("pytorch-ddp"), &p.layers[1]), 1, 0);
    T_NEAR(nvs_framework_view_passes(nvs_framework_find("ideal"), &p.layers[1]), 0, 0);
    nvs_profile_free(&p);
}

/* ln=: the LayerNorm's own passes cost 2 accesses forward and 5 backward at ln_eff of the peak, in place of the
 * passes at mem_eff; ln_eff 0 leaves the passes */
static void t_ln_cost(void)
{
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname x\nsource s\nlayer a params=20 gemm=4,4,4 act=16\n"
                             "layer n params=8 act=16 ew=2.5 ln=1.5\n",
                             "t", &p, err, sizeof err),
           NVS_OK);
    nvs_gpu_spec g;
    memset(&g, 0, sizeof g);
    g.mem_gbps = 1000;
    nvs_compute_terms t;
    memset(&t, 0, sizeof t);
    t.mem_eff = t.compute_scale = 1;
    double f0, b0, f1, b1, lf, lb;
    nvs_layer_us(&p.layers[1], 0, 10, &g, NVS_PREC_FP32, &t, &f0, &b0);
    const double pass = 2 * 10 * 16 * 4 / 1000e3; /* a read and a write of 10 x 16 fp32 at 1000 GB/s */
    T_NEAR(f0, 2.5 * pass, 1e-12);
    T_NEAR(b0, 5 * pass, 1e-12);
    t.ln_eff = 0.5;
    nvs_layer_us(&p.layers[1], 0, 10, &g, NVS_PREC_FP32, &t, &f1, &b1);
    const double access = 10 * 16 * 4 / (1000e3 * 0.5);
    T_NEAR(f1, 1.0 * pass + 2 * access, 1e-12);
    T_NEAR(b1, 2.0 * pass + 5 * access, 1e-12);
    nvs_ln_us(&p.layers[1], 10, &g, 4, &t, &lf, &lb);
    T_NEAR(lf, 2 * access, 1e-12);
    T_NEAR(lb, 5 * access, 1e-12);
    nvs_ln_us(&p.layers[0], 10, &g, 4, &t, &lf, &lb); /* not a LayerNorm */
    T_NEAR(lf + lb, 0, 0);
    T_NEAR(nvs_compute_defaults().ln_eff, 0.48, 0);
    nvs_profile_free(&p);
}

/* A 16-bit matrix product whose rows are off 16 bytes in PyTorch's layouts (N or K times 2 bytes) runs at
 * gemm_unaligned_eff; fp32, aligned shapes and convolutions keep their rates */
static void t_gemm_unaligned(void)
{
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse("nvscale-profile 1\nname x\nsource s\nlayer a params=1024 gemm=4,1024,1024 act=4096\n"
                             "layer dec params=30522 gemm=4,30522,1024 act=122088\n"
                             "layer k1032 params=4 gemm=4,1024,1032 act=4096\n"
                             "layer k4 params=4 gemm=4,1024,1020 act=4096\n"
                             "layer c params=4 gemm=4,30522,1024 act=122088 conv=1\n",
                             "t", &p, err, sizeof err),
           NVS_OK);
    T_EQ_I(nvs_gemm_unaligned(&p.layers[0], NVS_PREC_BF16), 0);
    T_EQ_I(nvs_gemm_unaligned(&p.layers[1], NVS_PREC_BF16), 1);
    T_EQ_I(nvs_gemm_unaligned(&p.layers[1], NVS_PREC_FP16), 1);
    T_EQ_I(nvs_gemm_unaligned(&p.layers[1], NVS_PREC_FP32), 0); /* no evidence at fp32: its SIMT kernels */
    T_EQ_I(nvs_gemm_unaligned(&p.layers[2], NVS_PREC_BF16), 0); /* 1032 x 2 = 2064 bytes: 16-byte rows */
    T_EQ_I(nvs_gemm_unaligned(&p.layers[3], NVS_PREC_BF16), 1); /* 2040 bytes: 8-byte rows */
    T_EQ_I(nvs_gemm_unaligned(&p.layers[4], NVS_PREC_BF16), 0); /* a convolution: conv_eff */
    nvs_gpu_spec g;
    memset(&g, 0, sizeof g);
    g.bf16_tflops = 1000;
    g.mem_gbps = 1e9; /* the FLOPs bound */
    nvs_compute_terms t = nvs_compute_defaults();
    t.compute_scale = 1;
    double f0, b0, f1, b1;
    nvs_layer_us(&p.layers[1], 0, 8, &g, NVS_PREC_BF16, &t, &f1, &b1);
    const double flops = 2.0 * 4 * 8 * 30522 * 1024;
    T_NEAR(f1, flops / (1000e6 * 0.26), 1e-9 * f1);
    t.gemm_unaligned_eff = 0;
    nvs_layer_us(&p.layers[1], 0, 8, &g, NVS_PREC_BF16, &t, &f0, &b0);
    T_NEAR(f0, flops / (1000e6 * t.gemm_eff), 1e-9 * f0);
    T_NEAR(b1 / b0, t.gemm_eff / 0.26, 1e-9);
    T_NEAR(nvs_compute_defaults().gemm_unaligned_eff, 0.26, 0);
    nvs_profile_free(&p);
}

T_LIST = {
    T_CASE(t_ring_table),    T_CASE(t_tree_table), T_CASE(t_allreduce_shapes), T_CASE(t_classes),
    T_CASE(t_ring_links),    T_CASE(t_ring_links_net), T_CASE(t_inter_share), T_CASE(t_layer_times), T_CASE(t_layer_kinds),     T_CASE(t_buckets),
    T_CASE(t_schedule_by_hand), T_CASE(t_lanes), T_CASE(t_lanes_overlap), T_CASE(t_interference), T_CASE(t_eval_toy), T_CASE(t_eval_framework), T_CASE(t_framework_counts), T_CASE(t_memory),          T_CASE(t_shapley),
    T_CASE(t_gap_link),      T_CASE(t_nccl_rules), T_CASE(t_host_budget),     T_CASE(t_dp_modes),
    T_CASE(t_stragglers),    T_CASE(t_nvls_gpu),     T_CASE(t_ewb),
    T_CASE(t_view_copies), T_CASE(t_ln_cost), T_CASE(t_gemm_unaligned),
};
T_MAIN
