#include "phases.h"

#include <stdlib.h>
#include <string.h>

#include "../collectives/coll.h"
#include "log.h"

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

nvs_result_t nvs_phase_train(nvs_run *run)
{
    if (run->rt->rank == 0) nvs_error("the training step is not available in this build yet");
    return NVS_ERR_UNSUPPORTED;
}

nvs_result_t nvs_phase_transports(nvs_run *run)
{
    (void)run;
    return NVS_OK;
}

/* busbw of the largest size of each collective at each N: the scaling table's last line of defence against
 * reading the wrong number, printed under the per-N tables. */
void nvs_phase_print_summary(const nvs_run *run, FILE *to)
{
    if (run->npoints < 2 || !run->rows.n) return;
    fprintf(to, "#\n# Scaling: busbw (GB/s) at each GPU count, out-of-place\n#  %-14s %12s", "collective", "size");
    for (int i = 0; i < run->npoints; i++) fprintf(to, "   N=%-5d", run->points[i].n);
    fputc('\n', to);
    for (int ci = 0; ci < nvs_coll_count(); ci++) {
        for (size_t i = 0; i < run->rows.n; i++) {
            const nvs_coll_row *r = &run->rows.v[i];
            if (r->coll != ci || r->inplace || r->n != run->points[0].n) continue;
            /* one line per size present at the first N */
            fprintf(to, "   %-14s %12zu", nvs_coll_at(ci)->name, r->bytes);
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

void nvs_phase_cleanup(nvs_run *run)
{
    if (run->topology) json_decref(run->topology);
    if (run->transports) json_decref(run->transports);
    if (run->train) json_decref(run->train);
    run->topology = run->transports = run->train = NULL;
}
