/* GPU health over the run (NVS_PHASE_HEALTH): each host's local rank 0 watches its GPUs through NVML
 * (topo/health_monitor.h) from before the first measurement to after the last; the reports of every host are
 * gathered and put in run.json's "health" section, each GPU tied to its index in the topology. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "run/phases_extra.h"
#include "topo/health_monitor.h"
#include "topo/topo.h"

/* The GPUs of this host in the run's topology (NULL/0: the topology does not know them; NVML's list then). */
static int host_busids(const nvs_ctx *run, char (**out)[32])
{
    *out = NULL;
    const nvs_topology *t = run->topo;
    if (!t) return 0;
    char (*ids)[32] = calloc((size_t)t->ngpus + 1, sizeof *ids);
    int n = 0;
    for (int i = 0; ids && i < t->ngpus; i++) {
        const char *h = nvs_topo_gpu_host(t, i);
        if (h && !strcmp(h, run->rt->host)) snprintf(ids[n++], sizeof ids[0], "%s", t->gpus[i].pci_bus_id);
    }
    if (!n) {
        free(ids);
        return 0;
    }
    *out = ids;
    return n;
}

nvs_result_t nvs_phase_health_start(nvs_ctx *run)
{
    if (run->rt->local_rank != 0) return NVS_OK;
    char (*ids)[32];
    int n = host_busids(run, &ids);
    nvs_result_t r = nvs_health_monitor_start(run->rt->host, (const char(*)[32])ids, n, run->cfg->health_sample_ms,
                                              &run->health_mon);
    free(ids);
    return r;
}

nvs_result_t nvs_phase_health_finish(nvs_ctx *run)
{
    nvs_health_report local = {0}, all = {0};
    nvs_result_t r = NVS_OK;
    int have = 0;
    if (run->health_mon) {
        r = nvs_health_monitor_finish(run->health_mon, &local);
        run->health_mon = NULL;
        have = r == NVS_OK;
    }
    r = nvs_rt_agree_result(run->rt, r);
    if (r != NVS_OK) {
        nvs_health_report_free(&local);
        return r;
    }
    r = nvs_health_gather(run->rt, have ? &local : NULL, &all);
    nvs_health_report_free(&local);
    if (r != NVS_OK) return r;
    if (run->rt->rank == 0) {
        for (int i = 0; i < all.ngpus && run->topo; i++)
            all.gpus[i].gpu = nvs_topo_find_gpu(run->topo, all.gpus[i].host, all.gpus[i].pci_bus_id);
        run->health = nvs_health_to_json(&all);
        if (!run->health) r = NVS_ERR_NOMEM;
    }
    nvs_health_report_free(&all);
    return r;
}

void nvs_phase_extra_cleanup(nvs_ctx *run)
{
    if (run->health_mon) {
        nvs_health_report r;
        if (nvs_health_monitor_finish(run->health_mon, &r) == NVS_OK) nvs_health_report_free(&r);
        run->health_mon = NULL;
    }
    json_decref(run->health);
    json_decref(run->p2p);
    json_decref(run->sustain);
    json_decref(run->selftest);
    run->health = run->p2p = run->sustain = run->selftest = NULL;
}
