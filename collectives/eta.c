#include "collectives/eta.h"

#include <math.h>
#include <stdlib.h>

#include "core/metrics.h"

#define NTERMS 2

static double ops_of(const nvs_eta_point *p, int iters)
{
    return (double)iters * (p->per_iter > 0 ? p->per_iter : 1) + p->extra;
}

/* One observation of a fit: y = c0 x f0 + c1 x f1, its error counted relative to `scale` */
typedef struct {
    double f[NTERMS], y, scale;
} obs;

/* Least squares over the terms in `mask` (bit j: term j). 0 with c[] and the relative residual set; -1 when the
 * observations cannot tell the terms apart (singular) or a coefficient comes out negative. */
static int fit_mask(const obs *o, size_t n, unsigned mask, double c[NTERMS], double *resid)
{
    double a[NTERMS][NTERMS] = {{0}}, b[NTERMS] = {0};
    for (size_t i = 0; i < n; i++) {
        double w = 1.0 / (o[i].scale * o[i].scale);
        for (int j = 0; j < NTERMS; j++) {
            b[j] += w * o[i].f[j] * o[i].y;
            for (int k = 0; k < NTERMS; k++) a[j][k] += w * o[i].f[j] * o[i].f[k];
        }
    }
    for (int j = 0; j < NTERMS; j++) c[j] = 0;
    int one = mask == 1 ? 0 : mask == 2 ? 1 : -1;
    if (one >= 0) {
        if (!(a[one][one] > 0)) return -1;
        c[one] = b[one] / a[one][one];
    } else {
        /* both terms, each scaled to a unit diagonal (bytes and operation counts are 1e9 apart) */
        if (!(a[0][0] > 0 && a[1][1] > 0)) return -1;
        double s0 = sqrt(a[0][0]), s1 = sqrt(a[1][1]), r = a[0][1] / (s0 * s1), det = 1 - r * r;
        if (det < 1e-9) return -1; /* the terms move together: one size only */
        double b0 = b[0] / s0, b1 = b[1] / s1;
        c[0] = (b0 - r * b1) / det / s0;
        c[1] = (b1 - r * b0) / det / s1;
    }
    double e = 0;
    for (int j = 0; j < NTERMS; j++)
        if (!(c[j] >= 0) || !isfinite(c[j])) return -1;
    for (size_t i = 0; i < n; i++) {
        double y = c[0] * o[i].f[0] + c[1] * o[i].f[1];
        e += (y - o[i].y) * (y - o[i].y) / (o[i].scale * o[i].scale);
    }
    *resid = e;
    return 0;
}

/* The closest fit of either term or both, none negative; the simpler on a tie (one term first: a single size
 * timed is told by its first term alone). -1 when none fits. */
static int fit(const obs *o, size_t n, double c[NTERMS])
{
    double best_e = INFINITY;
    for (unsigned mask = 1; mask < (1u << NTERMS); mask++) {
        double t[NTERMS], e;
        if (fit_mask(o, n, mask, t, &e) == 0 && e < best_e * (1 - 1e-9) - 1e-15) {
            best_e = e;
            for (int j = 0; j < NTERMS; j++) c[j] = t[j];
        }
    }
    return isfinite(best_e) ? 0 : -1;
}

double nvs_eta_left_us(const nvs_eta_point *p, size_t n, const nvs_eta_auto *au)
{
    obs *o = malloc((n ? n : 1) * sizeof *o);
    if (!o) return -1;
    /* the time of one operation: lat + s x wbytes, from the timed loops */
    double op[NTERMS] = {0, 0}, pt[NTERMS] = {0, 0};
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].state == NVS_ETA_TIMED && p[i].op_us > 0) o[k++] = (obs){{1, p[i].wbytes}, p[i].op_us, p[i].op_us};
    int have_op = k > 0 && fit(o, k, op) == 0;
    /* what each point took beyond its operations: r + q x size (with no operation time known, the operations
     * too, at the fitted latency 0: the estimate still rests on what was timed) */
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i].state != NVS_ETA_TIMED || !(p[i].wall_us > 0)) continue;
        double own = p[i].op_us > 0 ? p[i].op_us : op[0] + op[1] * p[i].wbytes;
        double rest = p[i].wall_us - ops_of(&p[i], p[i].iters) * own;
        /* relative to the point's wall time: a remainder near 0 must not weigh as if it were the whole point */
        o[k++] = (obs){{1, p[i].size}, rest > 0 ? rest : 0, p[i].wall_us};
    }
    int have_pt = k > 0 && fit(o, k, pt) == 0;
    free(o);
    if (!have_op && !have_pt) return -1;
    double left = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i].state != NVS_ETA_TODO) continue;
        double op_us = op[0] + op[1] * p[i].wbytes;
        int iters = p[i].iters > 0 ? p[i].iters : nvs_auto_iters(op_us, au->target_us, au->lo, au->hi);
        left += ops_of(&p[i], iters) * op_us + pt[0] + pt[1] * p[i].size;
    }
    return left;
}
