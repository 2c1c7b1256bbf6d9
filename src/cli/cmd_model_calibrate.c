/* nvscale model --calibrate RUN.json: the model fitted to a measured run, its error, the host path of an SHM
 * run, an optional projection from the calibrated configuration and the --tolerance gate (cmd_model_priv.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_common.h"
#include "cli/cmd_model_priv.h"
#include "core/out_file.h"
#include "core/units.h"
#include "model/model_calib.h"
#include "model/model_host.h"
#include "model/model_out.h"

typedef struct {
    const nvs_presets *ps;
    const nvs_calibration *c;
    const nvs_model_series *proj; /* may be NULL */
    const nvs_host_check *hc;
    int nhc;
} calib_args;

static void print_host_checks(FILE *f, const nvs_host_check *hc, int n)
{
    if (n <= 0) return;
    fprintf(f, "host path of the SHM all-reduce (docs/model.md, Host budget): N flows at busbw B store and load\n"
               "N x B GB/s through host memory, 2 x N x B of DRAM traffic\n");
    for (int i = 0; i < n; i++) {
        const nvs_host_check *h = &hc[i];
        fprintf(f, "  N=%d: measured busbw %.4g GB/s -> %.4g GB/s of flow bytes, %.4g GB/s of DRAM traffic", h->n,
                h->meas_gbps, h->flow_gbps, h->dram_gbps);
        if (h->host_mem_gbps > 0)
            fprintf(f, " = %.0f %% of the host memory bandwidth (%.4g GB/s)", 100 * h->dram_share, h->host_mem_gbps);
        fprintf(f, "\n    host budget that reproduces it if the host path binds: host_gbps %.4g per socket\n",
                h->implied_host_gbps);
        fprintf(f, "    machine preset: %.4g GB/s (%+.1f %%): %s\n", h->preset_gbps,
                nvs_model_pct1(100 * (h->preset_gbps - h->meas_gbps) / h->meas_gbps), h->preset_why);
        if (isfinite(h->mem_model_gbps))
            fprintf(f, "    budget = host memory bandwidth / 2: %.4g GB/s (%+.1f %%): %s\n", h->mem_model_gbps,
                    nvs_model_pct1(100 * (h->mem_model_gbps - h->meas_gbps) / h->meas_gbps), h->mem_model_why);
        else
            fprintf(f, "    (give --host-mem-gbps X, from `make hostbw && build/hostbw`, to test host memory as the "
                       "bound)\n");
    }
    fprintf(f, "\n");
}

