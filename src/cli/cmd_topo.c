/* `nvscale topo`: the GPU topology of this machine (every host under mpirun), or of a saved hwloc XML.
 *
 *   nvscale topo                         this machine: hwloc + NVML + CUDA
 *   mpirun -np 16 nvscale topo           every host's local rank 0 discovers, rank 0 prints all hosts (NET)
 *   nvscale topo --hwloc-xml FILE        offline: no GPU, driver or MPI needed
 * Output: --format table (default: details, matrix, P2P, bounds, legend; -q: the matrix only), json, csv.
 * run.json ("schema", "tool", "command", "topology") goes to --out DIR or results/<date>-<time>-topo. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "core/config.h"
#include "core/launch_env.h"
#include "core/log.h"
#include "topo/topo.h"
#include "cli/cli_common.h"
#include "runjson/runjson_write.h"

struct topo_job {
    const nvs_config *cfg;
    const char *launcher;
    nvs_cli_out *dir;
};

static nvs_result_t emit(const nvs_config *cfg, nvs_cli_out *dir, const nvs_topology *t, const char *launcher)
{
    json_t *doc = nvs_cli_run_doc(cfg, launcher, NULL, dir);
    json_t *tj = nvs_topo_to_json(t);
    if (!doc || !tj) {
        json_decref(doc);
        json_decref(tj);
        nvs_error("out of memory building run.json");
        return NVS_ERR_NOMEM;
    }
    json_object_set_new(doc, "topology", tj);
    /* a finished discovery says so as every other command's run.json does: without "result", `nvscale check` took
     * a topo run for one that died before the end ("the run has no result section: it did not finish") */
    json_t *res = json_pack("{s:s, s:i}", "status", "ok", "exit_code", 0);
    if (!res || json_object_set_new(doc, "result", res)) {
        json_decref(doc);
        nvs_error("out of memory building run.json");
        return NVS_ERR_NOMEM;
    }
    /* saved before anything goes to stdout: a reader that stops early (`| head`) ends the process with SIGPIPE,
     * and that must not leave DIR.partial behind (an empty one, under a name a rerun with --out refuses) */
    nvs_result_t saved = nvs_cli_save_run(cfg, dir, doc), r = NVS_OK;
    if (cfg->format == NVS_FMT_JSON)
        r = nvs_rj_print(doc, stdout);
    else {
        if (cfg->format == NVS_FMT_CSV)
            nvs_topo_print_csv(t, stdout);
        else if (cfg->quiet)
            nvs_topo_print_matrix(t, stdout);
        else
            nvs_topo_print(t, stdout);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            nvs_error("cannot write to the standard output");
            r = NVS_ERR_SYSTEM;
        }
    }
    json_decref(doc);
    return saved != NVS_OK ? saved : r;
}

static nvs_result_t topo_rank(nvs_rt *rt, void *arg)
{
    struct topo_job *job = arg;
    nvs_topology *local = NULL, *global = NULL;
    nvs_result_t r = NVS_OK;
    /* one discovery per host: the other ranks of the host would only repeat it (a virtual host of
     * --emulate-nodes keeps the GPUs its ranks drive, by CUDA ordinal) */
    r = nvs_topo_discover_host(rt, NULL, &local);
    r = nvs_rt_agree_result(rt, r);
    if (r == NVS_OK) r = nvs_topo_gather(rt, local, &global);
    if (r == NVS_OK && rt->rank == 0) r = emit(job->cfg, job->dir, global, job->launcher);
    nvs_topo_free(local);
    nvs_topo_free(global);
    r = nvs_rt_agree_result(rt, r);
    /* under mpirun a failed run ends in the runtime (MPI_Abort) before cmd_topo's own clean-up: the empty
     * DIR.partial goes now (rank 0 holds it) */
    if (r != NVS_OK && rt->rank == 0) nvs_cli_out_abandon(job->dir);
    return r;
}

int cmd_topo(int argc, char **argv)
{
    nvs_config cfg;
    nvs_config_defaults(&cfg);
    int help = 0;
    nvs_result_t r = nvs_config_parse(&cfg, "topo", argc, argv, &help);
    if (r != NVS_OK || help) return help ? 0 : nvs_exit_code(r);
    cfg.argc = argc;
    cfg.argv = argv;
    nvs_cli_set_verbosity(cfg.quiet, cfg.verbose);
    /* --hwloc-xml with --emulate-nodes or --timeout: refused by nvs_config_parse (options_checks.c excludes[]) */
    /* the offline file needs no ranks: under mpirun rank 0 alone reads and prints it (every rank did: one
     * document per rank on stdout, not JSON, and each error once per rank) */
    if (cfg.hwloc_xml[0] && nvs_rt_launcher_rank() != 0) return 0;
    nvs_cli_out dir; /* --out checked and the directory made before anything is discovered */
    if ((r = nvs_cli_out_begin(&cfg, &dir)) != NVS_OK) return nvs_exit_code(r);
    if (cfg.hwloc_xml[0]) {
        nvs_topology *t = NULL;
        nvs_cli_reading rd = nvs_cli_read_begin("topo"); /* the file named by --hwloc-xml: topo's refusal */
        r = nvs_topo_discover(cfg.hwloc_xml, &t);
        nvs_cli_read_end(rd);
        if (r == NVS_OK) r = emit(&cfg, &dir, t, NULL);
        nvs_topo_free(t);
    } else {
        struct topo_job job = {&cfg, nvs_rt_launched_by_mpi() ? "mpi" : "threads", &dir};
        r = nvs_rt_run(NVS_LAUNCH_AUTO, 1, cfg.timeout_s, cfg.emulate_nodes, topo_rank, &job);
    }
    nvs_cli_out_abandon(&dir); /* nothing when saved */
    return nvs_exit_code(r);
}
