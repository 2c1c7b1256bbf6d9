/* The "why" paragraph per N: see explain.h. */
#include "explain/explain.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "core/ring.h"
#include "core/units.h"
#include "explain/nccl_log.h"
#include "runjson/runjson_write.h"

void nvs_explain_facts_init(nvs_explain_facts *f, int n)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->hop_from_gpu = f->hop_to_gpu = f->hop_p2p = -1;
    f->bound_gbps = f->busbw_gbps = f->busbw_bytes = f->prev_busbw_gbps = NAN;
    f->exposed_comm_pct = f->predicted_comm_us = f->measured_comm_us = NAN;
    f->host_rate_p10 = f->host_rate_p90 = f->rank_wait_pct = f->issue_pct = NAN;
    f->contention_ms = f->interference_ms = f->step_ms = NAN;
    f->train_lost_ms = NAN;
}

/* A host whose CPU runs at two speeds. On a quiet vCPU the host-work probe's rate stays within about 10 %
 * (145-161 units/us for minutes, results/h200x1-hostnoise2); the H200 VMs' vCPUs switch between two speeds 1.27x
 * apart for this unit (1x H200, results/h200x1-probe-compare) and up to 1.7x (2x H200, the calibrations of
 * results/fidelity/run3-*). A spread of 1.25x or more is such a switch, not jitter. */
#define NVS_HOST_RATE_SPREAD 1.25
/* the host's issue time, % of the step, from which the step is host-bound (the Why sentence says why 90) */
#define NVS_HOST_BOUND_PCT 90.0

/* Whether the framework's host work is among the two kinds the host spent most of the step's issue on */
static int framework_top(const nvs_explain_facts *f)
{
    for (int i = 0; i < 2; i++)
        if (f->issue_top[i] && !strcmp(f->issue_top[i], "framework")) return 1;
    return 0;
}

/* The words for a kind of the host's issue time (run.json issue_by_us, src/train/issue.h); the key itself for a
 * kind this table does not know */
static const char *issue_words(const char *kind)
{
    static const char *const words[][2] = {
        {"framework", "the framework's host work"}, {"gemm", "launching cuBLAS GEMMs"},
        {"conv_library", "cuDNN's convolution calls"}, {"norm_library", "cuDNN's batch-norm calls"},
        {"norm_kernels", "launching batch-norm kernels"}, {"passes", "launching element-wise kernels"},
        {"copies", "launching copies"}, {"comm", "communication calls"}, {"optimizer", "the optimizer's launches"},
        {"other", "other calls"}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(kind, words[i][0])) return words[i][1];
    return kind;
}

/* snprintf into a growing text that remembers the full length even when the buffer is too small. */
typedef struct {
    char *buf;
    size_t len, used;
} sb;

static void sbf(sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sbf(sb *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = s->used < s->len ? s->len - s->used : 0;
    int w = vsnprintf(room ? s->buf + s->used : NULL, room, fmt, ap);
    va_end(ap);
    if (w > 0) s->used += (size_t)w;
}

/* A figure in prose: one decimal below `whole_from`, none from there up. */
static const char *figure(double v, double whole_from, char *buf, size_t len)
{
    snprintf(buf, len, fabs(v) >= whole_from ? "%.0f" : "%.1f", v);
    return buf;
}

/* Measurements: 3 significant digits are more than the noise allows; "330", "27", "3.4". */
static const char *num(double v, char *buf, size_t len) { return figure(v, 10, buf, len); }

/* A bound is a derived constant, not a noisy measurement: keep its decimal below 100 ("31.5", "478"). */
static const char *bound_num(double v, char *buf, size_t len) { return figure(v, 100, buf, len); }

/* What the slowest hop is, in words ("the ring crosses the CPU host bridge (PHB)"). */
static void hop_words(sb *s, const nvs_explain_facts *f)
{
    const char *c = f->hop_class;
    switch (nvs_link_class_parse(c, NULL)) {
    case NVS_CLASS_NV: sbf(s, "the ring runs over NVLink (%s)", c); break;
    case NVS_CLASS_PIX: sbf(s, "the ring crosses a single PCIe switch (PIX)"); break;
    case NVS_CLASS_PXB: sbf(s, "the ring crosses several PCIe switches (PXB)"); break;
    case NVS_CLASS_PHB: sbf(s, "the ring crosses the CPU host bridge (PHB)"); break;
    case NVS_CLASS_NODE: sbf(s, "the ring crosses between PCIe host bridges of one NUMA node (NODE)"); break;
    case NVS_CLASS_SYS: sbf(s, "the ring crosses the link between CPU sockets (SYS)"); break;
    case NVS_CLASS_NET: sbf(s, "the ring crosses the network between hosts (NET)"); break;
    default: sbf(s, "the ring's slowest hop is of class %s", c);
    }
}

/* Whether transport list ("P2P+NET", "P2P/IPC+SHM") has word w whole: words are separated by '+', and a word may
 * carry NCCL's detail after a '/' ("NET/Socket"). "NET" is no word of "COLLNET", nor of an unknown "XNET". */
static int word_end(char c) { return c == '\0' || c == '+' || c == '/'; }

static int has_word(const char *list, const char *w)
{
    if (!list) return 0;
    size_t n = strlen(w);
    for (const char *p = strstr(list, w); p; p = strstr(p + 1, w))
        if ((p == list || p[-1] == '+') && word_end(p[n])) return 1;
    return 0;
}

/* The transport words nvscale knows: those NCCL's log names (nccl_log.c, nvs_nccl_summary_transport) */
static int known_word(const char *w, size_t n)
{
    static const char *const known[] = {"P2P", "SHM", "NET", "COLLNET"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i]) == n && !strncmp(w, known[i], n)) return 1;
    return 0;
}

