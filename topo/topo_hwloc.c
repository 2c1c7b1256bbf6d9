/* hwloc part of discovery: NUMA node, CPU affinity and PCIe ancestry of every NVIDIA GPU, from this machine or
 * from a saved hwloc 2.x XML, plus NVLink counts from the "NVLinkBandwidth" distance matrix that hwloc's NVML
 * backend writes (hwloc/topology-nvml.c: 20000 MB/s per NVLink1 link, 25000 per NVLink 2-4 link, since hwloc
 * 2.12 50000 per NVLink5 link, 1000000 on the diagonal; the matrix lists the GPUs' "nvml" OS devices plus NVSwitch PCI
 * devices or CPU objects).
 *
 * A GPU is a PCI device of class 03xx and vendor 0x10de. Without a CUDA/NVML backend hwloc keeps only the PCI
 * objects (the reference h200x2 XML is like that), so PCI devices are the one source; the I/O type filter is set
 * to KEEP_ALL before loading or hwloc drops them (and with them bridges). */
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "topo/topo_live.h"

#define NVIDIA_VENDOR 0x10de

static int is_nvidia_gpu(hwloc_obj_t o)
{
    return o->type == HWLOC_OBJ_PCI_DEVICE && o->attr->pcidev.vendor_id == NVIDIA_VENDOR &&
           (o->attr->pcidev.class_id >> 8) == 0x03;
}

/* NVSwitch: "class 0680 with prog-if 01 vendor 10de" (hwloc topology-nvml.c); the base class is enough. */
static int is_nvswitch(hwloc_obj_t o)
{
    return o->type == HWLOC_OBJ_PCI_DEVICE && o->attr->pcidev.vendor_id == NVIDIA_VENDOR &&
           (o->attr->pcidev.class_id >> 8) == 0x06;
}

static void busid_of(hwloc_obj_t o, char *buf, size_t len)
{
    snprintf(buf, len, "%04x:%02x:%02x.%x", o->attr->pcidev.domain, o->attr->pcidev.bus, o->attr->pcidev.dev,
             o->attr->pcidev.func);
}

static void gpu_name(hwloc_obj_t pci, char *buf, size_t len)
{
    /* an OS device of the CUDA/NVML/OpenCL backends knows the model; else pci.ids' name; else the ids */
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
        const char *m = hwloc_obj_get_info_by_name(c, "GPUModel");
        if (m && *m) {
            snprintf(buf, len, "%s", m);
            return;
        }
    }
    const char *d = hwloc_obj_get_info_by_name(pci, "PCIDevice");
    if (d && *d)
        snprintf(buf, len, "%s", d);
    else
        snprintf(buf, len, "NVIDIA GPU [%04x:%04x]", pci->attr->pcidev.vendor_id, pci->attr->pcidev.device_id);
}

/* PCIe ancestry and locality of a PCI device (GPU or NIC); cpuset may be NULL. */
static void fill_pci_path(hwloc_topology_t topo, hwloc_obj_t pci, nvs_topo_pcipath *p, int *numa_node, char *cpuset,
                          size_t cpuset_len)
{
    memset(p, 0, sizeof *p);
    for (hwloc_obj_t o = pci->parent; o && o->type == HWLOC_OBJ_BRIDGE && p->n < NVS_TOPO_MAX_DEPTH; o = o->parent) {
        p->bridge[p->n] = o->gp_index;
        p->is_host[p->n] = o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
        p->n++;
    }
    hwloc_obj_t cpu = hwloc_get_non_io_ancestor_obj(topo, pci);
    if (p->n == 0 && cpu && p->n < NVS_TOPO_MAX_DEPTH) {
        /* no bridge at all above the GPU: the CPU-side object stands in for the host bridge */
        p->bridge[0] = (1ull << 63) | cpu->gp_index;
        p->is_host[0] = 1;
        p->n = 1;
    }
    p->numa_node = -1;
    *numa_node = -1;
    if (cpu) {
        p->cpu_parent = cpu->gp_index + 1;
        if (cpu->nodeset && hwloc_bitmap_weight(cpu->nodeset) == 1)
            *numa_node = p->numa_node = hwloc_bitmap_first(cpu->nodeset);
        if (cpuset && cpu->cpuset && !hwloc_bitmap_iszero(cpu->cpuset) &&
            hwloc_bitmap_list_snprintf(cpuset, cpuset_len, cpu->cpuset) < 0)
            cpuset[0] = '\0'; /* unknown, never half a list */
    }
}

