/* Why does configuration B scale better than A? The efficiency gap at N GPUs, split among its causes so that the
 * shares add up to the gap exactly:
 *   overlap  the workload's data-parallel mode (profile `dp`): the part of the gap that would vanish if the
 *            workload overlapped its all-reduce with backward (gap with its mode - gap with dp ddp); 0 when it
 *            already does (ddp) or all-reduces nothing (none)
 * and the rest (the gap under dp ddp) by Shapley values over four factors, each the average marginal effect of
 * switching that factor from A's to B's over every order of switching (Shapley 1953):
 *   link     how the GPUs talk: P2P support over PCIe, NVLink (GPU preset), NCCL_P2P_DISABLE
 *   host     the machine: its PCIe tree, sockets, host budget for SHM traffic, CPU and NCCL's P2P rule
 *   batch    the per-GPU batch (what memory allows, or what the benchmark ran)
 *   compute  the GPU's matrix rates and memory bandwidth, and the measured compute calibration
 * Beside the gap, each configuration's own loss (1 - efficiency) is split into what the step waits for:
 * exposed communication (and, with dp delay, how much of it the mode exposes), the hidden communication still
 * paid (overlap_penalty) and the wait for the slowest rank (step_cv). PURE. */
#ifndef NVS_MODEL_GAP_H
#define NVS_MODEL_GAP_H

#include "model/model_eval.h"

enum { NVS_CAUSE_LINK = 0, NVS_CAUSE_HOST, NVS_CAUSE_BATCH, NVS_CAUSE_COMPUTE, NVS_CAUSE_OVERLAP, NVS_CAUSE_COUNT };
#define NVS_SHAPLEY_FACTORS 4 /* link, host, batch, compute */
/* "link" / "host" / "batch (memory)" / "compute" / "overlap mode" */
const char *nvs_cause_name(int cause);
/* one word for JSON keys: "link" / "host" / "batch" / "compute" / "overlap" */
const char *nvs_cause_key(int cause);

typedef struct {
    double eff_a, eff_b;                 /* efficiency of A and B at N */
    double gap;                          /* eff_b - eff_a */
    double share[NVS_CAUSE_COUNT];       /* sum = gap */
    int cause;                           /* the share that explains the gap; -1 when the gap is under 0.5 point */
} nvs_gap;

/* Shapley value of player i among n (n <= 8), given v[mask] for all 2^n masks (bit k = factor k switched). */
double nvs_shapley(const double *v, int n, int i);
/* The three-player case (link, batch, compute) as the model had it first: nvs_shapley(v, 3, i). */
double nvs_shapley3(const double v[8], int i);

/* Explain eff_b - eff_a at nodes x gpn. A and B share the profile; their machines may differ. */
nvs_result_t nvs_model_gap(const nvs_model_config *a, const nvs_model_config *b, int nodes, int gpn, nvs_gap *out,
                           char *err, size_t errlen);
/* The same at one N where A runs nodes_a x gpn_a and B nodes_b x gpn_b (machines of different GPU counts): the
 * shape goes with the machine, so a hybrid with B's machine (the host factor) runs at B's shape */
nvs_result_t nvs_model_gap_at(const nvs_model_config *a, int nodes_a, int gpn_a, const nvs_model_config *b,
                              int nodes_b, int gpn_b, nvs_gap *out, char *err, size_t errlen);

/* One configuration's loss at N, in fractions of step(N) (they add up to 1 - efficiency):
 *   comm      communication the schedule leaves exposed (incl. the per-call cost), of which mode_comm is what
 *             the data-parallel mode exposes beyond dp ddp (0 unless dp delay)
 *   penalty   hidden communication still paid (overlap_penalty)
 *   sync      waiting for the slowest rank (step_cv) */
typedef struct {
    double eff;
    double comm, mode_comm, penalty, sync;
    nvs_model_point pt;
} nvs_loss;

nvs_result_t nvs_model_loss(const nvs_model_config *c, int nodes, int gpn, nvs_loss *out, char *err, size_t errlen);

#endif
