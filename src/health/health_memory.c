/* Health checks of GPU memory (PURE): uncorrectable and corrected ECC errors, row remapping and page retirement.
 * Part of the evaluation of health facts (health_eval.c). */
#include <stdio.h>

#include "health/health_eval_priv.h"

/* NVIDIA's numbers, from DCGM's health watches (DCGM's dcgm_gpu_hardware_limits.h and DcgmHealthWatch.cpp): a GPU
 * with 63 or more retired pages (single- and double-bit together, pre-Ampere page retirement) fails; more than 15
 * double-bit retirements is DCGM's soft limit, a failure there only when they keep coming (more than one a week),
 * which one run cannot see: a WARN. */
#define RETIRED_PAGES_FAIL 63       /* DCGM_LIMIT_MAX_RETIRED_PAGES (60 before DCGM matched the field diag) */
#define RETIRED_DBE_WARN 15         /* DCGM_LIMIT_MAX_RETIRED_PAGES_SOFT_LIMIT */
/* DCGM 4.6.0 common/DcgmGPUHardwareLimits.h: "This number of uncorrectable row remaps indicates GPU is in a bad
 * state"; DcgmHealthWatch.cpp MonitorMemRowRemapUncorrectable warns (DCGM_HEALTH_RESULT_WARN,
 * DCGM_FR_UNCORRECTABLE_ROW_REMAP_LIMIT, next step: run the field diagnostic) when the count meets or exceeds it */
#define ROW_REMAP_UNC_WARN 512      /* DCGM_LIMIT_MAX_ROW_REMAP_UNCORRECTABLE */

void nvs_he_eval_ecc(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    put(x->expected, sizeof x->expected, "0 uncorrectable");
    x->expected_v = 0;
    if (b->ecc_enabled < 0 && b->ecc_unc_volatile < 0 && b->ecc_unc_aggregate < 0) {
        nvs_he_unsupported(x, g, "ECC mode and counters");
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
    if (vol < 0 && agg < 0) nvs_he_unsupported(x, g, "uncorrectable ECC counters");
}

void nvs_he_eval_memory(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *a = &g->before, *b = now_of(g);
    put(x->expected, sizeof x->expected, "nothing pending or failed");
    int remap = b->remap_pending >= 0 || b->remap_failure >= 0, retire = b->retired_pending >= 0;
    if (!remap && !retire) {
        nvs_he_unsupported(x, g, "row remapping and page retirement");
        return;
    }
    if (remap)
        put(x->measured, sizeof x->measured, "remapped rows %lld+%lld", b->remap_corr < 0 ? 0 : b->remap_corr,
            b->remap_unc < 0 ? 0 : b->remap_unc);
    else if (b->retired_sbe >= 0 && b->retired_dbe >= 0)
        put(x->measured, sizeof x->measured, "retired pages %lld+%lld", b->retired_sbe, b->retired_dbe);
    else { /* page retirement without its counts: "0+0" would pass a GPU whose 63 retired pages nobody read */
        put(x->measured, sizeof x->measured, "retired pages unknown");
        nvs_he_not_judged(x, g, "the retired page counts are not reported (nvmlDeviceGetRetiredPages), so the 63-page "
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
