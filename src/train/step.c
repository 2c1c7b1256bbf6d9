/* The step driver: issues one training step through an executor (forward, backward with bucket all-reduces,
 * optimizer) and times steps on the host. Knows nothing of the run flow: the run layer (run/phase_train.c)
 * decides which N and which variants to time. */
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"
#include "core/cpu_work.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "core/metrics.h"
#include "runtime/runtime.h"
#include "train/train.h"
#include "train/train_exec.h"

/* An executor call, its host time added to what the step issued of `kind` (train/issue.h): clock_gettime costs
 * tens of nanoseconds, against microseconds for a launch */
#define ISSUE(x, kind, call)                                                                                        \
    do {                                                                                                            \
        double t0_ = nvs_now_us();                                                                                  \
        nvs_result_t r_ = (call);                                                                                   \
        (x)->issue_by_us[(kind)] += nvs_now_us() - t0_;                                                             \
        if (r_ != NVS_OK) return r_;                                                                                \
    } while (0)

/* The framework's host work (workload/framework.h), owed `us` more microseconds of this CPU alone. Its cost per
 * operation was measured on PyTorch, launches included, and the step's own launches already take host time
 * (with --framework ideal, 5.0 ms of lm290m's 24 ms step at bf16 and 12.0 ms of bert-large-mlm128's:
 * results/h200x1-issue, results/fidelity/n1-1gpu-fit). So the step's own host time so far (everything but
 * this work: its launches) counts against what the framework owes, and the rest is done as CPU work: a fixed
 * number of work units, which take longer when the CPU is slow or shared, as a framework's host work does.
 * (Topping up to a wall-clock deadline instead would make the work vanish on a shared CPU.)
 * An executor whose calls return only when their work is done (sync_issue: the host executor, train_exec.h) spends
 * that host time computing, not launching: it does not count against the framework's, which on a CPU comes on top
 * of the compute (a ResNet-50 step at batch 1 owed 18 ms and did 1.1-1.4 ms of it when they counted). */
static void host_work(nvs_train_exec *x, double us)
{
    x->host_due_us += us;
    if (x->work_per_us <= 0) return;
    double own_us = (nvs_now_us() - x->issue_t0_us) - x->work_wall_us - x->wait_us;
    if (x->ops->sync_issue) /* the executor's calls so far (issue_by_us: the framework's own is filled at the end) */
        for (int k = 0; k < NVS_ISSUE_KINDS; k++)
            if (k != NVS_ISSUE_FRAMEWORK) own_us -= x->issue_by_us[k];
    double units = (x->host_due_us - own_us) * x->work_per_us - x->work_units;
    if (units <= 0) return;
    double t0 = nvs_now_us();
    nvs_cpu_work(units);
    x->work_wall_us += nvs_now_us() - t0;
    x->work_units += units;
}

/* The framework's host work for `ops` operations it dispatches, and for one bucket of the reducer; counted in
 * x->host_ops / host_buckets (run.json reports them per step). */
static void op_work(nvs_train_exec *x, double ops)
{
    x->host_ops += ops;
    host_work(x, x->plan->framework->host_us_per_op * ops);
}

static void reducer_work(nvs_train_exec *x)
{
    x->host_buckets += 1;
    host_work(x, x->plan->framework->reducer_us_per_bucket);
}

/* Before each timed step, this thread times a fixed amount of the host work: its speed at that moment, as the
 * framework's host work sees it (tools/ddp_bench.py's probe_us does the same for PyTorch). 4096 units take about
 * 25-40 us at the 100-175 units/us the H200 VMs' vCPUs run at (results/fidelity/run3-*: run.json's
 * cpu_work_units_per_us), under 0.1 % of a 50 ms step, and are outside the timed step. */
#define NVS_HOST_PROBE_UNITS 4096.0

static double host_probe(void)
{
    double t0 = nvs_now_us();
    nvs_cpu_work(NVS_HOST_PROBE_UNITS);
    double dt = nvs_now_us() - t0;
    return dt > 0 ? NVS_HOST_PROBE_UNITS / dt : 0.0;
}

/* The operations the framework dispatches for layer l (workload/framework.h counts them) */
static double layer_ops(const nvs_train_plan *pl, int l, int backward)
{
    return nvs_framework_layer_ops(pl->framework, pl->profile, l, backward, pl->precision);
}

