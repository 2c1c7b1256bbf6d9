/* Host copies: their part of run.json's "p2p" section ("host_copies") and the table on screen (PURE). */
#include <stdlib.h>
#include <string.h>

#include "topo/h2d.h"
#include "topo/p2p.h"

static json_t *num_or_null(double v) { return v >= 0 ? json_real(v) : json_null(); }
static json_t *pct(double v, double bound) { return v >= 0 && bound > 0 ? json_real(100.0 * v / bound) : json_null(); }

static double bound_of(const nvs_topology *t, const nvs_h2d_gpu *g, const char **src)
{
    const nvs_topo_gpu *tg = g->gpu >= 0 && g->gpu < t->ngpus ? &t->gpus[g->gpu] : NULL;
    if (src) *src = tg && tg->pcie.gbps > 0 ? tg->pcie.gbps_source : "unknown";
    return tg && tg->pcie.gbps > 0 ? tg->pcie.gbps : -1;
}

void nvs_h2d_mode_set(nvs_h2d_mode *m, int dir, const double *secs, int n, double bytes)
{
    double *to[4] = {&m->h2d_gbps, &m->d2h_gbps, &m->bidir_h2d_gbps, &m->bidir_d2h_gbps};
    if (dir < 0 || dir > 3) return;
    *to[dir] = nvs_p2p_median_gbps(secs, n, bytes);
    /* a sum with a -1 (not measured) would be a figure lower than the direction that was */
    if (dir >= 2)
        m->bidir_gbps = m->bidir_h2d_gbps >= 0 && m->bidir_d2h_gbps >= 0 ? m->bidir_h2d_gbps + m->bidir_d2h_gbps : -1;
}

static int measured(const nvs_h2d_mode *m) { return m->h2d_gbps >= 0 || m->d2h_gbps >= 0 || m->bidir_gbps >= 0; }

static json_t *mode_json(const nvs_h2d_mode *m, double bound)
{
    if (!measured(m)) return json_null();
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "numa_node",
                     m->numa >= 0 ? json_integer(m->numa) : json_null(), "h2d_gbps", num_or_null(m->h2d_gbps),
                     "d2h_gbps", num_or_null(m->d2h_gbps), "bidir_gbps", num_or_null(m->bidir_gbps), "bidir_h2d_gbps",
                     num_or_null(m->bidir_h2d_gbps), "bidir_d2h_gbps", num_or_null(m->bidir_d2h_gbps),
                     "h2d_pct_of_bound", pct(m->h2d_gbps, bound), "d2h_pct_of_bound", pct(m->d2h_gbps, bound),
                     "bidir_pct_of_bound", pct(m->bidir_gbps, 2 * bound), "wrong",
                     m->wrong >= 0 ? json_integer(m->wrong) : json_null());
}

json_t *nvs_h2d_to_json(const nvs_topology *t, const nvs_h2d_result *r)
{
    json_t *o = json_pack("{s:I, s:i, s:i, s:i, s:s}", "copy_bytes", (json_int_t)r->copy_bytes, "iters", r->iters,
                          "samples", r->samples, "warmup", r->warmup, "numa_binding", r->numa_binding);
    json_t *gpus = json_array();
    if (!o || !gpus) {
        json_decref(o);
        json_decref(gpus);
        return NULL;
    }
    for (int i = 0; i < r->ngpus; i++) {
        const nvs_h2d_gpu *g = &r->gpus[i];
        const char *src;
        double b = bound_of(t, g, &src);
        json_t *gj = json_pack("{s:i, s:s, s:s, s:o, s:o, s:s}", "gpu", g->gpu, "host",
                               nvs_topo_gpu_host(t, g->gpu) ? nvs_topo_gpu_host(t, g->gpu) : "", "pci_bus_id",
                               nvs_topo_gpu_busid(t, g->gpu) ? nvs_topo_gpu_busid(t, g->gpu) : "", "gpu_numa_node",
                               g->gpu_numa >= 0 ? json_integer(g->gpu_numa) : json_null(), "bound_gbps", num_or_null(b),
                               "bound_source", src);
        if (!gj) continue;
        for (int m = 0; m < NVS_H2D_MODES; m++)
            json_object_set_new(gj, nvs_h2d_mode_name(m), mode_json(&g->mode[m], b));
        json_object_set_new(gj, "remote_why", json_string(g->remote_why));
        json_array_append_new(gpus, gj);
    }
    json_object_set_new(o, "gpus", gpus);
    return o;
}

