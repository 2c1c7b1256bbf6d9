/* The training step's plan: DDP bucket assignment, gradient layout, memory and FLOP accounting, and the
 * all-reduce time prediction from a measured curve. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/log.h"
#include "collectives/kernels.h"
#include "train/conv.h"
#include "train/reduce_plan.h"
#include "train/view_plan.h"
#include "train/rounds.h"
#include "train/split.h"
#include "train/train_exec.h"
#include "train/train.h"
#include "workload/buckets.h"
#include "workload/profile.h"
#include "t.h"

static const char *toy =
    "nvscale-profile 1\n"
    "name toy\n"
    "source \"unit test\"\n"
    "batch 4\n"
    "layer a params=262144 gemm=10,512,512 act=5120 ew=1\n"   /* 1 MiB of fp32 gradient */
    "layer attn gemm=10,10,512 act=100\n"                      /* a GEMM without parameters */
    "layer b params=131072 gemm=10,256,512 act=2560 ew=2\n"   /* 512 KiB */
    "layer norm params=512 act=2560 ew=1\n"                    /* 2 KiB, no GEMM */
    "layer c params=393216 gemm=10,768,512 act=7680\n";        /* 1.5 MiB */

static void t_ddp_buckets(void)
{
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse(toy, "toy", &p, err, sizeof err), NVS_OK);
    nvs_train_plan pl;
    /* DDP: reverse order; first bucket closes at >= 1 MiB, then caps of 2 MiB */
    T_EQ_I(nvs_train_plan_make(&p, 4, NVS_PREC_FP32, 0, 1 << 20, 2 << 20, &pl), NVS_OK);
    /* c (1.5 MiB) alone fills the first bucket; norm + b + a = 2 KiB + 512 KiB + 1 MiB < 2 MiB: one bucket */
    T_EQ_I(pl.nbuckets, 2);
    T_EQ_I(pl.buckets[0].first_layer, 4);
    T_EQ_I(pl.buckets[0].last_layer, 4);
    T_EQ_U(pl.buckets[0].bytes, 393216 * 4);
    T_EQ_I(pl.buckets[1].first_layer, 0);
    T_EQ_I(pl.buckets[1].last_layer, 3);
    T_EQ_U(pl.buckets[1].bytes, (262144 + 131072 + 512) * 4);
    /* a bucket is launched when the backward of its lowest layer ends */
    T_EQ_I(pl.bucket_closes_at[4], 0);
    T_EQ_I(pl.bucket_closes_at[0], 1);
    T_EQ_I(pl.bucket_closes_at[2], -1);
    T_EQ_I(pl.bucket_of_layer[1], -1); /* attention: no parameters */
    /* gradients contiguous in bucket order: c, norm, b, a */
    T_EQ_U(pl.grad_offset[4], 0);
    T_EQ_U(pl.grad_offset[3], 393216);
    T_EQ_U(pl.grad_offset[2], 393216 + 512);
    T_EQ_U(pl.grad_offset[0], 393216 + 512 + 131072);
    T_EQ_U(pl.grad_elems, 786944);
    /* FLOPs: forward 2*B*M*N*K per GEMM layer, backward x2 except the first layer's input gradient */
    double f_a = 2.0 * 4 * 10 * 512 * 512, f_at = 2.0 * 4 * 10 * 10 * 512, f_b = 2.0 * 4 * 10 * 256 * 512,
           f_c = 2.0 * 4 * 10 * 768 * 512;
    T_NEAR(pl.fwd_flops, f_a + f_at + f_b + f_c, 1);
    T_NEAR(pl.step_flops, 2 * f_a + 3 * (f_at + f_b + f_c), 1);
    /* memory: fp32 master + momentum, fp32 gradients */
    T_NEAR(pl.master_bytes, 786944.0 * 8, 0);
    T_NEAR(pl.grad_bytes, 786944.0 * 4, 0);
    T_ASSERT(pl.total_bytes > pl.act_bytes + pl.grad_bytes);
    nvs_train_plan_free(&pl);

    /* bf16 gradients halve the bytes: c is 768 KiB < 1 MiB, so the first bucket takes c, norm and b
     * (768 + 1 + 256 KiB >= 1 MiB), then a (512 KiB) alone */
    T_EQ_I(nvs_train_plan_make(&p, 4, NVS_PREC_BF16, 1, 1 << 20, 2 << 20, &pl), NVS_OK);
    T_EQ_I(pl.nbuckets, 2);
    T_EQ_I(pl.buckets[0].first_layer, 2);
    T_EQ_U(pl.buckets[0].bytes, (393216 + 512 + 131072) * 2);
    T_EQ_I(pl.buckets[1].first_layer, 0);
    T_EQ_I(pl.buckets[1].last_layer, 0);
    nvs_train_plan_free(&pl);
    nvs_profile_free(&p);
}

