/* Health facts -> findings with a severity (PURE). What each check looks at and why: docs/accept.md.
 *
 * Counters are judged on what changed DURING the run (after - before) where a change is the symptom (ECC,
 * NVLink and PCIe errors, XIDs), and on the state itself where the state is the problem (pending remaps, a
 * link trained below its maximum, throttle reasons). What the GPU or driver does not report is a SKIP
 * ("unsupported: cannot be checked": not checked, never a silent PASS), and so is what a check had nothing to judge
 * against (no XID event set, no busy sample, no reference value); a call that failed otherwise (no permission, an
 * unknown error) is a WARN naming it.
 *
 * This file makes the findings and runs the checks; the checks themselves are in the files health_eval_priv.h
 * lists, one file per part of the GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/health_eval_priv.h"

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

/* Something the check needs was not there, so it judges nothing: a SKIP (not checked) when nothing failed, a WARN
 * naming the NVML calls that failed on this GPU when some did (no permission, an unknown error deserve a look).
 * A run.json from before failed calls were recorded (no "read_errors") cannot rule a failed call out: a WARN, as it
 * was judged when written (an XID watch whose event call failed read as a SKIP otherwise). */
void nvs_he_not_judged(nvs_health_finding *x, const nvs_health_gpu *g, const char *why)
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

void nvs_he_unsupported(nvs_health_finding *x, const nvs_health_gpu *g, const char *what)
{
    char why[160];
    put(x->measured, sizeof x->measured, "unsupported");
    /* with a failed call, not necessarily "not supported" */
    put(why, sizeof why, "%s: %s, so it cannot be checked", what,
        g->read_errors[0] || g->read_errors_unknown ? "not reported" : "this GPU or driver does not report it");
    nvs_he_not_judged(x, g, why);
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
            case NVS_HC_ECC: nvs_he_eval_ecc(x, g); break;
            case NVS_HC_MEMORY: nvs_he_eval_memory(x, g); break;
            case NVS_HC_XID: nvs_he_eval_xid(x, g, r->window_s); break;
            case NVS_HC_THROTTLE: nvs_he_eval_throttle(x, g); break;
            case NVS_HC_CLOCKS: nvs_he_eval_clocks(x, g); break;
            case NVS_HC_TEMPERATURE: nvs_he_eval_temperature(x, g); break;
            case NVS_HC_POWER: nvs_he_eval_power(x, g); break;
            case NVS_HC_PCIE: nvs_he_eval_pcie(x, g); break;
            case NVS_HC_PCIE_REPLAY: nvs_he_eval_pcie_replay(x, g, r->window_s); break;
            case NVS_HC_NVLINK: nvs_he_eval_nvlink(x, r, gi); break;
            case NVS_HC_NVLINK_ERRORS: nvs_he_eval_nvlink_errors(x, g, r->window_s); break;
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
