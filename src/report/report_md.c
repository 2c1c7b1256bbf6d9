/* The Markdown of `nvscale report` (see docs/report.md for what each section means). Deterministic: the same
 * run.json files give the same bytes, so tests compare it with golden files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "report/md_fmt.h"
#include "report/report.h"
#include "report/report_topo.h"
#include "explain/explain.h"
#include "core/digits.h"
#include "core/escape.h"
#include "core/link_class.h"
#include "core/metrics.h"
#include "core/units.h"
#include "runjson/sanity.h"

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

/* ---- shared helpers ---------------------------------------------------------------------------------------- */

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

/* "2 x NVIDIA H200" from the ranks (else the topology, else the world size). */
static void gpus_words(const nvs_run *r, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t used = 0;
    const char *names[64];
    int counts[64], k = 0;
    for (size_t i = 0; i < r->nranks; i++) {
        const char *g = r->ranks[i].gpu ? r->ranks[i].gpu : "GPU";
        int j = 0;
        while (j < k && strcmp(names[j], g)) j++;
        if (j == k && k < 64) {
            names[k] = g;
            counts[k++] = 0;
        }
        if (j < k) counts[j]++;
    }
    if (!k)
        for (size_t i = 0; i < r->topology.ngpus; i++) {
            const char *g = r->topology.gpus[i].name ? r->topology.gpus[i].name : "GPU";
            int j = 0;
            while (j < k && strcmp(names[j], g)) j++;
            if (j == k && k < 64) {
                names[k] = g;
                counts[k++] = 0;
            }
            if (j < k) counts[j]++;
        }
    for (int j = 0; j < k; j++) {
        int w = snprintf(buf + used, len - used, "%s%d x %s", j ? ", " : "", counts[j], names[j]);
        if (w < 0 || (size_t)w >= len - used) return;
        used += (size_t)w;
    }
    if (!k && r->world_size > 0) snprintf(buf, len, "%d GPUs", r->world_size);
}

/* The bound of the ring's slowest hop at n (NAN unknown, or a hop NCCL did not use: then *unused is set and the
 * facts are left in f for the table to say why) */
static double bound_at(const nvs_run *r, int n, nvs_explain_facts *f, int *unused)
{
    nvs_explain_facts_from_run(r, n, f);
    *unused = nvs_explain_hop_unused(f);
    return f->has_hop && !*unused ? f->bound_gbps : NAN;
}

/* ---- sections ---------------------------------------------------------------------------------------------- */

static void run_header(const nvs_report *rep, int i, FILE *f)
{
    const nvs_run *r = &rep->runs[i];
    char lab[16], gpus[256], b[64];
    nvs_report_label(rep, i, lab, sizeof lab);
    gpus_words(r, gpus, sizeof gpus);
    fprintf(f, "## %s%s", lab, lab[0] ? ": " : "");
    cell(f, r->host ? r->host : "(host unknown)");
    if (gpus[0]) {
        fprintf(f, ", ");
        cell(f, gpus);
    }
    fprintf(f, "\n\n| | |\n|---|---|\n| file | ");
    nvs_report_md_code(f, r->path);
    fprintf(f, " |\n| command | ");
    if (r->argc) {
        char line[1024];
        size_t used = 0;
        line[0] = '\0';
        for (size_t k = 0; k < r->argc; k++) {
            int w = snprintf(line + used, sizeof line - used, "%s%s", k ? " " : "", r->argv[k]);
            if (w < 0 || (size_t)w >= sizeof line - used) break;
            used += (size_t)w;
        }
        nvs_report_md_code(f, line);
    } else {
        cell(f, r->subcommand);
    }
    fprintf(f, " |\n| started | ");
    cell(f, r->started_utc);
    if (!isnan(r->duration_s)) fprintf(f, " (%s s)", fnum(r->duration_s, "%.1f", b, sizeof b));
    fprintf(f, " |\n| host | ");
    cell(f, r->host);
    if (r->world_nodes > 0) fprintf(f, ": %d node%s", r->world_nodes, r->world_nodes == 1 ? "" : "s");
    if (r->world_size > 0) fprintf(f, ", %d rank%s", r->world_size, r->world_size == 1 ? "" : "s");
    if (r->launcher || r->backend) {
        fprintf(f, " (");
        if (r->launcher) {
            fprintf(f, "launcher ");
            cell(f, r->launcher);
        }
        if (r->backend) {
            fprintf(f, "%sbackend ", r->launcher ? ", " : "");
            cell(f, r->backend);
        }
        fprintf(f, ")");
    }
    fprintf(f, " |\n| GPUs | ");
    cell(f, gpus);
    fprintf(f, " |\n| versions | ");
    if (r->tool_version) {
        fprintf(f, "nvscale ");
        cell(f, r->tool_version);
        if (r->tool_git) {
            fprintf(f, " (");
            cell(f, r->tool_git);
            fprintf(f, ")");
        }
    }
    /* the versions object in its own order, nvscale already shown; run.json's keys shown as products are named */
    static const char *const pretty[][2] = {{"nccl", "NCCL"},           {"cuda_runtime", "CUDA runtime"},
                                            {"cuda_driver", "CUDA driver"}, {"nvidia_driver", "NVIDIA driver"},
                                            {"cublas", "cuBLAS"},       {"mpi", "MPI"}};
    int shown = r->tool_version != NULL;
    for (size_t k = 0; k < r->nversions; k++) {
        if (!strcmp(r->versions[k].key, "nvscale")) continue;
        fprintf(f, "%s", shown ? ", " : "");
        const char *name = r->versions[k].key;
        for (size_t q = 0; q < sizeof pretty / sizeof pretty[0]; q++)
            if (!strcmp(name, pretty[q][0])) name = pretty[q][1];
        cell(f, name);
        fputc(' ', f);
        cell(f, r->versions[k].value);
        shown = 1;
    }
    if (!shown) fputs(DASH, f);
    fprintf(f, " |\n| NCCL env | ");
    int any = 0;
    for (size_t k = 0; k < r->nenv; k++) {
        if (strncmp(r->env[k].key, "NCCL_", 5)) continue;
        fprintf(f, "%s", any ? " " : "");
        char kv[512];
        snprintf(kv, sizeof kv, "%s=%s", r->env[k].key, r->env[k].value);
        nvs_report_md_code(f, kv);
        any = 1;
    }
    if (!any) fprintf(f, "(none set)");
    const char *cvd = nvs_run_env(r, "CUDA_VISIBLE_DEVICES");
    if (cvd) {
        char kv[512];
        snprintf(kv, sizeof kv, "CUDA_VISIBLE_DEVICES=%s", cvd);
        fprintf(f, ", ");
        nvs_report_md_code(f, kv);
    }
    fprintf(f, " |\n| result | ");
    cell(f, r->result_status);
    if (r->result_exit_code >= 0) fprintf(f, " (exit %d)", r->result_exit_code);
    /* why it did not end well: "running" alone read as a run still measuring, where it is a checkpoint a killed
     * run left, and an interrupted run's tables hold only what was measured before the signal */
    if (r->result_reason && *r->result_reason) {
        fprintf(f, ": ");
        cell(f, r->result_reason);
    }
    fprintf(f, " |\n\n");
}

