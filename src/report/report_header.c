/* The head of each run's part of the report (what ran where, with what, and how it ended), the warnings of
 * numbers that cannot be right, and with several runs the legend of which run is which. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/md_fmt.h"
#include "report/report_md_int.h"
#include "runjson/sanity.h"

/* One more GPU named g in the tally of names[0..*k) (at most 64 names: a 65th is not counted) */
static void tally_gpu(const char *g, const char **names, int *counts, int *k)
{
    g = g ? g : "GPU";
    int j = 0;
    while (j < *k && strcmp(names[j], g)) j++;
    if (j == *k && *k < 64) {
        names[*k] = g;
        counts[(*k)++] = 0;
    }
    if (j < *k) counts[j]++;
}

/* "2 x NVIDIA H200" from the ranks (else the topology, else the world size). */
void nvs_report_gpus_words(const nvs_run *r, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t used = 0;
    const char *names[64];
    int counts[64], k = 0;
    for (size_t i = 0; i < r->nranks; i++) tally_gpu(r->ranks[i].gpu, names, counts, &k);
    if (!k)
        for (size_t i = 0; i < r->topology.ngpus; i++) tally_gpu(r->topology.gpus[i].name, names, counts, &k);
    for (int j = 0; j < k; j++) {
        int w = snprintf(buf + used, len - used, "%s%d x %s", j ? ", " : "", counts[j], names[j]);
        if (w < 0 || (size_t)w >= len - used) return;
        used += (size_t)w;
    }
    if (!k && r->world_size > 0) snprintf(buf, len, "%d GPUs", r->world_size);
}

void nvs_report_header_md(const nvs_report *rep, int i, FILE *f)
{
    const nvs_run *r = &rep->runs[i];
    char lab[16], gpus[256], b[64];
    nvs_report_label(rep, i, lab, sizeof lab);
    nvs_report_gpus_words(r, gpus, sizeof gpus);
    fprintf(f, "## %s%s", lab, lab[0] ? ": " : "");
    cell(f, r->host ? r->host : "(host unknown)");
    if (gpus[0]) {
        fprintf(f, ", ");
        cell(f, gpus);
    }
    fprintf(f, "\n\n| | |\n|---|---|\n| file | ");
    nvs_report_md_code(f, r->path);
    fprintf(f, " |\n| command | ");
    if (r->argc) {
        char line[1024];
        size_t used = 0;
        line[0] = '\0';
        for (size_t k = 0; k < r->argc; k++) {
            int w = snprintf(line + used, sizeof line - used, "%s%s", k ? " " : "", r->argv[k]);
            if (w < 0 || (size_t)w >= sizeof line - used) break;
            used += (size_t)w;
        }
        nvs_report_md_code(f, line);
    } else {
        cell(f, r->subcommand);
    }
    fprintf(f, " |\n| started | ");
    cell(f, r->started_utc);
    if (!isnan(r->duration_s)) fprintf(f, " (%s s)", fnum(r->duration_s, "%.1f", b, sizeof b));
    fprintf(f, " |\n| host | ");
    cell(f, r->host);
    if (r->world_nodes > 0) fprintf(f, ": %d node%s", r->world_nodes, r->world_nodes == 1 ? "" : "s");
    if (r->world_size > 0) fprintf(f, ", %d rank%s", r->world_size, r->world_size == 1 ? "" : "s");
    if (r->launcher || r->backend) {
        fprintf(f, " (");
        if (r->launcher) {
            fprintf(f, "launcher ");
            cell(f, r->launcher);
        }
        if (r->backend) {
            fprintf(f, "%sbackend ", r->launcher ? ", " : "");
            cell(f, r->backend);
        }
        fprintf(f, ")");
    }
    fprintf(f, " |\n| GPUs | ");
    cell(f, gpus);
    fprintf(f, " |\n| versions | ");
    if (r->tool_version) {
        fprintf(f, "nvscale ");
        cell(f, r->tool_version);
        if (r->tool_git) {
            fprintf(f, " (");
            cell(f, r->tool_git);
            fprintf(f, ")");
        }
    }
    /* the versions object in its own order, nvscale already shown; run.json's keys shown as products are named */
    static const char *const pretty[][2] = {{"nccl", "NCCL"},           {"cuda_runtime", "CUDA runtime"},
                                            {"cuda_driver", "CUDA driver"}, {"nvidia_driver", "NVIDIA driver"},
                                            {"cublas", "cuBLAS"},       {"mpi", "MPI"}};
    int shown = r->tool_version != NULL;
    for (size_t k = 0; k < r->nversions; k++) {
        if (!strcmp(r->versions[k].key, "nvscale")) continue;
        fprintf(f, "%s", shown ? ", " : "");
        const char *name = r->versions[k].key;
        for (size_t q = 0; q < sizeof pretty / sizeof pretty[0]; q++)
            if (!strcmp(name, pretty[q][0])) name = pretty[q][1];
        cell(f, name);
        fputc(' ', f);
        cell(f, r->versions[k].value);
        shown = 1;
    }
    if (!shown) fputs(DASH, f);
    fprintf(f, " |\n| NCCL env | ");
    int any = 0;
    for (size_t k = 0; k < r->nenv; k++) {
        if (strncmp(r->env[k].key, "NCCL_", 5)) continue;
        fprintf(f, "%s", any ? " " : "");
        char kv[512];
        snprintf(kv, sizeof kv, "%s=%s", r->env[k].key, r->env[k].value);
        nvs_report_md_code(f, kv);
        any = 1;
    }
    if (!any) fprintf(f, "(none set)");
    const char *cvd = nvs_run_env(r, "CUDA_VISIBLE_DEVICES");
    if (cvd) {
        char kv[512];
        snprintf(kv, sizeof kv, "CUDA_VISIBLE_DEVICES=%s", cvd);
        fprintf(f, ", ");
        nvs_report_md_code(f, kv);
    }
    fprintf(f, " |\n| result | ");
    cell(f, r->result_status);
    if (r->result_exit_code >= 0) fprintf(f, " (exit %d)", r->result_exit_code);
    /* why it did not end well: "running" alone read as a run still measuring, where it is a checkpoint a killed
     * run left, and an interrupted run's tables hold only what was measured before the signal */
    if (r->result_reason && *r->result_reason) {
        fprintf(f, ": ");
        cell(f, r->result_reason);
    }
    fprintf(f, " |\n\n");
}

