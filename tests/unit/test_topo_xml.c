/* Offline discovery from hwloc v2 XML (topo/topo_hwloc.c, topo_discover.c): every pair of every fixture, the
 * per-GPU fields, and the input errors (missing, malformed, no GPU, XML version 3.0). */
#include <unistd.h>

#include "topo/topo.h"
#include "t.h"

static nvs_topology *load(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/topo/%s", name);
    nvs_topology *t = NULL;
    nvs_result_t r = nvs_topo_discover(path, &t);
    if (r != NVS_OK) T_FAIL("%s: %s", path, nvs_result_name(r));
    return t;
}

/* want[a] = the classes of row a, space-separated, "X" on the diagonal */
static void expect_matrix(const nvs_topology *t, int n, const char *const *want)
{
    T_EQ_I(t->ngpus, n);
    for (int a = 0; a < n; a++) {
        char row[256] = "";
        for (int b = 0; b < n; b++) {
            strcat(row, b ? " " : "");
            strcat(row, nvs_topo_pair_class(t, a, b));
        }
        if (strcmp(row, want[a])) T_FAIL("row GPU%d: got \"%s\", expected \"%s\"", a, row, want[a]);
    }
}

static void t_pcie8(void)
{
    nvs_topology *t = load("pcie8.xml");
    static const char *const want[] = {
        "X PIX NODE NODE SYS SYS SYS SYS", "PIX X NODE NODE SYS SYS SYS SYS", "NODE NODE X PIX SYS SYS SYS SYS",
        "NODE NODE PIX X SYS SYS SYS SYS", "SYS SYS SYS SYS X PIX PXB PXB",   "SYS SYS SYS SYS PIX X PXB PXB",
        "SYS SYS SYS SYS PXB PXB X PIX",   "SYS SYS SYS SYS PXB PXB PIX X",
    };
    expect_matrix(t, 8, want);
    /* GPUs in bus id order; the audio function 13:00.1 and the NVMe drive are not GPUs */
    T_EQ_S(nvs_topo_gpu_busid(t, 0), "0000:13:00.0");
    T_EQ_S(nvs_topo_gpu_busid(t, 7), "0000:8a:00.0");
    T_EQ_S(nvs_topo_gpu_name(t, 0), "GA102 [GeForce RTX 3090]");
    T_EQ_S(nvs_topo_gpu_host(t, 0), "pcie8");
    T_EQ_I(t->gpus[0].numa_node, 0);
    T_EQ_I(t->gpus[5].numa_node, 1);
    T_EQ_S(t->gpus[0].cpuset, "0-7");
    T_EQ_S(t->gpus[6].cpuset, "8-15");
    T_NEAR(t->gpus[3].pcie.gbps, 31.507692, 1e-6);
    T_EQ_I(t->gpus[0].nvlink.known, 0);
    T_CONTAINS(t->gpus[0].nvlink.why_unknown, "not visible offline");
    T_EQ_I(t->gpus[0].cuda_device, -1);
    T_EQ_I(t->hosts[0].numa_nodes, 2);
    T_EQ_I(t->hosts[0].packages, 2);
    /* the PCIe class is kept beside the displayed one */
    T_EQ_S(nvs_topo_pair_at(t, 4, 6)->pcie_cls, "PXB");
    T_EQ_I(nvs_topo_pair_at(t, 4, 6)->p2p_cuda, -1);
    nvs_topo_free(t);
}

