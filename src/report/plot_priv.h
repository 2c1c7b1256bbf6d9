/* PRIVATE to src/report/: what the files of `nvscale report`'s plots share; no other folder includes this header
 * (report.h is the interface).
 *   plot.c          the order of the work (nvs_report_plots), the images renamed or removed after gnuplot
 *   plot_data.c     the data files: busbw vs size, efficiency vs N, the training step's breakdown
 *   plot_gnuplot.c  gnuplot found on PATH, its script, text quoted for it, gnuplot run
 *   plot_prune.c    an earlier report's plots removed where this one does not draw them again */
#ifndef NVS_REPORT_PLOT_PRIV_H
#define NVS_REPORT_PLOT_PRIV_H

#include "core/err.h"
#include "core/out_file.h"
#include "report/report.h"

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

/* ---- plot.c --------------------------------------------------------------------------------------------- */

/* dir/name opened for writing through out_file.h (whole or not at all) */
nvs_result_t nvs_pl_open_out(nvs_outfile *o, const char *dir, const char *name);

/* The files a plot NAME puts in dir (NAME.dat, NAME.svg, NAME.png and the images' .tmp names gnuplot writes), or
 * SCRIPT when NAME is NULL: the first that is a directory there, its path into buf: 1; else 0 */
int nvs_pl_dir_in_way(const char *dir, const char *name, const char *script, char *buf, size_t len);

/* One more series (data block or key entry) of p, titled `title` */
nvs_result_t nvs_pl_add_series(plot_def *p, const char *title);

/* ---- plot_data.c ---------------------------------------------------------------------------------------- */

/* A collective's plot file name, without extension ("busbw_all_reduce"): its name made file-name-safe */
void nvs_pl_busbw_file(const char *coll, char *buf, size_t len);

/* busbw vs size: one data block per (run, N >= 2). */
nvs_result_t nvs_pl_busbw_data(const nvs_report *rep, const char *dir, const char *coll, plot_def *p);

/* Efficiency vs N: per run, each collective's busbw efficiency and the training step's. */
nvs_result_t nvs_pl_efficiency_data(const nvs_report *rep, const char *dir, plot_def *p);

/* Step-time breakdown: a stacked bar per (run, N): compute, exposed communication, the rest of the step */
nvs_result_t nvs_pl_breakdown_data(const nvs_report *rep, const char *dir, plot_def *p);

/* ---- plot_gnuplot.c ------------------------------------------------------------------------------------- */

/* plots.gp in dir: every plot of defs as SVG, then as PNG */
nvs_result_t nvs_pl_write_script(const char *dir, const plot_def *defs, int nd);

#endif
