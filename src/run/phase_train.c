/* The training-step phase of the run flow: load the profile (rank 0 reads, everyone gets the layers), plan,
 * refuse what does not fit, then at every N time the full step, the compute-only step and the all-reduces
 * alone through the train layer's step driver; rank 0 assembles run.json's "train" section. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "core/cpu_work.h"
#include "core/log.h"
#include "core/metrics.h"
#include "run/phase_fail.h"
#include "run/phases.h"
#include "run/run.h"
#include "runjson/runjson_write.h"
#include "train/rounds.h"
#include "train/split.h"
#include "train/train.h"
#include "train/conv_cudnn.h"
#include "train/train_exec.h"

/* The profile's text travels from rank 0 so that a user's file need exist only where rank 0 runs. */
static nvs_result_t load_profile(nvs_ctx *run, const char *model, nvs_profile *p)
{
    char err[512] = "";
    nvs_result_t res = NVS_OK;
    if (run->rt->rank == 0) {
        res = nvs_profile_load(model, p, err, sizeof err);
        if (res != NVS_OK) nvs_error("%s", err);
    }
    double ok = res == NVS_OK;
    NVS_CHECK(nvs_allreduce_f64(run->rt, &ok, 1, NVS_RT_MIN, "loading the model profile"));
    if (!ok) return res != NVS_OK ? res : NVS_ERR_INPUT;
    /* ship the parsed layers: a fixed header and the layer array */
    struct {
        char name[64], source[256], sample[128];
        int default_batch, nlayers;
    } hdr;
    memset(&hdr, 0, sizeof hdr);
    if (run->rt->rank == 0) {
        memcpy(hdr.name, p->name, sizeof hdr.name);
        memcpy(hdr.source, p->source, sizeof hdr.source);
        memcpy(hdr.sample, p->sample, sizeof hdr.sample);
        hdr.default_batch = p->default_batch;
        hdr.nlayers = p->nlayers;
    }
    NVS_CHECK(nvs_bcast(run->rt, &hdr, sizeof hdr, 0, "model profile"));
    if (run->rt->rank != 0) {
        memset(p, 0, sizeof *p);
        memcpy(p->name, hdr.name, sizeof p->name);
        memcpy(p->source, hdr.source, sizeof p->source);
        memcpy(p->sample, hdr.sample, sizeof p->sample);
        p->default_batch = hdr.default_batch;
        p->nlayers = hdr.nlayers;
        p->layers = calloc((size_t)hdr.nlayers, sizeof *p->layers);
        if (!p->layers) return NVS_ERR_NOMEM;
    }
    NVS_CHECK(nvs_bcast(run->rt, p->layers, (size_t)hdr.nlayers * sizeof *p->layers, 0, "model profile layers"));
    p->total_params = p->fwd_flops_per_sample = 0;
    for (int l = 0; l < p->nlayers; l++) {
        p->total_params += p->layers[l].params;
        p->fwd_flops_per_sample += nvs_layer_fwd_flops(&p->layers[l]);
    }
    return NVS_OK;
}

static int member_of(const nvs_scale_point *pt, int rank)
{
    for (int i = 0; i < pt->n; i++)
        if (pt->ranks[i] == rank) return 1;
    return 0;
}

/* Time of the buckets' all-reduces predicted from this run's all_reduce sweep at the same N (out-of-place,
 * sum, the gradient type); -1 when the sweep did not measure it. */
static double predicted_comm(const nvs_ctx *run, const nvs_train_plan *pl, int n)
{
    nvs_dtype want = pl->grad_bf16 ? NVS_BF16 : NVS_FLOAT;
    double sizes[4096], times[4096];
    int k = 0;
    int ar = nvs_coll_index(&nvs_coll_all_reduce);
    for (size_t i = 0; i < run->rows.n && k < 4096; i++) {
        const nvs_coll_row *r = &run->rows.v[i];
        if (r->coll != ar || r->n != n || r->inplace || r->type != want || r->op != NVS_SUM) continue;
        sizes[k] = (double)r->bytes;
        times[k] = r->t_max_us;
        k++;
    }
    if (k < 2) return -1;
    double total = 0;
    for (int b = 0; b < pl->nbuckets; b++) total += nvs_predict_allreduce_us(sizes, times, k, (double)pl->buckets[b].bytes);
    return total;
}