/* Copies of layer l's output the convolution library makes to change layout, forward (backward = 0) or backward
 * (framework.h: a framework keeping NCHW tensors, at half precision, around a conv=1 layer). They are memory
 * traffic of the convolution's, and run in every variant of the step, the one without GEMMs included. Where the
 * executor runs the convolution in that library itself (cuDNN, train/conv.h), the library makes them. */
static nvs_result_t layout_copies(nvs_train_exec *x, int l, int backward)
{
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    double copies = backward ? pl->framework->nchw_copies_bwd : pl->framework->nchw_copies_fwd;
    if (!nvs_precision_info_of(pl->precision)->half || !ly->conv || copies <= 0 || ly->act_elems <= 0) return NVS_OK;
    if (x->conv_native && x->conv_native[l]) return NVS_OK; /* the convolution library transposes for itself */
    x->layout_bytes += 2.0 * copies * ly->act_elems * pl->batch * (double)nvs_precision_bytes(pl->precision);
    ISSUE(x, NVS_ISSUE_COPIES, x->ops->copy_out(x, l, copies));
    return NVS_OK;
}

/* Autocast's weight cast before layer l's forward GEMM (framework.h weight_casts): at half precision, a layer with
 * a GEMM and parameters. Memory traffic like the layout copies, so it runs in every variant of the step. */
static nvs_result_t weight_cast(nvs_train_exec *x, int l)
{
    const nvs_train_plan *pl = x->plan;
    if (nvs_framework_weight_cast_elems(pl->framework, &pl->profile->layers[l], pl->precision) <= 0) return NVS_OK;
    ISSUE(x, NVS_ISSUE_COPIES, x->ops->cast_weights(x, l));
    return NVS_OK;
}

static int native_norm(const nvs_train_exec *x, int l) { return x->norm_native && x->norm_native[l]; }

/* a batch norm's issue kind: in the library, or in the executor's own kernels */
static int norm_kind(const nvs_train_exec *x, int l)
{
    return x->norm_native[l] == NVS_NORM_CUDNN ? NVS_ISSUE_NORM_LIB : NVS_ISSUE_NORM_KERN;
}

/* Layer l is a LayerNorm the executor runs in LayerNorm kernels (profile.h ln=), and whether over fp32: where the
 * framework runs the layer's passes over fp32 (autocast_fp32), its own are among them (profile_layer.c checks
 * ew32 >= ln) */
static int ln_kernels(const nvs_train_exec *x, int l)
{
    return x->plan->profile->layers[l].ln_passes > 0 && x->ops->layer_norm;
}
static int ln_fp32(const nvs_train_exec *x, int l)
{
    const nvs_train_plan *pl = x->plan;
    return nvs_framework_ew32_passes(pl->framework, &pl->profile->layers[l], pl->precision) > 0;
}

/* a GEMM layer's issue kind: a convolution the library runs, or a GEMM */
static int gemm_kind(const nvs_train_exec *x, int l)
{
    return x->conv_native && x->conv_native[l] ? NVS_ISSUE_CONV : NVS_ISSUE_GEMM;
}

/* Layer l's memory-bound passes, forward (ew) or backward (2 ew). A batch norm the executor runs in a library
 * (bn= of the profile, train/conv.h) is that library's call forward, and the rest of the passes (the ReLU, the
 * add that follow it); backward, the rest here, the norm's own in place of the layer's gradient pass. Under a
 * framework that keeps autocast's fp32 tensors, the profile's ew32= of them run over fp32 data, and under one
 * that copies through views element by element its perm= of them so (framework.h). Backward, the profile's ewb=
 * passes follow. A LayerNorm the executor runs in its kernels (ln=) is those kernels in place of its own passes. */
