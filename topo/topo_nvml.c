/* NVML, loaded at run time (as NCCL's nvmlwrap does): dlopen("libnvidia-ml.so.1"), dlsym only the calls we
 * make, declarations of our own (nvml_min.h). No library, no driver, or a missing symbol makes the feature
 * "unsupported" with the reason, never a crash and never a silent zero. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "topo/nvml_min.h"
#include "topo/topo_live.h"

typedef nvs_nvmlDevice_t dev_t_;

struct nvs_nvml {
    void *lib;
    char driver[80];
    /* required */
    nvs_nvmlReturn_t (*init)(void);
    nvs_nvmlReturn_t (*shutdown)(void);
    nvs_nvmlReturn_t (*by_busid)(const char *, dev_t_ *);
    const char *(*error_string)(nvs_nvmlReturn_t);
    /* optional: NULL = that information is unsupported by this library */
    nvs_nvmlReturn_t (*name)(dev_t_, char *, unsigned);
    nvs_nvmlReturn_t (*curr_gen)(dev_t_, unsigned *);
    nvs_nvmlReturn_t (*curr_width)(dev_t_, unsigned *);
    nvs_nvmlReturn_t (*max_gen)(dev_t_, unsigned *);
    nvs_nvmlReturn_t (*max_width)(dev_t_, unsigned *);
    nvs_nvmlReturn_t (*gpu_max_gen)(dev_t_, unsigned *);
    nvs_nvmlReturn_t (*link_state)(dev_t_, unsigned, int *);
    nvs_nvmlReturn_t (*link_version)(dev_t_, unsigned, unsigned *);
    nvs_nvmlReturn_t (*link_remote_pci)(dev_t_, unsigned, nvs_nvmlPciInfo_t *);
    nvs_nvmlReturn_t (*link_remote_type)(dev_t_, unsigned, int *);
    nvs_nvmlReturn_t (*p2p_status)(dev_t_, dev_t_, int, int *);
    nvs_nvmlReturn_t (*driver_version)(char *, unsigned);
    nvs_nvmlReturn_t (*field_values)(dev_t_, int, nvs_nvmlFieldValue_t *);
};

static const char *err_str(const nvs_nvml *n, nvs_nvmlReturn_t r)
{
    const char *s = n->error_string ? n->error_string(r) : NULL;
    return s ? s : "unknown NVML error";
}

/* dlsym into a function pointer without the object/function pointer cast warning */
static void load_sym(void *lib, const char *name, void *fnptr)
{
    void *p = dlsym(lib, name);
    memcpy(fnptr, &p, sizeof p);
}

