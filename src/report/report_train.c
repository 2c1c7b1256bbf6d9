/* The "Training step" section of one run: a paragraph and a table per workload it trained. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/md_fmt.h"
#include "report/report_md_int.h"
#include "core/digits.h"

/* The result of one workload at N; NULL when the workload is NULL or has none there. */
const nvs_run_train_result *nvs_report_train_at(const nvs_run_train *t, int n)
{
    for (size_t k = 0; t && k < t->nresults; k++)
        if (t->results[k].n == n) return &t->results[k];
    return NULL;
}

/* A row whose exposed communication is more than its all-reduces took alone: a run from before exposed was capped
 * at comm alone (1 December 2026; the rest is since the 'waited' column), whose numbers stay as measured */
static int exposed_over_comm(const nvs_run_train_result *x)
{
    return !isnan(x->exposed_comm_us) && !isnan(x->comm_us) && x->exposed_comm_us > x->comm_us;
}

/* Under the table: which rows break "at most comm alone", with both values in as many decimals as tell them apart
 * (results/h200x2-final5: resnet50 at N=2, 5.65 ms exposed against 0.49 ms alone, under a header saying at most) */
static void exposed_over_note(const nvs_run_train *t, FILE *f)
{
    int any = 0;
    for (size_t i = 0; i < t->nresults; i++) {
        const nvs_run_train_result *x = &t->results[i];
        if (!exposed_over_comm(x)) continue;
        char e[32], c[32];
        int p = nvs_decimals_apart(x->exposed_comm_us / 1e3, x->comm_us / 1e3, 2);
        snprintf(e, sizeof e, "%.*f", p, x->exposed_comm_us / 1e3);
        snprintf(c, sizeof c, "%.*f", p, x->comm_us / 1e3);
        fprintf(
            f, "%s N=%d, %s ms exposed against %s ms alone",
            any++
                ? ";"
                : "Note: this run predates the cap of "
                  "exposed communication at comm alone (runs since 1 December 2026 count the excess as waited, time at "
                  "the all-reduces waiting for a slower rank), and its exposed comm is more than comm alone at",
            x->n, e, c);
    }
    if (any) fprintf(f, ".\n\n");
}

/* One workload's paragraph and table of the training step. `unit`: what a rank drives, "GPU" or (the MPI host
 * backend) "rank". */