static void fill_path(hwloc_topology_t topo, hwloc_obj_t pci, nvs_topo_gpu *g)
{
    fill_pci_path(topo, pci, &g->path, &g->numa_node, g->cpuset, sizeof g->cpuset);
}

/* --- NICs -------------------------------------------------------------------------------------------------- */

/* hwloc 2.x: osdev.type is one enum value (NETWORK = 2, OPENFABRICS = 3); hwloc 3.0 makes it a bit mask
 * (osdev.types; an HCA is NETWORK|OPENFABRICS). nvscale builds against 2.x (Debian 12: 2.9, Ubuntu 24.04: 2.10);
 * the 3.0 branch follows hwloc 3.0's hwloc.h and is not built here. */
static int osdev_is(hwloc_obj_t o, hwloc_obj_osdev_type_t type)
{
    if (o->type != HWLOC_OBJ_OS_DEVICE) return 0;
#if HWLOC_API_VERSION >= 0x00030000
    return (o->attr->osdev.types & type) != 0;
#else
    return o->attr->osdev.type == type;
#endif
}

/* A network adapter function: PCI base class 02 (network controller: 0200 Ethernet, 0207 InfiniBand) with an
 * OpenFabrics or network OS device below it. Network OS devices elsewhere (USB adapters under their host
 * controller, virtual devices hwloc lists with HWLOC_VIRTUAL_LINUX_OSDEV) have no PCIe position to classify. */
static int nic_function(hwloc_obj_t pci, hwloc_obj_t *rdma, hwloc_obj_t *net)
{
    *rdma = *net = NULL;
    if (pci->type != HWLOC_OBJ_PCI_DEVICE || (pci->attr->pcidev.class_id >> 8) != 0x02) return 0;
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
        if (!*rdma && osdev_is(c, HWLOC_OBJ_OSDEV_OPENFABRICS)) *rdma = c;
        else if (!*net && osdev_is(c, HWLOC_OBJ_OSDEV_NETWORK)) *net = c;
    }
    return *rdma || *net;
}

/* The offline link rate: hwloc records none, so it comes from an info attribute the user adds, e.g.
 * `hwloc-annotate in.xml out.xml os=mlx5_0 info LinkRate "400 Gb/sec (4X NDR)"` (sysfs's format). */
static void xml_rate(hwloc_obj_t o, nvs_topo_nic *nic)
{
    const char *r = o ? hwloc_obj_get_info_by_name(o, "LinkRate") : NULL;
    double g = nvs_topo_parse_rate(r);
    if (g <= 0 || nic->gbps > 0) return;
    nic->gbps = g;
    snprintf(nic->rate, sizeof nic->rate, "%s", r);
    snprintf(nic->rate_source, sizeof nic->rate_source, "hwloc XML: info LinkRate of %.40s", o->name);
}

static void fill_nic(hwloc_topology_t topo, hwloc_obj_t pci, hwloc_obj_t rdma, hwloc_obj_t net, int live,
                     nvs_topo_nic *nic)
{
    snprintf(nic->name, sizeof nic->name, "%s", rdma ? rdma->name : net->name);
    if (net) snprintf(nic->netdev, sizeof nic->netdev, "%s", net->name);
    busid_of(pci, nic->pci_bus_id, sizeof nic->pci_bus_id);
    fill_pci_path(topo, pci, &nic->path, &nic->numa_node, NULL, 0);
    /* the link layer offline: the function's PCI class (a VPI adapter reports 0207 in InfiniBand mode and
     * 0200 in Ethernet mode); live, sysfs's link_layer below replaces it */
    unsigned cls = pci->attr->pcidev.class_id;
    snprintf(nic->kind, sizeof nic->kind, "%s",
             rdma ? (cls == 0x0207 ? "InfiniBand" : cls == 0x0200 ? "RoCE" : "RDMA")
                  : (cls == 0x0207 ? "InfiniBand" : cls == 0x0200 ? "Ethernet" : "Network"));
    if (rdma) nvs_topo_ib_state(hwloc_obj_get_info_by_name(rdma, "Port1State"), nic->state, sizeof nic->state);
    if (live)
        nvs_topo_nic_sysfs("/sys", nic, rdma != NULL);
    else {
        xml_rate(rdma, nic);
        xml_rate(net, nic);
    }
}

