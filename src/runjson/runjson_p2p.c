/* run.json reader: the "p2p" section (topo/p2p_report.c, topo/h2d_report.c): GPU pairs' copy bandwidth and
 * latency, what was skipped and why, and host_copies (host <-> GPU copies per GPU, only validated). Its own file:
 * what `nvscale p2p` measured, which report's pair table and check's p2p and host rules read. */
#include "runjson/runjson_read.h"

#include <limits.h>
#include <string.h>

/* p2p.host_copies (topo/h2d_report.c), which check's host rules and fleet read from the document: validated here
 * so that a value of the wrong type or range is bad input naming its path, not a row judged on a guess. */
static void read_host_copies(vctx *v, const json_t *p2p)
{
    json_t *t = rj_typed(v, p2p, "host_copies", "p2p", JSON_OBJECT, 0);
    if (!t) return;
    static const char *const prefix = "p2p.host_copies";
    (void)rj_bytes(v, t, "copy_bytes", prefix);
    (void)rj_int(v, t, "iters", prefix, 0, INT_MAX, 0, 0);
    (void)rj_int(v, t, "samples", prefix, 1, INT_MAX, 1, 0); /* absent before session 50: one block */
    (void)rj_int(v, t, "warmup", prefix, 0, INT_MAX, 0, 0);
    (void)rj_str(v, t, "numa_binding", prefix, 0);
    json_t *a = rj_typed(v, t, "gpus", prefix, JSON_ARRAY, 0);
    static const char *const modes[] = {"single", "all", "remote"};
    static const char *const nums[] = {"h2d_gbps",         "d2h_gbps",         "bidir_gbps",
                                       "bidir_h2d_gbps",   "bidir_d2h_gbps",   "h2d_pct_of_bound",
                                       "d2h_pct_of_bound", "bidir_pct_of_bound"};
    for (size_t i = 0; a && i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "p2p.host_copies.gpus", p);
        if (!e) break;
        (void)rj_int(v, e, "gpu", p, 0, 1000000000, -1, 0);
        (void)rj_str(v, e, "host", p, 0);
        (void)rj_str(v, e, "pci_bus_id", p, 0);
        (void)rj_int(v, e, "gpu_numa_node", p, 0, 1000000000, -1, 0);
        (void)rj_num(v, e, "bound_gbps", p, 0);
        (void)rj_str(v, e, "bound_source", p, 0);
        (void)rj_str(v, e, "remote_why", p, 0);
        for (size_t m = 0; m < sizeof modes / sizeof modes[0] && !v->failed; m++) {
            json_t *x = rj_typed(v, e, modes[m], p, JSON_OBJECT, 0);
            if (!x) continue;
            rj_kpath(q, p, modes[m]);
            (void)rj_int(v, x, "numa_node", q, 0, 1000000000, -1, 0);
            for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) (void)rj_num(v, x, nums[k], q, 0);
            (void)rj_int(v, x, "wrong", q, 0, LLONG_MAX, -1, 0);
        }
    }
}

void rj_read_p2p(vctx *v, nvs_run *r)
{
    json_t *t = rj_typed(v, r->root, "p2p", "", JSON_OBJECT, 0);
    if (!t) return;
    r->p2p.present = 1;
    read_host_copies(v, t);
    json_t *sk = rj_typed(v, t, "skipped", "p2p", JSON_ARRAY, 0);
    for (size_t i = 0; sk && i < json_array_size(sk) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, sk, i, "p2p.skipped", p);
        if (!e) break;
        const char *host = rj_str(v, e, "host", p, 0), *what = rj_str(v, e, "what", p, 0);
        const char *why = rj_str(v, e, "why", p, 0);
        if (!r->p2p.skipped_why && what && !strncmp(what, "p2p", 3) && why && *why) {
            r->p2p.skipped_host = host;
            r->p2p.skipped_why = why;
        }
    }
    r->p2p.copy_bytes = rj_bytes(v, t, "copy_bytes", "p2p");
    /* timed blocks per pair's bandwidth, the median kept (topo/p2p.h, NVS_P2P_SAMPLES; at most its
     * NVS_P2P_MAX_SAMPLES, 64, which this layer cannot include); absent before session 64: one block */
    r->p2p.samples = (int)rj_int(v, t, "samples", "p2p", 1, 64, 1, 0);
    json_t *a = rj_typed(v, t, "pairs", "p2p", JSON_ARRAY, 0);
    if (!a || !(r->p2p.pairs = rj_alloc(v, json_array_size(a), sizeof *r->p2p.pairs))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "p2p.pairs", p);
        if (!e) break;
        nvs_run_p2p_pair *x = &r->p2p.pairs[r->p2p.npairs++];
        x->src = (int)rj_int(v, e, "src", p, 0, 1000000000, -1, 1);
        x->dst = (int)rj_int(v, e, "dst", p, 0, 1000000000, -1, 1);
        x->host = rj_str(v, e, "host", p, 0);
        x->path = rj_str(v, e, "path", p, 0);
        x->cls = rj_str(v, e, "class", p, 0);
        x->uni_gbps = rj_num(v, e, "uni_gbps", p, 0);
        x->bidir_gbps = rj_num(v, e, "bidir_gbps", p, 0);
        /* bidir's halves (absent before 7 December 2026): nothing here reads them, but a bad one is bad input */
        (void)rj_num(v, e, "bidir_fwd_gbps", p, 0);
        (void)rj_num(v, e, "bidir_rev_gbps", p, 0);
        x->latency_us = rj_num(v, e, "latency_us", p, 0);
        x->bound_gbps = rj_num(v, e, "bound_gbps", p, 0);
        x->pct_of_bound = rj_num(v, e, "pct_of_bound", p, 0);
        x->wrong = rj_int(v, e, "wrong", p, 0, LLONG_MAX, -1, 0);
    }
}
