/* The topology layer: which GPUs there are, how each pair is connected, and what that allows.
 *
 *   discover   hwloc (NUMA, cpusets, PCIe tree, NICs; or a saved hwloc 2.x XML) + NVML loaded with dlopen (NVLink
 *              links/version/peers, PCIe generation/width, P2P status) + CUDA (ordinals, P2P access) + sysfs
 *              (NIC link rate and state, topo_nic_sysfs.c)
 *   classify   every GPU pair gets nvidia-smi's class (NV#, PIX, PXB, PHB, NODE, SYS; NET across hosts),
 *              topo_path.h
 *   NICs       InfiniBand/RoCE HCAs and Ethernet ports with their class to every GPU and the NET bound of each
 *              GPU from its nearest NICs (topo_nic.c)
 *   bounds     the bandwidth a pair, or a ring over a set of GPUs, cannot exceed (topo_bounds.c, sources named)
 *   gather     every host's topology merged on rank 0 (MPI or threads runtime)
 *   json/print run.json's "topology" section (docs/run-json.md) and the `nvidia-smi topo -m`-like matrix.
 *
 * Unknown values are kept as unknown (-1, 0 where noted, or NaN-free flags), shown as "unsupported"/"N/A" and
 * written as JSON null, never as a silent zero. */
#ifndef NVS_TOPO_H
#define NVS_TOPO_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/err.h"
#include "runtime/runtime.h"
#include "topo/topo_path.h"

#define NVS_TOPO_MAX_NVLINKS 18 /* NVML_NVLINK_MAX_LINKS on current drivers (nvml.h) */
#define NVS_TOPO_BUSID_LEN 32   /* "0000:00:06.0"; NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE is 32 */
#define NVS_TOPO_NAME_LEN 96    /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define NVS_TOPO_CLS_LEN 12     /* a class name: "NV18", "PIX", ..., "NET", "?" */
/* Bounds of an hwloc XML (one host): the largest single-image GPU servers hold 16-20 GPUs (DGX-2: 16) and
 * their XML is a few MB. Above these an XML is refused with a message (exit 2): the pair matrix, its JSON and
 * the bound of every pair grow with the square of the GPU count (4096 GPUs took > 300 s, 2048 GPUs 4.7 GB). */
#define NVS_TOPO_MAX_GPUS_PER_HOST 256
/* GPUs of a gathered (many-host) topology or one read from a run.json (nvs_topo_alloc refuses more). Classes are
 * kept host by host (topo_store.c): 512 hosts of 8 GPUs and 8 NICs merge, write and read back in about 1.3 s
 * (2 cores; 35 s with the full matrices before 3 December 2026, results/cpu-topo-scale). A ring over every GPU
 * takes n^2 steps (0.75 s at this count), placement's greedy search N n^2 (95 s for half of them). */
#define NVS_TOPO_MAX_GPUS 4096
#define NVS_TOPO_MAX_XML_BYTES (64 << 20)
/* Network functions of one host: a few PFs and, with SR-IOV, up to 127 VFs each (ConnectX); the NIC-to-NIC
 * class matrix grows with the square */
#define NVS_TOPO_MAX_NICS_PER_HOST 1024
/* NVLinks between two GPUs, or from one GPU, as an NVLinkBandwidth value may claim: NVML_NVLINK_MAX_LINKS is
 * 18 on current drivers; a larger value is a broken (or hostile) XML, refused */
#define NVS_TOPO_MAX_LINKS_PER_GPU (NVS_TOPO_MAX_NVLINKS * 4)

typedef enum { NVS_REMOTE_UNKNOWN = 0, NVS_REMOTE_GPU, NVS_REMOTE_NVSWITCH, NVS_REMOTE_CPU } nvs_topo_remote;

typedef struct {
    int link;                /* NVML link index; offline (hwloc matrix): a running number */
    nvs_topo_remote remote;
    int remote_gpu;          /* index into gpus when remote == GPU and known, else -1 */
    char remote_pci_bus_id[NVS_TOPO_BUSID_LEN]; /* "" when unknown */
} nvs_topo_link;

