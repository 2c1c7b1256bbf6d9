/* The what-if cost model of a data-parallel training step (`nvscale model`). PURE: arithmetic only, no CUDA,
 * NCCL or MPI; every function here is unit-tested without a GPU (tests/unit/test_model*.c). docs/model.md
 * states every formula with its source; the comments below say the short version.
 *
 * The step mirrors nvscale's synthetic training step (src/train*.c) so that calibration compares like with
 * like:
 *   forward   layers in order: GEMM of 2*B*M*N*K FLOPs + ew memory passes over B*act elements (read + write
 *             in the compute precision)
 *   backward  layers in reverse: 2x the GEMM FLOPs (input and weight gradients) + 2*ew passes; a layer's
 *             gradients are ready when its backward ends
 *   buckets   gradients grouped in reverse layer order, PyTorch DDP style: a bucket closes once it holds
 *             >= its cap (first bucket 1 MiB, then 25 MiB); each bucket is all-reduced on a second stream as
 *             soon as its last layer's backward ends, one after another
 *   optimizer after the last all-reduce: SGD with momentum over every parameter (reads w, g, m; writes w, m)
 *   efficiency(N) = step(1) / step(N), per-GPU batch fixed (weak scaling)
 *
 * All-reduce cost, alpha-beta (Hockney) with per-hop terms from a link graph:
 *   ring  (Thakur, Rabenseifner, Gropp 2005, "Optimization of collective communication operations in MPICH",
 *          reduce-scatter + allgather): 2(n-1) steps of S/n bytes: T = base + 2(n-1)*alpha + 2(n-1)/n * S/B
 *   tree  (NCCL: a chain inside the node, a double binary tree across nodes, Sanders, Speck, Traeff 2009;
 *          pipelined reduce + broadcast), one formula for every node count N (below); one node of g GPUs:
 *          T = base + 2(g-1)*alpha + 2(g-1)/g * S/(0.92 B)
 *   across N nodes of g GPUs (n = N g), NCCL pipelines the node's and the network's share of every chunk in
 *          one kernel, so the bus bandwidth is the MIN of the phases, not a sum of their times (NCCL
 *          src/graph/tuning.cc: one bandwidth per algorithm; /work notes ALGOS.md section 3):
 *          ring      busbw = min(B_i, B_net), B_net = NICs x min(NIC, its PCIe path) per node (the rings
 *                    share the NICs beside the node's g GPUs: no division by g; nvs_inter_gbps);
 *                    T = base + 2(n-N) alpha_i + 2(N-1) alpha_n
 *                    + 2(n-1)/n * S/busbw
 *          tree      busbw = 0.92 x (B_i on 1 node, min(B_i, 2 B_net) on 2 (half the traffic crosses the
 *                    network, nccl#946; search.cc), min(B_i, B_net) beyond) (tuning.cc: 0.92 at every N);
 *                    T = base + 2((g-1) alpha_i + ceil(log2 N) alpha_n) + 2(n-1)/n * S/busbw: adding nodes never
 *                    raises busbw nor lowers the latency
 *   NVLS     (NVLink SHARP, one node with an NVSwitch that reduces): T = base + 2 alpha_i + S / A_nvls,
 *            A_nvls the node's NVLS algbw (machine preset), only where the GPU can do NVLS too (compute
 *            capability >= 9.0 and NVLink4: nvs_gpu_nvls) and never above the GPU's own NVLink (nvs_nvls_gbps)
 *   NVLSTree NVLS in the node, trees across nodes: busbw = min(A_nvls 2(g-1)/g, (N == 2 ? 2 : 1) B_net),
 *            T = base + 2 alpha_i + 2 ceil(log2 N) alpha_n + 2(n-1)/n * S/busbw; at N = 1 (NCCL disables
 *            NVLSTree there) the formula is NVLS's
 *   CollNet  (IB SHARP, the switches reduce: each node sends S once): algbw = min(B_i or A_nvls, B_net);
 *            only when asked (NCCL needs NCCL_COLLNET_ENABLE=1 and the SHARP plugin)
 * B_i is the ring's bus bandwidth inside a node: the slowest flow of the ring when every link's bandwidth is
 * shared by the ring flows that cross it (nvs_ring_links). Units: bytes, microseconds, GB/s (1e9 bytes/s). */
