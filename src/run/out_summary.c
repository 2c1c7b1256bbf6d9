/* The one-screen answer of `nvscale run` (the default command): what the GPUs are and how they are linked, what
 * the collectives reach at each GPU count against what the links allow, what a training step does at each
 * count, one verdict line and why. Fewer than 60 lines at 8 GPUs; every number comes from the run's own
 * run.json document (or the rows and topology it was made from), so screen and file cannot disagree. The
 * nccl-tests tables of every size stay in the results directory (table.txt) and under -v. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collectives/coll.h"
#include "core/units.h"
#include "explain/explain.h"
#include "run/run.h"
#include "run/summary.h"
#include "runjson/sanity.h"
#include "topo/topo.h"
#include "train/split.h"

static double jnum(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The explain entry of N (run.json "explain"), NULL when there is none. */
static const json_t *explain_of(const json_t *explain, int n)
{
    size_t i;
    json_t *e;
    json_array_foreach(explain, i, e) if (json_integer_value(json_object_get(e, "n")) == n) return e;
    return NULL;
}

static const json_t *transport_of(const json_t *transports, int n)
{
    size_t i;
    json_t *t;
    json_array_foreach(transports, i, t) if (json_integer_value(json_object_get(t, "n")) == n) return t;
    return NULL;
}

/* out-of-place busbw of `coll` at N and sweep size (rows.h: `size`, the same at every N, where `bytes` is not),
 * the first type/op measured; NAN when not measured */
static double busbw_at(const nvs_ctx *run, int coll, int n, size_t size)
{
    for (size_t i = 0; i < run->rows.n; i++) {
        const nvs_coll_row *r = &run->rows.v[i];
        if (r->coll == coll && r->n == n && r->size == size && !r->inplace) return r->busbw_gbps;
    }
    return NAN;
}

/* Up to `max` sizes to show: about 1 MiB (latency-bound), 64 MiB and the largest measured size (the bandwidth
 * the links allow), each the measured size nearest in log scale, distinct, ascending: sweep sizes (rows.h), which
 * every N shares. */
static int pick_sizes(const nvs_ctx *run, int coll, size_t *out, int max)
{
    static const double want[] = {1048576.0, 67108864.0, 1e30};
    size_t largest = 0;
    for (size_t i = 0; i < run->rows.n; i++)
        if (run->rows.v[i].coll == coll && run->rows.v[i].size > largest) largest = run->rows.v[i].size;
    if (!largest) return 0;
    int k = 0;
    for (int w = 0; w < 3 && k < max; w++) {
        double target = want[w] > (double)largest ? (double)largest : want[w];
        size_t best = 0;
        double bd = 1e300;
        for (size_t i = 0; i < run->rows.n; i++) {
            const nvs_coll_row *r = &run->rows.v[i];
            if (r->coll != coll) continue;
            double d = fabs(log((double)r->size) - log(target));
            if (d < bd) {
                bd = d;
                best = r->size;
            }
        }
        int dup = 0;
        for (int j = 0; j < k; j++) dup |= out[j] == best;
        if (!dup && best) out[k++] = best;
    }
    for (int i = 1; i < k; i++) /* ascending */
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            size_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return k;
}

/* "P2P x24" from a transports entry's summary ({"P2P": 24}); "-" when unknown */
static void transport_text(const json_t *t, char *buf, size_t len)
{
    snprintf(buf, len, "-");
    const json_t *sum = json_object_get(t, "summary");
    if (!json_is_object(sum) || !json_object_size(sum)) return;
    buf[0] = '\0';
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)sum, k, v)
    {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s x%lld", l ? " + " : "", k, (long long)json_integer_value(v));
    }
    const char *net = NULL;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(t, "channels"), i, c)
    {
        const char *d = json_string_value(json_object_get(c, "detail"));
        if (d && !strncmp(d, "NET/", 4)) net = d;
    }
    if (net) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, " (%s)", net);
    }
    if (json_is_true(json_object_get(t, "nvls"))) { /* NVLink SHARP: no connection of its own, so not counted */
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, " + NVLS");
    }
}

