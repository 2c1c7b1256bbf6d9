/* Calibration of the what-if model against a measured run (`nvscale model --calibrate RUN.json`).
 *
 * From the run's all_reduce sweep, per GPU count N: T(S) = a + c*S fitted by least squares on RELATIVE error
 * over every measured size (so small and large messages weigh alike), giving the latency a (us) and the bus
 * bandwidth B = 2(N-1)/N / c. A run without a sweep at some N (`nvscale train`) gives B there from its step's
 * own all-reduces: the B at which the model's buckets, back to back, take the measured comm-only time (the latency
 * stays the preset's). The transport NCCL used at each N (transports[]) is read too: SHM without P2P is modelled
 * as such; NET between ranks of one node (hosts told apart by NCCL_HOSTID) is a path no machine preset describes,
 * so there the link must be measured (without one that N is not modelled) and the preset column stays empty.
 * From train.results: compute_scale = measured compute(1) / modelled compute(1);
 * per_call_us = the mean per-bucket excess of the measured back-to-back comm time over the fitted curve (>= 0);
 * overlap_penalty = the fraction of the hidden (overlapped) communication that the measured step still pays
 * (0 = perfect overlap, clamped to 0..1). Every other term stays a preset, and the report says which is which.
 * Then the model is compared with the run: error per N and per size. */
#ifndef NVS_MODEL_CALIB_H
#define NVS_MODEL_CALIB_H

#include "model/model_eval.h"
#include "model/preset.h"
#include "workload/profile.h"

/* Relative least-squares fit of t = a + c*s over k points (k >= 1): minimises sum((a + c s_i)/t_i - 1)^2
 * with a >= 0, c > 0. Returns 0, or -1 if no fit (no positive times/sizes). */
int nvs_fit_alpha_beta(const double *bytes, const double *t_us, int k, double *a_us, double *c_us_per_byte);

typedef struct {
    int n;
    double bytes, measured_us, fit_us, preset_us; /* preset_us: NAN without a machine preset */
} nvs_calib_coll_row;

typedef struct {
    int n;
    double meas_step_us, meas_compute_us, meas_comm_us, meas_exposed_us, meas_efficiency;
    double model_step_us, model_compute_us, model_comm_us, model_exposed_us, model_efficiency;
    double preset_step_us, preset_efficiency;     /* uncalibrated model; NAN without a machine preset */
} nvs_calib_train_row;

/* A training result the error table leaves out: the model cannot be evaluated at its N (no machine preset and no
 * link measured there, or a NET the run measured no link over). Said, and --tolerance cannot pass over it. */
typedef struct {
    int n;
    char why[256];
} nvs_calib_skip;

typedef struct {
    int n;
    double latency_us, busbw_gbps; /* the fit */
    int npts;                      /* sizes of the sweep fitted; 0: found from the step's own all-reduces */
    int nbuckets;                  /* from the step: its buckets, all-reduced back to back (train.results[].comm_us) */
    double preset_gbps;            /* the link graph's ring bandwidth at this N; NAN without a machine preset, or
                                    * where the run's transport is one the preset does not describe (NET, unless
                                    * between the GPUs of one host and the preset knows its sockets) */
} nvs_calib_link;

/* What NCCL connected the run's ring with at one N (run.json transports[]: its INIT log, parsed) */
typedef struct {
    int n;
    char label[48]; /* "P2P", "SHM", "NET/Socket/0", "P2P+SHM": the transports of its channels */
    int net, shm, p2p;
    int collnet;    /* CollNet's in-network reduction (COLLNET/SHARP/..) too: no bound of the model describes it */
    int hosts;      /* the hosts the N ranks were on (run.json scaling[] and ranks[]); 0 = not known */
} nvs_calib_transport;

typedef struct {
    char run_path[1024];
    char gpu_name[128];       /* ranks[0].gpu */
    char gpu_preset[48];
    char machine_preset[48];  /* "" if none: preset columns absent */
    char machine_how[96];     /* "--machine" / "guessed from topology: NV18, 2 GPUs" / "none" */
    int p2p_disabled;         /* env NCCL_P2P_DISABLE=1 in the run, or its rings ran SHM without P2P */
    int p2p_env;              /* env NCCL_P2P_DISABLE=1 in the run */
    int shm_env;              /* env NCCL_SHM_DISABLE=1 in the run */
    /* every ring of the run went over NCCL's NET transport and every GPU is on one host (ranks told apart by
     * NCCL_HOSTID, or P2P and SHM disabled): the node's own sockets, which a machine preset with net_local_gbps
     * describes (cfg then models P2P and SHM off) */
    int net_local;
    nvs_calib_transport tr[NVS_MODEL_MAX_MEAS];
    int ntr;
    nvs_calib_link links[NVS_MODEL_MAX_MEAS];
    int nlinks;
    nvs_calib_coll_row *coll;
    int ncoll;
    nvs_calib_train_row *train;
    int ntrain;
    nvs_calib_skip *skip;     /* the training results not in train[], by N */
    int nskip;
    int has_train;
    nvs_profile profile;      /* owned when has_train */
    int has_profile;
    nvs_framework fw;         /* the run's framework with the numbers it ran with (cfg.fw points here) */
    nvs_model_config cfg;     /* the calibrated configuration (projections start from it) */
    nvs_model_config preset_cfg; /* the same with preset terms only (valid when machine_preset[0]) */
    int has_compute, has_per_call, has_overlap;
} nvs_calibration;

typedef struct {
    const char *machine;      /* --machine, or NULL: guess from the run's topology */
    const char *gpu;          /* --gpu, or NULL: match ranks[0].gpu */
    const char *model;        /* --model, or NULL: train.model */
    int batch;                /* --batch, 0: train.batch */
} nvs_calib_opts;

/* Read RUN.json and calibrate. Errors (bad file, unknown GPU, no all_reduce and no train results) give
 * NVS_ERR_INPUT with the message in err. */
nvs_result_t nvs_calibrate(const char *run_path, const nvs_presets *ps, const nvs_calib_opts *o,
                           nvs_calibration *out, char *err, size_t errlen);
void nvs_calibration_free(nvs_calibration *c);
/* The profile nvs_calibrate would read for RUN.json's training step (model: --model, or NULL for the run's own):
 * a built-in name, or the file the run read its profile from, copied into buf. -1 (buf empty) when the run
 * cannot be read or has no training step: nvs_calibrate will say why. */
int nvs_calib_profile_path(const char *run_path, const char *model, char *buf, size_t len);

#endif
