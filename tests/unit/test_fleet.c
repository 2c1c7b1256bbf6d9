/* The fleet view's pure core (fleet/fleet.c): medians, the outlier host, keys one run lacks, machines compared. */
#include <math.h>
#include <string.h>

#include "fleet/fleet.h"
#include "t.h"

static void t_outlier(void)
{
    nvs_fleet_samples s = {0};
    /* four hosts; node3 is 20 % below the others at 1 GiB; node2 alone measured 4 GiB */
    const char *hosts[] = {"node0", "node1", "node2", "node3"};
    const double v[] = {330, 327, 332, 264};
    for (int r = 0; r < 4; r++) T_EQ_I(nvs_fleet_add(&s, "busbw all_reduce 1 GiB n=8", "GB/s", r, hosts[r], v[r]), 0);
    T_EQ_I(nvs_fleet_add(&s, "busbw all_reduce 4 GiB n=8", "GB/s", 2, "node2", 340), 0);
    T_EQ_I(nvs_fleet_add(&s, "p2p slowest pair", "GB/s", 0, "node0", NAN), 0); /* not measured: not a sample */
    T_EQ_U(s.n, 5);
    nvs_fleet_findings f;
    T_EQ_I(nvs_fleet_judge(&s, 10, &f), 0);
    T_EQ_U(f.n, 4); /* the 4 GiB key has one run: nothing to compare */
    T_EQ_U(f.outliers, 1);
    T_NEAR(f.v[0].median, (327 + 330) / 2.0, 1e-9);
    T_EQ_I(f.v[3].outlier, 1);
    T_EQ_S(f.v[3].sample->host, "node3");
    T_NEAR(f.v[3].below_pct, (328.5 - 264) / 328.5 * 100, 1e-9);
    T_EQ_I(f.v[2].outlier, 0);
    T_ASSERT(f.v[2].below_pct < 0); /* above the median */
    nvs_fleet_findings_free(&f);
    /* a looser limit: no outlier */
    T_EQ_I(nvs_fleet_judge(&s, 25, &f), 0);
    T_EQ_U(f.outliers, 0);
    nvs_fleet_findings_free(&f);
    nvs_fleet_samples_free(&s);
}

static void t_machines(void)
{
    char why[256];
    nvs_fleet_machine a = {"n0", "NVIDIA H200", 2, "nccl", "NV18 NV18", ""}, b = a;
    T_EQ_I(nvs_fleet_machines_differ(&a, &b, why, sizeof why), 0);
    T_EQ_S(why, "");
    b.gpu_name = "NVIDIA H100 80GB HBM3";
    snprintf(b.classes, sizeof b.classes, "PHB PHB");
    T_EQ_I(nvs_fleet_machines_differ(&a, &b, why, sizeof why), 1);
    T_EQ_S(why, "GPU NVIDIA H200 vs NVIDIA H100 80GB HBM3; topology NV18 NV18 vs PHB PHB");
    b = a;
    b.ngpus = 8;
    b.backend = "mpi";
    T_EQ_I(nvs_fleet_machines_differ(&a, &b, why, sizeof why), 1);
    T_EQ_S(why, "GPUs 2 vs 8; backend nccl vs mpi");
    b = a;
    b.gpu_name = NULL; /* unknown is not compared */
    b.classes[0] = '\0';
    T_EQ_I(nvs_fleet_machines_differ(&a, &b, why, sizeof why), 0);
    snprintf(b.settings, sizeof b.settings, "NCCL_P2P_DISABLE=1");
    T_EQ_I(nvs_fleet_machines_differ(&a, &b, why, sizeof why), 1);
    T_EQ_S(why, "NCCL settings none vs NCCL_P2P_DISABLE=1");
}

