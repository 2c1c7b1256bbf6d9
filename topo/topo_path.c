/* Path classification (PURE). The rule and where it comes from are in topo_path.h. */
#include "topo/topo_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find(const nvs_topo_pcipath *p, uint64_t id)
{
    for (int i = 0; i < p->n; i++)
        if (p->bridge[i] == id) return i;
    return -1;
}

nvs_topo_class nvs_topo_classify_pcie(const nvs_topo_pcipath *a, const nvs_topo_pcipath *b)
{
    if (a->n <= 0 || b->n <= 0) return NVS_CLASS_UNKNOWN;
    for (int ia = 0; ia < a->n; ia++) {
        int ib = find(b, a->bridge[ia]);
        if (ib < 0) continue;
        /* a->bridge[ia] is the lowest common bridge; ia / ib = bridges strictly between it and each GPU */
        if (a->is_host[ia]) return NVS_CLASS_PHB;
        return ia <= 1 && ib <= 1 ? NVS_CLASS_PIX : NVS_CLASS_PXB;
    }
    if (a->numa_node >= 0 && b->numa_node >= 0) return a->numa_node == b->numa_node ? NVS_CLASS_NODE : NVS_CLASS_SYS;
    if (a->numa_node < 0 && b->numa_node < 0 && a->cpu_parent && a->cpu_parent == b->cpu_parent)
        return NVS_CLASS_NODE;
    return NVS_CLASS_SYS;
}

int nvs_topo_nvlink_count(int direct_links, int a_switch_links, int b_switch_links)
{
    int via_switch = a_switch_links > 0 && b_switch_links > 0
                         ? (a_switch_links < b_switch_links ? a_switch_links : b_switch_links)
                         : 0;
    return direct_links + via_switch;
}

static const char *const names[] = {"?", "NV", "PIX", "PXB", "PHB", "NODE", "SYS", "NET"};

const char *nvs_topo_class_name(nvs_topo_class c, int nvlinks, char *buf, unsigned len)
{
    if (nvlinks > 0)
        snprintf(buf, len, "NV%d", nvlinks);
    else
        snprintf(buf, len, "%s", (unsigned)c < sizeof names / sizeof names[0] && c != NVS_CLASS_NV ? names[c] : "?");
    return buf;
}

nvs_topo_class nvs_topo_class_parse(const char *s, int *nvlinks)
{
    *nvlinks = 0;
    if (!s) return NVS_CLASS_UNKNOWN;
    if (!strncmp(s, "NV", 2) && s[2] >= '1' && s[2] <= '9') {
        char *end;
        long v = strtol(s + 2, &end, 10);
        if (*end || v < 1 || v > 1000) return NVS_CLASS_UNKNOWN;
        *nvlinks = (int)v;
        return NVS_CLASS_NV;
    }
    for (int c = NVS_CLASS_PIX; c <= NVS_CLASS_NET; c++)
        if (!strcmp(s, names[c])) return (nvs_topo_class)c;
    return NVS_CLASS_UNKNOWN;
}
