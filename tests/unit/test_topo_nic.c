/* NICs in the topology (topo/topo_nic.c, topo_nic_sysfs.c, the hwloc NIC reader, JSON and gather): the GPU-NIC
 * and NIC-NIC classes of the HGX and PCIe fixtures class by class, the NET bound of every GPU from its nearest
 * NICs, rate and state parsing, the sysfs reader on a fake tree, and NET bounds across real and virtual hosts. */
#include <sys/stat.h>
#include <unistd.h>

#include "core/out_file.h"
#include "topo/topo.h"
#include "topo/topo_live.h"
#include "t.h"

/* In-process, as the fuzz harness reads XML: the topology keeps the PCIe paths that nvs_topo_nic_assign reads
 * again when a NIC goes down (--hwloc-xml's reader runs hwloc in a child process and gets classes back, not
 * paths: topo_discover.c). The child-process path has its own tests (robust_inputs.sh, the topo goldens). */
static nvs_topology *load(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/topo/%s", name);
    char *text = NULL;
    if (nvs_read_text_file(path, 16u << 20, &text) != NVS_OK) T_FAIL("%s: unreadable", path);
    nvs_topology *t = NULL;
    nvs_result_t r = nvs_topo_discover_xml_buffer(path, text, strlen(text), &t);
    free(text);
    if (r != NVS_OK) T_FAIL("%s: %s", path, nvs_result_name(r));
    return t;
}

/* want[g] = the classes of GPU g to NIC 0..n-1, space-separated */
static void expect_gpu_nic(const nvs_topology *t, const char *const *want)
{
    for (int g = 0; g < t->ngpus; g++) {
        char row[256] = "";
        for (int k = 0; k < t->nnics; k++) {
            strcat(row, k ? " " : "");
            strcat(row, nvs_topo_gpu_nic_class(t, g, k));
        }
        if (strcmp(row, want[g])) T_FAIL("GPU%d to the NICs: got \"%s\", expected \"%s\"", g, row, want[g]);
    }
}

static void expect_nic_nic(const nvs_topology *t, const char *const *want)
{
    for (int a = 0; a < t->nnics; a++) {
        char row[256] = "";
        for (int b = 0; b < t->nnics; b++) {
            strcat(row, b ? " " : "");
            strcat(row, nvs_topo_nic_nic_class(t, a, b));
        }
        if (strcmp(row, want[a])) T_FAIL("NIC%d to the NICs: got \"%s\", expected \"%s\"", a, row, want[a]);
    }
}

static void t_hgx8nic(void)
{
    nvs_topology *t = load("hgx8nic.xml");
    T_EQ_I(t->ngpus, 8);
    T_EQ_I(t->nnics, 8);
    for (int k = 0; k < 8; k++) {
        char name[16], netdev[16];
        snprintf(name, sizeof name, "mlx5_%d", k);
        snprintf(netdev, sizeof netdev, "ib%d", k);
        T_EQ_S(t->nics[k].name, name);
        T_EQ_S(t->nics[k].netdev, netdev);
        T_EQ_S(t->nics[k].kind, "InfiniBand");
        T_EQ_S(t->nics[k].state, "ACTIVE");
        T_NEAR(t->nics[k].gbps, 50.0, 1e-9); /* 400 Gb/sec NDR / 8 */
        T_EQ_I(t->nics[k].numa_node, k < 4 ? 0 : 1);
    }
    T_EQ_S(t->nics[0].pci_bus_id, "0000:1d:00.0");
    T_EQ_S(t->nics[0].rate, "400 Gb/sec (4X NDR)");
    /* two HCAs on the PCIe switch of each GPU pair: PIX; the socket's other switch: NODE; the other socket: SYS */
    static const char *const gn[] = {
        "PIX PIX NODE NODE SYS SYS SYS SYS", "PIX PIX NODE NODE SYS SYS SYS SYS", "NODE NODE PIX PIX SYS SYS SYS SYS",
        "NODE NODE PIX PIX SYS SYS SYS SYS", "SYS SYS SYS SYS PIX PIX NODE NODE", "SYS SYS SYS SYS PIX PIX NODE NODE",
        "SYS SYS SYS SYS NODE NODE PIX PIX", "SYS SYS SYS SYS NODE NODE PIX PIX",
    };
    expect_gpu_nic(t, gn);
    static const char *const nn[] = {
        "X PIX NODE NODE SYS SYS SYS SYS", "PIX X NODE NODE SYS SYS SYS SYS", "NODE NODE X PIX SYS SYS SYS SYS",
        "NODE NODE PIX X SYS SYS SYS SYS", "SYS SYS SYS SYS X PIX NODE NODE", "SYS SYS SYS SYS PIX X NODE NODE",
        "SYS SYS SYS SYS NODE NODE X PIX", "SYS SYS SYS SYS NODE NODE PIX X",
    };
    expect_nic_nic(t, nn);
    /* GPU pairs are unchanged by the NICs */
    T_EQ_S(nvs_topo_pair_class(t, 0, 7), "NV18");
    /* NET per GPU: two PIX HCAs shared by the two GPUs of the switch: DIVUP(2, 2) = 1 HCA each = 50 GB/s */
    for (int g = 0; g < 8; g++) {
        T_NEAR(t->gpus[g].net.gbps, 50.0, 1e-9);
        T_EQ_I(t->gpus[g].net.nics, 1);
        T_EQ_S(t->gpus[g].net.cls, "PIX");
    }
    T_EQ_S(t->gpus[0].net.names, "mlx5_0,mlx5_1");
    T_EQ_S(t->gpus[7].net.names, "mlx5_6,mlx5_7");
    /* both HCAs of GPU0's switch down: the nearest usable ones are the socket's other switch's (NODE), which
     * GPU2 and GPU3 reach at PIX: still one each, now at NODE */
    snprintf(t->nics[0].state, sizeof t->nics[0].state, "DOWN");
    snprintf(t->nics[1].state, sizeof t->nics[1].state, "DOWN");
    nvs_topo_nic_assign(t);
    T_EQ_S(t->gpus[0].net.cls, "NODE");
    T_EQ_S(t->gpus[0].net.names, "mlx5_2,mlx5_3");
    T_NEAR(t->gpus[0].net.gbps, 50.0, 1e-9);
    /* a rate unknown: the bound is unknown, never 0 from a guess */
    t->nics[2].gbps = 0;
    nvs_topo_nic_assign(t);
    T_EQ_I(t->gpus[0].net.gbps > 0, 0);
    T_CONTAINS(t->gpus[0].net.source, "link rate unknown");
    nvs_topo_free(t);
}

