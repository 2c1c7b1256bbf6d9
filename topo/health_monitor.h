/* GPU health through NVML over a run (health_nvml.c): a reading of every counter of health/health.h before the
 * run, XID events registered for the run, a sampler thread (clocks, throttle reasons, temperature, power, PCIe
 * link) while it runs, and a second reading after it. NVML is the dlopen'ed library of topo_nvml.c: no
 * library, or a call this driver lacks, is "unsupported" (null in run.json), never a crash or a zero.
 * One monitor per host (the local rank 0 of an MPI run, or the one process); nvs_health_gather() brings every
 * host's report to every rank. */
#ifndef NVS_HEALTH_MONITOR_H
#define NVS_HEALTH_MONITOR_H

#include "core/err.h"
#include "health/health.h"
#include "runtime/runtime.h"

typedef struct nvs_health_monitor nvs_health_monitor;

/* Starts watching the GPUs with these PCI bus ids (busids NULL or nbus 0: every GPU NVML lists). `host` names
 * the host in the report. sample_ms > 0 starts the sampler with that period. Without a usable NVML the monitor
 * only keeps the reason: its report's source is "unsupported: <why>", and it lists the given GPUs, each unread
 * with that reason in `why` (none when busids is NULL: nobody knows them). Errors: out of memory. */
nvs_result_t nvs_health_monitor_start(const char *host, const char (*busids)[32], int nbus, int sample_ms,
                                      nvs_health_monitor **out);
/* Stops the sampler, takes the second reading, collects the XID events, fills `out` (this host's GPUs) and frees
 * the monitor. */
nvs_result_t nvs_health_monitor_finish(nvs_health_monitor *m, nvs_health_report *out);

/* Every rank passes its host's report (or NULL: nothing to add); every rank gets all of them, in rank order. */
nvs_result_t nvs_health_gather(nvs_rt *rt, const nvs_health_report *local, nvs_health_report *global);

#endif
