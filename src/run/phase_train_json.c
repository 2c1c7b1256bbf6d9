/* The training phase (phase_train.c): run.json's "train" section of one workload, assembled by rank 0 from the
 * points measured so far: the plan, the memory, the framework, how the convolutions and batch norms ran, and per N
 * the step, its split and the all-reduces predicted from the sweep. */
#include <math.h>
#include <string.h>

#include "collectives/coll.h"
#include "core/metrics.h"
#include "run/phase_train_priv.h"
#include "run/run.h"
#include "runjson/runjson_write.h"
#include "train/split.h"
#include "train/train.h"
#include "train/conv_cudnn.h"
#include "train/train_exec.h"

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
    for (int b = 0; b < pl->nbuckets; b++)
        total += nvs_predict_allreduce_us(sizes, times, k, (double)pl->buckets[b].bytes);
    return total;
}

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

/* charged[0..4]: what the framework added in one full step (step.c): its operations, reducer buckets, reducer
 * hooks (parameter tensors), the bytes of its layout copies, and the operations of its buffer broadcast (among
 * the operations); < 0 unknown */
json_t *nvs_pt_train_json(const nvs_ctx *run, const char *model, const nvs_profile *p, const nvs_train_plan *pl,
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
                              "reducer_us", sp.reducer_us, "contention_us", t->compute_us - ref_compute,
                              "samples_per_s", t->step_us > 0 ? t->n * (double)pl->batch / (t->step_us * 1e-6) : 0.0,
                              "efficiency", eff, "slowest_rank", t->slowest_rank);
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