#ifndef NVS_MODEL_H
#define NVS_MODEL_H

#include <stddef.h>

#include "core/config.h"
#include "core/precision.h" /* one precision table, shared with the measuring side */
#include "core/err.h"
#include "workload/buckets.h"
#include "workload/optimizer.h"
#include "workload/profile.h"

typedef enum {
    NVS_ALGO_RING = 0,
    NVS_ALGO_TREE,
    NVS_ALGO_NVLS,
    NVS_ALGO_NVLSTREE,
    NVS_ALGO_COLLNET,
    NVS_ALGO_AUTO /* the fastest of ring, tree, NVLS, NVLSTree where available (CollNet only when asked) */
} nvs_algo;
typedef enum { NVS_TR_NONE = 0, NVS_TR_NVLINK, NVS_TR_P2P, NVS_TR_SHM, NVS_TR_NET } nvs_transport;

const char *nvs_algo_name(nvs_algo a);           /* "ring" / "tree" / "nvls" / "nvlstree" / "collnet" / "auto" */
int nvs_algo_parse(const char *s, nvs_algo *out);
const char *nvs_transport_name(nvs_transport t); /* "NVLink" / "P2P" / "SHM" / "NET" */

/* --- hardware, as the model needs it (filled from presets by model_eval.c, or by hand in tests) ----------- */

typedef struct {
    const char *id;
    double fp32_tflops, tf32_tflops, bf16_tflops; /* dense peaks */
    double mem_gbps, memory_bytes;
    int p2p_pcie;                                 /* CUDA peer access over PCIe */
    int nvlink_links;
    double nvlink_gbps_per_link;                  /* per direction */
    int nvlink_gen;                               /* 0 = none */
    double compute_capability;                    /* 8.6, 9.0, ...; 0 = not stated */
} nvs_gpu_spec;

typedef struct {
    const char *id;
    int gpus, sockets, gpus_per_switch, switch_cascade;
    int nvlink;          /* NVS_NVLINK_NONE / PAIRS / SWITCH (preset.h) */
    int p2p_level;       /* NVS_CLS_*: farthest class NCCL uses P2P over (when not p2p_by_rules) */
    int p2p_by_rules;    /* 1: p2p_level follows NCCL's rules for `cpu` and `nccl` (nvs_nccl_p2p_level) */
    int cpu;             /* NVS_CPU_* (preset.h): the CPU vendor NCCL's P2P rules look at */
    int nccl;            /* NCCL version of the run, major*10000 + minor*100 + patch; 0 = today's rules */
    double gpu_link_gbps, uplink_gbps, socket_gbps, shm_gbps, nvlink_eff;
    double nvls_gbps;    /* NVLink SHARP algbw of the node's NVSwitch (0 = none) */
    /* The host path budget of NCCL's SHM transport, per socket (GB/s of flow bytes; 0 = no budget): every SHM
     * flow stores into and loads from host memory, so the flows whose receive buffer sits in a socket's memory
     * share that socket's budget; a flow crossing sockets loads both sockets' budgets, xsocket_shm_cost times
     * each (the cost of crossing: remote stores through the other IO die and the socket link). */
    double host_gbps, xsocket_shm_cost;
    double host_mem_gbps; /* host memory bandwidth of a socket (STREAM copy, read + write), 0 = unknown: reported */
    double nvlink_hop_us, p2p_hop_us, shm_hop_us, coll_base_us;
    /* NCCL's NET transport between two GPUs of this node (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1, or SHM off where
     * P2P cannot go): sockets through the kernel's loopback, bound by the host CPU, not by a NIC. Cap per flow
     * (GB/s) and latency per ring step; net_local_gbps 0 = not known for this machine: not modelled. */
    double net_local_gbps, net_local_hop_us;
    int nics;
    int measured_only;   /* no preset: a measured run's machine, only its measured GPU counts can be modelled */
} nvs_machine_spec;

typedef struct {
    const char *id;
    double gbps, hop_us; /* per adapter per direction; per ring step */
    int sharp;           /* the fabric can reduce in the switches (IB SHARP) */
} nvs_net_spec;

