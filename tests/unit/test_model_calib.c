/* Calibration (src/model/model_calib.h): the alpha-beta fit, and a round trip: a run.json made from the model with
 * known terms must give those terms back, with ~0 error; then the committed fixtures within the stated
 * tolerance. */
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "model/model_calib.h"
#include "model/model_out.h"
#include "t.h"

#define REL(a, b, r) T_NEAR((a), (b), fabs((double)(b)) * (r) + 1e-12)

static void t_fit_exact(void)
{
    double s[] = {1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}, t[7], a, c;
    for (int i = 0; i < 7; i++) t[i] = 10 + 1e-3 * s[i];
    T_EQ_I(nvs_fit_alpha_beta(s, t, 7, &a, &c), 0);
    REL(a, 10, 1e-9);
    REL(c, 1e-3, 1e-9);
    /* one point: no latency, the bandwidth from it */
    T_EQ_I(nvs_fit_alpha_beta(s + 3, t + 3, 1, &a, &c), 0);
    T_NEAR(a, 0, 0);
    REL(c, t[3] / s[3], 1e-12);
    /* data that would give a negative latency: constrained to a = 0 */
    double t2[] = {1.0, 20.0, 400.0};
    double s2[] = {1e3, 1e4, 1e5};
    T_EQ_I(nvs_fit_alpha_beta(s2, t2, 3, &a, &c), 0);
    T_NEAR(a, 0, 0);
    T_ASSERT(c > 0);
    /* nothing usable */
    double z[] = {0, -1};
    T_EQ_I(nvs_fit_alpha_beta(z, z, 2, &a, &c), -1);
}

static void t_fit_relative(void)
{
    /* +-10% alternating noise on an exact curve: the fit stays within a few percent of the truth, and every
     * point within ~10% of the fit (relative least squares weighs small and large sizes alike) */
    double s[20], t[20], a, c;
    for (int i = 0; i < 20; i++) {
        s[i] = pow(2, 3 + 1.6 * i);
        t[i] = (5 + s[i] / 2e5) * (i % 2 ? 1.1 : 0.9);
    }
    T_EQ_I(nvs_fit_alpha_beta(s, t, 20, &a, &c), 0);
    REL(a, 5, 0.05);
    REL(c, 1 / 2e5, 0.05);
    for (int i = 0; i < 20; i++) REL(a + c * s[i], t[i], 0.13);
}

/* --- round trip ---------------------------------------------------------------------------------------------------- */

static json_t *coll_row(int n, double bytes, double t)
{
    return json_pack("{s:s, s:i, s:s, s:s, s:i, s:b, s:f, s:f, s:i, s:b, s:{s:f, s:f, s:f}, s:i, s:f, s:f, s:i}",
                     "collective", "all_reduce", "n", n, "type", "float", "op", "sum", "root", -1, "inplace", 0,
                     "bytes", bytes, "count", bytes / 4, "iters", 20, "graph", 0, "time_us", "min", t, "avg", t,
                     "max", t, "slowest_rank", 0, "algbw_gbps", bytes / t / 1e3, "busbw_gbps", bytes / t / 1e3,
                     "wrong", 0);
}

static json_t *train_row(int n, double step, double compute, double comm)
{
    json_t *r = json_pack("{s:i, s:i, s:f, s:f, s:f, s:f}", "n", n, "steps", 20, "step_us", step, "compute_us",
                          compute, "exposed_comm_us", step - compute, "efficiency", 1.0);
    if (n > 1) json_object_set_new(r, "comm_us", json_real(comm));
    return r;
}

/* A 2-rank H200 run of resnet50 batch 64 fp32 with these training results and `key` (collectives or transports)
 * written to path; the references to key_val and results are taken. Returns the dump's status. */
static int write_run(const char *path, const char *key, json_t *key_val, json_t *results)
{
    json_t *root = json_pack("{s:s, s:{s:i, s:i}, s:[{s:i, s:s}, {s:i, s:s}], s:o, s:{s:s, s:i, s:s, s:s, s:o}}",
                             "schema", "nvscale.run/1", "world", "size", 2, "nodes", 1, "ranks", "rank", 0, "gpu",
                             "NVIDIA H200", "rank", 1, "gpu", "NVIDIA H200", key, key_val, "train", "model",
                             "resnet50", "batch", 64, "precision", "fp32", "grad_type", "fp32", "results", results);
    if (!root) return -1;
    mkdir("tests/tmp", 0755);
    int rc = json_dump_file(root, path, 0);
    json_decref(root);
    return rc;
}

