/* Verdict table and JSON of `nvscale check` (formats: docs/check.md). */
#include "check/check_out.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/log.h"
#include "runjson/runjson_write.h"

int nvs_check_exit_code(const nvs_check_report *rep) { return rep->verdicts->failed ? 3 : 0; }

/* The verdict the outputs print agrees with the process's exit code: 3 is a FAIL even when no row failed (the
 * caller adds a failing row for wrong results, nvs_check_run_wrong; this holds should one ever not), so that a
 * JSON reader or CI log never sees PASS beside exit 3 */
static int result_fails(const nvs_check_report *rep) { return rep->verdicts->failed || rep->exit_code == 3; }

static void slowest_rank_line(FILE *f, const nvs_slowest_rank *s)
{
    fprintf(f, "slowest rank at n=%d: rank %d", s->n, s->rank);
    if (s->host[0] || s->device >= 0) {
        fprintf(f, " (");
        char h[NVS_ESC_SIZE(64)];
        if (s->host[0]) fprintf(f, "host %s%s", nvs_esc_term(s->host, h, sizeof h), s->device >= 0 ? ", " : "");
        if (s->device >= 0) fprintf(f, "device %d", s->device);
        fprintf(f, ")");
    }
    fprintf(f, ", slowest in %d of %d configurations", s->slowest_in, s->configs);
    if (!isnan(s->lag_pct)) fprintf(f, "; the slowest rank took %.1f%% longer than the fastest on average", s->lag_pct);
    fprintf(f, "\n");
}

static void slowest_pair_line(FILE *f, const nvs_run *run, int idx)
{
    char skipped[240];
    if (idx >= 0) {
        const nvs_run_p2p_pair *p = &run->p2p.pairs[idx];
        fprintf(f, "slowest pair: GPU %d -> GPU %d", p->src, p->dst);
        char c[NVS_ESC_SIZE(32)];
        if (p->cls && *p->cls) fprintf(f, " (%s)", nvs_esc_term(p->cls, c, sizeof c));
        fprintf(f, ": %.1f GB/s unidirectional", p->uni_gbps);
        if (!isnan(p->pct_of_bound)) fprintf(f, ", %.1f%% of its %.1f GB/s bound", p->pct_of_bound, p->bound_gbps);
        fprintf(f, "\n");
        return;
    }
    /* No p2p matrix: the ring's slowest hop from the explanation is the next best answer. */
    const nvs_run_explain *h = nvs_check_slowest_hop(run);
    if (h) {
        fprintf(f, "slowest pair: not measured (no p2p section); the ring's slowest hop at n=%d is GPU %d -> GPU %d",
                h->n, h->hop_from_gpu, h->hop_to_gpu);
        const char *link = h->hop_link ? h->hop_link : "";
        char c[NVS_ESC_SIZE(32)], l[NVS_ESC_SIZE(32)];
        if (h->hop_class && *h->hop_class)
            fprintf(f, " (%s%s%s)", nvs_esc_term(h->hop_class, c, sizeof c), *link ? ", " : "",
                    nvs_esc_term(link, l, sizeof l));
        fprintf(f, "\n");
    } else if (nvs_run_p2p_skipped(run, skipped, sizeof skipped)) {
        char wb[NVS_ESC_SIZE(240)];
        fprintf(f, "slowest pair: not measured (%s)\n", nvs_esc_term(skipped, wb, sizeof wb));
    } else
        fprintf(f, "slowest pair: not measured (the run has no p2p %s)\n", run->p2p.present ? "pairs" : "section");
}

/* Who a row blames, short, for the table: "vm rank 1 GPU 1", "vm 0->1"; "" when the row names nobody. */
static void who_of(const nvs_verdict *v, char *buf, size_t len)
{
    buf[0] = '\0';
    if (v->rank < 0 && v->gpu < 0 && v->src < 0) return; /* the host alone says nothing a one-host run needs */
    if (v->host[0]) snprintf(buf, len, "%s", v->host);
    if (v->rank >= 0) snprintf(buf + strlen(buf), len - strlen(buf), "%srank %d", buf[0] ? " " : "", v->rank);
    if (v->gpu >= 0) snprintf(buf + strlen(buf), len - strlen(buf), "%sGPU %d", buf[0] ? " " : "", v->gpu);
    if (v->src >= 0 && v->dst >= 0)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%d->%d", buf[0] ? " " : "", v->src, v->dst);
}

