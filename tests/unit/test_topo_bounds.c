/* Bounds arithmetic, ring bounds and placement (topo/topo_bounds.c), on synthetic topologies and on the
 * fixture XMLs (tests/fixtures/topo). */
#include "topo/topo.h"
#include "core/clock.h"
#include "t.h"

static void t_pcie_rates(void)
{
    /* lanes x GT/s x encoding / 8 */
    T_NEAR(nvs_topo_pcie_gbps(1, 16), 16 * 2.5 * 0.8 / 8, 1e-12);
    T_NEAR(nvs_topo_pcie_gbps(2, 8), 4.0, 1e-12);
    T_NEAR(nvs_topo_pcie_gbps(3, 16), 15.75, 0.01);
    T_NEAR(nvs_topo_pcie_gbps(4, 16), 31.5, 0.01);
    T_NEAR(nvs_topo_pcie_gbps(5, 16), 63.0, 0.02);
    T_NEAR(nvs_topo_pcie_gbps(5, 16), 63.015385, 1e-5); /* the reference XML's pci_link_speed for gen5 x16 */
    T_NEAR(nvs_topo_pcie_gbps(4, 8), 15.753846, 1e-5);
    T_NEAR(nvs_topo_pcie_gbps(6, 16), 64.0 * 242 / 256 * 16 / 8, 1e-9);
    T_EQ_I(nvs_topo_pcie_gbps(0, 16) == 0, 1);
    T_EQ_I(nvs_topo_pcie_gbps(7, 16) == 0, 1);
    T_EQ_I(nvs_topo_pcie_gbps(4, 0) == 0, 1);
}

static void t_nvlink_rates(void)
{
    char src[128];
    T_NEAR(nvs_topo_nvlink_gbps(4, src, sizeof src), 26.5625, 1e-12);
    T_CONTAINS(src, "26.562");
    T_NEAR(18 * nvs_topo_nvlink_gbps(4, NULL, 0), 478.125, 1e-9); /* 2xH200: NV18 */
    T_NEAR(nvs_topo_nvlink_gbps(1, NULL, 0), 20.0, 1e-12);
    T_NEAR(nvs_topo_nvlink_gbps(3, NULL, 0), 25.0, 1e-12);
    T_EQ_I(nvs_topo_nvlink_gbps(0, src, sizeof src) == 0, 1);
    T_CONTAINS(src, "unknown");
    T_EQ_I(nvs_topo_nvlink_gbps(9, NULL, 0) == 0, 1);
}

/* two GPUs, `links` NVLink4 links between them; PCIe gen5 x16 and gen4 x16 */
static nvs_topology *two_gpus(int links, int p2p)
{
    nvs_topology *t = nvs_topo_alloc(1, 2);
    snprintf(t->hosts[0].name, sizeof t->hosts[0].name, "h");
    for (int i = 0; i < 2; i++) {
        nvs_topo_gpu *g = &t->gpus[i];
        snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:0%d:00.0", 6 + i);
        g->pcie.gbps = nvs_topo_pcie_gbps(i ? 4 : 5, 16);
        snprintf(g->pcie.gbps_source, sizeof g->pcie.gbps_source, "gen%d x16", i ? 4 : 5);
        g->nvlink.known = 1;
        g->nvlink.version = 4;
        g->nvlink.gbps_per_link = nvs_topo_nvlink_gbps(4, NULL, 0);
        for (int k = 0; k < links; k++) {
            g->nvlink.links[k] = (nvs_topo_link){k, NVS_REMOTE_GPU, 1 - i, ""};
        }
        g->nvlink.nlinks = g->nvlink.links_up = links;
        g->path.n = 1;
        g->path.bridge[0] = 1;
        g->path.is_host[0] = 1;
        g->path.numa_node = 0;
    }
    nvs_topo_classify_all(t);
    nvs_topo_pair_cell(t, 0, 1)->p2p_cuda = nvs_topo_pair_cell(t, 1, 0)->p2p_cuda = p2p;
    return t;
}

