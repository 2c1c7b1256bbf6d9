/* JUnit XML of the verdict rows (check_export.h). The element and attribute names are the common JUnit report
 * format that Jenkins, GitLab and GitHub test reporters read: testsuites > testsuite > testcase, with failure,
 * system-out and properties. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_export.h"
#include "core/escape.h"

/* XML text and attribute values: core/escape.h (the five predefined entities; in attributes tab, line feed and
 * carriage return as character references; other control characters, not allowed in XML 1.0 at all, as
 * visible text) */
static void xml(FILE *f, const char *s) { nvs_esc_fputs(NVS_ESC_XML, s ? s : "", f); }

static void attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    nvs_esc_fputs(NVS_ESC_XMLATTR, value ? value : "", f);
    fputc('"', f);
}

static void property(FILE *f, const char *indent, const char *name, const char *value)
{
    fprintf(f, "%s<property", indent);
    attr(f, "name", name);
    attr(f, "value", value);
    fputs("/>\n", f);
}

/* who the row blames, for the message: "host node1, rank 3, GPU 0, pair 0->1" */
static void blame(const nvs_verdict *v, char *buf, size_t len)
{
    buf[0] = '\0';
    if (v->host[0]) snprintf(buf + strlen(buf), len - strlen(buf), "host %s", v->host);
    if (v->rank >= 0) snprintf(buf + strlen(buf), len - strlen(buf), "%srank %d", buf[0] ? ", " : "", v->rank);
    if (v->gpu >= 0) snprintf(buf + strlen(buf), len - strlen(buf), "%sGPU %d", buf[0] ? ", " : "", v->gpu);
    if (v->src >= 0 && v->dst >= 0)
        snprintf(buf + strlen(buf), len - strlen(buf), "%spair %d->%d", buf[0] ? ", " : "", v->src, v->dst);
}

/* The attributes <testsuites> and its one <testsuite> share: name, counts, time. */
static void suite_attrs(FILE *f, const nvs_export_info *info, const nvs_verdicts *vs)
{
    char num[64];
    attr(f, "name", info->suite);
    snprintf(num, sizeof num, "%zu", vs->n);
    attr(f, "tests", num);
    snprintf(num, sizeof num, "%zu", vs->failed);
    attr(f, "failures", num);
    attr(f, "errors", "0");
    snprintf(num, sizeof num, "%zu", vs->skipped);
    attr(f, "skipped", num);
    if (info->duration_s >= 0) {
        snprintf(num, sizeof num, "%.3f", info->duration_s);
        attr(f, "time", num);
    }
}

int nvs_check_print_junit(FILE *f, const nvs_export_info *info, const nvs_verdicts *vs)
{
    char num[64];
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
    suite_attrs(f, info, vs);
    fputs(">\n  <testsuite", f);
    suite_attrs(f, info, vs);
    if (info->timestamp) attr(f, "timestamp", info->timestamp);
    if (info->hostname) attr(f, "hostname", info->hostname);
    fputs(">\n    <properties>\n", f);
    if (info->runs)
        for (size_t i = 0; i < info->nruns; i++) property(f, "      ", "run", info->runs[i]);
    else
        property(f, "      ", "run", info->run_path);
    for (size_t i = 0; i < info->nhosts; i++) property(f, "      ", "host", info->hosts[i]);
    property(f, "      ", "rules", info->rules_desc);
    snprintf(num, sizeof num, "%zu", vs->warned);
    property(f, "      ", "warnings", num);
    fputs("    </properties>\n", f);
    for (size_t i = 0; i < vs->n; i++) {
        const nvs_verdict *v = &vs->v[i];
        char cls[64], who[160], msg[512];
        snprintf(cls, sizeof cls, "nvscale.%s", v->kind[0] ? v->kind : "check");
        blame(v, who, sizeof who);
        snprintf(msg, sizeof msg, "measured %s, expected %s, margin %s%s%s", v->measured, v->expected, v->margin,
                 who[0] ? "; " : "", who);
        fputs("    <testcase", f);
        attr(f, "classname", cls);
        attr(f, "name", v->metric);
        attr(f, "time", "0");
        fputs(">\n      <properties>\n", f);
        property(f, "        ", "verdict", nvs_verdict_word(v));
        if (v->rule[0]) property(f, "        ", "rule", v->rule);
        if (who[0]) property(f, "        ", "blame", who);
        fputs("      </properties>\n", f);
        if (v->severity == NVS_SEV_FAIL) {
            fputs("      <failure", f);
            attr(f, "message", msg);
            attr(f, "type", "FAIL");
            fputs(">", f);
            xml(f, v->note[0] ? v->note : msg);
            fputs("</failure>\n", f);
        } else if (v->severity == NVS_SEV_WARN) {
            fputs("      <system-out>WARN: ", f);
            xml(f, msg);
            if (v->note[0]) {
                fputs(": ", f);
                xml(f, v->note);
            }
            fputs("</system-out>\n", f);
        } else if (v->severity == NVS_SEV_SKIP) { /* JUnit's own state for a test that was not run */
            char why[420];
            snprintf(why, sizeof why, "not checked%s%s", v->note[0] ? ": " : "", v->note);
            fputs("      <skipped", f);
            attr(f, "message", why);
            fputs("/>\n", f);
        }
        fputs("    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return ferror(f) ? -1 : 0;
}

/* X into H[0..*n) unless it is there: the ranks of a host are usually together, so the last one is tried first */
static void add_host(const char **h, size_t *n, const char *x)
{
    size_t k = *n;
    if (!x || !x[0] || (k && !strcmp(h[k - 1], x))) return;
    while (k > 0 && strcmp(h[k - 1], x)) k--;
    if (k == 0) h[(*n)++] = x;
}

const char **nvs_export_run_hosts(const nvs_run *r, size_t *n)
{
    *n = 0;
    const char **h = r->nranks ? malloc(r->nranks * sizeof *h) : NULL;
    if (!h) return NULL;
    for (size_t i = 0; i < r->nranks; i++) add_host(h, n, r->ranks[i].host);
    if (!*n) {
        free(h);
        return NULL;
    }
    return h;
}

const char **nvs_export_fleet_hosts(const nvs_run *const *runs, size_t nruns, size_t *n)
{
    *n = 0;
    size_t cap = 0;
    for (size_t i = 0; i < nruns; i++) cap += runs[i]->nranks + 1;
    const char **h = cap ? malloc(cap * sizeof *h) : NULL;
    if (!h) return NULL;
    for (size_t i = 0; i < nruns; i++) {
        int seen = 0;
        for (size_t k = 0; k < runs[i]->nranks; k++) {
            const char *x = runs[i]->ranks[k].host;
            seen |= x && x[0];
            add_host(h, n, x);
        }
        if (!seen) add_host(h, n, runs[i]->host); /* a run without per-rank hosts: its one host */
    }
    if (!*n) {
        free(h);
        return NULL;
    }
    return h;
}

void nvs_export_set_hosts(nvs_export_info *info, const nvs_run *r, const char *const *hosts, size_t nhosts)
{
    if (nhosts > 1 || r->world_nodes > 1) {
        info->hostname = NULL;
        info->hosts = hosts;
        info->nhosts = nhosts;
    }
}
