/* The "topology" section of run.json (docs/run-json.md), both ways (PURE: jansson only).
 * Unknown values are written as null, never 0; class names are nvidia-smi's strings. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/link_class.h"
#include "health/health.h"
#include "topo/topo.h"

static json_t *int_or_null(int v, int unknown) { return v == unknown ? json_null() : json_integer(v); }
static json_t *pos_real_or_null(double v) { return v > 0 ? json_real(v) : json_null(); }
static json_t *str_or_null(const char *s) { return s && *s ? json_string(s) : json_null(); }

static const char *remote_name(nvs_topo_remote r)
{
    switch (r) {
    case NVS_REMOTE_GPU: return "gpu";
    case NVS_REMOTE_NVSWITCH: return "nvswitch";
    case NVS_REMOTE_CPU: return "cpu";
    default: return "unknown";
    }
}

static nvs_topo_remote remote_parse(const char *s)
{
    if (!s) return NVS_REMOTE_UNKNOWN;
    if (!strcmp(s, "gpu")) return NVS_REMOTE_GPU;
    if (!strcmp(s, "nvswitch")) return NVS_REMOTE_NVSWITCH;
    if (!strcmp(s, "cpu")) return NVS_REMOTE_CPU;
    return NVS_REMOTE_UNKNOWN;
}

/* 1/0, -1 unknown. A generation below the maximum is often idle power saving (it trains up under load); a
 * width below the maximum is a link that trained narrow (slot, riser, seating). */
static int below(int now, int max) { return now && max ? now < max : -1; }
static json_t *tri(int v) { return v < 0 ? json_null() : json_boolean(v); }

