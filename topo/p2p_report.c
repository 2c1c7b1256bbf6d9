/* p2p results: the "p2p" section of run.json and the matrices on screen (PURE). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "topo/p2p.h"

static double bound_of(const nvs_topology *t, const nvs_p2p_pair *p, nvs_topo_hop *h)
{
    return nvs_topo_pair_hop(t, p->src, p->dst, !strcmp(p->path, "P2P"), h);
}

/* A rate or a time that was measured: < 0 says not measured; infinity (a time of zero, closer than the event
 * timer's resolution) is no measurement either, and json_real refuses it (the key was silently left out) */
static int got(double v) { return v >= 0 && isfinite(v); }

static json_t *num_or_null(double v) { return got(v) ? json_real(v) : json_null(); }

double nvs_p2p_median_gbps(const double *secs, int n, double bytes)
{
    /* the median of the times, not of the rates: a time of zero has no finite rate to sort among the others */
    double s = nvs_median(secs, (size_t)n);
    return s > 0 ? bytes / s / 1e9 : -1; /* NAN (no memory) fails s > 0 too */
}

json_t *nvs_p2p_to_json(const nvs_topology *t, const nvs_p2p_result *r)
{
    json_t *o = json_object(), *pairs = json_array();
    if (!o || !pairs) {
        json_decref(o);
        json_decref(pairs);
        return NULL;
    }
    json_object_set_new(o, "copy_bytes", json_integer((json_int_t)r->copy_bytes));
    json_object_set_new(o, "iters", json_integer(r->iters));
    json_object_set_new(o, "warmup", json_integer(r->warmup));
    json_object_set_new(o, "samples", json_integer(r->samples));
    json_object_set_new(o, "latency_iters", json_integer(r->latency_iters));
    json_object_set_new(o, "latency_bytes", json_integer(4));
    for (int i = 0; i < r->npairs; i++) {
        const nvs_p2p_pair *p = &r->pairs[i];
        json_t *pj = json_object();
        nvs_topo_hop h;
        double b = bound_of(t, p, &h);
        const char *cls = nvs_topo_pair_class(t, p->src, p->dst);
        json_object_set_new(pj, "src", json_integer(p->src));
        json_object_set_new(pj, "dst", json_integer(p->dst));
        json_object_set_new(pj, "host", json_string(nvs_topo_gpu_host(t, p->src)));
        json_object_set_new(pj, "src_pci_bus_id", json_string(nvs_topo_gpu_busid(t, p->src)));
        json_object_set_new(pj, "dst_pci_bus_id", json_string(nvs_topo_gpu_busid(t, p->dst)));
        json_object_set_new(pj, "path", json_string(p->path));
        json_object_set_new(pj, "class", json_string(cls ? cls : "?"));
        json_object_set_new(pj, "uni_gbps", num_or_null(p->uni_gbps));
        json_object_set_new(pj, "bidir_gbps", num_or_null(p->bidir_gbps));
        json_object_set_new(pj, "bidir_fwd_gbps", num_or_null(p->bidir_fwd_gbps));
        json_object_set_new(pj, "bidir_rev_gbps", num_or_null(p->bidir_rev_gbps));
        json_object_set_new(pj, "latency_us", num_or_null(p->latency_us));
        json_object_set_new(pj, "bound_gbps", num_or_null(b));
        json_object_set_new(pj, "bound_link", json_string(h.link));
        json_object_set_new(pj, "bound_source", json_string(h.source));
        json_object_set_new(pj, "pct_of_bound",
                            b > 0 && got(p->uni_gbps) ? json_real(100.0 * p->uni_gbps / b) : json_null());
        json_object_set_new(pj, "bidir_pct_of_bound",
                            b > 0 && got(p->bidir_gbps) ? json_real(100.0 * p->bidir_gbps / (2 * b)) : json_null());
        json_object_set_new(pj, "wrong", p->wrong >= 0 ? json_integer(p->wrong) : json_null());
        json_array_append_new(pairs, pj);
    }
    json_object_set_new(o, "pairs", pairs);
    return o;
}

static double jnum(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : -1;
}