static int cmp_nic(const void *a, const void *b)
{
    const nvs_topo_nic *x = a, *y = b;
    int c = strcmp(x->pci_bus_id, y->pci_bus_id);
    return c ? c : strcmp(x->name, y->name);
}

static nvs_result_t read_nics(hwloc_topology_t topo, nvs_topology *t, int live)
{
    int n = 0;
    hwloc_obj_t rdma, net;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));) n += nic_function(o, &rdma, &net);
    if (!n) return NVS_OK;
    if (n > NVS_TOPO_MAX_NICS_PER_HOST) return NVS_ERR_INPUT; /* the caller says so */
    NVS_CHECK(nvs_topo_alloc_nics(t, n));
    int i = 0;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o)) && i < n;)
        if (nic_function(o, &rdma, &net)) fill_nic(topo, o, rdma, net, live, &t->nics[i++]);
    qsort(t->nics, (size_t)n, sizeof *t->nics, cmp_nic);
    for (int k = 0; k < n; k++) t->nics[k].index = k;
    return NVS_OK;
}

/* index of our GPU that hwloc object `o` stands for (an OS device below its PCI device, or the PCI device) */
static int gpu_of(const nvs_topology *t, hwloc_obj_t o)
{
    if (o->type == HWLOC_OBJ_OS_DEVICE && o->parent && o->parent->type == HWLOC_OBJ_PCI_DEVICE) o = o->parent;
    if (!is_nvidia_gpu(o)) return -1;
    char b[NVS_TOPO_BUSID_LEN];
    busid_of(o, b, sizeof b);
    return nvs_topo_find_gpu(t, NULL, b);
}

static void add_link(nvs_topo_gpu *g, nvs_topo_remote r, int remote_gpu, const char *busid)
{
    nvs_topo_link *l = &g->nvlink.links[g->nvlink.nlinks];
    l->link = g->nvlink.nlinks++;
    l->remote = r;
    l->remote_gpu = remote_gpu;
    snprintf(l->remote_pci_bus_id, sizeof l->remote_pci_bus_id, "%s", busid ? busid : "");
}

/* Matrix M's values between two GPUs should agree both ways: an NVLink joins both ends, and hwloc's NVML backend
 * records each GPU's active links from that GPU. When they differ, a link is up at one end and down at the other
 * (a degraded link, which is what an acceptance run must show, not refuse) or the XML was edited; each GPU keeps
 * its own row, as read, and the user is told which pair and both values. GIDX: our GPU of each object (-1: an
 * NVSwitch or CPU, whose row hwloc leaves empty). */
static void nvlink_asymmetry_warn(const struct hwloc_distances_s *m, const int *gidx, const nvs_topology *t,
                                  const char *xml)
{
    unsigned n = m->nbobjs;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n; j++) {
            hwloc_uint64_t there = m->values[(size_t)i * n + j], back = m->values[(size_t)j * n + i];
            if (gidx[i] < 0 || gidx[j] < 0 || there == back) continue;
            nvs_warn("%s%sNVLinkBandwidth: %llu MB/s from GPU %s to %s but %llu MB/s back: a link is up at one end "
                     "and not the other (or the XML was edited); each GPU's links are shown as it reports them",
                     xml ? xml : "", xml ? ": " : "", (unsigned long long)there, t->gpus[gidx[i]].pci_bus_id,
                     t->gpus[gidx[j]].pci_bus_id, (unsigned long long)back);
        }
}

/* The NVLinkBandwidth matrix into links. Its values are checked: a pair or a GPU with more links than any
 * NVLink generation has (NVS_TOPO_MAX_LINKS_PER_GPU) makes the XML invalid (NVS_ERR_INPUT, message in err):
 * 53687091200000 MB/s once became "-2147483648 links up". */
