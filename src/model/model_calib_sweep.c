/* Calibration (model_calib.h): the all_reduce sweep: a latency and a bus bandwidth fitted at each N, the preset-only
 * twin of the configuration, and the error table per size against both. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_calib_priv.h"

int nvs_fit_alpha_beta(const double *bytes, const double *t_us, int k, double *a_us, double *c_us_per_byte)
{
    /* regressors x1 = 1/t, x2 = s/t, target 1: normal equations of a 2-parameter linear least squares */
    double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
    int used = 0;
    for (int i = 0; i < k; i++) {
        if (!(t_us[i] > 0) || !(bytes[i] > 0)) continue;
        double x1 = 1.0 / t_us[i], x2 = bytes[i] / t_us[i];
        s11 += x1 * x1;
        s12 += x1 * x2;
        s22 += x2 * x2;
        b1 += x1;
        b2 += x2;
        used++;
    }
    if (used == 0) return -1;
    double a = 0, c = 0, det = s11 * s22 - s12 * s12;
    if (used >= 2 && det > 1e-12 * s11 * s22) {
        a = (b1 * s22 - b2 * s12) / det;
        c = (s11 * b2 - s12 * b1) / det;
    }
    if (used < 2 || !(det > 1e-12 * s11 * s22) || a < 0 || c <= 0) {
        /* constrained: a = 0, fit c alone */
        a = 0;
        c = b2 / s22;
        if (!(c > 0)) return -1;
    }
    *a_us = a;
    *c_us_per_byte = c;
    return 0;
}

static int add_coll_row(nvs_calibration *c, int *cap, const nvs_calib_coll_row *row)
{
    if (c->ncoll == *cap) {
        int nc = *cap ? *cap * 2 : 64;
        nvs_calib_coll_row *v = realloc(c->coll, (size_t)nc * sizeof *v);
        if (!v) return -1;
        c->coll = v;
        *cap = nc;
    }
    c->coll[c->ncoll++] = *row;
    return 0;
}

nvs_result_t nvs_mc_sweep(const nvs_run *r, const nvs_preset *mp, nvs_calibration *out, char *err, size_t errlen)
{
    nvs_result_t res = NVS_OK;
    double *sizes = NULL, *xs = NULL, *ts = NULL;
    nvs_model_config *cfg = &out->cfg;
    int *cns = NULL;
    int ncn = nvs_run_coll_ns(r, "all_reduce", &cns);
    int nsz = nvs_run_coll_sizes(r, "all_reduce", &sizes);
    if (ncn < 0 || nsz < 0) {
        free(cns);
        res = NVS_ERR_NOMEM;
        goto fail;
    }
    xs = malloc(((size_t)nsz + 1) * sizeof *xs);
    ts = malloc(((size_t)nsz + 1) * sizeof *ts);
    if (!xs || !ts) {
        free(cns);
        res = NVS_ERR_NOMEM;
        goto fail;
    }
    for (int i = 0; i < ncn; i++) {
        int n = cns[i];
        if (n < 2) continue;
        int k = 0;
        for (int j = 0; j < nsz; j++) {
            const nvs_run_coll *rc = nvs_run_coll_find(r, "all_reduce", n, sizes[j]);
            if (!rc || !(rc->time_max_us > 0)) continue;
            xs[k] = rc->bytes;
            ts[k] = rc->time_max_us;
            k++;
        }
        double a, c;
        if (k == 0 || nvs_fit_alpha_beta(xs, ts, k, &a, &c) != 0) continue;
        if (out->nlinks == NVS_MODEL_MAX_MEAS) break;
        nvs_calib_link *l = &out->links[out->nlinks++];
        l->n = n;
        l->latency_us = a;
        l->busbw_gbps = 2.0 * (n - 1) / n / (c * 1e3);
        l->npts = k;
        l->preset_gbps = NAN;
        cfg->meas[cfg->nmeas++] = (nvs_meas_link){n, 0.0, a / (2.0 * (n - 1)), l->busbw_gbps, 0, net_at(out, n)};
    }
    free(cns);

    /* --- the preset-only twin, for the "how good were the presets" columns ------------------------------------- */
    out->preset_cfg = *cfg;
    out->preset_cfg.nmeas = 0;
    for (int i = 0; i < out->nlinks; i++) {
        nvs_calib_link *l = &out->links[i];
        nvs_ring_links rl;
        if (mp && preset_describes(out, l->n) &&
            nvs_ring_links_of(&cfg->machine, &cfg->gpu, l->n, nvs_model_off(cfg), &rl) == NVS_OK)
            l->preset_gbps = rl.gbps;
    }

    /* --- per-size error table ------------------------------------------------------------------------------------- */
    int cap = 0;
    for (int i = 0; i < out->nlinks; i++) {
        int n = out->links[i].n;
        nvs_ar_params ar, arp;
        nvs_ring_links rl;
        int meas;
        char e2[256];
        NVS_CHECK_GOTO(nvs_model_ar_params(cfg, 1, n, &ar, &rl, &meas, err, errlen), res, fail);
        int have_preset = mp && preset_describes(out, n) &&
                          nvs_model_ar_params(&out->preset_cfg, 1, n, &arp, &rl, &meas, e2, sizeof e2) == NVS_OK;
        for (int j = 0; j < nsz; j++) {
            const nvs_run_coll *rc = nvs_run_coll_find(r, "all_reduce", n, sizes[j]);
            if (!rc || !(rc->time_max_us > 0)) continue;
            nvs_calib_coll_row row = {n, rc->bytes, rc->time_max_us, nvs_allreduce_us(&ar, rc->bytes, NULL),
                                      have_preset ? nvs_allreduce_us(&arp, rc->bytes, NULL) : NAN};
            if (add_coll_row(out, &cap, &row)) {
                res = NVS_ERR_NOMEM;
                goto fail;
            }
        }
    }
fail:
    free(sizes);
    free(xs);
    free(ts);
    return res;
}
