/* Health facts -> findings with a severity (PURE). What each check looks at and why: docs/accept.md.
 *
 * Counters are judged on what changed DURING the run (after - before) where a change is the symptom (ECC,
 * NVLink and PCIe errors, XIDs), and on the state itself where the state is the problem (pending remaps, a
 * link trained below its maximum, throttle reasons). What the GPU or driver does not report is a SKIP
 * ("unsupported: cannot be checked": not checked, never a silent PASS), and so is what a check had nothing to judge
 * against (no XID event set, no busy sample, no reference value); a call that failed otherwise (no permission, an
 * unknown error) is a WARN naming it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/health.h"

/* thresholds of our own (no vendor number exists for them); docs/accept.md explains each */
#define TEMP_MARGIN_C 5             /* WARN within this many degrees of the slowdown threshold */
#define CLOCK_MEAN_MIN_FRAC 0.80    /* WARN when the mean SM clock under load is below this share of max */
#define MEM_CLOCK_MIN_FRAC 0.90     /* WARN when the memory clock under load dropped below this share of max */
#define POWER_LIMIT_MIN_FRAC 0.95   /* WARN when the enforced power limit is below this share of the default */

/* NVIDIA's numbers, from DCGM's health watches (DCGM's dcgm_gpu_hardware_limits.h and DcgmHealthWatch.cpp):
 * "RM has informed us that CRC errors only matter at rates of 100+ per second" (below: a warning); "8 replays per
 * minute is the maximum recommended by RM" (above: a warning); a GPU with 63 or more retired pages (single- and
 * double-bit together, pre-Ampere page retirement) fails; more than 15 double-bit retirements is DCGM's soft
 * limit, a failure there only when they keep coming (more than one a week), which one run cannot see: a WARN. */
#define NVLINK_CRC_FAIL_PER_S 100.0 /* DCGM_LIMIT_MAX_NVLINK_CRC_ERROR */
#define PCIE_REPLAY_WARN_PER_MIN 8.0 /* DCGM_LIMIT_MAX_PCIREPLAY_RATE: the flat limit, where gen/width are unknown */
#define RETIRED_PAGES_FAIL 63       /* DCGM_LIMIT_MAX_RETIRED_PAGES (60 before DCGM matched the field diag) */
#define RETIRED_DBE_WARN 15         /* DCGM_LIMIT_MAX_RETIRED_PAGES_SOFT_LIMIT */
/* DCGM 4.6.0 common/DcgmGPUHardwareLimits.h: "This number of uncorrectable row remaps indicates GPU is in a bad
 * state"; DcgmHealthWatch.cpp MonitorMemRowRemapUncorrectable warns (DCGM_HEALTH_RESULT_WARN,
 * DCGM_FR_UNCORRECTABLE_ROW_REMAP_LIMIT, next step: run the field diagnostic) when the count meets or exceeds it */
#define ROW_REMAP_UNC_WARN 512      /* DCGM_LIMIT_MAX_ROW_REMAP_UNCORRECTABLE */

static const char *const check_names[NVS_HC_COUNT] = {
    [NVS_HC_ECC] = "ecc",
    [NVS_HC_MEMORY] = "memory",
    [NVS_HC_XID] = "xid",
    [NVS_HC_THROTTLE] = "throttle",
    [NVS_HC_CLOCKS] = "clocks",
    [NVS_HC_TEMPERATURE] = "temperature",
    [NVS_HC_POWER] = "power",
    [NVS_HC_PCIE] = "pcie",
    [NVS_HC_PCIE_REPLAY] = "pcie_replay",
    [NVS_HC_NVLINK] = "nvlink",
    [NVS_HC_NVLINK_ERRORS] = "nvlink_errors",
};

const char *nvs_health_check_name(nvs_health_check c) { return (unsigned)c < NVS_HC_COUNT ? check_names[c] : "?"; }

int nvs_health_check_parse(const char *name)
{
    for (int i = 0; i < NVS_HC_COUNT; i++)
        if (!strcmp(name, check_names[i])) return i;
    return -1;
}

const char *nvs_severity_name(nvs_severity s)
{
    return s == NVS_SEV_FAIL ? "FAIL" : s == NVS_SEV_WARN ? "WARN" : s == NVS_SEV_SKIP ? "SKIP" : "PASS";
}

static nvs_health_finding *add(nvs_health_findings *f, const nvs_health_report *r, int gi, nvs_health_check c)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 32;
        nvs_health_finding *v = realloc(f->v, cap * sizeof *v);
        if (!v) return NULL;
        f->v = v;
        f->cap = cap;
    }
    nvs_health_finding *x = &f->v[f->n++];
    memset(x, 0, sizeof *x);
    const nvs_health_gpu *g = &r->gpus[gi];
    x->check = c;
    x->gpu_entry = gi;
    x->link = -1;
    x->measured_v = x->expected_v = NAN;
    if (g->gpu >= 0) snprintf(x->what, sizeof x->what, "%s GPU%d (%s)", check_names[c], g->gpu, g->pci_bus_id);
    else snprintf(x->what, sizeof x->what, "%s %s", check_names[c], g->pci_bus_id);
    return x;
}

static void put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* appends "; text" (or "text" to an empty note) */
static void note_add(nvs_health_finding *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(nvs_health_finding *x, const char *fmt, ...)
{
    size_t l = strlen(x->note);
    if (l) l += (size_t)snprintf(x->note + l, sizeof x->note - l, "; ");
    if (l >= sizeof x->note) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->note + l, sizeof x->note - l, fmt, ap);
    va_end(ap);
}

static void worsen(nvs_health_finding *x, nvs_severity s)
{
    if (s > x->severity) x->severity = s;
}

static long long delta(long long a, long long b) { return a >= 0 && b >= 0 ? b - a : -1; }

