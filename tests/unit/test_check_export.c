/* JUnit XML and Prometheus text of verdict rows (check/check_junit.c, check/check_prom.c) against golden files,
 * with rows that exercise every verdict, blame labels and hostile text (quotes, ampersands, backslashes,
 * newlines, a control character, a repeated check name). NVS_UPDATE_GOLDEN=1 rewrites the goldens. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_export.h"
#include "t.h"

static void rows(nvs_verdicts *vs)
{
    memset(vs, 0, sizeof *vs);
    nvs_verdict *v = nvs_verdicts_add(vs, "run");
    snprintf(v->metric, sizeof v->metric, "run result");
    snprintf(v->measured, sizeof v->measured, "ok");
    snprintf(v->expected, sizeof v->expected, "ok");
    snprintf(v->rule, sizeof v->rule, "(always)");
    nvs_verdict_set(vs, v, NVS_SEV_PASS);

    v = nvs_verdicts_add(vs, "busbw");
    snprintf(v->metric, sizeof v->metric, "busbw all_reduce 1 GiB n=2");
    snprintf(v->measured, sizeof v->measured, "278.0 GB/s");
    snprintf(v->expected, sizeof v->expected, ">= 300.0 GB/s");
    snprintf(v->margin, sizeof v->margin, "-22.0 GB/s (-7.3%%)");
    snprintf(v->note, sizeof v->note, "worst of 2 rows: in-place");
    snprintf(v->rule, sizeof v->rule, "rules.txt:3");
    v->unit = "GB/s";
    v->measured_v = 278, v->expected_v = 300, v->margin_v = -22;
    snprintf(v->host, sizeof v->host, "node1");
    v->rank = 1;
    nvs_verdict_set(vs, v, NVS_SEV_FAIL);

    v = nvs_verdicts_add(vs, "p2p");
    snprintf(v->metric, sizeof v->metric, "p2p uni 0->1");
    snprintf(v->measured, sizeof v->measured, "394.6 GB/s");
    snprintf(v->expected, sizeof v->expected, ">= 358.6 GB/s (75%% of 478.1)");
    snprintf(v->margin, sizeof v->margin, "+36.0 GB/s (+10.0%%)");
    v->unit = "GB/s";
    v->measured_v = 394.6, v->expected_v = 358.59375, v->margin_v = 36.00625;
    snprintf(v->host, sizeof v->host, "node1");
    v->src = 0, v->dst = 1;
    nvs_verdict_set(vs, v, NVS_SEV_PASS);

    v = nvs_verdicts_add(vs, "health");
    snprintf(v->metric, sizeof v->metric, "pcie_replay GPU1 (0000:00:07.0)");
    snprintf(v->measured, sizeof v->measured, "37 during the run");
    snprintf(v->expected, sizeof v->expected, "0 during the run");
    snprintf(v->note, sizeof v->note, "37 PCIe replays (retransmitted packets): a \"marginal\" link & <riser>\x01");
    v->measured_v = 37, v->expected_v = 0;
    snprintf(v->host, sizeof v->host, "rack\\7 \"b\"\nnode2");
    v->gpu = 1;
    nvs_verdict_set(vs, v, NVS_SEV_WARN);

    v = nvs_verdicts_add(vs, "health"); /* the same name again: a rule listed twice */
    snprintf(v->metric, sizeof v->metric, "pcie_replay GPU1 (0000:00:07.0)");
    snprintf(v->measured, sizeof v->measured, "not measured");
    snprintf(v->expected, sizeof v->expected, "0 during the run");
    v->gpu = 1;
    nvs_verdict_set(vs, v, NVS_SEV_FAIL);

    v = nvs_verdicts_add(vs, "health"); /* could not be performed: neither a pass nor a fail */
    snprintf(v->metric, sizeof v->metric, "ecc GPU0 (0000:00:06.0)");
    snprintf(v->measured, sizeof v->measured, "unsupported");
    snprintf(v->expected, sizeof v->expected, "0 uncorrectable");
    snprintf(v->note, sizeof v->note, "ECC mode and counters: this GPU or driver does not report it, so it cannot be checked");
    snprintf(v->host, sizeof v->host, "node1");
    v->gpu = 0;
    nvs_verdict_set(vs, v, NVS_SEV_SKIP);
}

static const nvs_export_info info = {"nvscale accept", "results/x/run.json", "built-in (level 2) & <more>",
                                     "2026-11-30T12:00:00Z", "node1", 93.25};

