/* run.json reader: the committed fixtures read back field by field; every kind of bad file is refused with a
 * message that names the file and the key. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "core/dtype.h"
#include "core/metrics.h"
#include "explain/explain.h"
#include "runjson/runjson.h"
#include "t.h"

#define RUNS "tests/fixtures/runs/"

static void t_nvlink_fixture(void)
{
    nvs_run r;
    T_EQ_I(nvs_run_load(RUNS "h200x2_nvlink.json", NVS_RUN_NEED_COLLECTIVES | NVS_RUN_NEED_TRAIN, &r), NVS_OK);
    T_EQ_S(r.schema, "nvscale.run/1");
    T_EQ_S(r.path, RUNS "h200x2_nvlink.json");
    T_EQ_S(r.host, "vm");
    T_EQ_S(r.subcommand, "run");
    T_EQ_S(r.launcher, "mpi");
    T_EQ_U(r.argc, 10);
    T_EQ_S(r.argv[9], "bert-large");
    T_EQ_S(r.started_utc, "2026-11-29T10:00:00Z");
    T_NEAR(r.duration_s, 95.2, 1e-9);
    T_EQ_I(r.world_size, 2);
    T_EQ_I(r.world_nodes, 1);
    T_EQ_S(nvs_run_env(&r, "NCCL_NVLS_ENABLE"), "0");
    T_ASSERT(nvs_run_env(&r, "NCCL_P2P_DISABLE") == NULL);
    T_EQ_S(nvs_run_version(&r, "nccl"), "2.28.3");
    T_EQ_U(r.nranks, 2);
    T_EQ_S(r.ranks[1].pci_bus_id, "0000:00:07.0");
    T_EQ_I(r.ranks[1].topo_gpu, 1);
    T_EQ_I(r.topology.present, 1);
    T_EQ_U(r.topology.ngpus, 2);
    T_EQ_I(r.topology.gpus[0].nvlink_links_up, 18);
    T_NEAR(r.topology.gpus[0].pcie_gbps, 63.0, 1e-9);
    const nvs_run_pair *p = nvs_run_pair_of(&r, 1, 0, NULL);
    T_ASSERT(p);
    T_EQ_S(p->cls, "NV18");
    T_NEAR(p->bound_gbps, 478.1, 1e-9);
    T_EQ_I(p->p2p_cuda, 1);
    T_ASSERT(nvs_run_pair_of(&r, 0, 2, NULL) == NULL);
    T_EQ_U(r.ncolls, 22);
    const nvs_run_coll *c = nvs_run_coll_find(&r, "all_reduce", 2, 1073741824.0);
    T_ASSERT(c);
    T_NEAR(c->time_max_us, 3257.21, 1e-9);
    T_NEAR(c->busbw_gbps, 329.65, 1e-9);
    T_EQ_I(c->wrong, 0);
    T_EQ_I(c->root, -1);
    T_ASSERT(nvs_run_coll_find(&r, "all_reduce", 4, 1073741824.0) == NULL);
    int *ns = NULL;
    T_EQ_I(nvs_run_ns(&r, &ns), 2);
    T_EQ_I(ns[0], 1);
    T_EQ_I(ns[1], 2);
    free(ns);
    double *sizes = NULL;
    T_EQ_I(nvs_run_coll_sizes(&r, "broadcast", &sizes), 5);
    T_NEAR(sizes[0], 2097152.0, 0);
    T_NEAR(sizes[4], 536870912.0, 0);
    free(sizes);
    const char **names = NULL;
    T_EQ_I(nvs_run_collective_names(&r, &names), 2);
    T_EQ_S(names[0], "all_reduce");
    T_EQ_S(names[1], "broadcast");
    free(names);
    const nvs_run_transport *t = nvs_run_transport_of(&r, 2);
    T_ASSERT(t);
    T_EQ_U(t->nsummary, 1);
    T_EQ_S(t->summary[0].key, "P2P");
    T_EQ_I(t->summary_counts[0], 16);
    T_EQ_I(t->nchannels, 8);
    T_EQ_S(t->link, "NVLink");
    T_ASSERT(t->net_detail == NULL);
    const nvs_run_train_result *tr = nvs_run_train_of(&r, 2);
    T_ASSERT(tr);
    T_NEAR(tr->exposed_comm_us, 1800.0, 1e-9);
    T_ASSERT(isnan(tr->host_rate_p10) && isnan(tr->host_rate_p90)); /* a run from before they existed */
    T_ASSERT(isnan(tr->issue_us));
    T_EQ_I(tr->nissue_by, 0); /* a run from before issue_by_us */
    T_EQ_S(r.train.model, "bert-large");
    T_EQ_I(r.train.batch, 16);
    T_EQ_U(r.train.nbuckets, 1);
    const nvs_run_scaling *sc = nvs_run_scaling_of(&r, 2);
    T_ASSERT(sc && sc->ngpus == 2 && sc->gpus[1] == 1);
    T_EQ_U(r.nexplain, 0);
    T_EQ_S(r.result_status, "ok");
    T_EQ_I(r.result_wrong_total, 0);
    nvs_run_free(&r);
    nvs_run_free(&r); /* twice is harmless */
}

/* p2p.samples, the timed blocks whose median each pair's bandwidth is: read as written, and 1 (one block) from a
 * run.json written before it */
static void t_p2p_samples(void)
{
    const char *docs[] = {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"samples\": 3, \"pairs\": []}}",
                          "{\"schema\": \"nvscale.run/1\", \"p2p\": {\"pairs\": []}}"};
    const int want[] = {3, 1};
    for (int i = 0; i < 2; i++) {
        json_t *root = json_loads(docs[i], 0, NULL);
        T_ASSERT(root);
        nvs_run r;
        char err[512];
        T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_OK);
        json_decref(root);
        T_EQ_I(r.p2p.samples, want[i]);
        nvs_run_free(&r);
    }
}

