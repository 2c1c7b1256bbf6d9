/* The Lambda case: the measurements (data, each with its log), the configurations, the fit (lambda.h). PURE. */
#include "model/lambda.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const int nvs_lambda_ns[NVS_LAMBDA_NS] = {2, 4, 8};

const nvs_lambda_workload nvs_lambda_workloads[] = {
    {"resnet50", "resnet50", "resnet50", 0.0,
     "synthetic data (DLE --data-backend syntetic): every rank runs the same shapes"},
    {"ssd300", "ssd300", "SSD", 0.0, "fixed 300x300 inputs, benchmark-training mode: every rank runs the same shapes"},
    /* fitted on the A6000 4-GPU FP32 cell (nvs_lambda_fit_cells): a rank's backward varies with its images'
     * proposals and instances, and each delayed all-reduce waits for the slowest of N ranks */
    {"maskrcnn", "maskrcnn-nvidia", "maskrcnn", 0.0685,
     "fitted: COCO images differ in size, proposals and instances, so a rank's step time varies"},
    {"bert-large", "bert-large-squad", "bert_large_squad", 0.0,
     "SQuAD features padded to 384 tokens: every rank runs the same shapes"},
};
const int nvs_lambda_nworkloads = (int)(sizeof nvs_lambda_workloads / sizeof nvs_lambda_workloads[0]);

/* lambdal/deeplearning-benchmark at ca7c1f2c4b69e89028cf9b03ac2aaead3971673b (2022-06-30, the last commit whose
 * CSVs hold the 3090/A6000 4x and 8x rows), pytorch/results/<log> for the raw throughput (the value the
 * benchmark's own regexes parse from each log), pytorch/pytorch-train-throughput-{fp32,fp16}.csv for the
 * published cells. Batches: pytorch/scripts/config_v0/config_pytorch_{3090,2x3090,...,8xA6000}.sh. RTX 3090
 * logs: the 05-02-2021 runs on the EPYC 7662 / MZ52-G40 box; RTX A6000 logs: the EPYC 7502 / H12DSG-O-CPU box.
 * Fields: workload, card, fp16, batch, gradient bytes, t1, {t2, t4, t8}, published 1x, {2x, 4x, 8x}. */
