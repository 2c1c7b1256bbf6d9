#include "run/phases.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives/coll.h"
#include "topo/topo.h"
#include "core/launch_env.h"
#include "core/log.h"
#include "explain/nccl_log.h"
#include "core/out_file.h"
#include "workload/profile.h"
#include "train/split.h"
#include "train/train.h"
#include "run/summary.h"

int nvs_phase_models(const nvs_config *cfg, char names[][NVS_PATH_MAX], int max)
{
    int n = 0;
    const char *s = cfg->model;
    while (*s && n < max) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= NVS_PATH_MAX) len = NVS_PATH_MAX - 1;
        memcpy(names[n], s, len);
        names[n][len] = '\0';
        n++;
        if (!e) break;
        s = e + 1;
    }
    return n;
}

nvs_result_t nvs_phase_validate(const nvs_config *cfg)
{
    if (!cfg->model[0]) return NVS_OK;
    char (*names)[NVS_PATH_MAX] = malloc(NVS_MAX_WORKLOADS * sizeof *names);
    if (!names) return NVS_ERR_NOMEM;
    int n = nvs_phase_models(cfg, names, NVS_MAX_WORKLOADS);
    /* the workload names loaded so far: the results are keyed by it, so one workload under two spellings (a
     * built-in and a profile file of the same name) would report twice under one key */
    char loaded[NVS_MAX_WORKLOADS][sizeof ((nvs_profile *)0)->name];
    nvs_result_t r = NVS_OK;
    /* a model that cannot be loaded is a usage error: say so before any GPU is touched */
    for (int i = 0; i < n && r == NVS_OK; i++) {
        nvs_profile p;
        char err[600] = "";
        if (!names[i][0]) {
            snprintf(err, sizeof err, "an empty name in the list");
            r = NVS_ERR_USAGE;
        } else if (nvs_profile_load(names[i], &p, err, sizeof err) != NVS_OK) {
            r = NVS_ERR_USAGE;
        } else {
            snprintf(loaded[i], sizeof loaded[i], "%s", p.name);
            for (int j = 0; j < i && r == NVS_OK; j++)
                if (!strcmp(loaded[j], p.name)) {
                    snprintf(err, sizeof err, "'%.200s' and '%.200s' are both the workload '%.64s' (rename one)",
                             names[j], names[i], p.name);
                    r = NVS_ERR_USAGE;
                }
            nvs_profile_free(&p);
        }
        /* said once (rank 0), or late by a rank that alone refused it (a file missing on its host: main.c) */
        if (r != NVS_OK) fprintf(nvs_stderr_once(), "nvscale %s: --model %s: %s\n", cfg->subcommand, cfg->model, err);
    }
    free(names);
    return r;
}

/* First N ranks, or (--placement best|worst) the ranks driving the N GPUs whose best ring has the highest /
 * lowest bottleneck by the topology. Every rank holds the same merged topology, so every rank picks the same. */
nvs_result_t nvs_phase_place(nvs_ctx *run, int n, int *ranks)
{
    for (int i = 0; i < n; i++) ranks[i] = i;
    if (run->cfg->placement == NVS_PLACE_FIRST || n == run->rt->size) return NVS_OK;
    if (!run->topo) {
        if (run->rt->rank == 0)
            nvs_warn("--placement %s needs the topology, which could not be discovered: using the first %d ranks",
                     run->cfg->placement == NVS_PLACE_BEST ? "best" : "worst", n);
        return NVS_OK;
    }
    /* the GPUs of this run: one per rank */
    int world = run->rt->size;
    int *gpus = malloc((size_t)world * sizeof *gpus), *pick = malloc((size_t)n * sizeof *pick);
    nvs_topology *sub = NULL;
    nvs_result_t res = NVS_OK;
    if (!gpus || !pick) {
        res = NVS_ERR_NOMEM;
        goto out;
    }
    for (int r = 0; r < world; r++) {
        gpus[r] = run->ranks[r].topo_gpu;
        if (gpus[r] < 0) {
            if (run->rt->rank == 0) nvs_warn("rank %d's GPU is not in the topology: --placement ignored", r);
            goto out;
        }
    }
    /* search among the run's GPUs only: a sub-topology in rank order */
    sub = nvs_topo_subset(run->topo, gpus, world);
    if (!sub) {
        res = NVS_ERR_NOMEM; /* the indices were checked above */
        goto out;
    }
    if (nvs_topo_pick_gpus(sub, n, run->cfg->placement == NVS_PLACE_BEST, pick) == 0)
        for (int i = 0; i < n; i++) ranks[i] = pick[i]; /* sub-topology index = rank */
out:
    if (sub) nvs_topo_free(sub);
    free(gpus);
    free(pick);
    return res;
}

