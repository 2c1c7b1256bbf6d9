/* The "why" paragraph in words, from the facts (explain.h's nvs_explain_text). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "explain/explain_priv.h"

/* A host whose CPU runs at two speeds. On a quiet vCPU the host-work probe's rate stays within about 10 %
 * (145-161 units/us for minutes, results/h200x1-hostnoise2); the H200 VMs' vCPUs switch between two speeds 1.27x
 * apart for this unit (1x H200, results/h200x1-probe-compare) and up to 1.7x (2x H200, the calibrations of
 * results/fidelity/run3-*). A spread of 1.25x or more is such a switch, not jitter. */
#define NVS_HOST_RATE_SPREAD 1.25
/* the host's issue time, % of the step, from which the step is host-bound (the Why sentence says why 90) */
#define NVS_HOST_BOUND_PCT 90.0

/* Whether the framework's host work is among the two kinds the host spent most of the step's issue on */
static int framework_top(const nvs_explain_facts *f)
{
    for (int i = 0; i < 2; i++)
        if (f->issue_top[i] && !strcmp(f->issue_top[i], "framework")) return 1;
    return 0;
}

/* The words for a kind of the host's issue time (run.json issue_by_us, src/train/issue.h); the key itself for a
 * kind this table does not know */
static const char *issue_words(const char *kind)
{
    static const char *const words[][2] = {
        {"framework", "the framework's host work"}, {"gemm", "launching cuBLAS GEMMs"},
        {"conv_library", "cuDNN's convolution calls"}, {"norm_library", "cuDNN's batch-norm calls"},
        {"norm_kernels", "launching batch-norm kernels"}, {"passes", "launching element-wise kernels"},
        {"copies", "launching copies"}, {"comm", "communication calls"}, {"optimizer", "the optimizer's launches"},
        {"other", "other calls"}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(kind, words[i][0])) return words[i][1];
    return kind;
}

