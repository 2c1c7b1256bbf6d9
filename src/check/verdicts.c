/* Verdict rows shared by every producer (check's rules, accept's health and host-copy checks, the fleet view)
 * and every writer (table, JSON, JUnit, Prometheus). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_eval.h"

nvs_verdict *nvs_verdicts_add(nvs_verdicts *vs, const char *kind)
{
    if (vs->n == vs->cap) {
        size_t cap = vs->cap ? vs->cap * 2 : 32;
        nvs_verdict *v = realloc(vs->v, cap * sizeof *v);
        if (!v) return NULL;
        vs->v = v;
        vs->cap = cap;
    }
    nvs_verdict *v = &vs->v[vs->n++];
    memset(v, 0, sizeof *v);
    v->measured_v = v->expected_v = v->margin_v = NAN;
    v->unit = "";
    snprintf(v->margin, sizeof v->margin, "-");
    snprintf(v->kind, sizeof v->kind, "%s", kind ? kind : "");
    v->pass = 1;
    v->rank = v->gpu = v->src = v->dst = -1;
    return v;
}

void nvs_verdict_set(nvs_verdicts *vs, nvs_verdict *v, int severity)
{
    v->severity = severity;
    v->pass = severity == NVS_SEV_PASS || severity == NVS_SEV_WARN; /* a SKIP is no pass, and no fail either */
    if (severity == NVS_SEV_FAIL) vs->failed++;
    else if (severity == NVS_SEV_WARN) vs->warned++;
    else if (severity == NVS_SEV_SKIP) vs->skipped++;
}

nvs_verdict *nvs_verdicts_add_rule(nvs_verdicts *vs, const nvs_rule *r, const char *kind)
{
    nvs_verdict *v = nvs_verdicts_add(vs, kind);
    if (!v) return NULL;
    nvs_rule_where(r, v->rule, sizeof v->rule);
    return v;
}

void nvs_verdict_miss(nvs_verdicts *vs, nvs_verdict *v, const nvs_rule *r)
{
    nvs_verdict_set(vs, v, r->warn_only ? NVS_SEV_WARN : NVS_SEV_FAIL);
}

const char *nvs_verdict_word(const nvs_verdict *v) { return nvs_severity_name((nvs_severity)v->severity); }

void nvs_verdicts_free(nvs_verdicts *v)
{
    free(v->v);
    memset(v, 0, sizeof *v);
}