const nvs_lambda_meas nvs_lambda_data[] = {
    {0, 0, 0, 224, 4, 471.69, {0, 0, 0}, 471, {922, 1839, 3654},
     "3090/PyTorch_resnet50_FP32/31-10-2020_16-18-59.txt (Threadripper 3970X)",
     "no same-machine series: 1x and 2x ran on a Threadripper 3970X workstation, 4x and 8x on an EPYC 7313 / "
     "MZ22-G20 box with PyTorch 1.9 (its 1x was not run); the compute calibration uses the Threadripper 1x"},
    {0, 1, 0, 496, 4, 437.78, {870.71, 1725.61, 3434.81}, 437, {870, 1725, 3434},
     "A6000/PyTorch_resnet50_FP32/01-01-2021_16-04-12.txt 2xA6000/PyTorch_resnet50_FP32/01-01-2021_10-13-24.txt "
     "4xA6000/PyTorch_resnet50_FP32/01-01-2021_08-31-50.txt 8xA6000/PyTorch_resnet50_FP32/31-12-2020_18-40-22.txt",
     NULL},
    {1, 0, 0, 80, 4, 138.6553345, {266.329834, 499.9284363, 888.6959229}, 137, {265, 499, 888},
     "3090/PyTorch_SSD_FP32/05-02-2021_11-53-41.txt 2x3090/PyTorch_SSD_FP32/05-02-2021_10-50-12.txt "
     "4x3090/PyTorch_SSD_FP32/05-02-2021_08-50-32.txt 8x3090/PyTorch_SSD_FP32/05-02-2021_05-07-02.txt",
     NULL},
    {1, 1, 0, 144, 4, 135.4087982, {268.7092896, 530.7752686, 1057.755981}, 135, {268, 530, 1057},
     "A6000/PyTorch_SSD_FP32/01-01-2021_11-01-34.txt 2xA6000/PyTorch_SSD_FP32/01-01-2021_09-10-32.txt "
     "4xA6000/PyTorch_SSD_FP32/01-01-2021_07-35-59.txt 8xA6000/PyTorch_SSD_FP32/31-12-2020_17-49-04.txt",
     NULL},
    {2, 0, 0, 12, 4, 14.234875, {25.40758, 43.266631, 68.728522}, 14, {26, 43, 68},
     "3090/PyTorch_maskrcnn_FP32/05-02-2021_11-39-28.txt 2x3090/PyTorch_maskrcnn_FP32/05-02-2021_10-35-55.txt "
     "4x3090/PyTorch_maskrcnn_FP32/05-02-2021_08-35-06.txt 8x3090/PyTorch_maskrcnn_FP32/05-02-2021_04-51-35.txt",
     NULL},
    {2, 1, 0, 32, 4, 12.944984, {24.742906, 48.171007, 93.965644}, 12, {24, 48, 93},
     "A6000/PyTorch_maskrcnn_FP32/01-01-2021_10-46-21.txt 2xA6000/PyTorch_maskrcnn_FP32/01-01-2021_08-55-50.txt "
     "4xA6000/PyTorch_maskrcnn_FP32/01-01-2021_07-20-59.txt 8xA6000/PyTorch_maskrcnn_FP32/31-12-2020_17-35-03.txt",
     "published 1x cell 12 is 12.945 truncated (compile_results_pytorch_throughput.py int()): 97 % at 8 GPUs reads 91 "
     "% in the logs"},
    {3, 0, 0, 8, 4, 16.92649439, {18.00390259, 16.2861287, 16.12122198}, 17, {25, 16, 16},
     "3090/PyTorch_bert_large_squad_FP32/05-02-2021_12-17-33.txt "
     "2x3090/PyTorch_bert_large_squad_FP32/05-02-2021_11-07-53.txt "
     "4x3090/PyTorch_bert_large_squad_FP32/05-02-2021_09-11-54.txt "
     "8x3090/PyTorch_bert_large_squad_FP32/05-02-2021_05-27-28.txt",
     "the published 1x, 2x cells average a Threadripper 3970X run with this box's (2x FP32: 33.9 and 18.0 seq/s)"},
    {3, 1, 0, 18, 4, 25.73127626, {49.61030214, 93.67775981, 178.5472125}, 25, {49, 93, 178},
     "A6000/PyTorch_bert_large_squad_FP32/01-01-2021_17-38-14.txt "
     "2xA6000/PyTorch_bert_large_squad_FP32/01-01-2021_17-29-33.txt "
     "4xA6000/PyTorch_bert_large_squad_FP32/01-01-2021_17-20-36.txt "
     "8xA6000/PyTorch_bert_large_squad_FP32/01-01-2021_18-29-33.txt",
     NULL},
    {0, 0, 1, 448, 2, 806.99, {1563.65, 3037.78, 5610.97}, 801, {1561, 3076, 5907},
     "3090/PyTorch_resnet50_FP16/05-02-2021_18-30-41.txt 2x3090/PyTorch_resnet50_FP16/05-02-2021_18-28-20.txt "
     "4x3090/PyTorch_resnet50_FP16/05-02-2021_09-45-22.txt 8x3090/PyTorch_resnet50_FP16/05-02-2021_06-34-22.txt",
     "the published 1x, 2x cells average a Threadripper 3970X run, the 4x, 8x cells an EPYC 7313 run (PyTorch 1.9)"},
    {0, 1, 1, 928, 2, 775.2, {1540.3, 3056.77, 6067.58}, 775, {1540, 3056, 6067},
     "A6000/PyTorch_resnet50_FP16/01-01-2021_16-24-09.txt 2xA6000/PyTorch_resnet50_FP16/01-01-2021_09-49-52.txt "
     "4xA6000/PyTorch_resnet50_FP16/01-01-2021_08-09-34.txt 8xA6000/PyTorch_resnet50_FP16/31-12-2020_18-21-33.txt",
     "1 GPU ran batch 912, 2 to 8 GPUs 928 (config_pytorch_A6000.sh vs 2/4/8xA6000)"},
    {1, 0, 1, 140, 2, 214.6660156, {419.2600708, 825.9624023, 1554.421997}, 214, {418, 825, 1554},
     "3090/PyTorch_SSD_AMP/05-02-2021_12-11-04.txt 2x3090/PyTorch_SSD_AMP/05-02-2021_11-03-48.txt "
     "4x3090/PyTorch_SSD_AMP/05-02-2021_09-08-47.txt 8x3090/PyTorch_SSD_AMP/05-02-2021_05-25-48.txt",
     NULL},
    {1, 1, 1, 256, 2, 230.1825867, {456.9351807, 909.6976318, 1804.275879}, 230, {456, 909, 1804},
     "A6000/PyTorch_SSD_AMP/01-01-2021_11-36-33.txt 2xA6000/PyTorch_SSD_AMP/01-01-2021_09-34-52.txt "
     "4xA6000/PyTorch_SSD_AMP/01-01-2021_07-53-58.txt 8xA6000/PyTorch_SSD_AMP/31-12-2020_18-06-28.txt",
     NULL},
    {2, 0, 1, 16, 4, 15.318334, {27.453672, 45.645817, 74.487896}, 15, {28, 45, 74},
     "3090/PyTorch_maskrcnn_FP16/05-02-2021_12-19-13.txt 2x3090/PyTorch_maskrcnn_FP16/05-02-2021_11-10-22.txt "
     "4x3090/PyTorch_maskrcnn_FP16/05-02-2021_09-47-43.txt 8x3090/PyTorch_maskrcnn_FP16/05-02-2021_06-36-58.txt",
     "apex AMP O1: fp32 master weights, so the all-reduce stays fp32"},
    {2, 1, 1, 32, 4, 15.192518, {28.973697, 53.797335, 100.73188}, 15, {28, 53, 100},
     "A6000/PyTorch_maskrcnn_FP16/01-01-2021_11-52-40.txt 2xA6000/PyTorch_maskrcnn_FP16/01-01-2021_09-54-21.txt "
     "4xA6000/PyTorch_maskrcnn_FP16/01-01-2021_08-14-07.txt 8xA6000/PyTorch_maskrcnn_FP16/31-12-2020_18-26-15.txt",
     "apex AMP O1: fp32 master weights, so the all-reduce stays fp32"},
    {3, 0, 1, 16, 2, 47.14239641, {62.59893237, 67.98241017, 68.88272355}, 47, {76, 67, 68},
     "3090/PyTorch_bert_large_squad_FP16/05-02-2021_12-30-50.txt "
     "2x3090/PyTorch_bert_large_squad_FP16/05-02-2021_11-29-59.txt "
     "4x3090/PyTorch_bert_large_squad_FP16/05-02-2021_10-13-14.txt "
     "8x3090/PyTorch_bert_large_squad_FP16/05-02-2021_07-11-52.txt",
     "the published 1x, 2x cells average a Threadripper 3970X run with this box's (2x FP16: 89.8 and 62.6 seq/s)"},
    {3, 1, 1, 36, 2, 63.79242928, {123.8956469, 237.5576354, 463.3390856}, 63, {123, 237, 463},
     "A6000/PyTorch_bert_large_squad_FP16/01-01-2021_17-41-40.txt "
     "2xA6000/PyTorch_bert_large_squad_FP16/01-01-2021_17-33-05.txt "
     "4xA6000/PyTorch_bert_large_squad_FP16/01-01-2021_17-24-17.txt "
     "8xA6000/PyTorch_bert_large_squad_FP16/01-01-2021_18-33-25.txt",
     NULL},

};
const int nvs_lambda_ndata = (int)(sizeof nvs_lambda_data / sizeof nvs_lambda_data[0]);

