/* The plots' gnuplot data files (NAME.dat) from the runs, one plot_def each (plot_priv.h): busbw vs size per
 * collective, scaling efficiency vs N, the training step's breakdown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/out_file.h"
#include "core/units.h"
#include "explain/explain.h"
#include "report/plot_priv.h"

/* File-name-safe copy of a collective name. */
static void safe_name(const char *s, char *buf, size_t len)
{
    size_t k = 0;
    for (; *s && k + 1 < len; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        buf[k++] = ok ? c : '_';
    }
    buf[k] = '\0';
}

void nvs_pl_busbw_file(const char *coll, char *buf, size_t len)
{
    char safe[64];
    safe_name(coll, safe, sizeof safe);
    snprintf(buf, len, "busbw_%s", safe);
}

/* busbw vs size: one data block per (run, N >= 2). */
nvs_result_t nvs_pl_busbw_data(const nvs_report *rep, const char *dir, const char *coll, plot_def *p)
{
    char name[128];
    nvs_pl_busbw_file(coll, p->file, sizeof p->file);
    snprintf(p->title, sizeof p->title, "%s: bus bandwidth vs message size, per GPU count and transport", coll);
    p->kind = 0;
    snprintf(name, sizeof name, "%s.dat", p->file);
    nvs_outfile o;
    NVS_CHECK(nvs_pl_open_out(&o, dir, name));
    char head[256];
    snprintf(head, sizeof head, "nvscale report: %s busbw (GB/s) vs bytes; one block per series", coll);
    nvs_plot_comment(o.f, head);
    nvs_result_t res = NVS_OK;
    for (int i = 0; i < rep->nruns && res == NVS_OK; i++) {
        const nvs_run *r = &rep->runs[i];
        int *ns = NULL;
        double *sizes = NULL;
        int kn = nvs_run_coll_ns(r, coll, &ns), ks = nvs_run_coll_sizes(r, coll, &sizes);
        for (int m = 0; m < kn && res == NVS_OK; m++) {
            if (ns[m] < 2) continue; /* busbw is 0 by definition on one GPU */
            /* a row whose result check failed is no point of the curve (the tables say 'failed check'); the
             * series' title says how many were left out, and a series of none of its own is a key entry that says
             * so (it was left off the plot without a word: the plot read as if the run had not measured it) */
            int points = 0, failed = 0;
            for (int s = 0; s < ks; s++) {
                const nvs_run_coll *x = nvs_run_coll_find(r, coll, ns[m], sizes[s]);
                /* a log-scale axis cannot draw 0 (a file's rounded value): such a point is no point */
                if (x && !isnan(x->busbw_gbps) && x->busbw_gbps > 0) nvs_report_failed_check(x) ? failed++ : points++;
            }
            if (!points && !failed) continue;
            char name[160], w[64], title[160];
            nvs_report_run_name(rep, i, name, sizeof name);
            nvs_report_transport(r, ns[m], w, sizeof w);
            snprintf(title, sizeof title, "N=%d %.60s%s%.60s", ns[m], w[0] ? w : name, w[0] ? ", " : "",
                     w[0] ? (r->host ? r->host : "?") : "");
            /* the run's name carries its "(R#)" already where it stands for the transport (w empty) */
            if (w[0] && rep->nruns > 1 && strstr(name, "(R"))
                snprintf(title + strlen(title), sizeof title - strlen(title), " (R%d)", i + 1);
            if (!points) {
                snprintf(title + strlen(title), sizeof title - strlen(title), ": not drawn, %s failed check",
                         failed == 1 ? "its one size" : "every size");
                res = nvs_pl_add_series(p, title);
                if (res == NVS_OK) p->s[p->ns - 1].nodraw = 1;
                nvs_plot_comment(o.f, title); /* no data block: the script draws none for it */
                continue;
            }
            if (failed)
                snprintf(title + strlen(title), sizeof title - strlen(title), " (%d size%s failed check, left out)",
                         failed, failed == 1 ? "" : "s");
            res = nvs_pl_add_series(p, title);
            nvs_plot_comment(o.f, title);
            for (int s = 0; s < ks; s++) {
                const nvs_run_coll *x = nvs_run_coll_find(r, coll, ns[m], sizes[s]);
                /* %.6g: a few-byte size's busbw is ~1e-4 GB/s, which %.4f rounded to 0 or one digit */
                if (x && !isnan(x->busbw_gbps) && x->busbw_gbps > 0 && !nvs_report_failed_check(x))
                    fprintf(o.f, "%.0f %.6g\n", x->bytes, x->busbw_gbps);
            }
            fprintf(o.f, "\n\n");
            /* what the links allow: the bound of the slowest hop of the N GPUs' best ring, drawn across the
             * sizes measured, so that a curve can be read against it (and a curve above it is a red flag) */
            nvs_explain_facts f;
            nvs_explain_facts_from_run(r, ns[m], &f);
            /* an NVLink hop's bound says nothing of a run that went around it (SHM, NET): not drawn there, as the
             * collectives' table gives no % of it */
            if (res == NVS_OK && f.has_hop && isfinite(f.bound_gbps) && f.bound_gbps > 0 && ks > 0 &&
                !nvs_explain_hop_unused(&f)) {
                snprintf(title, sizeof title, "bound N=%d: %s %.0f GB/s%s", ns[m], f.hop_class ? f.hop_class : "link",
                         f.bound_gbps, rep->nruns > 1 ? "" : "");
                if (rep->nruns > 1)
                    snprintf(title + strlen(title), sizeof title - strlen(title), " (%.80s)", name);
                res = nvs_pl_add_series(p, title);
                if (res == NVS_OK) p->s[p->ns - 1].bound = 1;
                fprintf(o.f, "# %s\n%.0f %.4f\n%.0f %.4f\n\n\n", title, sizes[0], f.bound_gbps, sizes[ks - 1],
                        f.bound_gbps);
            }
        }
        free(ns);
        free(sizes);
    }
    int drawn = 0;
    for (int i = 0; i < p->ns; i++) drawn += !p->s[i].nodraw;
    if (res != NVS_OK || !p->ns) {
        nvs_outfile_discard(&o);
        p->ns = 0;
        return res;
    }
    /* key entries alone: every size of every series failed its check. Such a collective got no plot at all (the
     * report's Plots read as if it had not been measured, while a partly failed one said what it left out): a
     * figure on fixed axes (gnuplot cannot scale one on nothing) with the key entries and a line that says so */
    if (!drawn) {
        p->placeholder = 1;
        snprintf(p->title, sizeof p->title, "%.60s: bus bandwidth not drawn, every size failed its result check",
                 coll);
    }
    return nvs_outfile_commit(&o);
}

