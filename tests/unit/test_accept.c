/* accept's pure parts: the new rule metrics and keys (rules.c), the built-in rules per level
 * (accept_rules.c) and the judging of health / host / sustain / gpu rules on a run document (check_accept.c), with
 * the GPU datasheet table (gpu_specs.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check/accept_rules.h"
#include "check/check_accept.h"
#include "check/gpu_specs.h"
#include "t.h"

static void t_parse_new_rules(void)
{
    nvs_rule r;
    char err[256];
    T_EQ_I(nvs_rule_parse_line("health ecc", &r, err, sizeof err), 0);
    T_EQ_I(r.metric, NVS_RULE_HEALTH);
    T_EQ_I(r.health_check, NVS_HC_ECC);
    T_EQ_I(nvs_rule_parse_line("health * severity=warn", &r, err, sizeof err), 0);
    T_EQ_I(r.health_check, -1);
    T_EQ_I(r.warn_only, 1);
    T_EQ_I(nvs_rule_parse_line("host bidir mode=all gpu=3 min_bound=55%", &r, err, sizeof err), 0);
    T_EQ_I(r.host_dir, 2);
    T_EQ_I(r.host_mode, 1);
    T_EQ_I(r.gpu, 3);
    T_NEAR(r.min_bound_pct, 55, 1e-12);
    T_EQ_I(nvs_rule_parse_line("busbw all_reduce size=1G n=max min_bound=60%", &r, err, sizeof err), 0);
    T_EQ_I(r.has_min_bound && !r.has_min, 1);
    T_EQ_I(nvs_rule_parse_line("sustain busbw max_drop=10% min=200", &r, err, sizeof err), 0);
    T_NEAR(r.max_drop_pct, 10, 1e-12);
    T_EQ_I(nvs_rule_parse_line("p2p uni min_bound=0%", &r, err, sizeof err), -1);
    T_CONTAINS(err, "out of range");
    /* a bare fraction would be a percent 100x laxer than meant: refused; with the % written, or >= 1, as before */
    T_EQ_I(nvs_rule_parse_line("p2p uni min_bound=0.8", &r, err, sizeof err), -1);
    T_CONTAINS(err, "min_bound: 0.8 is read as 0.8 %; write 80 or 80% for 80 %");
    T_EQ_I(nvs_rule_parse_line("gpu gemm min_peer=0.925", &r, err, sizeof err), -1);
    T_CONTAINS(err, "min_peer: 0.925 is read as 0.925 %; write 92.5 or 92.5% for 92.5 %");
    T_EQ_I(nvs_rule_parse_line("p2p uni min_bound=0.8%", &r, err, sizeof err), 0);
    T_NEAR(r.min_bound_pct, 0.8, 1e-12);
    T_EQ_I(nvs_rule_parse_line("gpu gemm min_peer=90 min_bound=1", &r, err, sizeof err), 0);
    T_NEAR(r.min_peer_pct, 90, 1e-12);
    T_NEAR(r.min_bound_pct, 1, 1e-12);
    T_EQ_I(nvs_rule_parse_line("host h2d", &r, err, sizeof err), -1);
    T_CONTAINS(err, "missing threshold");
    T_EQ_I(nvs_rule_parse_line("efficiency train n=2 min_bound=50%", &r, err, sizeof err), -1);
    T_CONTAINS(err, "unknown key 'min_bound' for efficiency");
    T_EQ_I(nvs_rule_parse_line("health gpu=1", &r, err, sizeof err), -1);
    T_CONTAINS(err, "health needs a check");
}

static void t_default_rules(void)
{
    char text[4096];
    int n;
    nvs_accept_facts all = {2, 1, 1, 1, 1, 1, 1, 0};
    T_ASSERT(nvs_accept_rules_text(&all, text, sizeof text, &n) > 0);
    T_EQ_I(n, 21);
    T_CONTAINS(text, "p2p uni min_bound=75%");
    T_CONTAINS(text, "busbw all_reduce size=1G n=max min_bound=60%");
    T_ASSERT(!strstr(text, "sustain"));
    /* the text is a rules file: it parses, with every rule from "built-in level 2" */
    nvs_ruleset rs = {0};
    char err[256];
    T_EQ_I(nvs_accept_default_rules(&all, &rs, err, sizeof err), 0);
    T_EQ_U(rs.n, 21);
    T_EQ_S(rs.v[0].source, "built-in level 2");
    nvs_ruleset_free(&rs);
    /* the host backend without NVML: nothing applies; every rule is there as a skipped comment */
    nvs_accept_facts none = {2, 0, 0, 0, 0, 0, 0, 0};
    T_ASSERT(nvs_accept_rules_text(&none, text, sizeof text, &n) > 0);
    T_EQ_I(n, 0);
    T_CONTAINS(text, "# skipped (no GPU: the host backend ran): p2p uni min_bound=75%");
    T_EQ_I(nvs_accept_default_rules(&none, &rs, err, sizeof err), 0);
    T_EQ_U(rs.n, 0);
    /* level 1: health only; level 3 adds the sustained load */
    nvs_accept_facts l1 = {1, 1, 1, 1, 1, 1, 1, 1}, l3 = {3, 1, 1, 1, 1, 1, 1, 1};
    T_ASSERT(nvs_accept_rules_text(&l1, text, sizeof text, &n) > 0);
    T_EQ_I(n, 10);
    T_ASSERT(!strstr(text, "health clocks"));
    T_ASSERT(nvs_accept_rules_text(&l3, text, sizeof text, &n) > 0);
    T_EQ_I(n, 22);
    T_CONTAINS(text, "sustain busbw max_drop=10%");
    /* the GPU count: a rule at every level, first; skipped only when the host backend was asked for */
    l1.gpus_min = 8;
    T_ASSERT(nvs_accept_rules_text(&l1, text, sizeof text, &n) > 0);
    T_EQ_I(n, 11);
    T_CONTAINS(text, "\ngpus per_host min=8\n# health");
    none.gpus_min = 1;
    T_EQ_I(nvs_accept_default_rules(&none, &rs, err, sizeof err), 0);
    T_EQ_U(rs.n, 1);
    T_EQ_I(rs.v[0].metric, NVS_RULE_GPUS);
    nvs_ruleset_free(&rs);
    none.gpus_min = 0;
    T_ASSERT(nvs_accept_rules_text(&none, text, sizeof text, &n) > 0);
    T_CONTAINS(text, "# skipped (--backend mpi: a host without GPUs asked for): gpus per_host min=1");
}

