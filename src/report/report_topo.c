/* The report's "Topology" section (docs/report.md). One host: its pair matrix as `nvidia-smi topo -m` prints it,
 * then one row per pair with its bound. Several hosts: the same per layout, where hosts whose GPUs are alike
 * (names, NUMA nodes, CPU affinity, and every pair's class, CUDA P2P and bound) share one matrix and the hosts
 * that differ get their own; between hosts every pair is NET. A 512-host run has one 8x8 matrix (and the odd
 * host out), where a matrix of every GPU had 4096 columns. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/md_fmt.h"
#include "report/report_topo.h"

static const char *const classes_note =
    "Classes as `nvidia-smi topo -m`: NV# = # NVLinks, PIX = one PCIe switch, PXB = several, PHB = a CPU host "
    "bridge, NODE = between host bridges of one NUMA node, SYS = between NUMA nodes.";

/* one host of the run: its GPUs (positions in topology.gpus, in order) and the layout group it falls in */
typedef struct {
    const char *name;
    size_t *gpus;
    size_t n;
    int group;
    int first; /* the first host of its group: the one the others are compared with */
} host_gpus;

static int same_str(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }
static int same_num(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static const nvs_run_pair *pair_at(const nvs_run *r, const host_gpus *h, size_t i, size_t j, nvs_run_pair_buf *buf)
{
    const nvs_run_topology *t = &r->topology;
    return nvs_run_pair_of(r, t->gpus[h->gpus[i]].index, t->gpus[h->gpus[j]].index, buf);
}

/* Whether two hosts' GPUs are alike, GPU by GPU and pair by pair in their order. */
static int alike(const nvs_run *r, const host_gpus *x, const host_gpus *y)
{
    const nvs_run_topology *t = &r->topology;
    if (x->n != y->n) return 0;
    for (size_t i = 0; i < x->n; i++) {
        const nvs_run_gpu *a = &t->gpus[x->gpus[i]], *b = &t->gpus[y->gpus[i]];
        if (!same_str(a->name, b->name) || a->numa_node != b->numa_node || !same_str(a->cpuset, b->cpuset)) return 0;
        for (size_t j = 0; j < x->n; j++) {
            if (i == j) continue;
            nvs_run_pair_buf bx, by;
            const nvs_run_pair *p = pair_at(r, x, i, j, &bx), *q = pair_at(r, y, i, j, &by);
            if (!p || !q) {
                if (p != q) return 0;
                continue;
            }
            if (!same_str(p->cls, q->cls) || p->p2p_cuda != q->p2p_cuda || !same_num(p->bound_gbps, q->bound_gbps) ||
                !same_str(p->bound_source, q->bound_source))
                return 0;
        }
    }
    return 1;
}

/* GPU i of host h as a table names it: its place in the host (local), or its index in the run's topology */
static int label(const nvs_run *r, const host_gpus *h, size_t i, int local)
{
    return local ? (int)i : r->topology.gpus[h->gpus[i]].index;
}

/* The matrix and the pair rows of one host's GPUs, numbered `local` (0..n-1 within the host) or by their index
 * in the run's topology. */
static void host_tables(const nvs_run *r, const host_gpus *h, int local, FILE *f)
{
    const nvs_run_topology *t = &r->topology;
    char b[32];
    fprintf(f, "| |");
    for (size_t j = 0; j < h->n; j++) fprintf(f, " GPU%d |", label(r, h, j, local));
    fprintf(f, " NUMA | CPU affinity |\n|---|");
    for (size_t j = 0; j < h->n; j++) fprintf(f, "---|");
    fprintf(f, "---|---|\n");
    for (size_t i = 0; i < h->n; i++) {
        fprintf(f, "| GPU%d |", label(r, h, i, local));
        for (size_t j = 0; j < h->n; j++) {
            if (i == j) {
                fprintf(f, " X |");
                continue;
            }
            nvs_run_pair_buf nb;
            const nvs_run_pair *p = pair_at(r, h, i, j, &nb);
            fputc(' ', f);
            cell(f, p ? p->cls : NULL);
            fprintf(f, " |");
        }
        const nvs_run_gpu *g = &t->gpus[h->gpus[i]];
        fprintf(f, " %s | ", fint(g->numa_node, b, sizeof b));
        cell(f, g->cpuset);
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
    int any = 0;
    for (size_t i = 0; i < h->n; i++)
        for (size_t j = i + 1; j < h->n; j++) {
            nvs_run_pair_buf nb;
            const nvs_run_pair *p = pair_at(r, h, i, j, &nb);
            if (!p) continue;
            if (!any++)
                fprintf(
                    f,
                    "| GPUs | class | CUDA P2P | bound (GB/s per direction) | bound from |\n|---|---|---|---|---|\n");
            fprintf(f, "| %d-%d | ", label(r, h, i, local), label(r, h, j, local));
            cell(f, p->cls);
            fprintf(f, " | %s | %s | ", p->p2p_cuda < 0 ? DASH : p->p2p_cuda ? "yes" : "no",
                    fnum(p->bound_gbps, "%.1f", b, sizeof b));
            cell(f, p->bound_source);
            fprintf(f, " |\n");
        }
    if (any) fprintf(f, "\n");
}

/* "a, b, c" for the first 8 hosts of group g, then "and N more" */
static void group_names(const host_gpus *hs, size_t nh, int g, FILE *f)
{
    size_t shown = 0, total = 0;
    for (size_t k = 0; k < nh; k++)
        if (hs[k].group == g) total++;
    for (size_t k = 0; k < nh && shown < 8; k++)
        if (hs[k].group == g) {
            if (shown++) fprintf(f, ", ");
            cell(f, hs[k].name);
        }
    if (total > shown) fprintf(f, " and %zu more", total - shown);
}

/* "a: GPUs 0-7; b: GPUs 8-15" for the first 4 hosts of group g, to find a local GPU in the run's numbering */
static void group_numbering(const nvs_run *r, const host_gpus *hs, size_t nh, int g, FILE *f)
{
    const nvs_run_topology *t = &r->topology;
    size_t shown = 0;
    fprintf(f, "GPU*i* is the *i*-th GPU of each host; in the run's numbering ");
    for (size_t k = 0; k < nh && shown < 4; k++) {
        if (hs[k].group != g || !hs[k].n) continue;
        fprintf(f, "%s", shown++ ? "; " : "");
        cell(f, hs[k].name);
        fprintf(f, ": GPU %d", t->gpus[hs[k].gpus[0]].index);
        for (size_t i = 1; i < hs[k].n; i++) fprintf(f, ", %d", t->gpus[hs[k].gpus[i]].index);
    }
    size_t in_group = 0;
    for (size_t k = 0; k < nh; k++) in_group += hs[k].group == g && hs[k].n;
    fprintf(f, "%s.\n\n", in_group > shown ? "; and so on" : "");
}

static void several_hosts(const nvs_run *r, host_gpus *hs, size_t nh, FILE *f)
{
    int ngroups = 0;
    for (size_t k = 0; k < nh; k++) { /* each host against the first host of each group so far */
        hs[k].group = -1;
        for (size_t m = 0; m < k && hs[k].group < 0; m++)
            if (hs[m].first && alike(r, &hs[m], &hs[k])) hs[k].group = hs[m].group;
        if (hs[k].group < 0) {
            hs[k].group = ngroups++;
            hs[k].first = 1;
        }
    }
    fprintf(f, "%zu hosts, %d layout%s of the GPUs within a host. GPUs of different hosts are NET: a ring crossing "
               "hosts is bounded by the slower GPU's network (its nearest NICs, `net` in run.json), or by `net_gbps` "
               "when a topology file gives one.\n\n", nh, ngroups, ngroups == 1 ? "" : "s");
    for (int g = 0; g < ngroups; g++) {
        size_t first = 0, count = 0;
        for (size_t k = nh; k-- > 0;)
            if (hs[k].group == g) first = k, count++;
        fprintf(f, "#### %zu host%s: ", count, count == 1 ? "" : "s");
        group_names(hs, nh, g, f);
        fprintf(f, "\n\n");
        if (!hs[first].n) {
            fprintf(f, "No GPU.\n\n");
            continue;
        }
        group_numbering(r, hs, nh, g, f);
        host_tables(r, &hs[first], 1, f);
    }
}

void nvs_report_topology_md(const nvs_run *r, FILE *f)
{
    const nvs_run_topology *t = &r->topology;
    if (!t->present || !t->ngpus) return;
    fprintf(f, "### Topology\n\n");
    if (t->source) {
        fprintf(f, "Source: ");
        cell(f, t->source);
        fprintf(f, ". %s\n\n", classes_note);
    }
    /* the hosts in the order their first GPU appears, each with its GPUs in order */
    host_gpus *hs = calloc(t->ngpus, sizeof *hs);
    size_t *pos = malloc(t->ngpus * sizeof *pos);
    if (!hs || !pos) {
        free(hs);
        free(pos);
        fprintf(f, "(out of memory)\n\n");
        return;
    }
    size_t nh = 0, used = 0;
    for (size_t i = 0; i < t->ngpus; i++) {
        size_t k = 0;
        while (k < nh && !same_str(hs[k].name, t->gpus[i].host)) k++;
        if (k == nh) hs[nh++].name = t->gpus[i].host;
    }
    for (size_t k = 0; k < nh; k++) { /* each host's GPUs, contiguous in pos[] */
        hs[k].gpus = pos + used;
        for (size_t i = 0; i < t->ngpus; i++)
            if (same_str(hs[k].name, t->gpus[i].host)) hs[k].gpus[hs[k].n++] = i;
        used += hs[k].n;
    }
    if (nh <= 1) host_tables(r, &hs[0], 0, f);
    else several_hosts(r, hs, nh, f);
    free(hs);
    free(pos);
}
