/* What nvscale check takes from a run.json through the shared reader (src/runjson/runjson.c): the fixture's
 * fields check uses, collective names in the registry's spelling, and the baseline (src/check/check_baseline.c)
 * trimmed from a run and read back as one. The reader's own messages: test_runjson.c. Runs from the repository
 * root (tests/run.sh), where the fixtures are. */
#include <math.h>

#include "check/check_baseline.h"
#include "check/check_eval.h"
#include "runjson/runjson.h"
#include "t.h"

#define FX "tests/fixtures/check/"

static void t_fixture(void)
{
    FILE *f = fopen(FX "run_h200x2.json", "r");
    if (!f) T_SKIP(FX "run_h200x2.json not found (run from the repository root)");
    fclose(f);
    nvs_run r;
    char err[256];
    T_EQ_I(nvs_run_load(FX "run_h200x2.json", 0, &r), NVS_OK);
    T_EQ_I(nvs_check_run_names(&r, err, sizeof err), NVS_OK);
    T_EQ_S(r.result_status, "ok");
    T_EQ_I(r.result_wrong_total, 0);
    T_EQ_S(r.host, "vm");
    T_EQ_S(r.backend, "nccl");
    T_EQ_I(r.world_size, 2);
    int *ns = NULL;
    T_EQ_I(nvs_run_ns(&r, &ns), 2);
    T_EQ_I(ns[1], 2);
    free(ns);
    T_EQ_U(r.ncolls, 48); /* 2 N x 2 collectives x 6 sizes x in/out of place */
    T_EQ_S(r.colls[0].collective, "all_reduce");
    T_EQ_I(r.colls[0].inplace, 0);
    T_NEAR(r.colls[0].bytes, 1048576, 0);
    T_EQ_I(r.p2p.present, 1);
    T_EQ_U(r.p2p.npairs, 2);
    T_NEAR(r.p2p.pairs[0].uni_gbps, 390.1, 1e-9);
    T_EQ_S(r.p2p.pairs[0].cls, "NV18");
    T_EQ_I(r.train.present, 1);
    T_NEAR(r.train.results[1].efficiency, 0.9615, 1e-12);
    T_EQ_U(r.ntransports, 1);
    T_EQ_S(r.transports[0].link, "NVLink");
    T_EQ_S(r.transports[0].summary[0].key, "P2P");
    T_EQ_I(r.transports[0].summary_counts[0], 24);
    const nvs_run_explain *h = nvs_check_slowest_hop(&r);
    T_ASSERT(h != NULL);
    T_EQ_S(h->hop_class, "NV18");
    T_EQ_U(r.nranks, 2);
    T_EQ_I(r.ranks[1].device, 1);
    nvs_run_free(&r);
}

/* A run.json text through the reader and check's name pass; err gets the message. */
static nvs_result_t parse(const char *text, nvs_run *r, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) T_FAIL("test text does not parse: %s", je.text);
    nvs_result_t res = nvs_run_from_json(root, "t", 0, r, err, errlen);
    json_decref(root);
    if (res == NVS_OK && (res = nvs_check_run_names(r, err, errlen)) != NVS_OK) nvs_run_free(r);
    return res;
}

static void t_minimal_and_nulls(void)
{
    const char *text = "{\"schema\": \"nvscale.run/1\", \"collectives\": ["
                       "{\"collective\": \"allreduce\", \"n\": 4, \"bytes\": 8, \"busbw_gbps\": null, \"wrong\": null},"
                       "{\"collective\": \"broadcast\", \"n\": 2, \"bytes\": 16, \"time_us\": {\"max\": 3.5}}]}";
    char err[256] = "";
    nvs_run r;
    T_EQ_I(parse(text, &r, err, sizeof err), NVS_OK);
    T_EQ_S(r.colls[0].collective, "all_reduce");
    T_ASSERT(isnan(r.colls[0].busbw_gbps)); /* null = not measured, never 0 */
    T_EQ_I(r.colls[0].wrong, -1);
    T_EQ_I(r.colls[0].slowest_rank, -1);
    T_EQ_I(r.colls[0].inplace, 0); /* absent: out-of-place, the schema's default */
    T_NEAR(r.colls[1].time_max_us, 3.5, 0);
    T_ASSERT(isnan(r.colls[1].time_min_us));
    T_ASSERT(r.result_status == NULL); /* no result section */
    T_EQ_I(r.p2p.present, 0);
    T_EQ_I(r.train.present, 0);
    T_EQ_U(r.ntransports, 0);
    /* no scaling section: the counts are those measured, ascending */
    int *ns = NULL;
    T_EQ_I(nvs_run_ns(&r, &ns), 2);
    T_EQ_I(ns[0], 2);
    T_EQ_I(ns[1], 4);
    free(ns);
    nvs_run_free(&r);

    const char *unknown = "{\"schema\": \"nvscale.run/1\", \"collectives\": ["
                          "{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 8},"
                          "{\"collective\": \"gather\", \"n\": 2, \"bytes\": 8}]}";
    T_EQ_I(parse(unknown, &r, err, sizeof err), NVS_ERR_INPUT);
    T_EQ_S(err, "collectives[1].collective: unknown collective 'gather'");
    T_ASSERT(r.root == NULL);
}

static void t_baseline_trim(void)
{
    const char *text = "{\"schema\": \"nvscale.run/1\", \"host\": \"vm\", \"explain\": [{\"n\": 2}],"
                       "\"train\": {\"model\": \"m\", \"buckets\": [{\"bytes\": 1}], \"results\": []},"
                       "\"transports\": [{\"n\": 2, \"channels\": [], \"log_files\": [\"a\"], \"link\": \"NVLink\"}],"
                       "\"result\": {\"status\": \"ok\"}}";
    char err[256] = "";
    nvs_run r;
    T_EQ_I(parse(text, &r, err, sizeof err), NVS_OK);
    json_t *b = nvs_baseline_build(&r);
    T_ASSERT(b != NULL);
    nvs_run_free(&r);
    char *out = json_dumps(b, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    T_ASSERT(out != NULL);
    T_CONTAINS(out, "\"schema\": \"nvscale.run/1\"");
    T_CONTAINS(out, "\"source_run\": \"t\"");
    T_CONTAINS(out, "\"link\": \"NVLink\"");
    T_ASSERT(!strstr(out, "explain"));
    T_ASSERT(!strstr(out, "buckets"));
    T_ASSERT(!strstr(out, "channels"));
    T_ASSERT(!strstr(out, "log_files"));
    /* and it reads back as a run */
    T_EQ_I(parse(out, &r, err, sizeof err), NVS_OK);
    T_EQ_S(r.result_status, "ok");
    T_EQ_S(r.transports[0].link, "NVLink");
    nvs_run_free(&r);
    free(out);
    json_decref(b);
}

T_LIST = {T_CASE(t_fixture), T_CASE(t_minimal_and_nulls), T_CASE(t_baseline_trim)};
T_MAIN
