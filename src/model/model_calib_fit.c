/* Calibration (model_calib.h): the fits on the training results: the GPU's speed (compute scale), the host's,
 * the per-call overhead of an all-reduce, the links the sweep did not measure (from the step's own all-reduces)
 * and the interference of the all-reduces with the compute beside them. */
#include <math.h>
#include <string.h>

#include "model/model_calib_priv.h"

/* The compute scale that makes the model's compute-only step at one GPU the measured one.
 * - Without host work the step is linear in the scale: one division.
 * - A run under a framework with host work times the compute-only step without it too (`ideal_compute_us`, the
 *   GPU's own time, copies included): the scale is that over the model's compute with the host lane off, again
 *   one division.
 * - Older runs without it: the model's compute is not linear in the scale with a host lane (a host-bound step
 *   does not follow the GPU's speed), so the scale is found by bisection on [1/1000, 1000] (the compute is
 *   non-decreasing in it). A measured step no longer than the host lane alone (+0.1 %) does not say how fast
 *   the GPU is: the scale then stays 1 (the presets) and cfg->compute_host_bound says so. */
static nvs_result_t fit_compute_scale(nvs_model_config *cfg, const nvs_run_train_result *t1, char *err,
                                      size_t errlen)
{
    nvs_model_point pt;
    cfg->ct.compute_scale = 1;
    cfg->compute_host_bound = 0;
    const nvs_framework *fw = cfg->fw;
    if (!fw || !nvs_framework_has_host_work(fw)) {
        NVS_CHECK(eval_at(cfg, 1, &pt, err, errlen));
        cfg->ct.compute_scale = t1->compute_us / pt.t.compute_us;
        return NVS_OK;
    }
    if (isfinite(t1->ideal_compute_us) && t1->ideal_compute_us > 0) {
        nvs_framework gpu_only = nvs_framework_gpu_only(fw);
        nvs_model_config c2 = *cfg;
        c2.fw = &gpu_only;
        NVS_CHECK(eval_at(&c2, 1, &pt, err, errlen));
        cfg->ct.compute_scale = t1->ideal_compute_us / pt.t.compute_us;
        return NVS_OK;
    }
    double lo = log(1e-3), hi = log(1e3);
    cfg->ct.compute_scale = 1e-3;
    NVS_CHECK(eval_at(cfg, 1, &pt, err, errlen));
    if (t1->compute_us <= pt.t.compute_us * 1.001) {
        cfg->ct.compute_scale = 1;
        cfg->compute_host_bound = 1;
        return NVS_OK;
    }
    for (int i = 0; i < 60; i++) {
        cfg->ct.compute_scale = exp(0.5 * (lo + hi));
        NVS_CHECK(eval_at(cfg, 1, &pt, err, errlen));
        if (pt.t.compute_us < t1->compute_us) lo = log(cfg->ct.compute_scale);
        else hi = log(cfg->ct.compute_scale);
    }
    cfg->ct.compute_scale = exp(0.5 * (lo + hi));
    return NVS_OK;
}

/* The ring bandwidth at n that makes the model's buckets, all-reduced back to back, take the measured comm-only
 * time (train.results[].comm_us): bisection on log B over [1e-4, 1e5] GB/s (the comm time falls as B grows), the
 * latency kept as the preset has it (0 without a machine preset, or where the ring crossed NET, a path the preset
 * does not describe). On success the link is added to cfg->meas and
 * *nbuckets says how many all-reduces the time was of. Returns 0, or -1 where the measured time is no longer than
 * the latency alone (then it says nothing of the bandwidth), where the bisection ends at its bracket's edge, or
 * where no slot is left. */
