/* Calibration of the what-if model against a measured run.json (model_calib.h): the checks of the run and the
 * order of the work. The stages (model_calib_priv.h): the hardware (model_calib_run.c), the all_reduce sweep
 * (model_calib_sweep.c), the training step and its table (model_calib_train.c), the fits on it
 * (model_calib_fit.c). */
#include "model/model_calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out_file.h"
#include "model/model_calib_priv.h"

void nvs_calibration_free(nvs_calibration *c)
{
    free(c->coll);
    free(c->train);
    free(c->skip);
    if (c->has_profile) nvs_profile_free(&c->profile);
    memset(c, 0, sizeof *c);
}

/* A measured time of a result that must be above 0 where it is given: the reader takes any number >= 0, and a 0
 * here would be read as measured (0.00 in the table) while the fits, which skip what is not above 0, silently
 * drop it. null (NAN) stays allowed: a time not measured. */
static nvs_result_t check_time(const char *run_path, const char *key, size_t i, const char *field, int n, double us,
                               char *err, size_t errlen)
{
    if (isnan(us) || us > 0) return NVS_OK;
    snprintf(err, errlen, "%s: %s.results[%zu].%s: expected a time above 0 at N=%d (null where not measured), got %g",
             run_path, key, i, field, n, us);
    return NVS_ERR_INPUT;
}

/* The workload's training results as calibration reads them: its times possible. One result per N is the
 * reader's (runjson_train.c refuses an N given twice: the fits look an N up, the error table prints every result). */
static nvs_result_t check_train_results(const char *run_path, const nvs_run_train *t, char *err, size_t errlen)
{
    const char *key = t->key[0] ? t->key : "train";
    for (size_t i = 0; i < t->nresults; i++) {
        const nvs_run_train_result *x = &t->results[i];
        NVS_CHECK(check_time(run_path, key, i, "step_us", x->n, x->step_us, err, errlen));
        /* a compute-only step of 0 left the compute scale at 1 (the presets: +83 % at N=1 on the 2xH200 fixture) */
        NVS_CHECK(check_time(run_path, key, i, "compute_us", x->n, x->compute_us, err, errlen));
        /* N ranks' all-reduces back to back never take 0 (the per-call overhead fell back to 0); at N=1 there is
         * no all-reduce, and runs write 0 there */
        if (x->n >= 2) NVS_CHECK(check_time(run_path, key, i, "comm_us", x->n, x->comm_us, err, errlen));
    }
    return NVS_OK;
}

/* qsort order of the links: by N (Ns are distinct: the reader refuses a run that gives one twice) */
static int by_link_n(const void *a, const void *b)
{
    int x = ((const nvs_calib_link *)a)->n, y = ((const nvs_calib_link *)b)->n;
    return (x > y) - (x < y);
}

static void nothing_to_calibrate(const char *run_path, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: nothing to calibrate: no all_reduce results at N >= 2 and no train results", run_path);
}

nvs_result_t nvs_calibrate(const char *run_path, const nvs_presets *ps, const nvs_calib_opts *o,
                           nvs_calibration *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    nvs_run r;
    memset(&r, 0, sizeof r);
    nvs_result_t res = NVS_OK;
    snprintf(out->run_path, sizeof out->run_path, "%s", run_path); /* as given: the command line echoed */
    if ((res = nvs_run_load(run_path, 0, &r)) != NVS_OK) {
        err[0] = '\0'; /* the loader said what is wrong, naming the file: one message, not two */
        return res;
    }
    run_path = nvs_input_name(run_path); /* as messages name it from here on: "standard input" for "-" */
    if (o->model) {
        /* --model names the workload to calibrate on, in a run that trained several ("trains"); a profile that
         * does not load stays for the message below */
        nvs_profile tmp;
        char e2[256];
        int named = nvs_profile_load(o->model, &tmp, e2, sizeof e2) == NVS_OK;
        res = nvs_run_select_train(&r, o->model, named ? tmp.name : NULL, err, errlen);
        if (named) nvs_profile_free(&tmp);
        if (res != NVS_OK) goto fail;
    }
    if (r.world_nodes > 1) {
        snprintf(err, errlen, "%s: a %d-node run; calibration reads single-node runs only", run_path, r.world_nodes);
        res = NVS_ERR_INPUT;
        goto fail;
    }
    if (r.train.present && (res = check_train_results(run_path, &r.train, err, errlen)) != NVS_OK) goto fail;
    /* a run with neither is said so first: asked for a GPU preset, the user of a p2p-only run would give one
     * and only then hear there was nothing to calibrate (the complete test comes after the fits, below) */
    int timed = r.train.present && r.train.nresults > 0;
    for (size_t i = 0; i < r.ncolls && !timed; i++)
        timed = r.colls[i].n >= 2 && !strcmp(r.colls[i].collective, "all_reduce") && r.colls[i].time_max_us > 0;
    if (!timed) {
        nothing_to_calibrate(run_path, err, errlen);
        res = NVS_ERR_INPUT;
        goto fail;
    }

    const nvs_preset *gp = NULL, *mp = NULL;
    NVS_CHECK_GOTO(nvs_mc_gpu(&r, run_path, ps, o, out, &gp, err, errlen), res, fail);
    NVS_CHECK_GOTO(nvs_mc_machine(&r, run_path, ps, o, gp, out, &mp, err, errlen), res, fail);
    NVS_CHECK_GOTO(nvs_mc_sweep(&r, mp, out, err, errlen), res, fail);
    if (r.train.present && r.train.nresults > 0) {
        NVS_CHECK_GOTO(nvs_mc_train_config(&r, run_path, o, out, err, errlen), res, fail);
        NVS_CHECK_GOTO(nvs_mc_train_fits(&r, mp, out, err, errlen), res, fail);
        NVS_CHECK_GOTO(nvs_mc_train_table(&r, mp, out), res, fail);
    }
    /* the links by N, as the tables are: those found from the step (1b) were appended after the sweep's */
    qsort(out->links, (size_t)out->nlinks, sizeof *out->links, by_link_n);
    if (out->nlinks == 0 && !out->has_train) {
        nothing_to_calibrate(run_path, err, errlen);
        res = NVS_ERR_INPUT;
        goto fail;
    }
    nvs_run_free(&r);
    return NVS_OK;
fail:
    nvs_run_free(&r);
    nvs_calibration_free(out);
    return res;
}
