/* NICs in the topology (PURE): their class to every GPU and to each other, and the NET bound of every GPU.
 *
 * Classes: the same rule as GPU pairs (nvs_topo_classify_pcie on hwloc's PCIe tree, topo_path.h), which is what
 * `nvidia-smi topo -m` prints in its NIC columns; NET across hosts.
 *
 * NET bound of a GPU: the NICs NCCL would use for it. NCCL's ncclTopoGetLocalNet (src/graph/search.cc, 2.19 ..
 * 2.28) takes the NICs with the best path to the GPU ("local nets"), the GPUs with the best path to the first of
 * them ("local GPUs"), and spreads the GPU's channels over DIVUP(local nets, local GPUs) of those NICs. "Best"
 * is ncclTopoGetLocal's: the highest path bandwidth, then the nearest path type. So:
 *   - usable NICs: on the GPU's host, not known to be down; RDMA ones (InfiniBand, RoCE) only when the host has
 *     any, since NCCL's IB transport takes precedence over its socket transport (src/net.cc tries IB first);
 *   - path bandwidth: the slower of the NIC's rate and the GPU's PCIe link (the CPU interconnect a SYS path also
 *     crosses is not known here); when a usable NIC's rate is unknown, classes alone decide;
 *   - nearest NICs: the usable NICs of the highest path bandwidth and, among those, the best class (PIX < PXB <
 *     PHB < NODE < SYS) to the GPU: a 25G port on the GPU's switch is not taken over 400G HCAs one switch away;
 *   - sharing: the GPUs whose path to the first nearest NIC is that NIC's best to any GPU (same order);
 *   - bound: the sum of the line rates of DIVUP(nearest, sharing) nearest NICs (the fastest ones), unknown
 *     (0) when a rate is unknown. An HGX with one NIC per GPU (PIX) gets one NIC's rate; two GPUs behind one
 *     switch with one NIC get that NIC's rate each (they share it: the bound of each alone).
 * The line rate is the link's signalling payload (e.g. 400 Gbit/s NDR = 50 GB/s); protocol overheads are not
 * subtracted, as for PCIe and NVLink (topo_bounds.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "topo/topo.h"

#define MAX_NEAR 64 /* NICs equally near one GPU; an HGX has 2 at most */

/* a GPU's class to a NIC as stored (topo_store.c): "NET" across hosts */
static const char *gn(const nvs_topology *t, int g, int n) { return nvs_topo_gpu_nic_class(t, g, n); }

/* a class within a host; across hosts nothing is stored (the cell is NULL: always NET) */
static void class_of(const nvs_topo_pcipath *a, const nvs_topo_pcipath *b, char *out)
{
    char buf[NVS_TOPO_CLS_LEN];
    if (!out) return;
    nvs_link_class c = nvs_topo_classify_pcie(a, b);
    snprintf(out, NVS_TOPO_CLS_LEN, "%s", c == NVS_CLASS_UNKNOWN ? "?" : nvs_link_class_name(c, 0, buf, sizeof buf));
}

/* PIX 1 .. SYS 5; unknown and NET are no use as "nearest" */
static int rank_of(const char *cls)
{
    int nv;
    nvs_link_class c = nvs_link_class_parse(cls, &nv);
    return c >= NVS_CLASS_PIX && c <= NVS_CLASS_SYS ? (int)c - NVS_CLASS_PIX + 1 : 0;
}

static int is_rdma(const nvs_topo_nic *n)
{
    return !strcmp(n->kind, "InfiniBand") || !strcmp(n->kind, "RoCE") || !strcmp(n->kind, "RDMA");
}

static int usable(const nvs_topo_nic *n, int host, int rdma_only)
{
    if (n->host != host) return 0;
    if (rdma_only && !is_rdma(n)) return 0;
    /* a port known to be down carries nothing; unknown state (offline without Port1State) is given the benefit */
    return !n->state[0] || !strcmp(n->state, "ACTIVE") || !strcmp(n->state, "UP") || !strcmp(n->state, "UNKNOWN");
}

