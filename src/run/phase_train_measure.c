/* The training phase (phase_train.c): one N of one round, timed by the N's members (the full step, the
 * compute-only step, the all-reduces alone) and gathered by every rank; a failure told to the other ranks at once,
 * a stall named by the ranks that sat the N out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "run/phase_fail.h"
#include "run/phase_train_priv.h"
#include "run/run.h"
#include "train/train_exec.h"

static int member_of(const nvs_scale_point *pt, int rank)
{
    for (int i = 0; i < pt->n; i++)
        if (pt->ranks[i] == rank) return 1;
    return 0;
}

/* This rank's own failure while timing a point that other ranks share (its step's all-reduces): told to them at
 * once (runtime.h nvs_rt_tell_failed), so that they stop now, naming it, rather than wait out --timeout. A wait
 * that timed out, was interrupted or stopped for another rank's failure is not this rank's to tell. The cause is
 * the error line this rank logged, which names what failed (phase_fail.h nvs_fail_cause). */
static void tell_failure(nvs_rt *rt, const char *name, int n, nvs_result_t res)
{
    if (res == NVS_OK || res == NVS_ERR_TIMEOUT || res == NVS_ERR_ABORTED || res == NVS_ERR_INTERRUPTED) return;
    char cause[NVS_LOG_LAST_LEN + 64], why[NVS_RT_WHY_LEN];
    snprintf(why, sizeof why, "rank %d (host %s) failed timing train %s N=%d: %s", rt->rank, rt->host, name, n,
             nvs_fail_cause(res, cause, sizeof cause));
    nvs_rt_tell_failed(rt, nvs_utf8_trim(why));
}

/* Said by a rank that sat point pt out and timed out waiting for its step times: which point, who measured it
 * and where (the hosts of up to 8 of them), so that the stalled rank can be found. */
static void sat_out_stalled(const nvs_ctx *run, const char *name, const nvs_scale_point *pt)
{
    const nvs_rt *rt = run->rt;
    char who[640];
    int k = 0;
    for (int i = 0; i < pt->n && i < 8 && k < (int)sizeof who; i++) {
        int r = pt->ranks[i];
        k += snprintf(who + k, sizeof who - k, "%s%d (host %s)", i ? ", " : "", r,
                      run->ranks ? run->ranks[r].host : "?");
    }
    if (pt->n > 8 && k < (int)sizeof who) snprintf(who + k, sizeof who - k, " and %d more", pt->n - 8);
    nvs_error("rank %d (host %s) sat out train %s N=%d, measured by rank%s %s: no heartbeat from %s for %.0f s "
              "(--timeout %.0f s + %.0f s): stalled or gone",
              rt->rank, rt->host, name, pt->n, pt->n > 1 ? "s" : "", who, pt->n > 1 ? "them" : "it",
              nvs_rt_host_timeout(rt), rt->timeout_s, NVS_RT_HOST_GRACE_S);
}

/* One N of one round: the members time the full step, the compute-only step and the all-reduces alone (and,
 * at the first N of the first round, the hardware's own step and the step without GEMMs), then every rank
 * gathers them into *out: the slowest rank's step and split, the longest of each variant, the widest host rates.
 * Each round opens the N's communicator anew, as the first did. */