nvs_result_t nvs_phase_topology(nvs_ctx *run)
{
    nvs_rt *rt = run->rt;
    nvs_topology *local = NULL;
    char why[160];
    /* the host backend on a machine without GPUs: no GPU topology to find (the fallback was announced) */
    if (!strcmp(run->backend.ops->name, "mpi") && !nvs_gpu_available(why, sizeof why)) return NVS_OK;
    /* one discovery per host: local rank 0 (the threads runtime is one host: rank 0); a virtual host
     * (--emulate-nodes) keeps the GPUs its ranks drive */
    {
        nvs_result_t r = nvs_topo_discover_host(rt, run->backend.pci_bus_id, &local);
        if (r != NVS_OK) {
            /* the host backend on a machine without GPUs has no GPU topology to find: not worth a warning */
            if (strcmp(run->backend.ops->name, "mpi") || r != NVS_ERR_UNSUPPORTED)
                nvs_warn("topology discovery failed on host %s (%s): continuing without it", rt->host,
                         nvs_result_text(r));
            local = NULL;
        }
    }
    /* no host could say anything (the host backend on machines without GPUs): no topology section */
    double any = local != NULL;
    nvs_result_t res = nvs_allreduce_f64(rt, &any, 1, NVS_RT_MAX, "topology discovery");
    if (res != NVS_OK || !any) {
        if (local) nvs_topo_free(local);
        return res;
    }
    nvs_topology *global = NULL;
    res = nvs_topo_gather(rt, local, &global);
    if (local) nvs_topo_free(local);
    if (res != NVS_OK) return res;
    if (!global || global->ngpus == 0) {
        if (global) nvs_topo_free(global);
        return NVS_OK;
    }
    run->topo = global;
    for (int r = 0; r < rt->size; r++)
        run->ranks[r].topo_gpu = run->ranks[r].pci_bus_id[0] ? nvs_topo_find_gpu(global, run->ranks[r].host,
                                                                                  run->ranks[r].pci_bus_id)
                                                              : -1;
    if (rt->rank == 0) {
        run->topology = nvs_topo_to_json(global);
        if (!run->topology) return NVS_ERR_NOMEM;
    }
    return NVS_OK;
}


/* The lines of an NCCL log that transport attribution reads (version, communicators, channels), so that only
 * those travel to rank 0. */
static int keep_line(const char *l)
{
    return strstr(l, "NCCL version") || strstr(l, "comm 0x") || strstr(l, "Init COMPLETE") ||
           strstr(l, "Channel ") || strstr(l, " channels") || strstr(l, "Connected all");
}

static nvs_result_t append_filtered(const char *path, char **buf, size_t *len)
{
    char *text = NULL;
    nvs_result_t r = nvs_read_text_file(path, (size_t)1 << 30, &text);
    if (r != NVS_OK) return r;
    size_t cap = *len + strlen(text) + 2;
    char *nb = realloc(*buf, cap);
    if (!nb) {
        free(text);
        return NVS_ERR_NOMEM;
    }
    *buf = nb;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!keep_line(line)) continue;
        size_t n = strlen(line);
        memcpy(*buf + *len, line, n);
        (*buf)[*len + n] = '\n';
        *len += n + 1;
    }
    (*buf)[*len] = '\0';
    free(text);
    return NVS_OK;
}

static const char *pair_class_of(void *ctx, int a, int b) { return nvs_topo_pair_class(ctx, a, b); }

/* Which transport NCCL used at each N, from its INFO log. Each process reads its own log (one per rank under
 * MPI, nccl.rank<R>.log; one per process in the one-process case) and sends the relevant lines to rank 0, so
 * hosts need not share a file system. */
