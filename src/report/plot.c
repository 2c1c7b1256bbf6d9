/* Plots of `nvscale report`: gnuplot data files and one script (plots.gp) in the report's directory, then
 * gnuplot as a child process. Every file appears whole or not at all: data and script through out_file.h,
 * images written by gnuplot under temporary names and renamed only when gnuplot succeeded. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/escape.h"
#include "core/out_file.h"
#include "explain/explain.h"
#include "report/report.h"
#include "core/units.h"

/* Image size in pixels: readable on a laptop screen and in a Markdown viewer at full width. */
#define PLOT_W 900
#define PLOT_H 540

int nvs_find_on_path(const char *prog, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    if (!path || !*path) return -1;
    const char *p = path;
    while (1) {
        size_t n = strcspn(p, ":");
        /* an empty PATH entry means the current directory (POSIX) */
        int w = n ? snprintf(buf, len, "%.*s/%s", (int)n, p, prog) : snprintf(buf, len, "./%s", prog);
        struct stat st;
        if (w > 0 && (size_t)w < len && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            return 0;
        if (!p[n]) break;
        p += n + 1;
    }
    return -1;
}

/* A gnuplot single-quoted string: gnuplot expands nothing inside single quotes (no backslash escapes, no
 * `command` substitution; the terminal is noenhanced, so no markup either), a quote is doubled. Control
 * characters, a line end above all, are made visible (core/escape.h) so that nothing ends the command. */
void nvs_plot_quote(FILE *f, const char *s)
{
    char buf[NVS_ESC_SIZE(160)];
    nvs_esc_term(s, buf, sizeof buf);
    fputc('\'', f);
    for (const char *c = buf; *c; c++) {
        if (*c == '\'')
            fputs("''", f);
        else
            fputc(*c == '\t' ? ' ' : *c, f);
    }
    fputc('\'', f);
}

/* A comment line of a data file: one line, whatever the text holds (a line end would start a data row) */
void nvs_plot_comment(FILE *f, const char *text)
{
    fputs("# ", f);
    nvs_esc_fputs(NVS_ESC_TERM, text, f);
    fputc('\n', f);
}

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

typedef struct {
    char title[160];
    int bound;  /* a link bound: a dashed horizontal line, not measured points */
    int nodraw; /* a key entry alone, no data block: a series whose every point was left out */
} series;

typedef struct {
    char file[96];       /* without extension */
    char title[160];
    int kind;            /* 0 busbw lines, 1 efficiency lines, 2 stacked bars */
    series *s;           /* line plots: one per data block */
    int ns;
    int xtics[64], nx;   /* efficiency: the Ns */
    double ymax;         /* efficiency: the largest value drawn (%) */
    int first_label;     /* stacked bars: characters of the first bar's label */
    int placeholder;     /* busbw: every series is a key entry alone (every size failed its check): a figure that
                          * says so, on fixed axes, instead of curves */
} plot_def;

_Static_assert(sizeof((plot_def *)0)->file == sizeof((nvs_plot_ref *)0)->file, "plot file names are copied whole");
_Static_assert(sizeof((plot_def *)0)->title == sizeof((nvs_plot_ref *)0)->title, "plot titles are copied whole");

static nvs_result_t open_out(nvs_outfile *o, const char *dir, const char *name)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        nvs_error("output path too long: %s/%s", dir, name);
        return NVS_ERR_USAGE;
    }
    return nvs_outfile_open(o, path);
}

static nvs_result_t add_series(plot_def *p, const char *title)
{
    series *ns = realloc(p->s, (size_t)(p->ns + 1) * sizeof *ns);
    if (!ns) {
        nvs_error("out of memory");
        return NVS_ERR_NOMEM;
    }
    p->s = ns;
    /* realloc leaves the new series unset: its 'bound' flag drew measured curves dashed, as bounds, at random
     * (found when make check SAN=... regenerated results/h200x2-final's plots with ASan's junk-filled malloc) */
    memset(&p->s[p->ns], 0, sizeof p->s[p->ns]);
    snprintf(p->s[p->ns].title, sizeof p->s[p->ns].title, "%s", title);
    p->ns++;
    return NVS_OK;
}

