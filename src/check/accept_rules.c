/* Built-in rules of `nvscale accept` (accept_rules.h). The thresholds are fractions of bounds the topology
 * gives (topo/topo_bounds.c), set below what healthy hardware was measured to reach so that a healthy machine
 * passes with a margin and a degraded one (a link down, a slot at x8, a throttling GPU) does not:
 *   p2p      measured 82.5 % (one way) and 81.6 % (both ways) of NV18's 478.1 GB/s on the 2x H200 reference
 *            (results/h200x2-2026-11-30/coll/p2p.txt)                                 -> 75 %
 *   busbw    all_reduce 69.1 % and all_gather 56.5 % of the ring bound at 1 GiB on the same machine, as nccl-tests
 *            measures them there too (coll3/VS-NCCL-TESTS.md): NCCL's protocols do not reach the line rate
 *                                                                                     -> 60 % and 48 %
 *   host     pinned copies, each GPU alone, measured 54.3-55.6 GB/s (h2d) and 54.8-55.4 (d2h) on the H200s'
 *            PCIe gen5 x16 links, 86-88 % of 63.0 GB/s, and 90.1-101.8 GB/s both ways at once, 72-81 % of 126
 *            (29 accept runs: accept*.txt under results/h200x1-* and results/h200x2-final/accept-l2-mpi.txt); on
 *            a one-H100 VM 42.7-55.1 (h2d, 68-87 %), 48.8-55.2 (d2h) and 71.2-95.8 both ways (57-76 %) in 5 runs
 *            of one session (results/h100x1-session49b), where 70 % failed one run of a healthy link. A link
 *            at x8 or one generation down has half the bound, and copies reach about 86 % of a bound: about
 *            43 %, in one direction or both at once -> one direction 60 %, both at once 50 % of twice the
 *            bound, each above a halved link and below the lowest healthy run; all GPUs at once 50 %, as a
 *            WARN: a shared switch or root port is a design choice to know about, not a fault
 *   sustain  the busbw of the last 10 s chunk at most 10 % below the first: more is throttling or a link
 *            retraining under load; each GPU's GEMM burn the same: a healthy H200 held 660.3 -> 659.9 TFLOPS
 *            (0.1 % lower) over 120 s at its 700 W power limit (results/h200x1-burn)
 *   gpu      each GPU alone (gpu_selftest), the higher of two thresholds: 90 % of the median of the run's GPUs of
 *            the same model, which catches the one slow GPU of a node whatever the model, and a floor under the
 *            datasheet peak (check/gpu_specs.c), which catches a node whose GPUs are all slow alike. The floors are
 *            our own margins below what the self-test measured on 1x H200 (results/h200x1-selftest, three rounds
 *            beside PyTorch): the copy 4110-4134 GB/s, 86 % of the 4.8 TB/s datasheet (PyTorch's copy_ the same)
 *            -> 70 %; the bf16 GEMM at n = 8192 784-796 TFLOPS, 79-80 % of the 989.5 dense peak (torch.matmul
 *            794-829) -> 60 %, room for boards that reach less of their peak (H100 SXM: cuBLAS about 70-75 %).
 *            90 % of the peers (the median of the other GPUs of the model) leaves room for the few % that GPUs of
 *            one model differ by (clocks, HBM) while a GPU throttling or with a bad memory stack falls below it
 *   efficiency  a WARN below 80 % at the largest N: the threshold depends on the model and the network more
 *            than on the machine's health.
 *   gpus     at least one GPU on every host (--expect-gpus N: N), at every level: without it a host whose driver
 *            cannot start CUDA ran on the host backend, every GPU rule was left out as not applicable, and the
 *            machine passed; a GPU fallen off the bus left the others to pass every rule. */
#include "check/accept_rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    char *buf;
    size_t len, used;
    int over;
    int rules; /* lines that are rules, not comments */
    nvs_verdicts *skips; /* non-NULL: a SKIP row for each rule left out (nvs_accept_skipped_verdicts) */
    int level, oom;
} out_t;

static void line(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(out_t *o, const char *fmt, ...)
{
    if (o->over) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n + 2 > o->len - o->used) {
        o->over = 1;
        return;
    }
    o->used += (size_t)n;
    o->buf[o->used++] = '\n';
    o->buf[o->used] = '\0';
}

/* the SKIP row of a rule left out: the rule's text without its comment, and why */
static void skip_row(out_t *o, const char *why_not, const char *text)
{
    char kind[16] = "", metric[256];
    sscanf(text, "%15s", kind);
    snprintf(metric, sizeof metric, "%s", text);
    char *hash = strchr(metric, '#');
    if (hash) *hash = '\0';
    for (size_t l = strlen(metric); l && metric[l - 1] == ' '; l--) metric[l - 1] = '\0';
    nvs_verdict *v = nvs_verdicts_add(o->skips, kind);
    if (!v) {
        o->oom = 1;
        return;
    }
    snprintf(v->metric, sizeof v->metric, "%s", metric);
    snprintf(v->measured, sizeof v->measured, "not checked");
    snprintf(v->expected, sizeof v->expected, "-");
    snprintf(v->note, sizeof v->note, "skipped: %s", why_not);
    snprintf(v->rule, sizeof v->rule, "built-in level %d", o->level);
    nvs_verdict_set(o->skips, v, NVS_SEV_SKIP);
}

/* a rule, or the same line commented out as skipped with the reason */
static void rule(out_t *o, int applies, const char *why_not, const char *text)
{
    if (applies) {
        line(o, "%s", text);
        o->rules++;
    } else {
        line(o, "# skipped (%s): %s", why_not, text);
        if (o->skips && !o->oom) skip_row(o, why_not, text);
    }
}