nvs_result_t nvs_p2p_from_json(const json_t *j, nvs_p2p_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const json_t *pairs = json_object_get(j, "pairs");
    if (!json_is_object(j) || !json_is_array(pairs)) {
        snprintf(err, errlen, "p2p: expected an object with a \"pairs\" array");
        return NVS_ERR_INPUT;
    }
    out->copy_bytes = (size_t)json_integer_value(json_object_get(j, "copy_bytes"));
    out->iters = (int)json_integer_value(json_object_get(j, "iters"));
    out->warmup = (int)json_integer_value(json_object_get(j, "warmup"));
    out->latency_iters = (int)json_integer_value(json_object_get(j, "latency_iters"));
    /* runs written before the samples were kept timed one block: 1 */
    const json_t *sm = json_object_get(j, "samples");
    out->samples = json_is_integer(sm) ? (int)json_integer_value(sm) : 1;
    if (sm && (!json_is_integer(sm) || out->samples < 1 || out->samples > NVS_P2P_MAX_SAMPLES)) {
        snprintf(err, errlen, "p2p: \"samples\" must be an integer from 1 to %d", NVS_P2P_MAX_SAMPLES);
        return NVS_ERR_INPUT;
    }
    out->npairs = (int)json_array_size(pairs);
    out->pairs = calloc(out->npairs ? (size_t)out->npairs : 1, sizeof *out->pairs);
    if (!out->pairs) {
        snprintf(err, errlen, "out of memory");
        return NVS_ERR_NOMEM;
    }
    for (int i = 0; i < out->npairs; i++) {
        const json_t *pj = json_array_get(pairs, (size_t)i);
        nvs_p2p_pair *p = &out->pairs[i];
        const json_t *path = json_object_get(pj, "path");
        if (!json_is_integer(json_object_get(pj, "src")) || !json_is_integer(json_object_get(pj, "dst")) ||
            !json_is_string(path)) {
            snprintf(err, errlen, "p2p: pairs[%d] needs integer \"src\", \"dst\" and a \"path\"", i);
            nvs_p2p_result_free(out);
            return NVS_ERR_INPUT;
        }
        p->src = (int)json_integer_value(json_object_get(pj, "src"));
        p->dst = (int)json_integer_value(json_object_get(pj, "dst"));
        p->src_dev = p->dst_dev = -1;
        snprintf(p->path, sizeof p->path, "%s", json_string_value(path));
        p->uni_gbps = jnum(pj, "uni_gbps");
        p->bidir_gbps = jnum(pj, "bidir_gbps");
        p->bidir_fwd_gbps = jnum(pj, "bidir_fwd_gbps"); /* absent before 7 December 2026: -1 */
        p->bidir_rev_gbps = jnum(pj, "bidir_rev_gbps");
        p->latency_us = jnum(pj, "latency_us");
        const json_t *w = json_object_get(pj, "wrong");
        p->wrong = json_is_integer(w) ? (long long)json_integer_value(w) : -1;
    }
    return NVS_OK;
}

void nvs_p2p_result_free(nvs_p2p_result *r)
{
    free(r->pairs);
    r->pairs = NULL;
    r->npairs = 0;
}

long long nvs_p2p_wrong_total(const nvs_p2p_result *r)
{
    long long w = 0;
    for (int i = 0; i < r->npairs; i++)
        if (r->pairs[i].wrong > 0) w += r->pairs[i].wrong;
    return w;
}

static const nvs_p2p_pair *find(const nvs_p2p_result *r, int a, int b)
{
    for (int i = 0; i < r->npairs; i++)
        if (r->pairs[i].src == a && r->pairs[i].dst == b) return &r->pairs[i];
    return NULL;
}

/* one row, trailing blanks cut */
static void put_row(FILE *to, char *row)
{
    size_t n = strlen(row);
    while (n && row[n - 1] == ' ') row[--n] = '\0';
    fprintf(to, "%s\n", row);
}

static void matrix(const nvs_topology *t, const nvs_p2p_result *r, const char *title, int what, FILE *to)
{
    static char row[16384];
    size_t n = 0;
    fprintf(to, "\n%s\n", title);
    n = (size_t)snprintf(row, sizeof row, "%-8s", "src\\dst");
    for (int b = 0; b < t->ngpus && n < sizeof row - 16; b++)
        n += (size_t)snprintf(row + n, sizeof row - n, "GPU%-6d", b);
    put_row(to, row);
    for (int a = 0; a < t->ngpus; a++) {
        n = (size_t)snprintf(row, sizeof row, "GPU%-5d", a);
        for (int b = 0; b < t->ngpus && n < sizeof row - 16; b++) {
            const nvs_p2p_pair *p = find(r, a, b);
            double v = !p ? -1 : what == 0 ? p->uni_gbps : what == 1 ? p->bidir_gbps : p->latency_us;
            char cell[32];
            if (a == b) snprintf(cell, sizeof cell, " X");
            else if (!got(v)) snprintf(cell, sizeof cell, "-");
            else snprintf(cell, sizeof cell, what == 2 ? "%.2f" : "%.1f", v);
            n += (size_t)snprintf(row + n, sizeof row - n, "%-9s", cell);
        }
        put_row(to, row);
    }
}

static void fmt(char *buf, size_t len, double v, const char *f)
{
    if (!got(v)) snprintf(buf, len, "-");
    else snprintf(buf, len, f, v);
}

