/* The rows every run gets whatever the rules ask: its result status, and a WARN for each number that cannot be
 * right (PURE). */
#include <stdio.h>
#include <string.h>

#include "check/check_eval_priv.h"
#include "core/digits.h"
#include "fleet/fleet.h"
#include "runjson/sanity.h"

static int eval_status(const nvs_run *run, nvs_verdicts *vs)
{
    nvs_verdict *v = nvs_ck_new_row(vs, NULL);
    if (!v) return -1;
    snprintf(v->metric, sizeof v->metric, "run result");
    snprintf(v->expected, sizeof v->expected, "ok");
    snprintf(v->rule, sizeof v->rule, "(always)");
    const char *status = run->result_status;
    if (!status) {
        snprintf(v->measured, sizeof v->measured, "none");
        snprintf(v->note, sizeof v->note, "the run has no result section: it did not finish");
        finish(vs, v, 0);
        return 0;
    }
    snprintf(v->measured, sizeof v->measured, "%s", status);
    if (strcmp(status, "ok")) {
        if (run->result_wrong_total > 0)
            snprintf(v->note, sizeof v->note, "%lld wrong elements in the run", run->result_wrong_total);
        else if (!strcmp(status, "interrupted") || !strcmp(status, "running"))
            snprintf(v->note, sizeof v->note, "the run was %s: only what it measured before is judged",
                     !strcmp(status, "running") ? "cut short (a checkpoint)" : "interrupted");
        else
            snprintf(v->note, sizeof v->note, "the run reported status '%s'%s%.120s", status,
                     run->result_reason ? ": " : "", run->result_reason ? run->result_reason : "");
    }
    finish(vs, v, !strcmp(status, "ok"));
    return 0;
}

int nvs_check_run_wrong(nvs_verdicts *vs)
{
    nvs_verdict *v = NULL;
    for (size_t i = 0; i < vs->n && !v; i++)
        if (!strcmp(vs->v[i].kind, "run") && !strcmp(vs->v[i].metric, "run result")) v = &vs->v[i];
    if (v && v->severity == NVS_SEV_FAIL) return 0; /* it says so already, and why */
    if (!v) {
        if (!(v = nvs_ck_new_row(vs, NULL))) return -1;
        snprintf(v->metric, sizeof v->metric, "run result");
        snprintf(v->expected, sizeof v->expected, "ok");
        snprintf(v->rule, sizeof v->rule, "(always)");
    } else if (v->severity == NVS_SEV_WARN) /* recounted below as the FAIL it is */
        vs->warned--;
    else if (v->severity == NVS_SEV_SKIP)
        vs->skipped--;
    char was[sizeof v->measured];
    snprintf(was, sizeof was, "%s", v->measured[0] ? v->measured : "no status");
    snprintf(v->measured, sizeof v->measured, "wrong");
    snprintf(v->note, sizeof v->note, "the run's own result check found wrong elements (exit 3: see its messages), "
             "though its run.json says '%.60s'", was);
    finish(vs, v, 0);
    return 0;
}

/* Numbers of the run that cannot be right as they stand (runjson/sanity.h): a WARN row each, whatever the rules
 * ask, so that check never passes over them in silence (efficiency 146 % from a tiny profile did) */
static int eval_sanity(const nvs_run *run, nvs_verdicts *vs)
{
    nvs_sanity s[16];
    size_t n = nvs_sanity_of(run, s, 16);
    for (size_t i = 0; i < n && i < 16; i++) {
        nvs_verdict *v = nvs_verdicts_add(vs, "sanity");
        if (!v) return -1;
        int eff = !strcmp(s[i].kind, "efficiency");
        snprintf(v->metric, sizeof v->metric, "sanity: %s", s[i].what);
        if (!strcmp(s[i].kind, "unvalidated")) {
            snprintf(v->measured, sizeof v->measured, "%.0f rows not validated", s[i].value);
            snprintf(v->expected, sizeof v->expected, "validated (-c 1)");
        } else {
            double k = eff ? 100 : 1; /* a value over its limit must not print as the limit */
            int d = nvs_decimals_apart(k * s[i].value, k * s[i].limit, 1);
            snprintf(v->measured, sizeof v->measured, eff ? "%.*f%%" : "%.*f GB/s", d, k * s[i].value);
            snprintf(v->expected, sizeof v->expected, eff ? "<= %.*f%%" : "<= %.*f GB/s", d, k * s[i].limit);
            v->measured_v = s[i].value;
            v->expected_v = s[i].limit;
        }
        snprintf(v->note, sizeof v->note, "%s", s[i].text);
        nvs_fleet_hosts_of(run, NULL, 0, v->host, sizeof v->host); /* the run's: every host of it */
        snprintf(v->rule, sizeof v->rule, "(always)");
        nvs_verdict_set(vs, v, NVS_SEV_WARN);
    }
    if (n > 16) {
        nvs_verdict *v = nvs_verdicts_add(vs, "sanity");
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "sanity: %zu more", n - 16);
        snprintf(v->measured, sizeof v->measured, "-");
        snprintf(v->expected, sizeof v->expected, "-");
        snprintf(v->note, sizeof v->note, "%zu more numbers above what their run allows (see nvscale report)", n - 16);
        snprintf(v->rule, sizeof v->rule, "(always)");
        nvs_verdict_set(vs, v, NVS_SEV_WARN);
    }
    return 0;
}

int nvs_ck_run_rows(const nvs_run *run, nvs_verdicts *vs)
{
    return eval_status(run, vs) || eval_sanity(run, vs) ? -1 : 0;
}