static void t_minimal_and_optional(void)
{
    nvs_run r;
    T_EQ_I(nvs_run_load(RUNS "minimal_coll.json", NVS_RUN_NEED_COLLECTIVES, &r), NVS_OK);
    T_EQ_I(r.topology.present, 0);
    T_EQ_I(r.train.present, 0);
    T_EQ_I(r.p2p.present, 0);
    T_EQ_U(r.ntransports + r.nexplain + r.nscaling + r.nranks + r.nenv + r.nversions, 0);
    T_ASSERT(isnan(r.duration_s));
    T_EQ_I(r.result_exit_code, -1);
    T_EQ_I(r.result_wrong_total, -1);
    const nvs_run_coll *c = nvs_run_coll_find(&r, "all_reduce", 2, 64);
    T_ASSERT(c);
    T_ASSERT(isnan(c->busbw_gbps)); /* null: not measured, not 0 */
    T_EQ_I(c->wrong, -1);           /* null: not checked */
    nvs_run_free(&r);
    /* asking for what is absent is an input error */
    T_EQ_I(nvs_run_load(RUNS "minimal_coll.json", NVS_RUN_NEED_TRAIN, &r), NVS_ERR_INPUT);
    T_EQ_I(nvs_run_load(RUNS "minimal_coll.json", NVS_RUN_NEED_TOPOLOGY, &r), NVS_ERR_INPUT);
    T_EQ_I(nvs_run_load(RUNS "minimal_coll.json", NVS_RUN_NEED_P2P, &r), NVS_ERR_INPUT);
    T_ASSERT(r.root == NULL); /* left freed */
}

/* train.params and train.layers: integers (from 5 December) and reals (runs before) both load */
static void t_train_counts(void)
{
    const char *js[] = {"{\"schema\": \"nvscale.run/1\", \"train\": {\"params\": 25557032, \"layers\": 109, "
                        "\"results\": [{\"n\": 1, \"step_us\": 30000}]}}",
                        "{\"schema\": \"nvscale.run/1\", \"train\": {\"params\": 25557032.0, \"layers\": 109.0, "
                        "\"results\": [{\"n\": 1, \"step_us\": 30000}]}}"};
    for (int i = 0; i < 2; i++) {
        json_error_t je;
        json_t *root = json_loads(js[i], 0, &je);
        T_ASSERT(root);
        nvs_run r;
        char err[256];
        T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_OK);
        json_decref(root);
        T_NEAR(r.train.params, 25557032, 0);
        nvs_run_free(&r);
    }
}

/* a result's issue_by_us: every kind in the file's order, as written by train/step.c */
static void t_issue_by(void)
{
    const char *js = "{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 1, \"step_us\": 30000, "
                     "\"issue_us\": 29000, \"issue_by_us\": {\"framework\": 21000, \"conv_library\": 900.5, "
                     "\"comm\": 0}}]}}";
    json_error_t je;
    json_t *root = json_loads(js, 0, &je);
    T_ASSERT(root);
    nvs_run r;
    char err[256];
    T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_OK);
    json_decref(root);
    const nvs_run_train_result *tr = nvs_run_train_of(&r, 1);
    T_ASSERT(tr);
    T_EQ_I(tr->nissue_by, 3);
    T_EQ_S(tr->issue_by_kind[0], "framework");
    T_NEAR(tr->issue_by_us[0], 21000, 0);
    T_EQ_S(tr->issue_by_kind[1], "conv_library");
    T_NEAR(tr->issue_by_us[1], 900.5, 0);
    T_EQ_S(tr->issue_by_kind[2], "comm");
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 1, &f); /* the two largest, larger first */
    T_EQ_S(f.issue_top[0], "framework");
    T_EQ_S(f.issue_top[1], "conv_library");
    T_NEAR(f.issue_top_ms[1], 0.9005, 1e-12);
    nvs_run_free(&r);
}

static void t_box3090(void)
{
    nvs_run r;
    T_EQ_I(nvs_run_load(RUNS "box3090_8gpu_shm.json", 0, &r), NVS_OK);
    T_EQ_U(r.topology.npairs, 28);
    T_EQ_S(nvs_run_pair_of(&r, 3, 4, NULL)->cls, "SYS");
    T_EQ_I(nvs_run_pair_of(&r, 3, 4, NULL)->p2p_cuda, 0);
    T_EQ_I(r.topology.gpus[5].numa_node, 1);
    T_EQ_I(r.topology.gpus[5].nvlink_version, -1); /* null */
    T_EQ_U(r.ntransports, 3);
    T_EQ_U(r.train.nresults, 4);
    nvs_run_free(&r);
}

static void t_bad_files(void)
{
    static const char *const bad[] = {"bad_topology", "duplicate_key", "empty",      "n_is_string", "negative_busbw",
                                      "no_collectives", "no_schema",   "not_json",   "top_array",   "wrong_schema"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, RUNS "bad/%s.json", bad[i]);
        nvs_run r;
        nvs_result_t res = nvs_run_load(path, NVS_RUN_NEED_COLLECTIVES, &r);
        if (res != NVS_ERR_INPUT) T_FAIL("%s: got %s, expected NVS_ERR_INPUT", path, nvs_result_name(res));
        T_ASSERT(r.root == NULL);
    }
    nvs_run r;
    T_EQ_I(nvs_run_load(RUNS "bad", 0, &r), NVS_ERR_INPUT);             /* a directory */
    T_EQ_I(nvs_run_load(RUNS "no-such-file.json", 0, &r), NVS_ERR_INPUT); /* missing */
}