/* Something the check needs was not there, so it judges nothing: a SKIP (not checked) when nothing failed, a WARN
 * naming the NVML calls that failed on this GPU when some did (no permission, an unknown error deserve a look).
 * A run.json from before failed calls were recorded (no "read_errors") cannot rule a failed call out: a WARN, as it
 * was judged when written (an XID watch whose event call failed read as a SKIP otherwise). */
static void not_judged(nvs_health_finding *x, const nvs_health_gpu *g, const char *why)
{
    if (g->read_errors[0]) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "%s (NVML calls that failed on this GPU: %s)", why, g->read_errors);
    } else if (g->read_errors_unknown) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "%s (this run.json does not record failed NVML calls: a failed call is not ruled out)", why);
    } else {
        x->unchecked = 1; /* NVS_SEV_SKIP unless something else of this finding warns or fails */
        note_add(x, "%s", why);
    }
}

static void unsupported(nvs_health_finding *x, const nvs_health_gpu *g, const char *what)
{
    char why[160];
    put(x->measured, sizeof x->measured, "unsupported");
    /* with a failed call, not necessarily "not supported" */
    put(why, sizeof why, "%s: %s, so it cannot be checked", what,
        g->read_errors[0] || g->read_errors_unknown ? "not reported" : "this GPU or driver does not report it");
    not_judged(x, g, why);
}

/* The reading that counts as "now": after the run when there is one. */
static const nvs_health_snap *now_of(const nvs_health_gpu *g) { return g->have_after ? &g->after : &g->before; }

static void eval_ecc(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    put(x->expected, sizeof x->expected, "0 uncorrectable");
    x->expected_v = 0;
    if (b->ecc_enabled < 0 && b->ecc_unc_volatile < 0 && b->ecc_unc_aggregate < 0) {
        unsupported(x, g, "ECC mode and counters");
        return;
    }
    if (b->ecc_enabled == 0) {
        put(x->measured, sizeof x->measured, "ECC off");
        worsen(x, NVS_SEV_WARN);
        note_add(x, "ECC is disabled: memory errors go undetected (nvidia-smi -e 1, then a reboot)");
        return;
    }
    long long vol = b->ecc_unc_volatile, agg = b->ecc_unc_aggregate, dagg = delta(a->ecc_unc_aggregate, agg);
    long long dcorr = delta(a->ecc_corr_volatile, b->ecc_corr_volatile);
    x->measured_v = vol >= 0 ? (double)vol : (double)(dagg >= 0 ? dagg : 0);
    put(x->measured, sizeof x->measured, "%lld uncorrectable", vol >= 0 ? vol : dagg >= 0 ? dagg : 0);
    if (vol > 0) {
        worsen(x, NVS_SEV_FAIL);
        note_add(x, "%lld uncorrectable ECC error%s since the driver loaded: the GPU's memory is failing "
                    "(check the row remap state; reset the GPU, replace it if they return)",
                 vol, vol == 1 ? "" : "s");
    }
    if (dagg > 0) {
        worsen(x, NVS_SEV_FAIL);
        note_add(x, "%lld new uncorrectable error%s during the run", dagg, dagg == 1 ? "" : "s");
    } else if (agg > 0) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "%lld uncorrectable error%s in the board's lifetime (none during this run)", agg,
                 agg == 1 ? "" : "s");
    }
    if (dcorr > 0) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "%lld corrected error%s during the run", dcorr, dcorr == 1 ? "" : "s");
    }
    if (vol < 0 && agg < 0) unsupported(x, g, "uncorrectable ECC counters");
}

