/* Health checks of what holds a GPU's clocks down (PURE): clock event (throttle) reasons, the clocks under load,
 * the temperature against the slowdown threshold, the enforced power limit. Part of the evaluation of health facts
 * (health_eval.c). */
#include <math.h>

#include "health/health_eval_priv.h"

/* thresholds of our own (no vendor number exists for them); docs/accept.md explains each */
#define TEMP_MARGIN_C 5             /* WARN within this many degrees of the slowdown threshold */
#define CLOCK_MEAN_MIN_FRAC 0.80    /* WARN when the mean SM clock under load is below this share of max */
#define MEM_CLOCK_MIN_FRAC 0.90     /* WARN when the memory clock under load dropped below this share of max */
#define POWER_LIMIT_MIN_FRAC 0.95   /* WARN when the enforced power limit is below this share of the default */

void nvs_he_eval_throttle(nvs_health_finding *x, const nvs_health_gpu *g)
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
        nvs_he_unsupported(x, g, "clock event (throttle) reasons");
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

void nvs_he_eval_clocks(nvs_health_finding *x, const nvs_health_gpu *g)
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
        nvs_he_unsupported(x, g, "SM clock or its maximum");
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
                 frac * 100, l->busy_samples, l->sm_min_mhz,
                 nvs_health_reason_names(l->reasons_busy, names, sizeof names));
    }
    if (l->mem_min_mhz > 0 && b->mem_max_mhz > 0 && l->mem_min_mhz < MEM_CLOCK_MIN_FRAC * b->mem_max_mhz) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "the memory clock fell to %d of %d MHz under load", l->mem_min_mhz, b->mem_max_mhz);
    }
}

void nvs_he_eval_temperature(nvs_health_finding *x, const nvs_health_gpu *g)
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
        nvs_he_unsupported(x, g, "GPU temperature");
        return;
    }
    x->measured_v = t;
    put(x->measured, sizeof x->measured, "max %d C", t);
    if (slow <= 0) { /* a temperature with nothing to hold it against is not a PASS: not checked */
        nvs_he_not_judged(x, g, "the slowdown threshold is not reported (nvmlDeviceGetTemperatureThreshold), so the "
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

void nvs_he_eval_power(nvs_health_finding *x, const nvs_health_gpu *g)
{
    const nvs_health_snap *b = now_of(g);
    double lim = b->power_limit_w, def = b->power_default_limit_w, peak = g->load.power_max_w;
    if (isnan(peak) || (!isnan(b->power_w) && b->power_w > peak)) peak = b->power_w;
    if (!isnan(def)) put(x->expected, sizeof x->expected, "limit >= %.0f%% of %.0f W", POWER_LIMIT_MIN_FRAC * 100, def);
    else put(x->expected, sizeof x->expected, "the default power limit");
    if (isnan(lim)) {
        nvs_he_unsupported(x, g, "enforced power limit");
        return;
    }
    x->measured_v = lim;
    if (!isnan(peak)) put(x->measured, sizeof x->measured, "peak %.0f W, limit %.0f W", peak, lim);
    else put(x->measured, sizeof x->measured, "limit %.0f W", lim);
    if (isnan(def)) { /* a limit with no default to hold it against is not a PASS: not checked */
        nvs_he_not_judged(x, g, "the default power limit is not reported (nvmlDeviceGetPowerManagementDefaultLimit): "
                         "cannot tell whether the limit was lowered");
        return;
    }
    x->expected_v = def;
    if (lim < POWER_LIMIT_MIN_FRAC * def) {
        worsen(x, NVS_SEV_WARN);
        note_add(x, "the power limit was lowered to %.0f W of the default %.0f W: clocks cap earlier under load", lim,
                 def);
    }
}
