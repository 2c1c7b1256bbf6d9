/* What the step driver (step.c) asks of an executor: the GPU one (train_gpu.c) or the host one
 * (train_host.c). Calls are asynchronous where the executor can make them so (GPU streams); sync() waits. */
#ifndef NVS_TRAIN_EXEC_H
#define NVS_TRAIN_EXEC_H

#include "collectives/backend.h"
#include "train/conv.h"
#include "train/issue.h"
#include "train/train.h"

enum { NVS_GEMM_FWD = 0, NVS_GEMM_DGRAD = 1, NVS_GEMM_WGRAD = 2 };

typedef struct nvs_train_exec nvs_train_exec;

struct nvs_train_exec_ops {
    const char *name;
    /* 1: every call returns only once its work is done (the host executor computes on the CPU it is called from),
     * so the host time of the calls is the step's compute, not launches; 0: calls queue work and return (the GPU
     * executor), so their host time is launches, which the framework's cost per operation includes. step.c's
     * host_work counts the calls' host time against what the framework owes only when this is 0. */
    int sync_issue;
    /* Allocates everything the plan needs, once (a model that does not fit is refused before this). */
    nvs_result_t (*setup)(nvs_train_exec *x);
    nvs_result_t (*gemm)(nvs_train_exec *x, int layer, int kind);
    /* `passes` memory-bound passes over layer l's output, in the step's precision, or (fp32 = 1) over an fp32 tensor
     * of its size (autocast's fp32 residual stream: framework.h autocast_fp32) */
    nvs_result_t (*ew)(nvs_train_exec *x, int layer, double passes, int fp32);
    /* Autocast's cast of layer l's fp32 output into the 16-bit tensor the next GEMM reads (forward), or of that
     * tensor's gradient back into fp32 (backward = 1): framework.h autocast_fp32, step.c */
    nvs_result_t (*cast_act)(nvs_train_exec *x, int layer, int backward);
    /* The gradient of layer l's bias (profile.h nvs_layer_bias_elems): its output gradient summed over the rows,
     * into the bias's part of the layer's gradient slot */
    nvs_result_t (*bias_grad)(nvs_train_exec *x, int layer);
    /* `copies` copies of layer l's output to scratch (a library's layout transform: the tensor read once and
     * written once elsewhere, by the SMs); a fraction copies that share of it. */
    nvs_result_t (*copy_out)(nvs_train_exec *x, int layer, double copies);
    /* `passes` copies of layer l's output through a view that swaps its batch and its rows (the profile's perm=,
     * under a framework with view_copies), forward; backward the gradient copied back. Optional: an executor
     * without it runs them as passes (step.c). */
    nvs_result_t (*view_copy)(nvs_train_exec *x, int layer, double passes, int backward);
    /* Autocast's cast of layer l's fp32 parameters into the 16-bit copy its forward GEMM reads (a framework with
     * weight_casts, at half precision: step.c). */
    nvs_result_t (*cast_weights)(nvs_train_exec *x, int layer);
    /* The gradient of a layer with parameters but no GEMM (embedding, norm): one pass over its slot. */
    nvs_result_t (*grad_pass)(nvs_train_exec *x, int layer);
    /* Layer l's batch norm run as a norm (x->norm_native[l]): forward, or backward with its parameters'
     * gradients (in place of grad_pass). */
    nvs_result_t (*norm)(nvs_train_exec *x, int layer, int backward);
    /* Layer l's LayerNorm (the profile's ln=) in LayerNorm kernels, over fp32 (autocast's fp32 tensor) or the step's
     * precision: forward, or backward with its parameters' gradients (in place of grad_pass). Optional: an executor
     * without it runs them as passes (step.c). */
    nvs_result_t (*layer_norm)(nvs_train_exec *x, int layer, int backward, int fp32);
    /* Start all-reducing bucket b (its gradients are complete on the compute stream). */
    nvs_result_t (*bucket_ready)(nvs_train_exec *x, int bucket);
    /* The optimizer may start only when every bucket is reduced: join the communication. */
    nvs_result_t (*join_comm)(nvs_train_exec *x);
    /* A gradient scaler's unscale before the optimizer: one pass over every gradient (fp16 under a framework
     * with a scaler, step.c). */
    nvs_result_t (*unscale)(nvs_train_exec *x);
    nvs_result_t (*optimizer)(nvs_train_exec *x);
    /* Wait until everything issued so far has completed (times are read on the host after this). */
    nvs_result_t (*sync)(nvs_train_exec *x);
    /* Marks on the compute timeline: `which` 0 = the step's first compute work, 1 = the end of the backward pass
     * (before the optimizer waits for the all-reduces). span() (after sync) is the time between them: the
     * compute the step did, slowed by whatever ran beside it. Comparing it between the full step and the
     * compute-only step isolates the interference of the all-reduces with the compute. */
    nvs_result_t (*mark)(nvs_train_exec *x, int which);
    /* Frameworks with separate buckets (plan->bucket_bytes > 0): copy layer l's gradient into its bucket, and,
     * once the all-reduces are joined, bucket b back into the gradients. The all-reduce then works on the
     * buckets; without them it works on the gradients in place. */
    nvs_result_t (*grad_to_bucket)(nvs_train_exec *x, int layer);
    nvs_result_t (*bucket_to_grad)(nvs_train_exec *x, int bucket);
    /* A framework that broadcasts its module buffers before a full step's forward (plan->buffers > 0): per dtype the
     * buffers flattened into one, broadcast from rank 0 over the communicator, then each buffer copied back from it. */
    nvs_result_t (*buffers)(nvs_train_exec *x);
    nvs_result_t (*span)(nvs_train_exec *x, double *us);
    /* Free memory available to the step, and what the executor will need (for the up-front refusal). */
    nvs_result_t (*memory)(nvs_train_exec *x, double *free_bytes);
    void (*teardown)(nvs_train_exec *x);
};

