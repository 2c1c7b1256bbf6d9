/* The run flow of the measuring subcommands run / coll / train. One flow, phases switched on by the subcommand:
 *   coll   backend -> collective sweeps at the world size (or --gpus) -> table, run.json
 *   run    backend -> topology -> sweeps at N = 1, 2, 4, .. world -> training step if --model -> explain
 *   train  backend -> topology -> training step at N = 1, 2, 4, .. world
 * Every rank runs run_rank(); rank 0 writes the outputs. */
#include <errno.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/host_name.h"
#include "collectives/sweep.h"
#include "core/interrupt.h"
#include "core/launch_env.h"
#include "core/precision.h"
#include "core/log.h"
#include "core/out_file.h"
#include "run/phase_fail.h"
#include "run/phases.h"
#include "run/phases_extra.h"
#include "run/rescue.h"
#include "run/run.h"
#include "run/run_flow.h"
#include "run/same_backend.h"
#include "run/same_command.h"
#include "runjson/runjson_write.h"
#include "runjson/sanity.h"

struct run_request {
    nvs_config cfg;
    nvs_backend_kind backend;
    const char *launcher;
    char no_gpu[256];             /* why the host backend was chosen for want of a GPU; "" when asked for or not */
    char out_dir[NVS_PATH_MAX];   /* decided and created before launch: <final>.partial */
    char final_dir[NVS_PATH_MAX]; /* its name once the run has ended */
    char nccl_log_dir[NVS_PATH_MAX]; /* one-process case: set up before the threads start */
    int nccl_log_tmp;
    nvs_phase_id fail_phase; /* test hook NVS_TEST_FAIL (run/phase_fail.h) */
    int fail_rank;
};

/* Point NCCL's INFO log at a file of ours before NCCL's first call in this process (NCCL reads NCCL_DEBUG*
 * once). Transport attribution parses it afterwards. Left alone when the user set NCCL_DEBUG. `rank` >= 0 names
 * the file after the rank (one process per rank); -1 lets NCCL name it by host and pid (one process, many
 * GPUs). Called before any thread of nvscale's starts and before NCCL's first call: setenv is not safe beside
 * other threads' getenv (under MPI, Open MPI's own progress threads exist already; they do not read NCCL_*). */
static nvs_result_t setup_nccl_log(const nvs_config *cfg, const char *out_dir, int rank, char *dir, size_t len,
                                   int *is_tmp)
{
    dir[0] = '\0';
    *is_tmp = 0;
    if (!cfg->nccl_log) return NVS_OK;
    if (getenv("NCCL_DEBUG")) {
        if (rank <= 0)
            nvs_warn("NCCL_DEBUG is set by the user: nvscale leaves NCCL's log alone, and cannot say which "
                     "transport NCCL used");
        return NVS_OK;
    }
    if (cfg->save && out_dir[0]) {
        snprintf(dir, len, "%s/nccl-logs", out_dir);
    } else {
        snprintf(dir, len, "/tmp/nvscale-nccl-%ld", (long)getpid());
        *is_tmp = 1;
    }
    NVS_CHECK(nvs_mkdir_p(dir));
    char file[NVS_PATH_MAX + 64];
    if (rank >= 0)
        snprintf(file, sizeof file, "%s/nccl.rank%d.log", dir, rank);
    else
        snprintf(file, sizeof file, "%s/nccl.%%h.%%p.log", dir);
    /* INIT covers the channel/transport lines (NCCL logs them as INIT|P2P, INIT|SHM, INIT|NET) */
    if (setenv("NCCL_DEBUG", "INFO", 1) || setenv("NCCL_DEBUG_FILE", file, 1) ||
        (!getenv("NCCL_DEBUG_SUBSYS") && setenv("NCCL_DEBUG_SUBSYS", "INIT,ENV", 1))) {
        nvs_error("setenv NCCL_DEBUG_FILE: %s", strerror(errno));
        return NVS_ERR_SYSTEM;
    }
    return NVS_OK;
}

