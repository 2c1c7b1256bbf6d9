/* Text and JSON of the Lambda case (lambda_out.h). */
#include "model/lambda_out.h"

#include <math.h>
#include <string.h>

#include "model/model_out.h"

static const char *const card_name[2] = {"RTX 3090", "RTX A6000"};
static const char *const prec_name[2] = {"fp32", "fp16"};

static void fmt_pct(char *buf, size_t len, double v)
{
    if (isfinite(v))
        snprintf(buf, len, "%.1f", 100 * v);
    else
        snprintf(buf, len, "-");
}

/* the tolerance: 5 points at 8 GPUs, 8 at 2 and 4 */
static double tolerance(int n) { return n == 8 ? 0.05 : 0.08; }

/* "+0.4", "+0.0*" (a fitted cell), "+7.6!" (outside the tolerance); a difference that rounds to 0.0 reads
 * "+0.0", never "-0.0" */
static void fmt_err(char *buf, size_t len, double model, double meas, int fitted, int n)
{
    if (isfinite(model) && isfinite(meas))
        snprintf(buf, len, "%+.1f%s", nvs_model_pct1(100 * (model - meas)),
                 fitted ? "*" : fabs(model - meas) > tolerance(n) ? "!" : "");
    else
        snprintf(buf, len, "-");
}

void nvs_lambda_max_err(const nvs_lambda_row *rows, int nrows, double *err8, double *err24, int *nscored)
{
    *err8 = *err24 = 0;
    *nscored = 0;
    for (int i = 0; i < nrows; i++)
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < NVS_LAMBDA_NS; j++) {
                const nvs_lambda_row *r = &rows[i];
                if (r->fitted[k][j] || !isfinite(r->meas_eff[k][j])) continue;
                double e = fabs(r->model_eff[k][j] - r->meas_eff[k][j]);
                double *slot = nvs_lambda_ns[j] == 8 ? err8 : err24;
                if (e > *slot) *slot = e;
                (*nscored)++;
            }
}

/* "3090 loses 88.1 points: exposed all-reduce 88.1 (...), interference 0.0, slowest rank 0.0" */
static void print_loss(FILE *f, const char *who, const nvs_loss *l, nvs_dp_mode dp)
{
    fprintf(f, "    %-5s loses %4.1f points: exposed all-reduce %.1f", who, 100 * (1 - l->eff), 100 * l->comm);
    if (dp == NVS_DP_DELAY) fprintf(f, " (%.1f of it because the mode is delay)", 100 * l->mode_comm);
    fprintf(f, ", interference (compute beside the all-reduces) %.1f, waiting for the slowest rank %.1f\n",
            100 * l->penalty, 100 * l->sync);
    fprintf(f, "          ring bottleneck: %s\n", l->pt.bottleneck);
}

/* the sentence naming the cause at 8 GPUs */
static void print_why(FILE *f, const nvs_lambda_row *r)
{
    int k8 = NVS_LAMBDA_NS - 1;
    const nvs_gap *g = &r->gap[k8];
    const nvs_loss *la = &r->loss[0][k8];
    const char *m = nvs_lambda_workloads[r->workload].model;
    double lg = r->meas_eff[1][k8] - r->meas_eff[0][k8];
    char lgs[32];
    if (isfinite(lg))
        snprintf(lgs, sizeof lgs, "%+.1f", 100 * lg);
    else
        snprintf(lgs, sizeof lgs, "not measured on one machine");
    fprintf(f, "  %s %s at 8 GPUs: the A6000 is %+.1f points ahead (Lambda: %s):", m, prec_name[r->fp16],
            100 * g->gap, lgs);
    for (int i = 0; i < NVS_CAUSE_COUNT; i++) fprintf(f, " %s %+.1f%s", nvs_cause_key(i), 100 * g->share[i],
                                                      i + 1 < NVS_CAUSE_COUNT ? "," : "");
    fprintf(f, "\n");
    int host_bound = strstr(la->pt.bottleneck, "host memory path") != NULL;
    if (g->cause < 0) {
        fprintf(f, "    why: no cause above half a point: both cards hide their all-reduce\n");
    } else if (g->cause == NVS_CAUSE_LINK || g->cause == NVS_CAUSE_OVERLAP) {
        fprintf(f,
                "    why: the RTX 3090 has no P2P, so NCCL's SHM transport moves every ring flow through host memory");
        if (host_bound) fprintf(f, ",\n         where the flows contend for the host budget (host-memory contention)");
        if (r->dp == NVS_DP_DELAY)
            fprintf(
                f,
                ";\n         the overlap mode is delay (apex delay_allreduce=True): none of it hides behind backward");
        fprintf(f, "\n");
    } else {
        fprintf(f, "    why: %s\n", nvs_cause_name(g->cause));
    }
    print_loss(f, "3090", la, r->dp);
    print_loss(f, "A6000", &r->loss[1][k8], r->dp);
}