static nvs_result_t passes(nvs_train_exec *x, int l, int backward)
{
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    if (ly->act_elems <= 0) return NVS_OK;
    double ew = ly->ew_passes;
    if (native_norm(x, l)) {
        if (!backward) ISSUE(x, norm_kind(x, l), x->ops->norm(x, l, 0));
        ew -= ly->bn_passes;
    }
    double f32 = nvs_framework_ew32_passes(pl->framework, ly, pl->precision);
    /* a LayerNorm's own passes in its kernels: forward here, backward with its parameters' gradients (below) */
    if (ln_kernels(x, l)) {
        const int fp32 = ln_fp32(x, l);
        if (!backward) ISSUE(x, NVS_ISSUE_NORM_KERN, x->ops->layer_norm(x, l, 0, fp32));
        ew -= ly->ln_passes;
        if (fp32) f32 -= ly->ln_passes;
    }
    /* perm= copies through a view, one way forward and back backward (framework.h view_copies); an executor
     * without such copies runs them as passes */
    double view = x->ops->view_copy ? nvs_framework_view_passes(pl->framework, ly) : 0;
    const double k = backward ? 2 : 1;
    if (k * (ew - f32) - view > 0) ISSUE(x, NVS_ISSUE_PASSES, x->ops->ew(x, l, k * (ew - f32) - view, 0));
    if (view > 0) ISSUE(x, NVS_ISSUE_COPIES, x->ops->view_copy(x, l, view, backward));
    if (f32 > 0) ISSUE(x, NVS_ISSUE_PASSES, x->ops->ew(x, l, k * f32, 1));
    /* the backward's own passes (ewb=: assembling a gradient from its views' gradients), at the step's precision */
    if (backward && ly->ewb_passes > 0) ISSUE(x, NVS_ISSUE_PASSES, x->ops->ew(x, l, ly->ewb_passes, 0));
    return NVS_OK;
}

/* Autocast's casts of layer l's fp32 output to 16 bits for the GEMM that reads it, forward, or of their gradients
 * back to fp32, backward (framework.h autocast_fp32): memory traffic, in every variant of the step. */
static nvs_result_t act_casts(nvs_train_exec *x, int l, int backward)
{
    const nvs_train_plan *pl = x->plan;
    double n = nvs_framework_act_casts(pl->framework, &pl->profile->layers[l], pl->precision);
    for (int i = 0; i < (int)n; i++) ISSUE(x, NVS_ISSUE_COPIES, x->ops->cast_act(x, l, backward));
    return NVS_OK;
}

