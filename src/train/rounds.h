/* What one N of the training phase measured, and its rounds merged (PURE).
 *
 * With --rounds R the phase measures every N in turn, R times (N = 1, 2, .., 1, 2, ..): each round's step(1) and
 * step(N) are minutes apart at most, seconds for small models, so a host whose speed drifts (a VM's vCPU between
 * its fast and slow states, docs/fidelity.md "Noise") moves both sides of the ratio alike. The merged point
 * is its median round's, and its efficiency the median of the rounds' own ratios (core/metrics.h
 * nvs_paired_efficiency), with their range. One round gives back the round itself. */
#ifndef NVS_TRAIN_ROUNDS_H
#define NVS_TRAIN_ROUNDS_H

#include "train/issue.h"

typedef struct {
    int n;
    double step_us, compute_us, comm_us;
    double no_gemm_us; /* the step without GEMMs: first N, first round only, else < 0 */
    /* the compute-only step without the framework's host work, the hardware's own; first N, first round only,
     * else < 0: the GEMMs' share of it is ideal_compute_us - no_gemm_us */
    double ideal_compute_us;
    /* the fastest and slowest timed step of the slowest rank's full step, and of the compute-only step of the rank
     * whose compute_us it is (0: not known): where the compute-only step's median came out above the full step's,
     * whether the two variants' steps overlap (noise) or not (the host ran at another speed meanwhile) */
    double step_min_us, step_max_us, compute_min_us, compute_max_us;
    double span_diff_us; /* the slowest rank's compute span, full step minus compute-only step: the reducer's work
                          * in the backward pass plus the slowdown of the compute beside the all-reduces */
    int slowest_rank;
    /* the host's CPU speed before the full steps (step.c's probe, work units per us): the lowest rank's 10th
     * percentile and the highest rank's 90th; 0 when the framework has no host work */
    double host_rate_lo, host_rate_hi;
    double issue_us, compute_issue_us; /* host time to issue the slowest rank's full step, and the longest of the
                                        * ranks' compute-only steps (step.c) */
    /* the slowest rank's issue_us by what it issued (issue.h); and the longest of the ranks' times to issue the
     * compute-only step without the framework's host work (the executor's own launches; first N, first round only,
     * else < 0) */
    double issue_by_us[NVS_ISSUE_KINDS];
    double ideal_issue_us;
    /* set by nvs_train_rounds_merge: rounds merged, and the efficiency against the reference N (the first point
     * of each round) over them: median, smallest and largest; 0 where not known */
    int rounds;
    double eff, eff_lo, eff_hi;
} nvs_train_point;

/* Merge rounds 0..nrounds-1 (at most 128) of point i of raw[], laid out round after round (raw[r * npoints + i]);
 * point 0 of each round is the reference N. The times, the slowest rank and the span difference are those of the
 * round whose step is the median (the lower one of an even count): step, compute-only step and all-reduces were
 * measured back to back there, so the split of the step (split.h) stays one stretch of the host's. The host's
 * rates are the widest over the rounds; the GEMM-less and hardware-only steps (and the latter's issue time)
 * round 0's. nrounds < 1 or i outside the points: *out zeroed (n = 0). */
void nvs_train_rounds_merge(const nvs_train_point *raw, int npoints, int i, int nrounds, nvs_train_point *out);

/* The order of the rounds: the j-th point measured in round rd (0-based) of npoints. Even rounds go from the first
 * N up, odd rounds from the last N down, so that no N is always the one timed first in its round: where both
 * sides of the ratio were one program, a fixed order read 2 points low (results/h200x1-paired9). */
int nvs_train_rounds_point(int npoints, int rd, int j);

/* How many rounds of point k can be merged once the j-th point of round rd is measured: the rounds in which both
 * point k and the reference (point 0) have been measured, counting from round 0. */
int nvs_train_rounds_usable(int npoints, int rd, int j, int k);

#endif