/* a run document with two GPUs' health, host copies of one GPU and a sustained-load section */
static const char *doc =
    "{\"ranks\": [{\"rank\": 0, \"topo_gpu\": 0}, {\"rank\": 1, \"topo_gpu\": 1}],"
    " \"health\": {\"source\": \"nvml\", \"window_s\": 60, \"gpus\": ["
    "  {\"host\": \"n1\", \"pci_bus_id\": \"0000:18:00.0\", \"name\": \"H\", \"gpu\": 0, \"status\": \"ok\","
    "   \"before\": {\"ecc\": {\"enabled\": true, \"uncorrected_volatile\": 0}, \"pcie\": {\"gen\": 5, \"width\": 16, \"max_gen\": 5, \"max_width\": 16}},"
    "   \"after\": {\"ecc\": {\"enabled\": true, \"uncorrected_volatile\": 0}, \"pcie\": {\"gen\": 5, \"width\": 16, \"max_gen\": 5, \"max_width\": 16}},"
    "   \"xid\": {\"watched\": true, \"events\": []}},"
    "  {\"host\": \"n1\", \"pci_bus_id\": \"0000:19:00.0\", \"name\": \"H\", \"gpu\": 1, \"status\": \"ok\","
    "   \"before\": {\"ecc\": {\"enabled\": true, \"uncorrected_volatile\": 0}, \"pcie\": {\"gen\": 5, \"width\": 8, \"max_gen\": 5, \"max_width\": 16}},"
    "   \"after\": {\"ecc\": {\"enabled\": true, \"uncorrected_volatile\": 3}, \"pcie\": {\"gen\": 5, \"width\": 8, \"max_gen\": 5, \"max_width\": 16}},"
    "   \"xid\": {\"watched\": true, \"events\": [{\"xid\": 48, \"count\": 2}]}}]},"
    " \"p2p\": {\"host_copies\": {\"copy_bytes\": 268435456, \"gpus\": ["
    "  {\"gpu\": 0, \"host\": \"n1\", \"pci_bus_id\": \"0000:18:00.0\", \"bound_gbps\": 63.0,"
    "   \"single\": {\"numa_node\": 0, \"h2d_gbps\": 55.0, \"d2h_gbps\": 40.0, \"bidir_gbps\": 90.0, \"wrong\": 0},"
    "   \"all\": {\"numa_node\": 0, \"h2d_gbps\": 26.0, \"d2h_gbps\": 27.0, \"bidir_gbps\": 50.0, \"wrong\": 0},"
    "   \"remote\": null, \"remote_why\": \"the host has 1 NUMA node\"}]}},"
    " \"sustain\": {\"busbw_first_gbps\": 300.0, \"busbw_last_gbps\": 250.0, \"busbw_min_gbps\": 240.0, \"elapsed_s\": 120, \"wrong\": 0}}";

static nvs_verdicts judge(const char *rules_text, json_t **rootp)
{
    nvs_ruleset rs = {0};
    int line;
    char err[256];
    if (nvs_rules_parse_text(rules_text, "t.rules", &rs, &line, err, sizeof err)) T_FAIL("rules: %d: %s", line, err);
    json_error_t je;
    json_t *root = json_loads(doc, 0, &je);
    if (!root) T_FAIL("doc: %s", je.text);
    nvs_verdicts vs = {0};
    T_EQ_I(nvs_check_eval_accept(&rs, root, &vs), 0);
    nvs_ruleset_free(&rs);
    *rootp = root;
    return vs;
}

static const nvs_verdict *find(const nvs_verdicts *vs, const char *metric)
{
    for (size_t i = 0; i < vs->n; i++)
        if (!strcmp(vs->v[i].metric, metric)) return &vs->v[i];
    T_FAIL("no row '%s'", metric);
    return NULL;
}

static void t_health_rows(void)
{
    json_t *root;
    nvs_verdicts vs = judge("nvscale-rules 1\nhealth ecc\nhealth xid\nhealth pcie severity=warn\n", &root);
    T_EQ_U(vs.n, 6);
    const nvs_verdict *e1 = find(&vs, "ecc GPU1 (0000:19:00.0)");
    T_EQ_I(e1->severity, NVS_SEV_FAIL);
    T_EQ_I(e1->gpu, 1);
    T_EQ_I(e1->rank, 1);
    T_EQ_S(e1->host, "n1");
    T_EQ_S(e1->rule, "t.rules:2");
    T_EQ_I(find(&vs, "ecc GPU0 (0000:18:00.0)")->severity, NVS_SEV_PASS);
    T_CONTAINS(find(&vs, "xid GPU1 (0000:19:00.0)")->note, "XID 48 x2 (double-bit ECC error)");
    /* x8 of x16 is a FAIL, turned into a WARN by severity=warn */
    const nvs_verdict *p = find(&vs, "pcie GPU1 (0000:19:00.0)");
    T_EQ_I(p->severity, NVS_SEV_WARN);
    T_CONTAINS(p->note, "x8 of x16");
    T_EQ_U(vs.failed, 2);
    T_EQ_U(vs.warned, 1);
    nvs_verdicts_free(&vs);
    json_decref(root);
}

/* `health *` beside a rule naming one check: that check is the named rule's alone (was judged by both, a FAIL and a
 * WARN row for one GPU's ECC, overall FAIL) */
static void t_health_star_override(void)
{
    json_t *root;
    nvs_verdicts vs = judge("nvscale-rules 1\nhealth *\nhealth ecc severity=warn\n", &root);
    size_t ecc = 0;
    for (size_t i = 0; i < vs.n; i++) ecc += !strncmp(vs.v[i].metric, "ecc ", 4);
    T_EQ_U(ecc, 2);
    const nvs_verdict *e1 = find(&vs, "ecc GPU1 (0000:19:00.0)");
    T_EQ_I(e1->severity, NVS_SEV_WARN);
    T_EQ_S(e1->rule, "t.rules:3");
    T_EQ_S(find(&vs, "xid GPU1 (0000:19:00.0)")->rule, "t.rules:2"); /* the others still `*`'s */
    T_EQ_U(vs.n, 2 * NVS_HC_COUNT);
    nvs_verdicts_free(&vs);
    json_decref(root);
}

static void t_host_rows(void)
{
    json_t *root;
    nvs_verdicts vs = judge("nvscale-rules 1\nhost h2d min_bound=70%\nhost d2h min_bound=70%\nhost bidir min_bound=55%\n"
                            "host h2d mode=all min_bound=50% severity=warn\nhost h2d mode=remote min=10\n"
                            "host h2d gpu=5 min=1\nhost d2h min_bound=62.5%\n", &root);
    T_EQ_U(vs.n, 7);
    const nvs_verdict *v = &vs.v[0];
    T_EQ_S(v->metric, "host h2d single GPU0");
    T_EQ_I(v->severity, NVS_SEV_PASS);
    T_NEAR(v->expected_v, 44.1, 1e-9);
    T_EQ_S(v->expected, ">= 44.1 GB/s (70% of 63.0)");
    T_EQ_I(vs.v[1].severity, NVS_SEV_FAIL); /* 40 < 44.1 */
    T_NEAR(vs.v[2].expected_v, 0.55 * 126, 1e-9); /* both directions: twice the bound */
    T_EQ_I(vs.v[2].severity, NVS_SEV_PASS);
    T_EQ_I(vs.v[3].severity, NVS_SEV_WARN); /* 26 < 31.5, severity=warn */
    T_CONTAINS(vs.v[3].note, "share its uplink");
    T_EQ_I(vs.v[4].severity, NVS_SEV_FAIL); /* demanded, not measured: the host's reason */
    T_CONTAINS(vs.v[4].note, "the host has 1 NUMA node");
    T_CONTAINS(vs.v[5].note, "no such GPU");
    /* a fractional percentage prints as given, not rounded to "62%" (which would not be the threshold applied) */
    T_NEAR(vs.v[6].expected_v, 0.625 * 63, 1e-9);
    T_CONTAINS(vs.v[6].expected, "(62.5% of 63.0)");
    nvs_verdicts_free(&vs);
    json_decref(root);
}

static nvs_verdicts judge_text(const char *rules_text, const char *doc_text);