static void train_table(const nvs_run_train *t, const char *unit, FILE *f)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32], b8[32];
    fprintf(f, "Model ");
    cell(f, t->model);
    if (!isnan(t->params)) fprintf(f, " (%s M parameters", fnum(t->params / 1e6, "%.1f", b1, sizeof b1));
    if (!isnan(t->fwd_gflops_per_sample))
        fprintf(f, "%s%s GFLOP forward per sample", isnan(t->params) ? " (" : ", ",
                fnum(t->fwd_gflops_per_sample, "%.1f", b2, sizeof b2));
    if (!isnan(t->params) || !isnan(t->fwd_gflops_per_sample)) fprintf(f, ")");
    if (t->batch > 0) fprintf(f, ", batch %d per %s", t->batch, unit);
    if (t->precision) {
        fprintf(f, ", ");
        cell(f, t->precision);
    }
    if (t->grad_type) {
        fprintf(f, ", gradients ");
        cell(f, t->grad_type);
    }
    if (!isnan(t->bucket_first_bytes) || !isnan(t->bucket_cap_bytes))
        fprintf(f, ", buckets of %s first then up to %s", fsize(t->bucket_first_bytes, b3, sizeof b3),
                fsize(t->bucket_cap_bytes, b4, sizeof b4));
    if (t->nbuckets) fprintf(f, " (%zu bucket%s)", t->nbuckets, t->nbuckets == 1 ? "" : "s");
    /* runs since the step's split (train/split.h) say what part of the step waited for a slower rank */
    int wait = 0;
    for (size_t i = 0; i < t->nresults; i++) wait |= !isnan(t->results[i].rank_wait_us);
    /* runs since the framework's reducer and the compute slowed beside the all-reduces (interference_us) no
     * longer count them as exposed: "exposed = step - compute" was false of them (bert-large in
     * results/h200x2-final3: 0.00 ms exposed, step - compute 19.17 ms) */
    int split = wait;
    for (size_t i = 0; i < t->nresults; i++) split |= !isnan(t->results[i].interference_us);
    /* a framework's reducer is part of the rest only where the run modelled one: runs before --framework and
     * --framework ideal have none (results/diag-issue9/nvs-lm-bf16: step - compute 3.04 ms = exposed 0.49 +
     * slowed compute 2.55, no reducer, was said to be "the framework's reducer and compute slowed") */
    int reducer = t->framework && strcmp(t->framework, "ideal") != 0;
    int rounds = 0; /* --rounds: the efficiency's range over the rounds */
    for (size_t i = 0; i < t->nresults; i++)
        if (t->results[i].rounds > rounds) rounds = t->results[i].rounds;
    /* "at most comm alone" only where every row keeps to it: an older run's rows are said under the table */
    int over = 0;
    for (size_t i = 0; i < t->nresults; i++) over |= exposed_over_comm(&t->results[i]);
    const char *most = over ? "not capped at comm alone in this run: see below the table" : "at most comm alone";
    fprintf(f, ". Step, compute and comm are medians over the timed steps of the slowest rank; %s%s%s; predicted = "
               "the buckets' all-reduces priced with the measured all_reduce curve.",
            wait || split ? "exposed = the communication the backward pass did not hide (" : "exposed = step - compute",
            wait || split ? most : "",
            wait    ? "); waited = time at the all-reduces waiting for a slower rank"
            : split ? (reducer ? "); the rest of step - compute is the framework's reducer and compute slowed beside "
                                 "the all-reduces"
                               : "); the rest of step - compute is compute slowed beside the all-reduces")
                    : "");
    /* no 1-GPU step (--gpus 2,4): the efficiency is relative to the smallest N, and says so */
    int ref = nvs_run_workload_ref_n(t);
    if (ref > 1)
        fprintf(f, " Efficiency = step(%d) / step(N), relative to %d %ss: the run has no 1-%s step.", ref, ref, unit,
                unit);
    if (rounds > 1)
        fprintf(f, " Every N was timed %d times in turn (--rounds): each row is its median round, and its "
                   "efficiency the median of the rounds' own, with their range.",
                rounds);
    fprintf(f, "\n\n| N | step (ms) | compute (ms) | comm alone (ms) | exposed comm (ms) | exposed %% of step | %s"
               "predicted comm (ms) | samples/s | efficiency |%s\n|---|---|---|---|---|---|---|---|---|%s%s\n",
            wait ? "waited (ms) | " : "", rounds > 1 ? " over the rounds |" : "", wait ? "---|" : "",
            rounds > 1 ? "---|" : "");
    for (size_t i = 0; i < t->nresults; i++) {
        const nvs_run_train_result *x = &t->results[i];
        double pct = !isnan(x->exposed_comm_us) && x->step_us > 0 ? 100 * x->exposed_comm_us / x->step_us : NAN;
        char bw[48] = "";
        if (wait) snprintf(bw, sizeof bw, "%s | ", fnum(x->rank_wait_us / 1e3, "%.2f", b1, sizeof b1));
        char rg[96] = "";
        if (rounds > 1) {
            char lo[32], hi[32];
            if (x->rounds > 1 && !isnan(x->efficiency_min) && !isnan(x->efficiency_max))
                snprintf(rg, sizeof rg, " %s-%s (%d) |", fnum(100 * x->efficiency_min, "%.1f", lo, sizeof lo),
                         fnum(100 * x->efficiency_max, "%.1f %%", hi, sizeof hi), x->rounds);
            else
                snprintf(rg, sizeof rg, " %s |", DASH);
        }
        fprintf(f, "| %d | %s | %s | %s | %s | %s | %s%s | %s | %s |%s\n", x->n,
                fnum(x->step_us / 1e3, "%.2f", b1, sizeof b1), fnum(x->compute_us / 1e3, "%.2f", b2, sizeof b2),
                fnum(x->comm_us / 1e3, "%.2f", b3, sizeof b3), fnum(x->exposed_comm_us / 1e3, "%.2f", b4, sizeof b4),
                fnum(pct, "%.1f %%", b5, sizeof b5), bw, fnum(x->predicted_comm_us / 1e3, "%.2f", b6, sizeof b6),
                fnum(x->samples_per_s, "%.1f", b7, sizeof b7), fnum(100 * x->efficiency, "%.1f %%", b8, sizeof b8),
                rg);
    }
    fprintf(f, "\n");
    if (wait || split) exposed_over_note(t, f); /* "exposed = step - compute" promised no cap */
}

/* Every workload the run trained (run.json "trains": `--model bert-large,resnet50`), not only the first */
void nvs_report_train_md(const nvs_run *r, FILE *f)
{
    int any = 0;
    for (size_t w = 0; w < nvs_run_workloads(r); w++) {
        const nvs_run_train *t = nvs_run_workload(r, w);
        if (!t->nresults) continue;
        if (!any++) fprintf(f, "### Training step\n\n");
        train_table(t, r->backend && !strcmp(r->backend, "mpi") ? "rank" : "GPU", f);
    }
}

