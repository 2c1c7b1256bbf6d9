/* Path classification on synthetic PCIe chains (topo/topo_path.c): every class, both argument orders. */
#include "topo/topo_path.h"
#include "t.h"

/* chain nearest-first; the last id given is a host bridge when host_last */
static nvs_topo_pcipath P(int numa, uint64_t cpu, int host_last, int n, const uint64_t *ids)
{
    nvs_topo_pcipath p;
    memset(&p, 0, sizeof p);
    p.numa_node = numa;
    p.cpu_parent = cpu;
    p.n = n;
    for (int i = 0; i < n; i++) {
        p.bridge[i] = ids[i];
        p.is_host[i] = host_last && i == n - 1;
    }
    return p;
}

/* ids: host bridges 1xx, root ports 2xx, switch upstream ports 3xx, downstream ports 4xx */
static const uint64_t same_sw_a[] = {401, 301, 201, 101}, same_sw_b[] = {402, 301, 201, 101};
static const uint64_t nest_a[] = {411, 311, 421, 310, 210, 110}, nest_b[] = {412, 312, 422, 310, 210, 110};
static const uint64_t nest_c[] = {422, 310, 210, 110}; /* a GPU right on the upper switch's port */
static const uint64_t rp1[] = {201, 101}, rp2[] = {202, 101}, hb1[] = {101}, hb2[] = {102};
static const uint64_t flat_a[] = {500, 101}, flat_b[] = {500, 101}; /* two GPUs below one bridge */

struct pcase {
    const char *name;
    nvs_topo_pcipath a, b;
    nvs_link_class want;
};

static void t_classes(void)
{
    struct pcase cases[] = {
        {"one switch", P(0, 1, 1, 4, same_sw_a), P(0, 1, 1, 4, same_sw_b), NVS_CLASS_PIX},
        {"one bridge", P(0, 1, 1, 2, flat_a), P(0, 1, 1, 2, flat_b), NVS_CLASS_PIX},
        {"two switch levels", P(0, 1, 1, 6, nest_a), P(0, 1, 1, 6, nest_b), NVS_CLASS_PXB},
        {"deep vs shallow", P(0, 1, 1, 6, nest_a), P(0, 1, 1, 4, nest_c), NVS_CLASS_PXB},
        {"root ports of one host bridge", P(0, 1, 1, 2, rp1), P(0, 1, 1, 2, rp2), NVS_CLASS_PHB},
        {"on the host bridge", P(0, 1, 1, 1, hb1), P(0, 1, 1, 1, hb1), NVS_CLASS_PHB},
        {"switch vs root port", P(0, 1, 1, 4, same_sw_a), P(0, 1, 1, 2, rp2), NVS_CLASS_PHB},
        {"two host bridges, one NUMA node", P(0, 1, 1, 1, hb1), P(0, 1, 1, 1, hb2), NVS_CLASS_NODE},
        {"two NUMA nodes", P(0, 1, 1, 1, hb1), P(1, 2, 1, 1, hb2), NVS_CLASS_SYS},
        {"NUMA unknown, same CPU object", P(-1, 7, 1, 1, hb1), P(-1, 7, 1, 1, hb2), NVS_CLASS_NODE},
        {"NUMA unknown, other CPU object", P(-1, 7, 1, 1, hb1), P(-1, 8, 1, 1, hb2), NVS_CLASS_SYS},
        {"one NUMA unknown", P(0, 7, 1, 1, hb1), P(-1, 7, 1, 1, hb2), NVS_CLASS_SYS},
        {"no PCI data", P(0, 1, 1, 0, hb1), P(0, 1, 1, 1, hb1), NVS_CLASS_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nvs_link_class ab = nvs_topo_classify_pcie(&cases[i].a, &cases[i].b);
        nvs_link_class ba = nvs_topo_classify_pcie(&cases[i].b, &cases[i].a);
        if (ab != cases[i].want || ba != cases[i].want)
            T_FAIL("%s: got %d / %d, expected %d", cases[i].name, (int)ab, (int)ba, (int)cases[i].want);
    }
}

static void t_nvlink_count(void)
{
    T_EQ_I(nvs_topo_nvlink_count(4, 0, 0), 4);    /* bridged pair */
    T_EQ_I(nvs_topo_nvlink_count(0, 18, 18), 18); /* HGX H100: all links to NVSwitches */
    T_EQ_I(nvs_topo_nvlink_count(0, 12, 6), 6);   /* the smaller side limits */
    T_EQ_I(nvs_topo_nvlink_count(2, 12, 12), 14);
    T_EQ_I(nvs_topo_nvlink_count(0, 18, 0), 0); /* only one GPU on the switches: not joined */
    T_EQ_I(nvs_topo_nvlink_count(0, 0, 0), 0);
}

T_LIST = {T_CASE(t_classes), T_CASE(t_nvlink_count)}; /* names and ranks: test_link_class.c */
T_MAIN
