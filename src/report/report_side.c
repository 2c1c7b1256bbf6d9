/* The "Side by side" section of several runs: busbw of each run at the same collective, size and GPU count with
 * its ratio to the first run, then the training step of each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/md_fmt.h"
#include "report/report_md_int.h"
#include "core/metrics.h"

/* The runs' busbw at collective `coll`, N = n, size by size, and each run's ratio to R1; "skipped" and "failed
 * check" as in the Scaling tables. 0: out of memory, no table */
static int coll_table(const nvs_report *rep, const char *coll, int n, FILE *f)
{
    const nvs_run *r0 = &rep->runs[0];
    /* union of sizes: as many as the runs have (it kept 512, and a sweep of more, -b 1M -e 1G -i 1M, lost
     * its largest sizes from the table without a word; compare's table had the same limit, 0813d01) */
    size_t cap = 1;
    for (int i = 0; i < rep->nruns; i++) cap += rep->runs[i].ncolls;
    double *sizes = malloc(cap * sizeof *sizes);
    if (!sizes) {
        fprintf(f, "(out of memory: a side-by-side table is left out)\n\n");
        return 0;
    }
    int ks = 0;
    for (int i = 0; i < rep->nruns; i++)
        for (size_t k = 0; k < rep->runs[i].ncolls; k++) {
            const nvs_run_coll *x = &rep->runs[i].colls[k];
            if (x->n != n || strcmp(x->collective, coll)) continue;
            int seen = 0;
            for (int s = 0; s < ks && !seen; s++) seen = sizes[s] == x->size;
            if (!seen) sizes[ks++] = x->size;
        }
    for (int a = 1; a < ks; a++)
        for (int b = a; b > 0 && sizes[b - 1] > sizes[b]; b--) {
            double t = sizes[b];
            sizes[b] = sizes[b - 1];
            sizes[b - 1] = t;
        }
    char nb[NVS_ESC_SIZE(64)];
    int skipped = 0;
    fprintf(f, "### %s, N=%d\n\n| size |", md(coll, nb, sizeof nb), n);
    for (int i = 0; i < rep->nruns; i++) {
        char w[64], we[NVS_ESC_SIZE(64)];
        nvs_report_transport(&rep->runs[i], n, w, sizeof w);
        fprintf(f, " R%d%s%s%s |", i + 1, w[0] ? " (" : "", md(w, we, sizeof we), w[0] ? ")" : "");
    }
    for (int i = 1; i < rep->nruns; i++) fprintf(f, " R%d/R1 |", i + 1);
    fprintf(f, "\n|---|");
    for (int i = 1; i < 2 * rep->nruns; i++) fprintf(f, "---|");
    fprintf(f, "\n");
    for (int s = 0; s < ks; s++) {
        char b[32];
        fprintf(f, "| %s |", fsize(sizes[s], b, sizeof b));
        /* the cells say as the Scaling tables do: a failed row's busbw is no evidence (and no ratio is
         * taken from it), a size the sweep left out is skipped, not lost */
        for (int i = 0; i < rep->nruns; i++)
            fprintf(f, " %s |", nvs_report_busbw_cell(&rep->runs[i], coll, n, sizes[s], b, sizeof b, &skipped));
        const nvs_run_coll *x0 = nvs_run_coll_find(r0, coll, n, sizes[s]);
        int skip0 = !x0 && nvs_report_skip_of(r0, coll, n, sizes[s]);
        for (int i = 1; i < rep->nruns; i++) {
            const nvs_run_coll *x = nvs_run_coll_find(&rep->runs[i], coll, n, sizes[s]);
            int skip = skip0 || (!x && nvs_report_skip_of(&rep->runs[i], coll, n, sizes[s]));
            int usable = x && x0 && !nvs_report_failed_check(x) && !nvs_report_failed_check(x0);
            double ratio = usable && x0->busbw_gbps > 0 && !isnan(x->busbw_gbps)
                               ? x->busbw_gbps / x0->busbw_gbps
                               : NAN;
            fprintf(f, " %s |", skip ? "skipped" : fnum(ratio, "%.3f", b, sizeof b));
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
    nvs_report_skipped_note(skipped, "that run's", "ratio", f);
    free(sizes);
    return 1;
}

/* Every N any run has for collective `coll`, sorted, into ns[0..256); how many */
static int coll_ns(const nvs_report *rep, const char *coll, int *ns)
{
    int kn = 0;
    for (int i = 0; i < rep->nruns; i++) {
        int *v = NULL;
        int k = nvs_run_coll_ns(&rep->runs[i], coll, &v);
        for (int j = 0; j < k; j++) {
            int seen = 0;
            for (int m = 0; m < kn && !seen; m++) seen = ns[m] == v[j];
            if (!seen && kn < 256) ns[kn++] = v[j];
        }
        free(v);
    }
    return nvs_sort_unique_int(ns, kn);
}

/* A table per collective and N that two runs or more measured */
static void colls_side(const nvs_report *rep, FILE *f)
{
    /* collectives of every run in first-appearance order */
    const char *names[64];
    int nn = nvs_report_coll_names(rep, names, 64);
    int printed = 0;
    for (int c = 0; c < nn; c++) {
        int ns[256], kn = coll_ns(rep, names[c], ns);
        for (int m = 0; m < kn; m++) {
            int n = ns[m], have = 0;
            for (int i = 0; i < rep->nruns; i++) {
                int *v = NULL;
                int k = nvs_run_coll_ns(&rep->runs[i], names[c], &v);
                for (int j = 0; j < k; j++) have += v[j] == n;
                free(v);
            }
            if (have < 2 || n < 2) continue; /* nothing to compare; busbw is 0 at N=1 */
            printed |= coll_table(rep, names[c], n, f);
        }
    }
    if (!printed) fprintf(f, "No collective was measured at the same GPU count (N >= 2) in two runs.\n\n");
}

/* The table of workload w of nw: tr[i] is run i's (NULL: none) */
static void train_table(const nvs_report *rep, const nvs_run_train *const *tr, size_t w, size_t nw, FILE *f)
{
    int ns[256], kn = 0;
    for (int i = 0; i < rep->nruns; i++)
        for (size_t k = 0; tr[i] && k < tr[i]->nresults; k++) {
            int n = tr[i]->results[k].n, seen = 0;
            for (int m = 0; m < kn && !seen; m++) seen = ns[m] == n;
            if (!seen && kn < 256) ns[kn++] = n;
        }
    kn = nvs_sort_unique_int(ns, kn);
    if (nw > 1) fprintf(f, "### Training step, workload %zu of %zu\n\n", w + 1, nw);
    else fprintf(f, "### Training step\n\n");
    fprintf(f, "Samples per second of each run; a ratio only where the two runs trained the same model at the "
               "same per-GPU batch.");
    /* efficiency is step(ref) / step(N): a run without a 1-GPU step (--gpus 2,4) is relative to its smallest
     * N, and its column is not the others' measure */
    for (int i = 0; i < rep->nruns; i++) {
        int ref = nvs_run_workload_ref_n(tr[i]);
        if (ref > 1)
            fprintf(f, " R%d efficiency = step(%d) / step(N): that run has no 1-GPU step.", i + 1, ref);
    }
    fprintf(f, "\n\n| N |");
    for (int i = 0; i < rep->nruns; i++) {
        const char *model = tr[i] ? tr[i]->model : NULL;
        char mb[NVS_ESC_SIZE(128)];
        fprintf(f, " R%d samples/s%s%s%s |", i + 1, model ? " (" : "", model ? md(model, mb, sizeof mb) : "",
                model ? ")" : "");
    }
    for (int i = 1; i < rep->nruns; i++) fprintf(f, " R%d/R1 |", i + 1);
    for (int i = 0; i < rep->nruns; i++) fprintf(f, " R%d exposed %% | R%d efficiency |", i + 1, i + 1);
    fprintf(f, "\n|---|");
    for (int i = 0; i < 4 * rep->nruns - 1; i++) fprintf(f, "---|");
    fprintf(f, "\n");
    for (int m = 0; m < kn; m++) {
        char b[32];
        fprintf(f, "| %d |", ns[m]);
        for (int i = 0; i < rep->nruns; i++) {
            const nvs_run_train_result *t = nvs_report_train_at(tr[i], ns[m]);
            fprintf(f, " %s |", fnum(t ? t->samples_per_s : NAN, "%.1f", b, sizeof b));
        }
        const nvs_run_train_result *t0 = nvs_report_train_at(tr[0], ns[m]);
        for (int i = 1; i < rep->nruns; i++) {
            const nvs_run_train_result *t = nvs_report_train_at(tr[i], ns[m]);
            /* throughputs of different models or batches do not compare */
            int same = t && t0 && tr[i]->batch == tr[0]->batch &&
                       !strcmp(tr[i]->model ? tr[i]->model : "", tr[0]->model ? tr[0]->model : "");
            double ratio = same && t0->samples_per_s > 0 ? t->samples_per_s / t0->samples_per_s : NAN;
            fprintf(f, " %s |", fnum(ratio, "%.3f", b, sizeof b));
        }
        for (int i = 0; i < rep->nruns; i++) {
            const nvs_run_train_result *t = nvs_report_train_at(tr[i], ns[m]);
            double pct = t && t->step_us > 0 ? 100 * t->exposed_comm_us / t->step_us : NAN;
            fprintf(f, " %s |", fnum(pct, "%.1f %%", b, sizeof b));
            fprintf(f, " %s |", fnum(t ? 100 * t->efficiency : NAN, "%.1f %%", b, sizeof b));
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

void nvs_report_side_md(const nvs_report *rep, FILE *f)
{
    fprintf(f, "## Side by side\n\nbusbw (GB/s) of each run at the same collective, size and GPU count; the "
               "ratios are against R1.\n\n");
    colls_side(rep, f);

    /* training: a table per workload (run.json "trains", by position: the i-th workload of each run); only the
     * first workload was shown */
    size_t nw = 0;
    for (int i = 0; i < rep->nruns; i++)
        if (nvs_run_workloads(&rep->runs[i]) > nw) nw = nvs_run_workloads(&rep->runs[i]);
    const nvs_run_train **tr = calloc((size_t)(rep->nruns > 0 ? rep->nruns : 1), sizeof *tr);
    if (!tr) return;
    for (size_t w = 0; w < nw; w++) {
        int ntrain = 0;
        for (int i = 0; i < rep->nruns; i++) {
            tr[i] = w < nvs_run_workloads(&rep->runs[i]) ? nvs_run_workload(&rep->runs[i], w) : NULL;
            ntrain += tr[i] && tr[i]->nresults > 0;
        }
        if (ntrain >= 2) train_table(rep, tr, w, nw, f);
    }
    free(tr);
}