static void t_builtin_resnet50_buckets(void)
{
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_load("resnet50", &p, err, sizeof err), NVS_OK);
    nvs_train_plan pl;
    T_EQ_I(nvs_train_plan_make(&p, 128, NVS_PREC_FP32, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
    size_t total = 0;
    for (int b = 0; b < pl.nbuckets; b++) {
        total += pl.buckets[b].bytes;
        /* every bucket but the last reaches its cap; none exceeds it by more than one layer's gradient */
        if (b + 1 < pl.nbuckets) T_ASSERT(pl.buckets[b].bytes >= (b ? 25u << 20 : 1u << 20));
    }
    T_EQ_U(total, 25557032u * 4u); /* every parameter in exactly one bucket */
    T_ASSERT(pl.nbuckets >= 4 && pl.nbuckets <= 6); /* ~97.5 MiB: 1 MiB first, then ~4 of 25 MiB */
    nvs_train_plan_free(&pl);
    nvs_profile_free(&p);
}

static void t_predict(void)
{
    double s[] = {1024, 1048576, 1073741824};
    double t[] = {10, 20, 3000};
    T_NEAR(nvs_predict_allreduce_us(s, t, 3, 1024), 10, 1e-9);
    T_NEAR(nvs_predict_allreduce_us(s, t, 3, 512), 10, 1e-9);      /* below the curve: latency floor */
    T_NEAR(nvs_predict_allreduce_us(s, t, 3, 1048576), 20, 1e-9);
    double mid = nvs_predict_allreduce_us(s, t, 3, 32768);           /* log-log between 10 and 20 */
    T_NEAR(mid, 10 * pow(2.0, 0.5), 1e-6);
    /* beyond: the last interval's slope carries on */
    double slope = (3000.0 - 20) / (1073741824.0 - 1048576);
    T_NEAR(nvs_predict_allreduce_us(s, t, 3, 2147483648.0), 3000 + slope * 1073741824.0, 1e-6);
    T_NEAR(nvs_predict_allreduce_us(s, t, 0, 100), 0, 0);
}

/* A GEMM's rows are its M times the batch, and BLAS and cuBLAS take ints: ResNet-50's stem (M = 112 x 112 = 12,544)
 * fits at batch 171,196 (2,147,482,624 rows) and not at 171,197 (2,147,495,168 > 2^31-1). The host executor
 * refuses such a plan at setup (train_host.c); the check needs no memory. */
static void t_rows_over_int(void)
{
    static const char text[] = "nvscale-profile 1\nname t\nsource \"test\"\n"
                               "layer a params=4096 gemm=64,64,64 act=4096\n"
                               "layer stem params=9408 gemm=12544,64,147 act=802816\n";
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse(text, "t", &p, err, sizeof err), NVS_OK);
    static const struct { int batch, want; } c[] = {{1, -1}, {171196, -1}, {171197, 1}, {2000000000, 0}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        nvs_train_plan pl;
        T_EQ_I(nvs_train_plan_make(&p, c[i].batch, NVS_PREC_FP32, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
        T_EQ_I(nvs_train_plan_rows_over_int(&pl), c[i].want);
        nvs_train_plan_free(&pl);
    }
    nvs_profile_free(&p);
}

/* The step's plan takes its buckets from the one planner the what-if model uses (workload/buckets.h): the same
 * buckets for every built-in profile, fp32 and bf16 gradients, DDP's caps and small ones. */
static void t_plan_uses_shared_buckets(void)
{
    for (const char *const *name = nvs_profile_builtin_names(); *name; name++) {
        nvs_profile p;
        char err[256];
        if (nvs_profile_load(*name, &p, err, sizeof err) != NVS_OK) T_FAIL("%s: %s", *name, err);
        static const size_t caps[][2] = {{1 << 20, 25 << 20}, {1 << 16, 1 << 18}};
        for (int bf16 = 0; bf16 <= 1; bf16++)
            for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
                nvs_train_plan pl;
                T_EQ_I(nvs_train_plan_make(&p, 1, NVS_PREC_FP32, bf16, caps[c][0], caps[c][1], &pl), NVS_OK);
                nvs_ddp_bucket *b = malloc(((size_t)p.nlayers + 1) * sizeof *b);
                T_ASSERT(b != NULL);
                int nb = nvs_ddp_buckets(p.layers, p.nlayers, bf16 ? 2 : 4, (double)caps[c][0], (double)caps[c][1], b,
                                         p.nlayers + 1, NULL);
                T_EQ_I(pl.nbuckets, nb);
                for (int k = 0; k < nb; k++) {
                    /* the plan names a bucket's layers lowest first: [first_layer .. last_layer] */
                    if (pl.buckets[k].first_layer != b[k].last_layer || pl.buckets[k].last_layer != b[k].first_layer ||
                        (double)pl.buckets[k].bytes != b[k].bytes)
                        T_FAIL("%s bf16=%d caps %zu: bucket %d differs", *name, bf16, c, k);
                }
                free(b);
                nvs_train_plan_free(&pl);
            }
        nvs_profile_free(&p);
    }
}

/* step = compute + reducer + interference + exposed + rank_wait, exposed never longer than the all-reduces */
static void t_split(void)
{
    /* lost 20: reducer 10 (the reference N's), interference 5 - 2 = 3, 7 left: 4 exposed (the all-reduces take
     * 4 alone), 3 waiting for a slower rank */
    nvs_step_split s = nvs_step_split_of(100, 80, 5, 4, 10, 2);
    T_NEAR(s.reducer_us, 10, 0);
    T_NEAR(s.interference_us, 3, 0);
    T_NEAR(s.exposed_us, 4, 0);
    T_NEAR(s.rank_wait_us, 3, 0);
    T_NEAR(80 + s.reducer_us + s.interference_us + s.exposed_us + s.rank_wait_us, 100, 1e-12);
    /* all-reduces longer than the rest: all of it exposed; unknown comm time: no cap */
    s = nvs_step_split_of(100, 80, 5, 9, 10, 2);
    T_NEAR(s.exposed_us, 7, 0);
    T_NEAR(s.rank_wait_us, 0, 0);
    s = nvs_step_split_of(100, 80, 5, 0, 10, 2);
    T_NEAR(s.exposed_us, 7, 0);
    T_NEAR(s.rank_wait_us, 0, 0);
    /* less lost than the reference's reducer: all of it the reducer's */
    s = nvs_step_split_of(86, 80, 5, 4, 10, 2);
    T_NEAR(s.reducer_us, 6, 0);
    T_NEAR(s.interference_us + s.exposed_us + s.rank_wait_us, 0, 0);
    /* a step measured below its compute-only step (noise): nothing lost, nothing negative */
    s = nvs_step_split_of(79, 80, -1, 4, 10, 2);
    T_NEAR(s.reducer_us + s.interference_us + s.exposed_us + s.rank_wait_us, 0, 0);
}

/* A dry executor: every operation does nothing, so the step driver's own bookkeeping can be checked. */
static nvs_result_t dry_op(nvs_train_exec *x) { (void)x; return NVS_OK; }
static nvs_result_t dry_layer(nvs_train_exec *x, int l, int k) { (void)x, (void)l, (void)k; return NVS_OK; }
static double dry_passes;   /* ew passes issued (times the layer's output elements: the traffic) */
static double dry_passes32; /* of those, over fp32 data (autocast's: framework autocast_fp32) */
static int dry_norms[2];     /* library batch norms issued, forward and backward */
static int dry_grad_passes;  /* gradient passes of layers without a GEMM */
static nvs_result_t dry_ew(nvs_train_exec *x, int l, double p, int fp32)
{
    dry_passes += p * x->plan->profile->layers[l].act_elems;
    if (fp32) dry_passes32 += p * x->plan->profile->layers[l].act_elems;
    return NVS_OK;
}
static int dry_act_casts[2]; /* casts of an fp32 output to 16 bits (forward) and of its gradient back */
static nvs_result_t dry_cast_act(nvs_train_exec *x, int l, int bwd) { (void)x, (void)l; dry_act_casts[bwd ? 1 : 0]++; return NVS_OK; }
static double dry_bias_elems; /* bias gradients summed, their elements */
static nvs_result_t dry_bias(nvs_train_exec *x, int l)
{
    dry_bias_elems += nvs_layer_bias_elems(&x->plan->profile->layers[l]);
    return NVS_OK;
}
static nvs_result_t dry_copy(nvs_train_exec *x, int l, double p) { (void)x, (void)l, (void)p; return NVS_OK; }
static double dry_views[2]; /* copies through a view issued, forward and backward (times the output's elements) */
static nvs_result_t dry_view(nvs_train_exec *x, int l, double p, int bwd)
{
    dry_views[bwd ? 1 : 0] += p * x->plan->profile->layers[l].act_elems;
    return NVS_OK;
}
static double dry_cast_elems; /* weight matrix elements autocast cast (framework weight_casts) */
static nvs_result_t dry_cast(nvs_train_exec *x, int l)
{
    const nvs_layer *ly = &x->plan->profile->layers[l];
    dry_cast_elems += ly->params < ly->gemm_n * ly->gemm_k ? ly->params : ly->gemm_n * ly->gemm_k;
    return NVS_OK;
}
static nvs_result_t dry_norm(nvs_train_exec *x, int l, int bwd) { (void)x, (void)l; dry_norms[bwd ? 1 : 0]++; return NVS_OK; }
static nvs_result_t dry_grad(nvs_train_exec *x, int l) { (void)x, (void)l; dry_grad_passes++; return NVS_OK; }
static nvs_result_t dry_one(nvs_train_exec *x, int i) { (void)x, (void)i; return NVS_OK; }
static nvs_result_t dry_span(nvs_train_exec *x, double *us) { (void)x; *us = 1; return NVS_OK; }
static int dry_unscales; /* gradient-scaler passes issued */
static nvs_result_t dry_unscale(nvs_train_exec *x) { (void)x; dry_unscales++; return NVS_OK; }
static int dry_buffer_calls; /* buffer broadcasts issued */
static nvs_result_t dry_buffers(nvs_train_exec *x) { (void)x; dry_buffer_calls++; return NVS_OK; }
static int dry_lns[2][2]; /* LayerNorms issued: [backward][fp32] */
static nvs_result_t dry_ln(nvs_train_exec *x, int l, int bwd, int fp32)
{
    (void)x, (void)l;
    dry_lns[bwd ? 1 : 0][fp32 ? 1 : 0]++;
    return NVS_OK;
}
static const struct nvs_train_exec_ops dry_ln_ops = {
    .name = "dry-ln", .gemm = dry_layer, .ew = dry_ew, .copy_out = dry_copy, .cast_weights = dry_cast,
    .grad_pass = dry_grad, .cast_act = dry_cast_act, .bias_grad = dry_bias, .bucket_ready = dry_one, .norm = dry_norm,
    .layer_norm = dry_ln, .buffers = dry_buffers, .join_comm = dry_op, .unscale = dry_unscale, .optimizer = dry_op,
    .sync = dry_op, .mark = dry_one, .grad_to_bucket = dry_one, .bucket_to_grad = dry_one, .span = dry_span};
static const struct nvs_train_exec_ops dry_ops = {
    .name = "dry", .gemm = dry_layer, .ew = dry_ew, .copy_out = dry_copy, .view_copy = dry_view, .cast_weights = dry_cast, .grad_pass = dry_grad,
    .cast_act = dry_cast_act, .bias_grad = dry_bias,
    .bucket_ready = dry_one,
    .norm = dry_norm, .buffers = dry_buffers,
    .join_comm = dry_op, .unscale = dry_unscale, .optimizer = dry_op, .sync = dry_op, .mark = dry_one, .grad_to_bucket = dry_one,
    .bucket_to_grad = dry_one, .span = dry_span};

/* What the framework's host work charges per full step (run.json train.framework.ops_per_step and
 * reducer_buckets_per_step, hook_tensors_per_step): the profiles' ops= forward and backward, at bf16 one more each way per casts=, one
 * per bucket copied back and the optimizer; tensors= hooks. The totals are tools/gen_profiles.py --summary's
 * (written independently, in Python); docs/fidelity.md compares them with PyTorch's own census. DDP's buffer
 * broadcast before the full step's forward (not under no_sync()): resnet50's 53 batch norms hold 159 buffers (float
 * running_mean, running_var, int64 num_batches_tracked), each copied back, and per dtype a flatten and a broadcast:
 * 163 operations; the transformers have no buffers. */
static void t_host_work_counts(void)
{
    static const struct {
        const char *model;
        int batch;
        nvs_precision prec;
        int buckets;
        double ops, tensors, layout_bytes, buffer_ops;
        /* autocast's weight casts at bf16/fp16, each GEMM layer's matrix (test_model.c t_framework_counts says
         * where the numbers come from) */
        double cast_elems;
        /* autocast's fp32 passes (ew32=) forward and twice backward, times their layers' outputs per sample; the
         * casts of an fp32 output to 16 bits (each way); the bias gradients' elements, at every precision */
        double passes32;
        int act_casts;
        double bias_elems;
    } want[] = {
        /* lm290m: ew32 = 3.5 (embeddings) + 18 x 4 x 1.5 (two LayerNorms, two residual adds) + 1.5 (the final
         * LayerNorm) = 113 passes over 512 x 1024 outputs; 2 x 18 + 1 LayerNorm outputs cast; biases of in_proj,
         * out_proj, linear1, linear2: 18 x (3072 + 1024 + 4096 + 1024); the head has none */
        {"tools/profiles/lm290m.prof", 8, NVS_PREC_BF16, 29, 1298 + 29, 221, 0, 0, 259260416, 3 * 113 * 524288.0, 37,
         18 * 9216.0},
        {"tools/profiles/lm290m.prof", 8, NVS_PREC_FP32, 29, 934 + 29, 221, 0, 0, 0, 0, 0, 18 * 9216.0},
        /* the NCHW layout copies at bf16 (framework.h): (78 + 167) / 53 copies, each read and written, of the
         * outputs of the 53 convolutions, 11,113,984 elements per image (tools/gen_profiles.py --summary) */
        {"resnet50", 128, NVS_PREC_BF16, 5, 520 + 5 + 163, 161, (78.0 + 167.0) / 53 * 2 * 11113984.0 * 128 * 2, 163,
         25502912, 0, 0, 1000}, /* the fc layer's bias only: torchvision's convolutions have none */
        {"resnet50", 128, NVS_PREC_FP32, 5, 408 + 5 + 163, 161, 0, 163, 0, 0, 0, 1000},
        /* fp16: bf16's, and the GradScaler's 4 operations (the loss scaled, its backward, unscale_, update) */
        {"resnet50", 128, NVS_PREC_FP16, 5, 520 + 5 + 4 + 163, 161, (78.0 + 167.0) / 53 * 2 * 11113984.0 * 128 * 2,
         163, 25502912, 0, 0, 1000},
        {"tools/profiles/lm290m.prof", 8, NVS_PREC_FP16, 29, 1298 + 29 + 4, 221, 0, 0, 259260416, 3 * 113 * 524288.0,
         37, 18 * 9216.0},
        /* BERT: ew32 = 6 (embeddings' 3 gathers, 2 adds) + 2.5 (their LayerNorm and dropout) + 24 x 4 x 1.5 (two
         * residual adds, two LayerNorms per layer) + 1.5 (the MLM transform's LayerNorm) = 154 passes over 128 x
         * 1024 outputs; LayerNorm outputs cast once per GEMM that reads them: the embeddings' and 23 layers'
         * output LayerNorms by query, key and value, 3 x 24, the last layer's, each attention output LayerNorm and the
         * transform's once, 1 + 24 + 1 (98, PyTorch's profile: 390 casts forward less 146 weights and 146 biases);
         * biases of qkv, attention output, intermediate, output: 24 x 9216, and the transform's 1024 (the
         * decoder's bias alone: no N x K + N layer) */
        {"bert-large-mlm128", 32, NVS_PREC_BF16, 38, 2058 + 38, 394, 0, 0, 303068986, 3 * 154 * 131072.0, 98,
         24 * 9216.0 + 1024},
    };
    nvs_progress_enable(0);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        nvs_profile p;
        char err[256];
        T_EQ_I(nvs_profile_load(want[i].model, &p, err, sizeof err), NVS_OK);
        nvs_train_plan pl;
        T_EQ_I(nvs_train_plan_make(&p, want[i].batch, want[i].prec, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
        nvs_train_plan_set_framework(&pl, nvs_framework_find("pytorch-ddp"));
        nvs_train_exec x = {.ops = &dry_ops, .plan = &pl, .nranks = 2}; /* work_per_us 0: counted, not done */
        nvs_step_medians m = {0};
        dry_unscales = dry_buffer_calls = 0;
        dry_cast_elems = dry_passes32 = dry_bias_elems = 0;
        dry_act_casts[0] = dry_act_casts[1] = 0;
        T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_FULL, 0, 1, 2, &m), NVS_OK);
        T_NEAR(dry_cast_elems, want[i].cast_elems, 0);
        T_NEAR(dry_passes32, want[i].passes32, 0);
        T_EQ_I(dry_act_casts[0], want[i].act_casts);
        T_EQ_I(dry_act_casts[1], want[i].act_casts);
        T_NEAR(dry_bias_elems, want[i].bias_elems, 0);
        /* the fp32 scratch: the largest output with fp32 passes, at half precision only */
        T_EQ_U(pl.f32_elems, want[i].passes32 > 0 ? (size_t)(want[i].model[0] == 'b' ? 128 * 1024 : 512 * 1024) *
                                                        (size_t)want[i].batch
                                                  : 0);
        T_NEAR(x.host_buffer_ops, want[i].buffer_ops, 0);
        T_EQ_I(dry_buffer_calls, want[i].buffer_ops > 0);
        /* the host time owed: the buffer broadcast's operations at their own (lower) cost */
        const nvs_framework *fw = pl.framework;
        /* SGD's update at torch.optim's host time per tensor (optimizer.c: 2.62 us), not as its one operation */
        T_NEAR(nvs_profile_optimizer_tensors(&p), want[i].tensors, 0);
        T_NEAR(x.host_due_us, (want[i].ops - want[i].buffer_ops - 1) * fw->host_us_per_op + want[i].tensors * 2.62 +
                                  want[i].buffer_ops * fw->host_us_per_buffer_op + want[i].buckets * fw->reducer_us_per_bucket,
               1e-6);
        T_EQ_I(pl.buffers, want[i].buffer_ops > 0 ? 159 : 0);
        /* torchvision's resnet50 has 53,120 batch-norm parameters (2 per channel): as many running statistics;
         * the buffers and their flat copy */
        T_NEAR(pl.buffer_bytes, want[i].buffer_ops > 0 ? 2 * (53120 * 4.0 + 53 * 8.0) : 0, 0);
        T_EQ_I(dry_unscales, want[i].prec == NVS_PREC_FP16); /* a GradScaler at fp16 only */
        T_EQ_I(pl.nbuckets, want[i].buckets);
        T_NEAR(x.host_ops, want[i].ops, 0);
        T_NEAR(x.host_tensors, want[i].tensors, 0);
        T_NEAR(x.host_buckets, want[i].buckets, 0); /* the reducer's work: once per bucket */
        T_NEAR(m.host_rate_p10, 0, 0); /* no host work done: no probe */
        T_NEAR(x.layout_bytes, want[i].layout_bytes, want[i].layout_bytes * 1e-12);
        /* the compute-only step (DDP's no_sync) has no hooks, no bucket copies, and no buffer broadcast: under
         * no_sync() DDP's forward broadcasts nothing (step.c) */
        dry_buffer_calls = 0;
        T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_COMPUTE, 0, 1, 2, &m), NVS_OK);
        T_NEAR(x.host_tensors, 0, 0);
        T_NEAR(x.host_buckets, 0, 0);
        T_NEAR(x.host_ops, want[i].ops - pl.nbuckets - want[i].buffer_ops, 0);
        T_NEAR(x.host_buffer_ops, 0, 0);
        T_EQ_I(dry_buffer_calls, 0);
        /* the ideal framework broadcasts nothing, in the full step either, and casts no weights */
        nvs_train_plan_set_framework(&pl, nvs_framework_find("ideal"));
        T_EQ_I(pl.buffers, 0);
        dry_cast_elems = dry_passes32 = dry_bias_elems = 0;
        dry_act_casts[0] = dry_act_casts[1] = 0;
        T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_FULL, 0, 1, 2, &m), NVS_OK);
        T_NEAR(dry_cast_elems, 0, 0);
        T_NEAR(dry_passes32, 0, 0); /* every pass at the step's precision, nothing cast */
        T_EQ_I(dry_act_casts[0] + dry_act_casts[1], 0);
        T_NEAR(dry_bias_elems, want[i].bias_elems, 0); /* bias gradients are the model's, under any framework */
        T_EQ_U(pl.f32_elems, 0);
        T_NEAR(x.host_buffer_ops, 0, 0);
        T_EQ_I(dry_buffer_calls, 0);
        nvs_train_plan_free(&pl);
        nvs_profile_free(&p);
    }
}