static void t_pair_bounds(void)
{
    nvs_topology *t = two_gpus(18, 1);
    char src[160];
    T_EQ_S(nvs_topo_pair_class(t, 0, 1), "NV18");
    T_EQ_S(nvs_topo_pair_class(t, 1, 1), "X");
    T_NEAR(nvs_topo_pair_bound_gbps(t, 0, 1, 1, src, sizeof src), 478.125, 1e-9);
    T_CONTAINS(src, "18 NVLink4 links");
    nvs_topo_hop h;
    /* no P2P allowed: through host memory, bounded by the slower PCIe link (gen4 x16) */
    T_NEAR(nvs_topo_pair_hop(t, 0, 1, 0, &h), nvs_topo_pcie_gbps(4, 16), 1e-9);
    T_EQ_S(h.link, "host memory");
    T_CONTAINS(h.source, "upper bound");
    T_EQ_S(h.cls, "NV18");
    nvs_topo_free(t);

    t = two_gpus(18, 0); /* CUDA says no peer access: host path even when P2P is allowed */
    T_NEAR(nvs_topo_pair_hop(t, 0, 1, 1, &h), nvs_topo_pcie_gbps(4, 16), 1e-9);
    T_EQ_S(h.link, "host memory");
    nvs_topo_free(t);

    t = two_gpus(0, 1); /* PCIe only: PHB, P2P over PCIe */
    T_EQ_S(nvs_topo_pair_class(t, 0, 1), "PHB");
    T_NEAR(nvs_topo_pair_hop(t, 1, 0, 1, &h), nvs_topo_pcie_gbps(4, 16), 1e-9);
    T_EQ_S(h.link, "PCIe");
    T_CONTAINS(h.source, "gen4 x16");
    t->gpus[1].pcie.gbps = 0; /* unknown link rate: unknown bound, not 0 */
    T_EQ_I(nvs_topo_pair_bound_gbps(t, 0, 1, 1, NULL, 0) < 0, 1);
    T_EQ_I(nvs_topo_pair_bound_gbps(t, 0, 0, 1, NULL, 0) < 0, 1);
    T_EQ_I(nvs_topo_pair_bound_gbps(t, 0, 5, 1, NULL, 0) < 0, 1);
    nvs_topo_free(t);
}

/* NET: unknown unless given */
static void t_net_bound(void)
{
    nvs_topology *a = two_gpus(18, 1), *b = two_gpus(18, 1), *m;
    snprintf(b->hosts[0].name, sizeof b->hosts[0].name, "other");
    nvs_topology *parts[] = {a, NULL, b};
    T_EQ_I(nvs_topo_merge(parts, 3, &m), NVS_OK);
    T_EQ_I(m->ngpus, 4);
    T_EQ_I(m->nhosts, 2);
    T_EQ_S(nvs_topo_pair_class(m, 0, 1), "NV18");
    T_EQ_S(nvs_topo_pair_class(m, 2, 3), "NV18");
    T_EQ_S(nvs_topo_pair_class(m, 1, 2), "NET");
    T_EQ_S(nvs_topo_pair_class(m, 3, 0), "NET");
    T_EQ_I(m->gpus[2].nvlink.links[0].remote_gpu, 3); /* link peers moved with their host */
    nvs_topo_hop h;
    T_EQ_I(nvs_topo_pair_hop(m, 0, 2, 1, &h) < 0, 1);
    T_EQ_S(h.link, "network");
    m->net_gbps = 12.5;
    T_NEAR(nvs_topo_pair_bound_gbps(m, 0, 2, 1, NULL, 0), 12.5, 1e-12);
    /* a ring over both hosts crosses the network twice: its bottleneck is the network */
    int all[] = {0, 1, 2, 3};
    T_NEAR(nvs_topo_ring_bound_gbps(m, all, 4, 1, &h), 12.5, 1e-12);
    T_EQ_S(h.link, "network");
    T_EQ_S(h.cls, "NET");
    nvs_topo_free(a);
    nvs_topo_free(b);
    nvs_topo_free(m);
}

/* four GPUs joined in a square 0-1-2-3-0 by NVLink, diagonals on PCIe: the best ring must follow the square
 * whatever order the GPUs are given in */