static void print_header(const nvs_ctx *run, FILE *to)
{
    const char *backend = run->backend.ops ? run->backend.ops->name : "?";
    int gpu = !strcmp(backend, "nccl");
    if (run->rt->emulated_nodes)
        fprintf(to, "nvscale %s: %d rank%s on %d virtual host%s of %s (%s, --emulate-nodes), ", NVS_VERSION,
                run->rt->size, run->rt->size > 1 ? "s" : "", run->rt->nnodes, run->rt->nnodes > 1 ? "s" : "",
                run->rt->machine.host, run->launcher);
    else
        fprintf(to, "nvscale %s: %d rank%s on %d host%s (%s), ", NVS_VERSION, run->rt->size,
                run->rt->size > 1 ? "s" : "", run->rt->nnodes, run->rt->nnodes > 1 ? "s" : "", run->launcher);
    if (gpu)
        fprintf(to, "%s, NCCL %s, driver %s\n", run->ranks ? run->ranks[0].gpu : "GPU", run->versions.nccl,
                run->versions.nvidia_driver);
    else {
        /* "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...": the name and version are enough here */
        char blas[32];
        int words = 0;
        size_t k = 0;
        for (const char *p = run->versions.blas; *p && k + 1 < sizeof blas; p++) {
            if (*p == ' ' && ++words == 2) break;
            blas[k++] = *p;
        }
        blas[k] = '\0';
        fprintf(to, "no GPU: MPI collectives on host memory (%s), host GEMMs %s\n", run->versions.mpi, blas);
    }
}

static void print_topology(const nvs_ctx *run, FILE *to)
{
    if (!run->topo || run->topo->ngpus < 1) {
        fprintf(to, "\nTopology: no GPU topology (%s)\n",
                run->backend.ops && strcmp(run->backend.ops->name, "nccl") ? "host backend: the ranks are CPU processes"
                                                                            : "it could not be discovered");
        return;
    }
    const nvs_topology *t = run->topo;
    int no_p2p = 0, unknown = 0, pairs = 0;
    for (int a = 0; a < t->ngpus; a++)
        for (int b = a + 1; b < t->ngpus; b++) {
            const nvs_topo_pair *p = nvs_topo_pair_at(t, a, b);
            if (!p || t->gpus[a].host != t->gpus[b].host) continue; /* across hosts the path is the network */
            pairs++;
            if (p->p2p_cuda == 0) no_p2p++;
            if (p->p2p_cuda < 0) unknown++;
        }
    fprintf(to, "\nTopology (nvidia-smi topo -m classes); P2P: ");
    if (!pairs)
        fprintf(to, "%s\n", t->ngpus > 1 ? "no two GPUs on one host (between hosts: the network)" : "one GPU, no pair");
    else if (no_p2p)
        fprintf(to, "NOT supported on %d of %d pairs: NCCL goes through host memory (SHM) there\n", no_p2p, pairs);
    else if (unknown)
        fprintf(to, "unknown on %d of %d pairs\n", unknown, pairs);
    else
        fprintf(to, "CUDA peer access on every pair\n");
    nvs_topo_print_matrix_brief(t, to);
}

/* Collective summary: per N, the slowest hop of the best ring and its bound, busbw at a few sizes with the % of
 * that bound, and the transport NCCL used. */