/* Numbers of the run that cannot be right as they stand (runjson/sanity.h), before the tables that show them */
void nvs_report_sanity_md(const nvs_run *r, FILE *f)
{
    nvs_sanity s[32];
    size_t n = nvs_sanity_of(r, s, 32);
    if (!n) return;
    fprintf(f, "### Warnings\n\n");
    for (size_t i = 0; i < n && i < 32; i++) {
        fprintf(f, "- **WARN** ");
        cell(f, s[i].text);
        fprintf(f, "\n");
    }
    if (n > 32) fprintf(f, "- **WARN** and %zu more of these\n", n - 32);
    fprintf(f, "\n");
}

void nvs_report_legend_md(const nvs_report *rep, FILE *f)
{
    fprintf(f, "| run | file | host | GPUs | transport at the largest N | NCCL | started |\n"
               "|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < rep->nruns; i++) {
        const nvs_run *r = &rep->runs[i];
        char gpus[256], w[64];
        nvs_report_gpus_words(r, gpus, sizeof gpus);
        int *ns = NULL;
        int k = nvs_run_ns(r, &ns);
        int top = k > 0 ? ns[k - 1] : 0;
        free(ns);
        fprintf(f, "| R%d | ", i + 1);
        nvs_report_md_code(f, r->path);
        fprintf(f, " | ");
        cell(f, r->host);
        fprintf(f, " | ");
        cell(f, gpus);
        fprintf(f, " | ");
        cell(f, top ? nvs_report_transport(r, top, w, sizeof w) : NULL);
        if (top) fprintf(f, " (N=%d)", top);
        fprintf(f, " | ");
        cell(f, nvs_run_version(r, "nccl"));
        fprintf(f, " | ");
        cell(f, r->started_utc);
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
}