/* Table of documents and the message each must give ("" = must be accepted). */
static void t_messages(void)
{
    static const struct {
        const char *json, *msg;
    } cases[] = {
        {"{\"schema\": \"nvscale.run/1\"}", ""},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": []}", ""},
        {"{\"schema\": 1}", "x.json: schema is 1, expected \"nvscale.run/1\""},
        {"\"text\"", "x.json: not a run.json: the top level is the string \"text\""},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": {}}", "x.json: collectives: expected an array, got an object"},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [3]}", "x.json: collectives[0]: expected an object, got 3"},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"n\": 2, \"bytes\": 8}]}",
         "collectives[0].collective: missing"},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"a\", \"n\": 0, \"bytes\": 8}]}",
         "collectives[0].n: expected an integer from 1"},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"a\", \"n\": 2.5, \"bytes\": 8}]}",
         "collectives[0].n: expected an integer"},
        /* a whole number written as a real: shown as one, not as the integer the message asks for ("got 2") */
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"a\", \"n\": 2.0, \"bytes\": 8}]}",
         "collectives[0].n: expected an integer from 1 to 1000000, got 2.0"},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"a\", \"n\": 2, \"bytes\": 8, "
         "\"wrong\": 1e3}]}",
         "collectives[0].wrong: expected an integer >= 0, got 1000.0"},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"a\", \"n\": 2}]}",
         "collectives[0].bytes: missing"},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"a\", \"n\": 2, \"bytes\": 8, "
         "\"time_us\": {\"max\": \"slow\"}}]}",
         "collectives[0].time_us.max: expected a number, got the string \"slow\""},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"a\", \"n\": 2, \"bytes\": 8, "
         "\"inplace\": 1}]}",
         "collectives[0].inplace: expected true or false, got 1"},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"a\", \"n\": 2, \"bytes\": 8, "
         "\"wrong\": -1}]}",
         "collectives[0].wrong: expected an integer >= 0, got -1"},
        {"{\"schema\": \"nvscale.run/1\", \"env\": {\"NCCL_X\": 1}}", "env.NCCL_X: expected a string, got 1"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"min_bytes\": \"8\"}}",
         "x.json: sweep.min_bytes: expected a number, got the string \"8\""},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"max_bytes\": 8.5}}",
         "x.json: sweep.max_bytes: expected a whole number of bytes, got 8.5"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"step_factor\": 2000}}",
         "x.json: sweep.step_factor: expected a number from 0 to 1024, got 2000"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"skipped\": {}}}",
         "x.json: sweep.skipped: expected an array, got an object"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"skipped\": [{\"n\": 4}]}}",
         "x.json: sweep.skipped[0].collective: missing"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"skipped\": [{\"collective\": \"all_gather\", \"n\": 0}]}}",
         "x.json: sweep.skipped[0].n: expected an integer from 1"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"skipped\": [{\"collective\": \"all_gather\", \"n\": 4, "
         "\"why\": 3}]}}",
         "x.json: sweep.skipped[0].why: expected a string, got 3"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"skipped\": [{\"collective\": \"all_gather\", \"n\": 4, "
         "\"sizes\": 4, \"of\": 3}]}}",
         "x.json: sweep.skipped[0]: 4 sizes left out of 3 planned"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"skipped\": [{\"collective\": \"all_gather\", \"n\": 4, "
         "\"from_bytes\": 32, \"to_bytes\": 8.5}]}}",
         "x.json: sweep.skipped[0].to_bytes: expected a whole number of bytes, got 8.5"},
        {"{\"schema\": \"nvscale.run/1\", \"command\": {\"argv\": [\"a\", 2]}}",
         "command.argv[1]: expected a string, got 2"},
        {"{\"schema\": \"nvscale.run/1\", \"world\": {\"size\": 0}}", "world.size: expected an integer from 1"},
        {"{\"schema\": \"nvscale.run/1\", \"scaling\": [{\"n\": 2, \"gpus\": [0, -1]}]}",
         "scaling[0].gpus[1]: expected an integer >= 0, got -1"},
        {"{\"schema\": \"nvscale.run/1\", \"transports\": [{\"n\": 2, \"summary\": {\"P2P\": \"many\"}}]}",
         "transports[0].summary.P2P: expected an integer"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 1, \"step_us\": true}]}}",
         "train.results[0].step_us: expected a number, got true"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 2, \"exposed_comm_us\": -5}]}}", ""},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 2, \"host_rate_p10\": -3}]}}",
         "train.results[0].host_rate_p10: expected a number from 0 to 9.0072e+15, got -3"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 2, \"efficiency\": 1e308}]}}",
         "train.results[0].efficiency: expected a number from 0 to 100, got 1e+308"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 1, \"step_us\": 1e308}]}}",
         "train.results[0].step_us: expected a number from 0 to 9.0072e+15, got 1e+308"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 2, \"exposed_comm_us\": 1e300}]}}",
         "train.results[0].exposed_comm_us: expected a number up to 9.0072e+15, got 1e+300"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 2, \"issue_us\": \"x\"}]}}",
         "train.results[0].issue_us: expected a number"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 2, \"issue_by_us\": [1]}]}}",
         "train.results[0].issue_by_us: expected an object"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 2, \"issue_by_us\": {\"gemm\": -1}}]}}",
         "train.results[0].issue_by_us.gemm: expected a number from 0"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"framework\": {\"host_us_per_op\": 30}}}",
         "train.framework.name: missing"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"framework\": {\"name\": \"x\", \"host_us_per_op\": -1}}}",
         "train.framework.host_us_per_op: expected a number from 0 to"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"framework\": {\"name\": \"x\", \"grad_scaler\": 1}}}",
         "train.framework.grad_scaler: expected true or false, got 1"},
        {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 1, \"ideal_compute_us\": -2}]}}",
         "train.results[0].ideal_compute_us: expected a number from 0"},
        {"{\"schema\": \"nvscale.run/1\", \"topology\": {\"gpus\": [{\"name\": \"x\"}]}}",
         "topology.gpus[0].index: missing"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"pairs\": [{\"src\": 0, \"dst\": 1, \"uni_gbps\": -1}]}}",
         "p2p.pairs[0].uni_gbps: expected a number from 0 to"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"pairs\": [{\"src\": 0, \"dst\": 1, \"bidir_rev_gbps\": \"9\"}]}}",
         "p2p.pairs[0].bidir_rev_gbps: expected a number, got the string \"9\""},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"pairs\": [{\"src\": 0, \"dst\": 1, \"bidir_fwd_gbps\": null, "
         "\"bidir_rev_gbps\": 9.5}]}}",
         ""},
        {"{\"schema\": \"nvscale.run/1\", \"explain\": [{\"n\": 2, \"text\": 5}]}", "explain[0].text: expected a string"},
        {"{\"schema\": \"nvscale.run/1\", \"result\": {\"status\": \"ok\", \"exit_code\": 300}}",
         "result.exit_code: expected an integer"},
        {"{\"schema\": \"nvscale.run/1\", \"result\": {\"exit_code\": 0}}", "result.status: missing"},
        {"{\"schema\": \"nvscale.run/1\", \"result\": {\"status\": \"fine\"}}",
         "result.status: expected \"ok\", \"wrong\", \"failed\", \"interrupted\" or \"running\", got the string \"fine\""},
        {"{\"schema\": \"nvscale.run/1\", \"result\": {\"status\": \"wrong\", \"wrong_total\": -1}}",
         "result.wrong_total: expected an integer >= 0, got -1"},
        {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"a\", \"n\": 2, \"bytes\": 8.5}]}",
         "collectives[0].bytes: expected a whole number of bytes, got 8.5"},
        {"{\"schema\": \"nvscale.run/1\", \"ranks\": [{\"rank\": 0, \"host\": 7}]}", "ranks[0].host: expected a string, got 7"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": []}", "p2p: expected an object, got an array"},
        /* the timed blocks whose median each pair's bandwidth is (topo/p2p.h, NVS_P2P_SAMPLES) */
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"samples\": 0, \"pairs\": []}}",
         "p2p.samples: expected an integer from 1 to 64, got 0"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"samples\": 65, \"pairs\": []}}",
         "p2p.samples: expected an integer from 1 to 64, got 65"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"samples\": 2.5, \"pairs\": []}}", "p2p.samples: expected an integer"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"samples\": \"3\", \"pairs\": []}}", "p2p.samples: expected an integer"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"pairs\": [{\"src\": 0}]}}", "p2p.pairs[0].dst: missing"},
        /* gpu_selftest (check's gpu and sustain gemm rules): a value of the wrong type or range is bad input, not a
         * row judged on a guess (a string gemm_wrong passed, a 1e308 TFLOPS passed as "1000...0 TFLOPS") */
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"skipped\": \"\", \"burn_s\": 120, \"gpus\": [{\"host\": "
         "\"h\", \"gpu\": 0, \"rank\": 0, \"name\": \"G\", \"membw_gbps\": 4100.5, \"membw_wrong\": 0, \"gemm_tflops\": "
         "null, \"gemm_wrong\": null, \"why\": \"\", \"burn\": {\"requested_s\": 120, \"elapsed_s\": 120.1, "
         "\"tflops_first\": 660, \"tflops_last\": 659, \"tflops_min\": 658, \"wrong\": 0, \"why\": \"\", \"chunks\": "
         "[{\"end_s\": 1, \"tflops\": 600}]}}]}}",
         ""},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": \"x\"}", "gpu_selftest: expected an object, got"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": {}}}", "gpu_selftest.gpus: expected an array"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [1]}}", "gpu_selftest.gpus[0]: expected an object"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"skipped\": 3}}", "gpu_selftest.skipped: expected a string"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"burn_s\": \"120\"}}", "gpu_selftest.burn_s: expected a number"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"gemm_wrong\": \"7\"}]}}",
         "gpu_selftest.gpus[0].gemm_wrong: expected an integer >= 0, got"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"membw_wrong\": 7.0}]}}",
         "gpu_selftest.gpus[0].membw_wrong: expected an integer >= 0, got"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"gemm_tflops\": -5}]}}",
         "gpu_selftest.gpus[0].gemm_tflops: expected a number from 0"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"gemm_tflops\": 1e308}]}}",
         "gpu_selftest.gpus[0].gemm_tflops: expected a number from 0 to 9.0072e+15, got 1e+308"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"membw_gbps\": \"4100\"}]}}",
         "gpu_selftest.gpus[0].membw_gbps: expected a number"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"gpu\": \"0\"}]}}",
         "gpu_selftest.gpus[0].gpu: expected an integer"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"name\": 5}]}}",
         "gpu_selftest.gpus[0].name: expected a string"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"why\": 5}]}}",
         "gpu_selftest.gpus[0].why: expected a string"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"burn\": \"x\"}]}}",
         "gpu_selftest.gpus[0].burn: expected an object"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"burn\": {\"tflops_first\": -1}}]}}",
         "gpu_selftest.gpus[0].burn.tflops_first: expected a number from 0"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"burn\": {\"tflops_last\": \"1\"}}]}}",
         "gpu_selftest.gpus[0].burn.tflops_last: expected a number"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"burn\": {\"wrong\": -1}}]}}",
         "gpu_selftest.gpus[0].burn.wrong: expected an integer >= 0, got -1"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"burn\": {\"tflops_min\": 1e300}}]}}",
         "gpu_selftest.gpus[0].burn.tflops_min: expected a number from 0 to 9.0072e+15, got 1e+300"},
        {"{\"schema\": \"nvscale.run/1\", \"gpu_selftest\": {\"gpus\": [{\"burn\": {\"chunks\": [{\"tflops\": \"a\"}]}}]}}",
         "gpu_selftest.gpus[0].burn.chunks[0].tflops: expected a number"},
        /* sustain, p2p.host_copies, p2p.skipped and health, which check judges from the document: bad input naming
         * the path (were rows "not measured", exit 3, or judged on a guess) */
        {"{\"schema\": \"nvscale.run/1\", \"sustain\": {\"collective\": \"all_reduce\", \"measure\": \"busbw\", "
         "\"bytes\": 268435456, \"n\": 2, \"requested_s\": 120, \"elapsed_s\": 121.4, \"busbw_first_gbps\": 330.2, "
         "\"busbw_last_gbps\": 329.1, \"busbw_min_gbps\": null, \"wrong\": 0, \"chunks\": [{\"end_s\": 10.1, "
         "\"iters\": 9000, \"busbw_gbps\": 330.2, \"wrong\": null}]}}",
         ""},
        {"{\"schema\": \"nvscale.run/1\", \"sustain\": 5}", "sustain: expected an object, got 5"},
        {"{\"schema\": \"nvscale.run/1\", \"sustain\": {\"busbw_first_gbps\": \"fast\"}}",
         "sustain.busbw_first_gbps: expected a number, got the string"},
        {"{\"schema\": \"nvscale.run/1\", \"sustain\": {\"busbw_last_gbps\": 1e300}}",
         "sustain.busbw_last_gbps: expected a number from 0 to 9.0072e+15"},
        {"{\"schema\": \"nvscale.run/1\", \"sustain\": {\"wrong\": \"0\"}}", "sustain.wrong: expected an integer >= 0"},
        {"{\"schema\": \"nvscale.run/1\", \"sustain\": {\"measure\": \"latency\"}}",
         "sustain.measure: expected \"busbw\" or \"algbw\", got \"latency\""},
        {"{\"schema\": \"nvscale.run/1\", \"sustain\": {\"n\": 0}}", "sustain.n: expected an integer from 1"},
        {"{\"schema\": \"nvscale.run/1\", \"sustain\": {\"chunks\": [{\"algbw_gbps\": -2}]}}",
         "sustain.chunks[0].algbw_gbps: expected a number from 0"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"host_copies\": {\"copy_bytes\": 268435456, \"iters\": 20, "
         "\"warmup\": 5, \"numa_binding\": \"x\", \"gpus\": [{\"gpu\": 0, \"host\": \"vm\", \"pci_bus_id\": \"b\", "
         "\"gpu_numa_node\": null, \"bound_gbps\": 63.0, \"bound_source\": \"gen5 x16\", \"single\": {\"numa_node\": 0, "
         "\"h2d_gbps\": 55.1, \"d2h_gbps\": 53.9, \"bidir_gbps\": 98.2, \"h2d_pct_of_bound\": 87.4, \"wrong\": 0}, "
         "\"all\": null, \"remote\": null, \"remote_why\": \"one node\"}]}, \"skipped\": [{\"host\": \"vm\", "
         "\"what\": \"p2p\", \"why\": \"one GPU\"}]}}",
         ""},
        /* the sweep's timing settings compare --report-only holds runs to */
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"warmup\": 5, \"agg_iters\": 4, \"blocking\": false, "
         "\"alloc\": \"ncclMemAlloc\", \"time_basis\": \"mean\"}}",
         ""},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"warmup\": -1}}", "sweep.warmup: expected an integer from 0"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"agg_iters\": 0}}", "sweep.agg_iters: expected an integer from 1"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"blocking\": 3}}", "sweep.blocking: expected an integer from 0"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"blocking\": \"1\"}}", "sweep.blocking: expected an integer"},
        {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"alloc\": 7}}", "sweep.alloc: expected a string"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"host_copies\": []}}", "p2p.host_copies: expected an object"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"host_copies\": {\"samples\": 0, \"gpus\": []}}}",
         "p2p.host_copies.samples: expected an integer from 1"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"host_copies\": {\"gpus\": [{\"gpu\": \"0\"}]}}}",
         "p2p.host_copies.gpus[0].gpu: expected an integer"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"host_copies\": {\"gpus\": [{\"all\": 3}]}}}",
         "p2p.host_copies.gpus[0].all: expected an object, got 3"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"host_copies\": {\"gpus\": [{\"single\": {\"d2h_gbps\": -1}}]}}}",
         "p2p.host_copies.gpus[0].single.d2h_gbps: expected a number from 0"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"host_copies\": {\"gpus\": [{\"remote\": {\"wrong\": 1.5}}]}}}",
         "p2p.host_copies.gpus[0].remote.wrong: expected an integer >= 0"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"host_copies\": {\"gpus\": [{\"remote_why\": 1}]}}}",
         "p2p.host_copies.gpus[0].remote_why: expected a string"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"skipped\": {}}}", "p2p.skipped: expected an array"},
        {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"skipped\": [{\"why\": 5}]}}", "p2p.skipped[0].why: expected a string"},
        {"{\"schema\": \"nvscale.run/1\", \"health\": {\"window_s\": 63.2, \"gpus\": [{\"pci_bus_id\": \"b\", "
         "\"before\": {\"ecc\": {\"enabled\": true, \"uncorrected_volatile\": 0}}}]}}",
         ""},
        {"{\"schema\": \"nvscale.run/1\", \"health\": null}", ""},
        {"{\"schema\": \"nvscale.run/1\", \"health\": []}", "health: expected an object with a \"gpus\" array"},
        {"{\"schema\": \"nvscale.run/1\", \"health\": {\"gpus\": [{\"pci_bus_id\": \"b\", \"after\": {\"pcie\": "
         "{\"replay_counter\": -4}}}]}}",
         "health.gpus[0].after.pcie.replay_counter: expected an integer >= 0 or null, got -4"},
        /* topology.hosts, which check's host rules read (a host's only GPU: its "all" copies are the single ones) */
        {"{\"schema\": \"nvscale.run/1\", \"topology\": {\"hosts\": [{\"name\": \"vm\", \"gpus\": [0, 1], "
         "\"numa_nodes\": 1, \"packages\": null, \"machine\": \"box\"}]}}",
         ""},
        {"{\"schema\": \"nvscale.run/1\", \"topology\": {\"hosts\": 5}}", "topology.hosts: expected an array, got 5"},
        {"{\"schema\": \"nvscale.run/1\", \"topology\": {\"hosts\": [\"vm\"]}}",
         "topology.hosts[0]: expected an object, got the string"},
        {"{\"schema\": \"nvscale.run/1\", \"topology\": {\"hosts\": [{\"name\": 5}]}}",
         "topology.hosts[0].name: expected a string, got 5"},
        {"{\"schema\": \"nvscale.run/1\", \"topology\": {\"hosts\": [{\"name\": \"vm\", \"gpus\": \"0,1\"}]}}",
         "topology.hosts[0].gpus: expected an array"},
        {"{\"schema\": \"nvscale.run/1\", \"topology\": {\"hosts\": [{\"name\": \"vm\", \"gpus\": [0, -1]}]}}",
         "topology.hosts[0].gpus[1]: expected an integer from 0 to 1000000000, got -1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_error_t je;
        json_t *root = json_loads(cases[i].json, JSON_DECODE_ANY, &je);
        if (!root) T_FAIL("case %zu does not parse: %s", i, je.text);
        nvs_run r;
        char err[512];
        nvs_result_t res = nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err);
        json_decref(root);
        if (!cases[i].msg[0]) {
            if (res != NVS_OK) T_FAIL("case %zu: refused: %s", i, err);
            nvs_run_free(&r);
            continue;
        }
        if (res != NVS_ERR_INPUT) T_FAIL("case %zu: accepted, expected \"%s\"", i, cases[i].msg);
        T_CONTAINS(err, cases[i].msg);
        T_ASSERT(!strncmp(err, "x.json: ", 8));
    }
}

