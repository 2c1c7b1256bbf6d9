/* Why does configuration B scale better than A? The efficiency gap at N GPUs split among three causes by
 * Shapley values (each cause's average marginal effect over every order of switching A's factors to B's, so
 * the shares add up to the gap exactly):
 *   link     how the GPUs talk: P2P support over PCIe, NVLink (GPU preset), NCCL_P2P_DISABLE
 *   batch    the per-GPU batch (what memory allows)
 *   compute  the GPU's matrix rates and memory bandwidth
 * Used by the Lambda case (8x RTX 3090 vs 8x RTX A6000) and by any two-GPU comparison. PURE. */
#ifndef NVS_MODEL_GAP_H
#define NVS_MODEL_GAP_H

#include "model/model_eval.h"

enum { NVS_CAUSE_LINK = 0, NVS_CAUSE_BATCH, NVS_CAUSE_COMPUTE, NVS_CAUSE_COUNT };
const char *nvs_cause_name(int cause); /* "link" / "batch (memory)" / "compute" */

typedef struct {
    double eff_a, eff_b;                 /* efficiency of A and B at N */
    double gap;                          /* eff_b - eff_a */
    double share[NVS_CAUSE_COUNT];       /* Shapley shares: sum = gap */
    int cause;                           /* the share that explains the gap; -1 when the gap is under 0.5 point */
} nvs_gap;

/* Shapley value of player i among 3, given v[mask] for all 8 masks (bit k = factor k switched to B). */
double nvs_shapley3(const double v[8], int i);

/* Explain eff_b - eff_a at nodes x gpn. Both configurations must share the profile and machine. */
nvs_result_t nvs_model_gap(const nvs_model_config *a, const nvs_model_config *b, int nodes, int gpn, nvs_gap *out,
                           char *err, size_t errlen);

/* --- the Lambda case ---------------------------------------------------------------------------------------- */

/* Lambda Labs' PyTorch benchmark: 8x RTX A6000 scaled far better than 8x RTX 3090 (Mask R-CNN 97 % vs 61 % at
 * 8 GPUs). The model's version, per model: each card at its largest batch, and both at the smaller one. */
typedef struct {
    char model[64];
    int batch_a, batch_b, batch_eq;      /* A = RTX 3090, B = RTX A6000 */
    nvs_gap at_max;                      /* each at its largest batch */
    nvs_gap at_eq;                       /* both at batch_eq */
    double step_a_us, step_b_us;         /* at N, largest batches */
    char bottleneck_a[192], bottleneck_b[192];
} nvs_lambda_row;

#define NVS_LAMBDA_MODELS {"resnet50", "ssd300", "maskrcnn", "bert-large"}
#define NVS_LAMBDA_MACHINE "pcie4-1s-8gpu-cascade"
#define NVS_LAMBDA_GPU_A "rtx3090"
#define NVS_LAMBDA_GPU_B "rtxa6000"

/* One row: a and b are complete configurations except for their batches, which this sets (largest by memory,
 * then the smaller of the two). NVS_ERR_INPUT if the model does not fit on one of the cards. */
nvs_result_t nvs_lambda_row_eval(nvs_model_config *a, nvs_model_config *b, int nodes, int gpn, nvs_lambda_row *row,
                                 char *err, size_t errlen);

#endif