static json_t *gpu_json(const nvs_topology *t, const nvs_topo_gpu *g)
{
    json_t *o = json_object();
    json_object_set_new(o, "index", json_integer(g->index));
    json_object_set_new(o, "host", json_string(t->hosts[g->host].name));
    json_object_set_new(o, "cuda_device", json_integer(g->cuda_device));
    json_object_set_new(o, "name", json_string(g->name));
    json_object_set_new(o, "pci_bus_id", json_string(g->pci_bus_id));
    json_object_set_new(o, "numa_node", int_or_null(g->numa_node, -1));
    json_object_set_new(o, "cpuset", str_or_null(g->cpuset));
    if (g->pcie.gen || g->pcie.width || g->pcie.gbps > 0) {
        json_t *p = json_object();
        json_object_set_new(p, "gen", int_or_null(g->pcie.gen, 0));
        json_object_set_new(p, "width", int_or_null(g->pcie.width, 0));
        json_object_set_new(p, "max_gen", int_or_null(g->pcie.max_gen, 0));
        json_object_set_new(p, "max_width", int_or_null(g->pcie.max_width, 0));
        int bg = below(g->pcie.gen, g->pcie.max_gen), bw = below(g->pcie.width, g->pcie.max_width);
        json_object_set_new(p, "downtrained", tri(bg < 0 || bw < 0 ? (bg > 0 || bw > 0 ? 1 : -1) : bg || bw));
        json_object_set_new(p, "gen_below_max", tri(bg));
        json_object_set_new(p, "width_below_max", tri(bw));
        /* the GPU's own maximum, whatever the slot, as read (the width: sysfs; the datasheet's is not written,
         * a reader has the name), and whether the link's maximum is below it (health/pcie_spec.c decides) */
        json_object_set_new(p, "gpu_max_gen", int_or_null(g->pcie.gpu_max_gen, 0));
        json_object_set_new(p, "gpu_max_width", int_or_null(g->pcie.gpu_max_width, 0));
        nvs_health_pcie_own own;
        nvs_health_pcie_own_max(g->name, g->pcie.gpu_max_gen, g->pcie.gpu_max_width, g->pcie.max_gen,
                                g->pcie.max_width, &own);
        /* as "downtrained": true when either side is limited, false only when both are known and neither is */
        int known = own.gen > 0 && own.width > 0 && g->pcie.max_gen && g->pcie.max_width;
        json_object_set_new(p, "slot_limited", tri(own.slot_gen || own.slot_width ? 1 : known ? 0 : -1));
        json_object_set_new(p, "gbps", pos_real_or_null(g->pcie.gbps));
        json_object_set_new(p, "source", str_or_null(g->pcie.gbps_source));
        json_object_set_new(o, "pcie", p);
    } else
        json_object_set_new(o, "pcie", json_null());
    if (g->nvlink.known) {
        json_t *n = json_object(), *links = json_array();
        json_object_set_new(n, "links_up", json_integer(g->nvlink.links_up));
        json_object_set_new(n, "version", int_or_null(g->nvlink.version, 0));
        json_object_set_new(n, "gbps_per_link", pos_real_or_null(g->nvlink.gbps_per_link));
        json_object_set_new(n, "nvml_speed_gbps", pos_real_or_null(g->nvlink.nvml_speed_gbps));
        json_object_set_new(n, "source", str_or_null(g->nvlink.rate_source));
        json_object_set_new(n, "to_nvswitch", json_integer(g->nvlink.to_switch));
        json_object_set_new(n, "to_cpu", json_integer(g->nvlink.to_cpu));
        for (int k = 0; k < g->nvlink.nlinks; k++) {
            const nvs_topo_link *l = &g->nvlink.links[k];
            json_t *lj = json_object();
            json_object_set_new(lj, "link", json_integer(l->link));
            json_object_set_new(lj, "remote", json_string(remote_name(l->remote)));
            json_object_set_new(lj, "remote_gpu", int_or_null(l->remote_gpu, -1));
            json_object_set_new(lj, "remote_pci_bus_id", str_or_null(l->remote_pci_bus_id));
            json_array_append_new(links, lj);
        }
        json_object_set_new(n, "links", links);
        json_object_set_new(o, "nvlink", n);
    } else {
        json_object_set_new(o, "nvlink", json_null());
        json_object_set_new(o, "nvlink_status", str_or_null(g->nvlink.why_unknown));
    }
    json_t *net = json_object();
    json_object_set_new(net, "gbps", pos_real_or_null(g->net.gbps));
    json_object_set_new(net, "nics_used", json_integer(g->net.nics));
    json_object_set_new(net, "class", str_or_null(g->net.cls));
    json_object_set_new(net, "nearest", str_or_null(g->net.names));
    json_object_set_new(net, "source", str_or_null(g->net.source));
    json_object_set_new(o, "net", net);
    return o;
}

/* A NIC's classes to the GPUs (of_gpus) or NICs of its own host, in index order: to those of other hosts they are
 * NET (topo_store.c). Rows listed every GPU and NIC before 3 December 2026, which grew as n^2 (at 4096 GPUs with a
 * NIC each, ~235 MB); the reader takes both. */
static json_t *class_row(const nvs_topology *t, int nic, int of_gpus)
{
    json_t *a = json_array();
    int n = of_gpus ? t->ngpus : t->nnics, host = t->nics[nic].host;
    for (int i = 0; i < n; i++) {
        if ((of_gpus ? t->gpus[i].host : t->nics[i].host) != host) continue;
        json_array_append_new(
            a, json_string(of_gpus ? nvs_topo_gpu_nic_class(t, i, nic) : nvs_topo_nic_nic_class(t, nic, i)));
    }
    return a;
}

static json_t *nic_json(const nvs_topology *t, const nvs_topo_nic *n)
{
    json_t *o = json_object();
    json_object_set_new(o, "index", json_integer(n->index));
    json_object_set_new(o, "host", json_string(t->hosts[n->host].name));
    json_object_set_new(o, "name", json_string(n->name));
    json_object_set_new(o, "netdev", str_or_null(n->netdev));
    json_object_set_new(o, "kind", json_string(n->kind));
    json_object_set_new(o, "pci_bus_id", json_string(n->pci_bus_id));
    json_object_set_new(o, "numa_node", int_or_null(n->numa_node, -1));
    json_object_set_new(o, "state", str_or_null(n->state));
    json_object_set_new(o, "gbps", pos_real_or_null(n->gbps));
    json_object_set_new(o, "rate", str_or_null(n->rate));
    json_object_set_new(o, "rate_source", str_or_null(n->rate_source));
    json_object_set_new(o, "gpu_classes", class_row(t, n->index, 1));
    json_object_set_new(o, "nic_classes", class_row(t, n->index, 0));
    return o;
}

