/* nvscale compare: the side-by-side output: the status of each transport and the busbw tables, on stdout and in
 * DIR/compare.md with the runs' report after them (cmd_compare_priv.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_compare_priv.h"
#include "compare/compare.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/out_file.h"
#include "core/units.h"
#include "report/report.h"
#include "runjson/runjson.h"

static const char *state_word(const tp_result *t)
{
    switch (t->state) {
    case ST_SKIPPED: return "skipped";
    case ST_RAN:
        if (t->unfinished[0]) return "ran, DID NOT END WELL";
        return t->ver.verdict == NVS_TP_MISMATCH ? "ran, WRONG TRANSPORT" : "ran";
    case ST_FAILED: return "FAILED";
    default: return "not run";
    }
}

/* Markdown cell text: no '|' or newline inside a cell. */
static void cell(FILE *f, const char *s)
{
    nvs_esc_fputs(NVS_ESC_MD, s ? s : "", f); /* core/escape.h: | < > [ ] ` * and line ends */
}

void nvs_cc_status_table(FILE *f, const tp_result *t, int n, int markdown)
{
    if (markdown)
        fprintf(f, "| transport | environment | status | NCCL used | verdict / reason |\n|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const nvs_tp_desc *d = nvs_tp(t[i].kind);
        char env[128] = "", verdict[NVS_PATH_MAX + 1024];
        for (int e = 0; d->env[e]; e++)
            snprintf(env + strlen(env), sizeof env - strlen(env), "%s%s", e ? " " : "", d->env[e]);
        if (!env[0]) snprintf(env, sizeof env, "(unchanged)");
        if (t[i].state == ST_RAN)
            snprintf(verdict, sizeof verdict, "%s%s%s%s%s", t[i].ver.text, t[i].note[0] ? "; " : "", t[i].note,
                     t[i].unfinished[0] ? "; " : "", t[i].unfinished);
        else
            snprintf(verdict, sizeof verdict, "%s", t[i].why);
        char st[NVS_PATH_MAX + 256];
        snprintf(st, sizeof st, "%s%s%s%s", state_word(&t[i]), t[i].status[0] ? " (" : "", t[i].status,
                 t[i].status[0] ? ")" : "");
        if (markdown) {
            fprintf(f, "| %s | `%s` | ", d->name, env);
            cell(f, st);
            fprintf(f, " | ");
            cell(f, t[i].ver.found[0] ? t[i].ver.found : "-");
            fprintf(f, " | ");
            cell(f, verdict);
            fprintf(f, " |\n");
        } else {
            char e1[NVS_ESC_SIZE(sizeof t[i].ver.found)], e2[NVS_ESC_SIZE(sizeof verdict)];
            fprintf(f, "  %-7s %-9s %-28s %s\n", d->name, state_word(&t[i]),
                    nvs_esc_term(t[i].ver.found[0] ? t[i].ver.found : "-", e1, sizeof e1),
                    nvs_esc_term(verdict, e2, sizeof e2));
        }
    }
    if (markdown) fprintf(f, "\n");
}

/* busbw per size, one column per transport that ran, for every (collective, N >= 2) any of them measured; the
 * out-of-place row when both exist (nvs_run_coll_find). The ratio column is against the first transport. */