/* busbw vs size: one data block per (run, N >= 2). */
static nvs_result_t busbw_data(const nvs_report *rep, const char *dir, const char *coll, plot_def *p)
{
    char safe[64], name[128];
    safe_name(coll, safe, sizeof safe);
    snprintf(p->file, sizeof p->file, "busbw_%s", safe);
    snprintf(p->title, sizeof p->title, "%s: bus bandwidth vs message size, per GPU count and transport", coll);
    p->kind = 0;
    snprintf(name, sizeof name, "%s.dat", p->file);
    nvs_outfile o;
    NVS_CHECK(open_out(&o, dir, name));
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
            if (w[0] && rep->nruns > 1 && strstr(name, "(R")) snprintf(title + strlen(title), sizeof title - strlen(title),
                                                                " (R%d)", i + 1);
            if (!points) {
                snprintf(title + strlen(title), sizeof title - strlen(title), ": not drawn, %s failed check",
                         failed == 1 ? "its one size" : "every size");
                res = add_series(p, title);
                if (res == NVS_OK) p->s[p->ns - 1].nodraw = 1;
                nvs_plot_comment(o.f, title); /* no data block: the script draws none for it */
                continue;
            }
            if (failed)
                snprintf(title + strlen(title), sizeof title - strlen(title), " (%d size%s failed check, left out)",
                         failed, failed == 1 ? "" : "s");
            res = add_series(p, title);
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
                res = add_series(p, title);
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
static nvs_result_t efficiency_data(const nvs_report *rep, const char *dir, plot_def *p)
{
    snprintf(p->file, sizeof p->file, "efficiency");
    snprintf(p->title, sizeof p->title, "scaling efficiency vs GPU count");
    p->kind = 1;
    nvs_outfile o;
    NVS_CHECK(open_out(&o, dir, "efficiency.dat"));
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
                res = add_series(p, title);
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
            res = add_series(p, title);
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
        buf[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(" ._-+", c) ? (char)c : '_';
    }
    buf[i] = '\0';
    return buf;
}

/* Step-time breakdown: a stacked bar per (run, N) that adds up to the step: compute, the exposed communication
 * as the run measured it (the table's number), and the rest of the step (since train/split.h: the framework's
 * reducer, compute slowed beside the all-reduces, waiting for a slower rank). All of step - compute was drawn as
 * "exposed communication": 52 ms of a host run whose exposed communication was 1.2 ms. */
static nvs_result_t breakdown_data(const nvs_report *rep, const char *dir, plot_def *p)
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
    NVS_CHECK(open_out(&o, dir, "step_breakdown.dat"));
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

static void script_plot(FILE *f, const plot_def *p, const char *ext)
{
    fprintf(f, "reset\nset output '%s.%s.tmp'\nset title ", p->file, ext);
    nvs_plot_quote(f, p->title);
    fprintf(f, "\nset grid\nset key top left\n");
    if (p->kind == 0 && p->placeholder) {
        fprintf(f, "set xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\nunset grid\nset key below\n"
                   "set label 1 'nothing drawn: every message size of every GPU count failed its result check "
                   "(see the collective''s table)' at graph 0.5,0.5 center\nplot ");
        for (int i = 0; i < p->ns; i++) {
            fputs(i ? ", \\\n     " : "", f);
            fputs("NaN with lines lt nodraw title ", f);
            nvs_plot_quote(f, p->s[i].title);
        }
        fprintf(f, "\n");
    } else if (p->kind == 0) {
        /* log scale on both axes: NVLink (hundreds of GB/s), SHM (tens) and sockets (a few) stay readable on
         * one plot; the bounds are dashed */
        fprintf(f, "set xlabel 'message size (bytes)'\nset ylabel 'busbw (GB/s, log scale)'\nset logscale x 2\n"
                   "set logscale y 10\nset format x '%%.0b%%B'\nset format y '%%g'\nset key below\nplot ");
        for (int i = 0, block = 0; i < p->ns; i++) {
            fputs(i ? ", \\\n     " : "", f);
            if (p->s[i].nodraw) /* its key entry alone: NaN draws nothing, 'lt nodraw' (gnuplot 5) no sample */
                fputs("NaN with lines lt nodraw title ", f);
            else
                fprintf(f, "'%s.dat' index %d using 1:2 with %s title ", p->file, block++,
                        p->s[i].bound ? "lines dt 2 lw 2" : "linespoints");
            nvs_plot_quote(f, p->s[i].title);
        }
        fprintf(f, "\n");
    } else if (p->kind == 1) {
        int lo = p->nx ? p->xtics[0] : 1, hi = lo;
        for (int i = 0; i < p->nx; i++) {
            if (p->xtics[i] < lo) lo = p->xtics[i];
            if (p->xtics[i] > hi) hi = p->xtics[i];
        }
        /* a margin around the first and last N so their points and tics are not on the border; 0-110 %, or up
         * to the largest point: a collective whose busbw grows with N, or a training efficiency above 100 %
         * (the report warns of it), was drawn off a fixed 0-110 % */
        double top = p->ymax > 105 ? ceil(p->ymax * 1.05 / 10) * 10 : 110;
        fprintf(f, "set xlabel 'GPUs (N)'\nset ylabel 'efficiency (%%)'\nset logscale x 2\nset xrange [%g:%g]\n"
                   "set yrange [0:%g]\nset key bottom left\nset xtics (", lo / 1.25, hi * 1.25, top);
        for (int i = 0; i < p->nx; i++) fprintf(f, "%s%d", i ? ", " : "", p->xtics[i]);
        fprintf(f, ")\nplot ");
        for (int i = 0; i < p->ns; i++) {
            fprintf(f, "%s'%s.dat' index %d using 1:2 with linespoints title ", i ? ", \\\n     " : "", p->file, i);
            nvs_plot_quote(f, p->s[i].title);
        }
        fprintf(f, "\n");
    } else {
        /* the labels slant down to the left, ending at their bar: slanting right (-30 degrees), the last bars'
         * labels ran off the image's right edge. The first label then reaches left by cos(30) of its length, so
         * the left margin (in characters) is at least that, less the half bar before the first tic. */
        int lm = (int)ceil(p->first_label * 0.87) - 1;
        if (lm > 10) fprintf(f, "set lmargin %d\n", lm);
        fprintf(f, "set ylabel 'time per step (ms)'\nset style data histograms\nset style histogram rowstacked\n"
                   "set style fill solid 0.85 border -1\nset boxwidth 0.7\nset yrange [0:*]\nset xtics rotate by 30 right\n"
                   /* the key below, off the bars: inside at the top left it hid the first bars' tops, and their
                    * bars hid its "rest" entry, in a run whose steps reach the top of the plot */
                   "set key below horizontal\n"
                   "plot '%s.dat' using 2:xtic(1) title 'compute', '' using 3 title 'exposed communication', "
                   "'' using 4 title 'rest: framework, slowed compute, waiting'\n",
                   p->file);
    }
    fprintf(f, "unset output\n\n");
}

static nvs_result_t write_script(const char *dir, const plot_def *defs, int nd)
{
    nvs_outfile o;
    NVS_CHECK(open_out(&o, dir, "plots.gp"));
    FILE *f = o.f;
    fprintf(f, "# Written by `nvscale report`: run `gnuplot plots.gp` in this directory to redraw the plots.\n"
               "# Images go to NAME.svg.tmp / NAME.png.tmp; nvscale renames them once gnuplot has succeeded.\n\n");
    fprintf(f, "set terminal svg size %d,%d noenhanced font 'Sans,11' background rgb 'white'\n\n", PLOT_W, PLOT_H);
    for (int i = 0; i < nd; i++) script_plot(f, &defs[i], "svg");
    /* pngcairo draws anti-aliased; the older libgd png terminal is the fallback where cairo is missing */
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "  set terminal pngcairo size %d,%d noenhanced font 'Sans,10' background rgb 'white'\n"
               "} else {\n  set terminal png size %d,%d noenhanced\n}\n\n",
            PLOT_W, PLOT_H, PLOT_W, PLOT_H);
    for (int i = 0; i < nd; i++) script_plot(f, &defs[i], "png");
    return nvs_outfile_commit(&o);
}

