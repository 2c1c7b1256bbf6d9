/* The training step's LayerNorms (a profile's ln= layers, workload/profile.h) in nvscale's LayerNorm kernels
 * (train/ln_kernels.h): the buffers those need beside the step's own, sized once for a plan on one GPU. The row
 * statistics are shared by every LayerNorm of the step (each layer's backward reads what the last forward left:
 * finite numbers, which is all a synthetic step needs); the weight gradients' scratch and semaphores serve
 * PyTorch's M >> N path (more than 64 Ki rows, train/ln_plan.h), and stay empty otherwise. Each LayerNorm's weight
 * and bias live apart from the step's packed parameters, aligned as PyTorch's parameter tensors are
 * (nvs_ln_param_floats): packed in bucket order a layer's gamma may start at any float (BERT's 30,522 decoder biases
 * put every later layer 2 floats off), and PyTorch's kernels would then take their unvectorized paths, which
 * PyTorch, whose parameters are tensors of their own, never does. They hold PyTorch's initial values (weight 1,
 * bias 0); the optimizer updates the packed copy, which only the timing of its passes needs. */
#ifndef NVS_TRAIN_LN_STEP_H
#define NVS_TRAIN_LN_STEP_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "core/err.h"
#include "train/reduce_plan.h"
#include "train/train.h"

typedef struct {
    float *stats;          /* mean, then rstd: `rows` floats each */
    long long rows;        /* the most rows of any ln= layer */
    float *scratch;        /* the gamma/beta kernel's partial sums (NULL: none needed) */
    size_t scratch_floats;
    unsigned *sems;
    int nsems;
    nvs_sm_shape sm;       /* the GPU the plans were made for */
    float *params;         /* every ln= layer's gamma and beta, each layer's at param_at[l] floats */
    size_t *param_at;      /* host, one per layer of the plan's profile (0 for the others) */
    size_t params_floats;
} nvs_ln_bufs;

/* Layer ly's LayerNorm at batch B: its features (params / 2) and rows (B x act / features); 0 rows when the layer
 * is not one */
int nvs_ln_cols(const nvs_layer *ly);
long long nvs_ln_rows(const nvs_layer *ly, int batch);
/* Allocates what plan pl's ln= layers need on GPU `sm` (nothing when it has none); the semaphores
 * zeroed on stream s. NVS_ERR_NOMEM (said) when the GPU has no room. */
nvs_result_t nvs_ln_bufs_setup(nvs_ln_bufs *b, const nvs_train_plan *pl, nvs_sm_shape sm, cudaStream_t s);
/* Layer l's gamma and beta (an ln= layer of the plan the buffers were set up for) */
void nvs_ln_params(const nvs_ln_bufs *b, int l, int cols, const float **gamma, const float **beta);
/* Frees them (warnings only: after a failure too) */
void nvs_ln_bufs_free(nvs_ln_bufs *b);

#endif
