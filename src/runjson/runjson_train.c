/* run.json reader: the training sections (run/phase_train_json.c, run/out_json.c): "train" and the workloads of
 * "trains", each one's framework, conv, buckets and results per GPU count, and the choice of one workload in place
 * of "train" (nvs_run_select_train, for model --calibrate). Its own file: one workload's reader serves both the
 * load and that choice, which reads it again from the document. */
#include "runjson/runjson_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a result's issue_by_us: each kind's time, a number >= 0 (the kinds are the writer's: train/issue.h) */
static void read_issue_by(vctx *v, json_t *e, const char *prefix, nvs_run_train_result *x)
{
    char p[PATH_MAX_LEN];
    json_t *o = rj_typed(v, e, "issue_by_us", prefix, JSON_OBJECT, 0);
    const char *k;
    json_t *val;
    if (!o) return;
    rj_kpath(p, prefix, "issue_by_us");
    json_object_foreach(o, k, val) {
        double us = rj_num(v, o, k, p, 0);
        if (v->failed || x->nissue_by >= NVS_RUN_ISSUE_KINDS_MAX) break;
        if (isnan(us)) continue;
        x->issue_by_kind[x->nissue_by] = k;
        x->issue_by_us[x->nissue_by++] = us;
    }
}

/* One result per N: a workload's results are looked up by N (check's thresholds, calibration's fits) and listed
 * one row each (report), so a second result at an N was judged or dropped by whichever reader met it, and shown
 * beside the first: a file whose results contradict themselves is refused here, for every reader, naming both. */
static void refuse_repeated_n(vctx *v, const nvs_run_train *tr, const char *pre)
{
    for (size_t i = 0; i < tr->nresults && !v->failed; i++)
        for (size_t j = 0; j < i; j++)
            if (tr->results[j].n == tr->results[i].n) {
                rj_fail(v, "%s.results[%zu].n: N=%d given twice (first at %s.results[%zu]) for workload %s: one "
                        "result per N", pre, i, tr->results[i].n, pre, j, tr->model ? tr->model : "(unnamed)");
                return;
            }
}