/* a run of host H: all_reduce busbw at 256 MiB and 1 GiB (only `big` has 4 GiB), a p2p pair, a host copy */
static json_t *run_doc(const char *host, double busbw_1g, int big, double uni, double h2d)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"schema\": \"nvscale.run/1\", \"host\": \"%s\", \"command\": {\"backend\": \"nccl\"},"
             " \"topology\": {\"gpus\": [{\"index\": 0, \"name\": \"NVIDIA H200\"}, {\"index\": 1, \"name\": \"NVIDIA H200\"}],"
             "  \"pairs\": [{\"a\": 0, \"b\": 1, \"class\": \"NV18\"}]},"
             " \"collectives\": ["
             "  {\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 268435456, \"inplace\": false, \"busbw_gbps\": 300},"
             "  {\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1073741824, \"inplace\": false, \"busbw_gbps\": %g},"
             "  {\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1073741824, \"inplace\": true, \"busbw_gbps\": 1}%s],"
             " \"p2p\": {\"pairs\": [{\"src\": 0, \"dst\": 1, \"path\": \"P2P\", \"uni_gbps\": %g, \"bidir_gbps\": 700}],"
             "  \"host_copies\": {\"gpus\": [{\"gpu\": 0, \"single\": {\"h2d_gbps\": %g, \"d2h_gbps\": 50}}]}}}",
             host, busbw_1g,
             big ? ", {\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 4294967296, \"inplace\": false, \"busbw_gbps\": 340}" : "",
             uni, h2d);
    return json_loads(text, 0, NULL);
}

static void t_collect(void)
{
    nvs_run runs[3];
    const nvs_run *rp[3];
    const char *hosts[] = {"a", "b", "c"};
    double bw[] = {330, 328, 250}, uni[] = {395, 394, 396}, h2d[] = {55, 30, 54};
    char err[256];
    for (int i = 0; i < 3; i++) {
        json_t *d = run_doc(hosts[i], bw[i], i == 1, uni[i], h2d[i]);
        T_ASSERT(d);
        if (nvs_run_from_json(d, hosts[i], 0, &runs[i], err, sizeof err) != NVS_OK) T_FAIL("%s", err);
        json_decref(d);
        rp[i] = &runs[i];
    }
    nvs_fleet_samples s;
    T_EQ_I(nvs_fleet_collect(rp, 3, &s), 0);
    /* 1 GiB is the largest size all three have (4 GiB only b): 3 busbw samples, out-of-place */
    int n1g = 0;
    for (size_t i = 0; i < s.n; i++) {
        T_ASSERT(!strstr(s.v[i].key, "4 GiB") && !strstr(s.v[i].key, "256 MiB"));
        if (!strcmp(s.v[i].key, "busbw all_reduce 1 GiB n=2")) {
            n1g++;
            T_ASSERT(s.v[i].value > 100); /* not the in-place row */
        }
    }
    T_EQ_I(n1g, 3);
    nvs_fleet_findings f;
    T_EQ_I(nvs_fleet_judge(&s, 10, &f), 0);
    T_EQ_U(f.outliers, 2); /* c's all_reduce, b's host copies */
    for (size_t i = 0; i < f.n; i++)
        if (f.v[i].outlier)
            T_ASSERT((!strcmp(f.v[i].sample->host, "c") && strstr(f.v[i].sample->key, "busbw")) ||
                     (!strcmp(f.v[i].sample->host, "b") && strstr(f.v[i].sample->key, "host h2d")));
    nvs_fleet_findings_free(&f);
    nvs_fleet_samples_free(&s);
    nvs_fleet_machine m;
    nvs_fleet_machine_of(&runs[0], &m);
    T_EQ_S(m.gpu_name, "NVIDIA H200");
    T_EQ_S(m.classes, "NV18");
    T_EQ_I(m.ngpus, 2);
    for (int i = 0; i < 3; i++) nvs_run_free(&runs[i]);
}

/* A run whose all_reduce at 1 GiB, GPU pair and host copy came back with wrong data: those bandwidths mean nothing,
 * so they are no samples (they sat in the median and got a fleet PASS of their own; the run's result row fails) */
