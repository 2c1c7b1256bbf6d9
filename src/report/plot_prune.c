/* The plots an earlier report left in the directory (named by its plots.gp and model_plots.gp), removed where
 * this report does not draw them again (report.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "report/report.h"

/* A NAME from plots.gp that may be removed: a plain file name in the directory, of the characters plot_data.c's
 * safe_name() and the fixed names use (a plots.gp edited by hand names nothing outside the directory). */
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
