/* Fleet and machine rows (check_fleet.h). */
#include "check/check_fleet.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fleet/fleet.h"

static int machine_row(nvs_verdicts *vs, const char *kind, const char *what, const nvs_run *run, const char *why,
                       const char *consequence)
{
    nvs_verdict *v = nvs_verdicts_add(vs, kind);
    if (!v) return -1;
    snprintf(v->metric, sizeof v->metric, "%s", what);
    snprintf(v->measured, sizeof v->measured, "different machine");
    snprintf(v->expected, sizeof v->expected, "the same kind");
    snprintf(v->note, sizeof v->note, "%.120s: %s", why, consequence);
    snprintf(v->host, sizeof v->host, "%s", run->host ? run->host : "");
    snprintf(v->rule, sizeof v->rule, "(always)");
    nvs_verdict_set(vs, v, NVS_SEV_WARN);
    return 0;
}

int nvs_check_eval_machine(const nvs_run *run, const nvs_run *base, nvs_verdicts *out)
{
    nvs_fleet_machine a, b;
    char why[1200];
    nvs_fleet_machine_of(base, &a);
    nvs_fleet_machine_of(run, &b);
    if (!nvs_fleet_machines_differ(&a, &b, why, sizeof why)) return 0;
    return machine_row(out, "baseline", "baseline machine", run, why,
                       "the baseline's numbers may not be this machine's to reach");
}

int nvs_check_eval_fleet(const nvs_run *const *runs, size_t nruns, double max_below_pct, nvs_verdicts *out)
{
    nvs_fleet_machine m0, m;
    char why[1200], what[96];
    nvs_fleet_machine_of(runs[0], &m0);
    for (size_t i = 1; i < nruns; i++) {
        nvs_fleet_machine_of(runs[i], &m);
        if (!nvs_fleet_machines_differ(&m0, &m, why, sizeof why)) continue;
        snprintf(what, sizeof what, "fleet machine %s", runs[i]->host ? runs[i]->host : runs[i]->path);
        if (machine_row(out, "fleet", what, runs[i], why, "compared with the others with care")) return -1;
    }
    nvs_fleet_samples s;
    nvs_fleet_findings f;
    if (nvs_fleet_collect(runs, nruns, &s)) return -1;
    if (nvs_fleet_judge(&s, max_below_pct, &f)) {
        nvs_fleet_samples_free(&s);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < f.n && !rc; i++) {
        const nvs_fleet_finding *x = &f.v[i];
        nvs_verdict *v = nvs_verdicts_add(out, "fleet");
        if (!v) {
            rc = -1;
            break;
        }
        double want = x->median * (1 - max_below_pct / 100);
        snprintf(v->metric, sizeof v->metric, "fleet %s @ %s", x->sample->key, x->sample->host);
        snprintf(v->measured, sizeof v->measured, "%.1f %s", x->sample->value, x->sample->unit);
        snprintf(v->expected, sizeof v->expected, ">= %.1f %s", want, x->sample->unit);
        snprintf(v->margin, sizeof v->margin, "%+.1f %s", x->sample->value - want, x->sample->unit);
        snprintf(v->note, sizeof v->note, "%.1f%% %s the median %.1f %s of %d runs", fabs(x->below_pct),
                 x->below_pct >= 0 ? "below" : "above", x->median, x->sample->unit, x->runs);
        snprintf(v->rule, sizeof v->rule, "fleet: at most %g%% below the median", max_below_pct);
        snprintf(v->host, sizeof v->host, "%s", x->sample->host);
        v->unit = !strcmp(x->sample->unit, "GB/s") ? "GB/s" : "%";
        v->measured_v = x->sample->value;
        v->expected_v = want;
        v->margin_v = x->sample->value - want;
        nvs_verdict_set(out, v, x->outlier ? NVS_SEV_FAIL : NVS_SEV_PASS);
    }
    nvs_fleet_findings_free(&f);
    nvs_fleet_samples_free(&s);
    return rc;
}
