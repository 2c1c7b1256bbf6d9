/* The health monitor where NVML does not load (topo/health_nvml.c): the GPUs the run's topology gave it are still
 * in its report, each unread with the reason, so that a host without NVML in a run of several hosts shows WARN
 * rows ("not readable") and not nothing (the gathered report keeps only the first host's source); with no GPU
 * given, the report has none. Skipped where libnvidia-ml.so.1 loads (a GPU machine). */
#include <dlfcn.h>
#include <string.h>

#include "health/health.h"
#include "topo/health_monitor.h"
#include "t.h"

static void t_no_nvml_lists_given_gpus(void)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
        dlclose(lib);
        T_SKIP("libnvidia-ml.so.1 loads here: the no-NVML path cannot be taken");
    }
    const char ids[2][32] = {"0000:18:00.0", "0000:2a:00.0"};
    nvs_health_monitor *m = NULL;
    T_EQ_I(nvs_health_monitor_start("node7", ids, 2, 0, &m), NVS_OK);
    nvs_health_report r;
    T_EQ_I(nvs_health_monitor_finish(m, &r), NVS_OK);
    T_CONTAINS(r.source, "unsupported: ");
    T_EQ_I(r.ngpus, 2);
    for (int i = 0; i < r.ngpus && i < 2; i++) {
        T_EQ_S(r.gpus[i].host, "node7");
        T_EQ_S(r.gpus[i].pci_bus_id, ids[i]);
        T_CONTAINS(r.gpus[i].why, "NVML not available on this host: libnvidia-ml.so.1 not loaded");
    }
    /* and the findings say so, per GPU and check: SKIP "not readable" (not checked), never PASS */
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    T_ASSERT(f.n == 2 * (size_t)NVS_HC_COUNT);
    for (size_t i = 0; i < f.n; i++) {
        T_EQ_I(f.v[i].severity, NVS_SEV_SKIP);
        T_EQ_S(f.v[i].measured, "not readable");
    }
    nvs_health_findings_free(&f);
    nvs_health_report_free(&r);

    /* no GPU given (the host backend: the topology knows none): none invented */
    T_EQ_I(nvs_health_monitor_start("node7", NULL, 0, 0, &m), NVS_OK);
    T_EQ_I(nvs_health_monitor_finish(m, &r), NVS_OK);
    T_EQ_I(r.ngpus, 0);
    nvs_health_report_free(&r);
}

T_LIST = {T_CASE(t_no_nvml_lists_given_gpus)};
T_MAIN