/* The OEM layout of the published nvidia-smi output (classes checked row by row in tests/t/topo_xml.sh): GPU0
 * has two PIX HCAs to itself (NCCL: DIVUP(2, 1) = 2), GPU1 four NODE ones whose first is GPU0's (DIVUP(4, 1) =
 * 4); both sums exceed the GPU's own PCIe gen5 x16 link, which caps them. */
static void t_hgx8nic_oem(void)
{
    nvs_topology *t = load("hgx8nic_oem.xml");
    T_EQ_I(t->nnics, 8);
    T_EQ_S(nvs_topo_gpu_nic_class(t, 0, 1), "PIX");
    T_EQ_S(nvs_topo_gpu_nic_class(t, 1, 0), "NODE");
    T_EQ_S(nvs_topo_gpu_nic_class(t, 5, 7), "NODE");
    T_EQ_S(nvs_topo_gpu_nic_class(t, 3, 4), "SYS");
    T_EQ_I(t->gpus[0].net.nics, 2);
    T_EQ_S(t->gpus[0].net.cls, "PIX");
    T_EQ_I(t->gpus[1].net.nics, 4);
    T_EQ_S(t->gpus[1].net.cls, "NODE");
    T_EQ_S(t->gpus[1].net.names, "mlx5_0,mlx5_1,mlx5_2,mlx5_3");
    for (int g = 0; g < 8; g++) T_NEAR(t->gpus[g].net.gbps, 63.015385, 1e-6); /* hwloc's gen5 x16 link speed */
    T_CONTAINS(t->gpus[1].net.source, "200 GB/s, capped by the GPU's PCIe link at 63.02 GB/s");
    /* the one-screen form: GPU rows with their NIC columns, the NIC names on one line */
    FILE *f = tmpfile();
    T_ASSERT(f != NULL);
    nvs_topo_print_matrix_brief(t, f);
    rewind(f);
    char line[512];
    int lines = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        if (lines == 2) T_CONTAINS(line, "GPU0   X    NV18");
        if (lines == 2) T_CONTAINS(line, "PIX   PIX   NODE  NODE  SYS");
    }
    fclose(f);
    T_EQ_I(lines, 10);
    T_CONTAINS(line, "NICs: NIC0 mlx5_0, NIC1 mlx5_1,");
    nvs_topo_free(t);
}

/* NCCL ranks a GPU's NICs by path bandwidth before class (ncclTopoGetLocal): GPU0's two PIX ports slowed to
 * 100G, the 400G HCAs one switch away (NODE, shared with GPU2/3 that are PIX to them) carry its traffic: 50 GB/s.
 * Classes alone took the 100G pair: 12.5 GB/s. Unknown rates leave the classes to decide. */
