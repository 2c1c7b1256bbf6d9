/* Health counters through NVML (what and why: topo/health_monitor.h, health/health.h). Every call is looked up
 * with dlsym in the library topo_nvml.c loaded; a missing symbol or a NOT_SUPPORTED answer leaves the counter
 * unknown (-1 / NAN). Signatures follow NVIDIA's NVML API reference (docs.nvidia.com/deploy/nvml-api). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "topo/health_monitor.h"
#include "topo/nvml_min.h"
#include "topo/topo_live.h"

typedef nvs_nvmlDevice_t dev_t_;
typedef nvs_nvmlReturn_t ret_t;

/* The calls this file makes; NULL = the library lacks it. */
typedef struct {
    ret_t (*count)(unsigned *);
    ret_t (*by_index)(unsigned, dev_t_ *);
    ret_t (*pci)(dev_t_, nvs_nvmlPciInfo_t *);
    ret_t (*name)(dev_t_, char *, unsigned);
    ret_t (*ecc_mode)(dev_t_, int *, int *);
    ret_t (*ecc_total)(dev_t_, int, int, unsigned long long *);
    ret_t (*retired)(dev_t_, int, unsigned *, unsigned long long *);
    ret_t (*retired_pending)(dev_t_, int *);
    ret_t (*remapped)(dev_t_, unsigned *, unsigned *, unsigned *, unsigned *);
    ret_t (*reasons)(dev_t_, unsigned long long *);
    ret_t (*clock)(dev_t_, int, unsigned *);
    ret_t (*max_clock)(dev_t_, int, unsigned *);
    ret_t (*temp)(dev_t_, int, unsigned *);
    ret_t (*temp_threshold)(dev_t_, int, unsigned *);
    ret_t (*power)(dev_t_, unsigned *);
    ret_t (*power_limit)(dev_t_, unsigned *);
    ret_t (*power_default)(dev_t_, unsigned *);
    ret_t (*gen)(dev_t_, unsigned *);
    ret_t (*width)(dev_t_, unsigned *);
    ret_t (*max_gen)(dev_t_, unsigned *);
    ret_t (*max_width)(dev_t_, unsigned *);
    ret_t (*gpu_max_gen)(dev_t_, unsigned *);
    ret_t (*replay)(dev_t_, unsigned *);
    ret_t (*link_state)(dev_t_, unsigned, int *);
    ret_t (*link_error)(dev_t_, unsigned, int, unsigned long long *);
    ret_t (*util)(dev_t_, nvs_nvmlUtilization_t *);
    ret_t (*event_types)(dev_t_, unsigned long long *);
    ret_t (*set_create)(nvs_nvmlEventSet_t *);
    ret_t (*set_register)(dev_t_, unsigned long long, nvs_nvmlEventSet_t);
    ret_t (*set_wait)(nvs_nvmlEventSet_t, nvs_nvmlEventData_t *, unsigned);
    ret_t (*set_free)(nvs_nvmlEventSet_t);
    const char *reasons_call; /* the name `reasons` was found under (renamed in R535) */
} fns;

typedef struct {
    dev_t_ dev;
    nvs_health_gpu g;
    double sm_sum; /* SM clock summed over the busy samples that had one, for the mean */
    int sm_n;
} mon_gpu;

struct nvs_health_monitor {
    nvs_nvml *nvml;
    fns f;
    char source[160];
    char why_none[112]; /* why NVML lists no GPU, when a call said so */
    int n;
    mon_gpu *gpus;
    nvs_nvmlEventSet_t set;
    int have_set;
    int events_failed; /* nvmlEventSetWait_v2 failed: no more waits (drain_events said so) */
    int sample_ms;
    double t0;
    pthread_t thread;
    int thread_on;
    pthread_mutex_t mu;
    int stop; /* under mu */
};

static void sym(nvs_nvml *n, const char *name, void *fnptr)
{
    void *p = nvs_nvml_symbol(n, name);
    memcpy(fnptr, &p, sizeof p);
}

