/* Fleet medians and outliers, and machine comparison (fleet.h). */
#include "fleet/fleet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"

int nvs_fleet_add(nvs_fleet_samples *s, const char *key, const char *unit, int run, const char *host, double value)
{
    if (isnan(value) || isinf(value)) return 0; /* not measured: not part of the fleet */
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        nvs_fleet_sample *v = realloc(s->v, cap * sizeof *v);
        if (!v) return -1;
        s->v = v;
        s->cap = cap;
    }
    nvs_fleet_sample *x = &s->v[s->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->key, sizeof x->key, "%s", key);
    snprintf(x->unit, sizeof x->unit, "%s", unit ? unit : "");
    snprintf(x->host, sizeof x->host, "%s", host ? host : "");
    x->run = run;
    x->value = value;
    return 0;
}

void nvs_fleet_samples_free(nvs_fleet_samples *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, nvs_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int nvs_fleet_judge(const nvs_fleet_samples *s, double max_below_pct, nvs_fleet_findings *out)
{
    memset(out, 0, sizeof *out);
    out->v = calloc(s->n ? s->n : 1, sizeof *out->v);
    double *vals = calloc(s->n ? s->n : 1, sizeof *vals);
    char *done = calloc(s->n ? s->n : 1, 1);
    if (!out->v || !vals || !done) {
        free(vals);
        free(done);
        nvs_fleet_findings_free(out);
        return -1;
    }
    /* keys in the order they first appear; within a key, the samples in their order */
    for (size_t i = 0; i < s->n; i++) {
        if (done[i]) continue;
        size_t k = 0;
        for (size_t j = i; j < s->n; j++)
            if (!strcmp(s->v[j].key, s->v[i].key)) vals[k++] = s->v[j].value;
        double med = median(vals, k);
        for (size_t j = i; j < s->n; j++) {
            if (strcmp(s->v[j].key, s->v[i].key)) continue;
            done[j] = 1;
            if (k < 2) continue; /* one run: nothing to compare with */
            nvs_fleet_finding *f = &out->v[out->n++];
            f->sample = &s->v[j];
            f->median = med;
            f->runs = (int)k;
            f->below_pct = med > 0 ? (med - s->v[j].value) / med * 100 : 0;
            f->outlier = f->below_pct > max_below_pct;
            out->outliers += (size_t)f->outlier;
        }
    }
    free(vals);
    free(done);
    return 0;
}

void nvs_fleet_findings_free(nvs_fleet_findings *f)
{
    free(f->v);
    memset(f, 0, sizeof *f);
}

static void differ(char *why, size_t len, const char *what, const char *a, const char *b)
{
    snprintf(why + strlen(why), len - strlen(why), "%s%s %s vs %s", why[0] ? "; " : "", what, a, b);
}

int nvs_fleet_machines_differ(const nvs_fleet_machine *a, const nvs_fleet_machine *b, char *why, size_t len)
{
    why[0] = '\0';
    if (a->gpu_name && b->gpu_name && strcmp(a->gpu_name, b->gpu_name))
        differ(why, len, "GPU", a->gpu_name, b->gpu_name);
    if (a->ngpus >= 0 && b->ngpus >= 0 && a->ngpus != b->ngpus) {
        char x[16], y[16];
        snprintf(x, sizeof x, "%d", a->ngpus);
        snprintf(y, sizeof y, "%d", b->ngpus);
        differ(why, len, "GPUs", x, y);
    } else if (a->classes[0] && b->classes[0] && strcmp(a->classes, b->classes))
        differ(why, len, "topology", a->classes, b->classes);
    if (a->backend && b->backend && strcmp(a->backend, b->backend)) differ(why, len, "backend", a->backend, b->backend);
    if (strcmp(a->settings, b->settings))
        differ(why, len, "NCCL settings", a->settings[0] ? a->settings : "none", b->settings[0] ? b->settings : "none");
    return why[0] != '\0';
}