/* A profile without ops=, casts=, tensors=: the step counts its own kernels as operations (one per GEMM, two in
 * backward after the first layer, one per element-wise pass begun, one per gradient pass, one per bias gradient), a GEMM layer's
 * parameter tensors as its casts, two tensors per layer with parameters (one with a single parameter); a
 * frozen (nograd) layer has no backward at all. */
static void t_host_work_defaults(void)
{
    static const char text[] = "nvscale-profile 1\nname t\nsource \"test\"\n"
                               "layer stem gemm=4,4,4 act=16 ew=2.5 nograd=1\n"  /* fwd 1 + 3 */
                               "layer a params=20 gemm=4,4,4 act=16 ew=1.5\n"    /* fwd 1 + 2, bwd 3 + 1 (first) + 1 (its bias: 4 x 4 + 4), casts 2 */
                               "layer n params=1 act=16\n"                        /* fwd 0, bwd 1 (grad pass) */
                               "layer b params=20 gemm=4,4,4 act=16 ops=5,7 casts=3 tensors=1\n";
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse(text, "t", &p, err, sizeof err), NVS_OK);
    nvs_train_plan pl;
    T_EQ_I(nvs_train_plan_make(&p, 1, NVS_PREC_FP32, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
    nvs_train_plan_set_framework(&pl, nvs_framework_find("pytorch-ddp"));
    nvs_train_exec x = {.ops = &dry_ops, .plan = &pl, .nranks = 2};
    nvs_step_medians m = {0};
    T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_COMPUTE, 0, 1, 2, &m), NVS_OK);
    /* fp32: stem 4 + a (3 + 5) + n (0 + 1) + b (5 + 7) + optimizer 1 */
    T_NEAR(x.host_ops, 4 + 8 + 1 + 12 + 1, 0);
    T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_FULL, 0, 1, 2, &m), NVS_OK);
    T_NEAR(x.host_tensors, 2 + 1 + 1, 0);
    /* the GEMM FLOPs the step runs (run.json step_gflops, gemm_tflops): the frozen stem forward only, a (after it)
     * forward and weight gradient, b all three; they counted the stem's backward and a's input gradient */
    const double fs = nvs_layer_fwd_flops(&p.layers[0]), fa = nvs_layer_fwd_flops(&p.layers[1]),
                 fb = nvs_layer_fwd_flops(&p.layers[3]);
    T_ASSERT(fs > 0 && fa > 0 && fb > 0);
    T_NEAR(pl.step_flops, fs + 2 * fa + 3 * fb, 1e-6);
    nvs_train_plan_free(&pl);
    /* bf16 under autocast: a's 2 casts and b's 3, each way; the stem has none (no parameters) */
    T_EQ_I(nvs_train_plan_make(&p, 1, NVS_PREC_BF16, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
    nvs_train_plan_set_framework(&pl, nvs_framework_find("pytorch-ddp"));
    x.plan = &pl;
    T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_COMPUTE, 0, 1, 2, &m), NVS_OK);
    T_NEAR(x.host_ops, 26 + 2 * (2 + 3), 0);
    /* the optimizer's operations are the optimizer's: SGD's one (optimizer.c says why one), AdamW's 9 foreach operations (torch/optim/adam.py
     * _multi_tensor_adam), 2 with fused=True (_fused_adam: the step count and torch._fused_adamw_); the ideal
     * framework's one update kernel whatever the optimizer. The host time owed goes with them. */
    /* pytorch-ddp's update costs torch.optim's host time per tensor (optimizer.c, measured), whatever its count */
    const struct {
        const char *fw, *opt;
        double ops, us_per_tensor;
    } opt_want[] = {{"pytorch-ddp", "sgd", 1, 2.62}, {"pytorch-ddp", "adamw", 9, 8.04},
                    {"pytorch-ddp", "adamw-fused", 2, 2.29}, {"ideal", "sgd", 1, 0},
                    {"ideal", "adamw", 1, 0},            {"ideal", "adamw-fused", 1, 0}};
    const double toy_tensors = nvs_profile_optimizer_tensors(&p);
    T_NEAR(toy_tensors, 2 + 1 + 1, 0); /* a, n, b: as the reducer's hooks count them (host_tensors above) */
    for (size_t i = 0; i < sizeof opt_want / sizeof opt_want[0]; i++) {
        nvs_optimizer o;
        int fused;
        T_EQ_I(nvs_optimizer_parse(opt_want[i].opt, &o, &fused), 0);
        nvs_train_plan_set_framework(&pl, nvs_framework_find(opt_want[i].fw));
        nvs_train_plan_set_optimizer(&pl, o, fused);
        x.host_due_us = 0;
        T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_COMPUTE, 0, 1, 2, &m), NVS_OK);
        const double base = pl.framework->optimizer_foreach ? 25 + 2 * (2 + 3) : 25;
        T_NEAR(x.host_ops, base + opt_want[i].ops, 0);
        T_NEAR(x.host_due_us, (x.host_ops - opt_want[i].ops) * pl.framework->host_us_per_op +
                                  opt_want[i].us_per_tensor * toy_tensors, 1e-6);
        T_NEAR(nvs_framework_optimizer_ops(pl.framework, o, nvs_train_plan_opt_foreach(&pl)), opt_want[i].ops, 0);
    }
    nvs_train_plan_free(&pl);
    nvs_profile_free(&p);
}

