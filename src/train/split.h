/* Where a data-parallel step's time goes (PURE): the measured step(N) split into the compute-only step and four
 * parts, so that step = compute + reducer + interference + exposed + rank_wait (all in us, each >= 0).
 *
 *   reducer       what the full step costs over the compute-only one at the reference N, where no link is
 *                 crossed (the framework's hooks and bucket copies)
 *   interference  the compute slowed beside the all-reduces: the compute span grew beyond the reducer's own
 *   exposed       communication the backward pass could not hide; never more than the all-reduces take alone,
 *                 back to back (comm_us): communication cannot be exposed for longer than it lasts
 *   rank_wait     the rest: waiting at the all-reduces for a slower rank. Each rank times its compute-only steps
 *                 alone, so a rank whose host runs slow in some steps slows only itself there; in the full step
 *                 the ranks meet at every bucket, and each step takes the slowest rank's time (docs/fidelity.md,
 *                 "At N=2").
 * The split holds where compute <= step. The two are timed apart (median of --steps each), so a compute-only
 * step can come out longer than the full step: noise within their spread (one step each at --steps 1: a
 * 535 ms step beside a 1015 ms compute-only step on a busy 2-core host), or a host that slowed meanwhile. Then
 * every part is 0 and step < compute: nvs_step_compute_above says so, and run.json / CSV carry it. */
#ifndef NVS_TRAIN_SPLIT_H
#define NVS_TRAIN_SPLIT_H

typedef struct {
    double reducer_us, interference_us, exposed_us, rank_wait_us;
} nvs_step_split;

/* step_us, compute_us: this N's full and compute-only steps; span_diff_us: the slowest rank's compute span, full
 * minus compute-only; comm_us: the all-reduces alone (<= 0: unknown, no cap); ref_lost_us, ref_span_diff_us: the
 * reference N's step - compute (>= 0) and span difference. */
nvs_step_split nvs_step_split_of(double step_us, double compute_us, double span_diff_us, double comm_us,
                                 double ref_lost_us, double ref_span_diff_us);

/* 1 where the compute-only step came out longer than the full step (both > 0): the parts are all 0 and
 * step = compute + parts does not hold for this N */
int nvs_step_compute_above(double step_us, double compute_us);

#endif