json_t *nvs_topo_to_json(const nvs_topology *t)
{
    json_t *o = json_object(), *hosts = json_array(), *gpus = json_array(), *pairs = json_array();
    if (!o || !hosts || !gpus || !pairs) {
        json_decref(o);
        json_decref(hosts);
        json_decref(gpus);
        json_decref(pairs);
        return NULL;
    }
    json_object_set_new(o, "source", json_string(t->source));
    json_object_set_new(o, "nvml", str_or_null(t->nvml_status));
    json_object_set_new(o, "cuda", str_or_null(t->cuda_status));
    json_object_set_new(o, "net_gbps", pos_real_or_null(t->net_gbps));
    for (int h = 0; h < t->nhosts; h++) {
        json_t *hj = json_object(), *ids = json_array();
        for (int i = 0; i < t->ngpus; i++)
            if (t->gpus[i].host == h) json_array_append_new(ids, json_integer(i));
        json_object_set_new(hj, "name", json_string(t->hosts[h].name));
        json_object_set_new(hj, "gpus", ids);
        json_object_set_new(hj, "numa_nodes", int_or_null(t->hosts[h].numa_nodes, 0));
        json_object_set_new(hj, "packages", int_or_null(t->hosts[h].packages, 0));
        if (t->hosts[h].machine[0]) json_object_set_new(hj, "machine", json_string(t->hosts[h].machine));
        json_array_append_new(hosts, hj);
    }
    for (int i = 0; i < t->ngpus; i++) json_array_append_new(gpus, gpu_json(t, &t->gpus[i]));
    /* pairs within a host only: two GPUs of different hosts are NET, their bound each GPU's "net" (core/net_bound.h);
     * listing them grew the file as n^2 (44 MB at 512 GPUs, past the readers' 256 MiB at about 1,100) */
    for (int a = 0; a < t->ngpus; a++)
        for (int b = a + 1; b < t->ngpus; b++) {
            if (t->gpus[a].host != t->gpus[b].host) continue;
            const nvs_topo_pair *p = nvs_topo_pair_at(t, a, b);
            json_t *pj = json_object(), *p2p = json_object();
            json_object_set_new(pj, "a", json_integer(a));
            json_object_set_new(pj, "b", json_integer(b));
            json_object_set_new(pj, "class", json_string(p->cls));
            json_object_set_new(pj, "nvlinks", json_integer(p->nvlinks));
            json_object_set_new(pj, "pcie_class", str_or_null(p->pcie_cls));
            json_object_set_new(p2p, "cuda", p->p2p_cuda < 0 ? json_null() : json_boolean(p->p2p_cuda));
            json_object_set_new(p2p, "nvml_read", str_or_null(p->nvml_read));
            json_object_set_new(pj, "p2p", p2p);
            nvs_topo_hop h;
            double v = nvs_topo_pair_hop(t, a, b, 1, &h);
            json_object_set_new(pj, "bound_gbps", v < 0 ? json_null() : json_real(v));
            json_object_set_new(pj, "bound_link", json_string(h.link));
            json_object_set_new(pj, "bound_source", json_string(h.source));
            v = nvs_topo_pair_hop(t, a, b, 0, &h);
            json_object_set_new(pj, "shm_bound_gbps", v < 0 ? json_null() : json_real(v));
            json_array_append_new(pairs, pj);
        }
    json_t *nics = json_array();
    for (int k = 0; k < t->nnics; k++) json_array_append_new(nics, nic_json(t, &t->nics[k]));
    json_object_set_new(o, "hosts", hosts);
    json_object_set_new(o, "gpus", gpus);
    json_object_set_new(o, "pairs", pairs);
    json_object_set_new(o, "nics", nics);
    return o;
}

