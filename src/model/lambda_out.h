/* Output of `nvscale model --lambda`: the table of model vs Lambda efficiencies, the causes, the memory check and
 * the fit (text), and the same as JSON (kind "lambda", docs/model.md). Printers only: lambda.c computes. */
#ifndef NVS_LAMBDA_OUT_H
#define NVS_LAMBDA_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "model/lambda.h"

/* rows: nvs_lambda_nworkloads x NVS_LAMBDA_PRECS, row [w * 2 + fp16]. fit (may be NULL): a fresh fit of the
 * free parameters, printed beside the committed ones with its residuals. */
typedef struct {
    const nvs_lambda_row *rows;
    int nrows;
    nvs_lambda_params committed;
    const nvs_lambda_params *fit;
    const double *fit_resid;
} nvs_lambda_report;

void nvs_lambda_print(FILE *f, const nvs_lambda_report *r);
json_t *nvs_lambda_json(const nvs_lambda_report *r);

/* The largest |model - Lambda| in points among the cells not fitted, at N = 8 and at N = 2 and 4 (NAN cells,
 * with no same-machine measurement, are skipped); *nscored: the cells compared. */
void nvs_lambda_max_err(const nvs_lambda_row *rows, int nrows, double *err8, double *err24, int *nscored);

#endif