static void t_junit(void)
{
    nvs_verdicts vs;
    rows(&vs);
    FILE *f = tmpfile();
    T_ASSERT(f);
    T_EQ_I(nvs_check_print_junit(f, &info, &vs), 0);
    char *got = t_slurp(f);
    fclose(f);
    T_GOLDEN("check_export.junit.xml", got);
    /* independent of the golden file */
    T_CONTAINS(got, "tests=\"6\" failures=\"2\" errors=\"0\" skipped=\"1\"");
    /* a skipped check is JUnit's <skipped>, with the reason (was a passing testcase, skipped="0") */
    T_CONTAINS(got, "<skipped message=\"not checked: ECC mode and counters: this GPU or driver does not report it, so it cannot be checked\"/>");
    T_CONTAINS(got, "&quot;marginal&quot; link &amp; &lt;riser&gt;\\x01"); /* visible, as everywhere (core/escape.h) */
    T_ASSERT(!strchr(got, '\x01'));
    T_CONTAINS(got, "<failure message=\"measured 278.0 GB/s, expected &gt;= 300.0 GB/s, margin -22.0 GB/s (-7.3%); host node1, rank 1\" type=\"FAIL\">");
    T_CONTAINS(got, "<system-out>WARN: ");
    free(got);
    nvs_verdicts_free(&vs);
}

static void t_prometheus(void)
{
    nvs_verdicts vs;
    rows(&vs);
    FILE *f = tmpfile();
    T_ASSERT(f);
    T_EQ_I(nvs_check_print_prometheus(f, &info, &vs), 0);
    char *got = t_slurp(f);
    fclose(f);
    T_GOLDEN("check_export.prom", got);
    T_CONTAINS(got, "host=\"rack\\\\7 \\\"b\\\"\\nnode2\"");
    T_CONTAINS(got, "check=\"pcie_replay GPU1 (0000:00:07.0) #2\"");
    T_CONTAINS(got, "nvscale_checks{verdict=\"FAIL\"} 2\n");
    T_CONTAINS(got, "nvscale_checks{verdict=\"SKIP\"} 1\n");
    T_CONTAINS(got, "nvscale_checks{verdict=\"PASS\"} 2\n"); /* a skip is no pass */
    T_CONTAINS(got, "nvscale_check_status{check=\"ecc GPU0 (0000:00:06.0)\",kind=\"health\",host=\"node1\",gpu=\"0\",pair=\"\",rank=\"\"} -1\n");
    T_CONTAINS(got, "pair=\"0->1\"");
    /* a row without a number has no measured sample */
    T_ASSERT(!strstr(got, "nvscale_check_measured{check=\"pcie_replay GPU1 (0000:00:07.0) #2\""));
    /* every line is a comment or `name{labels} number` */
    for (char *save = NULL, *l = strtok_r(got, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#') {
            if (strncmp(l, "# HELP nvscale_", 15) && strncmp(l, "# TYPE nvscale_", 15)) T_FAIL("bad comment: %s", l);
            continue;
        }
        char *sp = strrchr(l, ' ');
        T_ASSERT(sp && strncmp(l, "nvscale_", 8) == 0);
        char *end;
        strtod(sp + 1, &end);
        if (*end) T_FAIL("not a number at the end: %s", l);
    }
    free(got);
    nvs_verdicts_free(&vs);
}

/* check labels stay unique when a row is itself named like a numbered repeat: "x", "x", "x #2" was "x", "x #2",
 * "x #2": two series with one label set, which Prometheus refuses at the scrape */
static void t_prometheus_unique(void)
{
    nvs_verdicts vs;
    memset(&vs, 0, sizeof vs);
    static const char *const names[] = {"x", "x", "x #2", "x #2", "x"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        nvs_verdict *v = nvs_verdicts_add(&vs, "run");
        T_ASSERT(v);
        snprintf(v->metric, sizeof v->metric, "%s", names[i]);
        nvs_verdict_set(&vs, v, NVS_SEV_PASS);
    }
    FILE *f = tmpfile();
    T_ASSERT(f);
    T_EQ_I(nvs_check_print_prometheus(f, &info, &vs), 0);
    char *got = t_slurp(f);
    fclose(f);
    /* one status line per row, each label once */
    static const char *const want[] = {"\"x\"", "\"x #3\"", "\"x #2\"", "\"x #2 #2\"", "\"x #4\""};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char line[64];
        snprintf(line, sizeof line, "nvscale_check_status{check=%s,", want[i]);
        const char *at = strstr(got, line);
        if (!at || strstr(at + 1, line)) T_FAIL("%s: not exactly once in\n%s", line, got);
    }
    free(got);
    nvs_verdicts_free(&vs);
}

/* one run over several hosts: no hostname in the header (rank 0's host was there, as if every result were its
 * own), each host once as a property instead; a run on one host keeps its hostname */
