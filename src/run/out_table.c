/* The table a nccl-tests user reads at once: one block per collective, GPU count, type and operation; sizes
 * down, out-of-place and in-place side by side, same columns and units as nccl-tests (time in us of the slowest
 * rank, algbw/busbw in GB/s with GB = 1e9, #wrong summed over ranks). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collectives/coll.h"
#include "run/run.h"

static void fmt_time(double us, char *buf, size_t len)
{
    /* nccl-tests' precision: 2 decimals below 10 ms, 1 below 100 ms, none above */
    if (us < 1e4) snprintf(buf, len, "%.2f", us);
    else if (us < 1e5) snprintf(buf, len, "%.1f", us);
    else snprintf(buf, len, "%.0f", us);
}

static void side(FILE *to, const nvs_coll_row *r)
{
    if (!r) {
        fprintf(to, "  %7s  %6s  %6s  %6s", "-", "-", "-", "n/a");
        return;
    }
    char t[32], w[32], al[32], bu[32];
    fmt_time(r->t_basis_us, t, sizeof t); /* the time the bandwidths beside it come from (-a) */
    if (r->wrong < 0) snprintf(w, sizeof w, "skip");
    else snprintf(w, sizeof w, "%lld", r->wrong);
    /* '-': no bus crossed (N=1), nothing moved (N=1 in place) */
    if (isfinite(r->algbw_gbps)) snprintf(al, sizeof al, "%6.2f", r->algbw_gbps);
    else snprintf(al, sizeof al, "%6s", "-");
    if (isfinite(r->busbw_gbps)) snprintf(bu, sizeof bu, "%6.2f", r->busbw_gbps);
    else snprintf(bu, sizeof bu, "%6s", "-");
    if (r->n == 1 && r->inplace) snprintf(t, sizeof t, "no-op");
    fprintf(to, "  %7s  %6s  %6s  %6s", t, al, bu, w);
}

static int same_block(const nvs_coll_row *a, const nvs_coll_row *b)
{
    return a->coll == b->coll && a->n == b->n && a->type == b->type && a->op == b->op;
}

/* The row of the same block just before / after row i (NULL if none). */
static const nvs_coll_row *block_neighbour(const nvs_ctx *run, size_t i, int after)
{
    const nvs_coll_row *r = &run->rows.v[i];
    if (after) {
        for (size_t j = i + 1; j < run->rows.n; j++)
            if (same_block(&run->rows.v[j], r)) return &run->rows.v[j];
    } else {
        for (size_t j = i; j-- > 0;)
            if (same_block(&run->rows.v[j], r)) return &run->rows.v[j];
    }
    return NULL;
}

/* The sweep pushes each size's out-of-place row and then its in-place row (collectives/sweep.c): a line pairs
 * an out-of-place row with the next row of its block when that is the in-place one of the same bytes. Paired by
 * position, not looked up by bytes: several sizes of a sweep can give the same bytes (-i 1 of float: 8, 9, 10,
 * 11 B are all 2 elements), and each is a measurement of its own, a line of its own as in nccl-tests. */
static int in_place_partner(const nvs_ctx *run, size_t i, const nvs_coll_row **out, const nvs_coll_row **in)
{
    const nvs_coll_row *q = &run->rows.v[i];
    if (!q->inplace) {
        const nvs_coll_row *nx = block_neighbour(run, i, 1);
        *out = q;
        *in = nx && nx->inplace && nx->bytes == q->bytes ? nx : NULL;
        return 1;
    }
    const nvs_coll_row *pv = block_neighbour(run, i, 0);
    if (pv && !pv->inplace && pv->bytes == q->bytes) return 0; /* printed beside its out-of-place row */
    *out = NULL;
    *in = q;
    return 1;
}

static void ranks_line(const nvs_ctx *run, int n, FILE *to)
{
    for (int p = 0; p < run->npoints; p++) {
        if (run->points[p].n != n) continue;
        fprintf(to, "#  ranks:");
        for (int i = 0; i < n && i < 16; i++) {
            int r = run->points[p].ranks[i];
            /* a host backend's rank has no bus id: "0[vm]", not "0[vm:]" */
            int bus = run->ranks && run->ranks[r].pci_bus_id[0];
            fprintf(to, " %d[%s%s%s]", r, run->ranks ? run->ranks[r].host : "", bus ? ":" : "",
                    bus ? run->ranks[r].pci_bus_id : "");
        }
        if (n > 16) fprintf(to, " ... (%d more)", n - 16);
        fputc('\n', to);
    }
}

