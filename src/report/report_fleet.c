/* The "Fleet" section of several runs of several hosts (fleet/fleet.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "report/md_fmt.h"
#include "report/report_md_int.h"
#include "core/digits.h"

/* The fleet view: every measurement several runs share, against their median; the runs more than
 * NVS_FLEET_MAX_BELOW_PCT below it named; runs of different kinds of machine said first (fleet/fleet.h). */
void nvs_report_fleet_md(const nvs_report *rep, FILE *f)
{
    const nvs_run **rp = malloc((size_t)rep->nruns * sizeof *rp);
    nvs_fleet_samples s = {0};
    nvs_fleet_findings fs = {0};
    if (!rp) return;
    for (int i = 0; i < rep->nruns; i++) rp[i] = &rep->runs[i];
    /* a fleet is several hosts: runs of one host side by side are configurations, compared above */
    int hosts = 0;
    for (int i = 0; i < rep->nruns; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++) seen |= rp[k]->host && rp[i]->host && !strcmp(rp[k]->host, rp[i]->host);
        hosts += !seen;
    }
    if (hosts < 2) goto out;
    fprintf(f, "## Fleet: each measurement against the median of the runs\n\n");
    char why[1200];
    nvs_fleet_machine m0, m;
    nvs_fleet_machine_of(rp[0], &m0);
    int differ = 0;
    for (int i = 1; i < rep->nruns; i++) {
        nvs_fleet_machine_of(rp[i], &m);
        if (!nvs_fleet_machines_differ(&m0, &m, why, sizeof why)) continue;
        fprintf(f, "%sR%d is not the same kind of machine as R1 (", differ++ ? "" : "Compare with care: ", i + 1);
        cell(f, why);
        fprintf(f, ").\n");
    }
    if (differ) fprintf(f, "\n");
    if (nvs_fleet_collect(rp, (size_t)rep->nruns, &s) || nvs_fleet_judge(&s, NVS_FLEET_MAX_BELOW_PCT, &fs)) {
        fprintf(f, "(out of memory)\n\n");
        goto out;
    }
    if (!fs.n) {
        fprintf(f, "No measurement is shared by two runs.\n\n");
        goto out;
    }
    fprintf(f, "| measurement | median | runs | more than %.0f %% below the median |\n|---|---:|---:|---|\n",
            NVS_FLEET_MAX_BELOW_PCT);
    for (size_t i = 0; i < fs.n; i++) {
        if (i && !strcmp(fs.v[i].sample->key, fs.v[i - 1].sample->key)) continue; /* one line per measurement */
        fprintf(f, "| ");
        cell(f, fs.v[i].sample->key);
        fprintf(f, " | %.1f %s | %d | ", fs.v[i].median, fs.v[i].sample->unit, fs.v[i].runs);
        int any = 0;
        for (size_t k = i; k < fs.n && !strcmp(fs.v[k].sample->key, fs.v[i].sample->key); k++) {
            if (!fs.v[k].outlier) continue;
            fprintf(f, "%sR%d (", any++ ? "; " : "", fs.v[k].sample->run + 1);
            cell(f, fs.v[k].sample->host);
            /* decimals enough that a share above the limit never prints as the limit ("10.0 % below" under "more
             * than 10 % below" for 10.04) */
            char got[32];
            snprintf(got, sizeof got, "%.*f", nvs_decimals_apart(fs.v[k].below_pct, NVS_FLEET_MAX_BELOW_PCT, 1),
                     fs.v[k].below_pct);
            fprintf(f, "): %.1f %s, %s %% below", fs.v[k].sample->value, fs.v[k].sample->unit, got);
        }
        fprintf(f, "%s |\n", any ? "" : "none");
    }
    fprintf(f, "\n");
out:
    nvs_fleet_findings_free(&fs);
    nvs_fleet_samples_free(&s);
    free(rp);
}

