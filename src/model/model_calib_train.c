/* Calibration (model_calib.h): the training step as the run ran it (its profile, batch, precision, optimizer and
 * framework), and the error table of the calibrated model per N. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "model/model_calib_priv.h"

/* The profile a training run used: its name when built in, else the file it was read from (train.profile_file,
 * or the --model value of the run's argv for runs written before that key existed). */
static const char *profile_of_run(const nvs_run *r, const char *name)
{
    nvs_profile tmp;
    char e[256];
    if (name && nvs_profile_load(name, &tmp, e, sizeof e) == NVS_OK) {
        nvs_profile_free(&tmp);
        return name;
    }
    if (r->train.profile_file) return r->train.profile_file;
    json_t *root = r->root;
    json_t *argv = json_object_get(json_object_get(root, "command"), "argv");
    for (size_t i = 0; i + 1 < json_array_size(argv); i++) {
        const char *a = json_string_value(json_array_get(argv, i));
        const char *v = json_string_value(json_array_get(argv, i + 1));
        if (a && v && !strcmp(a, "--model")) return v;
    }
    return name;
}

int nvs_calib_profile_path(const char *run_path, const char *model, char *buf, size_t len)
{
    nvs_run r;
    buf[0] = '\0';
    /* quietly: this look comes before the calibration (for -o's checks), whose own load refuses a run that does not
     * load as model's refusal; said here too, the reason came twice, first as a runtime error */
    int level = nvs_log_level();
    nvs_log_set_level(NVS_LOG_ERROR - 1);
    nvs_result_t res = nvs_run_load(run_path, 0, &r);
    nvs_log_set_level(level);
    if (res != NVS_OK) return -1;
    const char *m = model ? model : r.train.model;
    const char *p = r.train.present && m ? profile_of_run(&r, m) : NULL;
    if (p) snprintf(buf, len, "%s", p);
    nvs_run_free(&r);
    return p ? 0 : -1;
}

/* qsort orders of the tables: by N (Ns are distinct: the reader refuses a run that gives one twice) */
static int by_train_n(const void *a, const void *b)
{
    int x = ((const nvs_calib_train_row *)a)->n, y = ((const nvs_calib_train_row *)b)->n;
    return (x > y) - (x < y);
}

static int by_skip_n(const void *a, const void *b)
{
    int x = ((const nvs_calib_skip *)a)->n, y = ((const nvs_calib_skip *)b)->n;
    return (x > y) - (x < y);
}

