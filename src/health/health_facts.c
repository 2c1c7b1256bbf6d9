/* The health facts' starting values (unknown: -1, NAN) and a report's GPUs appended and freed (health.h; PURE). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "health/health.h"

void nvs_health_snap_unknown(nvs_health_snap *s)
{
    memset(s, 0, sizeof *s);
    s->ecc_enabled = -1;
    s->ecc_corr_volatile = s->ecc_unc_volatile = s->ecc_corr_aggregate = s->ecc_unc_aggregate = -1;
    s->retired_sbe = s->retired_dbe = -1;
    s->retired_pending = -1;
    s->remap_corr = s->remap_unc = -1;
    s->remap_pending = s->remap_failure = -1;
    s->clock_reasons = -1;
    s->sm_mhz = s->sm_max_mhz = s->mem_mhz = s->mem_max_mhz = -1;
    s->temp_c = s->temp_slowdown_c = s->temp_shutdown_c = -1;
    s->power_w = s->power_limit_w = s->power_default_limit_w = NAN;
    s->pcie_gen = s->pcie_width = s->pcie_max_gen = s->pcie_max_width = s->pcie_gpu_max_gen = s->pcie_gpu_max_width =
        -1;
    s->pcie_replay = -1;
    s->nlinks = -1;
}

void nvs_health_load_init(nvs_health_load *l)
{
    memset(l, 0, sizeof *l);
    l->sm_min_mhz = l->mem_min_mhz = -1;
    l->sm_mean_mhz = NAN;
    l->reasons_busy = -1;
    l->temp_max_c = -1;
    l->power_max_w = NAN;
    l->pcie_gen_max = l->pcie_width_max = -1;
    l->pcie_width_min = l->pcie_width_min_busy = -1;
}

void nvs_health_gpu_init(nvs_health_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->gpu = -1;
    nvs_health_snap_unknown(&g->before);
    nvs_health_snap_unknown(&g->after);
    nvs_health_load_init(&g->load);
}

void nvs_health_report_free(nvs_health_report *r)
{
    free(r->gpus);
    r->gpus = NULL;
    r->ngpus = 0;
}

nvs_result_t nvs_health_report_append(nvs_health_report *dst, const nvs_health_report *src)
{
    if (!src->ngpus) return NVS_OK;
    nvs_health_gpu *g = realloc(dst->gpus, (size_t)(dst->ngpus + src->ngpus) * sizeof *g);
    if (!g) return NVS_ERR_NOMEM;
    memcpy(g + dst->ngpus, src->gpus, (size_t)src->ngpus * sizeof *g);
    dst->gpus = g;
    dst->ngpus += src->ngpus;
    return NVS_OK;
}