/* charged[0..4]: what the framework added in one full step (step.c): its operations, reducer buckets, reducer
 * hooks (parameter tensors), the bytes of its layout copies, and the operations of its buffer broadcast (among
 * the operations); < 0 unknown */
/* How the convolutions ran (train/conv.h): the library and, per distinct shape, the algorithms rank 0's cuDNN
 * timed fastest; or why they ran as implicit GEMMs. NULL when the profile gives no convolution geometry. */
static json_t *conv_json(const nvs_train_exec *x)
{
    if (!x->conv_geom_layers) return NULL;
    const char *why = x->conv_layers < x->conv_geom_layers ? x->conv_why : "";
    const int native = x->conv_native && x->conv_layers > 0;
    json_t *o = json_pack("{s:s, s:s, s:i, s:i}", "mode", nvs_cudnn_mode_name(x->cudnn_mode), "engine",
                          native ? "cudnn" : "gemm", "layers", native ? x->conv_layers : 0, "geometry_layers",
                          x->conv_geom_layers);
    if (!o) return NULL;
    if (native) {
        json_object_set_new(o, "library", json_string(x->conv_engine));
        json_object_set_new(o, "workspace_bytes", nvs_rj_bytes(x->conv_ws_bytes));
        int replayed = 0, direct = 0;
        const char *gwhy = NULL;
        nvs_cudnn_graphs(x->dnn, &replayed, &direct, &gwhy);
        json_t *gr = json_pack("{s:i, s:i}", "replayed", replayed, "direct", direct);
        if (gr && gwhy) json_object_set_new(gr, "why", json_string(gwhy));
        if (gr) json_object_set_new(o, "graphs", gr);
        json_t *arr = json_array();
        for (int i = 0; arr && i < nvs_cudnn_nshapes(x->dnn); i++) {
            nvs_conv_shape cs;
            int algo[3], layers = 0;
            double ms[3], ws[3];
            nvs_cudnn_shape_info(x->dnn, i, &cs, algo, ms, ws, &layers);
            json_t *e = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "n", cs.n, "c", cs.c, "h",
                                  cs.h, "w", cs.w, "k", cs.k, "r", cs.r, "s", cs.s, "stride", cs.u, "pad", cs.p,
                                  "layers", layers);
            static const char *const dir[3] = {"fwd", "dgrad", "wgrad"};
            for (int d = 0; e && d < 3; d++) {
                if (algo[d] < 0) continue;
                json_object_set_new(e, dir[d], json_pack("{s:i, s:f, s:o}", "algo", algo[d], "find_ms", ms[d],
                                                         "workspace_bytes", nvs_rj_bytes(ws[d])));
            }
            if (e) json_array_append_new(arr, e);
        }
        if (arr) json_object_set_new(o, "shapes", arr);
    }
    if (why[0]) json_object_set_new(o, "why", json_string(why));
    if (x->cudnn_fallback) json_object_set_new(o, "fallback", json_true());
    return o;
}

/* How the batch norms (profile bn=) ran: in cuDNN ("layers" of them; any others in the executor's own kernels,
 * "kernel_layers"), in the executor's kernels launched as PyTorch's own (train/norm_kernels.h), or as memory
 * passes (the host executor); and why not in cuDNN. NULL when the profile marks none. */
static json_t *bn_json(const nvs_train_exec *x)
{
    if (!x->bn_total) return NULL;
    const int native = x->norm_native && x->bn_layers > 0, kern = x->norm_native && x->bn_kernel_layers > 0;
    json_t *o = json_pack("{s:s, s:s, s:i, s:i}", "mode", nvs_cudnn_mode_name(x->cudnn_mode), "engine",
                          native ? "cudnn" : kern ? "kernels" : "passes", "layers",
                          native ? x->bn_layers : kern ? x->bn_kernel_layers : 0, "of", x->bn_total);
    if (!o) return NULL;
    if (native) json_object_set_new(o, "library", json_string(x->conv_engine));
    if (native && kern) json_object_set_new(o, "kernel_layers", json_integer(x->bn_kernel_layers));
    const char *why = nvs_bn_why(nvs_bn_in_cudnn(x->plan->precision), x->dnn != NULL, native, x->bn_why, x->conv_why);
    if (why) json_object_set_new(o, "why", json_string(why));
    if (x->cudnn_fallback && nvs_bn_in_cudnn(x->plan->precision)) json_object_set_new(o, "fallback", json_true());
    return o;
}

