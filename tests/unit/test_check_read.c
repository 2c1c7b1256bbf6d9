/* Reading run.json for check/compare (src/check/check_read.c): the fields it takes, and a message naming the field for
 * every malformed one. Runs from the repository root (tests/run.sh), where the fixtures are. */
#include "check/check_read.h"

#include <math.h>

#include "check/check_baseline.h"
#include "t.h"

static void t_fixture(void)
{
    FILE *f = fopen("tests/fixtures/check/run_h200x2.json", "r");
    if (!f) T_SKIP("tests/fixtures/check/run_h200x2.json not found (run from the repository root)");
    fclose(f);
    nvs_ck_run r;
    T_EQ_I(nvs_ck_read_run("tests/fixtures/check/run_h200x2.json", "test", &r), NVS_OK);
    T_EQ_S(r.status, "ok");
    T_EQ_S(r.host, "vm");
    T_EQ_S(r.backend, "nccl");
    T_EQ_I(r.world_size, 2);
    T_EQ_U(r.nns, 2);
    T_EQ_I(r.ns[1], 2);
    T_EQ_U(r.ncoll, 48); /* 2 N x 2 collectives x 6 sizes x in/out of place */
    T_EQ_S(r.coll[0].collective, "all_reduce");
    T_EQ_I(r.coll[0].inplace, 0);
    T_EQ_U(r.coll[0].bytes, 1048576);
    T_EQ_I(r.has_p2p, 1);
    T_EQ_U(r.npairs, 2);
    T_NEAR(r.pairs[0].uni_gbps, 390.1, 1e-9);
    T_EQ_S(r.pairs[0].cls, "NV18");
    T_EQ_I(r.has_train, 1);
    T_NEAR(r.train[1].efficiency, 0.9615, 1e-12);
    T_EQ_I(r.has_transports, 1);
    T_EQ_U(r.ntransports, 1);
    T_EQ_S(r.transports[0].link, "NVLink");
    T_EQ_S(r.transports[0].summary[0].name, "P2P");
    T_EQ_I(r.transports[0].summary[0].channels, 24);
    T_EQ_S(r.transports[0].details[0], "P2P/CUMEM");
    T_EQ_U(r.nhops, 1);
    T_EQ_S(r.hops[0].cls, "NV18");
    T_EQ_U(r.nranks, 2);
    T_EQ_I(r.ranks[1].device, 1);
    nvs_ck_run_free(&r);
}

static void t_minimal_and_nulls(void)
{
    const char *text = "{\"schema\": \"nvscale.run/1\", \"collectives\": ["
                       "{\"collective\": \"allreduce\", \"n\": 4, \"bytes\": 8, \"busbw_gbps\": null, \"wrong\": null},"
                       "{\"collective\": \"broadcast\", \"n\": 2, \"bytes\": 16, \"time_us\": {\"max\": 3.5}}]}";
    char err[256] = "";
    nvs_ck_run r;
    T_EQ_I(nvs_ck_parse_run(text, "t", &r, err, sizeof err), NVS_OK);
    T_EQ_S(r.coll[0].collective, "all_reduce");
    T_ASSERT(isnan(r.coll[0].busbw_gbps)); /* null = not measured, never 0 */
    T_EQ_I(r.coll[0].wrong, -1);
    T_EQ_I(r.coll[0].slowest_rank, -1);
    T_EQ_I(r.coll[0].inplace, -1);
    T_NEAR(r.coll[1].time_max_us, 3.5, 0);
    T_ASSERT(isnan(r.coll[1].time_min_us));
    T_EQ_S(r.status, ""); /* no result section */
    T_EQ_I(r.has_p2p, 0);
    T_EQ_I(r.has_train, 0);
    T_EQ_I(r.has_transports, 0);
    /* no scaling section: the counts are those measured, ascending */
    T_EQ_U(r.nns, 2);
    T_EQ_I(r.ns[0], 2);
    T_EQ_I(r.ns[1], 4);
    nvs_ck_run_free(&r);
}

