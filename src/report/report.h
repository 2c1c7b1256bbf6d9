/* `nvscale report RUN.json [MORE.json ...]`: a Markdown report (report.md) with plots, from run.json files only
 * (no GPU). cli/cmd_report.c parses the command line and writes the files; report_md.c writes the Markdown, a
 * file per section (report_md_int.h); plot*.c the gnuplot data, script and images; explain/explain*.c the "why"
 * paragraphs. What the report contains and how to read it: docs/report.md. */
#ifndef NVS_REPORT_H
#define NVS_REPORT_H

#include <stdio.h>

#include "core/err.h"
#include "runjson/runjson.h"
#include "explain/explain.h"

/* What happened to the plots: the Markdown says so in its "Plots" section. */
enum nvs_plots_state {
    NVS_PLOTS_NOT_REQUESTED = 0, /* --no-plots */
    NVS_PLOTS_NO_GNUPLOT,        /* gnuplot is not on PATH */
    NVS_PLOTS_FAILED,            /* gnuplot ran and failed */
    NVS_PLOTS_NOTHING,           /* no data to plot */
    NVS_PLOTS_OK,
};

#define NVS_REPORT_MAX_PLOTS 32

typedef struct {
    char file[96];   /* image file name without extension, in the report's directory ("busbw_all_reduce") */
    char title[160]; /* alt text / caption */
} nvs_plot_ref;

typedef struct {
    const nvs_run *runs;
    int nruns;
    const char *title;          /* NULL: a default from the runs */
    enum nvs_plots_state plots; /* filled before the Markdown is written */
    /* the plots whose data and script this report wrote; their images are there only when plots is NVS_PLOTS_OK */
    nvs_plot_ref plot[NVS_REPORT_MAX_PLOTS];
    int nplots;
} nvs_report;

/* Write the whole Markdown to f (deterministic: no clock, no absolute paths beyond those given). I/O errors are
 * left in f's error flag for the caller's commit to see. */
nvs_result_t nvs_report_write_md(const nvs_report *rep, FILE *f);

/* Shared by the Markdown and the plots. */
const char *nvs_report_label(const nvs_report *rep, int run, char *buf, size_t len); /* "R1", or "" alone */
/* What a run is, for plot keys: its transport at the largest N and the link under it, and its host ("P2P over
 * NV18, vm", "SHM, vm", "NET/Socket, vm", "mpi, ci-host"), followed by " (R2)" when two runs would read the
 * same. */
const char *nvs_report_run_name(const nvs_report *rep, int run, char *buf, size_t len);
/* Transport word at GPU count n for run i ("P2P", "SHM", ...; "" unknown). */
const char *nvs_report_transport(const nvs_run *r, int n, char *buf, size_t len);
/* Whether a row's result check found wrong elements: its busbw is then no evidence of what the links carried (a
 * collective that moved the wrong data may have moved less of it, and fast: explain uses no such row either) */
int nvs_report_failed_check(const nvs_run_coll *x);
/* Collective scaling efficiency: busbw(n) / busbw(base_n) at `bytes`; NAN if either is missing or failed its
 * result check (wrong elements). base_n is the
 * smallest N >= 2 measured for the collective (busbw is 0 at N = 1 by definition). */
double nvs_report_coll_efficiency(const nvs_run *r, const char *coll, int n, double bytes, int *base_n);
/* The largest size measured for `coll` at every N >= 2 it was measured at (NAN if none). */
double nvs_report_common_size(const nvs_run *r, const char *coll);
/* Every collective of every run, in first-appearance order: at most `cap` names into names[] (the runs' own
 * strings); how many. */
int nvs_report_coll_names(const nvs_report *rep, const char **names, int cap);

/* Plots: data files, script, then gnuplot. Fills rep->plots / plot[] / nplots. Returns NVS_OK also when gnuplot
 * is missing (a notice on stderr); NVS_ERR_SYSTEM when gnuplot or a write failed (already logged). */
