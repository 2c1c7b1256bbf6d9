/* p2p results against the topology's bounds (topo/p2p_report.c): JSON, % of bound, the matrices, bidir's halves
 * both ways, the table and the CSV; host copies (topo/h2d_report.c): the same. */
#include <math.h>
#include <string.h>

#include "topo/h2d.h"
#include "topo/p2p.h"
#include "t.h"

static nvs_topology *load(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/topo/%s", name);
    nvs_topology *t = NULL;
    if (nvs_topo_discover(path, &t) != NVS_OK) T_FAIL("cannot load %s", path);
    return t;
}

/* what F holds (it is closed), NUL-terminated in BUF */
static void read_all(FILE *f, char *buf, size_t len)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static void t_json_and_bounds(void)
{
    nvs_topology *t = load("nvlink_pairs.xml");
    nvs_p2p_pair pairs[] = {
        {0, 1, 0, 1, "P2P", 80.0, 150.0, 2.5, 75.0, 75.0, 0}, /* NV4: bound 4 x 25 GB/s */
        {0, 2, 0, 2, "host", 20.0, 30.0, 9.0, 14.0, 16.0, 0}, /* no P2P: host memory, gen4 x16 */
        {2, 0, 2, 0, "host", -1, -1, -1, -1, -1, -1},         /* not measured: nulls, not zeros */
        {1, 0, 1, 0, "P2P", 80.0, 150.0, 2.5, 75.0, 75.0, 7},
    };
    nvs_p2p_result r = {256u << 20, 20, 5, 3, 1000, 4, pairs};
    T_EQ_I(nvs_p2p_wrong_total(&r), 7);
    json_t *j = nvs_p2p_to_json(t, &r);
    const json_t *ps = json_object_get(j, "pairs"), *p0 = json_array_get(ps, 0), *p1 = json_array_get(ps, 1),
                 *p2 = json_array_get(ps, 2);
    T_EQ_S(json_string_value(json_object_get(p0, "class")), "NV4");
    T_NEAR(json_real_value(json_object_get(p0, "bound_gbps")), 100.0, 1e-9);
    T_NEAR(json_real_value(json_object_get(p0, "pct_of_bound")), 80.0, 1e-9);
    T_NEAR(json_real_value(json_object_get(p0, "bidir_pct_of_bound")), 75.0, 1e-9);
    T_EQ_S(json_string_value(json_object_get(p0, "bound_link")), "NVLink");
    T_EQ_S(json_string_value(json_object_get(p1, "bound_link")), "host memory");
    T_NEAR(json_real_value(json_object_get(p1, "pct_of_bound")), 100.0 * 20.0 / 31.507692, 1e-4);
    T_EQ_I(json_is_null(json_object_get(p2, "uni_gbps")), 1);
    T_EQ_I(json_is_null(json_object_get(p2, "pct_of_bound")), 1);
    T_EQ_I(json_is_null(json_object_get(p2, "wrong")), 1);
    T_EQ_I(json_integer_value(json_object_get(j, "copy_bytes")), 256 << 20);
    /* and back */
    nvs_p2p_result back;
    char err[128];
    T_EQ_I(nvs_p2p_from_json(j, &back, err, sizeof err), NVS_OK);
    T_EQ_I(back.npairs, 4);
    T_EQ_S(back.pairs[1].path, "host");
    T_NEAR(back.pairs[0].bidir_gbps, 150.0, 1e-12);
    T_EQ_I(back.pairs[2].wrong, -1);
    T_EQ_I(nvs_p2p_wrong_total(&back), 7);
    nvs_p2p_result_free(&back);
    json_decref(j);
    j = json_loads("{\"pairs\": [{\"src\": 0}]}", 0, NULL);
    T_EQ_I(nvs_p2p_from_json(j, &back, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "pairs[0]");
    json_decref(j);

    /* the screen: a matrix cell per ordered pair, the bound and its source */
    FILE *f = tmpfile();
    if (!f) T_SKIP("no tmpfile");
    nvs_p2p_print(t, &r, f);
    static char buf[16384];
    read_all(f, buf, sizeof buf);
    T_CONTAINS(buf, "Unidirectional copy bandwidth (GB/s)");
    T_CONTAINS(buf, "0->1       P2P   NV4         80.0     100.0    80.0");
    T_CONTAINS(buf, "GPU0-GPU1: 4 NVLink links x 25 GB/s per direction");
    T_CONTAINS(buf, "2->0       host  SYS            -      31.5       -         -       -  -                        - -");
    T_CONTAINS(buf, "host memory");
    nvs_topo_free(t);
}

/* bidir is each direction timed while the other ran (topo/h2d.c): both halves go to run.json, come back, and show
 * on screen and in the CSV beside their sum; a run.json written before them reads as not measured */
static void t_h2d_bidir_halves(void)
{
    nvs_topology *t = load("nvlink_pairs.xml");
    nvs_h2d_gpu g = {0};
    g.gpu = 0;
    g.gpu_numa = 0;
    for (int m = 0; m < NVS_H2D_MODES; m++) {
        nvs_h2d_mode x = {-1, -1, -1, -1, -1, -1, -1};
        g.mode[m] = x;
    }
    nvs_h2d_mode single = {0, 37.9, 41.9, 57.7, 22.5, 35.2, 0};
    g.mode[NVS_H2D_SINGLE] = single;
    nvs_h2d_result r = {256u << 20, 20, 5, 3, "hwloc membind", 1, &g};
    json_t *j = nvs_h2d_to_json(t, &r);
    const json_t *s0 = json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "single");
    T_NEAR(json_real_value(json_object_get(s0, "bidir_h2d_gbps")), 22.5, 1e-12);
    T_NEAR(json_real_value(json_object_get(s0, "bidir_d2h_gbps")), 35.2, 1e-12);
    T_NEAR(json_real_value(json_object_get(s0, "bidir_gbps")), 57.7, 1e-12);
    nvs_h2d_result back;
    char err[128];
    T_EQ_I(nvs_h2d_from_json(j, t, &back, err, sizeof err), NVS_OK);
    T_NEAR(back.gpus[0].mode[NVS_H2D_SINGLE].bidir_h2d_gbps, 22.5, 1e-12);
    T_NEAR(back.gpus[0].mode[NVS_H2D_SINGLE].bidir_d2h_gbps, 35.2, 1e-12);
    nvs_h2d_result_free(&back);
    json_t *s0w = json_object_get(json_array_get(json_object_get(j, "gpus"), 0), "single");
    json_object_del(s0w, "bidir_h2d_gbps");
    json_object_del(s0w, "bidir_d2h_gbps");
    T_EQ_I(nvs_h2d_from_json(j, t, &back, err, sizeof err), NVS_OK);
    T_NEAR(back.gpus[0].mode[NVS_H2D_SINGLE].bidir_h2d_gbps, -1, 0);
    T_NEAR(back.gpus[0].mode[NVS_H2D_SINGLE].bidir_gbps, 57.7, 1e-12);
    static char buf[8192];
    FILE *f = tmpfile();
    if (!f) T_SKIP("no tmpfile");
    nvs_h2d_print(t, &back, f); /* an older run: no halves, a dash */
    read_all(f, buf, sizeof buf);
    T_CONTAINS(buf, "= h->G + G->h");
    T_ASSERT(!strstr(buf, " + ") || strstr(buf, " + ") == strstr(buf, "= h->G + G->h") + 6); /* the header's only */
    nvs_h2d_result_free(&back);
    json_decref(j);
    if (!(f = tmpfile())) T_SKIP("no tmpfile");
    nvs_h2d_print(t, &r, f);
    read_all(f, buf, sizeof buf);
    T_CONTAINS(buf, "= h->G + G->h");
    T_CONTAINS(buf, "22.5 + 35.2");
    if (!(f = tmpfile())) T_SKIP("no tmpfile");
    nvs_h2d_print_csv(t, &r, f);
    read_all(f, buf, sizeof buf);
    T_CONTAINS(buf, "gpu,mode,numa_node,h2d_gbps,d2h_gbps,bidir_gbps,bound_gbps,wrong,bidir_h2d_gbps,bidir_d2h_gbps\n");
    T_CONTAINS(buf, ",0,22.500,35.200\n");
    nvs_topo_free(t);
}

