/* The "topology" section of run.json (docs/run-json.md), both ways (PURE: jansson only).
 * Unknown values are written as null, never 0; class names are nvidia-smi's strings. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/link_class.h"
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
        json_array_append_new(hosts, hj);
    }
    for (int i = 0; i < t->ngpus; i++) json_array_append_new(gpus, gpu_json(t, &t->gpus[i]));
    for (int a = 0; a < t->ngpus; a++)
        for (int b = a + 1; b < t->ngpus; b++) {
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
    json_object_set_new(o, "hosts", hosts);
    json_object_set_new(o, "gpus", gpus);
    json_object_set_new(o, "pairs", pairs);
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
    if (nh > 100000 || ng > 100000) FAIL("topology: too many hosts or GPUs");
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
        if (g->host < 0) FAIL("topology: gpus[%d] names host \"%s\" that is not in \"hosts\"", i, json_string_value(hv));
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
                if (l->remote_gpu >= ng) FAIL("topology: gpus[%d] link %zu: remote_gpu %d out of range", i, k, l->remote_gpu);
                get_str(lj, "remote_pci_bus_id", l->remote_pci_bus_id, sizeof l->remote_pci_bus_id);
            }
            g->nvlink.nlinks = (int)nl;
        } else
            get_str(gj, "nvlink_status", g->nvlink.why_unknown, sizeof g->nvlink.why_unknown);
    }
    for (size_t k = 0; pairs && k < json_array_size(pairs); k++) {
        const json_t *pj = json_array_get(pairs, k);
        int a = get_int(pj, "a", -1), b = get_int(pj, "b", -1);
        if (a < 0 || b < 0 || a >= ng || b >= ng || a == b) FAIL("topology: pairs[%zu]: bad GPU indices %d, %d", k, a, b);
        const json_t *c = json_object_get(pj, "class");
        int nv;
        if (!json_is_string(c) || nvs_link_class_parse(json_string_value(c), &nv) == NVS_CLASS_UNKNOWN)
            FAIL("topology: pairs[%zu]: \"class\" must be NV#, PIX, PXB, PHB, NODE, SYS or NET", k);
        for (int dir = 0; dir < 2; dir++) {
            nvs_topo_pair *p = &t->pairs[(dir ? b : a) * ng + (dir ? a : b)];
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
