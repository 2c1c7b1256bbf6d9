/* Plots of `nvscale report`: gnuplot data files and one script (plots.gp) in the report's directory, then
 * gnuplot as a child process. Every file appears whole or not at all: data and script through out_file.h,
 * images written by gnuplot under temporary names and renamed only when gnuplot succeeded. This file: the order
 * of that work and the images' renaming; the data files are plot_data.c's, the script and gnuplot itself
 * plot_gnuplot.c's, the removal of an earlier report's plots plot_prune.c's (plot_priv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out_file.h"
#include "report/plot_priv.h"

nvs_result_t nvs_pl_open_out(nvs_outfile *o, const char *dir, const char *name)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        nvs_error("output path too long: %s/%s", dir, name);
        return NVS_ERR_USAGE;
    }
    return nvs_outfile_open(o, path);
}

nvs_result_t nvs_pl_add_series(plot_def *p, const char *title)
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

/* dir/name a directory: its path into buf (also when it is not one) */
static int is_dir_at(const char *dir, const char *name, char *buf, size_t len)
{
    struct stat st;
    snprintf(buf, len, "%s/%s", dir, name);
    return stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
}

int nvs_pl_dir_in_way(const char *dir, const char *name, const char *script, char *buf, size_t len)
{
    static const char *const exts[] = {"dat", "svg", "png", "svg.tmp", "png.tmp"};
    if (!name) return is_dir_at(dir, script, buf, len);
    for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++) {
        char file[128];
        snprintf(file, sizeof file, "%s.%s", name, exts[e]);
        if (is_dir_at(dir, file, buf, len)) return 1;
    }
    return 0;
}

int nvs_report_plots_in_way(const nvs_report *rep, const char *dir, char *buf, size_t len)
{
    char gnuplot[4096];
    if (nvs_find_on_path("gnuplot", gnuplot, sizeof gnuplot) != 0) return 0; /* no plot file is written */
    const char *names[NVS_REPORT_MAX_PLOTS];
    int nn = nvs_report_coll_names(rep, names, NVS_REPORT_MAX_PLOTS - 2); /* as nvs_report_plots takes them */
    for (int c = 0; c < nn; c++) {
        char file[96];
        nvs_pl_busbw_file(names[c], file, sizeof file);
        if (nvs_pl_dir_in_way(dir, file, NULL, buf, len)) return 1;
    }
    return nvs_pl_dir_in_way(dir, "efficiency", NULL, buf, len) ||
           nvs_pl_dir_in_way(dir, "step_breakdown", NULL, buf, len) ||
           nvs_pl_dir_in_way(dir, NULL, "plots.gp", buf, len);
}

/* Run `gnuplot plots.gp` in dir; 0 if it exited 0. */
static int run_gnuplot(const char *gnuplot, const char *dir) { return nvs_plot_run_gnuplot(gnuplot, dir, "plots.gp"); }

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
        res = nvs_pl_busbw_data(rep, dir, names[c], &defs[nd]);
        if (defs[nd].ns) nd++;
    }
    if (res == NVS_OK) {
        res = nvs_pl_efficiency_data(rep, dir, &defs[nd]);
        if (defs[nd].ns) nd++;
    }
    if (res == NVS_OK) {
        res = nvs_pl_breakdown_data(rep, dir, &defs[nd]);
        if (defs[nd].ns) nd++;
    }
    if (res == NVS_OK && !nd) rep->plots = NVS_PLOTS_NOTHING;
    if (res == NVS_OK && nd) res = nvs_pl_write_script(dir, defs, nd);
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