/* An executor whose GEMMs are synchronous compute (the host executor: train_exec.h sync_issue) does not pay the
 * framework's host work with them: on a CPU the framework's cost per operation comes on top of the compute. One
 * whose GEMMs return at once after a launch (the GPU executor) counts their host time against it, launches being
 * part of that cost. Here each GEMM holds the host 2 ms, far more than the toy's ~1 ms of framework work a step:
 * counted against it, no work was left (the host executor did 1.1-1.4 ms of ResNet-50's 18 at batch 1). */
static nvs_result_t busy_gemm(nvs_train_exec *x, int l, int k)
{
    (void)x, (void)l, (void)k;
    double t0 = nvs_now_us();
    while (nvs_now_us() - t0 < 2000) {}
    return NVS_OK;
}
static void t_host_work_sync_issue(void)
{
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse(toy, "toy", &p, err, sizeof err), NVS_OK);
    nvs_train_plan pl;
    T_EQ_I(nvs_train_plan_make(&p, 4, NVS_PREC_FP32, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
    nvs_train_plan_set_framework(&pl, nvs_framework_find("pytorch-ddp"));
    nvs_progress_enable(0);
    for (int sync = 0; sync < 2; sync++) {
        struct nvs_train_exec_ops ops = dry_ops;
        ops.gemm = busy_gemm;
        ops.sync_issue = sync;
        /* 0.01 units per us: the work itself is short, what matters is how much of the owed time it stands for */
        nvs_train_exec x;
        nvs_step_medians m;
        /* the step's own host time between its calls counts against the work owed (step.c host_work): a process
         * descheduled there for milliseconds (seen once: a CI run on 2 cores with two fuzzers beside it) does less of it,
         * never more, so the synchronous case takes the best of 3 tries */
        for (int tries = 0; tries < (sync ? 3 : 1); tries++) {
            x = (nvs_train_exec){.ops = &ops, .plan = &pl, .nranks = 1, .work_per_us = 0.01};
            memset(&m, 0, sizeof m);
            T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_COMPUTE, 0, 1, 1, &m), NVS_OK);
            if (x.work_units >= 0.9 * x.host_due_us * x.work_per_us) break;
        }
        T_ASSERT(x.host_due_us > 100); /* the toy's operations at pytorch-ddp's cost each */
        T_ASSERT(m.issue_by_us[NVS_ISSUE_GEMM] > 10 * x.host_due_us);
        /* synchronous: all but the driver's own bookkeeping (microseconds) done as work; else none of it */
        if (sync)
            T_ASSERT(x.work_units >= 0.9 * x.host_due_us * x.work_per_us);
        else
            T_ASSERT(x.work_units < 0.1 * x.host_due_us * x.work_per_us);
    }
    nvs_train_plan_free(&pl);
    nvs_profile_free(&p);
}

/* fp16's GradScaler (pytorch-ddp): foreach AdamW waits for found_inf once a step, fused AdamW takes it into its kernel
 * and does not wait, with one operation more (_foreach_sub_(state_steps, found_inf)); the check pass is issued
 * either way (framework.h nvs_framework_scaler_in_kernel; the model does the same: test_model_props
 * t_fused_amp_no_sync) */
static int dry_syncs;
static nvs_result_t dry_sync(nvs_train_exec *x) { (void)x; dry_syncs++; return NVS_OK; }
static void t_scaler_fused_no_wait(void)
{
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_load("resnet50", &p, err, sizeof err), NVS_OK);
    nvs_progress_enable(0);
    double ops[2];
    int syncs[2];
    for (int fused = 0; fused < 2; fused++) {
        nvs_train_plan pl;
        T_EQ_I(nvs_train_plan_make(&p, 128, NVS_PREC_FP16, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
        nvs_train_plan_set_framework(&pl, nvs_framework_find("pytorch-ddp"));
        nvs_train_plan_set_optimizer(&pl, NVS_OPT_ADAMW, fused);
        struct nvs_train_exec_ops o = dry_ops;
        o.sync = dry_sync;
        nvs_train_exec x = {.ops = &o, .plan = &pl, .nranks = 2};
        nvs_step_medians m = {0};
        dry_syncs = dry_unscales = 0;
        T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_FULL, 0, 1, 1, &m), NVS_OK);
        T_EQ_I(dry_unscales, 1);
        ops[fused] = x.host_ops;
        syncs[fused] = dry_syncs;
        nvs_train_plan_free(&pl);
    }
    /* foreach AdamW 9 operations, fused 2 and _foreach_sub_ (workload/optimizer.c) */
    T_NEAR(ops[0] - ops[1], 9 - (2 + 1), 0);
    T_EQ_I(syncs[0] - syncs[1], 1); /* found_inf.item(): foreach only */
    nvs_profile_free(&p);
}

/* copy_out's pieces: 1.47 copies of 10 elements in pieces of at most 4, none crossing the tensor's end */
static void t_copy_pieces(void)
{
    static const size_t want_off[] = {0, 4, 8, 0}, want_len[] = {4, 4, 2, 4};
    size_t done = 0, off = 0, c, k = 0;
    while ((c = nvs_copy_piece(done, 1.47, 10, 4, &off)) > 0) {
        T_ASSERT(k < 4);
        T_EQ_U(off, want_off[k]);
        T_EQ_U(c, want_len[k]);
        done += c;
        k++;
    }
    T_EQ_U(k, 4);
    T_EQ_U(done, 14);
    T_EQ_U(nvs_copy_piece(0, 2.0, 0, 4, &off), 0); /* an empty tensor: nothing */
}

/* Autocast's casts of the parameters, one launch per tensor (framework.h nvs_framework_cast_split): for BERT-MLM at
 * bf16, 146 weights and 146 biases in PyTorch's profile (results/h200x1-tfm-census6: 390 fp32-to-bf16 casts forward,
 * 98 of them LayerNorm outputs); the profile merges query, key and value into one layer (casts=6: three pieces of
 * its matrix, three of its bias), and the decoder's tied weight stands as two pieces of its own parameters. The
 * pieces cover each run exactly; at fp32, or under ideal, nothing. */