static double jnum(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : -1;
}

nvs_result_t nvs_h2d_from_json(const json_t *j, const nvs_topology *t, nvs_h2d_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const json_t *gpus = json_object_get(j, "gpus");
    if (!json_is_object(j) || !json_is_array(gpus)) {
        snprintf(err, errlen, "host_copies: expected an object with a \"gpus\" array");
        return NVS_ERR_INPUT;
    }
    out->copy_bytes = (size_t)json_integer_value(json_object_get(j, "copy_bytes"));
    out->iters = (int)json_integer_value(json_object_get(j, "iters"));
    out->warmup = (int)json_integer_value(json_object_get(j, "warmup"));
    /* runs written before the samples were kept timed one block: 1 */
    const json_t *sm = json_object_get(j, "samples");
    out->samples = json_is_integer(sm) ? (int)json_integer_value(sm) : 1;
    const json_t *nb = json_object_get(j, "numa_binding");
    snprintf(out->numa_binding, sizeof out->numa_binding, "%s", json_is_string(nb) ? json_string_value(nb) : "");
    size_t n = json_array_size(gpus);
    out->gpus = calloc(n ? n : 1, sizeof *out->gpus);
    if (!out->gpus) {
        snprintf(err, errlen, "out of memory");
        return NVS_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *gj = json_array_get(gpus, i);
        nvs_h2d_gpu *g = &out->gpus[out->ngpus++];
        const char *host = json_string_value(json_object_get(gj, "host"));
        const char *bus = json_string_value(json_object_get(gj, "pci_bus_id"));
        g->gpu = bus ? nvs_topo_find_gpu(t, host, bus) : -1;
        if (g->gpu < 0) {
            snprintf(err, errlen, "host_copies.gpus[%zu]: GPU %s of host %s is not in the topology", i, bus ? bus : "?",
                     host ? host : "?");
            nvs_h2d_result_free(out);
            return NVS_ERR_INPUT;
        }
        g->dev = -1;
        const json_t *gn = json_object_get(gj, "gpu_numa_node");
        g->gpu_numa = json_is_integer(gn) ? (int)json_integer_value(gn) : -1;
        const json_t *rw = json_object_get(gj, "remote_why");
        snprintf(g->remote_why, sizeof g->remote_why, "%s", json_is_string(rw) ? json_string_value(rw) : "");
        for (int m = 0; m < NVS_H2D_MODES; m++) {
            nvs_h2d_mode *x = &g->mode[m];
            const json_t *mj = json_object_get(gj, nvs_h2d_mode_name(m));
            x->numa = -1;
            x->h2d_gbps = x->d2h_gbps = x->bidir_gbps = x->bidir_h2d_gbps = x->bidir_d2h_gbps = -1;
            x->wrong = -1;
            if (!json_is_object(mj)) continue;
            const json_t *nn = json_object_get(mj, "numa_node"), *w = json_object_get(mj, "wrong");
            x->numa = json_is_integer(nn) ? (int)json_integer_value(nn) : -1;
            x->h2d_gbps = jnum(mj, "h2d_gbps");
            x->d2h_gbps = jnum(mj, "d2h_gbps");
            x->bidir_gbps = jnum(mj, "bidir_gbps");
            x->bidir_h2d_gbps = jnum(mj, "bidir_h2d_gbps"); /* absent before December 2026: -1 */
            x->bidir_d2h_gbps = jnum(mj, "bidir_d2h_gbps");
            x->wrong = json_is_integer(w) ? (long long)json_integer_value(w) : -1;
        }
    }
    return NVS_OK;
}

static void cell(char *buf, size_t len, double v, double bound)
{
    if (v < 0) snprintf(buf, len, "-");
    else if (bound > 0) snprintf(buf, len, "%.1f (%.0f%%)", v, 100 * v / bound);
    else snprintf(buf, len, "%.1f", v);
}