/* Run `gnuplot plots.gp` in dir; 0 if it exited 0. */
static int run_gnuplot_script(const char *gnuplot, const char *dir, const char *script);
static int run_gnuplot(const char *gnuplot, const char *dir) { return run_gnuplot_script(gnuplot, dir, "plots.gp"); }

int nvs_plot_run_gnuplot(const char *gnuplot, const char *dir, const char *script)
{
    return run_gnuplot_script(gnuplot, dir, script);
}

static int run_gnuplot_script(const char *gnuplot, const char *dir, const char *script)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        nvs_error("cannot start gnuplot: fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* gnuplot's own messages go to stderr; nvscale's stdout stays for its own output */
        if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || chdir(dir) != 0) _exit(126);
        execl(gnuplot, "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            nvs_error("waiting for gnuplot: %s", strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (WIFEXITED(st))
        nvs_error("gnuplot (%s) exited with status %d%s", gnuplot, WEXITSTATUS(st),
                  WEXITSTATUS(st) == 127 ? " (could not be run)" : WEXITSTATUS(st) == 126 ? " (cannot enter the directory)" : "");
    else
        nvs_error("gnuplot (%s) was killed by signal %d", gnuplot, WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    return -1;
}

/* After gnuplot: rename every NAME.EXT.tmp to NAME.EXT (commit), or remove them all (discard). */
static nvs_result_t finish_images(const char *dir, const plot_def *defs, int nd, int commit)
{
    static const char *const exts[] = {"svg", "png"};
    nvs_result_t res = NVS_OK;
    for (int i = 0; i < nd; i++)
        for (int e = 0; e < 2; e++) {
            char tmp[4200], fin[4200];
            if (snprintf(tmp, sizeof tmp, "%s/%s.%s.tmp", dir, defs[i].file, exts[e]) >= (int)sizeof tmp ||
                snprintf(fin, sizeof fin, "%s/%s.%s", dir, defs[i].file, exts[e]) >= (int)sizeof fin) {
                nvs_error("output path too long in %s", dir);
                return NVS_ERR_USAGE;
            }
            struct stat st;
            if (commit && res == NVS_OK) {
                if (stat(tmp, &st) != 0 || st.st_size == 0) {
                    nvs_error("gnuplot did not write %s", tmp);
                    res = NVS_ERR_SYSTEM;
                } else if (rename(tmp, fin) != 0) {
                    nvs_error("cannot rename %s to %s: %s", tmp, fin, strerror(errno));
                    res = NVS_ERR_SYSTEM;
                }
            }
            if (!commit || res != NVS_OK) unlink(tmp);
        }
    return res;
}

nvs_result_t nvs_report_plots(nvs_report *rep, const char *dir)
{
    rep->nplots = 0;
    char gnuplot[4096];
    if (nvs_find_on_path("gnuplot", gnuplot, sizeof gnuplot) != 0) {
        rep->plots = NVS_PLOTS_NO_GNUPLOT;
        nvs_warn("gnuplot is not on PATH: plots skipped (the report is written without them)");
        return NVS_OK;
    }
    plot_def defs[NVS_REPORT_MAX_PLOTS];
    memset(defs, 0, sizeof defs);
    int nd = 0;
    nvs_result_t res = NVS_OK;
    /* every collective of every run, in first-appearance order */
    const char *names[NVS_REPORT_MAX_PLOTS];
    int nn = nvs_report_coll_names(rep, names, NVS_REPORT_MAX_PLOTS - 2);
    for (int c = 0; c < nn && res == NVS_OK; c++) {
        res = busbw_data(rep, dir, names[c], &defs[nd]);
        if (defs[nd].ns) nd++;
    }
    if (res == NVS_OK) {
        res = efficiency_data(rep, dir, &defs[nd]);
        if (defs[nd].ns) nd++;
    }
    if (res == NVS_OK) {
        res = breakdown_data(rep, dir, &defs[nd]);
        if (defs[nd].ns) nd++;
    }
    if (res == NVS_OK && !nd) rep->plots = NVS_PLOTS_NOTHING;
    if (res == NVS_OK && nd) res = write_script(dir, defs, nd);
    if (res == NVS_OK && nd) {
        int ok = run_gnuplot(gnuplot, dir) == 0;
        res = finish_images(dir, defs, nd, ok);
        if (!ok) res = NVS_ERR_SYSTEM;
        rep->plots = res == NVS_OK ? NVS_PLOTS_OK : NVS_PLOTS_FAILED;
    }
    /* also when gnuplot failed: their data and plots.gp are kept (redrawn by hand), not pruned as stale */
    if (nd && rep->plots != NVS_PLOTS_NOTHING)
        for (int i = 0; i < nd; i++) {
            memcpy(rep->plot[i].file, defs[i].file, sizeof rep->plot[i].file);
            memcpy(rep->plot[i].title, defs[i].title, sizeof rep->plot[i].title);
            rep->nplots++;
        }
    for (int i = 0; i < NVS_REPORT_MAX_PLOTS; i++) free(defs[i].s);
    if (res != NVS_OK && rep->plots != NVS_PLOTS_FAILED) rep->plots = NVS_PLOTS_FAILED;
    return res;
}

/* A NAME from plots.gp that may be removed: a plain file name in the directory, of the characters safe_name()
 * and the fixed names use (a plots.gp edited by hand names nothing outside the directory). */
static int plot_file_name_ok(const char *s, size_t n)
{
    if (!n || s[0] == '.') return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

static void read_script(const char *dir, const char *script, nvs_plot_files *old, int *there)
{
    char path[4200], line[512];
    if (snprintf(path, sizeof path, "%s/%s", dir, script) >= (int)sizeof path) return;
    FILE *f = fopen(path, "r");
    if (!f) return;
    *there = 1;
    static const char key[] = "set output '";
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, sizeof key - 1)) continue;
        const char *name = line + sizeof key - 1, *dot = strchr(name, '.');
        if (!dot || (strncmp(dot, ".svg.tmp'", 9) && strncmp(dot, ".png.tmp'", 9))) continue;
        size_t n = (size_t)(dot - name);
        if (!plot_file_name_ok(name, n) || n >= sizeof old->name[0]) continue;
        int seen = 0;
        for (int i = 0; i < old->n && !seen; i++) seen = strlen(old->name[i]) == n && !strncmp(old->name[i], name, n);
        if (!seen && old->n < (int)(sizeof old->name / sizeof old->name[0]))
            snprintf(old->name[old->n++], sizeof old->name[0], "%.*s", (int)n, name);
    }
    fclose(f);
}

