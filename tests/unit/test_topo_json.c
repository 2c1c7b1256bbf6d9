/* Topology JSON both ways (topo/topo_json.c) and the gather over ranks (topo/topo_gather.c, threads runtime). */
#include <pthread.h>

#include <math.h>
#include <string.h>

#include "runjson/runjson.h"
#include "runjson/runjson_schema.h"
#include "topo/topo.h"
#include "t.h"

static nvs_topology *load(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/topo/%s", name);
    nvs_topology *t = NULL;
    if (nvs_topo_discover(path, &t) != NVS_OK) T_FAIL("cannot load %s", path);
    return t;
}

static void t_roundtrip(void)
{
    const char *files[] = {"pcie8.xml", "nvlink_pairs.xml", "nvswitch8.xml", "h200x2.xml"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        nvs_topology *t = load(files[f]), *u = NULL;
        json_t *j = nvs_topo_to_json(t);
        char *text = json_dumps(j, 0);
        json_decref(j);
        json_error_t je;
        j = json_loads(text, 0, &je); /* through text, as run.json is */
        free(text);
        char err[256] = "";
        T_EQ_I(nvs_topo_from_json(j, &u, err, sizeof err), NVS_OK);
        json_decref(j);
        T_EQ_I(u->ngpus, t->ngpus);
        T_EQ_S(u->source, t->source);
        for (int a = 0; a < t->ngpus; a++) {
            T_EQ_S(u->gpus[a].pci_bus_id, t->gpus[a].pci_bus_id);
            T_EQ_S(u->gpus[a].name, t->gpus[a].name);
            T_EQ_S(u->gpus[a].cpuset, t->gpus[a].cpuset);
            T_EQ_I(u->gpus[a].numa_node, t->gpus[a].numa_node);
            T_EQ_I(u->gpus[a].nvlink.known, t->gpus[a].nvlink.known);
            T_EQ_I(u->gpus[a].nvlink.links_up, t->gpus[a].nvlink.links_up);
            for (int b = 0; b < t->ngpus; b++) {
                T_EQ_S(nvs_topo_pair_class(u, a, b), nvs_topo_pair_class(t, a, b));
                if (a == b) continue;
                T_EQ_S(nvs_topo_pair_at(u, a, b)->pcie_cls, nvs_topo_pair_at(t, a, b)->pcie_cls);
                /* bounds need nothing JSON does not carry */
                T_NEAR(nvs_topo_pair_bound_gbps(u, a, b, 1, NULL, 0), nvs_topo_pair_bound_gbps(t, a, b, 1, NULL, 0), 1e-9);
                T_NEAR(nvs_topo_pair_bound_gbps(u, a, b, 0, NULL, 0), nvs_topo_pair_bound_gbps(t, a, b, 0, NULL, 0), 1e-9);
            }
        }
        nvs_topo_free(t);
        nvs_topo_free(u);
    }
}

static void t_json_fields(void)
{
    nvs_topology *t = load("nvswitch8.xml");
    json_t *j = nvs_topo_to_json(t);
    const json_t *g0 = json_array_get(json_object_get(j, "gpus"), 0);
    T_EQ_S(json_string_value(json_object_get(g0, "pci_bus_id")), "0000:1b:00.0");
    T_EQ_I(json_is_null(json_object_get(json_object_get(g0, "pcie"), "gen")), 1); /* unknown offline: null, not 0 */
    T_EQ_I(json_integer_value(json_object_get(json_object_get(g0, "nvlink"), "to_nvswitch")), 18);
    const json_t *p = json_array_get(json_object_get(j, "pairs"), 0);
    T_EQ_S(json_string_value(json_object_get(p, "class")), "NV18");
    T_EQ_S(json_string_value(json_object_get(p, "pcie_class")), "PIX");
    T_EQ_I(json_is_null(json_object_get(json_object_get(p, "p2p"), "cuda")), 1);
    T_NEAR(json_real_value(json_object_get(p, "bound_gbps")), 18 * 26.5625, 1e-9); /* H100: NVLink4's rate */
    T_EQ_S(json_string_value(json_object_get(p, "bound_link")), "NVLink");
    T_EQ_I(json_array_size(json_object_get(j, "pairs")), 28);
    json_decref(j);
    nvs_topo_free(t);
    t = load("pcie8.xml");
    j = nvs_topo_to_json(t);
    g0 = json_array_get(json_object_get(j, "gpus"), 0);
    T_EQ_I(json_is_null(json_object_get(g0, "nvlink")), 1);
    T_CONTAINS(json_string_value(json_object_get(g0, "nvlink_status")), "offline");
    json_decref(j);
    nvs_topo_free(t);
}