static nvs_result_t gather_rank_info(nvs_ctx *run)
{
    nvs_rt *rt = run->rt;
    nvs_rank_info me = {.rank = rt->rank, .node = rt->node, .local_rank = rt->local_rank, .device = rt->device,
                        .topo_gpu = -1};
    snprintf(me.host, sizeof me.host, "%s", rt->host);
    snprintf(me.machine, sizeof me.machine, "%s", rt->machine.host);
    snprintf(me.gpu, sizeof me.gpu, "%s", run->backend.device_name);
    snprintf(me.pci_bus_id, sizeof me.pci_bus_id, "%s", run->backend.pci_bus_id);
    me.memory_bytes = (double)run->backend.device_memory_bytes;
    cpu_set_t set;
    me.cpus_allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    /* NCCL runs proxy and network threads beside the launching thread; confined to one core with it (mpirun's
     * default --bind-to core for -np <= 2), network transports slow down several-fold (seen here: NET/Socket
     * all_reduce at 0.45 instead of 3.4 GB/s on 2x H200) */
    if (me.cpus_allowed == 1 && !strcmp(run->backend.ops->name, "nccl"))
        nvs_warn("rank %d is bound to a single CPU core: NCCL's proxy and network threads share it with the "
                 "launching thread. Bind to more (mpirun --bind-to numa, or --bind-to none; srun --cpu-bind=none)",
                 run->rt->rank);
    run->ranks = calloc((size_t)rt->size, sizeof *run->ranks);
    if (!run->ranks) return NVS_ERR_NOMEM;
    return nvs_allgather(rt, &me, run->ranks, sizeof me, "gathering rank information");
}

/* GPU counts to measure: --gpus, or 1, 2, 4, .. below the world size and the world size itself ("coll": the
 * world size only, as nccl-tests). HOST: the MPI host backend, whose ranks are processes, not GPUs. */
static nvs_result_t plan_counts(nvs_ctx *run, int all_counts, int host)
{
    const nvs_config *cfg = run->cfg;
    int world = run->rt->size;
    int counts[NVS_MAX_GPU_COUNTS + 32] = {0}, n = 0;
    if (cfg->n_gpu_counts) {
        for (int i = 0; i < cfg->n_gpu_counts; i++) {
            if (cfg->gpu_counts[i] > world) {
                /* why the count is too many, in the backend's terms: on host memory a rank is an MPI process, not a
                 * GPU (it said "(GPU)" right after the notice that no GPU was found) */
                if (run->rt->rank == 0 && host)
                    fprintf(stderr, "nvscale %s: invalid value '%d' in --gpus: this run has %d rank%s, %s on host "
                            "memory (no GPU); for %d: mpirun -np %d nvscale %s\n", cfg->subcommand, cfg->gpu_counts[i],
                            world, world > 1 ? "s" : "", world > 1 ? "MPI processes" : "an MPI process",
                            cfg->gpu_counts[i], cfg->gpu_counts[i], cfg->subcommand);
                else if (run->rt->rank == 0)
                    fprintf(stderr, "nvscale %s: invalid value '%d' in --gpus: this run has %d rank%s (GPU%s)\n",
                            cfg->subcommand, cfg->gpu_counts[i], world, world > 1 ? "s" : "", world > 1 ? "s" : "");
                return NVS_ERR_USAGE;
            }
            counts[n++] = cfg->gpu_counts[i];
        }
    } else if (all_counts) {
        for (int k = 1; k < world; k *= 2) counts[n++] = k;
        counts[n++] = world;
    } else {
        counts[n++] = world;
    }
    nvs_result_t rv = nvs_sweep_validate(cfg, run->backend.ops->name, counts[0], run->rt->rank == 0);
    if (rv != NVS_OK) return rv;
    run->points = calloc((size_t)n, sizeof *run->points);
    if (!run->points) return NVS_ERR_NOMEM;
    run->npoints = n;
    for (int i = 0; i < n; i++) {
        run->points[i].n = counts[i];
        run->points[i].ranks = malloc((size_t)counts[i] * sizeof(int));
        if (!run->points[i].ranks) return NVS_ERR_NOMEM;
        NVS_CHECK(nvs_phase_place(run, counts[i], run->points[i].ranks));
    }
    return NVS_OK;
}

static int is_member(const nvs_scale_point *p, int rank)
{
    for (int i = 0; i < p->n; i++)
        if (p->ranks[i] == rank) return 1;
    return 0;
}