static void eval_memory(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    put(x->expected, sizeof x->expected, "nothing pending or failed");
    int remap = b->remap_pending >= 0 || b->remap_failure >= 0, retire = b->retired_pending >= 0;
    if (!remap && !retire) {
        unsupported(x, g, "row remapping and page retirement");
        return;
    }
    if (remap)
        put(x->measured, sizeof x->measured, "remapped rows %lld+%lld", b->remap_corr < 0 ? 0 : b->remap_corr,
            b->remap_unc < 0 ? 0 : b->remap_unc);
    else if (b->retired_sbe >= 0 && b->retired_dbe >= 0)
        put(x->measured, sizeof x->measured, "retired pages %lld+%lld", b->retired_sbe, b->retired_dbe);
    else { /* page retirement without its counts: "0+0" would pass a GPU whose 63 retired pages nobody read */
        put(x->measured, sizeof x->measured, "retired pages unknown");
        not_judged(x, g, "the retired page counts are not reported (nvmlDeviceGetRetiredPages), so the 63-page "
                         "limit cannot be checked");
    }
    /* DCGM 4.6.0's health watch (modules/health/DcgmHealthWatch.cpp MonitorMemRowRemapFailures) fails any row remap
     * failure with DCGM_FR_ROW_REMAP_FAILURE (dcgmlib/dcgm_errors.h): "GPU %u had uncorrectable memory errors and
     * row remapping failed", next step "Row remapping failure indicates unrecoverable memory hardware damage. Reset
     * the GPU or reboot the node immediately", action DCGM_ERROR_RESET (dcgmlib/src/dcgm_errors.c). The same fact
     * here, with the GPU named; nvscale said "the GPU has run out of spare rows (replace it)", a cause NVML does not
     * report and no reset. Replacing it is nvscale's advice when the failure outlives the reset, not DCGM's. */
    if (b->remap_failure == 1) {
        worsen(x, NVS_SEV_FAIL);
        put(x->measured, sizeof x->measured, "remap failed");
        char who[48]; /* the finding's "what" has the bus id too; the note is short (note[224]) */
        if (g->gpu >= 0) snprintf(who, sizeof who, "GPU%d", g->gpu);
        else snprintf(who, sizeof who, "GPU %s", g->pci_bus_id);
        note_add(x, "%s had uncorrectable memory errors and a row remap failed (DCGM_FR_ROW_REMAP_FAILURE: memory "
                    "damage; reset the GPU or reboot the node now); replace it if it recurs",
                 who);
    }
    /* the count of rows remapped for uncorrectable errors over the board's life, not its change during the run: DCGM
     * judges the latest value (MonitorMemRowRemapUncorrectable, GetLatestSample). Until December 2026 nvscale did not
     * look at it, so a GPU with thousands of remapped rows passed. */
    if (b->remap_unc >= ROW_REMAP_UNC_WARN) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "%lld rows remapped for uncorrectable errors, at or over DCGM's limit of %d: the GPU's memory is "
                    "wearing out (run dcgmi diag -r 3; replace it if it fails)",
                 b->remap_unc, ROW_REMAP_UNC_WARN);
    }
    /* A pending remap or retirement alone is a WARN: the GPU can still run work, and the reset that applies it can
     * wait for the next drain. NVML's reference for nvmlDeviceGetRemappedRows: "A pending remapping won't affect
     * future work on the GPU since error-containment and dynamic page blacklisting will take care of that";
     * NVIDIA's A100 memory error management guide: with the pending flag set "new workloads can be launched".
     * DCGM's health watch (DcgmHealthWatch.cpp MonitorMemRetiredPending) answers a pending retirement with
     * DCGM_HEALTH_RESULT_WARN, its next step DCGM_FR_PENDING_PAGE_RETIREMENTS_NEXT "Monitor - this GPU can still
     * perform workload"; the health watch does not look at a pending remap. With an uncorrectable error since the
     * driver loaded it is a FAIL, as DCGM's DCGM_FR_DBE_PENDING_PAGE_RETIREMENTS ("Drain the GPU and reset it or
     * reboot the node"): the page or row waiting is the one that just failed. (dcgmi diag's software test,
     * nvvs/src/Software.cpp, fails every pending state; its error codes say the GPU still runs work.) */
    int unc_now = b->ecc_unc_volatile > 0;
    if (b->remap_pending == 1) {
        worsen(x, unc_now ? NVS_SEV_FAIL : NVS_SEV_WARN);
        if (b->remap_failure != 1) put(x->measured, sizeof x->measured, "remap pending");
        /* after a failed remap its note says what to do (reset now): "can still run work" would contradict it, and
         * both did not fit the note */
        if (b->remap_failure == 1) note_add(x, "a row remap is also pending");
        else
            note_add(x, unc_now ? "a row remap is pending after an uncorrectable error: drain the GPU and reset it "
                                  "(nvidia-smi -r) before using it again"
                                : "a row remap is pending: the GPU can still run work; reset it (nvidia-smi -r) at "
                                  "the next drain to apply the remap");
    }
    if (b->retired_pending == 1) {
        worsen(x, unc_now ? NVS_SEV_FAIL : NVS_SEV_WARN);
        if (b->remap_failure != 1 && b->remap_pending != 1) put(x->measured, sizeof x->measured, "retirement pending");
        note_add(x, unc_now ? "a page retirement is pending after a double-bit error: drain the GPU and reset it or "
                              "reboot before using it again"
                            : "a page retirement is pending: the GPU can still run work; reset it or reboot at the "
                              "next drain to retire the page");
    }
    long long retired = (b->retired_sbe > 0 ? b->retired_sbe : 0) + (b->retired_dbe > 0 ? b->retired_dbe : 0);
    if (retired >= RETIRED_PAGES_FAIL) {
        worsen(x, NVS_SEV_FAIL);
        note_add(x, "%lld pages retired (limit %d, as DCGM): the GPU's memory is wearing out (replace it)", retired,
                 RETIRED_PAGES_FAIL);
    } else if (b->retired_dbe > RETIRED_DBE_WARN) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "%lld pages retired for double-bit errors (more than %d): watch whether more come (DCGM fails "
                    "more than one a week)",
                 b->retired_dbe, RETIRED_DBE_WARN);
    }
    long long dr = delta(a->remap_unc, b->remap_unc), dd = delta(a->retired_dbe, b->retired_dbe);
    if (dr > 0 || dd > 0) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "%lld row%s remapped / pages retired for uncorrectable errors during the run", dr > 0 ? dr : dd,
                 (dr > 0 ? dr : dd) == 1 ? "" : "s");
    }
}

/* What the common XIDs mean (NVIDIA's "XID Errors" catalogue, docs.nvidia.com/deploy/xid-errors). */
static const char *xid_meaning(unsigned long long x)
{
    switch (x) {
    case 13: return "graphics engine exception";
    case 31: return "GPU memory page fault";
    case 43: return "GPU stopped processing";
    case 48: return "double-bit ECC error";
    case 63: return "row remap / page retirement recorded";
    case 64: return "row remap / page retirement failed";
    case 74: return "NVLink error";
    case 79: return "GPU has fallen off the bus";
    case 92: return "high single-bit ECC error rate";
    case 94: return "contained ECC error";
    case 95: return "uncontained ECC error";
    case 119: return "GSP RPC timeout";
    case 120: return "GSP error";
    default: return NULL;
    }
}

/* The event call whose failure xid.why names ("call: NVML's text"; topo/health_nvml.c setup_events and
 * drain_events have written it so since 30 November 2026), NULL when it names none or NVML answered that the
 * watch is not offered: the answers health_nvml.c's seen() keeps out of read_errors, as nvmlErrorString words
 * them. read_errors lists these calls only since d861ffa (6 December 2026): a run.json of 3 to 6 December has
 * the key (so it is no file "before failed calls were recorded") without them, and its refused event set read
 * back as "not watched for want of support", a SKIP. The why is in every file, and it says the call failed. */
static const char *xid_failed_call(const char *why)
{
    static const char *const calls[] = {"nvmlEventSetCreate", "nvmlDeviceRegisterEvents", "nvmlEventSetWait_v2"};
    static const char *const not_offered[] = {"Not Supported", "Invalid Argument", "Insufficient Size"};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        size_t n = strlen(calls[i]);
        if (strncmp(why, calls[i], n) || (why[n] != ':' && why[n] != ' ')) continue;
        const char *text = strstr(why + n, ": ");
        if (!text) return NULL;
        for (size_t k = 0; k < sizeof not_offered / sizeof not_offered[0]; k++)
            if (!strcmp(text + 2, not_offered[k])) return NULL;
        return calls[i];
    }
    return NULL;
}