static void expect_bad(const char *text, const char *msg)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    if (!j) T_FAIL("test JSON does not parse: %s", je.text);
    nvs_topology *t = (nvs_topology *)1;
    char err[256] = "";
    nvs_result_t r = nvs_topo_from_json(j, &t, err, sizeof err);
    json_decref(j);
    T_EQ_I(r, NVS_ERR_INPUT);
    T_EQ_I(t == NULL, 1);
    T_CONTAINS(err, msg);
}

static void t_json_errors(void)
{
    expect_bad("[]", "expected an object");
    expect_bad("{\"hosts\": 1, \"gpus\": []}", "must be arrays");
    expect_bad("{\"hosts\": [{}], \"gpus\": []}", "hosts[0]");
    expect_bad("{\"hosts\": [{\"name\": \"a\"}], \"gpus\": [{\"host\": \"b\", \"pci_bus_id\": \"0000:01:00.0\"}]}",
               "\"b\"");
    expect_bad("{\"hosts\": [{\"name\": \"a\"}], \"gpus\": [{\"host\": \"a\"}]}", "pci_bus_id");
    expect_bad("{\"hosts\": [{\"name\": \"a\"}], \"gpus\": [{\"host\": \"a\", \"pci_bus_id\": \"x\"},"
               "{\"host\": \"a\", \"pci_bus_id\": \"y\"}], \"pairs\": [{\"a\": 0, \"b\": 2, \"class\": \"PIX\"}]}",
               "bad GPU indices");
    expect_bad("{\"hosts\": [{\"name\": \"a\"}], \"gpus\": [{\"host\": \"a\", \"pci_bus_id\": \"x\"},"
               "{\"host\": \"a\", \"pci_bus_id\": \"y\"}], \"pairs\": [{\"a\": 0, \"b\": 1, \"class\": \"7\"}]}",
               "\"class\"");
}

/* --- gather: three ranks of the threads runtime pretending to be on two hosts ------------------------------- */
struct gather_arg {
    nvs_topology *parts[3];
    nvs_topology *got[3];
    nvs_result_t res[3];
};

static nvs_result_t gather_rank(nvs_rt *rt, void *p)
{
    struct gather_arg *g = p;
    rt->node = rt->rank == 2 ? 1 : 0; /* ranks 0 and 1 share host 0 */
    g->res[rt->rank] = nvs_topo_gather(rt, g->parts[rt->rank], &g->got[rt->rank]);
    return g->res[rt->rank];
}

static void t_gather(void)
{
    struct gather_arg g = {{load("pcie8.xml"), NULL, load("nvlink_pairs.xml")}, {0}, {0}};
    T_EQ_I(nvs_rt_threads_run(3, 30, 0, gather_rank, &g), NVS_OK);
    for (int r = 0; r < 3; r++) {
        nvs_topology *m = g.got[r];
        T_EQ_I(g.res[r], NVS_OK);
        T_EQ_I(m->nhosts, 2);
        T_EQ_I(m->ngpus, 12);
        T_EQ_S(m->hosts[0].name, "pcie8");
        T_EQ_S(m->hosts[1].name, "nvlink-pairs");
        T_EQ_S(nvs_topo_pair_class(m, 0, 1), "PIX");
        T_EQ_S(nvs_topo_pair_class(m, 4, 6), "PXB");
        T_EQ_S(nvs_topo_pair_class(m, 8, 9), "NV4");
        T_EQ_S(nvs_topo_pair_class(m, 9, 10), "SYS");
        T_EQ_S(nvs_topo_pair_class(m, 0, 8), "NET");
        T_EQ_S(nvs_topo_pair_class(m, 11, 7), "NET");
        T_EQ_I(nvs_topo_find_gpu(m, "nvlink-pairs", "0000:16:00.0"), 8);
        T_EQ_I(m->gpus[9].nvlink.links[0].remote_gpu, 8);
        T_EQ_I(nvs_topo_pair_at(m, 0, 8)->p2p_cuda, 0);
    }
    for (int r = 0; r < 3; r++) {
        nvs_topo_free(g.parts[r]);
        nvs_topo_free(g.got[r]);
    }
}

