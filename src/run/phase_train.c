/* The training-step phase of the run flow: load the profile (rank 0 reads, everyone gets the layers), plan,
 * refuse what does not fit, then at every N time the full step, the compute-only step and the all-reduces
 * alone through the train layer's step driver; rank 0 assembles run.json's "train" section.
 * Its parts share run/phase_train_priv.h: loading and sizing a workload (phase_train_prepare.c), timing one N
 * (phase_train_measure.c) and the "train" section (phase_train_json.c); here, the order of the work. */
#include <stdlib.h>

#include "core/cpu_work.h"
#include "core/log.h"
#include "run/phase_train_priv.h"
#include "run/phases.h"
#include "run/run.h"
#include "train/rounds.h"
#include "train/train.h"
#include "train/train_exec.h"

/* After each rank's setup (`setup`: its result), in one agreement that every rank enters whatever its setup did: a
 * setup that failed on one rank (out of GPU memory, say) stops every rank here, the others naming it. And every
 * rank runs the convolutions and batch norms the same way: if one could not load cuDNN (--cudnn auto), none uses
 * it, rather than some ranks running cuDNN's kernels and others GEMMs in one step. */
static nvs_result_t conv_agree(nvs_rt *rt, nvs_train_exec *x, nvs_result_t setup)
{
    double lacks = x->dnn ? 0.0 : 1.0; /* maximised: whether some rank lacks cuDNN */
    NVS_CHECK(nvs_rt_agree_ok(rt, setup, &lacks, "the training step's setup"));
    if (lacks == 0 || !x->dnn) return NVS_OK;
    nvs_train_exec_cudnn_off(x);
    x->cudnn_fallback = 1;
    snprintf(x->conv_why, sizeof x->conv_why, "another rank could not use cuDNN, so no rank does");
    return NVS_OK;
}

static nvs_result_t train_one(nvs_ctx *run, const char *model)
{
    const nvs_config *cfg = run->cfg;
    nvs_rt *rt = run->rt;
    nvs_profile prof = {0};
    nvs_train_plan plan = {0};
    nvs_train_exec x = {0};
    nvs_train_point *pts = NULL, *raw = NULL;
    int have_exec = 0;
    int slot = -1; /* rank 0: this workload's index in run->trains once its first point is measured */
    double free_min = 0;
    double charged[5] = {-1, -1, -1, -1, -1}; /* rank 0's count of the framework's host work in one full step */
    nvs_result_t res = nvs_pt_prepare(run, model, &prof, &plan, &x, &have_exec, &free_min);
    if (res != NVS_OK) goto out;
    res = x.ops->setup(&x);
    NVS_CHECK_GOTO(conv_agree(rt, &x, res), res, out); /* every rank, also one whose setup failed */
    /* the framework's host work is an amount of CPU work: each rank measures its rate ALONE, in turn, so that
     * ranks sharing cores later take longer for the same work, as a framework's host threads would */
    if (plan.framework->host_us_per_op > 0 || plan.framework->reducer_us_per_bucket > 0) {
        for (int r = 0; r < rt->size; r++) {
            NVS_CHECK_GOTO(nvs_barrier(rt, "calibrating the host work"), res, out);
            if (r == rt->rank) x.work_per_us = nvs_cpu_work_calibrate(20.0);
        }
        NVS_CHECK_GOTO(nvs_barrier(rt, "calibrating the host work"), res, out);
    }

    /* --rounds: every N in turn, round after round; raw[round * npoints + i], merged per N (train/rounds.h) */
    const int rounds = cfg->rounds > 1 ? cfg->rounds : 1, np = run->npoints;
    pts = calloc((size_t)np, sizeof *pts);
    raw = calloc((size_t)np * (size_t)rounds, sizeof *raw);
    if (!pts || !raw) {
        res = NVS_ERR_NOMEM;
        goto out;
    }
    for (int rd = 0; rd < rounds; rd++)
        for (int j = 0; j < np; j++) {
            const int i = nvs_train_rounds_point(np, rd, j);
            /* later rounds follow a warm machine: two untimed steps per variant, as the other variants have */
            int warmup = rd == 0 ? cfg->warmup_steps : cfg->warmup_steps < 2 ? cfg->warmup_steps : 2;
            if (rounds > 1 && j == 0) nvs_info("train %s: round %d of %d", prof.name, rd + 1, rounds);
            res = nvs_pt_measure_point(run, prof.name, &x, i, rd, warmup, charged, &raw[rd * np + i]);
            if (res != NVS_OK) goto out;
            /* the points measured so far are this workload's section now (replaced as points come), and
             * checkpointed: an interruption or a failure at the next N or round keeps them */
            int have = rd > 0 ? np : j + 1;
            for (int k = 0; k < have; k++)
                nvs_train_rounds_merge(raw, np, k, nvs_train_rounds_usable(np, rd, j, k), &pts[k]);
            if (rt->rank == 0) {
                json_t *t = nvs_pt_train_json(run, model, &prof, &plan, &x, free_min, x.work_per_us, charged, pts, have,
                                              raw, np);
                int bad = !t || (slot < 0 ? json_array_append_new(run->trains, t)
                                          : json_array_set_new(run->trains, (size_t)slot, t));
                if (bad) {
                    res = NVS_ERR_NOMEM;
                    goto out;
                }
                if (slot < 0) slot = (int)json_array_size(run->trains) - 1;
                res = nvs_run_checkpoint(run, 1);
                if (res != NVS_OK) goto out;
            }
        }
out:
    if (have_exec) x.ops->teardown(&x);
    free(pts);
    free(raw);
    nvs_train_plan_free(&plan);
    nvs_profile_free(&prof);
    return res;
}

nvs_result_t nvs_phase_train_preflight(nvs_ctx *run)
{
    char (*names)[NVS_PATH_MAX] = malloc(NVS_MAX_WORKLOADS * sizeof *names);
    if (!names) return NVS_ERR_NOMEM;
    int n = nvs_phase_models(run->cfg, names, NVS_MAX_WORKLOADS);
    nvs_result_t res = NVS_OK;
    for (int i = 0; i < n && res == NVS_OK; i++) {
        nvs_profile prof = {0};
        nvs_train_plan plan = {0};
        nvs_train_exec x = {0};
        int have_exec = 0;
        double free_min = 0;
        res = nvs_pt_prepare(run, names[i], &prof, &plan, &x, &have_exec, &free_min);
        if (have_exec) x.ops->teardown(&x);
        nvs_train_plan_free(&plan);
        nvs_profile_free(&prof);
    }
    free(names);
    return res;
}

nvs_result_t nvs_phase_train(nvs_ctx *run)
{
    char (*names)[NVS_PATH_MAX] = malloc(NVS_MAX_WORKLOADS * sizeof *names);
    if (!names) return NVS_ERR_NOMEM;
    int n = nvs_phase_models(run->cfg, names, NVS_MAX_WORKLOADS);
    nvs_result_t res = NVS_OK;
    if (run->rt->rank == 0 && !run->trains && !(run->trains = json_array())) res = NVS_ERR_NOMEM;
    for (int i = 0; i < n && res == NVS_OK; i++) res = train_one(run, names[i]);
    free(names);
    return res;
}
