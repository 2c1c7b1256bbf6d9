/* Efficiency gap between two configurations, split among its causes; one configuration's loss (model_gap.h).
 * PURE. */
#include "model/model_gap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Under half a point of efficiency, no cause is named: the model is not that precise. */
#define GAP_MIN 0.005

const char *nvs_cause_name(int cause)
{
    static const char *const n[] = {"link", "host", "batch (memory)", "compute", "overlap mode"};
    return (cause >= 0 && cause < NVS_CAUSE_COUNT) ? n[cause] : "none";
}

const char *nvs_cause_key(int cause)
{
    static const char *const n[] = {"link", "host", "batch", "compute", "overlap"};
    return (cause >= 0 && cause < NVS_CAUSE_COUNT) ? n[cause] : "none";
}

double nvs_shapley(const double *v, int n, int i)
{
    /* phi_i = sum over S not containing i of |S|! (n-1-|S|)! / n! * (v(S + i) - v(S)) */
    double fact[9] = {1};
    for (int k = 1; k <= 8; k++) fact[k] = fact[k - 1] * k;
    if (n < 1 || n > 8 || i < 0 || i >= n) return 0;
    double phi = 0;
    int bit = 1 << i;
    for (int s = 0; s < (1 << n); s++) {
        if (s & bit) continue;
        int size = __builtin_popcount((unsigned)s);
        phi += fact[size] * fact[n - 1 - size] / fact[n] * (v[s | bit] - v[s]);
    }
    return phi;
}

double nvs_shapley3(const double v[8], int i) { return nvs_shapley(v, 3, i); }

/* A's configuration with the factors in `mask` (bit k = cause k) taken from B */
static void hybrid(const nvs_model_config *a, const nvs_model_config *b, int mask, nvs_model_config *h)
{
    *h = *a;
    if (mask & (1 << NVS_CAUSE_LINK)) {
        h->gpu.p2p_pcie = b->gpu.p2p_pcie;
        h->gpu.nvlink_links = b->gpu.nvlink_links;
        h->gpu.nvlink_gbps_per_link = b->gpu.nvlink_gbps_per_link;
        /* whether the GPU can do NVLink SHARP is part of its link (nvs_gpu_nvls) */
        h->gpu.nvlink_gen = b->gpu.nvlink_gen;
        h->gpu.compute_capability = b->gpu.compute_capability;
        h->p2p_disabled = b->p2p_disabled;
        h->shm_disabled = b->shm_disabled;
    }
    if (mask & (1 << NVS_CAUSE_HOST)) h->machine = b->machine;
    if (mask & (1 << NVS_CAUSE_BATCH)) h->batch = b->batch;
    if (mask & (1 << NVS_CAUSE_COMPUTE)) {
        h->gpu.fp32_tflops = b->gpu.fp32_tflops;
        h->gpu.tf32_tflops = b->gpu.tf32_tflops;
        h->gpu.bf16_tflops = b->gpu.bf16_tflops;
        h->gpu.mem_gbps = b->gpu.mem_gbps;
        h->ct = b->ct;
        h->compute_measured = b->compute_measured;
    }
}

/* Each hybrid at the shape of the machine it has: the shape (nodes x GPUs per node at N) comes with the machine, so
 * switching the host factor switches it (two boxes of 4 and 8 GPUs run 16 GPUs as 4 x 4 and 2 x 8) */
static nvs_result_t shapley_gap(const nvs_model_config *a, const nvs_model_config *b, const int shape_a[2],
                                const int shape_b[2], double *share, double *eff_a, double *eff_b, char *err,
                                size_t errlen)
{
    double v[1 << NVS_SHAPLEY_FACTORS];
    for (int m = 0; m < (1 << NVS_SHAPLEY_FACTORS); m++) {
        nvs_model_config h;
        nvs_model_point pt;
        hybrid(a, b, m, &h);
        const int *shape = (m & (1 << NVS_CAUSE_HOST)) ? shape_b : shape_a;
        NVS_CHECK(nvs_model_eval(&h, shape[0], shape[1], &pt, err, errlen));
        v[m] = pt.efficiency;
    }
    for (int i = 0; i < NVS_SHAPLEY_FACTORS; i++) share[i] = nvs_shapley(v, NVS_SHAPLEY_FACTORS, i);
    *eff_a = v[0];
    *eff_b = v[(1 << NVS_SHAPLEY_FACTORS) - 1];
    return NVS_OK;
}

nvs_result_t nvs_model_gap_at(const nvs_model_config *a, int nodes_a, int gpn_a, const nvs_model_config *b,
                              int nodes_b, int gpn_b, nvs_gap *out, char *err, size_t errlen)
{
    const int sa[2] = {nodes_a, gpn_a}, sb[2] = {nodes_b, gpn_b};
    memset(out, 0, sizeof *out);
    double ea, eb;
    NVS_CHECK(shapley_gap(a, b, sa, sb, out->share, &ea, &eb, err, errlen));
    out->eff_a = ea;
    out->eff_b = eb;
    out->gap = eb - ea;
    if (nvs_model_dp(a) == NVS_DP_DELAY || nvs_model_dp(b) == NVS_DP_DELAY) {
        /* the part of the gap the mode makes: the same split with both overlapping (dp ddp) */
        nvs_model_config a2 = *a, b2 = *b;
        a2.dp = b2.dp = NVS_DP_DDP;
        double ea2, eb2;
        NVS_CHECK(shapley_gap(&a2, &b2, sa, sb, out->share, &ea2, &eb2, err, errlen));
        out->share[NVS_CAUSE_OVERLAP] = out->gap - (eb2 - ea2);
    }
    out->cause = -1;
    double best = 0;
    for (int i = 0; i < NVS_CAUSE_COUNT; i++) {
        /* the cause is the share pushing the same way as the gap, the largest one */
        double s = out->gap >= 0 ? out->share[i] : -out->share[i];
        if (fabs(out->gap) >= GAP_MIN && s > best) {
            best = s;
            out->cause = i;
        }
    }
    return NVS_OK;
}

nvs_result_t nvs_model_gap(const nvs_model_config *a, const nvs_model_config *b, int nodes, int gpn, nvs_gap *out,
                           char *err, size_t errlen)
{
    return nvs_model_gap_at(a, nodes, gpn, b, nodes, gpn, out, err, errlen);
}

nvs_result_t nvs_model_loss(const nvs_model_config *c, int nodes, int gpn, nvs_loss *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    NVS_CHECK(nvs_model_eval(c, nodes, gpn, &out->pt, err, errlen));
    const nvs_step_times *t = &out->pt.t;
    double step = t->step_us;
    out->eff = out->pt.efficiency;
    if (!(step > 0) || out->pt.n <= 1) return NVS_OK;
    out->penalty = t->penalty_us / step;
    out->comm = t->exposed_us / step;
    out->sync = t->sync_us / step;
    if (nvs_model_dp(c) == NVS_DP_DELAY) {
        nvs_model_config d = *c;
        nvs_model_point p2;
        d.dp = NVS_DP_DDP;
        NVS_CHECK(nvs_model_eval(&d, nodes, gpn, &p2, err, errlen));
        /* what the step pays for its communication in either mode: exposed and interference */
        double m = t->exposed_us + t->penalty_us - (p2.t.exposed_us + p2.t.penalty_us);
        out->mode_comm = m > 0 ? m / step : 0;
    }
    return NVS_OK;
}