static nvs_result_t sweep_phase(nvs_ctx *run)
{
    nvs_backend *b = &run->backend;
    nvs_sweep_buffers bufs;
    nvs_result_t res = nvs_sweep_buffers_alloc(b, run->cfg, &bufs); /* agreed over the ranks */
    for (int i = 0; res == NVS_OK && i < run->npoints; i++) {
        nvs_scale_point *p = &run->points[i];
        nvs_comm *c = NULL;
        nvs_log_forget_error(); /* this point's cause, if it fails (phase_fail.h nvs_fail_cause) */
        int last = i == run->npoints - 1;
        /* the hooks fail the last GPU count, the earlier ones measured: split before its communicator split (the
         * others stop in the agreement before it: collectives/backend.h nvs_comm_create_agree), sweep after it
         * (the others find out at the sweep's first wait); comm enters that agreement with its failure */
        if (last && nvs_fail_injected(run, NVS_PF_SPLIT)) {
            res = NVS_ERR_NOMEM;
        } else if (last && nvs_fail_injected(run, NVS_PF_COMM)) { /* the agreement the others enter in comm_split */
            res = nvs_comm_create_agree(run->rt, NVS_ERR_NOMEM,
                                        strcmp(b->ops->name, "nccl") ? "MPI_Comm_split" : "ncclCommSplit");
        } else {
            res = b->ops->comm_split(b, is_member(p, run->rt->rank), &c);
            if (res != NVS_OK) break;
            nvs_info("sweeping collectives on %d GPU%s", p->n, p->n > 1 ? "s" : "");
            if (last && nvs_fail_injected(run, NVS_PF_SWEEP))
                res = NVS_ERR_NOMEM;
            else
                res = nvs_sweep_run(b, c, p->n, &bufs, &run->rows);
        }
        char at[32];
        snprintf(at, sizeof at, " at N=%d", p->n);
        nvs_phase_told(run, NVS_PF_SWEEP, at, res); /* at once: before comm_free, which may wait (NCCL) */
        b->ops->comm_free(b, c);
    }
    nvs_sweep_buffers_free(b, &bufs);
    return res;
}

/* A file of the run that cannot be written once the run has begun: the run directory was made and written when
 * it began, so a path error now (the file system remounted read-only, its permissions taken away) is the
 * system's, exit 1 as a full disk, not bad input (exit 2, "stopped by a usage error") */
static nvs_result_t write_error(nvs_result_t r) { return r == NVS_ERR_USAGE ? NVS_ERR_SYSTEM : r; }

/* Checkpoints are throttled: a run.json of a large sweep is a few MB, and the rows come every few ms. */
#define NVS_CHECKPOINT_EVERY_S 2.0

nvs_result_t nvs_run_checkpoint(nvs_ctx *run, int force)
{
    if (run->rt->rank != 0 || !run->cfg->save || !run->out_dir[0]) return NVS_OK;
    double now = nvs_now_s();
    if (!force && now - run->last_checkpoint_s < NVS_CHECKPOINT_EVERY_S) return NVS_OK;
    run->last_checkpoint_s = now;
    /* after a signal the checkpoint says so: the rescue thread may have marked the one before */
    int sig = nvs_interrupted();
    if (sig) nvs_interrupt_reason(sig, run->reason, sizeof run->reason);
    run->running = !sig;
    json_t *root = nvs_ctx_to_json(run, sig ? NVS_ERR_INTERRUPTED : NVS_OK, now - run->t_start);
    run->running = 0;
    if (!root) return NVS_ERR_NOMEM;
    nvs_rescue_lock(run->rescue);
    nvs_result_t r = write_error(nvs_rj_save(root, run->out_dir));
    nvs_rescue_unlock(run->rescue);
    json_decref(root);
    if (r != NVS_OK) nvs_error("cannot keep the results in %s: stopping the run", run->out_dir);
    return r;
}

static nvs_result_t checkpoint_cb(void *arg) { return nvs_run_checkpoint(arg, 0); }

/* Numbers of this run that cannot be right as they stand (runjson/sanity.h: efficiency above 100 % beyond
 * noise, busbw above the link's bound): one warning each on stderr, as check and report show them too */
static void warn_sanity(json_t *root)
{
    nvs_run r;
    char err[256];
    if (nvs_run_from_json(root, "run.json", 0, &r, err, sizeof err) != NVS_OK) return; /* nothing to judge */
    nvs_sanity s[8];
    size_t n = nvs_sanity_of(&r, s, 8);
    for (size_t i = 0; i < n && i < 8; i++) nvs_warn("%s", s[i].text);
    if (n > 8) nvs_warn("%zu more numbers above what this run allows: nvscale check or report lists them", n - 8);
    nvs_run_free(&r);
}