nvs_result_t nvs_nvml_open(nvs_nvml **out, char *why, size_t len)
{
    *out = NULL;
    nvs_nvml *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(why, len, "out of memory");
        return NVS_ERR_NOMEM;
    }
    n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *e = dlerror();
        snprintf(why, len, "unsupported: libnvidia-ml.so.1 not loaded (%s)", e ? e : "no NVIDIA driver");
        free(n);
        return NVS_ERR_UNSUPPORTED;
    }
    load_sym(n->lib, "nvmlInit_v2", &n->init);
    load_sym(n->lib, "nvmlShutdown", &n->shutdown);
    load_sym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2", &n->by_busid);
    load_sym(n->lib, "nvmlErrorString", &n->error_string);
    load_sym(n->lib, "nvmlDeviceGetName", &n->name);
    load_sym(n->lib, "nvmlDeviceGetCurrPcieLinkGeneration", &n->curr_gen);
    load_sym(n->lib, "nvmlDeviceGetCurrPcieLinkWidth", &n->curr_width);
    load_sym(n->lib, "nvmlDeviceGetMaxPcieLinkGeneration", &n->max_gen);
    load_sym(n->lib, "nvmlDeviceGetMaxPcieLinkWidth", &n->max_width);
    load_sym(n->lib, "nvmlDeviceGetGpuMaxPcieLinkGeneration", &n->gpu_max_gen);
    load_sym(n->lib, "nvmlDeviceGetNvLinkState", &n->link_state);
    load_sym(n->lib, "nvmlDeviceGetNvLinkVersion", &n->link_version);
    load_sym(n->lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2", &n->link_remote_pci);
    load_sym(n->lib, "nvmlDeviceGetNvLinkRemoteDeviceType", &n->link_remote_type);
    load_sym(n->lib, "nvmlDeviceGetP2PStatus", &n->p2p_status);
    load_sym(n->lib, "nvmlSystemGetDriverVersion", &n->driver_version);
    load_sym(n->lib, "nvmlDeviceGetFieldValues", &n->field_values);
    const char *missing = !n->init ? "nvmlInit_v2" : !n->shutdown ? "nvmlShutdown"
                        : !n->by_busid ? "nvmlDeviceGetHandleByPciBusId_v2" : NULL;
    if (missing) {
        snprintf(why, len, "unsupported: libnvidia-ml.so.1 has no %s", missing);
        dlclose(n->lib);
        free(n);
        return NVS_ERR_UNSUPPORTED;
    }
    nvs_nvmlReturn_t r = n->init();
    if (r != NVS_NVML_SUCCESS) {
        snprintf(why, len, "unsupported: nvmlInit_v2 failed: %s", err_str(n, r));
        dlclose(n->lib);
        free(n);
        return NVS_ERR_UNSUPPORTED;
    }
    if (n->driver_version && n->driver_version(n->driver, sizeof n->driver) != NVS_NVML_SUCCESS) n->driver[0] = '\0';
    *out = n;
    return NVS_OK;
}

void nvs_nvml_close(nvs_nvml *n)
{
    if (!n) return;
    (void)n->shutdown(); /* its result changes nothing we report */
    dlclose(n->lib);
    free(n);
}

const char *nvs_nvml_driver_version(const nvs_nvml *n) { return n ? n->driver : ""; }


static int handle(nvs_nvml *n, const char *bus, dev_t_ *d, char *why, size_t len)
{
    nvs_nvmlReturn_t r = n->by_busid(bus, d);
    if (r != NVS_NVML_SUCCESS) {
        if (why) snprintf(why, len, "NVML does not know GPU %s: %s", bus, err_str(n, r));
        return -1;
    }
    return 0;
}

void *nvs_nvml_symbol(nvs_nvml *n, const char *name) { return n ? dlsym(n->lib, name) : NULL; }

const char *nvs_nvml_error_text(nvs_nvml *n, int r) { return err_str(n, r); }

int nvs_nvml_device(nvs_nvml *n, const char *bus, struct nvs_nvmlDevice_st **dev, char *why, size_t len)
{
    return handle(n, bus, dev, why, len);
}

/* nvmlNvlinkVersion_t (nvml_min.h) -> NVLink generation */
static int nvlink_generation(unsigned v)
{
    static const int gen[] = {0, 1, 2, 2, 3, 3, 4, 5};
    return v < sizeof gen / sizeof gen[0] ? gen[v] : 0;
}

static double field_speed_gbps(nvs_nvml *n, dev_t_ d)
{
    if (!n->field_values) return 0;
    nvs_nvmlFieldValue_t fv;
    memset(&fv, 0, sizeof fv);
    fv.fieldId = NVS_NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
    if (n->field_values(d, 1, &fv) != NVS_NVML_SUCCESS || fv.nvmlReturn != NVS_NVML_SUCCESS) return 0;
    double mbps = fv.valueType == 1   ? fv.value.uiVal
                  : fv.valueType == 2 ? (double)fv.value.ulVal
                  : fv.valueType == 3 ? (double)fv.value.ullVal
                  : fv.valueType == 0 ? fv.value.dVal
                                      : 0;
    return mbps > 0 ? mbps / 1000.0 : 0;
}

