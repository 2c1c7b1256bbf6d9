/* The one link vocabulary (src/core/link_class.c): every class parsed and named, NV1..NV18, junk and case rules,
 * the rank order, link kinds and the worst of two. */
#include "core/link_class.h"
#include "t.h"

static void t_parse_every_class(void)
{
    static const struct {
        const char *s;
        nvs_link_class c;
    } known[] = {{"PIX", NVS_CLASS_PIX},   {"PXB", NVS_CLASS_PXB}, {"PHB", NVS_CLASS_PHB},
                 {"NODE", NVS_CLASS_NODE}, {"SYS", NVS_CLASS_SYS}, {"NET", NVS_CLASS_NET}};
    char buf[16];
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        int nv = -1;
        T_EQ_I(nvs_link_class_parse(known[i].s, &nv), known[i].c);
        T_EQ_I(nv, 0);
        T_EQ_S(nvs_link_class_name(known[i].c, 0, buf, sizeof buf), known[i].s); /* round trip */
        T_EQ_I(nvs_link_class_is_nvlink(known[i].s), 0);
    }
    for (int n = 1; n <= 18; n++) { /* NV1 (one bridge link) .. NV18 (H100/H200 SXM) */
        char s[8];
        int nv = 0;
        snprintf(s, sizeof s, "NV%d", n);
        T_EQ_I(nvs_link_class_parse(s, &nv), NVS_CLASS_NV);
        T_EQ_I(nv, n);
        T_EQ_I(nvs_link_class_is_nvlink(s), 1);
        T_EQ_S(nvs_link_class_name(NVS_CLASS_NV, n, buf, sizeof buf), s);
    }
    T_EQ_I(nvs_link_class_parse("NV1000", NULL), NVS_CLASS_NV); /* nvlinks may be NULL */
}

static void t_junk_and_case(void)
{
    /* written by programs in nvidia-smi's spelling: anything else is not a class */
    static const char *const junk[] = {"",     "?",     "X",     "NV",    "NV0",  "NV01", "NV-2",    "NV+2",
                                       "NV4x", "NV 4",  " NV4",  "NV1001", "nv4",  "Nv4",  "nV4",     "pix",
                                       "Pix",  "node",  "sys",   "net",   "PIX ", " PIX", "PIXX",    "PI",
                                       "NVX",  "NVLink", "PCIe", "SYS\n", "NET/Socket", "99999999999999999999"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        int nv = 7;
        if (nvs_link_class_parse(junk[i], &nv) != NVS_CLASS_UNKNOWN) T_FAIL("'%s' parsed as a class", junk[i]);
        T_EQ_I(nv, 0);
        T_EQ_I(nvs_link_class_is_nvlink(junk[i]), 0);
        T_EQ_I(nvs_link_class_rank_of(junk[i]), nvs_link_class_rank(NVS_CLASS_UNKNOWN));
    }
    T_EQ_I(nvs_link_class_parse(NULL, NULL), NVS_CLASS_UNKNOWN);
    T_EQ_I(nvs_link_class_is_nvlink(NULL), 0);
}

static void t_names(void)
{
    char buf[12];
    T_EQ_S(nvs_link_class_name(NVS_CLASS_PHB, 18, buf, sizeof buf), "NV18"); /* NVLink wins over the PCIe path */
    T_EQ_S(nvs_link_class_name(NVS_CLASS_UNKNOWN, 0, buf, sizeof buf), "?");
    T_EQ_S(nvs_link_class_name(NVS_CLASS_NV, 0, buf, sizeof buf), "?"); /* NV without a count is not a name */
    T_EQ_S(nvs_link_class_name((nvs_link_class)42, 0, buf, sizeof buf), "?");
    char small[3];
    T_EQ_S(nvs_link_class_name(NVS_CLASS_NODE, 0, small, sizeof small), "NO"); /* cut, never overrun */
}