/* Each word of the list that is none of the known ones, as it is: a future NCCL transport, or the log's "other"
 * (connection lines of a transport nvscale does not know), is said, not dropped. Returns how many. */
static int unknown_words(sb *s, const char *t, int first)
{
    int said = 0;
    for (const char *w = t; *w;) {
        size_t n = strcspn(w, "+"), name = strcspn(w, "+/");
        if (name > n) name = n;
        if (n && !known_word(w, name)) {
            if (name == 5 && !strncmp(w, "other", 5))
                sbf(s, "%sanother transport (not one nvscale knows)", first && !said ? "" : " and ");
            else
                sbf(s, "%s%.*s (not a transport nvscale knows)", first && !said ? "" : " and ", (int)n, w);
            said++;
        }
        w += n;
        if (*w == '+') w++;
    }
    return said;
}

/* The collectives NVLS runs: NCCL's src/device/all_reduce.h, all_gather.h and reduce_scatter.h have NCCL_ALGO_NVLS
 * kernels (the switch reduces or multicasts in place of the ring's steps); broadcast, reduce and all-to-all have
 * none, so their ring bound stands */
static int nvls_reduces(const char *coll)
{
    return !strcmp(coll, "all_reduce") || !strcmp(coll, "all_gather") || !strcmp(coll, "reduce_scatter");
}

/* What NCCL used, in words, and whether that wastes the hop. */
static void transport_words(sb *s, const nvs_explain_facts *f)
{
    const char *t = f->transport;
    int hop = f->has_hop && f->hop_class;
    int nvlink = hop && nvs_link_class_is_nvlink(f->hop_class);
    int p2p = has_word(t, "P2P"), shm = has_word(t, "SHM"), net = has_word(t, "NET"), collnet = has_word(t, "COLLNET");
    if (!hop)
        sbf(s, "NCCL used ");
    else if (nvs_explain_hop_unused_by(f->hop_class, t)) /* a word nvscale does not know is no path around it */
        sbf(s, " but NCCL did not use it: it used ");
    else
        sbf(s, " and NCCL used ");
    int first = 1;
    if (p2p) {
        /* a NET hop says nothing of the links inside each host: P2P runs there, over whatever they have */
        int net_hop = hop && !strcmp(f->hop_class, "NET");
        sbf(s, "P2P%s", nvlink ? " over NVLink" : net_hop ? " inside each host" : f->has_hop ? " over PCIe" : "");
        first = 0;
    }
    if (shm) {
        sbf(s, "%sSHM through host memory", first ? "" : " and ");
        first = 0;
    }
    if (net) {
        sbf(s, "%sNET%s%s", first ? "" : " and ", f->net[0] ? "/" : "", f->net);
        first = 0;
    }
    if (collnet) { /* NCCL_COLLNET_ENABLE=1 and a collnet plugin (SHARP): the switches reduce (src/transport/coll_net.cc) */
        sbf(s, "%sCollNet%s%s (in-network reduction through the network plugin)", first ? "" : " and ",
            f->collnet[0] ? "/" : "", f->collnet);
        first = 0;
    }
    if (unknown_words(s, t, first)) first = 0;
    if (first) sbf(s, "%s", t);
    /* NVLS is no connection of a ring: the communicator's "NVLS comm" line (src/transport/nvls.cc), see nccl_log.h */
    if (f->nvls) sbf(s, ", with NVLink SHARP (NVLS: the NVSwitch reduces)");
    /* across hosts the network is the only path: no P2P is no news there */
    int across = f->hop_class && nvs_link_class_parse(f->hop_class, NULL) == NVS_CLASS_NET;
    if (!p2p && f->p2p_disabled_by && !across)
        sbf(s, ", because %s", f->p2p_disabled_by);
    else if (!p2p && f->hop_p2p == 0 && !across)
        sbf(s, ", because CUDA reports no peer-to-peer access between these GPUs (as on GeForce cards)");
}

int nvs_explain_hop_unused_by(const char *hop_class, const char *transport)
{
    /* whole words: a substring test took "NET" in "COLLNET" (and in any unknown word holding it) for NET, and an
     * unknown word holding "P2P" for P2P. CollNet goes through the network plugin (src/transport/coll_net.cc),
     * a path around an NVLink hop as NET is (nccl_log_summary.c's nvs_nl_link_kind: a network link) */
    return hop_class && nvs_link_class_is_nvlink(hop_class) && !has_word(transport, "P2P") &&
           (has_word(transport, "SHM") || has_word(transport, "NET") || has_word(transport, "COLLNET"));
}