/* Numbers of the run that cannot be right as they stand (runjson/sanity.h), before the tables that show them */
static void sanity_section(const nvs_run *r, FILE *f)
{
    nvs_sanity s[32];
    size_t n = nvs_sanity_of(r, s, 32);
    if (!n) return;
    fprintf(f, "### Warnings\n\n");
    for (size_t i = 0; i < n && i < 32; i++) {
        fprintf(f, "- **WARN** ");
        cell(f, s[i].text);
        fprintf(f, "\n");
    }
    if (n > 32) fprintf(f, "- **WARN** and %zu more of these\n", n - 32);
    fprintf(f, "\n");
}

static void p2p_section(const nvs_run *r, FILE *f)
{
    if (!r->p2p.present || !r->p2p.npairs) return;
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    fprintf(f, "### Copy-engine bandwidth per GPU pair\n\n");
    if (!isnan(r->p2p.copy_bytes)) fprintf(f, "Copies of %s.\n\n", fsize(r->p2p.copy_bytes, b1, sizeof b1));
    fprintf(f, "| src -> dst | path | class | uni (GB/s) | bidir (GB/s) | latency (us) | %% of bound | wrong |\n"
               "|---|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < r->p2p.npairs; k++) {
        const nvs_run_p2p_pair *p = &r->p2p.pairs[k];
        fprintf(f, "| %d -> %d | ", p->src, p->dst);
        cell(f, p->path);
        fprintf(f, " | ");
        cell(f, p->cls);
        fprintf(f, " | %s | %s | %s | %s | %s |\n", fnum(p->uni_gbps, "%.1f", b2, sizeof b2),
                fnum(p->bidir_gbps, "%.1f", b3, sizeof b3), fnum(p->latency_us, "%.2f", b4, sizeof b4),
                fnum(p->pct_of_bound, "%.1f", b5, sizeof b5), fint(p->wrong, b6, sizeof b6));
    }
    fprintf(f, "\n");
}

static int cmp_str(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }

/* size, then type and operation (a sweep of several: -d all -o all), then out-of-place before in-place: a total
 * order, so that the table is the same whatever qsort does with equal keys */
static int cmp_coll(const void *a, const void *b)
{
    const nvs_run_coll *x = *(const nvs_run_coll *const *)a, *y = *(const nvs_run_coll *const *)b;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
    int c = cmp_str(x->type, y->type);
    if (!c) c = cmp_str(x->op, y->op);
    return c ? c : x->inplace - y->inplace;
}

/* The time a row's bandwidths were computed from (the run's -a), so that the row agrees with itself: the table
 * showed the slowest rank's time beside a fastest rank's algbw. Rank 0's time is not in run.json: it is
 * bytes / algbw (NAN without an algbw, except at one rank, where every time is rank 0's). */
static double row_time(const nvs_run *r, const nvs_run_coll *x)
{
    switch (r->time_basis) {
    case NVS_RUN_TIME_MEAN: return x->time_avg_us;
    case NVS_RUN_TIME_FASTEST: return x->time_min_us;
    case NVS_RUN_TIME_RANK0:
        if (x->n == 1) return x->time_max_us;
        return !isnan(x->algbw_gbps) && x->algbw_gbps > 0 ? x->bytes / (x->algbw_gbps * 1e3) : NAN;
    default: return x->time_max_us;
    }
}

/* The sizes the sweep left out as too small for the ranks (sweep.skipped), in the words of the run's own table
 * ("# skipped: all_gather on 4 ranks: ..."): an N with none of them has no table above, and must not look measured */