void nvs_report_plots_old(const char *dir, nvs_plot_files *old)
{
    memset(old, 0, sizeof *old);
    read_script(dir, "plots.gp", old, &old->script);
    read_script(dir, "model_plots.gp", old, &old->model_script); /* report_model.c's */
}

static void remove_stale(const char *dir, const char *name)
{
    char path[4200];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return;
    if (unlink(path) != 0 && errno != ENOENT)
        nvs_warn("report: could not remove %s, left from an earlier report: %s", path, strerror(errno));
}

void nvs_plot_prune(const char *dir, const nvs_plot_files *old, const char *script, const char *const *names, int n,
                    int drawn)
{
    static const char *const exts[] = {"svg", "png", "dat"};
    for (int i = 0; i < old->n; i++) {
        int current = 0;
        for (int k = 0; k < n && !current; k++) current = !strcmp(names[k], old->name[i]);
        if (current && drawn) continue;
        /* one this report drew again but gnuplot failed on: its data is this report's, the images the old ones */
        for (int e = 0; e < (current ? 2 : 3); e++) {
            char name[112];
            snprintf(name, sizeof name, "%s.%s", old->name[i], exts[e]);
            remove_stale(dir, name);
        }
    }
    if (old->script && !(script && !strcmp(script, "plots.gp"))) remove_stale(dir, "plots.gp");
    if (old->model_script && !(script && !strcmp(script, "model_plots.gp"))) remove_stale(dir, "model_plots.gp");
}

void nvs_report_plots_prune(const char *dir, const nvs_plot_files *old, const nvs_report *rep)
{
    const char *names[NVS_REPORT_MAX_PLOTS];
    for (int k = 0; k < rep->nplots; k++) names[k] = rep->plot[k].file;
    nvs_plot_prune(dir, old, rep->nplots ? "plots.gp" : NULL, names, rep->nplots, rep->plots == NVS_PLOTS_OK);
}