static void fill_pcie(nvs_nvml *n, dev_t_ d, nvs_topo_gpu *g)
{
    unsigned v;
    if (n->curr_gen && n->curr_gen(d, &v) == NVS_NVML_SUCCESS) g->pcie.gen = (int)v;
    if (n->curr_width && n->curr_width(d, &v) == NVS_NVML_SUCCESS) g->pcie.width = (int)v;
    if (n->max_gen && n->max_gen(d, &v) == NVS_NVML_SUCCESS) g->pcie.max_gen = (int)v;
    if (n->max_width && n->max_width(d, &v) == NVS_NVML_SUCCESS) g->pcie.max_width = (int)v;
    /* the GPU's own top generation, whatever the slot: the maximum above is the GPU's and the slot's together */
    if (n->gpu_max_gen && n->gpu_max_gen(d, &v) == NVS_NVML_SUCCESS) g->pcie.gpu_max_gen = (int)v;
    /* The bound takes the highest generation this GPU and slot support: idle GPUs drop their link generation to
     * save power and train up under load, so the current one understates what a copy gets. The current width
     * is kept: a narrower link stays narrow. */
    int gen = g->pcie.max_gen ? g->pcie.max_gen : g->pcie.gen;
    int width = g->pcie.width ? g->pcie.width : g->pcie.max_width;
    double gbps = nvs_topo_pcie_gbps(gen, width);
    if (gbps > 0) {
        g->pcie.gbps = gbps;
        snprintf(g->pcie.gbps_source, sizeof g->pcie.gbps_source, "gen%d x%d", gen, width);
    }
}

static void fill_nvlink(nvs_nvml *n, dev_t_ d, nvs_topo_gpu *g)
{
    if (!n->link_state) {
        snprintf(g->nvlink.why_unknown, sizeof g->nvlink.why_unknown,
                 "unsupported: libnvidia-ml.so.1 has no nvmlDeviceGetNvLinkState");
        return;
    }
    g->nvlink.nlinks = g->nvlink.links_up = g->nvlink.to_switch = g->nvlink.to_cpu = 0;
    unsigned version_enum = 0;
    int unread = 0; /* links past the first whose state NVML could not give: not counted, and said */
    nvs_nvmlReturn_t unread_r = NVS_NVML_SUCCESS;
    for (unsigned l = 0; l < NVS_NVML_NVLINK_MAX_LINKS; l++) {
        int active = 0;
        nvs_nvmlReturn_t r = n->link_state(d, l, &active);
        /* past the last link, or (on link 0) a GPU without NVLink: what was found so far is the answer */
        if (r == NVS_NVML_ERROR_INVALID_ARGUMENT || r == NVS_NVML_ERROR_NOT_SUPPORTED) break;
        if (r != NVS_NVML_SUCCESS) {
            if (l == 0) {
                snprintf(g->nvlink.why_unknown, sizeof g->nvlink.why_unknown, "nvmlDeviceGetNvLinkState: %s",
                         err_str(n, r));
                return;
            }
            if (!unread++) unread_r = r;
            continue;
        }
        if (active != NVS_NVML_FEATURE_ENABLED) continue;
        nvs_topo_link *lk = &g->nvlink.links[g->nvlink.nlinks++];
        memset(lk, 0, sizeof *lk);
        lk->link = (int)l;
        lk->remote_gpu = -1;
        g->nvlink.links_up++;
        unsigned ve;
        if (n->link_version && n->link_version(d, l, &ve) == NVS_NVML_SUCCESS && ve > version_enum) version_enum = ve;
        nvs_nvmlPciInfo_t pci;
        memset(&pci, 0, sizeof pci);
        if (n->link_remote_pci && n->link_remote_pci(d, l, &pci) == NVS_NVML_SUCCESS) {
            pci.busId[sizeof pci.busId - 1] = '\0';
            if (nvs_topo_busid_normalize(pci.busId, lk->remote_pci_bus_id, sizeof lk->remote_pci_bus_id))
                lk->remote_pci_bus_id[0] = '\0';
        }
        int type;
        lk->remote = NVS_REMOTE_UNKNOWN;
        if (n->link_remote_type && n->link_remote_type(d, l, &type) == NVS_NVML_SUCCESS)
            lk->remote = type == NVS_NVML_NVLINK_DEVICE_TYPE_GPU      ? NVS_REMOTE_GPU
                         : type == NVS_NVML_NVLINK_DEVICE_TYPE_SWITCH ? NVS_REMOTE_NVSWITCH
                         : type == NVS_NVML_NVLINK_DEVICE_TYPE_IBMNPU ? NVS_REMOTE_CPU
                                                                       : NVS_REMOTE_UNKNOWN;
        if (lk->remote == NVS_REMOTE_NVSWITCH) g->nvlink.to_switch++;
        if (lk->remote == NVS_REMOTE_CPU) g->nvlink.to_cpu++;
    }
    g->nvlink.known = 1;
    g->nvlink.why_unknown[0] = '\0';
    if (unread)
        nvs_warn("NVML: GPU %s: nvmlDeviceGetNvLinkState failed on %d link%s (%s): %d NVLink%s counted, the count "
                 "and the bound may be low", g->pci_bus_id, unread, unread == 1 ? "" : "s", err_str(n, unread_r),
                 g->nvlink.links_up, g->nvlink.links_up == 1 ? "" : "s");
    if (!g->nvlink.links_up) return;
    g->nvlink.version = nvlink_generation(version_enum);
    char src[128];
    double table = nvs_topo_nvlink_gbps(g->nvlink.version, src, sizeof src);
    double speed = field_speed_gbps(n, d);
    g->nvlink.nvml_speed_gbps = speed;
    if (table > 0 && (speed <= 0 || fabs(table - speed) <= 0.05 * speed)) {
        g->nvlink.gbps_per_link = table;
        snprintf(g->nvlink.rate_source, sizeof g->nvlink.rate_source, "%s", src);
    } else if (speed > 0) {
        /* the version table and the driver disagree (some drivers report NVLink 5.0 on Hopper): trust the
         * speed the driver reports for the links, as nvidia-smi nvlink -s does */
        g->nvlink.gbps_per_link = speed;
        snprintf(g->nvlink.rate_source, sizeof g->nvlink.rate_source,
                 "NVML NVLINK_SPEED_MBPS_COMMON: %.3f GB/s per link (NVML version enum %u)", speed, version_enum);
    } else
        snprintf(g->nvlink.rate_source, sizeof g->nvlink.rate_source,
                 "per-link rate unknown (NVML version enum %u)", version_enum);
}

