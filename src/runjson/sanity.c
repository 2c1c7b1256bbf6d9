/* See sanity.h. */
#include "runjson/sanity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"

static nvs_sanity *next(nvs_sanity *out, size_t cap, size_t *n)
{
    nvs_sanity *s = *n < cap ? &out[*n] : NULL;
    (*n)++;
    if (s) memset(s, 0, sizeof *s);
    return s;
}

/* One workload's efficiencies above 100 % beyond noise; `model` names it in a run of several, else NULL */
static void efficiency_findings(const nvs_run *run, const nvs_run_train *t, const char *model, nvs_sanity *out,
                                size_t cap, size_t *n)
{
    /* the host backend's ranks are CPU processes (a run.json before command.backend: GPUs, as it said then) */
    const char *units = run->backend && strcmp(run->backend, "nccl") ? "ranks" : "GPUs";
    for (size_t i = 0; i < t->nresults; i++) {
        const nvs_run_train_result *x = &t->results[i];
        if (!(x->efficiency > 1 + NVS_SANITY_NOISE)) continue; /* NaN: not measured, nothing to say */
        nvs_sanity *s = next(out, cap, n);
        if (!s) continue;
        snprintf(s->kind, sizeof s->kind, "efficiency");
        snprintf(s->what, sizeof s->what, "training efficiency %.64s%sn=%d", model ? model : "", model ? " " : "",
                 x->n);
        s->n = x->n;
        s->value = x->efficiency;
        s->limit = 1 + NVS_SANITY_NOISE;
        snprintf(s->text, sizeof s->text,
                 "%.64s%straining efficiency %.1f %% at N=%d is above 100 %% by more than timing noise (%.0f %%): N "
                 "%s stepped faster than the reference; its step was slowed by something else (host launch overhead "
                 "of a small model, CPU clocks, another process): this run's efficiencies are not scaling",
                 model ? model : "", model ? "'s " : "", 100 * x->efficiency, x->n, 100 * NVS_SANITY_NOISE, units);
    }
}

size_t nvs_sanity_of(const nvs_run *run, nvs_sanity *out, size_t cap)
{
    size_t n = 0;
    /* every workload the run trained, not only the first ("train"): a second one's 146 % went unsaid */
    size_t nw = nvs_run_workloads(run);
    for (size_t w = 0; w < nw; w++) {
        const nvs_run_train *t = nvs_run_workload(run, w);
        efficiency_findings(run, t, nw > 1 ? (t->model ? t->model : "?") : NULL, out, cap, &n);
    }
    for (size_t i = 0; i < run->ncolls; i++) {
        const nvs_run_coll *c = &run->colls[i];
        const nvs_run_explain *e = c->n >= 2 ? nvs_run_explain_of(run, c->n) : NULL;
        if (!e || !(e->bound_gbps > 0) || !(c->busbw_gbps > e->bound_gbps * (1 + NVS_SANITY_BOUND_SLACK))) continue;
        nvs_sanity *s = next(out, cap, &n);
        if (!s) continue;
        char sz[32];
        nvs_format_size(c->bytes >= 0 && c->bytes < 1e18 ? (size_t)c->bytes : 0, sz, sizeof sz);
        snprintf(s->kind, sizeof s->kind, "bound");
        snprintf(s->what, sizeof s->what, "busbw %.40s %s n=%d%s", c->collective ? c->collective : "?", sz, c->n,
                 c->inplace ? " in-place" : "");
        s->n = c->n;
        s->value = c->busbw_gbps;
        s->limit = e->bound_gbps;
        snprintf(s->text, sizeof s->text,
                 "busbw %.1f GB/s is above the %.1f GB/s bound of the ring's slowest hop%s%.24s%s at N=%d: the "
                 "topology missed a faster path, NCCL reduced in the switch (NVLS/SHARP), or the bound's link "
                 "rate is wrong; its %% of bound is not a measure of this link",
                 c->busbw_gbps, e->bound_gbps, e->hop_class ? " (" : "", e->hop_class ? e->hop_class : "",
                 e->hop_class ? ")" : "", c->n);
    }
    /* -c 0: nothing below says whether the data arrived right; said once, after the numbers it concerns */
    if (run->unvalidated && run->ncolls > 0) {
        nvs_sanity *s = next(out, cap, &n);
        if (s) {
            snprintf(s->kind, sizeof s->kind, "unvalidated");
            snprintf(s->what, sizeof s->what, "collectives not validated");
            s->value = (double)run->ncolls;
            s->limit = 0;
            snprintf(s->text, sizeof s->text,
                     "the %zu collective rows were not validated (run with -c 0): a wrong result would have gone "
                     "unseen, so their bandwidths do not show the data path works; run again with -c 1 (the "
                     "default) for an acceptance",
                     run->ncolls);
        }
    }
    return n;
}