/* --- reading back ------------------------------------------------------------------------------------------ */

#define FAIL(...)                                                                                           \
    do {                                                                                                    \
        snprintf(err, errlen, __VA_ARGS__);                                                                 \
        goto fail;                                                                                          \
    } while (0)

static int get_int(const json_t *o, const char *k, int dflt)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}
static double get_num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}
static void get_str(const json_t *o, const char *k, char *dst, size_t len)
{
    const json_t *v = json_object_get(o, k);
    snprintf(dst, len, "%s", json_is_string(v) ? json_string_value(v) : "");
}

/* A class from a class row, checked: a matrix cell is a class name, "X" (self) or "?" (unknown). */
static int class_cell(const json_t *row, size_t i, char *out)
{
    const json_t *v = json_array_get(row, i);
    int nv;
    if (!json_is_string(v)) return -1;
    const char *s = json_string_value(v);
    if (strcmp(s, "X") && strcmp(s, "?") && nvs_link_class_parse(s, &nv) == NVS_CLASS_UNKNOWN) return -1;
    snprintf(out, NVS_TOPO_CLS_LEN, "%s", s);
    return 0;
}

static int read_nics(const json_t *j, nvs_topology *t, char *err, size_t errlen)
{
    const json_t *nics = json_object_get(j, "nics");
    int *per_host = NULL;
    if (!nics) return 0; /* run.json files from before NICs were discovered */
    if (!json_is_array(nics)) FAIL("topology: \"nics\" must be an array");
    int n = (int)json_array_size(nics);
    if (n > 100000) FAIL("topology: too many NICs");
    if (nvs_topo_alloc_nics(t, n) != NVS_OK) FAIL("topology: out of memory");
    for (int k = 0; k < n; k++) {
        const json_t *nj = json_array_get(nics, (size_t)k);
        nvs_topo_nic *nic = &t->nics[k];
        if (!json_is_object(nj) || !json_is_string(json_object_get(nj, "name")))
            FAIL("topology: nics[%d] needs a \"name\"", k);
        const json_t *hv = json_object_get(nj, "host");
        nic->host = -1;
        for (int h = 0; h < t->nhosts && json_is_string(hv); h++)
            if (!strcmp(t->hosts[h].name, json_string_value(hv))) nic->host = h;
        if (nic->host < 0) FAIL("topology: nics[%d] names no host of \"hosts\"", k);
        get_str(nj, "name", nic->name, sizeof nic->name);
        get_str(nj, "netdev", nic->netdev, sizeof nic->netdev);
        get_str(nj, "kind", nic->kind, sizeof nic->kind);
        get_str(nj, "pci_bus_id", nic->pci_bus_id, sizeof nic->pci_bus_id);
        get_str(nj, "state", nic->state, sizeof nic->state);
        get_str(nj, "rate", nic->rate, sizeof nic->rate);
        get_str(nj, "rate_source", nic->rate_source, sizeof nic->rate_source);
        nic->numa_node = get_int(nj, "numa_node", -1);
        nic->gbps = get_num(nj, "gbps");
    }
    /* a host's NIC classes grow with the square of its NICs: the bound discovery keeps (topo/topo.h) */
    per_host = calloc((size_t)(t->nhosts > 0 ? t->nhosts : 1), sizeof *per_host);
    if (!per_host) FAIL("topology: out of memory");
    for (int k = 0; k < n; k++)
        if (++per_host[t->nics[k].host] > NVS_TOPO_MAX_NICS_PER_HOST)
            FAIL("topology: host \"%s\" lists more than %d NICs (topo/topo.h)", t->hosts[t->nics[k].host].name,
                 NVS_TOPO_MAX_NICS_PER_HOST);
    free(per_host);
    return 0;
fail:
    free(per_host);
    return -1;
}