static nvs_result_t write_outputs(nvs_ctx *run, nvs_result_t status)
{
    const nvs_config *cfg = run->cfg;
    json_t *root = nvs_ctx_to_json(run, status, nvs_now_s() - run->t_start);
    if (!root) return NVS_ERR_NOMEM;
    json_t *explain = nvs_ctx_explain(run, root);
    if (explain) json_object_set_new(root, "explain", explain);
    warn_sanity(root);
    nvs_result_t res = NVS_OK, json_res = NVS_OK;
    const char *shown = run->final_dir[0] ? run->final_dir : run->out_dir; /* its name once written */
    if (cfg->save) {
        char path[NVS_PATH_MAX + 32];
        res = json_res = nvs_rj_save(root, run->out_dir);
        if (res == NVS_OK && run->rows.n) {
            snprintf(path, sizeof path, "%s/collectives.csv", run->out_dir);
            nvs_outfile o;
            res = nvs_outfile_open(&o, path);
            if (res == NVS_OK) {
                res = nvs_print_csv(run, o.f);
                if (res == NVS_OK) res = nvs_outfile_commit(&o);
                else nvs_outfile_discard(&o);
            }
        }
        if (res == NVS_OK && run->rows.n) {
            snprintf(path, sizeof path, "%s/table.txt", run->out_dir);
            nvs_outfile o;
            res = nvs_outfile_open(&o, path);
            if (res == NVS_OK) {
                nvs_print_table(run, o.f);
                res = nvs_outfile_commit(&o);
            }
        }
    }
    res = write_error(res);
    nvs_result_t saved = res; /* what the files came to: a failed rename or standard output is not theirs */
    /* the run has ended (however): <dir>.partial takes its name, before anything goes to standard output (a
     * reader gone, `| head -1`, kills the process with SIGPIPE there). A directory left with .partial was cut
     * short; its run.json says "running" and holds what was measured until then. */
    if (cfg->save && run->final_dir[0] && strcmp(run->final_dir, run->out_dir)) {
        if (nvs_rj_rename_run_dir(run->out_dir, run->final_dir) != 0) {
            nvs_error("cannot rename %s to %s: %s (the results are in the former)", run->out_dir, run->final_dir,
                      strerror(errno));
            if (res == NVS_OK) res = NVS_ERR_SYSTEM;
        } else {
            snprintf(run->out_dir, sizeof run->out_dir, "%s", run->final_dir);
        }
    }
    if (nvs_exit_code(status) == 1 || nvs_exit_code(status) == 2) {
        /* a failed run prints no tables: it says where what it measured went */
        if (cfg->save && res == NVS_OK) fprintf(stderr, "nvscale: %s; what was measured is in %s/run.json\n",
                                                run->reason[0] ? run->reason : nvs_result_text(status), shown);
    } else if (cfg->format == NVS_FMT_JSON) {
        nvs_result_t w = nvs_rj_print(root, stdout);
        if (res == NVS_OK) res = w;
    } else if (cfg->format == NVS_FMT_CSV) {
        /* as before the rename moved up: a directory that kept its .partial name does not stop the table */
        if (saved == NVS_OK) {
            /* train sweeps nothing: its rows are the training step's */
            nvs_result_t w = !strcmp(cfg->subcommand, "train") ? nvs_phase_print_train_csv(run, stdout)
                                                                : nvs_print_csv(run, stdout);
            if (res == NVS_OK) res = w;
        }
    } else if (!strcmp(cfg->subcommand, "accept")) {
        /* accept prints its one verdict table itself, from the run.json written here */
    } else if (!strcmp(cfg->subcommand, "run")) {
        /* the one-screen answer; every table of every size is in the results directory, and under -v here */
        if (cfg->verbose) {
            nvs_print_table(run, stdout);
            nvs_phase_print_summary(run, stdout);
            fputc('\n', stdout);
        }
        nvs_print_summary(run, root, stdout);
        if (cfg->save && res == NVS_OK)
            printf("\nResults: %s/ (run.json; table.txt: every size, nccl-tests format; nvscale report %s/run.json)\n",
                   shown, shown);
    } else {
        nvs_print_table(run, stdout);
        nvs_phase_print_summary(run, stdout);
        if (explain) nvs_print_explain(explain, stdout);
        if (cfg->save && res == NVS_OK) printf("# results: %s/run.json\n", shown);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        nvs_error("writing to standard output failed");
        res = NVS_ERR_SYSTEM;
    }
    json_decref(root);
    if (cfg->save && saved != NVS_OK) {
        /* the end could not be written (a full disk): say what is left of the run */
        char path[NVS_PATH_MAX + 16];
        struct stat st;
        snprintf(path, sizeof path, "%s/run.json", run->out_dir);
        if (json_res == NVS_OK) /* only table.txt or collectives.csv failed */
            nvs_error("%s is the final one, with every result measured: only the tables beside it are missing", path);
        else if (stat(path, &st) == 0 && st.st_size > 0)
            nvs_error("%s holds the last checkpoint written (status \"running\"): what was measured after it is lost",
                      path);
        else
            nvs_error("nothing of this run could be kept in %s", run->out_dir);
    }
    return res;
}

static nvs_result_t total_wrong(const nvs_ctx *run)
{
    long long wrong = 0;
    for (size_t i = 0; i < run->rows.n; i++)
        if (run->rows.v[i].wrong > 0) wrong += run->rows.v[i].wrong;
    wrong += run->phase_wrong; /* the copy phases said which copy was wrong when they found it */
    if (wrong && run->rt->rank == 0) {
        for (size_t i = 0; i < run->rows.n; i++) {
            const nvs_coll_row *r = &run->rows.v[i];
            if (r->wrong <= 0) continue;
            nvs_error("%s %zu bytes %s %s N=%d: %lld wrong element%s (first on rank %d at element %llu)",
                      nvs_coll_at(r->coll)->name, r->bytes, nvs_dtype_name(r->type),
                      r->inplace ? "in-place" : "out-of-place", r->n, r->wrong, r->wrong > 1 ? "s" : "",
                      r->wrong_rank, r->first_wrong);
        }
    }
    return wrong ? NVS_ERR_WRONG : NVS_OK;
}