static void t_sustain_rows(void)
{
    json_t *root;
    nvs_verdicts vs = judge("nvscale-rules 1\nsustain busbw max_drop=10%\nsustain busbw max_drop=20% min=200\n", &root);
    T_EQ_U(vs.n, 2);
    T_EQ_I(vs.v[0].severity, NVS_SEV_FAIL); /* 16.7 % lower at the end */
    T_CONTAINS(vs.v[0].note, "16.7% lower at the end over 120 s");
    T_EQ_I(vs.v[1].severity, NVS_SEV_PASS);
    nvs_verdicts_free(&vs);
    json_decref(root);
    /* the probe and one timed chunk: nothing to compare the one chunk with (was "0.0% lower", PASS) */
    vs = judge_text("nvscale-rules 1\nsustain busbw max_drop=10%\n",
                    "{\"sustain\": {\"measure\": \"busbw\", \"elapsed_s\": 10.4, \"busbw_first_gbps\": 300.0, "
                    "\"busbw_last_gbps\": 300.0, \"busbw_min_gbps\": 300.0, \"wrong\": 0, \"chunks\": [{\"end_s\": 0.1, "
                    "\"busbw_gbps\": 290.0}, {\"end_s\": 10.4, \"busbw_gbps\": 300.0}]}}");
    T_EQ_U(vs.n, 1);
    T_EQ_I(vs.v[0].severity, NVS_SEV_FAIL);
    T_CONTAINS(vs.v[0].note, "one timed chunk after the probe");
    nvs_verdicts_free(&vs);
}

/* "all GPUs at once" with no "all" copies: on a host with one GPU the single copies answer it; on a host with
 * more, whose GPUs one process did not all see, it stays not measured and says why */
static void t_host_all_one_gpu(void)
{
    static const char *fmt =
        "{\"topology\": {\"hosts\": [{\"name\": \"vm\", \"gpus\": %s}]},"
        " \"p2p\": {\"host_copies\": {\"gpus\": [{\"gpu\": 0, \"host\": \"vm\", \"bound_gbps\": 63.0,"
        " \"single\": {\"numa_node\": 0, \"h2d_gbps\": %s, \"d2h_gbps\": 55.0, \"bidir_gbps\": 100.0, \"wrong\": 0},"
        " \"all\": null, \"remote\": null, \"remote_why\": \"the host has 1 NUMA node\"}]}}}";
    const char *cases[3][2] = {{"[0]", "55.4"}, {"[0]", "20.0"}, {"[0, 1]", "55.4"}};
    const int want[3] = {NVS_SEV_PASS, NVS_SEV_FAIL, NVS_SEV_FAIL};
    for (int c = 0; c < 3; c++) {
        nvs_ruleset rs = {0};
        int line;
        char err[256], text[1024];
        T_EQ_I(nvs_rules_parse_text("nvscale-rules 1\nhost h2d mode=all min_bound=50%\n", "r", &rs, &line, err, sizeof err), 0);
        snprintf(text, sizeof text, fmt, cases[c][0], cases[c][1]);
        json_error_t je;
        json_t *root = json_loads(text, 0, &je);
        if (!root) T_FAIL("doc: %s", je.text);
        nvs_verdicts vs = {0};
        T_EQ_I(nvs_check_eval_accept(&rs, root, &vs), 0);
        T_EQ_U(vs.n, 1);
        T_EQ_I(vs.v[0].severity, want[c]);
        if (c < 2) {
            T_NEAR(vs.v[0].measured_v, atof(cases[c][1]), 1e-9);
            T_CONTAINS(vs.v[0].note, "the host's only GPU, alone");
        } else {
            T_EQ_S(vs.v[0].measured, "not measured");
            T_CONTAINS(vs.v[0].note, "saw one of the host's 2 GPUs");
        }
        nvs_verdicts_free(&vs);
        nvs_ruleset_free(&rs);
        json_decref(root);
    }
}

static void t_not_measured(void)
{
    nvs_ruleset rs = {0};
    int line;
    char err[256];
    T_EQ_I(nvs_rules_parse_text("nvscale-rules 1\nhealth *\nhost h2d min=1\nsustain busbw max_drop=5%\n", "r", &rs,
                                &line, err, sizeof err), 0);
    json_t *root = json_loads("{\"p2p\": {\"skipped\": [{\"host\": \"vm\", \"what\": \"p2p and host copies\", "
                              "\"why\": \"no GPU: the host (MPI) backend runs\"}]}}", 0, NULL);
    nvs_verdicts vs = {0};
    T_EQ_I(nvs_check_eval_accept(&rs, root, &vs), 0);
    T_EQ_U(vs.n, 3);
    T_EQ_U(vs.failed, 3);
    T_CONTAINS(vs.v[0].note, "no health section");
    T_CONTAINS(vs.v[1].note, "host vm skipped them: no GPU");
    T_CONTAINS(vs.v[2].note, "no sustained-load phase");
    nvs_verdicts_free(&vs);
    nvs_ruleset_free(&rs);
    json_decref(root);
}

/* ---- gpu membw|gemm: the per-GPU self-test (gpu_selftest) ---- */

/* one entry of gpu_selftest.gpus; rank = gpu */
#define G(i, name, bw, tf)                                                                                        \
    "{\"host\": \"n1\", \"gpu\": " #i ", \"rank\": " #i ", \"pci_bus_id\": \"0000:0" #i ":00.0\", \"name\": \""    \
    name "\", \"membw_gbps\": " #bw ", \"membw_wrong\": 0, \"gemm_tflops\": " #tf ", \"gemm_wrong\": 0, \"why\": \"\"}"
#define ST(gpus)                                                                                                   \
    "{\"gpu_selftest\": {\"membw\": {\"bytes\": 2147483648, \"iters\": 20}, \"gemm\": {\"type\": \"bf16\", "     \
    "\"n\": 8192, \"iters\": 20}, \"skipped\": \"\", \"gpus\": [" gpus "]}}"

static nvs_verdicts judge_text(const char *rules_text, const char *doc_text)
{
    nvs_ruleset rs = {0};
    int line;
    char err[256];
    if (nvs_rules_parse_text(rules_text, "t.rules", &rs, &line, err, sizeof err)) T_FAIL("rules: %d: %s", line, err);
    json_error_t je;
    json_t *root = json_loads(doc_text, 0, &je);
    if (!root) T_FAIL("doc: %s", je.text);
    nvs_verdicts vs = {0};
    T_EQ_I(nvs_check_eval_accept(&rs, root, &vs), 0);
    nvs_ruleset_free(&rs);
    json_decref(root);
    return vs;
}

static void t_gpu_specs(void)
{
    const nvs_gpu_spec *h200 = nvs_gpu_spec_find("NVIDIA H200");
    T_ASSERT(h200);
    T_NEAR(h200->membw_gbps, 4800, 1e-9);
    T_NEAR(h200->bf16_tflops, 989.5, 1e-9);
    T_NEAR(nvs_gpu_spec_find("NVIDIA H100 80GB HBM3")->membw_gbps, 3350, 1e-9);
    T_NEAR(nvs_gpu_spec_find("NVIDIA A100-SXM4-80GB")->membw_gbps, 2039, 1e-9);
    T_NEAR(nvs_gpu_spec_find("NVIDIA A100-SXM4-40GB")->bf16_tflops, 312, 1e-9);
    /* other boards of the same chips have other numbers: they must not take the SXM entry's */
    T_ASSERT(!nvs_gpu_spec_find("NVIDIA H200 NVL"));
    T_ASSERT(!nvs_gpu_spec_find("NVIDIA H100 PCIe"));
    T_ASSERT(!nvs_gpu_spec_find("NVIDIA H100 NVL"));
    T_ASSERT(!nvs_gpu_spec_find("NVIDIA A100-PCIE-40GB"));
    T_ASSERT(!nvs_gpu_spec_find("nvidia h200"));
    T_ASSERT(!nvs_gpu_spec_find(NULL));
}