static nvs_result_t issue_step(nvs_train_exec *x, int mode)
{
    const nvs_train_plan *pl = x->plan;
    const nvs_profile *p = pl->profile;
    /* fp16 under a framework with a gradient scaler (framework.h) */
    const int scaler = pl->precision == NVS_PREC_FP16 && pl->framework->grad_scaler;
    /* the data-parallel reducer runs only when gradients are synchronised (DDP outside no_sync()) */
    const int reducer = mode == NVS_STEP_FULL;
    const int buckets = reducer && pl->bucket_bytes > 0;
    x->host_ops = x->host_buckets = x->host_tensors = x->host_due_us = x->work_wall_us = x->work_units = 0;
    x->host_buffer_ops = 0;
    x->layout_bytes = x->wait_us = 0;
    for (int k = 0; k < NVS_ISSUE_KINDS; k++) x->issue_by_us[k] = 0;
    x->issue_t0_us = nvs_now_us();
    ISSUE(x, NVS_ISSUE_OTHER, x->ops->mark(x, 0));
    if (mode == NVS_STEP_COMM) {
        for (int b = 0; b < pl->nbuckets; b++) ISSUE(x, NVS_ISSUE_COMM, x->ops->bucket_ready(x, b));
        ISSUE(x, NVS_ISSUE_COMM, x->ops->join_comm(x));
        ISSUE(x, NVS_ISSUE_OTHER, x->ops->mark(x, 1));
        return NVS_OK;
    }
    /* DDP's broadcast of the module buffers before the forward's first kernel: the flattens, the broadcasts and the
     * copies back are operations of the framework (framework.h), their launches part of what each costs (so they
     * come first, and count against it). Not in the compute-only step: under no_sync() DDP's forward clears
     * require_forward_param_sync, and the next forward broadcasts nothing (torch/nn/parallel/distributed.py,
     * _post_forward; PyTorch's no_sync() steps launch as many kernels as the plain model's, results/h200x1-census) */
    if (reducer && pl->buffers > 0) {
        ISSUE(x, NVS_ISSUE_COMM, x->ops->buffers(x));
        x->host_buffer_ops = nvs_framework_buffer_ops(pl->framework, p);
        x->host_ops += x->host_buffer_ops;
        host_work(x, pl->framework->host_us_per_buffer_op * x->host_buffer_ops);
    }
    /* Each layer's host work comes before its kernels, in both passes: the framework dispatches the layer's
     * operations, and their kernels queue as it goes. */
    for (int l = 0; l < p->nlayers; l++) {
        const nvs_layer *ly = &p->layers[l];
        op_work(x, layer_ops(pl, l, 0));
        NVS_CHECK(weight_cast(x, l));
        if (ly->gemm_m > 0 && mode != NVS_STEP_NO_GEMM) ISSUE(x, gemm_kind(x, l), x->ops->gemm(x, l, NVS_GEMM_FWD));
        NVS_CHECK(layout_copies(x, l, 0));
        NVS_CHECK(passes(x, l, 0));
        NVS_CHECK(act_casts(x, l, 0));
    }
    if (scaler) op_work(x, 2); /* the loss scaled, and that product's backward */
    for (int l = p->nlayers - 1; l >= 0; l--) {
        const nvs_layer *ly = &p->layers[l];
        if (ly->nograd) continue; /* a frozen stem: autograd never reaches it (profile.h) */
        op_work(x, layer_ops(pl, l, 1));
        NVS_CHECK(act_casts(x, l, 1));
        NVS_CHECK(passes(x, l, 1));
        NVS_CHECK(layout_copies(x, l, 1));
        /* a bias's gradient, a read of the output gradient: memory-bound, so in every variant */
        if (nvs_layer_bias_elems(ly) > 0) ISSUE(x, NVS_ISSUE_PASSES, x->ops->bias_grad(x, l));
        if (ly->gemm_m > 0 && mode == NVS_STEP_NO_GEMM) {
            /* skipped: this variant measures the memory-bound rest */
        } else if (ly->gemm_m > 0) {
            if (!nvs_layer_no_input_grad(p, l)) ISSUE(x, gemm_kind(x, l), x->ops->gemm(x, l, NVS_GEMM_DGRAD));
            ISSUE(x, gemm_kind(x, l), x->ops->gemm(x, l, NVS_GEMM_WGRAD));
        } else if (native_norm(x, l)) {
            ISSUE(x, norm_kind(x, l), x->ops->norm(x, l, 1)); /* after the passes that follow it forward (ReLU, add) */
        } else if (ln_kernels(x, l)) {
            ISSUE(x, NVS_ISSUE_NORM_KERN, x->ops->layer_norm(x, l, 1, ln_fp32(x, l))); /* likewise (a dropout) */
        } else if (ly->params > 0) {
            ISSUE(x, NVS_ISSUE_PASSES, x->ops->grad_pass(x, l));
        }
        if (reducer && ly->params > 0) {
            /* the reducer's autograd hook for each parameter tensor of the layer, and its bucket copy */
            x->host_tensors += nvs_layer_param_tensors(ly);
            if (buckets) ISSUE(x, NVS_ISSUE_COPIES, x->ops->grad_to_bucket(x, l));
        }
        if (reducer && pl->bucket_closes_at[l] >= 0) {
            reducer_work(x);
            ISSUE(x, NVS_ISSUE_COMM, x->ops->bucket_ready(x, pl->bucket_closes_at[l]));
        }
    }
    ISSUE(x, NVS_ISSUE_OTHER, x->ops->mark(x, 1));
    if (reducer) ISSUE(x, NVS_ISSUE_COMM, x->ops->join_comm(x));
    if (buckets)
        for (int b = 0; b < pl->nbuckets; b++) {
            op_work(x, 1);
            ISSUE(x, NVS_ISSUE_COPIES, x->ops->bucket_to_grad(x, b));
        }
    /* fused AdamW takes the scaler's found_inf into its kernel: the check, no wait, one operation more (framework.h) */
    const int in_kernel = scaler && nvs_framework_scaler_in_kernel(pl->framework, pl->optimizer, pl->optimizer_fused);
    if (scaler) {
        /* unscale_ and the inf/NaN check in one foreach operation (the check alone for fused AdamW), then
         * GradScaler.step's found_inf.item(): the host waits for the GPU before it may launch the optimizer */
        op_work(x, 1);
        ISSUE(x, NVS_ISSUE_OPTIMIZER, x->ops->unscale(x));
        if (!in_kernel) {
            double t0 = nvs_now_us();
            NVS_CHECK(x->ops->sync(x));
            x->wait_us += nvs_now_us() - t0;
        }
    }
    /* the optimizer: its foreach (or fused) operations over all tensors at once, counted; its host time per tensor
     * where the framework's is torch.optim's (framework.h); fused AdamW's found_inf operation on top */
    const int foreach = nvs_train_plan_opt_foreach(pl);
    x->host_ops += nvs_framework_optimizer_ops(pl->framework, pl->optimizer, foreach);
    host_work(x, nvs_framework_optimizer_host_us(pl->framework, pl->optimizer, foreach,
                                                 nvs_profile_optimizer_tensors(p)));
    if (in_kernel) op_work(x, 1);
    ISSUE(x, NVS_ISSUE_OPTIMIZER, x->ops->optimizer(x));
    if (scaler) op_work(x, 1); /* GradScaler.update: one operation */
    x->issue_by_us[NVS_ISSUE_FRAMEWORK] = x->work_wall_us;
    return NVS_OK;
}

