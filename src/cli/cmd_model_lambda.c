/* nvscale model --lambda [--fit]: the model beside Lambda's measured scaling (cmd_model_priv.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd_model_priv.h"
#include "model/lambda_out.h"

static void print_lambda_cb(FILE *f, const void *a) { nvs_lambda_print(f, a); }

int nvs_cm_lambda(const opts *o, const nvs_presets *ps, int json)
{
    const char *flag = nvs_cm_projection_flag(o);
    if (flag)
        return usage_error("%s: --lambda models Lambda's own runs (their GPUs, boxes, batches, "
                           "precisions and N = 2, 4, 8): it takes only --fit, --preset-file, --format and --output",
                           flag);
    char err[512];
    nvs_lambda_params par, fitp;
    double resid[NVS_LAMBDA_NFIT];
    if (nvs_lambda_params_committed(ps, &par, err, sizeof err) != NVS_OK) {
        fprintf(stderr, "nvscale model: %s\n", err);
        return 2;
    }
    if (o->fit && nvs_lambda_fit(ps, &par, &fitp, resid, err, sizeof err) != NVS_OK) {
        fprintf(stderr, "nvscale model: fitting the Lambda case: %s\n", err);
        return 1;
    }
    int nrows = nvs_lambda_nworkloads * NVS_LAMBDA_PRECS;
    nvs_lambda_row *rows = calloc((size_t)nrows, sizeof *rows);
    if (!rows) return 1;
    int rc = 0;
    for (int w = 0; w < nvs_lambda_nworkloads && !rc; w++)
        for (int fp16 = 0; fp16 < NVS_LAMBDA_PRECS && !rc; fp16++) {
            /* with --fit the table is the refit parameters' (equal to the committed ones unless a preset file
             * or the data changed) */
            nvs_result_t r = nvs_lambda_row_eval(ps, o->fit ? &fitp : &par, w, fp16,
                                                 &rows[w * NVS_LAMBDA_PRECS + fp16], err, sizeof err);
            if (r != NVS_OK) {
                fprintf(stderr, "nvscale model: %s\n", err);
                rc = r == NVS_ERR_INPUT ? 2 : 1;
            }
        }
    if (!rc) {
        nvs_lambda_report rep = {rows, nrows, par, o->fit ? &fitp : NULL, o->fit ? resid : NULL};
        rc = nvs_cm_render_and_emit(o, json, print_lambda_cb, &rep, json ? nvs_lambda_json(&rep) : NULL);
    }
    free(rows);
    return rc;
}
