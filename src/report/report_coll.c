/* The "Collectives" tables of one run: a table per collective and GPU count, each row a size with its time,
 * bandwidths and share of the bound, then the sizes the sweep left out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/md_fmt.h"
#include "report/report_md_int.h"

/* The bound of the ring's slowest hop at n (NAN unknown, or a hop NCCL did not use: then *unused is set and the
 * facts are left in f for the table to say why) */
static double bound_at(const nvs_run *r, int n, nvs_explain_facts *f, int *unused)
{
    nvs_explain_facts_from_run(r, n, f);
    *unused = nvs_explain_hop_unused(f);
    return f->has_hop && !*unused ? f->bound_gbps : NAN;
}

static int cmp_str(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }

/* size, then type and operation (a sweep of several: -d all -o all), then out-of-place before in-place: a total
 * order, so that the table is the same whatever qsort does with equal keys */
static int cmp_coll(const void *a, const void *b)
{
    const nvs_run_coll *x = *(const nvs_run_coll *const *)a, *y = *(const nvs_run_coll *const *)b;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
    int c = cmp_str(x->type, y->type);
    if (!c) c = cmp_str(x->op, y->op);
    return c ? c : x->inplace - y->inplace;
}

/* The time a row's bandwidths were computed from (the run's -a), so that the row agrees with itself: the table
 * showed the slowest rank's time beside a fastest rank's algbw. Rank 0's time is not in run.json: it is
 * bytes / algbw (NAN without an algbw, except at one rank, where every time is rank 0's). */
static double row_time(const nvs_run *r, const nvs_run_coll *x)
{
    switch (r->time_basis) {
    case NVS_RUN_TIME_MEAN: return x->time_avg_us;
    case NVS_RUN_TIME_FASTEST: return x->time_min_us;
    case NVS_RUN_TIME_RANK0:
        if (x->n == 1) return x->time_max_us;
        return !isnan(x->algbw_gbps) && x->algbw_gbps > 0 ? x->bytes / (x->algbw_gbps * 1e3) : NAN;
    default: return x->time_max_us;
    }
}

/* The sizes the sweep left out as too small for the ranks (sweep.skipped), in the words of the run's own table
 * ("# skipped: all_gather on 4 ranks: ..."): an N with none of them has no table above, and must not look measured */
