/* Prometheus text exposition format (version 0.0.4, what node_exporter's textfile collector reads: "# HELP",
 * "# TYPE", then `name{label="value",...} number` lines; prometheus.io/docs/instrumenting/exposition_formats)
 * of the verdict rows (check_export.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_export.h"
#include "core/escape.h"

/* a label value: backslash, double quote and line feed escaped, as the format requires (core/escape.h) */
static void label_value(FILE *f, const char *s) { nvs_esc_fputs(NVS_ESC_PROM, s ? s : "", f); }

/* Every row's check label, unique among the rows (a repeated series is a scrape error in Prometheus): the second
 * row named "x" is "x #2", or "x #3" when another row is named "x #2" itself. NULL when out of memory. */
typedef char check_label_t[300];

static int label_taken(const nvs_verdicts *vs, const check_label_t *got, size_t i, const char *cand)
{
    for (size_t k = 0; k < vs->n; k++)
        if ((k < i && !strcmp(got[k], cand)) || (k != i && !strcmp(vs->v[k].metric, cand))) return 1;
    return 0;
}

static check_label_t *check_labels(const nvs_verdicts *vs)
{
    check_label_t *got = calloc(vs->n ? vs->n : 1, sizeof *got);
    if (!got) return NULL;
    for (size_t i = 0; i < vs->n; i++) {
        int seen = 0; /* rows before of that name: the first number tried, and nearly always the one taken */
        for (size_t k = 0; k < i; k++) seen += !strcmp(vs->v[k].metric, vs->v[i].metric);
        snprintf(got[i], sizeof got[i], "%s", vs->v[i].metric);
        for (int n = seen + 1, dup = seen > 0; dup; n++) {
            snprintf(got[i], sizeof got[i], "%s #%d", vs->v[i].metric, n);
            dup = label_taken(vs, got, i, got[i]);
        }
    }
    return got;
}

static void labels(FILE *f, const nvs_verdicts *vs, const check_label_t *check, size_t i, int with_unit)
{
    const nvs_verdict *v = &vs->v[i];
    char n[32];
    fputs("{check=\"", f);
    label_value(f, check[i]);
    fputs("\",kind=\"", f);
    label_value(f, v->kind);
    fputs("\",host=\"", f);
    label_value(f, v->host);
    fputs("\",gpu=\"", f);
    if (v->gpu >= 0) fprintf(f, "%d", v->gpu);
    fputs("\",pair=\"", f);
    if (v->src >= 0 && v->dst >= 0) fprintf(f, "%d->%d", v->src, v->dst);
    fputs("\",rank=\"", f);
    if (v->rank >= 0) {
        snprintf(n, sizeof n, "%d", v->rank);
        fputs(n, f);
    }
    fputs("\"", f);
    if (with_unit) {
        fputs(",unit=\"", f);
        label_value(f, v->unit);
        fputs("\"", f);
    }
    fputs("}", f);
}

static void family(FILE *f, const char *name, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

int nvs_check_print_prometheus(FILE *f, const nvs_export_info *info, const nvs_verdicts *vs)
{
    (void)info;
    check_label_t *check = check_labels(vs);
    if (!check) return -1;
    /* a SKIP is -1, below PASS: an alert on "> 0" (WARN or worse) or "== 2" (FAIL) does not take a check that was
     * not performed for a failing one, and "< 0" finds them */
    family(f, "nvscale_check_status",
           "Verdict of one nvscale acceptance check: 0 PASS, 1 WARN, 2 FAIL, -1 SKIP (not checked).");
    for (size_t i = 0; i < vs->n; i++) {
        fputs("nvscale_check_status", f);
        labels(f, vs, check, i, 0);
        fprintf(f, " %d\n", vs->v[i].severity == NVS_SEV_SKIP ? -1 : vs->v[i].severity);
    }
    static const struct {
        const char *name, *help;
        size_t off;
    } values[] = {
        {"nvscale_check_measured", "Measured value of the check, in its unit label (GB/s, fraction, ...).",
         offsetof(nvs_verdict, measured_v)},
        {"nvscale_check_expected", "Threshold of the check, in its unit label.", offsetof(nvs_verdict, expected_v)},
        {"nvscale_check_margin", "Measured minus threshold, in its unit label (negative: short of it).",
         offsetof(nvs_verdict, margin_v)},
    };
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        int any = 0;
        for (size_t i = 0; i < vs->n; i++) {
            double x = *(const double *)((const char *)&vs->v[i] + values[k].off);
            if (isnan(x) || isinf(x)) continue; /* not measured: no sample, rather than a made-up number */
            if (!any++) family(f, values[k].name, values[k].help);
            fputs(values[k].name, f);
            labels(f, vs, check, i, 1);
            fprintf(f, " %.12g\n", x); /* 12 digits: more than any measurement holds */
        }
    }
    family(f, "nvscale_checks", "Number of checks by verdict in the last nvscale acceptance run.");
    fprintf(f, "nvscale_checks{verdict=\"PASS\"} %zu\n", vs->n - vs->failed - vs->warned - vs->skipped);
    fprintf(f, "nvscale_checks{verdict=\"WARN\"} %zu\n", vs->warned);
    fprintf(f, "nvscale_checks{verdict=\"FAIL\"} %zu\n", vs->failed);
    fprintf(f, "nvscale_checks{verdict=\"SKIP\"} %zu\n", vs->skipped);
    free(check);
    return ferror(f) ? -1 : 0;
}