typedef struct {
    int index;        /* position in nvs_topology.gpus */
    int host;         /* index into nvs_topology.hosts */
    int cuda_device;  /* CUDA ordinal on its host; -1 offline / not seen by CUDA */
    char name[NVS_TOPO_NAME_LEN];
    char pci_bus_id[NVS_TOPO_BUSID_LEN]; /* canonical "dddd:bb:dd.f", lower case */
    int numa_node;    /* -1 unknown or several */
    char cpuset[256]; /* CPU affinity as a list "0-31,64-95"; "" unknown */
    struct {
        int gen, width, max_gen, max_width; /* 0 = unknown; the maximum is NVML's: the GPU and its slot together */
        /* the GPU's own, whatever the slot (health/health.h nvs_health_pcie_own_max): the generation from
         * nvmlDeviceGetGpuMaxPcieLinkGeneration, the width from sysfs max_link_width; 0 unknown (an older driver,
         * no sysfs entry, offline, a run.json from before 6 December 2026) */
        int gpu_max_gen, gpu_max_width;
        double gbps;                        /* per direction, bound of this GPU's link; 0 = unknown */
        char gbps_source[96];
    } pcie;
    struct {
        int known;         /* 1: NVML answered, or the XML had an NVLinkBandwidth matrix */
        char why_unknown[128];
        int links_up;
        int version;       /* NVLink generation 1..5; 0 unknown (offline matrix: 2-4 unresolvable) */
        double gbps_per_link; /* per direction */
        double nvml_speed_gbps; /* NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON / 1000; 0 unknown */
        char rate_source[128];
        int to_switch;     /* links to NVSwitches */
        int to_cpu;        /* links to CPUs (POWER9 NPU) */
        int nlinks;
        nvs_topo_link links[NVS_TOPO_MAX_LINKS_PER_GPU]; /* offline matrices may list more peers */
    } nvlink;
    /* The network as this GPU reaches it (topo_nic.c): the NICs NCCL would spread its channels over, and the
     * NET bound that makes. Kept per GPU so that it travels with the GPU through gathers and subsets. */
    struct {
        double gbps;       /* bound per direction, GB/s; 0 unknown (no NIC, or a rate not known) */
        int nics;          /* NICs counted in gbps (0: no usable NIC on this host) */
        char cls[NVS_TOPO_CLS_LEN]; /* class of the path to the nearest NIC; "" none */
        char names[96];    /* the nearest NICs, "mlx5_0,mlx5_1" */
        char source[200];
    } net;
    nvs_topo_pcipath path; /* for classification; not in JSON */
} nvs_topo_gpu;

/* A network adapter: one PCI function with an OpenFabrics (RDMA: InfiniBand or RoCE) and/or a network OS
 * device, as hwloc lists them (osdev types OPENFABRICS = 3, NETWORK = 2 in hwloc 2.x). Named like the "NIC
 * Legend" of `nvidia-smi topo -m`: the RDMA device ("mlx5_0") when there is one, else the interface ("eth0"). */
typedef struct {
    int index;                 /* position in nvs_topology.nics */
    int host;                  /* index into nvs_topology.hosts */
    char name[32];
    char netdev[32];           /* the interface of the same function ("ib0", "ens1f0"); "" none */
    char kind[16];             /* "InfiniBand", "RoCE", "RDMA" (link layer unknown), "Ethernet", "Network" */
    char pci_bus_id[NVS_TOPO_BUSID_LEN];
    int numa_node;             /* -1 unknown */
    char state[16];            /* "ACTIVE", "DOWN", "UP", ...; "" unknown */
    double gbps;               /* line rate per direction in GB/s (Gbit/s / 8); 0 unknown */
    char rate[48];             /* as the source wrote it: "400 Gb/sec (4X NDR)", "100000 Mb/s"; "" unknown */
    char rate_source[96];      /* "sysfs /sys/class/infiniband/mlx5_0/ports/1/rate", "hwloc XML info LinkRate" */
    nvs_topo_pcipath path;     /* for classification; not in JSON */
} nvs_topo_nic;

