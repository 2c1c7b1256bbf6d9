#include "phases.h"

#include <stdlib.h>
#include <string.h>

#include "../collectives/coll.h"
#include "log.h"
#include "train.h"

nvs_result_t nvs_phase_validate(const nvs_config *cfg)
{
    (void)cfg;
    return NVS_OK;
}

nvs_result_t nvs_phase_place(nvs_run *run, int n, int *ranks)
{
    (void)run;
    for (int i = 0; i < n; i++) ranks[i] = i; /* first N ranks */
    return NVS_OK;
}

nvs_result_t nvs_phase_topology(nvs_run *run)
{
    (void)run;
    return NVS_OK;
}

nvs_result_t nvs_phase_train(nvs_run *run) { return nvs_train_phase(run); }

nvs_result_t nvs_phase_transports(nvs_run *run)
{
    (void)run;
    return NVS_OK;
}

/* busbw of the largest size of each collective at each N: the scaling table's last line of defence against
 * reading the wrong number, printed under the per-N tables. */
static void print_scaling(const nvs_run *run, FILE *to);
static void print_train(const json_t *t, FILE *to);

void nvs_phase_print_summary(const nvs_run *run, FILE *to)
{
    print_scaling(run, to);
    if (run->train) print_train(run->train, to);
}

static void print_scaling(const nvs_run *run, FILE *to)
{
    if (run->npoints < 2 || !run->rows.n) return;
    fprintf(to, "#\n# Scaling: busbw (GB/s) at each GPU count, out-of-place\n#  %-14s %8s %5s %12s", "collective",
            "type", "op", "size");
    for (int i = 0; i < run->npoints; i++) fprintf(to, "   N=%-5d", run->points[i].n);
    fputc('\n', to);
    for (int ci = 0; ci < nvs_coll_count(); ci++) {
        for (size_t i = 0; i < run->rows.n; i++) {
            const nvs_coll_row *r = &run->rows.v[i];
            if (r->coll != ci || r->inplace || r->n != run->points[0].n) continue;
            /* one line per size present at the first N */
            fprintf(to, "   %-14s %8s %5s %12zu", nvs_coll_at(ci)->name, nvs_dtype_name(r->type),
                    r->op < 0 ? "none" : nvs_redop_name((nvs_redop)r->op), r->bytes);
            for (int p = 0; p < run->npoints; p++) {
                double bw = -1;
                for (size_t j = 0; j < run->rows.n; j++) {
                    const nvs_coll_row *q = &run->rows.v[j];
                    if (q->coll == ci && !q->inplace && q->n == run->points[p].n && q->bytes == r->bytes &&
                        q->type == r->type && q->op == r->op)
                        bw = q->busbw_gbps;
                }
                if (bw < 0) fprintf(to, "   %8s", "-");
                else fprintf(to, "   %8.2f", bw);
            }
            fputc('\n', to);
        }
    }
}

static double jnum(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

/* The training table, from run.json's train section so that screen and file cannot disagree. */
static void print_train(const json_t *t, FILE *to)
{
    fprintf(to, "#\n# Training step: %s, batch %d per GPU, %s, gradients %s, %zu buckets (%.1f M parameters, %.1f "
                "GFLOP per step per GPU)\n",
            json_string_value(json_object_get(t, "model")), (int)json_integer_value(json_object_get(t, "batch")),
            json_string_value(json_object_get(t, "precision")), json_string_value(json_object_get(t, "grad_type")),
            json_array_size(json_object_get(t, "buckets")), jnum(t, "params") / 1e6, jnum(t, "step_gflops"));
    fprintf(to, "#  %5s  %10s  %12s  %10s  %12s  %10s  %10s  %10s\n", "N", "step(ms)", "compute(ms)", "comm(ms)",
            "exposed(ms)", "exposed%", "samples/s", "efficiency");
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(t, "results"), i, r)
    {
        double step = jnum(r, "step_us");
        fprintf(to, "   %5d  %10.2f  %12.2f  %10.2f  %12.2f  %9.1f%%  %10.1f  %9.1f%%\n",
                (int)json_integer_value(json_object_get(r, "n")), step / 1e3, jnum(r, "compute_us") / 1e3,
                jnum(r, "comm_us") / 1e3, jnum(r, "exposed_comm_us") / 1e3,
                step > 0 ? 100.0 * jnum(r, "exposed_comm_us") / step : 0.0, jnum(r, "samples_per_s"),
                100.0 * jnum(r, "efficiency"));
    }
}

void nvs_phase_cleanup(nvs_run *run)
{
    if (run->topology) json_decref(run->topology);
    if (run->transports) json_decref(run->transports);
    if (run->train) json_decref(run->train);
    run->topology = run->transports = run->train = NULL;
}