nvs_result_t nvs_report_plots(nvs_report *rep, const char *dir);
/* A file the plots would write in dir (a data file, an image, its temporary name, the script) that is a directory
 * there: its path into buf, 1; else 0, also when nothing would be written (gnuplot not on PATH). Checked before
 * anything is written: found by the writer, it failed half-way as a runtime error, after some files were written
 * (nvs_report_model_plots_in_way: the same for a model report's plot) */
int nvs_report_plots_in_way(const nvs_report *rep, const char *dir, char *buf, size_t len);
int nvs_report_model_plots_in_way(const char *dir, char *buf, size_t len);
/* The plots a previous report left in its directory, as its scripts name them (`set output 'NAME.EXT.tmp'`): a
 * run report's plots.gp and a model report's model_plots.gp, both, as either kind of report may be written over
 * either. Read before this report's plots replace a script, then, once report.md is written, every
 * NAME.svg/.png/.dat that this report did not write again is removed (the images alone of those it wrote when
 * gnuplot failed on them), and each script this report did not write. Without it a report into an existing -o
 * directory left the earlier runs' images beside it (a step_breakdown.png of runs no longer in the report, a
 * model_efficiency.png beside a report of runs), and --no-plots or a failed gnuplot left the old images as if
 * current. Only plain file names of nvscale's own kind are taken: nothing outside the directory, nothing the
 * scripts do not name. */
typedef struct {
    char name[2 * NVS_REPORT_MAX_PLOTS][96]; /* NAME, without extension */
    int n;
    int script;       /* plots.gp was there */
    int model_script; /* model_plots.gp was there */
} nvs_plot_files;
void nvs_report_plots_old(const char *dir, nvs_plot_files *old);
/* Prune what `old` names and this report did not write: `script` is the script it wrote ("plots.gp",
 * "model_plots.gp", NULL none), names[0..n) the plots it wrote data for, drawn whether gnuplot drew them. */
void nvs_plot_prune(const char *dir, const nvs_plot_files *old, const char *script, const char *const *names, int n,
                    int drawn);
/* nvs_plot_prune for a run report: its plots (rep->plot[]) and plots.gp. */
void nvs_report_plots_prune(const char *dir, const nvs_plot_files *old, const nvs_report *rep);
/* Full path of gnuplot on PATH into buf; 0 if found, -1 if not. */
int nvs_find_on_path(const char *prog, char *buf, size_t len);
/* Run gnuplot on `script` inside `dir` (its stdout goes to stderr); 0 when it exited 0. */
int nvs_plot_run_gnuplot(const char *gnuplot, const char *dir, const char *script);
/* Text from an input into a gnuplot script or data file (plot_gnuplot.c): a single-quoted gnuplot string (nothing
 * expanded, quotes doubled, control characters made visible: no line end can start a command such as "!cmd"),
 * and a one-line data-file comment. */
void nvs_plot_quote(FILE *f, const char *s);
/* Markdown inline code of an input text (a path, a command line): control characters visible, no backtick or
 * '|' that would end the span or the table cell (report_common.c) */
void nvs_report_md_code(FILE *f, const char *s);
void nvs_plot_comment(FILE *f, const char *text);

/* `nvscale report` of what-if model projections (`nvscale model --format json`, schema nvscale.model/1, kind
 * projection): efficiency vs N per configuration, table and plot (report_model.c). `docs` are the parsed files
 * (borrowed), `names` their paths. Writes dir/report.md. */
#include <jansson.h>
nvs_result_t nvs_report_model(json_t *const *docs, const char *const *names, int n, const char *dir,
                              const char *title, int plots);
/* The checks nvs_report_model makes of its inputs, alone: before anything is written (a refused file leaves no
 * output directory). One message naming the file and the field ("FILE: configurations[0]: ..."; the caller says whose
 * refusal it is: cli's nvs_cli_read_begin). */
nvs_result_t nvs_report_model_check(json_t *const *docs, const char *const *names, int n);
/* 1 when the JSON is a model projection (nvscale.model/1, kind "projection"). */
int nvs_report_is_model(const json_t *doc);

#endif
