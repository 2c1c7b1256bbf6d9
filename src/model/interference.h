/* Interference from presets: what a data-parallel step loses while its all-reduces run beside the compute (NCCL's
 * kernels take SMs, memory bandwidth and, over PCIe, the link the compute also uses), as a share of the time the
 * two overlap, per NCCL transport. PURE.
 *
 * The model charges   interference = share(transport) x overlap   where overlap is how long the GPU computes
 * backward while an all-reduce runs (nvs_step_times.overlap_us): the hidden comm (comm - exposed) where the GPU
 * is busy throughout, less where it waits for the host. A calibration on a run that measured its interference
 * (train.results[].interference_us) or `--overlap-penalty F` replaces the preset's share with its own.
 *
 * Fitted on nvscale's own measurements, never on PyTorch's (those stay the held-out check): Σ interference /
 * Σ hidden comm of `nvscale train --precision fp32` at N=2, lm290m and bert-large-mlm128 (the two workloads
 * whose hidden comm is more than a millisecond on every transport; GPU-bound steps, so their hidden comm is
 * their overlap), on 2x H200 SXM with NCCL 2.28.3:
 * results/fidelity/run3-{nvlink,shm,net}/raw/nvs-*-fp32-r1/run.json (commit c23dfdc, 1 December 2026).
 * tests/t/interference_fit.sh recomputes the three shares from those files and checks them against the table. */
#ifndef NVS_MODEL_INTERFERENCE_H
#define NVS_MODEL_INTERFERENCE_H

#include "model/model.h"

/* overlap_penalty of a configuration that has not set one: the share comes from the transport at each N */
#define NVS_OVERLAP_BY_TRANSPORT (-1.0)

typedef struct {
    nvs_transport transport;
    double share;       /* of the time the GPU computes beside an all-reduce, paid on the step */
    int measured;       /* 1: fitted on measurements of this transport; 0: assumed (source says from what) */
    const char *source;
    /* > 0: the ring's rate (GB/s busbw) the share was fitted at; a slower link of this transport pays
     * share x its rate / this (nvs_interference_share), 0: the share at any rate */
    double fit_gbps;
} nvs_interference;

/* The entry of transport t (NVS_TR_NONE: share 0). Never NULL. */
const nvs_interference *nvs_interference_of(nvs_transport t);

/* The share a configuration pays at a point whose ring's links run at ring_gbps (busbw, from the machine's presets:
 * the rate NCCL sizes its channels by, not a measured rate that something else may have slowed; <= 0: not known):
 * its own when set (>= 0), else the transport's, scaled down for links slower than the fit's (fit_gbps). */
double nvs_interference_share(double overlap_penalty, nvs_transport t, double ring_gbps);

#endif
