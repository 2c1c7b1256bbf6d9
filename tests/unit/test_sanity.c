/* runjson/sanity.h: the efficiency above 100 % beyond noise and the busbw above its link's bound are found,
 * named and explained; sound numbers, unknown bounds and N=1 are left alone. */
#include <jansson.h>

#include "runjson/sanity.h"
#include "t.h"

static nvs_run load(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    if (!j) T_FAIL("fixture JSON: %s", je.text);
    nvs_run r;
    char err[256];
    if (nvs_run_from_json(j, "t.json", 0, &r, err, sizeof err) != NVS_OK) T_FAIL("%s", err);
    json_decref(j);
    return r;
}

static void t_findings(void)
{
    nvs_run r = load("{\"schema\": \"nvscale.run/1\", \"host\": \"h\","
                     " \"collectives\": ["
                     "  {\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1073741824, \"busbw_gbps\": 600},"
                     "  {\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1048576, \"busbw_gbps\": 480},"
                     "  {\"collective\": \"all_reduce\", \"n\": 4, \"bytes\": 1048576, \"busbw_gbps\": 999},"
                     "  {\"collective\": \"all_reduce\", \"n\": 1, \"bytes\": 8, \"busbw_gbps\": null}],"
                     " \"train\": {\"model\": \"tiny\", \"results\": ["
                     "  {\"n\": 1, \"step_us\": 100, \"efficiency\": 1.0},"
                     "  {\"n\": 2, \"step_us\": 68.3, \"efficiency\": 1.464},"
                     "  {\"n\": 4, \"step_us\": 96, \"efficiency\": 1.04}]},"
                     " \"explain\": [{\"n\": 2, \"slowest_hop\": {\"from_gpu\": 0, \"to_gpu\": 1, \"class\": \"NV18\","
                     "  \"bound_gbps\": 478.1}}]}");
    nvs_sanity s[8];
    size_t n = nvs_sanity_of(&r, s, 8);
    T_EQ_U(n, 2); /* 480 is within 5 % of 478.1; 1.04 within noise; N=4 has no bound */
    T_EQ_S(s[0].kind, "efficiency");
    T_EQ_I(s[0].n, 2);
    T_CONTAINS(s[0].text, "146.4 %");
    T_EQ_S(s[1].kind, "bound");
    T_EQ_S(s[1].what, "busbw all_reduce 1 GiB n=2");
    T_CONTAINS(s[1].text, "600.0 GB/s is above the 478.1 GB/s bound of the ring's slowest hop (NV18)");
    T_EQ_U(nvs_sanity_of(&r, s, 1), 2); /* the count, also when only one fits */
    nvs_run_free(&r);
}

/* A run of several workloads (--model bert-large,resnet50): each one's efficiency is looked at, and the finding
 * names its model; the second's 146 % went without a word (only "train", the first, was read) */
static void t_workloads(void)
{
    nvs_run r = load("{\"schema\": \"nvscale.run/1\","
                     " \"train\": {\"model\": \"bert-large\", \"results\": ["
                     "  {\"n\": 1, \"efficiency\": 1.0}, {\"n\": 2, \"efficiency\": 0.95}]},"
                     " \"trains\": ["
                     "  {\"model\": \"bert-large\", \"results\": [{\"n\": 1, \"efficiency\": 1.0},"
                     "   {\"n\": 2, \"efficiency\": 0.95}]},"
                     "  {\"model\": \"resnet50\", \"results\": [{\"n\": 1, \"efficiency\": 1.0},"
                     "   {\"n\": 2, \"efficiency\": 1.46}]}]}");
    nvs_sanity s[4];
    T_EQ_U(nvs_sanity_of(&r, s, 4), 1);
    T_EQ_S(s[0].kind, "efficiency");
    T_EQ_S(s[0].what, "training efficiency resnet50 n=2");
    T_CONTAINS(s[0].text, "resnet50's training efficiency 146.0 % at N=2");
    nvs_run_free(&r);
}

/* The host backend's ranks are CPU processes: its finding says "ranks", not "GPUs" (it said "N GPUs stepped
 * faster" in a run without a GPU) */
static void t_host_backend(void)
{
    nvs_run r = load("{\"schema\": \"nvscale.run/1\", \"command\": {\"subcommand\": \"run\", \"backend\": \"mpi\"},"
                     " \"train\": {\"model\": \"resnet50\", \"results\": ["
                     "  {\"n\": 1, \"efficiency\": 1.0}, {\"n\": 2, \"efficiency\": 1.143}]}}");
    nvs_sanity s[4];
    T_EQ_U(nvs_sanity_of(&r, s, 4), 1);
    T_CONTAINS(s[0].text, ": N ranks stepped faster than the reference");
    nvs_run_free(&r);
    r = load("{\"schema\": \"nvscale.run/1\", \"command\": {\"subcommand\": \"run\", \"backend\": \"nccl\"},"
             " \"train\": {\"model\": \"resnet50\", \"results\": ["
             "  {\"n\": 1, \"efficiency\": 1.0}, {\"n\": 2, \"efficiency\": 1.143}]}}");
    T_EQ_U(nvs_sanity_of(&r, s, 4), 1);
    T_CONTAINS(s[0].text, ": N GPUs stepped faster than the reference");
    nvs_run_free(&r);
}

/* -c 0: the rows' "wrong" is null, nothing says the data arrived right; check passed such a run with no word */
static void t_unvalidated(void)
{
    static const char *const fmt = "{\"schema\": \"nvscale.run/1\", \"sweep\": {\"check\": %s},"
                                   " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 8,"
                                   " \"busbw_gbps\": 1, \"wrong\": %s}]}";
    char text[512];
    nvs_sanity s[2];
    snprintf(text, sizeof text, fmt, "0", "null");
    nvs_run r = load(text);
    T_EQ_U(nvs_sanity_of(&r, s, 2), 1);
    T_EQ_S(s[0].kind, "unvalidated");
    T_CONTAINS(s[0].text, "the 1 collective rows were not validated (run with -c 0)");
    nvs_run_free(&r);
    snprintf(text, sizeof text, fmt, "1", "0"); /* validated: nothing to say */
    r = load(text);
    T_EQ_U(nvs_sanity_of(&r, s, 2), 0);
    nvs_run_free(&r);
}

T_LIST = {T_CASE(t_unvalidated), T_CASE(t_findings), T_CASE(t_workloads), T_CASE(t_host_backend)};
T_MAIN
