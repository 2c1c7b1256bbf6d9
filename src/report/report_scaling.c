/* The "Scaling" tables of one run: busbw per size and GPU count for each collective, then efficiency vs GPU
 * count of the collectives and the training step; and the cells and notes the side-by-side tables share with
 * them (a size the sweep skipped, a row that failed its result check). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/md_fmt.h"
#include "report/report_md_int.h"
#include "core/metrics.h"

/* The entry of sweep.skipped that left `size` of `coll` out at n (NULL: none says so). The left-out sizes are the
 * plan's smallest, so every size from the first to the last left out; an entry of every size ("no size measured")
 * covers any. An entry that does not say which sizes covers none: the cell stays unknown. */
const nvs_run_skip *nvs_report_skip_of(const nvs_run *r, const char *coll, int n, double size)
{
    for (size_t i = 0; i < r->nskipped; i++) {
        const nvs_run_skip *k = &r->skipped[i];
        if (k->n != n || strcmp(k->collective, coll)) continue;
        if (k->sizes > 0 && k->sizes == k->of) return k;
        if (!isnan(k->from_bytes) && !isnan(k->to_bytes) && size >= k->from_bytes && size <= k->to_bytes) return k;
    }
    return NULL;
}

/* A Scaling cell: the busbw of the row, "failed check" where its result check found wrong elements (*skipped |= 2),
 * else "skipped" where the sweep left the size out at n (its line is in the list under the collectives' tables;
 * *skipped |= 1), else unknown. */
const char *nvs_report_busbw_cell(const nvs_run *r, const char *coll, int n, double size, char *buf, size_t len,
                              int *skipped)
{
    const nvs_run_coll *x = nvs_run_coll_find(r, coll, n, size);
    if (!x && nvs_report_skip_of(r, coll, n, size)) {
        *skipped |= 1;
        return "skipped";
    }
    if (nvs_report_failed_check(x)) {
        *skipped |= 2;
        return "failed check";
    }
    return fnum(x ? x->busbw_gbps : NAN, "%.2f", buf, len);
}

/* Under a Scaling or side-by-side table that has a "skipped" (bit 1) or "failed check" (bit 2) cell: what it means
 * and where its reason is. `whose`: whose collectives' tables list it ("the", "that run's"); `derived`: what the
 * table does not take from such a row ("efficiency", "ratio") */
void nvs_report_skipped_note(int skipped, const char *whose, const char *derived, FILE *f)
{
    if (skipped & 1)
        fprintf(f, "skipped: the sweep left that size out at that GPU count as too small for the ranks (nothing "
                   "measured; why: the list under %s collectives' tables).\n\n", whose);
    if (skipped & 2)
        fprintf(f, "failed check: the row's result check found wrong elements (%s collectives' tables give its "
                   "busbw and how many): its busbw is not evidence of what the links carry, and no %s is "
                   "taken from it.\n\n", whose, derived);
}

/* The GPU counts of a collective's Scaling table: those measured and those the sweep skipped every size of (no row,
 * but not a count the run did not plan). -1 on out of memory. */
static int scaling_ns(const nvs_run *r, const char *coll, int **out)
{
    int *ns = NULL;
    int k = nvs_run_coll_ns(r, coll, &ns);
    if (k < 0) return -1;
    int *v = realloc(ns, ((size_t)k + r->nskipped + 1) * sizeof *v);
    if (!v) {
        free(ns);
        return -1;
    }
    for (size_t i = 0; i < r->nskipped; i++)
        if (!strcmp(r->skipped[i].collective, coll)) v[k++] = r->skipped[i].n;
    *out = v;
    return nvs_sort_unique_int(v, k);
}

/* busbw of collective `coll` per size and GPU count, where it was planned at several counts */
static void busbw_table(const nvs_run *r, const char *coll, FILE *f)
{
    int *ns = NULL;
    double *sizes = NULL;
    int kn = scaling_ns(r, coll, &ns), ks = nvs_run_coll_sizes(r, coll, &sizes), skipped = 0;
    if (kn > 1) {
        char nb[NVS_ESC_SIZE(64)];
        /* a sweep of several types or ops: the cells are the first out-of-place row's, which the heading names */
        char var[64] = "", vb[NVS_ESC_SIZE(64)];
        for (int s = 0; s < ks && !var[0]; s++)
            for (int i = 0; i < kn && !var[0]; i++)
                nvs_run_coll_variant(r, nvs_run_coll_find(r, coll, ns[i], sizes[s]), var, sizeof var);
        fprintf(f, "%s busbw (GB/s) per size and GPU count", md(coll, nb, sizeof nb));
        if (var[0]) fprintf(f, ", %s (the first type and op of the sweep)", md(var, vb, sizeof vb));
        fprintf(f, ":\n\n| size |");
        for (int i = 0; i < kn; i++) fprintf(f, " N=%d |", ns[i]);
        fprintf(f, "\n|---|");
        for (int i = 0; i < kn; i++) fprintf(f, "---|");
        fprintf(f, "\n");
        for (int s = 0; s < ks; s++) {
            char b[32];
            fprintf(f, "| %s |", fsize(sizes[s], b, sizeof b));
            for (int i = 0; i < kn; i++)
                fprintf(f, " %s |", nvs_report_busbw_cell(r, coll, ns[i], sizes[s], b, sizeof b, &skipped));
            fprintf(f, "\n");
        }
        fprintf(f, "\n");
        nvs_report_skipped_note(skipped, "the", "efficiency", f);
    }
    free(ns);
    free(sizes);
}