static void eval_xid(nvs_health_finding *x, const nvs_health_gpu *g, double window_s)
{
    put(x->expected, sizeof x->expected, "no XID");
    x->expected_v = 0;
    if (!g->xid_watched) { /* nothing judged: a SKIP, a WARN where an event call failed (in read_errors) */
        char why[240];
        put(x->measured, sizeof x->measured, "not watched");
        put(why, sizeof why, "XID events not watched (%s): see the kernel log (dmesg | grep Xid)",
            g->xid_why[0] ? g->xid_why : "no NVML event set");
        const char *call = xid_failed_call(g->xid_why);
        if (call && !g->read_errors_unknown && !g->read_errors[0]) {
            /* a run.json of 3 to 6 December: the failed call is in the why, not yet in read_errors (where read_errors
             * lists other calls, not_judged's WARN names them, and the why this one) */
            worsen(x, NVS_SEV_WARN);
            note_add(x, "%s (the NVML call %s failed on this GPU)", why, call);
            return;
        }
        not_judged(x, g, why);
        return;
    }
    /* in a long long: run.json allows up to 1e9 per code and 16 codes besides "other", whose sum in an int
     * wrapped (4 x 1e9 + 294967296 summed to 0: "none", PASS) */
    long long total = g->xid_other;
    for (int i = 0; i < g->nxid; i++) total += g->xids[i].count;
    x->measured_v = (double)total;
    if (!total) {
        if (window_s > 0) put(x->measured, sizeof x->measured, "none in %.*f s", window_s < 10 ? 1 : 0, window_s);
        else put(x->measured, sizeof x->measured, "none");
        return;
    }
    put(x->measured, sizeof x->measured, "%lld XID event%s", total, total == 1 ? "" : "s");
    worsen(x, NVS_SEV_FAIL);
    for (int i = 0; i < g->nxid; i++) {
        const char *m = xid_meaning(g->xids[i].xid);
        note_add(x, "XID %llu x%d%s%s%s", g->xids[i].xid, g->xids[i].count, m ? " (" : "", m ? m : "", m ? ")" : "");
    }
    if (g->xid_other) note_add(x, "%d more of other codes", g->xid_other);
}

static void eval_throttle(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    put(x->expected, sizeof x->expected, "no HW/thermal slowdown");
    long long bits = -1;
    const char *when = "";
    if (g->load.busy_samples > 0 && g->load.reasons_busy >= 0) {
        bits = g->load.reasons_busy;
        when = " under load";
    }
    /* the snapshots count too: a HW slowdown asserted while idle is just as bad */
    if (a->clock_reasons >= 0) bits = bits < 0 ? a->clock_reasons : bits | a->clock_reasons;
    if (b->clock_reasons >= 0) bits = bits < 0 ? b->clock_reasons : bits | b->clock_reasons;
    if (bits < 0) {
        unsupported(x, g, "clock event (throttle) reasons");
        return;
    }
    char names[160];
    long long bad = bits & (long long)NVS_CLK_BAD;
    if (bad) {
        worsen(x, NVS_SEV_FAIL);
        put(x->measured, sizeof x->measured, "%s", nvs_health_reason_names(bad, names, sizeof names));
        note_add(x, "clocks pulled down%s by %s: cooling, power delivery or the board (nvidia-smi -q -d PERFORMANCE)",
                 when, names);
        return;
    }
    put(x->measured, sizeof x->measured, "none");
    if (bits & (long long)NVS_CLK_SW_POWER_CAP)
        note_add(x, "reached its power limit%s (SW power cap): normal for a fully loaded GPU", when);
    if (bits & (long long)NVS_CLK_APP_CLOCKS) note_add(x, "application clocks are set below max");
}

static void eval_clocks(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *b = now_of(g);
    const nvs_health_load *l = &g->load;
    put(x->expected, sizeof x->expected, ">= %.0f%% of max SM clock", CLOCK_MEAN_MIN_FRAC * 100);
    if (l->busy_samples == 0) {
        put(x->measured, sizeof x->measured, "not loaded");
        x->unchecked = 1; /* nothing measured to judge: not checked (level 1 does not load the GPUs) */
        note_add(x, "no sample found the GPU busy, so the clocks under load are unknown and not checked (level 3 "
                    "loads the GPUs for minutes)");
        return;
    }
    if (isnan(l->sm_mean_mhz) || b->sm_max_mhz <= 0) {
        unsupported(x, g, "SM clock or its maximum");
        return;
    }
    double frac = l->sm_mean_mhz / b->sm_max_mhz;
    x->measured_v = frac;
    x->expected_v = CLOCK_MEAN_MIN_FRAC;
    put(x->measured, sizeof x->measured, "SM %.0f of %d MHz (%.0f%%)", l->sm_mean_mhz, b->sm_max_mhz, frac * 100);
    if (frac < CLOCK_MEAN_MIN_FRAC) {
        char names[160];
        worsen(x, NVS_SEV_WARN);
        note_add(x, "the SM clock averaged %.0f%% of max over %d busy samples (lowest %d MHz); reasons seen: %s",
                 frac * 100, l->busy_samples, l->sm_min_mhz, nvs_health_reason_names(l->reasons_busy, names, sizeof names));
    }
    if (l->mem_min_mhz > 0 && b->mem_max_mhz > 0 && l->mem_min_mhz < MEM_CLOCK_MIN_FRAC * b->mem_max_mhz) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "the memory clock fell to %d of %d MHz under load", l->mem_min_mhz, b->mem_max_mhz);
    }
}