/* nvs_run_select_train: one workload of "trains" by model name, alternative name or profile file; refused with
 * the ones the run trained; an error inside the chosen element is labelled with its index */
static void t_select_train(void)
{
    static const char doc[] =
        "{\"schema\": \"nvscale.run/1\", \"train\": {\"model\": \"a\", \"results\": [{\"n\": 1, \"step_us\": 10}]},"
        " \"trains\": [{\"model\": \"a\", \"results\": [{\"n\": 1, \"step_us\": 10}]},"
        "  {\"model\": \"b\", \"profile_file\": \"p/b.prof\", \"framework\": {\"name\": \"pytorch-ddp\","
        "   \"host_us_per_op\": 30, \"grad_scaler\": false}, \"results\": [{\"n\": 1, \"step_us\": 20}]},"
        "  {\"model\": \"c\", \"results\": [{\"n\": 2, \"step_us\": 30}]}]}";
    const char *names[][2] = {{"b", NULL}, {"x", "b"}, {"p/b.prof", NULL}};
    for (int i = 0; i < 3; i++) {
        json_t *root = json_loads(doc, 0, NULL);
        T_ASSERT(root != NULL);
        nvs_run r;
        char err[512];
        T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_OK);
        json_decref(root);
        T_EQ_S(r.train.model, "a");
        /* every workload is there without selecting it: check and report judge and show each */
        T_EQ_I((int)nvs_run_workloads(&r), 3);
        T_EQ_S(nvs_run_workload(&r, 2)->model, "c");
        T_NEAR(nvs_run_workload_named(&r, "c")->results[0].step_us, 30, 0);
        T_ASSERT(nvs_run_workload_named(&r, "d") == NULL);
        T_EQ_I(nvs_run_select_train(&r, names[i][0], names[i][1], err, sizeof err), NVS_OK);
        T_EQ_S(r.train.model, "b");
        T_EQ_S(r.train.profile_file, "p/b.prof");
        T_EQ_S(r.train.framework, "pytorch-ddp");
        T_NEAR(r.train.fw_host_us_per_op, 30, 0);
        T_EQ_I(r.train.fw_grad_scaler, 0);
        T_EQ_I(r.train.fw_bucket_copy, -1); /* not written: not known */
        T_NEAR(r.train.results[0].step_us, 20, 0);
        T_EQ_I(nvs_run_select_train(&r, "d", NULL, err, sizeof err), NVS_ERR_INPUT);
        T_CONTAINS(err, "trained a, b, c, not d");
        nvs_run_free(&r);
    }
    /* a bad workload is refused when the file is read, as a bad "train" is, naming it */
    static const char bad[] = "{\"schema\": \"nvscale.run/1\", \"trains\": [{\"model\": \"a\", \"results\": []},"
                              " {\"model\": \"c\", \"results\": [{\"n\": 0}]}]}";
    json_t *root = json_loads(bad, 0, NULL);
    T_ASSERT(root != NULL);
    nvs_run r;
    char err[512];
    T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "trains[1].results[0].n: expected an integer from 1");
    json_decref(root);
    nvs_run_free(&r);
    /* a run without "trains" has its one "train" as its only workload */
    static const char one[] = "{\"schema\": \"nvscale.run/1\", \"train\": {\"model\": \"a\", \"results\": []}}";
    root = json_loads(one, 0, NULL);
    T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_OK);
    T_EQ_I((int)nvs_run_workloads(&r), 1);
    T_ASSERT(nvs_run_workload(&r, 0) == &r.train);
    json_decref(root);
    nvs_run_free(&r);
}