/* NVLink SHARP (NCCL's NVLS and NVLSTree algorithms) needs the GPU's side as well as an NVSwitch that reduces
 * (the machine's nvls_gbps): NCCL's docs (NCCL_NVLS_ENABLE, since 2.17): "NVLink SHARP is available in
 * third-generation NVSwitch systems (NVLink4) with Hopper and later GPU architectures"; NCCL asks the driver
 * (src/transport/nvls.cc, ncclNvlsInit: CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED) and turns NVLS off where it is
 * not. From the GPU preset: compute capability >= 9.0 (Hopper or later) and NVLink generation >= 4 with links.
 * Returns 1 if g can; else 0 and, when why is given, the reason naming the GPU ("GPU 'rtx3090' (compute capability
 * 8.6, NVLink gen 3) cannot do NVLink SHARP: ..."). */
#define NVS_NVLS_MIN_CC 9.0
#define NVS_NVLS_MIN_NVLINK_GEN 4
int nvs_gpu_nvls(const nvs_gpu_spec *g, char *why, size_t len);
/* A_nvls of GPU g in machine m, GB/s of algbw per GPU: 0 where either cannot do NVLink SHARP; else the machine's
 * nvls_gbps, capped by the GPU's own NVLink (links x GB/s per link x the machine's nvlink_eff, the rate the
 * model gives the GPU's ring): NVLS still moves each GPU's whole buffer into the switch and the whole sum back
 * out over that GPU's links, so its algbw cannot pass them. *capped (may be NULL) = 1 when the cap applied. */
double nvs_nvls_gbps(const nvs_machine_spec *m, const nvs_gpu_spec *g, int *capped);

/* --- pure alpha-beta costs (us) ------------------------------------------------------------------------------ */

/* Ring all-reduce of `bytes` over n ranks: 2(n-1) * (alpha + bytes/n / B). 0 for n <= 1. */
double nvs_ring_allreduce_us(double bytes, int n, double alpha_us, double gbps);
/* Ring reduce-scatter or all-gather: (n-1) * (alpha + bytes/n / B). */
double nvs_ring_half_us(double bytes, int n, double alpha_us, double gbps);
/* NCCL's tree all-reduce on one node of n GPUs (a chain): 2(n-1)*alpha + 2(n-1)/n * bytes/(0.92 B), the
 * across-nodes formula at N = 1. 0 for n <= 1. */
double nvs_tree_allreduce_us(double bytes, int n, double alpha_us, double gbps);
int nvs_ceil_log2(int n);

/* One all-reduce configuration: `nodes` x `gpn` GPUs. intra: the ring inside a node; inter: one GPU's share of
 * the network (per step latency, GB/s). */
typedef struct {
    int nodes, gpn;
    double base_us;
    double intra_alpha_us, intra_gbps;
    double inter_alpha_us, inter_gbps; /* inter_gbps: B_net, the node's network bandwidth (all its NICs) */
    double nvls_gbps;   /* A_nvls: NVLink SHARP algbw of one node (0 = none) */
    int sharp;          /* in-network reduction enabled (CollNet): the network reduces */
    double per_call_us; /* calibration: extra fixed cost per call (0 = none) */
    nvs_algo algo;
} nvs_ar_params;

/* Time of one all-reduce of `bytes`; *used (may be NULL) says which algorithm the time is for (auto: the
 * fastest available, as NCCL's tuner picks per size; an algorithm the shape does not allow falls back to the
 * ring, and *used says so). 0 when only one GPU takes part. */
double nvs_allreduce_us(const nvs_ar_params *p, double bytes, nvs_algo *used);
/* The large-message bus bandwidth (nccl-tests' busbw, GB/s) of the algorithm p picks for `bytes` (*used may be
 * NULL): 2(n-1)/n x dS / dT, the slope of nvs_allreduce_us without its latency terms. 0 for one GPU. */
double nvs_allreduce_busbw(const nvs_ar_params *p, double bytes, nvs_algo *used);

/* --- the link graph inside one node --------------------------------------------------------------------------- */