/* The table quotes the run.json (host names, paths, the run's reason, a rule's text): every such field goes
 * through core/escape.h before it is laid out, so that no control character or line end from a file reaches
 * the terminal (a host named "x\nresult: PASS" printed a fake PASS line above the real FAIL). */
typedef struct {
    char metric[NVS_ESC_SIZE(256)], measured[NVS_ESC_SIZE(48)], expected[NVS_ESC_SIZE(48)], margin[NVS_ESC_SIZE(48)],
        who[NVS_ESC_SIZE(128)], note[NVS_ESC_SIZE(384)];
} row_text;

static void row_of(const nvs_verdict *v, row_text *t)
{
    char who[128];
    who_of(v, who, sizeof who);
    nvs_esc_term(v->metric, t->metric, sizeof t->metric);
    nvs_esc_term(v->measured, t->measured, sizeof t->measured);
    nvs_esc_term(v->expected, t->expected, sizeof t->expected);
    nvs_esc_term(v->margin, t->margin, sizeof t->margin);
    nvs_esc_term(who, t->who, sizeof t->who);
    nvs_esc_term(v->note, t->note, sizeof t->note);
}

/* A SKIP row that blames nobody: the table lists such rows under it, one line per reason with the checks it
 * left out (a host backend's accept has two dozen, each with the same reason: a column of "not checked - - SKIP"
 * hid the rows that were judged). A SKIP row naming a host, rank or GPU keeps its row. */
static int grouped_skip(const nvs_verdict *v, const row_text *t) { return v->severity == NVS_SEV_SKIP && !t->who[0]; }

/* "SKIP (11): health ecc, health memory, ...\n      why" per distinct note, in the order of first appearance;
 * every check is named, wrapped at about 110 columns */
static void print_skips(FILE *f, const nvs_verdicts *vs, const row_text *rows)
{
    for (size_t i = 0; i < vs->n; i++) {
        if (!grouped_skip(&vs->v[i], &rows[i])) continue;
        int first = 1;
        for (size_t k = 0; k < i && first; k++)
            first = !(grouped_skip(&vs->v[k], &rows[k]) && !strcmp(rows[k].note, rows[i].note));
        if (!first) continue;
        size_t count = 0;
        for (size_t k = i; k < vs->n; k++)
            count += grouped_skip(&vs->v[k], &rows[k]) && !strcmp(rows[k].note, rows[i].note);
        int col = fprintf(f, "SKIP (%zu):", count);
        for (size_t k = i, m = 0; k < vs->n; k++) {
            if (!grouped_skip(&vs->v[k], &rows[k]) || strcmp(rows[k].note, rows[i].note)) continue;
            size_t l = strlen(rows[k].metric);
            if (m && col + (int)l + 2 > 110) col = fprintf(f, ",\n   ") - 2;
            else if (m) col += fprintf(f, ",");
            col += fprintf(f, " %s", rows[k].metric);
            m++;
        }
        fprintf(f, "\n    %s\n", rows[i].note[0] ? rows[i].note : "(no reason given)");
    }
}

