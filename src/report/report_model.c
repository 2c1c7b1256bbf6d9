/* `nvscale report` of what-if model projections: the efficiency-vs-N curve of every configuration of every
 * projection file (nvscale model --format json), as a Markdown table and a gnuplot plot. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out_file.h"
#include "report/plot_priv.h"
#include "report/report.h"

#include "core/escape.h"

int nvs_report_is_model(const json_t *doc)
{
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    return schema && kind && !strcmp(schema, "nvscale.model/1") && !strcmp(kind, "projection");
}

static double num(const json_t *o, const char *k)
{
    return json_is_number(json_object_get(o, k)) ? json_number_value(json_object_get(o, k)) : NAN;
}

/* Checks what the writers below read, so a hand-edited or truncated projection is refused with the path. */
static nvs_result_t validate(const json_t *doc, const char *name)
{
    json_t *cfgs = json_object_get(doc, "configurations");
    if (!json_is_array(cfgs) || !json_array_size(cfgs)) {
        nvs_error("%s: configurations: expected a non-empty array", name);
        return NVS_ERR_INPUT;
    }
    size_t i, j;
    json_t *c, *p;
    json_array_foreach(cfgs, i, c)
    {
        json_t *pts = json_object_get(c, "points");
        if (!json_is_string(json_object_get(c, "label")) || !json_is_array(pts) || !json_array_size(pts)) {
            nvs_error("%s: configurations[%zu]: needs a label and a non-empty points array", name, i);
            return NVS_ERR_INPUT;
        }
        json_array_foreach(pts, j, p)
        {
            if (!json_is_integer(json_object_get(p, "n")) || !isfinite(num(p, "efficiency")) ||
                !isfinite(num(p, "step_us"))) {
                nvs_error("%s: configurations[%zu].points[%zu]: needs integer n, numbers efficiency and step_us",
                          name, i, j);
                return NVS_ERR_INPUT;
            }
            /* what a projection can hold: a GPU count, an efficiency (a fraction; 10 = 1000 % is already
             * nonsense, but a model's own output stays far below), a step of less than a day */
            json_int_t gn = json_integer_value(json_object_get(p, "n"));
            double e = num(p, "efficiency"), st = num(p, "step_us");
            if (gn < 1 || gn > (1 << 20) || !(e >= 0 && e <= 10) || !(st > 0 && st < 86400e6)) {
                nvs_error("%s: configurations[%zu].points[%zu]: n %lld, efficiency %g, step_us %g: expected n "
                          "from 1 to 1048576, efficiency from 0 to 10 (a fraction), step_us above 0 and below a day",
                          name, i, j, (long long)gn, e, st);
                return NVS_ERR_INPUT;
            }
            /* the optional parts of a step, where given (null: not modelled): a time within the step's bounds */
            static const char *const part[] = {"exposed_comm_us", "interference_us"};
            for (size_t k = 0; k < sizeof part / sizeof part[0]; k++) {
                json_t *v = json_object_get(p, part[k]);
                if (!v || json_is_null(v)) continue;
                double x = json_is_number(v) ? json_number_value(v) : NAN;
                if (!(x >= 0 && x < 86400e6)) {
                    nvs_error("%s: configurations[%zu].points[%zu]: %s: expected a time in us from 0 to a day",
                              name, i, j, part[k]);
                    return NVS_ERR_INPUT;
                }
            }
        }
    }
    return NVS_OK;
}

