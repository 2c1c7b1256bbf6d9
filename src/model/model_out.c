/* Text and JSON output of `nvscale model` (model_out.h). */
#include "model/model_out.h"

#include "core/escape.h"

#include <math.h>
#include <string.h>

#include "core/version.h"
#include "runjson/runjson_write.h"
#include "runjson/sanity.h"
#include "workload/framework.h"

/* --- the terms of a configuration: value and where it comes from -------------------------------------------- */

typedef struct {
    char name[96];
    double value;
    const char *unit;
    const char *origin; /* "preset" | "measured" | "default" */
    char source[NVS_PRESET_SRC_LEN + 64];
} term;

#define MAX_TERMS 48

static void add(term *t, int *n, const char *name, double v, const char *unit, const char *origin, const char *src)
{
    if (*n >= MAX_TERMS) return;
    term *x = &t[(*n)++];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->value = v;
    x->unit = unit;
    x->origin = origin;
    snprintf(x->source, sizeof x->source, "%s", src ? src : "");
}

static void add_preset(term *t, int *n, const nvs_preset *p, int field, const char *unit)
{
    if (!p) return;
    char name[96];
    snprintf(name, sizeof name, "%s.%s", p->id, nvs_preset_key_name(p->kind, field));
    add(t, n, name, p->f[field].v, unit, "preset", p->f[field].src);
}

/* transport tr's interference share as a term, once (seen: the transports added so far, a bit each) */
static void add_share(term *t, int *n, nvs_transport tr, int *seen)
{
    if (tr == NVS_TR_NONE || (*seen & (1 << tr))) return;
    *seen |= 1 << tr;
    const nvs_interference *in = nvs_interference_of(tr);
    char name[96];
    snprintf(name, sizeof name, "interference@%s", nvs_transport_name(tr));
    add(t, n, name, in->share, "", in->measured ? "preset" : "assumed", in->source);
}

/* The kinds of layer the profile has that run below gemm_eff and mem_eff (model.h nvs_compute_terms), each once,
 * with the layers that pay it: why those layers take longer than their FLOPs and bytes say */
static void add_layer_terms(term *t, int *n, const nvs_model_config *c)
{
    const nvs_profile *p = c->profile;
    int lns = 0, perms = 0, unaligned = 0, first = -1;
    for (int l = 0; p && l < p->nlayers; l++) {
        const nvs_layer *ly = &p->layers[l];
        lns += ly->ln_passes > 0;
        perms += ly->perm_passes > 0;
        if (nvs_gemm_unaligned(ly, c->prec) && unaligned++ == 0) first = l;
    }
    char src[sizeof t->source];
    if (lns && c->ct.ln_eff > 0) {
        snprintf(src, sizeof src,
                 "model default: %d LayerNorm%s (ln=) in PyTorch's kernels, 2 accesses forward and 5 backward at this "
                 "share of the peak bandwidth (lm290m's on H200, results/h200x1-tfm-census9; src/model/model.c)", lns,
                 lns > 1 ? "s" : "");
        add(t, n, "ln_eff", c->ct.ln_eff, "", "default", src);
    }
    if (perms && c->fw && c->fw->view_copies && c->ct.view_copy_eff > 0) {
        snprintf(src, sizeof src,
                 "model default: %d layer%s' copies through a view (perm=), element by element as PyTorch copies a "
                 "non-contiguous tensor (lm290m's on H200, results/h200x1-tfm-census9; src/model/model.c)", perms,
                 perms > 1 ? "s" : "");
        add(t, n, "view_copy_eff", c->ct.view_copy_eff, "", "default", src);
    }
    if (unaligned && c->ct.gemm_unaligned_eff > 0) {
        const nvs_layer *ly = &p->layers[first];
        snprintf(src, sizeof src,
                 "model default: %d GEMM layer%s (%.48s: N %.0f, K %.0f) on rows off 16 bytes at 16 bits, in "
                 "cuBLAS's less-aligned kernels (BERT's decoder on H200, results/h200x1-tfm-census6); widths padded "
                 "to a multiple of 8 run at gemm_eff",
                 unaligned, unaligned > 1 ? "s" : "", ly->name, ly->gemm_n, ly->gemm_k);
        add(t, n, "gemm_unaligned_eff", c->ct.gemm_unaligned_eff, "", "default", src);
    }
}