/* two healthy H200s: each passes against the higher of 90 % of their median and 70 % of the datasheet's 4.8 TB/s */
static void t_gpu_pass(void)
{
    nvs_verdicts vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90% min_bound=70%\ngpu gemm min_peer=90% min_bound=50%\n",
                                 ST(G(0, "NVIDIA H200", 4200.0, 700.0) "," G(1, "NVIDIA H200", 4220.0, 704.0)));
    T_EQ_U(vs.n, 4);
    T_EQ_U(vs.failed + vs.warned, 0);
    const nvs_verdict *v = find(&vs, "gpu membw GPU0");
    T_EQ_S(v->measured, "4200.0 GB/s");
    T_EQ_S(v->expected, ">= 3798.0 GB/s (90% of peer median 4220.0)"); /* the other GPU's */
    T_NEAR(v->expected_v, 3798, 1e-9);
    T_EQ_S(v->kind, "gpu");
    T_EQ_S(v->unit, "GB/s");
    T_EQ_S(v->host, "n1");
    T_EQ_I(v->gpu, 0);
    T_EQ_I(v->rank, 0);
    T_CONTAINS(v->note, "NVIDIA H200");
    v = find(&vs, "gpu gemm GPU1");
    T_EQ_S(v->measured, "704.0 TFLOPS");
    T_EQ_S(v->expected, ">= 630.0 TFLOPS (90% of peer median 700.0)");
    T_EQ_S(v->unit, "TFLOPS");
    T_EQ_I(v->rank, 1);
    nvs_verdicts_free(&vs);
}

/* one GPU of four below 90 % of the median: that one FAILs (a WARN under severity=warn), the others pass */
static void t_gpu_below_peers(void)
{
    const char *doc4 = ST(G(0, "NVIDIA H200", 4200.0, 700.0) "," G(1, "NVIDIA H200", 4210.0, 700.0) ","
                          G(2, "NVIDIA H200", 4220.0, 700.0) "," G(3, "NVIDIA H200", 3500.0, 700.0));
    nvs_verdicts vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90% min_bound=70%\n", doc4);
    T_EQ_U(vs.n, 4);
    T_EQ_U(vs.failed, 1);
    const nvs_verdict *v = find(&vs, "gpu membw GPU3");
    T_EQ_I(v->severity, NVS_SEV_FAIL);
    T_EQ_S(v->expected, ">= 3789.0 GB/s (90% of peer median 4210.0)"); /* of the others: 4200, 4210, 4220 */
    T_EQ_I(v->gpu, 3);
    T_EQ_I(v->rank, 3);
    T_CONTAINS(v->note, "median of the 3 other GPUs");
    T_EQ_I(find(&vs, "gpu membw GPU0")->severity, NVS_SEV_PASS);
    nvs_verdicts_free(&vs);
    vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90% severity=warn\n", doc4);
    T_EQ_U(vs.failed, 0);
    T_EQ_U(vs.warned, 1);
    T_EQ_I(find(&vs, "gpu membw GPU3")->severity, NVS_SEV_WARN);
    nvs_verdicts_free(&vs);
    /* just below the threshold, where one decimal would print both as 3784.5: the digits that tell them apart */
    vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90%\n",
                    ST(G(0, "NVIDIA H200", 4200.0, 700.0) "," G(1, "NVIDIA H200", 4210.0, 700.0) ","
                       G(2, "NVIDIA H200", 4220.0, 700.0) "," G(3, "NVIDIA H200", 3788.96, 700.0)));
    const nvs_verdict *c = find(&vs, "gpu membw GPU3");
    T_EQ_I(c->severity, NVS_SEV_FAIL);
    T_EQ_S(c->measured, "3788.96 GB/s");
    T_EQ_S(c->expected, ">= 3789.00 GB/s (90% of peer median 4210.0)");
    nvs_verdicts_free(&vs);
    /* two GPUs: each is held to the other, not to their mean (with itself in the median, 3600 against 4213.5 was
     * 90 % of 3906.8 = 3516 and passed; it is 85 % of the other) */
    vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90%\n",
                    ST(G(0, "NVIDIA H200", 4213.5, 700.0) "," G(1, "NVIDIA H200", 3600.0, 700.0)));
    T_EQ_I(find(&vs, "gpu membw GPU1")->severity, NVS_SEV_FAIL);
    T_EQ_S(find(&vs, "gpu membw GPU1")->expected, ">= 3792.2 GB/s (90% of peer median 4213.5)");
    T_EQ_I(find(&vs, "gpu membw GPU0")->severity, NVS_SEV_PASS);
    T_EQ_U(vs.failed, 1);
    nvs_verdicts_free(&vs);
}

/* GPUs all slow alike pass their peers but not the datasheet floor */
static void t_gpu_below_datasheet(void)
{
    nvs_verdicts vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90% min_bound=70%\ngpu gemm min_peer=90% min_bound=50%\n",
                                 ST(G(0, "NVIDIA H200", 3000.0, 450.0) "," G(1, "NVIDIA H200", 3010.0, 452.0)));
    T_EQ_U(vs.failed, 4);
    const nvs_verdict *v = find(&vs, "gpu membw GPU0");
    T_EQ_S(v->expected, ">= 3360.0 GB/s (70% of 4800.0)");
    T_CONTAINS(v->margin, "-360.0 GB/s");
    v = find(&vs, "gpu gemm GPU1");
    T_NEAR(v->expected_v, 494.75, 1e-9);
    T_CONTAINS(v->expected, "(50% of 989.5)");
    nvs_verdicts_free(&vs);
    /* min= above both: the highest threshold applies */
    vs = judge_text("nvscale-rules 1\ngpu membw min=4215 min_peer=90% min_bound=70%\n",
                    ST(G(0, "NVIDIA H200", 4200.0, 700.0) "," G(1, "NVIDIA H200", 4220.0, 704.0)));
    T_EQ_S(find(&vs, "gpu membw GPU0")->expected, ">= 4215.0 GB/s");
    T_EQ_I(find(&vs, "gpu membw GPU0")->severity, NVS_SEV_FAIL);
    T_EQ_I(find(&vs, "gpu membw GPU1")->severity, NVS_SEV_PASS);
    nvs_verdicts_free(&vs);
}

/* wrong elements FAIL whatever the thresholds, even under severity=warn */
static void t_gpu_wrong(void)
{
    nvs_verdicts vs = judge_text(
        "nvscale-rules 1\ngpu gemm min=1 severity=warn\ngpu membw min=1\n",
        "{\"gpu_selftest\": {\"skipped\": \"\", \"gpus\": [{\"host\": \"n1\", \"gpu\": 0, \"rank\": 0, \"name\": \"NVIDIA H200\","
        " \"membw_gbps\": 4200.0, \"membw_wrong\": 0, \"gemm_tflops\": 702.3, \"gemm_wrong\": 3, \"why\": \"\"}]}}");
    T_EQ_U(vs.n, 2);
    const nvs_verdict *v = find(&vs, "gpu gemm GPU0");
    T_EQ_I(v->severity, NVS_SEV_FAIL);
    T_EQ_S(v->note, "3 wrong elements: the GPU computes or stores wrong values");
    T_EQ_S(v->measured, "702.3 TFLOPS");
    T_EQ_I(find(&vs, "gpu membw GPU0")->severity, NVS_SEV_PASS);
    nvs_verdicts_free(&vs);
}

