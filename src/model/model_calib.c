/* Calibration of the what-if model against a measured run.json (model_calib.h). */
#include "model/model_calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "core/out_file.h"
#include "runjson/runjson.h"

int nvs_fit_alpha_beta(const double *bytes, const double *t_us, int k, double *a_us, double *c_us_per_byte)
{
    /* regressors x1 = 1/t, x2 = s/t, target 1: normal equations of a 2-parameter linear least squares */
    double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
    int used = 0;
    for (int i = 0; i < k; i++) {
        if (!(t_us[i] > 0) || !(bytes[i] > 0)) continue;
        double x1 = 1.0 / t_us[i], x2 = bytes[i] / t_us[i];
        s11 += x1 * x1;
        s12 += x1 * x2;
        s22 += x2 * x2;
        b1 += x1;
        b2 += x2;
        used++;
    }
    if (used == 0) return -1;
    double a = 0, c = 0, det = s11 * s22 - s12 * s12;
    if (used >= 2 && det > 1e-12 * s11 * s22) {
        a = (b1 * s22 - b2 * s12) / det;
        c = (s11 * b2 - s12 * b1) / det;
    }
    if (used < 2 || !(det > 1e-12 * s11 * s22) || a < 0 || c <= 0) {
        /* constrained: a = 0, fit c alone */
        a = 0;
        c = b2 / s22;
        if (!(c > 0)) return -1;
    }
    *a_us = a;
    *c_us_per_byte = c;
    return 0;
}

void nvs_calibration_free(nvs_calibration *c)
{
    free(c->coll);
    free(c->train);
    free(c->skip);
    if (c->has_profile) nvs_profile_free(&c->profile);
    memset(c, 0, sizeof *c);
}

/* The machine of a run that has no preset: only the measured N can be evaluated. */
static void measured_only_machine(nvs_machine_spec *m, int gpus)
{
    memset(m, 0, sizeof *m);
    m->id = "measured";
    m->gpus = gpus < 2 ? 2 : gpus;
    m->sockets = 1;
    m->p2p_level = NVS_CLS_PXB;
    m->measured_only = 1;
    m->nics = 1;
    /* never used inside the node (only measured N are evaluated); the network share is not capped by PCIe */
    m->gpu_link_gbps = m->uplink_gbps = m->shm_gbps = 1e9;
}

static const char *guess_machine(const nvs_run *r, const char *gpu_preset, char *how, size_t howlen)
{
    if (!r->topology.present || r->topology.npairs == 0) {
        snprintf(how, howlen, "none: the run has no topology pairs (give --machine)");
        return NULL;
    }
    int all_nv = 1;
    for (size_t i = 0; i < r->topology.npairs; i++) {
        if (!nvs_link_class_is_nvlink(r->topology.pairs[i].cls)) all_nv = 0;
    }
    /* GPUs of several hosts talk over the network: the pairs between hosts are not listed (NET) since 3 December
     * 2026, and no preset is one machine of them */
    for (size_t i = 1; i < r->topology.ngpus; i++) {
        const char *h0 = r->topology.gpus[0].host, *hi = r->topology.gpus[i].host;
        if (h0 && hi && strcmp(h0, hi)) all_nv = 0;
    }
    size_t ngpus = r->topology.ngpus;
    const char *cls0 = r->topology.pairs[0].cls ? r->topology.pairs[0].cls : "?";
    const char *pick = NULL;
    if (all_nv && ngpus == 2) pick = "nvlink-2gpu";
    else if (all_nv && ngpus == 8 && (strstr(gpu_preset, "h100") || strstr(gpu_preset, "h200"))) pick = "hgx-h100-8";
    else if (all_nv && ngpus == 8 && strstr(gpu_preset, "a100")) pick = "hgx-a100-8";
    if (pick)
        snprintf(how, howlen, "guessed from the topology: %s, %zu GPUs", cls0, ngpus);
    else
        snprintf(how, howlen, "none: no preset matches the topology (%s, %zu GPUs); give --machine", cls0, ngpus);
    return pick;
}

static int add_coll_row(nvs_calibration *c, int *cap, const nvs_calib_coll_row *row)
{
    if (c->ncoll == *cap) {
        int nc = *cap ? *cap * 2 : 64;
        nvs_calib_coll_row *v = realloc(c->coll, (size_t)nc * sizeof *v);
        if (!v) return -1;
        c->coll = v;
        *cap = nc;
    }
    c->coll[c->ncoll++] = *row;
    return 0;
}

/* The configuration at N GPUs of one node. */
static nvs_result_t eval_at(const nvs_model_config *cfg, int n, nvs_model_point *pt, char *err, size_t errlen)
{
    return nvs_model_eval(cfg, 1, n, pt, err, errlen);
}