/* Between steps, outside the timed ones: this rank's heartbeat to ranks that sit this N out and wait for its step
 * times (runtime.h nvs_rt_beat; run/phase_train_measure.c). A clock read unless one is due (a quarter of
 * --timeout). */
static void beat(nvs_train_exec *x)
{
    if (x->backend && x->backend->rt) nvs_rt_beat(x->backend->rt);
}

/* Medians of `steps` steps after `warmup` untimed ones; every step is waited for on the host (the next step's
 * forward may not start before the optimizer is done, as in a real loop). */
nvs_result_t nvs_train_time_steps(nvs_train_exec *x, int mode, int warmup, int steps, int n, nvs_step_medians *out)
{
    static const char *const names[] = {"step", "compute-only step", "all-reduces", "step without GEMMs"};
    double *t = malloc((size_t)steps * (4 + NVS_ISSUE_KINDS) * sizeof *t);
    if (!t) return NVS_ERR_NOMEM;
    double *span = t + steps, *rate = t + 2 * steps, *issue = t + 3 * steps;
    double *by = t + 4 * steps; /* by[k * steps + i]: step i's host time issuing kind k */
    const int probe = x->work_per_us > 0;
    nvs_result_t res = NVS_OK;
    for (int i = 0; i < warmup && res == NVS_OK; i++) {
        beat(x);
        res = issue_step(x, mode);
        if (res == NVS_OK) res = x->ops->sync(x);
    }
    double t_first = nvs_now_us();
    for (int i = 0; i < steps && res == NVS_OK; i++) {
        double el = nvs_now_us() - t_first;
        char key[96];
        snprintf(key, sizeof key, "train %s N=%d %d", x->plan->profile->name, n, mode);
        char left[32] = "";
        if (i) snprintf(left, sizeof left, ", ~%.0f s left in this phase", el / i * (steps - i) / 1e6);
        nvs_progress(key, "train %s N=%d: %s %d/%d%s", x->plan->profile->name, n, names[mode], i + 1, steps, left);
        beat(x);
        if (probe) rate[i] = host_probe();
        double t0 = nvs_now_us();
        res = issue_step(x, mode);
        issue[i] = nvs_now_us() - t0 - x->wait_us; /* the host's own time: not its wait for a scaler's check */
        for (int k = 0; k < NVS_ISSUE_KINDS; k++) by[k * steps + i] = x->issue_by_us[k];
        if (res == NVS_OK) res = x->ops->sync(x);
        t[i] = nvs_now_us() - t0;
        if (res == NVS_OK && nvs_interrupted()) res = NVS_ERR_INTERRUPTED;
        if (res == NVS_OK) res = x->ops->span(x, &span[i]);
    }
    if (res == NVS_OK) {
        out->step_us = nvs_median(t, (size_t)steps);
        out->step_min_us = nvs_quantile(t, (size_t)steps, 0.0);
        out->step_max_us = nvs_quantile(t, (size_t)steps, 1.0);
        out->span_us = nvs_median(span, (size_t)steps);
        out->issue_us = nvs_median(issue, (size_t)steps);
        for (int k = 0; k < NVS_ISSUE_KINDS; k++) out->issue_by_us[k] = nvs_median(by + k * steps, (size_t)steps);
        out->host_rate_p10 = probe ? nvs_quantile(rate, (size_t)steps, 0.1) : 0.0;
        out->host_rate_p90 = probe ? nvs_quantile(rate, (size_t)steps, 0.9) : 0.0;
    }
    free(t);
    return res;
}