/* a reference that is unknown is not judged and says so; with nothing left to judge the row is not a pass */
static void t_gpu_unknown_reference(void)
{
    /* a model without a datasheet entry, min_bound only */
    nvs_verdicts vs = judge_text("nvscale-rules 1\ngpu membw min_bound=70%\n",
                                 ST(G(0, "NVIDIA L40S", 800.0, 300.0) "," G(1, "NVIDIA L40S", 810.0, 300.0)));
    T_EQ_U(vs.n, 2);
    T_EQ_U(vs.failed, 2);
    const nvs_verdict *v = find(&vs, "gpu membw GPU0");
    T_EQ_S(v->measured, "800.0 GB/s");
    T_CONTAINS(v->note, "no datasheet peak for 'NVIDIA L40S'");
    T_ASSERT(isnan(v->expected_v));
    nvs_verdicts_free(&vs);
    /* an H200 NVL does not take the H200 SXM's peak */
    vs = judge_text("nvscale-rules 1\ngpu gemm min_bound=50%\n", ST(G(0, "NVIDIA H200 NVL", 1.0, 600.0)));
    T_EQ_U(vs.failed, 1);
    T_CONTAINS(vs.v[0].note, "no datasheet peak for 'NVIDIA H200 NVL'");
    nvs_verdicts_free(&vs);
    /* one GPU of its model: no peer; the datasheet part is judged, the row says the peer part is not */
    vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90% min_bound=70%\n",
                    ST(G(0, "NVIDIA H200", 4200.0, 700.0) "," G(1, "NVIDIA H200", 4220.0, 704.0) ","
                       G(2, "NVIDIA H100 80GB HBM3", 3000.0, 700.0)));
    T_EQ_U(vs.failed, 0);
    v = find(&vs, "gpu membw GPU2");
    T_EQ_I(v->severity, NVS_SEV_PASS);
    T_EQ_S(v->expected, ">= 2345.0 GB/s (70% of 3350.0)");
    T_CONTAINS(v->note, "no other GPU named 'NVIDIA H100 80GB HBM3' measured in the run: no peer (min_peer not judged)");
    /* the H100 is not the H200s' peer: GPU0's peer is the other H200 */
    T_CONTAINS(find(&vs, "gpu membw GPU0")->expected, "(90% of peer median 4220.0)");
    nvs_verdicts_free(&vs);
    /* one GPU and min_peer alone: nothing to judge, not a pass */
    vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90%\n", ST(G(0, "NVIDIA H200", 4200.0, 700.0)));
    T_EQ_U(vs.failed, 1);
    T_CONTAINS(vs.v[0].note, "no peer");
    nvs_verdicts_free(&vs);
    /* a peer that was not measured is no peer */
    vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90%\n",
                    ST(G(0, "NVIDIA H200", 4200.0, 700.0) "," G(1, "NVIDIA H200", null, null)));
    T_EQ_U(vs.n, 2);
    T_EQ_U(vs.failed, 2);
    T_CONTAINS(find(&vs, "gpu membw GPU0")->note, "no peer");
    T_CONTAINS(find(&vs, "gpu membw GPU1")->note, "not measured: no value in the run");
    nvs_verdicts_free(&vs);
}

/* not measured: no section, the phase skipped, a GPU with a reason, a GPU not in the run */
static void t_gpu_not_measured(void)
{
    const char *rules = "nvscale-rules 1\ngpu membw min_peer=90% min_bound=70%\n";
    nvs_verdicts vs = judge_text(rules, "{}");
    T_EQ_U(vs.n, 1);
    T_EQ_U(vs.failed, 1);
    T_EQ_S(vs.v[0].measured, "not measured");
    T_CONTAINS(vs.v[0].note, "the run has no GPU self-test");
    nvs_verdicts_free(&vs);
    vs = judge_text(rules, "{\"gpu_selftest\": {\"skipped\": \"no GPU: the host (MPI) backend runs\", \"gpus\": []}}");
    T_EQ_U(vs.failed, 1);
    T_CONTAINS(vs.v[0].note, "not measured: no GPU: the host (MPI) backend runs");
    nvs_verdicts_free(&vs);
    vs = judge_text("nvscale-rules 1\ngpu gemm min=1 severity=warn\n",
                    "{\"gpu_selftest\": {\"skipped\": \"\", \"gpus\": [{\"host\": \"n1\", \"gpu\": 1, \"rank\": 0, "
                    "\"name\": \"NVIDIA H200\", \"membw_gbps\": null, \"membw_wrong\": null, \"gemm_tflops\": null, "
                    "\"gemm_wrong\": null, \"why\": \"cuBLAS: CUBLAS_STATUS_NOT_INITIALIZED\"}]}}");
    T_EQ_U(vs.n, 1);
    T_EQ_I(vs.v[0].severity, NVS_SEV_WARN); /* severity=warn, as host rules' not-measured rows */
    T_EQ_S(vs.v[0].metric, "gpu gemm GPU1");
    T_CONTAINS(vs.v[0].note, "not measured: cuBLAS: CUBLAS_STATUS_NOT_INITIALIZED");
    T_EQ_I(vs.v[0].gpu, 1);
    nvs_verdicts_free(&vs);
    /* one part skipped for memory (selftest_gpu.c sets why for it and measures the other): the measured part is
     * judged, its wrong elements FAIL, and only the skipped part reads "not measured" with the reason */
    {
        const char *part = "{\"gpu_selftest\": {\"skipped\": \"\", \"gpus\": [{\"host\": \"n1\", \"gpu\": 0, "
                           "\"rank\": 0, \"name\": \"NVIDIA H200\", \"membw_gbps\": 4100.0, \"membw_wrong\": %d, "
                           "\"gemm_tflops\": null, \"gemm_wrong\": null, \"why\": \"the GEMM test needs 0.50 GiB, 0.10 "
                           "GiB free\"}]}}";
        char d[512];
        snprintf(d, sizeof d, part, 0);
        vs = judge_text("nvscale-rules 1\ngpu membw min=3000\ngpu gemm min=500\n", d);
        T_EQ_U(vs.n, 2);
        T_EQ_I(vs.v[0].severity, NVS_SEV_PASS);
        T_EQ_S(vs.v[0].measured, "4100.0 GB/s");
        T_EQ_I(vs.v[1].severity, NVS_SEV_FAIL);
        T_CONTAINS(vs.v[1].note, "not measured: the GEMM test needs 0.50 GiB");
        nvs_verdicts_free(&vs);
        snprintf(d, sizeof d, part, 5);
        vs = judge_text("nvscale-rules 1\ngpu membw min=3000\n", d);
        T_EQ_I(vs.v[0].severity, NVS_SEV_FAIL);
        T_CONTAINS(vs.v[0].note, "5 wrong elements");
        nvs_verdicts_free(&vs);
    }
    vs = judge_text("nvscale-rules 1\ngpu membw gpu=1 min=1\ngpu membw gpu=9 min=1\n",
                    ST(G(0, "NVIDIA H200", 4200.0, 700.0) "," G(1, "NVIDIA H200", 4220.0, 704.0)));
    T_EQ_U(vs.n, 2);
    T_EQ_S(vs.v[0].metric, "gpu membw GPU1");
    T_EQ_I(vs.v[0].severity, NVS_SEV_PASS);
    T_CONTAINS(vs.v[1].note, "no such GPU in the self-test");
    T_EQ_I(vs.v[1].severity, NVS_SEV_FAIL);
    nvs_verdicts_free(&vs);
}

