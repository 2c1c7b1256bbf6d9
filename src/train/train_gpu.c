/* GPU executor of the synthetic step: cuBLAS GEMMs (cuDNN convolutions where the profile gives their geometry and
 * cuDNN loads: train/conv.h) and element-wise passes on a compute stream, NCCL all-reduces of the gradient buckets
 * on a communication stream that waits for each bucket's event — the overlap PyTorch DDP gets, competing for SMs
 * and memory bandwidth in the same way. This file: the executor's setup (buffers, streams, events), its teardown,
 * its timing marks and its table of calls; the calls themselves are in the files train_gpu_priv.h lists. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "train/ln_step.h"
#include "train/reduce_kernels.h"
#include "train/train_exec.h"
#include "train/train_gpu_priv.h"
#include "workload/framework.h"

static nvs_result_t gmem(nvs_train_exec *x, double *free_bytes)
{
    (void)x;
    size_t fr = 0, tot = 0;
    CUDA_TRY(cudaMemGetInfo(&fr, &tot));
    *free_bytes = (double)fr;
    return NVS_OK;
}

static nvs_result_t dalloc(void **p, double bytes, const char *what)
{
    size_t b = bytes > 0 ? (size_t)ceil(bytes) : 256;
    cudaError_t e = cudaMalloc(p, b);
    return e == cudaSuccess ? NVS_OK : nvs_cuda_alloc_fail(b, what, e);
}

/* Statistics for every batch norm, since any may run in the executor's kernels (conv_agree, src/run, can turn
 * cuDNN off after setup), and those cuDNN does not run, to the kernels. */
static nvs_result_t bn_kernels_setup(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_profile *p = x->plan->profile;
    size_t tot = 0;
    g->bn_off = calloc((size_t)p->nlayers + 1, sizeof *g->bn_off);
    if (!g->bn_off) return NVS_ERR_NOMEM;
    for (int l = 0; l < p->nlayers; l++) {
        g->bn_off[l] = tot;
        if (p->layers[l].bn_passes > 0) tot += 4 * (size_t)(p->layers[l].params / 2);
    }
    if (!tot) return NVS_OK;
    NVS_CHECK(dalloc((void **)&g->bn_stats, (double)tot * 4, "batch-norm statistics"));
    CUDA_TRY(cudaMemsetAsync(g->bn_stats, 0, tot * 4, g->compute)); /* finite before the first forward */
    nvs_tg_norms_to_kernels(x);
    return cuda_sync(g->compute);
}

/* The staging and semaphores of the framework's bias-gradient reduction: the most any bias of the step needs on
 * this GPU (a few MB at most: G <= rows / 128 partial sums per column, reduce_kernels.h; inside the 64 MB the
 * plan's memory check keeps spare, train_plan.c); the semaphores start at
 * zero and every launch leaves them so */
static nvs_result_t bias_reduce_setup(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    for (int l = 0; l < pl->profile->nlayers; l++) {
        const nvs_layer *ly = &pl->profile->layers[l];
        double rows = ly->gemm_m * pl->batch, n = nvs_layer_bias_elems(ly);
        if (n <= 0 || n > INT_MAX || rows < 1) continue;
        const int pieces = nvs_layer_bias_tensors(ly);
        for (int i = 0; i < pieces; i++) { /* a launch per bias tensor (nvs_tg_bias) */
            size_t first, count;
            nvs_cast_piece(n, pieces, i, &first, &count);
            size_t st = nvs_outer_sum_staging((long long)rows, (int)count, g->sm);
            int se = nvs_outer_sum_sems((long long)rows, (int)count, g->sm);
            if (st > g->bias_staging_elems) g->bias_staging_elems = st;
            if (se > g->bias_nsems) g->bias_nsems = se;
        }
    }
    if (g->bias_staging_elems > 0)
        NVS_CHECK(dalloc((void **)&g->bias_staging, (double)g->bias_staging_elems * 4, "bias-gradient staging"));
    if (g->bias_nsems > 0) {
        NVS_CHECK(dalloc((void **)&g->bias_sems, (double)g->bias_nsems * sizeof(unsigned), "bias-gradient semaphores"));
        CUDA_TRY(cudaMemsetAsync(g->bias_sems, 0, (size_t)g->bias_nsems * sizeof(unsigned), g->compute));
    }
    return NVS_OK;
}