void nvs_cc_busbw_tables(FILE *f, const tp_result *t, int n, int markdown)
{
    const nvs_run *runs[NVS_TP_COUNT];
    const char *names[NVS_TP_COUNT];
    int nr = 0;
    for (int i = 0; i < n; i++)
        if (t[i].loaded) {
            runs[nr] = &t[i].run;
            names[nr++] = nvs_tp(t[i].kind)->name;
        }
    if (!nr) return;
    const char *colls[64];
    int nc = 0;
    for (int i = 0; i < nr; i++) {
        const char **cn = NULL;
        int k = nvs_run_collective_names(runs[i], &cn);
        for (int j = 0; j < k; j++) {
            int seen = 0;
            for (int m = 0; m < nc; m++) seen |= !strcmp(colls[m], cn[j]);
            if (!seen && nc < 64) colls[nc++] = cn[j];
        }
        free(cn);
    }
    for (int c = 0; c < nc; c++) {
        /* every N and size any run has, however many (-i 1M up to 1G is 1024 sizes: a fixed array kept the first
         * 256 and dropped the largest sizes from the table without a word) */
        int *ns = NULL, kn = 0;
        for (int i = 0; i < nr; i++) {
            int *v = NULL, k = nvs_run_coll_ns(runs[i], colls[c], &v);
            int *grown = k > 0 ? realloc(ns, (size_t)(kn + k) * sizeof *ns) : ns;
            if (!grown) {
                nvs_error("compare: out of memory: the busbw table of %s lacks GPU counts", colls[c]);
                free(v);
                break;
            }
            ns = grown;
            for (int j = 0; j < k; j++)
                if (v[j] >= 2) ns[kn++] = v[j]; /* busbw is 0 at N = 1 */
            free(v);
        }
        kn = nvs_sort_unique_int(ns, kn);
        for (int m = 0; m < kn; m++) {
            double *sizes = NULL;
            int ks = 0;
            for (int i = 0; i < nr; i++) {
                double *v = NULL;
                int k = nvs_run_coll_sizes(runs[i], colls[c], &v);
                double *grown = k > 0 ? realloc(sizes, (size_t)(ks + k) * sizeof *sizes) : sizes;
                if (!grown) {
                    nvs_error("compare: out of memory: the busbw table of %s lacks sizes", colls[c]);
                    free(v);
                    break;
                }
                sizes = grown;
                for (int j = 0; j < k; j++)
                    if (nvs_run_coll_find(runs[i], colls[c], ns[m], v[j])) sizes[ks++] = v[j];
                free(v);
            }
            ks = nvs_sort_unique_double(sizes, ks);
            if (!ks) {
                free(sizes);
                continue;
            }
            char cn[NVS_ESC_SIZE(64)];
            nvs_esc(markdown ? NVS_ESC_MD : NVS_ESC_TERM, colls[c], cn, sizeof cn);
            /* a sweep of several types or ops: each cell is the first out-of-place row, named in the heading */
            char var[64] = "", vn[NVS_ESC_SIZE(64)];
            for (int i = 0; i < nr && !var[0]; i++)
                for (int s = 0; s < ks && !var[0]; s++)
                    nvs_run_coll_variant(runs[i], nvs_run_coll_find(runs[i], colls[c], ns[m], sizes[s]), var,
                                         sizeof var);
            /* a run of --inplace in has no out-of-place row: its in-place rows are shown, and the heading says so
             * (--report-only refused runs whose shown rows differ in kind, nvs_tp_runs_alike) */
            int in = 0, cells = 0, failed = 0;
            for (int i = 0; i < nr; i++)
                for (int s = 0; s < ks; s++) {
                    const nvs_run_coll *x = nvs_run_coll_find(runs[i], colls[c], ns[m], sizes[s]);
                    cells += x != NULL;
                    in += x && x->inplace;
                }
            if (in) snprintf(var + strlen(var), sizeof var - strlen(var), "%s%s", var[0] ? ", " : "",
                             in == cells ? "in-place" : "in-place where there is no out-of-place row");
            nvs_esc(markdown ? NVS_ESC_MD : NVS_ESC_TERM, var, vn, sizeof vn);
            fprintf(f, markdown ? "### %s%s%s, N=%d: busbw (GB/s)\n\n| size |" : "\n%s%s%s, N=%d: busbw (GB/s)\n%10s",
                    cn, var[0] ? " " : "", vn, ns[m], markdown ? "" : "size");
            for (int i = 0; i < nr; i++) fprintf(f, markdown ? " %s |" : " %9s", names[i]);
            for (int i = 1; i < nr; i++) {
                char ratio[32];
                snprintf(ratio, sizeof ratio, "%s/%s", names[i], names[0]);
                fprintf(f, markdown ? " %s |" : " %12s", ratio);
            }
            if (markdown) {
                fprintf(f, "\n|---:|");
                for (int i = 1; i < 2 * nr; i++) fprintf(f, "---:|");
            }
            fprintf(f, "\n");
            for (int s = 0; s < ks; s++) {
                char sz[32], cellb[32];
                nvs_format_size((size_t)sizes[s], sz, sizeof sz);
                fprintf(f, markdown ? "| %s |" : "%10s", sz);
                double v0 = NAN;
                /* a row whose result check found wrong elements (nvs_report_failed_check, the report's one rule):
                 * its busbw is no measurement of the transport, neither a cell nor a side of a ratio */
                for (int i = 0; i < nr; i++) {
                    const nvs_run_coll *x = nvs_run_coll_find(runs[i], colls[c], ns[m], sizes[s]);
                    int bad = nvs_report_failed_check(x);
                    double v = x && !bad ? x->busbw_gbps : NAN;
                    if (i == 0) v0 = v;
                    failed |= bad;
                    /* the terminal's columns are 9 wide: "failed" there, the note below says what */
                    if (bad) snprintf(cellb, sizeof cellb, "%s", markdown ? "failed check" : "failed");
                    else if (isnan(v)) snprintf(cellb, sizeof cellb, "-");
                    else snprintf(cellb, sizeof cellb, "%.2f", v);
                    fprintf(f, markdown ? " %s |" : " %9s", cellb);
                }
                for (int i = 1; i < nr; i++) {
                    const nvs_run_coll *x = nvs_run_coll_find(runs[i], colls[c], ns[m], sizes[s]);
                    double v = x && !nvs_report_failed_check(x) ? x->busbw_gbps : NAN;
                    if (isnan(v) || isnan(v0) || v0 <= 0) snprintf(cellb, sizeof cellb, "-");
                    else snprintf(cellb, sizeof cellb, "%.3f", v / v0);
                    fprintf(f, markdown ? " %s |" : " %12s", cellb);
                }
                fprintf(f, "\n");
            }
            if (failed)
                fprintf(f, "%s%s: the row's result check found wrong elements (its run's collectives' "
                           "tables give its busbw and how many): no measurement of the transport, and no ratio is "
                           "taken from it.\n", markdown ? "\n" : "", markdown ? "failed check" : "failed");
            if (markdown) fprintf(f, "\n");
            free(sizes);
        }
        free(ns);
    }
}