/* the built-in level 2 rules judge the self-test when it ran, and say why not when it did not */
/* sustain gemm: each GPU's burn (accept --level 3), first chunk against last; wrong elements after the load FAIL */
#define B(i, first, last, lo, wrong, why)                                                                         \
    "{\"host\": \"n1\", \"gpu\": " #i ", \"rank\": " #i ", \"name\": \"NVIDIA H200\", \"membw_gbps\": 4100, "       \
    "\"membw_wrong\": 0, \"gemm_tflops\": 780, \"gemm_wrong\": 0, \"why\": \"\", \"burn\": {\"requested_s\": 120, " \
    "\"elapsed_s\": 120.5, \"tflops_first\": " #first ", \"tflops_last\": " #last ", \"tflops_min\": " #lo ", "    \
    "\"wrong\": " #wrong ", \"why\": \"" why "\", \"chunks\": [{\"end_s\": 0.01, \"tflops\": 600}, "      \
    "{\"end_s\": 60, \"tflops\": " #first "}, {\"end_s\": 120, \"tflops\": " #last "}]}}"
static void t_sustain_gemm(void)
{
    const char *doc = ST(B(0, 780.0, 770.0, 765.0, 0, "") "," B(1, 780.0, 650.0, 650.0, 0, "") ","
                         B(2, 780.0, 779.0, 779.0, 3, "") "," B(3, null, null, null, null, "the burn needs 0.50 GiB, 0.10 GiB free") ","
                         G(4, "NVIDIA H200", 4100, 780));
    nvs_verdicts vs = judge_text("nvscale-rules 1\nsustain gemm max_drop=10%\n", doc);
    T_EQ_U(vs.n, 5);
    const nvs_verdict *v = find(&vs, "sustained gemm GPU0");
    T_EQ_I(v->severity, NVS_SEV_PASS);
    T_EQ_S(v->measured, "780.0 -> 770.0 TFLOPS");
    T_CONTAINS(v->note, "1.3% lower at the end over 120 s of load");
    v = find(&vs, "sustained gemm GPU1");
    T_EQ_I(v->severity, NVS_SEV_FAIL);
    T_EQ_S(v->expected, "drop <= 10%");
    T_CONTAINS(v->note, "16.7% lower at the end");
    T_EQ_I(v->gpu, 1);
    T_EQ_I(v->rank, 1);
    v = find(&vs, "sustained gemm GPU2");
    T_EQ_I(v->severity, NVS_SEV_FAIL);
    T_CONTAINS(v->note, "3 wrong elements in a product checked after the load");
    T_CONTAINS(find(&vs, "sustained gemm GPU3")->note, "not measured: the burn needs 0.50 GiB");
    T_CONTAINS(find(&vs, "sustained gemm GPU4")->note, "not measured: the run has no GEMM burn (accept --level 3)");
    T_EQ_U(vs.failed, 4);
    nvs_verdicts_free(&vs);
    /* one GPU, and min= over the lowest chunk */
    vs = judge_text("nvscale-rules 1\nsustain gemm gpu=0 min=770\n", doc);
    T_EQ_U(vs.n, 1);
    T_EQ_I(vs.v[0].severity, NVS_SEV_FAIL);
    T_EQ_S(vs.v[0].measured, "min 765.0 TFLOPS");
    nvs_verdicts_free(&vs);
    /* a first chunk of no throughput has nothing to drop from: not a pass (0 -> 0 read "0.0% lower", PASS); a
     * lowest chunk the run does not give is not "min nan TFLOPS" */
    doc = ST(B(0, 0, 0, 0, 0, "") "," B(1, 780.0, 770.0, null, 0, ""));
    vs = judge_text("nvscale-rules 1\nsustain gemm max_drop=10%\nsustain gemm min=600\n", doc);
    T_EQ_U(vs.n, 4);
    T_EQ_I(vs.v[0].severity, NVS_SEV_FAIL);
    T_CONTAINS(vs.v[0].note, "first chunk 0.0 TFLOPS: no throughput to compare the last with");
    T_EQ_I(vs.v[1].severity, NVS_SEV_PASS);
    T_EQ_I(vs.v[2].severity, NVS_SEV_FAIL);
    T_EQ_I(vs.v[3].severity, NVS_SEV_FAIL);
    T_EQ_S(vs.v[3].measured, "not measured");
    T_CONTAINS(vs.v[3].note, "no lowest chunk in the run");
    nvs_verdicts_free(&vs);
    /* the probe and one timed chunk: first and last are that chunk, "0.0% lower" judged nothing (was a PASS);
     * min= still has its one chunk to judge */
    doc = ST("{\"host\": \"n1\", \"gpu\": 0, \"rank\": 0, \"name\": \"NVIDIA H200\", \"burn\": {\"requested_s\": 5, "
             "\"elapsed_s\": 10.2, \"tflops_first\": 700, \"tflops_last\": 700, \"tflops_min\": 700, \"wrong\": 0, "
             "\"why\": \"\", \"chunks\": [{\"end_s\": 0.01, \"tflops\": 600}, {\"end_s\": 10.2, \"tflops\": 700}]}}");
    vs = judge_text("nvscale-rules 1\nsustain gemm max_drop=10%\nsustain gemm min=600\n", doc);
    T_EQ_U(vs.n, 2);
    T_EQ_I(vs.v[0].severity, NVS_SEV_FAIL);
    T_EQ_S(vs.v[0].measured, "not measured");
    T_CONTAINS(vs.v[0].note, "one timed chunk after the probe: no drop over the load to judge");
    T_EQ_I(vs.v[1].severity, NVS_SEV_PASS);
    nvs_verdicts_free(&vs);
    vs = judge_text("nvscale-rules 1\nsustain gemm max_drop=10% severity=warn\n", doc);
    T_EQ_I(vs.v[0].severity, NVS_SEV_WARN);
    nvs_verdicts_free(&vs);
    /* no self-test at all; the host backend */
    vs = judge_text("nvscale-rules 1\nsustain gemm max_drop=10%\n", "{}");
    T_EQ_U(vs.failed, 1);
    T_CONTAINS(vs.v[0].note, "the run has no GPU self-test");
    nvs_verdicts_free(&vs);
    /* the rule's own errors */
    nvs_rule r;
    char err[256];
    T_EQ_I(nvs_rule_parse_line("sustain gemm gpu=0", &r, err, sizeof err), -1);
    T_CONTAINS(err, "give min=... (TFLOPS) or max_drop=...%");
    T_EQ_I(nvs_rule_parse_line("sustain busbw gpu=1 max_drop=10%", &r, err, sizeof err), -1);
    T_CONTAINS(err, "gpu=1: sustain busbw is one number for all ranks");
    T_EQ_I(nvs_rule_parse_line("sustain flops max_drop=10%", &r, err, sizeof err), -1);
    T_CONTAINS(err, "sustain needs 'busbw'");
}