/* One workload's training section (run.json "train", or an element of "trains") into r->train. */
static void read_train_obj(vctx *v, nvs_run_train *tr, json_t *t, const char *pre)
{
    char pfw[PATH_MAX_LEN], pres[PATH_MAX_LEN];
    snprintf(pfw, sizeof pfw, "%s.framework", pre);
    snprintf(pres, sizeof pres, "%s.results", pre);
    tr->present = 1;
    snprintf(tr->key, sizeof tr->key, "%s", pre);
    tr->model = rj_str(v, t, "model", pre, 0);
    tr->source = rj_str(v, t, "source", pre, 0);
    tr->precision = rj_str(v, t, "precision", pre, 0);
    tr->grad_type = rj_str(v, t, "grad_type", pre, 0);
    tr->profile_file = rj_str(v, t, "profile_file", pre, 0);
    tr->optimizer = rj_str(v, t, "optimizer", pre, 0);
    if (!tr->optimizer) tr->optimizer = "sgd"; /* runs before --optimizer ran SGD */
    tr->optimizer_fused = rj_bool(v, t, "optimizer_fused", pre, -1);
    json_t *fw = rj_typed(v, t, "framework", pre, JSON_OBJECT, 0);
    tr->fw_host_us_per_op = tr->fw_reducer_us_per_bucket = tr->fw_nchw_copies_fwd = tr->fw_nchw_copies_bwd = NAN;
    tr->fw_host_us_per_buffer_op = NAN;
    tr->fw_autocast = tr->fw_bucket_copy = tr->fw_grad_scaler = tr->fw_broadcast_buffers = -1;
    tr->fw_weight_casts = tr->fw_optimizer_foreach = tr->fw_autocast_fp32 = tr->fw_bias_reduce = -1;
    tr->fw_view_copies = -1;
    tr->fw_optimizer_host_us_per_tensor = NAN;
    if (fw) {
        tr->framework = rj_str(v, fw, "name", pfw, 1);
        tr->fw_host_us_per_op = rj_num_in(v, fw, "host_us_per_op", pfw, 0, 1e6);
        tr->fw_reducer_us_per_bucket = rj_num_in(v, fw, "reducer_us_per_bucket", pfw, 0, 1e6);
        tr->fw_nchw_copies_fwd = rj_num_in(v, fw, "nchw_copies_fwd", pfw, 0, 1e4);
        tr->fw_nchw_copies_bwd = rj_num_in(v, fw, "nchw_copies_bwd", pfw, 0, 1e4);
        tr->fw_autocast = rj_bool(v, fw, "autocast", pfw, -1);
        tr->fw_bucket_copy = rj_bool(v, fw, "bucket_copy", pfw, -1);
        tr->fw_grad_scaler = rj_bool(v, fw, "grad_scaler", pfw, -1);
        tr->fw_broadcast_buffers = rj_bool(v, fw, "broadcast_buffers", pfw, -1);
        tr->fw_host_us_per_buffer_op = rj_num_in(v, fw, "host_us_per_buffer_op", pfw, 0, 1e6);
        tr->fw_weight_casts = rj_bool(v, fw, "weight_casts", pfw, -1);
        tr->fw_optimizer_foreach = rj_bool(v, fw, "optimizer_foreach", pfw, -1);
        tr->fw_autocast_fp32 = rj_bool(v, fw, "autocast_fp32", pfw, -1);
        tr->fw_bias_reduce = rj_bool(v, fw, "bias_reduce", pfw, -1);
        tr->fw_view_copies = rj_bool(v, fw, "view_copies", pfw, -1);
        tr->fw_optimizer_host_us_per_tensor = rj_num_in(v, fw, "optimizer_host_us_per_tensor", pfw, 0, 1e6);
    }
    char pconv[PATH_MAX_LEN];
    snprintf(pconv, sizeof pconv, "%s.conv", pre);
    json_t *cv = rj_typed(v, t, "conv", pre, JSON_OBJECT, 0);
    tr->conv_engine = cv ? rj_str(v, cv, "engine", pconv, 1) : NULL;
    tr->conv_layers = cv ? (int)rj_int(v, cv, "layers", pconv, 0, 100000000, -1, 1) : -1;
    tr->conv_geometry_layers = cv ? (int)rj_int(v, cv, "geometry_layers", pconv, 0, 100000000, -1, 1) : -1;
    tr->params = rj_num(v, t, "params", pre, 0);
    tr->fwd_gflops_per_sample = rj_num(v, t, "fwd_gflops_per_sample", pre, 0);
    tr->bucket_first_bytes = rj_bytes(v, t, "bucket_first_bytes", pre);
    tr->bucket_cap_bytes = rj_bytes(v, t, "bucket_cap_bytes", pre);
    tr->batch = (int)rj_int(v, t, "batch", pre, 1, 100000000, -1, 0);
    json_t *b = rj_typed(v, t, "buckets", pre, JSON_ARRAY, 0);
    tr->nbuckets = b ? json_array_size(b) : 0;
    json_t *a = rj_typed(v, t, "results", pre, JSON_ARRAY, 0);
    if (!a || !(tr->results = rj_alloc(v, json_array_size(a), sizeof *tr->results))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, pres, p);
        if (!e) break;
        nvs_run_train_result *x = &tr->results[tr->nresults++];
        x->n = (int)rj_int(v, e, "n", p, 1, 1000000, 0, 1);
        x->steps = (int)rj_int(v, e, "steps", p, 0, 2000000000, -1, 0);
        x->step_us = rj_num(v, e, "step_us", p, 0);
        x->compute_us = rj_num(v, e, "compute_us", p, 0);
        x->comm_us = rj_num(v, e, "comm_us", p, 0);
        /* step - compute can come out slightly negative from noise: accept it as measured */
        x->exposed_comm_us = rj_num(v, e, "exposed_comm_us", p, -INFINITY);
        x->interference_us = rj_num(v, e, "interference_us", p, 0);
        x->contention_us = rj_num_in(v, e, "contention_us", p, -MAX_NUM, MAX_NUM); /* faster at N: < 0 */
        x->host_rate_p10 = rj_num(v, e, "host_rate_p10", p, 0);
        x->host_rate_p90 = rj_num(v, e, "host_rate_p90", p, 0);
        x->rank_wait_us = rj_num(v, e, "rank_wait_us", p, 0);
        x->issue_us = rj_num(v, e, "issue_us", p, 0);
        read_issue_by(v, e, p, x);
        x->ideal_compute_us = rj_num(v, e, "ideal_compute_us", p, 0);
        x->predicted_comm_us = rj_num(v, e, "predicted_comm_us", p, 0);
        x->samples_per_s = rj_num(v, e, "samples_per_s", p, 0);
        /* a fraction: 100 (10,000 %) is already nonsense, and the sanity check (sanity.h) flags far less */
        x->efficiency = rj_num_in(v, e, "efficiency", p, 0, 100);
        x->rounds = (int)rj_int(v, e, "rounds_measured", p, 1, 100000, 0, 0);
        x->reference_n = (int)rj_int(v, e, "efficiency_reference_n", p, 1, 1000000, 0, 0);
        x->efficiency_min = rj_num_in(v, e, "efficiency_min", p, 0, 100);
        x->efficiency_max = rj_num_in(v, e, "efficiency_max", p, 0, 100);
    }
    refuse_repeated_n(v, tr, pre);
}