static void print_collectives(const nvs_ctx *run, const json_t *root, FILE *to)
{
    if (!run->rows.n) return;
    const json_t *explain = json_object_get(root, "explain"), *transports = json_object_get(root, "transports");
    int ar = nvs_coll_index(&nvs_coll_all_reduce);
    int main_coll = -1;
    for (size_t i = 0; i < run->rows.n && main_coll < 0; i++)
        if (run->rows.v[i].coll == ar) main_coll = ar;
    if (main_coll < 0) main_coll = run->rows.v[0].coll;
    size_t sizes[3];
    int ns = pick_sizes(run, main_coll, sizes, 3);
    /* a second collective at its largest size, if one was measured */
    int second = -1;
    for (size_t i = 0; i < run->rows.n && second < 0; i++)
        if (run->rows.v[i].coll != main_coll) second = run->rows.v[i].coll;
    size_t s2 = 0;
    if (second >= 0) {
        size_t tmp[3];
        int k = pick_sizes(run, second, tmp, 3);
        s2 = k ? tmp[k - 1] : 0;
    }
    const int gpu = run->backend.ops && !strcmp(run->backend.ops->name, "nccl");
    fprintf(to, "\nCollectives: busbw GB/s out-of-place (%% of the bound of the slowest hop of the N %ss' best ring)\n",
            gpu ? "GPU" : "rank");
    /* several hosts: which counts stay inside one host and which cross the network */
    const int multi = run->rt->nnodes > 1;
    fprintf(to, "  %3s  ", "N");
    if (multi) fprintf(to, "%5s  ", "hosts");
    fprintf(to, "%-22s", "slowest hop, bound");
    char sz[32];
    for (int k = 0; k < ns; k++) {
        char h[48];
        snprintf(h, sizeof h, "%s %s", k ? "" : nvs_coll_at(main_coll)->name, nvs_format_size(sizes[k], sz, sizeof sz));
        fprintf(to, "  %-13s", h);
    }
    if (s2) {
        char h[48];
        snprintf(h, sizeof h, "%s %s", nvs_coll_at(second)->name, nvs_format_size(s2, sz, sizeof sz));
        fprintf(to, "  %-17s", h);
    }
    fprintf(to, "  %s\n", gpu ? "NCCL transport" : "");
    for (int p = 0; p < run->npoints; p++) {
        int n = run->points[p].n;
        int any = 0;
        for (size_t i = 0; i < run->rows.n && !any; i++) any = run->rows.v[i].n == n;
        if (!any) continue;
        char hosts[16] = "";
        if (multi) snprintf(hosts, sizeof hosts, "%5d  ", nvs_ctx_hosts_at(run, n));
        if (n == 1) {
            fprintf(to, "  %3d  %s%-22s  one %s: nothing crosses a link (the baseline; see table.txt for its times)\n",
                    n, hosts, "-", gpu ? "GPU" : "rank");
            continue;
        }
        const json_t *e = explain_of(explain, n), *hop = json_object_get(e, "slowest_hop");
        double bound = jnum(hop, "bound_gbps");
        char hoptxt[48];
        if (hop && isfinite(bound))
            snprintf(hoptxt, sizeof hoptxt, "GPU%lld-%lld %s %.0f",
                     (long long)json_integer_value(json_object_get(hop, "from_gpu")),
                     (long long)json_integer_value(json_object_get(hop, "to_gpu")),
                     json_string_value(json_object_get(hop, "class")) ? json_string_value(json_object_get(hop, "class"))
                                                                      : "?",
                     bound);
        else if (hop && json_is_string(json_object_get(hop, "class")))
            /* a network hop between virtual hosts of one machine, or NICs of unknown rate: no bound */
            snprintf(hoptxt, sizeof hoptxt, "GPU%lld-%lld %s, no bound",
                     (long long)json_integer_value(json_object_get(hop, "from_gpu")),
                     (long long)json_integer_value(json_object_get(hop, "to_gpu")),
                     json_string_value(json_object_get(hop, "class")));
        else if (!gpu)
            /* CPU ranks (the MPI backend): no link of the topology carries them, no bound to state; on one host
             * MPI moves them through host memory, across hosts over the network (virtual hosts alike) */
            snprintf(hoptxt, sizeof hoptxt, "%s, no bound",
                     nvs_ctx_hosts_at(run, n) > 1 ? "MPI between hosts" : "host memory");
        else
            snprintf(hoptxt, sizeof hoptxt, "unknown");
        fprintf(to, "  %3d  %s%-22s", n, hosts, hoptxt);
        /* an NVLink hop NCCL went around (SHM, NET) bounds nothing measured here: no % of it, as in the report */
        if (hop && isfinite(bound) &&
            nvs_explain_hop_unused_by(json_string_value(json_object_get(hop, "class")),
                                      json_string_value(json_object_get(e, "transport"))))
            bound = NAN;
        for (int k = 0; k < ns + (s2 ? 1 : 0); k++) {
            double bw = k < ns ? busbw_at(run, main_coll, n, sizes[k]) : busbw_at(run, second, n, s2);
            char cell[40];
            if (!isfinite(bw))
                snprintf(cell, sizeof cell, "-");
            else if (isfinite(bound) && bound > 0)
                snprintf(cell, sizeof cell, "%.1f (%.0f%%)", bw, 100.0 * bw / bound);
            else
                snprintf(cell, sizeof cell, "%.1f", bw);
            fprintf(to, k < ns ? "  %-13s" : "  %-17s", cell);
        }
        char tr[96] = "";
        if (gpu) transport_text(transport_of(transports, n), tr, sizeof tr);
        fprintf(to, "  %s\n", tr);
    }
}