/* A pair whose class nothing knows ("?": live, hwloc found neither GPU, e.g. a container without /sys/bus/pci, and
 * no NVLink joins them) is written as "?" (the matrix's unknown); the reader refused it ("class must be NV#, ..."),
 * and as every host's topology goes through JSON in the gather, `nvscale topo` failed on such a box with "topology
 * from rank 0 unreadable". It reads back as unknown, in the gather too. */
static nvs_result_t gather_one(nvs_rt *rt, void *p)
{
    struct gather_arg *g = p;
    g->res[rt->rank] = nvs_topo_gather(rt, g->parts[rt->rank], &g->got[rt->rank]);
    return g->res[rt->rank];
}

static void t_unknown_class(void)
{
    nvs_topology *t = nvs_topo_alloc(1, 2), *u = NULL;
    snprintf(t->hosts[0].name, sizeof t->hosts[0].name, "box");
    snprintf(t->source, sizeof t->source, "live");
    snprintf(t->gpus[0].pci_bus_id, sizeof t->gpus[0].pci_bus_id, "0000:01:00.0");
    snprintf(t->gpus[1].pci_bus_id, sizeof t->gpus[1].pci_bus_id, "0000:02:00.0");
    nvs_topo_classify_all(t); /* no PCIe path, no NVLink */
    T_EQ_S(nvs_topo_pair_class(t, 0, 1), "?");
    json_t *j = nvs_topo_to_json(t);
    char err[256] = "";
    T_EQ_I(nvs_topo_from_json(j, &u, err, sizeof err), NVS_OK);
    T_EQ_S(err, "");
    json_decref(j);
    if (u) {
        T_EQ_S(nvs_topo_pair_class(u, 0, 1), "?");
        T_EQ_S(nvs_topo_pair_at(u, 0, 1)->pcie_cls, "");
    }
    nvs_topo_free(u);
    struct gather_arg g = {{t, NULL, NULL}, {0}, {0}};
    T_EQ_I(nvs_rt_threads_run(1, 30, 0, gather_one, &g), NVS_OK);
    if (g.got[0]) T_EQ_S(nvs_topo_pair_class(g.got[0], 1, 0), "?");
    nvs_topo_free(g.got[0]);
    nvs_topo_free(t);
}

/* GPUs of three hosts: the file lists the pairs within a host only (n^2 pairs across hosts grew a 1,100-GPU run.json
 * past the readers' 256 MiB), and both readers give every pair across hosts what the live topology gives it: NET,
 * no CUDA P2P, and the same bound and source (core/net_bound.h) - from the GPUs' NICs (one host's unknown), from a
 * rate the user gave, and between virtual hosts of one machine */