static void t_nic_bandwidth_first(void)
{
    nvs_topology *t = load("hgx8nic.xml");
    t->nics[0].gbps = t->nics[1].gbps = 12.5;
    nvs_topo_nic_assign(t);
    T_EQ_S(t->gpus[0].net.cls, "NODE");
    T_EQ_S(t->gpus[0].net.names, "mlx5_2,mlx5_3");
    T_EQ_I(t->gpus[0].net.nics, 1);
    T_NEAR(t->gpus[0].net.gbps, 50.0, 1e-9);
    T_EQ_S(t->gpus[2].net.names, "mlx5_2,mlx5_3"); /* GPU2 unchanged */
    T_NEAR(t->gpus[2].net.gbps, 50.0, 1e-9);
    t->nics[1].gbps = 0; /* one rate unknown: the class decides, as before */
    nvs_topo_nic_assign(t);
    T_EQ_S(t->gpus[0].net.cls, "PIX");
    T_EQ_S(t->gpus[0].net.names, "mlx5_0,mlx5_1");
    nvs_topo_free(t);
}

static void t_pcie_nic(void)
{
    nvs_topology *t = load("pcie_nic.xml");
    T_EQ_I(t->ngpus, 4);
    T_EQ_I(t->nnics, 1);
    const nvs_topo_nic *n = &t->nics[0];
    T_EQ_S(n->name, "mlx5_0");
    T_EQ_S(n->netdev, "ens5f0np0");
    T_EQ_S(n->kind, "RoCE"); /* RDMA device on an Ethernet-class function */
    T_NEAR(n->gbps, 12.5, 1e-9); /* 100000 Mb/s from the netdev's LinkRate */
    T_EQ_I(n->numa_node, 1);
    /* the NIC sits behind the other socket for GPU0/1 */
    static const char *const gn[] = {"SYS", "SYS", "PHB", "PHB"};
    expect_gpu_nic(t, gn);
    static const char *const nn[] = {"X"};
    expect_nic_nic(t, nn);
    T_EQ_S(nvs_topo_pair_class(t, 0, 1), "PIX");
    T_EQ_S(nvs_topo_pair_class(t, 2, 3), "PHB");
    T_EQ_S(nvs_topo_pair_class(t, 1, 2), "SYS");
    for (int g = 0; g < 4; g++) T_NEAR(t->gpus[g].net.gbps, 12.5, 1e-9);
    T_EQ_S(t->gpus[0].net.cls, "SYS");
    T_EQ_S(t->gpus[3].net.cls, "PHB");
    T_CONTAINS(t->gpus[0].net.source, "shared with other GPUs");
    nvs_topo_free(t);
}

static void t_h200x2_eth(void)
{
    /* the reference VM: one virtio Ethernet port on the GPUs' host bridge; hwloc has no rate for it offline */
    nvs_topology *t = load("h200x2.xml");
    T_EQ_I(t->nnics, 1);
    T_EQ_S(t->nics[0].name, "eth0");
    T_EQ_S(t->nics[0].netdev, "eth0");
    T_EQ_S(t->nics[0].kind, "Ethernet");
    T_EQ_S(t->nics[0].state, "");
    T_EQ_I(t->nics[0].gbps > 0, 0);
    T_EQ_S(nvs_topo_gpu_nic_class(t, 0, 0), "PHB");
    T_EQ_I(t->gpus[0].net.gbps > 0, 0);
    T_EQ_S(t->gpus[0].net.cls, "PHB");
    nvs_topo_free(t);
}

static void t_parse(void)
{
    T_NEAR(nvs_topo_parse_rate("400 Gb/sec (4X NDR)"), 50.0, 1e-12);
    T_NEAR(nvs_topo_parse_rate("2.5 Gb/sec (1X SDR)"), 0.3125, 1e-12);
    T_NEAR(nvs_topo_parse_rate("100000 Mb/s"), 12.5, 1e-12);
    T_NEAR(nvs_topo_parse_rate("200 Gbit/s"), 25.0, 1e-12);
    T_NEAR(nvs_topo_parse_rate("fast"), 0, 0);
    T_NEAR(nvs_topo_parse_rate("-1"), 0, 0);
    T_NEAR(nvs_topo_parse_rate("100"), 0, 0); /* a number without a unit is not a rate */
    T_NEAR(nvs_topo_parse_rate(""), 0, 0);
    T_NEAR(nvs_topo_parse_rate(NULL), 0, 0);
    char s[16];
    nvs_topo_ib_state("4: ACTIVE", s, sizeof s);
    T_EQ_S(s, "ACTIVE");
    nvs_topo_ib_state("1", s, sizeof s);
    T_EQ_S(s, "DOWN");
    nvs_topo_ib_state("9: WHAT", s, sizeof s);
    T_EQ_S(s, "");
    nvs_topo_ib_state(NULL, s, sizeof s);
    T_EQ_S(s, "");
}

