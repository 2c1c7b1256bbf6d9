/* The one vocabulary of GPU-to-GPU links (PURE: libc only), used by topo, explain, report, compare, check and model.
 *
 * CLASSES are `nvidia-smi topo -m`'s (its legend; the PCIe rule that decides them is in topo/topo_path.h):
 *   NV#   joined by # NVLinks          PIX   at most one PCIe switch     PXB   several PCIe switches
 *   PHB   through a PCIe host bridge   NODE  between host bridges of one NUMA node
 *   SYS   across NUMA nodes            NET   on different hosts (nvscale's; NCCL's topology calls it NET too)
 * Spelling is exactly nvidia-smi's: upper case, NV followed by a decimal count 1..NVS_LINK_MAX_NVLINKS without
 * sign or leading zero ("NV18"). Anything else ("pix", "NV0", "NV4x", "?") is UNKNOWN: run.json and hwloc XML are
 * written by programs, and a near miss there is a wrong file, not a class.
 *
 * RANK orders classes nearest (best) first, as the legend does: NV# < PIX < PXB < PHB < NODE < SYS < NET <
 * unknown. It decides which hop of a ring is the slowest when bounds tie, and which GPU set is closer.
 *
 * KINDS are the physical link a transfer crosses, as the explanation and run.json's "link" words name them,
 * slowest first (the order in which a ring's worst hop is chosen): network < host memory < PCIe < "P2P (link
 * unknown)" < NVLink. A class maps to a kind (NV# -> NVLink, PIX..SYS -> PCIe, NET -> network); host memory is
 * what NCCL's SHM transport crosses whatever the class. */
#ifndef NVS_LINK_CLASS_H
#define NVS_LINK_CLASS_H

#include <stddef.h>

#define NVS_LINK_MAX_NVLINKS 1000 /* far above any GPU (H100/H200: 18 links); a bound for parsing only */

typedef enum {
    NVS_CLASS_UNKNOWN = 0,
    NVS_CLASS_NV, /* "NV<n>" */
    NVS_CLASS_PIX,
    NVS_CLASS_PXB,
    NVS_CLASS_PHB,
    NVS_CLASS_NODE,
    NVS_CLASS_SYS,
    NVS_CLASS_NET,
} nvs_link_class;

/* "NV18" -> NVS_CLASS_NV with *nvlinks = 18; "PHB" -> NVS_CLASS_PHB with *nvlinks = 0; NULL or anything else ->
 * UNKNOWN. nvlinks may be NULL. */
nvs_link_class nvs_link_class_parse(const char *s, int *nvlinks);
/* The displayed class: "NV<nvlinks>" when nvlinks > 0 (whatever c is: NVLink wins over the PCIe path), else the
 * class's name; "?" for UNKNOWN (and for NV without a count). Writes into buf and returns it. */
const char *nvs_link_class_name(nvs_link_class c, int nvlinks, char *buf, size_t len);
/* Nearest first: NV# 1, PIX 2, ... NET 7; UNKNOWN 8 (worse than any known class). */
int nvs_link_class_rank(nvs_link_class c);
/* nvs_link_class_rank of a class name (NULL or junk: the UNKNOWN rank). */
int nvs_link_class_rank_of(const char *s);
/* The name is an NVLink class (NV1, NV2, ...). */
int nvs_link_class_is_nvlink(const char *s);

typedef enum {
    NVS_LINK_NONE = 0,    /* "none": no link known (yet) */
    NVS_LINK_NETWORK,     /* "network" */
    NVS_LINK_HOST_MEMORY, /* "host memory": NCCL's SHM transport, or copies staged through pinned host memory */
    NVS_LINK_PCIE,        /* "PCIe": peer-to-peer over the PCIe path */
    NVS_LINK_P2P_UNKNOWN, /* "P2P (link unknown)": NCCL's P2P transport between GPUs of unknown class */
    NVS_LINK_NVLINK,      /* "NVLink" */
} nvs_link_kind;

/* The kind's word ("NVLink", "PCIe", "host memory", "network", "P2P (link unknown)", "none"). */
const char *nvs_link_kind_name(nvs_link_kind k);
/* The inverse of nvs_link_kind_name (exact words); NONE for NULL or anything else. */
nvs_link_kind nvs_link_kind_parse(const char *s);
/* What a path of class c crosses when peer-to-peer takes it: NVLink, PCIe, network; NONE for UNKNOWN. */
nvs_link_kind nvs_link_kind_of_class(nvs_link_class c);
/* The slower of two kinds (the one a ring through both runs at); NONE only when both are NONE. */
nvs_link_kind nvs_link_kind_worst(nvs_link_kind a, nvs_link_kind b);

#endif