static void t_rank(void)
{
    /* nvidia-smi topo -m's legend, nearest first; anything unknown after NET */
    static const char *const order[] = {"NV2", "PIX", "PXB", "PHB", "NODE", "SYS", "NET", "WEIRD"};
    for (size_t i = 0; i + 1 < sizeof order / sizeof order[0]; i++)
        if (!(nvs_link_class_rank_of(order[i]) < nvs_link_class_rank_of(order[i + 1])))
            T_FAIL("rank(%s) is not below rank(%s)", order[i], order[i + 1]);
    T_EQ_I(nvs_link_class_rank_of("NV1"), nvs_link_class_rank_of("NV18")); /* the count is not a class */
    T_EQ_I(nvs_link_class_rank_of(NULL), nvs_link_class_rank(NVS_CLASS_UNKNOWN));
    T_EQ_I(nvs_link_class_rank(NVS_CLASS_NV), 1);
    T_EQ_I(nvs_link_class_rank(NVS_CLASS_NET), 7);
    T_EQ_I(nvs_link_class_rank(NVS_CLASS_UNKNOWN), 8);
}

static void t_kinds(void)
{
    static const struct {
        nvs_link_kind k;
        const char *name;
    } kinds[] = {{NVS_LINK_NONE, "none"},           {NVS_LINK_NETWORK, "network"},
                 {NVS_LINK_HOST_MEMORY, "host memory"}, {NVS_LINK_PCIE, "PCIe"},
                 {NVS_LINK_P2P_UNKNOWN, "P2P (link unknown)"}, {NVS_LINK_NVLINK, "NVLink"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        T_EQ_S(nvs_link_kind_name(kinds[i].k), kinds[i].name);
        T_EQ_I(nvs_link_kind_parse(kinds[i].name), kinds[i].k);
    }
    T_EQ_S(nvs_link_kind_name((nvs_link_kind)99), "none");
    T_EQ_I(nvs_link_kind_parse("nvlink"), NVS_LINK_NONE); /* exact words */
    T_EQ_I(nvs_link_kind_parse(NULL), NVS_LINK_NONE);

    T_EQ_I(nvs_link_kind_of_class(NVS_CLASS_NV), NVS_LINK_NVLINK);
    T_EQ_I(nvs_link_kind_of_class(NVS_CLASS_PIX), NVS_LINK_PCIE);
    T_EQ_I(nvs_link_kind_of_class(NVS_CLASS_SYS), NVS_LINK_PCIE);
    T_EQ_I(nvs_link_kind_of_class(NVS_CLASS_NET), NVS_LINK_NETWORK);
    T_EQ_I(nvs_link_kind_of_class(NVS_CLASS_UNKNOWN), NVS_LINK_NONE);

    /* a ring runs at its slowest hop: network < host memory < PCIe < P2P of unknown link < NVLink */
    T_EQ_I(nvs_link_kind_worst(NVS_LINK_NVLINK, NVS_LINK_PCIE), NVS_LINK_PCIE);
    T_EQ_I(nvs_link_kind_worst(NVS_LINK_HOST_MEMORY, NVS_LINK_PCIE), NVS_LINK_HOST_MEMORY);
    T_EQ_I(nvs_link_kind_worst(NVS_LINK_NVLINK, NVS_LINK_NETWORK), NVS_LINK_NETWORK);
    T_EQ_I(nvs_link_kind_worst(NVS_LINK_P2P_UNKNOWN, NVS_LINK_NVLINK), NVS_LINK_P2P_UNKNOWN);
    T_EQ_I(nvs_link_kind_worst(NVS_LINK_NONE, NVS_LINK_NVLINK), NVS_LINK_NVLINK); /* none is not a link */
    T_EQ_I(nvs_link_kind_worst(NVS_LINK_PCIE, NVS_LINK_NONE), NVS_LINK_PCIE);
    T_EQ_I(nvs_link_kind_worst(NVS_LINK_NONE, NVS_LINK_NONE), NVS_LINK_NONE);
}

T_LIST = {T_CASE(t_parse_every_class), T_CASE(t_junk_and_case), T_CASE(t_names), T_CASE(t_rank), T_CASE(t_kinds)};
T_MAIN