static void t_wrong_left_out(void)
{
    nvs_run runs[3];
    const nvs_run *rp[3];
    const char *hosts[] = {"a", "b", "c"};
    char err[256];
    for (int i = 0; i < 3; i++) {
        json_t *d = run_doc(hosts[i], 330, 0, 395, 55);
        T_ASSERT(d);
        if (i == 2) {
            json_t *p2p = json_object_get(d, "p2p");
            json_object_set_new(json_array_get(json_object_get(d, "collectives"), 1), "wrong", json_integer(5));
            json_object_set_new(json_array_get(json_object_get(p2p, "pairs"), 0), "wrong", json_integer(3));
            json_object_set_new(json_object_get(json_array_get(json_object_get(json_object_get(p2p, "host_copies"),
                                                                                 "gpus"), 0), "single"),
                                "wrong", json_integer(2));
        }
        if (nvs_run_from_json(d, hosts[i], 0, &runs[i], err, sizeof err) != NVS_OK) T_FAIL("%s", err);
        json_decref(d);
        rp[i] = &runs[i];
    }
    nvs_fleet_samples s;
    T_EQ_I(nvs_fleet_collect(rp, 3, &s), 0);
    int n1g = 0;
    for (size_t i = 0; i < s.n; i++) {
        if (!strcmp(s.v[i].key, "busbw all_reduce 1 GiB n=2")) n1g++;
        if (!strcmp(s.v[i].host, "c"))
            T_ASSERT(!strstr(s.v[i].key, "busbw") && !strstr(s.v[i].key, "p2p") && !strstr(s.v[i].key, "host h2d"));
    }
    T_EQ_I(n1g, 2); /* a and b: still compared with each other, at the size all three measured */
    nvs_fleet_samples_free(&s);
    for (int i = 0; i < 3; i++) nvs_run_free(&runs[i]);
}

/* Two runs of one machine whose environments list the same NCCL settings in another order (the order of the
 * launcher's environ): the same machine, the settings said in one order (was "NCCL settings A=0 B=1 vs B=1 A=0") */
static void t_settings_order(void)
{
    const char *doc[2] = {
        "{\"schema\": \"nvscale.run/1\", \"env\": {\"NCCL_NVLS_ENABLE\": \"0\", \"NCCL_DEBUG\": \"INFO\","
        " \"NCCL_VERSION\": \"2.28.3-1\"}}",
        "{\"schema\": \"nvscale.run/1\", \"env\": {\"NCCL_VERSION\": \"2.28.3-1\", \"NCCL_NVLS_ENABLE\": \"0\"}}"};
    nvs_run runs[2];
    nvs_fleet_machine m[2];
    char err[256], why[256];
    for (int i = 0; i < 2; i++) {
        json_t *d = json_loads(doc[i], 0, NULL);
        T_ASSERT(d);
        if (nvs_run_from_json(d, "r", 0, &runs[i], err, sizeof err) != NVS_OK) T_FAIL("%s", err);
        json_decref(d);
        nvs_fleet_machine_of(&runs[i], &m[i]);
    }
    T_EQ_S(m[0].settings, "NCCL_NVLS_ENABLE=0 NCCL_VERSION=2.28.3-1");
    T_EQ_S(m[1].settings, m[0].settings);
    T_EQ_I(nvs_fleet_machines_differ(&m[0], &m[1], why, sizeof why), 0);
    for (int i = 0; i < 2; i++) nvs_run_free(&runs[i]);
}

/* A 2-host run (node1: ranks 0-1, node2: ranks 2-3): a value measured at N=2 (ranks 0-1) is node1's, at N=4 both
 * hosts', the slowest pair's and GPU's their own host's; rank 0's host alone was blamed for all of them */