/* Efficiency vs N: per run, each collective's busbw efficiency and the training step's. */
nvs_result_t nvs_pl_efficiency_data(const nvs_report *rep, const char *dir, plot_def *p)
{
    snprintf(p->file, sizeof p->file, "efficiency");
    snprintf(p->title, sizeof p->title, "scaling efficiency vs GPU count");
    p->kind = 1;
    nvs_outfile o;
    NVS_CHECK(nvs_pl_open_out(&o, dir, "efficiency.dat"));
    fprintf(o.f, "# nvscale report: efficiency (%%) vs GPU count; one block per series\n");
    nvs_result_t res = NVS_OK;
    for (int i = 0; i < rep->nruns && res == NVS_OK; i++) {
        const nvs_run *r = &rep->runs[i];
        char name[160];
        nvs_report_run_name(rep, i, name, sizeof name);
        const char **names = NULL;
        int nn = nvs_run_collective_names(r, &names);
        for (int c = 0; c < nn && res == NVS_OK; c++) {
            double at = nvs_report_common_size(r, names[c]);
            if (isnan(at)) continue;
            int *ns = NULL, base = 0, points = 0;
            int kn = nvs_run_coll_ns(r, names[c], &ns);
            for (int m = 0; m < kn; m++) points += !isnan(nvs_report_coll_efficiency(r, names[c], ns[m], at, &base));
            if (points >= 2) {
                char title[160], sz[32];
                nvs_format_size((size_t)at, sz, sizeof sz);
                snprintf(title, sizeof title, "%.32s busbw at %s vs N=%d%s%.60s", names[c], sz, base,
                         rep->nruns > 1 ? ", " : "", rep->nruns > 1 ? name : "");
                res = nvs_pl_add_series(p, title);
                nvs_plot_comment(o.f, title);
                for (int m = 0; m < kn; m++) {
                    double e = nvs_report_coll_efficiency(r, names[c], ns[m], at, NULL);
                    if (isnan(e)) continue;
                    fprintf(o.f, "%d %.3f\n", ns[m], 100 * e);
                    p->ymax = fmax(p->ymax, 100 * e);
                }
                fprintf(o.f, "\n\n");
                for (int m = 0; m < kn; m++) {
                    int seen = 0;
                    for (int x = 0; x < p->nx && !seen; x++) seen = p->xtics[x] == ns[m];
                    if (!seen && p->nx < 64) p->xtics[p->nx++] = ns[m];
                }
            }
            free(ns);
        }
        free(names);
        /* a series per workload that trained (run.json "trains"): only the first's was drawn */
        for (size_t w = 0; w < nvs_run_workloads(r) && res == NVS_OK; w++) {
            const nvs_run_train *tr = nvs_run_workload(r, w);
            int points = 0;
            for (size_t k = 0; k < tr->nresults; k++) points += !isnan(tr->results[k].efficiency);
            if (points < 2) continue;
            char title[160];
            snprintf(title, sizeof title, "training step (%.40s)%s%.60s", tr->model ? tr->model : "model",
                     rep->nruns > 1 ? ", " : "", rep->nruns > 1 ? name : "");
            res = nvs_pl_add_series(p, title);
            nvs_plot_comment(o.f, title);
            for (size_t k = 0; k < tr->nresults; k++) {
                const nvs_run_train_result *t = &tr->results[k];
                if (isnan(t->efficiency)) continue;
                fprintf(o.f, "%d %.3f\n", t->n, 100 * t->efficiency);
                p->ymax = fmax(p->ymax, 100 * t->efficiency);
                int seen = 0;
                for (int x = 0; x < p->nx && !seen; x++) seen = p->xtics[x] == t->n;
                if (!seen && p->nx < 64) p->xtics[p->nx++] = t->n;
            }
            fprintf(o.f, "\n\n");
        }
    }
    if (res != NVS_OK || !p->ns) {
        nvs_outfile_discard(&o);
        return res;
    }
    return nvs_outfile_commit(&o);
}