/* --rounds: the efficiency's range over the rounds, and each round's own step, compute-only step, all-reduces
 * and efficiency (raw[round * npoints + i]), in the order measured */
static void rounds_json(json_t *r, const nvs_train_point *raw, int npoints, int i, const nvs_train_point *t)
{
    json_object_set_new(r, "rounds_measured", json_integer(t->rounds));
    json_object_set_new(r, "efficiency_min", json_real(t->eff_lo));
    json_object_set_new(r, "efficiency_max", json_real(t->eff_hi));
    json_t *a = json_array();
    for (int k = 0; a && k < t->rounds; k++) {
        const nvs_train_point *p = &raw[k * npoints + i];
        json_array_append_new(a, json_pack("{s:f, s:f, s:f, s:f}", "step_us", p->step_us, "compute_us",
                                           p->compute_us, "comm_us", p->comm_us, "efficiency",
                                           nvs_scaling_efficiency(raw[k * npoints].step_us, p->step_us)));
    }
    if (a) json_object_set_new(r, "rounds", a);
}

static json_t *train_json(const nvs_ctx *run, const char *model, const nvs_profile *p, const nvs_train_plan *pl,
                          const nvs_train_exec *x, double free_min, double work_rate, const double charged[5],
                          const nvs_train_point *pts, int npts, const nvs_train_point *raw, int npoints)
{
    const nvs_config *cfg = run->cfg;
    /* params and layers are counts: integers, as docs/run-json.md shows them (the profile's params= are whole
     * numbers; runs before 5 December wrote them as reals, which readers take as well) */
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:f, s:i, s:s, s:s, s:I, s:I, s:f, s:i}", "model", p->name, "source",
                          p->source, "sample", p->sample, "params", (json_int_t)llround(p->total_params),
                          "fwd_gflops_per_sample",
                          p->fwd_flops_per_sample / 1e9, "batch", pl->batch, "precision",
                          nvs_precision_name(pl->precision), "grad_type", pl->grad_bf16 ? "bf16" : "fp32",
                          "bucket_first_bytes", (json_int_t)cfg->bucket_first_bytes, "bucket_cap_bytes",
                          (json_int_t)cfg->bucket_cap_bytes, "step_gflops", pl->step_flops / 1e9, "layers",
                          p->nlayers);
    if (!o) return NULL;
    json_t *bk = json_array();
    for (int b = 0; b < pl->nbuckets; b++)
        json_array_append_new(bk, json_pack("{s:I, s:i, s:i}", "bytes", (json_int_t)pl->buckets[b].bytes,
                                            "first_layer", pl->buckets[b].first_layer, "last_layer",
                                            pl->buckets[b].last_layer));
    json_object_set_new(o, "buckets", bk);
    /* a user's profile file, as given: `nvscale model --calibrate` reloads the layers from it */
    if (strchr(model, '/') || strstr(model, ".prof")) json_object_set_new(o, "profile_file", json_string(model));
    /* whole byte counts (a real keeps 10 digits: "free_bytes": 2.454079898e10) */
    json_object_set_new(o, "memory",
                        json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "needed_bytes",
                                  nvs_rj_bytes(pl->total_bytes), "free_bytes", nvs_rj_bytes(free_min), "weight_bytes",
                                  nvs_rj_bytes(pl->weight_bytes), "master_bytes", nvs_rj_bytes(pl->master_bytes),
                                  "grad_bytes", nvs_rj_bytes(pl->grad_bytes), "activation_bytes",
                                  nvs_rj_bytes(pl->act_bytes), "workspace_bytes", nvs_rj_bytes(pl->workspace_bytes),
                                  "bucket_bytes", nvs_rj_bytes(pl->bucket_bytes), "buffer_bytes",
                                  nvs_rj_bytes(pl->buffer_bytes), "f32_copy_bytes", nvs_rj_bytes(pl->f32_bytes)));
    json_t *cj = conv_json(x), *bj = bn_json(x);
    if (cj) json_object_set_new(o, "conv", cj);
    if (bj) json_object_set_new(o, "batchnorm", bj);
    /* the update after the all-reduces: as the framework's foreach passes where it has them (pytorch-ddp: PyTorch's
     * default on CUDA), else, or under --optimizer adamw-fused, as one fused pass (train_gpu_opt.c nvs_tg_opt) */
    json_object_set_new(o, "optimizer", json_string(nvs_optimizer_name(pl->optimizer)));
    json_object_set_new(o, "optimizer_fused", json_boolean(!nvs_train_plan_opt_foreach(pl)));
    json_object_set_new(o, "steps", json_integer(cfg->steps));
    json_object_set_new(o, "warmup_steps", json_integer(cfg->warmup_steps));
    json_object_set_new(o, "framework",
                        json_pack("{s:s, s:s, s:f, s:f, s:b, s:b, s:f, s:f, s:b, s:b, s:f, s:s, s:f}", "name",
                                  pl->framework->name, "describe", pl->framework->describe, "host_us_per_op",
                                  pl->framework->host_us_per_op, "reducer_us_per_bucket",
                                  pl->framework->reducer_us_per_bucket, "autocast", pl->framework->autocast,
                                  "bucket_copy", pl->framework->bucket_copy, "nchw_copies_fwd",
                                  pl->framework->nchw_copies_fwd, "nchw_copies_bwd", pl->framework->nchw_copies_bwd,
                                  "grad_scaler", pl->framework->grad_scaler, "broadcast_buffers",
                                  pl->framework->broadcast_buffers, "host_us_per_buffer_op",
                                  pl->framework->host_us_per_buffer_op, "source", pl->framework->source,
                                  "cpu_work_units_per_us", work_rate));
    json_object_set_new(json_object_get(o, "framework"), "weight_casts", json_boolean(pl->framework->weight_casts));
    json_object_set_new(json_object_get(o, "framework"), "optimizer_foreach",
                        json_boolean(pl->framework->optimizer_foreach));
    json_object_set_new(json_object_get(o, "framework"), "autocast_fp32", json_boolean(pl->framework->autocast_fp32));
    json_object_set_new(json_object_get(o, "framework"), "bias_reduce", json_boolean(pl->framework->bias_reduce));
    json_object_set_new(json_object_get(o, "framework"), "view_copies", json_boolean(pl->framework->view_copies));
    /* the optimizer's host time per tensor this step charged (0: its operations at host_us_per_op instead) */
    json_object_set_new(json_object_get(o, "framework"), "optimizer_host_us_per_tensor",
                        json_real(nvs_framework_optimizer_us_per_tensor(pl->framework, pl->optimizer,
                                                                        nvs_train_plan_opt_foreach(pl))));
    if (charged[0] >= 0) {
        json_t *fwj = json_object_get(o, "framework");
        json_object_set_new(fwj, "ops_per_step", json_real(charged[0]));
        json_object_set_new(fwj, "reducer_buckets_per_step", json_real(charged[1]));
        json_object_set_new(fwj, "hook_tensors_per_step", json_real(charged[2]));
        json_object_set_new(fwj, "layout_copy_bytes_per_step", json_real(charged[3]));
        json_object_set_new(fwj, "buffer_ops_per_step", json_real(charged[4]));
    }
    double ref_lost = 0, ref_diff = 0, ref_compute = 0;
    int ref_n = npts ? pts[0].n : 1;
    for (int i = 0; i < npts; i++)
        if (pts[i].n == ref_n) {
            ref_lost = fmax(0.0, pts[i].step_us - pts[i].compute_us);
            ref_diff = pts[i].span_diff_us;
            ref_compute = pts[i].compute_us;
        }
    json_t *res = json_array();
    for (int i = 0; i < npts; i++) {
        const nvs_train_point *t = &pts[i];
        /* weak scaling: per-GPU batch fixed; relative to the smallest N measured (1 unless --gpus says else): the
         * median over the rounds of step(ref) / step(N), with one round that round's own (train/rounds.h) */
        double eff = t->eff;
        /* step(N) = compute(N) (no reducer, no all-reduce: DDP's no_sync) + reducer + interference + exposed
         * communication + waiting for a slower rank (train/split.h). compute(N) - compute(ref) is what sharing
         * the machine with N-1 other ranks cost the compute (host and GPU): signed, not clamped, as the verdict
         * adds the loss's parts with their signs (out_summary.c); below 0 the compute ran faster at N (noise, or a
         * host that sped up: docs/run-json.md). */
        nvs_step_split sp =
            nvs_step_split_of(t->step_us, t->compute_us, t->span_diff_us, t->comm_us, ref_lost, ref_diff);
        json_t *r = json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i}", "n", t->n, "step_us",
                              t->step_us, "compute_us", t->compute_us, "comm_us", t->comm_us, "exposed_comm_us",
                              sp.exposed_us, "rank_wait_us", sp.rank_wait_us, "interference_us", sp.interference_us,
                              "reducer_us", sp.reducer_us, "contention_us", t->compute_us - ref_compute, "samples_per_s",
                              t->step_us > 0 ? t->n * (double)pl->batch / (t->step_us * 1e-6) : 0.0, "efficiency",
                              eff, "slowest_rank", t->slowest_rank);
        json_t *g = json_array();
        for (int pi = 0; pi < run->npoints; pi++)
            if (run->points[pi].n == t->n)
                for (int k = 0; k < t->n; k++) {
                    int rk = run->points[pi].ranks[k];
                    json_array_append_new(g, json_integer(run->ranks[rk].topo_gpu >= 0 ? run->ranks[rk].topo_gpu : rk));
                }
        json_object_set_new(r, "gpus", g);
        json_object_set_new(r, "efficiency_reference_n", json_integer(ref_n));
        /* step = compute + the parts does not hold where the compute-only step, timed apart, came out longer:
         * said in the data, not only in the table's note (train/split.h) */
        json_object_set_new(r, "compute_above_step", json_boolean(nvs_step_compute_above(t->step_us, t->compute_us)));
        /* the timed steps' range of both variants whose medians the split compares (absent when not known) */
        if (t->step_min_us > 0 && t->compute_min_us > 0) {
            json_object_set_new(r, "step_min_us", json_real(t->step_min_us));
            json_object_set_new(r, "step_max_us", json_real(t->step_max_us));
            json_object_set_new(r, "compute_min_us", json_real(t->compute_min_us));
            json_object_set_new(r, "compute_max_us", json_real(t->compute_max_us));
        }
        json_object_set_new(r, "issue_us", json_real(t->issue_us));
        json_object_set_new(r, "compute_issue_us", json_real(t->compute_issue_us));
        json_t *by = json_object();
        for (int k = 0; k < NVS_ISSUE_KINDS; k++)
            json_object_set_new(by, nvs_issue_kind_names[k], json_real(t->issue_by_us[k]));
        json_object_set_new(r, "issue_by_us", by);
        if (t->host_rate_lo > 0 && t->host_rate_hi > 0) {
            json_object_set_new(r, "host_rate_p10", json_real(t->host_rate_lo));
            json_object_set_new(r, "host_rate_p90", json_real(t->host_rate_hi));
        }
        /* where the compute time goes: the same step without its GEMMs (memory-bound passes + optimizer) */
        /* where the GPU's compute time goes, both variants without the framework's host work: a host-bound step
         * (an eager framework at bf16) takes as long with its GEMMs as without, which says nothing of the GEMMs */
        if (t->no_gemm_us > 0 && t->ideal_compute_us > 0) {
            double gemm = t->ideal_compute_us - t->no_gemm_us;
            json_object_set_new(r, "ideal_compute_us", json_real(t->ideal_compute_us));
            if (t->ideal_issue_us >= 0) json_object_set_new(r, "ideal_compute_issue_us", json_real(t->ideal_issue_us));
            json_object_set_new(r, "no_gemm_us", json_real(t->no_gemm_us));
            json_object_set_new(r, "gemm_us", json_real(fmax(0.0, gemm)));
            json_object_set_new(r, "gemm_tflops", json_real(gemm > 0 ? pl->step_flops / (gemm * 1e-6) / 1e12 : 0.0));
        }
        if (cfg->rounds > 1) rounds_json(r, raw, npoints, i, t);
        double pred = predicted_comm(run, pl, t->n);
        json_object_set_new(r, "predicted_comm_us", pred >= 0 ? json_real(pred) : json_null());
        json_array_append_new(res, r);
    }
    json_object_set_new(o, "results", res);
    return o;
}

