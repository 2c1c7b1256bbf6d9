/* See split.h. */
#include "train/split.h"

#include <math.h>

nvs_step_split nvs_step_split_of(double step_us, double compute_us, double span_diff_us, double comm_us,
                                 double ref_lost_us, double ref_span_diff_us)
{
    nvs_step_split s = {0, 0, 0, 0};
    double lost = fmax(0.0, step_us - compute_us);
    s.reducer_us = fmin(lost, fmax(0.0, ref_lost_us));
    s.interference_us = fmin(lost - s.reducer_us, fmax(0.0, span_diff_us - ref_span_diff_us));
    double rest = lost - s.reducer_us - s.interference_us;
    s.exposed_us = comm_us > 0 ? fmin(rest, comm_us) : rest;
    s.rank_wait_us = rest - s.exposed_us;
    return s;
}

int nvs_step_compute_above(double step_us, double compute_us) { return step_us > 0 && compute_us > step_us; }