static int rules_text(const nvs_accept_facts *f, char *buf, size_t len, int *rules, nvs_verdicts *skips)
{
    out_t o = {buf, len, 0, 0, 0, skips, f->level, 0};
    if (len) buf[0] = '\0';
    const char *nogpu = "no GPU: the host backend ran";
    line(&o, "# nvscale accept, level %d: built-in rules (docs/accept.md explains each threshold)", f->level);
    line(&o, "nvscale-rules 1");
    line(&o, "# GPUs each host's ranks ran on: a GPU off the bus or a driver CUDA cannot use shows here first");
    char gpus[64];
    snprintf(gpus, sizeof gpus, "gpus per_host min=%d", f->gpus_min > 0 ? f->gpus_min : 1);
    rule(&o, f->gpus_min > 0, "--backend mpi: a host without GPUs asked for", gpus);
    const char *nohealth = f->health_why && *f->health_why ? f->health_why
                           : f->gpu                        ? "NVML could not read the GPUs"
                                                           : "no GPU health to read";
    line(&o, "# health: what dcgmi diag rejects too (ECC, row remaps, XIDs, throttling, downtrained links)");
    static const char *const level1[] = {"ecc", "memory", "xid", "throttle", "temperature", "power",
                                         "pcie", "pcie_replay", "nvlink", "nvlink_errors"};
    for (size_t i = 0; i < sizeof level1 / sizeof level1[0]; i++) {
        char t[64];
        snprintf(t, sizeof t, "health %s", level1[i]);
        rule(&o, f->health, nohealth, t);
    }
    if (f->level >= 2) {
        rule(&o, f->health, nohealth, "health clocks                      # SM clock under load >= 80 % of max");
        line(&o, "# copies between GPUs, against each pair's link bound");
        rule(&o, f->p2p, f->gpu ? "no pair measured" : nogpu, "p2p uni min_bound=75%");
        rule(&o, f->p2p, f->gpu ? "no pair measured" : nogpu, "p2p bidir min_bound=75%");
        line(&o, "# pinned host memory <-> GPU, against the GPU's PCIe link");
        rule(&o, f->host_copies, nogpu, "host h2d mode=single min_bound=60%");
        rule(&o, f->host_copies, nogpu, "host d2h mode=single min_bound=60%");
        rule(&o, f->host_copies, nogpu, "host bidir mode=single min_bound=50%");
        rule(&o, f->host_copies, nogpu, "host h2d mode=all min_bound=50% severity=warn   # a shared uplink");
        rule(&o, f->host_copies, nogpu, "host d2h mode=all min_bound=50% severity=warn");
        line(
            &o,
            "# each GPU alone (as dcgmi diag's memory bandwidth and targeted stress): memory bandwidth and bf16 GEMM,");
        line(&o, "# against the median of the run's GPUs of the same model and under the model's datasheet peak");
        rule(&o, f->selftest, f->gpu ? "no GPU self-test in the run" : nogpu, "gpu membw min_peer=90% min_bound=70%");
        rule(&o, f->selftest, f->gpu ? "no GPU self-test in the run" : nogpu, "gpu gemm min_peer=90% min_bound=60%");
        line(&o, "# collectives at the largest GPU count, against the ring's slowest link");
        rule(&o, f->bounds, f->gpu ? "no ring bound in the run" : nogpu,
             "busbw all_reduce size=1G n=max min_bound=60%");
        rule(&o, f->bounds, f->gpu ? "no ring bound in the run" : nogpu,
             "busbw all_gather size=1G n=max min_bound=48%");
        rule(&o, f->train,
             f->train_one ? "the training step ran at N=1 only: efficiency needs N >= 2, one rank per GPU under mpirun"
                          : "no training step",
             "efficiency train n=max min=80% severity=warn");
    }
    if (f->level >= 3) {
        line(&o, "# minutes of load: the busbw and every GPU's GEMM must hold");
        rule(&o, f->sustain && f->gpu,
             f->gpu ? "no sustained-load phase" : "no GPU: a shared CPU host's bandwidth varies with its other load",
             "sustain busbw max_drop=10%");
        rule(&o, f->burn, f->gpu ? "no GEMM burn in the run" : "no GPU: the host backend ran",
             "sustain gemm max_drop=10%");
    }
    if (rules) *rules = o.rules;
    return o.over || o.oom ? -1 : (int)o.used;
}

int nvs_accept_rules_text(const nvs_accept_facts *f, char *buf, size_t len, int *rules)
{
    return rules_text(f, buf, len, rules, NULL);
}

int nvs_accept_skipped_verdicts(const nvs_accept_facts *f, nvs_verdicts *vs)
{
    char text[4096];
    return rules_text(f, text, sizeof text, NULL, vs) < 0 ? -1 : 0;
}

int nvs_accept_default_rules(const nvs_accept_facts *f, nvs_ruleset *rs, char *err, size_t errlen)
{
    char text[4096], source[64];
    int n;
    if (nvs_accept_rules_text(f, text, sizeof text, &n) < 0) {
        snprintf(err, errlen, "built-in rules longer than their buffer");
        return -1;
    }
    if (!n) return 0; /* nothing applies (--backend mpi, no NVML): only the run's own result is judged */
    snprintf(source, sizeof source, "built-in level %d", f->level);
    int line;
    return nvs_rules_parse_text(text, source, rs, &line, err, errlen);
}
