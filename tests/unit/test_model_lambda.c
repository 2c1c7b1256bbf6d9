/* The Lambda case (src/model/lambda.h) with the built-in presets and profiles, no GPU: the table of model vs
 * Lambda's same-machine efficiencies within the tolerance (5 points at 8 GPUs, 8 at 2 and 4) except the
 * misses docs/model.md names, the committed parameters equal to a refit on the declared cells, the causes the
 * "why" names, the published cells' artifacts shown with numbers, NCCL 2.7.8's P2P rule, and the memory check. */
#include <math.h>
#include <string.h>

#include "model/lambda.h"
#include "model/lambda_out.h"
#include "t.h"

static nvs_presets ps;
static nvs_lambda_params par;
static nvs_lambda_row rows[8];
static char err[512];

static void load(void)
{
    static int done;
    if (done) return;
    done = 1;
    memset(&ps, 0, sizeof ps);
    if (nvs_presets_load_builtin(&ps, err, sizeof err) != NVS_OK) T_FAIL("presets: %s", err);
    if (nvs_lambda_params_committed(&ps, &par, err, sizeof err) != NVS_OK) T_FAIL("%s", err);
    T_EQ_I(nvs_lambda_nworkloads * NVS_LAMBDA_PRECS, 8);
    for (int w = 0; w < nvs_lambda_nworkloads; w++)
        for (int fp16 = 0; fp16 < 2; fp16++)
            if (nvs_lambda_row_eval(&ps, &par, w, fp16, &rows[w * 2 + fp16], err, sizeof err) != NVS_OK)
                T_FAIL("%s: %s", nvs_lambda_workloads[w].model, err);
}

static const nvs_lambda_row *row(const char *model, int fp16)
{
    return &rows[nvs_lambda_workload_index(model) * 2 + fp16];
}

/* The cells the model misses by more than the tolerance, named in docs/model.md (the Lambda case, "misses"):
 * RTX A6000 Mask R-CNN FP16 at 8 GPUs (model 90.5 vs 82.9: its AMP run loses more than the step-time
 * variation fitted on FP32 explains). A miss that disappears fails too: then this list and the doc change. */
static int known_miss(const char *model, int card, int fp16, int n)
{
    return !strcmp(model, "maskrcnn") && card == 1 && fp16 && n == 8;
}

static void t_table_within_tolerance(void)
{
    load();
    int compared = 0, missed = 0;
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < NVS_LAMBDA_NS; j++) {
                const nvs_lambda_row *r = &rows[i];
                const char *m = nvs_lambda_workloads[r->workload].model;
                int n = nvs_lambda_ns[j];
                double meas = r->meas_eff[k][j], model = r->model_eff[k][j];
                if (!(model > 0 && model <= 1)) T_FAIL("%s card %d: efficiency %g outside (0, 1]", m, k, model);
                if (!isfinite(meas)) continue;
                double tol = n == 8 ? 0.05 : 0.08, e = fabs(model - meas);
                compared++;
                if (known_miss(m, k, r->fp16, n)) {
                    missed++;
                    if (e <= tol) T_FAIL("%s card %d fp16 %d N=%d: within %g now (err %+.1f): update the list and "
                                         "docs/model.md", m, k, r->fp16, n, tol, 100 * (model - meas));
                } else if (e > tol)
                    T_FAIL("%s card %d fp16 %d N=%d: model %.1f vs Lambda %.1f (tolerance %.0f points)", m, k,
                           r->fp16, n, 100 * model, 100 * meas, 100 * tol);
            }
    /* 4 workloads x 2 cards x 2 precisions x 3 N, less the 3090 ResNet-50 FP32 series (no same machine) */
    T_EQ_I(compared, 45);
    T_EQ_I(missed, 1);
    double e8, e24;
    int ns;
    nvs_lambda_max_err(rows, 8, &e8, &e24, &ns);
    T_EQ_I(ns, 41); /* 45 less the 4 fitted cells */
    T_ASSERT(e24 <= 0.08);
}

/* the headline cells: the FP32 8-GPU table, on the same machine */
static void t_headline(void)
{
    load();
    const struct {
        const char *model;
        double lambda_a, lambda_b; /* same-machine logs */
    } h[] = {{"maskrcnn", 0.6035, 0.9074}, {"bert-large", 0.1191, 0.8674}, {"ssd300", 0.8012, 0.9764}};
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++) {
        const nvs_lambda_row *r = row(h[i].model, 0);
        T_NEAR(r->meas_eff[0][2], h[i].lambda_a, 5e-5);
        T_NEAR(r->meas_eff[1][2], h[i].lambda_b, 5e-5);
        T_NEAR(r->model_eff[0][2], h[i].lambda_a, 0.05);
        T_NEAR(r->model_eff[1][2], h[i].lambda_b, 0.05);
        T_ASSERT(r->model_eff[1][2] > r->model_eff[0][2] + 0.1); /* the A6000 pulls ahead */
    }
    /* the 3090 ResNet-50 FP32 series has no same machine: not compared */
    T_ASSERT(!isfinite(row("resnet50", 0)->meas_eff[0][2]));
    T_NEAR(row("resnet50", 0)->meas_eff[1][2], 0.9807, 5e-5);
}