static void t_across_hosts(void)
{
    nvs_topology *parts[3] = {load("pcie8.xml"), load("nvlink_pairs.xml"), load("h200x2.xml")}, *t = NULL;
    T_EQ_I(nvs_topo_merge(parts, 3, &t), NVS_OK);
    for (int k = 0; k < 3; k++) nvs_topo_free(parts[k]);
    T_EQ_I(t->nhosts, 3);
    for (int i = 0; i < t->ngpus; i++) { /* host 0: 50 and 25 GB/s NICs; host 1: none known; host 2: 50 */
        nvs_topo_gpu *g = &t->gpus[i];
        g->net.gbps = g->host == 1 ? 0 : g->host == 0 && i % 2 ? 25 : 50;
        snprintf(g->net.source, sizeof g->net.source, g->host == 1 ? "" : "nic%d of GPU%d", i % 3, i);
    }
    for (int variant = 0; variant < 3; variant++) {
        if (variant == 1) t->net_gbps = 12.5;
        if (variant == 2) {
            t->net_gbps = 0;
            for (int h = 0; h < t->nhosts; h++) snprintf(t->hosts[h].machine, sizeof t->hosts[h].machine, "box");
        }
        json_t *j = nvs_topo_to_json(t);
        size_t within = 0;
        for (int a = 0; a < t->ngpus; a++)
            for (int b = a + 1; b < t->ngpus; b++) within += t->gpus[a].host == t->gpus[b].host;
        T_EQ_U(json_array_size(json_object_get(j, "pairs")), within);
        char *text = json_dumps(j, 0);
        json_decref(j);
        /* topo's own reader */
        json_t *back = json_loads(text, 0, NULL);
        nvs_topology *u = NULL;
        char err[256] = "";
        T_EQ_I(nvs_topo_from_json(back, &u, err, sizeof err), NVS_OK);
        json_decref(back);
        /* the run.json reader */
        json_t *topo = json_loads(text, 0, NULL);
        free(text);
        json_t *doc = json_pack("{s:s, s:o}", "schema", NVS_RUN_SCHEMA, "topology", topo);
        nvs_run r;
        T_EQ_I(nvs_run_from_json(doc, "x.json", 0, &r, err, sizeof err), NVS_OK);
        json_decref(doc);
        int across = 0;
        for (int a = 0; a < t->ngpus; a++)
            for (int b = 0; b < t->ngpus; b++) {
                if (a == b || t->gpus[a].host == t->gpus[b].host) continue;
                across++;
                nvs_topo_hop h;
                double live = nvs_topo_pair_hop(t, a, b, 1, &h);
                T_EQ_S(nvs_topo_pair_class(u, a, b), "NET");
                T_EQ_I(nvs_topo_pair_at(u, a, b)->p2p_cuda, 0);
                T_NEAR(nvs_topo_pair_bound_gbps(u, a, b, 1, NULL, 0), live, 1e-12);
                nvs_run_pair_buf buf;
                const nvs_run_pair *p = nvs_run_pair_of(&r, a, b, &buf);
                if (!p) T_FAIL("variant %d: no pair %d-%d in the run", variant, a, b);
                T_EQ_S(p->cls, "NET");
                T_EQ_I(p->p2p_cuda, 0);
                if (live > 0) T_NEAR(p->bound_gbps, live, 1e-12);
                else T_ASSERT(isnan(p->bound_gbps));
                T_EQ_S(p->bound_source, h.source);
                T_ASSERT(nvs_run_pair_of(&r, a, b, NULL) == NULL); /* not in the file */
            }
        T_ASSERT(across > 100);
        nvs_run_free(&r);
        nvs_topo_free(u);
    }
    /* the sources the three variants name */
    nvs_topo_hop h;
    t->net_gbps = 0;
    for (int k = 0; k < t->nhosts; k++) t->hosts[k].machine[0] = '\0';
    T_NEAR(nvs_topo_pair_hop(t, 1, t->ngpus - 1, 1, &h), 25, 1e-12);
    T_CONTAINS(h.source, "network, the slower side: GPU1's nic1 of GPU1");
    nvs_topo_free(t);
}

/* Two hosts of one name (containers all called "localhost"): one name for both in the merged topology, so that
 * its table, run.json and the health monitor's match by host name could not tell them apart. Each is
 * "<name>#<index>" now (the runtime's name for such a host, runtime.h nvs_rt_distinct_host); another stays. */
static void t_same_names(void)
{
    nvs_topology *parts[3] = {load("pcie8.xml"), load("h200x2.xml"), load("pcie8.xml")}, *t = NULL;
    snprintf(parts[0]->hosts[0].name, sizeof parts[0]->hosts[0].name, "localhost");
    snprintf(parts[1]->hosts[0].name, sizeof parts[1]->hosts[0].name, "other");
    snprintf(parts[2]->hosts[0].name, sizeof parts[2]->hosts[0].name, "localhost");
    T_EQ_I(nvs_topo_merge(parts, 3, &t), NVS_OK);
    for (int k = 0; k < 3; k++) nvs_topo_free(parts[k]);
    T_EQ_S(t->hosts[0].name, "localhost#0");
    T_EQ_S(t->hosts[1].name, "other");
    T_EQ_S(t->hosts[2].name, "localhost#2");
    nvs_topo_free(t);
}