static void skipped_list(const nvs_run *r, FILE *f)
{
    if (!r->nskipped) return;
    fprintf(f, "Sizes the sweep left out (no row above, as the run's table said):\n\n");
    for (size_t i = 0; i < r->nskipped; i++) {
        const nvs_run_skip *k = &r->skipped[i];
        char nb[NVS_ESC_SIZE(64)], a[32], b[32];
        fprintf(f, "- skipped: %s on %d rank%s", md(k->collective, nb, sizeof nb), k->n, k->n > 1 ? "s" : "");
        if (k->type) {
            fprintf(f, " (");
            cell(f, k->type);
            fprintf(f, ")");
        }
        fprintf(f, ": ");
        if (k->why) cell(f, k->why);
        else if (k->sizes > 0 && k->of > 0 && !isnan(k->from_bytes) && !isnan(k->to_bytes))
            fprintf(f, "%d of %d sizes (%s to %s) left out", k->sizes, k->of, fsize(k->from_bytes, a, sizeof a),
                    fsize(k->to_bytes, b, sizeof b));
        else
            fprintf(f, "sizes left out (the run does not say which)");
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

void nvs_report_colls_md(const nvs_run *r, FILE *f)
{
    const char **names = NULL;
    int nn = nvs_run_collective_names(r, &names);
    if (nn < 0) { /* left out without a word, it read as a run that measured no collective */
        fprintf(f, "### Collectives\n\n(out of memory: the collectives' tables are left out)\n\n");
        skipped_list(r, f);
        return;
    }
    if (nn == 0 && !r->nskipped) {
        free(names);
        return;
    }
    static const char *const whose[] = {"rank 0's (the run's -a 0)", "the mean over the ranks (the run's -a 1)",
                                        "the fastest rank's (the run's -a 2)", "the slowest rank's (as nccl-tests)"};
    fprintf(f, "### Collectives\n\nTime is %s; algbw = bytes / time; busbw = algbw x the collective's bus factor "
               "(GB = 1e9 bytes); %% of bound = busbw / the bandwidth bound of the ring's slowest hop at that GPU "
               "count.\n\n", whose[r->time_basis & 3]);
    const nvs_run_coll **rows = malloc((r->ncolls + 1) * sizeof *rows);
    if (!rows) /* as above: not without a word */
        fprintf(f, "(out of memory: the collectives' tables are left out)\n\n");
    for (int c = 0; rows && c < nn; c++) {
        int *ns = NULL;
        int kn = nvs_run_coll_ns(r, names[c], &ns);
        for (int i = 0; i < kn; i++) {
            int n = ns[i], nr = 0, inplace = 0, mixed = 0;
            for (size_t k = 0; k < r->ncolls; k++)
                if (r->colls[k].n == n && !strcmp(r->colls[k].collective, names[c])) {
                    rows[nr++] = &r->colls[k];
                    inplace |= r->colls[k].inplace;
                    /* several types or operations (-d, -o): each row says its own, the heading none */
                    mixed |= cmp_str(rows[0]->type, r->colls[k].type) || cmp_str(rows[0]->op, r->colls[k].op);
                }
            qsort(rows, (size_t)nr, sizeof *rows, cmp_coll);
            nvs_explain_facts fa;
            int unused = 0;
            double bound = bound_at(r, n, &fa, &unused);
            char nb[NVS_ESC_SIZE(64)];
            fprintf(f, "#### %s, N=%d", md(names[c], nb, sizeof nb), n);
            if (!mixed && (rows[0]->type || rows[0]->op)) {
                fprintf(f, " (");
                cell(f, rows[0]->type);
                if (rows[0]->op) {
                    fprintf(f, ", ");
                    cell(f, rows[0]->op);
                }
                fprintf(f, ")");
            }
            fprintf(f, "\n\n");
            /* a busbw over SHM divided by an NVLink bound is no % of what its path allows (the plot draws no such
             * line either): say which path the bound is of and that the data did not take it */
            if (unused) {
                char cb[NVS_ESC_SIZE(32)], tb[NVS_ESC_SIZE(32)], bb[32];
                fprintf(f, "%% of bound: none here: the ring's slowest hop is NVLink (%s, %s GB/s) but NCCL used %s, "
                           "not that hop, and the bound of the path it took is not in the run.\n\n",
                        md(fa.hop_class, cb, sizeof cb), fnum(fa.bound_gbps, "%.0f", bb, sizeof bb),
                        md(fa.transport, tb, sizeof tb));
            }
            fprintf(f, "| size |%s%s time (us) | algbw (GB/s) | busbw (GB/s) | %% of bound | wrong |\n"
                       "|---|%s%s---|---|---|---|---|\n",
                    mixed ? " type | op |" : "", inplace ? " in place |" : "", mixed ? "---|---|" : "",
                    inplace ? "---|" : "");
            for (int k = 0; k < nr; k++) {
                const nvs_run_coll *x = rows[k];
                char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
                double pct = !isnan(bound) && bound > 0 && !isnan(x->busbw_gbps) ? 100 * x->busbw_gbps / bound : NAN;
                fprintf(f, "| %s |", fsize(x->bytes, b1, sizeof b1));
                if (mixed) {
                    fputc(' ', f);
                    cell(f, x->type);
                    fputs(" | ", f);
                    cell(f, x->op);
                    fputs(" |", f);
                }
                fprintf(f, "%s %s | %s | %s | %s | %s |\n",
                        inplace ? (x->inplace ? " yes |" : " no |") : "", fnum(row_time(r, x), "%.2f", b2, sizeof b2),
                        fnum(x->algbw_gbps, "%.2f", b3, sizeof b3), fnum(x->busbw_gbps, "%.2f", b4, sizeof b4),
                        fnum(pct, "%.1f", b5, sizeof b5), x->wrong < 0 ? "not checked" : fint(x->wrong, b6, sizeof b6));
            }
            fprintf(f, "\n");
        }
        free(ns);
    }
    free(rows);
    free(names);
    skipped_list(r, f);
}