static void t_ring_search(void)
{
    nvs_topology *t = nvs_topo_alloc(1, 4);
    int sq[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
    for (int i = 0; i < 4; i++) {
        nvs_topo_gpu *g = &t->gpus[i];
        snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:%02x:00.0", 16 + i);
        g->pcie.gbps = nvs_topo_pcie_gbps(3, 16);
        snprintf(g->pcie.gbps_source, sizeof g->pcie.gbps_source, "gen3 x16");
        g->nvlink.known = 1;
        g->nvlink.version = 2;
        g->nvlink.gbps_per_link = nvs_topo_nvlink_gbps(2, NULL, 0);
        g->path.n = 1;
        g->path.bridge[0] = 1;
        g->path.is_host[0] = 1;
        g->path.numa_node = 0;
    }
    for (int e = 0; e < 4; e++)
        for (int s = 0; s < 2; s++) {
            nvs_topo_gpu *g = &t->gpus[sq[e][s]];
            for (int k = 0; k < 2; k++) {
                int at = g->nvlink.nlinks++;
                g->nvlink.links[at] = (nvs_topo_link){at, NVS_REMOTE_GPU, sq[e][1 - s], ""};
            }
        }
    nvs_topo_classify_all(t);
    T_EQ_S(nvs_topo_pair_class(t, 0, 1), "NV2");
    T_EQ_S(nvs_topo_pair_class(t, 0, 2), "PHB");
    int given[] = {0, 2, 1, 3}, order[4];
    nvs_topo_hop h;
    double v = nvs_topo_ring_bound_order(t, given, 4, 1, &h, order);
    T_NEAR(v, 2 * 25.78125, 1e-9);
    T_EQ_S(h.link, "NVLink");
    for (int i = 0; i < 4; i++) {
        const char *c = nvs_topo_pair_class(t, order[i], order[(i + 1) % 4]);
        if (strcmp(c, "NV2")) T_FAIL("ring hop %d->%d is %s, not NVLink", order[i], order[(i + 1) % 4], c);
    }
    /* without P2P every hop is host memory */
    T_NEAR(nvs_topo_ring_bound_gbps(t, given, 4, 0, &h), nvs_topo_pcie_gbps(3, 16), 1e-9);
    T_EQ_S(h.link, "host memory");
    /* fewer than two GPUs: no ring */
    T_EQ_I(nvs_topo_ring_bound_gbps(t, given, 1, 1, &h) == 0, 1);
    T_EQ_S(h.link, "none");
    int bad[] = {0, 9};
    T_EQ_I(nvs_topo_ring_bound_gbps(t, bad, 2, 1, NULL) < 0, 1);
    nvs_topo_free(t);
}

static nvs_topology *load(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/topo/%s", name);
    nvs_topology *t = NULL;
    if (nvs_topo_discover(path, &t) != NVS_OK) return NULL;
    return t;
}

static void t_ring_fixtures(void)
{
    nvs_topology *t = load("nvlink_pairs.xml");
    if (!t) T_FAIL("cannot load nvlink_pairs.xml");
    int pair[] = {0, 1}, all[] = {0, 1, 2, 3};
    nvs_topo_hop h;
    T_NEAR(nvs_topo_ring_bound_gbps(t, pair, 2, 1, &h), 4 * 25.0, 1e-9); /* hwloc: 25000 MB/s per link */
    T_EQ_S(h.link, "NVLink");
    T_EQ_S(h.cls, "NV4");
    /* all four: the ring has to cross the sockets over PCIe (SYS) */
    T_NEAR(nvs_topo_ring_bound_gbps(t, all, 4, 1, &h), 31.507692, 1e-5);
    T_EQ_S(h.link, "PCIe");
    T_EQ_S(h.cls, "SYS");
    nvs_topo_free(t);

    t = load("nvswitch8.xml");
    if (!t) T_FAIL("cannot load nvswitch8.xml");
    int eight[] = {7, 6, 5, 4, 3, 2, 1, 0};
    /* H100 (GPUModel): NVLink4's 26.5625 GB/s a link, not hwloc's nominal 25000 MB/s */
    T_NEAR(nvs_topo_ring_bound_gbps(t, eight, 8, 1, &h), 18 * 26.5625, 1e-9);
    T_CONTAINS(h.source, "via NVSwitch");
    T_NEAR(nvs_topo_ring_bound_gbps(t, eight, 8, 0, &h), 63.015385, 1e-5);
    T_EQ_S(h.link, "host memory");
    nvs_topo_free(t);
}

static void expect_pick(nvs_topology *t, int n, int best, const int *want)
{
    int got[16];
    T_EQ_I(nvs_topo_pick_gpus(t, n, best, got), 0);
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) T_FAIL("pick n=%d best=%d: position %d is GPU%d, expected GPU%d", n, best, i, got[i], want[i]);
}

/* The searches ask for values only (no hop: no text is made); each value equals the one given with its text, for
 * every pair of every fixture and both paths (P2P, host memory), and across hosts (given rate, NICs unknown). */
static void t_value_only(void)
{
    const char *files[] = {"pcie8.xml", "nvlink_pairs.xml", "nvswitch8.xml", "h200x2.xml", "hgx8nic.xml"};
    nvs_topology *parts[5] = {0}, *m = NULL;
    for (int f = 0; f < 5; f++) {
        parts[f] = load(files[f]);
        if (!parts[f]) T_FAIL("cannot load %s", files[f]);
        snprintf(parts[f]->hosts[0].name, sizeof parts[f]->hosts[0].name, "host%d", f);
    }
    T_EQ_I(nvs_topo_merge(parts, 5, &m), NVS_OK);
    int checked = 0;
    for (int given = 0; given < 2; given++) {
        m->net_gbps = given ? 12.5 : 0;
        for (int a = 0; a < m->ngpus; a++)
            for (int b = 0; b < m->ngpus; b++)
                for (int p2p = 0; p2p < 2; p2p++) {
                    nvs_topo_hop h;
                    double with = nvs_topo_pair_hop(m, a, b, p2p, &h), alone = nvs_topo_pair_hop(m, a, b, p2p, NULL);
                    if (with != alone) T_FAIL("GPU%d-GPU%d p2p %d: %g with its text, %g without", a, b, p2p, with, alone);
                    T_ASSERT(h.source[0] != '\0');
                    checked++;
                }
    }
    T_ASSERT(checked > 2000);
    for (int f = 0; f < 5; f++) nvs_topo_free(parts[f]);
    nvs_topo_free(m);
}