/* One cell per free parameter. host_gbps: where the 3090 box's ring is bound by its host budget and the four
 * GPUs share one socket; xsocket_shm_cost: the same at eight GPUs, where the ring crosses sockets;
 * overlap_penalty: a CNN whose all-reduce backward could hide; maskrcnn step_cv: the A6000 (P2P, little
 * communication) where what is left is waiting for the slowest rank. All FP32: every FP16 cell is a prediction. */
const nvs_lambda_fit_cell nvs_lambda_fit_cells[NVS_LAMBDA_NFIT] = {
    {NVS_LAMBDA_MACHINE_A ".host_gbps", "bert-large", 0, 0, 4},
    {NVS_LAMBDA_MACHINE_A ".xsocket_shm_cost", "bert-large", 0, 0, 8},
    {"overlap_penalty", "ssd300", 0, 0, 4},
    {"maskrcnn step_cv", "maskrcnn", 1, 0, 4},
};

/* apex.parallel.DistributedDataParallel(message_size=10000000): buckets of 10M gradient elements */
#define APEX_MESSAGE_ELEMS 1e7

int nvs_lambda_workload_index(const char *model)
{
    for (int i = 0; i < nvs_lambda_nworkloads; i++)
        if (!strcmp(nvs_lambda_workloads[i].model, model)) return i;
    return -1;
}

