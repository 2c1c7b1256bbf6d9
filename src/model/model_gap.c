/* Efficiency gap between two configurations, split among link / batch / compute (model_gap.h). PURE. */
#include "model/model_gap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Under half a point of efficiency, no cause is named: the model is not that precise. */
#define GAP_MIN 0.005

const char *nvs_cause_name(int cause)
{
    static const char *const n[] = {"link", "batch (memory)", "compute"};
    return (cause >= 0 && cause < NVS_CAUSE_COUNT) ? n[cause] : "none";
}

double nvs_shapley3(const double v[8], int i)
{
    /* weights |S|! (3-1-|S|)! / 3!: 1/3 for |S| = 0 or 2, 1/6 for |S| = 1 */
    static const double w[3] = {1.0 / 3.0, 1.0 / 6.0, 1.0 / 3.0};
    double phi = 0;
    int bit = 1 << i;
    for (int s = 0; s < 8; s++) {
        if (s & bit) continue;
        int size = ((s & 1) != 0) + ((s & 2) != 0) + ((s & 4) != 0);
        phi += w[size] * (v[s | bit] - v[s]);
    }
    return phi;
}

static void hybrid(const nvs_model_config *a, const nvs_model_config *b, int mask, nvs_model_config *h)
{
    *h = *a;
    if (mask & (1 << NVS_CAUSE_LINK)) {
        h->gpu.p2p_pcie = b->gpu.p2p_pcie;
        h->gpu.nvlink_links = b->gpu.nvlink_links;
        h->gpu.nvlink_gbps_per_link = b->gpu.nvlink_gbps_per_link;
        h->p2p_disabled = b->p2p_disabled;
    }
    if (mask & (1 << NVS_CAUSE_BATCH)) h->batch = b->batch;
    if (mask & (1 << NVS_CAUSE_COMPUTE)) {
        h->gpu.fp32_tflops = b->gpu.fp32_tflops;
        h->gpu.tf32_tflops = b->gpu.tf32_tflops;
        h->gpu.bf16_tflops = b->gpu.bf16_tflops;
        h->gpu.mem_gbps = b->gpu.mem_gbps;
    }
}

nvs_result_t nvs_model_gap(const nvs_model_config *a, const nvs_model_config *b, int nodes, int gpn, nvs_gap *out,
                           char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    double v[8];
    for (int m = 0; m < 8; m++) {
        nvs_model_config h;
        nvs_model_point pt;
        hybrid(a, b, m, &h);
        NVS_CHECK(nvs_model_eval(&h, nodes, gpn, &pt, err, errlen));
        v[m] = pt.efficiency;
    }
    out->eff_a = v[0];
    out->eff_b = v[7];
    out->gap = v[7] - v[0];
    out->cause = -1;
    double best = 0;
    for (int i = 0; i < NVS_CAUSE_COUNT; i++) {
        out->share[i] = nvs_shapley3(v, i);
        /* the cause is the share pushing the same way as the gap, the largest one */
        double s = out->gap >= 0 ? out->share[i] : -out->share[i];
        if (fabs(out->gap) >= GAP_MIN && s > best) {
            best = s;
            out->cause = i;
        }
    }
    return NVS_OK;
}

nvs_result_t nvs_lambda_row_eval(nvs_model_config *a, nvs_model_config *b, int nodes, int gpn, nvs_lambda_row *row,
                                 char *err, size_t errlen)
{
    memset(row, 0, sizeof *row);
    snprintf(row->model, sizeof row->model, "%s", a->profile ? a->profile->name : "?");
    nvs_mem_estimate ma, mb;
    row->batch_a = nvs_model_max_batch(a, &ma);
    row->batch_b = nvs_model_max_batch(b, &mb);
    if (row->batch_a < 1 || row->batch_b < 1) {
        snprintf(err, errlen, "%s does not fit on %s even at batch 1", row->model,
                 row->batch_a < 1 ? a->gpu.id : b->gpu.id);
        return NVS_ERR_INPUT;
    }
    row->batch_eq = row->batch_a < row->batch_b ? row->batch_a : row->batch_b;
    a->batch = row->batch_a;
    a->batch_is_max = 1;
    b->batch = row->batch_b;
    b->batch_is_max = 1;
    NVS_CHECK(nvs_model_gap(a, b, nodes, gpn, &row->at_max, err, errlen));
    nvs_model_point pa, pb;
    NVS_CHECK(nvs_model_eval(a, nodes, gpn, &pa, err, errlen));
    NVS_CHECK(nvs_model_eval(b, nodes, gpn, &pb, err, errlen));
    row->step_a_us = pa.t.step_us;
    row->step_b_us = pb.t.step_us;
    snprintf(row->bottleneck_a, sizeof row->bottleneck_a, "%s", pa.bottleneck);
    snprintf(row->bottleneck_b, sizeof row->bottleneck_b, "%s", pb.bottleneck);
    nvs_model_config ea = *a, eb = *b;
    ea.batch = eb.batch = row->batch_eq;
    ea.batch_is_max = eb.batch_is_max = 0;
    NVS_CHECK(nvs_model_gap(&ea, &eb, nodes, gpn, &row->at_eq, err, errlen));
    return NVS_OK;
}
