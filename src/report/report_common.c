/* What the report's Markdown and its plots share (report.h): the runs' labels and names, the transport word, which
 * rows failed their result check, the collectives' efficiency, and inline code in Markdown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "explain/explain.h"
#include "core/escape.h"

/* Inline code (a file path, a command line): inside backticks Markdown escapes do not work, so control
 * characters are made visible (core/escape.h, terminal form) and a backtick or '|' (the end of the span, of
 * the cell) become ' and /. */
void nvs_report_md_code(FILE *f, const char *s)
{
    size_t n = NVS_ESC_SIZE(strlen(s ? s : ""));
    char *buf = malloc(n);
    fputc('`', f);
    if (buf) {
        nvs_esc_term(s, buf, n);
        for (const char *c = buf; *c; c++) fputc(*c == '`' ? '\'' : *c == '|' ? '/' : *c == '\t' ? ' ' : *c, f);
    }
    free(buf);
    fputc('`', f);
}

const char *nvs_report_label(const nvs_report *rep, int run, char *buf, size_t len)
{
    if (rep->nruns <= 1)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "R%d", run + 1);
    return buf;
}

static void run_name_plain(const nvs_run *r, char *buf, size_t len)
{
    int *ns = NULL;
    int k = nvs_run_ns(r, &ns), top = k > 0 ? ns[k - 1] : 0;
    free(ns);
    char tr[64] = "";
    if (top >= 2) nvs_report_transport(r, top, tr, sizeof tr);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(r, top, &f);
    const char *host = r->host ? r->host : "?";
    if (tr[0] && f.hop_class && !strncmp(tr, "P2P", 3))
        snprintf(buf, len, "%s over %s, %s", tr, f.hop_class, host);
    else if (tr[0])
        snprintf(buf, len, "%s, %s", tr, host);
    else
        snprintf(buf, len, "%s, %s", r->backend ? r->backend : "?", host);
}

const char *nvs_report_run_name(const nvs_report *rep, int run, char *buf, size_t len)
{
    char mine[160], other[160];
    run_name_plain(&rep->runs[run], mine, sizeof mine);
    int dup = 0;
    for (int i = 0; i < rep->nruns && !dup; i++) {
        if (i == run) continue;
        run_name_plain(&rep->runs[i], other, sizeof other);
        dup = !strcmp(mine, other);
    }
    if (dup)
        snprintf(buf, len, "%s (R%d)", mine, run + 1);
    else
        snprintf(buf, len, "%s", mine);
    return buf;
}

const char *nvs_report_transport(const nvs_run *r, int n, char *buf, size_t len)
{
    nvs_explain_facts f;
    nvs_explain_facts_from_run(r, n, &f);
    snprintf(buf, len, "%s", f.transport);
    if (f.transport[0] && f.net[0] && !strcmp(f.transport, "NET")) snprintf(buf, len, "NET/%s", f.net);
    return buf;
}

int nvs_report_failed_check(const nvs_run_coll *x) { return x && x->wrong > 0; }

double nvs_report_coll_efficiency(const nvs_run *r, const char *coll, int n, double bytes, int *base_n)
{
    int *ns = NULL;
    int k = nvs_run_coll_ns(r, coll, &ns);
    int base = 0;
    for (int i = 0; i < k && !base; i++)
        if (ns[i] >= 2 && nvs_run_coll_find(r, coll, ns[i], bytes)) base = ns[i];
    free(ns);
    if (base_n) *base_n = base;
    if (!base || n < 2) return NAN;
    const nvs_run_coll *a = nvs_run_coll_find(r, coll, n, bytes), *b = nvs_run_coll_find(r, coll, base, bytes);
    if (!a || !b || isnan(a->busbw_gbps) || isnan(b->busbw_gbps) || b->busbw_gbps <= 0) return NAN;
    if (nvs_report_failed_check(a) || nvs_report_failed_check(b)) return NAN;
    return a->busbw_gbps / b->busbw_gbps;
}

double nvs_report_common_size(const nvs_run *r, const char *coll)
{
    int *ns = NULL;
    double *sizes = NULL;
    int kn = nvs_run_coll_ns(r, coll, &ns), ks = nvs_run_coll_sizes(r, coll, &sizes);
    double best = NAN;
    for (int s = ks - 1; s >= 0 && isnan(best); s--) {
        int all = 1, any = 0;
        for (int i = 0; i < kn; i++) {
            if (ns[i] < 2) continue;
            any = 1;
            if (!nvs_run_coll_find(r, coll, ns[i], sizes[s])) all = 0;
        }
        if (any && all) best = sizes[s];
    }
    free(ns);
    free(sizes);
    return best;
}


int nvs_report_coll_names(const nvs_report *rep, const char **names, int cap)
{
    int nn = 0;
    for (int i = 0; i < rep->nruns; i++) {
        const char **cn = NULL;
        int k = nvs_run_collective_names(&rep->runs[i], &cn);
        for (int j = 0; j < k; j++) {
            int seen = 0;
            for (int m = 0; m < nn && !seen; m++) seen = !strcmp(names[m], cn[j]);
            if (!seen && nn < cap) names[nn++] = cn[j];
        }
        free(cn);
    }
    return nn;
}