static void eval_temperature(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    int t = a->temp_c;
    if (b->temp_c > t) t = b->temp_c;
    if (g->load.temp_max_c > t) t = g->load.temp_max_c;
    int slow = b->temp_slowdown_c;
    if (slow > 0) {
        put(x->expected, sizeof x->expected, "< %d C (slowdown)", slow);
        x->expected_v = slow;
    } else
        put(x->expected, sizeof x->expected, "below the slowdown threshold");
    if (t < 0) {
        unsupported(x, g, "GPU temperature");
        return;
    }
    x->measured_v = t;
    put(x->measured, sizeof x->measured, "max %d C", t);
    if (slow <= 0) { /* a temperature with nothing to hold it against is not a PASS: not checked */
        not_judged(x, g, "the slowdown threshold is not reported (nvmlDeviceGetTemperatureThreshold), so the "
                         "temperature cannot be judged");
        return;
    }
    if (t >= slow) {
        worsen(x, NVS_SEV_FAIL);
        note_add(x, "reached the slowdown threshold (%d C): the GPU slows itself down; check airflow and fans", slow);
    } else if (t >= slow - TEMP_MARGIN_C) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "within %d C of the slowdown threshold (%d C)", TEMP_MARGIN_C, slow);
    }
}

static void eval_power(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *b = now_of(g);
    double lim = b->power_limit_w, def = b->power_default_limit_w, peak = g->load.power_max_w;
    if (isnan(peak) || (!isnan(b->power_w) && b->power_w > peak)) peak = b->power_w;
    if (!isnan(def)) put(x->expected, sizeof x->expected, "limit >= %.0f%% of %.0f W", POWER_LIMIT_MIN_FRAC * 100, def);
    else put(x->expected, sizeof x->expected, "the default power limit");
    if (isnan(lim)) {
        unsupported(x, g, "enforced power limit");
        return;
    }
    x->measured_v = lim;
    if (!isnan(peak)) put(x->measured, sizeof x->measured, "peak %.0f W, limit %.0f W", peak, lim);
    else put(x->measured, sizeof x->measured, "limit %.0f W", lim);
    if (isnan(def)) { /* a limit with no default to hold it against is not a PASS: not checked */
        not_judged(x, g, "the default power limit is not reported (nvmlDeviceGetPowerManagementDefaultLimit): "
                         "cannot tell whether the limit was lowered");
        return;
    }
    x->expected_v = def;
    if (lim < POWER_LIMIT_MIN_FRAC * def) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "the power limit was lowered to %.0f W of the default %.0f W: clocks cap earlier under load", lim, def);
    }
}

static int maxi(int a, int b) { return a > b ? a : b; }
/* the lower of two known (> 0) values, -1 when neither is known */
static int min_known(int a, int b) { return a <= 0 ? (b > 0 ? b : -1) : b <= 0 || a < b ? a : b; }

static void eval_pcie(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    const nvs_health_load *l = &g->load;
    int maxg = b->pcie_max_gen, maxw = b->pcie_max_width;
    if (maxg > 0 && maxw > 0) put(x->expected, sizeof x->expected, "gen%d x%d", maxg, maxw);
    else put(x->expected, sizeof x->expected, "the link's maximum");
    /* The width the link ran at: the lowest current width (nvmlDeviceGetCurrPcieLinkWidth) in any reading. The
     * highest, judged until December 2026, passed a link that trained down to x8 for part of the run as long as one
     * reading saw x16. Idle GPUs lower the link's generation (speed) to save power, not its width (lspci's LnkSta
     * of an idle GPU: 2.5GT/s at full width), so an idle reading counts; a narrower width seen only outside load,
     * with every busy sample at full width, is a WARN (the link changed width during the run, data moved at full
     * width). The maximum (nvmlDeviceGetMaxPcieLinkWidth) is what the GPU and its slot allow together. */
    int w = min_known(min_known(a->pcie_width, b->pcie_width), l->pcie_width_min);
    int wbusy = l->busy_samples > 0 ? l->pcie_width_min_busy : -1;
    /* the sampler runs at every level, busy or not: only a sample that found the GPU busy (P0, where the link
     * trains to its top generation) says the link was used; idle samples show the power-saving generation */
    int gl = l->busy_samples > 0 ? l->pcie_gen_max : -1, gi = maxi(a->pcie_gen, b->pcie_gen);
    int gen = maxi(gl, gi);
    if (gen <= 0 || w <= 0 || maxg <= 0 || maxw <= 0) {
        unsupported(x, g, "PCIe generation/width or their maximum");
        if (gen > 0 && w > 0) put(x->measured, sizeof x->measured, "gen%d x%d", gen, w);
        return;
    }
    put(x->measured, sizeof x->measured, "gen%d x%d", gen, w);
    if (w < maxw && wbusy >= maxw) {
        worsen(x, NVS_SEV_WARN);
        put(x->measured, sizeof x->measured, "gen%d x%d, x%d idle", gen, wbusy, w);
        note_add(x, "x%d of x%d lanes in a reading outside load, x%d in every busy sample: the link changed width "
                    "during the run (watch it; reseat the GPU or riser if it recurs)",
                 w, maxw, wbusy);
    } else if (w < maxw) {
        worsen(x, NVS_SEV_FAIL);
        note_add(x, "downtrained: x%d of x%d lanes%s (reseat the GPU or riser, check the slot)", w, maxw,
                 wbusy > 0 ? " under load" : "");
    }
    /* A link at its maximum is not healthy when the maximum is the slot's: NVML's maximum width already includes
     * the slot (pcie_spec.c), so a x16 GPU in a x8 slot read "gen5 x8 of gen5 x8", a PASS, with half the host
     * bandwidth. The GPU's own width is sysfs's max_link_width (its Link Capabilities, any model: topo_pci_sysfs.c),
     * else its datasheet's; a model with neither is "not known", and below x16 (the widest connector of the PCIe CEM
     * slot specification) that is said, not guessed. */
    /* The same holds for the generation: NVML's maximum generation is the GPU's and the slot's together, so a gen5
     * GPU in a gen4 slot read "gen4 of gen4". nvmlDeviceGetGpuMaxPcieLinkGeneration gives the GPU's own; a driver
     * without it (or a run.json from before it was read) leaves it unknown and the generation unjudged here. */
    nvs_health_pcie_own own;
    nvs_health_pcie_own_max(g->name, maxi(a->pcie_gpu_max_gen, b->pcie_gpu_max_gen),
                            maxi(a->pcie_gpu_max_width, b->pcie_gpu_max_width), maxg, maxw, &own);
    const char *src = own.width_source;
    int specw = own.width, gpug = own.gen, slotw = own.slot_width, slotg = own.slot_gen;
    if (slotw || slotg) {
        worsen(x, NVS_SEV_WARN);
        char lim[32];
        if (slotw && slotg) put(lim, sizeof lim, "gen%d x%d", maxg, maxw);
        else if (slotw) put(lim, sizeof lim, "x%d", maxw);
        else put(lim, sizeof lim, "gen%d", maxg);
        put(x->expected, sizeof x->expected, "gen%d x%d (slot %s)", slotg ? gpug : maxg, slotw ? specw : maxw, lim);
    }
    if (slotw)
        note_add(x, "slot-limited: the link's maximum (GPU and slot together) is x%d, the GPU is x%d (%s): host "
                    "transfers capped at x%d; move it to a x%d slot",
                 maxw, specw, src, maxw, specw);
    else if (specw <= 0 && maxw < 16)
        note_add(x, "the link's maximum is x%d; this GPU's own width is not known to nvscale (no sysfs max_link_width, "
                    "no datasheet entry), so whether the slot limits it cannot be told",
                 maxw);
    if (slotg)
        note_add(x, "slot-limited: the link's maximum generation (GPU and slot together) is gen%d, the GPU is gen%d "
                    "(nvmlDeviceGetGpuMaxPcieLinkGeneration): host transfers capped at gen%d speed; move it to a "
                    "gen%d slot",
                 maxg, gpug, maxg, gpug);
    if (gen < maxg) {
        if (gl > 0) {
            worsen(x, NVS_SEV_FAIL);
            note_add(x, "downtrained: gen%d of gen%d even while the run used the link", gen, maxg);
        } else { /* nothing to judge the generation by: not checked (a SKIP unless the width failed), as the
                  * clocks with no busy sample; a WARN here flagged every healthy GPU of a level-1 accept */
            x->unchecked = 1;
            note_add(x, "gen%d of gen%d at idle, where GPUs lower the link generation to save power: the generation "
                        "is checked only under load (level 2), the width is checked here",
                     gen, maxg);
        }
    }
}