static void t_cast_split(void)
{
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_load("bert-large-mlm128", &p, err, sizeof err), NVS_OK);
    const nvs_framework *pt = nvs_framework_find("pytorch-ddp"), *ideal = nvs_framework_find("ideal");
    int w = 0, b = 0, any = 0;
    for (int l = 0; l < p.nlayers; l++) {
        nvs_cast_split sp;
        int n = nvs_framework_cast_split(pt, &p.layers[l], NVS_PREC_BF16, &sp);
        T_EQ_I(n, sp.w_pieces + sp.b_pieces);
        w += sp.w_pieces;
        b += sp.b_pieces;
        T_NEAR(sp.w_elems, nvs_framework_weight_cast_elems(pt, &p.layers[l], NVS_PREC_BF16), 0);
        if (sp.b_pieces) T_NEAR(sp.b_elems, nvs_layer_bias_elems(&p.layers[l]), 0);
        any += nvs_framework_cast_split(pt, &p.layers[l], NVS_PREC_FP32, &sp);
        any += nvs_framework_cast_split(ideal, &p.layers[l], NVS_PREC_BF16, &sp);
    }
    T_EQ_I(w, 24 * 6 + 1 + 2); /* qkv 3, attention output, intermediate, output; the transform; the decoder */
    T_EQ_I(b, 24 * 6 + 1);
    T_EQ_I(w + b, 146 + 146);
    T_EQ_I(any, 0);
    nvs_profile_free(&p);
    /* pieces: 10 elements in 3 launches, 3 + 3 + 4 */
    size_t first, count, next = 0;
    for (int i = 0; i < 3; i++) {
        nvs_cast_piece(10, 3, i, &first, &count);
        T_EQ_U(first, next);
        T_EQ_U(count, i < 2 ? 3 : 4);
        next = first + count;
    }
    T_EQ_U(next, 10);
}

/* The convolutions' plan (train/conv.h): shapes from a profile's geometry, cuDNN's types as PyTorch asks for
 * them, the algorithm choice, --cudnn's names; the step's scratch holds a strided 1x1's input, larger than its
 * im2col; the layout copies are left to the library for the layers it runs. */
static void t_conv_plan(void)
{
    static const char text[] = "nvscale-profile 1\nname t\nsource \"test\"\n"
                               "layer ds params=131072 gemm=784,512,256 act=401408 conv2d=56,56,1,1,2,0\n"
                               "layer c3 params=36864 gemm=784,64,576 act=50176 ew=1 conv2d=28,28,3,3,1,1\n"
                               "layer fc params=640 gemm=1,10,64 act=10\n";
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse(text, "t", &p, err, sizeof err), NVS_OK);
    nvs_conv_shape cs;
    T_EQ_I(nvs_conv_shape_of(&p.layers[0], 8, &cs), 0);
    T_EQ_I(cs.n, 8);
    T_EQ_I(cs.c, 256);
    T_EQ_I(cs.h, 56);
    T_EQ_I(cs.k, 512);
    T_EQ_I(cs.ho, 28);
    T_EQ_I(cs.wo, 28);
    T_NEAR(nvs_conv_in_elems(&cs), 8.0 * 256 * 56 * 56, 0);
    T_NEAR(nvs_conv_out_elems(&cs), 8.0 * 401408, 0); /* the layer's stored output */
    nvs_conv_shape c2;
    T_EQ_I(nvs_conv_shape_of(&p.layers[1], 8, &c2), 0);
    T_EQ_I(c2.c, 64);
    T_EQ_I(c2.p, 1);
    T_EQ_I(nvs_conv_shape_same(&cs, &c2), 0);
    T_EQ_I(nvs_conv_shape_same(&cs, &cs), 1);
    T_EQ_I(nvs_conv_shape_of(&p.layers[2], 8, &cs), -1);      /* no geometry */
    T_EQ_I(nvs_conv_shape_of(&p.layers[0], 5000, &cs), -2);   /* 5000*256*56*56 >= 2^31: stays a GEMM */
    /* scratch: the strided 1x1's input, 256*56*56, is 4x its im2col (784*256) */
    nvs_train_plan pl;
    T_EQ_I(nvs_train_plan_make(&p, 8, NVS_PREC_BF16, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
    T_EQ_U(pl.max_x_elems, (size_t)8 * 256 * 56 * 56);
    /* types and math: tensor ops at fp16 and bf16, FMA at fp32 without TF32, cuDNN's default with it */
    T_EQ_I(nvs_conv_dtype(NVS_ELEM_BF16), NVSDNN_DATA_BFLOAT16);
    T_EQ_I(nvs_conv_dtype(NVS_ELEM_F16), NVSDNN_DATA_HALF);
    T_EQ_I(nvs_conv_dtype(NVS_ELEM_F32), NVSDNN_DATA_FLOAT);
    T_EQ_I(nvs_conv_math(NVS_ELEM_F16, 0), NVSDNN_TENSOR_OP_MATH);
    T_EQ_I(nvs_conv_math(NVS_ELEM_F32, 0), NVSDNN_FMA_MATH);
    T_EQ_I(nvs_conv_math(NVS_ELEM_F32, 1), NVSDNN_DEFAULT_MATH);
    T_EQ_I(nvs_conv_math(NVS_ELEM_BF16, 0), NVSDNN_TENSOR_OP_MATH);
    /* the first candidate that succeeded within the workspace limit (Find lists the fastest first) */
    nvsdnn_perf_t perf[4] = {{.algo = 6, .status = 3000, .time = 0.1f, .memory = 0},
                             {.algo = 5, .status = 0, .time = 0.2f, .memory = 1 << 30},
                             {.algo = 1, .status = 0, .time = 0.3f, .memory = 1 << 20},
                             {.algo = 0, .status = 0, .time = 0.5f, .memory = 0}};
    T_EQ_I(nvs_conv_pick(perf, 4, 2.0 * (1 << 30)), 1);
    T_EQ_I(nvs_conv_pick(perf, 4, 2 << 20), 2);
    T_EQ_I(nvs_conv_pick(perf, 4, 0), 3);
    T_EQ_I(nvs_conv_pick(perf, 1, 1e18), -1);
    T_EQ_I(nvs_conv_pick(perf, 0, 1e18), -1);
    nvs_cudnn_mode m = NVS_CUDNN_OFF;
    T_EQ_I(nvs_cudnn_mode_parse("auto", &m), 0);
    T_EQ_I(m, NVS_CUDNN_AUTO);
    T_EQ_I(nvs_cudnn_mode_parse("on", &m), 0);
    T_EQ_I(m, NVS_CUDNN_ON);
    T_EQ_I(nvs_cudnn_mode_parse("ON", &m), -1);
    T_EQ_I(nvs_cudnn_mode_parse(NULL, &m), -1);
    T_EQ_S(nvs_cudnn_mode_name(NVS_CUDNN_OFF), "off");
    /* the layout copies of a layer the executor runs in the library are the library's own: not added */
    nvs_train_plan_set_framework(&pl, nvs_framework_find("pytorch-ddp"));
    nvs_progress_enable(0);
    unsigned char native[3] = {1, 0, 0};
    nvs_train_exec x = {.ops = &dry_ops, .plan = &pl, .nranks = 1};
    nvs_step_medians md = {0};
    T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_FULL, 0, 1, 1, &md), NVS_OK);
    const double both = x.layout_bytes;
    x.conv_native = native;
    T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_FULL, 0, 1, 1, &md), NVS_OK);
    const nvs_framework *fw = pl.framework;
    const double per_elem = 2.0 * (fw->nchw_copies_fwd + fw->nchw_copies_bwd) * 8 * 2; /* bf16, read + write */
    T_NEAR(both, per_elem * (401408 + 50176), both * 1e-12);
    T_NEAR(x.layout_bytes, per_elem * 50176, both * 1e-12);
    nvs_train_plan_free(&pl);
    nvs_profile_free(&p);
    /* what cuDNN runs of the built-ins: ResNet-50's 53 convolutions, and its 53 batch norms except at bf16 */
    int conv = -1, bn = -1, bn_total = -1;
    T_EQ_I(nvs_profile_load("resnet50", &p, err, sizeof err), NVS_OK);
    T_EQ_I(nvs_cudnn_layers(&p, NVS_PREC_BF16, &conv, &bn, &bn_total), 53);
    T_EQ_I(conv, 53);
    T_EQ_I(bn, 0);
    T_EQ_I(bn_total, 53);
    T_EQ_I(nvs_cudnn_layers(&p, NVS_PREC_FP16, &conv, &bn, &bn_total), 106);
    T_EQ_I(bn, 53);
    T_EQ_I(nvs_cudnn_layers(&p, NVS_PREC_FP32, NULL, NULL, NULL), 106);
    nvs_profile_free(&p);
    T_EQ_I(nvs_profile_load("bert-large-mlm128", &p, err, sizeof err), NVS_OK);
    T_EQ_I(nvs_cudnn_layers(&p, NVS_PREC_FP32, &conv, &bn, &bn_total), 0);
    nvs_profile_free(&p);
}

/* A failure of cuDNN's while planning it under --cudnn auto, which then falls back and runs: not an error (before,
 * "error: cudnnFind... failed" was printed and the run went on and succeeded); said as an info line that gives the
 * reason and where run.json records the fallback. Under --cudnn on it stops the run: an error. */
static void t_cudnn_fallback_said(void)
{
    T_EQ_I(nvs_cudnn_fail_level(NVS_CUDNN_AUTO), NVS_LOG_DEBUG);
    T_EQ_I(nvs_cudnn_fail_level(NVS_CUDNN_ON), NVS_LOG_ERROR);
    char note[512];
    nvs_cudnn_fallback_note(note, sizeof note, "cuDNN 9.1.0 failed planning them: cudnnFind failed");
    T_EQ_I(strncmp(note, "--cudnn auto: cuDNN 9.1.0 failed planning them: cudnnFind failed; ", 66), 0);
    T_EQ_I(strstr(note, "run.json train.conv.fallback") != NULL, 1);
    T_EQ_I(strstr(note, "error") == NULL, 1);
}

