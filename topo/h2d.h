/* `nvscale p2p --host`: pinned host <-> device copy bandwidth of every GPU of a host, as nvbandwidth's
 * host_to_device / device_to_host tests measure it, against the bound of the GPU's PCIe link.
 *
 *   h2d / d2h   cudaMemcpyAsync of copy_bytes between a pinned host buffer and device memory, iters timed after
 *               warm-up with CUDA events, NVS_H2D_SAMPLES times: the median
 *   bidir       both directions at once: each timed while the other copies twice its bytes beside it (as
 *               nvbandwidth's *_bidirectional_memcpy_ce tests do), and the sum of the two
 *   single      one GPU at a time, the pinned buffer on the GPU's own NUMA node (hwloc_alloc_membind, then
 *               cudaHostRegister): what one GPU's link gives
 *   all         every GPU at once, each with its own node-local buffer: GPUs behind one PCIe switch or root port
 *               share its uplink, and this is where it shows
 *   remote      one GPU at a time with the buffer on another NUMA node (where the host has one): the cost of
 *               crossing the CPU interconnect
 * Every copy is validated: the device source holds pattern.h's values, D2H brings them to the host buffer, H2D
 * takes them back into a poisoned device buffer, and nvs_kern_verify counts wrong elements (exit 3 if any). */
#ifndef NVS_H2D_H
#define NVS_H2D_H

#include <jansson.h>
#include <stdio.h>

#include "topo/topo.h"

enum { NVS_H2D_SINGLE = 0, NVS_H2D_ALL, NVS_H2D_REMOTE, NVS_H2D_MODES };

/* Each copy test is timed this many times (iters copies each, warm-up before the first only) and the median is
 * its result, as nvbandwidth does (its README, "Measurement Details": repeated 3 times, the median reported). Why:
 * on a shared VM one block of pinned copies varies by tens of percent (an H100 VM's healthy gen5 x16 link gave
 * 42.7-55.1 GB/s host -> GPU in 5 runs, results/h100x1-session49b), and acceptance judges one number. */
#define NVS_H2D_SAMPLES 3

typedef struct {
    int numa;                 /* NUMA node of the pinned buffer; -1 unknown (not bound) */
    double h2d_gbps, d2h_gbps, bidir_gbps; /* < 0: not measured */
    double bidir_h2d_gbps, bidir_d2h_gbps;  /* each direction of bidir, while the other ran; < 0: not measured */
    long long wrong;          /* < 0: not checked */
} nvs_h2d_mode;

typedef struct {
    int gpu;                  /* index in the topology */
    int dev;                  /* CUDA ordinal on its host */
    int gpu_numa;             /* the GPU's NUMA node; -1 unknown */
    nvs_h2d_mode mode[NVS_H2D_MODES];
    char remote_why[96];      /* why there is no remote measurement ("one NUMA node"), "" when measured */
} nvs_h2d_gpu;

typedef struct {
    size_t copy_bytes;
    int iters, warmup;
    int samples;              /* timed blocks of iters copies per test; the median is kept (NVS_H2D_SAMPLES) */
    char numa_binding[96];    /* how buffers were placed: "hwloc membind" or why not */
    int ngpus;
    nvs_h2d_gpu *gpus;
} nvs_h2d_result;

/* Measures every GPU CUDA sees (h2d.c). `t` is this host's topology (GPUs with CUDA ordinals and NUMA nodes).
 * NVS_ERR_UNSUPPORTED (exit 1) when no GPU is visible. */
nvs_result_t nvs_h2d_measure(const nvs_topology *t, size_t copy_bytes, int iters, int warmup, nvs_h2d_result *out);
void nvs_h2d_result_free(nvs_h2d_result *r);
long long nvs_h2d_wrong_total(const nvs_h2d_result *r);
const char *nvs_h2d_mode_name(int mode); /* "single", "all", "remote" */

/* Direction DIR of M (0 h2d, 1 d2h, 2 bidir's h2d, 3 bidir's d2h) from its N timed blocks' seconds SECS, each
 * moving BYTES (PURE, h2d_report.c): the rate of the median time, as a GPU pair's (nvs_p2p_median_gbps), not the
 * median of the rates, in which a block too short for the event timer (0 s: no finite rate, said -1) sorted as the
 * slowest and pulled the median down. -1 when the median time is 0. bidir_gbps: the sum of bidir's two directions
 * once both are measured, -1 while either is not. */
void nvs_h2d_mode_set(nvs_h2d_mode *m, int dir, const double *secs, int n, double bytes);

/* Reporting (PURE, h2d_report.c). The bound of a GPU is its PCIe link's (nvs_topo_pcie_gbps through the
 * topology's pcie.gbps); bidirectional bounds are twice it (PCIe is full duplex). */
json_t *nvs_h2d_to_json(const nvs_topology *t, const nvs_h2d_result *r);
/* Back from JSON, GPUs re-keyed by (host, pci_bus_id) into `t` (for gathering between hosts). */
nvs_result_t nvs_h2d_from_json(const json_t *j, const nvs_topology *t, nvs_h2d_result *out, char *err, size_t errlen);
void nvs_h2d_print(const nvs_topology *t, const nvs_h2d_result *r, FILE *to);
void nvs_h2d_print_csv(const nvs_topology *t, const nvs_h2d_result *r, FILE *to);

#endif
