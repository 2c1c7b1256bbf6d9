/* PURE arithmetic of the benchmarks: sweep sizes, bandwidths, statistics, scaling efficiency.
 * No CUDA, NCCL or MPI here, so all of it is unit-tested on machines without GPUs. */
#ifndef NVS_METRICS_H
#define NVS_METRICS_H

#include <stddef.h>

/* Sizes of a sweep from min to max inclusive, nccl-tests style: multiply by `factor` when factor > 1, else add
 * `step` bytes. Writes at most `cap` sizes; returns how many the sweep has (may exceed cap), 0 if invalid. */
size_t nvs_sweep_sizes(size_t min_bytes, size_t max_bytes, double factor, size_t step, size_t *out, size_t cap);

/* algbw = bytes / time (GB/s, GB = 1e9 as nccl-tests); busbw = algbw * factor (see collectives/coll.h). */
double nvs_algbw_gbps(double bytes, double time_us);
double nvs_busbw_gbps(double bytes, double time_us, double factor);

typedef struct {
    double min, max, mean, median, stddev;
    size_t n;
} nvs_stats;
/* Statistics of n values (n may be 0: all zero). Does not reorder `v`. */
nvs_stats nvs_stats_of(const double *v, size_t n);
double nvs_median(const double *v, size_t n);
/* qsort comparators, ascending (no subtraction: it overflows for ints far apart, and is wrong for doubles) */
int nvs_cmp_int(const void *a, const void *b);
int nvs_cmp_double(const void *a, const void *b);
/* Sort v[0..n) ascending and drop repeats, in place; returns how many are left (the lists of Ns and sizes that
 * tables are made of). */
int nvs_sort_unique_int(int *v, int n);
int nvs_sort_unique_double(double *v, int n);
/* The q-quantile (0 <= q <= 1) of n values by linear interpolation between the order statistics (q = 0.5 is the
 * median, 0 the minimum, 1 the maximum); 0 when n is 0, NAN when q is outside [0, 1] or on out of memory. Does
 * not reorder `v`. */
double nvs_quantile(const double *v, size_t n, double q);

/* Weak-scaling efficiency of a data-parallel step: per-GPU batch fixed, so ideal step time is constant and
 * efficiency(N) = step(1) / step(N). Returns 0 when an input is not positive. */
double nvs_scaling_efficiency(double step1_us, double stepN_us);

/* The same from paired rounds: round i measured step(1) ref_us[i] and step(N) step_us[i] back to back, so both saw
 * the host in the same state (a host-bound step moves by 20 % between stretches of a few seconds on a VM,
 * docs/fidelity.md "Noise"). Returns the median over the rounds of ref_us[i] / step_us[i], skipping a round
 * where either is not positive, and its smallest and largest in *lo and *hi (may be NULL); 0 (and 0, 0) when no
 * round is usable. */
double nvs_paired_efficiency(const double *ref_us, const double *step_us, size_t n, double *lo, double *hi);

/* Iterations for a timed loop: enough to last about `target_us` given one measured call of `call_us`,
 * clamped to [lo, hi]. Used for the automatic -n, the same on every rank (inputs are agreed first). */
int nvs_auto_iters(double call_us, double target_us, int lo, int hi);

#endif
