/* Text and JSON output of `nvscale model --calibrate` (model_out.h): the model against a measured run. */
#include <math.h>
#include <string.h>

#include "core/escape.h"
#include "model/model_out_priv.h"
#include "runjson/sanity.h"

static double pct_err(double model, double meas)
{
    return (meas > 0 && isfinite(model)) ? 100.0 * (model - meas) / meas : NAN;
}

double nvs_model_pct1(double pct) { return fabs(pct) < 0.05 ? 0.0 : pct; }

static void fmt_pct(char *buf, size_t len, double v)
{
    if (isfinite(v))
        snprintf(buf, len, "%+.1f", nvs_model_pct1(v));
    else
        snprintf(buf, len, "-");
}

static void fmt_size(char *buf, size_t len, double b)
{
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (k < 4 && b >= 1024 && fmod(b, 1024) == 0) {
        b /= 1024;
        k++;
    }
    snprintf(buf, len, "%.0f %s", b, u[k]);
}

void nvs_model_print_calibration(FILE *f, const nvs_presets *ps, const nvs_calibration *c)
{
    /* the path and what the run.json says are shown, never interpreted by the terminal (core/escape.h) */
    char e1[NVS_ESC_SIZE(sizeof c->run_path)], e2[NVS_ESC_SIZE(sizeof c->gpu_name)],
        e3[NVS_ESC_SIZE(sizeof c->machine_how)];
    fprintf(f, "nvscale model --calibrate %s\n", nvs_esc_term(c->run_path, e1, sizeof e1));
    fprintf(f, "  GPU: %s -> preset %s; machine preset: %s (%s)%s\n\n", nvs_esc_term(c->gpu_name, e2, sizeof e2),
            c->gpu_preset, c->machine_preset[0] ? c->machine_preset : "none",
            nvs_esc_term(c->machine_how, e3, sizeof e3),
            c->p2p_env ? "; NCCL_P2P_DISABLE=1 in the run" : c->p2p_disabled ? "; its rings ran SHM, without P2P" : "");
    if (c->ntr > 0) {
        /* the transport label comes from the run.json: escaped like the rest of what it says */
        fprintf(f, "  NCCL's transports in the run (its INIT log):");
        for (int i = 0; i < c->ntr; i++) {
            char e4[NVS_ESC_SIZE(sizeof c->tr[i].label)];
            fprintf(f, "%s N=%d %s", i ? "," : "", c->tr[i].n, nvs_esc_term(c->tr[i].label, e4, sizeof e4));
        }
        fprintf(f, "\n");
        /* CollNet: the switches reduce (model.h, NVS_ALGO_COLLNET); a ring fit says nothing of a bound of its own,
         * and the model has none to give: said, not invented */
        for (int i = 0; i < c->ntr; i++)
            if (c->tr[i].collnet)
                fprintf(f, "  at N=%d NCCL also used CollNet (in-network reduction through the network plugin, e.g. "
                           "SHARP): the link measured there includes it; the model has no bound of its own for "
                           "CollNet (its collnet algorithm, --algo collnet, is bounded by the network preset's "
                           "bandwidth), so no preset figure describes that N's reduction\n",
                        c->tr[i].n);
        for (int i = 0; i < c->ntr; i++) {
            if (!c->tr[i].net) continue;
            int linked = 0;
            for (int k = 0; k < c->nlinks; k++) linked |= c->links[k].n == c->tr[i].n;
            if (c->net_local && c->cfg.machine.net_local_gbps > 0) {
                fprintf(f, "  at N=%d NCCL went through its network transport between GPUs of one host (hosts told "
                           "apart, e.g. NCCL_HOSTID, or P2P and SHM disabled): the node's own sockets, which the "
                           "preset columns take from %s's net_local_gbps (%.3g GB/s)\n",
                        c->tr[i].n, c->machine_preset, c->cfg.machine.net_local_gbps);
                continue;
            }
            /* across hosts NET is the network between the nodes; on one host, ranks NCCL took for several */
            char where[96];
            if (c->tr[i].hosts > 1)
                snprintf(where, sizeof where, "between the %d hosts its ranks were on", c->tr[i].hosts);
            else
                snprintf(where, sizeof where, "between GPUs of one node (hosts told apart, e.g. NCCL_HOSTID)");
            fprintf(f, "  at N=%d NCCL went through its network transport %s: no machine preset describes that path, "
                       "so the preset columns are empty there and %s\n",
                    c->tr[i].n, where, linked ? "the model takes the measured link"
                                       : "the run measured no link there (no all_reduce sweep, no comm time of its "
                                         "step): that N is not modelled");
        }
        fprintf(f, "\n");
    }
    if (c->nlinks > 0) {
        fprintf(f, "all_reduce link per N: T(S) = latency + 2(N-1)/N * S / busbw; from the run's sweep (relative least "
                   "squares), or from its training step's all-reduces back to back (ARs; latency: the preset's, 0 over "
                   "a NET it does not describe)\n");
        fprintf(f, "  %4s %12s %12s %12s %14s\n", "N", "from", "latency_us", "busbw_GB/s", "preset_GB/s");
        for (int i = 0; i < c->nlinks; i++) {
            char pg[24], from[24];
            if (isfinite(c->links[i].preset_gbps))
                snprintf(pg, sizeof pg, "%.4g", c->links[i].preset_gbps);
            else
                snprintf(pg, sizeof pg, "-");
            if (c->links[i].npts > 0)
                snprintf(from, sizeof from, "%d sizes", c->links[i].npts);
            else
                snprintf(from, sizeof from, "step, %d ARs", c->links[i].nbuckets);
            fprintf(f, "  %4d %12s %12.2f %12.4g %14s\n", c->links[i].n, from, c->links[i].latency_us,
                    c->links[i].busbw_gbps, pg);
        }
        fprintf(f, "\n");
    }
    if (c->ncoll > 0) {
        fprintf(f, "all_reduce time, model vs measured, per N and size (err = (model - measured) / measured)\n");
        fprintf(f, "  %4s %10s %13s %11s %7s %11s %8s\n", "N", "size", "measured_us", "fitted_us", "err_%", "preset_us",
                "err_%");
        for (int i = 0; i < c->ncoll; i++) {
            const nvs_calib_coll_row *r = &c->coll[i];
            char sz[32], e1[16], e2[16], pu[24];
            fmt_size(sz, sizeof sz, r->bytes);
            fmt_pct(e1, sizeof e1, pct_err(r->fit_us, r->measured_us));
            fmt_pct(e2, sizeof e2, pct_err(r->preset_us, r->measured_us));
            if (isfinite(r->preset_us))
                snprintf(pu, sizeof pu, "%.2f", r->preset_us);
            else
                snprintf(pu, sizeof pu, "-");
            fprintf(f, "  %4d %10s %13.2f %11.2f %7s %11s %8s\n", r->n, sz, r->measured_us, r->fit_us, e1, pu, e2);
        }
        fprintf(f, "\n");
    }
    if (c->has_train) {
        fprintf(f, "training step (%s, batch %d, %s), model vs measured per N\n", c->profile.name, c->cfg.batch,
                nvs_precision_name(c->cfg.prec));
        fprintf(f, "  %4s %12s %13s %7s %14s %7s %10s %10s %11s %11s %9s\n", "N", "meas_step_ms", "model_step_ms",
                "err_%", "preset_step_ms", "err_%", "meas_comm", "model_comm", "meas_eff_%", "model_eff_%",
                "preset_eff");
        for (int i = 0; i < c->ntrain; i++) {
            const nvs_calib_train_row *r = &c->train[i];
            char e1[16], e2[16], ps_[24], pe[16];
            fmt_pct(e1, sizeof e1, pct_err(r->model_step_us, r->meas_step_us));
            fmt_pct(e2, sizeof e2, pct_err(r->preset_step_us, r->meas_step_us));
            if (isfinite(r->preset_step_us)) {
                snprintf(ps_, sizeof ps_, "%.2f", r->preset_step_us / 1e3);
                snprintf(pe, sizeof pe, "%.1f", 100 * r->preset_efficiency);
            } else {
                snprintf(ps_, sizeof ps_, "-");
                snprintf(pe, sizeof pe, "-");
            }
            char ms[24], mc[24], me[16];
            /* a point of the run without its step time (run.json allows null): '-', as the JSON's null */
            if (isfinite(r->meas_step_us))
                snprintf(ms, sizeof ms, "%.2f", r->meas_step_us / 1e3);
            else
                snprintf(ms, sizeof ms, "-");
            if (isfinite(r->meas_comm_us) && r->n > 1)
                snprintf(mc, sizeof mc, "%.2f", r->meas_comm_us / 1e3);
            else
                snprintf(mc, sizeof mc, "-");
            if (isfinite(r->meas_efficiency))
                snprintf(me, sizeof me, "%.1f", 100 * r->meas_efficiency);
            else
                snprintf(me, sizeof me, "-");
            fprintf(f, "  %4d %12s %13.2f %7s %14s %7s %10s %10.2f %11s %11.1f %9s\n", r->n, ms, r->model_step_us / 1e3,
                    e1, ps_, e2, mc, r->model_comm_us / 1e3, me, 100 * r->model_efficiency, pe);
        }
        fprintf(f, "  (comm in ms; preset = the model with preset terms only, before calibration)\n");
        /* a measured N the model cannot evaluate: named with the reason, not dropped without a word */
        for (int i = 0; i < c->nskip; i++)
            fprintf(f, "  not modelled: N=%d (measured) is left out of the table: %s\n", c->skip[i].n, c->skip[i].why);
        /* a measured point above linear scaling beyond noise is not scaling: the reference step was slowed
         * (runjson/sanity.h); said, so that a model that misses it is not read as wrong there */
        for (int i = 0; i < c->ntrain; i++)
            if (c->train[i].meas_efficiency > 1 + NVS_SANITY_NOISE)
                fprintf(f, "  note: N=%d measured %.1f %% efficiency, above 100 %% by more than timing noise: the "
                           "run's reference step was slowed by something else, so that point is not scaling\n",
                        c->train[i].n, 100 * c->train[i].meas_efficiency);
        fprintf(f, "\n");
    }
    if (c->has_train) {
        nvs_model_series s = {c->cfg, {0}, NULL, 0};
        fprintf(f, "calibrated configuration: %s\n", c->cfg.label);
        nvs_mo_print_terms(f, ps, &s);
    }
}