/* a GPU pair's bidir is each direction timed to its own end, summed (topo/p2p.c, time_bidir): both halves go to
 * run.json, come back, and show on screen and at the end of each CSV row; a run.json written before them reads as
 * not measured */
static void t_p2p_bidir_halves(void)
{
    nvs_topology *t = load("nvlink_pairs.xml");
    nvs_p2p_pair pairs[] = {
        {0, 2, 0, 2, "host", 20.0, 30.5, 9.0, 12.3, 18.2, 0}, /* staged: the directions differ */
        {2, 0, 2, 0, "host", -1, -1, -1, -1, -1, -1},
    };
    nvs_p2p_result r = {256u << 20, 20, 5, 3, 1000, 2, pairs};
    json_t *j = nvs_p2p_to_json(t, &r);
    json_t *p0 = json_array_get(json_object_get(j, "pairs"), 0), *p1 = json_array_get(json_object_get(j, "pairs"), 1);
    T_NEAR(json_real_value(json_object_get(p0, "bidir_fwd_gbps")), 12.3, 1e-12);
    T_NEAR(json_real_value(json_object_get(p0, "bidir_rev_gbps")), 18.2, 1e-12);
    T_NEAR(json_real_value(json_object_get(p0, "bidir_gbps")), 30.5, 1e-12);
    T_EQ_I(json_is_null(json_object_get(p1, "bidir_fwd_gbps")), 1); /* not measured: null, not 0 */
    T_EQ_I(json_is_null(json_object_get(p1, "bidir_rev_gbps")), 1);
    nvs_p2p_result back;
    char err[128];
    T_EQ_I(nvs_p2p_from_json(j, &back, err, sizeof err), NVS_OK);
    T_NEAR(back.pairs[0].bidir_fwd_gbps, 12.3, 1e-12);
    T_NEAR(back.pairs[0].bidir_rev_gbps, 18.2, 1e-12);
    T_NEAR(back.pairs[1].bidir_fwd_gbps, -1, 0);
    T_NEAR(back.pairs[1].bidir_rev_gbps, -1, 0);
    nvs_p2p_result_free(&back);
    /* a run.json from before the halves: they read as not measured, the sum as it was */
    json_object_del(p0, "bidir_fwd_gbps");
    json_object_del(p0, "bidir_rev_gbps");
    T_EQ_I(nvs_p2p_from_json(j, &back, err, sizeof err), NVS_OK);
    T_NEAR(back.pairs[0].bidir_fwd_gbps, -1, 0);
    T_NEAR(back.pairs[0].bidir_rev_gbps, -1, 0);
    T_NEAR(back.pairs[0].bidir_gbps, 30.5, 1e-12);
    static char buf[16384];
    FILE *f = tmpfile();
    if (!f) T_SKIP("no tmpfile");
    nvs_p2p_print(t, &back, f); /* an older run: a dash where the halves go */
    read_all(f, buf, sizeof buf);
    T_CONTAINS(buf, "bidir = fwd + rev: src -> dst and dst -> src at once, each timed to its own end\n");
    T_CONTAINS(buf, "0->2       host  SYS         20.0      31.5    63.5      30.5    48.4  -                     9.00 0\n");
    T_ASSERT(!strstr(buf, " = 12.3"));
    nvs_p2p_result_free(&back);
    json_decref(j);
    if (!(f = tmpfile())) T_SKIP("no tmpfile");
    nvs_p2p_print(t, &r, f);
    read_all(f, buf, sizeof buf);
    T_CONTAINS(buf, "    bidir % bound  = fwd + rev         lat us wrong\n");
    T_CONTAINS(buf, "0->2       host  SYS         20.0      31.5    63.5      30.5    48.4  = 12.3 + 18.2         9.00 0\n");
    if (!(f = tmpfile())) T_SKIP("no tmpfile");
    nvs_p2p_print_csv(t, &r, f);
    read_all(f, buf, sizeof buf);
    T_CONTAINS(buf, "src,dst,path,class,uni_gbps,bidir_gbps,latency_us,bound_gbps,pct_of_bound,wrong,bidir_fwd_gbps,"
                    "bidir_rev_gbps\n");
    T_CONTAINS(buf, ",0,12.300,18.200\n"); /* after wrong: the columns before keep their places */
    T_CONTAINS(buf, "2,0,host,SYS,,,,31.508,,,,\n"); /* not measured: empty */
    nvs_topo_free(t);
}