int nvs_ctx_hosts_at(const nvs_ctx *run, int n)
{
    if (!run->ranks) return 0;
    for (int p = 0; p < run->npoints; p++) {
        if (run->points[p].n != n) continue;
        int hosts = 0;
        for (int i = 0; i < n; i++) {
            int node = run->ranks[run->points[p].ranks[i]].node, seen = 0;
            for (int k = 0; k < i && !seen; k++) seen = run->ranks[run->points[p].ranks[k]].node == node;
            hosts += !seen;
        }
        return hosts;
    }
    return 0;
}

/* One line per host when there are several (or virtual ones): which ranks each holds. */
static void hosts_lines(const nvs_ctx *run, FILE *to)
{
    const nvs_rt *rt = run->rt;
    if (!run->ranks || (rt->nnodes < 2 && !rt->emulated_nodes)) return;
    if (rt->emulated_nodes)
        fprintf(to, "#  %d virtual hosts of %d rank%s on %s (--emulate-nodes %d): NCCL sees each as a host\n",
                rt->nnodes, rt->size / rt->nnodes, rt->size / rt->nnodes == 1 ? "" : "s", run->ranks[0].machine,
                rt->emulated_nodes);
    for (int node = 0; node < rt->nnodes; node++) {
        int first = -1, count = 0;
        for (int r = 0; r < rt->size; r++)
            if (run->ranks[r].node == node) {
                if (first < 0) first = r;
                count++;
            }
        if (first < 0) continue;
        fprintf(to, "#  Host %-16s node %d: %d rank%s:", run->ranks[first].host, node, count, count == 1 ? "" : "s");
        for (int r = first, shown = 0; r < rt->size; r++)
            if (run->ranks[r].node == node && shown++ < 32) fprintf(to, " %d", r);
        fprintf(to, "%s\n", count > 32 ? " ..." : "");
    }
}