/* Rank 0: whether this run has any measured number to keep (a usage error found late keeps them) */
static int measured_anything(const nvs_ctx *run)
{
    return run->rows.n > 0 || (run->trains && json_array_size(run->trains) > 0) || run->p2p || run->sustain ||
           run->selftest || run->health;
}

/* One phase of every rank: failed by the test hook as it starts, else run; a failure of this rank's own told to
 * the others (phase_fail.h) */
static nvs_result_t phase(nvs_ctx *run, nvs_phase_id id, nvs_result_t (*fn)(nvs_ctx *))
{
    nvs_log_forget_error(); /* the phase's cause, if it fails (phase_fail.h nvs_fail_cause) */
    nvs_result_t r = id != NVS_PF_SWEEP && nvs_fail_injected(run, id) ? NVS_ERR_NOMEM : fn(run);
    return nvs_phase_told(run, id, "", r);
}

static nvs_result_t run_rank(nvs_rt *rt, void *arg)
{
    struct run_request *req = arg;
    nvs_ctx run = {.cfg = &req->cfg, .rt = rt, .launcher = req->launcher, .no_gpu = req->no_gpu, .t_start = nvs_now_s(),
                   .fail_phase = req->fail_phase, .fail_rank = req->fail_rank};
    const char *sub = req->cfg.subcommand;
    unsigned phases = req->cfg.phases;
    nvs_result_t res = NVS_OK;
    nvs_rj_utc_stamp((long)time(NULL), run.started_utc, sizeof run.started_utc);

    res = nvs_same_command(rt, &req->cfg); /* before anything is made or measured */
    if (res == NVS_OK) res = nvs_same_backend(rt, req->backend, req->no_gpu);
    if (res != NVS_OK) goto out;

    /* one run directory for all ranks: rank 0 creates it (exclusively, <name>.partial) and tells the others; the
     * threads runtime's ranks share the request, so only rank 0 writes into it */
    double made = NVS_OK;
    if (rt->rank == 0 && req->cfg.save && !req->out_dir[0])
        made = nvs_rj_open_run_dir(req->cfg.out_dir[0] ? req->cfg.out_dir : NULL, sub, req->final_dir,
                                   sizeof req->final_dir, req->out_dir, sizeof req->out_dir);
    NVS_CHECK_GOTO(nvs_allreduce_f64(rt, &made, 1, NVS_RT_MAX, "creating the run directory"), res, out);
    if (made != NVS_OK) {
        res = (nvs_result_t)made;
        goto out;
    }
    snprintf(run.out_dir, sizeof run.out_dir, "%s", req->out_dir);
    snprintf(run.final_dir, sizeof run.final_dir, "%s", req->final_dir);
    NVS_CHECK_GOTO(nvs_bcast(rt, run.out_dir, sizeof run.out_dir, 0, "run directory"), res, out);
    NVS_CHECK_GOTO(nvs_bcast(rt, run.final_dir, sizeof run.final_dir, 0, "run directory"), res, out);
    if (req->backend == NVS_BACKEND_NCCL && !strcmp(req->launcher, "mpi")) {
        NVS_CHECK_GOTO(setup_nccl_log(&req->cfg, run.out_dir, rt->rank, run.nccl_log_dir, sizeof run.nccl_log_dir,
                                      &run.nccl_log_tmp),
                       res, end);
    } else {
        snprintf(run.nccl_log_dir, sizeof run.nccl_log_dir, "%s", req->nccl_log_dir);
        run.nccl_log_tmp = req->nccl_log_tmp && rt->rank == 0; /* removed once, by rank 0 */
    }

    nvs_log_forget_error(); /* the set-up's cause, if it fails (phase_fail.h nvs_fail_cause) */
    if (req->backend == NVS_BACKEND_NCCL)
        res = nvs_backend_nccl_init(&run.backend, rt, &req->cfg);
    else
        res = nvs_backend_mpi_init(&run.backend, rt, &req->cfg);
    /* a rank whose own set-up failed (its GPU, its stream) tells the others which and why: they stopped in the
     * set-up's agreement (collectives/backend.h nvs_comm_create_agree), and rank 0 says this rank's sentence */
    if (res != NVS_OK) {
        /* interrupted, the NCCL set-up keeps its communicator for finalize, after the write (backend.h) */
        run.have_backend = res == NVS_ERR_INTERRUPTED && run.backend.impl;
        res = nvs_phase_told(&run, NVS_PF_BACKEND, "", res);
        goto end;
    }
    run.have_backend = 1;
    if (rt->rank == 0) nvs_versions_collect(&run.versions);
    /* from here on, everything measured is kept: checkpoints while it runs, and whatever ends the run */
    run.rows.on_push = checkpoint_cb;
    run.rows.on_push_arg = &run;
    if (rt->rank == 0 && req->cfg.save && run.out_dir[0]) run.rescue = nvs_rescue_start(run.out_dir);
    /* each phase that the ranks run together goes through phase(): a rank that fails alone tells the others */
    NVS_CHECK_GOTO(phase(&run, NVS_PF_RANKS, gather_rank_info), res, end);
    NVS_CHECK_GOTO(phase(&run, NVS_PF_TOPOLOGY, nvs_phase_topology), res, end); /* also `coll`: NCCL's links */
    if (phases & NVS_PHASE_HEALTH) NVS_CHECK_GOTO(phase(&run, NVS_PF_HEALTH, nvs_phase_health_start), res, end);
    NVS_CHECK_GOTO(plan_counts(&run, strcmp(sub, "coll") != 0, req->backend != NVS_BACKEND_NCCL), res, end);
    int trains = !strcmp(sub, "train") || req->cfg.model[0];
    if (trains) NVS_CHECK_GOTO(phase(&run, NVS_PF_PREFLIGHT, nvs_phase_train_preflight), res, end);
    NVS_CHECK_GOTO(nvs_run_checkpoint(&run, 1), res, end);
    if (phases & NVS_PHASE_SELFTEST) NVS_CHECK_GOTO(phase(&run, NVS_PF_SELFTEST, nvs_phase_selftest), res, end);
    if (phases & (NVS_PHASE_P2P | NVS_PHASE_H2D))
        NVS_CHECK_GOTO(phase(&run, NVS_PF_COPIES, nvs_phase_copies), res, end);
    if (strcmp(sub, "train") && !(phases & NVS_PHASE_NO_SWEEP)) {
        NVS_CHECK_GOTO(phase(&run, NVS_PF_SWEEP, sweep_phase), res, end);
        NVS_CHECK_GOTO(nvs_run_checkpoint(&run, 1), res, end); /* every row, before the training step starts */
    }
    if (trains) NVS_CHECK_GOTO(phase(&run, NVS_PF_TRAIN, nvs_phase_train), res, end);
    if (phases & NVS_PHASE_SUSTAIN) NVS_CHECK_GOTO(phase(&run, NVS_PF_SUSTAIN, nvs_phase_sustain), res, end);
    NVS_CHECK_GOTO(phase(&run, NVS_PF_TRANSPORTS, nvs_phase_transports), res, end);
    if (phases & NVS_PHASE_HEALTH) NVS_CHECK_GOTO(phase(&run, NVS_PF_HEALTH, nvs_phase_health_finish), res, end);

    res = total_wrong(&run);
end:;
    if (rt->rank == 0 && req->cfg.slow_stop_s && nvs_interrupted()) {
        /* test hook: a rank slow to stop (the launcher's SIGKILL may come first) */
        double until = nvs_now_s() + req->cfg.slow_stop_s;
        while (nvs_now_s() < until) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    nvs_rescue_stop(run.rescue); /* the final word is the main thread's from here */
    run.rescue = NULL;
    nvs_result_t final = res;
    /* every rank got here the normal way: agree on one result. Otherwise a peer may be gone or stopped:
     * asking it would wait for nothing, so rank 0 says what it knows. */
    if (res == NVS_OK || res == NVS_ERR_WRONG) final = nvs_rt_agree_result(rt, res);
    /* a signal ends the run whatever error it caused on the way (a wait cut short, a peer's aborted NCCL
     * communicator): the run was interrupted; but not a stall this rank timed out on before it (rescue.h) */
    final = nvs_interrupt_final(res, final, nvs_interrupted());
    if (rt->rank == 0 && nvs_exit_code(final) == 2 && !measured_anything(&run)) {
        /* a usage error found once launched (a root beyond the ranks, --gpus beyond the world) before anything
         * was measured: nothing is left behind */
        if (run.out_dir[0] && req->cfg.save) {
            nvs_remove_tree(run.out_dir);
            nvs_rj_unmake_parents();
        }
    } else if (rt->rank == 0) {
        /* an agreement ended on another rank's failure: that rank tells which and why just after it (phase_fail.h);
         * 2 s bound the wait for a notice that may never come (a rank gone), with no collective to hang in */
        if (rt->agreed_failed && nvs_exit_code(final) == 1 && final != NVS_ERR_INTERRUPTED)
            (void)nvs_rt_await_notice(rt, 2.0);
        if (final == NVS_ERR_INTERRUPTED)
            nvs_interrupt_reason(nvs_interrupted(), run.reason, sizeof run.reason);
        else if (nvs_exit_code(final) == 2)
            snprintf(run.reason, sizeof run.reason, "stopped by a usage error (see the message above): the results "
                     "measured before it are kept");
        else if (nvs_exit_code(final) == 1 && (rt->peer_failed || rt->told_failed)) /* which rank, why (runtime.h) */
            snprintf(run.reason, sizeof run.reason, "stopped: %s; the results measured before are kept",
                     rt->failed_why);
        else if (final != NVS_OK && final != NVS_ERR_WRONG)
            snprintf(run.reason, sizeof run.reason, "%s (see the ranks' messages above): the results measured "
                     "before are kept", nvs_result_text(final));
        run.rows.on_push = NULL;
        nvs_result_t w = write_outputs(&run, final);
        if (w != NVS_OK && res == NVS_OK) res = w;
        /* said last, after the outputs (which name the run directory), so that the end of the terminal says
         * why the run stopped: Open MPI's abort banner alone did not */
        if (final == NVS_ERR_INTERRUPTED)
            fprintf(stderr, "nvscale: %s%s\n", run.reason,
                    req->cfg.save ? " (run.json: status \"interrupted\")"
                                  : " (--no-save: on standard output only, no run.json)");
    }
    if (final != NVS_OK && res == NVS_OK) res = final;
out:
    if (run.have_backend) run.backend.ops->finalize(&run.backend);
    nvs_phase_cleanup(&run);
    nvs_phase_extra_cleanup(&run);
    for (int i = 0; i < run.npoints; i++) free(run.points[i].ranks);
    free(run.points);
    free(run.ranks);
    nvs_rows_free(&run.rows);
    return res;
}

/* What the user did not choose, chosen for the backend that runs. On GPUs the default run trains a
 * communication-heavy transformer and a CNN at bf16, the precision people train in; the host backend (no GPU)
 * trains ResNet-50 at batch 1 in fp32 for a few steps and sweeps up to 16 MiB, so that the whole default run
 * ends within about a minute and a half on a 2-core machine (a CPU step of ResNet-50 at batch 1 is ~0.5 s). */
static void apply_backend_defaults(nvs_config *cfg, nvs_backend_kind backend)
{
    int gpu = backend == NVS_BACKEND_NCCL;
    int is_run = !strcmp(cfg->subcommand, "run");
    if (is_run && !cfg->model[0] && !cfg->no_train)
        snprintf(cfg->model, sizeof cfg->model, "%s", gpu ? "bert-large,resnet50" : "resnet50");
    if (!cfg->precision_explicit) cfg->precision = gpu ? NVS_PREC_BF16 : NVS_PREC_FP32;
    if (!gpu) {
        if (!cfg->batch) cfg->batch = 1;
        if (!cfg->steps_explicit) cfg->steps = 3;
        if (!cfg->warmup_steps_explicit) cfg->warmup_steps = 1;
        if (is_run && !cfg->sizes_explicit) {
            cfg->max_bytes = (size_t)16 << 20;
            cfg->step_factor = 4;
        }
    }
}

/* The training step computes what the backend can: fp32/tf32/bf16/fp16 GEMMs on GPUs, fp32 on the host
 * (OpenBLAS: no TF32 there, so a host run recorded as tf32 would be an fp32 run under another name). Said
 * before launch, not after the sweeps. */
static nvs_result_t check_train_precision(const nvs_config *cfg, nvs_backend_kind backend)
{
    if (!cfg->model[0] && strcmp(cfg->subcommand, "train")) return NVS_OK;
    const char *sub = cfg->subcommand;
    if (backend == NVS_BACKEND_MPI && (cfg->precision != NVS_PREC_FP32 || cfg->grad_bf16)) {
        fprintf(nvs_stderr_once(), "nvscale %s: %s %s the NCCL backend (GPUs); the host backend trains in "
                                   "fp32 (drop the flag, or model it: nvscale model --precision ...)\n",
                sub, cfg->grad_bf16 ? "bf16" : nvs_precision_name(cfg->precision),
                cfg->grad_bf16 ? "gradients need" : "precision needs");
        return NVS_ERR_USAGE;
    }
    return NVS_OK;
}

nvs_result_t nvs_run_measure(const nvs_config *cfg_in)
{
    struct run_request *req = calloc(1, sizeof *req);
    if (!req) return NVS_ERR_NOMEM;
    req->cfg = *cfg_in;
    nvs_config *cfg = &req->cfg;
    const char *sub = cfg->subcommand;
    nvs_result_t res;
    res = nvs_phase_validate(cfg);
    if (res == NVS_OK) res = nvs_fail_hook_parse(sub, getenv("NVS_TEST_FAIL"), &req->fail_phase, &req->fail_rank);
    if (res != NVS_OK) {
        free(req);
        return res;
    }

    /* backend: as asked, else NCCL when a GPU is visible, else the MPI host backend (said in one line) */
    char why[256];
    int gpus = nvs_gpu_available(why, sizeof why);
    req->backend = cfg->backend;
    if (req->backend == NVS_BACKEND_AUTO) {
        req->backend = gpus ? NVS_BACKEND_NCCL : NVS_BACKEND_MPI;
        if (!gpus) snprintf(req->no_gpu, sizeof req->no_gpu, "%s", why);
        if (!gpus && !cfg->quiet && nvs_rt_launcher_rank() == 0)
            fprintf(stderr, "nvscale: no GPU found (%s): running collectives on host memory with the MPI "
                            "backend (--backend mpi)\n",
                    why);
    } else if (req->backend == NVS_BACKEND_NCCL && !gpus) {
        char host[64];
        nvs_host_name(host, sizeof host); /* one host alone may lack it: its rank says it (cli/main.c said_once) */
        fprintf(nvs_stderr_once(), "nvscale: --backend nccl needs a GPU, and none is usable on host %s (%s)\n", host,
                why);
        free(req);
        return NVS_ERR_UNSUPPORTED;
    }
    apply_backend_defaults(cfg, req->backend);
    res = check_train_precision(cfg, req->backend);
    if (res != NVS_OK) {
        free(req);
        return res;
    }
    int mpi_launch = nvs_rt_launched_by_mpi();
    nvs_launch_kind kind = req->backend == NVS_BACKEND_MPI || mpi_launch ? NVS_LAUNCH_MPI : NVS_LAUNCH_THREADS;
    req->launcher = kind == NVS_LAUNCH_MPI ? "mpi" : "threads";
    res = nvs_sweep_validate(cfg, req->backend == NVS_BACKEND_MPI ? "mpi" : "nccl",
                             cfg->n_gpu_counts ? cfg->gpu_counts[0] : (strcmp(sub, "coll") ? 1 : 0), 1);
    /* (for `coll` without --gpus the communicator size is the world size, known once launched: plan_counts) */
    if (res != NVS_OK) {
        free(req);
        return res;
    }
    if (cfg->save) {
        /* the run directory exists before anything is measured, under a name no other run has: a bad --out is a
         * usage error now, not after hours of sweeps */
        res = nvs_rj_check_out_dir(cfg->subcommand, cfg->out_dir[0] ? cfg->out_dir : NULL);
        if (res != NVS_OK) {
            free(req);
            return res;
        }
    }
    if (kind == NVS_LAUNCH_THREADS && cfg->save) {
        /* one process: create the run directory now, so that NCCL's log can point into it before any thread */
        res = nvs_rj_open_run_dir(cfg->out_dir[0] ? cfg->out_dir : NULL, sub, req->final_dir, sizeof req->final_dir,
                                  req->out_dir, sizeof req->out_dir);
        if (res != NVS_OK) {
            free(req);
            return res;
        }
    }
    if (kind == NVS_LAUNCH_THREADS && req->backend == NVS_BACKEND_NCCL) {
        res = setup_nccl_log(cfg, req->out_dir, -1, req->nccl_log_dir, sizeof req->nccl_log_dir, &req->nccl_log_tmp);
        if (res != NVS_OK) {
            free(req);
            return res;
        }
    }
    /* Ctrl-C, or SIGTERM from mpirun / a batch system: stop, keep what was measured (run.json "interrupted") */
    int sig_err = nvs_interrupt_install();
    if (sig_err && nvs_rt_launcher_rank() == 0)
        nvs_warn("cannot install the signal handlers (%s): Ctrl-C or SIGTERM will end the run without writing "
                 "what it measured (a checkpoint every few seconds stays in the run directory)", strerror(sig_err));
    res = nvs_rt_run(kind, gpus > 0 ? gpus : 1, cfg->timeout_s, cfg->emulate_nodes, run_rank, req);
    /* one process: a usage error before the ranks ran (a bad --emulate-nodes split) leaves the directory made
     * above unused; run_rank renamed or removed it otherwise */
    struct stat st;
    if (kind == NVS_LAUNCH_THREADS && req->out_dir[0] && nvs_exit_code(res) == 2 && lstat(req->out_dir, &st) == 0) {
        nvs_remove_tree(req->out_dir);
        nvs_rj_unmake_parents();
    }
    free(req);
    return res;
}