/* One class row of NIC `nic`: one class per GPU (of_gpus) or NIC of its host, in index order; or, as written
 * before 3 December 2026, one per GPU or NIC of the topology, where those of other hosts are NET and not kept
 * (checked to be classes all the same). Returns -1 when read, -2 when the row's length is neither, else the
 * index of the cell that is not a class. */
static long class_row_read(const json_t *row, nvs_topology *t, int nic, int of_gpus, int local_n)
{
    int n = of_gpus ? t->ngpus : t->nnics, host = t->nics[nic].host;
    size_t len = json_array_size(row), at = 0;
    int full = len == (size_t)n;
    if (!json_is_array(row) || (!full && len != (size_t)local_n)) return -2;
    for (int i = 0; i < n; i++) {
        int mine = (of_gpus ? t->gpus[i].host : t->nics[i].host) == host;
        if (!mine && !full) continue;
        char cell[NVS_TOPO_CLS_LEN];
        if (class_cell(row, at, cell)) return (long)at;
        at++;
        char *dst = !mine ? NULL : of_gpus ? nvs_topo_gpu_nic_cell(t, i, nic)
                                 : i == nic ? NULL : nvs_topo_nic_nic_cell(t, nic, i);
        if (dst) snprintf(dst, NVS_TOPO_CLS_LEN, "%s", cell);
    }
    return -1;
}

/* The NICs' class rows, once every GPU and NIC has its host and the classes are laid out. */
static int read_nic_classes(const json_t *j, nvs_topology *t, char *err, size_t errlen)
{
    const json_t *nics = json_object_get(j, "nics");
    int *gpus_of = calloc((size_t)(t->nhosts > 0 ? t->nhosts : 1), sizeof *gpus_of),
        *nics_of = calloc((size_t)(t->nhosts > 0 ? t->nhosts : 1), sizeof *nics_of);
    if (!gpus_of || !nics_of) FAIL("topology: out of memory");
    for (int i = 0; i < t->ngpus; i++) gpus_of[t->gpus[i].host]++;
    for (int k = 0; k < t->nnics; k++) nics_of[t->nics[k].host]++;
    for (int k = 0; k < t->nnics; k++) {
        const json_t *nj = json_array_get(nics, (size_t)k);
        int h = t->nics[k].host;
        for (int of_gpus = 1; of_gpus >= 0; of_gpus--) {
            const char *key = of_gpus ? "gpu_classes" : "nic_classes";
            int local = of_gpus ? gpus_of[h] : nics_of[h];
            long bad = class_row_read(json_object_get(nj, key), t, k, of_gpus, local);
            if (bad == -2)
                FAIL("topology: nics[%d] needs \"%s\": one class per %s of its host \"%s\" (%d)", k, key,
                     of_gpus ? "GPU" : "NIC", t->hosts[h].name, local);
            if (bad >= 0) FAIL("topology: nics[%d].%s[%ld] is not a class", k, key, bad);
        }
    }
    free(gpus_of);
    free(nics_of);
    return 0;
fail:
    free(gpus_of);
    free(nics_of);
    return -1;
}