nvs_result_t nvs_check_print_table(FILE *f, const nvs_check_report *rep)
{
    const nvs_verdicts *vs = rep->verdicts;
    static const char *const head[] = {"metric", "measured", "expected", "margin", "verdict", "blame"};
    size_t w[6];
    int any_who = 0;
    row_text *rows = calloc(vs->n ? vs->n : 1, sizeof *rows);
    if (!rows) {
        nvs_error("out of memory");
        return NVS_ERR_NOMEM;
    }
    for (int c = 0; c < 6; c++) w[c] = strlen(head[c]);
    for (size_t i = 0; i < vs->n; i++) {
        const nvs_verdict *v = &vs->v[i];
        row_text *t = &rows[i];
        row_of(v, t);
        if (grouped_skip(v, t)) continue; /* listed under the table, not a column of it */
        any_who |= t->who[0] != '\0';
        const char *cols[6] = {t->metric, t->measured, t->expected, t->margin, nvs_verdict_word(v), t->who};
        for (int c = 0; c < 6; c++)
            if (strlen(cols[c]) > w[c]) w[c] = strlen(cols[c]);
    }
    char e1[NVS_ESC_SIZE(1024)], e2[NVS_ESC_SIZE(1024)];
    fprintf(f, "%s: %s\n", rep->title ? rep->title : "nvscale check", nvs_esc_term(rep->run->path, e1, sizeof e1));
    fprintf(f, "rules: %s\n", nvs_esc_term(rep->rules_desc, e2, sizeof e2));
    if (rep->base) fprintf(f, "baseline: %s\n", nvs_esc_term(rep->base->path, e1, sizeof e1));
    fprintf(f, "\n");
    char line[4400];
    int n = snprintf(line, sizeof line, "%-*s  %-*s  %-*s  %-*s  %-*s  ", (int)w[0], head[0], (int)w[1], head[1],
                     (int)w[2], head[2], (int)w[3], head[3], (int)w[4], head[4]);
    if (any_who && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "%-*s  ", (int)w[5], head[5]);
    fprintf(f, "%snote\n", line);
    for (size_t i = 0; i < vs->n; i++) {
        const nvs_verdict *v = &vs->v[i];
        const row_text *t = &rows[i];
        if (grouped_skip(v, t)) continue;
        n = snprintf(line, sizeof line, "%-*s  %-*s  %-*s  %-*s  %-*s  ", (int)w[0], t->metric, (int)w[1], t->measured,
                     (int)w[2], t->expected, (int)w[3], t->margin, (int)w[4], nvs_verdict_word(v));
        if (any_who && n > 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n, "%-*s  ", (int)w[5], t->who);
        if (n > 0 && (size_t)n < sizeof line) snprintf(line + n, sizeof line - (size_t)n, "%s", t->note);
        size_t l = strlen(line);
        while (l && line[l - 1] == ' ') line[--l] = '\0'; /* no trailing blanks when there is no note */
        fprintf(f, "%s\n", line);
    }
    print_skips(f, vs, rows);
    free(rows);
    fprintf(f, "\n");
    for (size_t i = 0; i < rep->nslowest; i++) slowest_rank_line(f, &rep->slowest[i]);
    if (!rep->nslowest) fprintf(f, "slowest rank: not known (no collective row at n >= 2 names one)\n");
    slowest_pair_line(f, rep->run, rep->slowest_pair);
    /* skipped checks are said beside either verdict: they were not checked, so neither passed nor failed */
    char skipped[80] = "";
    if (vs->skipped) snprintf(skipped, sizeof skipped, "; %zu skipped: not checked, see their notes", vs->skipped);
    if (vs->failed)
        fprintf(f, "result: FAIL (%zu of %zu check%s failed%s)\n", vs->failed, vs->n, vs->n == 1 ? "" : "s", skipped);
    else if (result_fails(rep))
        fprintf(f, "result: FAIL (the run found wrong results: exit 3, though none of its %zu check%s failed%s)\n",
                vs->n, vs->n == 1 ? "" : "s", skipped);
    else /* "1 checks" read wrong: a host without NVML judges the run result alone */
        fprintf(f, "result: PASS (%zu check%s%s%s)\n", vs->n, vs->n == 1 ? "" : "s",
                vs->warned ? ", some with a warning: read their notes" : "", skipped);
    if (fflush(f) != 0 || ferror(f)) {
        nvs_error("cannot write the verdict table to stdout");
        return NVS_ERR_SYSTEM;
    }
    return NVS_OK;
}

/* json_object_set_new that remembers a failure (out of memory), so that one check covers the whole build. */
static void set(json_t *o, const char *k, json_t *v, int *bad)
{
    if (!v || json_object_set_new(o, k, v)) *bad = 1;
}

/* A string for the JSON. JSON text is UTF-8 and jansson refuses anything else (NULL, as for out of memory): a
 * file name in another encoding, or a name cut inside a character to fit a row's metric or blame, is given as the
 * table shows it (core/escape.h: the bytes that are not UTF-8 as \xNN); valid text stays exactly as it is. */
static json_t *text(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j || !s) return j;
    size_t len = NVS_ESC_SIZE(strlen(s));
    char *buf = malloc(len);
    if (!buf) return NULL;
    j = json_string(nvs_esc(NVS_ESC_TERM, s, buf, len));
    free(buf);
    return j;
}