int nvs_explain_hop_unused(const nvs_explain_facts *f)
{
    return f->has_hop && nvs_explain_hop_unused_by(f->hop_class, f->transport);
}

size_t nvs_explain_text(const nvs_explain_facts *f, char *buf, size_t len)
{
    /* what a rank drives: a GPU, or (MPI host backend) a CPU process */
    const char *U1 = f->host_ranks ? "rank" : "GPU", *UN = f->host_ranks ? "ranks" : "GPUs";
    sb s = {buf, len, 0};
    if (len) buf[0] = '\0';
    char a[32], b[32], c[32];
    /* an interrupted or failed run lists the counts it planned: say what is missing (1 included: no baseline) */
    if (f->not_measured) {
        sbf(&s, "At %d %s nothing was measured: the run did not get to this count or failed at it (see its result).",
            f->n, f->n == 1 ? U1 : UN);
        return s.used;
    }
    if (f->n <= 1) {
        sbf(&s, "At 1 %s nothing crosses a link: this is the baseline the other %s counts are measured against.", U1,
            U1);
        return s.used;
    }
    int hop = f->has_hop && f->hop_class, tr = f->transport[0] != '\0';
    sbf(&s, "At %d %s ", f->n, UN);
    if (f->hosts > 1 && f->per_host > 0 && f->per_host * f->hosts == f->n)
        sbf(&s, "on %d hosts (%d each) ", f->hosts, f->per_host);
    else if (f->hosts > 1)
        sbf(&s, "on %d hosts ", f->hosts);
    else if (f->hosts == 1)
        sbf(&s, "on one host ");
    if (hop) hop_words(&s, f);
    if (tr) transport_words(&s, f);
    if (f->host_ranks && !tr) /* --backend mpi: host memory over MPI; no NCCL, no GPU (not "missing" from the run) */
        sbf(&s, "(the MPI host backend: CPU processes over MPI, no GPUs and no NCCL transport)");
    else if (!hop && !tr)
        sbf(&s, "(neither the topology nor NCCL's transport is in this run)");
    else if (!hop)
        sbf(&s, " (the topology is not in this run)");
    else if (!tr)
        sbf(&s, " (NCCL's transport is not in this run)");
    const char *coll = f->collective ? f->collective : "the collective";
    if (!isnan(f->busbw_gbps)) {
        char size[32] = "";
        if (!isnan(f->busbw_bytes) && f->busbw_bytes >= 0) nvs_format_size((size_t)f->busbw_bytes, size, sizeof size);
        double prev = f->prev_busbw_gbps;
        if (f->prev_n >= 2 && !isnan(prev) && prev > 0) {
            double ratio = f->busbw_gbps / prev;
            /* within 10 %: run-to-run noise of a busbw figure, not a change worth a verb */
            const char *verb = ratio < 0.9 ? "fell" : ratio > 1.1 ? "rose" : NULL;
            /* in a run across hosts, say where the previous count ran: the intra- against the inter-host figure */
            char where[32] = "";
            if (f->prev_hosts == 1) snprintf(where, sizeof where, " on one host");
            else if (f->prev_hosts > 1) snprintf(where, sizeof where, " on %d hosts", f->prev_hosts);
            if (verb)
                sbf(&s, ": %s busbw %s from %s GB/s at %d %s%s to %s GB/s", coll, verb, num(prev, a, sizeof a),
                    f->prev_n, UN, where, num(f->busbw_gbps, b, sizeof b));
            else
                sbf(&s, ": %s busbw held at %s GB/s (%s at %d %s%s)", coll, num(f->busbw_gbps, b, sizeof b),
                    num(prev, a, sizeof a), f->prev_n, UN, where);
        } else {
            sbf(&s, ": %s busbw is %s GB/s", coll, num(f->busbw_gbps, b, sizeof b));
        }
        if (size[0]) sbf(&s, " at %s", size);
        /* a hop NCCL went around bounds nothing it measured: its rate is named as what was left unused, no % */
        if (!isnan(f->bound_gbps) && f->bound_gbps > 0 && nvs_explain_hop_unused(f))
            sbf(&s, ", where the hop NCCL went around is rated %s GB/s", bound_num(f->bound_gbps, a, sizeof a));
        else if (!isnan(f->bound_gbps) && f->bound_gbps > 0 && f->nvls && nvls_reduces(coll))
            /* with NVLS the NVSwitch reduces and multicasts: each GPU sends its data once and receives the result
             * once, where a ring moves 2(N-1)/N of it each way, so busbw can pass the ring's hop bound (NCCL's
             * tuning, src/graph/tuning.cc, gives NVLS its own bandwidth): no % of a bound it does not have */
            sbf(&s, " (NVLS: the ring bound of that hop, %s GB/s, does not bound it)",
                bound_num(f->bound_gbps, a, sizeof a));
        else if (!isnan(f->bound_gbps) && f->bound_gbps > 0)
            sbf(&s, ", %s %% of the %s GB/s bound of that hop", num(100.0 * f->busbw_gbps / f->bound_gbps, c, sizeof c),
                bound_num(f->bound_gbps, a, sizeof a));
    }
    /* rows whose result check failed are no evidence of a bandwidth: named, never quoted */
    if (f->failed_rows > 0)
        sbf(&s, "%s %d %s row%s at %d %s failed the result check (%lld wrong elements): %s not used", isnan(f->busbw_gbps) ? ":" : ";",
            f->failed_rows, coll, f->failed_rows > 1 ? "s" : "", f->n, UN, f->failed_wrong,
            f->failed_rows > 1 ? "their busbw is" : "its busbw is");
    int said = !isnan(f->busbw_gbps) || f->failed_rows > 0;
    if (!isnan(f->exposed_comm_pct)) {
        double e = f->exposed_comm_pct < 0 ? 0 : f->exposed_comm_pct;
        /* below 1 % of the step the overlap is as good as the measurement can tell */
        /* a run of several workloads: the one the figures are of (the one that scales worst here) */
        char of[80] = "";
        if (f->workload) snprintf(of, sizeof of, " of %.60s", f->workload);
        /* no 1-GPU step (--gpus 2,...): the reference's loss beyond compute was charged to the reducer */
        int ref_above_1 = f->train_ref_n > 1;
        if (ref_above_1 && f->n == f->train_ref_n && !isnan(f->train_lost_ms))
            sbf(&s, "%s the training step%s spent %s ms beyond its compute, the framework's reducer and exposed "
                    "communication together: only a 1-%s step tells them apart, and this run has none (--gpus)",
                said ? ", and" : ":", of, num(f->train_lost_ms, a, sizeof a), U1);
        else if (e >= 1)
            sbf(&s, "%s %s %% of the training step%s is communication the backward pass could not hide",
                said ? ", and" : ":", num(e, a, sizeof a), of);
        else
            sbf(&s, "%s the backward pass%s hid almost all communication (%s %% of the step exposed)",
                said ? ", and" : ":", of, num(e, a, sizeof a));
        if (ref_above_1 && f->n > f->train_ref_n)
            sbf(&s, " (beyond what the %d-%s step lost, taken as the reducer's: no 1-%s step in this run)",
                f->train_ref_n, U1, U1);
        if (!isnan(f->predicted_comm_us) && !isnan(f->measured_comm_us) && f->predicted_comm_us > 0)
            sbf(&s, "; the gradient all-reduces took %s ms where the measured all_reduce curve predicts %s ms",
                num(f->measured_comm_us / 1e3, b, sizeof b), num(f->predicted_comm_us / 1e3, c, sizeof c));
        /* as for exposed communication, below 1 % of the step is within the measurement */
        if (f->rank_wait_pct >= 1)
            sbf(&s, "; beyond that, %s %% of the step went to waiting at the all-reduces for a slower rank",
                num(f->rank_wait_pct, a, sizeof a));
        /* the compute's own loss (the verdict's other parts), each once it is 1 % of the step: a step that hid
         * all its communication can still lose half its speed there (2 CPU ranks on 2 cores: 30 -> 50 s) */
        double one = f->step_ms / 100;
        int cont = f->contention_ms >= one, intf = f->interference_ms >= one;
        if (cont || intf) sbf(&s, "; the compute ran ");
        if (cont) /* in ms to 0.1, as the table's columns */
            sbf(&s, "%.1f ms slower than at the reference by sharing the machine (memory, power, host)",
                f->contention_ms);
        if (intf)
            sbf(&s, "%s%.1f ms slower beside the all-reduces (interference: they share its %s and memory)",
                cont ? ", and " : "", f->interference_ms, f->host_ranks ? "cores" : "SMs");
    }
    sbf(&s, ".");
    /* A host-bound step: the host was still issuing it until near its end, so the GPU waited on the host. 90 %:
     * a GPU-bound step is issued well ahead of the GPU (resnet50 at bf16 on an H200: 19 of 48 ms), a host-bound
     * one until the last kernels (lm290m and bert-large-mlm128 at bf16: 97 %; results/fidelity/n1-1gpu-fit2). */
    if (!f->host_ranks && f->issue_pct >= NVS_HOST_BOUND_PCT) {
        sbf(&s, " The host set the step's pace: issuing it (the framework's host work and the kernel launches) took"
                " %s %% of the step",
            num(f->issue_pct, a, sizeof a));
        if (f->issue_top[0]) {
            sbf(&s, ", most of it %s %s ms", issue_words(f->issue_top[0]), num(f->issue_top_ms[0], a, sizeof a));
            if (f->issue_top[1] && f->issue_top_ms[1] > 0)
                sbf(&s, " and %s %s ms", issue_words(f->issue_top[1]), num(f->issue_top_ms[1], b, sizeof b));
        }
        sbf(&s, ", so the GPU waited on the host; a faster CPU, fewer and larger operations (fused kernels, CUDA"
                " graphs) or more work per operation (a larger batch) would shorten the step, faster links would"
                " not.");
        /* nvscale spends the framework's host work as microseconds timed on the CPUs it was fitted on (the H200
         * VMs, workload/framework.c), whatever this CPU is; PyTorch's own issue time for one step moved 0.65x to
         * 1.75x of its median from one such VM to the next (41 folders, results/fidelity/host-spread.md, made by
         * tools/host_spread.py), and neither probe followed it well: so the step's absolute time is that of
         * those CPUs, not this one's */
        if (framework_top(f))
            sbf(&s, " nvscale spends the framework's host work as it took on the CPUs it was fitted on; PyTorch's"
                    " own took 0.65x to 1.75x of its median from one such machine to the next, so a real DDP step"
                    " on this CPU may be that much faster or slower (tools/ddp_bench.py times it).");
    }
    /* framework host work on a host running at different speeds: the step follows the CPU (docs/fidelity.md) */
    if (!f->host_ranks && f->host_rate_p10 > 0 && f->host_rate_p90 >= NVS_HOST_RATE_SPREAD * f->host_rate_p10)
        sbf(&s, " The host's CPU ran at different speeds during the training steps: before them, the framework's"
                " unit of host work ran at %s to %s per us (%.2fx apart); a step bound by such host work (an eager"
                " framework at bf16) follows the CPU, so repeat the run and compare medians.",
            num(f->host_rate_p10, a, sizeof a), num(f->host_rate_p90, b, sizeof b),
            f->host_rate_p90 / f->host_rate_p10);
    return s.used;
}