void nvs_lambda_print(FILE *f, const nvs_lambda_report *rep)
{
    const nvs_lambda_row *rows = rep->rows;
    fprintf(f,
            "The Lambda case: Lambda's PyTorch benchmark, 8x RTX 3090 vs 8x RTX A6000 (github.com/lambdal/\n"
            "deeplearning-benchmark, NGC pytorch:20.10: PyTorch 1.7, NCCL 2.7.8; \"fp32\" runs TF32 GEMMs on Ampere)\n"
            "  RTX 3090  on %s (2x EPYC 7662): GeForce, no P2P: NCCL's SHM transport through host memory\n"
            "  RTX A6000 on %s (2x EPYC 7502): P2P over PCIe (NCCL 2.7 allows it across sockets on AMD)\n"
            "efficiency = throughput(N) / (N x throughput(1)); Lambda = the same machine's logs (the comparison),\n"
            "pub = the published CSV cell (machines mixed, values truncated to integers); err = model - Lambda in\n"
            "points, * = a cell the free parameters are fitted on, ! = outside the tolerance (5 points at 8 GPUs,\n"
            "8 at 2 and 4). Model: each card's 1-GPU step calibrated to Lambda's 1-GPU throughput, the batch\n"
            "Lambda ran, apex DDP buckets of 10M elements.\n",
            NVS_LAMBDA_MACHINE_A, NVS_LAMBDA_MACHINE_B);
    for (int fp16 = 0; fp16 < NVS_LAMBDA_PRECS; fp16++) {
        fprintf(f, "\n%s%s\n", prec_name[fp16], fp16 ? " (AMP: fp16 GEMMs)" : " (TF32 GEMMs)");
        fprintf(f, "  %-10s %-5s %2s | %5s %6s %6s %6s %6s | %5s %6s %6s %6s %6s | %7s %7s\n", "model", "dp", "N",
                "batch", "model", "Lambda", "err", "pub", "batch", "model", "Lambda", "err", "pub", "gap", "Lambda");
        for (int i = 0; i < rep->nrows; i++) {
            const nvs_lambda_row *r = &rows[i];
            if (r->fp16 != fp16) continue;
            for (int j = 0; j < NVS_LAMBDA_NS; j++) {
                char m[2][16], l[2][16], e[2][16], p[2][16], g1[16], g2[16];
                for (int k = 0; k < 2; k++) {
                    fmt_pct(m[k], sizeof m[k], r->model_eff[k][j]);
                    fmt_pct(l[k], sizeof l[k], r->meas_eff[k][j]);
                    fmt_err(e[k], sizeof e[k], r->model_eff[k][j], r->meas_eff[k][j], r->fitted[k][j],
                            nvs_lambda_ns[j]);
                    fmt_pct(p[k], sizeof p[k], r->pub_eff[k][j]);
                }
                snprintf(g1, sizeof g1, "%+.1f", 100 * r->gap[j].gap);
                if (isfinite(r->meas_eff[0][j]) && isfinite(r->meas_eff[1][j]))
                    snprintf(g2, sizeof g2, "%+.1f", 100 * (r->meas_eff[1][j] - r->meas_eff[0][j]));
                else
                    snprintf(g2, sizeof g2, "-");
                fprintf(f, "  %-10s %-5s %2d | %5d %6s %6s %6s %6s | %5d %6s %6s %6s %6s | %7s %7s\n",
                        j == 0 ? nvs_lambda_workloads[r->workload].model : "", j == 0 ? nvs_dp_name(r->dp) : "",
                        nvs_lambda_ns[j], r->d[0]->batch, m[0], l[0], e[0], p[0], r->d[1]->batch, m[1], l[1], e[1],
                        p[1], g1, g2);
            }
        }
    }
    double e8, e24;
    int ns;
    nvs_lambda_max_err(rows, rep->nrows, &e8, &e24, &ns);
    fprintf(f, "\n%d cells compared (not fitted): largest |err| %.1f points at 8 GPUs, %.1f at 2 and 4 GPUs\n", ns,
            100 * e8, 100 * e24);
    for (int i = 0; i < rep->nrows; i++)
        for (int k = 0; k < 2; k++)
            if (rows[i].d[k]->note)
                fprintf(f, "  note %s %s %s: %s\n", nvs_lambda_workloads[rows[i].workload].model,
                        card_name[k], prec_name[rows[i].fp16], rows[i].d[k]->note);

    fprintf(f, "\nwhy, at 8 GPUs (points of efficiency; the gap's shares add up to it: overlap = what the mode adds,\n"
               "then link / host / batch / compute by Shapley values; a card's loss = exposed all-reduce + hidden\n"
               "all-reduce still paid + waiting for the slowest rank)\n");
    for (int i = 0; i < rep->nrows; i++) print_why(f, &rows[i]);

    fprintf(f, "\nmemory: the batch Lambda ran vs the largest the memory estimate allows (docs/model.md)\n");
    fprintf(f, "  %-10s %-5s %14s %14s\n", "model", "prec", "3090 ran/max", "A6000 ran/max");
    for (int i = 0; i < rep->nrows; i++) {
        const nvs_lambda_row *r = &rows[i];
        char a[32], b[32];
        snprintf(a, sizeof a, "%d/%d", r->d[0]->batch, r->max_batch[0]);
        snprintf(b, sizeof b, "%d/%d", r->d[1]->batch, r->max_batch[1]);
        fprintf(f, "  %-10s %-5s %14s %14s%s\n", nvs_lambda_workloads[r->workload].model, prec_name[r->fp16], a, b,
                r->d[0]->batch > r->max_batch[0] || r->d[1]->batch > r->max_batch[1] ? "  (above the estimate)" : "");
    }

    fprintf(f, "\nfitted parameters (each on one declared cell; every other cell above is a prediction)\n");
    const double committed[NVS_LAMBDA_NFIT] = {rep->committed.host_gbps, rep->committed.xsocket_shm_cost,
                                               rep->committed.overlap_penalty, rep->committed.maskrcnn_cv};
    double fitv[NVS_LAMBDA_NFIT] = {0};
    if (rep->fit) {
        fitv[0] = rep->fit->host_gbps;
        fitv[1] = rep->fit->xsocket_shm_cost;
        fitv[2] = rep->fit->overlap_penalty;
        fitv[3] = rep->fit->maskrcnn_cv;
    }
    for (int i = 0; i < NVS_LAMBDA_NFIT; i++) {
        const nvs_lambda_fit_cell *c = &nvs_lambda_fit_cells[i];
        fprintf(f, "  %-36s %8.4g  on %s %s %s at %d GPUs", c->param, committed[i], c->model, card_name[c->card],
                prec_name[c->fp16], c->n);
        if (rep->fit) fprintf(f, "  (refit: %.4g, residual %+.2f points)", fitv[i], 100 * rep->fit_resid[i]);
        fprintf(f, "\n");
    }
}

