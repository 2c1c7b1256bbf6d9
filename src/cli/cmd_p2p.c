/* `nvscale p2p`: copy bandwidth/latency matrix of every host's GPUs (p2p.h), with bounds from the topology;
 * `--host`: pinned host<->device copies of every GPU instead (h2d.h). Under mpirun the local rank 0 of each
 * host measures all the GPUs it sees while the host's other ranks wait; rank 0 prints every host's results
 * (topo/copies.h gathers them). Without a launcher the one process measures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cli/commands.h"
#include "core/config.h"
#include "core/log.h"
#include "topo/copies.h"
#include "topo/topo_live.h"
#include "cli/cli_common.h"
#include "runjson/runjson_write.h"

struct p2p_job {
    const nvs_config *cfg;
    const char *launcher;
    nvs_cli_out *dir;
};

/* One line before anything else when this host has no usable GPU (pair). */
static nvs_result_t check_gpus(int need)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        nvs_error("p2p cannot run without GPUs: %s (cudaGetDeviceCount)", cudaGetErrorString(e));
        return NVS_ERR_UNSUPPORTED;
    }
    if (n < need) {
        if (need == 2) nvs_error("p2p measures copies between GPUs and needs at least two; %d visible here", n);
        else nvs_error("p2p --host measures copies between host memory and GPUs; no GPU is visible here");
        return NVS_ERR_UNSUPPORTED;
    }
    return NVS_OK;
}

static nvs_result_t emit(const nvs_config *cfg, nvs_cli_out *dir, const char *launcher, const nvs_topology *t,
                         const nvs_copies *c)
{
    json_t *doc = nvs_cli_run_doc(cfg, launcher, NULL, dir), *tj = nvs_topo_to_json(t), *pj = nvs_copies_to_json(t, c);
    if (!doc || !tj || !pj) {
        json_decref(doc);
        json_decref(tj);
        json_decref(pj);
        return NVS_ERR_NOMEM;
    }
    json_object_set_new(doc, "topology", tj);
    json_object_set_new(doc, "p2p", pj);
    long long wrong = nvs_copies_wrong_total(c);
    json_t *res = json_object();
    json_object_set_new(res, "status", json_string(wrong ? "wrong" : "ok"));
    json_object_set_new(res, "exit_code", json_integer(wrong ? 3 : 0));
    json_object_set_new(res, "wrong_total", json_integer(wrong));
    json_object_set_new(doc, "result", res);
    /* saved before anything goes to stdout: a reader that stops early (`| head`) ends the process with SIGPIPE,
     * and the copies measured must be kept by then (and DIR.partial renamed) */
    nvs_result_t saved = nvs_cli_save_run(cfg, dir, doc), rc = NVS_OK;
    if (cfg->format == NVS_FMT_JSON)
        rc = nvs_rj_print(doc, stdout);
    else {
        if (cfg->format == NVS_FMT_CSV) {
            if (c->has_pairs) nvs_p2p_print_csv(t, &c->pairs, stdout);
            if (c->has_host) nvs_h2d_print_csv(t, &c->host, stdout);
        } else {
            if (!cfg->quiet) {
                nvs_topo_print_matrix(t, stdout);
                fprintf(stdout, "\n");
            }
            if (c->has_pairs) nvs_p2p_print(t, &c->pairs, stdout);
            if (c->has_host) nvs_h2d_print(t, &c->host, stdout);
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            nvs_error("cannot write to the standard output");
            rc = NVS_ERR_SYSTEM;
        }
    }
    if (saved != NVS_OK) rc = saved;
    json_decref(doc);
    if (rc == NVS_OK && wrong) {
        nvs_error("%lld wrong elements in the copies: the data path is broken", wrong);
        rc = NVS_ERR_WRONG;
    }
    return rc;
}

