/* Path classification (PURE). The rule and where it comes from are in topo_path.h. */
#include "topo/topo_path.h"

static int find(const nvs_topo_pcipath *p, uint64_t id)
{
    for (int i = 0; i < p->n; i++)
        if (p->bridge[i] == id) return i;
    return -1;
}

nvs_link_class nvs_topo_classify_pcie(const nvs_topo_pcipath *a, const nvs_topo_pcipath *b)
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