/* Replays a minute DCGM expects of a link at gen `gen` with `lanes` lanes, as its health watch computes them since
 * DCGM 3.3.8 (DcgmHealthWatch.cpp, GetExpectedPcieReplayRate): a bit error rate of 1e-12 at the generation's
 * transfer rate per lane (2.5, 5, 8, 16, 32, 64 GT/s for gen1-6; above gen6, gen6's), times the lanes, over 60 s,
 * rounded up: gen3 x16 8 (the flat DCGM_LIMIT_MAX_PCIREPLAY_RATE of earlier DCGM), gen4 x16 16, gen5 x16 31. The
 * flat 8 warned on a healthy gen5 link at 9-31 a minute. Unknown gen or width: the flat 8. */
double nvs_health_pcie_replay_limit(int gen, int lanes)
{
    static const double gts[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    if (gen <= 0 || lanes <= 0) return PCIE_REPLAY_WARN_PER_MIN;
    if (gen > (int)(sizeof gts / sizeof gts[0])) gen = (int)(sizeof gts / sizeof gts[0]);
    return ceil(gts[gen - 1] * 1e9 * 1e-12 * 60 * lanes - 1e-9); /* 1e-9: 7.68 is 8, and 8.0000001 stays 8 */
}

static void eval_pcie_replay(nvs_health_finding *x, const nvs_health_gpu *g, double window_s)
{
    /* the link at its fastest state seen in the run (where the replays come from: more bits, more errors) */
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    int gen = maxi(g->load.busy_samples > 0 ? g->load.pcie_gen_max : -1, maxi(a->pcie_gen, b->pcie_gen));
    int lanes = maxi(g->load.pcie_width_max, maxi(a->pcie_width, b->pcie_width));
    double per_min = nvs_health_pcie_replay_limit(gen, lanes);
    /* DCGM counts replays over a minute: a shorter run is held to the one-minute count, a longer one to its rate */
    double minutes = window_s > 60 ? window_s / 60 : 1, limit = per_min * minutes;
    if (gen > 0 && lanes > 0)
        put(x->expected, sizeof x->expected, "<= %.0f per minute (gen%d x%d)", per_min, gen, lanes);
    else
        put(x->expected, sizeof x->expected, "<= %.0f per minute", per_min);
    x->expected_v = limit;
    long long d = delta(g->before.pcie_replay, now_of(g)->pcie_replay);
    if (now_of(g)->pcie_replay < 0) {
        unsupported(x, g, "PCIe replay counter");
        return;
    }
    if (!g->have_after || d < 0) { /* d < 0: the reading before the run failed ("-1 during the run", a PASS) */
        put(x->measured, sizeof x->measured, "%lld in total", now_of(g)->pcie_replay);
        worsen(x, NVS_SEV_WARN);
        note_add(x, "%s: no change over the run can be computed",
                 g->have_after ? "the counter was not read before the run" : "one reading only");
        return;
    }
    x->measured_v = (double)d;
    put(x->measured, sizeof x->measured, "%lld during the run", d);
    char in[32] = ""; /* a run without its window (before 3 December 2026) is held to one minute's count */
    if (window_s > 0) snprintf(in, sizeof in, " in %.0f s", window_s);
    if (d > limit) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "%lld PCIe replays (retransmitted packets)%s, over DCGM's %.0f per minute: a marginal link; "
                    "check the riser and slot",
                 d, in, per_min);
    } else if (d > 0)
        note_add(x, "%lld PCIe replay%s%s: within DCGM's %.0f per minute", d, d == 1 ? "" : "s", in, per_min);
}