static void t_gpu_default_rules(void)
{
    char text[4096];
    int n;
    nvs_accept_facts st = {2, 1, 1, 1, 1, 1, 1, 0, 1};
    T_ASSERT(nvs_accept_rules_text(&st, text, sizeof text, &n) > 0);
    T_EQ_I(n, 23);
    T_CONTAINS(text, "\ngpu membw min_peer=90% min_bound=70%\n");
    T_CONTAINS(text, "\ngpu gemm min_peer=90% min_bound=60%\n");
    nvs_accept_facts nost = {2, 1, 1, 1, 1, 1, 1, 0, 0};
    T_ASSERT(nvs_accept_rules_text(&nost, text, sizeof text, &n) > 0);
    T_EQ_I(n, 21);
    T_CONTAINS(text, "# skipped (no GPU self-test in the run): gpu membw min_peer=90% min_bound=70%");
    /* each rule left out is a SKIP row with its reason, for the JSON, JUnit and Prometheus (the "# skipped" comment
     * reached the table alone) */
    nvs_verdicts sk = {0};
    T_EQ_I(nvs_accept_skipped_verdicts(&nost, &sk), 0);
    T_EQ_U(sk.n, 3); /* gpus per_host (gpus_min 0) and the two self-test rules */
    T_EQ_U(sk.skipped, 3);
    T_EQ_U(sk.failed + sk.warned, 0);
    T_EQ_S(sk.v[1].metric, "gpu membw min_peer=90% min_bound=70%");
    T_EQ_S(sk.v[1].kind, "gpu");
    T_EQ_I(sk.v[1].severity, NVS_SEV_SKIP);
    T_EQ_S(sk.v[1].note, "skipped: no GPU self-test in the run");
    T_EQ_S(sk.v[1].rule, "built-in level 2");
    nvs_verdicts_free(&sk);
    nvs_accept_facts nonvml = {.level = 1, .gpus_min = 1, .health_why = "unsupported: libnvidia-ml.so.1 not loaded"};
    T_EQ_I(nvs_accept_skipped_verdicts(&nonvml, &sk), 0);
    T_EQ_U(sk.n, 10);
    T_EQ_S(sk.v[0].metric, "health ecc");
    T_EQ_S(sk.v[0].note, "skipped: unsupported: libnvidia-ml.so.1 not loaded");
    nvs_verdicts_free(&sk);
    nvs_accept_facts host = {2, 0, 0, 0, 0, 0, 0, 0, 0};
    T_ASSERT(nvs_accept_rules_text(&host, text, sizeof text, &n) > 0);
    T_CONTAINS(text, "# skipped (no GPU: the host backend ran): gpu gemm min_peer=90% min_bound=60%");
    T_CONTAINS(text, "# skipped (no training step): efficiency train");
    /* a step measured at N=1 only (one rank): efficiency's SKIP says so (was "no training step", with the step in
     * run.json) */
    nvs_accept_facts one = {.level = 2, .train_one = 1};
    T_ASSERT(nvs_accept_rules_text(&one, text, sizeof text, &n) > 0);
    T_CONTAINS(text, "# skipped (the training step ran at N=1 only: efficiency needs N >= 2, one rank per GPU under "
                     "mpirun): efficiency train n=max");
    T_EQ_I(nvs_accept_skipped_verdicts(&one, &sk), 0);
    int said = 0;
    for (size_t i = 0; i < sk.n; i++)
        said |= !strncmp(sk.v[i].metric, "efficiency train", 16) &&
                !strcmp(sk.v[i].note, "skipped: the training step ran at N=1 only: efficiency needs N >= 2, one rank "
                                      "per GPU under mpirun");
    T_EQ_I(said, 1);
    nvs_verdicts_free(&sk);
    nvs_accept_facts l1 = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    T_ASSERT(nvs_accept_rules_text(&l1, text, sizeof text, &n) > 0);
    T_ASSERT(!strstr(text, "gpu membw"));
    nvs_accept_facts l3 = {3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    T_ASSERT(nvs_accept_rules_text(&l3, text, sizeof text, &n) > 0);
    T_EQ_I(n, 25);
    T_CONTAINS(text, "\nsustain gemm max_drop=10%\n");
    nvs_accept_facts l3h = {3, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    T_ASSERT(nvs_accept_rules_text(&l3h, text, sizeof text, NULL) > 0);
    T_CONTAINS(text, "# skipped (no GPU: the host backend ran): sustain gemm max_drop=10%");
    nvs_ruleset rs = {0};
    char err[256];
    T_EQ_I(nvs_accept_default_rules(&l3, &rs, err, sizeof err), 0);
    T_EQ_U(rs.n, 25);
    /* the built-in rules on a lone GPU of a model without a datasheet entry: nothing to hold it to, a WARN (not
     * a FAIL: the GPU is not faulty for it; a rule the user wrote FAILs, t_gpu_unknown_reference) */
    json_t *root = json_loads(ST(G(0, "NVIDIA L40S", 800.0, 300.0)), 0, NULL);
    T_ASSERT(root);
    nvs_verdicts vs = {0};
    T_EQ_I(nvs_check_eval_accept(&rs, root, &vs), 0);
    const nvs_verdict *m = find(&vs, "gpu membw GPU0"), *g = find(&vs, "gpu gemm GPU0");
    T_EQ_I(m->severity, NVS_SEV_WARN);
    T_EQ_I(g->severity, NVS_SEV_WARN);
    T_CONTAINS(m->note, "threshold unknown: no datasheet peak for 'NVIDIA L40S'");
    nvs_verdicts_free(&vs);
    json_decref(root);
    nvs_ruleset_free(&rs);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The peer median against the definition, brute force: for each of 301 GPUs of three names (values drawn from a
 * few, so that ties with the GPU's own value occur; some entries unnamed or unmeasured), the median of the values
 * of the OTHER measured GPUs of its name. check_accept_gpu.c finds it by binary search in one sorted table. */
static void t_gpu_peer_median_brute(void)
{
    enum { N = 301 };
    static const char *const names[3] = {"NVIDIA H200", "NVIDIA H100 80GB HBM3", "Odd GPU"};
    double val[N];
    int nm[N];
    unsigned seed = 12345;
    size_t cap = (size_t)N * 160 + 128, len = 0;
    char *doc = malloc(cap);
    T_ASSERT(doc);
    len += (size_t)snprintf(doc + len, cap - len, "{\"gpu_selftest\": {\"skipped\": \"\", \"gpus\": [");
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        nm[i] = (int)((seed >> 16) % 4) - 1; /* -1: no name */
        seed = seed * 1103515245u + 12345u;
        val[i] = (seed >> 16) % 7 == 0 ? NAN : 4000 + (double)((seed >> 8) % 9) * 12.5;
        char v[32];
        if (isnan(val[i])) snprintf(v, sizeof v, "null");
        else snprintf(v, sizeof v, "%.1f", val[i]);
        len += (size_t)snprintf(doc + len, cap - len, "%s{\"gpu\": %d, \"rank\": %d, \"name\": %s%s%s, \"membw_gbps\": %s, \"membw_wrong\": 0}",
                                i ? ", " : "", i, i, nm[i] < 0 ? "" : "\"", nm[i] < 0 ? "null" : names[nm[i]],
                                nm[i] < 0 ? "" : "\"", v);
    }
    snprintf(doc + len, cap - len, "]}}");
    nvs_verdicts vs = judge_text("nvscale-rules 1\ngpu membw min_peer=90%\n", doc);
    free(doc);
    int judged = 0, lone = 0;
    for (int i = 0; i < N; i++) {
        if (isnan(val[i]) || nm[i] < 0) continue;
        double o[N];
        size_t k = 0;
        for (int j = 0; j < N; j++)
            if (j != i && nm[j] == nm[i] && !isnan(val[j])) o[k++] = val[j];
        char metric[48];
        snprintf(metric, sizeof metric, "gpu membw GPU%d", i);
        const nvs_verdict *v = find(&vs, metric);
        if (!k) { /* no peer: not judged by it */
            T_ASSERT(isnan(v->expected_v));
            lone++;
            continue;
        }
        qsort(o, k, sizeof o[0], cmp_dbl);
        double med = k % 2 ? o[k / 2] : (o[k / 2 - 1] + o[k / 2]) / 2;
        if (fabs(v->expected_v - med * 0.9) > 1e-9) T_FAIL("GPU%d: expected %.6f, brute force %.6f", i, v->expected_v, med * 0.9);
        judged++;
    }
    T_ASSERT(judged > 150); /* the draw gives every name dozens of GPUs (193 judged) */
    (void)lone;
    nvs_verdicts_free(&vs);
}

/* A row's rank, where the entry does not say it, from ranks[].topo_gpu: listed in any order, the first rank naming
 * the GPU; none naming it: -1 (check_accept.c looks it up in one sorted table) */
static void t_rank_of_gpu(void)
{
    nvs_verdicts vs = judge_text("nvscale-rules 1\ngpu membw min=1\n",
                                 "{\"ranks\": [{\"rank\": 0, \"topo_gpu\": 2}, {\"rank\": 1, \"topo_gpu\": 0}, {\"rank\": 2, "
                                 "\"topo_gpu\": 0}, {\"rank\": 3}], \"gpu_selftest\": {\"skipped\": \"\", \"gpus\": [{\"gpu\": 0, "
                                 "\"membw_gbps\": 4000}, {\"gpu\": 1, \"membw_gbps\": 4000}, {\"gpu\": 2, \"membw_gbps\": 4000}]}}");
    T_EQ_I(find(&vs, "gpu membw GPU0")->rank, 1);
    T_EQ_I(find(&vs, "gpu membw GPU1")->rank, -1);
    T_EQ_I(find(&vs, "gpu membw GPU2")->rank, 0);
    nvs_verdicts_free(&vs);
}

/* gpus per_host: one row per host, the GPUs its ranks ran on; the note says what else saw more */
static void t_gpus_rows(void)
{
    /* n1: two ranks on two GPUs; n2: one rank (mpirun) on a host whose topology and NVML show two */
    const char *two_hosts =
        "{\"command\": {\"launcher\": \"mpi\", \"backend\": \"nccl\"},"
        " \"world\": {\"size\": 3, \"hosts\": [{\"name\": \"n1\"}, {\"name\": \"n2\"}]},"
        " \"ranks\": [{\"rank\": 0, \"host\": \"n1\", \"pci_bus_id\": \"0000:18:00.0\"},"
        "  {\"rank\": 1, \"host\": \"n1\", \"pci_bus_id\": \"0000:19:00.0\"},"
        "  {\"rank\": 2, \"host\": \"n2\", \"pci_bus_id\": \"0000:18:00.0\"}],"
        " \"topology\": {\"hosts\": [{\"name\": \"n1\", \"gpus\": [0, 1]}, {\"name\": \"n2\", \"gpus\": [2, 3]}]},"
        " \"health\": {\"gpus\": [{\"host\": \"n2\"}, {\"host\": \"n2\"}, {\"host\": \"n1\"}, {\"host\": \"n1\"}]}}";
    nvs_verdicts vs = judge_text("nvscale-rules 1\ngpus per_host min=2\n", two_hosts);
    T_EQ_U(vs.n, 2);
    const nvs_verdict *a = find(&vs, "gpus on n1"), *b = find(&vs, "gpus on n2");
    T_EQ_I(a->severity, NVS_SEV_PASS);
    T_EQ_S(a->measured, "2");
    T_EQ_S(a->note, "");
    T_EQ_I(b->severity, NVS_SEV_FAIL);
    T_EQ_S(b->measured, "1");
    T_EQ_S(b->margin, "-1");
    T_EQ_S(b->host, "n2");
    T_EQ_S(b->rule, "t.rules:2");
    T_EQ_S(b->note, "2 GPUs in its topology (PCI); NVML lists 2; 1 rank ran there: launch one per GPU");
    T_EQ_U(vs.failed, 1);
    nvs_verdicts_free(&vs);
    /* severity=warn: the same miss is a WARN */
    vs = judge_text("nvscale-rules 1\ngpus per_host min=2 severity=warn\n", two_hosts);
    T_EQ_I(find(&vs, "gpus on n2")->severity, NVS_SEV_WARN);
    T_EQ_U(vs.failed, 0);
    nvs_verdicts_free(&vs);
    /* the host backend chosen for want of a GPU: 0, with CUDA's reason */
    vs = judge_text("nvscale-rules 1\ngpus per_host min=1\n",
                   "{\"command\": {\"launcher\": \"threads\", \"backend\": \"mpi\", \"no_gpu\": \"cudaGetDeviceCount: no CUDA-capable device is detected\"},"
                   " \"world\": {\"size\": 1, \"hosts\": [{\"name\": \"ci\"}]},"
                   " \"ranks\": [{\"rank\": 0, \"host\": \"ci\", \"pci_bus_id\": \"\"}]}");
    T_EQ_S(find(&vs, "gpus on ci")->measured, "0");
    T_EQ_S(find(&vs, "gpus on ci")->note, "no GPU found (cudaGetDeviceCount: no CUDA-capable device is detected); "
                                           "--backend mpi accepts a host without GPUs");
    nvs_verdicts_free(&vs);
    /* one process took every GPU CUDA showed, fewer than the topology: CUDA's view is named, not mpirun's */
    vs = judge_text("nvscale-rules 1\ngpus per_host min=2\n",
                   "{\"command\": {\"launcher\": \"threads\", \"backend\": \"nccl\"},"
                   " \"ranks\": [{\"rank\": 0, \"host\": \"a\", \"pci_bus_id\": \"0000:18:00.0\"}],"
                   " \"topology\": {\"hosts\": [{\"name\": \"a\", \"gpus\": [0, 1]}]}}");
    T_EQ_S(find(&vs, "gpus on a")->note, "2 GPUs in its topology (PCI); CUDA showed 1 (CUDA_VISIBLE_DEVICES, or a GPU CUDA "
                                          "cannot start: nvidia-smi)");
    nvs_verdicts_free(&vs);
    /* nothing else saw more: the GPU is gone from the bus */
    vs = judge_text("nvscale-rules 1\ngpus per_host min=8\n",
                   "{\"ranks\": [{\"rank\": 0, \"host\": \"a\", \"pci_bus_id\": \"0000:18:00.0\"}]}");
    T_CONTAINS(find(&vs, "gpus on a")->note, "a GPU missing from the PCI bus?");
    nvs_verdicts_free(&vs);
    /* no ranks at all: not measured, a FAIL */
    vs = judge_text("nvscale-rules 1\ngpus per_host min=1\n", "{}");
    T_EQ_U(vs.n, 1);
    T_EQ_S(vs.v[0].measured, "not measured");
    T_EQ_U(vs.failed, 1);
    nvs_verdicts_free(&vs);
}

T_LIST = {T_CASE(t_parse_new_rules), T_CASE(t_default_rules), T_CASE(t_health_rows), T_CASE(t_health_star_override), T_CASE(t_host_rows),
          T_CASE(t_sustain_rows), T_CASE(t_host_all_one_gpu), T_CASE(t_not_measured), T_CASE(t_gpu_specs),
          T_CASE(t_gpu_pass), T_CASE(t_gpu_below_peers), T_CASE(t_gpu_below_datasheet), T_CASE(t_gpu_wrong),
          T_CASE(t_gpu_unknown_reference), T_CASE(t_gpu_not_measured), T_CASE(t_gpu_default_rules), T_CASE(t_sustain_gemm),
          T_CASE(t_gpu_peer_median_brute), T_CASE(t_rank_of_gpu), T_CASE(t_gpus_rows)};
T_MAIN