/* The GPU's own PCIe maximum (gpu_max_gen from NVML, gpu_max_width from sysfs) travels through JSON (the gather
 * and run.json), with slot_limited derived from it; a run.json written before it was recorded loads with it
 * unknown. It was not recorded until 6 December 2026: a slot-limited link read as a healthy one in `nvscale topo`. */
static void t_pcie_own(void)
{
    nvs_topology *t = load("h200x2.xml"), *u = NULL;
    for (int i = 0; i < 2; i++) {
        snprintf(t->gpus[i].name, sizeof t->gpus[i].name, "GPU model nvscale has no datasheet of");
        t->gpus[i].pcie.gen = t->gpus[i].pcie.max_gen = 4 + i; /* GPU0 a gen5 GPU in a gen4 slot */
        t->gpus[i].pcie.width = t->gpus[i].pcie.max_width = 16 - 8 * i; /* GPU1 a x16 GPU in a x8 slot */
        t->gpus[i].pcie.gpu_max_gen = 5;
        t->gpus[i].pcie.gpu_max_width = 16;
    }
    t->gpus[1].pcie.gpu_max_gen = 0; /* a driver without nvmlDeviceGetGpuMaxPcieLinkGeneration */
    json_t *j = nvs_topo_to_json(t);
    char *text = json_dumps(j, 0);
    json_decref(j);
    json_error_t je;
    j = json_loads(text, 0, &je);
    free(text);
    json_t *p0 = json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "pcie");
    json_t *p1 = json_object_get(json_array_get(json_object_get(j, "gpus"), 1), "pcie");
    T_EQ_I(json_integer_value(json_object_get(p0, "gpu_max_gen")), 5);
    T_EQ_I(json_integer_value(json_object_get(p0, "gpu_max_width")), 16);
    T_EQ_I(json_is_true(json_object_get(p0, "slot_limited")), 1);
    T_EQ_I(json_is_null(json_object_get(p1, "gpu_max_gen")), 1); /* unknown: null, not 0 */
    T_EQ_I(json_is_true(json_object_get(p1, "slot_limited")), 1); /* the width alone says it */
    char err[256] = "";
    T_EQ_I(nvs_topo_from_json(j, &u, err, sizeof err), NVS_OK);
    T_EQ_I(u->gpus[0].pcie.gpu_max_gen, 5);
    T_EQ_I(u->gpus[0].pcie.gpu_max_width, 16);
    T_EQ_I(u->gpus[1].pcie.gpu_max_gen, 0);
    T_EQ_I(u->gpus[1].pcie.gpu_max_width, 16);
    nvs_topo_free(u);
    u = NULL;
    /* a topology of a run.json from before: no such keys, nothing known, and slot_limited not claimed either way */
    json_object_del(p0, "gpu_max_gen");
    json_object_del(p0, "gpu_max_width");
    T_EQ_I(nvs_topo_from_json(j, &u, err, sizeof err), NVS_OK);
    json_decref(j);
    T_EQ_I(u->gpus[0].pcie.gpu_max_gen, 0);
    T_EQ_I(u->gpus[0].pcie.gpu_max_width, 0);
    j = nvs_topo_to_json(u);
    p0 = json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "pcie");
    T_EQ_I(json_is_null(json_object_get(p0, "slot_limited")), 1);
    json_decref(j);
    nvs_topo_free(u);
    /* both known and the link at the GPU's own maximum: false */
    t->gpus[0].pcie.max_gen = t->gpus[0].pcie.gen = 5;
    j = nvs_topo_to_json(t);
    p0 = json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "pcie");
    T_EQ_I(json_is_false(json_object_get(p0, "slot_limited")), 1);
    json_decref(j);
    nvs_topo_free(t);
}

T_LIST = {T_CASE(t_roundtrip), T_CASE(t_json_fields), T_CASE(t_pcie_own), T_CASE(t_json_errors), T_CASE(t_gather), T_CASE(t_unknown_class), T_CASE(t_across_hosts), T_CASE(t_same_names)};
T_MAIN