nvs_result_t nvs_phase_transports(nvs_ctx *run)
{
    nvs_rt *rt = run->rt;
    if (!run->backend.ops || strcmp(run->backend.ops->name, "nccl")) return NVS_OK;
    double have = run->nccl_log_dir[0] ? 1 : 0;
    NVS_CHECK(nvs_allreduce_f64(rt, &have, 1, NVS_RT_MIN, "NCCL log collection"));
    if (!have) return NVS_OK;
    char *mine = calloc(1, 1);
    size_t len = 0;
    nvs_result_t res = mine ? NVS_OK : NVS_ERR_NOMEM;
    int per_rank = !strcmp(run->launcher, "mpi");
    if (res == NVS_OK && (per_rank || rt->rank == 0)) {
        DIR *d = opendir(run->nccl_log_dir);
        if (d) {
            struct dirent *e;
            char want[64];
            snprintf(want, sizeof want, "nccl.rank%d.log", rt->rank);
            while (res == NVS_OK && (e = readdir(d))) {
                if (per_rank ? strcmp(e->d_name, want) : (strncmp(e->d_name, "nccl.", 5) || !strstr(e->d_name, ".log")))
                    continue;
                char path[NVS_PATH_MAX + 300];
                snprintf(path, sizeof path, "%s/%s", run->nccl_log_dir, e->d_name);
                res = append_filtered(path, &mine, &len);
            }
            closedir(d);
        }
    }
    /* every rank enters both agreements whatever failed on it (a log it cannot read, memory), so that they all
     * stop together rather than wait in the gather for one that left */
    double maxlen = (double)len;
    res = nvs_rt_agree_ok(rt, res, &maxlen, "NCCL log collection");
    char *all = NULL, *padded = NULL;
    size_t slot = (size_t)maxlen + 1;
    if (res == NVS_OK) {
        padded = calloc(1, slot);
        all = malloc(slot * (size_t)rt->size);
        res = nvs_rt_agree_ok(rt, padded && all ? NVS_OK : NVS_ERR_NOMEM, NULL, "NCCL log collection");
    }
    if (res == NVS_OK) {
        memcpy(padded, mine, len);
        res = nvs_allgather(rt, padded, all, slot, "NCCL log collection");
    }
    free(padded);
    free(mine);
    if (res == NVS_OK && rt->rank == 0) {
        nvs_nccl_log log;
        nvs_nccl_log_init(&log);
        for (int r = 0; r < rt->size && res == NVS_OK; r++) {
            const char *t = all + (size_t)r * slot;
            if (*t) res = nvs_nccl_log_parse_text(t, strlen(t), &log);
        }
        json_t *arr = json_array();
        for (int p = 0; res == NVS_OK && arr && p < run->npoints; p++) {
            int n = run->points[p].n;
            int *gpu_of_rank = malloc((size_t)n * sizeof(int));
            int known = gpu_of_rank != NULL && run->topo != NULL;
            for (int i = 0; known && i < n; i++) {
                gpu_of_rank[i] = run->ranks[run->points[p].ranks[i]].topo_gpu;
                if (gpu_of_rank[i] < 0) known = 0;
            }
            json_t *e = nvs_nccl_log_transport_json(&log, n, known ? gpu_of_rank : NULL,
                                                    known ? pair_class_of : NULL, run->topo);
            free(gpu_of_rank);
            if (!e) {
                res = NVS_ERR_NOMEM;
                break;
            }
            json_object_set_new(e, "n", json_integer(n));
            if (!run->nccl_log_tmp) json_object_set_new(e, "log_dir", json_string(run->nccl_log_dir));
            json_array_append_new(arr, e);
        }
        nvs_nccl_log_free(&log);
        if (res == NVS_OK) run->transports = arr;
        else json_decref(arr);
    }
    free(all);
    if (run->nccl_log_tmp && rt->rank == 0) nvs_remove_tree(run->nccl_log_dir);
    return res;
}

/* busbw of each sweep size of each collective at each N, printed under the per-N tables. */
static void print_scaling(const nvs_ctx *run, FILE *to);
static void print_train(const json_t *t, const char *unit, FILE *to);

void nvs_phase_print_summary(const nvs_ctx *run, FILE *to)
{
    print_scaling(run, to);
    size_t i;
    json_t *t;
    /* the host backend's ranks are CPU processes, not GPUs */
    const char *unit = run->backend.ops && !strcmp(run->backend.ops->name, "mpi") ? "rank" : "GPU";
    json_array_foreach(run->trains, i, t) print_train(t, unit, to);
}