static nvs_result_t p2p_rank(nvs_rt *rt, void *arg)
{
    struct p2p_job *job = arg;
    const nvs_config *cfg = job->cfg;
    nvs_topology *local = NULL, *global = NULL;
    nvs_p2p_result mine = {0};
    nvs_h2d_result host = {0};
    nvs_copies all = {0};
    int measurer = rt->local_rank == 0;
    nvs_result_t r = measurer ? check_gpus(cfg->p2p_host ? 1 : 2) : NVS_OK;
    r = nvs_rt_agree_result(rt, r);
    /* every rank takes part: a virtual host (--emulate-nodes) keeps the GPUs its ranks drive */
    if (r == NVS_OK) r = nvs_topo_discover_host(rt, NULL, &local);
    if (r == NVS_OK && local && local->ngpus < (cfg->p2p_host ? 1 : 2)) {
        nvs_error("p2p measures copies between the GPUs of one host; host %s has %d: use fewer virtual hosts "
                  "(--emulate-nodes)",
                  rt->host, local->ngpus);
        r = NVS_ERR_USAGE;
    }
    r = nvs_rt_agree_result(rt, r);
    if (r == NVS_OK) r = nvs_topo_gather(rt, local, &global);
    /* virtual hosts share one machine's links: they measure one after the other, never at once */
    int turns = rt->emulated_nodes > 1 ? rt->nnodes : 1;
    for (int turn = 0; turn < turns && r == NVS_OK; turn++) {
        if (measurer && (turns == 1 || turn == rt->node))
            r = cfg->p2p_host ? nvs_h2d_measure(local, cfg->copy_bytes, cfg->copy_iters, cfg->warmup, &host)
                              : nvs_p2p_measure(local, cfg->copy_bytes, cfg->copy_iters, cfg->warmup, &mine);
        if (turns > 1) r = nvs_rt_agree_result(rt, r);
    }
    /* a bad copy still reports its numbers: only a runtime error stops here */
    r = nvs_rt_agree_result(rt, r);
    if (r != NVS_OK) goto out;
    r = nvs_copies_gather(rt, local, global, measurer && !cfg->p2p_host ? &mine : NULL,
                          measurer && cfg->p2p_host ? &host : NULL, NULL, NULL, &all);
    if (r == NVS_OK && rt->rank == 0) r = emit(cfg, job->dir, job->launcher, global, &all);
    r = nvs_rt_agree_result(rt, r);
out:
    /* under mpirun a failed run ends in the runtime (MPI_Abort) before cmd_p2p's own clean-up: the empty
     * DIR.partial goes now (rank 0 holds it) */
    if (r != NVS_OK && rt->rank == 0) nvs_cli_out_abandon(job->dir);
    nvs_copies_free(&all);
    nvs_p2p_result_free(&mine);
    nvs_h2d_result_free(&host);
    nvs_topo_free(local);
    nvs_topo_free(global);
    return r;
}

int cmd_p2p(int argc, char **argv)
{
    nvs_config cfg;
    nvs_config_defaults(&cfg);
    int help = 0;
    nvs_result_t r = nvs_config_parse(&cfg, "p2p", argc, argv, &help);
    if (r != NVS_OK || help) return help ? 0 : nvs_exit_code(r);
    cfg.argc = argc;
    cfg.argv = argv;
    if (cfg.hwloc_xml[0]) {
        fprintf(stderr, "nvscale p2p: --hwloc-xml is for `nvscale topo`: p2p measures this machine's GPUs\n");
        return 2;
    }
    nvs_cli_set_verbosity(cfg.quiet, cfg.verbose);
    nvs_cli_out dir; /* --out checked and the directory made before the first copy */
    if ((r = nvs_cli_out_begin(&cfg, &dir)) != NVS_OK) return nvs_exit_code(r);
    struct p2p_job job = {&cfg, nvs_rt_launched_by_mpi() ? "mpi" : "threads", &dir};
    r = nvs_rt_run(NVS_LAUNCH_AUTO, 1, cfg.timeout_s, cfg.emulate_nodes, p2p_rank, &job);
    nvs_cli_out_abandon(&dir); /* nothing when saved */
    return nvs_exit_code(r);
}
