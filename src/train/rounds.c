/* See rounds.h. */
#include "train/rounds.h"

#include <string.h>

#include "core/metrics.h"

#define NVS_ROUNDS_MAX 128 /* options_train.c caps --rounds at 100 */

void nvs_train_rounds_merge(const nvs_train_point *raw, int npoints, int i, int nrounds, nvs_train_point *out)
{
    memset(out, 0, sizeof *out);
    if (nrounds < 1 || i < 0 || i >= npoints) return;
    if (nrounds > NVS_ROUNDS_MAX) nrounds = NVS_ROUNDS_MAX;
    double step[NVS_ROUNDS_MAX], ref[NVS_ROUNDS_MAX];
    for (int r = 0; r < nrounds; r++) {
        step[r] = raw[r * npoints + i].step_us;
        ref[r] = raw[r * npoints].step_us;
    }
    /* the round whose step is the median (the lower one of an even count) stands for the point: its step, compute,
     * all-reduces and split come from one stretch of the host, measured back to back */
    double med = nvs_median(step, (size_t)nrounds);
    int pick = 0;
    for (int r = 0; r < nrounds; r++)
        if (step[r] <= med && (step[pick] > med || step[r] > step[pick])) pick = r;
    *out = raw[pick * npoints + i];
    const nvs_train_point *r0 = &raw[i];
    out->no_gemm_us = r0->no_gemm_us;
    out->ideal_compute_us = r0->ideal_compute_us;
    out->ideal_issue_us = r0->ideal_issue_us;
    out->host_rate_lo = out->host_rate_hi = 0;
    for (int r = 0; r < nrounds; r++) {
        const nvs_train_point *p = &raw[r * npoints + i];
        if (p->host_rate_lo > 0 && (out->host_rate_lo <= 0 || p->host_rate_lo < out->host_rate_lo))
            out->host_rate_lo = p->host_rate_lo;
        if (p->host_rate_hi > out->host_rate_hi) out->host_rate_hi = p->host_rate_hi;
    }
    out->rounds = nrounds;
    out->eff = nvs_paired_efficiency(ref, step, (size_t)nrounds, &out->eff_lo, &out->eff_hi);
}

int nvs_train_rounds_point(int npoints, int rd, int j) { return rd % 2 ? npoints - 1 - j : j; }

int nvs_train_rounds_usable(int npoints, int rd, int j, int k)
{
    /* measured in round rd so far: the points at positions 0..j of its order */
    int pos_k = rd % 2 ? npoints - 1 - k : k, pos_ref = rd % 2 ? npoints - 1 : 0;
    int done = rd + (pos_k <= j), ref = rd + (pos_ref <= j);
    return done < ref ? done : ref;
}