/* doc read as run.json "x.json": nvs_run_from_json's result, -1 when doc is not JSON */
static int read_doc(const char *doc, nvs_run *r)
{
    char err[256];
    json_t *root = json_loads(doc, 0, NULL);
    if (!root) return -1;
    int rc = nvs_run_from_json(root, "x.json", 0, r, err, sizeof err);
    json_decref(root);
    return rc;
}

/* Pair lookups by GPU indices, either order, through the loader's sorted index: pairs listed in any order and
 * orientation; one not listed is NULL; and the answer is the scan's for every pair of 40 GPUs */
static void t_pair_lookup(void)
{
    char doc[16384];
    size_t len = (size_t)snprintf(doc, sizeof doc, "{\"schema\": \"nvscale.run/1\", \"topology\": {\"pairs\": ["
                                  "{\"a\": 7, \"b\": 3, \"class\": \"NV4\"}, {\"a\": 3, \"b\": 8, \"class\": \"SYS\"}, "
                                  "{\"a\": 0, \"b\": 1, \"class\": \"PIX\"}");
    /* then every pair (i, 39 - i) backwards, in alternating orientation: 20 more */
    for (int i = 19; i >= 0; i--)
        len += (size_t)snprintf(doc + len, sizeof doc - len, ", {\"a\": %d, \"b\": %d, \"class\": \"NV%d\"}",
                                i % 2 ? i : 39 - i, i % 2 ? 39 - i : i, i + 1);
    snprintf(doc + len, sizeof doc - len, "]}}");
    nvs_run r;
    T_EQ_I(read_doc(doc, &r), NVS_OK);
    T_EQ_S(nvs_run_pair_of(&r, 3, 7, NULL)->cls, "NV4");
    T_EQ_S(nvs_run_pair_of(&r, 8, 3, NULL)->cls, "SYS");
    T_EQ_S(nvs_run_pair_of(&r, 7, 3, NULL)->cls, "NV4");
    T_EQ_S(nvs_run_pair_of(&r, 1, 0, NULL)->cls, "PIX");
    T_ASSERT(nvs_run_pair_of(&r, 0, 2, NULL) == NULL);
    T_ASSERT(nvs_run_pair_of(&r, 40, 41, NULL) == NULL);
    T_EQ_S(nvs_run_pair_of(&r, 38, 1, NULL)->cls, "NV2");
    /* the index against a scan of the same pairs */
    nvs_run_topology scan = r.topology;
    scan.pair_index = NULL;
    for (int a = 0; a < 42; a++)
        for (int b = 0; b < 42; b++)
            if (nvs_run_topology_pair(&r.topology, a, b) != nvs_run_topology_pair(&scan, a, b))
                T_FAIL("pair %d-%d: the index and the scan differ", a, b);
    nvs_run_free(&r);
}

