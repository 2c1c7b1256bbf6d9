/* The host path check of a measured SHM all-reduce (model_host.h). PURE. */
#include "model/model_host.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

nvs_result_t nvs_host_check_eval(const nvs_machine_spec *m, const nvs_gpu_spec *g, int n, double meas_gbps,
                                 double host_mem_gbps, nvs_host_check *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->meas_gbps = meas_gbps;
    out->flow_gbps = n * meas_gbps;
    out->dram_gbps = 2 * out->flow_gbps;
    out->host_mem_gbps = host_mem_gbps;
    out->dram_share = host_mem_gbps > 0 ? out->dram_gbps / host_mem_gbps : NAN;
    nvs_ring_links rl;
    NVS_CHECK(nvs_ring_links_of(m, g, n, 1, &rl));
    out->preset_gbps = rl.gbps;
    snprintf(out->preset_why, sizeof out->preset_why, "%s", rl.why);
    /* the load on the busiest host path: with a budget too small to miss, the ring gets budget / load */
    nvs_machine_spec t = *m;
    t.host_gbps = 1e-6;
    NVS_CHECK(nvs_ring_links_of(&t, g, n, 1, &rl));
    out->implied_host_gbps = rl.gbps > 0 ? meas_gbps * (1e-6 / rl.gbps) : NAN;
    out->mem_model_gbps = NAN;
    if (host_mem_gbps > 0) {
        /* independent of the SHM measurement: no shm_gbps cap (on a measured machine it is that measurement),
         * only the links and a budget of half the host memory bandwidth */
        t = *m;
        t.shm_gbps = 0;
        t.host_gbps = host_mem_gbps / 2;
        NVS_CHECK(nvs_ring_links_of(&t, g, n, 1, &rl));
        out->mem_model_gbps = rl.gbps;
        snprintf(out->mem_model_why, sizeof out->mem_model_why, "%s", rl.why);
    }
    return NVS_OK;
}
