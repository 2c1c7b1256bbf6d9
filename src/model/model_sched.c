/* The what-if model's schedule of a step: DDP buckets, the all-reduces beside the backward (one lane, or the
 * host's and the GPU's), and the expected maximum of normal samples (the slowest rank). Formulas: model.h,
 * docs/model.md. */
#include "model/model.h"

#include <math.h>
#include <string.h>

/* --- buckets and schedule -------------------------------------------------------------------------------------- */

int nvs_assign_buckets(const nvs_layer *layers, int nlayers, double grad_bytes, double first_cap_bytes,
                       double cap_bytes, nvs_model_bucket *out, int maxb)
{
    return nvs_ddp_buckets(layers, nlayers, grad_bytes, first_cap_bytes, cap_bytes, out, maxb, NULL);
}

void nvs_schedule(const double *bwd_layer_us, int nlayers, const nvs_model_bucket *b, int nb, const double *ar_us,
                  double fwd_us, double opt_us, nvs_step_times *out)
{
    memset(out, 0, sizeof *out);
    double bwd = 0;
    for (int i = 0; i < nlayers; i++) bwd += bwd_layer_us[i];
    double end = 0;
    for (int k = 0; k < nb; k++) {
        double ready = 0; /* backward runs layers nlayers-1 .. 0: bucket ready when its last layer is done */
        for (int i = nlayers - 1; i >= b[k].last_layer && i >= 0; i--) ready += bwd_layer_us[i];
        double start = ready > end ? ready : end;
        end = start + ar_us[k];
        out->comm_us += ar_us[k];
    }
    out->fwd_us = fwd_us;
    out->bwd_us = bwd;
    out->opt_us = opt_us;
    out->compute_us = fwd_us + bwd + opt_us;
    out->comm_end_us = end;
    out->step_us = fwd_us + (end > bwd ? end : bwd) + opt_us;
    out->exposed_us = out->step_us - out->compute_us;
}

void nvs_schedule_lanes(const nvs_lanes *l, nvs_step_times *out)
{
    memset(out, 0, sizeof *out);
    double h = l->before_host_us, g = 0, gpu_sum = 0, host_sum = l->before_host_us;
    for (int i = 0; i < l->nlayers; i++) {
        double hw = l->host_fwd_us ? l->host_fwd_us[i] : 0;
        h += hw;
        host_sum += hw;
        g = (g > h ? g : h) + l->fwd_us[i];
        gpu_sum += l->fwd_us[i];
    }
    out->fwd_us = g;
    h += l->between_host_us;
    host_sum += l->between_host_us;
    /* which bucket closes at which layer: buckets close in order, bucket k at its last (lowest-index) layer */
    int k = 0;
    double end = 0;
    for (int i = l->nlayers - 1; i >= 0; i--) {
        double hw = l->host_bwd_us ? l->host_bwd_us[i] : 0;
        h += hw;
        host_sum += hw;
        double start = g > h ? g : h, d = l->bwd_us[i];
        /* the all-reduces queued so far run back to back up to `end` (each bucket was ready before this kernel
         * starts, so none waits past it): the kernel computes beside them until then */
        if (end > start) out->overlap_us += d < end - start ? d : end - start;
        g = start + d;
        gpu_sum += d;
        while (k < l->nb && l->b[k].last_layer >= i) {
            h += l->reducer_host_us;
            host_sum += l->reducer_host_us;
            double ready = g > h ? g : h;
            double start = ready > end ? ready : end;
            end = start + l->ar_us[k];
            out->comm_us += l->ar_us[k];
            k++;
        }
    }
    out->bwd_us = g - out->fwd_us;
    out->comm_end_us = end > out->fwd_us ? end - out->fwd_us : 0;
    if (end > g) g = end; /* the step's next work waits for the last all-reduce */
    g += l->penalty_us;   /* and for the time the interference added to the kernels beside them */
    for (int j = 0; j < l->nafter; j++) {
        h += l->after[j].host_us;
        host_sum += l->after[j].host_us;
        g = (g > h ? g : h) + l->after[j].gpu_us;
        gpu_sum += l->after[j].gpu_us;
        out->opt_us += l->after[j].gpu_us;
        if (l->after[j].sync && h < g) h = g;
    }
    out->compute_us = gpu_sum;
    out->step_us = g > h ? g : h;
    out->exposed_us = out->step_us - out->compute_us;
    out->host_us = host_sum;
}

double nvs_expected_max_normal(int n)
{
    if (n <= 1) return 0;
    /* integrand x * n * phi(x) * Phi(x)^(n-1); phi, Phi of the standard normal */
    const double lo = -12, hi = 12;
    const int steps = 4800;
    const double h = (hi - lo) / steps;
    double sum = 0;
    for (int i = 0; i <= steps; i++) {
        double x = lo + i * h;
        double phi = exp(-0.5 * x * x) / sqrt(2 * M_PI), cdf = 0.5 * erfc(-x / sqrt(2.0));
        double y = x * n * phi * pow(cdf, n - 1);
        sum += (i == 0 || i == steps) ? 0.5 * y : y;
    }
    return sum * h;
}