typedef struct {
    char cls[12];       /* displayed class: "NV18", "PIX", ..., "NET", "?" */
    int nvlinks;
    char pcie_cls[8];   /* PCIe-only class ("PHB"), "" when unknown or across hosts */
    int p2p_cuda;       /* cudaDeviceCanAccessPeer both ways: 1 yes, 0 no, -1 unknown */
    char nvml_read[32]; /* nvmlDeviceGetP2PStatus(READ): "OK", "NS", "CNS", ... ; "" unknown */
} nvs_topo_pair;

typedef struct {
    char name[64];
    int numa_nodes, packages; /* 0 unknown */
    char machine[64];         /* a virtual host (--emulate-nodes): the machine it is part of; "" a real host */
} nvs_topo_host;

/* One host's share of the class storage (topo_store.c): its GPUs and NICs, and where its blocks start. */
typedef struct {
    int ngpus, nnics;
    size_t pair_off, gpu_nic_off, nic_nic_off;
} nvs_topo_block;

typedef struct nvs_topology {
    char source[4200]; /* "live" | "hwloc-xml:<path>" | "gathered" */
    int nhosts;
    nvs_topo_host *hosts;
    int ngpus;
    nvs_topo_gpu *gpus;
    double net_gbps;      /* bound for NET hops when given (overrides the NICs'); 0 = not given */
    int nnics;
    nvs_topo_nic *nics;
    char nvml_status[160]; /* "ok, driver 580.159.04" or "unsupported: <why>" */
    char cuda_status[160];
    /* Class storage, private to topo_store.c: read it with nvs_topo_pair_at and nvs_topo_*_class, write it with
     * the *_cell functions. Two GPUs, a GPU and a NIC, or two NICs of different hosts are always NET (no P2P, no
     * PCIe class), so only each host's blocks are kept: its GPUs squared, its GPUs x its NICs, its NICs squared.
     * The full matrices took ~64 bytes a GPU pair and 24 a GPU-NIC and NIC pair (about 1.4 GB at 4096 GPUs with
     * a NIC each), on every rank. */
    nvs_topo_pair *pairs;
    char *gpu_nic_cls, *nic_nic_cls; /* NVS_TOPO_CLS_LEN each */
    int *gpu_slot, *nic_slot;        /* place of each GPU / NIC among its host's */
    nvs_topo_block *blocks;          /* one per host (at least one); NULL until laid out */
} nvs_topology;

/* --- life cycle and discovery ----------------------------------------------------------------------------- */
/* hwloc_xml NULL: this machine (hwloc with PCI devices kept, NVML, CUDA). Else the saved hwloc 2.x XML only.
 * Bad or unreadable file, an XML version hwloc cannot read, no NVIDIA GPU: NVS_ERR_INPUT with one message
 * naming the file. Live with no GPU found: NVS_ERR_UNSUPPORTED with a message saying what was looked at. */
nvs_result_t nvs_topo_discover(const char *hwloc_xml, nvs_topology **out);
/* The offline half from an hwloc XML in memory (the fuzz harness; `name` for messages), as --hwloc-xml. */
nvs_result_t nvs_topo_discover_xml_buffer(const char *name, const char *buf, size_t len, nvs_topology **out);
void nvs_topo_free(nvs_topology *t);
/* --- storage (topo_store.c, PURE) ---------------------------------------------------------------------------- */
/* Allocation (gpus zeroed, each on host 0), used by discovery, JSON reading, merging and tests. With one host the
 * classes are laid out at once ("?" everywhere); with more, the caller sets every GPU's and NIC's host and then
 * calls nvs_topo_layout. NULL when out of memory or ngpus > NVS_TOPO_MAX_GPUS. */
nvs_topology *nvs_topo_alloc(int nhosts, int ngpus);
/* n NICs (zeroed, on host 0); with the classes laid out already (one host), their NIC classes too ("?").
 * 0 or NVS_ERR_NOMEM. */
nvs_result_t nvs_topo_alloc_nics(nvs_topology *t, int n);
/* (Re)lays out every class from the GPUs' and NICs' hosts, "?" everywhere (what was stored is dropped). The hosts
 * must not change afterwards. NVS_ERR_INPUT when a host index is out of range, NVS_ERR_NOMEM. */