/* cuDNN loaded, then a call on its handle failed while opening it (cudnnSetStream): under --cudnn auto that falls
 * back and is said in the info line as a failure while planning is (before, nvs_cudnn_open printed "error:
 * cudnnSetStream failed" and the fallback was not said); a library or handle missing is said by the summary and
 * run.json, not there. nvs_cudnn_open itself needs libcudnn and a GPU: test_cudnn_gpu. */
static void t_cudnn_open_fallback_said(void)
{
    T_EQ_I(nvs_cudnn_fallback_said(0, NVS_ERR_CUDNN), 1);       /* cudnnSetStream failed */
    T_EQ_I(nvs_cudnn_fallback_said(0, NVS_ERR_UNSUPPORTED), 0); /* libcudnn.so.9 not loaded, no handle */
    T_EQ_I(nvs_cudnn_fallback_said(1, NVS_ERR_CUDNN), 1);       /* cudnnFind failed, planning */
    T_EQ_I(nvs_cudnn_fallback_said(1, NVS_ERR_NOMEM), 1);       /* its workspace did not fit */
    T_EQ_I(nvs_cudnn_fallback_said(1, NVS_OK), 0);
    /* what nvs_cudnn_open returns at each step it can fail: cudnnCreate failing (the library loaded, no handle
     * made) is said as cudnnSetStream's failure is (before, it returned NVS_ERR_UNSUPPORTED and under --cudnn auto
     * fell back with no info line, only the summary and run.json saying it) */
    T_EQ_I(nvs_cudnn_fallback_said(0, nvs_cudnn_open_fail(NVS_CUDNN_AT_CREATE)), 1);
    T_EQ_I(nvs_cudnn_fallback_said(0, nvs_cudnn_open_fail(NVS_CUDNN_AT_SET_STREAM)), 1);
    T_EQ_I(nvs_cudnn_fallback_said(0, nvs_cudnn_open_fail(NVS_CUDNN_AT_LOAD)), 0);
    T_EQ_I(nvs_cudnn_fallback_said(0, nvs_cudnn_open_fail(NVS_CUDNN_AT_SYMBOL)), 0);
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_AUTO, nvs_cudnn_open_fail(NVS_CUDNN_AT_CREATE), 0), 1);
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_ON, nvs_cudnn_open_fail(NVS_CUDNN_AT_CREATE), 0), 0);
    /* and it falls back, under auto only, so that its level is no error there */
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_AUTO, NVS_ERR_CUDNN, 0), 1);
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_ON, NVS_ERR_CUDNN, 0), 0);
}

/* The batch norms' reason (run.json train.batchnorm.why, the summary's note) once cuDNN is off on this rank: what
 * turned it off (another rank lacking it, under --cudnn auto: run/phase_train.c conv_agree), not the reason
 * planning them set before (before, "3 at batch 4096 hold 2^31 elements or more..." stayed, while none ran in cuDNN
 * for another reason). */
static void t_bn_why(void)
{
    const char *off = "another rank could not use cuDNN, so no rank does";
    const char *big = "3 at batch 4096 hold 2^31 elements or more, beyond cuDNN's sizes: they run in nvscale's kernels";
    const char *bf16 = "PyTorch runs bf16 batch norms in its own kernels, not cuDNN's";
    T_EQ_S(nvs_bn_why(1, 0, 0, big, off), off);   /* planned in cuDNN, then turned off by the agreement */
    T_EQ_S(nvs_bn_why(1, 1, 1, big, ""), big);    /* cuDNN on: some in cuDNN, the others too large */
    T_EQ_S(nvs_bn_why(1, 1, 0, big, ""), big);    /* cuDNN on, all of them too large */
    T_EQ_S(nvs_bn_why(0, 0, 0, bf16, off), bf16); /* bf16: PyTorch's own kernels, whatever cuDNN did */
    T_EQ_S(nvs_bn_why(1, 0, 0, "", "libcudnn.so.9: not found"), "libcudnn.so.9: not found");
    T_EQ_I(nvs_bn_why(1, 0, 0, "", "") == NULL, 1); /* --cudnn off: no reason but the flag */
}

/* --cudnn auto and cuDNN's own device buffers not fitting: the workspace and the batch norms' buffers alike turn
 * cuDNN off with the reason said (before, a workspace that did not fit fell back and batch-norm statistics or
 * reserve space that did not fit stopped the run); --cudnn on stops; a host out of memory stops. */
static void t_cudnn_oom_fallback(void)
{
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_AUTO, NVS_ERR_NOMEM, 1), 1);  /* workspace or batch-norm buffers */
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_AUTO, NVS_ERR_NOMEM, 0), 0);  /* the host's memory */
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_AUTO, NVS_ERR_CUDNN, 0), 1);
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_AUTO, NVS_ERR_UNSUPPORTED, 0), 1); /* libcudnn.so.9 not loaded */
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_ON, NVS_ERR_NOMEM, 1), 0);
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_ON, NVS_ERR_CUDNN, 0), 0);
    T_EQ_I(nvs_cudnn_falls_back(NVS_CUDNN_AUTO, NVS_OK, 0), 0);
    char why[128];
    nvs_cudnn_oom_why(why, sizeof why, "workspace", 536870912, 100 << 20);
    T_EQ_S(why, "out of memory for a 536870912-byte workspace (100.0 MiB of GPU memory free)");
    nvs_cudnn_oom_why(why, sizeof why, "batch-norm reserve space", 4096, 0);
    T_EQ_S(why, "out of memory for a 4096-byte batch-norm reserve space (0.0 MiB of GPU memory free)");
    nvs_cudnn_oom_why(why, 16, "workspace", 1, 0); /* truncated, terminated */
    T_EQ_I((int)strlen(why), 15);
}

/* A batch norm (bn=) the executor runs in a library: its call forward and backward, in place of its share of the
 * passes (1.5 of ew 2.5 here: the ReLU's 1 stays, twice backward) and of the layer's gradient pass; elsewhere the
 * passes and the gradient pass as before. bn= also sizes the scratch for its output and parameter gradients. */
static void t_native_norm(void)
{
    static const char text[] = "nvscale-profile 1\nname t\nsource \"test\"\n"
                               "layer c params=4096 gemm=100,64,64 act=6400 conv2d=10,10,1,1,1,0\n"
                               "layer bn params=128 act=6400 ew=2.5 bn=1.5\n"
                               "layer bn2 params=4096 act=20480 ew=1.5 bn=1.5\n";
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse(text, "t", &p, err, sizeof err), NVS_OK);
    T_NEAR(p.layers[1].bn_passes, 1.5, 0);
    T_NEAR(p.layers[0].bn_passes, 0, 0);
    nvs_train_plan pl;
    T_EQ_I(nvs_train_plan_make(&p, 8, NVS_PREC_FP32, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
    T_EQ_U(pl.max_x_elems, (size_t)8 * 20480); /* bn2's output, larger than the GEMM's input (8 * 100 * 64) */
    T_EQ_U(pl.max_w_elems, 4096);
    nvs_progress_enable(0);
    nvs_train_exec x = {.ops = &dry_ops, .plan = &pl, .nranks = 1};
    nvs_step_medians md = {0};
    dry_passes = 0, dry_norms[0] = dry_norms[1] = 0, dry_grad_passes = 0;
    T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_COMPUTE, 0, 1, 1, &md), NVS_OK);
    T_NEAR(dry_passes, 3 * (2.5 * 6400 + 1.5 * 20480), 0); /* ew forward, 2 ew backward */
    T_EQ_I(dry_norms[0] + dry_norms[1], 0);
    T_EQ_I(dry_grad_passes, 2);
    unsigned char native[6] = {0, 0, 0, 0, 1, 0}; /* conv_native, then norm_native: bn runs in the library */
    x.conv_native = native;
    x.norm_native = native + 3;
    dry_passes = 0, dry_grad_passes = 0;
    T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_COMPUTE, 0, 1, 1, &md), NVS_OK);
    T_NEAR(dry_passes, 3 * (1.0 * 6400 + 1.5 * 20480), 0);
    T_EQ_I(dry_norms[0], 1);
    T_EQ_I(dry_norms[1], 1);
    T_EQ_I(dry_grad_passes, 1); /* bn2 only */
    /* and in the step without GEMMs too: a batch norm is memory-bound work */
    dry_norms[0] = dry_norms[1] = 0;
    T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_NO_GEMM, 0, 1, 1, &md), NVS_OK);
    T_EQ_I(dry_norms[0] + dry_norms[1], 2);
    nvs_train_plan_free(&pl);
    nvs_profile_free(&p);
}

/* ewb= passes run in the backward pass only, after the layer's 2 ew, in every variant of the step (memory-bound
 * work): 2.5 of them over c's 6400 elements beside its ew 1 */
