/* `nvscale p2p`: copy bandwidth/latency matrix of every host's GPUs (p2p.h), with bounds from the topology.
 * Under mpirun the local rank 0 of each host measures all the GPUs it sees while the host's other ranks wait;
 * rank 0 prints every host's pairs. Without a launcher the one process measures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cli/commands.h"
#include "core/config.h"
#include "core/log.h"
#include "topo/p2p.h"
#include "topo/topo_live.h"
#include "cli/cli_common.h"
#include "runjson/runjson_write.h"

struct p2p_job {
    const nvs_config *cfg;
    const char *launcher;
};

/* One line before anything else when this host has no usable GPU pair. */
static nvs_result_t check_gpus(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        nvs_error("p2p cannot run without GPUs: %s (cudaGetDeviceCount)", cudaGetErrorString(e));
        return NVS_ERR_UNSUPPORTED;
    }
    if (n < 2) {
        nvs_error("p2p measures copies between GPUs and needs at least two; %d visible here", n);
        return NVS_ERR_UNSUPPORTED;
    }
    return NVS_OK;
}

/* this host's pairs, re-keyed by bus ids so that rank 0 can place them in the merged topology */
static char *local_pairs_json(const nvs_topology *local, const nvs_p2p_result *r)
{
    json_t *j = nvs_p2p_to_json(local, r);
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return s;
}

static nvs_result_t merge_pairs(const nvs_topology *global, char **all, const size_t *lens, int n,
                                nvs_p2p_result *out)
{
    memset(out, 0, sizeof *out);
    int cap = 0;
    for (int r = 0; r < n; r++) {
        if (!lens[r]) continue;
        json_error_t je;
        json_t *j = json_loads(all[r], 0, &je);
        nvs_p2p_result part;
        char err[256];
        if (!j || nvs_p2p_from_json(j, &part, err, sizeof err) != NVS_OK) {
            nvs_error("p2p results of rank %d unreadable: %s", r, j ? err : je.text);
            json_decref(j);
            return NVS_ERR_SYSTEM;
        }
        const json_t *pairs = json_object_get(j, "pairs");
        out->copy_bytes = part.copy_bytes;
        out->iters = part.iters;
        out->warmup = part.warmup;
        out->latency_iters = part.latency_iters;
        nvs_p2p_pair *grown = realloc(out->pairs, (size_t)(cap + part.npairs + 1) * sizeof *grown);
        if (!grown) {
            nvs_p2p_result_free(&part);
            json_decref(j);
            return NVS_ERR_NOMEM;
        }
        out->pairs = grown;
        cap += part.npairs;
        for (int k = 0; k < part.npairs; k++) {
            const json_t *pj = json_array_get(pairs, (size_t)k);
            const char *host = json_string_value(json_object_get(pj, "host"));
            nvs_p2p_pair p = part.pairs[k];
            p.src = nvs_topo_find_gpu(global, host, json_string_value(json_object_get(pj, "src_pci_bus_id")));
            p.dst = nvs_topo_find_gpu(global, host, json_string_value(json_object_get(pj, "dst_pci_bus_id")));
            if (p.src < 0 || p.dst < 0) {
                nvs_error("p2p pair of rank %d (host %s) not in the gathered topology", r, host ? host : "?");
                nvs_p2p_result_free(&part);
                json_decref(j);
                return NVS_ERR_SYSTEM;
            }
            out->pairs[out->npairs++] = p;
        }
        nvs_p2p_result_free(&part);
        json_decref(j);
    }
    return NVS_OK;
}

static nvs_result_t emit(const nvs_config *cfg, const char *launcher, const nvs_topology *t, const nvs_p2p_result *r)
{
    json_t *doc = nvs_cli_run_doc(cfg, launcher, NULL), *tj = nvs_topo_to_json(t), *pj = nvs_p2p_to_json(t, r);
    if (!doc || !tj || !pj) {
        json_decref(doc);
        json_decref(tj);
        json_decref(pj);
        return NVS_ERR_NOMEM;
    }
    json_object_set_new(doc, "topology", tj);
    json_object_set_new(doc, "p2p", pj);
    long long wrong = nvs_p2p_wrong_total(r);
    json_t *res = json_object();
    json_object_set_new(res, "status", json_string(wrong ? "wrong" : "ok"));
    json_object_set_new(res, "exit_code", json_integer(wrong ? 3 : 0));
    json_object_set_new(res, "wrong_total", json_integer(wrong));
    json_object_set_new(doc, "result", res);
    nvs_result_t rc = NVS_OK;
    if (cfg->format == NVS_FMT_JSON)
        rc = nvs_rj_print(doc, stdout);
    else {
        if (cfg->format == NVS_FMT_CSV)
            nvs_p2p_print_csv(t, r, stdout);
        else {
            if (!cfg->quiet) {
                nvs_topo_print_matrix(t, stdout);
                fprintf(stdout, "\n");
            }
            nvs_p2p_print(t, r, stdout);
        }
        if (fflush(stdout) != 0 || ferror(stdout)) {
            nvs_error("cannot write to the standard output");
            rc = NVS_ERR_SYSTEM;
        }
    }
    if (rc == NVS_OK) rc = nvs_cli_save_run(cfg, doc);
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
    nvs_p2p_result mine = {0}, all_pairs = {0};
    char *text = NULL, **all = NULL;
    size_t *lens = NULL;
    int measurer = rt->local_rank == 0;
    nvs_result_t r = measurer ? check_gpus() : NVS_OK;
    r = nvs_rt_agree_result(rt, r);
    /* every rank takes part: a virtual host (--emulate-nodes) keeps the GPUs its ranks drive */
    if (r == NVS_OK) r = nvs_topo_discover_host(rt, NULL, &local);
    if (r == NVS_OK && local && local->ngpus < 2) {
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
            r = nvs_p2p_measure(local, cfg->copy_bytes, cfg->copy_iters, cfg->warmup, &mine);
        if (turns > 1) r = nvs_rt_agree_result(rt, r);
    }
    /* a bad copy still reports its numbers: only a runtime error stops here */
    r = nvs_rt_agree_result(rt, r);
    if (r != NVS_OK) goto out;
    if (measurer && !(text = local_pairs_json(local, &mine))) r = NVS_ERR_NOMEM;
    r = nvs_rt_agree_result(rt, r);
    if (r != NVS_OK) goto out;
    r = nvs_allgather_blobs(rt, text, text ? strlen(text) : 0, &all, &lens, "gathering p2p results");
    if (r == NVS_OK && rt->rank == 0) {
        r = merge_pairs(global, all, lens, rt->size, &all_pairs);
        if (r == NVS_OK) r = emit(cfg, job->launcher, global, &all_pairs);
    }
    r = nvs_rt_agree_result(rt, r);
out:
    free(text);
    nvs_blobs_free(all, rt->size);
    free(lens);
    nvs_p2p_result_free(&mine);
    nvs_p2p_result_free(&all_pairs);
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
    struct p2p_job job = {&cfg, nvs_rt_launched_by_mpi() ? "mpi" : "threads"};
    r = nvs_rt_run(NVS_LAUNCH_AUTO, 1, cfg.timeout_s, cfg.emulate_nodes, p2p_rank, &job);
    return nvs_exit_code(r);
}
