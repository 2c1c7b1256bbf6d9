/* The collective sweep's time left: each point still to run weighted by what it is expected to cost, from the
 * points already timed, not by their count (sizes rise, so the large ones, which take most of the time, come
 * last: counting points said "~12 s left" with 50 s to go).
 *
 * A point's wall time is modelled as ops x (lat + wbytes x s) + size x q + r:
 *   - ops: every operation it launches, timed (iterations x -m x graph launches) and not (warm-up, the probe of
 *     the automatic -n, the alignment before the timed loop, the check);
 *   - wbytes: the bytes one operation moves, its size x the collective's bus factor at N (nccl-tests
 *     doc/PERFORMANCE.md), + 1 out of place: the copy to the output, that even N = 1 makes (in place at N = 1
 *     nothing moves: a 1 GiB in-place all_reduce at N = 1 took 0.1 us an operation on the host backend);
 *   - size x q: the work done once per point on its buffers (filling the inputs, checking the output: on the
 *     host backend a 1 GiB point spends seconds there even where the operation itself does nothing), and r
 *     once per point whatever its size (the ranks agreeing on it, gathering its times).
 * lat and s are fitted to the time of one operation the timed points measured (their rows' average: the wall
 * time of a point whose -n was chosen automatically is about the target whatever its sizes, and says little of
 * them), then q and r to what the points' wall times leave beyond their operations; least squares on relative
 * errors (the small sizes fix the latency, the large ones the bandwidth), no cost negative. The
 * automatic -n is chosen again for each point to run, from its predicted time of one operation, as the sweep
 * chooses it (core/metrics.h nvs_auto_iters), so that small sizes cost their time target, not their count. */
#ifndef NVS_ETA_H
#define NVS_ETA_H

#include <stddef.h>

enum { NVS_ETA_TODO = 0, NVS_ETA_TIMED, NVS_ETA_LEFT_OUT };

typedef struct {
    double size;    /* bytes of the point (its buffers, filled and checked once) */
    double wbytes;  /* bytes one operation moves: size x (bus factor, + 1 out of place) */
    int iters;      /* timed iterations: -n, the one chosen once timed; 0 = automatic, still to be chosen */
    int per_iter;   /* operations per iteration: -m x graph launches (at least 1) */
    int extra;      /* untimed operations of the point */
    int state;      /* NVS_ETA_* */
    double wall_us; /* NVS_ETA_TIMED: the point's whole wall time */
    double op_us;   /* NVS_ETA_TIMED: its timed loop's time of one operation (<= 0: not known) */
} nvs_eta_point;

typedef struct {
    double target_us; /* automatic -n: time each point about this long ... */
    int lo, hi;       /* ... within [lo, hi] iterations */
} nvs_eta_auto;

/* Microseconds the points still NVS_ETA_TODO are expected to take; -1 while nothing is timed to go by. */
double nvs_eta_left_us(const nvs_eta_point *p, size_t n, const nvs_eta_auto *au);

#endif