/* ---- facts from a run ------------------------------------------------------------------------------------- */

/* The topology GPU of each position of the ring at n (n entries), or 0 if the run cannot say. */
static int ring_gpus(const nvs_run *r, int n, int *out)
{
    const nvs_run_scaling *sc = nvs_run_scaling_of(r, n);
    if (sc && sc->gpus && sc->ngpus == (size_t)n) {
        memcpy(out, sc->gpus, (size_t)n * sizeof *out);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        int rank = sc && sc->ranks && sc->nranks == (size_t)n ? sc->ranks[i] : i;
        out[i] = rank;
        for (size_t k = 0; k < r->nranks; k++)
            if (r->ranks[k].rank == rank && r->ranks[k].topo_gpu >= 0) out[i] = r->ranks[k].topo_gpu;
    }
    return 1;
}

/* Hosts spanned by the ranks at GPU count n, by host name (0 when the run does not say); *each: the ranks on each
 * of them where every host has as many, else 0 (3 + 1 ranks on two hosts are not "2 each") */
static int hosts_at(const nvs_run *r, int n, int *each)
{
    if (each) *each = 0;
    const nvs_run_scaling *sc = nvs_run_scaling_of(r, n);
    if (!sc || !sc->ranks || sc->nranks != (size_t)n || n <= 0) return 0;
    /* one pass: each of the n ranks' host, tallied into the distinct hosts seen so far (host[i], count[i]) */
    const char **host = calloc((size_t)n, sizeof *host);
    int *count = calloc((size_t)n, sizeof *count);
    int hosts = 0;
    for (int i = 0; host && count && i < n; i++) {
        const char *h = NULL;
        int id = sc->ranks[i];
        /* ranks are listed in rank order in a run.json: the direct index, else a search */
        if (id >= 0 && (size_t)id < r->nranks && r->ranks[id].rank == id)
            h = r->ranks[id].host;
        else
            for (size_t k = 0; k < r->nranks && !h; k++)
                if (r->ranks[k].rank == id) h = r->ranks[k].host;
        if (!h) {
            hosts = 0;
            break;
        }
        int j = 0;
        while (j < hosts && strcmp(host[j], h)) j++;
        if (j == hosts) host[hosts++] = h;
        count[j]++;
    }
    if (!host || !count) hosts = 0;
    int same = 1;
    for (int j = 1; j < hosts; j++) same = same && count[j] == count[0];
    if (each && same && hosts > 0) *each = count[0];
    free(host);
    free(count);
    return hosts;
}