const nvs_lambda_meas *nvs_lambda_find(int w, int card, int fp16)
{
    for (int i = 0; i < nvs_lambda_ndata; i++) {
        const nvs_lambda_meas *d = &nvs_lambda_data[i];
        if (d->workload == w && d->card == card && d->fp16 == fp16) return d;
    }
    return NULL;
}

double nvs_lambda_meas_eff(const nvs_lambda_meas *d, int k)
{
    if (k < 0 || k >= NVS_LAMBDA_NS || !(d->t[k] > 0) || !(d->t1 > 0)) return NAN;
    return d->t[k] / (nvs_lambda_ns[k] * d->t1);
}

double nvs_lambda_pub_eff(const nvs_lambda_meas *d, int k)
{
    if (k < 0 || k >= NVS_LAMBDA_NS || d->pub1 <= 0) return NAN;
    return d->pub[k] / (double)(nvs_lambda_ns[k] * d->pub1);
}

nvs_result_t nvs_lambda_params_committed(const nvs_presets *ps, nvs_lambda_params *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const nvs_preset *m = nvs_presets_find(ps, NVS_PK_MACHINE, NVS_LAMBDA_MACHINE_A);
    if (!m) {
        snprintf(err, errlen, "the presets lack machine %s", NVS_LAMBDA_MACHINE_A);
        return NVS_ERR_INPUT;
    }
    out->host_gbps = m->f[NVS_M_HOST_GBPS].v;
    out->xsocket_shm_cost = m->f[NVS_M_XSOCKET_SHM_COST].v;
    out->overlap_penalty = NVS_LAMBDA_OVERLAP_PENALTY;
    out->maskrcnn_cv = nvs_lambda_workloads[nvs_lambda_workload_index("maskrcnn")].step_cv;
    return NVS_OK;
}

nvs_result_t nvs_lambda_config(const nvs_presets *ps, const nvs_lambda_params *par, const nvs_lambda_meas *d,
                               nvs_profile *prof, nvs_model_config *c, char *err, size_t errlen)
{
    const nvs_lambda_workload *w = &nvs_lambda_workloads[d->workload];
    const char *gid = d->card ? NVS_LAMBDA_GPU_B : NVS_LAMBDA_GPU_A;
    const char *mid = d->card ? NVS_LAMBDA_MACHINE_B : NVS_LAMBDA_MACHINE_A;
    const nvs_preset *gp = nvs_presets_find(ps, NVS_PK_GPU, gid), *mp = nvs_presets_find(ps, NVS_PK_MACHINE, mid);
    if (!gp || !mp) {
        snprintf(err, errlen, "the presets lack %s", !gp ? gid : mid);
        return NVS_ERR_INPUT;
    }
    NVS_CHECK(nvs_profile_load(w->profile, prof, err, errlen));
    nvs_model_config_init(c);
    /* No framework host lane (c->fw NULL, the hardware alone): the per-operation cost of workload/framework.c was
     * fitted on PyTorch 2.11 on an H200 VM's vCPU, and Lambda's logs say nothing of their hosts' cost per
     * operation under their PyTorch; their cells are fitted (overlap_penalty, host budget) without it. */
    nvs_gpu_spec_from(gp, &c->gpu);
    nvs_machine_spec_from(mp, &c->machine);
    c->machine.nccl = NVS_LAMBDA_NCCL;
    /* the free parameters: the 3090 box's are fitted; the A6000 box's are not measured (its GPUs use P2P),
     * so it takes the same, which only the gap's "host" share would read */
    c->machine.host_gbps = par->host_gbps;
    c->machine.xsocket_shm_cost = par->xsocket_shm_cost;
    c->overlap_penalty = par->overlap_penalty;
    c->step_cv = !strcmp(w->model, "maskrcnn") ? par->maskrcnn_cv : w->step_cv;
    c->profile = prof;
    /* "FP32" on Ampere with PyTorch 1.7 is TF32 (allow_tf32 on by default for matmuls and convolutions) */
    c->prec = d->fp16 ? NVS_PREC_FP16 : NVS_PREC_TF32;
    c->grad_bytes = d->grad_bytes;
    c->bucket_first_bytes = c->bucket_cap_bytes = APEX_MESSAGE_ELEMS * d->grad_bytes;
    c->batch = d->batch;
    snprintf(c->label, sizeof c->label, "%s @ %s", gid, mid);
    /* compute calibration: the modelled 1-GPU step equals Lambda's measured one (batch / throughput) */
    nvs_model_point p1;
    char e2[256];
    if (nvs_model_eval(c, 1, 1, &p1, e2, sizeof e2) != NVS_OK || !(p1.t.compute_us > 0) || !(d->t1 > 0)) {
        nvs_profile_free(prof);
        snprintf(err, errlen, "%s: cannot calibrate the 1-GPU step", w->model);
        return NVS_ERR_INPUT;
    }
    c->ct.compute_scale = (d->batch / d->t1 * 1e6) / p1.t.compute_us;
    c->compute_measured = 1;
    return NVS_OK;
}