/* The compute scale that makes the model's compute-only step at one GPU the measured one.
 * - Without host work the step is linear in the scale: one division.
 * - A run under a framework with host work times the compute-only step without it too (`ideal_compute_us`, the
 *   GPU's own time, copies included): the scale is that over the model's compute with the host lane off, again
 *   one division.
 * - Older runs without it: the model's compute is not linear in the scale with a host lane (a host-bound step
 *   does not follow the GPU's speed), so the scale is found by bisection on [1/1000, 1000] (the compute is
 *   non-decreasing in it). A measured step no longer than the host lane alone (+0.1 %) does not say how fast
 *   the GPU is: the scale then stays 1 (the presets) and cfg->compute_host_bound says so. */
static nvs_result_t fit_compute_scale(nvs_model_config *cfg, const nvs_run_train_result *t1, char *err,
                                      size_t errlen)
{
    nvs_model_point pt;
    cfg->ct.compute_scale = 1;
    cfg->compute_host_bound = 0;
    const nvs_framework *fw = cfg->fw;
    if (!fw || !nvs_framework_has_host_work(fw)) {
        NVS_CHECK(eval_at(cfg, 1, &pt, err, errlen));
        cfg->ct.compute_scale = t1->compute_us / pt.t.compute_us;
        return NVS_OK;
    }
    if (isfinite(t1->ideal_compute_us) && t1->ideal_compute_us > 0) {
        nvs_framework gpu_only = nvs_framework_gpu_only(fw);
        nvs_model_config c2 = *cfg;
        c2.fw = &gpu_only;
        NVS_CHECK(eval_at(&c2, 1, &pt, err, errlen));
        cfg->ct.compute_scale = t1->ideal_compute_us / pt.t.compute_us;
        return NVS_OK;
    }
    double lo = log(1e-3), hi = log(1e3);
    cfg->ct.compute_scale = 1e-3;
    NVS_CHECK(eval_at(cfg, 1, &pt, err, errlen));
    if (t1->compute_us <= pt.t.compute_us * 1.001) {
        cfg->ct.compute_scale = 1;
        cfg->compute_host_bound = 1;
        return NVS_OK;
    }
    for (int i = 0; i < 60; i++) {
        cfg->ct.compute_scale = exp(0.5 * (lo + hi));
        NVS_CHECK(eval_at(cfg, 1, &pt, err, errlen));
        if (pt.t.compute_us < t1->compute_us) lo = log(cfg->ct.compute_scale);
        else hi = log(cfg->ct.compute_scale);
    }
    cfg->ct.compute_scale = exp(0.5 * (lo + hi));
    return NVS_OK;
}

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
    if (nvs_run_load(run_path, 0, &r) != NVS_OK) return -1;
    const char *m = model ? model : r.train.model;
    const char *p = r.train.present && m ? profile_of_run(&r, m) : NULL;
    if (p) snprintf(buf, len, "%s", p);
    nvs_run_free(&r);
    return p ? 0 : -1;
}

/* Appends src to the label as printable ASCII (anything else as '?': a run.json is input, and a label cut inside
 * a UTF-8 character would make invalid JSON), cut to fit. */
static void label_add(char *label, size_t size, const char *src)
{
    size_t len = strlen(label);
    for (; *src && len + 1 < size; src++) label[len++] = (*src >= 0x20 && *src < 0x7f) ? *src : '?';
    label[len] = '\0';
}

/* The transports NCCL connected the run's rings with at each N >= 2 (run.json transports[], from its INIT log);
 * entries of one N are merged. */
/* The hosts the ranks at n were on: scaling[n]'s ranks (the first n ranks where the run lists none) looked up in
 * ranks[]; 0 when a rank's host is not known. Several hosts at an N whose rings went over NET is the network between
 * nodes, not the hosts-told-apart path of one node (net_local). */
static int hosts_at_n(const nvs_run *r, int n)
{
    const nvs_run_scaling *sc = NULL;
    for (size_t i = 0; i < r->nscaling && !sc; i++)
        if (r->scaling[i].n == n && r->scaling[i].ranks && r->scaling[i].nranks == (size_t)n) sc = &r->scaling[i];
    const char *seen[64]; /* more hosts than this read as 64: the sentence only tells one host from several */
    int hosts = 0;
    for (int k = 0; k < n; k++) {
        int rank = sc ? sc->ranks[k] : k;
        const char *h = NULL;
        for (size_t j = 0; j < r->nranks && !h; j++)
            if (r->ranks[j].rank == rank) h = r->ranks[j].host;
        if (!h) return 0;
        int known = 0;
        for (int s = 0; s < hosts && !known; s++) known = !strcmp(seen[s], h);
        if (known) continue;
        if (hosts == (int)(sizeof seen / sizeof seen[0])) return hosts;
        seen[hosts++] = h;
    }
    return hosts;
}