static void t_backward_passes(void)
{
    static const char text[] = "nvscale-profile 1\nname t\nsource \"test\"\n"
                               "layer a params=4096 gemm=100,64,64 act=6400\n"
                               "layer c params=4160 gemm=100,64,64 act=6400 ew=1 ewb=2.5\n";
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse(text, "t", &p, err, sizeof err), NVS_OK);
    nvs_train_plan pl;
    T_EQ_I(nvs_train_plan_make(&p, 8, NVS_PREC_FP32, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
    nvs_progress_enable(0);
    nvs_train_exec x = {.ops = &dry_ops, .plan = &pl, .nranks = 1};
    nvs_step_medians md = {0};
    const int modes[] = {NVS_STEP_COMPUTE, NVS_STEP_NO_GEMM, NVS_STEP_FULL};
    for (int i = 0; i < 3; i++) {
        dry_passes = 0;
        T_EQ_I(nvs_train_time_steps(&x, modes[i], 0, 1, 1, &md), NVS_OK);
        T_NEAR(dry_passes, (3 * 1.0 + 2.5) * 6400, 0);
    }
    nvs_train_plan_free(&pl);
    nvs_profile_free(&p);
}

/* --rounds: a point is its median round (step, compute, all-reduces and split from one stretch of the host), its
 * efficiency the median of the rounds' own ratios against the same round's first point, the host's rates the
 * widest, the hardware-only and GEMM-less steps round 0's. */
static void t_rounds_merge(void)
{
    nvs_train_point raw[6];
    memset(raw, 0, sizeof raw);
    /* round r, point i at raw[r * 2 + i]: N=1 steps 100, 140, 100; N=2 steps 125, 140, 110 */
    const double s1[3] = {100, 140, 100}, s2[3] = {125, 140, 110};
    for (int r = 0; r < 3; r++) {
        raw[r * 2] = (nvs_train_point){.n = 1, .step_us = s1[r], .compute_us = 90 + r, .comm_us = 1, .slowest_rank = 0,
                                       .host_rate_lo = 10 + r, .host_rate_hi = 20 + r, .no_gemm_us = -1,
                                       .ideal_compute_us = -1};
        raw[r * 2 + 1] = (nvs_train_point){.n = 2, .step_us = s2[r], .compute_us = 95 + r, .comm_us = 30 + r,
                                           .span_diff_us = r, .slowest_rank = r % 2, .host_rate_lo = 12 - r,
                                           .host_rate_hi = 18, .no_gemm_us = -1, .ideal_compute_us = -1};
    }
    raw[0].no_gemm_us = 40;
    raw[0].ideal_compute_us = 80;
    nvs_train_point m;
    nvs_train_rounds_merge(raw, 2, 1, 3, &m);
    T_EQ_I(m.n, 2);
    T_EQ_I(m.rounds, 3);
    /* median step 125 is round 0's: its compute, all-reduces, split and slowest rank */
    T_NEAR(m.step_us, 125, 0);
    T_NEAR(m.compute_us, 95, 0);
    T_NEAR(m.comm_us, 30, 0);
    T_NEAR(m.span_diff_us, 0, 0);
    T_EQ_I(m.slowest_rank, 0);
    /* ratios 0.8, 1.0, 0.909: median 100/110, not 100/125 (the ratio of the medians) */
    T_NEAR(m.eff, 100.0 / 110, 1e-12);
    T_NEAR(m.eff_lo, 0.8, 1e-12);
    T_NEAR(m.eff_hi, 1.0, 1e-12);
    T_NEAR(m.host_rate_lo, 10, 0);
    T_NEAR(m.host_rate_hi, 18, 0);
    T_NEAR(m.no_gemm_us, -1, 0); /* round 0 of this point measured none */
    /* the reference point: 100 % in every round; its hardware-only step from round 0 */
    nvs_train_rounds_merge(raw, 2, 0, 3, &m);
    T_NEAR(m.step_us, 100, 0);
    T_NEAR(m.eff, 1, 0);
    T_NEAR(m.eff_lo, 1, 0);
    T_NEAR(m.ideal_compute_us, 80, 0);
    T_NEAR(m.no_gemm_us, 40, 0);
    T_NEAR(m.host_rate_lo, 10, 0);
    T_NEAR(m.host_rate_hi, 22, 0);
    /* two rounds: the lower of the two middle steps stands for the point (round 0, 125 < 140) */
    nvs_train_rounds_merge(raw, 2, 1, 2, &m);
    T_NEAR(m.step_us, 125, 0);
    T_NEAR(m.compute_us, 95, 0);
    T_NEAR(m.eff, (0.8 + 1.0) / 2, 1e-12);
    /* one round is the round itself */
    nvs_train_rounds_merge(raw, 2, 1, 1, &m);
    T_NEAR(m.step_us, 125, 0);
    T_NEAR(m.eff, 0.8, 1e-12);
    T_EQ_I(m.rounds, 1);
    /* the order: even rounds up, odd rounds down; a point pairs the rounds in which the reference is measured too */
    T_EQ_I(nvs_train_rounds_point(3, 0, 0), 0);
    T_EQ_I(nvs_train_rounds_point(3, 1, 0), 2);
    T_EQ_I(nvs_train_rounds_point(3, 1, 2), 0);
    T_EQ_I(nvs_train_rounds_point(3, 2, 1), 1);
    T_EQ_I(nvs_train_rounds_usable(3, 0, 0, 0), 1); /* round 0: the reference first */
    T_EQ_I(nvs_train_rounds_usable(3, 0, 1, 1), 1);
    T_EQ_I(nvs_train_rounds_usable(3, 0, 1, 2), 0); /* not measured yet */
    T_EQ_I(nvs_train_rounds_usable(3, 1, 0, 2), 1); /* round 1 measured N=last first: no reference yet this round */
    T_EQ_I(nvs_train_rounds_usable(3, 1, 1, 1), 1);
    T_EQ_I(nvs_train_rounds_usable(3, 1, 2, 2), 2); /* the reference came last: both rounds pair */
    T_EQ_I(nvs_train_rounds_usable(3, 1, 2, 0), 2);
    T_EQ_I(nvs_train_rounds_usable(3, 1, 1, 0), 1);
    T_EQ_I(nvs_train_rounds_usable(3, 2, 0, 1), 2);
    T_EQ_I(nvs_train_rounds_usable(1, 1, 0, 0), 2); /* one point: it is the reference */
    /* nothing to merge */
    nvs_train_rounds_merge(raw, 2, 1, 0, &m);
    T_EQ_I(m.n, 0);
    nvs_train_rounds_merge(raw, 2, 2, 3, &m);
    T_EQ_I(m.n, 0);
}

/* The bias-gradient reduction's launch shape (train/reduce_kernels.h): on an H200 (132 SMs) BERT's and lm290m's
 * 4096-token gradients split their rows over 32 blocks per column group (each thread sums 32 rows); a vocabulary's
 * 30,522 columns fill the GPU at 9 and may take 4 waves (NVS_OUTER_SUM_WAVES: 35), so the rows bind there too
 * (32); wider gradients are held to 4 waves, G rounded down (never 5 waves' worth of blocks), and columns beyond 4
 * waves get 1; up to 128 rows stay in one block, nothing staged; bad shapes give 1. */
static void t_outer_sum_shape(void)
{
    const nvs_sm_shape H200 = {132, 2048};
    T_EQ_I(nvs_outer_sum_ctas(4096, 1024, H200), 32);
    T_EQ_I(nvs_outer_sum_ctas(4096, 4096, H200), 32);
    T_EQ_I(nvs_outer_sum_ctas(4096, 30522, H200), 32); /* 239 column groups: 2112 blocks / 239 = 9, 4 waves 36 */
    T_EQ_I(nvs_outer_sum_ctas(1LL << 20, 270336, H200), 4); /* 2112 column groups: one a slot, 4 waves */
    T_EQ_I(nvs_outer_sum_ctas(1LL << 20, 270208, H200), 4); /* 2111 groups: 8444 blocks, not 5 x 2111 = 10555 */
    T_EQ_I(nvs_outer_sum_ctas(1LL << 20, 540672, H200), 2); /* 4224 groups: 2 waves a G */
    T_EQ_I(nvs_outer_sum_ctas(1LL << 20, 8449 * 128, H200), 1); /* more groups than 4 waves hold */
    T_EQ_U(nvs_outer_sum_staging(4096, 1024, H200), 32 * 1024);
    T_EQ_I(nvs_outer_sum_sems(4096, 1024, H200), 8);
    T_EQ_I(nvs_outer_sum_sems(4096, 1030, H200), 9);
    T_EQ_I(nvs_outer_sum_ctas(128, 1024, H200), 1);
    T_EQ_U(nvs_outer_sum_staging(128, 1024, H200), 0);
    T_EQ_I(nvs_outer_sum_sems(128, 1024, H200), 0);
    T_EQ_I(nvs_outer_sum_ctas(129, 1024, H200), 2);
    T_EQ_I(nvs_outer_sum_ctas(1LL << 40, 128, H200), 4 * 2112); /* 4 waves of 16 blocks of 128 threads per SM */
    T_EQ_I(nvs_outer_sum_ctas(0, 1024, H200), 1);
    T_EQ_I(nvs_outer_sum_ctas(4096, 1024, ((nvs_sm_shape){0, 2048})), 1);
    T_EQ_I(nvs_outer_sum_ctas(4096, 1024, ((nvs_sm_shape){132, 64})), 1); /* not even one block an SM */
    /* an sm_86/sm_89 GPU holds 1536 threads an SM, 12 of these blocks: the grid fills at 3/4 of an H200's per SM
     * (an RTX A6000's 84 SMs: 1008 blocks; over the vocabulary's 239 column groups, 4 waves hold 16) */
    T_EQ_I(nvs_outer_sum_ctas(1LL << 40, 128, ((nvs_sm_shape){132, 1536})), 4 * 1584);
    T_EQ_I(nvs_outer_sum_ctas(4096, 30522, ((nvs_sm_shape){84, 1536})), 16);
    T_EQ_I(nvs_outer_sum_ctas(4096, 1024, ((nvs_sm_shape){84, 1536})), 32); /* still bound by the rows */
    /* the plan's bound on the staging holds on any GPU and for any tensor's share of the columns */
    T_EQ_U(nvs_outer_sum_staging_max(4096, 1024), 32 * 1024);
    T_EQ_U(nvs_outer_sum_staging_max(128, 1024), 0);
    for (int sms = 1; sms <= 1024; sms *= 2)
        for (int threads = 1024; threads <= 2048; threads += 512)
            for (int cols = 1; cols <= 40000; cols = cols * 3 + 1) {
                const nvs_sm_shape sm = {sms, threads};
                if (nvs_outer_sum_staging(4096, cols, sm) > nvs_outer_sum_staging_max(4096, cols))
                    T_FAIL("staging %zu above the bound %zu (%d SMs of %d threads, %d columns)",
                           nvs_outer_sum_staging(4096, cols, sm), nvs_outer_sum_staging_max(4096, cols), sms, threads,
                           cols);
            }
}

/* perm= passes: under a framework that copies through views (pytorch-ddp) one copy forward and one backward in
 * place of as many passes, the traffic unchanged; under ideal passes, none copied */
static void t_view_passes(void)
{
    static const char text[] = "nvscale-profile 1\nname t\nsource \"test\"\n"
                               "layer a params=4096 gemm=100,64,64 act=6400\n"
                               "layer c params=12480 gemm=100,192,64 act=19200 ew=2.5 perm=1\n";
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse(text, "t", &p, err, sizeof err), NVS_OK);
    nvs_train_plan pl;
    T_EQ_I(nvs_train_plan_make(&p, 8, NVS_PREC_BF16, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
    /* the copy's destination, the input-gradient scratch, holds the whole output */
    T_EQ_U(pl.max_x_elems, 19200 * 8);
    nvs_progress_enable(0);
    nvs_train_exec x = {.ops = &dry_ops, .plan = &pl, .nranks = 1};
    nvs_step_medians md = {0};
    const char *fws[] = {"pytorch-ddp", "ideal"};
    for (int f = 0; f < 2; f++) {
        nvs_train_plan_set_framework(&pl, nvs_framework_find(fws[f]));
        dry_passes = dry_views[0] = dry_views[1] = 0;
        T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_COMPUTE, 0, 1, 1, &md), NVS_OK);
        T_NEAR(dry_views[0], f == 0 ? 19200 : 0, 0);
        T_NEAR(dry_views[1], f == 0 ? 19200 : 0, 0);
        T_NEAR(dry_passes + dry_views[0] + dry_views[1], 3 * 2.5 * 19200, 0);
    }
    nvs_train_plan_free(&pl);
    nvs_profile_free(&p);
}

