/* The topology structure: subsets, pair classification, lookups (PURE; the storage is topo_store.c). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "topo/topo.h"

nvs_topology *nvs_topo_subset(const nvs_topology *t, const int *keep, int n)
{
    for (int i = 0; i < n; i++)
        if (keep[i] < 0 || keep[i] >= t->ngpus) return NULL;
    nvs_topology *s = nvs_topo_alloc(t->nhosts, n);
    int *newpos = malloc((size_t)(t->ngpus > 0 ? t->ngpus : 1) * sizeof *newpos);
    if (!s || !newpos || nvs_topo_alloc_nics(s, t->nnics) != NVS_OK) goto fail;
    memcpy(s->hosts, t->hosts, (size_t)t->nhosts * sizeof *s->hosts);
    memcpy(s->source, t->source, sizeof s->source);
    memcpy(s->nvml_status, t->nvml_status, sizeof s->nvml_status);
    memcpy(s->cuda_status, t->cuda_status, sizeof s->cuda_status);
    s->net_gbps = t->net_gbps;
    if (t->nnics) memcpy(s->nics, t->nics, (size_t)t->nnics * sizeof *s->nics);
    /* each kept GPU's new place (the first, if kept twice), for its NVLink peers */
    for (int i = 0; i < t->ngpus; i++) newpos[i] = -1;
    for (int i = n - 1; i >= 0; i--) newpos[keep[i]] = i;
    for (int i = 0; i < n; i++) {
        nvs_topo_gpu *g = &s->gpus[i];
        *g = t->gpus[keep[i]];
        g->index = i;
        for (int k = 0; k < g->nvlink.nlinks; k++) {
            nvs_topo_link *l = &g->nvlink.links[k];
            if (l->remote == NVS_REMOTE_GPU && l->remote_gpu >= 0 && l->remote_gpu < t->ngpus)
                l->remote_gpu = newpos[l->remote_gpu]; /* a peer left out stays known by its bus id */
        }
    }
    if (nvs_topo_layout(s) != NVS_OK) goto fail;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            nvs_topo_pair *p = nvs_topo_pair_cell(s, i, j);
            if (p) *p = *nvs_topo_pair_at(t, keep[i], keep[j]);
        }
        for (int k = 0; k < t->nnics; k++) {
            char *c = nvs_topo_gpu_nic_cell(s, i, k);
            if (c) snprintf(c, NVS_TOPO_CLS_LEN, "%s", nvs_topo_gpu_nic_class(t, keep[i], k));
        }
    }
    for (int a = 0; a < t->nnics; a++)
        for (int b = 0; b < t->nnics; b++) {
            char *c = a == b ? NULL : nvs_topo_nic_nic_cell(s, a, b);
            if (c) snprintf(c, NVS_TOPO_CLS_LEN, "%s", nvs_topo_nic_nic_class(t, a, b));
        }
    free(newpos);
    return s;
fail:
    free(newpos);
    nvs_topo_free(s);
    return NULL;
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
            nvs_topo_pair *p = a == b ? NULL : nvs_topo_pair_cell(t, a, b);
            if (!p) continue; /* itself, or on another host: NET, nothing stored */
            const nvs_topo_gpu *ga = &t->gpus[a], *gb = &t->gpus[b];
            /* links seen from either side: an NVML answer for one GPU is enough (the other may have none); where
             * both count links but disagree, one end has a link down, and only the links up at both ends carry
             * data: the fewer (topo_hwloc.c warns of it) */
            int da = direct_links(ga, b), db = direct_links(gb, a);
            int direct = da && db ? (da < db ? da : db) : (da > db ? da : db);
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
const char *nvs_topo_pair_class(const nvs_topology *t, int a, int b)
{
    const nvs_topo_pair *p = nvs_topo_pair_at(t, a, b);
    if (!p) return NULL;
    return a == b ? "X" : p->cls;
}
