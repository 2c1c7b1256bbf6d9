/* PURE part of `nvscale compare` (see compare.h). */
#include "compare/compare.h"

#include "core/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/link_class.h"

/* How each transport is forced (NCCL environment variables, docs.nvidia.com/deeplearning/nccl "Environment
 * Variables"): NCCL_P2P_DISABLE=1 removes the P2P transport (CUDA peer access over NVLink or PCIe), so two GPUs
 * of one host talk through SHM (host memory); NCCL_SHM_DISABLE=1 as well leaves only NET (IB/RoCE when an HCA is
 * there, else sockets). NCCL_NET is not set: a machine with an HCA measures its network, not loopback sockets
 * (set NCCL_NET=Socket in the environment to force sockets; it is passed through). nvlink and pcie cannot be
 * forced: CUDA P2P takes NVLink whenever the GPUs have it, so both run with P2P allowed and are verified from
 * NCCL's log afterwards. */
static const nvs_tp_desc table[NVS_TP_COUNT] = {
    [NVS_TP_NVLINK] = {"nvlink", {NULL}, "P2P", "NVLink", "CUDA peer-to-peer over NVLink (NCCL P2P transport)"},
    [NVS_TP_PCIE] = {"pcie", {NULL}, "P2P", "PCIe", "CUDA peer-to-peer over PCIe (NCCL P2P transport)"},
    [NVS_TP_SHM] = {"shm", {"NCCL_P2P_DISABLE=1", NULL}, "SHM", NULL,
                    "through host memory (NCCL SHM transport), as GPUs without peer-to-peer do"},
    [NVS_TP_NET] = {"net", {"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1", NULL}, "NET", NULL,
                    "through the network stack (NCCL NET transport: IB if present, else sockets)"},
};