static void put(const char *root, const char *rel, const char *text)
{
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    T_ASSERT(f != NULL);
    fputs(text, f);
    T_ASSERT(fclose(f) == 0);
}

static void t_sysfs(void)
{
    char root[128];
    snprintf(root, sizeof root, "tests/tmp/fake_sysfs.%d", (int)getpid());
    mkdir("tests/tmp", 0755);
    mkdir(root, 0755);
    /* a two-port HCA: port 1 down, port 2 active RoCE; the netdev's own speed wins for RoCE */
    put(root, "class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n");
    put(root, "class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
    put(root, "class/infiniband/mlx5_0/ports/1/rate", "10 Gb/sec (4X SDR)\n");
    put(root, "class/infiniband/mlx5_0/ports/2/state", "4: ACTIVE\n");
    put(root, "class/infiniband/mlx5_0/ports/2/link_layer", "Ethernet\n");
    put(root, "class/infiniband/mlx5_0/ports/2/rate", "100 Gb/sec (4X EDR)\n");
    put(root, "class/net/ens1np1/speed", "200000\n");
    nvs_topo_nic a = {.numa_node = -1};
    snprintf(a.name, sizeof a.name, "mlx5_0");
    snprintf(a.netdev, sizeof a.netdev, "ens1np1");
    snprintf(a.kind, sizeof a.kind, "RDMA");
    nvs_topo_nic_sysfs(root, &a, 1);
    T_EQ_S(a.kind, "RoCE");
    T_EQ_S(a.state, "ACTIVE");
    T_NEAR(a.gbps, 25.0, 1e-12);
    T_EQ_S(a.rate, "200000 Mb/s");
    T_CONTAINS(a.rate_source, "class/net/ens1np1/speed");
    /* InfiniBand: the port's rate */
    put(root, "class/infiniband/mlx5_1/ports/1/state", "4: ACTIVE\n");
    put(root, "class/infiniband/mlx5_1/ports/1/link_layer", "InfiniBand\n");
    put(root, "class/infiniband/mlx5_1/ports/1/rate", "400 Gb/sec (4X NDR)\n");
    nvs_topo_nic b = {.numa_node = -1};
    snprintf(b.name, sizeof b.name, "mlx5_1");
    snprintf(b.netdev, sizeof b.netdev, "ib1");
    nvs_topo_nic_sysfs(root, &b, 1);
    T_EQ_S(b.kind, "InfiniBand");
    T_NEAR(b.gbps, 50.0, 1e-12);
    T_CONTAINS(b.rate_source, "ports/1/rate");
    /* Ethernet whose speed is unknown (-1, as for a link that is down): state read, rate left unknown */
    put(root, "class/net/eno1/speed", "-1\n");
    put(root, "class/net/eno1/operstate", "down\n");
    nvs_topo_nic c = {.numa_node = -1};
    snprintf(c.name, sizeof c.name, "eno1");
    snprintf(c.netdev, sizeof c.netdev, "eno1");
    snprintf(c.kind, sizeof c.kind, "Ethernet");
    nvs_topo_nic_sysfs(root, &c, 0);
    T_EQ_S(c.state, "DOWN");
    T_EQ_I(c.gbps > 0, 0);
    T_EQ_S(c.rate_source, "sysfs class/net/eno1/speed is -1: no rate (virtual port or link down)");
    /* RoCE whose netdev knows no speed (-1: an SR-IOV VF in a VM): the port's rate stays, with its own source
     * (the source said "speed is -1: no rate" beside the port's 12.5 GB/s) */
    put(root, "class/infiniband/mlx5_2/ports/1/state", "4: ACTIVE\n");
    put(root, "class/infiniband/mlx5_2/ports/1/link_layer", "Ethernet\n");
    put(root, "class/infiniband/mlx5_2/ports/1/rate", "100 Gb/sec (4X EDR)\n");
    put(root, "class/net/ens2/speed", "-1\n");
    nvs_topo_nic e = {.numa_node = -1};
    snprintf(e.name, sizeof e.name, "mlx5_2");
    snprintf(e.netdev, sizeof e.netdev, "ens2");
    nvs_topo_nic_sysfs(root, &e, 1);
    T_EQ_S(e.kind, "RoCE");
    T_NEAR(e.gbps, 12.5, 1e-12);
    T_EQ_S(e.rate, "100 Gb/sec (4X EDR)");
    T_EQ_S(e.rate_source, "sysfs class/infiniband/mlx5_2/ports/1/rate");
    /* a name that is a path is never read */
    nvs_topo_nic d = {.numa_node = -1};
    snprintf(d.name, sizeof d.name, "../../etc");
    nvs_topo_nic_sysfs(root, &d, 1);
    T_EQ_S(d.state, "");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    T_ASSERT(system(cmd) == 0);
}

/* A GPU's own PCIe width from sysfs (topo_pci_sysfs.c): the device's max_link_width, whatever the slot */
static void t_pci_max_link_width(void)
{
    char root[128];
    snprintf(root, sizeof root, "tests/tmp/fake_pci_sysfs.%d", (int)getpid());
    mkdir("tests/tmp", 0755);
    mkdir(root, 0755);
    put(root, "bus/pci/devices/0000:18:00.0/max_link_width", "16\n");
    put(root, "bus/pci/devices/0000:19:00.0/max_link_width", "255\n"); /* not a PCIe width */
    put(root, "bus/pci/devices/0000:1a:00.0/max_link_width", "x16\n");
    T_EQ_I(nvs_topo_pci_max_link_width(root, "0000:18:00.0"), 16);
    T_EQ_I(nvs_topo_pci_max_link_width(root, "0000:19:00.0"), -1);
    T_EQ_I(nvs_topo_pci_max_link_width(root, "0000:1a:00.0"), -1);
    T_EQ_I(nvs_topo_pci_max_link_width(root, "0000:1b:00.0"), -1); /* no such device: not known */
    T_EQ_I(nvs_topo_pci_max_link_width(root, "index 0"), -1);      /* no bus id */
    T_EQ_I(nvs_topo_pci_max_link_width(root, "../../etc"), -1);    /* a path is never read */
    T_EQ_I(nvs_topo_pci_width_parse("8"), 8);
    T_EQ_I(nvs_topo_pci_width_parse("0\n"), -1);
    T_EQ_I(nvs_topo_pci_width_parse("16\n16\n"), -1);
    T_EQ_I(nvs_topo_pci_width_parse(""), -1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    T_ASSERT(system(cmd) == 0);
}

/* JSON both ways keeps NICs and classes; merged hosts see each other's NICs as NET; the NET bound of a pair on
 * two hosts is the slower side's; between virtual hosts of one machine it is unknown. */
static void t_json_and_hosts(void)
{
    nvs_topology *hgx = load("hgx8nic.xml"), *box = load("pcie_nic.xml"), *back = NULL, *m = NULL;
    json_t *j = nvs_topo_to_json(hgx);
    char err[256] = "";
    T_EQ_I(nvs_topo_from_json(j, &back, err, sizeof err), NVS_OK);
    json_decref(j);
    T_EQ_I(back->nnics, 8);
    T_EQ_S(back->nics[3].name, "mlx5_3");
    T_NEAR(back->nics[3].gbps, 50.0, 1e-9);
    T_EQ_S(nvs_topo_gpu_nic_class(back, 5, 4), "PIX");
    T_EQ_S(nvs_topo_nic_nic_class(back, 0, 7), "SYS");
    T_NEAR(back->gpus[2].net.gbps, 50.0, 1e-9);
    T_EQ_S(back->gpus[2].net.names, "mlx5_2,mlx5_3");

    nvs_topology *parts[2] = {back, box};
    T_EQ_I(nvs_topo_merge(parts, 2, &m), NVS_OK);
    T_EQ_I(m->nnics, 9);
    T_EQ_I(m->nics[8].host, 1);
    T_EQ_S(nvs_topo_gpu_nic_class(m, 0, 8), "NET");
    T_EQ_S(nvs_topo_gpu_nic_class(m, 8, 8), "SYS"); /* the box's GPU0 keeps its class to its own NIC */
    T_EQ_S(nvs_topo_gpu_nic_class(m, 10, 8), "PHB");
    T_EQ_S(nvs_topo_nic_nic_class(m, 0, 8), "NET");
    nvs_topo_hop h;
    T_NEAR(nvs_topo_pair_hop(m, 0, 8, 1, &h), 12.5, 1e-9); /* 50 GB/s HCA vs the 12.5 GB/s RoCE port */
    T_EQ_S(h.link, "network");
    T_CONTAINS(h.source, "GPU8");
    T_CONTAINS(h.source, "mlx5_0 (SYS");

    /* two virtual hosts of one machine: NET, and no NIC bound */
    int g0 = 0, g1 = 1;
    nvs_topology *v0 = nvs_topo_subset(hgx, &g0, 1), *v1 = nvs_topo_subset(hgx, &g1, 1), *vm = NULL;
    T_ASSERT(v0 && v1);
    T_EQ_I(v0->nnics, 8);
    T_EQ_S(nvs_topo_gpu_nic_class(v1, 0, 1), "PIX");
    snprintf(v0->hosts[0].name, sizeof v0->hosts[0].name, "hgx/vnode0");
    snprintf(v1->hosts[0].name, sizeof v1->hosts[0].name, "hgx/vnode1");
    snprintf(v0->hosts[0].machine, sizeof v0->hosts[0].machine, "hgx");
    snprintf(v1->hosts[0].machine, sizeof v1->hosts[0].machine, "hgx");
    nvs_topology *vparts[2] = {v0, v1};
    T_EQ_I(nvs_topo_merge(vparts, 2, &vm), NVS_OK);
    T_EQ_S(nvs_topo_pair_class(vm, 0, 1), "NET");
    T_ASSERT(nvs_topo_pair_hop(vm, 0, 1, 1, &h) < 0);
    T_CONTAINS(h.source, "virtual hosts of hgx");
    /* ... and the host's machine survives JSON (the gather's path) */
    j = nvs_topo_to_json(vm);
    nvs_topology *vback = NULL;
    T_EQ_I(nvs_topo_from_json(j, &vback, err, sizeof err), NVS_OK);
    json_decref(j);
    T_EQ_S(vback->hosts[1].machine, "hgx");
    T_ASSERT(nvs_topo_pair_hop(vback, 0, 1, 1, &h) < 0);
    nvs_topo_free(vback);
    nvs_topo_free(vm);
    nvs_topo_free(v0);
    nvs_topo_free(v1);
    nvs_topo_free(m);
    nvs_topo_free(back);
    nvs_topo_free(box);
    nvs_topo_free(hgx);
}

static void t_subset_nvlink(void)
{
    /* a peer left out of a subset stays known by its bus id, never by a stale index */
    nvs_topology *t = load("nvlink_pairs.xml");
    int keep[] = {1, 2};
    nvs_topology *s = nvs_topo_subset(t, keep, 2);
    T_ASSERT(s != NULL);
    T_EQ_I(s->ngpus, 2);
    T_EQ_S(s->gpus[0].pci_bus_id, "0000:31:00.0");
    T_EQ_I(s->gpus[0].nvlink.links[0].remote_gpu, -1);
    T_EQ_S(s->gpus[0].nvlink.links[0].remote_pci_bus_id, "0000:16:00.0");
    T_EQ_S(nvs_topo_pair_class(s, 0, 1), "SYS");
    int bad[] = {0, 9};
    T_ASSERT(nvs_topo_subset(t, bad, 2) == NULL);
    nvs_topo_free(s);
    nvs_topo_free(t);
}

/* Every class of `u` equals `t`'s: GPU pairs (class, PCIe class, CUDA P2P), GPU-NIC and NIC-NIC. */
static void expect_same_classes(const nvs_topology *t, const nvs_topology *u)
{
    T_EQ_I(u->ngpus, t->ngpus);
    T_EQ_I(u->nnics, t->nnics);
    for (int a = 0; a < t->ngpus; a++) {
        for (int b = 0; b < t->ngpus; b++) {
            T_EQ_S(nvs_topo_pair_class(u, a, b), nvs_topo_pair_class(t, a, b));
            if (a == b) continue;
            T_EQ_S(nvs_topo_pair_at(u, a, b)->pcie_cls, nvs_topo_pair_at(t, a, b)->pcie_cls);
            T_EQ_I(nvs_topo_pair_at(u, a, b)->p2p_cuda, nvs_topo_pair_at(t, a, b)->p2p_cuda);
        }
        for (int k = 0; k < t->nnics; k++) T_EQ_S(nvs_topo_gpu_nic_class(u, a, k), nvs_topo_gpu_nic_class(t, a, k));
    }
    for (int a = 0; a < t->nnics; a++)
        for (int b = 0; b < t->nnics; b++) T_EQ_S(nvs_topo_nic_nic_class(u, a, b), nvs_topo_nic_nic_class(t, a, b));
}

/* Classes are stored host by host (topo/topo_store.c): across hosts nothing is stored and everything reads NET;
 * run.json's NIC rows list the NIC's own host only, and rows listing every GPU and NIC (files written before
 * 3 December 2026) read the same. */
static void t_classes_per_host(void)
{
    nvs_topology *parts[3] = {load("hgx8nic.xml"), load("pcie_nic.xml"), load("hgx8nic.xml")}, *m = NULL;
    snprintf(parts[2]->hosts[0].name, sizeof parts[2]->hosts[0].name, "hgx-b");
    T_EQ_I(nvs_topo_merge(parts, 3, &m), NVS_OK);
    T_EQ_I(m->nhosts, 3);
    T_EQ_I(m->nnics, 17);
    int g2 = m->ngpus - 8, n2 = m->nnics - 8; /* the second HGX's first GPU and NIC */
    /* within a host: the part's classes, in cells of their own */
    T_EQ_S(nvs_topo_pair_class(m, g2 + 0, g2 + 1), nvs_topo_pair_class(parts[2], 0, 1));
    T_EQ_S(nvs_topo_gpu_nic_class(m, g2 + 5, n2 + 4), "PIX");
    T_EQ_S(nvs_topo_nic_nic_class(m, n2 + 0, n2 + 7), "SYS");
    T_ASSERT(nvs_topo_pair_cell(m, 0, 1) != nvs_topo_pair_cell(m, g2, g2 + 1));
    /* across hosts: no cell, NET everywhere, no P2P */
    T_ASSERT(nvs_topo_pair_cell(m, 0, g2) == NULL);
    T_ASSERT(nvs_topo_gpu_nic_cell(m, 0, n2) == NULL);
    T_ASSERT(nvs_topo_nic_nic_cell(m, 0, n2) == NULL);
    T_EQ_S(nvs_topo_pair_class(m, 0, g2), "NET");
    T_EQ_I(nvs_topo_pair_at(m, g2, 0)->p2p_cuda, 0);
    T_EQ_S(nvs_topo_pair_at(m, g2, 0)->pcie_cls, "");
    T_EQ_S(nvs_topo_gpu_nic_class(m, g2, 0), "NET");
    T_EQ_S(nvs_topo_nic_nic_class(m, n2, 0), "NET");
    T_EQ_S(nvs_topo_nic_nic_class(m, n2, n2), "X");
    T_ASSERT(nvs_topo_pair_at(m, 0, m->ngpus) == NULL);
    T_ASSERT(nvs_topo_gpu_nic_class(m, 0, m->nnics) == NULL);

    /* run.json: each row as long as its host's GPUs and NICs; read back class for class */
    json_t *j = nvs_topo_to_json(m);
    const json_t *nics = json_object_get(j, "nics");
    T_EQ_U(json_array_size(json_object_get(json_array_get(nics, 0), "gpu_classes")), 8);
    T_EQ_U(json_array_size(json_object_get(json_array_get(nics, 8), "gpu_classes")), (size_t)parts[1]->ngpus);
    T_EQ_U(json_array_size(json_object_get(json_array_get(nics, 8), "nic_classes")), 1);
    T_EQ_U(json_array_size(json_object_get(json_array_get(nics, n2), "nic_classes")), 8);
    nvs_topology *u = NULL;
    char err[256] = "";
    T_EQ_I(nvs_topo_from_json(j, &u, err, sizeof err), NVS_OK);
    expect_same_classes(m, u);
    nvs_topo_free(u);

    /* the former rows: one class per GPU and NIC of the whole topology, NET across hosts */
    for (size_t k = 0; k < json_array_size(nics); k++) {
        json_t *nj = json_array_get(nics, k), *gc = json_array(), *nc = json_array();
        for (int g = 0; g < m->ngpus; g++) json_array_append_new(gc, json_string(nvs_topo_gpu_nic_class(m, g, (int)k)));
        for (int b = 0; b < m->nnics; b++) json_array_append_new(nc, json_string(nvs_topo_nic_nic_class(m, (int)k, b)));
        json_object_set_new(nj, "gpu_classes", gc);
        json_object_set_new(nj, "nic_classes", nc);
    }
    T_EQ_I(nvs_topo_from_json(j, &u, err, sizeof err), NVS_OK);
    expect_same_classes(m, u);
    nvs_topo_free(u);
    /* a row of neither length is refused, naming the host; so is a cell across hosts that is not a class */
    json_t *nj = json_array_get(nics, 8);
    json_array_remove(json_object_get(nj, "gpu_classes"), 0);
    T_EQ_I(nvs_topo_from_json(j, &u, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "nics[8] needs \"gpu_classes\": one class per GPU of its host");
    T_ASSERT(u == NULL);
    json_object_set_new(nj, "gpu_classes", json_array());
    for (int g = 0; g < m->ngpus; g++) json_array_append_new(json_object_get(nj, "gpu_classes"), json_string(g ? "NET" : "WAN"));
    T_EQ_I(nvs_topo_from_json(j, &u, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "nics[8].gpu_classes[0] is not a class");
    json_decref(j);

    /* a subset in an order that interleaves the hosts keeps every class and NVLink peer */
    int keep[] = {g2 + 3, 1, g2 + 2, 0, 8};
    nvs_topology *s = nvs_topo_subset(m, keep, 5);
    T_ASSERT(s != NULL);
    for (int a = 0; a < 5; a++) {
        for (int b = 0; b < 5; b++) T_EQ_S(nvs_topo_pair_class(s, a, b), nvs_topo_pair_class(m, keep[a], keep[b]));
        for (int k = 0; k < m->nnics; k++) T_EQ_S(nvs_topo_gpu_nic_class(s, a, k), nvs_topo_gpu_nic_class(m, keep[a], k));
    }
    for (int a = 0; a < m->nnics; a++)
        for (int b = 0; b < m->nnics; b++) T_EQ_S(nvs_topo_nic_nic_class(s, a, b), nvs_topo_nic_nic_class(m, a, b));
    nvs_topo_free(s);

    /* a GPU or NIC on a host the topology lacks cannot be laid out */
    m->gpus[3].host = m->nhosts;
    T_EQ_I(nvs_topo_layout(m), NVS_ERR_INPUT);
    T_ASSERT(nvs_topo_pair_at(m, 0, 1) == NULL);
    m->gpus[3].host = 0;
    m->nics[2].host = -1;
    T_EQ_I(nvs_topo_layout(m), NVS_ERR_INPUT);
    m->nics[2].host = 0;
    T_EQ_I(nvs_topo_layout(m), NVS_OK);
    T_EQ_S(nvs_topo_pair_class(m, 0, 1), "?"); /* laid out again: what was stored is dropped */
    T_EQ_S(nvs_topo_pair_class(m, 0, g2), "NET");
    nvs_topo_free(m);
    for (int k = 0; k < 3; k++) nvs_topo_free(parts[k]);
}

/* A host with more NICs than discovery ever keeps is refused when read (its NIC classes grow with the square). */
static void t_json_nics_per_host(void)
{
    json_t *nics = json_array();
    for (int k = 0; k <= NVS_TOPO_MAX_NICS_PER_HOST; k++)
        json_array_append_new(nics, json_pack("{s:s, s:s, s:[], s:[]}", "name", "m", "host", "a", "gpu_classes",
                                              "nic_classes"));
    json_t *j = json_pack("{s:[{s:s}], s:[], s:o}", "hosts", "name", "a", "gpus", "nics", nics);
    nvs_topology *t = NULL;
    char err[256] = "";
    T_EQ_I(nvs_topo_from_json(j, &t, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "host \"a\" lists more than 1024 NICs");
    T_ASSERT(t == NULL);
    json_decref(j);
}

static void t_json_errors(void)
{
    const char *docs[] = {
        "{\"hosts\": [{\"name\": \"a\"}], \"gpus\": [], \"nics\": 3}",
        "{\"hosts\": [{\"name\": \"a\"}], \"gpus\": [], \"nics\": [{\"name\": \"m\", \"host\": \"b\"}]}",
        "{\"hosts\": [{\"name\": \"a\"}], \"gpus\": [], \"nics\": [{\"name\": \"m\", \"host\": \"a\"}]}",
        "{\"hosts\": [{\"name\": \"a\"}], \"gpus\": [], \"nics\": [{\"name\": \"m\", \"host\": \"a\", "
        "\"gpu_classes\": [], \"nic_classes\": [\"PIXX\"]}]}",
    };
    const char *want[] = {"must be an array", "names no host", "gpu_classes", "not a class"};
    for (int i = 0; i < 4; i++) {
        json_error_t je;
        json_t *j = json_loads(docs[i], 0, &je);
        T_ASSERT(j != NULL);
        nvs_topology *t = NULL;
        char err[256] = "";
        T_EQ_I(nvs_topo_from_json(j, &t, err, sizeof err), NVS_ERR_INPUT);
        T_CONTAINS(err, want[i]);
        T_ASSERT(t == NULL);
        json_decref(j);
    }
}

T_LIST = {T_CASE(t_hgx8nic), T_CASE(t_hgx8nic_oem), T_CASE(t_nic_bandwidth_first), T_CASE(t_pcie_nic), T_CASE(t_h200x2_eth), T_CASE(t_parse), T_CASE(t_sysfs), T_CASE(t_pci_max_link_width),
          T_CASE(t_json_and_hosts), T_CASE(t_subset_nvlink), T_CASE(t_json_errors),
          T_CASE(t_classes_per_host), T_CASE(t_json_nics_per_host)};
T_MAIN