/* the published cells' artifacts, with numbers */
static void t_published_artifacts(void)
{
    load();
    /* A6000 Mask R-CNN FP32: the 1-GPU cell 12 is 12.945 truncated: 93/(8 x 12) = 96.9 % vs 90.7 % */
    const nvs_lambda_row *m = row("maskrcnn", 0);
    T_NEAR(m->pub_eff[1][2], 93.0 / 96, 1e-12);
    T_NEAR(m->meas_eff[1][2], 93.965644 / (8 * 12.944984), 1e-9);
    T_ASSERT(m->pub_eff[1][2] - m->meas_eff[1][2] > 0.05);
    /* 3090 BERT-large FP32 at 2: the published 25 seq/s averages the Threadripper (33.9) and the EPYC (18.0) */
    const nvs_lambda_row *b = row("bert-large", 0);
    T_NEAR(b->pub_eff[0][0], 25.0 / 34, 1e-12);
    T_NEAR(b->meas_eff[0][0], 18.003902585653943 / (2 * 16.92649439325037), 1e-9);
    T_ASSERT(b->pub_eff[0][0] - b->meas_eff[0][0] > 0.2);
}

/* The committed parameters are the fit on the declared cells (to their printed precision), and the fitted cells
 * are reproduced. */
static void t_fit(void)
{
    load();
    nvs_lambda_params fit;
    double resid[NVS_LAMBDA_NFIT];
    T_EQ_I(nvs_lambda_fit(&ps, &par, &fit, resid, err, sizeof err), NVS_OK);
    const double c[NVS_LAMBDA_NFIT] = {par.host_gbps, par.xsocket_shm_cost, par.overlap_penalty, par.maskrcnn_cv};
    const double f[NVS_LAMBDA_NFIT] = {fit.host_gbps, fit.xsocket_shm_cost, fit.overlap_penalty, fit.maskrcnn_cv};
    for (int i = 0; i < NVS_LAMBDA_NFIT; i++) {
        if (fabs(c[i] - f[i]) > 0.005 * fabs(f[i]))
            T_FAIL("%s: committed %g, the fit gives %g: update the preset / lambda.c", nvs_lambda_fit_cells[i].param,
                   c[i], f[i]);
        T_NEAR(resid[i], 0, 1e-4);
    }
    /* from a different start the fit lands on the same values */
    nvs_lambda_params s2 = {20, 1, 0, 0}, fit2;
    T_EQ_I(nvs_lambda_fit(&ps, &s2, &fit2, NULL, err, sizeof err), NVS_OK);
    T_NEAR(fit2.host_gbps, fit.host_gbps, 1e-3 * fit.host_gbps);
    T_NEAR(fit2.overlap_penalty, fit.overlap_penalty, 1e-3);
    /* each fitted cell is marked, and only those */
    int marked = 0;
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < NVS_LAMBDA_NS; j++) marked += rows[i].fitted[k][j];
    T_EQ_I(marked, NVS_LAMBDA_NFIT);
    T_EQ_I(row("bert-large", 0)->fitted[0][1], 1);
}

/* the why: link for BERT (the 3090's SHM ring bound by the host budget), the overlap mode in Mask R-CNN's gap */
static void t_causes(void)
{
    load();
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < NVS_LAMBDA_NS; j++) {
            const nvs_gap *g = &rows[i].gap[j];
            double sum = 0;
            for (int c = 0; c < NVS_CAUSE_COUNT; c++) sum += g->share[c];
            T_NEAR(sum, g->gap, 1e-12);
            for (int k = 0; k < 2; k++) {
                const nvs_loss *l = &rows[i].loss[k][j];
                T_NEAR(l->comm + l->penalty + l->sync, 1 - l->eff, 1e-9);
            }
        }
    const nvs_lambda_row *b = row("bert-large", 0);
    T_EQ_I(b->gap[2].cause, NVS_CAUSE_LINK);
    T_CONTAINS(b->loss[0][2].pt.bottleneck, "host memory path");
    T_EQ_I(b->loss[0][2].pt.transport, NVS_TR_SHM);
    T_EQ_I(b->loss[1][2].pt.transport, NVS_TR_P2P);
    T_EQ_I(b->loss[1][2].pt.cls, NVS_CLS_SYS); /* NCCL 2.7.8 on AMD: P2P across sockets */
    const nvs_lambda_row *m = row("maskrcnn", 0);
    T_EQ_I(m->dp, NVS_DP_DELAY);
    T_ASSERT(m->gap[2].share[NVS_CAUSE_OVERLAP] > 0.05);
    T_ASSERT(m->loss[0][2].mode_comm > 0.05);
    T_ASSERT(m->loss[1][2].sync > 0.05); /* the A6000's loss: waiting for the slowest rank */
    T_NEAR(m->loss[0][2].penalty, 0, 1e-15);
    /* the CNNs overlap (dp ddp): their 3090 loss is mostly communication paid under backward */
    const nvs_lambda_row *s = row("ssd300", 0);
    T_EQ_I(s->dp, NVS_DP_DDP);
    T_ASSERT(s->loss[0][2].penalty > s->loss[0][2].comm);
}

/* memory: Lambda ran what fits; Mask R-CNN's profile is an upper bound (128 mask RoIs, the largest image) */
static void t_memory(void)
{
    load();
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 2; k++) {
            const nvs_lambda_row *r = &rows[i];
            const char *m = nvs_lambda_workloads[r->workload].model;
            int ran = r->d[k]->batch, max = r->max_batch[k];
            if (!strcmp(m, "maskrcnn")) {
                T_ASSERT(max >= 0.5 * ran); /* the estimate is conservative here, within 2x */
                continue;
            }
            if (ran > 1.05 * max) T_FAIL("%s card %d fp16 %d: Lambda ran %d, the estimate allows %d", m, k, r->fp16,
                                         ran, max);
        }
    /* the 48 GB card holds more than twice the 24 GB card's batch */
    T_ASSERT(row("resnet50", 0)->max_batch[1] > 2 * row("resnet50", 0)->max_batch[0]);
}

T_LIST = {T_CASE(t_table_within_tolerance), T_CASE(t_headline), T_CASE(t_published_artifacts), T_CASE(t_fit),
          T_CASE(t_causes), T_CASE(t_memory)};
T_MAIN