struct nvs_train_exec {
    const struct nvs_train_exec_ops *ops;
    const nvs_train_plan *plan;
    nvs_backend *backend;
    nvs_comm *comm; /* the N-GPU communicator of this measurement */
    int nranks;     /* its size: gradients are averaged over it */
    double work_per_us; /* this rank's CPU work rate alone (core/cpu_work.h), for the framework's host work */
    /* what the framework's host work charged in the last step issued (step.c): operations, each host_us_per_op,
     * and reducer buckets, each reducer_us_per_bucket; and the reducer's hooks (parameter tensors, no cost of
     * their own); counted whether or not the work is done */
    double host_ops, host_buckets, host_tensors;
    double host_buffer_ops; /* of those operations, the buffer broadcast's (framework.h) */
    /* the bytes the framework's layout copies moved in the last step issued (read + written; step.c) */
    double layout_bytes;
    /* the step's host-work account (step.c): when its issue began, the framework's host time owed so far, and the
     * work done towards it (wall time, units) */
    double issue_t0_us, host_due_us, work_wall_us, work_units;
    /* time the host spent waiting for the GPU inside the step (a gradient scaler's check): not issue time */
    double wait_us;
    /* the last step's host time by what it issued (NVS_ISSUE_*), us; step.c fills it */
    double issue_by_us[NVS_ISSUE_KINDS];
    /* cuDNN (train/conv.h). Set before setup: whether to use it. Set by setup: per layer, 1 where the executor
     * runs the layer's convolution in cuDNN, which transposes layouts itself (step.c then adds no layout copies
     * of its own), and where it runs the layer's batch norm there (norm(); NULL = none); the library ("cuDNN
     * 9.19.0", else empty), why it is not used where it could be (empty when it is, or when nothing could), the
     * convolutions it runs of those that give a geometry, the batch norms it runs of those the profile marks,
     * why not the others (bn_why), its workspace, and the library state for run.json (conv_cudnn.h). */
    nvs_cudnn_mode cudnn_mode;
    unsigned char *conv_native, *norm_native; /* norm_native[l]: NVS_NORM_CUDNN or NVS_NORM_KERNELS, 0 = passes */
    char conv_engine[48], conv_why[320], bn_why[160];
    /* cuDNN failed or was lacking on some rank under --cudnn auto, and the step runs without it (run.json
     * train.conv.fallback and train.batchnorm.fallback) */
    int cudnn_fallback;
    int conv_layers, conv_geom_layers, bn_layers, bn_total;
    int bn_kernel_layers; /* batch norms in the executor's own kernels (train/norm_kernels.h), not cuDNN's */
    double conv_ws_bytes;
    struct nvs_cudnn *dnn;
    void *impl;
};