/* A part of the step in ms, or "-" where the run does not have it (older runs). */
static void ms_or_dash(double us, char *buf, size_t len)
{
    if (isfinite(us)) snprintf(buf, len, "%.2f", us / 1e3);
    else snprintf(buf, len, "-");
}

/* The training table: per workload and N, the step and where its time goes, so that step(N) = compute (the
 * step without the reducer and its all-reduces, on a machine shared by the N ranks) + the framework's reducer +
 * compute slowed beside the all-reduces + communication left exposed + waiting for a slower rank
 * (train/split.h). */

static void print_training(const json_t *trains, int gpu, FILE *to)
{
    if (!json_array_size(trains)) return;
    const json_t *t0 = json_array_get(trains, 0);
    const json_t *fw = json_object_get(t0, "framework");
    /* the reference is the smallest N trained (phase_train_json.c): 1 unless --gpus left it out (--gpus 2,4), and
     * then the header says step(2), not step(1) (every workload trains at the same counts) */
    int ref = (int)json_integer_value(
        json_object_get(json_array_get(json_object_get(t0, "results"), 0), "efficiency_reference_n"));
    fprintf(to,
            "\nTraining step: synthetic data-parallel step as %s, %s GEMMs, %s gradients; efficiency = step(%d) /\n"
            "step(N) at the same batch per %s; ms: step = compute + reducer + compute slowed by comm + exposed comm\n"
            "+ waited for a slower rank\n",
            json_string_value(json_object_get(fw, "name")) ? json_string_value(json_object_get(fw, "name")) : "?",
            json_string_value(json_object_get(t0, "precision")), json_string_value(json_object_get(t0, "grad_type")),
            ref > 1 ? ref : 1, gpu ? "GPU" : "rank");
    if (ref > 1)
        fprintf(to,
                "(no 1-%s step in this run: every efficiency is relative to %d %ss, the smallest count in --gpus)\n",
                gpu ? "GPU" : "rank", ref, gpu ? "GPU" : "rank");
    fprintf(to, "  %-24s %3s  %8s  %8s  %8s  %9s  %8s  %7s  %10s  %10s\n",
            gpu ? "model (batch/GPU)" : "model (batch/rank)", "N", "step", "compute", "reducer", "slowed", "exposed",
            "waited", "samples/s", "efficiency");
    size_t i;
    json_t *t;
    json_array_foreach(trains, i, t)
    {
        char name[64];
        snprintf(name, sizeof name, "%s (%lld)", json_string_value(json_object_get(t, "model")),
                 (long long)json_integer_value(json_object_get(t, "batch")));
        size_t j;
        json_t *r;
        json_array_foreach(json_object_get(t, "results"), j, r)
        {
            char red[16], sl[16], wt[16];
            ms_or_dash(jnum(r, "reducer_us"), red, sizeof red);
            ms_or_dash(jnum(r, "interference_us"), sl, sizeof sl);
            ms_or_dash(jnum(r, "rank_wait_us"), wt, sizeof wt);
            fprintf(to, "  %-24s %3lld  %8.2f  %8.2f  %8s  %9s  %8.2f  %7s  %10.1f  %9.1f%%\n", j ? "" : name,
                    (long long)json_integer_value(json_object_get(r, "n")), jnum(r, "step_us") / 1e3,
                    jnum(r, "compute_us") / 1e3, red, sl, jnum(r, "exposed_comm_us") / 1e3, wt,
                    jnum(r, "samples_per_s"), 100.0 * jnum(r, "efficiency"));
        }
    }
    /* the rows whose parts cannot add up to their step, with the reason */
    json_array_foreach(trains, i, t)
    {
        size_t j;
        json_t *r;
        json_array_foreach(json_object_get(t, "results"), j, r)
        {
            char note[512];
            const double range[4] = {jnum(r, "step_min_us"), jnum(r, "step_max_us"), jnum(r, "compute_min_us"),
                                     jnum(r, "compute_max_us")};
            if (nvs_summary_compute_note(json_string_value(json_object_get(t, "model")),
                                         (int)json_integer_value(json_object_get(r, "n")), jnum(r, "step_us"),
                                         jnum(r, "compute_us"), range, note, sizeof note))
                fprintf(to, "  %s\n", note);
        }
    }
    json_array_foreach(trains, i, t)
    {
        nvs_print_rounds_note(t, "  ", to);
        nvs_print_cudnn_notes(t, "  ", to);
    }
}