void nvs_print_table(const nvs_ctx *run, FILE *to)
{
    const nvs_config *cfg = run->cfg;
    fprintf(to, "# nvscale %s  %s  backend %s  launcher %s  %d rank%s\n", NVS_VERSION, cfg->subcommand,
            run->have_backend || run->backend.ops ? run->backend.ops->name : "?", run->launcher, run->rt->size,
            run->rt->size > 1 ? "s" : "");
    const int gpu = run->backend.ops && !strcmp(run->backend.ops->name, "nccl");
    if (run->ranks)
        for (int r = 0; r < run->rt->size && r < 64; r++) {
            if (!gpu) { /* the host backend: a CPU process, no device (it read "device  0 []") */
                fprintf(to, "#  Rank %3d on %16s  %s\n", r, run->ranks[r].host, run->ranks[r].gpu);
                continue;
            }
            fprintf(to, "#  Rank %3d on %16s device %2d [%s] %s\n", r, run->ranks[r].host, run->ranks[r].device,
                    run->ranks[r].pci_bus_id, run->ranks[r].gpu);
        }
    hosts_lines(run, to);
    for (size_t i = 0; i < run->rows.n; i++) {
        const nvs_coll_row *r = &run->rows.v[i];
        /* a block starts at the first row of its (collective, N, type, op) */
        int first = 1;
        for (size_t j = 0; j < i && first; j++)
            if (same_block(&run->rows.v[j], r)) first = 0;
        if (!first) continue;
        const nvs_coll *c = nvs_coll_at(r->coll);
        const char *unit = run->backend.ops && !strcmp(run->backend.ops->name, "nccl") ? "GPU" : "rank";
        int hosts = run->rt->nnodes > 1 ? nvs_ctx_hosts_at(run, r->n) : 0;
        char on_hosts[48] = "";
        if (hosts > 0) snprintf(on_hosts, sizeof on_hosts, " on %d host%s", hosts, hosts == 1 ? "" : "s");
        fprintf(to, "#\n# %s on %d %s%s%s%s\n", c->name, r->n, unit, r->n > 1 ? "s" : "", on_hosts,
                r->graph_launches ? "  (CUDA graph launches)" : "");
        ranks_line(run, r->n, to);
        /* centred over the two 33-column halves that start at column 52 and 85 */
        fprintf(to, "#%*s%s%*s%s\n", 61, "", "out-of-place", 23, "", "in-place");
        fprintf(to, "#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count", "type",
                "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
        fprintf(to, "#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)", "(elements)", "",
                "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
        double bw_sum = 0;
        int bw_n = 0;
        long long wrong = 0;
        int unchecked = 0;
        for (size_t j = i; j < run->rows.n; j++) {
            const nvs_coll_row *out, *in;
            if (!same_block(&run->rows.v[j], r) || !in_place_partner(run, j, &out, &in)) continue;
            const nvs_coll_row *any = out ? out : in;
            fprintf(to, "%12zu  %12zu  %8s  %6s  %6d", any->bytes, any->count, nvs_dtype_name(any->type),
                    any->op < 0 ? "none" : nvs_redop_name((nvs_redop)any->op), any->root);
            side(to, out);
            side(to, in);
            fputc('\n', to);
            for (int k = 0; k < 2; k++) {
                const nvs_coll_row *x = k ? in : out;
                if (!x) continue;
                if (isfinite(x->busbw_gbps)) { /* the average is of buses crossed: N >= 2 */
                    bw_sum += x->busbw_gbps;
                    bw_n++;
                }
                if (x->wrong > 0) wrong += x->wrong;
                if (x->wrong < 0) unchecked = 1;
            }
        }
        if (unchecked)
            fprintf(to, "# Wrong elements     : not checked (-c 0)\n");
        else
            fprintf(to, "# Wrong elements     : %lld %s\n", wrong, wrong ? "FAILED" : "OK");
        if (bw_n)
            fprintf(to, "# Avg bus bandwidth  : %.3f GB/s\n", bw_sum / bw_n);
        else
            fprintf(to, "# Avg bus bandwidth  : - (N=1: one %s, nothing crosses a link; the baseline)\n", unit);
    }
    /* sizes left out as too small for the ranks: a whole N of a collective can have none, and no table at all */
    for (size_t i = 0; i < run->rows.nskips; i++) {
        const nvs_coll_skip *k = &run->rows.skips[i];
        char why[256];
        fprintf(to, "#\n# skipped: %s on %d rank%s: %s\n", nvs_coll_at(k->coll)->name, k->n, k->n > 1 ? "s" : "",
                nvs_coll_skip_text(k, why, sizeof why));
    }
}

nvs_result_t nvs_print_csv(const nvs_ctx *run, FILE *to)
{
    if (fprintf(to, "collective,n,type,op,root,inplace,bytes,count,iters,graph_launches,time_us_min,time_us_avg,"
                    "time_us_max,slowest_rank,algbw_gbps,busbw_gbps,wrong\n") < 0)
        return NVS_ERR_SYSTEM;
    for (size_t i = 0; i < run->rows.n; i++) {
        const nvs_coll_row *r = &run->rows.v[i];
        char wrong[32];
        if (r->wrong < 0) wrong[0] = '\0';
        else snprintf(wrong, sizeof wrong, "%lld", r->wrong);
        char al[32] = "", bu[32] = ""; /* empty: not a number (N=1) */
        if (isfinite(r->algbw_gbps)) snprintf(al, sizeof al, "%.4f", r->algbw_gbps);
        if (isfinite(r->busbw_gbps)) snprintf(bu, sizeof bu, "%.4f", r->busbw_gbps);
        if (fprintf(to, "%s,%d,%s,%s,%d,%d,%zu,%zu,%d,%d,%.3f,%.3f,%.3f,%d,%s,%s,%s\n",
                    nvs_coll_at(r->coll)->name, r->n, nvs_dtype_name(r->type),
                    r->op < 0 ? "none" : nvs_redop_name((nvs_redop)r->op), r->root, r->inplace, r->bytes, r->count,
                    r->iters, r->graph_launches, r->t_min_us, r->t_avg_us, r->t_max_us, r->slowest_rank, al, bu,
                    wrong) < 0)
            return NVS_ERR_SYSTEM;
    }
    return ferror(to) ? NVS_ERR_SYSTEM : NVS_OK;
}
