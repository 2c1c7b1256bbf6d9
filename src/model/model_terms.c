/* The terms of a configuration in `nvscale model`'s output: every number the model used, its origin (preset,
 * measured, default) and its source, as text and JSON. */
#include <stdio.h>

#include "model/model_out_priv.h"
#include "workload/framework.h"

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
    add(t, &n, "gemm_eff", c->ct.gemm_eff, "", "default",
        "model default: 70% of the peak matrix rate (src/model/model.c)");
    add(t, &n, "mem_eff", c->ct.mem_eff, "", "default",
        "model default: 80% of the peak memory bandwidth (src/model/model.c)");
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
            add(t, &n, name, nvs_framework_optimizer_us_per_tensor(c->fw, c->opt, nvs_model_opt_foreach(c)), "us",
                "measured",
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
        c->per_call_measured ? "measured comm-only time per bucket minus the fitted all_reduce curve"
                             : "0: no measurement");
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

void nvs_mo_print_terms(FILE *f, const nvs_presets *ps, const nvs_model_series *s)
{
    term t[MAX_TERMS];
    int nt = build_terms(ps, s, t);
    print_terms(f, t, nt);
}

json_t *nvs_mo_json_terms(const nvs_presets *ps, const nvs_model_series *s)
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
