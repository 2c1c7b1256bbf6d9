/* GPU health: facts -> findings (health/health_eval.c) and run.json's health section (health_json*.c), on
 * structs built here: every severity path without NVML. */
#include "health/health.h"
#include "t.h"

/* A healthy H200-like GPU: ECC on and clean, remapper clean, no throttle reasons, gen5 x16, 18 NVLinks with
 * zero error counters, read before and after a 60 s run with busy samples at full clocks. */
static void healthy(nvs_health_gpu *g, int index)
{
    nvs_health_gpu_init(g);
    snprintf(g->host, sizeof g->host, "node1");
    snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:%02x:00.0", 0x18 + index);
    snprintf(g->name, sizeof g->name, "NVIDIA H200");
    g->gpu = index;
    nvs_health_snap *s = &g->before;
    s->ecc_enabled = 1;
    s->ecc_corr_volatile = s->ecc_unc_volatile = s->ecc_corr_aggregate = s->ecc_unc_aggregate = 0;
    s->remap_corr = s->remap_unc = 0;
    s->remap_pending = s->remap_failure = 0;
    s->clock_reasons = 0x1; /* idle */
    s->sm_mhz = 345, s->sm_max_mhz = 1980, s->mem_mhz = 3201, s->mem_max_mhz = 3201;
    s->temp_c = 30, s->temp_slowdown_c = 87, s->temp_shutdown_c = 92;
    s->power_w = 80, s->power_limit_w = 700, s->power_default_limit_w = 700;
    s->pcie_gen = 5, s->pcie_width = 16, s->pcie_max_gen = 5, s->pcie_max_width = 16, s->pcie_gpu_max_gen = 5;
    s->pcie_replay = 3;
    s->nlinks = 18;
    for (int l = 0; l < 18; l++) {
        s->links[l].link = l;
        s->links[l].active = 1;
        s->links[l].replay = s->links[l].recovery = s->links[l].crc_flit = s->links[l].crc_data = 0;
    }
    g->after = g->before;
    g->have_after = 1;
    g->load.samples = 600, g->load.busy_samples = 400;
    g->load.sm_min_mhz = 1755, g->load.sm_mean_mhz = 1900, g->load.mem_min_mhz = 3201;
    g->load.reasons_busy = NVS_CLK_SW_POWER_CAP;
    g->load.temp_max_c = 60, g->load.power_max_w = 690;
    g->load.pcie_gen_max = 5, g->load.pcie_width_max = 16, g->load.pcie_width_min = g->load.pcie_width_min_busy = 16;
    g->xid_watched = 1;
}

static nvs_health_report two(nvs_health_gpu *gpus)
{
    healthy(&gpus[0], 0);
    healthy(&gpus[1], 1);
    nvs_health_report r = {.window_s = 60, .sample_ms = 100, .ngpus = 2, .gpus = gpus};
    snprintf(r.source, sizeof r.source, "nvml, driver 580.159.04");
    return r;
}

/* the finding of one GPU and check */
static const nvs_health_finding *get(const nvs_health_findings *f, int gpu, nvs_health_check c)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].gpu_entry == gpu && f->v[i].check == c) return &f->v[i];
    return NULL;
}

static void t_healthy_passes(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    T_EQ_U(f.n, 2 * NVS_HC_COUNT);
    for (size_t i = 0; i < f.n; i++)
        if (f.v[i].severity != NVS_SEV_PASS) T_FAIL("%s: %s %s", f.v[i].what, nvs_severity_name(f.v[i].severity), f.v[i].note);
    T_CONTAINS(get(&f, 0, NVS_HC_THROTTLE)->note, "SW power cap"); /* shown, but no reason to fail */
    T_EQ_S(get(&f, 1, NVS_HC_NVLINK)->measured, "18 links up");
    T_EQ_S(get(&f, 0, NVS_HC_PCIE)->measured, "gen5 x16");
    T_EQ_S(get(&f, 0, NVS_HC_XID)->measured, "none in 60 s");
    T_CONTAINS(get(&f, 0, NVS_HC_ECC)->what, "GPU0 (0000:18:00.0)");
    nvs_health_findings_free(&f);
}

/* each failure path: the one GPU changed fails that check, the other GPU stays clean */
static nvs_severity sev_after(void (*spoil)(nvs_health_gpu *), nvs_health_check c, char *note, size_t len)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    spoil(&g[1]);
    nvs_health_findings f;
    if (nvs_health_evaluate(&r, &f)) T_FAIL("out of memory");
    nvs_severity s = get(&f, 1, c)->severity;
    snprintf(note, len, "%s", get(&f, 1, c)->note);
    for (int k = 0; k < NVS_HC_COUNT; k++)
        if (get(&f, 0, (nvs_health_check)k)->severity != NVS_SEV_PASS) T_FAIL("GPU0 %s not PASS", nvs_health_check_name(k));
    nvs_health_findings_free(&f);
    return s;
}