/* A pair listed twice (either order) is refused, naming the earliest repeat and its first: the lookups found only
 * the first, so the bound used hung on the file's order */
static void t_pair_twice(void)
{
    static const char doc[] = "{\"schema\": \"nvscale.run/1\", \"topology\": {\"pairs\": ["
                              "{\"a\": 0, \"b\": 1}, {\"a\": 7, \"b\": 3}, {\"a\": 2, \"b\": 5}, "
                              "{\"a\": 5, \"b\": 2}, {\"a\": 3, \"b\": 7}, {\"a\": 3, \"b\": 7}]}}";
    char err[256] = "";
    json_t *root = json_loads(doc, 0, NULL);
    T_ASSERT(root != NULL);
    nvs_run r;
    T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_ERR_INPUT);
    T_EQ_S(err, "x.json: topology.pairs[3]: GPUs 2 and 5 given twice (first at topology.pairs[2]): one entry per "
                "pair");
    json_decref(root);
}

/* A GPU index listed twice in topology.gpus is refused, naming the earliest repeat and its first (the lookups by
 * index found the first only); indices out of order are not a repeat */
static void t_gpu_twice(void)
{
    static const char doc[] = "{\"schema\": \"nvscale.run/1\", \"topology\": {\"gpus\": [{\"index\": 3}, "
                              "{\"index\": 1}, {\"index\": 2}, {\"index\": 1}, {\"index\": 3}]}}";
    char err[256] = "";
    json_t *root = json_loads(doc, 0, NULL);
    T_ASSERT(root != NULL);
    nvs_run r;
    T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_ERR_INPUT);
    T_EQ_S(err, "x.json: topology.gpus[3].index: GPU 1 given twice (first at topology.gpus[1]): one entry per GPU");
    json_decref(root);
    root = json_loads("{\"schema\": \"nvscale.run/1\", \"topology\": {\"gpus\": [{\"index\": 3}, "
                      "{\"index\": 0}]}}", 0, NULL);
    T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_OK);
    json_decref(root);
    nvs_run_free(&r);
}