static void t_multi_host(void)
{
    const char *doc =
        "{\"schema\": \"nvscale.run/1\", \"host\": \"node1\","
        " \"ranks\": [{\"rank\": 0, \"host\": \"node1\"}, {\"rank\": 1, \"host\": \"node1\"},"
        "  {\"rank\": 2, \"host\": \"node2\"}, {\"rank\": 3, \"host\": \"node2\"}],"
        " \"scaling\": [{\"n\": 2, \"ranks\": [0, 1]}, {\"n\": 4, \"ranks\": [0, 1, 2, 3]}],"
        " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1048576, \"busbw_gbps\": 300},"
        "  {\"collective\": \"all_reduce\", \"n\": 4, \"bytes\": 1048576, \"busbw_gbps\": 40}],"
        " \"p2p\": {\"pairs\": [{\"src\": 0, \"dst\": 1, \"host\": \"node1\", \"uni_gbps\": 390, \"bidir_gbps\": 700},"
        "  {\"src\": 2, \"dst\": 3, \"host\": \"node2\", \"uni_gbps\": 380, \"bidir_gbps\": 710}],"
        "  \"host_copies\": {\"gpus\": [{\"gpu\": 0, \"host\": \"node1\", \"single\": {\"h2d_gbps\": 55, \"d2h_gbps\": 40}},"
        "   {\"gpu\": 2, \"host\": \"node2\", \"single\": {\"h2d_gbps\": 50, \"d2h_gbps\": 52}}]}}}";
    nvs_run r;
    char err[256], buf[64];
    json_t *d = json_loads(doc, 0, NULL);
    T_ASSERT(d);
    if (nvs_run_from_json(d, "r", 0, &r, err, sizeof err) != NVS_OK) T_FAIL("%s", err);
    json_decref(d);
    T_EQ_S(nvs_fleet_hosts_of(&r, NULL, 0, buf, sizeof buf), "node1+node2");
    int lo[] = {1, 0};
    T_EQ_S(nvs_fleet_hosts_of(&r, lo, 2, buf, sizeof buf), "node1");
    T_EQ_S(nvs_fleet_hosts_of(&r, NULL, 0, buf, 10), "node1+..."); /* cut where the room ends, and says so */
    T_EQ_S(nvs_fleet_hosts_of(&r, NULL, 0, buf, 6), "...");
    const nvs_run *rp[] = {&r};
    nvs_fleet_samples s;
    T_EQ_I(nvs_fleet_collect(rp, 1, &s), 0);
    const char *want[][2] = {{"busbw all_reduce 1 MiB n=2", "node1"}, {"busbw all_reduce 1 MiB n=4", "node1+node2"},
                             {"p2p uni, slowest pair", "node2"},      {"p2p bidir, slowest pair", "node1"},
                             {"host h2d, slowest GPU", "node2"},      {"host d2h, slowest GPU", "node1"}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        int found = 0;
        for (size_t i = 0; i < s.n; i++)
            if (!strcmp(s.v[i].key, want[k][0])) {
                found = 1;
                T_EQ_S(s.v[i].host, want[k][1]);
            }
        T_ASSERT(found);
    }
    nvs_fleet_samples_free(&s);
    nvs_run_free(&r);
}

/* Training efficiency in the fleet: a run of --gpus 2,4 is relative to its N=2 step, and its N=2 is its own
 * reference (100 %, no scaling). That 100 % was a sample: with two such runs beside one that scaled from 1 GPU
 * (88 % at N=2) the median was 100 % and the run that measured scaling was named 12 % below it (FAIL); and its
 * step(2)/step(4) shared the key of the others' step(1)/step(4). */
