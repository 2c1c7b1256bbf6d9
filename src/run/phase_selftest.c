/* The GPU self-test inside a run (NVS_PHASE_SELFTEST, `nvscale accept --level 2` and 3): every rank measures its
 * own GPU alone (selftest/selftest.h), all at once, as a job loads them all; rank 0 gathers the results into
 * run.json's "gpu_selftest" section with who measured what (host, topology GPU, rank, bus id, name). On the
 * host backend there is no GPU: the section says so ("skipped"), and check's `gpu` rules read "not measured".
 * With NVS_PHASE_BURN (level 3) every GPU then runs the GEMM back to back for cfg->sustain_s seconds, all at
 * once, as a job heats a node: each GPU's "burn" gets its throughput per chunk. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "run/phases_extra.h"
#include "selftest/selftest.h"
#include "topo/topo_live.h"

/* rank 0: the section from every rank's blob (JSON of nvs_selftest_result_json, or "" without a GPU) */
static nvs_result_t section(nvs_ctx *run, const nvs_selftest_cfg *sc, int gpu, char **all, const size_t *lens)
{
    json_t *s = nvs_selftest_head_json(sc), *gpus = json_array();
    if (!s || !gpus || json_object_set_new(s, "gpus", gpus)) {
        json_decref(s);
        if (!s) json_decref(gpus);
        return NVS_ERR_NOMEM;
    }
    if ((run->cfg->phases & NVS_PHASE_BURN) && json_object_set_new(s, "burn_s", json_real(run->cfg->sustain_s)))
        goto nomem;
    if (json_object_set_new(s, "skipped", json_string(gpu ? "" : "no GPU: the host (MPI) backend runs"))) goto nomem;
    for (int r = 0; gpu && r < run->rt->size; r++) {
        json_error_t je;
        json_t *g = lens[r] ? json_loads(all[r], 0, &je) : NULL;
        if (!g) {
            nvs_error("self-test result of rank %d unreadable: %s", r, lens[r] ? je.text : "empty");
            json_decref(s);
            return NVS_ERR_SYSTEM;
        }
        const nvs_rank_info *ri = &run->ranks[r];
        /* who first, then what was measured */
        json_t *o = json_pack("{s:s, s:i, s:i, s:s, s:s}", "host", ri->host, "gpu", ri->topo_gpu, "rank", ri->rank,
                              "pci_bus_id", ri->pci_bus_id, "name", ri->gpu);
        if (!o || json_object_update(o, g) || json_array_append_new(gpus, o)) {
            json_decref(o);
            json_decref(g);
            goto nomem;
        }
        json_t *w;
        for (const char *const *k = (const char *const[]){"membw_wrong", "gemm_wrong", NULL}; *k; k++)
            if (json_is_integer(w = json_object_get(g, *k))) run->phase_wrong += json_integer_value(w);
        if (json_is_integer(w = json_object_get(json_object_get(g, "burn"), "wrong")))
            run->phase_wrong += json_integer_value(w);
        json_decref(g);
    }
    run->selftest = s;
    return NVS_OK;
nomem:
    json_decref(s);
    return NVS_ERR_NOMEM;
}

nvs_result_t nvs_phase_selftest(nvs_ctx *run)
{
    nvs_rt *rt = run->rt;
    int gpu = !strcmp(run->backend.ops->name, "nccl");
    nvs_selftest_cfg sc = nvs_selftest_defaults();
    nvs_selftest_result mine;
    nvs_result_t r = NVS_OK;
    nvs_selftest_burn burn;
    int want_burn = (run->cfg->phases & NVS_PHASE_BURN) != 0;
    if (gpu) {
        nvs_progress("selftest", "GPU self-test: memory bandwidth and bf16 GEMM on every GPU at once");
        r = nvs_selftest_measure(&sc, &mine);
        nvs_progress_done();
        if (r == NVS_OK && want_burn) r = nvs_selftest_burn_run(&sc, run->cfg->sustain_s, &burn);
    }
    r = nvs_rt_agree_result(rt, r);
    if (r != NVS_OK) return r;
    char *text = NULL;
    if (gpu) {
        json_t *j = nvs_selftest_result_json(&mine);
        if (j && want_burn && json_object_set_new(j, "burn", nvs_selftest_burn_json(&burn))) {
            json_decref(j);
            j = NULL;
        }
        text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (!text) r = NVS_ERR_NOMEM;
    }
    r = nvs_rt_agree_result(rt, r);
    if (r != NVS_OK) {
        free(text);
        return r;
    }
    char **all;
    size_t *lens;
    r = nvs_allgather_blobs(rt, text, text ? strlen(text) : 0, &all, &lens, "gathering the GPU self-test");
    free(text);
    if (r != NVS_OK) return r;
    if (rt->rank == 0) r = section(run, &sc, gpu, all, lens);
    nvs_blobs_free(all, rt->size);
    free(lens);
    return r;
}