/* Whether the run's ranks sit on more than one host. */
static int several_hosts(const nvs_run *r)
{
    for (size_t k = 1; k < r->nranks; k++)
        if (r->ranks[k].host && r->ranks[0].host && strcmp(r->ranks[k].host, r->ranks[0].host)) return 1;
    return 0;
}

/* A row that is evidence of a bandwidth: it has a busbw and did not fail its result check (wrong elements: a
 * collective that moved the wrong data may have moved less of it, and fast) */
static int evidence(const nvs_run_coll *c) { return !isnan(c->busbw_gbps) && c->wrong <= 0; }

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* Largest sweep size of `coll` measured at n with a busbw (by size, not bytes: see nvs_run_coll.size), out of
 * place where both are. */
static const nvs_run_coll *largest(const nvs_run *r, const char *coll, int n)
{
    const nvs_run_coll *best = NULL;
    for (size_t i = 0; i < r->ncolls; i++) {
        const nvs_run_coll *c = &r->colls[i];
        if (c->n != n || strcmp(c->collective, coll) || !evidence(c)) continue;
        if (!best || c->size > best->size || (c->size == best->size && best->inplace && !c->inplace)) best = c;
    }
    return best;
}

/* Transport word from a run.json transports entry: summary keys in the order P2P, SHM, NET, others. */
static const char *transport_of(const nvs_run_transport *t, char *buf, size_t len)
{
    static const char *const order[] = {"P2P", "SHM", "NET"};
    size_t used = 0;
    buf[0] = '\0';
    for (int o = 0; o <= 3; o++) {
        for (size_t i = 0; i < t->nsummary; i++) {
            const char *k = t->summary[i].key;
            int known = !strcmp(k, "P2P") || !strcmp(k, "SHM") || !strcmp(k, "NET");
            if (t->summary_counts[i] <= 0) continue;
            if (o < 3 ? strcmp(k, order[o]) : known) continue;
            int w = snprintf(buf + used, len - used, "%s%s", used ? "+" : "", k);
            if (w < 0 || (size_t)w >= len - used) return buf;
            used += (size_t)w;
        }
    }
    return buf;
}