static void unc_volatile(nvs_health_gpu *g) { g->after.ecc_unc_volatile = 2; }
static void unc_new_aggregate(nvs_health_gpu *g) { g->after.ecc_unc_aggregate = 1; }
static void unc_old_aggregate(nvs_health_gpu *g) { g->before.ecc_unc_aggregate = g->after.ecc_unc_aggregate = 4; }
static void ecc_off(nvs_health_gpu *g) { g->before.ecc_enabled = g->after.ecc_enabled = 0; }
static void remap_pending(nvs_health_gpu *g) { g->after.remap_pending = 1; }
static void remap_failed(nvs_health_gpu *g) { g->after.remap_failure = 1; }
/* DCGM's DCGM_LIMIT_MAX_ROW_REMAP_UNCORRECTABLE is 512 (a WARN at or over it): 511 stays clean, 512 warns */
static void remap_unc_511(nvs_health_gpu *g) { g->before.remap_unc = g->after.remap_unc = 511; }
static void remap_unc_512(nvs_health_gpu *g) { g->before.remap_unc = g->after.remap_unc = 512; }
/* pending after an uncorrectable error since the driver loaded: DCGM's "drain the GPU and reset it" */
static void remap_pending_unc(nvs_health_gpu *g)
{
    g->after.remap_pending = 1;
    g->after.ecc_unc_volatile = 1;
}
static void remap_failed_pending(nvs_health_gpu *g)
{
    g->after.remap_failure = 1;
    g->after.remap_pending = 1;
}
/* pre-Ampere: a page waiting for the next reset to be retired */
static void retire_pending(nvs_health_gpu *g)
{
    g->before.remap_pending = g->after.remap_pending = g->before.remap_failure = g->after.remap_failure = -1;
    g->before.retired_sbe = g->after.retired_sbe = g->before.retired_dbe = g->after.retired_dbe = 0;
    g->before.retired_pending = 0;
    g->after.retired_pending = 1;
}
static void retire_pending_dbe(nvs_health_gpu *g)
{
    retire_pending(g);
    g->after.ecc_unc_volatile = 1;
}
static void xid(nvs_health_gpu *g)
{
    g->nxid = 1;
    g->xids[0].xid = 79;
    g->xids[0].count = 1;
}
static void xid_unwatched(nvs_health_gpu *g)
{
    g->xid_watched = 0;
    snprintf(g->xid_why, sizeof g->xid_why, "this NVML has no event sets");
}
/* the event set was refused (a call that failed, in read_errors): a WARN naming it, not a SKIP */
static void xid_refused(nvs_health_gpu *g)
{
    g->xid_watched = 0;
    snprintf(g->xid_why, sizeof g->xid_why, "nvmlDeviceRegisterEvents: Insufficient Permissions");
    snprintf(g->read_errors, sizeof g->read_errors, "nvmlDeviceRegisterEvents: Insufficient Permissions");
}
/* a reference value not reported because its call failed: a WARN naming the call */
static void default_power_refused(nvs_health_gpu *g)
{
    g->before.power_default_limit_w = g->after.power_default_limit_w = NAN;
    snprintf(g->read_errors, sizeof g->read_errors, "nvmlDeviceGetPowerManagementDefaultLimit: Unknown Error");
}
static void hw_slowdown(nvs_health_gpu *g) { g->load.reasons_busy |= NVS_CLK_HW_SLOWDOWN; }
static void thermal_idle(nvs_health_gpu *g) { g->after.clock_reasons = NVS_CLK_SW_THERMAL | NVS_CLK_GPU_IDLE; }
static void slow_clocks(nvs_health_gpu *g) { g->load.sm_mean_mhz = 1200; }
static void no_load(nvs_health_gpu *g) { g->load.busy_samples = 0; }
static void hot(nvs_health_gpu *g) { g->load.temp_max_c = 88; }
static void warm(nvs_health_gpu *g) { g->load.temp_max_c = 84; }
static void power_capped(nvs_health_gpu *g) { g->after.power_limit_w = 500; }
static void x8(nvs_health_gpu *g)
{
    g->before.pcie_width = g->after.pcie_width = g->load.pcie_width_max = 8;
    g->load.pcie_width_min = g->load.pcie_width_min_busy = 8;
}
/* x16 before and after the run, x8 in some busy samples: the highest width seen (x16) passed it */
static void x8_under_load(nvs_health_gpu *g) { g->load.pcie_width_min = g->load.pcie_width_min_busy = 8; }
/* a x16 GPU in a x8 slot: NVML's maximum width includes the slot, so current x8 = max x8 (was a PASS) */
static void slot_x8(nvs_health_gpu *g)
{
    x8(g);
    g->before.pcie_max_width = g->after.pcie_max_width = 8;
}
/* the same link on a model nvscale has no datasheet width for: said, not judged */
static void slot_x8_unknown_model(nvs_health_gpu *g)
{
    slot_x8(g);
    snprintf(g->name, sizeof g->name, "NVIDIA Future GPU");
}
/* an unknown model in a x8 slot whose own width sysfs gives (max_link_width 16): judged, not "not known" */
static void slot_x8_sysfs(nvs_health_gpu *g)
{
    slot_x8_unknown_model(g);
    g->before.pcie_gpu_max_width = g->after.pcie_gpu_max_width = 16;
}
/* a model the table says is x16 whose sysfs says x8 (a x8 board): sysfs wins, no slot limit */
static void x8_board_sysfs(nvs_health_gpu *g)
{
    slot_x8(g);
    g->before.pcie_gpu_max_width = g->after.pcie_gpu_max_width = 8;
}
/* a gen5 GPU in a gen4 slot: NVML's maximum generation includes the slot, so gen4 of gen4 (was a PASS);
 * nvmlDeviceGetGpuMaxPcieLinkGeneration says the GPU itself runs gen5 */
static void slot_gen4(nvs_health_gpu *g)
{
    g->before.pcie_gen = g->after.pcie_gen = g->load.pcie_gen_max = 4;
    g->before.pcie_max_gen = g->after.pcie_max_gen = 4;
    g->before.pcie_gpu_max_gen = g->after.pcie_gpu_max_gen = 5;
}
/* the same with a driver that lacks the call (or an older run.json): the GPU's generation is not known */
static void slot_gen4_unknown(nvs_health_gpu *g)
{
    slot_gen4(g);
    g->before.pcie_gpu_max_gen = g->after.pcie_gpu_max_gen = -1;
}
/* x8 once outside load (an idle sample), x16 in every busy sample: the link changed width, data moved at x16 */
static void x8_idle_only(nvs_health_gpu *g) { g->load.pcie_width_min = 8; }
/* x8 after the run only (the reading after it), and no busy sample to say what the run had: it ran at x8 */
static void x8_after_unloaded(nvs_health_gpu *g)
{
    g->after.pcie_width = 8;
    g->load.busy_samples = 0;
    g->load.pcie_width_min_busy = -1;
}
/* a run.json from before the minimum widths were written: judged on the two readings */
static void widths_unrecorded(nvs_health_gpu *g) { g->load.pcie_width_min = g->load.pcie_width_min_busy = -1; }
static void gen3_loaded(nvs_health_gpu *g) { g->before.pcie_gen = g->after.pcie_gen = g->load.pcie_gen_max = 3; }
static void gen1_idle(nvs_health_gpu *g)
{
    g->before.pcie_gen = g->after.pcie_gen = 1;
    g->load.samples = 0;
    g->load.pcie_gen_max = -1;
}
/* level 1: the sampler ran (it always does) but never found the GPU busy; the link sat at its idle gen */
static void gen1_sampled_idle(nvs_health_gpu *g)
{
    g->before.pcie_gen = g->after.pcie_gen = g->load.pcie_gen_max = 1;
    g->load.busy_samples = 0;
}
static void gen1_idle_x8(nvs_health_gpu *g)
{
    gen1_sampled_idle(g);
    x8(g);
}
/* NVML gave the reading but not what it is judged against: cannot be checked, so not a PASS (a SKIP) */
static void no_slowdown_threshold(nvs_health_gpu *g) { g->before.temp_slowdown_c = g->after.temp_slowdown_c = -1; }
static void no_default_power(nvs_health_gpu *g) { g->before.power_default_limit_w = g->after.power_default_limit_w = NAN; }
static void replays(nvs_health_gpu *g) { g->after.pcie_replay = 40; }
static void link_down(nvs_health_gpu *g) { g->before.links[5].active = g->after.links[5].active = 0; }
static void link_dropped(nvs_health_gpu *g) { g->after.links[7].active = 0; }
static void recovery(nvs_health_gpu *g) { g->after.links[3].recovery = 1; }
static void crc_few(nvs_health_gpu *g) { g->after.links[9].crc_flit = 5; }
static void crc_many(nvs_health_gpu *g) { g->after.links[9].crc_data = 250; }
static void crc_rate(nvs_health_gpu *g) { g->after.links[9].crc_data = 6000; } /* 100 a second over 60 s */
static void nvlink_replay(nvs_health_gpu *g) { g->after.links[2].replay = 1; }
static void replays_few(nvs_health_gpu *g) { g->after.pcie_replay = 11; } /* 8 in 60 s */
static void retired_many(nvs_health_gpu *g)
{
    g->before.remap_pending = g->after.remap_pending = g->before.remap_failure = g->after.remap_failure = -1;
    g->before.retired_pending = g->after.retired_pending = 0; /* pre-Ampere: page retirement, no remapper */
    g->after.retired_sbe = 50, g->after.retired_dbe = 13;
}
static void retired_dbe(nvs_health_gpu *g)
{
    retired_many(g);
    g->after.retired_sbe = 0, g->after.retired_dbe = 16;
}
/* pre-Ampere with the pending state read but not the counts: not "retired pages 0+0", PASS */
static void retired_counts_unknown(nvs_health_gpu *g)
{
    retired_many(g);
    g->before.retired_sbe = g->after.retired_sbe = g->before.retired_dbe = g->after.retired_dbe = -1;
}
static void retired_counts_refused(nvs_health_gpu *g)
{
    retired_counts_unknown(g);
    snprintf(g->read_errors, sizeof g->read_errors, "nvmlDeviceGetRetiredPages: Unknown Error");
}
static void no_ecc_at_all(nvs_health_gpu *g)
{
    g->before.ecc_enabled = g->after.ecc_enabled = -1;
    g->before.ecc_unc_volatile = g->after.ecc_unc_volatile = -1;
    g->before.ecc_unc_aggregate = g->after.ecc_unc_aggregate = -1;
}
static void unreadable(nvs_health_gpu *g) { snprintf(g->why, sizeof g->why, "NVML does not know GPU 0000:19:00.0"); }
static void lost_during(nvs_health_gpu *g)
{
    g->lost = (nvs_health_lost){.code = NVS_HEALTH_LOST_CODE};
    snprintf(g->lost.call, sizeof g->lost.call, "nvmlDeviceGetTemperature");
    snprintf(g->lost.when, sizeof g->lost.when, "during the run");
    snprintf(g->lost.text, sizeof g->lost.text, "GPU is lost");
}
static void reset_after(nvs_health_gpu *g)
{
    lost_during(g);
    g->lost.code = NVS_HEALTH_RESET_CODE;
    snprintf(g->lost.when, sizeof g->lost.when, "after the run");
    snprintf(g->lost.text, sizeof g->lost.text, "GPU requires reset");
}
static void replay_refused(nvs_health_gpu *g)
{
    g->before.pcie_replay = g->after.pcie_replay = -1;
    snprintf(g->read_errors, sizeof g->read_errors, "nvmlDeviceGetPcieReplayCounter: Insufficient Permissions");
}

