/* run.json reader: what the "sweep" section says about the sizes (run/out_json.c): the plan (min_bytes, max_bytes,
 * step_factor, step_bytes), from which a row written before it said its "size" gets one (runjson_size.c). Its own
 * file: the rest of the section (time basis, check, warm-up) is runjson_head.c's, read by every subcommand. */
#include "runjson/runjson_read.h"

#include <math.h>
#include <stdlib.h>

#include "core/metrics.h"

/* collectives/sweep.c MAX_SIZES: it refuses a longer plan, so no run.json has one */
#define PLAN_MAX 4096

static double whole_bytes(vctx *v, const json_t *sw, const char *key)
{
    double d = rj_bytes(v, sw, key, "sweep");
    if (!isnan(d) && d != floor(d)) {
        char p[PATH_MAX_LEN];
        rj_type_fail(v, rj_kpath(p, "sweep", key), "a whole number of bytes", json_object_get(sw, key));
        return NAN;
    }
    return d;
}

void rj_read_sweep(vctx *v, nvs_run *r)
{
    json_t *sw = rj_typed(v, r->root, "sweep", "", JSON_OBJECT, 0);
    if (!sw) return;
    double lo = whole_bytes(v, sw, "min_bytes"), hi = whole_bytes(v, sw, "max_bytes");
    double step = whole_bytes(v, sw, "step_bytes");
    /* -f: 1 to 1024 (src/cli/options.c); 0 where -i gave a step instead */
    double f = rj_num_in(v, sw, "step_factor", "sweep", 0, 1024);
    if (v->failed || isnan(lo) || isnan(hi) || (isnan(f) && isnan(step))) return;
    if (!(r->sweep_sizes = rj_alloc(v, PLAN_MAX, sizeof *r->sweep_sizes))) return;
    size_t n = nvs_sweep_sizes((size_t)lo, (size_t)hi, isnan(f) ? 0 : f, isnan(step) ? 0 : (size_t)step,
                               r->sweep_sizes, PLAN_MAX);
    if (n == 0 || n > PLAN_MAX) { /* no plan the sweep would have run: no sizes to give */
        free(r->sweep_sizes);
        r->sweep_sizes = NULL;
        return;
    }
    r->nsweep_sizes = n;
}