void nvs_print_rounds_note(const json_t *t, const char *prefix, FILE *to)
{
    const json_t *res = json_object_get(t, "results"), *r;
    size_t j, shown = 0;
    json_array_foreach(res, j, r)
    {
        int rounds = (int)json_integer_value(json_object_get(r, "rounds_measured"));
        if (rounds < 2 || j == 0) continue; /* the first N is the reference: 100 % in every round */
        if (!shown++)
            fprintf(to, "%s%s over %d rounds, every N timed in turn (step: the median round's); efficiency, the median "
                        "of the rounds' own (range):\n%s ",
                    prefix, json_string_value(json_object_get(t, "model")) ?: "?", rounds, prefix);
        fprintf(to, "%s N=%lld %.1f %% (%.1f-%.1f)", shown > 1 ? "," : "",
                (long long)json_integer_value(json_object_get(r, "n")), 100.0 * jnum(r, "efficiency"),
                100.0 * jnum(r, "efficiency_min"), 100.0 * jnum(r, "efficiency_max"));
    }
    if (shown) fputc('\n', to);
}

void nvs_print_cudnn_notes(const json_t *t, const char *prefix, FILE *to)
{
    const char *model = json_string_value(json_object_get(t, "model"));
    const json_t *cv = json_object_get(t, "conv"), *bn = json_object_get(t, "batchnorm");
    char note[640], detail[96];
    snprintf(detail, sizeof detail, "%zu shapes, algorithms timed as PyTorch's cudnn.benchmark does",
             json_array_size(json_object_get(cv, "shapes")));
    if (cv && nvs_summary_cudnn_note("convolutions", model,
                                     !strcmp(json_string_value(json_object_get(cv, "engine")) ?: "", "cudnn"),
                                     json_string_value(json_object_get(cv, "library")),
                                     (int)json_integer_value(json_object_get(cv, "layers")),
                                     (int)json_integer_value(json_object_get(cv, "geometry_layers")), detail,
                                     "implicit GEMMs in cuBLAS", json_string_value(json_object_get(cv, "mode")),
                                     json_string_value(json_object_get(cv, "why")), note, sizeof note))
        fprintf(to, "%s%s\n", prefix, note);
    const char *bn_engine = json_string_value(json_object_get(bn, "engine")) ?: "";
    if (bn && nvs_summary_cudnn_note("batch norms", model, !strcmp(bn_engine, "cudnn"),
                                     json_string_value(json_object_get(bn, "library")),
                                     (int)json_integer_value(json_object_get(bn, "layers")),
                                     (int)json_integer_value(json_object_get(bn, "of")),
                                     "as PyTorch runs them at fp32 and fp16",
                                     !strcmp(bn_engine, "kernels") ? NVS_SUMMARY_BN_KERNELS : "memory passes",
                                     json_string_value(json_object_get(bn, "mode")),
                                     json_string_value(json_object_get(bn, "why")), note, sizeof note))
        fprintf(to, "%s%s\n", prefix, note);
}

int nvs_summary_cudnn_note(const char *what, const char *model, int native, const char *library, int layers,
                           int total, const char *detail, const char *fallback, const char *mode, const char *why,
                           char *buf, size_t len)
{
    if (total <= 0) return 0;
    char count[48];
    if (layers < total) snprintf(count, sizeof count, "%d of %d", layers, total);
    else snprintf(count, sizeof count, "%d", layers);
    if (native)
        snprintf(buf, len, "%s of %s: %s in %s%s%s%s%s%s", what, model, count, library ? library : "cuDNN",
                 detail ? " (" : "", detail ? detail : "", detail ? ")" : "", why ? "; the others not: " : "",
                 why ? why : "");
    else if (mode && !strcmp(mode, "off"))
        snprintf(buf, len, "%s of %s: %d as %s (--cudnn off)", what, model, total, fallback);
    else
        snprintf(buf, len, "%s of %s: %d as %s, not cuDNN: %s", what, model, total, fallback,
                 why ? why : "unknown reason");
    return 1;
}

