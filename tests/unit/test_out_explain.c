/* The run's own "explain" section (run/out_explain.c) over a live topology: the slowest hop's bound is that of
 * the hop's own link, the one its class names. */
#include <math.h>
#include <string.h>

#include "topo/topo.h"
#include "run/run.h"
#include "t.h"

/* NCCL kept off P2P on an NVLink pair (NCCL_P2P_DISABLE=1, SHM): the hop was named NV4/NVLink but its bound was
 * the host-memory path's (results/h200x2-2026-11-30/coll/compare: "NV18 ... 43 % of the 63.0 GB/s bound of that
 * hop", where the topology table gives the NV18 pair 478 GB/s, and the verdict said "% of the NV18 bound"); the
 * report, from the same file's pairs, said 478. The bound is the NVLink one, and the Why says NCCL went around
 * it. */
static void t_nvlink_hop_unused(void)
{
    nvs_topology *t = NULL;
    if (nvs_topo_discover("tests/fixtures/topo/nvlink_pairs.xml", &t) != NVS_OK || !t) T_FAIL("topology fixture");
    nvs_rank_info ranks[2];
    memset(ranks, 0, sizeof ranks);
    for (int i = 0; i < 2; i++) {
        ranks[i].rank = i;
        ranks[i].topo_gpu = i;
    }
    int pr[2] = {0, 1};
    nvs_scale_point pt = {2, pr};
    nvs_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.ranks = ranks;
    ctx.points = &pt;
    ctx.npoints = 1;
    ctx.topo = t;
    const char *doc = "{\"schema\": \"nvscale.run/1\", \"world\": {\"size\": 2},"
                      " \"transports\": [{\"n\": 2, \"summary\": {\"SHM\": 2}}],"
                      " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1048576,"
                      "                    \"busbw_gbps\": 20.0}]}";
    json_error_t je;
    json_t *root = json_loads(doc, 0, &je);
    if (!root) T_FAIL("fixture JSON: %s", je.text);
    json_t *ex = nvs_ctx_explain(&ctx, root);
    T_ASSERT(ex && json_array_size(ex) == 1);
    json_t *hop = json_object_get(json_array_get(ex, 0), "slowest_hop");
    T_EQ_S(json_string_value(json_object_get(hop, "class")), "NV4");
    T_EQ_S(json_string_value(json_object_get(hop, "link")), "NVLink");
    T_NEAR(json_real_value(json_object_get(hop, "bound_gbps")), 100.0, 1e-9); /* 4 links x 25 GB/s (hwloc) */
    const char *text = json_string_value(json_object_get(json_array_get(ex, 0), "text"));
    T_CONTAINS(text, "the ring runs over NVLink (NV4) but NCCL did not use it: it used SHM through host memory");
    /* a hop NCCL went around bounds nothing measured: its rate is named, no % of it (run.json, tables, verdict) */
    T_CONTAINS(text, "where the hop NCCL went around is rated 100 GB/s");
    T_ASSERT(!strstr(text, "% of the 100"));
    T_ASSERT(json_is_null(json_object_get(json_array_get(ex, 0), "pct_of_bound")));
    json_decref(ex);
    json_decref(root);
    nvs_topo_free(t);
}

T_LIST = {T_CASE(t_nvlink_hop_unused)};
T_MAIN