/* Efficiency vs N of a run of several GPU counts all[0..kall): collectives (busbw relative to the smallest N >= 2)
 * and the training step */
static void efficiency_table(const nvs_run *r, const char **names, int nn, const int *all, int kall, FILE *f)
{
    /* training's reference: the smallest N trained (1 unless --gpus left it out: then step(2) / step(N)) */
    int tref = nvs_run_train_ref_n(r);
    char tw[96] = "";
    if (tref > 1) snprintf(tw, sizeof tw, " (no 1-GPU step in this run: relative to %d GPUs)", tref);
    double *at = calloc((size_t)(nn > 0 ? nn : 1), sizeof *at);
    int *base = calloc((size_t)(nn > 0 ? nn : 1), sizeof *base);
    if (!at || !base) {
        free(at);
        free(base);
        return;
    }
    /* the text names only the columns the table has: a `train` run writes "collectives": [] (none measured),
     * a `coll` run trains nothing */
    int coll_cols = 0, train_cols = 0;
    for (int c = 0; c < nn; c++) {
        at[c] = nvs_report_common_size(r, names[c]);
        if (!isnan(at[c])) coll_cols = 1;
    }
    for (size_t w = 0; w < nvs_run_workloads(r); w++)
        if (nvs_run_workload(r, w)->nresults) train_cols = 1;
    if (!coll_cols && !train_cols) { /* a table of N alone says nothing */
        free(at);
        free(base);
        return;
    }
    const char *coll_txt = "busbw(N) / busbw(smallest N >= 2) at the largest size measured at every N (busbw of "
                           "an ideal ring does not change with N)";
    if (coll_cols && train_cols)
        fprintf(f, "Efficiency vs GPU count: for a collective, %s; for training, step(%d) / step(N) with a fixed "
                   "per-GPU batch%s.\n\n| N |", coll_txt, tref > 1 ? tref : 1, tw);
    else if (coll_cols)
        fprintf(f, "Efficiency vs GPU count: for a collective, %s.\n\n| N |", coll_txt);
    else
        fprintf(f, "Training efficiency vs GPU count: step(%d) / step(N) with a fixed per-GPU batch%s.\n\n| N |",
                tref > 1 ? tref : 1, tw);
    char b[32];
    for (int c = 0; c < nn; c++) {
        if (isnan(at[c])) continue;
        nvs_report_coll_efficiency(r, names[c], 2, at[c], &base[c]);
        char nb[NVS_ESC_SIZE(64)];
        md(names[c], nb, sizeof nb);
        fprintf(f, " %s busbw at %s (GB/s) | %s efficiency |", nb, fsize(at[c], b, sizeof b), nb);
    }
    /* a column per workload that trained; named by its model when there are several */
    size_t nw = nvs_run_workloads(r);
    for (size_t w = 0; w < nw; w++) {
        const nvs_run_train *t = nvs_run_workload(r, w);
        if (!t->nresults) continue;
        char mb[NVS_ESC_SIZE(128)];
        if (nw > 1) fprintf(f, " %s training efficiency |", md(t->model ? t->model : "?", mb, sizeof mb));
        else fprintf(f, " training efficiency |");
    }
    fprintf(f, "\n|---|");
    for (int c = 0; c < nn; c++)
        if (!isnan(at[c])) fprintf(f, "---|---|");
    for (size_t w = 0; w < nw; w++)
        if (nvs_run_workload(r, w)->nresults) fprintf(f, "---|");
    fprintf(f, "\n");
    int skipped = 0;
    for (int i = 0; i < kall; i++) {
        fprintf(f, "| %d |", all[i]);
        for (int c = 0; c < nn; c++) {
            if (isnan(at[c])) continue;
            int sk = 0;
            double e = nvs_report_coll_efficiency(r, names[c], all[i], at[c], NULL);
            fprintf(f, " %s |", nvs_report_busbw_cell(r, names[c], all[i], at[c], b, sizeof b, &sk));
            fprintf(f, " %s |", sk & 1 ? "skipped" : fnum(100 * e, "%.1f %%", b, sizeof b));
            skipped |= sk;
        }
        for (size_t w = 0; w < nw; w++) {
            const nvs_run_train *tr = nvs_run_workload(r, w);
            const nvs_run_train_result *t = nvs_report_train_at(tr, all[i]);
            if (tr->nresults) fprintf(f, " %s |", fnum(t ? 100 * t->efficiency : NAN, "%.1f %%", b, sizeof b));
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
    nvs_report_skipped_note(skipped, "the", "efficiency", f);
    free(at);
    free(base);
}

void nvs_report_scaling_md(const nvs_run *r, FILE *f)
{
    const char **names = NULL;
    int nn = nvs_run_collective_names(r, &names);
    int *all = NULL;
    int kall = nvs_run_ns(r, &all);
    int multi = kall > 1;
    for (int c = 0; c < nn && !multi; c++) {
        int *ns = NULL;
        multi = nvs_run_coll_ns(r, names[c], &ns) > 1;
        free(ns);
    }
    if (!multi) goto out; /* one GPU count: nothing scales */
    fprintf(f, "### Scaling\n\n");
    for (int c = 0; c < nn; c++) busbw_table(r, names[c], f);
    if (kall > 1) efficiency_table(r, names, nn, all, kall, f);
out:
    free(names);
    free(all);
}