/* NCCL's P2P rule (src/graph/paths.cc, ncclTopoCheckP2p): the farthest path class (NVS_CLS_*) over which
 * NCCL `nccl` (major*10000 + minor*100 + patch; 0 = today's rules) uses P2P between `gpus` GPUs of one node, the
 * communicator's GPUs there (NCCL counts the GPUs of its topology, which holds only the communicator's ranks'
 * GPUs of the host: system->nodes[GPU].count), whose CPU is `cpu` (NVS_CPU_*):
 *   < 2.9.6            Intel: PHB (through the CPU, not across sockets: NVS_CLS_NODE); ARM: PXB; AMD and
 *                      others: SYS ("In general, use P2P whenever we can")
 *   2.9.6 .. 2.23.3    Intel, Zhaoxin, ARM: PXB; AMD: SYS
 *   >= 2.23.4          PXB ("By default don't use P2P across CPU Host Bridges and further apart"), except AMD
 *                      with <= 2 GPUs: SYS
 * A CPU not stated (NVS_CPU_UNKNOWN) gets PXB. */
int nvs_nccl_p2p_level(int nccl, int cpu, int gpus);
/* "2.7.8" -> 20708. 0, or -1 when s is not MAJOR.MINOR[.PATCH] with minor and patch below 100. */
int nvs_nccl_version_parse(const char *s, int *code);
/* The level machine m uses between n GPUs of a communicator: its p2p_level, or NCCL's rule when p2p_by_rules. */
int nvs_machine_p2p_level(const nvs_machine_spec *m, int n);

/* Path class between GPUs a and b of machine m (NVS_CLS_NV if NVLink joins them). */
int nvs_machine_class(const nvs_machine_spec *m, const nvs_gpu_spec *g, int a, int b);
/* The NCCL transports the environment turns off, as flags (the `off` arguments below; 0 = none):
 *   NVS_OFF_P2P  NCCL_P2P_DISABLE=1: no P2P transport, NVLink included
 *   NVS_OFF_SHM  NCCL_SHM_DISABLE=1: no SHM transport; a pair P2P cannot join goes over NCCL's NET transport
 * (NCCL src/transport.cc tries P2P, SHM, NET in that order for each peer and takes the first that can connect;
 * a disabled one cannot). */
#define NVS_OFF_P2P 1
#define NVS_OFF_SHM 2
/* Transport NCCL uses between a and b: NVLink, else P2P if the GPU allows peer access over PCIe and the class
 * is within p2p_level, else SHM through host memory, else (SHM off) NET. */
nvs_transport nvs_machine_transport(const nvs_machine_spec *m, const nvs_gpu_spec *g, int a, int b, int n, int off);

typedef struct {
    double gbps;            /* bus bandwidth of the ring: its slowest flow */
    double link_gbps;       /* gbps from the machine's presets alone, kept where a measured ring replaces gbps
                             * (nvs_model_ar_params): the links' own rate, what NCCL sizes its channels by
                             * (model/interference.h); 0: no preset describes them */
    double alpha_us;        /* per step latency: the slowest flow's transport */
    int from, to;           /* the slowest flow */
    nvs_transport transport;
    int cls;
    char why[160];          /* "GPU 3 -> GPU 4: SHM via host memory; switch 0 uplink shared by 4 flows" */
} nvs_ring_links;

/* The ring over GPUs 0..n-1 of one node, with the transports `off` turns off (NVS_OFF_*). NVS_ERR_INPUT if
 * n > m->gpus or n < 2, or a flow goes over NET inside a node whose net_local_gbps is not known (out->why says
 * so). */
nvs_result_t nvs_ring_links_of(const nvs_machine_spec *m, const nvs_gpu_spec *g, int n, int off,
                               nvs_ring_links *out);
/* The NICs g GPUs of node m reach: all of them when the job takes the whole node, else the share of the node's
 * NICs beside those GPUs, ceil(nics x g / gpus) (the NICs spread evenly over the GPUs, as on HGX boards: one per
 * GPU; at least one). NCCL gives each GPU the NICs nearest it (src/graph/search.cc, ncclTopoGetLocalNet) and reaches
 * another GPU's NIC only through that GPU by PXN (NCCL_PXN_DISABLE: "using NVLink and an intermediate GPU"), a
 * GPU of the communicator: one GPU per node of an 8-NIC HGX box drives one NIC, not eight. */