/* runjson_size.c's rounding is collectives/coll.c's, by name: the same bytes for every collective, type, N and a
 * spread of sizes (a collective added there without its name here would read -1) */
static void t_coll_round(void)
{
    static const size_t sizes[] = {0, 1, 7, 8, 15, 16, 17, 48, 100, 1000, 1024, 4095, 65536, 1048576, 1048577,
                                   3000000, 1073741824};
    for (int i = 0; i < nvs_coll_count(); i++) {
        const nvs_coll *c = nvs_coll_at(i);
        for (int t = 0; t < NVS_DTYPE_COUNT; t++) {
            size_t ts = nvs_dtype_size((nvs_dtype)t);
            for (int n = 1; n <= 9; n++)
                for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                    nvs_coll_counts cc;
                    double want = c->counts(sizes[k], ts, n, 0, &cc) == 0 ? (double)cc.bytes : 0;
                    double got = nvs_run_coll_round(c->name, ts, n, (double)sizes[k]);
                    if (got != want)
                        T_FAIL("%s %s n=%d size %zu: runjson rounds to %.0f, the collective to %.0f", c->name,
                               nvs_dtype_name((nvs_dtype)t), n, sizes[k], got, want);
                }
        }
    }
    T_NEAR(nvs_run_coll_round("all_gather", 4, 3, 1048576), 1048560, 0);
    T_NEAR(nvs_run_coll_round("no_such", 4, 3, 1048576), -1, 0);
}