int nvs_nvml_fill_gpu(nvs_nvml *n, nvs_topo_gpu *g, char *why, size_t len)
{
    dev_t_ d;
    if (handle(n, g->pci_bus_id, &d, why, len)) return -1;
    char name[NVS_TOPO_NAME_LEN];
    if (n->name && n->name(d, name, sizeof name) == NVS_NVML_SUCCESS) {
        name[sizeof name - 1] = '\0';
        snprintf(g->name, sizeof g->name, "%s", name);
    }
    fill_pcie(n, d, g);
    fill_nvlink(n, d, g);
    return 0;
}

void nvs_nvml_p2p_status(nvs_nvml *n, const char *bus_a, const char *bus_b, char *out, size_t len)
{
    dev_t_ a, b;
    int st;
    snprintf(out, len, "%s", "");
    if (!n || !n->p2p_status || handle(n, bus_a, &a, NULL, 0) || handle(n, bus_b, &b, NULL, 0)) return;
    if (n->p2p_status(a, b, NVS_NVML_P2P_CAPS_INDEX_READ, &st) != NVS_NVML_SUCCESS) return;
    /* nvidia-smi topo -p2p r's legend: OK, CNS chipset, GNS GPU, TNS topology not supported, NS, U unknown */
    const char *code = st == NVS_NVML_P2P_STATUS_OK                           ? "OK"
                       : st == NVS_NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED      ? "CNS"
                       : st == NVS_NVML_P2P_STATUS_GPU_NOT_SUPPORTED          ? "GNS"
                       : st == NVS_NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED ? "TNS"
                       : st == NVS_NVML_P2P_STATUS_DISABLED_BY_REGKEY         ? "DIS"
                       : st == NVS_NVML_P2P_STATUS_NOT_SUPPORTED              ? "NS"
                                                                               : "U";
    snprintf(out, len, "%s", code);
}