int nvs_inter_nics(const nvs_machine_spec *m, int g);
/* The node's network bandwidth for an all-reduce across nodes of g GPUs each: the NICs they reach (nvs_inter_nics)
 * x min(net GB/s, the PCIe link a NIC sits on), and at most g x the GPU's own PCIe link (GPUDirect RDMA moves each
 * GPU's bytes over its link). Not divided by the GPUs: NCCL's rings share those NICs, so their bus bandwidth is
 * bounded by the sum (nccl-tests#119: 8 A100 + 4 HDR reach 96 GB/s = 4 x 24). */
double nvs_inter_gbps(const nvs_machine_spec *m, const nvs_net_spec *net, int g);

/* --- compute ------------------------------------------------------------------------------------------------ */

typedef struct {
    double gemm_eff;      /* sustained fraction of the peak matrix rate (default 0.70) */
    double mem_eff;       /* sustained fraction of the peak memory bandwidth (default 0.80) */
    double compute_scale; /* calibration: measured / modelled compute time at n=1 (default 1) */
    /* the kinds of layer that run below those rates (0: none apart, as the fields above): */
    double conv_eff;      /* a convolution's (conv=1) share of the peak matrix rate (default 0.52) */
    /* a batch norm (bn=) in cuDNN, and in the framework's own kernels (nvs_bn_in_cudnn says which runs it): share
     * of the peak memory bandwidth, counted in 4-byte elements whatever the precision (defaults 0.445, 0.31) */
    double bn_cudnn_eff, bn_own_eff;
    /* a bias's gradient in the framework's own reduction kernel (workload/framework.h bias_reduce): a fixed time per
     * launch, one per bias tensor (nvs_layer_bias_tensors), in us, plus its bytes at this share of the peak memory
     * bandwidth (defaults 8.5, 0.57); the share 0: the bytes at mem_eff and no fixed time (cuBLAS's product with
     * ones: `ideal`) */
    double bias_reduce_us, bias_reduce_eff;
    /* a profile's perm= passes as copies through a view, element by element (workload/framework.h view_copies): a
     * read and a write of the output at this share of the peak memory bandwidth, forward and again backward
     * (default 0.30); 0: passes at mem_eff (`ideal`) */
    double view_copy_eff;
    /* a LayerNorm (a profile's ln=) in PyTorch's LayerNorm kernels: 2 accesses of its tensor forward, 5 backward, at
     * this share of the peak memory bandwidth (default 0.48); 0: its passes at mem_eff */
    double ln_eff;
    /* a matrix product (not conv=) at 16 bits whose rows are off 16 bytes in PyTorch's row-major layouts (its N or
     * K features times 2 bytes not a multiple of 16: BERT's 30,522-word decoder), where cuBLAS runs its
     * less-aligned kernels: share of the peak matrix rate (default 0.26, measured on 4-byte rows: the one case
     * seen); 0: gemm_eff */
    double gemm_unaligned_eff;
} nvs_compute_terms;

/* A LayerNorm layer's (ln=) forward and backward in its kernels over elements of elem_bytes, at batch B (us; 0 for
 * other layers or ln_eff 0) */
void nvs_ln_us(const nvs_layer *l, int batch, const nvs_gpu_spec *g, double elem_bytes, const nvs_compute_terms *t,
               double *fwd_us, double *bwd_us);
/* Defaults, with why, in model.c. */
nvs_compute_terms nvs_compute_defaults(void);
/* Whether layer l's matrix product at precision p runs on rows off 16 bytes (gemm_unaligned_eff) */
int nvs_gemm_unaligned(const nvs_layer *l, nvs_precision p);
/* Peak matrix rate (TFLOP/s) for a precision: fp32 -> fp32_tflops (CUDA cores), tf32, bf16 -> tensor rates. */
double nvs_gemm_tflops(const nvs_gpu_spec *g, nvs_precision p);
/* Forward and backward time of one layer at batch B (us). A GEMM (or a convolution's implicit GEMM) takes its
 * FLOPs at the matrix rate or its bytes (input, output, weights) at the memory rate, whichever is longer; the
 * backward runs two such (input and weight gradients). The first layer (index 0, or the first after a frozen stem)
 * needs no input gradient: its backward runs one, not two (as PyTorch and nvscale's training step do); a nograd
 * layer (frozen stem) has no backward. Element-wise passes move their bytes at the memory rate; a batch norm's own
 * passes (bn=) run as the framework's batch norm does at this precision (nvs_bn_in_cudnn), at its element rate. */
