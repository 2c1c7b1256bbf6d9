/* PRIVATE to src/model/: what the writers of `nvscale model` (model_out.c, model_terms.c, model_calib_out.c,
 * preset_out.c) share; no other folder includes this header (model_out.h is the interface). */
#ifndef NVS_MODEL_OUT_PRIV_H
#define NVS_MODEL_OUT_PRIV_H

#include <math.h>

#include "model/model_out.h"
#include "runjson/runjson_write.h"

/* JSON building that carries a failure along: each returns 1 when o, a or v is NULL (out of memory) or the set
 * fails, and takes v over either way */
static inline int jset(json_t *o, const char *k, json_t *v)
{
    if (!o || !v) {
        json_decref(v);
        return 1;
    }
    return json_object_set_new(o, k, v) != 0;
}
static inline json_t *jnum(double v) { return nvs_rj_num(v); }
/* a byte count: a JSON integer (whole bytes, as run.json writes them), where a double holds it exactly (< 2^53);
 * null when not finite. The model's memory terms are products of counts and fractions (reserve, activations per
 * sample): rounded to the byte; a reader taking "bytes" for an integer read 25769803776.0 as a real */
static inline json_t *jbytes(double v)
{
    return isfinite(v) && fabs(v) < 9007199254740992.0 ? json_integer((json_int_t)llround(v)) : nvs_rj_num(v);
}
static inline int jpush(json_t *a, json_t *v)
{
    if (!a || !v) {
        json_decref(v);
        return 1;
    }
    return json_array_append_new(a, v) != 0;
}

/* model_terms.c: the terms of configuration s (value, origin, source), after its table, and as a JSON array (NULL
 * when out of memory) */
void nvs_mo_print_terms(FILE *f, const nvs_presets *ps, const nvs_model_series *s);
json_t *nvs_mo_json_terms(const nvs_presets *ps, const nvs_model_series *s);

#endif