const char *const nvs_tp_owned_env[] = {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", NULL};

const nvs_tp_desc *nvs_tp(nvs_tp_kind k) { return (unsigned)k < NVS_TP_COUNT ? &table[k] : NULL; }

int nvs_tp_parse_list(const char *s, nvs_tp_kind *out, int cap, char *err, size_t errlen)
{
    int n = 0;
    if (!s || !*s) {
        snprintf(err, errlen, "empty list (expected nvlink, pcie, shm, net, or all)");
        return -1;
    }
    if (!strcasecmp(s, "all")) {
        for (int k = 0; k < NVS_TP_COUNT && n < cap; k++) out[n++] = (nvs_tp_kind)k;
        return n;
    }
    char *copy, *items[16];
    int ni = nvs_list_split(s, &copy, items, 16, err, errlen); /* core/units.h: the one list splitter */
    for (int j = 0; j < ni; j++) {
        int k;
        for (k = 0; k < NVS_TP_COUNT; k++)
            if (!strcasecmp(items[j], table[k].name)) break;
        if (k == NVS_TP_COUNT && !strcasecmp(items[j], "all")) { /* "unknown transport 'all' (expected ... or all)" */
            snprintf(err, errlen, "'all' stands alone: it is every transport, in '%s'", s);
            n = -1;
            break;
        }
        if (k == NVS_TP_COUNT) {
            snprintf(err, errlen, "unknown transport '%s' (expected nvlink, pcie, shm, net, or all)", items[j]);
            n = -1;
            break;
        }
        for (int i = 0; i < n; i++)
            if (out[i] == (nvs_tp_kind)k) {
                snprintf(err, errlen, "transport '%s' given twice", table[k].name);
                n = -1;
            }
        if (n < 0) break;
        if (n == cap) {
            snprintf(err, errlen, "too many transports");
            n = -1;
            break;
        }
        out[n++] = (nvs_tp_kind)k;
    }
    free(copy);
    if (ni < 0) return -1;
    return n;
}

int nvs_tp_used_gpus(const nvs_run_topology *t, int count, int *out, int cap)
{
    const nvs_run_gpu *first = NULL;
    int n = 0;
    for (size_t i = 0; i < t->ngpus; i++) {
        const nvs_run_gpu *g = &t->gpus[i];
        if (g->cuda_device < 0) continue; /* offline, or seen only on the PCI bus */
        if (!first) first = g;
        int same_host = (!first->host && !g->host) || (first->host && g->host && !strcmp(first->host, g->host));
        if (!same_host || n == cap) continue;
        int j = n++; /* insertion by CUDA device */
        while (j > 0 && t->gpus[out[j - 1]].cuda_device > g->cuda_device) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = (int)i;
    }
    /* out[] holds positions in t->gpus: turn them into topology GPU indices (the "index" field) */
    for (int i = 0; i < n; i++) out[i] = t->gpus[out[i]].index >= 0 ? t->gpus[out[i]].index : out[i];
    return count > 0 && count < n ? count : n;
}

static int nvlinked(const nvs_run_pair *p)
{
    return p && (p->nvlinks > 0 || nvs_link_class_is_nvlink(p->cls)); /* NV1..NV18 (nvidia-smi topo -m) */
}

/* Classes where NCCL's automatic P2P level (PXB on most systems, NCCL_P2P_LEVEL docs) may refuse P2P: the PCIe
 * paths through a host bridge or farther (PHB, NODE, SYS). */
static int across_host_bridge(const char *cls)
{
    nvs_link_class c = nvs_link_class_parse(cls, NULL);
    return c >= NVS_CLASS_PHB && c <= NVS_CLASS_SYS;
}

static const char *cls_of(const nvs_run_pair *p)
{
    return p && p->cls ? p->cls : "class unknown";
}

/* What rules a transport out, or casts doubt on it, for one GPU pair (NULL: a pair the topology lacks). */
typedef int (*pair_test)(const nvs_run_pair *p);
static int not_nvlinked(const nvs_run_pair *p) { return !nvlinked(p); }
static int no_pcie_p2p(const nvs_run_pair *p) { return nvlinked(p) || (p && p->p2p_cuda == 0); }
static int p2p_doubtful(const nvs_run_pair *p)
{
    return !p || p->p2p_cuda < 0 || across_host_bridge(p->pcie_class ? p->pcie_class : p->cls);
}

/* The first pair of the used GPUs (i < j, in their order) that `test` picks: 1 with its GPUs and its pair, 0 when
 * no pair is picked. */
static int first_pair(const nvs_run_topology *t, const int *used, int nused, pair_test test, int *a, int *b,
                      const nvs_run_pair **p)
{
    for (int i = 0; i < nused; i++)
        for (int j = i + 1; j < nused; j++) {
            *p = nvs_run_topology_pair(t, used[i], used[j]);
            if (test(*p)) {
                *a = used[i];
                *b = used[j];
                return 1;
            }
        }
    return 0;
}

void nvs_tp_feasible(nvs_tp_kind k, const nvs_run_topology *t, const int *used, int nused, nvs_tp_feasibility *f)
{
    memset(f, 0, sizeof *f);
    if (nused < 2) {
        snprintf(f->reason, sizeof f->reason, "%d GPU%s on this host: nothing travels between GPUs", nused,
                 nused == 1 ? "" : "s");
        return;
    }
    int a, b;
    const nvs_run_pair *p;
    switch (k) {
    case NVS_TP_NVLINK:
        if (first_pair(t, used, nused, not_nvlinked, &a, &b, &p)) {
            snprintf(f->reason, sizeof f->reason,
                     "GPUs %d and %d have no NVLink between them (%s): a run over these GPUs would not be NVLink "
                     "alone (pick NVLinked GPUs with CUDA_VISIBLE_DEVICES)",
                     a, b, cls_of(p));
            return;
        }
        f->feasible = 1;
        return;
    case NVS_TP_PCIE:
        if (first_pair(t, used, nused, no_pcie_p2p, &a, &b, &p)) {
            if (nvlinked(p))
                snprintf(f->reason, sizeof f->reason,
                         "GPUs %d and %d are NVLinked (%s): CUDA peer-to-peer between them always takes NVLink, so "
                         "PCIe peer-to-peer cannot be measured on them",
                         a, b, cls_of(p));
            else
                snprintf(f->reason, sizeof f->reason,
                         "cudaDeviceCanAccessPeer(%d, %d) is false (%s): no PCIe peer-to-peer between them (GeForce "
                         "cards, or ACS/IOMMU settings); NCCL falls back to SHM",
                         a, b, cls_of(p));
            return;
        }
        f->feasible = 1;
        if (first_pair(t, used, nused, p2p_doubtful, &a, &b, &p)) {
            if (!p || p->p2p_cuda < 0)
                snprintf(f->note, sizeof f->note,
                         "peer-to-peer support of GPUs %d and %d is unknown: verified from NCCL's log after the run",
                         a, b);
            else
                snprintf(f->note, sizeof f->note,
                         "GPUs %d and %d connect through %s: NCCL's automatic P2P level may choose SHM there; "
                         "NCCL_P2P_LEVEL=SYS in the environment forces P2P",
                         a, b, p->pcie_class ? p->pcie_class : p->cls);
        }
        return;
    case NVS_TP_SHM:
    case NVS_TP_NET: f->feasible = 1; return;
    default: snprintf(f->reason, sizeof f->reason, "unknown transport"); return;
    }
}

static int owned(const char *kv)
{
    for (int i = 0; nvs_tp_owned_env[i]; i++) {
        size_t l = strlen(nvs_tp_owned_env[i]);
        if (!strncmp(kv, nvs_tp_owned_env[i], l) && kv[l] == '=') return 1;
    }
    return 0;
}

char **nvs_tp_child_env(char *const *envp, nvs_tp_kind k, int *dropped)
{
    size_t n = 0, d = 0;
    while (envp && envp[n]) n++;
    char **env = malloc((n + 4) * sizeof *env);
    if (!env) return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (owned(envp[i])) d++;
        else env[m++] = envp[i];
    }
    for (int i = 0; table[k].env[i]; i++) env[m++] = (char *)table[k].env[i];
    env[m] = NULL;
    if (dropped) *dropped = (int)d;
    return env;
}

