/* accept's `health` rules (check_accept.h): the run's health section read and evaluated once (health/health.h),
 * then per rule one row per finding of the checks it names, or one "not measured" row. */
#include <stdio.h>
#include <string.h>

#include "check/check_accept_priv.h"
#include "health/health.h"

/* 0, -1 out of memory */
int nvs_ca_health_facts_read(const json_t *root, health_facts *h)
{
    memset(h, 0, sizeof *h);
    h->section = json_object_get(root, "health");
    if (!h->section) return 0;
    nvs_result_t res = nvs_health_from_json(h->section, &h->rep, h->err, sizeof h->err);
    if (res == NVS_ERR_NOMEM) return -1;
    if (res != NVS_OK) {
        h->unreadable = 1;
        return 0;
    }
    if (h->rep.ngpus && nvs_health_evaluate(&h->rep, &h->f)) {
        nvs_health_report_free(&h->rep);
        return -1;
    }
    return 0;
}

void nvs_ca_health_facts_free(health_facts *h)
{
    if (!h->section || h->unreadable) return;
    if (h->rep.ngpus) nvs_health_findings_free(&h->f);
    nvs_health_report_free(&h->rep);
}

/* named: the checks that a health rule of the ruleset names itself (bit per nvs_health_check); `health *` leaves
 * them to that rule (`health *` with `health ecc severity=warn`: ECC warns, everything else fails) */
int nvs_ca_eval_health(const nvs_rule *r, const health_facts *h, const gpu_ranks *gr, unsigned named, nvs_verdicts *vs)
{
    const char *name = r->health_check < 0 ? "*" : nvs_health_check_name((nvs_health_check)r->health_check);
    if (!h->section || h->unreadable || !h->rep.ngpus) {
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "health");
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "health %s", name);
        not_measured(vs, v, r, !h->section ? "the run has no health section (nvscale accept measures it)"
                               : h->unreadable ? h->err
                               : h->rep.source[0] ? h->rep.source : "no GPU in the health section");
        return 0;
    }
    for (size_t i = 0; i < h->f.n; i++) {
        const nvs_health_finding *x = &h->f.v[i];
        if (r->health_check >= 0 && (int)x->check != r->health_check) continue;
        if (r->health_check < 0 && (named >> x->check & 1u)) continue; /* its own rule judges it */
        const nvs_health_gpu *g = &h->rep.gpus[x->gpu_entry];
        nvs_verdict *v = nvs_verdicts_add_rule(vs, r, "health");
        if (!v) return -1;
        snprintf(v->metric, sizeof v->metric, "%s", x->what);
        snprintf(v->measured, sizeof v->measured, "%.47s", x->measured);
        snprintf(v->expected, sizeof v->expected, "%.47s", x->expected);
        snprintf(v->note, sizeof v->note, "%s", x->note);
        v->measured_v = x->measured_v;
        v->expected_v = x->expected_v;
        snprintf(v->host, sizeof v->host, "%s", g->host);
        v->gpu = g->gpu;
        v->rank = nvs_ca_rank_of_gpu(gr, g->gpu);
        int sev = x->severity;
        if (sev == NVS_SEV_FAIL && r->warn_only) sev = NVS_SEV_WARN;
        nvs_verdict_set(vs, v, sev);
    }
    return 0;
}