void nvs_explain_set_hop(nvs_explain_facts *f, int from_gpu, int to_gpu, const char *cls, double bound_gbps,
                         const char *bound_source, int p2p)
{
    f->has_hop = 1;
    f->hop_from_gpu = from_gpu;
    f->hop_to_gpu = to_gpu;
    f->hop_class = cls;
    f->bound_gbps = bound_gbps;
    f->bound_source = bound_source;
    f->hop_p2p = p2p;
}

/* 1 when hop p is slower than worst: both bounds known, the lower one (ties: the worse class); else the worse
 * class, so that a network hop of unknown rate is not taken for faster than NVLink */
static int slower_hop(const nvs_run_pair *p, const nvs_run_pair *worst)
{
    if (!worst) return 1;
    int pr = nvs_link_class_rank_of(p->cls), wr = nvs_link_class_rank_of(worst->cls);
    if (isnan(p->bound_gbps) || isnan(worst->bound_gbps)) return pr > wr;
    return p->bound_gbps < worst->bound_gbps || (p->bound_gbps == worst->bound_gbps && pr > wr);
}

/* The slowest hop of the best ring over the GPUs at n, as NCCL builds its rings over the GPUs it has, not in rank
 * order. The run's own "explain" entry at n first: the run found that ring over its live topology with the
 * transport NCCL used (run/out_explain.c), and its Why text, check's min_bound and the report's warnings quote
 * that bound. Else the same search (core/ring.h) over the file's pairs; the ring in rank order (0-1-2-3 where
 * 0-2-1-3 is faster) was the bound of a ring NCCL need not build, and the report's "% of bound" disagreed with
 * the Why paragraph above it. */
static void ring_hop(const nvs_run *r, int n, nvs_explain_facts *f)
{
    const nvs_run_explain *e = nvs_run_explain_of(r, n);
    if (e && e->has_hop) {
        nvs_run_pair_buf pb;
        const nvs_run_pair *p = nvs_run_pair_of(r, e->hop_from_gpu, e->hop_to_gpu, &pb);
        nvs_explain_set_hop(f, e->hop_from_gpu, e->hop_to_gpu, e->hop_class, e->bound_gbps, e->hop_source,
                            p ? p->p2p_cuda : -1);
        return;
    }
    int *ring = malloc((size_t)n * sizeof *ring), *order = malloc((size_t)n * sizeof *order), k = 0;
    if (!ring || !order || !ring_gpus(r, n, ring)) goto out;
    /* the distinct GPUs the topology lists: several ranks on one GPU cross no link between them, and a GPU it does not
     * list has no pair to build a ring through or to name (every hop to it is unknown). The topology bounds the
     * work: a file whose scaling says N = 8576 with two GPUs listed made 8576 "GPUs" of the ranks' numbers, and
     * 73 million pair lookups (41 s; fuzz_runjson) */
    for (int i = 0; i < n; i++) {
        if (!nvs_run_gpu_at(r, ring[i])) continue;
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) seen = ring[j] == ring[i];
        if (!seen) ring[k++] = ring[i];
    }
    if (k < 2) goto out;
    double *w = malloc((size_t)k * (size_t)k * sizeof *w);
    if (!w) goto out;
    /* a pair the file does not list (a partial topology) is below every other: no ring is built through it
     * where another exists, and it is not named as the slowest hop, as the file says nothing of it */
    nvs_run_pair_buf cur, kept;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            const nvs_run_pair *p = i == j ? NULL : nvs_run_pair_of(r, ring[i], ring[j], &cur);
            w[i * k + j] = i == j ? 0 : !p ? -2 : isnan(p->bound_gbps) ? -1 : p->bound_gbps;
        }
    nvs_ring_best_cycle(w, k, order);
    free(w);
    const nvs_run_pair *worst = NULL;
    for (int i = 0; i < k; i++) {
        const nvs_run_pair *p = nvs_run_pair_of(r, ring[order[i]], ring[order[(i + 1) % k]], &cur);
        if (!p || !slower_hop(p, worst)) continue;
        if (p == &cur.pair) { /* a hop between hosts is built in `cur`, which the next hop reuses */
            kept = cur;
            kept.pair.bound_source = kept.source;
            p = &kept.pair;
        }
        worst = p;
    }
    if (worst)
        nvs_explain_set_hop(f, worst->a, worst->b, worst->cls, worst->bound_gbps, worst->bound_source,
                            worst->p2p_cuda);