nvs_result_t nvs_pt_measure_point(nvs_ctx *run, const char *name, nvs_train_exec *x, int i, int rd, int warmup,
                                  double charged[5], nvs_train_point *out)
{
    const nvs_config *cfg = run->cfg;
    nvs_rt *rt = run->rt;
    const nvs_scale_point *pt = &run->points[i];
    nvs_comm *c = NULL;
    memset(out, 0, sizeof *out);
    int member = member_of(pt, rt->rank);
    nvs_result_t res = run->backend.ops->comm_split(&run->backend, member, &c);
    if (res != NVS_OK) return res;
    /* per rank: full step, its compute span, compute-only step, its span, comm alone, step without GEMMs,
     * host speed, issue times, compute-only step without the framework's host work and its issue time, the full
     * step's issue time by what it issued */
    enum {
        M_STEP, M_SPAN, M_COMP, M_COMP_SPAN, M_COMM, M_NOGEMM, M_RATE_LO, M_RATE_HI, M_ISSUE, M_COMP_ISSUE,
        M_IDEAL_COMP, M_IDEAL_ISSUE, M_ISSUE_BY, M_STEP_MIN = M_ISSUE_BY + NVS_ISSUE_KINDS, M_STEP_MAX, M_COMP_MIN,
        M_COMP_MAX, M_COUNT
    };
    double mine[M_COUNT] = {-1, -1, -1, -1, -1, -1, 0, 0, 0, 0, -1, -1};
    if (member) {
        nvs_step_medians full = {0}, comp = {0}, comm = {0}, nogemm = {-1, -1}, ideal = {-1, -1};
        x->comm = c;
        x->nranks = pt->n;
        nvs_log_forget_error(); /* this point's cause, if it fails (tell_failure) */
        if (rt->rank == cfg->train_fail_rank && pt->n == cfg->train_fail_n) { /* test hook: NVS_TEST_TRAIN_FAIL */
            nvs_error("out of memory starting train %s N=%d (injected by NVS_TEST_TRAIN_FAIL=%d:%d)", name, pt->n,
                      rt->rank, pt->n);
            res = NVS_ERR_NOMEM;
        } else {
            res = nvs_train_time_steps(x, NVS_STEP_FULL, warmup, cfg->steps, pt->n, &full);
        }
        if (res == NVS_OK && rd == 0) {
            charged[0] = x->host_ops;
            charged[1] = x->host_buckets;
            charged[2] = x->host_tensors;
            charged[3] = x->layout_bytes;
            charged[4] = x->host_buffer_ops;
        }
        /* the other variants follow a warm machine: two untimed steps are enough (fewer if asked) */
        int w2 = cfg->warmup_steps < 2 ? cfg->warmup_steps : 2;
        if (res == NVS_OK) res = nvs_train_time_steps(x, NVS_STEP_COMPUTE, w2, cfg->steps, pt->n, &comp);
        if (res == NVS_OK) res = nvs_train_time_steps(x, NVS_STEP_COMM, w2, cfg->steps, pt->n, &comm);
        if (res == NVS_OK && i == 0 && rd == 0) {
            /* the GPU's split (GEMMs and the rest), from the hardware's own step: without the framework's
             * host work in either variant (a work rate of 0 turns it off, step.c) */
            double keep = x->work_per_us;
            x->work_per_us = 0;
            if (keep <= 0) ideal = comp;
            else res = nvs_train_time_steps(x, NVS_STEP_COMPUTE, w2, cfg->steps, pt->n, &ideal);
            if (res == NVS_OK) res = nvs_train_time_steps(x, NVS_STEP_NO_GEMM, w2, cfg->steps, pt->n, &nogemm);
            x->work_per_us = keep;
        }
        x->comm = NULL;
        mine[M_STEP] = full.step_us;
        mine[M_SPAN] = full.span_us;
        mine[M_COMP] = comp.step_us;
        mine[M_COMP_SPAN] = comp.span_us;
        mine[M_COMM] = comm.step_us;
        mine[M_NOGEMM] = nogemm.step_us;
        mine[M_RATE_LO] = full.host_rate_p10;
        mine[M_RATE_HI] = full.host_rate_p90;
        mine[M_ISSUE] = full.issue_us;
        mine[M_COMP_ISSUE] = comp.issue_us;
        mine[M_IDEAL_COMP] = ideal.step_us;
        mine[M_IDEAL_ISSUE] = ideal.step_us < 0 ? -1 : ideal.issue_us;
        for (int k = 0; k < NVS_ISSUE_KINDS; k++) mine[M_ISSUE_BY + k] = full.issue_by_us[k];
        mine[M_STEP_MIN] = full.step_min_us;
        mine[M_STEP_MAX] = full.step_max_us;
        mine[M_COMP_MIN] = comp.step_min_us;
        mine[M_COMP_MAX] = comp.step_max_us;
    }
    tell_failure(rt, name, pt->n, res);
    run->backend.ops->comm_free(&run->backend, c);
    if (res != NVS_OK) return res;
    nvs_progress_done();
    double *all = malloc((size_t)rt->size * M_COUNT * sizeof *all);
    if (!all) return NVS_ERR_NOMEM;
    /* a rank outside this N arrives here at once and waits while the members time every variant's steps: the
     * members' heartbeats between steps (step.c) keep it waiting, for --timeout (+ grace) after the last one
     * (runtime.h nvs_rt_beat), not for the worst case of all those steps (it was --timeout x (4 x (warmup +
     * steps) + 1): 8.4 hours at the defaults) */
    res = nvs_allgather(rt, mine, all, sizeof mine, "gathering step times");
    if (res == NVS_ERR_TIMEOUT && !member) sat_out_stalled(run, name, pt);
    if (res == NVS_OK) {
        out->n = pt->n;
        out->slowest_rank = -1;
        out->no_gemm_us = -1;
        out->ideal_compute_us = -1;
        out->ideal_issue_us = -1;
        for (int r = 0; r < rt->size; r++) {
            const double *a = &all[M_COUNT * r];
            if (a[M_STEP] < 0) continue;
            if (a[M_STEP] > out->step_us) {
                out->step_us = a[M_STEP];
                out->slowest_rank = r;
                /* the slowest rank's own split: its compute stretched by the all-reduces beside it */
                out->span_diff_us = a[M_SPAN] - a[M_COMP_SPAN];
                out->issue_us = a[M_ISSUE];
                for (int k = 0; k < NVS_ISSUE_KINDS; k++) out->issue_by_us[k] = a[M_ISSUE_BY + k];
                out->step_min_us = a[M_STEP_MIN];
                out->step_max_us = a[M_STEP_MAX];
            }
            if (a[M_COMP] > out->compute_us) { /* the range of the steps whose median compute_us is */
                out->compute_min_us = a[M_COMP_MIN];
                out->compute_max_us = a[M_COMP_MAX];
            }
            out->compute_us = fmax(out->compute_us, a[M_COMP]);
            out->compute_issue_us = fmax(out->compute_issue_us, a[M_COMP_ISSUE]);
            out->comm_us = fmax(out->comm_us, a[M_COMM]);
            out->no_gemm_us = fmax(out->no_gemm_us, a[M_NOGEMM]);
            out->ideal_compute_us = fmax(out->ideal_compute_us, a[M_IDEAL_COMP]);
            out->ideal_issue_us = fmax(out->ideal_issue_us, a[M_IDEAL_ISSUE]);
            if (a[M_RATE_LO] > 0 && (out->host_rate_lo <= 0 || a[M_RATE_LO] < out->host_rate_lo))
                out->host_rate_lo = a[M_RATE_LO];
            out->host_rate_hi = fmax(out->host_rate_hi, a[M_RATE_HI]);
        }
        nvs_info("train %s N=%d: step %.2f ms, compute %.2f ms, comm %.2f ms", name, pt->n,
                 out->step_us / 1e3, out->compute_us / 1e3, out->comm_us / 1e3);
    }
    free(all);
    return res;
}