size_t nvs_explain_text(const nvs_explain_facts *f, char *buf, size_t len)
{
    /* what a rank drives: a GPU, or (MPI host backend) a CPU process */
    const char *U1 = f->host_ranks ? "rank" : "GPU", *UN = f->host_ranks ? "ranks" : "GPUs";
    sb s = {buf, len, 0};
    if (len) buf[0] = '\0';
    char a[32], b[32], c[32];
    /* an interrupted or failed run lists the counts it planned: say what is missing (1 included: no baseline) */
    if (f->not_measured) {
        sbf(&s, "At %d %s nothing was measured: the run did not get to this count or failed at it (see its result).",
            f->n, f->n == 1 ? U1 : UN);
        return s.used;
    }
    if (f->n <= 1) {
        sbf(&s, "At 1 %s nothing crosses a link: this is the baseline the other %s counts are measured against.", U1,
            U1);
        return s.used;
    }
    int hop = f->has_hop && f->hop_class, tr = f->transport[0] != '\0';
    sbf(&s, "At %d %s ", f->n, UN);
    if (f->hosts > 1 && f->per_host > 0 && f->per_host * f->hosts == f->n)
        sbf(&s, "on %d hosts (%d each) ", f->hosts, f->per_host);
    else if (f->hosts > 1)
        sbf(&s, "on %d hosts ", f->hosts);
    else if (f->hosts == 1)
        sbf(&s, "on one host ");
    if (hop) nvs_ex_hop_words(&s, f);
    if (tr) nvs_ex_transport_words(&s, f);
    if (f->host_ranks && !tr) /* --backend mpi: host memory over MPI; no NCCL, no GPU (not "missing" from the run) */
        sbf(&s, "(the MPI host backend: CPU processes over MPI, no GPUs and no NCCL transport)");
    else if (!hop && !tr)
        sbf(&s, "(neither the topology nor NCCL's transport is in this run)");
    else if (!hop)
        sbf(&s, " (the topology is not in this run)");
    else if (!tr)
        sbf(&s, " (NCCL's transport is not in this run)");
    const char *coll = f->collective ? f->collective : "the collective";
    if (!isnan(f->busbw_gbps)) {
        char size[32] = "";
        if (!isnan(f->busbw_bytes) && f->busbw_bytes >= 0) nvs_format_size((size_t)f->busbw_bytes, size, sizeof size);
        double prev = f->prev_busbw_gbps;
        if (f->prev_n >= 2 && !isnan(prev) && prev > 0) {
            double ratio = f->busbw_gbps / prev;
            /* within 10 %: run-to-run noise of a busbw figure, not a change worth a verb */
            const char *verb = ratio < 0.9 ? "fell" : ratio > 1.1 ? "rose" : NULL;
            /* in a run across hosts, say where the previous count ran: the intra- against the inter-host figure */
            char where[32] = "";
            if (f->prev_hosts == 1) snprintf(where, sizeof where, " on one host");
            else if (f->prev_hosts > 1) snprintf(where, sizeof where, " on %d hosts", f->prev_hosts);
            if (verb)
                sbf(&s, ": %s busbw %s from %s GB/s at %d %s%s to %s GB/s", coll, verb, num(prev, a, sizeof a),
                    f->prev_n, UN, where, num(f->busbw_gbps, b, sizeof b));
            else
                sbf(&s, ": %s busbw held at %s GB/s (%s at %d %s%s)", coll, num(f->busbw_gbps, b, sizeof b),
                    num(prev, a, sizeof a), f->prev_n, UN, where);
        } else {
            sbf(&s, ": %s busbw is %s GB/s", coll, num(f->busbw_gbps, b, sizeof b));
        }
        if (size[0]) sbf(&s, " at %s", size);
        /* a hop NCCL went around bounds nothing it measured: its rate is named as what was left unused, no % */
        if (!isnan(f->bound_gbps) && f->bound_gbps > 0 && nvs_explain_hop_unused(f))
            sbf(&s, ", where the hop NCCL went around is rated %s GB/s", bound_num(f->bound_gbps, a, sizeof a));
        else if (!isnan(f->bound_gbps) && f->bound_gbps > 0 && f->nvls && nvs_ex_nvls_reduces(coll))
            /* with NVLS the NVSwitch reduces and multicasts: each GPU sends its data once and receives the result
             * once, where a ring moves 2(N-1)/N of it each way, so busbw can pass the ring's hop bound (NCCL's
             * tuning, src/graph/tuning.cc, gives NVLS its own bandwidth): no % of a bound it does not have */
            sbf(&s, " (NVLS: the ring bound of that hop, %s GB/s, does not bound it)",
                bound_num(f->bound_gbps, a, sizeof a));
        else if (!isnan(f->bound_gbps) && f->bound_gbps > 0)
            sbf(&s, ", %s %% of the %s GB/s bound of that hop", num(100.0 * f->busbw_gbps / f->bound_gbps, c, sizeof c),
                bound_num(f->bound_gbps, a, sizeof a));
    }
    /* rows whose result check failed are no evidence of a bandwidth: named, never quoted */
    if (f->failed_rows > 0)
        sbf(&s, "%s %d %s row%s at %d %s failed the result check (%lld wrong elements): %s not used",
            isnan(f->busbw_gbps) ? ":" : ";", f->failed_rows, coll, f->failed_rows > 1 ? "s" : "", f->n, UN,
            f->failed_wrong, f->failed_rows > 1 ? "their busbw is" : "its busbw is");
    int said = !isnan(f->busbw_gbps) || f->failed_rows > 0;
    if (!isnan(f->exposed_comm_pct)) {
        double e = f->exposed_comm_pct < 0 ? 0 : f->exposed_comm_pct;
        /* below 1 % of the step the overlap is as good as the measurement can tell */
        /* a run of several workloads: the one the figures are of (the one that scales worst here) */
        char of[80] = "";
        if (f->workload) snprintf(of, sizeof of, " of %.60s", f->workload);
        /* no 1-GPU step (--gpus 2,...): the reference's loss beyond compute was charged to the reducer */
        int ref_above_1 = f->train_ref_n > 1;
        if (ref_above_1 && f->n == f->train_ref_n && !isnan(f->train_lost_ms))
            sbf(&s, "%s the training step%s spent %s ms beyond its compute, the framework's reducer and exposed "
                    "communication together: only a 1-%s step tells them apart, and this run has none (--gpus)",
                said ? ", and" : ":", of, num(f->train_lost_ms, a, sizeof a), U1);
        else if (e >= 1)
            sbf(&s, "%s %s %% of the training step%s is communication the backward pass could not hide",
                said ? ", and" : ":", num(e, a, sizeof a), of);
        else
            sbf(&s, "%s the backward pass%s hid almost all communication (%s %% of the step exposed)",
                said ? ", and" : ":", of, num(e, a, sizeof a));
        if (ref_above_1 && f->n > f->train_ref_n)
            sbf(&s, " (beyond what the %d-%s step lost, taken as the reducer's: no 1-%s step in this run)",
                f->train_ref_n, U1, U1);
        if (!isnan(f->predicted_comm_us) && !isnan(f->measured_comm_us) && f->predicted_comm_us > 0)
            sbf(&s, "; the gradient all-reduces took %s ms where the measured all_reduce curve predicts %s ms",
                num(f->measured_comm_us / 1e3, b, sizeof b), num(f->predicted_comm_us / 1e3, c, sizeof c));
        /* as for exposed communication, below 1 % of the step is within the measurement */
        if (f->rank_wait_pct >= 1)
            sbf(&s, "; beyond that, %s %% of the step went to waiting at the all-reduces for a slower rank",
                num(f->rank_wait_pct, a, sizeof a));
        /* the compute's own loss (the verdict's other parts), each once it is 1 % of the step: a step that hid
         * all its communication can still lose half its speed there (2 CPU ranks on 2 cores: 30 -> 50 s) */
        double one = f->step_ms / 100;
        int cont = f->contention_ms >= one, intf = f->interference_ms >= one;
        if (cont || intf) sbf(&s, "; the compute ran ");
        if (cont) /* in ms to 0.1, as the table's columns */
            sbf(&s, "%.1f ms slower than at the reference by sharing the machine (memory, power, host)",
                f->contention_ms);
        if (intf)
            sbf(&s, "%s%.1f ms slower beside the all-reduces (interference: they share its %s and memory)",
                cont ? ", and " : "", f->interference_ms, f->host_ranks ? "cores" : "SMs");
    }
    sbf(&s, ".");
    /* A host-bound step: the host was still issuing it until near its end, so the GPU waited on the host. 90 %:
     * a GPU-bound step is issued well ahead of the GPU (resnet50 at bf16 on an H200: 19 of 48 ms), a host-bound
     * one until the last kernels (lm290m and bert-large-mlm128 at bf16: 97 %; results/fidelity/n1-1gpu-fit2). */
    if (!f->host_ranks && f->issue_pct >= NVS_HOST_BOUND_PCT) {
        sbf(&s, " The host set the step's pace: issuing it (the framework's host work and the kernel launches) took"
                " %s %% of the step",
            num(f->issue_pct, a, sizeof a));
        if (f->issue_top[0]) {
            sbf(&s, ", most of it %s %s ms", issue_words(f->issue_top[0]), num(f->issue_top_ms[0], a, sizeof a));
            if (f->issue_top[1] && f->issue_top_ms[1] > 0)
                sbf(&s, " and %s %s ms", issue_words(f->issue_top[1]), num(f->issue_top_ms[1], b, sizeof b));
        }
        sbf(&s, ", so the GPU waited on the host; a faster CPU, fewer and larger operations (fused kernels, CUDA"
                " graphs) or more work per operation (a larger batch) would shorten the step, faster links would"
                " not.");
        /* nvscale spends the framework's host work as microseconds timed on the CPUs it was fitted on (the H200
         * VMs, workload/framework.c), whatever this CPU is; PyTorch's own issue time for one step moved 0.65x to
         * 1.75x of its median from one such VM to the next (41 folders, results/fidelity/host-spread.md, made by
         * tools/host_spread.py), and neither probe followed it well: so the step's absolute time is that of
         * those CPUs, not this one's */
        if (framework_top(f))
            sbf(&s, " nvscale spends the framework's host work as it took on the CPUs it was fitted on; PyTorch's"
                    " own took 0.65x to 1.75x of its median from one such machine to the next, so a real DDP step"
                    " on this CPU may be that much faster or slower (tools/ddp_bench.py times it).");
    }
    /* framework host work on a host running at different speeds: the step follows the CPU (docs/fidelity.md) */
    if (!f->host_ranks && f->host_rate_p10 > 0 && f->host_rate_p90 >= NVS_HOST_RATE_SPREAD * f->host_rate_p10)
        sbf(&s, " The host's CPU ran at different speeds during the training steps: before them, the framework's"
                " unit of host work ran at %s to %s per us (%.2fx apart); a step bound by such host work (an eager"
                " framework at bf16) follows the CPU, so repeat the run and compare medians.",
            num(f->host_rate_p10, a, sizeof a), num(f->host_rate_p90, b, sizeof b),
            f->host_rate_p90 / f->host_rate_p10);
    return s.used;
}