static int fit_step_link(nvs_model_config *cfg, int n, int net, int preset_ok, double comm_us, int *nbuckets,
                         char *err, size_t errlen)
{
    nvs_ring_links rl;
    double base = 0, alpha = 0;
    if (preset_ok && !cfg->machine.measured_only &&
        nvs_ring_links_of(&cfg->machine, &cfg->gpu, n, nvs_model_off(cfg), &rl) == NVS_OK) {
        base = cfg->machine.coll_base_us;
        alpha = rl.alpha_us;
    }
    if (cfg->nmeas == NVS_MODEL_MAX_MEAS) return -1;
    nvs_meas_link *m = &cfg->meas[cfg->nmeas++];
    *m = (nvs_meas_link){n, base, alpha, 1e5, 1, net};
    nvs_model_point pt;
    if (!isfinite(comm_us) || eval_at(cfg, n, &pt, err, errlen) != NVS_OK || !(comm_us > pt.t.comm_us * 1.001)) {
        cfg->nmeas--;
        return -1;
    }
    double lo = log(1e-4), hi = log(1e5);
    for (int i = 0; i < 80; i++) {
        m->gbps = exp(0.5 * (lo + hi));
        if (eval_at(cfg, n, &pt, err, errlen) != NVS_OK) {
            cfg->nmeas--;
            return -1;
        }
        if (pt.t.comm_us > comm_us) lo = log(m->gbps); /* slower than measured: the link is faster */
        else hi = log(m->gbps);
    }
    m->gbps = exp(0.5 * (lo + hi));
    if (m->gbps < 2e-4 || m->gbps > 0.5e5) { /* at the bracket's edge: no bandwidth in it explains the time */
        cfg->nmeas--;
        return -1;
    }
    *nbuckets = pt.nbuckets;
    return 0;
}