void nvs_p2p_print(const nvs_topology *t, const nvs_p2p_result *r, FILE *to)
{
    char size[64];
    size_t b = r->copy_bytes;
    if (b % (1u << 20) == 0) snprintf(size, sizeof size, "%zu MiB", b >> 20);
    else snprintf(size, sizeof size, "%zu B", b);
    char blocks[48] = "";
    if (r->samples > 1) snprintf(blocks, sizeof blocks, ", the median of %d such blocks", r->samples);
    fprintf(to, "Copies of %s, %d timed after %d warm-up%s; latency: %d copies of 4 B\n", size, r->iters, r->warmup,
            blocks, r->latency_iters);
    matrix(t, r, "Unidirectional copy bandwidth (GB/s)", 0, to);
    matrix(t, r, "Bidirectional copy bandwidth (GB/s, both directions summed)", 1, to);
    matrix(t, r, "Copy latency (us, 4-byte copies back to back, launch included)", 2, to);
    fprintf(to, "\nbidir = fwd + rev: src -> dst and dst -> src at once, each timed to its own end\n");
    fprintf(to, "%-10s %-5s %-6s %9s %9s %7s %9s %7s %-17s %9s %s\n", "pair", "path", "class", "uni GB/s", "bound",
            "% bound", "bidir", "% bound", " = fwd + rev", "lat us", "wrong");
    for (int i = 0; i < r->npairs; i++) {
        const nvs_p2p_pair *p = &r->pairs[i];
        nvs_topo_hop h;
        double bound = bound_of(t, p, &h);
        char pair[32], bs[16] = "-", pct[16] = "-", bpct[16] = "-", wrong[24] = "-", uni[24], bi[24], lat[24];
        char split[48] = " -";
        fmt(uni, sizeof uni, p->uni_gbps, "%.1f");
        fmt(bi, sizeof bi, p->bidir_gbps, "%.1f");
        fmt(lat, sizeof lat, p->latency_us, "%.2f");
        snprintf(pair, sizeof pair, "%d->%d", p->src, p->dst);
        if (bound > 0) snprintf(bs, sizeof bs, "%.1f", bound);
        if (bound > 0 && got(p->uni_gbps)) snprintf(pct, sizeof pct, "%.1f", 100 * p->uni_gbps / bound);
        if (bound > 0 && got(p->bidir_gbps)) snprintf(bpct, sizeof bpct, "%.1f", 100 * p->bidir_gbps / (2 * bound));
        if (got(p->bidir_fwd_gbps) && got(p->bidir_rev_gbps)) /* none in a run.json older than them */
            snprintf(split, sizeof split, " = %.1f + %.1f", p->bidir_fwd_gbps, p->bidir_rev_gbps);
        if (p->wrong >= 0) snprintf(wrong, sizeof wrong, "%lld", p->wrong);
        const char *cls = nvs_topo_pair_class(t, p->src, p->dst);
        fprintf(to, "%-10s %-5s %-6s %9s %9s %7s %9s %7s %-17s %9s %s\n", pair, p->path, cls ? cls : "?", uni, bs, pct,
                bi, bpct, split, lat, wrong);
    }
    fprintf(to, "\nBounds (per direction; bidirectional bound = 2x):\n");
    for (int i = 0; i < r->npairs; i++) {
        const nvs_p2p_pair *p = &r->pairs[i];
        if (p->src > p->dst && find(r, p->dst, p->src)) continue; /* one line per unordered pair */
        nvs_topo_hop h;
        bound_of(t, p, &h);
        fprintf(to, "  GPU%d-GPU%d: %s\n", p->src, p->dst, h.source);
    }
}

static void csv_num(FILE *to, double v, const char *f)
{
    if (got(v)) fprintf(to, f, v);
    fputc(',', to);
}

void nvs_p2p_print_csv(const nvs_topology *t, const nvs_p2p_result *r, FILE *to)
{
    /* empty fields: not measured / unknown. bidir's halves came last (December 2026), after the columns scripts
     * already read */
    fprintf(to, "src,dst,path,class,uni_gbps,bidir_gbps,latency_us,bound_gbps,pct_of_bound,wrong,bidir_fwd_gbps,"
                "bidir_rev_gbps\n");
    for (int i = 0; i < r->npairs; i++) {
        const nvs_p2p_pair *p = &r->pairs[i];
        double b = bound_of(t, p, NULL);
        const char *cls = nvs_topo_pair_class(t, p->src, p->dst);
        fprintf(to, "%d,%d,%s,%s,", p->src, p->dst, p->path, cls ? cls : "?");
        csv_num(to, p->uni_gbps, "%.3f");
        csv_num(to, p->bidir_gbps, "%.3f");
        csv_num(to, p->latency_us, "%.3f");
        csv_num(to, b, "%.3f");
        csv_num(to, b > 0 && got(p->uni_gbps) ? 100 * p->uni_gbps / b : -1, "%.2f");
        if (p->wrong >= 0) fprintf(to, "%lld", p->wrong);
        double half[2] = {p->bidir_fwd_gbps, p->bidir_rev_gbps};
        for (int k = 0; k < 2; k++) {
            fputc(',', to);
            if (got(half[k])) fprintf(to, "%.3f", half[k]);
        }
        fputc('\n', to);
    }
}
