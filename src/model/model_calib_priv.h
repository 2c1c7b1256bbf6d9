/* PRIVATE to src/model/: what the files of the calibration (model_calib.c, model_calib_run.c,
 * model_calib_sweep.c, model_calib_train.c, model_calib_fit.c) share; no other folder includes this header
 * (model_calib.h is the interface). Each stage fills its part of `out` and returns NVS_OK, or an error with its
 * message in err; nvs_calibrate frees `out` on an error. */
#ifndef NVS_MODEL_CALIB_PRIV_H
#define NVS_MODEL_CALIB_PRIV_H

#include "model/model_calib.h"
#include "runjson/runjson.h"

/* The configuration at N GPUs of one node. */
static inline nvs_result_t eval_at(const nvs_model_config *cfg, int n, nvs_model_point *pt, char *err, size_t errlen)
{
    return nvs_model_eval(cfg, 1, n, pt, err, errlen);
}

/* Whether the run's ring at n crossed NCCL's network transport: ranks of one node that NCCL took for separate
 * hosts (NCCL_HOSTID, containers). No machine preset describes that path: only a measured link models it. */
static inline int net_at(const nvs_calibration *c, int n)
{
    for (int i = 0; i < c->ntr; i++)
        if (c->tr[i].n == n) return c->tr[i].net;
    return 0;
}

/* Whether the machine preset describes the run's ring at n: any transport but NET, and NET where it joined the GPUs
 * of one host and the preset knows that host's sockets (net_local_gbps) */
static inline int preset_describes(const nvs_calibration *c, int n)
{
    return !net_at(c, n) || (c->net_local && c->cfg.machine.net_local_gbps > 0);
}

/* Whether a link at n was measured (the sweep) or found from the step's comm time */
static inline int has_link(const nvs_model_config *cfg, int n)
{
    for (int k = 0; k < cfg->nmeas; k++)
        if (cfg->meas[k].n == n) return 1;
    return 0;
}

/* model_calib_run.c: the GPU preset (--gpu or ranks[0].gpu), the transports NCCL used and the P2P, SHM and
 * net_local settings they imply (*gpp); then the machine preset (--machine, or guessed from the topology: *mpp, NULL
 * without one) and out->cfg set up from both */
nvs_result_t nvs_mc_gpu(const nvs_run *r, const char *run_path, const nvs_presets *ps, const nvs_calib_opts *o,
                        nvs_calibration *out, const nvs_preset **gpp, char *err, size_t errlen);
nvs_result_t nvs_mc_machine(const nvs_run *r, const char *run_path, const nvs_presets *ps, const nvs_calib_opts *o,
                            const nvs_preset *gp, nvs_calibration *out, const nvs_preset **mpp, char *err,
                            size_t errlen);
/* model_calib_sweep.c: the links fitted on the all_reduce sweep, the preset-only twin (out->preset_cfg) and
 * the per-size error table */
nvs_result_t nvs_mc_sweep(const nvs_run *r, const nvs_preset *mp, nvs_calibration *out, char *err, size_t errlen);
/* model_calib_train.c: the training step as the run ran it (profile, batch, precision, optimizer, framework),
 * in out->cfg and out->preset_cfg; after the fits, the error table per N (and the Ns left out, and why) */
nvs_result_t nvs_mc_train_config(const nvs_run *r, const char *run_path, const nvs_calib_opts *o,
                                 nvs_calibration *out, char *err, size_t errlen);
nvs_result_t nvs_mc_train_table(const nvs_run *r, const nvs_preset *mp, nvs_calibration *out);
/* model_calib_fit.c: the fits on the training results: compute scale, host scale, per-call overhead, the links
 * from the step's own all-reduces, the interference */
nvs_result_t nvs_mc_train_fits(const nvs_run *r, const nvs_preset *mp, nvs_calibration *out, char *err,
                               size_t errlen);

#endif