/* The copy through a view (view_plan.h): the divider divides every index exactly, the source index is the swap's,
 * and the launch is PyTorch's legacy shape (128 threads; 4 elements a thread at 2 bytes, 2 at 4) */
static void t_view_plan(void)
{
    static const unsigned ds[] = {1, 2, 3, 7, 8, 64, 100, 512, 1000, 1024, 3072, 65537, 1u << 20, 2147483647u};
    for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++) {
        nvs_divider v = nvs_divider_of(ds[k]);
        for (unsigned n = 0; n < 100000; n++)
            if (nvs_divider_div(&v, n) != n / ds[k]) T_FAIL("%u / %u: %u", n, ds[k], nvs_divider_div(&v, n));
        for (unsigned n = 2147483647u; n > 2147483647u - 100000; n--)
            if (nvs_divider_div(&v, n) != n / ds[k]) T_FAIL("%u / %u: %u", n, ds[k], nvs_divider_div(&v, n));
        for (unsigned n = 1, s = 0; s < 200000; s++, n = n * 1103515245u + 12345u)
            if (nvs_divider_div(&v, n & 0x7fffffffu) != (n & 0x7fffffffu) / ds[k]) T_FAIL("%u / %u", n, ds[k]);
    }
    nvs_view_plan p;
    /* lm290m's head split at bf16, batch 8: 8 x 512 x 3072 elements */
    T_EQ_I(nvs_view_plan_of(1, 8, 512, 3072, 2, &p), 0);
    T_EQ_U(p.n, 8u * 512 * 3072);
    T_EQ_I(p.unroll, 4);
    T_EQ_U(p.blocks, 8u * 512 * 3072 / 512);
    T_EQ_I(nvs_view_plan_of(1, 8, 512, 3072, 4, &p), 0);
    T_EQ_I(p.unroll, 2);
    T_EQ_U(p.blocks, 8u * 512 * 3072 / 256);
    /* every output element reads a distinct source element, the one the swap names */
    const long long o = 2, a = 3, b = 5, r = 7;
    T_EQ_I(nvs_view_plan_of(o, a, b, r, 2, &p), 0);
    T_EQ_U(p.blocks, 1);
    static unsigned char seen[2 * 3 * 5 * 7];
    for (unsigned idx = 0; idx < p.n; idx++) {
        unsigned rr = idx % r, i = idx / r % a, j = idx / r / a % b, oo = idx / r / a / b;
        unsigned src = nvs_view_src_index(&p, idx);
        T_EQ_U(src, ((oo * a + i) * b + j) * r + rr);
        seen[src]++;
    }
    for (size_t k = 0; k < sizeof seen; k++) T_EQ_I(seen[k], 1);
    /* refused: an empty dimension, an element that is neither 2 nor 4 bytes, 2^31 elements */
    T_EQ_I(nvs_view_plan_of(1, 0, 5, 7, 2, &p), -1);
    T_EQ_I(nvs_view_plan_of(1, 3, 5, 7, 8, &p), -1);
    T_EQ_I(nvs_view_plan_of(1, 1 << 16, 1 << 15, 1, 2, &p), -1);
    T_EQ_I(nvs_view_plan_of(1, (1 << 16) - 1, 1 << 15, 1, 2, &p), 0);
    T_EQ_I(nvs_view_plan_of(3, 1LL << 30, 1, 1, 2, &p), -1);
}

/* ln=: an executor with LayerNorm kernels runs the norm's own passes as one kernel forward and one backward (in
 * place of the gradient pass), over fp32 where autocast keeps the layer's passes in fp32 (pytorch-ddp at bf16),
 * the rest (a dropout) as passes; without such kernels, all passes as before */
static void t_ln_issue(void)
{
    static const char text[] = "nvscale-profile 1\nname t\nsource \"test\"\n"
                               "layer a params=4096 gemm=100,64,64 act=6400\n"
                               "layer n params=128 act=6400 ew=2.5 ew32=2.5 ln=1.5 casts=1\n"
                               "layer b params=4096 gemm=100,64,64 act=6400\n";
    nvs_profile p;
    char err[256];
    T_EQ_I(nvs_profile_parse(text, "t", &p, err, sizeof err), NVS_OK);
    nvs_train_plan pl;
    T_EQ_I(nvs_train_plan_make(&p, 8, NVS_PREC_BF16, 0, 1 << 20, 25 << 20, &pl), NVS_OK);
    /* the scratch holds the fp32 output: 6400 x 8 x 4 bytes in 2-byte elements */
    T_ASSERT(pl.max_x_elems >= 2 * 6400 * 8);
    nvs_progress_enable(0);
    nvs_step_medians md = {0};
    const char *fws[] = {"pytorch-ddp", "ideal"};
    for (int f = 0; f < 2; f++) {
        nvs_train_plan_set_framework(&pl, nvs_framework_find(fws[f]));
        for (int k = 0; k < 2; k++) {
            nvs_train_exec x = {.ops = k ? &dry_ops : &dry_ln_ops, .plan = &pl, .nranks = 1};
            memset(dry_lns, 0, sizeof dry_lns);
            dry_passes = dry_passes32 = 0;
            dry_grad_passes = 0;
            T_EQ_I(nvs_train_time_steps(&x, NVS_STEP_COMPUTE, 0, 1, 1, &md), NVS_OK);
            const int fp32 = f == 0; /* autocast's fp32 tensors under pytorch-ddp */
            T_EQ_I(dry_lns[0][fp32], k ? 0 : 1);
            T_EQ_I(dry_lns[1][fp32], k ? 0 : 1);
            T_EQ_I(dry_lns[0][!fp32] + dry_lns[1][!fp32], 0);
            T_EQ_I(dry_grad_passes, k ? 1 : 0);
            /* the dropout's pass forward and two backward, or all 2.5 x 3 without the kernels */
            T_NEAR(dry_passes, (k ? 2.5 : 1.0) * 3 * 6400, 0);
            T_NEAR(dry_passes32, fp32 ? (k ? 2.5 : 1.0) * 3 * 6400 : 0, 0);
        }
    }
    nvs_train_plan_free(&pl);
    nvs_profile_free(&p);
}

T_LIST = {T_CASE(t_ddp_buckets), T_CASE(t_plan_uses_shared_buckets), T_CASE(t_builtin_resnet50_buckets),
          T_CASE(t_predict), T_CASE(t_rows_over_int), T_CASE(t_split), T_CASE(t_host_work_counts),
          T_CASE(t_host_work_defaults), T_CASE(t_host_work_sync_issue), T_CASE(t_scaler_fused_no_wait), T_CASE(t_copy_pieces), T_CASE(t_cast_split), T_CASE(t_conv_plan), T_CASE(t_cudnn_oom_fallback), T_CASE(t_bn_why), T_CASE(t_cudnn_fallback_said), T_CASE(t_cudnn_open_fallback_said),
          T_CASE(t_native_norm), T_CASE(t_backward_passes), T_CASE(t_rounds_merge), T_CASE(t_outer_sum_shape),
          T_CASE(t_view_passes), T_CASE(t_view_plan), T_CASE(t_ln_issue)};
T_MAIN