static nvs_result_t read_nvlink_matrix(hwloc_topology_t topo, const char *xml, nvs_topology *t, char *err,
                                       size_t errlen)
{
    struct hwloc_distances_s *d[4];
    unsigned nr = 4;
    if (hwloc_distances_get_by_name(topo, "NVLinkBandwidth", &nr, d, 0) != 0) {
        /* not "no matrix": hwloc could not read one (out of memory); the NVLink counts stay unknown and say why */
        const char *e = strerror(errno);
        for (int i = 0; i < t->ngpus; i++)
            snprintf(t->gpus[i].nvlink.why_unknown, sizeof t->gpus[i].nvlink.why_unknown,
                     "hwloc_distances_get_by_name(NVLinkBandwidth) failed: %.60s", e);
        nvs_warn("hwloc_distances_get_by_name(NVLinkBandwidth) failed: %s; NVLink counts unknown", e);
        return NVS_OK;
    }
    if (nr == 0) return NVS_OK;
    if (nr > 4) nr = 4;
    nvs_result_t res = NVS_OK;
    for (unsigned m = 0; m < nr; m++) {
        unsigned n = d[m]->nbobjs;
        int *gidx = malloc(sizeof(int) * (n ? n : 1)); /* our GPU of each object, found once: O(n) lookups */
        if (!gidx) {
            snprintf(err, errlen, "out of memory");
            res = NVS_ERR_NOMEM;
        }
        for (unsigned j = 0; res == NVS_OK && j < n; j++) gidx[j] = gpu_of(t, d[m]->objs[j]);
        for (unsigned i = 0; res == NVS_OK && i < n; i++) {
            int gi = gidx[i];
            if (gi < 0) continue;
            nvs_topo_gpu *g = &t->gpus[gi];
            /* a GPU listed twice (an edited index list) gave it the links of both rows, to itself */
            for (unsigned j = 0; j < i && res == NVS_OK; j++)
                if (gidx[j] == gi) {
                    snprintf(err, errlen, "%s%sNVLinkBandwidth lists GPU %s twice; not a valid hwloc XML",
                             xml ? xml : "", xml ? ": " : "", g->pci_bus_id);
                    res = NVS_ERR_INPUT;
                }
            if (res != NVS_OK) break;
            /* one unit per GPU: 25000 MB/s (NVLink 2-4) unless only 20000 (NVLink1) divides the row. hwloc 2.12
             * and later write 50000 per NVLink5 link (NEWS 2.12.0: "Update NVLink bandwidth ... up to NVIDIA
             * Blackwell"), which is also two NVLink 2-4 links: a row that at 25000 would give the GPU more links
             * than any GPU has (NVS_TOPO_MAX_NVLINKS) and at 50000 does not is NVLink5 (an 18-link Blackwell box read
             * "36 links up", NV36); more than that is refused below at 25000. A Blackwell GPU with half its links down
             * or fewer stays ambiguous and reads as NVLink 2-4. */
            int all25 = 1, all20 = 1, all50 = 1;
            double at25 = 0;
            for (unsigned j = 0; j < n; j++) {
                hwloc_uint64_t v = d[m]->values[(size_t)i * n + j];
                if (j == i || !v) continue;
                all25 &= v % 25000 == 0;
                all20 &= v % 20000 == 0;
                all50 &= v % 50000 == 0;
                at25 += (double)v / 25000;
            }
            int nvl5 =
                all50 && at25 > NVS_TOPO_MAX_NVLINKS && at25 <= 2 * NVS_TOPO_MAX_NVLINKS; /* else: no GPU at all */
            unsigned unit = !all25 && all20 ? 20000 : nvl5 ? 50000 : 25000;
            g->nvlink.known = 1;
            g->nvlink.version = unit == 20000 ? 1 : unit == 50000 ? 5 : 0;
            g->nvlink.gbps_per_link = unit / 1000.0;
            snprintf(g->nvlink.rate_source, sizeof g->nvlink.rate_source,
                     unit == 20000   ? "hwloc NVLinkBandwidth matrix: 20000 MB/s per link (NVLink1)"
                     : unit == 50000 ? "hwloc NVLinkBandwidth matrix: 50000 MB/s per link (NVLink5: at 25000 the GPU "
                                       "would have more links than any GPU)"
                                     : "hwloc NVLinkBandwidth matrix: 25000 MB/s per link (NVLink 2-4; the XML does "
                                       "not say which)");
            /* hwloc's 25000 is NVIDIA's nominal 900 GB/s / 18 / 2 (topology-nvml.c, open-mpi/hwloc#574), below
             * what an NVLink4 link carries (26.5625 GB/s, topo_bounds.c): an NV18 H100 pair read 450 GB/s where
             * 478 is the bound. The GPU model (hwloc's GPUModel, or pci.ids' name) says the generation where it
             * names one and the matrix agrees with it (NVLink 2-4 in 25000s, NVLink5 in 50000s, which also settles
             * a Blackwell GPU with half its links down); else the matrix's reading above stands. */
            int mv = nvs_topo_nvlink_version_of_model(g->name);
            if ((mv >= 2 && mv <= 4 && unit == 25000 && all25) || (mv == 5 && all50)) {
                char table[96];
                unit = mv == 5 ? 50000 : 25000;
                g->nvlink.version = mv;
                g->nvlink.gbps_per_link = nvs_topo_nvlink_gbps(mv, table, sizeof table);
                snprintf(g->nvlink.rate_source, sizeof g->nvlink.rate_source, "GPU model %.24s: %.90s", g->name,
                         table);
            }
            for (unsigned j = 0; j < n; j++) {
                hwloc_uint64_t v = d[m]->values[(size_t)i * n + j];
                if (j == i || !v) continue;
                /* rounded to whole links without overflow (v may be anything up to 2^64 - 1) */
                hwloc_uint64_t lk = v / unit + (v % unit >= unit / 2);
                hwloc_obj_t o = d[m]->objs[j];
                int gj = gidx[j];
                hwloc_obj_t pci = o->type == HWLOC_OBJ_OS_DEVICE ? o->parent : o;
                char bus[NVS_TOPO_BUSID_LEN] = "";
                if (pci && pci->type == HWLOC_OBJ_PCI_DEVICE) busid_of(pci, bus, sizeof bus);
                if (lk > (hwloc_uint64_t)(NVS_TOPO_MAX_LINKS_PER_GPU - g->nvlink.nlinks)) {
                    snprintf(err, errlen,
                             "%s%sNVLinkBandwidth: %llu MB/s from GPU %s to %s is %llu NVLinks (%d more already): a "
                             "GPU has at most %d; not a valid hwloc XML",
                             xml ? xml : "", xml ? ": " : "", (unsigned long long)v, g->pci_bus_id,
                             bus[0] ? bus : "another object", (unsigned long long)lk, g->nvlink.nlinks,
                             NVS_TOPO_MAX_LINKS_PER_GPU);
                    res = NVS_ERR_INPUT;
                    break;
                }
                int links = (int)lk;
                nvs_topo_remote r = gj >= 0                                      ? NVS_REMOTE_GPU
                                    : pci && pci->type == HWLOC_OBJ_PCI_DEVICE && is_nvswitch(pci) ? NVS_REMOTE_NVSWITCH
                                    : o->cpuset                                  ? NVS_REMOTE_CPU
                                                                                 : NVS_REMOTE_UNKNOWN;
                for (int k = 0; k < links; k++) add_link(g, r, gj, bus);
                g->nvlink.links_up += links;
                if (r == NVS_REMOTE_NVSWITCH) g->nvlink.to_switch += links;
                if (r == NVS_REMOTE_CPU) g->nvlink.to_cpu += links;
            }
        }
        if (res == NVS_OK) nvlink_asymmetry_warn(d[m], gidx, t, xml);
        free(gidx);
        hwloc_distances_release(topo, d[m]);
    }
    return res;
}