/* The verdict of one GPU count's transports (t: a run.json "transports" entry that names some) */
static void verify_at(const nvs_tp_desc *d, const nvs_run_transport *t, nvs_tp_verification *v)
{
    memset(v, 0, sizeof *v);
    v->verdict = NVS_TP_UNVERIFIED;
    v->n = t->n;
    /* what was found: "P2P over NVLink (24 channels)", several words when NCCL mixed transports */
    int expected = 0, others = 0;
    char words[96] = "";
    long total = 0;
    for (size_t i = 0; i < t->nsummary; i++) {
        int c = t->summary_counts ? t->summary_counts[i] : 0;
        if (c <= 0) continue;
        total += c;
        /* CollNet (NCCL_COLLNET_ENABLE=1 with a collnet plugin such as SHARP) reduces in the network beside NET's
         * rings, over the same NICs: part of the network path asked for, not another transport; where P2P or SHM
         * was asked it is one more sign the ranks crossed the network */
        int collnet = !strcmp(t->summary[i].key, "COLLNET");
        if (!strcmp(t->summary[i].key, d->nccl) || (collnet && !strcmp(d->nccl, "NET"))) expected = 1;
        else others = 1;
        const char *w = t->summary[i].key;
        if (!strcmp(w, "NET") && t->net_detail) w = t->net_detail;
        if (collnet && t->collnet_detail) w = t->collnet_detail;
        snprintf(words + strlen(words), sizeof words - strlen(words), "%s%s", words[0] ? "+" : "", w);
    }
    /* "P2P (link unknown)": NCCL used P2P between GPUs whose class the run's topology did not know
     * (nccl_log_summary.c's nvs_nl_link_kind); nothing says it was not the link asked for: unverified below, not a
     * mismatch */
    int unknown = nvs_link_kind_parse(t->link) == NVS_LINK_P2P_UNKNOWN;
    const char *link = unknown ? NULL : t->link;
    snprintf(v->found, sizeof v->found, "%s%s%s%s (%ld channel%s)", words, link ? " over " : "", link ? link : "",
             unknown ? ", link unknown" : "", total, total == 1 ? "" : "s");
    if (!expected || others) {
        v->verdict = NVS_TP_MISMATCH;
        snprintf(v->text, sizeof v->text, "MISMATCH: asked for %s (%s), NCCL used %s at n=%d", d->name, d->nccl,
                 v->found, t->n);
        return;
    }
    if (d->link && link && strcmp(d->link, link)) {
        v->verdict = NVS_TP_MISMATCH;
        snprintf(v->text, sizeof v->text, "MISMATCH: asked for %s (%s over %s), NCCL used %s at n=%d", d->name,
                 d->nccl, d->link, v->found, t->n);
        return;
    }
    if (d->link && !link) {
        snprintf(v->text, sizeof v->text, "not verified: %s used at n=%d, but run.json does not say over which link",
                 d->nccl, t->n);
        return; /* unverified: P2P, link unknown */
    }
    v->verdict = NVS_TP_VERIFIED;
}

/* how bad a verdict is: a mismatch at any N outweighs an unverified N, which outweighs a verified one */
static int badness(int verdict) { return verdict == NVS_TP_MISMATCH ? 2 : verdict == NVS_TP_UNVERIFIED ? 1 : 0; }