nvs_result_t nvs_topo_from_json(const json_t *j, nvs_topology **out, char *err, size_t errlen)
{
    nvs_topology *t = NULL;
    *out = NULL;
    if (!json_is_object(j)) FAIL("topology: expected an object");
    const json_t *hosts = json_object_get(j, "hosts"), *gpus = json_object_get(j, "gpus"),
                 *pairs = json_object_get(j, "pairs");
    if (!json_is_array(hosts) || !json_is_array(gpus)) FAIL("topology: \"hosts\" and \"gpus\" must be arrays");
    if (pairs && !json_is_array(pairs)) FAIL("topology: \"pairs\" must be an array");
    int nh = (int)json_array_size(hosts), ng = (int)json_array_size(gpus);
    if (nh > NVS_TOPO_MAX_GPUS || ng > NVS_TOPO_MAX_GPUS)
        FAIL("topology: %d hosts and %d GPUs: at most %d of each (topo/topo.h)", nh, ng, NVS_TOPO_MAX_GPUS);
    t = nvs_topo_alloc(nh, ng);
    if (!t) FAIL("topology: out of memory");
    get_str(j, "source", t->source, sizeof t->source);
    get_str(j, "nvml", t->nvml_status, sizeof t->nvml_status);
    get_str(j, "cuda", t->cuda_status, sizeof t->cuda_status);
    t->net_gbps = get_num(j, "net_gbps");
    for (int h = 0; h < nh; h++) {
        const json_t *hj = json_array_get(hosts, (size_t)h);
        if (!json_is_object(hj) || !json_is_string(json_object_get(hj, "name")))
            FAIL("topology: hosts[%d] needs a \"name\"", h);
        get_str(hj, "name", t->hosts[h].name, sizeof t->hosts[h].name);
        t->hosts[h].numa_nodes = get_int(hj, "numa_nodes", 0);
        t->hosts[h].packages = get_int(hj, "packages", 0);
        get_str(hj, "machine", t->hosts[h].machine, sizeof t->hosts[h].machine);
    }
    for (int i = 0; i < ng; i++) {
        const json_t *gj = json_array_get(gpus, (size_t)i);
        nvs_topo_gpu *g = &t->gpus[i];
        if (!json_is_object(gj)) FAIL("topology: gpus[%d] is not an object", i);
        const json_t *hv = json_object_get(gj, "host");
        if (!json_is_string(hv)) FAIL("topology: gpus[%d] needs a \"host\" name", i);
        g->host = -1;
        for (int h = 0; h < nh; h++)
            if (!strcmp(t->hosts[h].name, json_string_value(hv))) g->host = h;
        if (g->host < 0)
            FAIL("topology: gpus[%d] names host \"%s\" that is not in \"hosts\"", i, json_string_value(hv));
        if (!json_is_string(json_object_get(gj, "pci_bus_id"))) FAIL("topology: gpus[%d] needs a \"pci_bus_id\"", i);
        get_str(gj, "pci_bus_id", g->pci_bus_id, sizeof g->pci_bus_id);
        get_str(gj, "name", g->name, sizeof g->name);
        get_str(gj, "cpuset", g->cpuset, sizeof g->cpuset);
        g->cuda_device = get_int(gj, "cuda_device", -1);
        g->numa_node = get_int(gj, "numa_node", -1);
        const json_t *p = json_object_get(gj, "pcie");
        if (json_is_object(p)) {
            g->pcie.gen = get_int(p, "gen", 0);
            g->pcie.width = get_int(p, "width", 0);
            g->pcie.max_gen = get_int(p, "max_gen", 0);
            g->pcie.max_width = get_int(p, "max_width", 0);
            g->pcie.gpu_max_gen = get_int(p, "gpu_max_gen", 0);     /* absent before 6 December 2026: unknown */
            g->pcie.gpu_max_width = get_int(p, "gpu_max_width", 0); /* the same */
            g->pcie.gbps = get_num(p, "gbps");
            get_str(p, "source", g->pcie.gbps_source, sizeof g->pcie.gbps_source);
        }
        const json_t *n = json_object_get(gj, "nvlink");
        if (json_is_object(n)) {
            g->nvlink.known = 1;
            g->nvlink.links_up = get_int(n, "links_up", 0);
            g->nvlink.version = get_int(n, "version", 0);
            g->nvlink.gbps_per_link = get_num(n, "gbps_per_link");
            g->nvlink.nvml_speed_gbps = get_num(n, "nvml_speed_gbps");
            g->nvlink.to_switch = get_int(n, "to_nvswitch", 0);
            g->nvlink.to_cpu = get_int(n, "to_cpu", 0);
            get_str(n, "source", g->nvlink.rate_source, sizeof g->nvlink.rate_source);
            const json_t *links = json_object_get(n, "links");
            size_t nl = json_is_array(links) ? json_array_size(links) : 0;
            if (nl > sizeof g->nvlink.links / sizeof g->nvlink.links[0])
                FAIL("topology: gpus[%d] lists %zu NVLinks, more than %zu", i, nl,
                     sizeof g->nvlink.links / sizeof g->nvlink.links[0]);
            for (size_t k = 0; k < nl; k++) {
                const json_t *lj = json_array_get(links, k);
                nvs_topo_link *l = &g->nvlink.links[k];
                l->link = get_int(lj, "link", (int)k);
                const json_t *r = json_object_get(lj, "remote");
                l->remote = remote_parse(json_is_string(r) ? json_string_value(r) : NULL);
                l->remote_gpu = get_int(lj, "remote_gpu", -1);
                if (l->remote_gpu >= ng)
                    FAIL("topology: gpus[%d] link %zu: remote_gpu %d out of range", i, k, l->remote_gpu);
                get_str(lj, "remote_pci_bus_id", l->remote_pci_bus_id, sizeof l->remote_pci_bus_id);
            }
            g->nvlink.nlinks = (int)nl;
        } else
            get_str(gj, "nvlink_status", g->nvlink.why_unknown, sizeof g->nvlink.why_unknown);
        const json_t *net = json_object_get(gj, "net");
        if (json_is_object(net)) {
            g->net.gbps = get_num(net, "gbps");
            g->net.nics = get_int(net, "nics_used", 0);
            get_str(net, "class", g->net.cls, sizeof g->net.cls);
            get_str(net, "nearest", g->net.names, sizeof g->net.names);
            get_str(net, "source", g->net.source, sizeof g->net.source);
        }
    }
    if (read_nics(j, t, err, errlen)) goto fail;
    if (nvs_topo_layout(t) != NVS_OK) FAIL("topology: out of memory"); /* every host was checked above */
    if (json_object_get(j, "nics") && read_nic_classes(j, t, err, errlen)) goto fail;
    for (size_t k = 0; pairs && k < json_array_size(pairs); k++) {
        const json_t *pj = json_array_get(pairs, k);
        int a = get_int(pj, "a", -1), b = get_int(pj, "b", -1);
        if (a < 0 || b < 0 || a >= ng || b >= ng || a == b)
            FAIL("topology: pairs[%zu]: bad GPU indices %d, %d", k, a, b);
        const json_t *c = json_object_get(pj, "class");
        int nv = 0;
        /* "?" is what the writer gives a pair nothing classed (live: hwloc did not find the GPUs, and no NVLink
         * joins them); every host's topology crosses this reader in the gather, so refusing it failed the run */
        if (!json_is_string(c) || (strcmp(json_string_value(c), "?") &&
                                   nvs_link_class_parse(json_string_value(c), &nv) == NVS_CLASS_UNKNOWN))
            FAIL("topology: pairs[%zu]: \"class\" must be NV#, PIX, PXB, PHB, NODE, SYS, NET or ? (unknown)", k);
        for (int dir = 0; dir < 2; dir++) {
            /* a pair across hosts (listed before 3 December 2026) is NET and not stored */
            nvs_topo_pair *p = nvs_topo_pair_cell(t, dir ? b : a, dir ? a : b);
            if (!p) continue;
            snprintf(p->cls, sizeof p->cls, "%s", json_string_value(c));
            p->nvlinks = get_int(pj, "nvlinks", nv);
            get_str(pj, "pcie_class", p->pcie_cls, sizeof p->pcie_cls);
            const json_t *p2p = json_object_get(pj, "p2p");
            const json_t *cu = json_object_get(p2p, "cuda");
            p->p2p_cuda = json_is_boolean(cu) ? json_is_true(cu) : -1;
            get_str(p2p, "nvml_read", p->nvml_read, sizeof p->nvml_read);
        }
    }
    *out = t;
    return NVS_OK;
fail:
    nvs_topo_free(t);
    return NVS_ERR_INPUT;
}