static int active_links(const nvs_health_snap *s)
{
    int n = 0;
    for (int i = 0; i < s->nlinks; i++) n += s->links[i].active == 1;
    return n;
}

/* The links whose state NVML did not give (active -1), their numbers into list ("7, 9"); how many. */
static int unread_links(const nvs_health_snap *s, char *list, size_t len)
{
    int n = 0;
    list[0] = '\0';
    for (int i = 0; i < s->nlinks; i++) {
        if (s->links[i].active >= 0) continue;
        size_t l = strlen(list);
        snprintf(list + l, len - l, "%s%d", n++ ? ", " : "", s->links[i].link);
    }
    return n;
}

/* The entry of link number `link` in a reading, NULL if it has none: the two readings are compared link by link
 * by number, not by place in the list (a run.json edited or written in another order would compare other links). */
static const nvs_health_link *link_in(const nvs_health_snap *s, int link)
{
    for (int i = 0; i < s->nlinks; i++)
        if (s->links[i].link == link) return &s->links[i];
    return NULL;
}

static void eval_nvlink(nvs_health_finding *x, const nvs_health_report *r, int gi)
{
    const nvs_health_gpu *g = &r->gpus[gi];
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    if (b->nlinks < 0) {
        put(x->expected, sizeof x->expected, "every link up");
        unsupported(x, g, "NVLink state");
        return;
    }
    int up = active_links(b);
    /* the most links any GPU of the same model on this host has up: what this one should have */
    int peer = up;
    for (int k = 0; k < r->ngpus; k++) {
        const nvs_health_gpu *o = &r->gpus[k];
        if (o->why[0] || strcmp(o->host, g->host) || strcmp(o->name, g->name)) continue;
        int u = active_links(now_of(o));
        if (u > peer) peer = u;
    }
    char unread_list[96];
    int unread = unread_links(b, unread_list, sizeof unread_list);
    x->measured_v = up;
    x->expected_v = peer;
    if (unread) put(x->measured, sizeof x->measured, "%d up, %d not read", up, unread);
    else put(x->measured, sizeof x->measured, "%d link%s up", up, up == 1 ? "" : "s");
    put(x->expected, sizeof x->expected, "%d up", peer);
    if (unread) { /* neither up nor down: a state unknown is judged as such, never counted as a PASS */
        worsen(x, NVS_SEV_WARN);
        note_add(x, "the state of link%s %s was not read (%s), so %s cannot be checked", unread == 1 ? "" : "s",
                 unread_list, g->read_errors[0] ? g->read_errors : "NVML answered with an error",
                 unread == 1 ? "it" : "they");
    }
    if (!peer && !b->nlinks) { /* NVML lists no link: a GPU without NVLink (GeForce, a VM's lone GPU) */
        put(x->measured, sizeof x->measured, "no NVLink");
        put(x->expected, sizeof x->expected, "-");
        return;
    }
    if (!peer && unread) { /* nothing known up here: the links not read are all there is to say */
        put(x->expected, sizeof x->expected, "-");
        return;
    }
    if (!peer) {
        /* NVML lists this GPU's links (nvmlDeviceGetNvLinkState: NVML_FEATURE_DISABLED, inactive) and no GPU of
         * its model here has one up: nothing to compare with, so not a FAIL, but not "no NVLink" either. It is
         * what a box of NVLink-capable cards whose bridges are all missing looks like, and every transfer of
         * the run went over PCIe or host memory. */
        put(x->measured, sizeof x->measured, "0 of %d links up", b->nlinks);
        put(x->expected, sizeof x->expected, "-");
        worsen(x, NVS_SEV_WARN);
        note_add(x, "NVML lists %d NVLink%s on this GPU, none up, on every %s GPU of the host: NVLink carried nothing "
                    "in this run (bridges missing or not seated; on NVSwitch systems, the fabric)",
                 b->nlinks, b->nlinks == 1 ? "" : "s", g->name[0] ? g->name : "such");
        return;
    }
    if (up < peer && up + unread >= peer) /* the links not read may be the ones up elsewhere: said above */
        note_add(x, "%d of %d links known up: the host's other %s GPUs have %d", up, peer,
                 g->name[0] ? g->name : "same", peer);
    else if (up < peer) {
        worsen(x, NVS_SEV_FAIL);
        note_add(x, "%d of %d links up: the host's other %s GPUs have %d (a link is down: bridge, cable or NVSwitch)",
                 up, peer, g->name[0] ? g->name : "same", peer);
    }
    if (g->have_after)
        for (int i = 0; i < b->nlinks; i++) {
            const nvs_health_link *p = link_in(a, b->links[i].link);
            if (p && p->active == 1 && b->links[i].active == 0) {
                worsen(x, NVS_SEV_FAIL);
                x->link = b->links[i].link;
                note_add(x, "link %d went down during the run", b->links[i].link);
            }
        }
}

