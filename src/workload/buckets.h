/* DDP's gradient buckets (PURE), the one planner for the training step (train/train_plan.c) and the what-if model
 * (model/model_sched.c).
 *
 * PyTorch's rule (torch/csrc/distributed/c10d/reducer.cpp: Reducer::rebuild_buckets, which after the first
 * iteration re-buckets the parameters in the order their gradients became ready, and
 * compute_bucket_assignment_by_size; defaults from torch/nn/parallel/distributed.py: bucket_cap_mb = 25 and
 * dist._DEFAULT_FIRST_BUCKET_BYTES = 1 MiB): parameters in reverse layer order (backward produces the last
 * layer's gradient first), each added to the open bucket, which closes as soon as it holds >= its limit; the
 * first bucket's limit is `first_cap_bytes`, every later one's `cap_bytes`. A layer is one parameter here (a
 * profile's layer holds its weights and bias together). Layers without parameters join no bucket. */
#ifndef NVS_WORKLOAD_BUCKETS_H
#define NVS_WORKLOAD_BUCKETS_H

#include "workload/profile.h"

typedef struct {
    double bytes;    /* gradient bytes: parameters x gradient element size */
    int first_layer; /* forward index of the first layer added (the highest: its gradient is ready first) */
    int last_layer;  /* forward index of the last layer added (the lowest): its backward end makes the bucket
                      * ready to be all-reduced */
    int nlayers;     /* layers with parameters in it */
} nvs_ddp_bucket;

/* Buckets in launch order into out (at most maxb written); returns how many there are (may exceed maxb).
 * grad_elem_bytes: 4 (fp32 gradients) or 2 (bf16). bucket_of_layer (NULL or nlayers entries): each layer's bucket,
 * -1 for layers without parameters. */
int nvs_ddp_buckets(const nvs_layer *layers, int nlayers, double grad_elem_bytes, double first_cap_bytes,
                    double cap_bytes, nvs_ddp_bucket *out, int maxb, int *bucket_of_layer);

#endif