/* --- JSON ----------------------------------------------------------------------------------------------------------
 */

static int jset(json_t *o, const char *k, json_t *v)
{
    if (!o || !v) {
        json_decref(v);
        return 1;
    }
    return json_object_set_new(o, k, v) != 0;
}
static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *json_eff(const nvs_lambda_row *r, int k, int j)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= jset(o, "model", jnum(r->model_eff[k][j]));
    bad |= jset(o, "lambda", jnum(r->meas_eff[k][j]));
    bad |= jset(o, "published", jnum(r->pub_eff[k][j]));
    bad |= jset(o, "error", jnum(r->model_eff[k][j] - r->meas_eff[k][j]));
    bad |= jset(o, "fitted", json_boolean(r->fitted[k][j]));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *json_loss(const nvs_loss *l)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= jset(o, "loss", jnum(1 - l->eff));
    bad |= jset(o, "exposed_comm", jnum(l->comm));
    bad |= jset(o, "exposed_by_mode", jnum(l->mode_comm));
    bad |= jset(o, "hidden_comm_paid", jnum(l->penalty)); /* the interference; the key kept for readers */
    bad |= jset(o, "interference", jnum(l->penalty));
    bad |= jset(o, "slowest_rank", jnum(l->sync));
    bad |= jset(o, "transport", l->pt.transport != NVS_TR_NONE ? json_string(nvs_transport_name(l->pt.transport))
                                                                : json_null());
    bad |= jset(o, "busbw_gbps", jnum(l->pt.intra_gbps));
    bad |= jset(o, "bottleneck", json_string(l->pt.bottleneck));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *nvs_lambda_json(const nvs_lambda_report *rep)
{
    json_t *o = nvs_model_json_envelope("lambda"), *rows = json_object(), *fit = json_array();
    int bad = !o || !rows || !fit;
    bad |= jset(o, "nccl", json_string("2.7.8"));
    bad |= jset(o, "gpu_a", json_string(NVS_LAMBDA_GPU_A));
    bad |= jset(o, "machine_a", json_string(NVS_LAMBDA_MACHINE_A));
    bad |= jset(o, "gpu_b", json_string(NVS_LAMBDA_GPU_B));
    bad |= jset(o, "machine_b", json_string(NVS_LAMBDA_MACHINE_B));
    for (int i = 0; i < rep->nrows && !bad; i++) {
        const nvs_lambda_row *r = &rep->rows[i];
        const nvs_lambda_workload *w = &nvs_lambda_workloads[r->workload];
        json_t *row = json_object_get(rows, w->model);
        if (!row) {
            row = json_object();
            bad |= jset(row, "profile", json_string(w->profile));
            bad |= jset(row, "dp", json_string(nvs_dp_name(r->dp)));
            bad |= jset(rows, w->model, row);
            if (bad) break;
        }
        json_t *pr = json_object(), *ns = json_object();
        bad |= !pr || !ns;
        bad |= jset(pr, "model_precision", json_string(r->fp16 ? "fp16" : "tf32"));
        bad |= jset(pr, "batch_a", json_integer(r->d[0]->batch));
        bad |= jset(pr, "batch_b", json_integer(r->d[1]->batch));
        bad |= jset(pr, "max_batch_a", json_integer(r->max_batch[0]));
        bad |= jset(pr, "max_batch_b", json_integer(r->max_batch[1]));
        bad |= jset(pr, "grad_bytes_a", json_integer((json_int_t)llround(r->d[0]->grad_bytes))); /* 2 or 4 */
        bad |= jset(pr, "compute_scale_a", jnum(r->compute_scale[0]));
        bad |= jset(pr, "compute_scale_b", jnum(r->compute_scale[1]));
        bad |= jset(pr, "throughput_1gpu_a", jnum(r->d[0]->t1));
        bad |= jset(pr, "throughput_1gpu_b", jnum(r->d[1]->t1));
        bad |= jset(pr, "logs_a", json_string(r->d[0]->logs));
        bad |= jset(pr, "logs_b", json_string(r->d[1]->logs));
        bad |= jset(pr, "note_a", r->d[0]->note ? json_string(r->d[0]->note) : json_null());
        bad |= jset(pr, "note_b", r->d[1]->note ? json_string(r->d[1]->note) : json_null());
        for (int j = 0; j < NVS_LAMBDA_NS && !bad; j++) {
            json_t *x = json_object();
            char key[8];
            snprintf(key, sizeof key, "%d", nvs_lambda_ns[j]);
            bad |= jset(x, "eff_a", json_eff(r, 0, j));
            bad |= jset(x, "eff_b", json_eff(r, 1, j));
            bad |= jset(x, "gap", nvs_model_json_gap(&r->gap[j]));
            bad |= jset(x, "loss_a", json_loss(&r->loss[0][j]));
            bad |= jset(x, "loss_b", json_loss(&r->loss[1][j]));
            bad |= jset(ns, key, x);
        }
        bad |= jset(pr, "n", ns);
        bad |= jset(row, prec_name[r->fp16], pr);
    }
    bad |= jset(o, "rows", rows);
    const double committed[NVS_LAMBDA_NFIT] = {rep->committed.host_gbps, rep->committed.xsocket_shm_cost,
                                               rep->committed.overlap_penalty, rep->committed.maskrcnn_cv};
    for (int i = 0; i < NVS_LAMBDA_NFIT && !bad; i++) {
        const nvs_lambda_fit_cell *c = &nvs_lambda_fit_cells[i];
        json_t *x = json_object();
        bad |= jset(x, "param", json_string(c->param));
        bad |= jset(x, "value", jnum(committed[i]));
        bad |= jset(x, "model", json_string(c->model));
        bad |= jset(x, "gpu", json_string(c->card ? NVS_LAMBDA_GPU_B : NVS_LAMBDA_GPU_A));
        bad |= jset(x, "precision", json_string(prec_name[c->fp16]));
        bad |= jset(x, "n", json_integer(c->n));
        bad |= json_array_append_new(fit, x) != 0;
    }
    bad |= jset(o, "fitted", fit);
    double e8, e24;
    int ns;
    nvs_lambda_max_err(rep->rows, rep->nrows, &e8, &e24, &ns);
    json_t *sum = json_object();
    bad |= jset(sum, "cells_compared", json_integer(ns));
    bad |= jset(sum, "max_abs_error_8", jnum(e8));
    bad |= jset(sum, "max_abs_error_2_4", jnum(e24));
    bad |= jset(o, "summary", sum);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
