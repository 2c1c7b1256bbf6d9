/* PRIVATE to src/train/: what the GPU executor's files share (train_exec.h is the interface; no other folder
 * includes this header). The executor's state, the one-line helpers several files use (static inline), and the
 * calls of the ops table (train_gpu.c) that live in the other files:
 *   train_gpu.c        setup (buffers, streams, events), teardown, timing marks, the ops table
 *   train_gpu_cudnn.c  which layers run in cuDNN (planned at setup), which batch norms in nvscale's kernels
 *   train_gpu_gemm.c   the layers' GEMMs (cuBLAS) or convolutions (cuDNN), bias gradients, autocast's weight casts
 *   train_gpu_norm.c   batch norms and LayerNorms
 *   train_gpu_pass.c   memory-bound passes: element-wise, autocast's activation casts, copies, views, gradients
 *   train_gpu_opt.c    the optimizer and a gradient scaler's unscale
 *   train_gpu_comm.c   the communication stream: bucket all-reduces, joins, buffer broadcast, sync */
#ifndef NVS_TRAIN_GPU_PRIV_H
#define NVS_TRAIN_GPU_PRIV_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "core/log.h"
#include "train/ln_step.h"
#include "train/reduce_plan.h"
#include "train/train_exec.h"

struct gpu_impl {
    cublasHandle_t blas;
    cudaStream_t compute, comm;
    cudaEvent_t *bucket_ev, comm_done;
    cudaEvent_t mark[2]; /* compute timeline: step start, end of backward (timing events) */
    void *weights, *acts, *ws_x, *ws_dx;
    float *ws_w;           /* fp32 weight-gradient scratch */
    void *ones;            /* plan->max_bias_rows ones of the compute type: the bias gradients' sums */
    /* the framework's own bias-gradient reduction (framework.h bias_reduce; train/reduce_kernels.h): its staging
     * floats and semaphores, sized for the largest of the step's bias gradients on this GPU's SMs */
    float *bias_staging;
    unsigned *bias_sems;
    size_t bias_staging_elems;
    int bias_nsems;
    nvs_sm_shape sm;       /* this GPU, for the reductions' launch shapes (reduce_plan.h) */
    float *f32;            /* autocast's fp32 tensors (plan->f32_elems), else NULL */
    float *master, *momentum; /* momentum: SGD's, or AdamW's exp_avg (m) */
    float *adam_v;            /* AdamW's exp_avg_sq (v); NULL under SGD */
    float *adam_tmp;          /* foreach AdamW's exp_avg_sq_sqrt (nvs_kern_adamw_foreach); NULL otherwise */
    long long adam_t;         /* AdamW's step count (its bias corrections) */
    void *grads;
    void *buckets;         /* the framework's bucket buffers (plan->bucket_bytes > 0), else NULL */
    size_t es;             /* element size of the compute precision */
    /* the batch norms' statistics for the executor's own kernels: layer l's 4 x its channels at bn_off[l] */
    float *bn_stats;
    size_t *bn_off;
    nvs_ln_bufs ln;        /* the LayerNorms' statistics, scratch, weights (train/ln_step.h) */
    /* the module buffers a framework broadcasts before a full step's forward (plan->buffers > 0): the floats, then the
     * int64s; their flat copy laid out the same; events between the compute stream and the broadcast */
    char *bufs, *bufs_flat;
    cudaEvent_t buf_ev[2];
};

static inline struct gpu_impl *G(nvs_train_exec *x) { return x->impl; }

/* The element type of the step's weights and activations (kernels.h), and as cuBLAS names it. */
static inline int elem_of(const nvs_train_plan *pl)
{
    if (pl->precision == NVS_PREC_BF16) return NVS_ELEM_BF16;
    return pl->precision == NVS_PREC_FP16 ? NVS_ELEM_F16 : NVS_ELEM_F32;
}

/* The gradients' element type (fp32, or bf16 with --grad-type bf16) */
static inline int grad_elem_of(const nvs_train_plan *pl) { return pl->grad_bf16 ? NVS_ELEM_BF16 : NVS_ELEM_F32; }

/* cudaMalloc's alignment (256 bytes), which the buffers cuDNN's Find times its candidates on have */
static inline int aligned(const void *p) { return ((uintptr_t)p & 255) == 0; }

/* A buffer the plan did not size for the call (internal error: the plan and the step disagree) */
static inline nvs_result_t not_sized(int l, const char *what)
{
    nvs_error("layer %d: %s larger than the plan allocated (internal error)", l, what);
    return NVS_ERR_SYSTEM;
}

static inline nvs_result_t cuda_sync(cudaStream_t s)
{
    CUDA_TRY(cudaStreamSynchronize(s));
    return NVS_OK;
}

/* train_gpu_cudnn.c */
void nvs_tg_norms_to_kernels(nvs_train_exec *x);
nvs_result_t nvs_tg_cudnn_setup(nvs_train_exec *x);
/* train_gpu_gemm.c */
nvs_result_t nvs_tg_gemm(nvs_train_exec *x, int l, int kind);
nvs_result_t nvs_tg_cast(nvs_train_exec *x, int l);
nvs_result_t nvs_tg_bias(nvs_train_exec *x, int l);
/* train_gpu_norm.c */
nvs_result_t nvs_tg_norm(nvs_train_exec *x, int l, int backward);
nvs_result_t nvs_tg_ln(nvs_train_exec *x, int l, int backward, int fp32);
/* train_gpu_pass.c */
nvs_result_t nvs_tg_ew(nvs_train_exec *x, int l, double passes, int fp32);
nvs_result_t nvs_tg_cast_act(nvs_train_exec *x, int l, int backward);
nvs_result_t nvs_tg_copy(nvs_train_exec *x, int l, double copies);
nvs_result_t nvs_tg_view(nvs_train_exec *x, int l, double passes, int backward);
nvs_result_t nvs_tg_grad(nvs_train_exec *x, int l);
/* train_gpu_opt.c */
nvs_result_t nvs_tg_opt(nvs_train_exec *x);
nvs_result_t nvs_tg_unscale(nvs_train_exec *x);
/* train_gpu_comm.c */
nvs_result_t nvs_tg_bucket(nvs_train_exec *x, int b);
nvs_result_t nvs_tg_join(nvs_train_exec *x);
nvs_result_t nvs_tg_sync(nvs_train_exec *x);
nvs_result_t nvs_tg_grad_to_bucket(nvs_train_exec *x, int l);
nvs_result_t nvs_tg_bucket_to_grad(nvs_train_exec *x, int b);
nvs_result_t nvs_tg_buffers(nvs_train_exec *x);

#endif