static int build_terms(const nvs_presets *ps, const nvs_model_series *s, term *t)
{
    int n = 0;
    const nvs_model_config *c = &s->cfg;
    const nvs_preset *gp = nvs_presets_find(ps, NVS_PK_GPU, c->gpu.id);
    const nvs_preset *mp = nvs_presets_find(ps, NVS_PK_MACHINE, c->machine.id);
    const nvs_preset *np = c->has_net ? nvs_presets_find(ps, NVS_PK_NET, c->net.id) : NULL;
    int rate = c->prec == NVS_PREC_TF32 ? NVS_G_TF32_TFLOPS
               : nvs_precision_info_of(c->prec)->half ? NVS_G_BF16_TFLOPS /* bf16, fp16: 16-bit tensor rate */
                                                      : NVS_G_FP32_TFLOPS;
    add_preset(t, &n, gp, rate, "TFLOP/s");
    add_preset(t, &n, gp, NVS_G_MEM_GBPS, "GB/s");
    if (c->batch_is_max) add_preset(t, &n, gp, NVS_G_MEMORY_BYTES, "bytes");
    add_preset(t, &n, gp, NVS_G_P2P_PCIE, "");
    if (c->machine.nvlink != NVS_NVLINK_NONE && c->gpu.nvlink_links > 0) {
        add_preset(t, &n, gp, NVS_G_NVLINK_LINKS, "");
        add_preset(t, &n, gp, NVS_G_NVLINK_GBPS, "GB/s");
    }
    add(t, &n, "gemm_eff", c->ct.gemm_eff, "", "default", "model default: 70% of the peak matrix rate (src/model/model.c)");
    add(t, &n, "mem_eff", c->ct.mem_eff, "", "default", "model default: 80% of the peak memory bandwidth (src/model/model.c)");
    int convs = 0, norms = 0;
    for (int l = 0; c->profile && l < c->profile->nlayers; l++) {
        convs += c->profile->layers[l].conv && c->profile->layers[l].gemm_m > 0;
        norms += c->profile->layers[l].bn_passes > 0;
    }
    if (convs && c->ct.conv_eff > 0)
        add(t, &n, "conv_eff", c->ct.conv_eff, "", "default",
            "model default: cuDNN's convolutions at 52% of the peak matrix rate (ResNet-50 on H200, "
            "results/h200x1-census-b64; src/model/model.c)");
    if (norms && nvs_bn_in_cudnn(c->prec) && c->ct.bn_cudnn_eff > 0)
        add(t, &n, "bn_cudnn_eff", c->ct.bn_cudnn_eff, "", "default",
            "model default: cuDNN's batch norm moves elements at 44.5% of the peak bandwidth in 4-byte units "
            "(results/h200x1-census; src/model/model.c)");
    if (norms && !nvs_bn_in_cudnn(c->prec) && c->ct.bn_own_eff > 0)
        add(t, &n, "bn_own_eff", c->ct.bn_own_eff, "", "default",
            "model default: PyTorch's own batch-norm kernels (bf16) at 31% of the peak bandwidth in 4-byte units "
            "(results/h200x1-census-fp16; src/model/model.c)");
    add_layer_terms(t, &n, c);
    /* the N whose compute-only step the scale came from: 1, or the smallest measured where the run has none at 1
     * (it read "at 1 GPU" for a --gpus 2,4 run) */
    char at[64], csrc[224];
    snprintf(at, sizeof at, c->compute_measured > 1 ? "at %d GPUs (none measured at 1)" : "at 1 GPU",
             c->compute_measured);
    if (c->compute_host_bound)
        snprintf(csrc, sizeof csrc, "1: not measured: the run's compute-only step %s is no longer than the "
                                    "framework's host work alone, so it does not say how fast the GPU is", at);
    else if (c->compute_measured)
        snprintf(csrc, sizeof csrc, "measured compute-only step %s / modelled%s", at,
                 c->compute_measured > 1 ? " at 1 GPU" : "");
    else
        snprintf(csrc, sizeof csrc, "1: no measurement");
    add(t, &n, "compute_scale", c->ct.compute_scale, "",
        c->compute_measured && !c->compute_host_bound ? "measured" : "default", csrc);
    if (c->fw) {
        char name[96];
        snprintf(name, sizeof name, "%s.host_us_per_op", c->fw->name);
        add(t, &n, name, c->fw->host_us_per_op, "us", "framework", c->fw->source);
        snprintf(name, sizeof name, "%s.reducer_us_per_bucket", c->fw->name);
        add(t, &n, name, c->fw->reducer_us_per_bucket, "us", "framework", c->fw->source);
        if (c->fw->optimizer_host_per_tensor) {
            snprintf(name, sizeof name, "%s.optimizer_host_us_per_tensor", c->fw->name);
            add(t, &n, name, nvs_framework_optimizer_us_per_tensor(c->fw, c->opt, nvs_model_opt_foreach(c)), "us", "measured",
                "torch.optim's host time per parameter tensor for this optimizer, its dispatch included: "
                "tools/device/optim_host.py on an H100 VM (results/fidelity/optim-host.md; src/workload/optimizer.c)");
        }
        if (norms && c->fw->broadcast_buffers) {
            snprintf(name, sizeof name, "%s.host_us_per_buffer_op", c->fw->name);
            add(t, &n, name, c->fw->host_us_per_buffer_op, "us", "framework",
                "DDP's buffer broadcast before the forward of a step that all-reduces, an operation per buffer and per "
                "dtype two: PyTorch's "
                "step with and without broadcast_buffers (results/h200x1-buffers*; src/workload/framework.c)");
        }
        if (convs && c->fw->host_us_per_conv_call > 0) {
            snprintf(name, sizeof name, "%s.host_us_per_conv_call", c->fw->name);
            add(t, &n, name, c->fw->host_us_per_conv_call, "us", "framework",
                "cuDNN's host work per convolution executed (forward, input and weight gradient): ResNet-50's issue "
                "time in PyTorch's plain step at fp32 and bf16, 179 records, less its operations' "
                "(docs/fidelity.md; src/workload/framework.c)");
        }
    }
    int max_gpn = 0;
    for (int i = 0; i < s->npts; i++)
        if (s->pts[i].gpn > max_gpn) max_gpn = s->pts[i].gpn;
    if (mp && max_gpn >= 2) {
        add_preset(t, &n, mp, NVS_M_GPU_LINK_GBPS, "GB/s");
        if (c->machine.gpus_per_switch > 0) add_preset(t, &n, mp, NVS_M_UPLINK_GBPS, "GB/s");
        if (c->machine.sockets > 1) add_preset(t, &n, mp, NVS_M_SOCKET_GBPS, "GB/s");
        add_preset(t, &n, mp, NVS_M_SHM_GBPS, "GB/s");
        if (c->machine.nvlink != NVS_NVLINK_NONE) {
            add_preset(t, &n, mp, NVS_M_NVLINK_EFF, "");
            add_preset(t, &n, mp, NVS_M_NVLINK_HOP_US, "us");
        }
        add_preset(t, &n, mp, NVS_M_P2P_HOP_US, "us");
        add_preset(t, &n, mp, NVS_M_SHM_HOP_US, "us");
        if (c->shm_disabled) {
            add_preset(t, &n, mp, NVS_M_NET_LOCAL_GBPS, "GB/s");
            add_preset(t, &n, mp, NVS_M_NET_LOCAL_HOP_US, "us");
        }
        add_preset(t, &n, mp, NVS_M_COLL_BASE_US, "us");
        /* NVLink SHARP where the algorithm may use it: the machine's number, or why the GPU changes it */
        nvs_algo a = c->algo;
        if (c->machine.nvls_gbps > 0 &&
            (a == NVS_ALGO_NVLS || a == NVS_ALGO_NVLSTREE || a == NVS_ALGO_AUTO || a == NVS_ALGO_COLLNET)) {
            int capped = 0;
            double v = nvs_nvls_gbps(&c->machine, &c->gpu, &capped);
            char src[NVS_PRESET_SRC_LEN + 64], why[256];
            if (v > 0 && !capped) {
                add_preset(t, &n, mp, NVS_M_NVLS_GBPS, "GB/s");
            } else if (v > 0) {
                snprintf(src, sizeof src,
                         "%s's own NVLink: %d links x %.4g GB/s x nvlink_eff %.3g, below %s's %.4g (NVLS moves each "
                         "GPU's buffer in and its sum out over its links)",
                         c->gpu.id, c->gpu.nvlink_links, c->gpu.nvlink_gbps_per_link, c->machine.nvlink_eff,
                         c->machine.id, c->machine.nvls_gbps);
                add(t, &n, "nvls_gbps", v, "GB/s", "preset", src);
            } else {
                nvs_gpu_nvls(&c->gpu, why, sizeof why);
                snprintf(src, sizeof src, "not modelled (%s has %.4g): %s", c->machine.id, c->machine.nvls_gbps, why);
                add(t, &n, "nvls_gbps", 0, "GB/s", "preset", src);
            }
        }
    }
    for (int i = 0; i < c->nmeas; i++) {
        char name[96], src[160];
        const int step = c->meas[i].from_step;
        if (step)
            snprintf(src, sizeof src, "the measured step's own all-reduces at %d GPUs, back to back", c->meas[i].n);
        else
            snprintf(src, sizeof src, "all_reduce sweep of the measured run at %d GPUs (fit)", c->meas[i].n);
        snprintf(name, sizeof name, "ring_busbw_gbps@n=%d", c->meas[i].n);
        add(t, &n, name, c->meas[i].gbps, "GB/s", "measured", src);
        snprintf(name, sizeof name, "ring_alpha_us@n=%d", c->meas[i].n);
        const char *origin = !step ? "measured" : c->meas[i].alpha_us > 0 ? "preset" : "default";
        add(t, &n, name, c->meas[i].alpha_us, "us", origin,
            step ? "the machine preset's hop latency, 0 over a NET the preset does not describe or without one (one "
                   "comm time does not separate latency from bandwidth)"
                 : src);
    }
    if (c->host_scale_measured)
        add(t, &n, "host_scale", c->host_scale, "", "measured",
            "the run's issue time of its step at 1 GPU (its host's own time) / the framework's modelled host work");
    add(t, &n, "per_call_us", c->per_call_us, "us", c->per_call_measured ? "measured" : "default",
        c->per_call_measured ? "measured comm-only time per bucket minus the fitted all_reduce curve" : "0: no measurement");
    if (c->overlap_penalty >= 0) {
        add(t, &n, "overlap_penalty", c->overlap_penalty, "", c->overlap_measured ? "measured" : "set",
            c->overlap_measured == 2 ? "interference measured by the run (compute slowed beside the all-reduces) / "
                                       "the time the model's GPU computes beside them"
            : c->overlap_measured    ? "measured step vs the schedule / the time the model's GPU computes beside "
                                       "the all-reduces"
                                     : "given (--overlap-penalty, or the Lambda case's fit): the same share at every N");
    } else {
        /* by transport: one term per transport the rows all-reduce over (model/interference.h); where no row
         * crosses a link (one GPU), every transport's, for what a projection would pay */
        int seen = 0, any = 0;
        for (int i = 0; i < s->npts; i++) any |= s->pts[i].n > 1;
        for (int i = 0; any && i < s->npts; i++)
            if (s->pts[i].n > 1 && s->pts[i].nbuckets > 0) add_share(t, &n, s->pts[i].share_transport, &seen);
        for (int tr = NVS_TR_NVLINK; !any && tr <= NVS_TR_NET; tr++) add_share(t, &n, (nvs_transport)tr, &seen);
    }
    if (np) {
        add_preset(t, &n, np, NVS_N_GBPS, "GB/s");
        add_preset(t, &n, np, NVS_N_HOP_US, "us");
        if (mp) add_preset(t, &n, mp, NVS_M_NICS, "");
    }
    return n;
}