void nvs_tp_verify(nvs_tp_kind k, const nvs_run *r, nvs_tp_verification *v)
{
    const nvs_tp_desc *d = &table[k];
    memset(v, 0, sizeof *v);
    v->verdict = NVS_TP_UNVERIFIED;
    if (r->backend && !strcmp(r->backend, "mpi")) {
        snprintf(v->text, sizeof v->text, "not verified: the run used the MPI host backend, not NCCL");
        return;
    }
    /* every GPU count the run measured, not the largest alone: the busbw table shows the rows of each N under the
     * transport's name (--gpus 2,4 whose n=2 went through SHM while n=4 used P2P over NVLink read "as asked") */
    char ns[128] = "";
    int any = 0, cut = 0;
    for (size_t i = 0; i < r->ntransports; i++) {
        const nvs_run_transport *t = &r->transports[i];
        if (!t->nsummary) continue; /* N = 1: nothing between GPUs */
        nvs_tp_verification x;
        verify_at(d, t, &x);
        if (!any || badness(x.verdict) > badness(v->verdict) ||
            (badness(x.verdict) == badness(v->verdict) && x.n > v->n))
            *v = x;
        any = 1;
        size_t l = strlen(ns);
        if (l + 16 < sizeof ns) snprintf(ns + l, sizeof ns - l, "%s%d", l ? ", " : "", t->n);
        else if (!cut++) snprintf(ns + l, sizeof ns - l, ", ...");
    }
    if (!any) {
        snprintf(v->text, sizeof v->text,
                 "not verified: run.json names no transport (NCCL's INFO log was not captured: --no-nccl-log, or "
                 "NCCL_DEBUG set by the user)");
        return;
    }
    if (v->verdict == NVS_TP_VERIFIED) snprintf(v->text, sizeof v->text, "as asked (n=%s)", ns);
}

nvs_result_t nvs_tp_parse_topology(const char *text, nvs_run *r, char *err, size_t errlen)
{
    json_error_t je;
    memset(r, 0, sizeof *r);
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root || !json_is_object(root)) {
        snprintf(err, errlen, "not a JSON object%s%s", root ? "" : ": ", root ? "" : je.text);
        json_decref(root);
        return NVS_ERR_INPUT;
    }
    json_t *doc = root;
    if (!json_object_get(root, "schema")) { /* the topology object alone: wrap it into a run document */
        doc = json_pack("{s:s, s:o}", "schema", NVS_RUN_SCHEMA, "topology", root);
        if (!doc) {
            snprintf(err, errlen, "out of memory");
            return NVS_ERR_NOMEM;
        }
    }
    nvs_result_t res = nvs_run_from_json(doc, "topology", NVS_RUN_NEED_TOPOLOGY, r, err, errlen);
    json_decref(doc);
    return res;
}