static void load_fns(nvs_nvml *n, fns *f)
{
    sym(n, "nvmlDeviceGetCount_v2", &f->count);
    sym(n, "nvmlDeviceGetHandleByIndex_v2", &f->by_index);
    sym(n, "nvmlDeviceGetPciInfo_v3", &f->pci);
    sym(n, "nvmlDeviceGetName", &f->name);
    sym(n, "nvmlDeviceGetEccMode", &f->ecc_mode);
    sym(n, "nvmlDeviceGetTotalEccErrors", &f->ecc_total);
    sym(n, "nvmlDeviceGetRetiredPages", &f->retired);
    sym(n, "nvmlDeviceGetRetiredPagesPendingStatus", &f->retired_pending);
    sym(n, "nvmlDeviceGetRemappedRows", &f->remapped);
    /* renamed in R535 ("clocks event reasons"); older drivers only have the throttle name, same meaning */
    sym(n, "nvmlDeviceGetCurrentClocksEventReasons", &f->reasons);
    f->reasons_call = "nvmlDeviceGetCurrentClocksEventReasons";
    if (!f->reasons) {
        sym(n, "nvmlDeviceGetCurrentClocksThrottleReasons", &f->reasons);
        f->reasons_call = "nvmlDeviceGetCurrentClocksThrottleReasons";
    }
    sym(n, "nvmlDeviceGetClockInfo", &f->clock);
    sym(n, "nvmlDeviceGetMaxClockInfo", &f->max_clock);
    sym(n, "nvmlDeviceGetTemperature", &f->temp);
    sym(n, "nvmlDeviceGetTemperatureThreshold", &f->temp_threshold);
    sym(n, "nvmlDeviceGetPowerUsage", &f->power);
    sym(n, "nvmlDeviceGetEnforcedPowerLimit", &f->power_limit);
    sym(n, "nvmlDeviceGetPowerManagementDefaultLimit", &f->power_default);
    sym(n, "nvmlDeviceGetCurrPcieLinkGeneration", &f->gen);
    sym(n, "nvmlDeviceGetCurrPcieLinkWidth", &f->width);
    sym(n, "nvmlDeviceGetMaxPcieLinkGeneration", &f->max_gen);
    sym(n, "nvmlDeviceGetMaxPcieLinkWidth", &f->max_width);
    /* the GPU's own top generation, not lowered by the slot as the call above is (NVML API reference, Device
     * Queries: "the maximum PCIe link generation supported by this device"); older drivers' libraries lack it:
     * then the generation the GPU itself could run stays unknown and only the link's maximum is judged */
    sym(n, "nvmlDeviceGetGpuMaxPcieLinkGeneration", &f->gpu_max_gen);
    sym(n, "nvmlDeviceGetPcieReplayCounter", &f->replay);
    sym(n, "nvmlDeviceGetNvLinkState", &f->link_state);
    sym(n, "nvmlDeviceGetNvLinkErrorCounter", &f->link_error);
    sym(n, "nvmlDeviceGetUtilizationRates", &f->util);
    sym(n, "nvmlDeviceGetSupportedEventTypes", &f->event_types);
    sym(n, "nvmlEventSetCreate", &f->set_create);
    sym(n, "nvmlDeviceRegisterEvents", &f->set_register);
    sym(n, "nvmlEventSetWait_v2", &f->set_wait);
    sym(n, "nvmlEventSetFree", &f->set_free);
}

#define OK NVS_NVML_SUCCESS
_Static_assert(NVS_NVML_ERROR_GPU_IS_LOST == NVS_HEALTH_LOST_CODE &&
                   NVS_NVML_ERROR_RESET_REQUIRED == NVS_HEALTH_RESET_CODE,
               "health.h's lost codes are NVML's");

/* Where one reading of one GPU puts what its calls answered besides values: a GPU that is gone or needs a reset
 * (g->lost, the first such answer) and other failures (g->read_errors, each call once), so that a counter left
 * unknown says why. Answers that only mean "not here" are no failure: NOT_SUPPORTED, INVALID_ARGUMENT (a link
 * index past the last, a sensor this board lacks), INSUFFICIENT_SIZE (the retired-page count query). */
typedef struct {
    nvs_nvml *nvml;
    nvs_health_gpu *g;
    const char *when; /* "before the run", "during the run", "after the run" */
} reader;