/* ncclTopoGetLocal's path bandwidth between a GPU and a NIC: the slower of the NIC's rate and the GPU's PCIe
 * link; 0 when the NIC's rate is unknown */
static double path_bw(const nvs_topo_gpu *g, const nvs_topo_nic *n)
{
    if (!(n->gbps > 0)) return 0;
    return g->pcie.gbps > 0 && g->pcie.gbps < n->gbps ? g->pcie.gbps : n->gbps;
}

/* the order of ncclTopoGetLocal: higher bandwidth (when by_bw), then the nearer class; <0: (bx, rx) is better */
static int path_cmp(int by_bw, double bx, int rx, double by, int ry)
{
    if (by_bw && bx > by * (1 + 1e-9)) return -1;
    if (by_bw && by > bx * (1 + 1e-9)) return 1;
    return rx < ry ? -1 : rx > ry;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void assign_gpu(nvs_topology *t, int g)
{
    nvs_topo_gpu *gpu = &t->gpus[g];
    memset(&gpu->net, 0, sizeof gpu->net);
    int host = gpu->host, rdma_only = 0, any = 0;
    for (int k = 0; k < t->nnics; k++)
        if (usable(&t->nics[k], host, 0)) {
            any = 1;
            rdma_only |= is_rdma(&t->nics[k]);
        }
    if (!any) {
        snprintf(gpu->net.source, sizeof gpu->net.source, "no usable NIC found on this host");
        return;
    }
    /* bandwidth decides first only when every candidate's rate is known */
    int by_bw = 1;
    for (int k = 0; k < t->nnics; k++)
        if (usable(&t->nics[k], host, rdma_only) && rank_of(gn(t, g, k)) && !(t->nics[k].gbps > 0)) by_bw = 0;
    int best = 0;
    double best_bw = 0;
    for (int k = 0; k < t->nnics; k++) {
        int r = usable(&t->nics[k], host, rdma_only) ? rank_of(gn(t, g, k)) : 0;
        double bw = path_bw(gpu, &t->nics[k]);
        if (r && (!best || path_cmp(by_bw, bw, r, best_bw, best) < 0)) best = r, best_bw = bw;
    }
    if (!best) {
        snprintf(gpu->net.source, sizeof gpu->net.source, "NIC position unknown: no PCIe path to compare");
        return;
    }
    int near[MAX_NEAR], nnear = 0, first = -1;
    double rates[MAX_NEAR];
    int unknown_rate = 0;
    size_t used = 0;
    for (int k = 0; k < t->nnics && nnear < (int)(sizeof near / sizeof near[0]); k++) {
        if (!usable(&t->nics[k], host, rdma_only) || !rank_of(gn(t, g, k)) ||
            path_cmp(by_bw, path_bw(gpu, &t->nics[k]), rank_of(gn(t, g, k)), best_bw, best) != 0)
            continue;
        if (first < 0) first = k;
        rates[nnear] = t->nics[k].gbps;
        unknown_rate |= !(t->nics[k].gbps > 0);
        near[nnear++] = k;
        int w = snprintf(gpu->net.names + used, sizeof gpu->net.names - used, "%s%s", used ? "," : "",
                         t->nics[k].name);
        if (w > 0 && (size_t)w < sizeof gpu->net.names - used) used += (size_t)w;
    }
    snprintf(gpu->net.cls, sizeof gpu->net.cls, "%s", gn(t, g, first));
    /* GPUs sharing the first nearest NIC: those at its best path from it */
    const nvs_topo_nic *fn = &t->nics[first];
    int nic_best = 0, sharing = 0;
    double nic_best_bw = 0;
    for (int j = 0; j < t->ngpus; j++) {
        int r = t->gpus[j].host == host ? rank_of(gn(t, j, first)) : 0;
        double bw = path_bw(&t->gpus[j], fn);
        if (r && (!nic_best || path_cmp(by_bw, bw, r, nic_best_bw, nic_best) < 0)) nic_best = r, nic_best_bw = bw;
    }
    for (int j = 0; j < t->ngpus; j++)
        sharing += t->gpus[j].host == host && rank_of(gn(t, j, first)) &&
                   path_cmp(by_bw, path_bw(&t->gpus[j], fn), rank_of(gn(t, j, first)), nic_best_bw, nic_best) == 0;
    if (sharing < 1) sharing = 1;
    int per_gpu = (nnear + sharing - 1) / sharing;
    gpu->net.nics = per_gpu;
    if (unknown_rate) {
        snprintf(gpu->net.source, sizeof gpu->net.source, "nearest NIC%s %s (%s): link rate unknown",
                 nnear == 1 ? "" : "s", gpu->net.names, gpu->net.cls);
        return;
    }
    qsort(rates, (size_t)nnear, sizeof *rates, cmp_desc);
    double sum = 0;
    for (int i = 0; i < per_gpu; i++) sum += rates[i];
    char nics[160];
    if (nnear == 1)
        snprintf(nics, sizeof nics, "nearest NIC %.60s (%s%s)", gpu->net.names, gpu->net.cls,
                 sharing > 1 ? ", shared with other GPUs" : "");
    else
        snprintf(nics, sizeof nics, "%d nearest NICs %.60s (%s), %d per GPU as NCCL spreads channels", nnear,
                 gpu->net.names, gpu->net.cls, per_gpu);
    /* GPUDirect RDMA and socket staging both cross the GPU's own PCIe link */
    if (gpu->pcie.gbps > 0 && gpu->pcie.gbps < sum) {
        gpu->net.gbps = gpu->pcie.gbps;
        snprintf(gpu->net.source, sizeof gpu->net.source,
                 "%.120s: %.6g GB/s, capped by the GPU's PCIe link at %.2f GB/s "
                 "per direction",
                 nics, sum, gpu->pcie.gbps);
    } else {
        gpu->net.gbps = sum;
        snprintf(gpu->net.source, sizeof gpu->net.source, "%.150s: %.6g GB/s per direction", nics, sum);
    }
}

void nvs_topo_nic_assign(nvs_topology *t)
{
    for (int g = 0; g < t->ngpus; g++)
        for (int k = 0; k < t->nnics; k++)
            class_of(&t->gpus[g].path, &t->nics[k].path, nvs_topo_gpu_nic_cell(t, g, k));
    for (int a = 0; a < t->nnics; a++)
        for (int b = 0; b < t->nnics; b++)
            if (a != b) class_of(&t->nics[a].path, &t->nics[b].path, nvs_topo_nic_nic_cell(t, a, b));
    for (int g = 0; g < t->ngpus; g++) assign_gpu(t, g);
}

double nvs_topo_parse_rate(const char *text)
{
    if (!text) return 0;
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v > 0) || v > 1e5) return 0; /* 100 Tb/s: far above any port (800G, 1.6T in 2026) */
    while (*end == ' ') end++;
    /* Linux drivers/infiniband/core/sysfs.c writes "%d%s Gb/sec (%dX%s)" */
    if (!strncmp(end, "Gb/sec", 6) || !strncmp(end, "Gb/s", 4) || !strncmp(end, "Gbit/s", 6)) return v / 8.0;
    if (!strncmp(end, "Mb/s", 4) || !strncmp(end, "Mbit/s", 6)) return v / 8000.0;
    return 0;
}

void nvs_topo_ib_state(const char *text, char *out, size_t len)
{
    /* enum ib_port_state (include/rdma/ib_verbs.h): 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER; sysfs
     * writes "4: ACTIVE", hwloc keeps the digit only */
    static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    if (len) out[0] = '\0';
    if (!text) return;
    while (isspace((unsigned char)*text)) text++;
    if (!isdigit((unsigned char)*text)) return;
    int v = atoi(text);
    if (v >= 0 && v <= 5) snprintf(out, len, "%s", names[v]);
}
