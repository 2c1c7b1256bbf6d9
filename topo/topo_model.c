/* The topology structure: allocation, pair classification, lookups (PURE). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "topo/topo.h"

nvs_topology *nvs_topo_alloc(int nhosts, int ngpus)
{
    if (ngpus > NVS_TOPO_MAX_GPUS || nhosts > NVS_TOPO_MAX_GPUS) return NULL;
    nvs_topology *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->nhosts = nhosts;
    t->ngpus = ngpus;
    t->hosts = calloc(nhosts > 0 ? (size_t)nhosts : 1, sizeof *t->hosts);
    t->gpus = calloc(ngpus > 0 ? (size_t)ngpus : 1, sizeof *t->gpus);
    t->pairs = calloc(ngpus > 0 ? (size_t)ngpus * (size_t)ngpus : 1, sizeof *t->pairs);
    if (!t->hosts || !t->gpus || !t->pairs) {
        nvs_topo_free(t);
        return NULL;
    }
    for (int i = 0; i < ngpus; i++) {
        nvs_topo_gpu *g = &t->gpus[i];
        g->index = i;
        g->cuda_device = -1;
        g->numa_node = -1;
        g->path.numa_node = -1;
    }
    for (size_t i = 0; i < (size_t)ngpus * (size_t)ngpus; i++) {
        strcpy(t->pairs[i].cls, "?");
        t->pairs[i].p2p_cuda = -1;
    }
    return t;
}

void nvs_topo_free(nvs_topology *t)
{
    if (!t) return;
    free(t->hosts);
    free(t->gpus);
    free(t->pairs);
    free(t->nics);
    free(t->gpu_nic_cls);
    free(t->nic_nic_cls);
    free(t);
}

nvs_result_t nvs_topo_alloc_nics(nvs_topology *t, int n)
{
    free(t->nics);
    free(t->gpu_nic_cls);
    free(t->nic_nic_cls);
    t->nnics = 0;
    size_t ng = t->ngpus > 0 ? (size_t)t->ngpus : 1, nn = n > 0 ? (size_t)n : 1;
    t->nics = calloc(nn, sizeof *t->nics);
    t->gpu_nic_cls = calloc(ng * nn, NVS_TOPO_CLS_LEN);
    t->nic_nic_cls = calloc(nn * nn, NVS_TOPO_CLS_LEN);
    if (!t->nics || !t->gpu_nic_cls || !t->nic_nic_cls) return NVS_ERR_NOMEM;
    t->nnics = n;
    for (int i = 0; i < n; i++) {
        t->nics[i].index = i;
        t->nics[i].numa_node = -1;
        t->nics[i].path.numa_node = -1;
    }
    for (size_t i = 0; i < ng * nn; i++) strcpy(t->gpu_nic_cls + i * NVS_TOPO_CLS_LEN, "?");
    for (size_t i = 0; i < nn * nn; i++) strcpy(t->nic_nic_cls + i * NVS_TOPO_CLS_LEN, "?");
    return NVS_OK;
}

nvs_topology *nvs_topo_subset(const nvs_topology *t, const int *keep, int n)
{
    for (int i = 0; i < n; i++)
        if (keep[i] < 0 || keep[i] >= t->ngpus) return NULL;
    nvs_topology *s = nvs_topo_alloc(t->nhosts, n);
    if (!s) return NULL;
    if (nvs_topo_alloc_nics(s, t->nnics) != NVS_OK) {
        nvs_topo_free(s);
        return NULL;
    }
    memcpy(s->hosts, t->hosts, (size_t)t->nhosts * sizeof *s->hosts);
    memcpy(s->source, t->source, sizeof s->source);
    memcpy(s->nvml_status, t->nvml_status, sizeof s->nvml_status);
    memcpy(s->cuda_status, t->cuda_status, sizeof s->cuda_status);
    s->net_gbps = t->net_gbps;
    if (t->nnics) {
        memcpy(s->nics, t->nics, (size_t)t->nnics * sizeof *s->nics);
        memcpy(s->nic_nic_cls, t->nic_nic_cls, (size_t)t->nnics * (size_t)t->nnics * NVS_TOPO_CLS_LEN);
    }
    for (int i = 0; i < n; i++) {
        nvs_topo_gpu *g = &s->gpus[i];
        *g = t->gpus[keep[i]];
        g->index = i;
        for (int k = 0; k < g->nvlink.nlinks; k++) {
            nvs_topo_link *l = &g->nvlink.links[k];
            if (l->remote != NVS_REMOTE_GPU || l->remote_gpu < 0) continue;
            int to = -1;
            for (int j = 0; j < n && to < 0; j++)
                if (keep[j] == l->remote_gpu) to = j;
            l->remote_gpu = to; /* a peer left out stays known by its bus id */
        }
        for (int j = 0; j < n; j++) s->pairs[i * n + j] = t->pairs[keep[i] * t->ngpus + keep[j]];
        for (int k = 0; k < t->nnics; k++)
            memcpy(s->gpu_nic_cls + ((size_t)i * t->nnics + k) * NVS_TOPO_CLS_LEN,
                   t->gpu_nic_cls + ((size_t)keep[i] * t->nnics + k) * NVS_TOPO_CLS_LEN, NVS_TOPO_CLS_LEN);
    }
    return s;
}

static int direct_links(const nvs_topo_gpu *g, int peer)
{
    int n = 0;
    for (int k = 0; k < g->nvlink.nlinks; k++)
        if (g->nvlink.links[k].remote == NVS_REMOTE_GPU && g->nvlink.links[k].remote_gpu == peer) n++;
    return n;
}