/* A failed call into g->read_errors ("call: NVML's text"), each call once. */
static void read_error(nvs_health_gpu *g, const char *call, const char *text)
{
    char item[112];
    snprintf(item, sizeof item, "%s: %s", call, text);
    if (strstr(g->read_errors, item)) return;
    size_t l = strlen(g->read_errors);
    if (l + strlen(item) + 2 < sizeof g->read_errors)
        snprintf(g->read_errors + l, sizeof g->read_errors - l, "%s%s", l ? "; " : "", item);
}

static ret_t seen(const reader *c, const char *call, ret_t r)
{
    if (r == OK || r == NVS_NVML_ERROR_NOT_SUPPORTED || r == NVS_NVML_ERROR_INVALID_ARGUMENT ||
        r == NVS_NVML_ERROR_INSUFFICIENT_SIZE)
        return r;
    nvs_health_gpu *g = c->g;
    const char *text = nvs_nvml_error_text(c->nvml, r);
    if (r == NVS_NVML_ERROR_GPU_IS_LOST || r == NVS_NVML_ERROR_RESET_REQUIRED) {
        if (!g->lost.code) {
            g->lost.code = r;
            snprintf(g->lost.call, sizeof g->lost.call, "%s", call);
            snprintf(g->lost.when, sizeof g->lost.when, "%s", c->when);
            snprintf(g->lost.text, sizeof g->lost.text, "%s", text);
            nvs_warn("health: GPU %s: %s %s: %s", g->pci_bus_id, call, c->when, text);
        }
        return r;
    }
    read_error(g, call, text);
    return r;
}

/* A call through its pointer in fns (NOT_SUPPORTED when the library lacks it), its answer seen under NVML's name */
#define CALL(c, f, field, nvml_name, ...) \
    ((f)->field ? seen((c), nvml_name, (f)->field(__VA_ARGS__)) : NVS_NVML_ERROR_NOT_SUPPORTED)

/* unsigned readers: -1 when the call is missing or fails */
static long long u1(const reader *c, const char *call, ret_t (*fn)(dev_t_, unsigned *), dev_t_ d)
{
    unsigned v;
    return fn && seen(c, call, fn(d, &v)) == OK ? (long long)v : -1;
}
static long long u2(const reader *c, const char *call, ret_t (*fn)(dev_t_, int, unsigned *), dev_t_ d, int what)
{
    unsigned v;
    return fn && seen(c, call, fn(d, what, &v)) == OK ? (long long)v : -1;
}
static double watts(const reader *c, const char *call, ret_t (*fn)(dev_t_, unsigned *), dev_t_ d)
{
    unsigned mw;
    return fn && seen(c, call, fn(d, &mw)) == OK ? mw / 1000.0 : NAN; /* NVML reports milliwatts */
}