out:
    free(ring);
    free(order);
}

/* The training result at n of the workload with the lowest efficiency there (the first listed where none has
 * one), and that workload's model name (may be NULL) */
/* the smallest N the workload trained at: its efficiencies' reference */
static int train_ref_n(const nvs_run_train *t)
{
    int ref = 0;
    for (size_t i = 0; i < t->nresults; i++)
        if (t->results[i].n >= 1 && (!ref || t->results[i].n < ref)) ref = t->results[i].n;
    return ref;
}

static const nvs_run_train_result *worst_train_at(const nvs_run *r, int n, const char **model, int *ref_n)
{
    const nvs_run_train_result *worst = NULL;
    for (size_t w = 0; w < nvs_run_workloads(r); w++) {
        const nvs_run_train *t = nvs_run_workload(r, w);
        for (size_t i = 0; i < t->nresults; i++) {
            const nvs_run_train_result *x = &t->results[i];
            if (x->n != n) continue;
            if (!worst || (!isnan(x->efficiency) && (isnan(worst->efficiency) || x->efficiency < worst->efficiency))) {
                worst = x;
                *model = t->model;
                *ref_n = train_ref_n(t);
            }
            break;
        }
    }
    return worst;
}

void nvs_explain_facts_from_run(const nvs_run *r, int n, nvs_explain_facts *f)
{
    nvs_explain_facts_init(f, n);
    f->host_ranks = r->backend && !strcmp(r->backend, "mpi");
    if (n < 1) return;
    int measured = 0;
    for (size_t i = 0; i < r->ncolls && !measured; i++) measured = r->colls[i].n == n;
    for (size_t w = 0; w < nvs_run_workloads(r) && !measured; w++)
        for (size_t i = 0; i < nvs_run_workload(r, w)->nresults && !measured; i++)
            measured = nvs_run_workload(r, w)->results[i].n == n;
    f->not_measured = !measured;
    /* slowest hop: of the GPUs' ring; ranks of the host backend move host memory, whatever GPUs the machine has */
    if (n >= 2 && r->topology.present && !f->host_ranks) ring_hop(r, n, f);
    /* transport */
    const nvs_run_transport *t = nvs_run_transport_of(r, n);
    if (t) {
        transport_of(t, f->transport, sizeof f->transport);
        nvs_nccl_net_name(t->net_detail, f->net, sizeof f->net);
        nvs_nccl_net_name(t->collnet_detail, f->collnet, sizeof f->collnet);
        f->nvls = t->nvls;
    }
    const char *pd = nvs_run_env(r, "NCCL_P2P_DISABLE");
    if (pd && strcmp(pd, "0")) f->p2p_disabled_by = pd[0] == '1' && !pd[1] ? "NCCL_P2P_DISABLE=1" : "NCCL_P2P_DISABLE";
    else if (nvs_run_env(r, "NCCL_P2P_LEVEL")) f->p2p_disabled_by = "NCCL_P2P_LEVEL";
    /* busbw */
    const char *coll = NULL;
    for (size_t i = 0; i < r->ncolls && !coll; i++)
        if (r->colls[i].n == n && !strcmp(r->colls[i].collective, "all_reduce")) coll = "all_reduce";
    for (size_t i = 0; i < r->ncolls && !coll; i++)
        if (r->colls[i].n == n) coll = r->colls[i].collective;
    if (coll) {
        f->collective = coll;
        for (size_t i = 0; i < r->ncolls; i++)
            if (r->colls[i].n == n && !strcmp(r->colls[i].collective, coll) && r->colls[i].wrong > 0) {
                f->failed_rows++;
                f->failed_wrong += r->colls[i].wrong;
            }
        const nvs_run_coll *c = largest(r, coll, n);
        if (c) {
            f->busbw_gbps = c->busbw_gbps;
            f->busbw_bytes = c->bytes;
            /* the previous N >= 2 with the same collective at the same sweep size (its bytes may differ: all_gather's
             * 1 GiB of float is 1073741808 B at N=3 and 1073741824 B at N=2), type, op and placement: the row
             * compared is the one that made that N the choice. Not a lookup after the choice: an in-place row with
             * a busbw chose an N whose out-of-place row had none, and nothing was compared */
            const nvs_run_coll *prev = NULL;
            for (size_t i = 0; i < r->ncolls; i++) {
                const nvs_run_coll *p = &r->colls[i];
                if (p->n < 2 || p->n >= n || p->size != c->size || strcmp(p->collective, coll) ||
                    p->inplace != c->inplace || !same_str(p->type, c->type) || !same_str(p->op, c->op) || !evidence(p))
                    continue;
                if (!prev || p->n > prev->n) prev = p;
            }
            if (prev) {
                f->prev_n = prev->n;
                f->prev_busbw_gbps = prev->busbw_gbps;
            }
        }
    }
    if (several_hosts(r)) {
        f->hosts = hosts_at(r, n, &f->per_host);
        if (f->prev_n) f->prev_hosts = hosts_at(r, f->prev_n, NULL);
    }
    /* training: of the workload that scales worst at n, which the verdict names (the first one's figures were said
     * beside a verdict naming another: results/h200x2-final5 "resnet50 keeps 88.9 %" over bert-large's "0.1 % of
     * the step exposed", where resnet50's was 9.8 %) */
    const char *model = NULL;
    const nvs_run_train_result *tr = worst_train_at(r, n, &model, &f->train_ref_n);
    if (tr && nvs_run_workloads(r) > 1) f->workload = model;
    if (tr && !isnan(tr->step_us) && tr->step_us > 0) {
        if (!isnan(tr->compute_us)) f->train_lost_ms = fmax(0.0, tr->step_us - tr->compute_us) / 1e3;
        double exposed = tr->exposed_comm_us;
        if (isnan(exposed) && !isnan(tr->compute_us)) exposed = tr->step_us - tr->compute_us;
        if (!isnan(exposed)) f->exposed_comm_pct = 100.0 * exposed / tr->step_us;
        f->predicted_comm_us = tr->predicted_comm_us;
        f->measured_comm_us = tr->comm_us;
        if (!isnan(tr->rank_wait_us)) f->rank_wait_pct = 100.0 * tr->rank_wait_us / tr->step_us;
        f->step_ms = tr->step_us / 1e3;
        f->contention_ms = tr->contention_us / 1e3;
        f->interference_ms = tr->interference_us / 1e3;
        f->host_rate_p10 = tr->host_rate_p10;
        f->host_rate_p90 = tr->host_rate_p90;
        if (!isnan(tr->issue_us)) f->issue_pct = 100.0 * tr->issue_us / tr->step_us;
        for (int i = 0; i < tr->nissue_by; i++) { /* the two largest, larger first */
            double ms = tr->issue_by_us[i] / 1e3;
            int at = !f->issue_top[0] || ms > f->issue_top_ms[0] ? 0 : 1;
            if (at == 1 && f->issue_top[1] && ms <= f->issue_top_ms[1]) continue;
            if (at == 0) { /* the first moves down */
                f->issue_top[1] = f->issue_top[0];
                f->issue_top_ms[1] = f->issue_top_ms[0];
            }
            f->issue_top[at] = tr->issue_by_kind[i];
            f->issue_top_ms[at] = ms;
        }
    }
}