static json_t *build_json(const nvs_check_report *rep)
{
    int bad = 0;
    const nvs_verdicts *vs = rep->verdicts;
    json_t *root = json_object(), *arr = json_array(), *sr = json_array();
    if (!root || !arr || !sr) goto fail;
    set(root, "schema", json_string(NVS_CHECK_SCHEMA), &bad);
    set(root, "run", text(rep->run->path), &bad);
    json_t *runs = json_array(); /* every run judged: the one, or the fleet's (whose rows "run" alone left out) */
    for (size_t i = 0; runs && i < (rep->runs ? rep->nruns : 1); i++)
        if (json_array_append_new(runs, text((rep->runs ? rep->runs[i] : rep->run)->path))) bad = 1;
    set(root, "runs", runs, &bad);
    set(root, "baseline", rep->base ? text(rep->base->path) : json_null(), &bad);
    set(root, "rules", text(rep->rules_desc), &bad);
    for (size_t i = 0; i < vs->n; i++) {
        const nvs_verdict *v = &vs->v[i];
        json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:s, s:o, s:o, s:o, s:o}", "metric", text(v->metric),
                              "measured", text(v->measured), "expected", text(v->expected), "margin",
                              text(v->margin), "verdict", nvs_verdict_word(v), "note", text(v->note), "unit",
                              v->unit, "measured_value", nvs_rj_num(v->measured_v), "expected_value",
                              nvs_rj_num(v->expected_v), "margin_value", nvs_rj_num(v->margin_v), "rule",
                              text(v->rule));
        if (!o) goto fail;
        set(o, "kind", text(v->kind), &bad);
        set(o, "host", v->host[0] ? text(v->host) : json_null(), &bad);
        set(o, "rank", v->rank >= 0 ? json_integer(v->rank) : json_null(), &bad);
        set(o, "gpu", v->gpu >= 0 ? json_integer(v->gpu) : json_null(), &bad);
        set(o, "pair", v->src >= 0 && v->dst >= 0 ? json_pack("[i, i]", v->src, v->dst) : json_null(), &bad);
        if (json_array_append_new(arr, o)) goto fail;
    }
    set(root, "verdicts", arr, &bad);
    arr = NULL;
    for (size_t i = 0; i < rep->nslowest; i++) {
        const nvs_slowest_rank *s = &rep->slowest[i];
        json_t *o = json_pack("{s:i, s:i, s:o, s:o, s:i, s:i, s:o}", "n", s->n, "rank", s->rank, "host",
                              s->host[0] ? text(s->host) : json_null(), "device", nvs_rj_int(s->device),
                              "slowest_in", s->slowest_in, "configs", s->configs, "lag_pct", nvs_rj_num(s->lag_pct));
        if (!o || json_array_append_new(sr, o)) goto fail;
    }
    set(root, "slowest_rank", sr, &bad);
    sr = NULL;
    if (rep->slowest_pair >= 0) {
        const nvs_run_p2p_pair *p = &rep->run->p2p.pairs[rep->slowest_pair];
        set(root, "slowest_pair",
            json_pack("{s:i, s:i, s:o, s:o}", "src", p->src, "dst", p->dst, "class", text(p->cls), "uni_gbps",
                      nvs_rj_num(p->uni_gbps)),
            &bad);
    } else
        set(root, "slowest_pair", json_null(), &bad);
    set(root, "checks", json_integer((json_int_t)vs->n), &bad);
    set(root, "failed", json_integer((json_int_t)vs->failed), &bad);
    set(root, "warned", json_integer((json_int_t)vs->warned), &bad);
    set(root, "skipped", json_integer((json_int_t)vs->skipped), &bad);
    set(root, "result", json_string(result_fails(rep) ? "FAIL" : "PASS"), &bad);
    set(root, "exit_code", json_integer(rep->exit_code), &bad);
    if (bad) goto fail;
    return root;
fail:
    json_decref(root);
    json_decref(arr);
    json_decref(sr);
    return NULL;
}

nvs_result_t nvs_check_print_json(FILE *f, const char *to, const nvs_check_report *rep)
{
    json_t *root = build_json(rep);
    if (!root) {
        nvs_error("out of memory building the JSON verdicts");
        return NVS_ERR_NOMEM;
    }
    errno = 0;
    int bad = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0;
    json_decref(root);
    if (!bad) bad = fputc('\n', f) == EOF;
    if (bad || fflush(f) != 0 || ferror(f)) { /* named as given: the user's file, or stdout (was always "stdout") */
        int e = errno;
        nvs_error("cannot write the JSON verdicts to %s: %s", to ? to : "stdout", e ? strerror(e) : "I/O error");
        return NVS_ERR_SYSTEM;
    }
    return NVS_OK;
}
