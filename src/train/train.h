/* The synthetic data-parallel training step (PyTorch DDP's schedule with real GEMMs).
 *
 * Per step, on every GPU of the N: forward layers in order (one GEMM of the layer's per-sample shape times the
 * batch, then `ew` memory-bound passes over its output), backward in reverse (2*ew passes, the input-gradient
 * GEMM (skipped for the first layer, whose input needs no gradient, as in PyTorch) and the weight-gradient GEMM
 * written into the layer's slot of the flat gradient buffer), gradients grouped into DDP buckets in reverse
 * layer order; a bucket is all-reduced on a second stream as soon as the backward of its last layer is done;
 * then the optimizer over all parameters (SGD with momentum, or AdamW: --optimizer). Three variants are timed: the
 * full step, the same step without the all-reduces (compute only), and the all-reduces alone (communication only).
 *
 * train_plan.c is PURE (buckets, memory, schedule: unit-tested); step.c drives the step through an executor
 * (train_gpu.c: cuBLAS + NCCL; train_host.c: CPU GEMMs + MPI, so machines without GPUs run the whole path). */
#ifndef NVS_TRAIN_H
#define NVS_TRAIN_H

#include <stddef.h>

#include "core/config.h"
#include "core/err.h"
#include "workload/framework.h"
#include "workload/optimizer.h"
#include "workload/profile.h"

typedef struct {
    int first_layer, last_layer; /* layers [first..last] (forward indices); ready when `first_layer` is done */
    size_t offset_elems;         /* into the flat gradient buffer */
    size_t elems;
    size_t bytes;
} nvs_bucket;

typedef struct {
    const nvs_profile *profile;
    const nvs_framework *framework; /* never NULL after nvs_train_plan_make */
    nvs_optimizer optimizer;        /* the update after the all-reduces (sgd after nvs_train_plan_make) */
    int optimizer_fused;            /* --optimizer adamw-fused: one fused pass whatever the framework (0 after make) */
    int batch;
    nvs_precision precision;
    int grad_bf16;
    int nbuckets;
    nvs_bucket *buckets;    /* in launch order (the last layers' bucket first) */
    int *bucket_of_layer;   /* -1 for layers without parameters */
    int *bucket_closes_at;  /* per layer: the bucket whose last gradient this layer produces, else -1 */
    size_t *grad_offset;    /* per layer, in elements */
    size_t grad_elems;      /* all parameters */
    /* buffer layout the executors allocate (elements of the compute precision): per layer, where its GEMM
     * weights and its stored output start (nlayers + 1 entries, the last = the total), and the largest GEMM
     * input (forward input / input gradient scratch) and weight matrix (weight-gradient scratch) */
    size_t *w_off, *a_off;
    size_t max_x_elems, max_w_elems;
    /* the most rows (M x batch) of a layer with a bias (profile.h nvs_layer_bias_elems): a vector of ones that
     * long sums a bias's gradient in one matrix-vector product; and, under a framework that keeps autocast's fp32
     * tensors (framework.h autocast_fp32, at half precision), the largest output with fp32 passes (the fp32 scratch
     * they run over; 0: none) */
    size_t max_bias_rows, f32_elems;
    size_t bias_staging_elems; /* the most staging floats a bias reduction of the framework's own can need
                                * (reduce_plan.h nvs_outer_sum_staging_max: any GPU, any split into tensors) */
    /* memory, bytes per GPU (what train_gpu.c allocates) */
    double weight_bytes;    /* GEMM weights in the compute precision */
    double master_bytes;    /* fp32 parameters and the optimizer's fp32 states (SGD: momentum; AdamW: m and v; and
                             * foreach AdamW's temporary exp_avg_sq_sqrt, one float a parameter) */
    double grad_bytes;
    double bucket_bytes;    /* separate bucket buffers (a framework that copies gradients into buckets), else 0 */
    /* the module buffers a framework broadcasts before a full step's forward (framework.h broadcast_buffers; 0
     * without): how many, the float elements among them, the int64 ones (one element each), and their bytes with their
     * flat copy */
    int buffers, buffer_longs;
    double buffer_floats, buffer_bytes;
    size_t *buffer_size; /* each buffer's bytes, in the order they are copied back (nvs_profile_buffers) */
    double act_bytes;       /* stored layer outputs (batch * act * element size) */
    double workspace_bytes; /* GEMM input / input-gradient scratch (largest layer), the ones for the bias gradients */
    double f32_bytes;       /* autocast's fp32 scratch (f32_elems), with the framework */
    double total_bytes;
    double fwd_flops;       /* per step per GPU */
    double step_flops;      /* forward + backward GEMM FLOPs per step per GPU */
} nvs_train_plan;

/* The step's plan. Buckets as PyTorch DDP assigns them (workload/buckets.h, shared with the what-if model):
 * parameters in reverse order, a bucket closes once it holds >= its cap; the first cap is `first_bytes` (DDP:
 * 1 MiB), the rest `cap_bytes` (DDP: bucket_cap_mb = 25). */
nvs_result_t nvs_train_plan_make(const nvs_profile *p, int batch, nvs_precision prec, int grad_bf16,
                                 size_t first_bytes, size_t cap_bytes, nvs_train_plan *plan);
/* The framework the step emulates (NULL: ideal); call after nvs_train_plan_make (updates the memory). */
void nvs_train_plan_set_framework(nvs_train_plan *plan, const nvs_framework *fw);
/* The optimizer the step runs (workload/optimizer.h), fused = 1 for one fused pass under any framework
 * (--optimizer adamw-fused); call after nvs_train_plan_make: its states change master_bytes and total_bytes. */
void nvs_train_plan_set_optimizer(nvs_train_plan *plan, nvs_optimizer o, int fused);
/* 1 when the step's optimizer runs as the framework's foreach passes (framework.h optimizer_foreach, not
 * --optimizer adamw-fused), 0 when as one fused pass: what both executors run, run.json's train.optimizer_fused
 * (its negation) and the time model's foreach (workload/optimizer.h nvs_optimizer_pass_bytes) */
int nvs_train_plan_opt_foreach(const nvs_train_plan *plan);
void nvs_train_plan_free(nvs_train_plan *plan);
/* The first layer whose GEMM has more rows (its M times the batch) than BLAS and cuBLAS take (their sizes are ints:
 * 2^31-1; the profile holds M, N and K within that, profile_layer.c), or -1: an executor refuses such a plan before it
 * passes a wrapped size to the library. Needs no memory: the plan is enough. */
int nvs_train_plan_rows_over_int(const nvs_train_plan *plan);

/* Predicted time of the buckets' all-reduces, back to back, from a measured all_reduce curve (sizes ascending,
 * times in us): log-log interpolation, linear extrapolation in bytes beyond the ends. */
double nvs_predict_allreduce_us(const double *sizes, const double *times_us, int npoints, double bytes);

/* What one timed step does: the full step; without the all-reduces; the all-reduces alone; the step without
 * its GEMMs (where the compute time goes). */
enum { NVS_STEP_FULL, NVS_STEP_COMPUTE, NVS_STEP_COMM, NVS_STEP_NO_GEMM };

#endif