nvs_result_t nvs_cc_write_compare_md(const char *dir, const tp_result *t, int n, const char *host)
{
    char path[NVS_PATH_MAX + 32], title[512] = "Runs in detail:";
    snprintf(path, sizeof path, "%s/compare.md", dir);
    nvs_outfile o;
    NVS_CHECK(nvs_outfile_open(&o, path));
    FILE *f = o.f;
    fprintf(f, "# nvscale compare:");
    for (int i = 0; i < n; i++) fprintf(f, "%s %s", i ? "," : "", nvs_tp(t[i].kind)->name);
    fprintf(f, "%s%s\n\n", host ? " on " : "", host ? host : "");
    fprintf(f, "Each transport ran as its own `nvscale run` process (NCCL reads its settings once per process), in "
               "its own directory `<transport>/`. \"NCCL used\" is read from NCCL's own INFO log in each run "
               "(run.json \"transports\", at every GPU count; the column shows the largest one's, or the one that "
               "differs); a run whose transport differs at any GPU count from the one asked for is marked WRONG "
               "TRANSPORT. How to read it: docs/compare.md.\n\n");
    nvs_cc_status_table(f, t, n, 1);
    for (int i = 0; i < n; i++)
        if (t[i].state == ST_FAILED && t[i].tail[0]) {
            fprintf(f, "Last lines of the failed %s run's stderr:\n\n```\n%s\n```\n\n", nvs_tp(t[i].kind)->name,
                    t[i].tail);
        }
    fprintf(f, "## busbw side by side\n\nThe out-of-place rows of each run (the in-place ones where a run has only "
               "those, said in the table's heading); the ratio columns are against the first transport.\n\n");
    nvs_cc_busbw_tables(f, t, n, 1);
    nvs_run runs[NVS_TP_COUNT];
    int nr = 0;
    for (int i = 0; i < n; i++)
        if (t[i].loaded) {
            runs[nr] = t[i].run;
            snprintf(title + strlen(title), sizeof title - strlen(title), "%s R%d = %s", nr ? "," : "", nr + 1,
                     nvs_tp(t[i].kind)->name);
            nr++;
        }
    nvs_result_t res = NVS_OK;
    if (nr) {
        nvs_report rep = {.runs = runs, .nruns = nr, .title = title, .plots = NVS_PLOTS_NOT_REQUESTED};
        res = nvs_report_write_md(&rep, f);
    } else
        fprintf(f, "No transport produced a run: nothing to put side by side.\n");
    if (res != NVS_OK) {
        nvs_outfile_discard(&o);
        return res;
    }
    return nvs_outfile_commit(&o);
}