static void t_failure_paths(void)
{
    char n[256];
    T_EQ_I(sev_after(unc_volatile, NVS_HC_ECC, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "2 uncorrectable ECC errors");
    T_EQ_I(sev_after(unc_new_aggregate, NVS_HC_ECC, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "during the run");
    T_EQ_I(sev_after(unc_old_aggregate, NVS_HC_ECC, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "lifetime");
    T_EQ_I(sev_after(ecc_off, NVS_HC_ECC, n, sizeof n), NVS_SEV_WARN);
    /* nothing of it reported: not checked, a SKIP (was a WARN, a passing testcase in JUnit) */
    T_EQ_I(sev_after(no_ecc_at_all, NVS_HC_ECC, n, sizeof n), NVS_SEV_SKIP);
    T_CONTAINS(n, "cannot be checked");
    /* pending alone: the GPU still runs work (NVML, DCGM's health watch), a WARN; it was a FAIL */
    T_EQ_I(sev_after(remap_pending, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "can still run work; reset it (nvidia-smi -r)");
    T_EQ_I(sev_after(remap_pending_unc, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "drain the GPU and reset it");
    T_EQ_I(sev_after(retire_pending, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "page retirement is pending: the GPU can still run work");
    T_EQ_I(sev_after(retire_pending_dbe, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "after a double-bit error");
    T_EQ_I(sev_after(remap_failed, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_FAIL);
    /* DCGM's fact (DCGM_FR_ROW_REMAP_FAILURE, dcgm_errors.h): this GPU, uncorrectable errors, a failed remap, reset */
    T_CONTAINS(n, "GPU1 had uncorrectable memory errors and a row remap failed");
    T_CONTAINS(n, "reset the GPU or reboot the node now");
    /* the uncorrectable remap count against DCGM's 512 (was not looked at: 512 and more passed) */
    T_EQ_I(sev_after(remap_unc_511, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_PASS);
    T_EQ_I(sev_after(remap_unc_512, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "512 rows remapped for uncorrectable errors, at or over DCGM's limit of 512");
    T_EQ_I(sev_after(remap_failed_pending, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "a row remap failed");
    T_CONTAINS(n, "reboot the node now); replace it if it recurs; a row remap is also pending"); /* whole, not cut */
    if (strstr(n, "can still run work")) T_FAIL("a failed remap's note says the GPU can still run work: %s", n);
    T_EQ_I(sev_after(xid, NVS_HC_XID, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "XID 79 x1 (GPU has fallen off the bus)");
    /* what judges nothing is not checked, a SKIP (was a WARN, a passing testcase in JUnit): XID events this NVML
     * cannot watch, no busy sample for the clocks, no reference value for the temperature or the power limit;
     * a call that failed on the way stays a WARN naming it */
    T_EQ_I(sev_after(xid_unwatched, NVS_HC_XID, n, sizeof n), NVS_SEV_SKIP);
    T_CONTAINS(n, "this NVML has no event sets");
    T_EQ_I(sev_after(xid_refused, NVS_HC_XID, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "NVML calls that failed on this GPU: nvmlDeviceRegisterEvents: Insufficient Permissions");
    T_EQ_I(sev_after(default_power_refused, NVS_HC_POWER, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "nvmlDeviceGetPowerManagementDefaultLimit: Unknown Error");
    T_EQ_I(sev_after(hw_slowdown, NVS_HC_THROTTLE, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "HW slowdown");
    T_EQ_I(sev_after(thermal_idle, NVS_HC_THROTTLE, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "SW thermal slowdown");
    T_EQ_I(sev_after(slow_clocks, NVS_HC_CLOCKS, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "61% of max");
    T_EQ_I(sev_after(no_load, NVS_HC_CLOCKS, n, sizeof n), NVS_SEV_SKIP);
    T_CONTAINS(n, "not checked");
    T_EQ_I(sev_after(hot, NVS_HC_TEMPERATURE, n, sizeof n), NVS_SEV_FAIL);
    T_EQ_I(sev_after(warm, NVS_HC_TEMPERATURE, n, sizeof n), NVS_SEV_WARN);
    T_EQ_I(sev_after(power_capped, NVS_HC_POWER, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "lowered to 500 W of the default 700 W");
    T_EQ_I(sev_after(x8, NVS_HC_PCIE, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "x8 of x16");
    T_EQ_I(sev_after(x8_under_load, NVS_HC_PCIE, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "downtrained: x8 of x16 lanes under load");
    T_EQ_I(sev_after(slot_x8, NVS_HC_PCIE, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "slot-limited: the link's maximum (GPU and slot together) is x8, the GPU is x16 (H200 SXM datasheet");
    T_EQ_I(sev_after(slot_x8_unknown_model, NVS_HC_PCIE, n, sizeof n), NVS_SEV_PASS);
    T_CONTAINS(n, "own width is not known to nvscale");
    T_EQ_I(sev_after(slot_x8_sysfs, NVS_HC_PCIE, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "is x8, the GPU is x16 (its Link Capabilities: sysfs max_link_width)");
    T_EQ_I(sev_after(x8_board_sysfs, NVS_HC_PCIE, n, sizeof n), NVS_SEV_PASS);
    T_EQ_I(sev_after(slot_gen4, NVS_HC_PCIE, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "slot-limited: the link's maximum generation (GPU and slot together) is gen4, the GPU is gen5");
    T_EQ_I(sev_after(slot_gen4_unknown, NVS_HC_PCIE, n, sizeof n), NVS_SEV_PASS);
    T_EQ_I(sev_after(x8_idle_only, NVS_HC_PCIE, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "x16 in every busy sample");
    T_EQ_I(sev_after(x8_after_unloaded, NVS_HC_PCIE, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "downtrained: x8 of x16 lanes (");
    T_EQ_I(sev_after(widths_unrecorded, NVS_HC_PCIE, n, sizeof n), NVS_SEV_PASS);
    T_EQ_I(sev_after(gen3_loaded, NVS_HC_PCIE, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "gen3 of gen5 even while");
    /* an idle link's generation is power saving, not a fault: not checked (SKIP); its width still is */
    T_EQ_I(sev_after(gen1_idle, NVS_HC_PCIE, n, sizeof n), NVS_SEV_SKIP);
    T_EQ_I(sev_after(gen1_sampled_idle, NVS_HC_PCIE, n, sizeof n), NVS_SEV_SKIP);
    T_CONTAINS(n, "at idle");
    T_EQ_I(sev_after(gen1_idle_x8, NVS_HC_PCIE, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "x8 of x16");
    T_EQ_I(sev_after(no_slowdown_threshold, NVS_HC_TEMPERATURE, n, sizeof n), NVS_SEV_SKIP);
    T_CONTAINS(n, "cannot be judged");
    T_EQ_I(sev_after(no_default_power, NVS_HC_POWER, n, sizeof n), NVS_SEV_SKIP);
    T_CONTAINS(n, "not reported");
    T_EQ_I(sev_after(replays, NVS_HC_PCIE_REPLAY, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "37 PCIe replays");
    T_EQ_I(sev_after(link_down, NVS_HC_NVLINK, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "17 of 18 links up");
    T_EQ_I(sev_after(link_dropped, NVS_HC_NVLINK, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "link 7 went down during the run");
    T_EQ_I(sev_after(recovery, NVS_HC_NVLINK_ERRORS, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "link 3: 1 recovery");
    T_EQ_I(sev_after(crc_few, NVS_HC_NVLINK_ERRORS, n, sizeof n), NVS_SEV_WARN);
    /* DCGM's limits: CRC errors fail at 100 a second, a replay or a recovery at one; PCIe replays warn above the
     * link's rate (31 a minute at gen5 x16); 63 retired pages fail, more than 15 for double-bit errors warn */
    T_EQ_I(sev_after(crc_many, NVS_HC_NVLINK_ERRORS, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "link 9: 250 CRC errors (4.2 per second, under DCGM's 100)");
    T_EQ_I(sev_after(crc_rate, NVS_HC_NVLINK_ERRORS, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "link 9: 6000 CRC errors, 100 per second (DCGM fails 100)");
    T_EQ_I(sev_after(nvlink_replay, NVS_HC_NVLINK_ERRORS, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "link 2: 1 replay (data sent again)");
    T_EQ_I(sev_after(replays_few, NVS_HC_PCIE_REPLAY, n, sizeof n), NVS_SEV_PASS);
    T_CONTAINS(n, "8 PCIe replays in 60 s: within DCGM's 31 per minute");
    T_EQ_I(sev_after(retired_many, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "63 pages retired (limit 63, as DCGM)");
    T_EQ_I(sev_after(retired_dbe, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "16 pages retired for double-bit errors (more than 15)");
    T_EQ_I(sev_after(retired_counts_unknown, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_SKIP);
    T_CONTAINS(n, "63-page limit cannot be checked");
    T_EQ_I(sev_after(retired_counts_refused, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "nvmlDeviceGetRetiredPages: Unknown Error");
    T_EQ_I(sev_after(unreadable, NVS_HC_ECC, n, sizeof n), NVS_SEV_SKIP);
    T_CONTAINS(n, "NVML does not know");
    /* a GPU lost during the run fails every check, though its readings from before look clean */
    for (int c = 0; c < NVS_HC_COUNT; c++) {
        T_EQ_I(sev_after(lost_during, (nvs_health_check)c, n, sizeof n), NVS_SEV_FAIL);
        T_CONTAINS(n, "nvmlDeviceGetTemperature during the run answered \"GPU is lost\" (NVML 15)");
    }
    T_EQ_I(sev_after(reset_after, NVS_HC_MEMORY, n, sizeof n), NVS_SEV_FAIL);
    T_CONTAINS(n, "after the run answered \"GPU requires reset\" (NVML 16): reset the GPU");
    /* a refused call is named where it left a counter unknown, not called "does not report it" */
    T_EQ_I(sev_after(replay_refused, NVS_HC_PCIE_REPLAY, n, sizeof n), NVS_SEV_WARN);
    T_CONTAINS(n, "NVML calls that failed on this GPU: nvmlDeviceGetPcieReplayCounter: Insufficient Permissions");
}

/* a run written before the window was kept (window_s unknown): replays are held to one minute's count, and no note
 * prints "nan s" */
static void t_no_window(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    r.window_s = NAN;
    g[1].after.pcie_replay = 40;
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    const nvs_health_finding *x = get(&f, 1, NVS_HC_PCIE_REPLAY);
    T_EQ_I(x->severity, NVS_SEV_WARN);
    T_CONTAINS(x->note, "37 PCIe replays (retransmitted packets), over DCGM's 31 per minute");
    for (size_t i = 0; i < f.n; i++)
        if (strstr(f.v[i].note, "nan") || strstr(f.v[i].measured, "nan")) T_FAIL("%s: %s", f.v[i].what, f.v[i].note);
    nvs_health_findings_free(&f);
}

/* the replay counter unread before the run and read after it: no change can be computed (it read "-1 during the
 * run", a PASS, over a counter that may have climbed by any amount) */
static void t_replay_unread_before(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    g[0].before.pcie_replay = -1;
    g[0].after.pcie_replay = 50;
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    const nvs_health_finding *x = get(&f, 0, NVS_HC_PCIE_REPLAY);
    T_EQ_I(x->severity, NVS_SEV_WARN);
    T_EQ_S(x->measured, "50 in total");
    T_CONTAINS(x->note, "not read before the run: no change over the run can be computed");
    T_EQ_I(get(&f, 1, NVS_HC_PCIE_REPLAY)->severity, NVS_SEV_PASS);
    nvs_health_findings_free(&f);
}

/* NVLink error counters unread before the run (every one), read after it with a climbing CRC count: no change can
 * be computed (it read "0 CRC, 0 replay, 0 recovery", a PASS) */
static void t_nvlink_counters_unread_before(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    for (int l = 0; l < 18; l++) {
        nvs_health_link *k = &g[1].before.links[l];
        k->replay = k->recovery = k->crc_flit = k->crc_data = -1;
    }
    g[1].after.links[9].crc_flit = 1000000;
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    const nvs_health_finding *x = get(&f, 1, NVS_HC_NVLINK_ERRORS);
    T_EQ_I(x->severity, NVS_SEV_WARN);
    T_CONTAINS(x->note, "not read before the run: no change over the run can be computed");
    T_EQ_I(get(&f, 0, NVS_HC_NVLINK_ERRORS)->severity, NVS_SEV_PASS);
    nvs_health_findings_free(&f);
}

static void t_blame_link(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    g[0].after.links[4].crc_flit = 3;
    g[0].after.links[11].recovery = 2;
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    const nvs_health_finding *x = get(&f, 0, NVS_HC_NVLINK_ERRORS);
    T_EQ_I(x->severity, NVS_SEV_FAIL);
    T_EQ_I(x->link, 11); /* the recovery outweighs the CRC errors */
    T_EQ_S(x->measured, "3 CRC, 0 replay, 2 recovery");
    nvs_health_findings_free(&f);
}

static void t_no_nvlink_gpu(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    for (int i = 0; i < 2; i++) g[i].before.nlinks = g[i].after.nlinks = 0; /* GeForce: no NVLink */
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    T_EQ_I(get(&f, 0, NVS_HC_NVLINK)->severity, NVS_SEV_PASS);
    T_EQ_S(get(&f, 0, NVS_HC_NVLINK)->measured, "no NVLink");
    T_EQ_I(get(&f, 1, NVS_HC_NVLINK_ERRORS)->severity, NVS_SEV_PASS);
    nvs_health_findings_free(&f);
}

/* NVML lists the links but none is up on any GPU of the model (an NVLink-capable box with every bridge missing):
 * not "no NVLink" and not a PASS without a word, but a WARN, since no GPU shows what it should have */
static void t_nvlink_all_down(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    for (int i = 0; i < 2; i++)
        for (int l = 0; l < g[i].after.nlinks; l++) g[i].before.links[l].active = g[i].after.links[l].active = 0;
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    const nvs_health_finding *x = get(&f, 1, NVS_HC_NVLINK);
    T_EQ_I(x->severity, NVS_SEV_WARN);
    T_EQ_S(x->measured, "0 of 18 links up");
    T_CONTAINS(x->note, "NVML lists 18 NVLinks on this GPU, none up");
    T_EQ_S(get(&f, 0, NVS_HC_NVLINK_ERRORS)->measured, "no link up");
    T_EQ_I(get(&f, 0, NVS_HC_NVLINK_ERRORS)->severity, NVS_SEV_PASS);
    nvs_health_findings_free(&f);
    /* one GPU with its links up: the other's zero is a link down (FAIL), as before */
    for (int l = 0; l < g[0].after.nlinks; l++) g[0].after.links[l].active = 1;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    T_EQ_I(get(&f, 1, NVS_HC_NVLINK)->severity, NVS_SEV_FAIL);
    nvs_health_findings_free(&f);
}

/* A link whose state NVML answered with an error (nvmlDeviceGetNvLinkState: Unknown Error) is neither up nor down:
 * when every GPU failed on the same link, it was left out of the list and "17 links up" of 17 PASSed without a
 * word. Now a WARN naming the link; where the others have more links up that the unread one may account for, a
 * WARN too, and a link known down still FAILs. */
static void t_nvlink_unread(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    for (int i = 0; i < 2; i++) {
        g[i].before.links[7].active = g[i].after.links[7].active = -1;
        g[i].before.links[7].replay = g[i].after.links[7].replay = -1;
        g[i].before.links[7].recovery = g[i].after.links[7].recovery = -1;
        g[i].before.links[7].crc_flit = g[i].after.links[7].crc_flit = -1;
        g[i].before.links[7].crc_data = g[i].after.links[7].crc_data = -1;
        snprintf(g[i].read_errors, sizeof g[i].read_errors, "nvmlDeviceGetNvLinkState: Unknown Error");
    }
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    const nvs_health_finding *x = get(&f, 1, NVS_HC_NVLINK);
    T_EQ_I(x->severity, NVS_SEV_WARN);
    T_EQ_S(x->measured, "17 up, 1 not read");
    T_CONTAINS(x->note, "the state of link 7 was not read (nvmlDeviceGetNvLinkState: Unknown Error)");
    T_EQ_I(get(&f, 1, NVS_HC_NVLINK_ERRORS)->severity, NVS_SEV_PASS);
    nvs_health_findings_free(&f);
    /* only GPU 1 failed on link 7: its 17 of the other's 18 may be that link, a WARN, not a link down */
    g[0].before.links[7].active = g[0].after.links[7].active = 1;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    T_EQ_I(get(&f, 1, NVS_HC_NVLINK)->severity, NVS_SEV_WARN);
    T_EQ_I(get(&f, 0, NVS_HC_NVLINK)->severity, NVS_SEV_PASS);
    nvs_health_findings_free(&f);
    /* and link 5 down besides: 16 known up and one unread cannot make the other's 18, a FAIL */
    g[1].after.links[5].active = 0;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    T_EQ_I(get(&f, 1, NVS_HC_NVLINK)->severity, NVS_SEV_FAIL);
    nvs_health_findings_free(&f);
    /* a state not read before the run is no "went down during the run" */
    g[1].after.links[5].active = 1;
    g[1].before.links[5].active = -1;
    g[1].after.links[7].active = 0;
    g[0].after.links[7].active = 0;
    g[0].before.links[7].active = -1;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    if (strstr(get(&f, 1, NVS_HC_NVLINK)->note, "went down")) T_FAIL("nvlink: %s", get(&f, 1, NVS_HC_NVLINK)->note);
    nvs_health_findings_free(&f);
    /* run.json: an unread state is written null and read back as unread */
    g[1].after.links[7].active = -1;
    json_t *j = nvs_health_to_json(&r);
    T_ASSERT(json_is_null(json_object_get(
        json_array_get(json_object_get(json_object_get(json_array_get(json_object_get(j, "gpus"), 1), "after"), "nvlink"), 7),
        "active")));
    nvs_health_report back;
    char err[256];
    T_EQ_I(nvs_health_from_json(j, &back, err, sizeof err), NVS_OK);
    T_EQ_I(back.gpus[1].after.links[7].active, -1);
    T_EQ_I(back.gpus[1].after.links[6].active, 1);
    nvs_health_report_free(&back);
    json_decref(j);
}

/* XID counts as run.json allows them (each up to 1e9) whose sum passes an int: 4 x 1e9 + 294967296 = 2^32 wrapped
 * to 0 and the GPU read "none", PASS */
static void t_xid_count_sum(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    for (int i = 0; i < 4; i++) {
        g[1].xids[i].xid = 79 + (unsigned)i;
        g[1].xids[i].count = 1000000000;
    }
    g[1].nxid = 4;
    g[1].xid_other = 294967296;
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    T_EQ_I(get(&f, 1, NVS_HC_XID)->severity, NVS_SEV_FAIL);
    T_EQ_S(get(&f, 1, NVS_HC_XID)->measured, "4294967296 XID events");
    nvs_health_findings_free(&f);
}

static void t_json_round_trip(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    xid(&g[1]);
    g[1].after.links[2].recovery = 7;
    g[1].after.power_default_limit_w = NAN;
    g[0].after.pcie_replay = -1;
    x8_under_load(&g[1]);
    g[0].after.pcie_gpu_max_width = 16;
    reset_after(&g[0]);
    snprintf(g[0].read_errors, sizeof g[0].read_errors, "nvmlDeviceGetPowerUsage: Unknown Error");
    json_t *j = nvs_health_to_json(&r);
    T_ASSERT(j);
    char *text = json_dumps(j, JSON_COMPACT);
    T_CONTAINS(text, "\"replay_counter\":null");
    T_CONTAINS(text, "\"event_reason_names\":[\"SW power cap\"]");
    T_CONTAINS(text, "\"events\":[{\"xid\":79,\"count\":1}]");
    T_CONTAINS(text, "\"lost\":{\"code\":16,\"call\":\"nvmlDeviceGetTemperature\",\"when\":\"after the run\"");
    T_CONTAINS(text, "\"lost\":null");
    T_CONTAINS(text, "\"read_errors\":\"nvmlDeviceGetPowerUsage: Unknown Error\"");
    nvs_health_report back;
    char err[256];
    T_EQ_I(nvs_health_from_json(j, &back, err, sizeof err), NVS_OK);
    T_EQ_I(back.ngpus, 2);
    T_EQ_I(back.gpus[1].nxid, 1);
    T_EQ_U(back.gpus[1].xids[0].xid, 79);
    T_EQ_I(back.gpus[1].after.links[2].recovery, 7);
    T_EQ_I(back.gpus[0].after.pcie_replay, -1);
    T_EQ_I(back.gpus[0].after.pcie_gpu_max_gen, 5);
    T_EQ_I(back.gpus[0].after.pcie_gpu_max_width, 16);
    T_EQ_I(back.gpus[1].load.pcie_width_min, 8);
    T_EQ_I(back.gpus[1].load.pcie_width_min_busy, 8);
    T_EQ_I(back.gpus[0].load.pcie_width_min_busy, 16);
    T_ASSERT(isnan(back.gpus[1].after.power_default_limit_w));
    T_NEAR(back.gpus[0].load.sm_mean_mhz, 1900, 1e-9);
    T_EQ_I(back.gpus[0].load.reasons_busy, (long long)NVS_CLK_SW_POWER_CAP);
    T_EQ_S(back.gpus[1].pci_bus_id, "0000:19:00.0");
    T_EQ_I(back.gpus[0].lost.code, NVS_HEALTH_RESET_CODE);
    T_EQ_S(back.gpus[0].lost.text, "GPU requires reset");
    T_EQ_I(back.gpus[1].lost.code, 0);
    T_EQ_S(back.gpus[0].read_errors, "nvmlDeviceGetPowerUsage: Unknown Error");
    /* the evaluation of what was read back is the evaluation of the original */
    nvs_health_findings a, b;
    T_EQ_I(nvs_health_evaluate(&r, &a), 0);
    T_EQ_I(nvs_health_evaluate(&back, &b), 0);
    T_EQ_U(a.n, b.n);
    for (size_t i = 0; i < a.n; i++) {
        T_EQ_I(a.v[i].severity, b.v[i].severity);
        T_EQ_S(a.v[i].note, b.v[i].note);
    }
    nvs_health_findings_free(&a);
    nvs_health_findings_free(&b);
    nvs_health_report_free(&back);
    /* a run.json from before the GPU's own generation was read (no "gpu_max_gen") still reads: unknown */
    json_t *pc = json_object_get(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "after"), "pcie");
    T_ASSERT(pc && json_object_get(pc, "gpu_max_gen") && json_object_get(pc, "gpu_max_width"));
    json_object_del(pc, "gpu_max_gen");
    json_object_del(pc, "gpu_max_width");
    T_EQ_I(nvs_health_from_json(j, &back, err, sizeof err), NVS_OK);
    T_EQ_I(back.gpus[0].after.pcie_gpu_max_gen, -1);
    T_EQ_I(back.gpus[0].after.pcie_gpu_max_width, -1);
    nvs_health_report_free(&back);
    free(text);
    json_decref(j);
}

/* A run.json written before failed NVML calls were recorded (no "read_errors", before 3 December 2026) cannot tell a
 * failed event call or counter read from an unsupported one: what judged nothing there stays the WARN it was
 * written as (it read back as a SKIP, hiding a refused XID watch), and a re-saved copy keeps the key absent. With
 * "read_errors": null (nothing failed) the same facts are a SKIP. */
static void t_json_old_without_read_errors(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    xid_unwatched(&g[0]);
    snprintf(g[0].xid_why, sizeof g[0].xid_why, "nvmlEventSetCreate: Unknown Error");
    no_ecc_at_all(&g[0]);
    json_t *j = nvs_health_to_json(&r);
    T_ASSERT(j);
    for (int old = 0; old < 2; old++) {
        if (old) json_object_del(json_array_get(json_object_get(j, "gpus"), 0), "read_errors");
        nvs_health_report back;
        char err[256];
        T_EQ_I(nvs_health_from_json(j, &back, err, sizeof err), NVS_OK);
        T_EQ_I(back.gpus[0].read_errors_unknown, old);
        T_EQ_I(back.gpus[1].read_errors_unknown, 0);
        nvs_health_findings f;
        T_EQ_I(nvs_health_evaluate(&back, &f), 0);
        const nvs_health_finding *x = get(&f, 0, NVS_HC_XID);
        /* with the key but without the event call in it (3 to 6 December): the why names the failed call, a WARN
         * as when written (was a SKIP) */
        T_EQ_I(x->severity, NVS_SEV_WARN);
        T_CONTAINS(x->note, "nvmlEventSetCreate: Unknown Error");
        T_CONTAINS(x->note, old ? "a failed call is not ruled out" : "the NVML call nvmlEventSetCreate failed");
        T_EQ_I(get(&f, 0, NVS_HC_ECC)->severity, old ? NVS_SEV_WARN : NVS_SEV_SKIP);
        T_EQ_I(get(&f, 1, NVS_HC_XID)->severity, NVS_SEV_PASS); /* watched: nothing to doubt */
        nvs_health_findings_free(&f);
        /* written again (a merged or re-saved run): still without the key, not null ("none failed") */
        json_t *again = nvs_health_to_json(&back);
        T_ASSERT(again);
        T_EQ_I(json_object_get(json_array_get(json_object_get(again, "gpus"), 0), "read_errors") != NULL, !old);
        json_decref(again);
        nvs_health_report_free(&back);
    }
    json_decref(j);
}

/* An XID watch not kept, in a run.json with read_errors but none listed (written 3 to 6 December 2026, before the
 * event calls went to read_errors): a WARN where xid.why names an event call NVML refused with more than "not
 * supported", a SKIP where it names no call or the watch is not offered. */
static void t_json_window_xid_why(void)
{
    static const struct {
        const char *why;
        nvs_severity sev;
    } cases[] = {
        {"nvmlEventSetCreate: Unknown Error", NVS_SEV_WARN},
        {"nvmlDeviceRegisterEvents: Insufficient Permissions", NVS_SEV_WARN},
        {"nvmlEventSetWait_v2 failed after 12 s: Unknown Error", NVS_SEV_WARN},
        {"nvmlEventSetCreate: Not Supported", NVS_SEV_SKIP},
        {"nvmlDeviceRegisterEvents: Not Supported", NVS_SEV_SKIP},
        {"nvmlDeviceRegisterEvents: Invalid Argument", NVS_SEV_SKIP},
        {"this NVML has no event sets", NVS_SEV_SKIP},
        {"this GPU does not deliver XID events", NVS_SEV_SKIP},
        {"", NVS_SEV_SKIP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nvs_health_gpu g[2];
        nvs_health_report r = two(g);
        xid_unwatched(&g[0]);
        snprintf(g[0].xid_why, sizeof g[0].xid_why, "%s", cases[i].why);
        json_t *j = nvs_health_to_json(&r);
        T_ASSERT(j);
        T_ASSERT(json_is_null(json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "read_errors")));
        nvs_health_report back;
        char err[256];
        T_EQ_I(nvs_health_from_json(j, &back, err, sizeof err), NVS_OK);
        nvs_health_findings f;
        T_EQ_I(nvs_health_evaluate(&back, &f), 0);
        const nvs_health_finding *x = get(&f, 0, NVS_HC_XID);
        if (x->severity != cases[i].sev) T_FAIL("case %zu (%s): severity %d, want %d", i, cases[i].why, x->severity, cases[i].sev);
        if (cases[i].why[0]) T_CONTAINS(x->note, cases[i].why);
        nvs_health_findings_free(&f);
        nvs_health_report_free(&back);
        json_decref(j);
    }
}

/* A malformed section: refused with the whole path of the bad field (run.json's reader passes the message on, exit
 * 2), and what it was, so that a hand-edited file is never judged on a guess. */
static void t_json_errors(void)
{
#define G "{\"gpus\": [{\"pci_bus_id\": \"0000:18:00.0\", "
#define L "{\"link\": 0, \"active\": true}, "
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"[]", "expected an object"},
        {"{\"gpus\": 3}", "expected an object"},
        {"{\"gpus\": [{\"host\": \"h\"}]}", "pci_bus_id"},
        {G "\"before\": {\"ecc\": {\"uncorrected_volatile\": \"many\"}}}]}",
         "health.gpus[0].before.ecc.uncorrected_volatile: expected an integer >= 0 or null, got \"many\""},
        {G "\"after\": {\"nvlink\": [{\"active\": true}]}}]}", "health.gpus[0].after.nvlink[0].link: expected an integer"},
        {G "\"after\": {\"nvlink\": [{\"link\": -1}]}}]}", "health.gpus[0].after.nvlink[0].link: expected an integer from 0"},
        {G "\"after\": {\"nvlink\": [{\"link\": 0, \"active\": true, \"crc_flit\": 1.5}]}}]}",
         "health.gpus[0].after.nvlink[0].crc_flit"},
        /* a link's state is always written (null: not read): absent read as "down" would FAIL the GPU on a guess */
        {G "\"after\": {\"nvlink\": [{\"link\": 0, \"active\": 1}]}}]}",
         "health.gpus[0].after.nvlink[0].active: expected true, false or null, got 1"},
        {G "\"before\": {\"nvlink\": [{\"link\": 3}]}}]}",
         "health.gpus[0].before.nvlink[0].active: expected true, false or null (not read)"},
        /* more links than NVML has: those past the 18 kept were never validated nor judged (a 19th down PASSed) */
        {G "\"after\": {\"nvlink\": [" L L L L L L L L L L L L L L L L L L "{\"link\": 18, \"active\": \"x\"}]}}]}",
         "health.gpus[0].after.nvlink: expected at most 18 links (NVML's most), got 19"},
        {G "\"after\": {\"nvlink\": [7]}}]}", "health.gpus[0].after.nvlink: expected an array of"},
        {G "\"after\": {\"nvlink\": {}}}]}", "health.gpus[0].after.nvlink: expected an array or null"},
        /* the reasons' names are for people and read by nothing, but a wrong type is still a hand edit */
        {G "\"before\": {\"clocks\": {\"event_reasons\": 4, \"event_reason_names\": \"SwPowerCap\"}}}]}",
         "health.gpus[0].before.clocks.event_reason_names: expected an array of names or null, got \"SwPowerCap\""},
        {G "\"under_load\": {\"event_reason_names\": [\"SwPowerCap\", 7]}}]}",
         "health.gpus[0].under_load.event_reason_names: expected an array of names or null"},
        {G "\"xid\": {\"events\": [{\"xid\": 79, \"count\": 0}]}}]}",
         "health.gpus[0].xid.events[0].count: expected an integer from 1 to 1000000000, got 0"},
        /* the event's own path (was "health.gpus[0].xid.count") */
        {G "\"xid\": {\"events\": [{\"xid\": 79, \"count\": 1}, {\"xid\": \"79\", \"count\": 1}]}}]}",
         "health.gpus[0].xid.events[1].xid: expected an integer >= 0, got \"79\""},
        {G "\"xid\": {\"events\": [{\"count\": 1}]}}]}", "health.gpus[0].xid.events[0].xid: expected an integer >= 0"},
        {G "\"xid\": {\"events\": [5]}}]}", "health.gpus[0].xid.events[0]: expected {\"xid\": N, \"count\": N >= 1}, got 5"},
        {G "\"xid\": {\"events\": 79}}]}", "health.gpus[0].xid.events: expected an array or null, got 79"},
        {G "\"xid\": {\"why\": 1}}]}", "health.gpus[0].xid.why: expected a string"},
        {G "\"lost\": {\"code\": 3, \"call\": \"x\"}}]}", "health.gpus[0].lost"},
        {G "\"lost\": \"yes\"}]}", "health.gpus[0].lost"},
        {G "\"read_errors\": 4}]}", "health.gpus[0].read_errors"},
        {G "\"lost\": {\"code\": \"15\"}}]}", "health.gpus[0].lost.code: expected"},
        {G "\"lost\": {\"code\": 15, \"when\": 5}}]}", "health.gpus[0].lost.when: expected a string"},
        {"{\"window_s\": 1e300, \"gpus\": []}", "health.window_s: expected a number"},
        {"{\"window_s\": \"120\", \"gpus\": []}", "health.window_s: expected a number"},
        {"{\"window_s\": -5, \"gpus\": []}", "health.window_s: expected a number from 0"},
        {"{\"sample_ms\": \"100\", \"gpus\": []}", "health.sample_ms: expected an integer"},
        {"{\"source\": 5, \"gpus\": []}", "health.source: expected a string"},
        /* the strings and ranges read before 3 December 2026 as "" or a wrapped int */
        {G "\"name\": 5}]}", "health.gpus[0].name: expected a string or null, got 5"},
        {G "\"status\": false}]}", "health.gpus[0].status: expected a string"},
        {G "\"gpu\": \"0\"}]}", "health.gpus[0].gpu: expected an integer"},
        {G "\"before\": {\"power\": {\"draw_w\": -80}}}]}", "health.gpus[0].before.power.draw_w: expected a number from 0"},
        {G "\"before\": {\"power\": {\"limit_w\": 1e308}}}]}", "health.gpus[0].before.power.limit_w: expected a number from 0 to 2^53"},
        {G "\"before\": {\"clocks\": {\"sm_mhz\": 9000000000}}}]}", "health.gpus[0].before.clocks.sm_mhz: expected an integer from 0 to 1000000000"},
        {G "\"before\": {\"pcie\": {\"width\": 16.0}}}]}", "health.gpus[0].before.pcie.width"},
        {G "\"before\": {\"temperature\": []}}]}", "health.gpus[0].before.temperature: expected an object or null"},
        {G "\"before\": 3}]}", "health.gpus[0].before: expected an object"},
        {G "\"under_load\": {\"temp_max_c\": \"hot\"}}]}", "health.gpus[0].under_load.temp_max_c"},
        {G "\"under_load\": {\"power_max_w\": -1}}]}", "health.gpus[0].under_load.power_max_w"},
    };
#undef G
#undef L
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = json_loads(cases[i].json, 0, NULL);
        if (!j) T_FAIL("case %zu does not parse", i);
        nvs_health_report r;
        char err[256] = "";
        T_EQ_I(nvs_health_from_json(j, &r, err, sizeof err), NVS_ERR_INPUT);
        T_CONTAINS(err, cases[i].want);
        json_decref(j);
    }
    /* and the same fields well formed, null or absent read back */
    json_t *ok = json_loads("{\"source\": null, \"window_s\": null, \"sample_ms\": null, \"gpus\": [{\"pci_bus_id\": "
                            "\"0000:18:00.0\", \"name\": null, \"gpu\": 3, \"before\": {\"power\": {\"draw_w\": 80.5}, "
                            "\"nvlink\": [{\"link\": 17, \"active\": false, \"crc_flit\": 2}]}, \"xid\": {\"events\": null}}]}", 0, NULL);
    T_ASSERT(ok);
    nvs_health_report r;
    char err[256] = "";
    T_EQ_I(nvs_health_from_json(ok, &r, err, sizeof err), NVS_OK);
    T_EQ_I(r.gpus[0].gpu, 3);
    T_EQ_I(r.gpus[0].before.links[0].link, 17);
    T_ASSERT(r.gpus[0].before.power_w == 80.5);
    T_ASSERT(isnan(r.window_s));
    /* an unknown window writes null (json_pack's "f" refuses a NAN: the whole section was lost) and reads back */
    json_t *back = nvs_health_to_json(&r);
    T_ASSERT(back);
    T_ASSERT(json_is_null(json_object_get(back, "window_s")));
    json_decref(back);
    nvs_health_report_free(&r);
    json_decref(ok);
}

/* The two readings compared link by link number, not by place: "after" listed in reverse order (a run.json
 * edited or written in another order) changes nothing; link 5, down before the run, did not "go down during" it;
 * link 9's CRC count, high but unchanged, is no error of link 8 */
static void t_links_by_number(void)
{
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    for (int k = 0; k < 2; k++) {
        g[k].before.links[5].active = 0;
        g[k].before.links[9].crc_flit = 500;
        for (int l = 0; l < 18; l++) g[k].after.links[l] = g[k].before.links[17 - l];
    }
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    const nvs_health_finding *nl = get(&f, 0, NVS_HC_NVLINK), *ne = get(&f, 0, NVS_HC_NVLINK_ERRORS);
    T_ASSERT(nl && ne);
    if (strstr(nl->note, "went down during the run")) T_FAIL("nvlink: %s", nl->note);
    T_EQ_S(nl->measured, "17 links up");
    if (ne->severity != NVS_SEV_PASS) T_FAIL("nvlink_errors: %s %s", nvs_severity_name(ne->severity), ne->note);
    /* and a link that does go down is still named, wherever it sits in the list */
    g[1].after.links[17 - 3].active = 0; /* link 3 */
    nvs_health_findings_free(&f);
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    T_CONTAINS(get(&f, 1, NVS_HC_NVLINK)->note, "link 3 went down during the run");
    nvs_health_findings_free(&f);
}

static void t_reason_names(void)
{
    char b[160];
    T_EQ_S(nvs_health_reason_names(0, b, sizeof b), "none");
    T_EQ_S(nvs_health_reason_names(-1, b, sizeof b), "unsupported");
    T_EQ_S(nvs_health_reason_names(NVS_CLK_HW_SLOWDOWN | NVS_CLK_HW_THERMAL, b, sizeof b), "HW slowdown, HW thermal slowdown");
    T_CONTAINS(nvs_health_reason_names(0x400, b, sizeof b), "other (0x400)");
    T_EQ_I(nvs_health_check_parse("nvlink_errors"), NVS_HC_NVLINK_ERRORS);
    T_EQ_I(nvs_health_check_parse("nvlinkerrors"), -1);
}

/* DCGM's replay rate per link (DcgmHealthWatch.cpp GetExpectedPcieReplayRate, since 3.3.8): 1e-12 of the bits a
 * minute, rounded up. The flat 8 a minute warned on a gen5 x16 link at 20, which DCGM passes (limit 31) */
static void t_replay_rate_by_link(void)
{
    T_NEAR(nvs_health_pcie_replay_limit(3, 16), 8, 0);
    T_NEAR(nvs_health_pcie_replay_limit(4, 16), 16, 0);
    T_NEAR(nvs_health_pcie_replay_limit(5, 16), 31, 0);
    T_NEAR(nvs_health_pcie_replay_limit(5, 8), 16, 0);
    T_NEAR(nvs_health_pcie_replay_limit(1, 16), 3, 0);
    T_NEAR(nvs_health_pcie_replay_limit(6, 16), 62, 0);
    T_NEAR(nvs_health_pcie_replay_limit(7, 16), 62, 0); /* beyond gen6: gen6's, as DCGM caps it */
    T_NEAR(nvs_health_pcie_replay_limit(-1, 16), 8, 0); /* unknown: the flat DCGM_LIMIT_MAX_PCIREPLAY_RATE */
    T_NEAR(nvs_health_pcie_replay_limit(5, -1), 8, 0);
    nvs_health_gpu g[2];
    nvs_health_report r = two(g);
    r.window_s = 60;
    g[1].after.pcie_replay = g[1].before.pcie_replay + 20;
    nvs_health_findings f;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    const nvs_health_finding *x = get(&f, 1, NVS_HC_PCIE_REPLAY);
    T_EQ_I(x->severity, NVS_SEV_PASS);
    T_CONTAINS(x->expected, "<= 31 per minute (gen5 x16)");
    nvs_health_findings_free(&f);
    /* the same 20 on a gen3 x16 link: over its 8 */
    for (int i = 0; i < 2; i++) {
        nvs_health_snap *sn[] = {&g[1].before, &g[1].after};
        sn[i]->pcie_gen = sn[i]->pcie_max_gen = 3;
    }
    g[1].load.pcie_gen_max = 3;
    T_EQ_I(nvs_health_evaluate(&r, &f), 0);
    x = get(&f, 1, NVS_HC_PCIE_REPLAY);
    T_EQ_I(x->severity, NVS_SEV_WARN);
    T_CONTAINS(x->note, "20 PCIe replays (retransmitted packets) in 60 s, over DCGM's 8 per minute");
    nvs_health_findings_free(&f);
}

T_LIST = {
    T_CASE(t_healthy_passes), T_CASE(t_no_window), T_CASE(t_failure_paths), T_CASE(t_blame_link),   T_CASE(t_no_nvlink_gpu), T_CASE(t_nvlink_all_down), T_CASE(t_nvlink_unread), T_CASE(t_xid_count_sum),
    T_CASE(t_json_round_trip), T_CASE(t_json_old_without_read_errors), T_CASE(t_json_window_xid_why), T_CASE(t_json_errors), T_CASE(t_reason_names), T_CASE(t_links_by_number),
    T_CASE(t_replay_unread_before), T_CASE(t_nvlink_counters_unread_before),
    T_CASE(t_replay_rate_by_link)};
T_MAIN