nvs_result_t nvs_mc_train_config(const nvs_run *r, const char *run_path, const nvs_calib_opts *o,
                                 nvs_calibration *out, char *err, size_t errlen)
{
    nvs_model_config *cfg = &out->cfg;
    const char *model = o->model ? o->model : r->train.model;
    if (!model) {
        snprintf(err, errlen, "%s: train.model is absent: give --model", run_path);
        return NVS_ERR_INPUT;
    }
    /* the workload's own profile: the name given or the run's, else the file the run read it from */
    model = profile_of_run(r, model);
    NVS_CHECK(nvs_profile_load(model, &out->profile, err, errlen));
    out->has_profile = 1;
    cfg->profile = &out->profile;
    /* --batch stands in for a train.batch the run lacks; against a recorded one it would fit the model at
     * another batch to the measured step (compute_scale absorbs the difference) and print that batch as the
     * run's: refused, as --model naming another workload is */
    if (o->batch > 0 && r->train.batch > 0 && o->batch != r->train.batch) {
        snprintf(err, errlen, "%s: trained at batch %d per GPU, not %d (--batch only gives a batch the run does "
                              "not record)", run_path, r->train.batch, o->batch);
        return NVS_ERR_INPUT;
    }
    cfg->batch = o->batch > 0 ? o->batch : r->train.batch;
    if (cfg->batch < 1) {
        snprintf(err, errlen, "%s: train.batch is absent: give --batch", run_path);
        return NVS_ERR_INPUT;
    }
    if (r->train.precision && nvs_precision_parse(r->train.precision, &cfg->prec)) {
        snprintf(err, errlen, "%s: train.precision \"%s\" is not one of fp32, tf32, bf16, fp16", run_path,
                 r->train.precision);
        return NVS_ERR_INPUT;
    }
    if (r->train.grad_type && !strcmp(r->train.grad_type, "bf16")) cfg->grad_bytes = 2;
    if (r->train.bucket_first_bytes > 0) cfg->bucket_first_bytes = r->train.bucket_first_bytes;
    if (r->train.bucket_cap_bytes > 0) cfg->bucket_cap_bytes = r->train.bucket_cap_bytes;
    /* the optimizer the run's step ran (SGD before --optimizer existed): its states and update are in the
     * measured compute the GPU's speed is fitted to, so the model's must be the same; AdamW fused or as the
     * framework's foreach passes as train.optimizer_fused says (runs before the foreach AdamW step: fused, and
     * so they say) */
    int fused_name = 0;
    if (nvs_optimizer_parse(r->train.optimizer, &cfg->opt, &fused_name)) {
        snprintf(err, errlen, "%s: train.optimizer \"%s\" is not one this nvscale knows (%s)", run_path,
                 r->train.optimizer, nvs_optimizer_choices());
        return NVS_ERR_INPUT;
    }
    cfg->adamw_fused = cfg->opt == NVS_OPT_ADAMW && r->train.optimizer_fused != 0;
    /* the framework the run's step ran under: its host work and copies are modelled as the step did them (a run
     * made before --framework existed had none) */
    if (r->train.framework) {
        const nvs_framework *known = nvs_framework_find(r->train.framework);
        if (!known) {
            snprintf(err, errlen, "%s: train.framework \"%s\" is not one this nvscale knows (%s)", run_path,
                     r->train.framework, nvs_framework_choices());
            return NVS_ERR_INPUT;
        }
        /* the numbers the run's step used; a key the run does not write is a feature its step did not have
         * (the layout copies and the gradient scaler came later) */
        const nvs_run_train *t = &r->train;
        out->fw = *nvs_framework_find("ideal");
        out->fw.name = known->name;
        if (isfinite(t->fw_host_us_per_op)) {
            out->fw.host_us_per_op = t->fw_host_us_per_op;
            out->fw.reducer_us_per_bucket = isfinite(t->fw_reducer_us_per_bucket) ? t->fw_reducer_us_per_bucket : 0;
            out->fw.nchw_copies_fwd = isfinite(t->fw_nchw_copies_fwd) ? t->fw_nchw_copies_fwd : 0;
            out->fw.nchw_copies_bwd = isfinite(t->fw_nchw_copies_bwd) ? t->fw_nchw_copies_bwd : 0;
            out->fw.autocast = t->fw_autocast > 0;
            out->fw.bucket_copy = t->fw_bucket_copy > 0;
            out->fw.grad_scaler = t->fw_grad_scaler > 0;
            out->fw.broadcast_buffers = t->fw_broadcast_buffers > 0; /* runs before it had none */
            out->fw.host_us_per_buffer_op = isfinite(t->fw_host_us_per_buffer_op) ? t->fw_host_us_per_buffer_op : 0;
            out->fw.weight_casts = t->fw_weight_casts > 0; /* runs before 3 December 2026 had neither */
            out->fw.optimizer_foreach = t->fw_optimizer_foreach > 0;
            out->fw.autocast_fp32 = t->fw_autocast_fp32 > 0; /* nor this, before its evening */
            out->fw.bias_reduce = t->fw_bias_reduce > 0;     /* nor this, before 4 December */
            out->fw.view_copies = t->fw_view_copies > 0;     /* nor this, before its afternoon */
            /* nor this, before 7 December: the model's own rate per tensor where the run charged one */
            out->fw.optimizer_host_per_tensor = t->fw_optimizer_host_us_per_tensor > 0;
            out->fw.source = "the run's train.framework";
            if (t->conv_engine && !strcmp(t->conv_engine, "cudnn") && t->conv_layers == t->conv_geometry_layers) {
                /* cuDNN ran every convolution with a geometry and made its layout transforms inside them: no
                 * copies of the step's own for those (conv=1 layers without one keep theirs), and their time
                 * is in the measured compute the GPU's speed is scaled to */
                cfg->conv_native = 1;
                out->fw.source = "the run's train.framework; its convolutions ran in cuDNN, whose layout "
                                 "transforms are inside their time";
            }
        } else if (strcmp(known->name, "ideal")) {
            /* an earlier model of the framework (host work per kernel and per tensor): not replayed; the
             * step is modelled as the hardware alone with the bucket copies the run made, and its host work
             * lands in compute_scale */
            out->fw.bucket_copy = t->fw_bucket_copy > 0;
            out->fw.source = "the run's train.framework is an earlier model (per kernel), not replayed: modelled "
                             "as the hardware alone (its bucket copies kept)";
        } else {
            out->fw.source = "the run's train.framework";
        }
        cfg->fw = &out->fw;
    }
    out->preset_cfg.fw = cfg->fw;
    out->preset_cfg.profile = cfg->profile;
    out->preset_cfg.batch = cfg->batch;
    out->preset_cfg.prec = cfg->prec;
    out->preset_cfg.grad_bytes = cfg->grad_bytes;
    out->preset_cfg.bucket_first_bytes = cfg->bucket_first_bytes;
    out->preset_cfg.bucket_cap_bytes = cfg->bucket_cap_bytes;
    out->has_train = 1;
    return NVS_OK;
}