/* Load, plan and size one workload on every rank, and refuse (one message, from rank 0, NVS_ERR_USAGE) what does
 * not fit in the smallest free memory of any rank. *have_exec says whether x needs its teardown. */
static nvs_result_t prepare(nvs_ctx *run, const char *model, nvs_profile *prof, nvs_train_plan *plan,
                            nvs_train_exec *x, int *have_exec, double *free_min_out)
{
    const nvs_config *cfg = run->cfg;
    nvs_rt *rt = run->rt;
    *have_exec = 0;
    NVS_CHECK(load_profile(run, model, prof));
    int batch = cfg->batch ? cfg->batch : prof->default_batch;
    if (batch < 1) batch = 1;
    NVS_CHECK(nvs_train_plan_make(prof, batch, cfg->precision, cfg->grad_bf16, cfg->bucket_first_bytes,
                                  cfg->bucket_cap_bytes, plan));
    nvs_train_plan_set_framework(plan, nvs_framework_find(cfg->framework));
    nvs_train_plan_set_optimizer(plan, (nvs_optimizer)cfg->optimizer, cfg->optimizer_fused);
    x->plan = plan;
    x->backend = &run->backend;
    x->cudnn_mode = (nvs_cudnn_mode)cfg->cudnn;
    const int gpu = !strcmp(run->backend.ops->name, "nccl");
    if (!gpu && cfg->cudnn == NVS_CUDNN_ON) {
        if (rt->rank == 0)
            nvs_error("--cudnn on: the %s backend runs the training step on the CPU, where the convolutions are "
                      "GEMMs; cuDNN needs the GPUs (NCCL backend)", run->backend.ops->name);
        return NVS_ERR_USAGE;
    }
    if (gpu && cfg->cudnn == NVS_CUDNN_ON && nvs_cudnn_layers(prof, cfg->precision, NULL, NULL, NULL)) {
        /* refused before anything is measured */
        char why[320];
        if (nvs_cudnn_probe(why, sizeof why) != NVS_OK) {
            if (rt->rank == 0) nvs_error("--cudnn on: cuDNN cannot run the convolutions and batch norms: %s", why);
            return NVS_ERR_UNSUPPORTED;
        }
    }
    NVS_CHECK(gpu ? nvs_train_exec_gpu(x) : nvs_train_exec_host(x));
    *have_exec = 1; /* teardown frees whatever setup got to */

    /* refuse up front what does not fit, naming the bytes needed and available: the smallest free memory of
     * any rank, and whose it is. The host executor's ranks on one machine share its memory (MemAvailable), each
     * allocating a whole plan: what counts is each rank's share of it. */
    double free_bytes = 0;
    NVS_CHECK(x->ops->memory(x, &free_bytes));
    const int sharing = gpu ? 1 : (rt->machine.local_size > 1 ? rt->machine.local_size : 1);
    double free_min = free_bytes, share_min = free_bytes / sharing, who = rt->rank;
    NVS_CHECK(nvs_allreduce_f64(rt, &free_min, 1, NVS_RT_MIN, "training memory check"));
    NVS_CHECK(nvs_allreduce_f64(rt, &share_min, 1, NVS_RT_MIN, "training memory check"));
    if (free_bytes / sharing != share_min) who = -1;
    NVS_CHECK(nvs_allreduce_f64(rt, &who, 1, NVS_RT_MAX, "training memory check"));
    double who_free = who == rt->rank ? free_bytes : 0, who_sharing = who == rt->rank ? sharing : 0;
    NVS_CHECK(nvs_allreduce_f64(rt, &who_free, 1, NVS_RT_MAX, "training memory check"));
    NVS_CHECK(nvs_allreduce_f64(rt, &who_sharing, 1, NVS_RT_MAX, "training memory check"));
    *free_min_out = free_min;
    if (plan->total_bytes <= share_min * 0.95) return NVS_OK; /* 5% headroom: NCCL and cuBLAS allocate too */
    if (rt->rank == 0) {
        const nvs_rank_info *ri = who >= 0 && who < rt->size && run->ranks ? &run->ranks[(int)who] : NULL;
        char all[96] = "";
        if (who_sharing > 1)
            snprintf(all, sizeof all, ", %.2f GiB for the %d ranks on its machine,",
                     plan->total_bytes * who_sharing / 1073741824.0, (int)who_sharing);
        /* every part plan->total_bytes counts (train_plan.c), so that the list adds up to it; the framework's
         * parts only where it has them */
        char extra[160] = "";
        int ne = 0;
        if (plan->bucket_bytes > 0)
            ne += snprintf(extra + ne, sizeof extra - ne, ", bucket copies %.2f", plan->bucket_bytes / 1073741824.0);
        if (plan->buffer_bytes > 0 && ne < (int)sizeof extra)
            ne += snprintf(extra + ne, sizeof extra - ne, ", buffers %.2f", plan->buffer_bytes / 1073741824.0);
        if (plan->f32_bytes > 0 && ne < (int)sizeof extra)
            snprintf(extra + ne, sizeof extra - ne, ", fp32 copies %.2f", plan->f32_bytes / 1073741824.0);
        nvs_error("%s at batch %d (%s) needs %.2f GiB per %s%s (weights %.2f, fp32 state %.2f, gradients %.2f, "
                  "activations %.2f, workspace %.2f%s GiB)%s but rank %d (%s%s%s) has %.2f GiB free: %s",
                  prof->name, batch, nvs_precision_name(cfg->precision), plan->total_bytes / 1073741824.0,
                  x->ops->name, who_sharing > 1 ? " rank" : "", plan->weight_bytes / 1073741824.0,
                  plan->master_bytes / 1073741824.0, plan->grad_bytes / 1073741824.0,
                  plan->act_bytes / 1073741824.0, plan->workspace_bytes / 1073741824.0, extra, all, (int)who,
                  ri ? ri->host : "?", ri && ri->pci_bus_id[0] ? ", GPU " : "",
                  ri && ri->pci_bus_id[0] ? ri->pci_bus_id : "", who_free / 1073741824.0,
                  batch > 1 ? "lower --batch" : "it does not fit even at batch 1 (a smaller model, or more memory)");
    }
    return NVS_ERR_USAGE;
}

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
        k += snprintf(who + k, sizeof who - k, "%s%d (host %s)", i ? ", " : "", r, run->ranks ? run->ranks[r].host : "?");
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
static nvs_result_t measure_point(nvs_ctx *run, const char *name, nvs_train_exec *x, int i, int rd, int warmup,
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
    nvs_result_t res = prepare(run, model, &prof, &plan, &x, &have_exec, &free_min);
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
            res = measure_point(run, prof.name, &x, i, rd, warmup, charged, &raw[rd * np + i]);
            if (res != NVS_OK) goto out;
            /* the points measured so far are this workload's section now (replaced as points come), and
             * checkpointed: an interruption or a failure at the next N or round keeps them */
            int have = rd > 0 ? np : j + 1;
            for (int k = 0; k < have; k++)
                nvs_train_rounds_merge(raw, np, k, nvs_train_rounds_usable(np, rd, j, k), &pts[k]);
            if (rt->rank == 0) {
                json_t *t = train_json(run, model, &prof, &plan, &x, free_min, x.work_per_us, charged, pts, have,
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
        res = prepare(run, names[i], &prof, &plan, &x, &have_exec, &free_min);
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
