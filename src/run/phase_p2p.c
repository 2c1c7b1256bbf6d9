/* Copies measured inside a run (NVS_PHASE_P2P, NVS_PHASE_H2D): on each host its local rank 0 measures the
 * copies between every pair of the GPUs it sees (topo/p2p.h) and between pinned host memory and each GPU
 * (topo/h2d.h), while the host's other ranks wait; rank 0 gathers every host's results into run.json's "p2p"
 * section (topo/copies.h). What cannot be measured is named with the reason ("skipped"), never left out. */
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "run/phases_extra.h"
#include "topo/copies.h"
#include "topo/topo.h"

/* GPUs of this host CUDA lets this process use */
static int visible(const nvs_topology *t)
{
    int n = 0;
    for (int i = 0; t && i < t->ngpus; i++) n += t->gpus[i].cuda_device >= 0;
    return n;
}

nvs_result_t nvs_phase_copies(nvs_ctx *run)
{
    const nvs_config *cfg = run->cfg;
    nvs_rt *rt = run->rt;
    int want_p2p = (cfg->phases & NVS_PHASE_P2P) != 0, want_host = (cfg->phases & NVS_PHASE_H2D) != 0;
    int measurer = rt->local_rank == 0;
    nvs_topology *local = NULL; /* this host's, on its local rank 0 */
    nvs_p2p_result pairs = {0};
    nvs_h2d_result host = {0};
    int have_pairs = 0, have_host = 0;
    char why[256] = "", what[64] = "";
    int gpu = !strcmp(run->backend.ops->name, "nccl") && run->topo != NULL;
    nvs_result_t r = NVS_OK;
    /* collective: each (virtual, --emulate-nodes) host's local rank 0 gets the GPUs that host's ranks drive */
    if (gpu) r = nvs_topo_discover_host(rt, run->backend.pci_bus_id, &local);
    r = nvs_rt_agree_result(rt, r);
    if (r != NVS_OK) return r;
    if (measurer) {
        int n = visible(local);
        if (!gpu || !local) {
            snprintf(what, sizeof what, "%s",
                     want_p2p && want_host ? "p2p and host copies"
                     : want_p2p            ? "p2p"
                                           : "host copies");
            snprintf(why, sizeof why, "%s", gpu ? "the topology of this host could not be discovered"
                                                : "no GPU: the host (MPI) backend runs");
        } else if (want_p2p && local->ngpus < 2) {
            snprintf(what, sizeof what, "p2p");
            snprintf(why, sizeof why, "the run drives %d GPU on this %shost: no pair to copy between", local->ngpus,
                     rt->emulated_nodes > 1 ? "virtual " : "");
        } else if (want_p2p && n < 2) {
            snprintf(what, sizeof what, "p2p");
            snprintf(why, sizeof why, "one process sees %d of this host's %d GPUs (CUDA_VISIBLE_DEVICES set per "
                     "rank, or one GPU per virtual host?): copies between GPUs need two in one process", n,
                     local->ngpus);
        }
    }
    /* virtual hosts share one machine's links: they measure one after the other, never at once */
    int turns = rt->emulated_nodes > 1 ? rt->nnodes : 1;
    for (int turn = 0; turn < turns && r == NVS_OK; turn++) {
        if (measurer && gpu && local && (turns == 1 || turn == rt->node)) {
            if (want_p2p && visible(local) >= 2) {
                r = nvs_p2p_measure(local, cfg->copy_bytes, cfg->copy_iters, cfg->warmup, &pairs);
                have_pairs = r == NVS_OK;
            }
            if (r == NVS_OK && want_host) {
                r = nvs_h2d_measure(local, cfg->copy_bytes, cfg->copy_iters, cfg->warmup, &host);
                have_host = r == NVS_OK;
            }
        }
        if (turns > 1) r = nvs_rt_agree_result(rt, r);
    }
    /* wrong copies are counted, not an error: only a runtime failure stops here */
    r = nvs_rt_agree_result(rt, r);
    nvs_copies all = {0};
    if (r == NVS_OK)
        r = nvs_copies_gather(rt, local, run->topo, have_pairs ? &pairs : NULL, have_host ? &host : NULL,
                              what[0] ? what : NULL, why[0] ? why : NULL, &all);
    if (r == NVS_OK && rt->rank == 0) {
        long long wrong = nvs_copies_wrong_total(&all);
        if (wrong) nvs_error("%lld wrong elements in the copies: the data path is broken", wrong);
        run->phase_wrong += wrong;
        run->p2p = nvs_copies_to_json(run->topo, &all);
        if (!run->p2p) r = NVS_ERR_NOMEM;
    }
    nvs_copies_free(&all);
    nvs_p2p_result_free(&pairs);
    nvs_h2d_result_free(&host);
    nvs_topo_free(local);
    return r;
}
