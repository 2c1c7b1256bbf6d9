/* Derived numbers of a run that cannot be right as they stand (issue 14): shown with a warning, never as a
 * silent number. PURE, over what the run.json reader gives (runjson.h); used by the run flow (a WARN line on
 * stderr once run.json is written), check (a WARN row) and report (a Warnings section).
 *
 *   efficiency  a training step's efficiency step(ref)/step(N), of any workload, above 100 % by more than the noise
 *               (NVS_SANITY_NOISE): N GPUs finished the step faster than the reference did. Not physics: the
 *               reference step was slowed by something the others were not (host launch overhead of a tiny
 *               model, CPU frequency, another process), and the efficiencies of that run mean little.
 *   bound       a collective's busbw above the bound of the link its ring ran on (run.json explain[].bound_gbps,
 *               the ring's slowest hop) by more than NVS_SANITY_BOUND_SLACK: the topology missed a faster path, or
 *               NCCL reduced in the switch (NVLS, SHARP), or the bound's per-link rate is wrong.
 *   unvalidated a run whose collectives were not validated (sweep.check 0: -c 0): a wrong result would have gone
 *               unseen (every row's "wrong" is null), so its bandwidths prove less than they seem to.
 * A baseline from another kind of machine or backend is check's (check/check_fleet.h: a WARN row as well). */
#ifndef NVS_RUNJSON_SANITY_H
#define NVS_RUNJSON_SANITY_H

#include <stddef.h>

#include "runjson/runjson.h"

/* Timing noise allowed above 100 % efficiency: repeated runs on one machine agree within 1-3 % (README: two
 * runs of the same sweep within 1 %; the training step's medians within a few %), so 5 % above is not noise. */
#define NVS_SANITY_NOISE 0.05
/* Nominal link rates round (PCIe 128b/130b, NVLink per-link rates in GB/s to 4 digits): 5 % above a bound is
 * beyond any rounding of it. */
#define NVS_SANITY_BOUND_SLACK 0.05

typedef struct {
    char kind[16];   /* "efficiency", "bound", "unvalidated" */
    char what[128];  /* "training efficiency n=2", "busbw all_reduce 1 GiB n=2" */
    int n;
    double value;    /* the number (efficiency as a fraction, busbw in GB/s; unvalidated: the rows) */
    double limit;    /* what it should not exceed (unvalidated: 0 rows) */
    char text[384];  /* one sentence: the number, the limit, what it means */
} nvs_sanity;

/* The findings of `run` into out[0..cap-1], in a fixed order (training, then collectives by N and size); returns
 * how many there are (may exceed cap: only cap are written). */
size_t nvs_sanity_of(const nvs_run *run, nvs_sanity *out, size_t cap);

#endif
