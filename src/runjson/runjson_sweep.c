/* run.json reader: what the "sweep" section says about the sizes (run/out_json.c): the plan (min_bytes, max_bytes,
 * step_factor, step_bytes), from which a row written before it said its "size" gets one (runjson_size.c), and the
 * sizes left out as too small for the ranks (skipped), which report names as the run's table did. Its own
 * file: the rest of the section (time basis, check, warm-up) is runjson_head.c's, read by every subcommand. */
#include "runjson/runjson_read.h"

#include <math.h>
#include <stdlib.h>

#include "core/metrics.h"

/* collectives/sweep.c MAX_SIZES: it refuses a longer plan, so no run.json has one */
#define PLAN_MAX 4096

static double whole_bytes(vctx *v, const json_t *o, const char *key, const char *prefix)
{
    double d = rj_bytes(v, o, key, prefix);
    if (!isnan(d) && d != floor(d)) {
        char p[PATH_MAX_LEN];
        rj_type_fail(v, rj_kpath(p, prefix, key), "a whole number of bytes", json_object_get(o, key));
        return NAN;
    }
    return d;
}

static void read_skipped(vctx *v, nvs_run *r, json_t *sw)
{
    json_t *a = rj_typed(v, sw, "skipped", "sweep", JSON_ARRAY, 0);
    if (!a || !(r->skipped = rj_alloc(v, json_array_size(a), sizeof *r->skipped))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "sweep.skipped", p);
        if (!e) break;
        nvs_run_skip *k = &r->skipped[r->nskipped++];
        k->collective = rj_str(v, e, "collective", p, 1);
        k->n = (int)rj_int(v, e, "n", p, 1, 1000000, 0, 1);
        k->type = rj_str(v, e, "type", p, 0);
        /* collectives/sweep.c MAX_SIZES bounds both */
        k->sizes = (int)rj_int(v, e, "sizes", p, 1, PLAN_MAX, -1, 0);
        k->of = (int)rj_int(v, e, "of", p, 1, PLAN_MAX, -1, 0);
        k->from_bytes = whole_bytes(v, e, "from_bytes", p);
        k->to_bytes = whole_bytes(v, e, "to_bytes", p);
        k->why = rj_str(v, e, "why", p, 0);
        if (!v->failed && k->sizes > 0 && k->of > 0 && k->sizes > k->of)
            rj_fail(v, "%s: %d sizes left out of %d planned", p, k->sizes, k->of);
        else if (!v->failed && k->from_bytes > k->to_bytes)
            rj_fail(v, "%s: from_bytes %.0f is above to_bytes %.0f", p, k->from_bytes, k->to_bytes);
    }
}

void rj_read_sweep(vctx *v, nvs_run *r)
{
    json_t *sw = rj_typed(v, r->root, "sweep", "", JSON_OBJECT, 0);
    if (!sw) return;
    read_skipped(v, r, sw);
    if (v->failed) return;
    double lo = whole_bytes(v, sw, "min_bytes", "sweep"), hi = whole_bytes(v, sw, "max_bytes", "sweep");
    double step = whole_bytes(v, sw, "step_bytes", "sweep");
    /* -f: 1 to 1024 (src/cli/options_sweep.c); 0 where -i gave a step instead */
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