static void read_transports(const nvs_run *r, nvs_calibration *out)
{
    for (size_t i = 0; i < r->ntransports; i++) {
        const nvs_run_transport *t = &r->transports[i];
        if (t->n < 2 || t->nsummary == 0) continue;
        nvs_calib_transport *c = NULL;
        for (int k = 0; k < out->ntr && !c; k++)
            if (out->tr[k].n == t->n) c = &out->tr[k];
        if (!c) {
            if (out->ntr == NVS_MODEL_MAX_MEAS) continue;
            c = &out->tr[out->ntr++];
            memset(c, 0, sizeof *c);
            c->n = t->n;
            c->hosts = hosts_at_n(r, t->n);
        }
        for (size_t k = 0; k < t->nsummary; k++) {
            const char *key = t->summary[k].key ? t->summary[k].key : "?";
            c->net |= !strcmp(key, "NET");
            c->shm |= !strcmp(key, "SHM");
            c->p2p |= !strcmp(key, "P2P");
            int collnet = !strcmp(key, "COLLNET");
            c->collnet |= collnet;
            /* NET and COLLNET named by their plugin and device as NCCL printed them (NET/Socket/0, NET/IB/0,
             * COLLNET/SHARP/0/GDRDMA) */
            if (c->label[0]) label_add(c->label, sizeof c->label, "+");
            label_add(c->label, sizeof c->label,
                      !strcmp(key, "NET") && t->net_detail       ? t->net_detail
                      : collnet && t->collnet_detail             ? t->collnet_detail
                                                                 : key);
        }
    }
}

/* Whether the run's ring at n crossed NCCL's network transport: ranks of one node that NCCL took for separate
 * hosts (NCCL_HOSTID, containers). No machine preset describes that path: only a measured link models it. */
static int net_at(const nvs_calibration *c, int n)
{
    for (int i = 0; i < c->ntr; i++)
        if (c->tr[i].n == n) return c->tr[i].net;
    return 0;
}

/* Whether the machine preset describes the run's ring at n: any transport but NET, and NET where it joined the GPUs
 * of one host and the preset knows that host's sockets (net_local_gbps) */
static int preset_describes(const nvs_calibration *c, int n)
{
    return !net_at(c, n) || (c->net_local && c->cfg.machine.net_local_gbps > 0);
}

static int has_link(const nvs_model_config *cfg, int n)
{
    for (int k = 0; k < cfg->nmeas; k++)
        if (cfg->meas[k].n == n) return 1;
    return 0;
}

/* The ring bandwidth at n that makes the model's buckets, all-reduced back to back, take the measured comm-only
 * time (train.results[].comm_us): bisection on log B over [1e-4, 1e5] GB/s (the comm time falls as B grows), the
 * latency kept as the preset has it (0 without a machine preset, or where the ring crossed NET, a path the preset
 * does not describe). On success the link is added to cfg->meas and
 * *nbuckets says how many all-reduces the time was of. Returns 0, or -1 where the measured time is no longer than
 * the latency alone (then it says nothing of the bandwidth), where the bisection ends at its bracket's edge, or
 * where no slot is left. */