static void t_efficiency_reference(void)
{
    static nvs_run_train_result from1[2], from2[3][2];
    from1[0] = (nvs_run_train_result){.n = 2, .efficiency = 0.88, .reference_n = 1};
    from1[1] = (nvs_run_train_result){.n = 4, .efficiency = 0.80, .reference_n = 1};
    nvs_run runs[3];
    const nvs_run *rp[3];
    memset(runs, 0, sizeof runs);
    const char *hosts[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        runs[i].host = hosts[i];
        runs[i].train.present = 1;
        runs[i].train.model = "resnet50";
        if (i == 0) {
            runs[i].train.results = from1;
        } else {
            from2[i][0] = (nvs_run_train_result){.n = 2, .efficiency = 1.0, .reference_n = 2};
            from2[i][1] = (nvs_run_train_result){.n = 4, .efficiency = 0.91, .reference_n = 2};
            runs[i].train.results = from2[i];
        }
        runs[i].train.nresults = 2;
        rp[i] = &runs[i];
    }
    nvs_fleet_samples s;
    T_EQ_I(nvs_fleet_collect(rp, 3, &s), 0);
    int n2 = 0, n4 = 0, n4ref2 = 0;
    for (size_t i = 0; i < s.n; i++) {
        n2 += !strncmp(s.v[i].key, "efficiency resnet50 n=2", 23);
        n4 += !strcmp(s.v[i].key, "efficiency resnet50 n=4");
        n4ref2 += !strcmp(s.v[i].key, "efficiency resnet50 n=4 (vs n=2)");
    }
    T_EQ_I(n2, 1);     /* a's 88 % only: b's and c's N=2 is their reference */
    T_EQ_I(n4, 1);     /* a's step(1)/step(4) */
    T_EQ_I(n4ref2, 2); /* b's and c's step(2)/step(4), compared with each other */
    nvs_fleet_findings f;
    T_EQ_I(nvs_fleet_judge(&s, 10, &f), 0);
    T_EQ_U(f.outliers, 0);
    nvs_fleet_findings_free(&f);
    nvs_fleet_samples_free(&s);
}

/* Runs of one (type, op) each, but not the same one, or one of --inplace in: their busbw at 1 GiB is not one
 * measurement (a double sum against a float sum, an in-place row against out-of-place ones); they shared the key
 * "busbw all_reduce 1 GiB n=2", and the odd run was named a host below its peers */
static void t_unlike_rows(void)
{
    const char *fmt = "{\"schema\": \"nvscale.run/1\", \"host\": \"%s\", \"collectives\": ["
                      "{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1073741824, \"type\": \"%s\","
                      " \"op\": \"sum\", \"inplace\": %s, \"busbw_gbps\": %g}]}";
    const char *hosts[] = {"a", "b", "c", "d"}, *types[] = {"float", "float", "double", "float"};
    const char *inplace[] = {"false", "false", "false", "true"};
    double bw[] = {330, 328, 250, 240};
    nvs_run runs[4];
    const nvs_run *rp[4];
    char text[1024], err[256];
    for (int i = 0; i < 4; i++) {
        snprintf(text, sizeof text, fmt, hosts[i], types[i], inplace[i], bw[i]);
        json_t *d = json_loads(text, 0, NULL);
        T_ASSERT(d);
        if (nvs_run_from_json(d, hosts[i], 0, &runs[i], err, sizeof err) != NVS_OK) T_FAIL("%s", err);
        json_decref(d);
        rp[i] = &runs[i];
    }
    nvs_fleet_samples s;
    T_EQ_I(nvs_fleet_collect(rp, 4, &s), 0);
    const char *want[] = {"busbw all_reduce 1 GiB n=2 (float sum)", "busbw all_reduce 1 GiB n=2 (float sum)",
                          "busbw all_reduce 1 GiB n=2 (double sum)", "busbw all_reduce 1 GiB n=2 (float sum) in-place"};
    int found = 0;
    for (size_t i = 0; i < s.n; i++)
        if (strstr(s.v[i].key, "busbw")) {
            T_EQ_S(s.v[i].key, want[s.v[i].run]);
            found++;
        }
    T_EQ_I(found, 4);
    nvs_fleet_findings f;
    T_EQ_I(nvs_fleet_judge(&s, 10, &f), 0);
    T_EQ_U(f.n, 2);        /* a and b, the two float sum out-of-place runs */
    T_EQ_U(f.outliers, 0); /* c and d are not hosts below their peers */
    nvs_fleet_findings_free(&f);
    nvs_fleet_samples_free(&s);
    for (int i = 0; i < 4; i++) nvs_run_free(&runs[i]);
}

T_LIST = {T_CASE(t_outlier), T_CASE(t_machines), T_CASE(t_collect), T_CASE(t_wrong_left_out), T_CASE(t_settings_order),
          T_CASE(t_multi_host), T_CASE(t_efficiency_reference),
          T_CASE(t_unlike_rows)};
T_MAIN