nvs_result_t nvs_topo_layout(nvs_topology *t);
/* Writable cells: NULL out of range, before the layout, or for two of different hosts (always NET). */
nvs_topo_pair *nvs_topo_pair_cell(nvs_topology *t, int a, int b);
char *nvs_topo_gpu_nic_cell(nvs_topology *t, int gpu, int nic);
char *nvs_topo_nic_nic_cell(nvs_topology *t, int a, int b);
/* Fills every pair's class from paths and NVLink data, then the NIC classes and each GPU's NET bound
 * (nvs_topo_nic_assign). Called by discovery; exposed for tests. */
void nvs_topo_classify_all(nvs_topology *t);
/* A new topology with only GPUs keep[0..n-1] (in that order; NVLink peers left out become -1), every host and
 * NIC kept. NULL when out of memory or an index is out of range. */
nvs_topology *nvs_topo_subset(const nvs_topology *t, const int *keep, int n);

/* Every rank passes its host's topology (or NULL: nothing to add, e.g. ranks other than local rank 0); ranks
 * on one host are deduplicated by the runtime's node number. EVERY rank gets the merged topology (hosts in node
 * order, GPUs host by host; pairs on different hosts are NET). Serialized with nvs_topo_to_json and sent with
 * nvs_allgather (sizes first, then buffers padded to the largest). */
nvs_result_t nvs_topo_gather(nvs_rt *rt, const nvs_topology *local, nvs_topology **global);
/* The merge itself (PURE): parts[i] may be NULL. */
nvs_result_t nvs_topo_merge(nvs_topology *const *parts, int nparts, nvs_topology **out);
/* This rank's host's topology, for gathering: local rank 0 of each host discovers (NULL on the other ranks).
 * COLLECTIVE (every rank calls it). Under --emulate-nodes a virtual host keeps only the GPUs its own ranks drive
 * (their bus ids, `my_bus_id` of each rank; where a rank passes NULL or "", its CUDA ordinal rt->device), takes
 * the virtual host's name and records its machine, so that the gather sees K hosts of the GPUs they really use.
 * Returns the discovering rank's result (NVS_OK elsewhere); callers agree on it. */
nvs_result_t nvs_topo_discover_host(nvs_rt *rt, const char *my_bus_id, nvs_topology **local);

/* --- NICs (topo_nic.c, PURE) ------------------------------------------------------------------------------- */
/* GPU-NIC and NIC-NIC classes from the PCIe paths (the rule of nvs_topo_classify_pcie; NET across hosts), then
 * every GPU's net.* : the NICs NCCL would use for it and the bound they make (see topo_nic.c). */
void nvs_topo_nic_assign(nvs_topology *t);
/* (topo_store.c) NULL out of range; "NET" across hosts; nic_nic "X" when a == b */
const char *nvs_topo_gpu_nic_class(const nvs_topology *t, int gpu, int nic);
const char *nvs_topo_nic_nic_class(const nvs_topology *t, int a, int b);
/* A link rate as Linux sysfs writes it for an IB port ("400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)") or as
 * "<n> Gb/s" / "<n> Mb/s": GB/s per direction (Gbit/s / 8), 0 when not a rate. */
double nvs_topo_parse_rate(const char *text);
/* IB port state as sysfs ("4: ACTIVE") or hwloc's Port<i>State ("4") writes it -> "ACTIVE" etc.; "" unknown. */
void nvs_topo_ib_state(const char *text, char *out, size_t len);

/* --- JSON (docs/run-json.md "topology") ------------------------------------------------------------------- */
json_t *nvs_topo_to_json(const nvs_topology *t);
nvs_result_t nvs_topo_from_json(const json_t *j, nvs_topology **out, char *err, size_t errlen);

/* --- lookups ---------------------------------------------------------------------------------------------- */
/* Index of the GPU with that bus id (case-insensitive; "00000000:00:06.0" == "0000:00:06.0"), on host `host`
 * (NULL: any host). -1 if none. */
int nvs_topo_find_gpu(const nvs_topology *t, const char *host, const char *pci_bus_id);
const char *nvs_topo_gpu_name(const nvs_topology *t, int i);
const char *nvs_topo_gpu_busid(const nvs_topology *t, int i);
const char *nvs_topo_gpu_host(const nvs_topology *t, int i);
const char *nvs_topo_pair_class(const nvs_topology *t, int a, int b); /* "X" when a == b, NULL out of range */
/* (topo_store.c) NULL out of range; two GPUs of different hosts get one shared NET pair (no NVLink, no PCIe
 * class, no CUDA P2P) */