/* A row of a file written before "size": its size is the planned size that rounds to its bytes at that N */
static void t_size_of_bytes(void)
{
    size_t plan[64];
    size_t np = nvs_sweep_sizes(1024, 1 << 20, 4, 0, plan, 64); /* -b 1K -e 1M -f 4: 1K 4K 16K 64K 256K 1M */
    T_EQ_U(np, 6);
    T_NEAR(nvs_run_size_of_bytes("all_gather", "float", 3, 1048560, plan, np), 1048576, 0);
    T_NEAR(nvs_run_size_of_bytes("reduce_scatter", "half", 7, 1048544, plan, np), 1048576, 0);
    T_NEAR(nvs_run_size_of_bytes("alltoall", "double", 5, 960, plan, np), 1024, 0);
    T_NEAR(nvs_run_size_of_bytes("all_gather", "float", 2, 1048576, plan, np), 1048576, 0);
    T_NEAR(nvs_run_size_of_bytes("all_reduce", "float", 3, 1048576, plan, np), 1048576, 0);
    /* nothing planned rounds to it, no plan, an unknown type or collective: the bytes stand */
    T_NEAR(nvs_run_size_of_bytes("all_gather", "float", 3, 1048500, plan, np), 1048500, 0);
    T_NEAR(nvs_run_size_of_bytes("all_gather", "float", 3, 1048560, NULL, 0), 1048560, 0);
    T_NEAR(nvs_run_size_of_bytes("all_gather", "quad", 3, 1048560, plan, np), 1048560, 0);
    T_NEAR(nvs_run_size_of_bytes("all_gather", NULL, 3, 1048560, plan, np), 1048560, 0);
    T_NEAR(nvs_run_size_of_bytes("gather_all", "float", 3, 1048560, plan, np), 1048560, 0);
    /* -i 8 from 48 B: 48 and 56 B both give 3 ranks one 16-byte block each (48 B): which, the file cannot say */
    np = nvs_sweep_sizes(48, 64, 0, 8, plan, 64);
    T_NEAR(nvs_run_size_of_bytes("all_gather", "float", 3, 48, plan, np), 48, 0);
    /* -i 1000: 1000 B of double is 992 B (whole elements only when sent flat: 1000 / 8 = 125 elements = 1000) */
    np = nvs_sweep_sizes(1000, 3000, 0, 1000, plan, 64);
    T_NEAR(nvs_run_size_of_bytes("all_gather", "double", 6, 960, plan, np), 1000, 0);
    T_NEAR(nvs_run_size_of_bytes("all_gather", "double", 6, 2976, plan, np), 3000, 0);

    /* read back: a 3-rank all_gather row without "size", with and without the plan it swept */
    const char *rows = "\"collectives\": [{\"collective\": \"all_gather\", \"n\": 3, \"type\": \"float\", "
                       "\"bytes\": 1048560}, {\"collective\": \"all_gather\", \"n\": 2, \"type\": \"float\", "
                       "\"bytes\": 1048576}]";
    char doc[1024];
    snprintf(doc, sizeof doc, "{\"schema\": \"nvscale.run/1\", \"sweep\": {\"min_bytes\": 1024, \"max_bytes\": "
             "1048576, \"step_factor\": 4, \"step_bytes\": 0}, %s}", rows);
    nvs_run r;
    T_EQ_I(read_doc(doc, &r), NVS_OK);
    T_NEAR(r.colls[0].size, 1048576, 0);
    T_ASSERT(nvs_run_coll_find(&r, "all_gather", 3, 1048576) == &r.colls[0]);
    double *sz = NULL;
    T_EQ_I(nvs_run_coll_sizes(&r, "all_gather", &sz), 1); /* one size at N=2 and 3, not two */
    free(sz);
    nvs_run_free(&r);
    snprintf(doc, sizeof doc, "{\"schema\": \"nvscale.run/1\", %s}", rows);
    T_EQ_I(read_doc(doc, &r), NVS_OK);
    T_NEAR(r.colls[0].size, 1048560, 0);
    nvs_run_free(&r);
}

/* sweep.skipped read back: what report and check say was left out */
static void t_skipped(void)
{
    const char *doc = "{\"schema\": \"nvscale.run/1\", \"sweep\": {\"skipped\": [{\"collective\": \"all_gather\", "
                      "\"n\": 4, \"type\": \"float\", \"sizes\": 3, \"of\": 3, \"from_bytes\": 8, \"to_bytes\": 32, "
                      "\"why\": \"no size measured\"}, {\"collective\": \"alltoall\", \"n\": 2}]}}";
    nvs_run r;
    T_EQ_I(read_doc(doc, &r), NVS_OK);
    T_EQ_U(r.nskipped, 2);
    T_EQ_S(r.skipped[0].collective, "all_gather");
    T_EQ_I(r.skipped[0].n, 4);
    T_EQ_S(r.skipped[0].type, "float");
    T_EQ_I(r.skipped[0].sizes, 3);
    T_EQ_I(r.skipped[0].of, 3);
    T_NEAR(r.skipped[0].from_bytes, 8, 0);
    T_NEAR(r.skipped[0].to_bytes, 32, 0);
    T_EQ_S(r.skipped[0].why, "no size measured");
    T_ASSERT(r.skipped[1].type == NULL && r.skipped[1].why == NULL && r.skipped[1].sizes == -1);
    T_ASSERT(isnan(r.skipped[1].from_bytes));
    nvs_run_free(&r);
}

/* sweep.blocking: -z as written since 6 December 2026 (0, 1 with a barrier, 2 without, as nccl-tests), and the older
 * boolean, whose true was the wait alone (today's 2) */
static void t_blocking(void)
{
    const char *js[] = {"{\"schema\": \"nvscale.run/1\", \"sweep\": {\"blocking\": 1}}",
                        "{\"schema\": \"nvscale.run/1\", \"sweep\": {\"blocking\": 2}}",
                        "{\"schema\": \"nvscale.run/1\", \"sweep\": {\"blocking\": true}}",
                        "{\"schema\": \"nvscale.run/1\", \"sweep\": {\"blocking\": false}}",
                        "{\"schema\": \"nvscale.run/1\", \"sweep\": {}}"};
    const int want[] = {1, 2, 2, 0, -1};
    for (int i = 0; i < 5; i++) {
        json_error_t je;
        json_t *root = json_loads(js[i], 0, &je);
        T_ASSERT(root);
        nvs_run r;
        char err[256];
        T_EQ_I(nvs_run_from_json(root, "x.json", 0, &r, err, sizeof err), NVS_OK);
        json_decref(root);
        T_EQ_I(r.sweep_blocking, want[i]);
        nvs_run_free(&r);
    }
}

T_LIST = {T_CASE(t_nvlink_fixture), T_CASE(t_minimal_and_optional), T_CASE(t_p2p_samples), T_CASE(t_issue_by), T_CASE(t_train_counts), T_CASE(t_box3090), T_CASE(t_bad_files),
          T_CASE(t_messages), T_CASE(t_select_train), T_CASE(t_pair_lookup), T_CASE(t_pair_twice), T_CASE(t_gpu_twice),
          T_CASE(t_coll_round), T_CASE(t_size_of_bytes), T_CASE(t_skipped), T_CASE(t_blocking)};
T_MAIN