nvs_result_t nvs_lambda_cell_eff(const nvs_presets *ps, const nvs_lambda_params *par, int w, int card, int fp16,
                                 int n, double *eff, char *err, size_t errlen)
{
    const nvs_lambda_meas *d = nvs_lambda_find(w, card, fp16);
    if (!d) {
        snprintf(err, errlen, "no Lambda series for workload %d card %d fp16 %d", w, card, fp16);
        return NVS_ERR_INPUT;
    }
    nvs_profile prof;
    nvs_model_config c;
    NVS_CHECK(nvs_lambda_config(ps, par, d, &prof, &c, err, errlen));
    nvs_model_point pt;
    nvs_result_t r = nvs_model_eval(&c, 1, n, &pt, err, errlen);
    nvs_profile_free(&prof);
    *eff = pt.efficiency;
    return r;
}

static int is_fitted(int w, int card, int fp16, int n)
{
    for (int i = 0; i < NVS_LAMBDA_NFIT; i++) {
        const nvs_lambda_fit_cell *f = &nvs_lambda_fit_cells[i];
        if (nvs_lambda_workload_index(f->model) == w && f->card == card && f->fp16 == fp16 && f->n == n) return 1;
    }
    return 0;
}

nvs_result_t nvs_lambda_row_eval(const nvs_presets *ps, const nvs_lambda_params *par, int w, int fp16,
                                 nvs_lambda_row *row, char *err, size_t errlen)
{
    memset(row, 0, sizeof *row);
    row->workload = w;
    row->fp16 = fp16;
    nvs_profile prof[2];
    nvs_model_config c[2];
    int loaded = 0;
    nvs_result_t r = NVS_OK;
    for (int k = 0; k < 2 && r == NVS_OK; k++) {
        row->d[k] = nvs_lambda_find(w, k, fp16);
        if (!row->d[k]) {
            snprintf(err, errlen, "no Lambda series for %s", nvs_lambda_workloads[w].model);
            r = NVS_ERR_INPUT;
            break;
        }
        r = nvs_lambda_config(ps, par, row->d[k], &prof[k], &c[k], err, errlen);
        if (r != NVS_OK) break;
        loaded++;
        nvs_mem_estimate mem;
        row->max_batch[k] = nvs_model_max_batch(&c[k], &mem);
        row->compute_scale[k] = c[k].ct.compute_scale;
    }
    if (r == NVS_OK) row->dp = nvs_model_dp(&c[0]);
    for (int i = 0; i < NVS_LAMBDA_NS && r == NVS_OK; i++) {
        int n = nvs_lambda_ns[i];
        for (int k = 0; k < 2 && r == NVS_OK; k++) {
            r = nvs_model_loss(&c[k], 1, n, &row->loss[k][i], err, errlen);
            row->model_eff[k][i] = row->loss[k][i].eff;
            row->meas_eff[k][i] = nvs_lambda_meas_eff(row->d[k], i);
            row->pub_eff[k][i] = nvs_lambda_pub_eff(row->d[k], i);
            row->fitted[k][i] = is_fitted(w, k, fp16, n);
        }
        if (r == NVS_OK) r = nvs_model_gap(&c[0], &c[1], 1, n, &row->gap[i], err, errlen);
    }
    for (int k = 0; k < loaded; k++) nvs_profile_free(&prof[k]);
    return r;
}