/* *wrote: model_efficiency.dat and model_plots.gp are this report's; *drawn: and so are the images */
static nvs_result_t write_plot(json_t *const *docs, int n, const char *dir, int *drawn, int *wrote)
{
    *drawn = *wrote = 0;
    char gnuplot[4096];
    if (nvs_find_on_path("gnuplot", gnuplot, sizeof gnuplot) != 0) {
        nvs_warn("gnuplot is not on PATH: plots skipped (the report is written without them)");
        return NVS_OK;
    }
    char path[4300];
    nvs_outfile dat, gp;
    snprintf(path, sizeof path, "%s/model_efficiency.dat", dir);
    NVS_CHECK(nvs_outfile_open(&dat, path));
    snprintf(path, sizeof path, "%s/model_plots.gp", dir);
    nvs_result_t res = nvs_outfile_open(&gp, path);
    if (res != NVS_OK) {
        nvs_outfile_discard(&dat);
        return res;
    }
    fprintf(gp.f,
            "# Written by `nvscale report`: `gnuplot model_plots.gp` in this directory redraws the plot.\n"
            "set grid\nset key bottom left\nset logscale x 2\nset xlabel 'GPUs (N)'\nset ylabel 'efficiency (%%)'\n"
            "set yrange [0:105]\nset title 'what-if model: efficiency vs GPU count'\n");
    int series = 0;
    for (int d = 0; d < n; d++) {
        size_t i, j;
        json_t *c, *p;
        json_array_foreach(json_object_get(docs[d], "configurations"), i, c)
        {
            nvs_plot_comment(dat.f, json_string_value(json_object_get(c, "label")));
            json_array_foreach(json_object_get(c, "points"), j, p)
                fprintf(dat.f, "%lld %.4f\n", (long long)json_integer_value(json_object_get(p, "n")),
                        100 * num(p, "efficiency"));
            fprintf(dat.f, "\n\n");
            series++;
        }
    }
    for (int t = 0; t < 2; t++) {
        fprintf(gp.f, t ? "set terminal svg size 900,520 noenhanced background rgb 'white'\nset output "
                          "'model_efficiency.svg.tmp'\n"
                        : "set terminal pngcairo size 900,520 noenhanced background rgb 'white'\nset output "
                          "'model_efficiency.png.tmp'\n");
        fprintf(gp.f, "plot ");
        int k = 0;
        for (int d = 0; d < n; d++) {
            size_t i;
            json_t *c;
            json_array_foreach(json_object_get(docs[d], "configurations"), i, c)
            {
                fprintf(gp.f, "%s'model_efficiency.dat' index %d using 1:2 with linespoints title ",
                        k ? ", \\\n     " : "", k);
                nvs_plot_quote(gp.f, json_string_value(json_object_get(c, "label")));
                k++;
            }
        }
        fprintf(gp.f, "\nunset output\n");
    }
    res = nvs_outfile_commit(&dat);
    if (res == NVS_OK) res = nvs_outfile_commit(&gp);
    else nvs_outfile_discard(&gp);
    *wrote = res == NVS_OK;
    if (res != NVS_OK || !series) return res;
    int ok = nvs_plot_run_gnuplot(gnuplot, dir, "model_plots.gp") == 0;
    static const char *const ext[] = {"png", "svg"};
    for (int e = 0; e < 2; e++) {
        char tmp[4300], fin[4300];
        struct stat st;
        snprintf(tmp, sizeof tmp, "%s/model_efficiency.%s.tmp", dir, ext[e]);
        snprintf(fin, sizeof fin, "%s/model_efficiency.%s", dir, ext[e]);
        if (ok && stat(tmp, &st) == 0 && st.st_size > 0 && rename(tmp, fin) == 0) continue;
        unlink(tmp);
        ok = 0;
    }
    if (!ok) {
        nvs_error("report: gnuplot did not draw the model plot (see its messages above)");
        return NVS_ERR_SYSTEM;
    }
    *drawn = 1;
    return NVS_OK;
}

int nvs_report_model_plots_in_way(const char *dir, char *buf, size_t len)
{
    char gnuplot[4096];
    if (nvs_find_on_path("gnuplot", gnuplot, sizeof gnuplot) != 0) return 0; /* no plot file is written */
    return nvs_pl_dir_in_way(dir, "model_efficiency", NULL, buf, len) ||
           nvs_pl_dir_in_way(dir, NULL, "model_plots.gp", buf, len);
}

nvs_result_t nvs_report_model_check(json_t *const *docs, const char *const *names, int n)
{
    for (int d = 0; d < n; d++) NVS_CHECK(validate(docs[d], names[d]));
    return NVS_OK;
}