/* copy_out's pieces: `copies` copies of a `count`-element tensor, at most `chunk` elements at a time (the scratch
 * they go to), a piece never crossing the tensor's end. Given the elements done so far, the next piece's offset
 * into the tensor (*off) and its length (0: all done). */
static inline size_t nvs_copy_piece(size_t done, double copies, size_t count, size_t chunk, size_t *off)
{
    size_t total = (size_t)(copies * (double)count);
    if (done >= total || !count) return 0;
    *off = done % count;
    size_t c = total - done;
    if (c > count - *off) c = count - *off;
    return c < chunk || !chunk ? c : chunk;
}

/* How the executor runs a batch norm (norm_native[l]): in cuDNN, or in its own kernels launched as PyTorch's own
 * (train/norm_kernels.h: what PyTorch runs at bf16, or wherever it does not call cuDNN). The GPU executor runs
 * every batch norm one way or the other; the host executor runs them as memory passes (norm_native NULL). */
enum { NVS_NORM_CUDNN = 1, NVS_NORM_KERNELS = 2 };

nvs_result_t nvs_train_exec_gpu(nvs_train_exec *x);  /* sets ops/impl */
/* Stops using cuDNN (train_gpu_cudnn.c): convolutions back to GEMMs, batch norms to the executor's own kernels, the
 * library's memory freed; the reasons (conv_why, bn_why) are the caller's to set. */
void nvs_train_exec_cudnn_off(nvs_train_exec *x);
nvs_result_t nvs_train_exec_host(nvs_train_exec *x);

/* Medians over the timed steps of one variant. */
typedef struct {
    double step_us; /* wall time of a step, host-timed after a full sync */
    double span_us; /* compute timeline from the first forward work to the end of the backward pass */
    /* host time to issue the step, from its start until its last call returned (before the wait for the GPU, and
     * without a gradient scaler's wait inside the step): near step_us, the host set the pace (its own launches and
     * the framework's host work); well below it, the GPU */
    double issue_us;
    /* this rank's CPU speed before each timed step (the framework's host work, work units per us: 10th and 90th
     * percentile over the steps; 0 when the framework has no host work): how steady the host was meanwhile */
    double host_rate_p10, host_rate_p90;
    /* issue_us by what was issued (NVS_ISSUE_*): each kind's median over the steps (so they need not add up to
     * issue_us exactly) */
    double issue_by_us[NVS_ISSUE_KINDS];
    /* the fastest and the slowest of the timed steps: how far apart the steps of one variant fell, so that the
     * medians of two variants timed apart (the full step and the compute-only one) can be told apart from noise */
    double step_min_us, step_max_us;
} nvs_step_medians;

/* The step driver (step.c): medians of `steps` steps of `mode` (NVS_STEP_*) after `warmup` untimed ones; every
 * step is waited for on the host (the next step's forward may not start before the optimizer is done, as in a
 * real loop). `n` is for the progress line. */
nvs_result_t nvs_train_time_steps(nvs_train_exec *x, int mode, int warmup, int steps, int n, nvs_step_medians *out);

#endif