static const struct {
    const char *text, *msg;
} bad[] = {
    {"", "not valid JSON"},
    {"{\"schema\": \"nvscale.run/1\",}", "not valid JSON"},
    {"[]", "not a JSON object"},
    {"{}", "no \"schema\" string"},
    {"{\"schema\": \"nvscale.run/2\"}", "schema \"nvscale.run/2\""},
    {"{\"schema\": \"nvscale.run/1\", \"schema\": \"nvscale.run/1\"}", "duplicate"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": {}}", "collectives: expected an array"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [3]}", "collectives[0]: expected an object"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"n\": 2, \"bytes\": 8}]}", "collectives[0].collective: missing"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"gather\", \"n\": 2, \"bytes\": 8}]}",
     "unknown collective 'gather'"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"reduce\", \"n\": 0, \"bytes\": 8}]}",
     "collectives[0].n: 0 out of range"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"reduce\", \"n\": 2.0, \"bytes\": 8}]}",
     "collectives[0].n: expected an integer"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"reduce\", \"n\": 2, \"bytes\": -8}]}",
     "collectives[0].bytes: expected an integer >= 0"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"reduce\", \"n\": 2, \"bytes\": 8, "
     "\"busbw_gbps\": \"fast\"}]}", "collectives[0].busbw_gbps: expected a number or null"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"reduce\", \"n\": 2, \"bytes\": 8, "
     "\"busbw_gbps\": -1}]}", "collectives[0].busbw_gbps: -1 is not a measurement"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"reduce\", \"n\": 2, \"bytes\": 8, "
     "\"time_us\": 3}]}", "collectives[0].time_us: expected an object"},
    {"{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"reduce\", \"n\": 2, \"bytes\": 8, "
     "\"inplace\": 1}]}", "collectives[0].inplace: expected true or false"},
    {"{\"schema\": \"nvscale.run/1\", \"p2p\": {\"pairs\": [{\"src\": 0}]}}", "p2p.pairs[0].dst: missing"},
    {"{\"schema\": \"nvscale.run/1\", \"p2p\": []}", "p2p: expected an object"},
    {"{\"schema\": \"nvscale.run/1\", \"train\": {\"results\": [{\"n\": 1, \"efficiency\": true}]}}",
     "train.results[0].efficiency: expected a number"},
    {"{\"schema\": \"nvscale.run/1\", \"result\": {\"status\": \"fine\"}}", "result.status: 'fine' is not ok"},
    {"{\"schema\": \"nvscale.run/1\", \"scaling\": [{\"n\": \"2\"}]}", "scaling[0].n: expected an integer"},
    {"{\"schema\": \"nvscale.run/1\", \"transports\": [{\"n\": 2, \"summary\": {\"P2P\": -1}}]}",
     "transports[0].summary.P2P: expected a channel count"},
    {"{\"schema\": \"nvscale.run/1\", \"ranks\": [{\"rank\": 0, \"host\": 7}]}", "ranks[0].host: expected a string"},
};

static void t_bad(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512] = "";
        nvs_ck_run r;
        nvs_result_t res = nvs_ck_parse_run(bad[i].text, "t", &r, err, sizeof err);
        if (res != NVS_ERR_INPUT) T_FAIL("case %zu (%s): result %d, expected NVS_ERR_INPUT", i, bad[i].text, res);
        if (!strstr(err, bad[i].msg)) T_FAIL("case %zu: message \"%s\" lacks \"%s\"", i, err, bad[i].msg);
    }
}

static void t_baseline_trim(void)
{
    const char *text = "{\"schema\": \"nvscale.run/1\", \"host\": \"vm\", \"explain\": [{\"n\": 2}],"
                       "\"train\": {\"model\": \"m\", \"buckets\": [{\"bytes\": 1}], \"results\": []},"
                       "\"transports\": [{\"n\": 2, \"channels\": [], \"log_files\": [\"a\"], \"link\": \"NVLink\"}],"
                       "\"result\": {\"status\": \"ok\"}}";
    char *out = NULL, err[256] = "";
    T_EQ_I(nvs_baseline_from_text(text, "runs/a/run.json", &out, err, sizeof err), NVS_OK);
    T_CONTAINS(out, "\"schema\": \"nvscale.run/1\"");
    T_CONTAINS(out, "\"source_run\": \"runs/a/run.json\"");
    T_CONTAINS(out, "\"link\": \"NVLink\"");
    T_ASSERT(!strstr(out, "explain"));
    T_ASSERT(!strstr(out, "buckets"));
    T_ASSERT(!strstr(out, "channels"));
    T_ASSERT(!strstr(out, "log_files"));
    /* and it reads back as a run */
    nvs_ck_run r;
    T_EQ_I(nvs_ck_parse_run(out, "baseline", &r, err, sizeof err), NVS_OK);
    T_EQ_S(r.status, "ok");
    T_EQ_S(r.transports[0].link, "NVLink");
    nvs_ck_run_free(&r);
    free(out);
    T_EQ_I(nvs_baseline_from_text("{", "x", &out, err, sizeof err), NVS_ERR_INPUT);
    T_ASSERT(out == NULL);
}

T_LIST = {T_CASE(t_fixture), T_CASE(t_minimal_and_nulls), T_CASE(t_bad), T_CASE(t_baseline_trim)};
T_MAIN