nvs_result_t nvs_report_model(json_t *const *docs, const char *const *names, int n, const char *dir,
                              const char *title, int plots)
{
    NVS_CHECK(nvs_report_model_check(docs, names, n)); /* safe on its own; the CLI checks before making dir */
    int drawn = 0, wrote = 0;
    nvs_plot_files old; /* an earlier report's plots in dir, of either kind: pruned once report.md is written */
    nvs_report_plots_old(dir, &old);
    nvs_result_t plot_res = plots ? write_plot(docs, n, dir, &drawn, &wrote) : NVS_OK;
    char path[4300];
    snprintf(path, sizeof path, "%s/report.md", dir);
    nvs_outfile o;
    NVS_CHECK(nvs_outfile_open(&o, path));
    FILE *f = o.f;
    /* every text below comes from the files or the command line: Markdown-escaped (core/escape.h) */
    fputs("# ", f);
    nvs_esc_fputs(NVS_ESC_MD, title ? title : "What-if model: efficiency vs GPU count", f);
    fprintf(f, "\n\nWritten by `nvscale report` from what-if model projections (`nvscale model --format json`): "
               "modelled, not measured. How the model works and where its numbers come from: docs/model.md.\n\n");
    for (int d = 0; d < n; d++) {
        const char *model = json_string_value(json_object_get(docs[d], "model"));
        fputs("## ", f);
        nvs_report_md_code(f, names[d]);
        if (model) {
            fputs(": ", f);
            nvs_esc_fputs(NVS_ESC_MD, model, f);
        }
        fputs("\n\n", f);
        size_t i, j;
        json_t *c, *p;
        json_array_foreach(json_object_get(docs[d], "configurations"), i, c)
        {
            fputs("### ", f);
            nvs_esc_fputs(NVS_ESC_MD, json_string_value(json_object_get(c, "label")), f);
            fputs("\n\n", f);
            if (json_is_integer(json_object_get(c, "batch"))) {
                const char *src = json_string_value(json_object_get(c, "batch_source"));
                fprintf(f, "Batch %lld per GPU (", (long long)json_integer_value(json_object_get(c, "batch")));
                nvs_esc_fputs(NVS_ESC_MD, src ? src : "given", f);
                fputs(").\n\n", f);
            }
            fprintf(f, "| N | step (ms) | exposed communication (ms) | interference (ms) | efficiency | bottleneck |\n"
                       "|---:|---:|---:|---:|---:|---|\n");
            json_array_foreach(json_object_get(c, "points"), j, p)
            {
                const char *bn = json_string_value(json_object_get(p, "bottleneck"));
                /* interference_us: projections since the model's interference term; older files have none */
                char itf[32] = "-", xc[32] = "-"; /* null or absent: not modelled, not 0 */
                if (isfinite(num(p, "interference_us")))
                    snprintf(itf, sizeof itf, "%.2f", num(p, "interference_us") / 1e3);
                if (isfinite(num(p, "exposed_comm_us")))
                    snprintf(xc, sizeof xc, "%.2f", num(p, "exposed_comm_us") / 1e3);
                fprintf(f, "| %lld | %.2f | %s | %s | %.1f %% | ",
                        (long long)json_integer_value(json_object_get(p, "n")), num(p, "step_us") / 1e3, xc, itf,
                        100 * num(p, "efficiency"));
                nvs_esc_fputs(NVS_ESC_MD, bn ? bn : "", f);
                fputs(" |\n", f);
            }
            fprintf(f, "\n");
        }
    }
    if (drawn) fprintf(f, "## Plot\n\n![efficiency vs N](model_efficiency.svg)\n");
    else
        fprintf(f, "## Plot\n\n%s\n", plots ? "Not drawn (gnuplot missing or failed)." : "Not requested (--no-plots).");
    nvs_result_t res = nvs_outfile_commit(&o);
    if (res == NVS_OK) {
        const char *mine[] = {"model_efficiency"};
        nvs_plot_prune(dir, &old, wrote ? "model_plots.gp" : NULL, mine, wrote, drawn);
        printf("%s\n", path);
    }
    return res != NVS_OK ? res : plot_res;
}
