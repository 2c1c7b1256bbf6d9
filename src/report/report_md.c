/* The Markdown of `nvscale report` (see docs/report.md for what each section means): the title, each run's
 * sections in order (a file each: report_md_int.h), the several runs' sections, the plots. Deterministic: the same
 * run.json files give the same bytes, so tests compare it with golden files. */
#include <stdio.h>

#include "report/md_fmt.h"
#include "report/report_md_int.h"
#include "report/report_topo.h"

static void plots_section(const nvs_report *rep, FILE *f)
{
    fprintf(f, "## Plots\n\n");
    switch (rep->plots) {
    case NVS_PLOTS_NOT_REQUESTED: fprintf(f, "Plots were not requested (--no-plots).\n"); return;
    case NVS_PLOTS_NO_GNUPLOT:
        fprintf(f, "Plots skipped: gnuplot was not found on PATH. Install it (Debian/Ubuntu: `apt-get install "
                   "gnuplot-nox`) and run `nvscale report` again.\n");
        return;
    case NVS_PLOTS_FAILED: fprintf(f, "Plots failed: gnuplot reported an error (see its messages).\n"); return;
    case NVS_PLOTS_NOTHING: fprintf(f, "Nothing to plot.\n"); return;
    case NVS_PLOTS_OK: break;
    }
    for (int i = 0; i < rep->nplots; i++) {
        /* the file names are ours ([A-Za-z0-9_-], plot_data.c); the titles may hold names from the runs */
        char t[NVS_ESC_SIZE(sizeof rep->plot[i].title)];
        md(rep->plot[i].title, t, sizeof t);
        fprintf(f, "![%s](%s.svg)\n\n%s ([SVG](%s.svg), [PNG](%s.png))\n\n", t, rep->plot[i].file, t,
                rep->plot[i].file, rep->plot[i].file);
    }
}

nvs_result_t nvs_report_write_md(const nvs_report *rep, FILE *f)
{
    if (rep->title) {
        fprintf(f, "# ");
        cell(f, rep->title);
        fprintf(f, "\n\n");
    } else if (rep->nruns == 1) {
        char gpus[256];
        nvs_report_gpus_words(&rep->runs[0], gpus, sizeof gpus);
        fprintf(f, "# nvscale report: ");
        cell(f, rep->runs[0].host ? rep->runs[0].host : "run");
        if (gpus[0]) {
            fprintf(f, ", ");
            cell(f, gpus);
        }
        fprintf(f, "\n\n");
    } else {
        fprintf(f, "# nvscale report: %d runs side by side\n\n", rep->nruns);
    }
    fprintf(f, "Written by `nvscale report` from run.json files; the figures are the runs' own. How to read it: "
               "docs/report.md.\n\n");
    if (rep->nruns > 1) nvs_report_legend_md(rep, f);
    for (int i = 0; i < rep->nruns; i++) {
        const nvs_run *r = &rep->runs[i];
        nvs_report_header_md(rep, i, f);
        nvs_report_sanity_md(r, f);
        nvs_report_topology_md(r, f);
        nvs_report_p2p_md(r, f);
        nvs_report_colls_md(r, f);
        nvs_report_scaling_md(r, f);
        nvs_report_train_md(r, f);
        nvs_report_transports_md(r, f);
        nvs_report_why_md(r, f);
    }
    if (rep->nruns > 1) nvs_report_side_md(rep, f);
    if (rep->nruns > 1) nvs_report_fleet_md(rep, f);
    plots_section(rep, f);
    return NVS_OK;
}