json_t *nvs_explain_json(const nvs_explain_facts *f)
{
    size_t need = nvs_explain_text(f, NULL, 0);
    char *text = malloc(need + 1);
    if (!text) return NULL;
    nvs_explain_text(f, text, need + 1);
    json_t *o = json_object();
    int bad = !o;
#define PUT(k, v)                                                                                           \
    do {                                                                                                    \
        json_t *v_ = (v);                                                                                   \
        if (!o || !v_ || json_object_set_new(o, (k), v_) != 0) bad = 1;                                     \
    } while (0)
    PUT("n", json_integer(f->n));
    if (f->has_hop) {
        /* the link the hop's class names; null when the class is not one of nvidia-smi's */
        nvs_link_kind kind = nvs_link_kind_of_class(nvs_link_class_parse(f->hop_class, NULL));
        json_t *h = json_object();
        if (h) {
            if (json_object_set_new(h, "from_gpu", json_integer(f->hop_from_gpu)) ||
                json_object_set_new(h, "to_gpu", json_integer(f->hop_to_gpu)) ||
                json_object_set_new(h, "class", f->hop_class ? json_string(f->hop_class) : json_null()) ||
                json_object_set_new(h, "link", kind != NVS_LINK_NONE ? json_string(nvs_link_kind_name(kind))
                                                                     : json_null()) ||
                json_object_set_new(h, "bound_gbps", nvs_rj_num(f->bound_gbps)) ||
                json_object_set_new(h, "source", f->bound_source ? json_string(f->bound_source) : json_null()))
                bad = 1;
        }
        PUT("slowest_hop", h);
    }
    if (f->hosts > 0) PUT("hosts", json_integer(f->hosts));
    PUT("transport", f->transport[0] ? json_string(f->transport) : json_null());
    PUT("collective", f->collective ? json_string(f->collective) : json_null());
    PUT("busbw_gbps", nvs_rj_num(f->busbw_gbps));
    PUT("busbw_bytes", nvs_rj_bytes(f->busbw_bytes));
    PUT("pct_of_bound", !isnan(f->busbw_gbps) && !isnan(f->bound_gbps) && f->bound_gbps > 0 &&
                            !nvs_explain_hop_unused(f)
                            ? json_real(100.0 * f->busbw_gbps / f->bound_gbps)
                            : json_null());
    PUT("exposed_comm_pct", nvs_rj_num(f->exposed_comm_pct));
    PUT("rank_wait_pct", nvs_rj_num(f->rank_wait_pct));
    if (f->workload) PUT("workload", json_string(f->workload));
    PUT("text", json_string(text));
#undef PUT
    free(text);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