static json_t *json_host_checks(const nvs_host_check *hc, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) {
        const nvs_host_check *h = &hc[i];
        json_t *x = json_pack("{s:i, s:f, s:f, s:f, s:o, s:o, s:f, s:f, s:s, s:o, s:s}", "n", h->n,
                              "measured_busbw_gbps", h->meas_gbps, "host_flow_gbps", h->flow_gbps, "dram_gbps",
                              h->dram_gbps, "host_mem_gbps", h->host_mem_gbps > 0 ? json_real(h->host_mem_gbps)
                                                                                 : json_null(),
                              "dram_share", isfinite(h->dram_share) ? json_real(h->dram_share) : json_null(),
                              "implied_host_gbps", h->implied_host_gbps, "preset_busbw_gbps", h->preset_gbps,
                              "preset_bottleneck", h->preset_why, "host_mem_model_busbw_gbps",
                              isfinite(h->mem_model_gbps) ? json_real(h->mem_model_gbps) : json_null(),
                              "host_mem_model_bottleneck", h->mem_model_why);
        if (!x || json_array_append_new(a, x)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static void print_calib_cb(FILE *f, const void *a)
{
    const calib_args *x = a;
    nvs_model_print_calibration(f, x->ps, x->c);
    print_host_checks(f, x->hc, x->nhc);
    if (x->proj) {
        fprintf(f, "\nprojection from the calibrated configuration\n");
        nvs_model_print_series(f, x->ps, x->proj, 1, NULL, 0);
    }
}

int nvs_cm_calibrate(const opts *o, const nvs_presets *ps, int json)
{
    if (o->gpu && strchr(o->gpu, ',')) return usage_error("%s", "--calibrate takes one --gpu (the run's GPU)");
    if (o->machine && strchr(o->machine, ','))
        return usage_error("%s", "--calibrate takes one --machine (the run's machine)");
    if (o->gpus && o->nodes) return usage_error("%s", "--gpus and --nodes: give one of them");
    double tol = -1;
    if (o->tolerance && (nvs_parse_percent(o->tolerance, &tol) || tol <= 0 || tol > 1000))
        return usage_error("--tolerance '%s': expected a percentage in (0, 1000]", o->tolerance);
    nvs_calib_opts co = {o->machine, o->gpu, o->model, 0};
    if (o->batch) {
        long v;
        if (nvs_parse_long(o->batch, &v) || v < 1 || v > MAX_BATCH)
            return usage_error("--batch '%s' with --calibrate: the run's per-GPU batch, a whole number", o->batch);
        co.batch = (int)v;
    }
    nvs_calibration c;
    char err[1024] = "";
    nvs_cli_reading rd = nvs_cli_read_begin("model"); /* the run.json reader's refusal: model's */
    nvs_result_t r = nvs_calibrate(o->calibrate, ps, &co, &c, err, sizeof err);
    nvs_cli_read_end(rd);
    if (r != NVS_OK) {
        /* an empty err: the run.json loader already printed the one message */
        if (err[0] || r != NVS_ERR_INPUT) fprintf(stderr, "nvscale model: %s\n", err[0] ? err : nvs_result_text(r));
        return nvs_exit_code(r);
    }
    int rc = 0;
    nvs_model_series proj, *pp = NULL;
    memset(&proj, 0, sizeof proj);
    if (!(o->gpus || o->nodes || o->net)) {
        /* the model's settings shape only a projection: without one they would be ignored, so a value is
         * checked (one message for a bad one) and then refused by name, never dropped */
        nvs_model_config scratch = c.cfg;
        /* --nccl, --dp and --step-cv were missing here and silently changed nothing */
        const char *ignored = nvs_cm_projection_setting(o);
        if ((rc = nvs_cm_common_settings(o, ps, &scratch)) == 0 && ignored)
            rc = usage_error("%s with --calibrate sets a projection from the calibrated configuration: add --gpus "
                             "or --nodes (without them it would change nothing)",
                             ignored);
        if (rc) goto out;
    }
    if (o->gpus || o->nodes || o->net) {
        if (!c.has_train) {
            nvs_calibration_free(&c);
            return usage_error("%s: the run has no training results to project from", nvs_input_name(o->calibrate));
        }
        proj.cfg = c.cfg;
        if ((rc = nvs_cm_common_settings(o, ps, &proj.cfg))) goto out;
        nvs_model_max_batch(&proj.cfg, &proj.mem);
        if ((rc = nvs_cm_eval_series(o, &proj))) goto out;
        pp = &proj;
    }
    /* the host path of an SHM run: NCCL_P2P_DISABLE=1, or a GPU without P2P, on a machine preset */
    nvs_host_check hc[NVS_MODEL_MAX_MEAS];
    int nhc = 0;
    double host_mem = c.cfg.machine.host_mem_gbps;
    if (o->host_mem) {
        if (nvs_parse_double(o->host_mem, &host_mem) || !(host_mem > 0) || host_mem > 1e5) {
            rc = usage_error("--host-mem-gbps '%s': expected GB/s, e.g. 180 (build/hostbw prints it)", o->host_mem);
            goto out;
        }
    }
    for (int i = 0; c.machine_preset[0] && i < c.nlinks && nhc < NVS_MODEL_MAX_MEAS; i++) {
        nvs_ring_links rl;
        int n = c.links[i].n;
        if (n < 2 || nvs_ring_links_of(&c.cfg.machine, &c.cfg.gpu, n, nvs_model_off(&c.cfg), &rl) != NVS_OK ||
            rl.transport != NVS_TR_SHM)
            continue;
        if (nvs_host_check_eval(&c.cfg.machine, &c.cfg.gpu, n, c.links[i].busbw_gbps, host_mem, &hc[nhc]) == NVS_OK)
            nhc++;
    }
    if (o->host_mem && nhc == 0) {
        rc = usage_error("%s", "--host-mem-gbps: the run has no SHM all-reduce on a machine preset to check "
                               "(NCCL_P2P_DISABLE=1, or GPUs without P2P; give --machine)");
        goto out;
    }
    calib_args ca = {ps, &c, pp, hc, nhc};
    json_t *doc = NULL;
    if (json) {
        doc = nvs_model_json_calibration(ps, &c);
        if (doc && nhc && json_object_set_new(doc, "host_check", json_host_checks(hc, nhc))) {
            json_decref(doc);
            doc = NULL;
        }
        if (doc && pp && json_object_set_new(doc, "projection", nvs_model_json_series(ps, pp, 1, NULL, 0))) {
            json_decref(doc);
            doc = NULL;
        }
    }
    rc = nvs_cm_render_and_emit(o, json, print_calib_cb, &ca, doc);
    if (rc == 0 && tol > 0) {
        /* the stated tolerance: step time within tol % at every measured N */
        int checked = 0;
        for (int i = 0; i < c.ntrain; i++) {
            const nvs_calib_train_row *t = &c.train[i];
            if (!(t->meas_step_us > 0)) continue;
            double e = 100.0 * (t->model_step_us - t->meas_step_us) / t->meas_step_us;
            checked++;
            if (fabs(e) > tol) {
                fprintf(stderr, "nvscale model: %s: at N=%d the model's step time is off by %+.1f%% (tolerance %g%%)\n",
                        nvs_input_name(o->calibrate), t->n, e, tol);
                rc = 3;
            }
        }
        /* a measured N the model could not evaluate is one the gate cannot vouch for: it fails, naming it (the
         * gate passed on the Ns that were left, without a word) */
        for (int i = 0; i < c.nskip; i++) {
            fprintf(stderr, "nvscale model: %s: N=%d was measured but not modelled (%s): --tolerance cannot check it "
                            "(exit 3)\n", nvs_input_name(o->calibrate), c.skip[i].n, c.skip[i].why);
            rc = 3;
        }
        /* a gate that checked nothing must not pass: a run without training results (a killed run, a p2p run)
         * fails it, as check fails a rule whose number was not measured */
        if (!checked && !c.nskip) {
            fprintf(stderr, "nvscale model: %s: no training step measured: --tolerance checked nothing (exit 3)\n",
                    nvs_input_name(o->calibrate));
            rc = 3;
        }
    }
out:
    free(proj.pts);
    nvs_calibration_free(&c);
    return rc;
}