void rj_read_train(vctx *v, nvs_run *r)
{
    json_t *t = rj_typed(v, r->root, "train", "", JSON_OBJECT, 0);
    if (t) read_train_obj(v, &r->train, t, "train");
    /* every workload, validated as "train" is: check and report judge and show each of them */
    json_t *a = v->failed ? NULL : rj_typed(v, r->root, "trains", "", JSON_ARRAY, 0);
    if (!a || !json_array_size(a) || !(r->trains = rj_alloc(v, json_array_size(a), sizeof *r->trains))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "trains", p);
        if (!e) break;
        read_train_obj(v, &r->trains[r->ntrains++], e, p);
    }
}

int rj_has_train_results(const nvs_run *r)
{
    for (size_t i = 0; i < nvs_run_workloads(r); i++)
        if (nvs_run_workload(r, i)->nresults) return 1;
    return 0;
}

nvs_result_t nvs_run_select_train(nvs_run *r, const char *name, const char *alt, char *err, size_t errlen)
{
    const json_t *trains = json_object_get(r->root, "trains");
    char seen[256] = "";
    size_t k = 0;
    for (size_t i = 0; i < json_array_size(trains); i++) {
        json_t *t = json_array_get(trains, i);
        const char *m = json_string_value(json_object_get(t, "model"));
        const char *f = json_string_value(json_object_get(t, "profile_file"));
        if (!json_is_object(t) || !m) continue;
        if (!strcmp(m, name) || (alt && !strcmp(m, alt)) || (f && !strcmp(f, name))) {
            free(r->train.results);
            memset(&r->train, 0, sizeof r->train);
            vctx v = {.name = r->path ? r->path : "run.json", .err = err, .errlen = errlen};
            char pre[32];
            snprintf(pre, sizeof pre, "trains[%zu]", i);
            read_train_obj(&v, &r->train, t, pre);
            return v.failed ? (v.nomem ? NVS_ERR_NOMEM : NVS_ERR_INPUT) : NVS_OK;
        }
        k += (size_t)snprintf(seen + k, k < sizeof seen ? sizeof seen - k : 0, "%s%s", k ? ", " : "", m);
        if (k >= sizeof seen) k = sizeof seen - 1;
    }
    if (json_array_size(trains)) {
        snprintf(err, errlen, "%s: trained %s, not %s", r->path ? r->path : "the run", seen, name);
        return NVS_ERR_INPUT;
    }
    /* a run of one workload, written before "trains": its "train", unless it names another model */
    if (r->train.model && strcmp(r->train.model, name) && (!alt || strcmp(r->train.model, alt))) {
        snprintf(err, errlen, "%s: trained %s, not %s", r->path ? r->path : "the run", r->train.model, name);
        return NVS_ERR_INPUT;
    }
    return NVS_OK;
}