void nvs_h2d_print(const nvs_topology *t, const nvs_h2d_result *r, FILE *to)
{
    char size[64];
    if (r->copy_bytes % (1u << 20) == 0) snprintf(size, sizeof size, "%zu MiB", r->copy_bytes >> 20);
    else snprintf(size, sizeof size, "%zu B", r->copy_bytes);
    char blocks[48] = "";
    if (r->samples > 1) snprintf(blocks, sizeof blocks, ", the median of %d such blocks", r->samples);
    fprintf(to, "Host <-> device copies of %s, %d timed after %d warm-up%s; pinned host buffers placed by %s\n", size,
            r->iters, r->warmup, blocks, r->numa_binding[0] ? r->numa_binding : "cudaHostAlloc");
    fprintf(to, "GB/s (%% of the GPU's PCIe bound per direction; both: of twice it, the sum of each direction timed "
                "while the other ran)\n\n");
    fprintf(to, "%-5s %-7s %-6s %-16s %-16s %-16s %-14s %s\n", "GPU", "mode", "buffer", "host->GPU", "GPU->host",
            "both", "= h->G + G->h", "wrong");
    for (int i = 0; i < r->ngpus; i++) {
        const nvs_h2d_gpu *g = &r->gpus[i];
        double b = bound_of(t, g, NULL);
        for (int m = 0; m < NVS_H2D_MODES; m++) {
            const nvs_h2d_mode *x = &g->mode[m];
            if (!measured(x)) continue;
            char h[32], d[32], bi[32], split[40] = "-", node[16], w[24] = "-";
            cell(h, sizeof h, x->h2d_gbps, b);
            cell(d, sizeof d, x->d2h_gbps, b);
            cell(bi, sizeof bi, x->bidir_gbps, 2 * b);
            if (x->bidir_h2d_gbps >= 0 && x->bidir_d2h_gbps >= 0)
                snprintf(split, sizeof split, "%.1f + %.1f", x->bidir_h2d_gbps, x->bidir_d2h_gbps);
            if (x->numa >= 0) snprintf(node, sizeof node, "node %d", x->numa);
            else snprintf(node, sizeof node, "any");
            if (x->wrong >= 0) snprintf(w, sizeof w, "%lld", x->wrong);
            fprintf(to, "%-5d %-7s %-6s %-16s %-16s %-16s %-14s %s\n", g->gpu, nvs_h2d_mode_name(m), node, h, d, bi,
                    split, w);
        }
    }
    fprintf(to, "\nBounds and notes:\n");
    for (int i = 0; i < r->ngpus; i++) {
        const nvs_h2d_gpu *g = &r->gpus[i];
        const char *src;
        double b = bound_of(t, g, &src);
        char node[24] = "unknown";
        if (g->gpu_numa >= 0) snprintf(node, sizeof node, "%d", g->gpu_numa);
        fprintf(to, "  GPU%d (NUMA node %s): ", g->gpu, node);
        if (b > 0) fprintf(to, "PCIe %s = %.1f GB/s per direction", src, b);
        else fprintf(to, "PCIe bound unknown");
        if (g->remote_why[0]) fprintf(to, "; no remote-node test: %s", g->remote_why);
        fprintf(to, "\n");
    }
}

void nvs_h2d_print_csv(const nvs_topology *t, const nvs_h2d_result *r, FILE *to)
{
    /* the two columns of bidir's directions came last (December 2026), after the columns scripts already read */
    fprintf(to, "gpu,mode,numa_node,h2d_gbps,d2h_gbps,bidir_gbps,bound_gbps,wrong,bidir_h2d_gbps,bidir_d2h_gbps\n");
    for (int i = 0; i < r->ngpus; i++) {
        const nvs_h2d_gpu *g = &r->gpus[i];
        double b = bound_of(t, g, NULL);
        for (int m = 0; m < NVS_H2D_MODES; m++) {
            const nvs_h2d_mode *x = &g->mode[m];
            if (!measured(x)) continue;
            fprintf(to, "%d,%s,", g->gpu, nvs_h2d_mode_name(m));
            if (x->numa >= 0) fprintf(to, "%d", x->numa);
            fprintf(to, ",");
            double v[4] = {x->h2d_gbps, x->d2h_gbps, x->bidir_gbps, b};
            for (int k = 0; k < 4; k++) {
                if (v[k] >= 0) fprintf(to, "%.3f", v[k]);
                fprintf(to, ",");
            }
            if (x->wrong >= 0) fprintf(to, "%lld", x->wrong);
            double bd[2] = {x->bidir_h2d_gbps, x->bidir_d2h_gbps};
            for (int k = 0; k < 2; k++) {
                fprintf(to, ",");
                if (bd[k] >= 0) fprintf(to, "%.3f", bd[k]);
            }
            fprintf(to, "\n");
        }
    }
}