static void print_scaling(const nvs_ctx *run, FILE *to)
{
    if (run->npoints < 2 || !run->rows.n) return;
    fprintf(to,
            "#\n# Scaling: busbw (GB/s) at each GPU count, out-of-place, by the sweep's size (-b .. -e)\n"
            "#  %-14s %8s %5s %12s",
            "collective", "type", "op", "size");
    for (int i = 0; i < run->npoints; i++) fprintf(to, "   N=%-5d", run->points[i].n);
    fputc('\n', to);
    if (run->rt->nnodes > 1) {
        /* with several hosts: which counts stay inside one host and which cross the network */
        fprintf(to, "#  %-14s %8s %5s %12s", "hosts", "", "", "");
        for (int i = 0; i < run->npoints; i++) fprintf(to, "   %8d", nvs_ctx_hosts_at(run, run->points[i].n));
        fputc('\n', to);
    }
    for (int ci = 0; ci < nvs_coll_count(); ci++) {
        for (size_t i = 0; i < run->rows.n; i++) {
            const nvs_coll_row *r = &run->rows.v[i];
            if (r->coll != ci || r->inplace || r->n != run->points[0].n) continue;
            /* one line per sweep size present at the first N (the smallest: every size that gives the larger
             * N's ranks an element gives its ranks one too). Matched by the sweep's size, which every N shares:
             * the bytes of all_gather, reduce_scatter and alltoall differ between N (rows.h) and read '-' at
             * every N but the first that does not divide them (N=3). */
            fprintf(to, "   %-14s %8s %5s %12zu", nvs_coll_at(ci)->name, nvs_dtype_name(r->type),
                    r->op < 0 ? "none" : nvs_redop_name((nvs_redop)r->op), r->size);
            for (int p = 0; p < run->npoints; p++) {
                double bw = -1;
                for (size_t j = 0; j < run->rows.n; j++) {
                    const nvs_coll_row *q = &run->rows.v[j];
                    if (q->coll == ci && !q->inplace && q->n == run->points[p].n && q->size == r->size &&
                        q->type == r->type && q->op == r->op)
                        bw = q->busbw_gbps;
                }
                /* '-' also for N=1's busbw: no bus crossed (NAN, as in the per-N tables; it printed "nan") */
                if (!(bw >= 0)) fprintf(to, "   %8s", "-");
                else fprintf(to, "   %8.2f", bw);
            }
            fputc('\n', to);
        }
    }
}

