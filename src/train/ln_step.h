/* The training step's LayerNorms (a profile's ln= layers, workload/profile.h) in nvscale's LayerNorm kernels
 * (train/ln_kernels.h): the buffers those need beside the step's own, sized once for a plan on one GPU. The row
 * statistics are shared by every LayerNorm of the step (each layer's backward reads what the last forward left:
 * finite numbers, which is all a synthetic step needs); the weight gradients' scratch and semaphores serve
 * PyTorch's M >> N path (more than 64 Ki rows, train/ln_plan.h), and stay empty otherwise. */
#ifndef NVS_TRAIN_LN_STEP_H
#define NVS_TRAIN_LN_STEP_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "core/err.h"
#include "train/train.h"

typedef struct {
    float *stats;          /* mean, then rstd: `rows` floats each */
    long long rows;        /* the most rows of any ln= layer */
    float *scratch;        /* the gamma/beta kernel's partial sums (NULL: none needed) */
    size_t scratch_floats;
    unsigned *sems;
    int nsems, sms;
} nvs_ln_bufs;

/* Layer ly's LayerNorm at batch B: its features (params / 2) and rows (B x act / features); 0 rows when the layer
 * is not one */
int nvs_ln_cols(const nvs_layer *ly);
long long nvs_ln_rows(const nvs_layer *ly, int batch);
/* Allocates what plan pl's ln= layers need on a GPU of `sms` SMs (nothing when it has none); the semaphores
 * zeroed on stream s. NVS_ERR_NOMEM (said) when the GPU has no room. */
nvs_result_t nvs_ln_bufs_setup(nvs_ln_bufs *b, const nvs_train_plan *pl, int sms, cudaStream_t s);
/* Frees them (warnings only: after a failure too) */
void nvs_ln_bufs_free(nvs_ln_bufs *b);

#endif