static void t_nvlink_pairs(void)
{
    nvs_topology *t = load("nvlink_pairs.xml");
    static const char *const want[] = {"X NV4 SYS SYS", "NV4 X SYS SYS", "SYS SYS X NV4", "SYS SYS NV4 X"};
    expect_matrix(t, 4, want);
    T_EQ_S(nvs_topo_pair_at(t, 0, 1)->pcie_cls, "NODE"); /* two host bridges of socket 0 */
    T_EQ_S(nvs_topo_pair_at(t, 2, 3)->pcie_cls, "PHB");  /* two root ports of one host bridge */
    T_EQ_S(nvs_topo_gpu_name(t, 2), "NVIDIA RTX A6000"); /* from the nvml OS device */
    const nvs_topo_gpu *g = &t->gpus[1];
    T_EQ_I(g->nvlink.known, 1);
    T_EQ_I(g->nvlink.links_up, 4);
    T_EQ_I(g->nvlink.to_switch, 0);
    T_NEAR(g->nvlink.gbps_per_link, 25.0, 1e-12);
    T_EQ_I(g->nvlink.links[3].remote, NVS_REMOTE_GPU);
    T_EQ_I(g->nvlink.links[3].remote_gpu, 0);
    T_EQ_S(g->nvlink.links[3].remote_pci_bus_id, "0000:16:00.0");
    nvs_topo_free(t);
}

static void t_nvswitch8(void)
{
    nvs_topology *t = load("nvswitch8.xml");
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++) T_EQ_S(nvs_topo_pair_class(t, a, b), a == b ? "X" : "NV18");
    T_EQ_S(nvs_topo_pair_at(t, 0, 1)->pcie_cls, "PIX");
    T_EQ_S(nvs_topo_pair_at(t, 0, 2)->pcie_cls, "NODE");
    T_EQ_S(nvs_topo_pair_at(t, 0, 7)->pcie_cls, "SYS");
    const nvs_topo_gpu *g = &t->gpus[5];
    T_EQ_I(g->nvlink.links_up, 18);
    T_EQ_I(g->nvlink.to_switch, 18);
    T_EQ_I(g->nvlink.links[0].remote, NVS_REMOTE_NVSWITCH);
    T_EQ_S(g->nvlink.links[0].remote_pci_bus_id, "0000:c3:00.0");
    T_EQ_S(g->name, "NVIDIA H100 80GB HBM3");
    T_NEAR(g->pcie.gbps, 63.015385, 1e-6);
    nvs_topo_free(t);
}

/* NVLink5 as hwloc 2.12 and later write it, 50000 MB/s a link: the same 18 links as nvswitch8 (NV18, 900 GB/s).
 * Read at 25000 MB/s a link, every GPU had "36 links up" and every pair read NV36, more links than a GPU has. */
static void t_nvswitch8_nvl5(void)
{
    nvs_topology *t = load("nvswitch8_nvl5.xml");
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++) T_EQ_S(nvs_topo_pair_class(t, a, b), a == b ? "X" : "NV18");
    const nvs_topo_gpu *g = &t->gpus[3];
    T_EQ_I(g->nvlink.links_up, 18);
    T_EQ_I(g->nvlink.to_switch, 18);
    T_EQ_I(g->nvlink.version, 5);
    T_NEAR(g->nvlink.gbps_per_link, 50.0, 1e-9);
    T_NEAR(nvs_topo_pair_bound_gbps(t, 3, 6, 1, NULL, 0), 900.0, 1e-9);
    nvs_topo_free(t);
    /* the 25000 unit stays where 18 links fit: nvswitch8 itself (5+4+4+5 x 25000); its H100s are NVLink4 */
    t = load("nvswitch8.xml");
    T_EQ_I(t->gpus[3].nvlink.links_up, 18);
    T_EQ_I(t->gpus[3].nvlink.version, 4);
    nvs_topo_free(t);
}

/* hwloc writes 25000 MB/s a link for NVLink 2, 3 and 4 alike (NVIDIA's nominal 900 GB/s / 18 / 2): an H100 NV18
 * pair read 450 GB/s offline, where its links carry 18 x 26.5625 = 478.125 (nvidia-smi nvlink -s: 26.562 GB/s).
 * The GPU model says NVLink4; a model that says no generation (RTX A6000) keeps the matrix's 25 and says so. */
