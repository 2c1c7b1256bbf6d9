/* Health checks of the PCIe link (PURE): generation and width against the maximum (downtraining, a slot that
 * limits the GPU), and replays during the run. Part of the evaluation of health facts (health_eval.c). */
#include <math.h>
#include <stdio.h>

#include "health/health_eval_priv.h"

/* NVIDIA's number, from DCGM's health watches (DCGM's dcgm_gpu_hardware_limits.h and DcgmHealthWatch.cpp): "8
 * replays per minute is the maximum recommended by RM" (above: a warning). */
#define PCIE_REPLAY_WARN_PER_MIN 8.0 /* DCGM_LIMIT_MAX_PCIREPLAY_RATE: the flat limit, where gen/width are unknown */

static int maxi(int a, int b) { return a > b ? a : b; }
/* the lower of two known (> 0) values, -1 when neither is known */
static int min_known(int a, int b) { return a <= 0 ? (b > 0 ? b : -1) : b <= 0 || a < b ? a : b; }

void nvs_he_eval_pcie(nvs_health_finding *x, const nvs_health_gpu *g)
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
        nvs_he_unsupported(x, g, "PCIe generation/width or their maximum");
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

void nvs_he_eval_pcie_replay(nvs_health_finding *x, const nvs_health_gpu *g, double window_s)
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
        nvs_he_unsupported(x, g, "PCIe replay counter");
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
