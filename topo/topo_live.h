/* Internal interfaces of topology discovery: one source per file (hwloc, NVML, CUDA), combined by
 * topo_discover.c. Not for use outside topo/. */
#ifndef NVS_TOPO_LIVE_H
#define NVS_TOPO_LIVE_H

#include "topo/topo.h"

/* hwloc (topo_hwloc.c): the GPUs of this machine (xml == NULL) or of a saved XML, ordered by PCI bus id, with
 * name, NUMA node, cpuset, PCIe ancestry, hwloc's link speed and, when the XML/topology has hwloc's
 * NVLinkBandwidth matrix, the NVLink counts. One host. NVS_ERR_INPUT with a message in err when the topology
 * cannot be loaded. Zero GPUs is not an error here. */
nvs_result_t nvs_topo_hwloc_load(const char *xml, nvs_topology **out, char *err, size_t errlen);
/* The same from an XML held in memory (len bytes, at most NVS_TOPO_MAX_XML_BYTES); `name` for messages. */
nvs_result_t nvs_topo_hwloc_load_buffer(const char *name, const char *buf, size_t len, nvs_topology **out, char *err,
                                        size_t errlen);

/* Link layer, port state and rate of a NIC found live, from sysfs under `root` ("/sys"; a fake tree in tests)
 * (topo_nic_sysfs.c). rdma: nic->name is an RDMA device (/sys/class/infiniband/<name>). Leaves what it cannot
 * read as it was. */
void nvs_topo_nic_sysfs(const char *root, nvs_topo_nic *nic, int rdma);
/* The PCIe width the device `busid` ("0000:00:06.0") is built for, whatever its slot: root/bus/pci/devices/<busid>/
 * max_link_width (the device's Link Capabilities), -1 when sysfs does not have it (topo_pci_sysfs.c). root is "/sys"
 * live, NVS_TEST_SYSFS_ROOT's tree in tests. */
int nvs_topo_pci_max_link_width(const char *root, const char *busid);
/* Where sysfs is: NVS_TEST_SYSFS_ROOT when set and not empty (a fake tree in tests, validated in cli/options.c),
 * else "/sys". */
const char *nvs_topo_sysfs_root(void);
int nvs_topo_pci_width_parse(const char *s); /* "16\n" -> 16, -1 when not a PCIe link width */

/* NVML (topo_nvml.c), loaded with dlopen: a missing library or symbol is "unsupported", never a crash. */
typedef struct nvs_nvml nvs_nvml;
/* NVS_ERR_UNSUPPORTED with the reason in why (no library, a symbol missing, nvmlInit failed). */
nvs_result_t nvs_nvml_open(nvs_nvml **out, char *why, size_t len);
void nvs_nvml_close(nvs_nvml *n);
const char *nvs_nvml_driver_version(const nvs_nvml *n); /* "" unknown */
/* For other NVML readers of topo/ (health_nvml.c): a symbol of the loaded library (NULL = this library lacks
 * it: unsupported), NVML's text for a return code, and the handle of the GPU with that bus id (-1 with why). */
void *nvs_nvml_symbol(nvs_nvml *n, const char *name);
const char *nvs_nvml_error_text(nvs_nvml *n, int r);
struct nvs_nvmlDevice_st;
int nvs_nvml_device(nvs_nvml *n, const char *bus, struct nvs_nvmlDevice_st **dev, char *why, size_t len);
/* Fills name, PCIe generation/width and NVLink data of the GPU with g->pci_bus_id. Links get their remote bus
 * ids; remote_gpu is resolved by the caller. -1 with why when NVML does not know the GPU. */
int nvs_nvml_fill_gpu(nvs_nvml *n, nvs_topo_gpu *g, char *why, size_t len);
/* nvmlDeviceGetP2PStatus(READ) between two GPUs as nvidia-smi's code ("OK", "CNS", "GNS", "TNS", "DIS", "NS",
 * "U"); "" when NVML cannot answer. */
void nvs_nvml_p2p_status(nvs_nvml *n, const char *bus_a, const char *bus_b, char *out, size_t len);

/* CUDA (topo_cuda.c): GPUs CUDA sees (CUDA_VISIBLE_DEVICES honoured), in ordinal order. Returns the count
 * (0 = none) or -1 with why (no driver, ...). busids[i] gets each device's PCI bus id, names[i] its name. */
int nvs_cuda_list(char (*busids)[NVS_TOPO_BUSID_LEN], char (*names)[NVS_TOPO_NAME_LEN], int max, char *why,
                  size_t len);
/* cudaDeviceCanAccessPeer(a -> b): 1, 0, or -1 when CUDA cannot answer. */
int nvs_cuda_can_access_peer(int a, int b);

/* Every rank contributes a byte string (len may be 0); every rank gets all of them, rank order, each
 * NUL-terminated: (*all)[r], lengths (*lens)[r]. Sizes go first, then buffers padded to the largest, both with
 * nvs_allgather. Free with nvs_blobs_free(*all, rt->size) and free(*lens). */
nvs_result_t nvs_allgather_blobs(nvs_rt *rt, const char *mine, size_t len, char ***all, size_t **lens,
                                 const char *what);
void nvs_blobs_free(char **all, int n);

#endif