static double jnum(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

/* The training table, from run.json's train section so that screen and file cannot disagree. Its columns add up:
 * step = compute + reducer + slowed + exposed + waited (train/split.h), as in the run summary's table; comm (the
 * all-reduces alone) and exposed% stand beside them. */
static void print_train(const json_t *t, const char *unit, FILE *to)
{
    size_t nb = json_array_size(json_object_get(t, "buckets"));
    fprintf(to, "#\n# Training step: %s, batch %d per %s, %s, gradients %s, %zu bucket%s (%.1f M parameters, %.1f "
                "GFLOP per step per %s)\n",
            json_string_value(json_object_get(t, "model")), (int)json_integer_value(json_object_get(t, "batch")), unit,
            json_string_value(json_object_get(t, "precision")), json_string_value(json_object_get(t, "grad_type")),
            nb, nb == 1 ? "" : "s", jnum(t, "params") / 1e6, jnum(t, "step_gflops"), unit);
    fprintf(to, "#  ms: step = compute + reducer + slowed + exposed + waited. compute: the step without the "
                "all-reduces, at this N;\n#  reducer: the framework's hooks and bucket copies; slowed: the compute "
                "slowed beside the all-reduces;\n#  exposed: communication not hidden; waited: for a slower %s; comm: "
                "the all-reduces alone, back to back\n",
            unit);
    /* efficiency is step(ref) / step(N) with ref the smallest N trained: said where it is not 1 (--gpus 2,4), as a
     * 100 % at N=2 would otherwise read as perfect scaling from one rank */
    int ref = (int)json_integer_value(
        json_object_get(json_array_get(json_object_get(t, "results"), 0), "efficiency_reference_n"));
    if (ref > 1)
        fprintf(to,
                "#  efficiency = step(%d) / step(N): no 1-%s step in this run (--gpus), so %d %ss are the reference\n",
                ref, unit, ref, unit);
    fprintf(to, "#  %5s  %9s  %9s  %9s  %9s  %9s  %9s  %9s  %9s  %10s  %10s\n", "N", "step", "compute", "reducer",
            "slowed", "exposed", "waited", "comm", "exposed%", "samples/s", "efficiency");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(t, "results"), i, r)
    {
        double step = jnum(r, "step_us");
        fprintf(to, "   %5d  %9.2f  %9.2f  %9.2f  %9.2f  %9.2f  %9.2f  %9.2f  %8.1f%%  %10.1f  %9.1f%%\n",
                (int)json_integer_value(json_object_get(r, "n")), step / 1e3, jnum(r, "compute_us") / 1e3,
                jnum(r, "reducer_us") / 1e3, jnum(r, "interference_us") / 1e3, jnum(r, "exposed_comm_us") / 1e3,
                jnum(r, "rank_wait_us") / 1e3, jnum(r, "comm_us") / 1e3,
                step > 0 ? 100.0 * jnum(r, "exposed_comm_us") / step : 0.0, jnum(r, "samples_per_s"),
                100.0 * jnum(r, "efficiency"));
    }
    /* the rows whose parts cannot add up to their step, with the reason (as the run summary says it) */
    json_array_foreach(json_object_get(t, "results"), i, r)
    {
        char note[512];
        const double range[4] = {jnum(r, "step_min_us"), jnum(r, "step_max_us"), jnum(r, "compute_min_us"),
                                 jnum(r, "compute_max_us")};
        if (nvs_summary_compute_note(json_string_value(json_object_get(t, "model")),
                                     (int)json_integer_value(json_object_get(r, "n")), jnum(r, "step_us"),
                                     jnum(r, "compute_us"), range, note, sizeof note))
            fprintf(to, "#  %s\n", note);
    }
    nvs_print_rounds_note(t, "#  ", to);
    nvs_print_cudnn_notes(t, "#  ", to);
}

nvs_result_t nvs_phase_print_train_csv(const nvs_ctx *run, FILE *to)
{
    static const char *const keys[] = {"step_us",       "compute_us",  "reducer_us",      "interference_us",
                                       "exposed_comm_us", "rank_wait_us", "comm_us",       "contention_us",
                                       "samples_per_s", "efficiency"};
    const size_t nk = sizeof keys / sizeof keys[0];
    if (fprintf(to, "model,batch,precision,grad_type,framework,n") < 0) return NVS_ERR_SYSTEM;
    for (size_t k = 0; k < nk; k++) fprintf(to, ",%s", keys[k]);
    fputs(",compute_above_step\n", to);
    size_t i;
    json_t *t;
    json_array_foreach(run->trains, i, t)
    {
        const char *fw = json_string_value(json_object_get(json_object_get(t, "framework"), "name"));
        size_t j;
        json_t *r;
        json_array_foreach(json_object_get(t, "results"), j, r)
        {
            fprintf(to, "%s,%lld,%s,%s,%s,%lld", json_string_value(json_object_get(t, "model")),
                    (long long)json_integer_value(json_object_get(t, "batch")),
                    json_string_value(json_object_get(t, "precision")),
                    json_string_value(json_object_get(t, "grad_type")), fw ? fw : "",
                    (long long)json_integer_value(json_object_get(r, "n")));
            for (size_t k = 0; k < nk; k++) {
                const json_t *v = json_object_get(r, keys[k]);
                if (json_is_number(v)) fprintf(to, ",%.10g", json_number_value(v));
                else fputc(',', to);
            }
            /* 1 where compute_us > step_us: the parts are 0 and step = compute + parts does not hold (split.h) */
            fprintf(to, ",%d\n", nvs_step_compute_above(jnum(r, "step_us"), jnum(r, "compute_us")));
        }
    }
    return ferror(to) ? NVS_ERR_SYSTEM : NVS_OK;
}

void nvs_phase_cleanup(nvs_ctx *run)
{
    if (run->topo) nvs_topo_free(run->topo);
    run->topo = NULL;
    if (run->topology) json_decref(run->topology);
    if (run->transports) json_decref(run->transports);
    if (run->trains) json_decref(run->trains);
    run->topology = run->transports = run->trains = NULL;
}