/* a rate from a time of zero (an event pair closer than the timer's resolution) is not a measurement: run.json has
 * null for it, as for one not measured (jansson's json_real refuses infinity, and the key was silently left out),
 * the table and the CSV a dash / an empty field, not "inf" */
static void t_p2p_infinite_rate(void)
{
    nvs_topology *t = load("nvlink_pairs.xml");
    nvs_p2p_pair pairs[] = {{0, 1, 0, 1, "P2P", INFINITY, INFINITY, 2.5, INFINITY, 75.0, 0}};
    nvs_p2p_result r = {256u << 20, 20, 5, 3, 1000, 1, pairs};
    json_t *j = nvs_p2p_to_json(t, &r);
    json_t *p0 = json_array_get(json_object_get(j, "pairs"), 0);
    const char *keys[] = {"uni_gbps", "bidir_gbps", "bidir_fwd_gbps", "pct_of_bound", "bidir_pct_of_bound"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        if (!json_is_null(json_object_get(p0, keys[k]))) T_FAIL("%s: not null", keys[k]);
    T_NEAR(json_real_value(json_object_get(p0, "bidir_rev_gbps")), 75.0, 1e-12);
    json_decref(j);
    static char buf[16384];
    FILE *f = tmpfile();
    if (!f) T_SKIP("no tmpfile");
    nvs_p2p_print(t, &r, f);
    read_all(f, buf, sizeof buf);
    T_ASSERT(!strstr(buf, "inf"));
    if (!(f = tmpfile())) T_SKIP("no tmpfile");
    nvs_p2p_print_csv(t, &r, f);
    read_all(f, buf, sizeof buf);
    T_ASSERT(!strstr(buf, "inf"));
    nvs_topo_free(t);
}

/* a pair's bandwidth is the median of NVS_P2P_SAMPLES timed blocks (topo/p2p.c): the rate of the median time, a
 * time of zero (no finite rate) not measured; the count goes to run.json, comes back (1 from a run.json written
 * before it, a bad one refused) and the table says it */
static void t_p2p_samples(void)
{
    const double secs[] = {0.4, 0.1, 0.2}, zeros[] = {0, 0.5, 0}, one_zero[] = {0, 0.5, 0.25};
    T_NEAR(nvs_p2p_median_gbps(secs, 3, 2e9), 10.0, 1e-12); /* the middle time, 0.2 s, not the first nor the mean */
    T_NEAR(nvs_p2p_median_gbps(zeros, 3, 2e9), -1, 0);
    T_NEAR(nvs_p2p_median_gbps(one_zero, 3, 2e9), 8.0, 1e-12); /* one unresolved block: the other two decide */
    T_NEAR(nvs_p2p_median_gbps(secs, 1, 2e9), 5.0, 1e-12);
    nvs_topology *t = load("nvlink_pairs.xml");
    nvs_p2p_pair pairs[] = {{0, 1, 0, 1, "P2P", 80.0, 150.0, 2.5, 75.0, 75.0, 0}};
    nvs_p2p_result r = {256u << 20, 20, 5, NVS_P2P_SAMPLES, 1000, 1, pairs};
    json_t *j = nvs_p2p_to_json(t, &r);
    T_EQ_I(json_integer_value(json_object_get(j, "samples")), 3);
    nvs_p2p_result back;
    char err[128];
    T_EQ_I(nvs_p2p_from_json(j, &back, err, sizeof err), NVS_OK);
    T_EQ_I(back.samples, 3);
    nvs_p2p_result_free(&back);
    static char buf[16384];
    FILE *f = tmpfile();
    if (!f) T_SKIP("no tmpfile");
    nvs_p2p_print(t, &r, f);
    read_all(f, buf, sizeof buf);
    T_CONTAINS(buf, "Copies of 256 MiB, 20 timed after 5 warm-up, the median of 3 such blocks; latency: 1000 copies");
    json_object_del(j, "samples"); /* a run.json from before the samples: one block, and the table says nothing */
    T_EQ_I(nvs_p2p_from_json(j, &back, err, sizeof err), NVS_OK);
    T_EQ_I(back.samples, 1);
    if (!(f = tmpfile())) T_SKIP("no tmpfile");
    nvs_p2p_print(t, &back, f);
    read_all(f, buf, sizeof buf);
    T_CONTAINS(buf, "Copies of 256 MiB, 20 timed after 5 warm-up; latency: 1000 copies");
    nvs_p2p_result_free(&back);
    json_object_set_new(j, "samples", json_integer(0));
    T_EQ_I(nvs_p2p_from_json(j, &back, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "p2p: \"samples\" must be an integer from 1 to 64");
    json_object_set_new(j, "samples", json_string("3"));
    T_EQ_I(nvs_p2p_from_json(j, &back, err, sizeof err), NVS_ERR_INPUT);
    json_decref(j);
    nvs_topo_free(t);
}

/* a host copy's bandwidth (topo/h2d.c) by the pairs' rule: the rate of the median of NVS_H2D_SAMPLES times. The
 * median of the rates took an unresolved block (0 s, said -1 GB/s) for the slowest: one of three made the middle
 * block's rate the result, two made the test "not measured" */
static void t_h2d_samples(void)
{
    const double one_zero[] = {0, 0.5, 0.25}, two_zeros[] = {0, 0.5, 0}, secs[] = {0.4, 0.1, 0.2};
    nvs_h2d_mode m = {0, -1, -1, -1, -1, -1, -1};
    nvs_h2d_mode_set(&m, 0, one_zero, NVS_H2D_SAMPLES, 2e9);
    T_NEAR(m.h2d_gbps, 8.0, 1e-12); /* 0.25 s: the other two decide (the rates' median was 4 GB/s, 0.5 s) */
    nvs_h2d_mode_set(&m, 1, two_zeros, NVS_H2D_SAMPLES, 2e9);
    T_NEAR(m.d2h_gbps, -1, 0); /* the median time is 0: no finite rate */
    T_NEAR(m.h2d_gbps, 8.0, 1e-12);
    nvs_h2d_mode_set(&m, 2, secs, NVS_H2D_SAMPLES, 2e9);
    T_NEAR(m.bidir_h2d_gbps, 10.0, 1e-12);
    T_NEAR(m.bidir_gbps, -1, 0); /* the other direction not yet measured: no sum with its -1 */
    nvs_h2d_mode_set(&m, 3, one_zero, NVS_H2D_SAMPLES, 2e9);
    T_NEAR(m.bidir_d2h_gbps, 8.0, 1e-12);
    T_NEAR(m.bidir_gbps, 18.0, 1e-12);
    nvs_h2d_mode_set(&m, 3, two_zeros, NVS_H2D_SAMPLES, 2e9);
    T_NEAR(m.bidir_gbps, -1, 0); /* one direction unmeasured: the sum is not 10 - 1 = 9 */
}

T_LIST = {T_CASE(t_json_and_bounds), T_CASE(t_h2d_bidir_halves), T_CASE(t_p2p_bidir_halves), T_CASE(t_p2p_infinite_rate),
          T_CASE(t_p2p_samples), T_CASE(t_h2d_samples)};
T_MAIN