/* --- the fit ---------------------------------------------------------------------------------------------------- */

static double *param_of(nvs_lambda_params *p, int i)
{
    switch (i) {
    case 0: return &p->host_gbps;
    case 1: return &p->xsocket_shm_cost;
    case 2: return &p->overlap_penalty;
    default: return &p->maskrcnn_cv;
    }
}

/* the search interval of each parameter; efficiency rises with host_gbps and falls with the others */
static const double fit_lo[NVS_LAMBDA_NFIT] = {0.1, 0.1, 0.0, 0.0};
static const double fit_hi[NVS_LAMBDA_NFIT] = {200.0, 50.0, 1.0, 1.0};

static nvs_result_t cell_resid(const nvs_presets *ps, const nvs_lambda_params *p, int i, double *res, char *err,
                               size_t errlen)
{
    const nvs_lambda_fit_cell *f = &nvs_lambda_fit_cells[i];
    int w = nvs_lambda_workload_index(f->model), k = -1;
    for (int j = 0; j < NVS_LAMBDA_NS; j++)
        if (nvs_lambda_ns[j] == f->n) k = j;
    const nvs_lambda_meas *d = w >= 0 ? nvs_lambda_find(w, f->card, f->fp16) : NULL;
    if (!d || k < 0) {
        snprintf(err, errlen, "fit cell %d names no Lambda measurement", i);
        return NVS_ERR_INPUT;
    }
    double eff;
    NVS_CHECK(nvs_lambda_cell_eff(ps, p, w, f->card, f->fp16, f->n, &eff, err, errlen));
    *res = eff - nvs_lambda_meas_eff(d, k);
    return NVS_OK;
}

nvs_result_t nvs_lambda_fit(const nvs_presets *ps, const nvs_lambda_params *start, nvs_lambda_params *out,
                            double resid[NVS_LAMBDA_NFIT], char *err, size_t errlen)
{
    nvs_lambda_params p = *start;
    /* each parameter moves its own cell most: bisect one at a time, the others fixed, until nothing moves */
    for (int round = 0; round < 40; round++) {
        double moved = 0;
        for (int i = 0; i < NVS_LAMBDA_NFIT; i++) {
            double *x = param_of(&p, i), lo = fit_lo[i], hi = fit_hi[i], old = *x, rlo, rhi;
            *x = lo;
            NVS_CHECK(cell_resid(ps, &p, i, &rlo, err, errlen));
            *x = hi;
            NVS_CHECK(cell_resid(ps, &p, i, &rhi, err, errlen));
            if ((rlo > 0) == (rhi > 0)) { /* no root inside: the bound nearer to the measurement */
                *x = fabs(rlo) < fabs(rhi) ? lo : hi;
            } else {
                for (int it = 0; it < 60; it++) {
                    double mid = 0.5 * (lo + hi), rm;
                    *x = mid;
                    NVS_CHECK(cell_resid(ps, &p, i, &rm, err, errlen));
                    if ((rm > 0) == (rlo > 0)) {
                        lo = mid;
                        rlo = rm;
                    } else
                        hi = mid;
                }
                *x = 0.5 * (lo + hi);
            }
            double dx = fabs(*x - old) / (fabs(old) > 1e-9 ? fabs(old) : 1.0);
            if (dx > moved) moved = dx;
        }
        if (moved < 1e-7) break;
    }
    for (int i = 0; resid && i < NVS_LAMBDA_NFIT; i++) NVS_CHECK(cell_resid(ps, &p, i, &resid[i], err, errlen));
    *out = p;
    return NVS_OK;
}