void nvs_layer_us(const nvs_layer *l, int first, int batch, const nvs_gpu_spec *g, nvs_precision p,
                  const nvs_compute_terms *t, double *fwd_us, double *bwd_us);
/* A memory-bound pass moving `bytes` (read + write counted) at sustained memory bandwidth (us), scaled as
 * compute is. */
double nvs_mem_pass_us(double bytes, const nvs_gpu_spec *g, const nvs_compute_terms *t);
/* The optimizer's update at sustained memory bandwidth (us): params x nvs_optimizer_pass_bytes (workload/optimizer.h).
 * SGD with momentum: one fused pass, params x (4+4 w, 4+4 m, grad_bytes g) bytes; as three foreach passes (foreach =
 * 1, workload/framework.h), params x (28 + grad_bytes). AdamW: fused 24 + grad_bytes, foreach 72 + 2 grad_bytes. */
double nvs_optimizer_us(double params, double grad_bytes, int foreach, nvs_optimizer opt, const nvs_gpu_spec *g,
                        const nvs_compute_terms *t);

/* --- buckets and the overlap schedule -------------------------------------------------------------------------- */

/* The training step's own buckets (workload/buckets.h): the model and the measured step bucket alike. */
typedef nvs_ddp_bucket nvs_model_bucket;

/* DDP bucket assignment: nvs_ddp_buckets (reverse layer order, close when bytes >= cap; first cap, then cap).
 * Layers without parameters join no bucket. Writes at most `maxb`; returns the number of buckets (may exceed
 * maxb). */
int nvs_assign_buckets(const nvs_layer *layers, int nlayers, double grad_bytes, double first_cap_bytes,
                       double cap_bytes, nvs_model_bucket *out, int maxb);

typedef struct {
    double fwd_us, bwd_us, opt_us;
    double compute_us;   /* the step with no communication (nvs_schedule: fwd + bwd + opt; nvs_model_eval: nor the
                          * framework's reducer, the host lane's waits included) */
    double comm_us;      /* the buckets' all-reduces back to back */
    double comm_end_us;  /* when the last all-reduce ends, from the start of backward */
    double step_us;      /* fwd + max(backward end, last all-reduce end) + opt (+ penalty + sync, model_eval.c) */
    double exposed_us;   /* communication backward does not hide: the schedule's step - compute - reducer */
    double penalty_us;   /* interference: a share of overlap_us (overlap_penalty, model/interference.h);
                          * step = compute + reducer + exposed + penalty + sync */
    double sync_us;      /* waiting for the slowest rank: data-dependent step times (model_eval.c) */
    double reducer_us;   /* the framework's reducer at any N: its host work and bucket copies (model_eval.c) */
    double host_us;      /* the host's framework work per step (0 for the hardware alone) */
    double overlap_us;   /* how long the GPU computed while an all-reduce ran (nvs_schedule_lanes): the time the
                          * two contend for SMs and memory; the hidden comm where the GPU is busy throughout, less
                          * where it waits for the host */
} nvs_step_times;

/* The overlap schedule: bwd_layer_us[i] is the backward time of forward layer i; ar_us[b] the all-reduce time
 * of bucket b. Buckets start in order, each when ready and when the previous one is done. */
void nvs_schedule(const double *bwd_layer_us, int nlayers, const nvs_model_bucket *b, int nb, const double *ar_us,
                  double fwd_us, double opt_us, nvs_step_times *out);

/* One step on two lanes, the host's and the GPU's, as the training step issues it (train/step.c): the host does
 * a layer's framework work (host_*_us, 0 for the hardware alone), then the layer's kernels queue; a kernel starts
 * when the GPU is free and the host has queued it. In backward, a bucket's all-reduce starts when its last
 * layer's kernels are done, the host has done the reducer's work for it (reducer_host_us) and the previous
 * all-reduce is done. After backward the GPU waits for the last all-reduce, then runs the `after` items in order:
 * each is host work, then GPU work, and with sync set the host waits for the GPU there (GradScaler's
 * found_inf.item()). The step ends when both lanes are done. With every host term 0 it is nvs_schedule. Host
 * work before the forward (before_host_us) holds back the first layer's kernels. */