static void t_placement(void)
{
    nvs_topology *t = load("nvlink_pairs.xml");
    if (!t) T_FAIL("cannot load nvlink_pairs.xml");
    expect_pick(t, 2, 1, (int[]){0, 1}); /* NV4 */
    expect_pick(t, 2, 0, (int[]){0, 2}); /* SYS, lowest indices among the worst */
    expect_pick(t, 4, 1, (int[]){0, 1, 2, 3});
    int out[8];
    T_EQ_I(nvs_topo_pick_gpus(t, 5, 1, out), -1);
    T_EQ_I(nvs_topo_pick_gpus(t, 0, 1, out), -1);
    nvs_topo_free(t);

    /* every PCIe link equal: the closer classes win (PIX, then PXB before NODE), worst goes across sockets */
    t = load("pcie8.xml");
    if (!t) T_FAIL("cannot load pcie8.xml");
    expect_pick(t, 2, 1, (int[]){0, 1});
    expect_pick(t, 2, 0, (int[]){0, 4});
    expect_pick(t, 4, 1, (int[]){4, 5, 6, 7});
    expect_pick(t, 1, 1, (int[]){0});
    nvs_topo_free(t);
}

/* issue 14: --placement best|worst on a few hundred GPUs solved a ring for every candidate at every step
 * (O(N n^4) pair look-ups: 3.6 s at 64 GPUs, hours at 256). Now the bounds are computed once and candidates
 * inserted into the ring: 256 GPUs in well under a second. */
static void t_placement_scale(void)
{
    enum { N = 256 };
    nvs_topology *t = nvs_topo_alloc(1, N);
    T_ASSERT(t);
    snprintf(t->hosts[0].name, sizeof t->hosts[0].name, "h");
    for (int i = 0; i < N; i++) {
        nvs_topo_gpu *g = &t->gpus[i];
        snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:%02x:00.0", i);
        g->pcie.gbps = nvs_topo_pcie_gbps(4, 16);
        g->nvlink.known = 1;
        g->nvlink.version = 3;
        g->nvlink.gbps_per_link = nvs_topo_nvlink_gbps(3, NULL, 0);
        for (int k = 0; k < 4; k++) g->nvlink.links[k] = (nvs_topo_link){k, NVS_REMOTE_GPU, i ^ 1, ""}; /* pairs */
        g->nvlink.nlinks = g->nvlink.links_up = 4;
        g->path.n = 1;
        g->path.bridge[0] = 1 + (unsigned)(i / 8); /* 8 GPUs per host bridge */
        g->path.is_host[0] = 1;
        g->path.numa_node = 0;
    }
    nvs_topo_classify_all(t);
    T_EQ_S(nvs_topo_pair_class(t, 6, 7), "NV4");
    int *got = malloc(sizeof(int) * N);
    T_ASSERT(got);
    double t0 = nvs_now_s();
    T_EQ_I(nvs_topo_pick_gpus(t, N, 1, got), 0);
    T_EQ_I(nvs_topo_pick_gpus(t, 64, 0, got), 0);
    T_EQ_I(nvs_topo_pick_gpus(t, 64, 1, got), 0);
    double dt = nvs_now_s() - t0;
    if (dt > 10) T_FAIL("three placements of 256 GPUs took %.1f s", dt);
    for (int i = 1; i < 64; i++)
        if (got[i] <= got[i - 1]) T_FAIL("pick not ascending and distinct at %d: %d after %d", i, got[i], got[i - 1]);
    T_EQ_I(nvs_topo_pick_gpus(t, 2, 1, got), 0); /* the NVLink pair of GPU 0 */
    T_EQ_I(got[0], 0);
    T_EQ_I(got[1], 1);
    free(got);
    nvs_topo_free(t);
}

T_LIST = {T_CASE(t_value_only), T_CASE(t_placement_scale), T_CASE(t_pcie_rates), T_CASE(t_nvlink_rates), T_CASE(t_pair_bounds), T_CASE(t_net_bound),
          T_CASE(t_ring_search), T_CASE(t_ring_fixtures), T_CASE(t_placement)};
T_MAIN