int nvs_summary_compute_note(const char *model, int n, double step_us, double compute_us, const double range[4],
                             char *buf, size_t len)
{
    if (!nvs_step_compute_above(step_us, compute_us)) return 0;
    const char *m = model ? model : "?";
    const double over = (compute_us - step_us) / 1e3, pct = 100.0 * (compute_us - step_us) / step_us;
    /* range: the full step's fastest and slowest timed step, then the compute-only step's (run.json step_min_us ..
     * compute_max_us; absent in runs before 6 December) */
    const int known = range && range[0] > 0 && range[1] >= range[0] && range[2] > 0 && range[3] >= range[2];
    if (!known)
        snprintf(buf, len, "note: %s N=%d: the compute-only step, timed apart, took %.2f ms (%.1f %%) longer than the "
                           "full step: run-to-run noise, so its parts read 0",
                 m, n, over, pct);
    else if (range[2] <= range[1]) /* the two variants' steps overlap: the medians differ by less than the spread */
        snprintf(buf, len, "note: %s N=%d: the compute-only step, timed apart, took %.2f ms (%.1f %%) longer than the "
                           "full step, within the spread of their steps (full %.2f-%.2f ms, compute-only %.2f-%.2f "
                           "ms): noise, so its parts read 0",
                 m, n, over, pct, range[0] / 1e3, range[1] / 1e3, range[2] / 1e3, range[3] / 1e3);
    else /* no overlap: not the spread of the steps but a host that ran slower while the compute-only steps ran */
        snprintf(buf, len, "note: %s N=%d: every compute-only step (%.2f-%.2f ms) took longer than every full step "
                           "(%.2f-%.2f ms): the host ran slower while they were timed, so the step's parts read 0 "
                           "(more --steps or --rounds to see it settle)",
                 m, n, range[2] / 1e3, range[3] / 1e3, range[0] / 1e3, range[1] / 1e3);
    return 1;
}

