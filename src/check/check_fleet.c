/* Fleet and machine rows (check_fleet.h). */
#include "check/check_fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/digits.h"
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
    nvs_fleet_hosts_of(run, NULL, 0, v->host, sizeof v->host); /* a multi-host run: all of its hosts */
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

/* what tells a run from another of its host: its file's name less .json; for a run.json (every run directory
 * holds one) its directory's name; "" when the path has none */
static void run_name(const char *path, char *buf, size_t len)
{
    const char *end = path ? path + strlen(path) : NULL, *p;
    buf[0] = '\0';
    if (!end) return;
    for (p = end; p > path && p[-1] != '/'; p--) {}
    if (!strcmp(p, "run.json")) { /* the directory's name: the component before p */
        for (end = p; end > path && end[-1] == '/'; end--) {}
        for (p = end; p > path && p[-1] != '/'; p--) {}
    } else if (end - p > 5 && !strcmp(end - 5, ".json"))
        end -= 5;
    if (!strcmp(p, "run.json") || end - p == 0 || (end - p == 1 && *p == '.')) return;
    snprintf(buf, len, "%.*s", (int)(end - p), p);
}

/* the same host or hosts: two runs of a 2-host pair node1+node2 are two runs of the same hosts; a run of node1
 * alone is not one of them */
static int same_host(const nvs_run *a, const nvs_run *b)
{
    char ha[64], hb[64];
    nvs_fleet_hosts_of(a, NULL, 0, ha, sizeof ha);
    nvs_fleet_hosts_of(b, NULL, 0, hb, sizeof hb);
    return ha[0] && !strcmp(ha, hb);
}

const char *nvs_check_run_label(const nvs_run *const *runs, size_t nruns, size_t i, char *buf, size_t len)
{
    char hosts[64];
    const char *host = nvs_fleet_hosts_of(runs[i], NULL, 0, hosts, sizeof hosts);
    if (!host[0]) host = runs[i]->path;
    char name[128], other[128];
    int repeats = 0, name_repeats = 0;
    run_name(runs[i]->path, name, sizeof name);
    for (size_t k = 0; k < nruns; k++) {
        if (k == i || !same_host(runs[i], runs[k])) continue;
        repeats = 1;
        run_name(runs[k]->path, other, sizeof other);
        name_repeats |= !strcmp(name, other);
    }
    /* one run of its host: the host alone, as a fleet of different hosts always read */
    if (!repeats) snprintf(buf, len, "%.60s", host ? host : "");
    else if (name[0] && !name_repeats) snprintf(buf, len, "%.60s (%.60s)", host, name);
    else snprintf(buf, len, "%.60s (run %zu)", host, i + 1);
    return buf;
}

int nvs_check_eval_fleet(const nvs_run *const *runs, size_t nruns, double max_below_pct, nvs_verdicts *out)
{
    nvs_fleet_machine m0, m;
    char why[1200], what[160], label[136];
    /* the fleet's kind of machine: the one most runs are of (the first's on a tie), so that the odd host is
     * named, not its peers (one H100 box given first named every H200 box "different machine") */
    nvs_fleet_machine *ms = calloc(nruns, sizeof *ms);
    if (!ms) return -1;
    for (size_t i = 0; i < nruns; i++) nvs_fleet_machine_of(runs[i], &ms[i]);
    size_t ref = 0, best = 0;
    for (size_t i = 0; i < nruns; i++) {
        size_t same = 0;
        for (size_t j = 0; j < nruns; j++) same += !nvs_fleet_machines_differ(&ms[i], &ms[j], why, sizeof why);
        if (same > best) {
            best = same;
            ref = i;
        }
    }
    m0 = ms[ref];
    free(ms);
    for (size_t i = 0; i < nruns; i++) {
        nvs_fleet_machine_of(runs[i], &m);
        if (i == ref || !nvs_fleet_machines_differ(&m0, &m, why, sizeof why)) continue;
        snprintf(what, sizeof what, "fleet machine %s", nvs_check_run_label(runs, nruns, i, label, sizeof label));
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
        /* the run, not only its host: two runs of one machine read "@ vm" both */
        nvs_check_run_label(runs, nruns, (size_t)x->sample->run, label, sizeof label);
        snprintf(v->metric, sizeof v->metric, "fleet %s @ %s", x->sample->key, label);
        /* enough decimals that a FAIL never reads as meeting its limit ("1.7 GB/s >= 1.7 GB/s" did) */
        int d = nvs_decimals_apart(x->sample->value, want, 1);
        snprintf(v->measured, sizeof v->measured, "%.*f %s", d, x->sample->value, x->sample->unit);
        snprintf(v->expected, sizeof v->expected, ">= %.*f %s", d, want, x->sample->unit);
        snprintf(v->margin, sizeof v->margin, "%+.*f %s", d, x->sample->value - want,
                 strcmp(x->sample->unit, "%") ? x->sample->unit : "pts");
        /* "10.0% below" of a row 10.01 % below a 10 % limit read as within it */
        int dp = nvs_decimals_apart(x->below_pct, max_below_pct, 1);
        snprintf(v->note, sizeof v->note, "%.*f%% %s the median %.1f %s of %d runs", dp, fabs(x->below_pct),
                 x->below_pct >= 0 ? "below" : "above", x->median, x->sample->unit, x->runs);
        snprintf(v->rule, sizeof v->rule, "fleet: at most %g%% below the median", max_below_pct);
        snprintf(v->host, sizeof v->host, "%s", x->sample->host);
        /* the units docs/check.md lists for the JSON, JUnit and Prometheus values: GB/s, or a fraction for
         * efficiency (the samples are percents; "%" was a unit no consumer was told of) */
        double scale = !strcmp(x->sample->unit, "GB/s") ? 1 : 0.01;
        v->unit = scale == 1 ? "GB/s" : "fraction";
        v->measured_v = x->sample->value * scale;
        v->expected_v = want * scale;
        v->margin_v = (x->sample->value - want) * scale;
        nvs_verdict_set(out, v, x->outlier ? NVS_SEV_FAIL : NVS_SEV_PASS);
    }
    nvs_fleet_findings_free(&f);
    nvs_fleet_samples_free(&s);
    return rc;
}