static void read_snap(const reader *c, const fns *f, dev_t_ d, nvs_health_snap *s)
{
    nvs_health_snap_unknown(s);
    int cur, pend;
    if (CALL(c, f, ecc_mode, "nvmlDeviceGetEccMode", d, &cur, &pend) == OK)
        s->ecc_enabled = cur == NVS_NVML_FEATURE_ENABLED;
    unsigned long long v;
    const int ecc_type[4] = {NVS_NVML_MEMORY_ERROR_TYPE_CORRECTED, NVS_NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                             NVS_NVML_MEMORY_ERROR_TYPE_CORRECTED, NVS_NVML_MEMORY_ERROR_TYPE_UNCORRECTED};
    const int ecc_counter[4] = {NVS_NVML_VOLATILE_ECC, NVS_NVML_VOLATILE_ECC, NVS_NVML_AGGREGATE_ECC,
                                NVS_NVML_AGGREGATE_ECC};
    long long *ecc_into[4] = {&s->ecc_corr_volatile, &s->ecc_unc_volatile, &s->ecc_corr_aggregate,
                              &s->ecc_unc_aggregate};
    for (int i = 0; i < 4; i++)
        if (CALL(c, f, ecc_total, "nvmlDeviceGetTotalEccErrors", d, ecc_type[i], ecc_counter[i], &v) == OK)
            *ecc_into[i] = (long long)v;
    /* pageCount 0 asks for the count only: NVML answers SUCCESS (none) or INSUFFICIENT_SIZE with the count. The
     * address buffer must not be NULL even then: NVML's reference lists "addresses is NULL" among the causes of
     * NVML_ERROR_INVALID_ARGUMENT, an answer seen() takes for "not here", which left a pre-Ampere GPU's retired
     * pages unknown and never held to DCGM's 63-page limit. */
    unsigned cnt = 0;
    unsigned long long addr[1];
    ret_t r = CALL(c, f, retired, "nvmlDeviceGetRetiredPages", d,
                   NVS_NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &cnt, addr);
    if (r == OK || r == NVS_NVML_ERROR_INSUFFICIENT_SIZE) s->retired_sbe = cnt;
    cnt = 0;
    r = CALL(c, f, retired, "nvmlDeviceGetRetiredPages", d, NVS_NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &cnt,
             addr);
    if (r == OK || r == NVS_NVML_ERROR_INSUFFICIENT_SIZE) s->retired_dbe = cnt;
    if (CALL(c, f, retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus", d, &pend) == OK)
        s->retired_pending = pend == NVS_NVML_FEATURE_ENABLED;
    unsigned corr, unc, pending, failure;
    if (CALL(c, f, remapped, "nvmlDeviceGetRemappedRows", d, &corr, &unc, &pending, &failure) == OK) {
        s->remap_corr = corr;
        s->remap_unc = unc;
        s->remap_pending = pending != 0;
        s->remap_failure = failure != 0;
    }
    if (CALL(c, f, reasons, f->reasons_call, d, &v) == OK) s->clock_reasons = (long long)(v & 0x7fffffffffffffffull);
    s->sm_mhz = (int)u2(c, "nvmlDeviceGetClockInfo", f->clock, d, NVS_NVML_CLOCK_SM);
    s->sm_max_mhz = (int)u2(c, "nvmlDeviceGetMaxClockInfo", f->max_clock, d, NVS_NVML_CLOCK_SM);
    s->mem_mhz = (int)u2(c, "nvmlDeviceGetClockInfo", f->clock, d, NVS_NVML_CLOCK_MEM);
    s->mem_max_mhz = (int)u2(c, "nvmlDeviceGetMaxClockInfo", f->max_clock, d, NVS_NVML_CLOCK_MEM);
    s->temp_c = (int)u2(c, "nvmlDeviceGetTemperature", f->temp, d, NVS_NVML_TEMPERATURE_GPU);
    s->temp_slowdown_c = (int)u2(c, "nvmlDeviceGetTemperatureThreshold", f->temp_threshold, d,
                                 NVS_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
    s->temp_shutdown_c = (int)u2(c, "nvmlDeviceGetTemperatureThreshold", f->temp_threshold, d,
                                 NVS_NVML_TEMPERATURE_THRESHOLD_SHUTDOWN);
    s->power_w = watts(c, "nvmlDeviceGetPowerUsage", f->power, d);
    s->power_limit_w = watts(c, "nvmlDeviceGetEnforcedPowerLimit", f->power_limit, d);
    s->power_default_limit_w = watts(c, "nvmlDeviceGetPowerManagementDefaultLimit", f->power_default, d);
    s->pcie_gen = (int)u1(c, "nvmlDeviceGetCurrPcieLinkGeneration", f->gen, d);
    s->pcie_width = (int)u1(c, "nvmlDeviceGetCurrPcieLinkWidth", f->width, d);
    s->pcie_max_gen = (int)u1(c, "nvmlDeviceGetMaxPcieLinkGeneration", f->max_gen, d);
    s->pcie_max_width = (int)u1(c, "nvmlDeviceGetMaxPcieLinkWidth", f->max_width, d);
    s->pcie_gpu_max_gen = (int)u1(c, "nvmlDeviceGetGpuMaxPcieLinkGeneration", f->gpu_max_gen, d);
    /* NVML has no call for the GPU's own width: Linux's max_link_width of the GPU function is it (topo_pci_sysfs.c) */
    s->pcie_gpu_max_width = nvs_topo_pci_max_link_width(nvs_topo_sysfs_root(), c->g->pci_bus_id);
    s->pcie_replay = u1(c, "nvmlDeviceGetPcieReplayCounter", f->replay, d);
    if (f->link_state) {
        s->nlinks = 0;
        for (unsigned l = 0; l < NVS_HEALTH_MAX_LINKS && !c->g->lost.code; l++) {
            int active = 0;
            r = CALL(c, f, link_state, "nvmlDeviceGetNvLinkState", d, l, &active);
            /* past the last link, or a GPU without NVLink (as in topo_nvml.c) */
            if (r == NVS_NVML_ERROR_INVALID_ARGUMENT || r == NVS_NVML_ERROR_NOT_SUPPORTED || c->g->lost.code) break;
            nvs_health_link *k = &s->links[s->nlinks++];
            k->link = (int)l;
            /* another error (seen() keeps it in read_errors): the link is listed with its state unknown, not
             * left out, which made a host whose GPUs all failed on the same link read "17 up of 17" and PASS */
            k->active = r != OK ? -1 : active == NVS_NVML_FEATURE_ENABLED;
            k->replay = k->recovery = k->crc_flit = k->crc_data = -1;
            if (k->active != 1) continue;
            const int counter[4] = {NVS_NVML_NVLINK_ERROR_DL_REPLAY, NVS_NVML_NVLINK_ERROR_DL_RECOVERY,
                                    NVS_NVML_NVLINK_ERROR_DL_CRC_FLIT, NVS_NVML_NVLINK_ERROR_DL_CRC_DATA};
            long long *into[4] = {&k->replay, &k->recovery, &k->crc_flit, &k->crc_data};
            for (int e = 0; e < 4; e++)
                if (CALL(c, f, link_error, "nvmlDeviceGetNvLinkErrorCounter", d, l, counter[e], &v) == OK)
                    *into[e] = (long long)v;
        }
    }
}

/* XID events queued since the last call (timeout 0: what is there, no waiting). Caller holds mu or is alone. A
 * wait that fails (not the timeout that means "no event") ends the watch: a GPU that saw no XID until then is not
 * watched for the whole window, and its xid_why says so (an XID it did report still counts). */
static void drain_events(nvs_health_monitor *m)
{
    if (!m->have_set || m->events_failed) return;
    for (int guard = 0; guard < 100000; guard++) {
        nvs_nvmlEventData_t e;
        memset(&e, 0, sizeof e);
        ret_t r = m->f.set_wait(m->set, &e, 0);
        if (r == NVS_NVML_ERROR_TIMEOUT) return; /* nothing more */
        if (r != OK) {
            m->events_failed = 1;
            nvs_warn("health: nvmlEventSetWait_v2 failed: %s; XID events are not watched from here on",
                     nvs_nvml_error_text(m->nvml, r));
            for (int i = 0; i < m->n; i++) {
                nvs_health_gpu *g = &m->gpus[i].g;
                if (!g->xid_watched || g->nxid || g->xid_other) continue;
                g->xid_watched = 0;
                snprintf(g->xid_why, sizeof g->xid_why, "nvmlEventSetWait_v2 failed after %.0f s: %s",
                         nvs_now_s() - m->t0, nvs_nvml_error_text(m->nvml, r));
                /* a call that failed: the xid check WARNs naming it (not watched for want of support: a SKIP) */
                read_error(g, "nvmlEventSetWait_v2", nvs_nvml_error_text(m->nvml, r));
            }
            return;
        }
        if (!(e.eventType & NVS_NVML_EVENT_TYPE_XID_CRITICAL_ERROR)) continue;
        for (int i = 0; i < m->n; i++) {
            nvs_health_gpu *g = &m->gpus[i].g;
            if (m->gpus[i].dev != e.device) continue;
            int k;
            for (k = 0; k < g->nxid && g->xids[k].xid != e.eventData; k++) {
            }
            if (k < g->nxid) g->xids[k].count++;
            else if (g->nxid < NVS_HEALTH_MAX_XIDS) {
                g->xids[g->nxid].xid = e.eventData;
                g->xids[g->nxid++].count = 1;
            } else
                g->xid_other++;
        }
    }
}

static void sample_once(nvs_health_monitor *m)
{
    const fns *f = &m->f;
    for (int i = 0; i < m->n; i++) {
        mon_gpu *mg = &m->gpus[i];
        nvs_health_load *l = &mg->g.load;
        if (mg->g.why[0] || mg->g.lost.code) continue; /* a lost GPU answers nothing more */
        const reader rc = {m->nvml, &mg->g, "during the run"}, *c = &rc;
        dev_t_ d = mg->dev;
        unsigned long long reasons = 0;
        int have_reasons = CALL(c, f, reasons, f->reasons_call, d, &reasons) == OK;
        nvs_nvmlUtilization_t u;
        int busy = CALL(c, f, util, "nvmlDeviceGetUtilizationRates", d, &u) == OK
                       ? u.gpu >= 50
                       : have_reasons && !(reasons & NVS_CLK_GPU_IDLE);
        if (mg->g.lost.code) continue; /* lost in this sample: its readings are not the GPU's */
        l->samples++;
        long long t = u2(c, "nvmlDeviceGetTemperature", f->temp, d, NVS_NVML_TEMPERATURE_GPU);
        if (t > l->temp_max_c) l->temp_max_c = (int)t;
        double p = watts(c, "nvmlDeviceGetPowerUsage", f->power, d);
        if (!isnan(p) && (isnan(l->power_max_w) || p > l->power_max_w)) l->power_max_w = p;
        long long g = u1(c, "nvmlDeviceGetCurrPcieLinkGeneration", f->gen, d);
        long long w = u1(c, "nvmlDeviceGetCurrPcieLinkWidth", f->width, d);
        if (g > l->pcie_gen_max) l->pcie_gen_max = (int)g;
        if (w > l->pcie_width_max) l->pcie_width_max = (int)w;
        if (w > 0 && (l->pcie_width_min < 0 || w < l->pcie_width_min)) l->pcie_width_min = (int)w;
        if (!busy) continue;
        l->busy_samples++;
        if (w > 0 && (l->pcie_width_min_busy < 0 || w < l->pcie_width_min_busy)) l->pcie_width_min_busy = (int)w;
        if (have_reasons)
            l->reasons_busy =
                (l->reasons_busy < 0 ? 0 : l->reasons_busy) | (long long)(reasons & 0x7fffffffffffffffull);
        long long sm = u2(c, "nvmlDeviceGetClockInfo", f->clock, d, NVS_NVML_CLOCK_SM);
        long long mem = u2(c, "nvmlDeviceGetClockInfo", f->clock, d, NVS_NVML_CLOCK_MEM);
        if (sm > 0) {
            if (l->sm_min_mhz < 0 || sm < l->sm_min_mhz) l->sm_min_mhz = (int)sm;
            mg->sm_sum += (double)sm;
            mg->sm_n++;
        }
        if (mem > 0 && (l->mem_min_mhz < 0 || mem < l->mem_min_mhz)) l->mem_min_mhz = (int)mem;
    }
}

static void *sampler(void *arg)
{
    nvs_health_monitor *m = arg;
    for (;;) {
        pthread_mutex_lock(&m->mu);
        int stop = m->stop;
        if (!stop) {
            sample_once(m);
            drain_events(m);
        }
        pthread_mutex_unlock(&m->mu);
        if (stop) break;
        struct timespec ts = {m->sample_ms / 1000, (long)(m->sample_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL); /* an early wake-up (signal) only makes one period shorter */
    }
    return NULL;
}

static void setup_events(nvs_health_monitor *m)
{
    const fns *f = &m->f;
    const char *why = NULL;
    char create_why[96];
    ret_t r, create_r = OK;
    if (!f->set_create || !f->set_register || !f->set_wait || !f->set_free)
        why = "this NVML has no event sets";
    else if ((create_r = f->set_create(&m->set)) != OK) {
        snprintf(create_why, sizeof create_why, "nvmlEventSetCreate: %s", nvs_nvml_error_text(m->nvml, create_r));
        why = create_why;
    } else
        m->have_set = 1;
    /* a call that failed with more than "not supported" goes to read_errors too: the xid check WARNs naming it,
     * where an XID watch this NVML or GPU does not offer is a SKIP (not checked) */
    for (int i = 0; i < m->n; i++) {
        nvs_health_gpu *g = &m->gpus[i].g;
        const reader c = {m->nvml, g, "before the run"};
        if (g->why[0]) continue;
        if (why) {
            snprintf(g->xid_why, sizeof g->xid_why, "%s", why);
            if (create_r != OK && create_r != NVS_NVML_ERROR_NOT_SUPPORTED)
                read_error(g, "nvmlEventSetCreate", nvs_nvml_error_text(m->nvml, create_r));
            continue;
        }
        unsigned long long types = 0;
        if (f->event_types && f->event_types(m->gpus[i].dev, &types) == OK &&
            !(types & NVS_NVML_EVENT_TYPE_XID_CRITICAL_ERROR)) {
            snprintf(g->xid_why, sizeof g->xid_why, "this GPU does not deliver XID events");
            continue;
        }
        r = seen(&c, "nvmlDeviceRegisterEvents",
                 f->set_register(m->gpus[i].dev, NVS_NVML_EVENT_TYPE_XID_CRITICAL_ERROR, m->set));
        if (r != OK)
            snprintf(g->xid_why, sizeof g->xid_why, "nvmlDeviceRegisterEvents: %s", nvs_nvml_error_text(m->nvml, r));
        else g->xid_watched = 1;
    }
}

/* GPUs to watch: the given bus ids, or every GPU NVML lists. */
static nvs_result_t list_gpus(nvs_health_monitor *m, const char *host, const char (*busids)[32], int nbus)
{
    const fns *f = &m->f;
    unsigned count = 0;
    if (!busids || nbus <= 0) {
        ret_t r;
        /* none listed: the caller says "NVML lists no GPU", with the reason */
        if (!f->count || !f->by_index)
            snprintf(m->why_none, sizeof m->why_none, "this NVML has no nvmlDeviceGetCount_v2/GetHandleByIndex_v2");
        else if ((r = f->count(&count)) != OK) {
            snprintf(m->why_none, sizeof m->why_none, "nvmlDeviceGetCount_v2: %s", nvs_nvml_error_text(m->nvml, r));
            count = 0;
        }
        nbus = (int)count;
    }
    m->gpus = calloc(nbus > 0 ? (size_t)nbus : 1, sizeof *m->gpus);
    if (!m->gpus) return NVS_ERR_NOMEM;
    for (int i = 0; i < nbus; i++) {
        mon_gpu *mg = &m->gpus[m->n++];
        nvs_health_gpu *g = &mg->g;
        nvs_health_gpu_init(g);
        snprintf(g->host, sizeof g->host, "%s", host);
        if (busids && nbus > 0) {
            snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%s", busids[i]);
            if (nvs_nvml_device(m->nvml, busids[i], &mg->dev, g->why, sizeof g->why)) continue;
        } else {
            ret_t r = f->by_index((unsigned)i, &mg->dev);
            nvs_nvmlPciInfo_t pci;
            memset(&pci, 0, sizeof pci);
            if (r != OK) {
                snprintf(g->why, sizeof g->why, "nvmlDeviceGetHandleByIndex_v2(%d): %s", i,
                         nvs_nvml_error_text(m->nvml, r));
                continue;
            }
            if (f->pci && f->pci(mg->dev, &pci) == OK) {
                pci.busId[sizeof pci.busId - 1] = '\0';
                if (nvs_topo_busid_normalize(pci.busId, g->pci_bus_id, sizeof g->pci_bus_id))
                    snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%.31s", pci.busId);
            } else
                snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "index %d", i);
        }
        char name[96];
        if (f->name && f->name(mg->dev, name, sizeof name) == OK) {
            name[sizeof name - 1] = '\0';
            snprintf(g->name, sizeof g->name, "%s", name);
        }
    }
    return NVS_OK;
}

nvs_result_t nvs_health_monitor_start(const char *host, const char (*busids)[32], int nbus, int sample_ms,
                                      nvs_health_monitor **out)
{
    *out = NULL;
    nvs_health_monitor *m = calloc(1, sizeof *m);
    if (!m) return NVS_ERR_NOMEM;
    pthread_mutex_init(&m->mu, NULL);
    m->t0 = nvs_now_s();
    nvs_result_t r = nvs_nvml_open(&m->nvml, m->source, sizeof m->source);
    if (r == NVS_ERR_UNSUPPORTED) { /* a shell that only says why: the report shows it */
        /* and each of this host's GPUs, unread, with that reason: in a run of several hosts only the first host's
         * source is kept (health_gather.c), so a host without NVML would otherwise leave no row at all, and
         * the verdict could read PASS over GPUs nobody looked at */
        if (busids && nbus > 0 && !(m->gpus = calloc((size_t)nbus, sizeof *m->gpus))) {
            pthread_mutex_destroy(&m->mu);
            free(m);
            return NVS_ERR_NOMEM;
        }
        for (int i = 0; busids && i < nbus; i++) {
            nvs_health_gpu *g = &m->gpus[m->n++].g;
            nvs_health_gpu_init(g);
            snprintf(g->host, sizeof g->host, "%s", host);
            snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%s", busids[i]);
            const char *src = strncmp(m->source, "unsupported: ", 13) ? m->source : m->source + 13;
            snprintf(g->why, sizeof g->why, "NVML not available on this host: %.120s", src);
        }
        *out = m;
        return NVS_OK;
    }
    if (r == NVS_OK) {
        load_fns(m->nvml, &m->f);
        snprintf(m->source, sizeof m->source, "nvml, driver %s", nvs_nvml_driver_version(m->nvml));
        r = list_gpus(m, host, busids, nbus);
    }
    if (r != NVS_OK) {
        nvs_nvml_close(m->nvml);
        pthread_mutex_destroy(&m->mu);
        free(m->gpus);
        free(m);
        return r;
    }
    if (m->n == 0)
        snprintf(m->source, sizeof m->source, "unsupported: NVML lists no GPU%s%s", m->why_none[0] ? ": " : "",
                 m->why_none);
    /* events first: an XID between the first reading and the registration would be missed */
    setup_events(m);
    for (int i = 0; i < m->n; i++)
        if (!m->gpus[i].g.why[0]) {
            const reader c = {m->nvml, &m->gpus[i].g, "before the run"};
            read_snap(&c, &m->f, m->gpus[i].dev, &m->gpus[i].g.before);
        }
    m->t0 = nvs_now_s();
    m->sample_ms = sample_ms;
    if (sample_ms > 0 && m->n > 0) {
        if (nvs_thread_start(&m->thread, sampler, m) == 0) m->thread_on = 1; /* signals: the main thread's */
        else nvs_warn("health: cannot start the sampler thread: clocks under load will not be known");
    }
    *out = m;
    return NVS_OK;
}

nvs_result_t nvs_health_monitor_finish(nvs_health_monitor *m, nvs_health_report *out)
{
    memset(out, 0, sizeof *out);
    if (m->thread_on) {
        pthread_mutex_lock(&m->mu);
        m->stop = 1;
        pthread_mutex_unlock(&m->mu);
        pthread_join(m->thread, NULL); /* joins a thread we started: cannot fail here */
    }
    pthread_mutex_destroy(&m->mu);
    drain_events(m);
    out->window_s = nvs_now_s() - m->t0;
    out->sample_ms = m->thread_on ? m->sample_ms : 0;
    snprintf(out->source, sizeof out->source, "%s", m->source);
    nvs_result_t r = NVS_OK;
    out->gpus = calloc(m->n ? (size_t)m->n : 1, sizeof *out->gpus);
    if (!out->gpus) r = NVS_ERR_NOMEM;
    for (int i = 0; i < m->n && r == NVS_OK; i++) {
        mon_gpu *mg = &m->gpus[i];
        nvs_health_gpu *g = &mg->g;
        /* a GPU NVML called lost or in need of a reset is not asked again: every check already FAILs on it, and
         * on a GPU that fell off the bus each call can wait for the driver's timeout */
        if (!g->why[0] && !g->lost.code) {
            const reader c = {m->nvml, g, "after the run"};
            read_snap(&c, &m->f, mg->dev, &g->after);
            g->have_after = 1;
        }
        if (mg->sm_n) g->load.sm_mean_mhz = mg->sm_sum / mg->sm_n;
        out->gpus[out->ngpus++] = *g;
    }
    if (m->have_set) (void)m->f.set_free(m->set); /* its result changes nothing we report */
    nvs_nvml_close(m->nvml); /* NULL (no NVML) is fine */
    free(m->gpus);
    free(m);
    return r;
}