void nvs_summary_verdict(const nvs_summary_facts *f, char *buf, size_t len)
{
    /* Thresholds: a data-parallel job that keeps >= 90 % of linear scaling is what well-connected boxes give
     * (Lambda's A6000 at 8 GPUs: 89-98 %; 2x H200 NV18 at fp32: 98-99 %); below 70 % a user pays for GPUs that
     * mostly wait (Lambda's 3090 BERT-large: 12 %). A collective far below its link bound (< 50 %) points at the
     * path (transport, binding, topology) rather than the links. */
    /* an interrupted or failed run with no row: "MEASURED" over nothing read as a result (SIGTERM during the
     * first sweep point printed "Verdict: MEASURED") */
    if (f->nothing) {
        const char *st = f->status && strcmp(f->status, "ok") ? f->status : NULL;
        if (st)
            snprintf(buf, len, "NOT MEASURED: the run was %s before any collective or training step was measured; see "
                               "its result (run.json) and the messages above", st);
        else
            snprintf(buf, len, "NOT MEASURED: no collective or training step was measured");
        return;
    }
    if (f->n < 2) {
        snprintf(buf, len, "one %s: nothing to scale; run on more (mpirun -np N nvscale%s)", f->gpu ? "GPU" : "rank",
                 f->gpu ? ", or more visible GPUs" : ""); /* the host backend has no GPUs to make visible */
        return;
    }
    /* Even the worst workload above 100 % by more than timing noise: the N-rank steps beat the reference, which
     * something else slowed (runjson/sanity.h says what). No word of scaling rests on that. The sentence names
     * the likely causes itself: under -q the WARN lines it once pointed at are not printed. */
    if (isfinite(f->worst_eff) && f->worst_eff > 1 + NVS_SANITY_NOISE) {
        snprintf(buf, len, "UNRELIABLE: at %d %ss %s%s ran at %.1f %% of linear scaling, faster than linear: the "
                           "1-%s reference step was slowed by something else (host launch overhead, CPU speed, "
                           "another process); run again",
                 f->n, f->gpu ? "GPU" : "rank", f->worst_model ? f->worst_model : "the step",
                 f->nworkloads > 1 ? " (the worst workload)" : "", 100.0 * f->worst_eff, f->gpu ? "GPU" : "rank");
        return;
    }
    /* The largest N is its own reference (--gpus 2: no smaller count measured): its 100 % compares the step with
     * itself, and the reference's step - compute (its communication too) reads as the reducer. Nothing graded. */
    if (isfinite(f->worst_eff) && (f->ref_n > 0 ? f->ref_n : 1) == f->n) {
        int k = snprintf(buf, len, "MEASURED: the training step ran at %d %ss only, its own reference, so no "
                                   "scaling is graded (add 1 to --gpus)", f->n, f->gpu ? "GPU" : "rank");
        if (isfinite(f->pct_of_bound))
            snprintf(buf + k, len > (size_t)k ? len - k : 0, "; %s reaches %.0f %% of the %s bound%s",
                     f->collective ? f->collective : "the collective", f->pct_of_bound,
                     f->hop_class ? f->hop_class : "link", f->pct_of_bound < 50 ? " (low: see Why)" : "");
        return;
    }
    const char *word = !isfinite(f->worst_eff) ? "MEASURED"
                       : f->worst_eff >= 0.90  ? "GOOD"
                       : f->worst_eff >= 0.70  ? "FAIR"
                                               : "POOR";
    int k = snprintf(buf, len, "%s", word);
    if (isfinite(f->worst_eff))
        k += snprintf(buf + k, len > (size_t)k ? len - k : 0, ": at %d %ss %s keeps %.1f %% of linear scaling%s", f->n,
                      f->gpu ? "GPU" : "rank", f->worst_model ? f->worst_model : "the step", 100.0 * f->worst_eff,
                      f->nworkloads > 1 ? " (the worst workload)" : "");
    /* below GOOD: where the time went, so that a slow host is not read as a slow link */
    static const char *const part_words[] = {"the compute slowed by sharing the machine",
                                             "the compute slowed beside the all-reduces",
                                             "communication left exposed", "waiting for a slower rank"};
    int big = -1;
    for (int i = 0; i < 4; i++)
        if (isfinite(f->part_us[i]) && f->part_us[i] > 0 && (big < 0 || f->part_us[i] > f->part_us[big])) big = i;
    /* The parts add up to the loss with their signs: the compute alone can run faster at N than at the
     * reference (contention < 0), and then one part alone can exceed the whole loss. "The largest part of the
     * 213.5 ms it loses is ... (214.0 ms)" reads as a sum that does not add up, so that case says what offset it. */
    if (isfinite(f->worst_eff) && f->worst_eff < 0.90 && f->loss_us > 0 && big >= 0) {
        if (f->part_us[big] - f->loss_us < 50) /* over by less than the 0.1 ms printed: the sum reads right */
            k += snprintf(buf + k, len > (size_t)k ? len - k : 0,
                          ", and the largest part of the %.1f ms it loses per step is %s (%.1f ms)", f->loss_us / 1e3,
                          part_words[big], f->part_us[big] / 1e3);
        else {
            double gain = f->part_us[NVS_LOSS_CONTENTION];
            k += snprintf(buf + k, len > (size_t)k ? len - k : 0,
                          ", and it loses %.1f ms per step: %s took %.1f ms, and the rest of the step ran %.1f ms "
                          "faster than at %d %s%s",
                          f->loss_us / 1e3, part_words[big], f->part_us[big] / 1e3,
                          (f->part_us[big] - f->loss_us) / 1e3, f->ref_n > 0 ? f->ref_n : 1, f->gpu ? "GPU" : "rank",
                          (f->ref_n > 1) ? "s" : "");
            if (isfinite(gain) && gain < 0)
                k += snprintf(buf + k, len > (size_t)k ? len - k : 0, " (the compute alone: %.1f ms faster)",
                              -gain / 1e3);
        }
    }
    if (isfinite(f->pct_of_bound))
        k += snprintf(buf + k, len > (size_t)k ? len - k : 0, "%s%s reaches %.0f %% of the %s bound%s",
                      isfinite(f->worst_eff) ? "; " : ": ", f->collective ? f->collective : "the collective",
                      f->pct_of_bound, f->hop_class ? f->hop_class : "link",
                      f->pct_of_bound < 50 ? " (low: see Why)" : "");
    /* CPU ranks (the fallback without GPUs) share the host's cores with each other and with MPI's progress:
     * the level read above says how the tool ran here, and moves from run to run, not how GPUs would scale */
    if (!f->gpu && isfinite(f->worst_eff))
        k += snprintf(buf + k, len > (size_t)k ? len - k : 0,
                      " (host backend: CPU ranks stand in for GPUs, so this checks the tool, not a machine's GPUs)");
    (void)k;
}