static nvs_result_t gsetup(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    g->es = nvs_precision_bytes(pl->precision);
    const int el = elem_of(pl);
    g->bucket_ev = calloc((size_t)pl->nbuckets + 1, sizeof(cudaEvent_t));
    if (!g->bucket_ev) return NVS_ERR_NOMEM;
    /* the buffer layout is the plan's (train_plan.c), the same the memory check counted */
    const int L = pl->profile->nlayers;
    const size_t wtot = pl->w_off[L], atot = pl->a_off[L], maxx = pl->max_x_elems, maxw = pl->max_w_elems;
    CUDA_TRY(cudaStreamCreateWithFlags(&g->compute, cudaStreamNonBlocking));
    CUDA_TRY(cudaStreamCreateWithFlags(&g->comm, cudaStreamNonBlocking));
    for (int b = 0; b < pl->nbuckets; b++) CUDA_TRY(cudaEventCreateWithFlags(&g->bucket_ev[b], cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreateWithFlags(&g->comm_done, cudaEventDisableTiming));
    for (int i = 0; i < 2; i++) CUDA_TRY(cudaEventCreate(&g->mark[i]));
    BLAS_TRY(cublasCreate(&g->blas));
    BLAS_TRY(cublasSetStream(g->blas, g->compute));
    NVS_CHECK(dalloc(&g->weights, (double)wtot * g->es, "GEMM weights"));
    NVS_CHECK(dalloc(&g->acts, (double)atot * g->es, "activations"));
    NVS_CHECK(dalloc(&g->ws_x, (double)maxx * g->es, "GEMM input workspace"));
    NVS_CHECK(dalloc(&g->ws_dx, (double)maxx * g->es, "input-gradient workspace"));
    NVS_CHECK(dalloc((void **)&g->ws_w, (double)maxw * 4, "weight-gradient workspace"));
    if (pl->max_bias_rows > 0) {
        NVS_CHECK(dalloc(&g->ones, (double)pl->max_bias_rows * g->es, "ones for the bias gradients"));
        CUDA_TRY(cudaMemsetAsync(g->ones, 0, pl->max_bias_rows * g->es, g->compute));
        CUDA_TRY(nvs_kern_axpb(g->ones, pl->max_bias_rows, el, 0.0f, 1.0f, g->compute));
    }
    {
        int dev = 0;
        CUDA_TRY(cudaGetDevice(&dev));
        CUDA_TRY(nvs_sm_shape_of(dev, &g->sm));
    }
    if (pl->max_bias_rows > 0 && pl->framework->bias_reduce) NVS_CHECK(bias_reduce_setup(x));
    NVS_CHECK(nvs_ln_bufs_setup(&g->ln, pl, g->sm, g->compute));
    if (pl->f32_elems > 0) {
        NVS_CHECK(dalloc((void **)&g->f32, (double)pl->f32_elems * 4, "autocast's fp32 tensors"));
        CUDA_TRY(nvs_kern_init_random(g->f32, pl->f32_elems, NVS_ELEM_F32, 8, 1.0f, g->compute));
    }
    NVS_CHECK(dalloc((void **)&g->master, (double)pl->grad_elems * 4, "fp32 parameters"));
    NVS_CHECK(dalloc((void **)&g->momentum, (double)pl->grad_elems * 4, "momentum"));
    if (pl->optimizer == NVS_OPT_ADAMW) {
        NVS_CHECK(dalloc((void **)&g->adam_v, (double)pl->grad_elems * 4, "AdamW's second state"));
        CUDA_TRY(cudaMemsetAsync(g->adam_v, 0, pl->grad_elems * 4, g->compute)); /* as torch's: v >= 0 */
        if (nvs_train_plan_opt_foreach(pl)) /* the foreach path's temporary, in master_bytes (train_plan.c) */
            NVS_CHECK(dalloc((void **)&g->adam_tmp, (double)pl->grad_elems * 4, "AdamW's foreach temporary"));
    }
    NVS_CHECK(dalloc(&g->grads, (double)pl->grad_elems * (pl->grad_bf16 ? 2 : 4), "gradients"));
    /* real-looking data everywhere: tensor cores run faster on zeros than on real data */
    CUDA_TRY(nvs_kern_init_random(g->weights, wtot, el, 1, 0.05f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->acts, atot, el, 2, 1.0f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->ws_x, maxx, el, 3, 1.0f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->ws_dx, maxx, el, 4, 1.0f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->master, pl->grad_elems, 0, 5, 0.05f, g->compute));
    CUDA_TRY(nvs_kern_init_random(g->grads, pl->grad_elems, pl->grad_bf16, 6, 0.01f, g->compute));
    if (pl->bucket_bytes > 0) {
        NVS_CHECK(dalloc(&g->buckets, pl->bucket_bytes, "gradient buckets"));
        CUDA_TRY(nvs_kern_init_random(g->buckets, pl->grad_elems, pl->grad_bf16, 7, 0.01f, g->compute));
    }
    if (pl->buffers > 0) {
        NVS_CHECK(dalloc((void **)&g->bufs, pl->buffer_bytes / 2, "module buffers"));
        NVS_CHECK(dalloc((void **)&g->bufs_flat, pl->buffer_bytes / 2, "module buffers' flat copy"));
        CUDA_TRY(cudaMemsetAsync(g->bufs, 0, (size_t)(pl->buffer_bytes / 2), g->compute));
        for (int i = 0; i < 2; i++) CUDA_TRY(cudaEventCreateWithFlags(&g->buf_ev[i], cudaEventDisableTiming));
    }
    CUDA_TRY(cudaMemsetAsync(g->momentum, 0, pl->grad_elems * 4, g->compute));
    CUDA_TRY(cudaStreamSynchronize(g->compute));
    x->conv_native = calloc(2 * (size_t)L, 1); /* norm_native is its second half */
    if (!x->conv_native) return NVS_ERR_NOMEM;
    x->norm_native = x->conv_native + L;
    NVS_CHECK(nvs_tg_cudnn_setup(x));
    return bn_kernels_setup(x);
}

static nvs_result_t gmark(nvs_train_exec *x, int which)
{
    struct gpu_impl *g = G(x);
    CUDA_TRY(cudaEventRecord(g->mark[which ? 1 : 0], g->compute));
    return NVS_OK;
}

static nvs_result_t gspan(nvs_train_exec *x, double *us)
{
    struct gpu_impl *g = G(x);
    float ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&ms, g->mark[0], g->mark[1]));
    *us = (double)ms * 1e3;
    return NVS_OK;
}