void nvs_topo_classify_all(nvs_topology *t)
{
    for (int a = 0; a < t->ngpus; a++)
        for (int b = 0; b < t->ngpus; b++) {
            if (a == b) continue;
            nvs_topo_pair *p = &t->pairs[a * t->ngpus + b];
            const nvs_topo_gpu *ga = &t->gpus[a], *gb = &t->gpus[b];
            if (ga->host != gb->host) {
                nvs_link_class_name(NVS_CLASS_NET, 0, p->cls, sizeof p->cls);
                p->pcie_cls[0] = '\0';
                p->nvlinks = 0;
                continue;
            }
            /* links seen from either side (an NVML answer for one GPU is enough) */
            int da = direct_links(ga, b), db = direct_links(gb, a);
            int direct = da > db ? da : db;
            p->nvlinks = nvs_topo_nvlink_count(direct, ga->nvlink.to_switch, gb->nvlink.to_switch);
            nvs_link_class pc = nvs_topo_classify_pcie(&ga->path, &gb->path);
            if (pc == NVS_CLASS_UNKNOWN)
                p->pcie_cls[0] = '\0';
            else
                nvs_link_class_name(pc, 0, p->pcie_cls, sizeof p->pcie_cls);
            nvs_link_class_name(pc, p->nvlinks, p->cls, sizeof p->cls);
        }
    nvs_topo_nic_assign(t);
}

void nvs_topo_mark_across_hosts(nvs_topology *t)
{
    for (int a = 0; a < t->ngpus; a++)
        for (int b = 0; b < t->ngpus; b++) {
            nvs_topo_pair *p = &t->pairs[(size_t)a * (size_t)t->ngpus + (size_t)b];
            if (a == b || t->gpus[a].host == t->gpus[b].host || strcmp(p->cls, "?")) continue;
            memset(p, 0, sizeof *p);
            nvs_link_class_name(NVS_CLASS_NET, 0, p->cls, sizeof p->cls);
            p->p2p_cuda = 0;
        }
}


/* Reads exactly `maxd` or fewer hex digits (at least 1) ending at `stop`; -1 on anything else. */
static int hex_field(const char **p, int maxd, char stop, unsigned long *out)
{
    unsigned long v = 0;
    int n = 0;
    while (isxdigit((unsigned char)**p)) {
        if (++n > maxd) return -1;
        int c = tolower((unsigned char)**p);
        v = v * 16 + (unsigned long)(c <= '9' ? c - '0' : c - 'a' + 10);
        (*p)++;
    }
    if (!n || **p != stop) return -1;
    if (stop) (*p)++;
    *out = v;
    return 0;
}

int nvs_topo_busid_normalize(const char *in, char *out, size_t len)
{
    /* domain:bus:device.function in hex; the domain may have 4 (Linux, CUDA) or 8 (NVML) digits, or be absent
     * (lspci's "00:06.0") */
    unsigned long dom = 0, bus, dev, fn;
    if (!in) return -1;
    while (isspace((unsigned char)*in)) in++;
    const char *p = in;
    int colons = 0;
    for (const char *q = in; *q; q++) colons += *q == ':';
    if (colons == 2 && hex_field(&p, 8, ':', &dom)) return -1;
    if (colons < 1 || colons > 2 || hex_field(&p, 2, ':', &bus) || hex_field(&p, 2, '.', &dev) ||
        hex_field(&p, 1, '\0', &fn))
        return -1;
    if (dev > 0x1f || fn > 7) return -1;
    int n = dom > 0xffff ? snprintf(out, len, "%08lx:%02lx:%02lx.%lx", dom, bus, dev, fn)
                         : snprintf(out, len, "%04lx:%02lx:%02lx.%lx", dom, bus, dev, fn);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int nvs_topo_find_gpu(const nvs_topology *t, const char *host, const char *pci_bus_id)
{
    char want[NVS_TOPO_BUSID_LEN];
    if (!t || nvs_topo_busid_normalize(pci_bus_id, want, sizeof want)) return -1;
    for (int i = 0; i < t->ngpus; i++) {
        char have[NVS_TOPO_BUSID_LEN];
        if (nvs_topo_busid_normalize(t->gpus[i].pci_bus_id, have, sizeof have)) continue;
        if (strcmp(have, want)) continue;
        if (host && strcmp(t->hosts[t->gpus[i].host].name, host)) continue;
        return i;
    }
    return -1;
}

const char *nvs_topo_gpu_name(const nvs_topology *t, int i)
{
    return t && i >= 0 && i < t->ngpus ? t->gpus[i].name : NULL;
}
const char *nvs_topo_gpu_busid(const nvs_topology *t, int i)
{
    return t && i >= 0 && i < t->ngpus ? t->gpus[i].pci_bus_id : NULL;
}
const char *nvs_topo_gpu_host(const nvs_topology *t, int i)
{
    return t && i >= 0 && i < t->ngpus ? t->hosts[t->gpus[i].host].name : NULL;
}
const nvs_topo_pair *nvs_topo_pair_at(const nvs_topology *t, int a, int b)
{
    if (!t || a < 0 || b < 0 || a >= t->ngpus || b >= t->ngpus) return NULL;
    return &t->pairs[a * t->ngpus + b];
}
const char *nvs_topo_pair_class(const nvs_topology *t, int a, int b)
{
    const nvs_topo_pair *p = nvs_topo_pair_at(t, a, b);
    if (!p) return NULL;
    return a == b ? "X" : p->cls;
}
