/* Output of `nvscale model`: text tables and JSON (schema nvscale.model/1, docs/model.md). JSON only through
 * jansson. The writers take results already computed; they print, they do not model. */
#ifndef NVS_MODEL_OUT_H
#define NVS_MODEL_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "model/model_calib.h"
#include "model/model_eval.h"
#include "model/model_gap.h"
#include "model/preset.h"

#define NVS_MODEL_SCHEMA "nvscale.model/1"

/* One configuration evaluated at several GPU counts. */
typedef struct {
    nvs_model_config cfg;
    nvs_mem_estimate mem;
    nvs_model_point *pts;
    int npts;
} nvs_model_series;

/* Projection: one table per configuration, then (with several) efficiency side by side, a row per N; with two GPU
 * configurations, `gap` (may be NULL) explains the difference at gap_n, the largest N both have. */
void nvs_model_print_series(FILE *f, const nvs_presets *ps, const nvs_model_series *s, int ns, const nvs_gap *gap,
                            int gap_n);
json_t *nvs_model_json_series(const nvs_presets *ps, const nvs_model_series *s, int ns, const nvs_gap *gap,
                              int gap_n);

/* {"eff_a", "eff_b", "gap", "shares": {"link", "host", "batch", "compute", "overlap"}, "cause"} */
json_t *nvs_model_json_gap(const nvs_gap *g);

void nvs_model_print_calibration(FILE *f, const nvs_presets *ps, const nvs_calibration *c);
/* A signed percentage as "%+.1f" prints it in the calibration's tables: one that rounds to 0.0 is +0.0, never
 * -0.0 (a model equal to the measurement gave (m - m) / m as -2e-14 %: "-0.0" read as a small error). */
double nvs_model_pct1(double pct);
json_t *nvs_model_json_calibration(const nvs_presets *ps, const nvs_calibration *c);

void nvs_model_print_presets(FILE *f, const nvs_presets *ps);
/* Every preset with every key: {"gpus": [{"id", "name", "origin", "keys": {KEY: {"value", "source"}}}], ...} */
json_t *nvs_model_json_presets(const nvs_presets *ps);

/* The envelope every JSON output shares: {"schema", "tool", "kind", ...}. NULL on out of memory. */
json_t *nvs_model_json_envelope(const char *kind);
/* Model profile summary object. */
json_t *nvs_model_json_profile(const nvs_profile *p);

#endif
