/* Text and JSON output of `nvscale model` (model_out.h): the projections, and the envelope every JSON output
 * shares. The terms: model_terms.c; the calibration: model_calib_out.c; the preset list: preset_out.c. */
#include "model/model_out.h"

#include <math.h>

#include "core/version.h"
#include "model/model_out_priv.h"

json_t *nvs_model_json_envelope(const char *kind)
{
    json_t *o = json_object(), *tool = json_object();
    int bad = !o || !tool;
    bad |= jset(tool, "name", json_string("nvscale"));
    bad |= jset(tool, "version", json_string(NVS_VERSION));
    bad |= jset(o, "schema", json_string(NVS_MODEL_SCHEMA));
    bad |= jset(o, "tool", tool);
    bad |= jset(o, "kind", json_string(kind));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *nvs_model_json_profile(const nvs_profile *p)
{
    json_t *o = json_object();
    int bad = !o;
    bad |= jset(o, "name", json_string(p->name));
    bad |= jset(o, "source", json_string(p->source));
    /* a count: an integer, as run.json's train.params (the profile's params= are whole numbers); it was written
     * as a real (25557032.0). Readers (report, tools) take any JSON number. */
    bad |= jset(o, "params", json_integer((json_int_t)llround(p->total_params)));
    bad |= jset(o, "fwd_gflops_per_sample", json_real(p->fwd_flops_per_sample / 1e9));
    bad |= jset(o, "layers", json_integer(p->nlayers));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static const char *batch_how(const nvs_model_config *c) { return c->batch_is_max ? "max" : "user"; }

/* --- projections ------------------------------------------------------------------------------------------------ */

static void print_one(FILE *f, const nvs_presets *ps, const nvs_model_series *s)
{
    const nvs_model_config *c = &s->cfg;
    /* an algorithm asked for that some rows cannot run falls back (model.h nvs_allreduce_us): the header says so,
     * rather than naming an algorithm the rows do not use */
    int fell_back = 0;
    for (int i = 0; c->algo != NVS_ALGO_AUTO && i < s->npts; i++)
        fell_back |= s->pts[i].n > 1 && s->pts[i].algo_used != c->algo;
    /* the optimizer named where it is not the default SGD (the default's line unchanged) */
    fprintf(f, "%s: %s, %s%s, %s all-reduce%s%s, batch %d per GPU", c->label, c->profile->name,
            nvs_precision_name(c->prec), c->opt == NVS_OPT_ADAMW ? ", AdamW optimizer" : "", nvs_algo_name(c->algo),
            fell_back ? " asked (where the machine cannot run it, the ring: the algo column)" : "",
            c->p2p_disabled && c->shm_disabled ? " (P2P and SHM disabled: NET)"
            : c->p2p_disabled                   ? " (P2P disabled)"
            : c->shm_disabled                   ? " (SHM disabled)"
                                                : "",
            c->batch);
    double fixed = s->mem.weights_bytes + s->mem.grads_bytes + s->mem.buckets_bytes + s->mem.optimizer_bytes +
                   s->mem.reserve_bytes;
    /* a batch the cap decided is not "the largest that fits": the memory holds more (model.h NVS_MODEL_MAX_BATCH) */
    if (c->batch_is_max && s->mem.batch_capped && s->mem.per_sample_bytes > 0)
        fprintf(f, " (capped: the model's limit is %d; the memory estimate allows %.3g in %.1f GB: %.2f GB fixed + "
                   "%.3f MB per sample)",
                NVS_MODEL_MAX_BATCH, s->mem.fit_batch, c->gpu.memory_bytes / 1e9, fixed / 1e9,
                s->mem.per_sample_bytes / 1e6);
    else if (c->batch_is_max && s->mem.batch_capped)
        fprintf(f, " (capped: the model's limit is %d; nothing in the memory estimate grows with the batch: "
                   "%.2f GB fixed of %.1f GB)",
                NVS_MODEL_MAX_BATCH, fixed / 1e9, c->gpu.memory_bytes / 1e9);
    else if (c->batch_is_max)
        fprintf(f, " (the largest that fits %.1f GB: %.2f GB fixed + %.1f MB per sample)", c->gpu.memory_bytes / 1e9,
                fixed / 1e9, s->mem.per_sample_bytes / 1e6);
    fprintf(f, "\n");
    if (c->fw && (c->fw->host_us_per_op > 0 || c->fw->reducer_us_per_bucket > 0))
        fprintf(f, "  as %s: host_ms is the framework's host work per step (the GPU waits for it where it is\n"
                   "  longer: a host-bound step); reducer_ms its reducer's cost at any N (--framework ideal: none)\n",
                c->fw->name);
    /* the wait for the slowest rank (--step-cv) is a part of the step like the others: without its column the
     * parts did not add up to step_ms; shown where some row waits, so tables without --step-cv keep their shape */
    int sync = 0;
    for (int i = 0; i < s->npts; i++) sync |= s->pts[i].t.sync_us > 0;
    fprintf(f, "  %6s %12s %10s %11s %10s %9s %11s %9s", "N", "nodes x gpn", "step_ms", "compute_ms", "reducer_ms",
            "comm_ms", "exposed_ms", "interf_ms");
    if (sync) fprintf(f, " %9s", "sync_ms");
    fprintf(f, " %8s %7s %11s %15s  %s\n", "host_ms", "eff_%", "samples/s", "busbw_GB/s algo", "bottleneck");
    for (int i = 0; i < s->npts; i++) {
        const nvs_model_point *p = &s->pts[i];
        char shape[32], bw[24];
        snprintf(shape, sizeof shape, "%d x %d", p->nodes, p->gpn);
        if (p->n <= 1 || !(p->allreduce_busbw > 0))
            snprintf(bw, sizeof bw, "-");
        else
            snprintf(bw, sizeof bw, "%.3g %s%s", p->allreduce_busbw, nvs_algo_name(p->algo_used),
                     p->link_measured ? " m" : "");
        fprintf(f, "  %6d %12s %10.2f %11.2f %10.2f %9.2f %11.2f %9.2f", p->n, shape, p->t.step_us / 1e3,
                p->t.compute_us / 1e3, p->t.reducer_us / 1e3, p->t.comm_us / 1e3, p->t.exposed_us / 1e3,
                p->t.penalty_us / 1e3);
        if (sync) fprintf(f, " %9.2f", p->t.sync_us / 1e3);
        fprintf(f, " %8.2f %7.1f %11.1f %15s  %s\n", p->t.host_us / 1e3, 100 * p->efficiency, p->samples_per_s, bw,
                p->bottleneck);
    }
    nvs_mo_print_terms(f, ps, s);
}

/* Series s's point at N, or NULL */
static const nvs_model_point *point_at(const nvs_model_series *s, int n)
{
    for (int k = 0; k < s->npts; k++)
        if (s->pts[k].n == n) return &s->pts[k];
    return NULL;
}

/* The smallest N above `after` that any of the ns series has, or 0 */
static int next_n(const nvs_model_series *s, int ns, int after)
{
    int best = 0;
    for (int i = 0; i < ns; i++)
        for (int k = 0; k < s[i].npts; k++)
            if (s[i].pts[k].n > after && (!best || s[i].pts[k].n < best)) best = s[i].pts[k].n;
    return best;
}

void nvs_model_print_series(FILE *f, const nvs_presets *ps, const nvs_model_series *s, int ns, const nvs_gap *gap,
                            int gap_n)
{
    fprintf(f, "nvscale model: data-parallel step of %s (%s); efficiency = step(1)/step(N) at a fixed per-GPU batch\n"
               "comm_ms: the buckets' all-reduces back to back; exposed_ms: what overlap with backward does not hide;"
               "\ninterf_ms: interference, what the compute and the all-reduces beside it cost each other (a share"
               " of the time the GPU computes while they run, per transport: the terms); 'm' = measured link\n",
            s[0].cfg.profile->name, s[0].cfg.profile->source);
    int sync = 0;
    for (int i = 0; i < ns; i++)
        for (int k = 0; k < s[i].npts; k++) sync |= s[i].pts[k].t.sync_us > 0;
    if (sync)
        fprintf(f, "sync_ms: waiting for the slowest rank (--step-cv); step = compute + reducer + exposed + interf + "
                   "sync\n");
    fprintf(f, "\n");
    for (int i = 0; i < ns; i++) {
        print_one(f, ps, &s[i]);
        fprintf(f, "\n");
    }
    if (ns > 1) {
        fprintf(f, "efficiency %% side by side\n  %6s", "N");
        for (int i = 0; i < ns; i++) fprintf(f, "  %-34.34s", s[i].cfg.label);
        fprintf(f, "\n");
        /* a row per N any configuration has, in increasing order, each cell that configuration's point at that N:
         * machines of different GPU counts have different N (--nodes 1,2: 4, 8 and 8, 16), so rows are matched by
         * N, never by position */
        for (int n = next_n(s, ns, 0); n > 0; n = next_n(s, ns, n)) {
            fprintf(f, "  %6d", n);
            for (int i = 0; i < ns; i++) {
                const nvs_model_point *p = point_at(&s[i], n);
                if (p)
                    fprintf(f, "  %-34.1f", 100 * p->efficiency);
                else
                    fprintf(f, "  %-34s", "-");
            }
            fprintf(f, "\n");
        }
        fprintf(f, "\n");
    }
    if (gap) {
        /* the gap as the two efficiencies read (one decimal each): 99.63 vs 98.37 read "99.6% vs 98.4% (gap +1.3
         * points)"; the JSON keeps the exact one */
        double eb = round(1000 * gap->eff_b) / 10, ea = round(1000 * gap->eff_a) / 10;
        fprintf(f, "why %s scales %s than %s at %d GPUs: efficiency %.1f%% vs %.1f%% (gap %+.1f points)\n",
                s[1].cfg.gpu.id, gap->gap >= 0 ? "better" : "worse", s[0].cfg.gpu.id, gap_n, eb, ea,
                nvs_model_pct1(eb - ea));
        for (int i = 0; i < NVS_CAUSE_COUNT; i++)
            fprintf(f, "  %-16s %+6.1f points\n", nvs_cause_name(i), 100 * gap->share[i]);
        fprintf(f, "  cause: %s\n", gap->cause >= 0 ? nvs_cause_name(gap->cause) : "none (gap under 0.5 points)");
    }
}

json_t *nvs_model_json_gap(const nvs_gap *g)
{
    json_t *o = json_object(), *sh = json_object();
    int bad = !o || !sh;
    bad |= jset(o, "eff_a", jnum(g->eff_a));
    bad |= jset(o, "eff_b", jnum(g->eff_b));
    bad |= jset(o, "gap", jnum(g->gap));
    for (int i = 0; i < NVS_CAUSE_COUNT; i++) bad |= jset(sh, nvs_cause_key(i), jnum(g->share[i]));
    bad |= jset(o, "shares", sh);
    bad |= jset(o, "cause", g->cause >= 0 ? json_string(nvs_cause_key(g->cause)) : json_null());
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *json_series_one(const nvs_presets *ps, const nvs_model_series *s)
{
    const nvs_model_config *c = &s->cfg;
    json_t *o = json_object(), *pts = json_array(), *mem = json_object();
    int bad = !o || !pts || !mem;
    bad |= jset(o, "label", json_string(c->label));
    bad |= jset(o, "gpu", json_string(c->gpu.id));
    bad |= jset(o, "machine", json_string(c->machine.id));
    bad |= jset(o, "net", c->has_net ? json_string(c->net.id) : json_null());
    bad |= jset(o, "precision", json_string(nvs_precision_name(c->prec)));
    bad |= jset(o, "framework", json_string(c->fw ? c->fw->name : "ideal"));
    bad |= jset(o, "optimizer", json_string(nvs_optimizer_name(c->opt)));
    /* which update it assumed: one fused pass (adamw-fused, or under ideal) or the framework's foreach passes, as
     * run.json's train.optimizer_fused says which ran (model_calib_train.c reads it) */
    bad |= jset(o, "optimizer_fused", json_boolean(!nvs_model_opt_foreach(c)));
    /* element size and bucket sizes are whole bytes, integers as in run.json (were 4.0, 1048576.0) */
    bad |= jset(o, "grad_bytes", json_integer((json_int_t)llround(c->grad_bytes)));
    bad |= jset(o, "algo", json_string(nvs_algo_name(c->algo)));
    bad |= jset(o, "p2p_disabled", json_boolean(c->p2p_disabled));
    bad |= jset(o, "shm_disabled", json_boolean(c->shm_disabled));
    bad |= jset(o, "batch", json_integer(c->batch));
    bad |= jset(o, "batch_source", json_string(batch_how(c)));
    bad |= jset(o, "bucket_first_bytes", json_integer((json_int_t)llround(c->bucket_first_bytes)));
    bad |= jset(o, "bucket_cap_bytes", json_integer((json_int_t)llround(c->bucket_cap_bytes)));
    bad |= jset(mem, "memory_bytes", json_integer((json_int_t)llround(c->gpu.memory_bytes))); /* whole bytes */
    bad |= jset(mem, "weights_bytes", jbytes(s->mem.weights_bytes));
    bad |= jset(mem, "grads_bytes", jbytes(s->mem.grads_bytes));
    bad |= jset(mem, "buckets_bytes", jbytes(s->mem.buckets_bytes));
    bad |= jset(mem, "optimizer_bytes", jbytes(s->mem.optimizer_bytes));
    bad |= jset(mem, "reserve_bytes", jbytes(s->mem.reserve_bytes));
    bad |= jset(mem, "per_sample_bytes", jbytes(s->mem.per_sample_bytes));
    bad |= jset(mem, "max_batch", json_integer(s->mem.max_batch));
    bad |= jset(mem, "max_batch_capped", json_boolean(s->mem.batch_capped));
    bad |= jset(o, "memory", mem);
    bad |= jset(o, "terms", nvs_mo_json_terms(ps, s));
    for (int i = 0; i < s->npts && !bad; i++) {
        const nvs_model_point *p = &s->pts[i];
        json_t *x = json_object();
        bad |= jset(x, "n", json_integer(p->n));
        bad |= jset(x, "nodes", json_integer(p->nodes));
        bad |= jset(x, "gpus_per_node", json_integer(p->gpn));
        bad |= jset(x, "step_us", jnum(p->t.step_us));
        bad |= jset(x, "compute_us", jnum(p->t.compute_us));
        bad |= jset(x, "comm_us", jnum(p->t.comm_us));
        bad |= jset(x, "exposed_comm_us", jnum(p->t.exposed_us));
        bad |= jset(x, "interference_us", jnum(p->t.penalty_us));
        /* nothing all-reduced (one GPU, dp none, no trainable parameters): no algorithm ran, no link was crossed and
         * no all-reduce ran beside the compute: no algorithm, bus bandwidth, transport, link class or interference
         * share, as the table's '-' (were "ring", 0, "NVLink", "NV", the ring's busbw and a 0 share) */
        int reduced = p->n > 1 && p->nbuckets > 0;
        bad |= jset(x, "interference_share", reduced ? jnum(p->interference_share) : json_null());
        /* waiting for the slowest rank (--step-cv): step_us = compute + reducer + exposed + interference + sync */
        bad |= jset(x, "sync_us", jnum(p->t.sync_us));
        bad |= jset(x, "reducer_us", jnum(p->t.reducer_us));
        bad |= jset(x, "host_us", jnum(p->t.host_us));
        bad |= jset(x, "efficiency", jnum(p->efficiency));
        bad |= jset(x, "samples_per_s", jnum(p->samples_per_s));
        bad |= jset(x, "buckets", json_integer(p->nbuckets));
        bad |= jset(x, "algo", reduced ? json_string(nvs_algo_name(p->algo_used)) : json_null());
        bad |= jset(x, "busbw_gbps", reduced && p->gpn >= 2 ? jnum(p->intra_gbps) : json_null());
        bad |= jset(x, "inter_gbps", reduced && p->nodes > 1 ? jnum(p->inter_gbps) : json_null());
        bad |= jset(x, "allreduce_busbw_gbps", reduced ? jnum(p->allreduce_busbw) : json_null());
        bad |= jset(x, "transport", reduced ? json_string(nvs_transport_name(p->transport)) : json_null());
        bad |= jset(x, "class", reduced && p->cls >= 0 && p->transport != NVS_TR_NET
                                    ? json_string(nvs_class_name(p->cls)) : json_null());
        bad |= jset(x, "link_measured", json_boolean(p->link_measured));
        bad |= jset(x, "bottleneck", json_string(p->bottleneck));
        bad |= jpush(pts, x);
    }
    bad |= jset(o, "points", pts);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *nvs_model_json_series(const nvs_presets *ps, const nvs_model_series *s, int ns, const nvs_gap *gap,
                              int gap_n)
{
    json_t *o = nvs_model_json_envelope("projection"), *cfgs = json_array();
    int bad = !o || !cfgs;
    bad |= jset(o, "model", nvs_model_json_profile(s[0].cfg.profile));
    for (int i = 0; i < ns && !bad; i++) bad |= jpush(cfgs, json_series_one(ps, &s[i]));
    bad |= jset(o, "configurations", cfgs);
    if (gap && !bad) {
        json_t *g = nvs_model_json_gap(gap);
        bad |= jset(g, "n", json_integer(gap_n));
        bad |= jset(g, "a", json_string(s[0].cfg.label));
        bad |= jset(g, "b", json_string(s[1].cfg.label));
        bad |= jset(o, "gap", g);
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
