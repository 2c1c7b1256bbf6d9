/* `nvscale p2p`: copy bandwidth and latency between every ordered pair of GPUs of a host, as
 * p2pBandwidthLatencyTest / nvbandwidth measure them, with the bound from the topology beside each number.
 *
 *   path "P2P"   cudaMemcpyPeerAsync with peer access enabled (cudaDeviceCanAccessPeer both ways): the copy
 *                engines move the data over NVLink or PCIe directly
 *   path "host"  no P2P (GeForce cards, P2P disabled): staged through pinned host memory, D2H on the source's
 *                stream and H2D on the destination's, in chunks, pipelined (what NCCL's SHM transport does)
 *   uni          one direction, copy_iters copies of copy_bytes after warm-up, timed with CUDA events,
 *                NVS_P2P_SAMPLES times: the median
 *   bidir        both directions at once on separate streams, started together, each timed to its own end (its
 *                bytes over its own time: nvbandwidth's device_to_device_bidirectional_memcpy_write_ce); the
 *                sum of the two, with the halves kept (src -> dst "fwd", dst -> src "rev", each while the other ran);
 *                each half the median of NVS_P2P_SAMPLES timed blocks, as uni
 *   latency      average time of back-to-back 4-byte copies: copy-engine latency including the launch of each
 *                copy, not a load latency (that is nvbandwidth's device-side latency test)
 * Every copy is validated: the source holds pattern.h's values, the destination is poisoned before each timed block
 * and checked by nvs_kern_verify after it; any wrong element makes the run fail (exit 3). */
#ifndef NVS_P2P_H
#define NVS_P2P_H

#include <jansson.h>
#include <stdio.h>

#include "topo/topo.h"

/* Each bandwidth test of a pair is timed this many times (iters copies each, warm-up before the first only) and the
 * median is its result, as nvbandwidth v0.8 does (--testSamples, default 3) and as the host copies do
 * (NVS_H2D_SAMPLES): one block is one draw from a rate that varies between blocks on a shared machine. */
#define NVS_P2P_SAMPLES 3
/* the most samples a run.json may say (its reader and nvs_p2p_from_json refuse more): far above any real count */
#define NVS_P2P_MAX_SAMPLES 64

typedef struct {
    int src, dst;         /* GPU indices in the topology */
    int src_dev, dst_dev; /* CUDA ordinals on their host */
    char path[8];         /* "P2P" | "host" */
    double uni_gbps, bidir_gbps, latency_us; /* < 0: not measured */
    double bidir_fwd_gbps, bidir_rev_gbps;   /* bidir's halves, src -> dst and dst -> src; bidir_gbps is their sum */
    long long wrong;      /* wrong elements over all validated copies; < 0: not checked */
} nvs_p2p_pair;

typedef struct {
    size_t copy_bytes;
    int iters, warmup;
    int samples;          /* timed blocks of iters copies per bandwidth test; the median is kept (NVS_P2P_SAMPLES) */
    int latency_iters;
    int npairs;
    nvs_p2p_pair *pairs;
} nvs_p2p_result;

/* Measures every ordered pair of the GPUs CUDA sees (p2p.c). `t` is this host's topology (its GPUs carry their
 * CUDA ordinals): the pairs get its GPU indices. NVS_ERR_UNSUPPORTED (exit 1) with fewer than two GPUs. */
nvs_result_t nvs_p2p_measure(const nvs_topology *t, size_t copy_bytes, int iters, int warmup, nvs_p2p_result *out);
void nvs_p2p_result_free(nvs_p2p_result *r);

/* Reporting (PURE, p2p_report.c). Bounds come from the topology: P2P pairs nvs_topo_pair_bound_gbps(.., 1),
 * host-path pairs (.., 0); bidirectional bounds are twice the one-way bound (links are full duplex). */
json_t *nvs_p2p_to_json(const nvs_topology *t, const nvs_p2p_result *r);
/* Pairs back from the JSON of nvs_p2p_to_json (for gathering between hosts). */
nvs_result_t nvs_p2p_from_json(const json_t *j, nvs_p2p_result *out, char *err, size_t errlen);
void nvs_p2p_print(const nvs_topology *t, const nvs_p2p_result *r, FILE *to);
void nvs_p2p_print_csv(const nvs_topology *t, const nvs_p2p_result *r, FILE *to);
/* GB/s of `bytes` moved in the median of the `n` times `secs` (seconds, n > 0): for an odd n the median rate
 * itself, as the rate falls as the time grows. -1 (not measured) when that time is zero, closer than the event
 * timer's resolution (an infinite rate, which run.json cannot hold), or when out of memory. */
double nvs_p2p_median_gbps(const double *secs, int n, double bytes);
/* Total wrong elements (0 when all copies were right). */
long long nvs_p2p_wrong_total(const nvs_p2p_result *r);

#endif