/* The facts the verdict rests on, at the largest N measured. */
static void verdict_facts(const nvs_ctx *run, const json_t *root, nvs_summary_facts *f)
{
    memset(f, 0, sizeof *f);
    f->gpu = run->backend.ops && !strcmp(run->backend.ops->name, "nccl");
    f->worst_eff = NAN;
    f->pct_of_bound = NAN;
    for (int p = 0; p < run->npoints; p++)
        if (run->points[p].n > f->n) f->n = run->points[p].n;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(root, "trains"), i, t)
    {
        f->nworkloads++;
        size_t j;
        json_t *r;
        json_array_foreach(json_object_get(t, "results"), j, r)
        {
            if (json_integer_value(json_object_get(r, "n")) != f->n) continue;
            double e = jnum(r, "efficiency");
            if (isfinite(e) && (!isfinite(f->worst_eff) || e < f->worst_eff)) {
                f->worst_eff = e;
                f->worst_model = json_string_value(json_object_get(t, "model"));
                /* its loss against the reference N (weak scaling: the step should not grow), and the parts */
                f->loss_us = NAN;
                size_t m;
                json_t *q;
                json_int_t ref = json_integer_value(json_object_get(r, "efficiency_reference_n"));
                f->ref_n = ref ? (int)ref : 1;
                json_array_foreach(json_object_get(t, "results"), m, q)
                    if (json_integer_value(json_object_get(q, "n")) == (ref ? ref : 1))
                        f->loss_us = jnum(r, "step_us") - jnum(q, "step_us");
                f->part_us[NVS_LOSS_CONTENTION] = jnum(r, "contention_us");
                f->part_us[NVS_LOSS_INTERFERENCE] = jnum(r, "interference_us");
                f->part_us[NVS_LOSS_EXPOSED] = jnum(r, "exposed_comm_us");
                f->part_us[NVS_LOSS_RANK_WAIT] = jnum(r, "rank_wait_us");
            }
        }
    }
    int steps = 0;
    json_array_foreach(json_object_get(root, "trains"), i, t) steps +=
        (int)json_array_size(json_object_get(t, "results"));
    f->nothing = run->rows.n == 0 && steps == 0;
    f->status = json_string_value(json_object_get(json_object_get(root, "result"), "status"));
    const json_t *e = explain_of(json_object_get(root, "explain"), f->n);
    f->pct_of_bound = jnum(e, "pct_of_bound");
    f->collective = json_string_value(json_object_get(e, "collective"));
    f->hop_class = json_string_value(json_object_get(json_object_get(e, "slowest_hop"), "class"));
}

void nvs_summary_wrap(const char *text, FILE *to)
{
    const int width = 110;
    const char *p = text;
    while (*p) {
        int len = (int)strlen(p);
        if (len <= width - 2) {
            fprintf(to, "  %s\n", p);
            return;
        }
        /* never after a number: its unit goes with it ("1\n  GiB", "5.5\n  ms" split a value from its unit) */
        int cut = width - 2;
        while (cut > 20 && (p[cut] != ' ' || isdigit((unsigned char)p[cut - 1]))) cut--;
        if (cut == 20) /* no such space: any space */
            for (cut = width - 2; cut > 20 && p[cut] != ' '; cut--) {}
        fprintf(to, "  %.*s\n", cut, p);
        p += cut;
        while (*p == ' ') p++;
    }
}

void nvs_print_summary(const nvs_ctx *run, const json_t *root, FILE *to)
{
    print_header(run, to);
    print_topology(run, to);
    print_collectives(run, root, to);
    print_training(json_object_get(root, "trains"), run->backend.ops && !strcmp(run->backend.ops->name, "nccl"), to);
    nvs_summary_facts f;
    verdict_facts(run, root, &f);
    char verdict[512];
    nvs_summary_verdict(&f, verdict, sizeof verdict);
    fprintf(to, "\nVerdict: %s\n", verdict);
    size_t i;
    json_t *e;
    int first = 1;
    json_array_foreach(json_object_get(root, "explain"), i, e)
    {
        const char *text = json_string_value(json_object_get(e, "text"));
        if (!text || !*text || json_integer_value(json_object_get(e, "n")) < 2) continue;
        if (first) fprintf(to, "\nWhy\n");
        first = 0;
        nvs_summary_wrap(text, to);
    }
}
