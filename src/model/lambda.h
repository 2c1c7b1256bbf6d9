/* The Lambda case (`nvscale model --lambda`): Lambda Labs' PyTorch benchmark of 8x RTX 3090 and 8x RTX A6000
 * (github.com/lambdal/deeplearning-benchmark, pytorch/, NGC container 20.10: PyTorch 1.7, NCCL 2.7.8), with
 * the model beside every measured efficiency. PURE: the measurements are data in lambda.c, each with its log.
 *
 * What is compared. Lambda's published CSV cells average runs of different machines and truncate to integers
 * (A6000 Mask R-CNN 1 GPU: 12.94 img/s stored as 12, so 8 GPUs read 97 % where the logs give 91 %; the
 * 3090 1x and 2x cells average a Threadripper 3970X workstation with the EPYC 7662 server). The model is
 * compared with each card's same-machine series from the raw logs: RTX 3090 on the GIGABYTE G482-Z53 (2x EPYC
 * 7662), RTX A6000 on the Supermicro AS-4124GS-TNR (2x EPYC 7502). The published cells are shown beside them.
 *
 * How a cell is modelled. The card's GPU preset on its box's machine preset, NCCL 2.7.8's P2P rule (AMD: P2P
 * over any path; the 3090 has no P2P, so NCCL's SHM transport carries every flow through host memory), the
 * workload's profile and data-parallel mode (apex DDP buckets of 10M elements, or delay_allreduce), the batch
 * Lambda ran, the gradient type its AMP level all-reduces, and a compute scale that makes the 1-GPU step equal
 * Lambda's measured 1-GPU throughput (so efficiency errors are not compute errors).
 *
 * What is fitted (nvs_lambda_fit, on the declared cells NVS_LAMBDA_FIT_CELLS): the EPYC 7662 box's host budget
 * for SHM traffic and its cross-socket cost, the share of hidden communication still paid (overlap penalty)
 * and Mask R-CNN's step-time variation. Every other cell is a prediction. */
#ifndef NVS_LAMBDA_H
#define NVS_LAMBDA_H

#include "model/model_gap.h"
#include "model/preset.h"

#define NVS_LAMBDA_GPU_A "rtx3090"
#define NVS_LAMBDA_GPU_B "rtxa6000"
#define NVS_LAMBDA_MACHINE_A "g482-z53-epyc7662"
#define NVS_LAMBDA_MACHINE_B "as-4124gs-epyc7502"
#define NVS_LAMBDA_NCCL 20708 /* NCCL 2.7.8 in NGC pytorch:20.10 (TensorFlow and MXNet 20.10 release notes) */
#define NVS_LAMBDA_NS 3       /* N = 2, 4, 8 */
#define NVS_LAMBDA_PRECS 2    /* Lambda's "FP32" (TF32 on Ampere) and "FP16" (AMP) */

/* The workloads that all-reduce (Transformer-XL ran without: multi_gpu=None in its logs). */
typedef struct {
    const char *model;   /* row key: "resnet50", "ssd300", "maskrcnn", "bert-large" */
    const char *profile; /* nvscale built-in profile (it carries the dp mode) */
    const char *task;    /* Lambda's results/<config>/PyTorch_<task>_<precision>/ directory part */
    double step_cv;      /* variation of a rank's compute time per step: fitted (maskrcnn) or 0 */
    const char *cv_why;
} nvs_lambda_workload;

/* One (workload, card, precision) series as Lambda measured it. */
typedef struct {
    int workload;           /* index into nvs_lambda_workloads */
    int card;               /* 0 = RTX 3090 (A), 1 = RTX A6000 (B) */
    int fp16;               /* 0 = Lambda's "FP32" (TF32 GEMMs), 1 = AMP */
    int batch;              /* per GPU, as its config and logs give it */
    double grad_bytes;      /* element size of the all-reduced gradients (apex O2 / --fp16: 2, else 4) */
    double t1;              /* 1-GPU throughput, samples/s, for the compute calibration */
    double t[NVS_LAMBDA_NS]; /* same-machine throughput at N = 2, 4, 8 (0 = no same-machine run) */
    int pub1, pub[NVS_LAMBDA_NS]; /* the published CSV cells (integers; mixed machines for the 3090 1x, 2x) */
    const char *logs;       /* the logs of t1 and t[] */
    const char *note;       /* what is special (another machine, another batch at 1 GPU), or NULL */
} nvs_lambda_meas;