static void skipped_list(const nvs_run *r, FILE *f)
{
    if (!r->nskipped) return;
    fprintf(f, "Sizes the sweep left out (no row above, as the run's table said):\n\n");
    for (size_t i = 0; i < r->nskipped; i++) {
        const nvs_run_skip *k = &r->skipped[i];
        char nb[NVS_ESC_SIZE(64)], a[32], b[32];
        fprintf(f, "- skipped: %s on %d rank%s", md(k->collective, nb, sizeof nb), k->n, k->n > 1 ? "s" : "");
        if (k->type) {
            fprintf(f, " (");
            cell(f, k->type);
            fprintf(f, ")");
        }
        fprintf(f, ": ");
        if (k->why) cell(f, k->why);
        else if (k->sizes > 0 && k->of > 0 && !isnan(k->from_bytes) && !isnan(k->to_bytes))
            fprintf(f, "%d of %d sizes (%s to %s) left out", k->sizes, k->of, fsize(k->from_bytes, a, sizeof a),
                    fsize(k->to_bytes, b, sizeof b));
        else
            fprintf(f, "sizes left out (the run does not say which)");
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
}

static void coll_tables(const nvs_run *r, FILE *f)
{
    const char **names = NULL;
    int nn = nvs_run_collective_names(r, &names);
    if (nn < 0) { /* left out without a word, it read as a run that measured no collective */
        fprintf(f, "### Collectives\n\n(out of memory: the collectives' tables are left out)\n\n");
        skipped_list(r, f);
        return;
    }
    if (nn == 0 && !r->nskipped) {
        free(names);
        return;
    }
    static const char *const whose[] = {"rank 0's (the run's -a 0)", "the mean over the ranks (the run's -a 1)",
                                        "the fastest rank's (the run's -a 2)", "the slowest rank's (as nccl-tests)"};
    fprintf(f, "### Collectives\n\nTime is %s; algbw = bytes / time; busbw = algbw x the collective's bus factor "
               "(GB = 1e9 bytes); %% of bound = busbw / the bandwidth bound of the ring's slowest hop at that GPU "
               "count.\n\n", whose[r->time_basis & 3]);
    const nvs_run_coll **rows = malloc((r->ncolls + 1) * sizeof *rows);
    if (!rows) /* as above: not without a word */
        fprintf(f, "(out of memory: the collectives' tables are left out)\n\n");
    for (int c = 0; rows && c < nn; c++) {
        int *ns = NULL;
        int kn = nvs_run_coll_ns(r, names[c], &ns);
        for (int i = 0; i < kn; i++) {
            int n = ns[i], nr = 0, inplace = 0, mixed = 0;
            for (size_t k = 0; k < r->ncolls; k++)
                if (r->colls[k].n == n && !strcmp(r->colls[k].collective, names[c])) {
                    rows[nr++] = &r->colls[k];
                    inplace |= r->colls[k].inplace;
                    /* several types or operations (-d, -o): each row says its own, the heading none */
                    mixed |= cmp_str(rows[0]->type, r->colls[k].type) || cmp_str(rows[0]->op, r->colls[k].op);
                }
            qsort(rows, (size_t)nr, sizeof *rows, cmp_coll);
            nvs_explain_facts fa;
            int unused = 0;
            double bound = bound_at(r, n, &fa, &unused);
            char nb[NVS_ESC_SIZE(64)];
            fprintf(f, "#### %s, N=%d", md(names[c], nb, sizeof nb), n);
            if (!mixed && (rows[0]->type || rows[0]->op)) {
                fprintf(f, " (");
                cell(f, rows[0]->type);
                if (rows[0]->op) {
                    fprintf(f, ", ");
                    cell(f, rows[0]->op);
                }
                fprintf(f, ")");
            }
            fprintf(f, "\n\n");
            /* a busbw over SHM divided by an NVLink bound is no % of what its path allows (the plot draws no such
             * line either): say which path the bound is of and that the data did not take it */
            if (unused) {
                char cb[NVS_ESC_SIZE(32)], tb[NVS_ESC_SIZE(32)], bb[32];
                fprintf(f, "%% of bound: none here: the ring's slowest hop is NVLink (%s, %s GB/s) but NCCL used %s, "
                           "not that hop, and the bound of the path it took is not in the run.\n\n",
                        md(fa.hop_class, cb, sizeof cb), fnum(fa.bound_gbps, "%.0f", bb, sizeof bb),
                        md(fa.transport, tb, sizeof tb));
            }
            fprintf(f, "| size |%s%s time (us) | algbw (GB/s) | busbw (GB/s) | %% of bound | wrong |\n"
                       "|---|%s%s---|---|---|---|---|\n",
                    mixed ? " type | op |" : "", inplace ? " in place |" : "", mixed ? "---|---|" : "",
                    inplace ? "---|" : "");
            for (int k = 0; k < nr; k++) {
                const nvs_run_coll *x = rows[k];
                char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
                double pct = !isnan(bound) && bound > 0 && !isnan(x->busbw_gbps) ? 100 * x->busbw_gbps / bound : NAN;
                fprintf(f, "| %s |", fsize(x->bytes, b1, sizeof b1));
                if (mixed) {
                    fputc(' ', f);
                    cell(f, x->type);
                    fputs(" | ", f);
                    cell(f, x->op);
                    fputs(" |", f);
                }
                fprintf(f, "%s %s | %s | %s | %s | %s |\n",
                        inplace ? (x->inplace ? " yes |" : " no |") : "", fnum(row_time(r, x), "%.2f", b2, sizeof b2),
                        fnum(x->algbw_gbps, "%.2f", b3, sizeof b3), fnum(x->busbw_gbps, "%.2f", b4, sizeof b4),
                        fnum(pct, "%.1f", b5, sizeof b5), x->wrong < 0 ? "not checked" : fint(x->wrong, b6, sizeof b6));
            }
            fprintf(f, "\n");
        }
        free(ns);
    }
    free(rows);
    free(names);
    skipped_list(r, f);
}

/* The result of one workload at N; NULL when the workload is NULL or has none there. */
static const nvs_run_train_result *train_at(const nvs_run_train *t, int n)
{
    for (size_t k = 0; t && k < t->nresults; k++)
        if (t->results[k].n == n) return &t->results[k];
    return NULL;
}

/* The entry of sweep.skipped that left `size` of `coll` out at n (NULL: none says so). The left-out sizes are the
 * plan's smallest, so every size from the first to the last left out; an entry of every size ("no size measured")
 * covers any. An entry that does not say which sizes covers none: the cell stays unknown. */
static const nvs_run_skip *skip_of(const nvs_run *r, const char *coll, int n, double size)
{
    for (size_t i = 0; i < r->nskipped; i++) {
        const nvs_run_skip *k = &r->skipped[i];
        if (k->n != n || strcmp(k->collective, coll)) continue;
        if (k->sizes > 0 && k->sizes == k->of) return k;
        if (!isnan(k->from_bytes) && !isnan(k->to_bytes) && size >= k->from_bytes && size <= k->to_bytes) return k;
    }
    return NULL;
}

/* A Scaling cell: the busbw of the row, "failed check" where its result check found wrong elements (*skipped |= 2),
 * else "skipped" where the sweep left the size out at n (its line is in the list under the collectives' tables;
 * *skipped |= 1), else unknown. */
static const char *busbw_cell(const nvs_run *r, const char *coll, int n, double size, char *buf, size_t len,
                              int *skipped)
{
    const nvs_run_coll *x = nvs_run_coll_find(r, coll, n, size);
    if (!x && skip_of(r, coll, n, size)) {
        *skipped |= 1;
        return "skipped";
    }
    if (nvs_report_failed_check(x)) {
        *skipped |= 2;
        return "failed check";
    }
    return fnum(x ? x->busbw_gbps : NAN, "%.2f", buf, len);
}

/* Under a Scaling or side-by-side table that has a "skipped" (bit 1) or "failed check" (bit 2) cell: what it means
 * and where its reason is. `whose`: whose collectives' tables list it ("the", "that run's"); `derived`: what the
 * table does not take from such a row ("efficiency", "ratio") */
static void skipped_note(int skipped, const char *whose, const char *derived, FILE *f)
{
    if (skipped & 1)
        fprintf(f, "skipped: the sweep left that size out at that GPU count as too small for the ranks (nothing "
                   "measured; why: the list under %s collectives' tables).\n\n", whose);
    if (skipped & 2)
        fprintf(f, "failed check: the row's result check found wrong elements (%s collectives' tables give its "
                   "busbw and how many): its busbw is not evidence of what the links carry, and no %s is "
                   "taken from it.\n\n", whose, derived);
}

/* The GPU counts of a collective's Scaling table: those measured and those the sweep skipped every size of (no row,
 * but not a count the run did not plan). -1 on out of memory. */
static int scaling_ns(const nvs_run *r, const char *coll, int **out)
{
    int *ns = NULL;
    int k = nvs_run_coll_ns(r, coll, &ns);
    if (k < 0) return -1;
    int *v = realloc(ns, ((size_t)k + r->nskipped + 1) * sizeof *v);
    if (!v) {
        free(ns);
        return -1;
    }
    for (size_t i = 0; i < r->nskipped; i++)
        if (!strcmp(r->skipped[i].collective, coll)) v[k++] = r->skipped[i].n;
    *out = v;
    return nvs_sort_unique_int(v, k);
}

static void scaling_tables(const nvs_run *r, FILE *f)
{
    const char **names = NULL;
    int nn = nvs_run_collective_names(r, &names);
    int *all = NULL;
    int kall = nvs_run_ns(r, &all);
    int multi = kall > 1;
    for (int c = 0; c < nn && !multi; c++) {
        int *ns = NULL;
        multi = nvs_run_coll_ns(r, names[c], &ns) > 1;
        free(ns);
    }
    if (!multi) goto out; /* one GPU count: nothing scales */
    fprintf(f, "### Scaling\n\n");
    for (int c = 0; c < nn; c++) {
        int *ns = NULL;
        double *sizes = NULL;
        int kn = scaling_ns(r, names[c], &ns), ks = nvs_run_coll_sizes(r, names[c], &sizes), skipped = 0;
        if (kn > 1) {
            char nb[NVS_ESC_SIZE(64)];
            /* a sweep of several types or ops: the cells are the first out-of-place row's, which the heading names */
            char var[64] = "", vb[NVS_ESC_SIZE(64)];
            for (int s = 0; s < ks && !var[0]; s++)
                for (int i = 0; i < kn && !var[0]; i++)
                    nvs_run_coll_variant(r, nvs_run_coll_find(r, names[c], ns[i], sizes[s]), var, sizeof var);
            fprintf(f, "%s busbw (GB/s) per size and GPU count", md(names[c], nb, sizeof nb));
            if (var[0]) fprintf(f, ", %s (the first type and op of the sweep)", md(var, vb, sizeof vb));
            fprintf(f, ":\n\n| size |");
            for (int i = 0; i < kn; i++) fprintf(f, " N=%d |", ns[i]);
            fprintf(f, "\n|---|");
            for (int i = 0; i < kn; i++) fprintf(f, "---|");
            fprintf(f, "\n");
            for (int s = 0; s < ks; s++) {
                char b[32];
                fprintf(f, "| %s |", fsize(sizes[s], b, sizeof b));
                for (int i = 0; i < kn; i++)
                    fprintf(f, " %s |", busbw_cell(r, names[c], ns[i], sizes[s], b, sizeof b, &skipped));
                fprintf(f, "\n");
            }
            fprintf(f, "\n");
            skipped_note(skipped, "the", "efficiency", f);
        }
        free(ns);
        free(sizes);
    }
    /* efficiency vs N: collectives (busbw relative to the smallest N >= 2) and the training step */
    if (kall > 1) {
        /* training's reference: the smallest N trained (1 unless --gpus left it out: then step(2) / step(N)) */
        int tref = nvs_run_train_ref_n(r);
        char tw[96] = "";
        if (tref > 1) snprintf(tw, sizeof tw, " (no 1-GPU step in this run: relative to %d GPUs)", tref);
        double *at = calloc((size_t)(nn > 0 ? nn : 1), sizeof *at);
        int *base = calloc((size_t)(nn > 0 ? nn : 1), sizeof *base);
        if (!at || !base) {
            free(at);
            free(base);
            goto out;
        }
        /* the text names only the columns the table has: a `train` run writes "collectives": [] (none measured),
         * a `coll` run trains nothing */
        int coll_cols = 0, train_cols = 0;
        for (int c = 0; c < nn; c++) {
            at[c] = nvs_report_common_size(r, names[c]);
            if (!isnan(at[c])) coll_cols = 1;
        }
        for (size_t w = 0; w < nvs_run_workloads(r); w++)
            if (nvs_run_workload(r, w)->nresults) train_cols = 1;
        if (!coll_cols && !train_cols) { /* a table of N alone says nothing */
            free(at);
            free(base);
            goto out;
        }
        const char *coll_txt = "busbw(N) / busbw(smallest N >= 2) at the largest size measured at every N (busbw of "
                               "an ideal ring does not change with N)";
        if (coll_cols && train_cols)
            fprintf(f, "Efficiency vs GPU count: for a collective, %s; for training, step(%d) / step(N) with a fixed "
                       "per-GPU batch%s.\n\n| N |", coll_txt, tref > 1 ? tref : 1, tw);
        else if (coll_cols)
            fprintf(f, "Efficiency vs GPU count: for a collective, %s.\n\n| N |", coll_txt);
        else
            fprintf(f, "Training efficiency vs GPU count: step(%d) / step(N) with a fixed per-GPU batch%s.\n\n| N |",
                    tref > 1 ? tref : 1, tw);
        char b[32];
        for (int c = 0; c < nn; c++) {
            if (isnan(at[c])) continue;
            nvs_report_coll_efficiency(r, names[c], 2, at[c], &base[c]);
            char nb[NVS_ESC_SIZE(64)];
            md(names[c], nb, sizeof nb);
            fprintf(f, " %s busbw at %s (GB/s) | %s efficiency |", nb, fsize(at[c], b, sizeof b), nb);
        }
        /* a column per workload that trained; named by its model when there are several */
        size_t nw = nvs_run_workloads(r);
        for (size_t w = 0; w < nw; w++) {
            const nvs_run_train *t = nvs_run_workload(r, w);
            if (!t->nresults) continue;
            char mb[NVS_ESC_SIZE(128)];
            if (nw > 1) fprintf(f, " %s training efficiency |", md(t->model ? t->model : "?", mb, sizeof mb));
            else fprintf(f, " training efficiency |");
        }
        fprintf(f, "\n|---|");
        for (int c = 0; c < nn; c++)
            if (!isnan(at[c])) fprintf(f, "---|---|");
        for (size_t w = 0; w < nw; w++)
            if (nvs_run_workload(r, w)->nresults) fprintf(f, "---|");
        fprintf(f, "\n");
        int skipped = 0;
        for (int i = 0; i < kall; i++) {
            fprintf(f, "| %d |", all[i]);
            for (int c = 0; c < nn; c++) {
                if (isnan(at[c])) continue;
                int sk = 0;
                double e = nvs_report_coll_efficiency(r, names[c], all[i], at[c], NULL);
                fprintf(f, " %s |", busbw_cell(r, names[c], all[i], at[c], b, sizeof b, &sk));
                fprintf(f, " %s |", sk & 1 ? "skipped" : fnum(100 * e, "%.1f %%", b, sizeof b));
                skipped |= sk;
            }
            for (size_t w = 0; w < nw; w++) {
                const nvs_run_train *tr = nvs_run_workload(r, w);
                const nvs_run_train_result *t = train_at(tr, all[i]);
                if (tr->nresults) fprintf(f, " %s |", fnum(t ? 100 * t->efficiency : NAN, "%.1f %%", b, sizeof b));
            }
            fprintf(f, "\n");
        }
        fprintf(f, "\n");
        skipped_note(skipped, "the", "efficiency", f);
        free(at);
        free(base);
    }
out:
    free(names);
    free(all);
}

/* A row whose exposed communication is more than its all-reduces took alone: a run from before exposed was capped
 * at comm alone (1 December 2026; the rest is since the 'waited' column), whose numbers stay as measured */
static int exposed_over_comm(const nvs_run_train_result *x)
{
    return !isnan(x->exposed_comm_us) && !isnan(x->comm_us) && x->exposed_comm_us > x->comm_us;
}

/* Under the table: which rows break "at most comm alone", with both values in as many decimals as tell them apart
 * (results/h200x2-final5: resnet50 at N=2, 5.65 ms exposed against 0.49 ms alone, under a header saying at most) */
static void exposed_over_note(const nvs_run_train *t, FILE *f)
{
    int any = 0;
    for (size_t i = 0; i < t->nresults; i++) {
        const nvs_run_train_result *x = &t->results[i];
        if (!exposed_over_comm(x)) continue;
        char e[32], c[32];
        int p = nvs_decimals_apart(x->exposed_comm_us / 1e3, x->comm_us / 1e3, 2);
        snprintf(e, sizeof e, "%.*f", p, x->exposed_comm_us / 1e3);
        snprintf(c, sizeof c, "%.*f", p, x->comm_us / 1e3);
        fprintf(f, "%s N=%d, %s ms exposed against %s ms alone", any++ ? ";" : "Note: this run predates the cap of "
                "exposed communication at comm alone (runs since 1 December 2026 count the excess as waited, time at "
                "the all-reduces waiting for a slower rank), and its exposed comm is more than comm alone at", x->n, e, c);
    }
    if (any) fprintf(f, ".\n\n");
}

/* One workload's paragraph and table of the training step. `unit`: what a rank drives, "GPU" or (the MPI host
 * backend) "rank". */
static void train_table(const nvs_run_train *t, const char *unit, FILE *f)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32], b8[32];
    fprintf(f, "Model ");
    cell(f, t->model);
    if (!isnan(t->params)) fprintf(f, " (%s M parameters", fnum(t->params / 1e6, "%.1f", b1, sizeof b1));
    if (!isnan(t->fwd_gflops_per_sample))
        fprintf(f, "%s%s GFLOP forward per sample", isnan(t->params) ? " (" : ", ",
                fnum(t->fwd_gflops_per_sample, "%.1f", b2, sizeof b2));
    if (!isnan(t->params) || !isnan(t->fwd_gflops_per_sample)) fprintf(f, ")");
    if (t->batch > 0) fprintf(f, ", batch %d per %s", t->batch, unit);
    if (t->precision) {
        fprintf(f, ", ");
        cell(f, t->precision);
    }
    if (t->grad_type) {
        fprintf(f, ", gradients ");
        cell(f, t->grad_type);
    }
    if (!isnan(t->bucket_first_bytes) || !isnan(t->bucket_cap_bytes))
        fprintf(f, ", buckets of %s first then up to %s", fsize(t->bucket_first_bytes, b3, sizeof b3),
                fsize(t->bucket_cap_bytes, b4, sizeof b4));
    if (t->nbuckets) fprintf(f, " (%zu bucket%s)", t->nbuckets, t->nbuckets == 1 ? "" : "s");
    /* runs since the step's split (train/split.h) say what part of the step waited for a slower rank */
    int wait = 0;
    for (size_t i = 0; i < t->nresults; i++) wait |= !isnan(t->results[i].rank_wait_us);
    /* runs since the framework's reducer and the compute slowed beside the all-reduces (interference_us) no
     * longer count them as exposed: "exposed = step - compute" was false of them (bert-large in
     * results/h200x2-final3: 0.00 ms exposed, step - compute 19.17 ms) */
    int split = wait;
    for (size_t i = 0; i < t->nresults; i++) split |= !isnan(t->results[i].interference_us);
    /* a framework's reducer is part of the rest only where the run modelled one: runs before --framework and
     * --framework ideal have none (results/diag-issue9/nvs-lm-bf16: step - compute 3.04 ms = exposed 0.49 +
     * slowed compute 2.55, no reducer, was said to be "the framework's reducer and compute slowed") */
    int reducer = t->framework && strcmp(t->framework, "ideal") != 0;
    int rounds = 0; /* --rounds: the efficiency's range over the rounds */
    for (size_t i = 0; i < t->nresults; i++)
        if (t->results[i].rounds > rounds) rounds = t->results[i].rounds;
    /* "at most comm alone" only where every row keeps to it: an older run's rows are said under the table */
    int over = 0;
    for (size_t i = 0; i < t->nresults; i++) over |= exposed_over_comm(&t->results[i]);
    const char *most = over ? "not capped at comm alone in this run: see below the table" : "at most comm alone";
    fprintf(f, ". Step, compute and comm are medians over the timed steps of the slowest rank; %s%s%s; predicted = "
               "the buckets' all-reduces priced with the measured all_reduce curve.",
            wait || split ? "exposed = the communication the backward pass did not hide (" : "exposed = step - compute",
            wait || split ? most : "",
            wait    ? "); waited = time at the all-reduces waiting for a slower rank"
            : split ? (reducer ? "); the rest of step - compute is the framework's reducer and compute slowed beside "
                                 "the all-reduces"
                               : "); the rest of step - compute is compute slowed beside the all-reduces")
                    : "");
    /* no 1-GPU step (--gpus 2,4): the efficiency is relative to the smallest N, and says so */
    int ref = nvs_run_workload_ref_n(t);
    if (ref > 1)
        fprintf(f, " Efficiency = step(%d) / step(N), relative to %d %ss: the run has no 1-%s step.", ref, ref, unit,
                unit);
    if (rounds > 1)
        fprintf(f, " Every N was timed %d times in turn (--rounds): each row is its median round, and its "
                   "efficiency the median of the rounds' own, with their range.",
                rounds);
    fprintf(f, "\n\n| N | step (ms) | compute (ms) | comm alone (ms) | exposed comm (ms) | exposed %% of step | %s"
               "predicted comm (ms) | samples/s | efficiency |%s\n|---|---|---|---|---|---|---|---|---|%s%s\n",
            wait ? "waited (ms) | " : "", rounds > 1 ? " over the rounds |" : "", wait ? "---|" : "",
            rounds > 1 ? "---|" : "");
    for (size_t i = 0; i < t->nresults; i++) {
        const nvs_run_train_result *x = &t->results[i];
        double pct = !isnan(x->exposed_comm_us) && x->step_us > 0 ? 100 * x->exposed_comm_us / x->step_us : NAN;
        char bw[48] = "";
        if (wait) snprintf(bw, sizeof bw, "%s | ", fnum(x->rank_wait_us / 1e3, "%.2f", b1, sizeof b1));
        char rg[96] = "";
        if (rounds > 1) {
            char lo[32], hi[32];
            if (x->rounds > 1 && !isnan(x->efficiency_min) && !isnan(x->efficiency_max))
                snprintf(rg, sizeof rg, " %s-%s (%d) |", fnum(100 * x->efficiency_min, "%.1f", lo, sizeof lo),
                         fnum(100 * x->efficiency_max, "%.1f %%", hi, sizeof hi), x->rounds);
            else
                snprintf(rg, sizeof rg, " %s |", DASH);
        }
        fprintf(f, "| %d | %s | %s | %s | %s | %s | %s%s | %s | %s |%s\n", x->n,
                fnum(x->step_us / 1e3, "%.2f", b1, sizeof b1), fnum(x->compute_us / 1e3, "%.2f", b2, sizeof b2),
                fnum(x->comm_us / 1e3, "%.2f", b3, sizeof b3), fnum(x->exposed_comm_us / 1e3, "%.2f", b4, sizeof b4),
                fnum(pct, "%.1f %%", b5, sizeof b5), bw, fnum(x->predicted_comm_us / 1e3, "%.2f", b6, sizeof b6),
                fnum(x->samples_per_s, "%.1f", b7, sizeof b7), fnum(100 * x->efficiency, "%.1f %%", b8, sizeof b8),
                rg);
    }
    fprintf(f, "\n");
    if (wait || split) exposed_over_note(t, f); /* "exposed = step - compute" promised no cap */
}