static void t_junit_hosts(void)
{
    nvs_run_rank rk[5] = {{.host = "b"}, {.host = "b"}, {.host = "a"}, {.host = NULL}, {.host = "b"}};
    nvs_run r = {.ranks = rk, .nranks = 5, .world_nodes = 2};
    size_t n = 0;
    const char **h = nvs_export_run_hosts(&r, &n);
    T_EQ_I((int)n, 2);
    T_ASSERT(h && !strcmp(h[0], "b") && !strcmp(h[1], "a"));
    nvs_export_info two = info;
    nvs_export_set_hosts(&two, &r, h, n);
    nvs_verdicts vs;
    rows(&vs);
    FILE *f = tmpfile();
    T_ASSERT(f);
    T_EQ_I(nvs_check_print_junit(f, &two, &vs), 0);
    char *got = t_slurp(f);
    fclose(f);
    T_ASSERT(!strstr(got, "hostname="));
    T_CONTAINS(got, "<property name=\"host\" value=\"b\"/>\n      <property name=\"host\" value=\"a\"/>");
    free(got);
    nvs_verdicts_free(&vs);
    free(h);
    /* one host: the header keeps it */
    nvs_run_rank one[2] = {{.host = "node1"}, {.host = "node1"}};
    nvs_run r1 = {.ranks = one, .nranks = 2, .world_nodes = 1};
    h = nvs_export_run_hosts(&r1, &n);
    T_EQ_I((int)n, 1);
    nvs_export_info single = info;
    nvs_export_set_hosts(&single, &r1, h, n);
    T_ASSERT(single.hostname && !strcmp(single.hostname, "node1") && single.nhosts == 0);
    free(h);
    /* no ranks, but world.nodes says 2: no hostname either */
    nvs_run r0 = {.world_nodes = 2};
    T_ASSERT(!nvs_export_run_hosts(&r0, &n) && n == 0);
    nvs_export_info none = info;
    nvs_export_set_hosts(&none, &r0, NULL, 0);
    T_ASSERT(!none.hostname);
}

/* a fleet: every host of every run once, run by run (the fleet's JUnit had none: the hosts of a run over several
 * were named only for that run checked alone); a run whose ranks name no host gives its host */
static void t_junit_fleet_hosts(void)
{
    nvs_run_rank two[4] = {{.host = "n/vnode0"}, {.host = "n/vnode0"}, {.host = "n/vnode1"}, {.host = "n/vnode1"}};
    nvs_run_rank one[2] = {{.host = "m"}, {.host = "m"}};
    nvs_run_rank again[2] = {{.host = "n/vnode1"}, {.host = "n/vnode0"}};
    nvs_run a = {.ranks = two, .nranks = 4, .world_nodes = 2, .host = "n/vnode0"};
    nvs_run b = {.ranks = one, .nranks = 2, .world_nodes = 1, .host = "m"};
    nvs_run c = {.ranks = again, .nranks = 2, .world_nodes = 2, .host = "n/vnode1"};
    nvs_run d = {.host = "old"};
    const nvs_run *const fleet[] = {&a, &b, &c, &d};
    size_t n = 0;
    const char **h = nvs_export_fleet_hosts(fleet, 4, &n);
    T_EQ_I((int)n, 4);
    T_ASSERT(h && !strcmp(h[0], "n/vnode0") && !strcmp(h[1], "n/vnode1") && !strcmp(h[2], "m") &&
             !strcmp(h[3], "old"));
    nvs_export_info fi = info;
    static const char *const paths[] = {"a/run.json", "b/run.json", "c/run.json", "d/run.json"};
    fi.runs = paths;
    fi.nruns = 4;
    fi.hostname = NULL;
    fi.hosts = h;
    fi.nhosts = n;
    nvs_verdicts vs;
    rows(&vs);
    FILE *f = tmpfile();
    T_ASSERT(f);
    T_EQ_I(nvs_check_print_junit(f, &fi, &vs), 0);
    char *got = t_slurp(f);
    fclose(f);
    T_ASSERT(!strstr(got, "hostname="));
    T_CONTAINS(got, "<property name=\"host\" value=\"n/vnode0\"/>\n      <property name=\"host\" value=\"n/vnode1\"/>\n"
                    "      <property name=\"host\" value=\"m\"/>\n      <property name=\"host\" value=\"old\"/>");
    free(got);
    nvs_verdicts_free(&vs);
    free(h);
    /* no host anywhere: none */
    nvs_run e = {0};
    const nvs_run *const none[] = {&e};
    T_ASSERT(!nvs_export_fleet_hosts(none, 1, &n) && n == 0);
}

T_LIST = {T_CASE(t_junit), T_CASE(t_junit_hosts), T_CASE(t_junit_fleet_hosts), T_CASE(t_prometheus),
          T_CASE(t_prometheus_unique)};
T_MAIN
