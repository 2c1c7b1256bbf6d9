/* Path classes between two GPUs (PURE: no hwloc, CUDA, NVML or MPI here; unit-tested on synthetic inputs).
 *
 * The classes (core/link_class.h) are `nvidia-smi topo -m`'s, decided from each GPU's chain of PCI bridges up to its
 * host bridge (as hwloc describes it), its NUMA node, and the NVLink counts:
 *   NV#   the pair is joined by # NVLinks (directly, or through NVSwitches: see nvs_topo_nvlink_count)
 *   PIX   at most one PCIe switch between them               (nvidia-smi: "at most a single PCIe bridge")
 *   PXB   several PCIe switches, no host bridge              ("multiple PCIe bridges, without the host bridge")
 *   PHB   through one PCIe host bridge (typically the CPU)   ("PCIe as well as a PCIe Host Bridge")
 *   NODE  between host bridges within one NUMA node          ("interconnect between PCIe Host Bridges within a
 *                                                             NUMA node")
 *   SYS   across NUMA nodes (QPI/UPI/Infinity Fabric)        ("SMP interconnect between NUMA nodes")
 *   NET   on different hosts (set by the gather step, never by nvs_topo_classify_pcie)
 *
 * How hwloc draws the PCIe tree, and the rule used here:
 *   hostbridge ("0-1" bridge, child of a CPU-side object) -> root port (PCI-PCI bridge whose parent is the host
 *   bridge) -> [switch: upstream-port bridge -> one downstream-port bridge per port] -> ... -> device.
 *   A PCIe switch therefore appears as TWO bridge levels (upstream port, then downstream port), and a GPU
 *   behind one switch sits below: root port <- upstream port <- downstream port <- GPU.
 *   Rule: find the lowest common bridge (LCA) of the two chains.
 *     - none (different host bridges): NODE when both sit in the same NUMA node (or, NUMA unknown, below the
 *       same CPU-side object), else SYS;
 *     - the LCA is a host bridge: PHB;
 *     - the LCA is a PCI-PCI bridge: PIX when each GPU is at most ONE bridge below the LCA (LCA = a switch's
 *       upstream port, each GPU behind one of its downstream ports: one switch crossed), else PXB (the path
 *       climbs through a further switch level on at least one side).
 *   This is what NCCL does too, collapsing each switch's upstream+downstream ports into one PCI node
 *   (xml.cc "rewind two '/'"). */
#ifndef NVS_TOPO_PATH_H
#define NVS_TOPO_PATH_H

#include <stdint.h>

#include "core/link_class.h"

#define NVS_TOPO_MAX_DEPTH 32 /* bridges between a GPU and its host bridge; real machines have < 8 */

/* A GPU's PCIe ancestry, nearest bridge first. ids are any unique numbers (hwloc gp_index). */
typedef struct {
    int n;                                  /* bridges in the chain (0: unknown, e.g. no PCI info) */
    uint64_t bridge[NVS_TOPO_MAX_DEPTH];
    unsigned char is_host[NVS_TOPO_MAX_DEPTH]; /* 1: a host bridge (normally only the last one) */
    int numa_node;                          /* -1: unknown or several */
    uint64_t cpu_parent;                    /* id of the CPU-side object the tree hangs from (0: unknown) */
} nvs_topo_pcipath;

/* The PCIe part of the class (PIX .. SYS), NVLinks ignored. UNKNOWN when either chain is empty. */
nvs_link_class nvs_topo_classify_pcie(const nvs_topo_pcipath *a, const nvs_topo_pcipath *b);

/* NVLinks joining two GPUs: direct links between them plus, when both have links to NVSwitches, the smaller
 * of their switch link counts (nvidia-smi shows NV18 for every pair of an HGX H100 box: 18 links per GPU,
 * all to NVSwitches). */
int nvs_topo_nvlink_count(int direct_links, int a_switch_links, int b_switch_links);

/* Class names, ranks and link kinds: core/link_class.h (one vocabulary for every layer). */

#endif