/* Every workload the run trained (run.json "trains": `--model bert-large,resnet50`), not only the first */
static void train_section(const nvs_run *r, FILE *f)
{
    int any = 0;
    for (size_t w = 0; w < nvs_run_workloads(r); w++) {
        const nvs_run_train *t = nvs_run_workload(r, w);
        if (!t->nresults) continue;
        if (!any++) fprintf(f, "### Training step\n\n");
        train_table(t, r->backend && !strcmp(r->backend, "mpi") ? "rank" : "GPU", f);
    }
}

static void transport_section(const nvs_run *r, FILE *f)
{
    if (!r->ntransports) return;
    fprintf(f, "### Transports (from NCCL's INFO log)\n\n| N | transport | connections | channels | link | NCCL |\n"
               "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < r->ntransports; i++) {
        const nvs_run_transport *t = &r->transports[i];
        char w[64], b[32];
        fprintf(f, "| %d | ", t->n);
        cell(f, nvs_report_transport(r, t->n, w, sizeof w));
        if (t->nvls) fprintf(f, ", with NVLink SHARP (NVLS)"); /* no connection of its own: not in the counts */
        fprintf(f, " | ");
        if (!t->nsummary) fputs(DASH, f);
        for (size_t k = 0; k < t->nsummary; k++) {
            fprintf(f, "%s", k ? ", " : "");
            cell(f, t->summary[k].key);
            fprintf(f, " %d", t->summary_counts[k]);
        }
        fprintf(f, " | %s | ", fint(t->nchannels, b, sizeof b));
        cell(f, t->link);
        fprintf(f, " | ");
        cell(f, t->nccl_version);
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
}

static void why_section(const nvs_run *r, FILE *f)
{
    int *ns = NULL;
    int k = nvs_run_ns(r, &ns);
    if (k <= 0) {
        free(ns);
        return;
    }
    fprintf(f, "### Why\n\n");
    for (int i = 0; i < k; i++) {
        const nvs_run_explain *e = nvs_run_explain_of(r, ns[i]);
        nvs_explain_facts fa;
        nvs_explain_facts_from_run(r, ns[i], &fa);
        fprintf(f, "- **N=%d**: ", ns[i]);
        /* a count nothing was measured at says so, whatever a file written before explain said it (its text read
         * "At 2 ranks (neither the topology nor NCCL's transport is in this run)." as if 2 ranks had been measured) */
        if (e && e->text && !fa.not_measured) {
            cell(f, e->text);
        } else { /* as long as the paragraph is: a host-bound step of several workloads passes 1 KiB */
            size_t need = nvs_explain_text(&fa, NULL, 0) + 1;
            char *text = malloc(need);
            if (text) nvs_explain_text(&fa, text, need);
            cell(f, text ? text : "(out of memory)");
            free(text);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
    free(ns);
}

/* ---- several runs ------------------------------------------------------------------------------------------ */

static void legend(const nvs_report *rep, FILE *f)
{
    fprintf(f, "| run | file | host | GPUs | transport at the largest N | NCCL | started |\n"
               "|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < rep->nruns; i++) {
        const nvs_run *r = &rep->runs[i];
        char gpus[256], w[64];
        gpus_words(r, gpus, sizeof gpus);
        int *ns = NULL;
        int k = nvs_run_ns(r, &ns);
        int top = k > 0 ? ns[k - 1] : 0;
        free(ns);
        fprintf(f, "| R%d | ", i + 1);
        nvs_report_md_code(f, r->path);
        fprintf(f, " | ");
        cell(f, r->host);
        fprintf(f, " | ");
        cell(f, gpus);
        fprintf(f, " | ");
        cell(f, top ? nvs_report_transport(r, top, w, sizeof w) : NULL);
        if (top) fprintf(f, " (N=%d)", top);
        fprintf(f, " | ");
        cell(f, nvs_run_version(r, "nccl"));
        fprintf(f, " | ");
        cell(f, r->started_utc);
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
}

/* The fleet view: every measurement several runs share, against their median; the runs more than
 * NVS_FLEET_MAX_BELOW_PCT below it named; runs of different kinds of machine said first (fleet/fleet.h). */
static void fleet_section(const nvs_report *rep, FILE *f)
{
    const nvs_run **rp = malloc((size_t)rep->nruns * sizeof *rp);
    nvs_fleet_samples s = {0};
    nvs_fleet_findings fs = {0};
    if (!rp) return;
    for (int i = 0; i < rep->nruns; i++) rp[i] = &rep->runs[i];
    /* a fleet is several hosts: runs of one host side by side are configurations, compared above */
    int hosts = 0;
    for (int i = 0; i < rep->nruns; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++) seen |= rp[k]->host && rp[i]->host && !strcmp(rp[k]->host, rp[i]->host);
        hosts += !seen;
    }
    if (hosts < 2) goto out;
    fprintf(f, "## Fleet: each measurement against the median of the runs\n\n");
    char why[1200];
    nvs_fleet_machine m0, m;
    nvs_fleet_machine_of(rp[0], &m0);
    int differ = 0;
    for (int i = 1; i < rep->nruns; i++) {
        nvs_fleet_machine_of(rp[i], &m);
        if (!nvs_fleet_machines_differ(&m0, &m, why, sizeof why)) continue;
        fprintf(f, "%sR%d is not the same kind of machine as R1 (", differ++ ? "" : "Compare with care: ", i + 1);
        cell(f, why);
        fprintf(f, ").\n");
    }
    if (differ) fprintf(f, "\n");
    if (nvs_fleet_collect(rp, (size_t)rep->nruns, &s) || nvs_fleet_judge(&s, NVS_FLEET_MAX_BELOW_PCT, &fs)) {
        fprintf(f, "(out of memory)\n\n");
        goto out;
    }
    if (!fs.n) {
        fprintf(f, "No measurement is shared by two runs.\n\n");
        goto out;
    }
    fprintf(f, "| measurement | median | runs | more than %.0f %% below the median |\n|---|---:|---:|---|\n",
            NVS_FLEET_MAX_BELOW_PCT);
    for (size_t i = 0; i < fs.n; i++) {
        if (i && !strcmp(fs.v[i].sample->key, fs.v[i - 1].sample->key)) continue; /* one line per measurement */
        fprintf(f, "| ");
        cell(f, fs.v[i].sample->key);
        fprintf(f, " | %.1f %s | %d | ", fs.v[i].median, fs.v[i].sample->unit, fs.v[i].runs);
        int any = 0;
        for (size_t k = i; k < fs.n && !strcmp(fs.v[k].sample->key, fs.v[i].sample->key); k++) {
            if (!fs.v[k].outlier) continue;
            fprintf(f, "%sR%d (", any++ ? "; " : "", fs.v[k].sample->run + 1);
            cell(f, fs.v[k].sample->host);
            /* decimals enough that a share above the limit never prints as the limit ("10.0 % below" under "more
             * than 10 % below" for 10.04) */
            char got[32];
            snprintf(got, sizeof got, "%.*f", nvs_decimals_apart(fs.v[k].below_pct, NVS_FLEET_MAX_BELOW_PCT, 1),
                     fs.v[k].below_pct);
            fprintf(f, "): %.1f %s, %s %% below", fs.v[k].sample->value, fs.v[k].sample->unit, got);
        }
        fprintf(f, "%s |\n", any ? "" : "none");
    }
    fprintf(f, "\n");
out:
    nvs_fleet_findings_free(&fs);
    nvs_fleet_samples_free(&s);
    free(rp);
}

static void side_by_side(const nvs_report *rep, FILE *f)
{
    const nvs_run *r0 = &rep->runs[0];
    fprintf(f, "## Side by side\n\nbusbw (GB/s) of each run at the same collective, size and GPU count; the "
               "ratios are against R1.\n\n");
    /* collectives of every run in first-appearance order */
    const char *names[64];
    int nn = 0;
    for (int i = 0; i < rep->nruns; i++) {
        const char **cn = NULL;
        int k = nvs_run_collective_names(&rep->runs[i], &cn);
        for (int j = 0; j < k; j++) {
            int seen = 0;
            for (int m = 0; m < nn && !seen; m++) seen = !strcmp(names[m], cn[j]);
            if (!seen && nn < 64) names[nn++] = cn[j];
        }
        free(cn);
    }
    int printed = 0;
    for (int c = 0; c < nn; c++) {
        /* every N any run has for this collective */
        int ns[256], kn = 0;
        for (int i = 0; i < rep->nruns; i++) {
            int *v = NULL;
            int k = nvs_run_coll_ns(&rep->runs[i], names[c], &v);
            for (int j = 0; j < k; j++) {
                int seen = 0;
                for (int m = 0; m < kn && !seen; m++) seen = ns[m] == v[j];
                if (!seen && kn < 256) ns[kn++] = v[j];
            }
            free(v);
        }
        for (int a = 1; a < kn; a++)
            for (int b = a; b > 0 && ns[b - 1] > ns[b]; b--) {
                int t = ns[b];
                ns[b] = ns[b - 1];
                ns[b - 1] = t;
            }
        for (int m = 0; m < kn; m++) {
            int n = ns[m], have = 0;
            for (int i = 0; i < rep->nruns; i++) {
                int *v = NULL;
                int k = nvs_run_coll_ns(&rep->runs[i], names[c], &v);
                for (int j = 0; j < k; j++) have += v[j] == n;
                free(v);
            }
            if (have < 2 || n < 2) continue; /* nothing to compare; busbw is 0 at N=1 */
            /* union of sizes: as many as the runs have (it kept 512, and a sweep of more, -b 1M -e 1G -i 1M, lost
             * its largest sizes from the table without a word; compare's table had the same limit, 0813d01) */
            size_t cap = 1;
            for (int i = 0; i < rep->nruns; i++) cap += rep->runs[i].ncolls;
            double *sizes = malloc(cap * sizeof *sizes);
            if (!sizes) {
                fprintf(f, "(out of memory: a side-by-side table is left out)\n\n");
                continue;
            }
            int ks = 0;
            for (int i = 0; i < rep->nruns; i++)
                for (size_t k = 0; k < rep->runs[i].ncolls; k++) {
                    const nvs_run_coll *x = &rep->runs[i].colls[k];
                    if (x->n != n || strcmp(x->collective, names[c])) continue;
                    int seen = 0;
                    for (int s = 0; s < ks && !seen; s++) seen = sizes[s] == x->size;
                    if (!seen) sizes[ks++] = x->size;
                }
            for (int a = 1; a < ks; a++)
                for (int b = a; b > 0 && sizes[b - 1] > sizes[b]; b--) {
                    double t = sizes[b];
                    sizes[b] = sizes[b - 1];
                    sizes[b - 1] = t;
                }
            char nb[NVS_ESC_SIZE(64)];
            int skipped = 0;
            fprintf(f, "### %s, N=%d\n\n| size |", md(names[c], nb, sizeof nb), n);
            for (int i = 0; i < rep->nruns; i++) {
                char w[64], we[NVS_ESC_SIZE(64)];
                nvs_report_transport(&rep->runs[i], n, w, sizeof w);
                fprintf(f, " R%d%s%s%s |", i + 1, w[0] ? " (" : "", md(w, we, sizeof we), w[0] ? ")" : "");
            }
            for (int i = 1; i < rep->nruns; i++) fprintf(f, " R%d/R1 |", i + 1);
            fprintf(f, "\n|---|");
            for (int i = 1; i < 2 * rep->nruns; i++) fprintf(f, "---|");
            fprintf(f, "\n");
            for (int s = 0; s < ks; s++) {
                char b[32];
                fprintf(f, "| %s |", fsize(sizes[s], b, sizeof b));
                /* the cells say as the Scaling tables do: a failed row's busbw is no evidence (and no ratio is
                 * taken from it), a size the sweep left out is skipped, not lost */
                for (int i = 0; i < rep->nruns; i++)
                    fprintf(f, " %s |", busbw_cell(&rep->runs[i], names[c], n, sizes[s], b, sizeof b, &skipped));
                const nvs_run_coll *x0 = nvs_run_coll_find(r0, names[c], n, sizes[s]);
                int skip0 = !x0 && skip_of(r0, names[c], n, sizes[s]);
                for (int i = 1; i < rep->nruns; i++) {
                    const nvs_run_coll *x = nvs_run_coll_find(&rep->runs[i], names[c], n, sizes[s]);
                    int skip = skip0 || (!x && skip_of(&rep->runs[i], names[c], n, sizes[s]));
                    int usable = x && x0 && !nvs_report_failed_check(x) && !nvs_report_failed_check(x0);
                    double ratio = usable && x0->busbw_gbps > 0 && !isnan(x->busbw_gbps)
                                       ? x->busbw_gbps / x0->busbw_gbps
                                       : NAN;
                    fprintf(f, " %s |", skip ? "skipped" : fnum(ratio, "%.3f", b, sizeof b));
                }
                fprintf(f, "\n");
            }
            fprintf(f, "\n");
            skipped_note(skipped, "that run's", "ratio", f);
            free(sizes);
            printed = 1;
        }
    }
    if (!printed) fprintf(f, "No collective was measured at the same GPU count (N >= 2) in two runs.\n\n");

    /* training: a table per workload (run.json "trains", by position: the i-th workload of each run); only the
     * first workload was shown */
    size_t nw = 0;
    for (int i = 0; i < rep->nruns; i++)
        if (nvs_run_workloads(&rep->runs[i]) > nw) nw = nvs_run_workloads(&rep->runs[i]);
    const nvs_run_train **tr = calloc((size_t)(rep->nruns > 0 ? rep->nruns : 1), sizeof *tr);
    if (!tr) return;
    for (size_t w = 0; w < nw; w++) {
        int ntrain = 0;
        for (int i = 0; i < rep->nruns; i++) {
            tr[i] = w < nvs_run_workloads(&rep->runs[i]) ? nvs_run_workload(&rep->runs[i], w) : NULL;
            ntrain += tr[i] && tr[i]->nresults > 0;
        }
        if (ntrain < 2) continue;
        int ns[256], kn = 0;
        for (int i = 0; i < rep->nruns; i++)
            for (size_t k = 0; tr[i] && k < tr[i]->nresults; k++) {
                int n = tr[i]->results[k].n, seen = 0;
                for (int m = 0; m < kn && !seen; m++) seen = ns[m] == n;
                if (!seen && kn < 256) ns[kn++] = n;
            }
        for (int a = 1; a < kn; a++)
            for (int b = a; b > 0 && ns[b - 1] > ns[b]; b--) {
                int t = ns[b];
                ns[b] = ns[b - 1];
                ns[b - 1] = t;
            }
        if (nw > 1) fprintf(f, "### Training step, workload %zu of %zu\n\n", w + 1, nw);
        else fprintf(f, "### Training step\n\n");
        fprintf(f, "Samples per second of each run; a ratio only where the two runs trained the same model at the "
                   "same per-GPU batch.");
        /* efficiency is step(ref) / step(N): a run without a 1-GPU step (--gpus 2,4) is relative to its smallest
         * N, and its column is not the others' measure */
        for (int i = 0; i < rep->nruns; i++) {
            int ref = nvs_run_workload_ref_n(tr[i]);
            if (ref > 1)
                fprintf(f, " R%d efficiency = step(%d) / step(N): that run has no 1-GPU step.", i + 1, ref);
        }
        fprintf(f, "\n\n| N |");
        for (int i = 0; i < rep->nruns; i++) {
            const char *model = tr[i] ? tr[i]->model : NULL;
            char mb[NVS_ESC_SIZE(128)];
            fprintf(f, " R%d samples/s%s%s%s |", i + 1, model ? " (" : "", model ? md(model, mb, sizeof mb) : "",
                    model ? ")" : "");
        }
        for (int i = 1; i < rep->nruns; i++) fprintf(f, " R%d/R1 |", i + 1);
        for (int i = 0; i < rep->nruns; i++) fprintf(f, " R%d exposed %% | R%d efficiency |", i + 1, i + 1);
        fprintf(f, "\n|---|");
        for (int i = 0; i < 4 * rep->nruns - 1; i++) fprintf(f, "---|");
        fprintf(f, "\n");
        for (int m = 0; m < kn; m++) {
            char b[32];
            fprintf(f, "| %d |", ns[m]);
            for (int i = 0; i < rep->nruns; i++) {
                const nvs_run_train_result *t = train_at(tr[i], ns[m]);
                fprintf(f, " %s |", fnum(t ? t->samples_per_s : NAN, "%.1f", b, sizeof b));
            }
            const nvs_run_train_result *t0 = train_at(tr[0], ns[m]);
            for (int i = 1; i < rep->nruns; i++) {
                const nvs_run_train_result *t = train_at(tr[i], ns[m]);
                /* throughputs of different models or batches do not compare */
                int same = t && t0 && tr[i]->batch == tr[0]->batch &&
                           !strcmp(tr[i]->model ? tr[i]->model : "", tr[0]->model ? tr[0]->model : "");
                double ratio = same && t0->samples_per_s > 0 ? t->samples_per_s / t0->samples_per_s : NAN;
                fprintf(f, " %s |", fnum(ratio, "%.3f", b, sizeof b));
            }
            for (int i = 0; i < rep->nruns; i++) {
                const nvs_run_train_result *t = train_at(tr[i], ns[m]);
                double pct = t && t->step_us > 0 ? 100 * t->exposed_comm_us / t->step_us : NAN;
                fprintf(f, " %s |", fnum(pct, "%.1f %%", b, sizeof b));
                fprintf(f, " %s |", fnum(t ? 100 * t->efficiency : NAN, "%.1f %%", b, sizeof b));
            }
            fprintf(f, "\n");
        }
        fprintf(f, "\n");
    }
    free(tr);
}

static void plots_section(const nvs_report *rep, FILE *f)
{
    fprintf(f, "## Plots\n\n");
    switch (rep->plots) {
    case NVS_PLOTS_NOT_REQUESTED: fprintf(f, "Plots were not requested (--no-plots).\n"); return;
    case NVS_PLOTS_NO_GNUPLOT:
        fprintf(f, "Plots skipped: gnuplot was not found on PATH. Install it (Debian/Ubuntu: `apt-get install "
                   "gnuplot-nox`) and run `nvscale report` again.\n");
        return;
    case NVS_PLOTS_FAILED: fprintf(f, "Plots failed: gnuplot reported an error (see its messages).\n"); return;
    case NVS_PLOTS_NOTHING: fprintf(f, "Nothing to plot.\n"); return;
    case NVS_PLOTS_OK: break;
    }
    for (int i = 0; i < rep->nplots; i++) {
        /* the file names are ours ([A-Za-z0-9_-], plot.c); the titles may hold names from the runs */
        char t[NVS_ESC_SIZE(sizeof rep->plot[i].title)];
        md(rep->plot[i].title, t, sizeof t);
        fprintf(f, "![%s](%s.svg)\n\n%s ([SVG](%s.svg), [PNG](%s.png))\n\n", t, rep->plot[i].file, t,
                rep->plot[i].file, rep->plot[i].file);
    }
}

nvs_result_t nvs_report_write_md(const nvs_report *rep, FILE *f)
{
    if (rep->title) {
        fprintf(f, "# ");
        cell(f, rep->title);
        fprintf(f, "\n\n");
    } else if (rep->nruns == 1) {
        char gpus[256];
        gpus_words(&rep->runs[0], gpus, sizeof gpus);
        fprintf(f, "# nvscale report: ");
        cell(f, rep->runs[0].host ? rep->runs[0].host : "run");
        if (gpus[0]) {
            fprintf(f, ", ");
            cell(f, gpus);
        }
        fprintf(f, "\n\n");
    } else {
        fprintf(f, "# nvscale report: %d runs side by side\n\n", rep->nruns);
    }
    fprintf(f, "Written by `nvscale report` from run.json files; the figures are the runs' own. How to read it: "
               "docs/report.md.\n\n");
    if (rep->nruns > 1) legend(rep, f);
    for (int i = 0; i < rep->nruns; i++) {
        const nvs_run *r = &rep->runs[i];
        run_header(rep, i, f);
        sanity_section(r, f);
        nvs_report_topology_md(r, f);
        p2p_section(r, f);
        coll_tables(r, f);
        scaling_tables(r, f);
        train_section(r, f);
        transport_section(r, f);
        why_section(r, f);
    }
    if (rep->nruns > 1) side_by_side(rep, f);
    if (rep->nruns > 1) fleet_section(rep, f);
    plots_section(rep, f);
    return NVS_OK;
}