static void gteardown(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    if (!g) return;
    /* after every workload, and after a failed one: a failure here is a warning (gpu_check.h), since a buffer
     * not freed is memory the next workload lacks */
    void *bufs[] = {g->weights, g->acts,     g->ws_x,  g->ws_dx,   g->ws_w,     g->master, g->momentum,
                    g->grads,   g->buckets, g->bn_stats, g->bufs, g->bufs_flat, g->ones, g->f32,
                    g->bias_staging, g->bias_sems, g->adam_v, g->adam_tmp};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) CUDA_CLEANUP(cudaFree(bufs[i]));
    if (g->bucket_ev)
        for (int b = 0; b < x->plan->nbuckets; b++)
            if (g->bucket_ev[b]) CUDA_CLEANUP(cudaEventDestroy(g->bucket_ev[b]));
    if (g->comm_done) CUDA_CLEANUP(cudaEventDestroy(g->comm_done));
    for (int i = 0; i < 2; i++) {
        if (g->mark[i]) CUDA_CLEANUP(cudaEventDestroy(g->mark[i]));
        if (g->buf_ev[i]) CUDA_CLEANUP(cudaEventDestroy(g->buf_ev[i]));
    }
    if (g->blas) BLAS_CLEANUP(cublasDestroy(g->blas));
    nvs_ln_bufs_free(&g->ln);
    nvs_train_exec_cudnn_off(x); /* before its stream goes */
    free(x->conv_native);
    x->conv_native = x->norm_native = NULL;
    free(g->bn_off);
    if (g->compute) CUDA_CLEANUP(cudaStreamDestroy(g->compute));
    if (g->comm) CUDA_CLEANUP(cudaStreamDestroy(g->comm));
    free(g->bucket_ev);
    free(g);
    x->impl = NULL;
}

static const struct nvs_train_exec_ops gpu_ops = {
    .name = "GPU", .setup = gsetup, .gemm = nvs_tg_gemm, .ew = nvs_tg_ew, .copy_out = nvs_tg_copy,
    .view_copy = nvs_tg_view, .cast_weights = nvs_tg_cast, .cast_act = nvs_tg_cast_act, .bias_grad = nvs_tg_bias,
    .grad_pass = nvs_tg_grad, .bucket_ready = nvs_tg_bucket, .join_comm = nvs_tg_join, .unscale = nvs_tg_unscale,
    .optimizer = nvs_tg_opt, .sync = nvs_tg_sync, .mark = gmark, .span = gspan, .grad_to_bucket = nvs_tg_grad_to_bucket,
    .bucket_to_grad = nvs_tg_bucket_to_grad, .memory = gmem, .norm = nvs_tg_norm, .layer_norm = nvs_tg_ln,
    .buffers = nvs_tg_buffers, .teardown = gteardown};

nvs_result_t nvs_train_exec_gpu(nvs_train_exec *x)
{
    x->ops = &gpu_ops;
    x->impl = calloc(1, sizeof(struct gpu_impl));
    return x->impl ? NVS_OK : NVS_ERR_NOMEM;
}