extern const nvs_lambda_workload nvs_lambda_workloads[];
extern const int nvs_lambda_nworkloads;
extern const nvs_lambda_meas nvs_lambda_data[];
extern const int nvs_lambda_ndata;
extern const int nvs_lambda_ns[NVS_LAMBDA_NS]; /* 2, 4, 8 */

/* The fitted constant of the case that is not a machine's (machine presets hold host_gbps and
 * xsocket_shm_cost, lambda.c the Mask R-CNN step_cv): the share of the all-reduce time spent under backward that
 * still lengthens the step (nvs_model_config.overlap_penalty), fitted on the 3090 SSD300 FP32 4-GPU cell. */
#define NVS_LAMBDA_OVERLAP_PENALTY 0.512

/* The declared fitting subset: the cells each free parameter is fitted on (nvs_lambda_fit). */
typedef struct {
    const char *param;    /* "g482-z53-epyc7662.host_gbps", ... */
    const char *model;
    int card, fp16, n;
} nvs_lambda_fit_cell;
#define NVS_LAMBDA_NFIT 4
extern const nvs_lambda_fit_cell nvs_lambda_fit_cells[NVS_LAMBDA_NFIT];

/* The free parameters of the case. */
typedef struct {
    double host_gbps, xsocket_shm_cost; /* of machine A (the 3090 box; B gets the same: not measured there) */
    double overlap_penalty;
    double maskrcnn_cv;
} nvs_lambda_params;

/* The parameters as committed (presets and lambda.c). */
nvs_result_t nvs_lambda_params_committed(const nvs_presets *ps, nvs_lambda_params *out, char *err, size_t errlen);

/* The measured efficiency of series d at N index k: t[k] / (N t1); NAN when not measured on one machine. */
double nvs_lambda_meas_eff(const nvs_lambda_meas *d, int k);
/* The published cells' efficiency: pub[k] / (N pub1). */
double nvs_lambda_pub_eff(const nvs_lambda_meas *d, int k);
/* The series of (workload w, card, fp16), or NULL. */
const nvs_lambda_meas *nvs_lambda_find(int w, int card, int fp16);
int nvs_lambda_workload_index(const char *model);

/* The configuration of series d (profile loaded into *prof, which the caller frees). */
nvs_result_t nvs_lambda_config(const nvs_presets *ps, const nvs_lambda_params *par, const nvs_lambda_meas *d,
                               nvs_profile *prof, nvs_model_config *c, char *err, size_t errlen);

/* One workload and precision: both cards at N = 2, 4, 8, the gap and each card's loss at every N. */
typedef struct {
    int workload, fp16;
    const nvs_lambda_meas *d[2];
    double model_eff[2][NVS_LAMBDA_NS];
    double meas_eff[2][NVS_LAMBDA_NS];  /* NAN: no same-machine run */
    double pub_eff[2][NVS_LAMBDA_NS];
    int fitted[2][NVS_LAMBDA_NS];       /* the cell is in the fitting subset */
    nvs_gap gap[NVS_LAMBDA_NS];
    nvs_loss loss[2][NVS_LAMBDA_NS];
    int max_batch[2];                   /* the memory estimate's largest batch at this precision */
    double compute_scale[2];
    nvs_dp_mode dp;
} nvs_lambda_row;

nvs_result_t nvs_lambda_row_eval(const nvs_presets *ps, const nvs_lambda_params *par, int w, int fp16,
                                 nvs_lambda_row *row, char *err, size_t errlen);

/* The model's efficiency for one cell. */
nvs_result_t nvs_lambda_cell_eff(const nvs_presets *ps, const nvs_lambda_params *par, int w, int card, int fp16,
                                 int n, double *eff, char *err, size_t errlen);

/* Fit the free parameters to the declared cells (each its own cell, solved together by repeated bisection)
 * starting from `start`; `resid` (may be NULL) gets model - measured efficiency at each fitted cell. */
nvs_result_t nvs_lambda_fit(const nvs_presets *ps, const nvs_lambda_params *start, nvs_lambda_params *out,
                            double resid[NVS_LAMBDA_NFIT], char *err, size_t errlen);

#endif