static void eval_nvlink_errors(nvs_health_finding *x, const nvs_health_gpu *g, double window_s)
{
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    put(x->expected, sizeof x->expected, "0 during the run");
    x->expected_v = 0;
    if (b->nlinks < 0) {
        unsupported(x, g, "NVLink error counters");
        return;
    }
    if (!active_links(b)) { /* no counter to read: none listed, or none up (eval_nvlink says which matters) */
        put(x->measured, sizeof x->measured, b->nlinks ? "no link up" : "no NVLink");
        put(x->expected, sizeof x->expected, "-");
        return;
    }
    int supported = 0;
    for (int i = 0; i < b->nlinks; i++) supported |= b->links[i].crc_flit >= 0 || b->links[i].replay >= 0 || b->links[i].recovery >= 0;
    if (!supported) {
        unsupported(x, g, "NVLink error counters");
        return;
    }
    if (!g->have_after) {
        put(x->measured, sizeof x->measured, "one reading");
        worsen(x, NVS_SEV_WARN);
        note_add(x, "one reading only: no change over the run can be computed");
        return;
    }
    long long tot_crc = 0, tot_rep = 0, tot_rec = 0, worst = 0;
    int compared = 0; /* links with a counter read both before and after */
    for (int i = 0; i < b->nlinks; i++) {
        const nvs_health_link *q = &b->links[i], *p = link_in(a, q->link);
        if (!p) continue; /* not read before the run: no change to compute */
        compared |= delta(p->crc_flit, q->crc_flit) >= 0 || delta(p->crc_data, q->crc_data) >= 0 ||
                    delta(p->replay, q->replay) >= 0 || delta(p->recovery, q->recovery) >= 0;
        long long crc = 0, d;
        if ((d = delta(p->crc_flit, q->crc_flit)) > 0) crc += d;
        if ((d = delta(p->crc_data, q->crc_data)) > 0) crc += d;
        long long rep = delta(p->replay, q->replay), rec = delta(p->recovery, q->recovery);
        rep = rep > 0 ? rep : 0;
        rec = rec > 0 ? rec : 0;
        tot_crc += crc;
        tot_rep += rep;
        tot_rec += rec;
        long long score = rec * 1000000 + crc + rep;
        if (score > worst) {
            worst = score;
            x->link = q->link;
        }
        /* as DCGM: a recovery or a replay is a failure; CRC errors only at 100 a second or more (over at least a
         * second: a window too short to time is held to the count) */
        if (rec > 0) {
            worsen(x, NVS_SEV_FAIL);
            note_add(x, "link %d: %lld recover%s (the link retrained: bridge, cable or NVSwitch port)", q->link, rec,
                     rec == 1 ? "y" : "ies");
        }
        if (rep > 0) {
            worsen(x, NVS_SEV_FAIL);
            note_add(x, "link %d: %lld replay%s (data sent again)", q->link, rep, rep == 1 ? "" : "s");
        }
        double per_s = (double)crc / (window_s > 1 ? window_s : 1);
        if (per_s >= NVLINK_CRC_FAIL_PER_S) {
            worsen(x, NVS_SEV_FAIL);
            note_add(x, "link %d: %lld CRC errors, %.0f per second (DCGM fails %.0f)", q->link, crc, per_s,
                     NVLINK_CRC_FAIL_PER_S);
        } else if (crc > 0) {
            worsen(x, NVS_SEV_WARN);
            note_add(x, "link %d: %lld CRC error%s (%.2g per second, under DCGM's %.0f)", q->link, crc,
                     crc == 1 ? "" : "s", per_s, NVLINK_CRC_FAIL_PER_S);
        }
    }
    if (!compared) { /* every counter unread before the run: "0 CRC, 0 replay, 0 recovery" would be a guess */
        put(x->measured, sizeof x->measured, "not read before");
        worsen(x, NVS_SEV_WARN);
        note_add(x, "the error counters were not read before the run: no change over the run can be computed");
        return;
    }
    x->measured_v = (double)(tot_crc + tot_rep + tot_rec);
    put(x->measured, sizeof x->measured, "%lld CRC, %lld replay, %lld recovery", tot_crc, tot_rep, tot_rec);
}

int nvs_health_evaluate(const nvs_health_report *r, nvs_health_findings *out)
{
    memset(out, 0, sizeof *out);
    for (int gi = 0; gi < r->ngpus; gi++) {
        const nvs_health_gpu *g = &r->gpus[gi];
        for (int c = 0; c < NVS_HC_COUNT; c++) {
            nvs_health_finding *x = add(out, r, gi, (nvs_health_check)c);
            if (!x) {
                nvs_health_findings_free(out);
                return -1;
            }
            if (g->why[0]) { /* no NVML on its host, or NVML does not know it: nothing of it could be checked */
                put(x->measured, sizeof x->measured, "not readable");
                put(x->expected, sizeof x->expected, "readable");
                x->severity = NVS_SEV_SKIP;
                note_add(x, "%s", g->why);
                continue;
            }
            if (g->lost.code) { /* whatever was read before it went is not a verdict on a GPU that is gone */
                put(x->measured, sizeof x->measured, "%s",
                    g->lost.code == NVS_HEALTH_RESET_CODE ? "reset required" : "GPU lost");
                put(x->expected, sizeof x->expected, "answers NVML");
                worsen(x, NVS_SEV_FAIL);
                note_add(x, "%s %s answered \"%s\" (NVML %d): %s", g->lost.call, g->lost.when, g->lost.text,
                         g->lost.code,
                         g->lost.code == NVS_HEALTH_RESET_CODE
                             ? "reset the GPU (nvidia-smi -r) or reboot before using it; replace it if it happens again"
                             : "the GPU fell off the bus or stopped responding (dmesg | grep -i xid); reboot, and "
                               "reseat or replace it if it happens again");
                continue;
            }
            switch ((nvs_health_check)c) {
            case NVS_HC_ECC: eval_ecc(x, g); break;
            case NVS_HC_MEMORY: eval_memory(x, g); break;
            case NVS_HC_XID: eval_xid(x, g, r->window_s); break;
            case NVS_HC_THROTTLE: eval_throttle(x, g); break;
            case NVS_HC_CLOCKS: eval_clocks(x, g); break;
            case NVS_HC_TEMPERATURE: eval_temperature(x, g); break;
            case NVS_HC_POWER: eval_power(x, g); break;
            case NVS_HC_PCIE: eval_pcie(x, g); break;
            case NVS_HC_PCIE_REPLAY: eval_pcie_replay(x, g, r->window_s); break;
            case NVS_HC_NVLINK: eval_nvlink(x, r, gi); break;
            case NVS_HC_NVLINK_ERRORS: eval_nvlink_errors(x, g, r->window_s); break;
            default: break;
            }
            if (x->unchecked && x->severity == NVS_SEV_PASS) x->severity = NVS_SEV_SKIP;
        }
    }
    return 0;
}

void nvs_health_findings_free(nvs_health_findings *f)
{
    free(f->v);
    memset(f, 0, sizeof *f);
}