typedef struct {
    double host_us, gpu_us;
    int sync;
} nvs_lane_item;

typedef struct {
    int nlayers;
    const double *fwd_us, *bwd_us;           /* GPU time per layer, forward order */
    const double *host_fwd_us, *host_bwd_us; /* host work before each layer's kernels; NULL = none */
    double between_host_us;                  /* host work between forward and backward (the loss scaled) */
    const nvs_model_bucket *b;               /* nb = 0: no reducer (the compute-only step, or dp none) */
    int nb;
    const double *ar_us;
    double reducer_host_us;                  /* per bucket, when it closes */
    const nvs_lane_item *after;
    int nafter;
    double before_host_us;                   /* host work before the forward's first kernel (DDP's buffers) */
    double penalty_us;                       /* GPU time the interference added to backward's kernels
                                              * (model/interference.h), on the GPU's lane after the last all-reduce:
                                              * where the host's lane ends the step, the GPU's slack absorbs it */
} nvs_lanes;

/* fwd_us, bwd_us: when the GPU ends forward, and backward's length from there; opt_us: the after items' GPU
 * time; compute_us: the sum of every GPU time (the lanes' step when nothing waits); comm_us as in nvs_schedule;
 * comm_end_us: when the last all-reduce ends, from the GPU's end of forward; step_us: when both lanes are done;
 * exposed_us = step - compute (with penalty_us; the caller splits it); host_us: the host's own work (waits
 * excluded). */
void nvs_schedule_lanes(const nvs_lanes *l, nvs_step_times *out);

/* Expected maximum of n independent standard normal variables (e(1) = 0, e(2) = 1/sqrt(pi) = 0.5642,
 * e(4) = 1.0294, e(8) = 1.4236): E[max] = integral of x n phi(x) Phi(x)^(n-1) dx, by the trapezoid rule on
 * [-12, 12]. A synchronous step waits for the slowest of n ranks: with per-rank step times of standard deviation
 * sigma the wait is sigma * e(n) (Gumbel 1958, "Statistics of Extremes"; Tippett 1925 tabulates e(n)). */
double nvs_expected_max_normal(int n);

/* --- memory: the largest per-GPU batch --------------------------------------------------------------------------- */

/* The largest per-GPU batch the model takes, from the memory estimate or from --batch (cli/cmd_model_config.c): a
 * what-if bound, not a hardware one. A profile whose memory barely grows with the batch (few or no activations) would
 * otherwise get a batch of billions, or none at all where nothing grows; the output says when it decided. */
#define NVS_MODEL_MAX_BATCH 1000000

typedef struct {
    double weights_bytes;    /* fp32 master weights (+ a bf16 copy under bf16) */
    double grads_bytes;      /* gradients in grad precision */
    double buckets_bytes;    /* DDP's bucket copies of the gradients */
    double optimizer_bytes;  /* the optimizer's fp32 state: SGD's momentum, AdamW's m and v, and with foreach
                              * AdamW its temporary (workload/optimizer.h nvs_optimizer_fp32_words) */
    double reserve_bytes;    /* CUDA context, library workspaces, allocator slack */
    double per_sample_bytes; /* activations kept for backward, per sample */
    int max_batch;           /* 0 if not even one sample fits; at most NVS_MODEL_MAX_BATCH */
    int batch_capped;        /* 1: the memory holds more than NVS_MODEL_MAX_BATCH (or nothing grows with the
                              * batch): max_batch is that cap, not the largest that fits */
    double fit_batch;        /* what the memory holds before the cap (INFINITY: nothing grows with the batch) */
} nvs_mem_estimate;

void nvs_memory_estimate(const nvs_layer *layers, int nlayers, double params, const nvs_gpu_spec *g,
                         nvs_precision p, double grad_bytes, nvs_optimizer opt, int foreach, nvs_mem_estimate *out);

#endif
