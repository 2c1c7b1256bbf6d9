/* p2p results against the topology's bounds (topo/p2p_report.c): JSON, % of bound, the matrices. */
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

static void t_json_and_bounds(void)
{
    nvs_topology *t = load("nvlink_pairs.xml");
    nvs_p2p_pair pairs[] = {
        {0, 1, 0, 1, "P2P", 80.0, 150.0, 2.5, 0},   /* NV4: bound 4 x 25 GB/s */
        {0, 2, 0, 2, "host", 20.0, 30.0, 9.0, 0},   /* no P2P: host memory, gen4 x16 */
        {2, 0, 2, 0, "host", -1, -1, -1, -1},       /* not measured: nulls, not zeros */
        {1, 0, 1, 0, "P2P", 80.0, 150.0, 2.5, 7},
    };
    nvs_p2p_result r = {256u << 20, 20, 5, 1000, 4, pairs};
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
    rewind(f);
    static char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    T_CONTAINS(buf, "Unidirectional copy bandwidth (GB/s)");
    T_CONTAINS(buf, "0->1       P2P   NV4         80.0     100.0    80.0");
    T_CONTAINS(buf, "GPU0-GPU1: 4 NVLink links x 25 GB/s per direction");
    T_CONTAINS(buf, "2->0       host  SYS            -      31.5       -         -       -         - -");
    T_CONTAINS(buf, "host memory");
    nvs_topo_free(t);
}

T_LIST = {T_CASE(t_json_and_bounds)};
T_MAIN