static void t_nvlink_rate_from_model(void)
{
    nvs_topology *t = load("nvswitch8.xml");
    const nvs_topo_gpu *g = &t->gpus[2];
    T_EQ_I(g->nvlink.version, 4);
    T_NEAR(g->nvlink.gbps_per_link, 26.5625, 1e-12);
    T_CONTAINS(g->nvlink.rate_source, "GPU model NVIDIA H100 80GB HBM3: NVLink4");
    T_NEAR(nvs_topo_pair_bound_gbps(t, 2, 5, 1, NULL, 0), 478.125, 1e-9);
    nvs_topo_free(t);
    t = load("nvlink_pairs.xml");
    T_EQ_I(t->gpus[2].nvlink.version, 0);
    T_NEAR(t->gpus[2].nvlink.gbps_per_link, 25.0, 1e-12);
    T_CONTAINS(t->gpus[2].nvlink.rate_source, "the XML does not say which");
    nvs_topo_free(t);
    /* names: a word of one product, not a substring; two generations named are none */
    T_EQ_I(nvs_topo_nvlink_version_of_model("NVIDIA H200"), 4);
    T_EQ_I(nvs_topo_nvlink_version_of_model("GH100 [H100 SXM5 80GB]"), 4);
    T_EQ_I(nvs_topo_nvlink_version_of_model("NVIDIA GH200 480GB"), 4);
    T_EQ_I(nvs_topo_nvlink_version_of_model("NVIDIA H800"), 4);
    T_EQ_I(nvs_topo_nvlink_version_of_model("NVIDIA A100-SXM4-80GB"), 3);
    T_EQ_I(nvs_topo_nvlink_version_of_model("NVIDIA A800-SXM4-80GB"), 3);
    T_EQ_I(nvs_topo_nvlink_version_of_model("NVIDIA B200"), 5);
    T_EQ_I(nvs_topo_nvlink_version_of_model("NVIDIA GB200"), 5);
    T_EQ_I(nvs_topo_nvlink_version_of_model("Tesla V100-SXM2-32GB"), 2);
    T_EQ_I(nvs_topo_nvlink_version_of_model("GH100"), 0);
    T_EQ_I(nvs_topo_nvlink_version_of_model("NVIDIA RTX A6000"), 0);
    T_EQ_I(nvs_topo_nvlink_version_of_model("NVIDIA A100X"), 0);
    T_EQ_I(nvs_topo_nvlink_version_of_model("A100 or H100"), 0);
    T_EQ_I(nvs_topo_nvlink_version_of_model(""), 0);
    T_EQ_I(nvs_topo_nvlink_version_of_model(NULL), 0);
}

/* the reference 2xH200 machine: flat virtual PCI bus, no NVML backend in its hwloc: PHB offline (NV18 live) */
static void t_h200x2(void)
{
    nvs_topology *t = load("h200x2.xml");
    static const char *const want[] = {"X PHB", "PHB X"};
    expect_matrix(t, 2, want);
    T_EQ_S(nvs_topo_gpu_busid(t, 0), "0000:00:06.0");
    T_EQ_S(nvs_topo_gpu_busid(t, 1), "0000:00:07.0");
    T_EQ_S(nvs_topo_gpu_host(t, 1), "vm");
    T_EQ_I(t->gpus[0].numa_node, 0);
    T_EQ_S(t->gpus[1].cpuset, "0-31");
    T_NEAR(t->gpus[0].pcie.gbps, 63.015385, 1e-6);
    T_EQ_I(t->gpus[0].nvlink.known, 0);
    T_NEAR(nvs_topo_pair_bound_gbps(t, 0, 1, 1, NULL, 0), 63.015385, 1e-6);
    nvs_topo_free(t);
}