json_t *nvs_model_json_calibration(const nvs_presets *ps, const nvs_calibration *c)
{
    json_t *o = nvs_model_json_envelope("calibration"), *links = json_array(), *coll = json_array(),
           *train = json_array();
    int bad = !o || !links || !coll || !train;
    bad |= jset(o, "run", nvs_rj_text(c->run_path)); /* a path that is not UTF-8: its bytes \xNN, not a failure */
    bad |= jset(o, "gpu_name", json_string(c->gpu_name));
    bad |= jset(o, "gpu", json_string(c->gpu_preset));
    bad |= jset(o, "machine", c->machine_preset[0] ? json_string(c->machine_preset) : json_null());
    bad |= jset(o, "machine_how", json_string(c->machine_how));
    bad |= jset(o, "p2p_disabled", json_boolean(c->p2p_disabled));
    bad |= jset(o, "p2p_disabled_env", json_boolean(c->p2p_env));
    bad |= jset(o, "shm_disabled_env", json_boolean(c->shm_env));
    bad |= jset(o, "net_local", json_boolean(c->net_local));
    json_t *trs = json_array();
    bad |= !trs;
    for (int i = 0; i < c->ntr && !bad; i++) {
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(c->tr[i].n));
        bad |= jset(x, "transports", json_string(c->tr[i].label));
        bad |= jset(x, "net", json_boolean(c->tr[i].net));
        bad |= jset(x, "collnet", json_boolean(c->tr[i].collnet));
        bad |= jpush(trs, x);
    }
    bad |= jset(o, "nccl_transports", trs);
    for (int i = 0; i < c->nlinks && !bad; i++) {
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(c->links[i].n));
        bad |= jset(x, "from", json_string(c->links[i].npts > 0 ? "sweep" : "step"));
        bad |= jset(x, "sizes", json_integer(c->links[i].npts));
        bad |= jset(x, "buckets", json_integer(c->links[i].nbuckets));
        bad |= jset(x, "latency_us", jnum(c->links[i].latency_us));
        bad |= jset(x, "busbw_gbps", jnum(c->links[i].busbw_gbps));
        bad |= jset(x, "preset_busbw_gbps", jnum(c->links[i].preset_gbps));
        bad |= jpush(links, x);
    }
    bad |= jset(o, "links", links);
    for (int i = 0; i < c->ncoll && !bad; i++) {
        const nvs_calib_coll_row *r = &c->coll[i];
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(r->n));
        bad |= jset(x, "bytes", jbytes(r->bytes));
        bad |= jset(x, "measured_us", jnum(r->measured_us));
        bad |= jset(x, "fitted_us", jnum(r->fit_us));
        bad |= jset(x, "fitted_err_pct", jnum(pct_err(r->fit_us, r->measured_us)));
        bad |= jset(x, "preset_us", jnum(r->preset_us));
        bad |= jset(x, "preset_err_pct", jnum(pct_err(r->preset_us, r->measured_us)));
        bad |= jpush(coll, x);
    }
    bad |= jset(o, "all_reduce", coll);
    for (int i = 0; i < c->ntrain && !bad; i++) {
        const nvs_calib_train_row *r = &c->train[i];
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(r->n));
        bad |= jset(x, "measured_step_us", jnum(r->meas_step_us));
        bad |= jset(x, "model_step_us", jnum(r->model_step_us));
        bad |= jset(x, "step_err_pct", jnum(pct_err(r->model_step_us, r->meas_step_us)));
        bad |= jset(x, "measured_compute_us", jnum(r->meas_compute_us));
        bad |= jset(x, "model_compute_us", jnum(r->model_compute_us));
        bad |= jset(x, "measured_comm_us", jnum(r->meas_comm_us));
        bad |= jset(x, "model_comm_us", jnum(r->model_comm_us));
        bad |= jset(x, "comm_err_pct", jnum(pct_err(r->model_comm_us, r->meas_comm_us)));
        bad |= jset(x, "measured_exposed_comm_us", jnum(r->meas_exposed_us));
        bad |= jset(x, "model_exposed_comm_us", jnum(r->model_exposed_us));
        bad |= jset(x, "measured_efficiency", jnum(r->meas_efficiency));
        bad |= jset(x, "model_efficiency", jnum(r->model_efficiency));
        bad |= jset(x, "preset_step_us", jnum(r->preset_step_us));
        bad |= jset(x, "preset_step_err_pct", jnum(pct_err(r->preset_step_us, r->meas_step_us)));
        bad |= jset(x, "preset_efficiency", jnum(r->preset_efficiency));
        bad |= jpush(train, x);
    }
    bad |= jset(o, "train", train);
    if (c->nskip > 0 && !bad) { /* only where some N is left out: the key is absent otherwise */
        json_t *sk = json_array();
        bad |= !sk;
        for (int i = 0; i < c->nskip && !bad; i++) {
            json_t *x = json_object();
            bad |= jset(x, "n", json_integer(c->skip[i].n));
            bad |= jset(x, "why", json_string(c->skip[i].why));
            bad |= jpush(sk, x);
        }
        bad |= jset(o, "train_not_modelled", sk);
    }
    if (c->has_train && !bad) {
        nvs_model_series s = {c->cfg, {0}, NULL, 0};
        bad |= jset(o, "model", nvs_model_json_profile(&c->profile));
        bad |= jset(o, "terms", nvs_mo_json_terms(ps, &s));
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