nvs_result_t nvs_mc_train_table(const nvs_run *r, const nvs_preset *mp, nvs_calibration *out)
{
    nvs_model_config *cfg = &out->cfg;
    nvs_model_point pt;
    char e2[256];
    /* 4. the error table per N */
    out->train = calloc(r->train.nresults, sizeof *out->train);
    if (!out->train) return NVS_ERR_NOMEM;
    out->skip = calloc(r->train.nresults, sizeof *out->skip);
    if (!out->skip) return NVS_ERR_NOMEM;
    for (size_t i = 0; i < r->train.nresults; i++) {
        const nvs_run_train_result *tr = &r->train.results[i];
        nvs_calib_train_row *row = &out->train[out->ntrain];
        /* an N the model cannot evaluate is left out of the table, and said (it vanished without a word, and
         * --tolerance passed on the Ns that were left) */
        nvs_calib_skip *sk = &out->skip[out->nskip];
        if (tr->n < 1) continue;
        if (tr->n > cfg->machine.gpus) {
            snprintf(sk->why, sizeof sk->why, "above the %d GPUs of machine %s", cfg->machine.gpus,
                     cfg->machine.id);
        } else if (net_at(out, tr->n) && !has_link(cfg, tr->n)) {
            snprintf(sk->why, sizeof sk->why, "NCCL went through its network transport, which no machine preset "
                                              "describes, and the run measured no link there");
        } else if (eval_at(cfg, tr->n, &pt, e2, sizeof e2) != NVS_OK) {
            if (cfg->machine.measured_only && !has_link(cfg, tr->n))
                snprintf(sk->why, sizeof sk->why, "no machine preset (give --machine) and no link measured: no "
                                                  "all_reduce sweep at this N, and %s",
                         tr->comm_us > 0 ? "no ring bandwidth explains its step's comm time"
                                         : "its step's comm time was not measured");
            else
                snprintf(sk->why, sizeof sk->why, "%s", e2);
        } else {
            sk = NULL;
        }
        if (sk) {
            sk->n = tr->n;
            out->nskip++;
            continue;
        }
        row->n = tr->n;
        row->meas_step_us = tr->step_us;
        row->meas_compute_us = tr->compute_us;
        row->meas_comm_us = tr->comm_us;
        row->meas_exposed_us = tr->exposed_comm_us;
        row->meas_efficiency = tr->efficiency;
        row->model_step_us = pt.t.step_us;
        row->model_compute_us = pt.t.compute_us;
        row->model_comm_us = pt.t.comm_us;
        row->model_exposed_us = pt.t.exposed_us;
        row->model_efficiency = pt.efficiency;
        row->preset_step_us = row->preset_efficiency = NAN;
        if (mp && preset_describes(out, tr->n) &&
            eval_at(&out->preset_cfg, tr->n, &pt, e2, sizeof e2) == NVS_OK) {
            row->preset_step_us = pt.t.step_us;
            row->preset_efficiency = pt.efficiency;
        }
        out->ntrain++;
    }
    /* the table by N, whatever order the file lists them in (a --gpus 4,2 run's rows read 4 before 2) */
    qsort(out->train, (size_t)out->ntrain, sizeof *out->train, by_train_n);
    qsort(out->skip, (size_t)out->nskip, sizeof *out->skip, by_skip_n);
    return NVS_OK;
}