static int fit_step_link(nvs_model_config *cfg, int n, int net, int preset_ok, double comm_us, int *nbuckets,
                         char *err, size_t errlen)
{
    nvs_ring_links rl;
    double base = 0, alpha = 0;
    if (preset_ok && !cfg->machine.measured_only &&
        nvs_ring_links_of(&cfg->machine, &cfg->gpu, n, nvs_model_off(cfg), &rl) == NVS_OK) {
        base = cfg->machine.coll_base_us;
        alpha = rl.alpha_us;
    }
    if (cfg->nmeas == NVS_MODEL_MAX_MEAS) return -1;
    nvs_meas_link *m = &cfg->meas[cfg->nmeas++];
    *m = (nvs_meas_link){n, base, alpha, 1e5, 1, net};
    nvs_model_point pt;
    if (!isfinite(comm_us) || eval_at(cfg, n, &pt, err, errlen) != NVS_OK || !(comm_us > pt.t.comm_us * 1.001)) {
        cfg->nmeas--;
        return -1;
    }
    double lo = log(1e-4), hi = log(1e5);
    for (int i = 0; i < 80; i++) {
        m->gbps = exp(0.5 * (lo + hi));
        if (eval_at(cfg, n, &pt, err, errlen) != NVS_OK) {
            cfg->nmeas--;
            return -1;
        }
        if (pt.t.comm_us > comm_us) lo = log(m->gbps); /* slower than measured: the link is faster */
        else hi = log(m->gbps);
    }
    m->gbps = exp(0.5 * (lo + hi));
    if (m->gbps < 2e-4 || m->gbps > 0.5e5) { /* at the bracket's edge: no bandwidth in it explains the time */
        cfg->nmeas--;
        return -1;
    }
    *nbuckets = pt.nbuckets;
    return 0;
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

/* The workload's training results as calibration reads them: one result per N, its times possible. The fits
 * look an N up (its first result) and the error table prints every result, so a second result at an N would be
 * printed beside the first and dropped from the fits (the measured link at N silently falling back to the
 * defaults): a file whose results contradict themselves is refused, naming the N, not calibrated on half of it. */
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
    for (size_t i = 0; i < t->nresults; i++)
        for (size_t j = 0; j < i; j++)
            if (t->results[j].n == t->results[i].n) {
                snprintf(err, errlen,
                         "%s: %s.results[%zu].n: N=%d given twice (first at %s.results[%zu]) for workload %s: one "
                         "result per N",
                         run_path, key, i, t->results[i].n, key, j, t->model ? t->model : "(unnamed)");
                return NVS_ERR_INPUT;
            }
    return NVS_OK;
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
    int *ns = NULL;
    double *sizes = NULL, *xs = NULL, *ts = NULL;
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

    /* --- the GPU ------------------------------------------------------------------------------------------- */
    const char *gname = r.nranks > 0 && r.ranks[0].gpu ? r.ranks[0].gpu : NULL;
    snprintf(out->gpu_name, sizeof out->gpu_name, "%s", gname ? gname : "unknown");
    const nvs_preset *gp = o->gpu ? nvs_presets_find(ps, NVS_PK_GPU, o->gpu) : nvs_presets_match_gpu(ps, gname);
    if (!gp) {
        if (o->gpu)
            snprintf(err, errlen, "unknown --gpu '%s' (nvscale model --list-presets)", o->gpu);
        else {
            /* a preset is matched to the exact card (preset.h), never a sibling: say which there are */
            size_t o2 = gname ? (size_t)snprintf(err, errlen,
                                                 "%s: no GPU preset matches ranks[0].gpu \"%s\": give --gpu ID "
                                                 "(GPU presets:", run_path, gname)
                                /* a run without the name: said so, not quoted as if "(absent)" were the card */
                                : (size_t)snprintf(err, errlen,
                                                   "%s: the run records no GPU name (ranks[0].gpu): give --gpu ID "
                                                   "(GPU presets:", run_path);
            for (int i = 0; i < ps->kind[NVS_PK_GPU].n && o2 < errlen; i++)
                o2 += (size_t)snprintf(err + o2, errlen - o2, "%s %s", i ? "," : "", ps->kind[NVS_PK_GPU].v[i].id);
            if (o2 < errlen) snprintf(err + o2, errlen - o2, ")");
        }
        res = NVS_ERR_INPUT;
        goto fail;
    }
    snprintf(out->gpu_preset, sizeof out->gpu_preset, "%s", gp->id);
    const char *p2p = nvs_run_env(&r, "NCCL_P2P_DISABLE");
    out->p2p_env = out->p2p_disabled = p2p && !strcmp(p2p, "1");
    /* rings NCCL made of SHM alone at every N it reports (GPUs without P2P, or P2P turned off some other way) are
     * modelled as such; the model has one P2P setting for all N, so a run with P2P at some N keeps it */
    read_transports(&r, out);
    int shm_only = 0, p2p_seen = 0;
    for (int i = 0; i < out->ntr; i++) {
        shm_only += out->tr[i].shm && !out->tr[i].p2p && !out->tr[i].net;
        p2p_seen |= out->tr[i].p2p;
    }
    if (shm_only > 0 && !p2p_seen) out->p2p_disabled = 1;
    const char *shm = nvs_run_env(&r, "NCCL_SHM_DISABLE");
    out->shm_env = shm && !strcmp(shm, "1");
    int net_only = 0, other_seen = 0, one_host = r.topology.ngpus > 0;
    for (int i = 0; i < out->ntr; i++) {
        net_only += out->tr[i].net && !out->tr[i].shm && !out->tr[i].p2p;
        other_seen |= out->tr[i].shm || out->tr[i].p2p;
    }
    for (size_t i = 1; i < r.topology.ngpus; i++) {
        const char *h0 = r.topology.gpus[0].host, *hi = r.topology.gpus[i].host;
        if (!h0 || !hi || strcmp(h0, hi)) one_host = 0;
    }
    out->net_local = net_only > 0 && !other_seen && one_host;

    /* --- the machine ----------------------------------------------------------------------------------------- */
    const nvs_preset *mp = NULL;
    if (o->machine) {
        mp = nvs_presets_find(ps, NVS_PK_MACHINE, o->machine);
        if (!mp) {
            snprintf(err, errlen, "unknown --machine '%s' (nvscale model --list-presets)", o->machine);
            res = NVS_ERR_INPUT;
            goto fail;
        }
        snprintf(out->machine_how, sizeof out->machine_how, "--machine");
    } else {
        const char *g = guess_machine(&r, gp->id, out->machine_how, sizeof out->machine_how);
        if (g) mp = nvs_presets_find(ps, NVS_PK_MACHINE, g);
    }
    if (mp) snprintf(out->machine_preset, sizeof out->machine_preset, "%s", mp->id);

    int nns = nvs_run_ns(&r, &ns);
    if (nns < 0) {
        res = NVS_ERR_NOMEM;
        goto fail;
    }
    int maxn = 1;
    for (int i = 0; i < nns; i++)
        if (ns[i] > maxn) maxn = ns[i];
    if (mp && maxn > (int)mp->f[NVS_M_GPUS].v) {
        snprintf(err, errlen, "%s: the run has %d GPUs; machine '%s' has %d", run_path, maxn, mp->id,
                 (int)mp->f[NVS_M_GPUS].v);
        res = NVS_ERR_INPUT;
        goto fail;
    }

    nvs_model_config *cfg = &out->cfg;
    nvs_model_config_init(cfg);
    cfg->dp = NVS_DP_DDP; /* nvscale's training step all-reduces DDP buckets during backward, whatever the profile */
    nvs_gpu_spec_from(gp, &cfg->gpu);
    if (mp)
        nvs_machine_spec_from(mp, &cfg->machine);
    else
        measured_only_machine(&cfg->machine, maxn);
    cfg->p2p_disabled = out->p2p_disabled || out->net_local;
    cfg->shm_disabled = out->shm_env || out->net_local;
    snprintf(cfg->label, sizeof cfg->label, "%s @ %s (calibrated on %s)", gp->id, mp ? mp->id : "measured machine",
             run_path);

    /* --- links from the all_reduce sweep -------------------------------------------------------------------- */
    int *cns = NULL;
    int ncn = nvs_run_coll_ns(&r, "all_reduce", &cns);
    int nsz = nvs_run_coll_sizes(&r, "all_reduce", &sizes);
    if (ncn < 0 || nsz < 0) {
        free(cns);
        res = NVS_ERR_NOMEM;
        goto fail;
    }
    xs = malloc(((size_t)nsz + 1) * sizeof *xs);
    ts = malloc(((size_t)nsz + 1) * sizeof *ts);
    if (!xs || !ts) {
        free(cns);
        res = NVS_ERR_NOMEM;
        goto fail;
    }
    for (int i = 0; i < ncn; i++) {
        int n = cns[i];
        if (n < 2) continue;
        int k = 0;
        for (int j = 0; j < nsz; j++) {
            const nvs_run_coll *rc = nvs_run_coll_find(&r, "all_reduce", n, sizes[j]);
            if (!rc || !(rc->time_max_us > 0)) continue;
            xs[k] = rc->bytes;
            ts[k] = rc->time_max_us;
            k++;
        }
        double a, c;
        if (k == 0 || nvs_fit_alpha_beta(xs, ts, k, &a, &c) != 0) continue;
        if (out->nlinks == NVS_MODEL_MAX_MEAS) break;
        nvs_calib_link *l = &out->links[out->nlinks++];
        l->n = n;
        l->latency_us = a;
        l->busbw_gbps = 2.0 * (n - 1) / n / (c * 1e3);
        l->npts = k;
        l->preset_gbps = NAN;
        cfg->meas[cfg->nmeas++] = (nvs_meas_link){n, 0.0, a / (2.0 * (n - 1)), l->busbw_gbps, 0, net_at(out, n)};
    }
    free(cns);

    /* --- the preset-only twin, for the "how good were the presets" columns ------------------------------------- */
    out->preset_cfg = *cfg;
    out->preset_cfg.nmeas = 0;
    for (int i = 0; i < out->nlinks; i++) {
        nvs_calib_link *l = &out->links[i];
        nvs_ring_links rl;
        if (mp && preset_describes(out, l->n) &&
            nvs_ring_links_of(&cfg->machine, &cfg->gpu, l->n, nvs_model_off(cfg), &rl) == NVS_OK)
            l->preset_gbps = rl.gbps;
    }

    /* --- per-size error table ------------------------------------------------------------------------------------- */
    int cap = 0;
    for (int i = 0; i < out->nlinks; i++) {
        int n = out->links[i].n;
        nvs_ar_params ar, arp;
        nvs_ring_links rl;
        int meas;
        char e2[256];
        NVS_CHECK_GOTO(nvs_model_ar_params(cfg, 1, n, &ar, &rl, &meas, err, errlen), res, fail);
        int have_preset = mp && preset_describes(out, n) &&
                          nvs_model_ar_params(&out->preset_cfg, 1, n, &arp, &rl, &meas, e2, sizeof e2) == NVS_OK;
        for (int j = 0; j < nsz; j++) {
            const nvs_run_coll *rc = nvs_run_coll_find(&r, "all_reduce", n, sizes[j]);
            if (!rc || !(rc->time_max_us > 0)) continue;
            nvs_calib_coll_row row = {n, rc->bytes, rc->time_max_us, nvs_allreduce_us(&ar, rc->bytes, NULL),
                                      have_preset ? nvs_allreduce_us(&arp, rc->bytes, NULL) : NAN};
            if (add_coll_row(out, &cap, &row)) {
                res = NVS_ERR_NOMEM;
                goto fail;
            }
        }
    }

    /* --- the training step ----------------------------------------------------------------------------------------- */
    if (r.train.present && r.train.nresults > 0) {
        const char *model = o->model ? o->model : r.train.model;
        if (!model) {
            snprintf(err, errlen, "%s: train.model is absent: give --model", run_path);
            res = NVS_ERR_INPUT;
            goto fail;
        }
        /* the workload's own profile: the name given or the run's, else the file the run read it from */
        model = profile_of_run(&r, model);
        if ((res = nvs_profile_load(model, &out->profile, err, errlen)) != NVS_OK) goto fail;
        out->has_profile = 1;
        cfg->profile = &out->profile;
        /* --batch stands in for a train.batch the run lacks; against a recorded one it would fit the model at
         * another batch to the measured step (compute_scale absorbs the difference) and print that batch as the
         * run's: refused, as --model naming another workload is */
        if (o->batch > 0 && r.train.batch > 0 && o->batch != r.train.batch) {
            snprintf(err, errlen, "%s: trained at batch %d per GPU, not %d (--batch only gives a batch the run does "
                                  "not record)", run_path, r.train.batch, o->batch);
            res = NVS_ERR_INPUT;
            goto fail;
        }
        cfg->batch = o->batch > 0 ? o->batch : r.train.batch;
        if (cfg->batch < 1) {
            snprintf(err, errlen, "%s: train.batch is absent: give --batch", run_path);
            res = NVS_ERR_INPUT;
            goto fail;
        }
        if (r.train.precision && nvs_precision_parse(r.train.precision, &cfg->prec)) {
            snprintf(err, errlen, "%s: train.precision \"%s\" is not one of fp32, tf32, bf16, fp16", run_path, r.train.precision);
            res = NVS_ERR_INPUT;
            goto fail;
        }
        if (r.train.grad_type && !strcmp(r.train.grad_type, "bf16")) cfg->grad_bytes = 2;
        if (r.train.bucket_first_bytes > 0) cfg->bucket_first_bytes = r.train.bucket_first_bytes;
        if (r.train.bucket_cap_bytes > 0) cfg->bucket_cap_bytes = r.train.bucket_cap_bytes;
        /* the optimizer the run's step ran (SGD before --optimizer existed): its states and update are in the
         * measured compute the GPU's speed is fitted to, so the model's must be the same; AdamW fused or as the
         * framework's foreach passes as train.optimizer_fused says (runs before the foreach AdamW step: fused, and
         * so they say) */
        int fused_name = 0;
        if (nvs_optimizer_parse(r.train.optimizer, &cfg->opt, &fused_name)) {
            snprintf(err, errlen, "%s: train.optimizer \"%s\" is not one this nvscale knows (%s)", run_path,
                     r.train.optimizer, nvs_optimizer_choices());
            res = NVS_ERR_INPUT;
            goto fail;
        }
        cfg->adamw_fused = cfg->opt == NVS_OPT_ADAMW && r.train.optimizer_fused != 0;
        /* the framework the run's step ran under: its host work and copies are modelled as the step did them (a run
         * made before --framework existed had none) */
        if (r.train.framework) {
            const nvs_framework *known = nvs_framework_find(r.train.framework);
            if (!known) {
                snprintf(err, errlen, "%s: train.framework \"%s\" is not one this nvscale knows (%s)", run_path,
                         r.train.framework, nvs_framework_choices());
                res = NVS_ERR_INPUT;
                goto fail;
            }
            /* the numbers the run's step used; a key the run does not write is a feature its step did not have
             * (the layout copies and the gradient scaler came later) */
            const nvs_run_train *t = &r.train;
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

        nvs_model_point pt;
        char e2[256];
        /* 1. compute: one scale factor from the measured compute-only step (every N runs the same compute); from
         * N=1, else the smallest N measured (the least shared machine), whatever order the file lists them in: a
         * --gpus 2,4 run listed 4 before 2 took N=4's compute, scale 0.82 against 0.55. Only a result with its
         * compute measured: an N=1 with compute_us null was taken all the same, and the scale stayed 1 (+83 % at
         * N=1 on the 2xH200 fixture) though N=2 had measured it */
        const nvs_run_train_result *t1 = NULL;
        for (size_t i = 0; i < r.train.nresults; i++)
            if (r.train.results[i].compute_us > 0 && (!t1 || r.train.results[i].n < t1->n))
                t1 = &r.train.results[i];
        if (t1 && t1->compute_us > 0) {
            NVS_CHECK_GOTO(fit_compute_scale(cfg, t1, err, errlen), res, fail);
            cfg->compute_measured = t1->n; /* the N it came from, for its source line */
            out->has_compute = 1;
        }
        /* 1a. the host: the framework's work as this run's host did it. The run times the host's own issue of
         * its full step at one GPU (train.results[].issue_us: launches and the framework's work, not its waits for
         * the GPU); the model's host lane there is the framework's numbers, which the run's host did slower or
         * faster (a VM's vCPU changes speed from call to call: docs/fidelity.md, "Noise"). Only where the GPU's
         * own time was measured apart (ideal_compute_us): an older run's scale was fitted through the host lane.
         * And only where the host's work lengthened the compute-only step beyond the GPU's own time (by more than
         * 2 %): a step bound by the GPU fills CUDA's launch queue, the host blocks in its launches, and its issue
         * time is then the GPU's, not its own (BERT-large fp32 at batch 64 would read 3.7x). */
        if (t1 && t1->n == 1 && cfg->fw && isfinite(t1->issue_us) && t1->issue_us > 0 &&
            isfinite(t1->ideal_compute_us) && t1->ideal_compute_us > 0 &&
            t1->compute_us > 1.02 * t1->ideal_compute_us) {
            NVS_CHECK_GOTO(eval_at(cfg, 1, &pt, err, errlen), res, fail);
            /* beyond a factor of 10 either way the issue time is not the framework's work done slower or faster
             * (the scales seen over the committed runs are 0.79-2.1: results/model/calib-errors.txt) */
            double hs = pt.t.host_us > 0 ? t1->issue_us / pt.t.host_us : NAN;
            if (hs >= 0.1 && hs <= 10) {
                cfg->host_scale = hs;
                cfg->host_scale_measured = 1;
            }
        }
        /* 2. per-call overhead: measured back-to-back comm vs the curve fitted on a sweep, per bucket; before the
         * links found from the step's comm (1b), whose bisection then counts it as every N's all-reduces do */
        double excess = 0;
        int nex = 0;
        for (size_t i = 0; i < r.train.nresults; i++) {
            const nvs_run_train_result *tr = &r.train.results[i];
            int measured = 0;
            for (int k = 0; k < cfg->nmeas; k++) measured |= cfg->meas[k].n == tr->n && !cfg->meas[k].from_step;
            if (tr->n < 2 || !(tr->comm_us > 0) || !measured) continue;
            NVS_CHECK_GOTO(eval_at(cfg, tr->n, &pt, err, errlen), res, fail);
            /* no bucket (a profile without trainable parameters): the run's comm is timer noise around empty
             * calls, no per-call cost; divided by 0 it made per_call_us inf, "measured" */
            if (pt.nbuckets < 1) continue;
            excess += (tr->comm_us - pt.t.comm_us) / pt.nbuckets;
            nex++;
        }
        if (nex > 0) {
            cfg->per_call_us = excess / nex > 0 ? excess / nex : 0;
            cfg->per_call_measured = 1;
            out->has_per_call = 1;
        }
        /* 1b. the links at the N the run has no sweep for: from its step's own all-reduces, back to back (the
         * per-call overhead a sweep at another N measured included) */
        for (size_t i = 0; i < r.train.nresults && out->nlinks < NVS_MODEL_MAX_MEAS; i++) {
            const nvs_run_train_result *tr = &r.train.results[i];
            int have = 0, nb = 0;
            for (int k = 0; k < cfg->nmeas; k++) have |= cfg->meas[k].n == tr->n;
            if (tr->n < 2 || have || tr->n > cfg->machine.gpus || !(tr->comm_us > 0)) continue;
            if (fit_step_link(cfg, tr->n, net_at(out, tr->n), preset_describes(out, tr->n), tr->comm_us, &nb, e2,
                              sizeof e2) != 0)
                continue;
            const nvs_meas_link *m = &cfg->meas[cfg->nmeas - 1];
            nvs_calib_link *l = &out->links[out->nlinks++];
            memset(l, 0, sizeof *l);
            l->n = tr->n;
            l->latency_us = m->base_us + 2.0 * (tr->n - 1) * m->alpha_us;
            l->busbw_gbps = m->gbps;
            l->nbuckets = nb;
            l->preset_gbps = NAN;
            nvs_ring_links rl;
            if (mp && preset_describes(out, tr->n) &&
                nvs_ring_links_of(&cfg->machine, &cfg->gpu, tr->n, nvs_model_off(cfg), &rl) == NVS_OK)
                l->preset_gbps = rl.gbps;
        }
        /* 3. the interference's share, over the time the model's GPU computes beside the all-reduces at each N
         * (overlap_us: what the model charges it on; the hidden comm where the GPU is busy throughout, less on a
         * host-bound step), so that the calibrated model pays what the run paid. A run that measured its
         * interference (train.results[].interference_us: the compute slowed while the all-reduces ran beside it)
         * gives it directly; older runs give it as the residual of the step against the schedule. Both are taken
         * against the schedule alone: no interference of the transports' (restored below when the run does not
         * give one). */
        double ipay = 0, ihid = 0, iov = 0, pay = 0, ov = 0;
        cfg->overlap_penalty = 0;
        for (size_t i = 0; i < r.train.nresults; i++) {
            const nvs_run_train_result *tr = &r.train.results[i];
            if (tr->n < 2 || !(tr->step_us > 0) || tr->n > cfg->machine.gpus) continue;
            if (net_at(out, tr->n) && !has_link(cfg, tr->n)) continue;
            if (eval_at(cfg, tr->n, &pt, e2, sizeof e2) != NVS_OK || !(pt.t.overlap_us > 0)) continue;
            pay += tr->step_us - pt.t.step_us;
            ov += pt.t.overlap_us;
            double hidden = tr->comm_us - (isfinite(tr->exposed_comm_us) ? tr->exposed_comm_us : 0);
            if (!isfinite(tr->interference_us) || !(tr->comm_us > 0) || !(hidden > 0)) continue;
            ipay += tr->interference_us;
            ihid += hidden;
            iov += pt.t.overlap_us;
        }
        /* a ratio over less than a millisecond of hidden comm is noise (ResNet-50 over NVLink hides ~0.1 ms) */
        if (ihid >= 1000.0 && iov > 0) {
            double pen = ipay / iov;
            cfg->overlap_penalty = pen < 0 ? 0 : pen > 1 ? 1 : pen;
            cfg->overlap_measured = 2;
            out->has_overlap = 1;
        } else if (ov > 0) {
            double pen = pay / ov;
            cfg->overlap_penalty = pen < 0 ? 0 : pen > 1 ? 1 : pen;
            cfg->overlap_measured = 1;
            out->has_overlap = 1;
        }
        if (!cfg->overlap_measured) cfg->overlap_penalty = NVS_OVERLAP_BY_TRANSPORT;
        /* 4. the error table per N */
        out->train = calloc(r.train.nresults, sizeof *out->train);
        if (!out->train) {
            res = NVS_ERR_NOMEM;
            goto fail;
        }
        out->skip = calloc(r.train.nresults, sizeof *out->skip);
        if (!out->skip) {
            res = NVS_ERR_NOMEM;
            goto fail;
        }
        for (size_t i = 0; i < r.train.nresults; i++) {
            const nvs_run_train_result *tr = &r.train.results[i];
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
    }
    /* the links by N too: those found from the step (1b) were appended after the sweep's */
    qsort(out->links, (size_t)out->nlinks, sizeof *out->links, by_link_n);
    if (out->nlinks == 0 && !out->has_train) {
        nothing_to_calibrate(run_path, err, errlen);
        res = NVS_ERR_INPUT;
        goto fail;
    }
    free(ns);
    free(sizes);
    free(xs);
    free(ts);
    nvs_run_free(&r);
    return NVS_OK;
fail:
    free(ns);
    free(sizes);
    free(xs);
    free(ts);
    nvs_run_free(&r);
    nvs_calibration_free(out);
    return res;
}