/* A file of `text` in tests/tmp, loaded: the result and nothing allocated on failure. */
static nvs_result_t load_text(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "tests/tmp/%s", name);
    FILE *f = fopen(path, "w");
    if (!f) T_SKIP("cannot write tests/tmp (run from the repository root)");
    fputs(text, f);
    if (fclose(f) != 0) T_SKIP("cannot write tests/tmp");
    nvs_topology *t = (nvs_topology *)1;
    nvs_result_t r = nvs_topo_discover(path, &t);
    if (r != NVS_OK && t != NULL) T_FAIL("%s: failed but returned a topology", name);
    nvs_topo_free(r == NVS_OK ? t : NULL);
    unlink(path);
    return r;
}

static void t_bad_inputs(void)
{
    nvs_topology *t = (nvs_topology *)1;
    T_EQ_I(nvs_topo_discover("tests/fixtures/topo/no-such-file.xml", &t), NVS_ERR_INPUT);
    T_EQ_I(t == NULL, 1);
    T_EQ_I(nvs_topo_discover("tests/fixtures/topo", &t), NVS_ERR_INPUT); /* a directory */
    T_EQ_I(load_text("empty.xml", ""), NVS_ERR_INPUT);
    T_EQ_I(load_text("notxml.xml", "hello, world\n"), NVS_ERR_INPUT);
    T_EQ_I(load_text("truncated.xml", "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n  <object type=\"Machine\" "),
           NVS_ERR_INPUT);
    T_EQ_I(load_text("v3.xml", "<?xml version=\"1.0\"?>\n<topology version=\"3.0\">\n<object type=\"Machine\" os_index=\"0\" "
                               "cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
                               "gp_index=\"1\"/>\n</topology>\n"),
           NVS_ERR_INPUT);
    /* valid, but no GPU */
    T_EQ_I(load_text("nogpu.xml", "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n<object type=\"Machine\" "
                                  "os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" "
                                  "complete_nodeset=\"0x1\" gp_index=\"1\">\n<object type=\"NUMANode\" os_index=\"0\" "
                                  "cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
                                  "gp_index=\"2\" local_memory=\"1073741824\"/>\n<object type=\"PU\" os_index=\"0\" "
                                  "cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
                                  "gp_index=\"3\"/>\n</object>\n</topology>\n"),
           NVS_ERR_INPUT);
}

static void t_busid_lookup(void)
{
    nvs_topology *t = load("pcie8.xml");
    char b[32];
    T_EQ_I(nvs_topo_find_gpu(t, NULL, "0000:13:00.0"), 0);
    T_EQ_I(nvs_topo_find_gpu(t, NULL, "00000000:8A:00.0"), 7); /* NVML's 8-digit domain, upper case */
    T_EQ_I(nvs_topo_find_gpu(t, "pcie8", "13:00.0"), 0);        /* lspci's short form */
    T_EQ_I(nvs_topo_find_gpu(t, "elsewhere", "0000:13:00.0"), -1);
    T_EQ_I(nvs_topo_find_gpu(t, NULL, "0000:13:00.1"), -1); /* the audio function */
    T_EQ_I(nvs_topo_find_gpu(t, NULL, "junk"), -1);
    T_EQ_I(nvs_topo_busid_normalize(" 0001:0A:1f.7", b, sizeof b), 0);
    T_EQ_S(b, "0001:0a:1f.7");
    T_EQ_I(nvs_topo_busid_normalize("0000:00:20.0", b, sizeof b), -1); /* device > 0x1f */
    T_EQ_I(nvs_topo_busid_normalize("0000:00:06.0x", b, sizeof b), -1);
    T_EQ_I(nvs_topo_gpu_name(t, 8) == NULL, 1);
    T_EQ_I(nvs_topo_pair_class(t, -1, 0) == NULL, 1);
    nvs_topo_free(t);
}

T_LIST = {T_CASE(t_pcie8), T_CASE(t_nvlink_pairs), T_CASE(t_nvswitch8), T_CASE(t_nvswitch8_nvl5), T_CASE(t_nvlink_rate_from_model), T_CASE(t_h200x2), T_CASE(t_bad_inputs),
          T_CASE(t_busid_lookup)};
T_MAIN
