/* One what-if configuration (GPU x machine [x network] x model profile x batch x precision) evaluated at a GPU
 * count: the step time, exposed communication and efficiency. PURE (no I/O): src/model/model.h's pieces put
 * together, plus the terms a calibration measured (src/model/model_calib.h). */
#ifndef NVS_MODEL_EVAL_H
#define NVS_MODEL_EVAL_H

#include "model/interference.h"
#include "model/model.h"
#include "model/preset.h"
#include "workload/framework.h"

#define NVS_MODEL_MAX_MEAS 16

/* Link terms measured at one GPU count inside a node (calibration): T(S) = base + 2(n-1)alpha + 2(n-1)/n S/B.
 * from_step: B found from the training step's own all-reduces (base and alpha kept from the preset), not fitted
 * on an all_reduce sweep; net: the run's ring at this N went over NCCL's NET (sockets between GPUs of one node),
 * whatever the machine's links are */
typedef struct {
    int n;
    double base_us, alpha_us, gbps;
    int from_step;
    int net;
} nvs_meas_link;

typedef struct {
    char label[160];
    nvs_gpu_spec gpu;
    nvs_machine_spec machine;
    nvs_net_spec net;
    int has_net;
    const nvs_profile *profile;
    nvs_precision prec;
    double grad_bytes;             /* 4 (fp32 gradients) or 2 (bf16) */
    double bucket_first_bytes, bucket_cap_bytes;
    int batch;
    int batch_is_max;              /* the batch came from the memory estimate */
    nvs_algo algo;
    int p2p_disabled;              /* model NCCL_P2P_DISABLE=1 */
    int shm_disabled;              /* model NCCL_SHM_DISABLE=1: what P2P cannot join goes over NET (model.h) */
    nvs_compute_terms ct;
    int compute_measured;          /* ct.compute_scale came from a measured run: the N of its compute-only step */
    int compute_host_bound;        /* ... no: that step was bound by the framework's host work (scale left 1) */
    double per_call_us;            /* calibration: extra cost per all-reduce call */
    int per_call_measured;
    /* the share of the time the GPU computes beside an all-reduce (nvs_step_times.overlap_us) that the step
     * still pays (the interference, model/interference.h): NVS_OVERLAP_BY_TRANSPORT (the default) takes each N's
     * transport's share from the table; a calibration that measured it, --overlap-penalty or the Lambda fit set their
     * own */
    double overlap_penalty;
    int overlap_measured;
    int dp;                        /* nvs_dp_mode, or -1: the profile's `dp` (profile.h) */
    /* Coefficient of variation of one rank's compute time per step (data-dependent work: Mask R-CNN's
     * proposals and instances); a synchronous step waits for the slowest rank: step_cv x compute x e(N)
     * (nvs_expected_max_normal). 0 = every rank takes the same time. */
    double step_cv;
    /* The framework the step runs under (workload/framework.h), as `nvscale train --framework` does: its host
     * work per operation and per bucket on the host's lane, its bucket and layout copies on the GPU's
     * (nvs_schedule_lanes). NULL: the hardware alone (the same as "ideal"). */
    const nvs_framework *fw;
    /* the optimizer (workload/optimizer.h), as `nvscale train --optimizer`: its state in the memory estimate, its
     * update's bytes after the last all-reduce. Default (0) SGD with momentum */
    nvs_optimizer opt;
    /* AdamW as one fused pass whatever fw's optimizer_foreach: --optimizer adamw-fused, or a calibrated run whose
     * step ran it so (run.json train.optimizer_fused; train/train_plan.c nvs_train_plan_opt_foreach decides, as here:
     * foreach = fw's optimizer_foreach and not adamw_fused) */
    int adamw_fused;
    /* calibration: the framework's host work as the measured run's host did it, per unit of fw's (its issue time
     * of the step at one GPU over the modelled host work; 1 = as fw says, 0 is taken as 1) */
    double host_scale;
    int host_scale_measured;
    /* the calibrated run ran every convolution that gives its geometry (profile conv2d=) in cuDNN, whose layout
     * transforms are inside the convolution's time: no layout copies of the framework's for those layers */
    int conv_native;
    nvs_meas_link meas[NVS_MODEL_MAX_MEAS];
    int nmeas;
} nvs_model_config;

/* The NCCL transports c turns off, as nvs_ring_links_of takes them (NVS_OFF_* flags, model.h) */
static inline int nvs_model_off(const nvs_model_config *c)
{
    return (c->p2p_disabled ? NVS_OFF_P2P : 0) | (c->shm_disabled ? NVS_OFF_SHM : 0);
}

typedef struct {
    int n, nodes, gpn;
    nvs_step_times t;
    double step1_us;          /* the same configuration at one GPU */
    double efficiency;        /* step(1) / step(N) */
    double samples_per_s;     /* N x batch / step */
    int nbuckets;
    double largest_bucket_bytes;
    nvs_algo algo_used;       /* for the largest bucket */
    double allreduce_busbw;   /* that algorithm's large-message bus bandwidth (nvs_allreduce_busbw), GB/s */
    double intra_gbps, intra_alpha_us, inter_gbps;
    nvs_transport transport;  /* of the ring's slowest hop (NET when the network is slower) */
    /* the transport whose interference share the step pays (model/interference.h): the one the GPU's NCCL kernels
     * drive inside the node (NVLink, P2P, SHM), also where the network binds the rate; NET only with one GPU per
     * node or a measured ring over NCCL's sockets */
    nvs_transport share_transport;
    int cls;
    int link_measured;        /* the intra-node terms came from a measured run */
    double interference_share; /* of t.overlap_us, paid on the step (t.penalty_us): the config's or the
                                * transport's (model/interference.h) */
    nvs_dp_mode dp;           /* the data-parallel mode evaluated */
    char bottleneck[256];
} nvs_model_point;

/* Defaults of a configuration (DDP bucket sizes, precision fp32, ring, default compute terms, the profile's dp). */
void nvs_model_config_init(nvs_model_config *c);

/* Fill specs from presets (the spec's id points into the preset: keep the presets alive). */
void nvs_gpu_spec_from(const nvs_preset *p, nvs_gpu_spec *g);
void nvs_machine_spec_from(const nvs_preset *p, nvs_machine_spec *m);
void nvs_net_spec_from(const nvs_preset *p, nvs_net_spec *n);

/* The all-reduce parameters of `nodes` x `gpn` GPUs under configuration c. NVS_ERR_INPUT with a message when
 * the shape does not fit (gpn > GPUs per node, nodes > 1 without a network). */
nvs_result_t nvs_model_ar_params(const nvs_model_config *c, int nodes, int gpn, nvs_ar_params *ar,
                                 nvs_ring_links *rl, int *measured, char *err, size_t errlen);

/* Evaluate at nodes x gpn GPUs. */
nvs_result_t nvs_model_eval(const nvs_model_config *c, int nodes, int gpn, nvs_model_point *out, char *err,
                            size_t errlen);

/* The data-parallel mode configuration c runs: its override, else its profile's. */
nvs_dp_mode nvs_model_dp(const nvs_model_config *c);

/* 1 when c's optimizer runs as the framework's foreach passes (fw's optimizer_foreach, and not adamw_fused), 0 when
 * as one fused pass: as train/train_plan.c nvs_train_plan_opt_foreach decides for the step; the model's JSON
 * optimizer_fused is its negation, as run.json's train.optimizer_fused. */
int nvs_model_opt_foreach(const nvs_model_config *c);

/* Largest batch from memory, or 0 with the estimate in *mem. */
int nvs_model_max_batch(const nvs_model_config *c, nvs_mem_estimate *mem);

#endif