static int same_s(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

void nvs_tp_row_kind(const nvs_run_coll *c, char *buf, size_t len)
{
    char root[32] = "";
    int no_op = !c->op || !strcmp(c->op, "none"); /* broadcast, all_gather: no reduction */
    if (c->root >= 0) snprintf(root, sizeof root, " root %d", c->root);
    snprintf(buf, len, "%s%s%s%s %s%s", c->type ? c->type : "(no type)", no_op ? "" : " ", no_op ? "" : c->op, root,
             c->inplace ? "in-place" : "out-of-place", c->graph ? ", CUDA graph" : "");
}

/* The sweep settings of a whole run that change its times (-a decides whose time a bandwidth is; -w, -m, -z and
 * --alloc change the time itself): 1 when runs a and b agree on all that both of them recorded, else 0 with the
 * first difference in err. An absent one (-1, NULL: a run from before the key) is not a difference. */
static int sweeps_alike(const nvs_run *a, const nvs_run *b, const char *na, const char *nb, char *err, size_t errlen)
{
    static const char *const basis[] = {"rank 0", "the mean rank", "the fastest rank", "the slowest rank"};
    if (a->time_basis != b->time_basis && a->time_basis >= 0 && a->time_basis < 4 && b->time_basis >= 0 &&
        b->time_basis < 4) {
        snprintf(err, errlen, "-a: %s timed %s, %s %s", na, basis[a->time_basis], nb, basis[b->time_basis]);
        return 0;
    }
    const struct {
        const char *flag, *what;
        int x, y;
    } f[] = {{"-w", "warm-up iterations", a->sweep_warmup, b->sweep_warmup},
             {"-m", "operations per NCCL group", a->sweep_agg_iters, b->sweep_agg_iters},
             {"-z", "blocking (1 with a barrier, 2 without) or not (0)", a->sweep_blocking, b->sweep_blocking}};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (f[k].x >= 0 && f[k].y >= 0 && f[k].x != f[k].y) {
            snprintf(err, errlen, "%s, %s: %s %d, %s %d", f[k].flag, f[k].what, na, f[k].x, nb, f[k].y);
            return 0;
        }
    if (a->sweep_alloc && b->sweep_alloc && strcmp(a->sweep_alloc, b->sweep_alloc)) {
        snprintf(err, errlen, "--alloc: %s used %s buffers, %s %s", na, a->sweep_alloc, nb, b->sweep_alloc);
        return 0;
    }
    return 1;
}

static void gpu_list(const nvs_run_scaling *s, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t k = 0; k < s->ngpus && strlen(buf) + 16 < len; k++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", k ? "," : "", s->gpus[k]);
}

static int cmp_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Were runs a and b made on the same host and, at every N both measured, on the same GPUs (run.json "scaling":
 * topology indices)? Runs of separate mpiruns may land on other nodes of a hostfile, or on other GPUs
 * (CUDA_VISIBLE_DEVICES=2,3 for one of them): side by side they differ in the GPUs' links, not in the transport
 * alone. What either run does not record is not a difference. 1 alike, else 0 with the difference in err. */
static int places_alike(const nvs_run *a, const nvs_run *b, const char *na, const char *nb, char *err, size_t errlen)
{
    if (a->host && b->host && strcmp(a->host, b->host)) {
        snprintf(err, errlen, "%s ran on host %s, %s on host %s", na, a->host, nb, b->host);
        return 0;
    }
    for (size_t i = 0; i < a->nscaling; i++) {
        const nvs_run_scaling *x = &a->scaling[i], *y = nvs_run_scaling_of(b, x->n);
        if (!y || !x->gpus || !y->gpus || !x->ngpus || !y->ngpus) continue;
        int same = x->ngpus == y->ngpus;
        if (same) { /* as sets: the ranks' order over the same GPUs is the same measurement */
            int *u = malloc(2 * x->ngpus * sizeof *u);
            if (!u) continue; /* out of memory: not a difference found */
            memcpy(u, x->gpus, x->ngpus * sizeof *u);
            memcpy(u + x->ngpus, y->gpus, x->ngpus * sizeof *u);
            qsort(u, x->ngpus, sizeof *u, cmp_int);
            qsort(u + x->ngpus, x->ngpus, sizeof *u, cmp_int);
            same = !memcmp(u, u + x->ngpus, x->ngpus * sizeof *u);
            free(u);
        }
        if (same) continue;
        char ga[128], gb[128];
        gpu_list(x, ga, sizeof ga);
        gpu_list(y, gb, sizeof gb);
        snprintf(err, errlen, "N=%d: %s ran on GPUs %s, %s on GPUs %s", x->n, na, ga, nb, gb);
        return 0;
    }
    return 1;
}

int nvs_tp_runs_alike(const nvs_run *const *runs, const char *const *names, int nr, char *err, size_t errlen)
{
    for (int i = 1; i < nr; i++)
        if (!places_alike(runs[0], runs[i], names[0], names[i], err, errlen) ||
            !sweeps_alike(runs[0], runs[i], names[0], names[i], err, errlen))
            return 0;
    for (int i = 1; i < nr; i++)
        for (size_t k = 0; k < runs[i]->ncolls; k++) {
            const nvs_run_coll *x = &runs[i]->colls[k];
            if (nvs_run_coll_find(runs[i], x->collective, x->n, x->size) != x) continue; /* not a row shown */
            for (int j = 0; j < i; j++) {
                const nvs_run_coll *y = nvs_run_coll_find(runs[j], x->collective, x->n, x->size);
                if (!y) continue;
                int same_kind = same_s(x->type, y->type) && same_s(x->op, y->op) && x->root == y->root &&
                                x->inplace == y->inplace && x->graph == y->graph;
                int same_iters = x->iters < 0 || y->iters < 0 || x->iters == y->iters;
                if (same_kind && same_iters) continue;
                char sz[32];
                nvs_format_size((size_t)x->size, sz, sizeof sz);
                if (same_kind) { /* -n: the time is a mean over iters */
                    snprintf(err, errlen, "-n: %s N=%d %s: %s timed %d iterations, %s %d", x->collective, x->n, sz,
                             names[j], y->iters, names[i], x->iters);
                    return 0;
                }
                char kx[128], ky[128];
                nvs_tp_row_kind(x, kx, sizeof kx);
                nvs_tp_row_kind(y, ky, sizeof ky);
                snprintf(err, errlen, "%s N=%d %s: %s measured %s, %s %s", x->collective, x->n, sz, names[j], ky,
                         names[i], kx);
                return 0;
            }
        }
    return 1;
}