static void print_terms(FILE *f, const term *t, int n)
{
    fprintf(f, "  terms (value, origin, source):\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "    %-34s %12.6g %-8s %-8s %s\n", t[i].name, t[i].value, t[i].unit, t[i].origin, t[i].source);
}

/* --- helpers ------------------------------------------------------------------------------------------------------- */

static int jset(json_t *o, const char *k, json_t *v)
{
    if (!o || !v) {
        json_decref(v);
        return 1;
    }
    return json_object_set_new(o, k, v) != 0;
}
static json_t *jnum(double v) { return nvs_rj_num(v); }
/* a byte count: a JSON integer (whole bytes, as run.json writes them), where a double holds it exactly (< 2^53);
 * null when not finite. The model's memory terms are products of counts and fractions (reserve, activations per
 * sample): rounded to the byte; a reader taking "bytes" for an integer read 25769803776.0 as a real */
static json_t *jbytes(double v)
{
    return isfinite(v) && fabs(v) < 9007199254740992.0 ? json_integer((json_int_t)llround(v)) : nvs_rj_num(v);
}
static int jpush(json_t *a, json_t *v)
{
    if (!a || !v) {
        json_decref(v);
        return 1;
    }
    return json_array_append_new(a, v) != 0;
}

json_t *nvs_model_json_envelope(const char *kind)
{
    json_t *o = json_object(), *tool = json_object();
    int bad = !o || !tool;
    bad |= jset(tool, "name", json_string("nvscale"));
    bad |= jset(tool, "version", json_string(NVS_VERSION));
    bad |= jset(o, "schema", json_string(NVS_MODEL_SCHEMA));
    bad |= jset(o, "tool", tool);
    bad |= jset(o, "kind", json_string(kind));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *nvs_model_json_profile(const nvs_profile *p)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= jset(o, "name", json_string(p->name));
    bad |= jset(o, "source", json_string(p->source));
    /* a count: an integer, as run.json's train.params (the profile's params= are whole numbers); it was written
     * as a real (25557032.0). Readers (report, tools) take any JSON number. */
    bad |= jset(o, "params", json_integer((json_int_t)llround(p->total_params)));
    bad |= jset(o, "fwd_gflops_per_sample", json_real(p->fwd_flops_per_sample / 1e9));
    bad |= jset(o, "layers", json_integer(p->nlayers));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static const char *batch_how(const nvs_model_config *c) { return c->batch_is_max ? "max" : "user"; }

/* --- projections ------------------------------------------------------------------------------------------------ */

static void print_one(FILE *f, const nvs_presets *ps, const nvs_model_series *s)
{
    const nvs_model_config *c = &s->cfg;
    /* an algorithm asked for that some rows cannot run falls back (model.h nvs_allreduce_us): the header says so,
     * rather than naming an algorithm the rows do not use */
    int fell_back = 0;
    for (int i = 0; c->algo != NVS_ALGO_AUTO && i < s->npts; i++)
        fell_back |= s->pts[i].n > 1 && s->pts[i].algo_used != c->algo;
    /* the optimizer named where it is not the default SGD (the default's line unchanged) */
    fprintf(f, "%s: %s, %s%s, %s all-reduce%s%s, batch %d per GPU", c->label, c->profile->name,
            nvs_precision_name(c->prec), c->opt == NVS_OPT_ADAMW ? ", AdamW optimizer" : "", nvs_algo_name(c->algo),
            fell_back ? " asked (where the machine cannot run it, the ring: the algo column)" : "",
            c->p2p_disabled && c->shm_disabled ? " (P2P and SHM disabled: NET)"
            : c->p2p_disabled                   ? " (P2P disabled)"
            : c->shm_disabled                   ? " (SHM disabled)"
                                                : "",
            c->batch);
    double fixed = s->mem.weights_bytes + s->mem.grads_bytes + s->mem.buckets_bytes + s->mem.optimizer_bytes +
                   s->mem.reserve_bytes;
    /* a batch the cap decided is not "the largest that fits": the memory holds more (model.h NVS_MODEL_MAX_BATCH) */
    if (c->batch_is_max && s->mem.batch_capped && s->mem.per_sample_bytes > 0)
        fprintf(f, " (capped: the model's limit is %d; the memory estimate allows %.3g in %.1f GB: %.2f GB fixed + "
                   "%.3f MB per sample)",
                NVS_MODEL_MAX_BATCH, s->mem.fit_batch, c->gpu.memory_bytes / 1e9, fixed / 1e9,
                s->mem.per_sample_bytes / 1e6);
    else if (c->batch_is_max && s->mem.batch_capped)
        fprintf(f, " (capped: the model's limit is %d; nothing in the memory estimate grows with the batch: "
                   "%.2f GB fixed of %.1f GB)",
                NVS_MODEL_MAX_BATCH, fixed / 1e9, c->gpu.memory_bytes / 1e9);
    else if (c->batch_is_max)
        fprintf(f, " (the largest that fits %.1f GB: %.2f GB fixed + %.1f MB per sample)", c->gpu.memory_bytes / 1e9,
                fixed / 1e9, s->mem.per_sample_bytes / 1e6);
    fprintf(f, "\n");
    if (c->fw && (c->fw->host_us_per_op > 0 || c->fw->reducer_us_per_bucket > 0))
        fprintf(f, "  as %s: host_ms is the framework's host work per step (the GPU waits for it where it is\n"
                   "  longer: a host-bound step); reducer_ms its reducer's cost at any N (--framework ideal: none)\n",
                c->fw->name);
    /* the wait for the slowest rank (--step-cv) is a part of the step like the others: without its column the
     * parts did not add up to step_ms; shown where some row waits, so tables without --step-cv keep their shape */
    int sync = 0;
    for (int i = 0; i < s->npts; i++) sync |= s->pts[i].t.sync_us > 0;
    fprintf(f, "  %6s %12s %10s %11s %10s %9s %11s %9s", "N", "nodes x gpn", "step_ms", "compute_ms", "reducer_ms",
            "comm_ms", "exposed_ms", "interf_ms");
    if (sync) fprintf(f, " %9s", "sync_ms");
    fprintf(f, " %8s %7s %11s %15s  %s\n", "host_ms", "eff_%", "samples/s", "busbw_GB/s algo", "bottleneck");
    for (int i = 0; i < s->npts; i++) {
        const nvs_model_point *p = &s->pts[i];
        char shape[32], bw[24];
        snprintf(shape, sizeof shape, "%d x %d", p->nodes, p->gpn);
        if (p->n <= 1 || !(p->allreduce_busbw > 0))
            snprintf(bw, sizeof bw, "-");
        else
            snprintf(bw, sizeof bw, "%.3g %s%s", p->allreduce_busbw, nvs_algo_name(p->algo_used),
                     p->link_measured ? " m" : "");
        fprintf(f, "  %6d %12s %10.2f %11.2f %10.2f %9.2f %11.2f %9.2f", p->n, shape, p->t.step_us / 1e3,
                p->t.compute_us / 1e3, p->t.reducer_us / 1e3, p->t.comm_us / 1e3, p->t.exposed_us / 1e3,
                p->t.penalty_us / 1e3);
        if (sync) fprintf(f, " %9.2f", p->t.sync_us / 1e3);
        fprintf(f, " %8.2f %7.1f %11.1f %15s  %s\n", p->t.host_us / 1e3, 100 * p->efficiency, p->samples_per_s, bw,
                p->bottleneck);
    }
    term t[MAX_TERMS];
    int nt = build_terms(ps, s, t);
    print_terms(f, t, nt);
}

/* Series s's point at N, or NULL */
static const nvs_model_point *point_at(const nvs_model_series *s, int n)
{
    for (int k = 0; k < s->npts; k++)
        if (s->pts[k].n == n) return &s->pts[k];
    return NULL;
}

/* The smallest N above `after` that any of the ns series has, or 0 */
static int next_n(const nvs_model_series *s, int ns, int after)
{
    int best = 0;
    for (int i = 0; i < ns; i++)
        for (int k = 0; k < s[i].npts; k++)
            if (s[i].pts[k].n > after && (!best || s[i].pts[k].n < best)) best = s[i].pts[k].n;
    return best;
}

void nvs_model_print_series(FILE *f, const nvs_presets *ps, const nvs_model_series *s, int ns, const nvs_gap *gap,
                            int gap_n)
{
    fprintf(f, "nvscale model: data-parallel step of %s (%s); efficiency = step(1)/step(N) at a fixed per-GPU batch\n"
               "comm_ms: the buckets' all-reduces back to back; exposed_ms: what overlap with backward does not hide;"
               "\ninterf_ms: interference, what the compute and the all-reduces beside it cost each other (a share"
               " of the time the GPU computes while they run, per transport: the terms); 'm' = measured link\n",
            s[0].cfg.profile->name, s[0].cfg.profile->source);
    int sync = 0;
    for (int i = 0; i < ns; i++)
        for (int k = 0; k < s[i].npts; k++) sync |= s[i].pts[k].t.sync_us > 0;
    if (sync)
        fprintf(f, "sync_ms: waiting for the slowest rank (--step-cv); step = compute + reducer + exposed + interf + "
                   "sync\n");
    fprintf(f, "\n");
    for (int i = 0; i < ns; i++) {
        print_one(f, ps, &s[i]);
        fprintf(f, "\n");
    }
    if (ns > 1) {
        fprintf(f, "efficiency %% side by side\n  %6s", "N");
        for (int i = 0; i < ns; i++) fprintf(f, "  %-34.34s", s[i].cfg.label);
        fprintf(f, "\n");
        /* a row per N any configuration has, in increasing order, each cell that configuration's point at that N:
         * machines of different GPU counts have different N (--nodes 1,2: 4, 8 and 8, 16), so rows are matched by
         * N, never by position */
        for (int n = next_n(s, ns, 0); n > 0; n = next_n(s, ns, n)) {
            fprintf(f, "  %6d", n);
            for (int i = 0; i < ns; i++) {
                const nvs_model_point *p = point_at(&s[i], n);
                if (p)
                    fprintf(f, "  %-34.1f", 100 * p->efficiency);
                else
                    fprintf(f, "  %-34s", "-");
            }
            fprintf(f, "\n");
        }
        fprintf(f, "\n");
    }
    if (gap) {
        /* the gap as the two efficiencies read (one decimal each): 99.63 vs 98.37 read "99.6% vs 98.4% (gap +1.3
         * points)"; the JSON keeps the exact one */
        double eb = round(1000 * gap->eff_b) / 10, ea = round(1000 * gap->eff_a) / 10;
        fprintf(f, "why %s scales %s than %s at %d GPUs: efficiency %.1f%% vs %.1f%% (gap %+.1f points)\n",
                s[1].cfg.gpu.id, gap->gap >= 0 ? "better" : "worse", s[0].cfg.gpu.id, gap_n, eb, ea,
                nvs_model_pct1(eb - ea));
        for (int i = 0; i < NVS_CAUSE_COUNT; i++)
            fprintf(f, "  %-16s %+6.1f points\n", nvs_cause_name(i), 100 * gap->share[i]);
        fprintf(f, "  cause: %s\n", gap->cause >= 0 ? nvs_cause_name(gap->cause) : "none (gap under 0.5 points)");
    }
}

static json_t *json_terms(const nvs_presets *ps, const nvs_model_series *s)
{
    term t[MAX_TERMS];
    int nt = build_terms(ps, s, t), bad = 0;
    json_t *a = json_array();
    for (int i = 0; i < nt && a; i++) {
        json_t *o = json_object();
        bad |= jset(o, "name", json_string(t[i].name));
        bad |= jset(o, "value", jnum(t[i].value));
        bad |= jset(o, "unit", json_string(t[i].unit));
        bad |= jset(o, "origin", json_string(t[i].origin));
        bad |= jset(o, "source", json_string(t[i].source));
        bad |= jpush(a, o);
    }
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

json_t *nvs_model_json_gap(const nvs_gap *g)
{
    json_t *o = json_object(), *sh = json_object();
    int bad = !o || !sh;
    bad |= jset(o, "eff_a", jnum(g->eff_a));
    bad |= jset(o, "eff_b", jnum(g->eff_b));
    bad |= jset(o, "gap", jnum(g->gap));
    for (int i = 0; i < NVS_CAUSE_COUNT; i++) bad |= jset(sh, nvs_cause_key(i), jnum(g->share[i]));
    bad |= jset(o, "shares", sh);
    bad |= jset(o, "cause", g->cause >= 0 ? json_string(nvs_cause_key(g->cause)) : json_null());
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *json_series_one(const nvs_presets *ps, const nvs_model_series *s)
{
    const nvs_model_config *c = &s->cfg;
    json_t *o = json_object(), *pts = json_array(), *mem = json_object();
    int bad = !o || !pts || !mem;
    bad |= jset(o, "label", json_string(c->label));
    bad |= jset(o, "gpu", json_string(c->gpu.id));
    bad |= jset(o, "machine", json_string(c->machine.id));
    bad |= jset(o, "net", c->has_net ? json_string(c->net.id) : json_null());
    bad |= jset(o, "precision", json_string(nvs_precision_name(c->prec)));
    bad |= jset(o, "framework", json_string(c->fw ? c->fw->name : "ideal"));
    bad |= jset(o, "optimizer", json_string(nvs_optimizer_name(c->opt)));
    /* which update it assumed: one fused pass (adamw-fused, or under ideal) or the framework's foreach passes, as
     * run.json's train.optimizer_fused says which ran (model_calib.c reads it) */
    bad |= jset(o, "optimizer_fused", json_boolean(!nvs_model_opt_foreach(c)));
    /* element size and bucket sizes are whole bytes, integers as in run.json (were 4.0, 1048576.0) */
    bad |= jset(o, "grad_bytes", json_integer((json_int_t)llround(c->grad_bytes)));
    bad |= jset(o, "algo", json_string(nvs_algo_name(c->algo)));
    bad |= jset(o, "p2p_disabled", json_boolean(c->p2p_disabled));
    bad |= jset(o, "shm_disabled", json_boolean(c->shm_disabled));
    bad |= jset(o, "batch", json_integer(c->batch));
    bad |= jset(o, "batch_source", json_string(batch_how(c)));
    bad |= jset(o, "bucket_first_bytes", json_integer((json_int_t)llround(c->bucket_first_bytes)));
    bad |= jset(o, "bucket_cap_bytes", json_integer((json_int_t)llround(c->bucket_cap_bytes)));
    bad |= jset(mem, "memory_bytes", json_integer((json_int_t)llround(c->gpu.memory_bytes))); /* whole bytes */
    bad |= jset(mem, "weights_bytes", jbytes(s->mem.weights_bytes));
    bad |= jset(mem, "grads_bytes", jbytes(s->mem.grads_bytes));
    bad |= jset(mem, "buckets_bytes", jbytes(s->mem.buckets_bytes));
    bad |= jset(mem, "optimizer_bytes", jbytes(s->mem.optimizer_bytes));
    bad |= jset(mem, "reserve_bytes", jbytes(s->mem.reserve_bytes));
    bad |= jset(mem, "per_sample_bytes", jbytes(s->mem.per_sample_bytes));
    bad |= jset(mem, "max_batch", json_integer(s->mem.max_batch));
    bad |= jset(mem, "max_batch_capped", json_boolean(s->mem.batch_capped));
    bad |= jset(o, "memory", mem);
    bad |= jset(o, "terms", json_terms(ps, s));
    for (int i = 0; i < s->npts && !bad; i++) {
        const nvs_model_point *p = &s->pts[i];
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(p->n));
        bad |= jset(x, "nodes", json_integer(p->nodes));
        bad |= jset(x, "gpus_per_node", json_integer(p->gpn));
        bad |= jset(x, "step_us", jnum(p->t.step_us));
        bad |= jset(x, "compute_us", jnum(p->t.compute_us));
        bad |= jset(x, "comm_us", jnum(p->t.comm_us));
        bad |= jset(x, "exposed_comm_us", jnum(p->t.exposed_us));
        bad |= jset(x, "interference_us", jnum(p->t.penalty_us));
        /* nothing all-reduced (one GPU, dp none, no trainable parameters): no algorithm ran, no link was crossed and
         * no all-reduce ran beside the compute: no algorithm, bus bandwidth, transport, link class or interference
         * share, as the table's '-' (were "ring", 0, "NVLink", "NV", the ring's busbw and a 0 share) */
        int reduced = p->n > 1 && p->nbuckets > 0;
        bad |= jset(x, "interference_share", reduced ? jnum(p->interference_share) : json_null());
        /* waiting for the slowest rank (--step-cv): step_us = compute + reducer + exposed + interference + sync */
        bad |= jset(x, "sync_us", jnum(p->t.sync_us));
        bad |= jset(x, "reducer_us", jnum(p->t.reducer_us));
        bad |= jset(x, "host_us", jnum(p->t.host_us));
        bad |= jset(x, "efficiency", jnum(p->efficiency));
        bad |= jset(x, "samples_per_s", jnum(p->samples_per_s));
        bad |= jset(x, "buckets", json_integer(p->nbuckets));
        bad |= jset(x, "algo", reduced ? json_string(nvs_algo_name(p->algo_used)) : json_null());
        bad |= jset(x, "busbw_gbps", reduced && p->gpn >= 2 ? jnum(p->intra_gbps) : json_null());
        bad |= jset(x, "inter_gbps", reduced && p->nodes > 1 ? jnum(p->inter_gbps) : json_null());
        bad |= jset(x, "allreduce_busbw_gbps", reduced ? jnum(p->allreduce_busbw) : json_null());
        bad |= jset(x, "transport", reduced ? json_string(nvs_transport_name(p->transport)) : json_null());
        bad |= jset(x, "class", reduced && p->cls >= 0 && p->transport != NVS_TR_NET
                                    ? json_string(nvs_class_name(p->cls)) : json_null());
        bad |= jset(x, "link_measured", json_boolean(p->link_measured));
        bad |= jset(x, "bottleneck", json_string(p->bottleneck));
        bad |= jpush(pts, x);
    }
    bad |= jset(o, "points", pts);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *nvs_model_json_series(const nvs_presets *ps, const nvs_model_series *s, int ns, const nvs_gap *gap,
                              int gap_n)
{
    json_t *o = nvs_model_json_envelope("projection"), *cfgs = json_array();
    int bad = !o || !cfgs;
    bad |= jset(o, "model", nvs_model_json_profile(s[0].cfg.profile));
    for (int i = 0; i < ns && !bad; i++) bad |= jpush(cfgs, json_series_one(ps, &s[i]));
    bad |= jset(o, "configurations", cfgs);
    if (gap && !bad) {
        json_t *g = nvs_model_json_gap(gap);
        bad |= jset(g, "n", json_integer(gap_n));
        bad |= jset(g, "a", json_string(s[0].cfg.label));
        bad |= jset(g, "b", json_string(s[1].cfg.label));
        bad |= jset(o, "gap", g);
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* --- calibration ------------------------------------------------------------------------------------------------------ */

static double pct_err(double model, double meas)
{
    return (meas > 0 && isfinite(model)) ? 100.0 * (model - meas) / meas : NAN;
}

double nvs_model_pct1(double pct) { return fabs(pct) < 0.05 ? 0.0 : pct; }

static void fmt_pct(char *buf, size_t len, double v)
{
    if (isfinite(v))
        snprintf(buf, len, "%+.1f", nvs_model_pct1(v));
    else
        snprintf(buf, len, "-");
}

static void fmt_size(char *buf, size_t len, double b)
{
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (k < 4 && b >= 1024 && fmod(b, 1024) == 0) {
        b /= 1024;
        k++;
    }
    snprintf(buf, len, "%.0f %s", b, u[k]);
}

void nvs_model_print_calibration(FILE *f, const nvs_presets *ps, const nvs_calibration *c)
{
    /* the path and what the run.json says are shown, never interpreted by the terminal (core/escape.h) */
    char e1[NVS_ESC_SIZE(sizeof c->run_path)], e2[NVS_ESC_SIZE(sizeof c->gpu_name)],
        e3[NVS_ESC_SIZE(sizeof c->machine_how)];
    fprintf(f, "nvscale model --calibrate %s\n", nvs_esc_term(c->run_path, e1, sizeof e1));
    fprintf(f, "  GPU: %s -> preset %s; machine preset: %s (%s)%s\n\n", nvs_esc_term(c->gpu_name, e2, sizeof e2),
            c->gpu_preset, c->machine_preset[0] ? c->machine_preset : "none",
            nvs_esc_term(c->machine_how, e3, sizeof e3),
            c->p2p_env ? "; NCCL_P2P_DISABLE=1 in the run" : c->p2p_disabled ? "; its rings ran SHM, without P2P" : "");
    if (c->ntr > 0) {
        /* the transport label comes from the run.json: escaped like the rest of what it says */
        fprintf(f, "  NCCL's transports in the run (its INIT log):");
        for (int i = 0; i < c->ntr; i++) {
            char e4[NVS_ESC_SIZE(sizeof c->tr[i].label)];
            fprintf(f, "%s N=%d %s", i ? "," : "", c->tr[i].n, nvs_esc_term(c->tr[i].label, e4, sizeof e4));
        }
        fprintf(f, "\n");
        /* CollNet: the switches reduce (model.h, NVS_ALGO_COLLNET); a ring fit says nothing of a bound of its own,
         * and the model has none to give: said, not invented */
        for (int i = 0; i < c->ntr; i++)
            if (c->tr[i].collnet)
                fprintf(f, "  at N=%d NCCL also used CollNet (in-network reduction through the network plugin, e.g. "
                           "SHARP): the link measured there includes it; the model has no bound of its own for "
                           "CollNet (its collnet algorithm, --algo collnet, is bounded by the network preset's "
                           "bandwidth), so no preset figure describes that N's reduction\n",
                        c->tr[i].n);
        for (int i = 0; i < c->ntr; i++) {
            if (!c->tr[i].net) continue;
            int linked = 0;
            for (int k = 0; k < c->nlinks; k++) linked |= c->links[k].n == c->tr[i].n;
            if (c->net_local && c->cfg.machine.net_local_gbps > 0) {
                fprintf(f, "  at N=%d NCCL went through its network transport between GPUs of one host (hosts told "
                           "apart, e.g. NCCL_HOSTID, or P2P and SHM disabled): the node's own sockets, which the "
                           "preset columns take from %s's net_local_gbps (%.3g GB/s)\n",
                        c->tr[i].n, c->machine_preset, c->cfg.machine.net_local_gbps);
                continue;
            }
            /* across hosts NET is the network between the nodes; on one host, ranks NCCL took for several */
            char where[96];
            if (c->tr[i].hosts > 1)
                snprintf(where, sizeof where, "between the %d hosts its ranks were on", c->tr[i].hosts);
            else
                snprintf(where, sizeof where, "between GPUs of one node (hosts told apart, e.g. NCCL_HOSTID)");
            fprintf(f, "  at N=%d NCCL went through its network transport %s: no machine preset describes that path, "
                       "so the preset columns are empty there and %s\n",
                    c->tr[i].n, where, linked ? "the model takes the measured link"
                                       : "the run measured no link there (no all_reduce sweep, no comm time of its "
                                         "step): that N is not modelled");
        }
        fprintf(f, "\n");
    }
    if (c->nlinks > 0) {
        fprintf(f, "all_reduce link per N: T(S) = latency + 2(N-1)/N * S / busbw; from the run's sweep (relative least "
                   "squares), or from its training step's all-reduces back to back (ARs; latency: the preset's, 0 over "
                   "a NET it does not describe)\n");
        fprintf(f, "  %4s %12s %12s %12s %14s\n", "N", "from", "latency_us", "busbw_GB/s", "preset_GB/s");
        for (int i = 0; i < c->nlinks; i++) {
            char pg[24], from[24];
            if (isfinite(c->links[i].preset_gbps))
                snprintf(pg, sizeof pg, "%.4g", c->links[i].preset_gbps);
            else
                snprintf(pg, sizeof pg, "-");
            if (c->links[i].npts > 0)
                snprintf(from, sizeof from, "%d sizes", c->links[i].npts);
            else
                snprintf(from, sizeof from, "step, %d ARs", c->links[i].nbuckets);
            fprintf(f, "  %4d %12s %12.2f %12.4g %14s\n", c->links[i].n, from, c->links[i].latency_us,
                    c->links[i].busbw_gbps, pg);
        }
        fprintf(f, "\n");
    }
    if (c->ncoll > 0) {
        fprintf(f, "all_reduce time, model vs measured, per N and size (err = (model - measured) / measured)\n");
        fprintf(f, "  %4s %10s %13s %11s %7s %11s %8s\n", "N", "size", "measured_us", "fitted_us", "err_%", "preset_us",
                "err_%");
        for (int i = 0; i < c->ncoll; i++) {
            const nvs_calib_coll_row *r = &c->coll[i];
            char sz[32], e1[16], e2[16], pu[24];
            fmt_size(sz, sizeof sz, r->bytes);
            fmt_pct(e1, sizeof e1, pct_err(r->fit_us, r->measured_us));
            fmt_pct(e2, sizeof e2, pct_err(r->preset_us, r->measured_us));
            if (isfinite(r->preset_us))
                snprintf(pu, sizeof pu, "%.2f", r->preset_us);
            else
                snprintf(pu, sizeof pu, "-");
            fprintf(f, "  %4d %10s %13.2f %11.2f %7s %11s %8s\n", r->n, sz, r->measured_us, r->fit_us, e1, pu, e2);
        }
        fprintf(f, "\n");
    }
    if (c->has_train) {
        fprintf(f, "training step (%s, batch %d, %s), model vs measured per N\n", c->profile.name, c->cfg.batch,
                nvs_precision_name(c->cfg.prec));
        fprintf(f, "  %4s %12s %13s %7s %14s %7s %10s %10s %11s %11s %9s\n", "N", "meas_step_ms", "model_step_ms",
                "err_%", "preset_step_ms", "err_%", "meas_comm", "model_comm", "meas_eff_%", "model_eff_%",
                "preset_eff");
        for (int i = 0; i < c->ntrain; i++) {
            const nvs_calib_train_row *r = &c->train[i];
            char e1[16], e2[16], ps_[24], pe[16];
            fmt_pct(e1, sizeof e1, pct_err(r->model_step_us, r->meas_step_us));
            fmt_pct(e2, sizeof e2, pct_err(r->preset_step_us, r->meas_step_us));
            if (isfinite(r->preset_step_us)) {
                snprintf(ps_, sizeof ps_, "%.2f", r->preset_step_us / 1e3);
                snprintf(pe, sizeof pe, "%.1f", 100 * r->preset_efficiency);
            } else {
                snprintf(ps_, sizeof ps_, "-");
                snprintf(pe, sizeof pe, "-");
            }
            char ms[24], mc[24], me[16];
            /* a point of the run without its step time (run.json allows null): '-', as the JSON's null */
            if (isfinite(r->meas_step_us))
                snprintf(ms, sizeof ms, "%.2f", r->meas_step_us / 1e3);
            else
                snprintf(ms, sizeof ms, "-");
            if (isfinite(r->meas_comm_us) && r->n > 1)
                snprintf(mc, sizeof mc, "%.2f", r->meas_comm_us / 1e3);
            else
                snprintf(mc, sizeof mc, "-");
            if (isfinite(r->meas_efficiency))
                snprintf(me, sizeof me, "%.1f", 100 * r->meas_efficiency);
            else
                snprintf(me, sizeof me, "-");
            fprintf(f, "  %4d %12s %13.2f %7s %14s %7s %10s %10.2f %11s %11.1f %9s\n", r->n, ms, r->model_step_us / 1e3,
                    e1, ps_, e2, mc, r->model_comm_us / 1e3, me, 100 * r->model_efficiency, pe);
        }
        fprintf(f, "  (comm in ms; preset = the model with preset terms only, before calibration)\n");
        /* a measured N the model cannot evaluate: named with the reason, not dropped without a word */
        for (int i = 0; i < c->nskip; i++)
            fprintf(f, "  not modelled: N=%d (measured) is left out of the table: %s\n", c->skip[i].n, c->skip[i].why);
        /* a measured point above linear scaling beyond noise is not scaling: the reference step was slowed
         * (runjson/sanity.h); said, so that a model that misses it is not read as wrong there */
        for (int i = 0; i < c->ntrain; i++)
            if (c->train[i].meas_efficiency > 1 + NVS_SANITY_NOISE)
                fprintf(f, "  note: N=%d measured %.1f %% efficiency, above 100 %% by more than timing noise: the "
                           "run's reference step was slowed by something else, so that point is not scaling\n",
                        c->train[i].n, 100 * c->train[i].meas_efficiency);
        fprintf(f, "\n");
    }
    if (c->has_train) {
        nvs_model_series s = {c->cfg, {0}, NULL, 0};
        term t[MAX_TERMS];
        int nt = build_terms(ps, &s, t);
        fprintf(f, "calibrated configuration: %s\n", c->cfg.label);
        print_terms(f, t, nt);
    }
}

json_t *nvs_model_json_calibration(const nvs_presets *ps, const nvs_calibration *c)
{
    json_t *o = nvs_model_json_envelope("calibration"), *links = json_array(), *coll = json_array(),
           *train = json_array();
    int bad = !o || !links || !coll || !train;
    bad |= jset(o, "run", nvs_rj_text(c->run_path)); /* a path that is not UTF-8: its bytes \xNN, not a failure */
    bad |= jset(o, "gpu_name", json_string(c->gpu_name));
    bad |= jset(o, "gpu", json_string(c->gpu_preset));
    bad |= jset(o, "machine", c->machine_preset[0] ? json_string(c->machine_preset) : json_null());
    bad |= jset(o, "machine_how", json_string(c->machine_how));
    bad |= jset(o, "p2p_disabled", json_boolean(c->p2p_disabled));
    bad |= jset(o, "p2p_disabled_env", json_boolean(c->p2p_env));
    bad |= jset(o, "shm_disabled_env", json_boolean(c->shm_env));
    bad |= jset(o, "net_local", json_boolean(c->net_local));
    json_t *trs = json_array();
    bad |= !trs;
    for (int i = 0; i < c->ntr && !bad; i++) {
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(c->tr[i].n));
        bad |= jset(x, "transports", json_string(c->tr[i].label));
        bad |= jset(x, "net", json_boolean(c->tr[i].net));
        bad |= jset(x, "collnet", json_boolean(c->tr[i].collnet));
        bad |= jpush(trs, x);
    }
    bad |= jset(o, "nccl_transports", trs);
    for (int i = 0; i < c->nlinks && !bad; i++) {
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(c->links[i].n));
        bad |= jset(x, "from", json_string(c->links[i].npts > 0 ? "sweep" : "step"));
        bad |= jset(x, "sizes", json_integer(c->links[i].npts));
        bad |= jset(x, "buckets", json_integer(c->links[i].nbuckets));
        bad |= jset(x, "latency_us", jnum(c->links[i].latency_us));
        bad |= jset(x, "busbw_gbps", jnum(c->links[i].busbw_gbps));
        bad |= jset(x, "preset_busbw_gbps", jnum(c->links[i].preset_gbps));
        bad |= jpush(links, x);
    }
    bad |= jset(o, "links", links);
    for (int i = 0; i < c->ncoll && !bad; i++) {
        const nvs_calib_coll_row *r = &c->coll[i];
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(r->n));
        bad |= jset(x, "bytes", jbytes(r->bytes));
        bad |= jset(x, "measured_us", jnum(r->measured_us));
        bad |= jset(x, "fitted_us", jnum(r->fit_us));
        bad |= jset(x, "fitted_err_pct", jnum(pct_err(r->fit_us, r->measured_us)));
        bad |= jset(x, "preset_us", jnum(r->preset_us));
        bad |= jset(x, "preset_err_pct", jnum(pct_err(r->preset_us, r->measured_us)));
        bad |= jpush(coll, x);
    }
    bad |= jset(o, "all_reduce", coll);
    for (int i = 0; i < c->ntrain && !bad; i++) {
        const nvs_calib_train_row *r = &c->train[i];
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(r->n));
        bad |= jset(x, "measured_step_us", jnum(r->meas_step_us));
        bad |= jset(x, "model_step_us", jnum(r->model_step_us));
        bad |= jset(x, "step_err_pct", jnum(pct_err(r->model_step_us, r->meas_step_us)));
        bad |= jset(x, "measured_compute_us", jnum(r->meas_compute_us));
        bad |= jset(x, "model_compute_us", jnum(r->model_compute_us));
        bad |= jset(x, "measured_comm_us", jnum(r->meas_comm_us));
        bad |= jset(x, "model_comm_us", jnum(r->model_comm_us));
        bad |= jset(x, "comm_err_pct", jnum(pct_err(r->model_comm_us, r->meas_comm_us)));
        bad |= jset(x, "measured_exposed_comm_us", jnum(r->meas_exposed_us));
        bad |= jset(x, "model_exposed_comm_us", jnum(r->model_exposed_us));
        bad |= jset(x, "measured_efficiency", jnum(r->meas_efficiency));
        bad |= jset(x, "model_efficiency", jnum(r->model_efficiency));
        bad |= jset(x, "preset_step_us", jnum(r->preset_step_us));
        bad |= jset(x, "preset_step_err_pct", jnum(pct_err(r->preset_step_us, r->meas_step_us)));
        bad |= jset(x, "preset_efficiency", jnum(r->preset_efficiency));
        bad |= jpush(train, x);
    }
    bad |= jset(o, "train", train);
    if (c->nskip > 0 && !bad) { /* only where some N is left out: the key is absent otherwise */
        json_t *sk = json_array();
        bad |= !sk;
        for (int i = 0; i < c->nskip && !bad; i++) {
            json_t *x = json_object();
            bad |= jset(x, "n", json_integer(c->skip[i].n));
            bad |= jset(x, "why", json_string(c->skip[i].why));
            bad |= jpush(sk, x);
        }
        bad |= jset(o, "train_not_modelled", sk);
    }
    if (c->has_train && !bad) {
        nvs_model_series s = {c->cfg, {0}, NULL, 0};
        bad |= jset(o, "model", nvs_model_json_profile(&c->profile));
        bad |= jset(o, "terms", json_terms(ps, &s));
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* --- preset list ------------------------------------------------------------------------------------------------------- */

void nvs_model_print_presets(FILE *f, const nvs_presets *ps)
{
    fprintf(f, "GPUs (dense peaks; nvscale model --preset-file FILE adds or overrides presets)\n");
    fprintf(f, "  %-12s %-28s %8s %8s %8s %8s %8s %4s %s\n", "id", "name", "fp32_TF", "tf32_TF", "bf16_TF", "mem_GB/s",
            "mem_GB", "p2p", "nvlink");
    for (int i = 0; i < ps->kind[NVS_PK_GPU].n; i++) {
        const nvs_preset *p = &ps->kind[NVS_PK_GPU].v[i];
        char nv[48] = "-";
        if (p->f[NVS_G_NVLINK_LINKS].v > 0)
            snprintf(nv, sizeof nv, "gen%d x%d @ %.4g GB/s", (int)p->f[NVS_G_NVLINK_GEN].v,
                     (int)p->f[NVS_G_NVLINK_LINKS].v, p->f[NVS_G_NVLINK_GBPS].v);
        fprintf(f, "  %-12s %-28.28s %8.4g %8.4g %8.4g %8.4g %8.1f %4s %s\n", p->id, p->name,
                p->f[NVS_G_FP32_TFLOPS].v, p->f[NVS_G_TF32_TFLOPS].v, p->f[NVS_G_BF16_TFLOPS].v,
                p->f[NVS_G_MEM_GBPS].v, p->f[NVS_G_MEMORY_BYTES].v / 1e9, p->f[NVS_G_P2P_PCIE].v ? "yes" : "no", nv);
    }
    fprintf(f, "\nmachines (one node: GPUs, sockets, PCIe switches, NVLink)\n");
    for (int i = 0; i < ps->kind[NVS_PK_MACHINE].n; i++) {
        const nvs_preset *p = &ps->kind[NVS_PK_MACHINE].v[i];
        fprintf(f, "  %-24s %s\n", p->id, p->name);
    }
    fprintf(f, "\nnetworks (between nodes: --net)\n");
    for (int i = 0; i < ps->kind[NVS_PK_NET].n; i++) {
        const nvs_preset *p = &ps->kind[NVS_PK_NET].v[i];
        fprintf(f, "  %-12s %-36s %6.4g GB/s per adapter\n", p->id, p->name, p->f[NVS_N_GBPS].v);
    }
    fprintf(f, "\nEvery number's source: nvscale model --list-presets --format json\n");
}

json_t *nvs_model_json_presets(const nvs_presets *ps)
{
    static const char *const lists[NVS_PK_COUNT] = {"gpus", "machines", "networks"};
    static const int nfields[NVS_PK_COUNT] = {NVS_G_COUNT, NVS_M_COUNT, NVS_N_COUNT};
    json_t *o = nvs_model_json_envelope("presets");
    int bad = !o;
    for (int k = 0; k < NVS_PK_COUNT && !bad; k++) {
        json_t *a = json_array();
        for (int i = 0; i < ps->kind[k].n && !bad; i++) {
            const nvs_preset *p = &ps->kind[k].v[i];
            json_t *x = json_object(), *keys = json_object();
            bad |= jset(x, "id", json_string(p->id));
            bad |= jset(x, "name", json_string(p->name));
            if (k == NVS_PK_GPU) bad |= jset(x, "match", json_string(p->match));
            bad |= jset(x, "origin", json_string(p->origin));
            for (int fi = 0; fi < nfields[k] && !bad; fi++) {
                json_t *v = json_object();
                /* as the preset file writes it: counts and flags as integers (were 8.0), a choice by its name
                 * (were its index: "nvlink": 2.0, "cpu": 2.0), a byte count whole (at 10 digits a real wrote
                 * rtx3090's memory_bytes 25769803776 as 25769803780.0) */
                const char *name;
                int form = nvs_preset_value_form((nvs_preset_kind)k, fi, p->f[fi].v, &name);
                double fv = p->f[fi].v;
                int whole = form == NVS_PV_INTEGER || (k == NVS_PK_GPU && fi == NVS_G_MEMORY_BYTES);
                bad |= jset(v, "value", form == NVS_PV_NAME ? (name ? json_string(name) : json_null())
                                        : whole && isfinite(fv) ? json_integer((json_int_t)llround(fv))
                                                                 : jnum(fv));
                bad |= jset(v, "source", json_string(p->f[fi].src));
                bad |= jset(keys, nvs_preset_key_name((nvs_preset_kind)k, fi), v);
            }
            bad |= jset(x, "keys", keys);
            bad |= jpush(a, x);
        }
        bad |= jset(o, lists[k], a);
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