nvs_result_t nvs_mc_train_fits(const nvs_run *r, const nvs_preset *mp, nvs_calibration *out, char *err,
                               size_t errlen)
{
    nvs_model_config *cfg = &out->cfg;
    nvs_model_point pt;
    char e2[256];
    /* 1. compute: one scale factor from the measured compute-only step (every N runs the same compute); from
     * N=1, else the smallest N measured (the least shared machine), whatever order the file lists them in: a
     * --gpus 2,4 run listed 4 before 2 took N=4's compute, scale 0.82 against 0.55. Only a result with its
     * compute measured: an N=1 with compute_us null was taken all the same, and the scale stayed 1 (+83 % at
     * N=1 on the 2xH200 fixture) though N=2 had measured it */
    const nvs_run_train_result *t1 = NULL;
    for (size_t i = 0; i < r->train.nresults; i++)
        if (r->train.results[i].compute_us > 0 && (!t1 || r->train.results[i].n < t1->n))
            t1 = &r->train.results[i];
    if (t1 && t1->compute_us > 0) {
        NVS_CHECK(fit_compute_scale(cfg, t1, err, errlen));
        cfg->compute_measured = t1->n; /* the N it came from, for its source line */
        out->has_compute = 1;
    }
    /* 1a. the host: the framework's work as this run's host did it. The run times the host's own issue of
     * its full step at one GPU (train.results[].issue_us: launches and the framework's work, not its waits for
     * the GPU); the model's host lane there is the framework's numbers, which the run's host did slower or
     * faster (a VM's vCPU changes speed from call to call: docs/fidelity.md, "Noise"). Only where the GPU's
     * own time was measured apart (ideal_compute_us): an older run's scale was fitted through the host lane.
     * And only where the host's work lengthened the compute-only step beyond the GPU's own time (by more than
     * 2 %): a step bound by the GPU fills CUDA's launch queue, the host blocks in its launches, and its issue
     * time is then the GPU's, not its own (BERT-large fp32 at batch 64 would read 3.7x). */
    if (t1 && t1->n == 1 && cfg->fw && isfinite(t1->issue_us) && t1->issue_us > 0 &&
        isfinite(t1->ideal_compute_us) && t1->ideal_compute_us > 0 &&
        t1->compute_us > 1.02 * t1->ideal_compute_us) {
        NVS_CHECK(eval_at(cfg, 1, &pt, err, errlen));
        /* beyond a factor of 10 either way the issue time is not the framework's work done slower or faster
         * (the scales seen over the committed runs are 0.79-2.1: results/model/calib-errors.txt) */
        double hs = pt.t.host_us > 0 ? t1->issue_us / pt.t.host_us : NAN;
        if (hs >= 0.1 && hs <= 10) {
            cfg->host_scale = hs;
            cfg->host_scale_measured = 1;
        }
    }
    /* 2. per-call overhead: measured back-to-back comm vs the curve fitted on a sweep, per bucket; before the
     * links found from the step's comm (1b), whose bisection then counts it as every N's all-reduces do */
    double excess = 0;
    int nex = 0;
    for (size_t i = 0; i < r->train.nresults; i++) {
        const nvs_run_train_result *tr = &r->train.results[i];
        int measured = 0;
        for (int k = 0; k < cfg->nmeas; k++) measured |= cfg->meas[k].n == tr->n && !cfg->meas[k].from_step;
        if (tr->n < 2 || !(tr->comm_us > 0) || !measured) continue;
        NVS_CHECK(eval_at(cfg, tr->n, &pt, err, errlen));
        /* no bucket (a profile without trainable parameters): the run's comm is timer noise around empty
         * calls, no per-call cost; divided by 0 it made per_call_us inf, "measured" */
        if (pt.nbuckets < 1) continue;
        excess += (tr->comm_us - pt.t.comm_us) / pt.nbuckets;
        nex++;
    }
    if (nex > 0) {
        cfg->per_call_us = excess / nex > 0 ? excess / nex : 0;
        cfg->per_call_measured = 1;
        out->has_per_call = 1;
    }
    /* 1b. the links at the N the run has no sweep for: from its step's own all-reduces, back to back (the
     * per-call overhead a sweep at another N measured included) */
    for (size_t i = 0; i < r->train.nresults && out->nlinks < NVS_MODEL_MAX_MEAS; i++) {
        const nvs_run_train_result *tr = &r->train.results[i];
        int have = 0, nb = 0;
        for (int k = 0; k < cfg->nmeas; k++) have |= cfg->meas[k].n == tr->n;
        if (tr->n < 2 || have || tr->n > cfg->machine.gpus || !(tr->comm_us > 0)) continue;
        if (fit_step_link(cfg, tr->n, net_at(out, tr->n), preset_describes(out, tr->n), tr->comm_us, &nb, e2,
                          sizeof e2) != 0)
            continue;
        const nvs_meas_link *m = &cfg->meas[cfg->nmeas - 1];
        nvs_calib_link *l = &out->links[out->nlinks++];
        memset(l, 0, sizeof *l);
        l->n = tr->n;
        l->latency_us = m->base_us + 2.0 * (tr->n - 1) * m->alpha_us;
        l->busbw_gbps = m->gbps;
        l->nbuckets = nb;
        l->preset_gbps = NAN;
        nvs_ring_links rl;
        if (mp && preset_describes(out, tr->n) &&
            nvs_ring_links_of(&cfg->machine, &cfg->gpu, tr->n, nvs_model_off(cfg), &rl) == NVS_OK)
            l->preset_gbps = rl.gbps;
    }
    /* 3. the interference's share, over the time the model's GPU computes beside the all-reduces at each N
     * (overlap_us: what the model charges it on; the hidden comm where the GPU is busy throughout, less on a
     * host-bound step), so that the calibrated model pays what the run paid. A run that measured its
     * interference (train.results[].interference_us: the compute slowed while the all-reduces ran beside it)
     * gives it directly; older runs give it as the residual of the step against the schedule. Both are taken
     * against the schedule alone: no interference of the transports' (restored below when the run does not
     * give one). */
    double ipay = 0, ihid = 0, iov = 0, pay = 0, ov = 0;
    cfg->overlap_penalty = 0;
    for (size_t i = 0; i < r->train.nresults; i++) {
        const nvs_run_train_result *tr = &r->train.results[i];
        if (tr->n < 2 || !(tr->step_us > 0) || tr->n > cfg->machine.gpus) continue;
        if (net_at(out, tr->n) && !has_link(cfg, tr->n)) continue;
        if (eval_at(cfg, tr->n, &pt, e2, sizeof e2) != NVS_OK || !(pt.t.overlap_us > 0)) continue;
        pay += tr->step_us - pt.t.step_us;
        ov += pt.t.overlap_us;
        double hidden = tr->comm_us - (isfinite(tr->exposed_comm_us) ? tr->exposed_comm_us : 0);
        if (!isfinite(tr->interference_us) || !(tr->comm_us > 0) || !(hidden > 0)) continue;
        ipay += tr->interference_us;
        ihid += hidden;
        iov += pt.t.overlap_us;
    }
    /* a ratio over less than a millisecond of hidden comm is noise (ResNet-50 over NVLink hides ~0.1 ms) */
    if (ihid >= 1000.0 && iov > 0) {
        double pen = ipay / iov;
        cfg->overlap_penalty = pen < 0 ? 0 : pen > 1 ? 1 : pen;
        cfg->overlap_measured = 2;
        out->has_overlap = 1;
    } else if (ov > 0) {
        double pen = pay / ov;
        cfg->overlap_penalty = pen < 0 ? 0 : pen > 1 ? 1 : pen;
        cfg->overlap_measured = 1;
        out->has_overlap = 1;
    }
    if (!cfg->overlap_measured) cfg->overlap_penalty = NVS_OVERLAP_BY_TRANSPORT;
    return NVS_OK;
}