const nvs_topo_pair *nvs_topo_pair_at(const nvs_topology *t, int a, int b);
/* Canonical bus id: lower case, 4-digit domain when the domain fits ("00000000:00:06.0" -> "0000:00:06.0").
 * 0 on success, -1 when `in` is not a bus id. */
int nvs_topo_busid_normalize(const char *in, char *out, size_t len);

/* --- bounds (PURE, topo_bounds.c) -------------------------------------------------------------------------- */
typedef struct {
    int from_gpu, to_gpu;
    char cls[12];
    char link[16];      /* "NVLink", "PCIe", "host memory", "network", "none" */
    double bound_gbps;  /* < 0: unknown */
    char source[400];
} nvs_topo_hop;

/* PCIe data rate per direction of one link, GB/s: lanes x transfer rate x encoding efficiency / 8.
 * 0 when gen or width is unknown. */
double nvs_topo_pcie_gbps(int gen, int width);
/* Per-link, per-direction NVLink rate for a generation; 0 if unknown. `source` gets where it comes from. */
double nvs_topo_nvlink_gbps(int version, char *source, size_t len);
/* The NVLink generation a GPU model name says (2..5: "NVIDIA H100 80GB HBM3", "GH100 [H100 SXM5 80GB]" -> 4), by
 * a whole word of it that names one product of one generation; 0 when no word does, or words of two do. For an
 * offline matrix, which does not say the generation (hwloc writes 25000 MB/s a link for NVLink 2, 3 and 4). */
int nvs_topo_nvlink_version_of_model(const char *name);
/* Bound of a copy a -> b, GB/s per direction; < 0 when unknown (NET without net_gbps, no link data).
 * p2p_allowed = 0 (or P2P known unsupported): the host-memory (SHM) path. source/len may be NULL/0. */
double nvs_topo_pair_bound_gbps(const nvs_topology *t, int a, int b, int p2p_allowed, char *source, size_t len);
/* Same, with the link kind and class of the hop. */
double nvs_topo_pair_hop(const nvs_topology *t, int a, int b, int p2p_allowed, nvs_topo_hop *hop);
/* Bottleneck of the best ring over gpus[0..n-1] (exact for n <= 16 by a bitmask search, greedy beyond).
 * *slowest (may be NULL) gets the bottleneck hop. Returns its bound (< 0 unknown; 0 and link "none" for n < 2).
 * ring_order (may be NULL, n entries) gets the ring's order. */
double nvs_topo_ring_bound_gbps(const nvs_topology *t, const int *gpus, int n, int p2p_allowed,
                                nvs_topo_hop *slowest);
double nvs_topo_ring_bound_order(const nvs_topology *t, const int *gpus, int n, int p2p_allowed,
                                 nvs_topo_hop *slowest, int *ring_order);
/* The n GPUs (indices, ascending, into out[n]) whose best ring has the highest (best = 1) or lowest (best = 0)
 * bottleneck; exhaustive when the search is small enough, else greedy; ties go to the lowest indices.
 * Returns 0, or -1 when n < 1 or n > number of GPUs. */
int nvs_topo_pick_gpus(const nvs_topology *t, int n, int best, int *out);

/* --- printing (topo_print.c) ------------------------------------------------------------------------------ */
/* Per-GPU details, the class matrix like `nvidia-smi topo -m`, the P2P matrix, the bound matrix, a legend. */
void nvs_topo_print(const nvs_topology *t, FILE *to);
/* Only the class matrix (with CPU/NUMA affinity columns; NIC columns, NIC rows and the NIC Legend). */
void nvs_topo_print_matrix(const nvs_topology *t, FILE *to);
/* The GPU rows only (NIC columns kept) and the NIC names on one line: for one-screen summaries. */
void nvs_topo_print_matrix_brief(const nvs_topology *t, FILE *to);
void nvs_topo_print_csv(const nvs_topology *t, FILE *to);

#endif