/* A model name inside a quoted label of a .dat file: letters, digits and " ._-+" kept, anything else '_' (a
 * quote or a line end from the run.json would break the data file). */
static const char *plot_label(const char *s, char *buf, size_t len)
{
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(" ._-+", c)
                     ? (char)c
                     : '_';
    }
    buf[i] = '\0';
    return buf;
}

/* Step-time breakdown: a stacked bar per (run, N) that adds up to the step: compute, the exposed communication
 * as the run measured it (the table's number), and the rest of the step (since train/split.h: the framework's
 * reducer, compute slowed beside the all-reduces, waiting for a slower rank). All of step - compute was drawn as
 * "exposed communication": 52 ms of a host run whose exposed communication was 1.2 ms. */
nvs_result_t nvs_pl_breakdown_data(const nvs_report *rep, const char *dir, plot_def *p)
{
    snprintf(p->file, sizeof p->file, "step_breakdown");
    snprintf(p->title, sizeof p->title, "training step time: compute, exposed communication and the rest");
    p->kind = 2;
    int rows = 0;
    for (int i = 0; i < rep->nruns; i++)
        for (size_t w = 0; w < nvs_run_workloads(&rep->runs[i]); w++) {
            const nvs_run_train *tr = nvs_run_workload(&rep->runs[i], w);
            for (size_t k = 0; k < tr->nresults; k++)
                rows += !isnan(tr->results[k].step_us) && !isnan(tr->results[k].compute_us);
        }
    if (!rows) return NVS_OK;
    nvs_outfile o;
    NVS_CHECK(nvs_pl_open_out(&o, dir, "step_breakdown.dat"));
    fprintf(o.f, "# nvscale report: label, compute (ms), exposed communication (ms), rest of the step (ms)\n");
    for (int i = 0; i < rep->nruns; i++) {
        char lab[16];
        nvs_report_label(rep, i, lab, sizeof lab);
        /* a bar per workload and N: only the first workload's were drawn; named by model when there are several */
        size_t nw = nvs_run_workloads(&rep->runs[i]);
        for (size_t w = 0; w < nw; w++) {
        const nvs_run_train *tr = nvs_run_workload(&rep->runs[i], w);
        char mod[48] = "";
        if (nw > 1) snprintf(mod, sizeof mod, "%.40s ", tr->model ? tr->model : "model");
        for (size_t k = 0; k < tr->nresults; k++) {
            const nvs_run_train_result *t = &tr->results[k];
            if (isnan(t->step_us) || isnan(t->compute_us)) continue;
            double beyond = t->step_us - t->compute_us; /* what the two upper parts add up to */
            if (beyond < 0) beyond = 0;
            /* a run without the number (none is written so) keeps the old reading: all of it exposed */
            double exposed = isnan(t->exposed_comm_us) ? beyond : t->exposed_comm_us;
            if (exposed < 0) exposed = 0;
            if (exposed > beyond) exposed = beyond;
            char q[48], bar[96];
            snprintf(bar, sizeof bar, "%s%s%sN=%d", lab, lab[0] ? " " : "", plot_label(mod, q, sizeof q), t->n);
            if (!p->first_label) p->first_label = (int)strlen(bar);
            fprintf(o.f, "\"%s\" %.3f %.3f %.3f\n", bar, t->compute_us / 1e3, exposed / 1e3, (beyond - exposed) / 1e3);
        }
        }
    }
    p->ns = 1;
    return nvs_outfile_commit(&o);
}