/* The built-in GPU and machine presets (a failure stops the test). */
static void builtin_presets(nvs_presets *ps)
{
    char err[1024] = "";
    memset(ps, 0, sizeof *ps);
    T_EQ_I(nvs_presets_load_builtin(ps, err, sizeof err), NVS_OK);
}

static void t_round_trip(void)
{
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    nvs_profile prof;
    if (nvs_profile_load("resnet50", &prof, err, sizeof err) != NVS_OK) T_FAIL("resnet50: %s", err);

    /* the truth: h200 on nvlink-2gpu, resnet50 batch 64 fp32; compute 1.3x the default model, all_reduce at
     * N=2 = 12 us + S / 300 GB/s, 7 us per bucket call, 25% of the hidden comm still paid */
    const double A = 12, B = 300, SCALE = 1.3, PER_CALL = 7, OVERLAP = 0.25;
    nvs_model_config c;
    nvs_model_config_init(&c);
    nvs_gpu_spec_from(nvs_presets_find(&ps, NVS_PK_GPU, "h200-sxm"), &c.gpu);
    nvs_machine_spec_from(nvs_presets_find(&ps, NVS_PK_MACHINE, "nvlink-2gpu"), &c.machine);
    c.profile = &prof;
    c.batch = 64;
    c.ct.compute_scale = SCALE;
    c.meas[0] = (nvs_meas_link){2, 0, A / 2, B};
    c.nmeas = 1;
    c.per_call_us = PER_CALL;
    c.overlap_penalty = OVERLAP;
    nvs_model_point p1, p2;
    T_EQ_I(nvs_model_eval(&c, 1, 1, &p1, err, sizeof err), NVS_OK);
    T_EQ_I(nvs_model_eval(&c, 1, 2, &p2, err, sizeof err), NVS_OK);
    double comm_only = p2.t.comm_us; /* per-call included */

    json_t *colls = json_array();
    for (double s = 8; s <= 8e9; s *= 4) json_array_append_new(colls, coll_row(2, s, A + s / (B * 1e3)));
    json_t *results = json_array();
    json_array_append_new(results, train_row(1, p1.t.step_us, p1.t.compute_us, 0));
    json_array_append_new(results, train_row(2, p2.t.step_us, p2.t.compute_us, comm_only));
    const char *path = "tests/tmp/test_model_calib_roundtrip.json";
    T_EQ_I(write_run(path, "collectives", colls, results), 0);

    nvs_calibration cal;
    nvs_calib_opts o = {"nvlink-2gpu", NULL, NULL, 0};
    if (nvs_calibrate(path, &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("calibrate: %s", err);
    T_EQ_S(cal.gpu_preset, "h200-sxm");
    T_EQ_I(cal.nlinks, 1);
    REL(cal.links[0].latency_us, A, 1e-6);
    REL(cal.links[0].busbw_gbps, B, 1e-6);
    T_ASSERT(cal.has_compute && cal.has_per_call && cal.has_overlap);
    REL(cal.cfg.ct.compute_scale, SCALE, 1e-9);
    REL(cal.cfg.per_call_us, PER_CALL, 1e-6);
    REL(cal.cfg.overlap_penalty, OVERLAP, 1e-6);
    T_EQ_I(cal.ntrain, 2);
    for (int i = 0; i < cal.ntrain; i++) REL(cal.train[i].model_step_us, cal.train[i].meas_step_us, 1e-9);
    for (int i = 0; i < cal.ncoll; i++) REL(cal.coll[i].fit_us, cal.coll[i].measured_us, 1e-6);
    /* the preset-only twin differs from the truth (compute 1.3x): its error is reported, not hidden */
    T_ASSERT(fabs(cal.train[0].preset_step_us / cal.train[0].meas_step_us - 1) > 0.2);
    nvs_calibration_free(&cal);
    nvs_profile_free(&prof);
    nvs_presets_free(&ps);
}

/* Adds topology.gpus to the run.json at path: two GPUs on hosts h0 and h1 */
static int add_hosts(const char *path, const char *h0, const char *h1)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) return -1;
    json_t *topo = json_pack("{s:[{s:i, s:s, s:s}, {s:i, s:s, s:s}]}", "gpus", "index", 0, "host", h0, "name",
                             "NVIDIA H200", "index", 1, "host", h1, "name", "NVIDIA H200");
    int rc = !topo || json_object_set_new(root, "topology", topo) || json_dump_file(root, path, 0) ? -1 : 0;
    json_decref(root);
    return rc;
}