static int cmp_gpu_bus(const void *a, const void *b)
{
    return strcmp(((const nvs_topo_gpu *)a)->pci_bus_id, ((const nvs_topo_gpu *)b)->pci_bus_id);
}

/* xml: NULL for this machine, else the name of the XML (a file, or what buf holds: len bytes) */
static nvs_result_t hwloc_load(const char *xml, const char *buf, size_t len, nvs_topology **out, char *err,
                               size_t errlen)
{
    hwloc_topology_t topo;
    nvs_topology *t = NULL;
    *out = NULL;
    if (hwloc_topology_init(&topo) != 0) {
        snprintf(err, errlen, "hwloc_topology_init failed: %s", strerror(errno));
        return NVS_ERR_HWLOC;
    }
    nvs_result_t res = NVS_OK;
    if (hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL) != 0) {
        snprintf(err, errlen, "hwloc_topology_set_io_types_filter failed: %s", strerror(errno));
        res = NVS_ERR_HWLOC;
        goto out;
    }
    /* Live: hwloc's OpenCL and display backends add nothing we read and can take seconds to start; a plugin
     * that is not installed makes this a no-op. */
    if (!xml)
        for (const char *const *c = (const char *const[]){"opencl", "gl", "levelzero", "rsmi", NULL}; *c; c++)
            if (hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, *c) != 0)
                nvs_debug("hwloc: cannot blacklist component %s: %s", *c, strerror(errno));
    if (xml && (buf ? len > NVS_TOPO_MAX_XML_BYTES || hwloc_topology_set_xmlbuffer(topo, buf, (int)len) != 0
                    : hwloc_topology_set_xml(topo, xml) != 0)) {
        snprintf(err, errlen,
                 "%s: not a valid hwloc XML topology (hwloc: %s; HWLOC_XML_VERBOSE=1 shows hwloc's reason)", xml,
                 strerror(errno));
        res = NVS_ERR_INPUT;
        goto out;
    }
    errno = 0;
    if (hwloc_topology_load(topo) != 0) {
        /* some refusals set no errno (an XML without a NUMA node: hwloc prints its reason itself); "failed:
         * Success" said nothing */
        const char *why = errno ? strerror(errno) : "no error code";
        if (xml)
            snprintf(err, errlen,
                     "%s: not a valid hwloc XML topology (hwloc_topology_load failed: %s; HWLOC_XML_VERBOSE=1 "
                     "shows hwloc's reason)",
                     xml, why);
        else
            snprintf(err, errlen, "hwloc_topology_load failed: %s", why);
        res = xml ? NVS_ERR_INPUT : NVS_ERR_HWLOC;
        goto out;
    }
    int ngpus = 0;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));) ngpus += is_nvidia_gpu(o);
    if (ngpus > NVS_TOPO_MAX_GPUS_PER_HOST) {
        snprintf(err, errlen, "%s%s%d NVIDIA GPUs: more than the %d of any single host (topo/topo.h); not "
                 "read", xml ? xml : "", xml ? ": " : "", ngpus, NVS_TOPO_MAX_GPUS_PER_HOST);
        res = xml ? NVS_ERR_INPUT : NVS_ERR_UNSUPPORTED;
        goto out;
    }
    t = nvs_topo_alloc(1, ngpus);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        res = NVS_ERR_NOMEM;
        goto out;
    }
    hwloc_obj_t root = hwloc_get_root_obj(topo);
    const char *hn = hwloc_obj_get_info_by_name(root, "HostName");
    if (hn && *hn)
        snprintf(t->hosts[0].name, sizeof t->hosts[0].name, "%s", hn);
    else if (!xml && gethostname(t->hosts[0].name, sizeof t->hosts[0].name - 1) == 0)
        ;
    else
        snprintf(t->hosts[0].name, sizeof t->hosts[0].name, "unknown");
    int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), np = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    t->hosts[0].numa_nodes = nn > 0 ? nn : 0;
    t->hosts[0].packages = np > 0 ? np : 0;
    int i = 0;
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));) {
        if (!is_nvidia_gpu(o)) continue;
        nvs_topo_gpu *g = &t->gpus[i++];
        busid_of(o, g->pci_bus_id, sizeof g->pci_bus_id);
        gpu_name(o, g->name, sizeof g->name);
        fill_path(topo, o, g);
        double ls = o->attr->pcidev.linkspeed;
        /* hwloc: lanes x rate x encoding / 8 of the link as the OS reports it (current speed), GB/s. PCIe 1.0 x1
         * moves 0.25 GB/s, PCIe 7.0 x16 about 242: outside [0.1, 1000] it is not a link speed. An XML file is
         * the user's input: refused with the value; a live topology: left unknown. */
        if (ls != 0 && !(ls >= 0.1 && ls <= 1000)) { /* NaN and negative ones too: 0 is hwloc's "unknown" */
            if (xml) {
                snprintf(err, errlen, "%s: GPU %s: pci_link_speed %g GB/s: expected 0.1 to 1000 (a PCIe link)", xml,
                         g->pci_bus_id, ls);
                res = NVS_ERR_INPUT;
                goto out;
            }
            nvs_warn("hwloc reports a PCIe link speed of %g GB/s for GPU %s: ignored (not a PCIe link speed)", ls,
                     g->pci_bus_id);
        } else if (ls > 0) {
            g->pcie.gbps = ls;
            snprintf(g->pcie.gbps_source, sizeof g->pcie.gbps_source, "hwloc link speed");
        }
        snprintf(g->nvlink.why_unknown, sizeof g->nvlink.why_unknown,
                 xml ? "not visible offline: the XML has no NVLinkBandwidth matrix (hwloc had no NVML backend)"
                     : "hwloc has no NVLink data");
    }
    /* A file saved without its PCI bridges (lstopo --filter bridge:none) puts every GPU straight under its CPU
     * side: the switches that make a pair PIX or PXB are gone, and every pair of one socket reads PHB. Said, not
     * guessed: the classes below are what the file shows. */
    int bare = 0;
    for (int k = 0; k < i; k++) bare += t->gpus[k].path.n == 1 && (t->gpus[k].path.bridge[0] >> 63);
    if (xml && bare > 0 && hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_BRIDGE) == 0)
        nvs_warn("%s has no PCI bridges (saved with lstopo --filter bridge:none?): %d GPU%s sit straight under their "
                 "CPU, so GPU pairs behind one PCIe switch (PIX, PXB) read PHB here; export with the bridges "
                 "(lstopo --of xml, hwloc's default) for the real classes",
                 xml, bare, bare == 1 ? "" : "s");
    qsort(t->gpus, (size_t)ngpus, sizeof *t->gpus, cmp_gpu_bus);
    for (int k = 1; xml && k < ngpus; k++) /* one device per bus id: a second one is an edited file */
        if (!strcmp(t->gpus[k].pci_bus_id, t->gpus[k - 1].pci_bus_id)) {
            snprintf(err, errlen, "%s: two GPUs with PCI bus id %s", xml, t->gpus[k].pci_bus_id);
            res = NVS_ERR_INPUT;
            goto out;
        }
    for (int k = 0; k < ngpus; k++) t->gpus[k].index = k;
    res = read_nvlink_matrix(topo, xml, t, err, errlen);
    if (res != NVS_OK) goto out;
    if ((res = read_nics(topo, t, xml == NULL)) != NVS_OK) {
        if (res == NVS_ERR_INPUT)
            snprintf(err, errlen, "%s%smore than %d network functions: more than any single host has (topo/topo.h); "
                     "not read", xml ? xml : "", xml ? ": " : "", NVS_TOPO_MAX_NICS_PER_HOST);
        else
            snprintf(err, errlen, "out of memory");
        if (!xml && res == NVS_ERR_INPUT) res = NVS_ERR_UNSUPPORTED;
        goto out;
    }
    /* one PCI function per bus id, as for the GPUs above: a NIC sharing one with another NIC or a GPU is an
     * edited file (the NICs are sorted by bus id) */
    for (int k = 0; xml && k < t->nnics; k++) {
        const char *b = t->nics[k].pci_bus_id;
        int twice = k > 0 && !strcmp(b, t->nics[k - 1].pci_bus_id);
        for (int g = 0; !twice && g < ngpus; g++) twice = !strcmp(b, t->gpus[g].pci_bus_id) ? 2 : 0;
        if (twice) {
            snprintf(err, errlen, "%s: two PCI devices with bus id %s (%s%s and NIC %s)", xml, b,
                     twice == 1 ? "NIC " : "a GPU", twice == 1 ? t->nics[k - 1].name : "", t->nics[k].name);
            res = NVS_ERR_INPUT;
            goto out;
        }
    }
    *out = t;
    t = NULL;
out:
    nvs_topo_free(t);
    hwloc_topology_destroy(topo);
    return res;
}

nvs_result_t nvs_topo_hwloc_load(const char *xml, nvs_topology **out, char *err, size_t errlen)
{
    return hwloc_load(xml, NULL, 0, out, err, errlen);
}

nvs_result_t nvs_topo_hwloc_load_buffer(const char *name, const char *buf, size_t len, nvs_topology **out, char *err,
                                        size_t errlen)
{
    return hwloc_load(name ? name : "<buffer>", buf, len, out, err, errlen);
}