/* A run without an all_reduce sweep (`nvscale train`) gives its link from the step's own all-reduces: the
 * bandwidth at which the model's buckets, back to back, take the measured comm time. Over P2P the preset's latency
 * is kept. Where NCCL's INIT log shows NET (case 1: hosts not known; 2: two GPUs of one host, as NCCL_HOSTID or
 * P2P and SHM disabled make it; 3: two hosts), the model at N=2 is the measured one; only between the GPUs of one
 * host does the machine preset describe the path (its sockets, net_local_gbps): there the preset's latency and
 * columns are given, elsewhere the latency is 0 and the preset columns are empty. */
static void t_step_link(void)
{
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    nvs_profile prof;
    if (nvs_profile_load("resnet50", &prof, err, sizeof err) != NVS_OK) T_FAIL("resnet50: %s", err);
    for (int kase = 0; kase <= 3; kase++) {
        const int net = kase > 0, local = kase == 2;
        /* the truth: 40 GB/s (sockets: 3.5) with the preset's latency (over NET: none) */
        const double B = net ? 3.5 : 40;
        nvs_model_config c;
        nvs_model_config_init(&c);
        nvs_gpu_spec_from(nvs_presets_find(&ps, NVS_PK_GPU, "h200-sxm"), &c.gpu);
        nvs_machine_spec_from(nvs_presets_find(&ps, NVS_PK_MACHINE, "nvlink-2gpu"), &c.machine);
        nvs_ring_links rl;
        T_EQ_I(nvs_ring_links_of(&c.machine, &c.gpu, 2, 0, &rl), NVS_OK);
        c.profile = &prof;
        c.batch = 64;
        /* over NET the latency is the preset's sockets' where it describes them (one host), else none */
        c.meas[0] = (nvs_meas_link){2, net && !local ? 0 : c.machine.coll_base_us,
                                    local ? c.machine.net_local_hop_us : net ? 0 : rl.alpha_us, B, 1, net};
        c.nmeas = 1;
        nvs_model_point p1, p2;
        T_EQ_I(nvs_model_eval(&c, 1, 1, &p1, err, sizeof err), NVS_OK);
        T_EQ_I(nvs_model_eval(&c, 1, 2, &p2, err, sizeof err), NVS_OK);
        /* a ring measured over sockets is NET, whatever the machine's links: its interference is NET's */
        T_EQ_I(p2.transport, net ? NVS_TR_NET : NVS_TR_NVLINK);
        REL(p2.interference_share, nvs_interference_of(net ? NVS_TR_NET : NVS_TR_NVLINK)->share, 0);
        json_t *results = json_array();
        json_array_append_new(results, train_row(1, p1.t.step_us, p1.t.compute_us, 0));
        json_array_append_new(results, train_row(2, p2.t.step_us, p2.t.compute_us, p2.t.comm_us));
        json_t *tr = net ? json_pack("[{s:i, s:{s:i}, s:[{s:s, s:s}]}]", "n", 2, "summary", "NET", 12, "channels",
                                     "transport", "NET", "detail", "NET/Socket/0")
                         : json_pack("[{s:i, s:{s:i}}]", "n", 2, "summary", "P2P", 48);
        const char *path = "tests/tmp/test_model_calib_steplink.json";
        T_EQ_I(write_run(path, "transports", tr, results), 0);
        if (kase >= 2) T_EQ_I(add_hosts(path, "vm", kase == 2 ? "vm" : "vm2"), 0);
        nvs_calibration cal;
        nvs_calib_opts o = {"nvlink-2gpu", NULL, NULL, 0};
        if (nvs_calibrate(path, &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("calibrate: %s", err);
        T_EQ_I(cal.nlinks, 1);
        T_EQ_I(cal.links[0].npts, 0); /* from the step */
        T_EQ_I(cal.links[0].nbuckets, p2.nbuckets);
        REL(cal.links[0].busbw_gbps, B, 1e-6);
        T_EQ_I(cal.ncoll, 0);
        T_EQ_I(cal.has_per_call, 0); /* nothing left over by construction */
        T_EQ_I(cal.ntr, 1);
        T_EQ_S(cal.tr[0].label, net ? "NET/Socket/0" : "P2P");
        T_EQ_I(cal.tr[0].net, net);
        T_EQ_I(cal.ntrain, 2);
        REL(cal.train[1].model_comm_us, p2.t.comm_us, 1e-6);
        REL(cal.train[1].model_step_us, p2.t.step_us, 1e-6);
        nvs_model_point q;
        T_EQ_I(nvs_model_eval(&cal.cfg, 1, 2, &q, err, sizeof err), NVS_OK);
        T_EQ_I(q.transport, net ? NVS_TR_NET : NVS_TR_NVLINK);
        T_EQ_I(cal.net_local, local);
        T_EQ_I(cal.cfg.shm_disabled, local);
        if (local) {
            /* the sockets of nvlink-2gpu: 3.4 GB/s, 118 us a step */
            REL(cal.links[0].latency_us, c.machine.coll_base_us + 2 * c.machine.net_local_hop_us, 1e-9);
            REL(cal.links[0].preset_gbps, c.machine.net_local_gbps, 1e-9);
            T_ASSERT(isfinite(cal.train[1].preset_step_us));
            T_EQ_I(cal.cfg.p2p_disabled, 1);
        } else if (net) {
            REL(cal.links[0].latency_us + 1, 1, 1e-12);
            T_ASSERT(!isfinite(cal.links[0].preset_gbps) && !isfinite(cal.train[1].preset_step_us));
        } else {
            REL(cal.links[0].latency_us, c.machine.coll_base_us + 2 * rl.alpha_us, 1e-9);
            REL(cal.links[0].preset_gbps, rl.gbps, 1e-9);
            T_ASSERT(isfinite(cal.train[1].preset_step_us));
        }
        nvs_calibration_free(&cal);
    }
    nvs_profile_free(&prof);
    nvs_presets_free(&ps);
}

/* The transports as the run.json gives them, odd or not: a long key before NET still marks the ring NET, a key
 * outside printable ASCII is shown as '?', two entries of one N are one; an N over NET with no comm time measured
 * is not modelled (no row) rather than modelled over the preset's NVLink. */
static void t_transports_odd(void)
{
    json_error_t je;
    json_t *root = json_load_file("tests/fixtures/model/h200x2_net_three_fp32.json", 0, &je);
    T_ASSERT(root != NULL);
    char longkey[80];
    memset(longkey, 'X', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    json_t *tr = json_pack("[{s:i, s:{s:i, s:i}}, {s:i, s:{s:i}}]", "n", 2, "summary", longkey, 1, "NET", 12, "n", 2,
                           "summary", "P\x01\xc3\xa9", 3);
    T_ASSERT(tr != NULL);
    json_object_set_new(root, "transports", tr);
    json_t *trains = json_object_get(root, "trains");
    for (size_t i = 0; i < json_array_size(trains); i++)
        json_object_del(json_array_get(json_object_get(json_array_get(trains, i), "results"), 1), "comm_us");
    json_object_del(json_array_get(json_object_get(json_object_get(root, "train"), "results"), 1), "comm_us");
    const char *path = "tests/tmp/test_model_calib_odd.json";
    mkdir("tests/tmp", 0755);
    T_EQ_I(json_dump_file(root, path, 0), 0);
    json_decref(root);
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    nvs_calibration cal;
    nvs_calib_opts o = {NULL, NULL, NULL, 0};
    if (nvs_calibrate(path, &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("calibrate: %s", err);
    T_EQ_I(cal.ntr, 1);
    T_EQ_I(cal.tr[0].net, 1);
    for (const char *c = cal.tr[0].label; *c; c++) T_ASSERT(*c >= 0x20 && *c < 0x7f);
    T_EQ_I(cal.nlinks, 0);
    T_EQ_I(cal.ntrain, 1); /* N=1 only */
    T_EQ_I(cal.train[0].n, 1);
    /* ... and N=2 is said to be left out, with the reason (the gate of --tolerance fails on it) */
    T_EQ_I(cal.nskip, 1);
    T_EQ_I(cal.skip[0].n, 2);
    T_ASSERT(strstr(cal.skip[0].why, "network transport") != NULL);
    nvs_calibration_free(&cal);
    nvs_presets_free(&ps);
}

/* CollNet (run.json summary key COLLNET, beside NET): the calibration took it for an unknown word, its label
 * "NET/IB/0+COLLNET" and nothing said that the model has no bound of its own for CollNet's in-network reduction */
static void t_transports_collnet(void)
{
    json_error_t je;
    json_t *root = json_load_file("tests/fixtures/model/h200x2_net_three_fp32.json", 0, &je);
    T_ASSERT(root != NULL);
    json_t *tr = json_pack("[{s:i, s:{s:i, s:i}, s:[{s:s, s:s}, {s:s, s:s}]}]", "n", 2, "summary", "NET", 4,
                           "COLLNET", 2, "channels", "transport", "NET", "detail", "NET/IB/0", "transport", "COLLNET",
                           "detail", "COLLNET/SHARP/0/GDRDMA");
    T_ASSERT(tr != NULL);
    json_object_set_new(root, "transports", tr);
    const char *path = "tests/tmp/test_model_calib_collnet.json";
    mkdir("tests/tmp", 0755);
    T_EQ_I(json_dump_file(root, path, 0), 0);
    json_decref(root);
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    nvs_calibration cal;
    nvs_calib_opts o = {NULL, NULL, NULL, 0};
    if (nvs_calibrate(path, &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("calibrate: %s", err);
    T_EQ_I(cal.ntr, 1);
    T_EQ_I(cal.tr[0].net, 1);
    T_EQ_I(cal.tr[0].collnet, 1);
    T_EQ_S(cal.tr[0].label, "NET/IB/0+COLLNET/SHARP/0/GDRDMA");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    T_ASSERT(f != NULL);
    nvs_model_print_calibration(f, &ps, &cal);
    fclose(f);
    T_CONTAINS(text, "at N=2 NCCL also used CollNet (in-network reduction");
    T_CONTAINS(text, "the model has no bound of its own for CollNet");
    free(text);
    json_t *j = nvs_model_json_calibration(&ps, &cal);
    T_ASSERT(j != NULL);
    T_ASSERT(json_is_true(json_object_get(json_array_get(json_object_get(j, "nccl_transports"), 0), "collnet")));
    json_decref(j);
    nvs_calibration_free(&cal);
    nvs_presets_free(&ps);
}

/* The host's lane as the run's host did it: host_scale = the run's issue time of its step at one GPU / the
 * framework's modelled host work. Twice the issue time gives twice the scale; a run without the GPU's own time
 * measured apart (ideal_compute_us) gets none (its compute scale was fitted through the host lane), nor does a
 * step bound by the GPU. */
static double host_scale_of(json_t *root, double issue_factor, int drop_ideal, int *measured)
{
    json_t *trains = json_object_get(root, "trains");
    for (size_t i = 0; i < json_array_size(trains); i++) {
        json_t *t = json_array_get(trains, i);
        if (strcmp(json_string_value(json_object_get(t, "model")), "lm290m")) continue;
        json_t *r0 = json_array_get(json_object_get(t, "results"), 0);
        json_object_set_new(r0, "issue_us", json_real(json_number_value(json_object_get(r0, "issue_us")) * issue_factor));
        if (drop_ideal) json_object_del(r0, "ideal_compute_us");
    }
    const char *path = "tests/tmp/test_model_calib_host.json";
    mkdir("tests/tmp", 0755);
    if (json_dump_file(root, path, 0)) return NAN;
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    nvs_calibration cal;
    nvs_calib_opts o = {NULL, NULL, "lm290m", 0};
    if (nvs_calibrate(path, &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("calibrate: %s", err);
    double hs = cal.cfg.host_scale;
    *measured = cal.cfg.host_scale_measured;
    nvs_calibration_free(&cal);
    nvs_presets_free(&ps);
    return hs;
}

/* A host-bound step (lm290m bf16, the fixture's host lane) with an N=2 result added: the GPU computes beside the
 * all-reduces for less than the comm they hide, and the calibrated model pays what the run paid, whether the run
 * measured its interference (the share over the model's overlap) or not (the residual over it). */
static void t_interference_host_bound(void)
{
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    const char *fx = "tests/fixtures/model/h200x1_bf16_three_models.json", *path = "tests/tmp/test_model_calib_itf.json";
    nvs_calib_opts o = {"nvlink-2gpu", NULL, "lm290m", 0};
    nvs_calibration cal;
    if (nvs_calibrate(fx, &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("calibrate: %s", err);
    nvs_model_config c = cal.cfg;
    c.overlap_penalty = 0;
    nvs_model_point p0;
    T_EQ_I(nvs_model_eval(&c, 1, 2, &p0, err, sizeof err), NVS_OK);
    nvs_calibration_free(&cal);
    const double hidden = p0.t.comm_us - p0.t.exposed_us, itf = 500;
    T_ASSERT(p0.t.overlap_us > 0 && p0.t.overlap_us < 0.5 * hidden); /* the GPU waits for the host beside them */
    for (int measured = 0; measured <= 1; measured++) {
        json_error_t je;
        json_t *root = json_load_file(fx, 0, &je), *trains = json_object_get(root, "trains");
        T_ASSERT(root != NULL);
        for (size_t i = 0; i < json_array_size(trains); i++) {
            json_t *t = json_array_get(trains, i);
            if (strcmp(json_string_value(json_object_get(t, "model")), "lm290m")) continue;
            json_t *r = json_pack("{s:i, s:i, s:f, s:f, s:f, s:f, s:f}", "n", 2, "steps", 20, "step_us",
                                  p0.t.step_us + itf, "compute_us", p0.t.compute_us, "comm_us", p0.t.comm_us,
                                  "exposed_comm_us", p0.t.exposed_us, "efficiency", 0.9);
            if (measured) json_object_set_new(r, "interference_us", json_real(itf));
            json_array_append_new(json_object_get(t, "results"), r);
        }
        T_EQ_I(json_dump_file(root, path, 0), 0);
        json_decref(root);
        if (nvs_calibrate(path, &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("calibrate: %s", err);
        T_EQ_I(cal.cfg.overlap_measured, measured ? 2 : 1);
        T_ASSERT(cal.cfg.overlap_penalty > itf / hidden); /* over the overlap, not the hidden comm */
        int rows = 0;
        for (int i = 0; i < cal.ntrain; i++) {
            if (cal.train[i].n != 2) continue;
            rows++;
            REL(cal.train[i].model_step_us, p0.t.step_us + itf, 1e-3);
        }
        T_EQ_I(rows, 1);
        nvs_calibration_free(&cal);
    }
    nvs_presets_free(&ps);
}

/* A run whose profile has no trainable parameters (0 buckets) but a measured comm_us (timer noise: a host run
 * of `layer a gemm=64,64,64 act=4096 ew=1` read 0.39 us) at an N with a sweep: the per-call overhead is not
 * fitted from it (it divided by 0 buckets: per_call_us inf, "measured"), and the projection stays finite. */
static void t_no_buckets(void)
{
    const char *fx = "tests/fixtures/model/h200x2_nvlink_resnet50.json", *path = "tests/tmp/test_model_calib_nob.json",
               *prof = "tests/tmp/test_model_calib_nob.prof";
    FILE *f = fopen(prof, "w");
    T_ASSERT(f != NULL);
    fprintf(f, "nvscale-profile 1\nname nob\nsource \"test\"\nlayer a gemm=64,64,64 act=4096 ew=1\n");
    fclose(f);
    json_error_t je;
    json_t *root = json_load_file(fx, 0, &je), *t = json_object_get(root, "train");
    T_ASSERT(root && t);
    json_object_set_new(t, "model", json_string("nob"));
    json_object_set_new(t, "profile_file", json_string(prof));
    T_EQ_I(json_dump_file(root, path, 0), 0);
    json_decref(root);
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    nvs_calib_opts o = {NULL, NULL, NULL, 0};
    nvs_calibration cal;
    if (nvs_calibrate(path, &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("calibrate: %s", err);
    T_EQ_I(cal.has_per_call, 0);
    T_ASSERT(isfinite(cal.cfg.per_call_us));
    nvs_model_point p;
    T_EQ_I(nvs_model_eval(&cal.cfg, 1, 2, &p, err, sizeof err), NVS_OK);
    T_EQ_I(p.nbuckets, 0);
    T_ASSERT(isfinite(p.t.step_us) && p.t.step_us > 0);
    nvs_calibration_free(&cal);
    nvs_presets_free(&ps);
    remove(path);
    remove(prof);
}

static void t_host_scale(void)
{
    json_error_t je;
    const char *fx = "tests/fixtures/model/h200x1_bf16_three_models.json";
    json_t *a = json_load_file(fx, 0, &je), *b = json_load_file(fx, 0, &je), *c = json_load_file(fx, 0, &je);
    T_ASSERT(a && b && c);
    int m1 = 0, m2 = 0, m3 = 1;
    double h1 = host_scale_of(a, 1, 0, &m1), h2 = host_scale_of(b, 2, 0, &m2);
    host_scale_of(c, 1, 1, &m3);
    T_ASSERT(m1 && m2 && !m3);
    T_ASSERT(h1 > 0.5 && h1 < 2); /* the run's host did lm290m's work near the framework's numbers */
    REL(h2, 2 * h1, 1e-9);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    /* the same run's resnet50 was bound by the GPU (compute-only step 54.8 ms, the GPU alone 54.7): its issue
     * time is the launch queue's, and no scale is taken from it */
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    nvs_calibration cal;
    nvs_calib_opts o = {NULL, NULL, "resnet50", 0};
    if (nvs_calibrate(fx, &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("calibrate: %s", err);
    T_EQ_I(cal.cfg.host_scale_measured, 0);
    /* a run at one GPU says nothing of interference: the projection keeps the transports' shares */
    T_EQ_I(cal.has_overlap, 0);
    REL(cal.cfg.overlap_penalty, NVS_OVERLAP_BY_TRANSPORT, 0);
    nvs_calibration_free(&cal);
    nvs_presets_free(&ps);
}

/* The stated tolerance: after calibration the model reproduces a run's step time within 10% at every N it
 * measured (the training-step error table), on the committed fixtures. */
static void t_fixtures_within_tolerance(void)
{
    static const char *const runs[] = {"tests/fixtures/model/h200x2_nvlink_resnet50.json",
                                       "tests/fixtures/model/h200x2_shm_bert.json"};
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        nvs_calibration cal;
        nvs_calib_opts o = {NULL, NULL, NULL, 0};
        if (nvs_calibrate(runs[i], &ps, &o, &cal, err, sizeof err) != NVS_OK) T_FAIL("%s: %s", runs[i], err);
        T_EQ_S(cal.machine_preset, "nvlink-2gpu"); /* guessed from NV18 and 2 GPUs */
        T_ASSERT(cal.ntrain >= 2);
        for (int k = 0; k < cal.ntrain; k++)
            if (fabs(cal.train[k].model_step_us / cal.train[k].meas_step_us - 1) > 0.10)
                T_FAIL("%s N=%d: model %.0f us vs measured %.0f us", runs[i], cal.train[k].n,
                       cal.train[k].model_step_us, cal.train[k].meas_step_us);
        /* the SHM run was made with NCCL_P2P_DISABLE=1: seen, and the preset link is the SHM path */
        if (i == 1) {
            T_EQ_I(cal.p2p_disabled, 1);
            REL(cal.links[0].preset_gbps, 27.5, 1e-9);
        }
        nvs_calibration_free(&cal);
    }
    nvs_presets_free(&ps);
}

/* A run whose convolutions ran in cuDNN (train.conv.engine, results/h200x1-conv3) made no layout copies of its
 * own for them: the calibrated model has none either for layers with a geometry (conv_native), and still meets
 * its N=1 step; a run of implicit GEMMs keeps them. */
static void t_cudnn_run(void)
{
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    nvs_calibration cal;
    nvs_calib_opts o = {NULL, NULL, NULL, 0};
    if (nvs_calibrate("tests/fixtures/model/h200x1_bf16_resnet50_cudnn.json", &ps, &o, &cal, err, sizeof err) != NVS_OK)
        T_FAIL("%s", err);
    T_EQ_I(cal.cfg.conv_native, 1);
    T_ASSERT(cal.fw.nchw_copies_fwd > 1); /* the run's numbers, for conv=1 layers without a geometry */
    T_CONTAINS(cal.fw.source, "ran in cuDNN");
    T_ASSERT(cal.ntrain >= 1);
    if (fabs(cal.train[0].model_step_us / cal.train[0].meas_step_us - 1) > 0.05)
        T_FAIL("model %.0f us vs measured %.0f us", cal.train[0].model_step_us, cal.train[0].meas_step_us);
    nvs_calibration_free(&cal);
    nvs_calib_opts o2 = {NULL, NULL, "resnet50", 0};
    if (nvs_calibrate("tests/fixtures/model/h200x1_bf16_three_models.json", &ps, &o2, &cal, err, sizeof err) != NVS_OK)
        T_FAIL("%s", err);
    T_ASSERT(cal.fw.nchw_copies_fwd > 1);
    T_EQ_I(cal.cfg.conv_native, 0);
    /* a run made before autocast's weight casts and the foreach SGD came to the step had neither */
    T_EQ_I(cal.fw.weight_casts, 0);
    T_EQ_I(cal.fw.optimizer_foreach, 0);
    nvs_calibration_free(&cal);
    /* one made after: both, as its train.framework says (results/fidelity/n1-1gpu-casts, 1x H200) */
    nvs_calib_opts o3 = {NULL, NULL, "lm290m", 0};
    if (nvs_calibrate("results/fidelity/n1-1gpu-casts/raw/nvs-bf16-1/run.json", &ps, &o3, &cal, err, sizeof err) !=
        NVS_OK)
        T_FAIL("%s", err);
    T_EQ_I(cal.fw.weight_casts, 1);
    T_EQ_I(cal.fw.optimizer_foreach, 1);
    T_EQ_I(cal.fw.autocast_fp32, 0); /* made before autocast's fp32 tensors came to the step */
    nvs_calibration_free(&cal);
    /* and one made after those: all three (results/fidelity/n1-1gpu-f32, 1x H200) */
    if (nvs_calibrate("results/fidelity/n1-1gpu-f32/raw/nvs-bf16-1/run.json", &ps, &o3, &cal, err, sizeof err) != NVS_OK)
        T_FAIL("%s", err);
    T_EQ_I(cal.fw.weight_casts, 1);
    T_EQ_I(cal.fw.optimizer_foreach, 1);
    T_EQ_I(cal.fw.autocast_fp32, 1);
    T_EQ_I(cal.fw.bias_reduce, 0); /* made before the bias gradients ran in PyTorch's reduction kernel */
    T_EQ_I(cal.fw.view_copies, 0); /* and before the copies through views */
    nvs_calibration_free(&cal);
    /* the same run as if made after: its train.framework.bias_reduce is taken */
    json_error_t je;
    json_t *root = json_load_file("results/fidelity/n1-1gpu-f32/raw/nvs-bf16-1/run.json", 0, &je);
    T_ASSERT(root != NULL);
    json_t *trains = json_object_get(root, "trains"); /* lm290m is the second workload */
    T_ASSERT(json_array_size(trains) == 3);
    for (size_t i = 0; i < json_array_size(trains); i++) {
        json_t *fwj = json_object_get(json_array_get(trains, i), "framework");
        T_ASSERT(fwj != NULL);
        T_EQ_I(json_object_set_new(fwj, "bias_reduce", json_true()), 0);
        T_EQ_I(json_object_set_new(fwj, "view_copies", json_true()), 0);
    }
    const char *path = "tests/tmp/test_model_calib_bias_reduce.json";
    mkdir("tests/tmp", 0755);
    T_EQ_I(json_dump_file(root, path, 0), 0);
    json_decref(root);
    if (nvs_calibrate(path, &ps, &o3, &cal, err, sizeof err) != NVS_OK) T_FAIL("%s", err);
    T_EQ_I(cal.fw.bias_reduce, 1);
    T_EQ_I(cal.fw.view_copies, 1);
    nvs_calibration_free(&cal);
    nvs_presets_free(&ps);
}

static void t_bad_runs(void)
{
    nvs_presets ps;
    char err[1024] = "";
    builtin_presets(&ps);
    nvs_calibration cal;
    nvs_calib_opts o = {NULL, NULL, NULL, 0};
    mkdir("tests/tmp", 0755);
    /* nothing measured: said first, before the GPU preset the user would otherwise be asked for in vain */
    json_t *root = json_pack("{s:s, s:[{s:i, s:s}]}", "schema", "nvscale.run/1", "ranks", "rank", 0, "gpu",
                             "Tesla K80");
    T_EQ_I(json_dump_file(root, "tests/tmp/test_model_calib_k80.json", 0), 0);
    T_EQ_I(nvs_calibrate("tests/tmp/test_model_calib_k80.json", &ps, &o, &cal, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "nothing to calibrate");
    o.gpu = "rtx3090";
    T_EQ_I(nvs_calibrate("tests/tmp/test_model_calib_k80.json", &ps, &o, &cal, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "nothing to calibrate");
    o.gpu = NULL;
    /* a GPU with no preset, in a run with an all_reduce at 2 GPUs to calibrate */
    json_object_set_new(root, "collectives",
                        json_pack("[{s:s, s:s, s:s, s:i, s:i, s:i, s:{s:f}, s:f}]", "collective", "all_reduce", "type",
                                  "float", "op", "sum", "n", 2, "bytes", 1 << 20, "count", 1 << 18, "time_us", "max",
                                  40.0, "busbw_gbps", 26.2));
    T_EQ_I(json_dump_file(root, "tests/tmp/test_model_calib_k80.json", 0), 0);
    json_decref(root);
    T_EQ_I(nvs_calibrate("tests/tmp/test_model_calib_k80.json", &ps, &o, &cal, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "no GPU preset matches ranks[0].gpu \"Tesla K80\"");
    /* ... and says which GPU presets there are, so that the user can pick one with --gpu */
    T_CONTAINS(err, "GPU presets: rtx3090, rtx4090,");
    T_CONTAINS(err, "h200-sxm");
    /* unknown machine */
    o.machine = "no-such-box";
    T_EQ_I(nvs_calibrate("tests/fixtures/model/h200x2_nvlink_resnet50.json", &ps, &o, &cal, err, sizeof err),
           NVS_ERR_INPUT);
    T_CONTAINS(err, "unknown --machine 'no-such-box'");
    /* a machine with fewer GPUs than the run: the box3090 fixture ran 8 GPUs */
    o.machine = "nvlink-2gpu";
    T_EQ_I(nvs_calibrate("tests/fixtures/runs/box3090_8gpu_shm.json", &ps, &o, &cal, err, sizeof err),
           NVS_ERR_INPUT);
    T_CONTAINS(err, "the run has 8 GPUs; machine 'nvlink-2gpu' has 2");
    nvs_presets_free(&ps);
}

T_LIST = {
    T_CASE(t_fit_exact),
    T_CASE(t_fit_relative),
    T_CASE(t_round_trip),
    T_CASE(t_step_link),
    T_CASE(t_host_scale), T_CASE(t_interference_host_bound), T_CASE(t_no_buckets),
    T_CASE(t_transports_odd), T_CASE(t_transports_collnet),
    T_CASE(t_fixtures_within_tolerance),
    T_CASE(t_bad_runs), T_CASE(t_cudnn_run),
};
T_MAIN
