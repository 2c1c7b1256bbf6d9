/* Parser of the acceptance rules file (PURE). Grammar and meaning: docs/check.md; types: rules.h.
 * Strict on purpose: an acceptance file that silently ignores a mistyped key checks less than its author thinks. */
#include "check/rules.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "core/dtype.h"
#include "core/units.h"
#include "health/health.h"

#define MAX_TOKENS 32
#define MAX_LINE (NVS_LINE_MAX + 1) /* characters per line (core/units.h) and the NUL */

const char *nvs_rule_metric_name(nvs_rule_metric m)
{
    static const char *const names[] = {"busbw", "p2p", "efficiency", "health", "host", "sustain", "gpu", "gpus"};
    return (unsigned)m < NVS_RULE_METRIC_COUNT ? names[m] : "?";
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Keys, which metrics take them, and which comparison each accepts. */
enum { OP_EQ = 1, OP_GE = 2, OP_LE = 4 };
enum { K_SIZE, K_N, K_TYPE, K_OP, K_INPLACE, K_PAIR, K_MIN, K_BELOW, K_MIN_BOUND, K_SEVERITY, K_MODE, K_GPU,
       K_MAX_DROP, K_MIN_PEER, K_COUNT };
#define M_(m) (1u << (m))
#define M_ALL                                                                                                    \
    (M_(NVS_RULE_BUSBW) | M_(NVS_RULE_P2P) | M_(NVS_RULE_EFFICIENCY) | M_(NVS_RULE_HEALTH) | M_(NVS_RULE_HOST) | \
     M_(NVS_RULE_SUSTAIN) | M_(NVS_RULE_GPU) | M_(NVS_RULE_GPUS))
static const struct {
    const char *name;
    unsigned metrics; /* bit per nvs_rule_metric */
    unsigned ops;
} keys[K_COUNT] = {
    [K_SIZE] = {"size", 1u << NVS_RULE_BUSBW, OP_EQ | OP_GE | OP_LE},
    [K_N] = {"n", 1u << NVS_RULE_BUSBW | 1u << NVS_RULE_EFFICIENCY, OP_EQ},
    [K_TYPE] = {"type", 1u << NVS_RULE_BUSBW, OP_EQ},
    [K_OP] = {"op", 1u << NVS_RULE_BUSBW, OP_EQ},
    [K_INPLACE] = {"inplace", 1u << NVS_RULE_BUSBW, OP_EQ},
    [K_PAIR] = {"pair", 1u << NVS_RULE_P2P, OP_EQ},
    [K_MIN] = {"min",
               M_(NVS_RULE_BUSBW) | M_(NVS_RULE_P2P) | M_(NVS_RULE_EFFICIENCY) | M_(NVS_RULE_HOST) |
                   M_(NVS_RULE_SUSTAIN) | M_(NVS_RULE_GPU) | M_(NVS_RULE_GPUS),
               OP_EQ},
    [K_BELOW] = {"below_baseline", 1u << NVS_RULE_BUSBW | 1u << NVS_RULE_P2P | 1u << NVS_RULE_EFFICIENCY, OP_LE},
    [K_MIN_BOUND] = {"min_bound", M_(NVS_RULE_BUSBW) | M_(NVS_RULE_P2P) | M_(NVS_RULE_HOST) | M_(NVS_RULE_GPU), OP_EQ},
    [K_SEVERITY] = {"severity", M_ALL, OP_EQ},
    [K_MODE] = {"mode", M_(NVS_RULE_HOST), OP_EQ},
    [K_GPU] = {"gpu", M_(NVS_RULE_HOST) | M_(NVS_RULE_GPU) | M_(NVS_RULE_SUSTAIN), OP_EQ},
    [K_MAX_DROP] = {"max_drop", M_(NVS_RULE_SUSTAIN), OP_EQ},
    [K_MIN_PEER] = {"min_peer", M_(NVS_RULE_GPU), OP_EQ},
};

/* The unit of min= for a metric other than efficiency (a fraction): gpu gemm and sustain gemm are TFLOPS, the
 * rest GB/s. */
static const char *min_unit(const nvs_rule *r)
{
    return (r->metric == NVS_RULE_GPU && r->gpu_test == 1) || (r->metric == NVS_RULE_SUSTAIN && r->sustain_gemm)
               ? "TFLOPS"
               : "GB/s";
}

/* "ecc, memory, ..." */
static const char *health_list(void)
{
    static char buf[256];
    if (!buf[0])
        for (int c = 0; c < NVS_HC_COUNT; c++)
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", c ? ", " : "",
                     nvs_health_check_name((nvs_health_check)c));
    return buf;
}

static const char *op_text(unsigned op) { return op == OP_EQ ? "=" : op == OP_GE ? ">=" : "<="; }

static void keys_of(nvs_rule_metric m, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; k < K_COUNT; k++)
        if (keys[k].metrics & (1u << m))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", keys[k].name);
}

static void ops_of(unsigned ops, char *buf, size_t len)
{
    buf[0] = '\0';
    for (unsigned o = OP_EQ; o <= OP_LE; o <<= 1)
        if (ops & o) snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " or " : "", op_text(o));
}

/* min_bound= and min_peer= are percents; a bare value below 1 is most likely a fraction (0.8 for 80 %), which
 * read as a percent would be a threshold 100 times laxer than meant, passing nearly anything. Refused unless the
 * % is written: "0.8%" says the author means 0.8 %. Values >= 1 are read as percents as before. */
static int pct_fraction_like(const char *key, const char *v, double x, char *err, size_t errlen)
{
    size_t l = strlen(v);
    if (l && v[l - 1] == '%') return 0;
    if (x > 0 && x < 1)
        return fail(err, errlen, "%s: %s is read as %s %%; write %g or %g%% for %g %% (%s%% if %s %% is meant)", key,
                    v, v, x * 100, x * 100, x * 100, v, v);
    return 0;
}

static int parse_n(const char *v, int *n, char *err, size_t errlen)
{
    long x;
    if (!strcmp(v, "*")) *n = NVS_RULE_N_ALL;
    else if (!strcmp(v, "max")) *n = NVS_RULE_N_MAX;
    else if (nvs_parse_long(v, &x) == 0 && x >= 1 && x <= 1 << 20) *n = (int)x;
    else return fail(err, errlen, "n: '%s' is not a GPU count (a number >= 1, * for every count from 2, or max)", v);
    return 0;
}

static int parse_pair(const char *v, int *src, int *dst, char *err, size_t errlen)
{
    char a[32], b[32];
    const char *comma = strchr(v, ',');
    long x, y;
    if (!comma || (size_t)(comma - v) >= sizeof a || strlen(comma + 1) >= sizeof b) goto bad;
    memcpy(a, v, (size_t)(comma - v));
    a[comma - v] = '\0';
    snprintf(b, sizeof b, "%s", comma + 1);
    if (nvs_parse_long(a, &x) || nvs_parse_long(b, &y) || x < 0 || y < 0 || x > 1 << 20 || y > 1 << 20) goto bad;
    if (x == y) return fail(err, errlen, "pair: '%s' names one GPU twice (a pair is SRC,DST with SRC != DST)", v);
    *src = (int)x;
    *dst = (int)y;
    return 0;
bad:
    return fail(err, errlen, "pair: '%s' is not SRC,DST (two GPU indices, e.g. pair=0,1)", v);
}

/* One KEY<op>VALUE token. seen[] catches duplicates ("size=" and "size>=" are the same key only when the
 * comparison is the same). */
static int parse_cond(const char *tok, nvs_rule *r, unsigned seen[K_COUNT], char *err, size_t errlen)
{
    char key[64];
    const char *p = tok;
    while (*p && *p != '=' && *p != '<' && *p != '>') p++;
    size_t klen = (size_t)(p - tok);
    unsigned op;
    if (!*p || klen == 0) return fail(err, errlen, "unexpected '%s' (expected KEY=VALUE)", tok);
    if (p[0] == '=') op = OP_EQ, p += 1;
    else if (p[0] == '>' && p[1] == '=') op = OP_GE, p += 2;
    else if (p[0] == '<' && p[1] == '=') op = OP_LE, p += 2;
    else return fail(err, errlen, "'%s': the comparison must be =, >= or <=", tok);
    if (klen >= sizeof key) return fail(err, errlen, "unexpected '%s' (expected KEY=VALUE)", tok);
    memcpy(key, tok, klen);
    key[klen] = '\0';
    const char *v = p;

    int k;
    for (k = 0; k < K_COUNT; k++)
        if (!strcmp(key, keys[k].name)) break;
    if (k == K_COUNT || !(keys[k].metrics & (1u << r->metric))) {
        char list[160];
        keys_of(r->metric, list, sizeof list);
        return fail(err, errlen, "unknown key '%s' for %s (expected %s)", key, nvs_rule_metric_name(r->metric), list);
    }
    if (!(keys[k].ops & op)) {
        char list[32];
        ops_of(keys[k].ops, list, sizeof list);
        return fail(err, errlen, "'%s': %s takes %s, not %s", tok, key, list, op_text(op));
    }
    if (seen[k] & op) return fail(err, errlen, "duplicate key '%s%s'", key, op_text(op));
    if (k == K_SIZE && (seen[k] & OP_EQ || (op == OP_EQ && seen[k])))
        return fail(err, errlen, "'%s': size= cannot be combined with size>= or size<=", tok);
    seen[k] |= op;
    if (!*v) return fail(err, errlen, "'%s': %s has no value", tok, key);

    switch (k) {
    case K_SIZE: {
        size_t s;
        char why[192];
        /* read as the command line's -b is (core/units.h nvs_parse_size_whole): size=1.5M is the 1572864 bytes that
         * `-b 1.5M` sweeps, and size=1.3K, no whole number of bytes, says so */
        if (nvs_parse_size_whole(v, &s, why, sizeof why))
            return why[0] ? fail(err, errlen, "size: '%s': %s", v, why)
                          : fail(err, errlen, "size: '%s' is not a size (e.g. 8, 64K, 1M, 1G)", v);
        if (!s) return fail(err, errlen, "size: 0 bytes: collectives run at 1 byte or more (nvscale -b)");
        if (op == OP_EQ) r->size_lo = r->size_hi = s, r->size_exact = 1;
        else if (op == OP_GE) r->size_lo = s;
        else r->size_hi = s;
        if (r->size_lo > r->size_hi) return fail(err, errlen, "size: the range [size>=, size<=] is empty");
        break;
    }
    case K_N:
        if (parse_n(v, &r->n, err, errlen)) return -1;
        break;
    case K_TYPE:
        if ((r->type = nvs_dtype_parse(v)) < 0)
            return fail(err, errlen,
                        "type: unknown data type '%s' (int8, uint8, int32, uint32, int64, uint64, half, float, "
                        "double, bfloat16)",
                        v);
        break;
    case K_OP:
        if ((r->op = nvs_redop_parse(v)) < 0)
            return fail(err, errlen, "op: unknown reduction '%s' (sum, prod, max, min, avg)", v);
        break;
    case K_INPLACE:
        if (!strcmp(v, "0")) r->inplace = 0;
        else if (!strcmp(v, "1")) r->inplace = 1;
        else return fail(err, errlen, "inplace: '%s' is not 0 (out-of-place) or 1 (in-place)", v);
        break;
    case K_PAIR:
        if (parse_pair(v, &r->src, &r->dst, err, errlen)) return -1;
        break;
    case K_MIN: {
        double x;
        size_t l = strlen(v);
        int pct = l && v[l - 1] == '%';
        if (r->metric == NVS_RULE_GPUS) {
            long c;
            if (nvs_parse_long(v, &c) || c < 1 || c > NVS_RULE_GPUS_MAX)
                return fail(err, errlen, "min: '%s' is not a GPU count (a whole number from 1 to %d)", v,
                            NVS_RULE_GPUS_MAX);
            x = (double)c;
        } else if (r->metric == NVS_RULE_EFFICIENCY) {
            if (pct) {
                if (nvs_parse_percent(v, &x)) return fail(err, errlen, "min: '%s' is not a number", v);
                if (!(x > 0 && x <= 100)) return fail(err, errlen, "min: %s out of range (0%%, 100%%]", v);
                x /= 100;
            } else {
                if (nvs_parse_double(v, &x)) return fail(err, errlen, "min: '%s' is not a number", v);
                if (!(x > 0 && x <= 1))
                    return fail(err, errlen, "min: efficiency %s out of range (0, 1] (or give a percent: 90%%)", v);
            }
        } else {
            if (pct) return fail(err, errlen, "min: '%s': %s min is in %s, not a percent%s", v,
                                 nvs_rule_metric_name(r->metric), min_unit(r),
                                 r->metric == NVS_RULE_GPU ? " (min_bound= or min_peer= take one)" : "");
            if (nvs_parse_double(v, &x)) return fail(err, errlen, "min: '%s' is not a number (%s)", v, min_unit(r));
            if (!(x > 0 && x < 1e6)) return fail(err, errlen, "min: %s %s out of range (0, 1e6)", v, min_unit(r));
        }
        r->has_min = 1;
        r->min = x;
        break;
    }
    case K_MIN_BOUND: {
        double x;
        if (nvs_parse_percent(v, &x))
            return fail(err, errlen, "min_bound: '%s' is not a percent of the bound (e.g. 80%%)", v);
        if (!(x > 0 && x <= 100)) return fail(err, errlen, "min_bound: %s out of range (0%%, 100%%]", v);
        if (pct_fraction_like("min_bound", v, x, err, errlen)) return -1;
        r->has_min_bound = 1;
        r->min_bound_pct = x;
        break;
    }
    case K_MIN_PEER: {
        double x;
        if (nvs_parse_percent(v, &x))
            return fail(err, errlen, "min_peer: '%s' is not a percent of the peers' median (e.g. 90%%)", v);
        if (!(x > 0 && x <= 100)) return fail(err, errlen, "min_peer: %s out of range (0%%, 100%%]", v);
        if (pct_fraction_like("min_peer", v, x, err, errlen)) return -1;
        r->has_min_peer = 1;
        r->min_peer_pct = x;
        break;
    }
    case K_MAX_DROP: {
        double x;
        if (nvs_parse_percent(v, &x)) return fail(err, errlen, "max_drop: '%s' is not a percent (e.g. 10%%)", v);
        if (!(x >= 0 && x < 100)) return fail(err, errlen, "max_drop: %s out of range [0%%, 100%%)", v);
        r->has_max_drop = 1;
        r->max_drop_pct = x;
        break;
    }
    case K_SEVERITY:
        if (!strcmp(v, "warn")) r->warn_only = 1;
        else if (!strcmp(v, "fail")) r->warn_only = 0;
        else return fail(err, errlen, "severity: '%s' is not warn or fail (what a miss of this rule is)", v);
        break;
    case K_MODE:
        if (!strcmp(v, "single")) r->host_mode = 0;
        else if (!strcmp(v, "all")) r->host_mode = 1;
        else if (!strcmp(v, "remote")) r->host_mode = 2;
        else return fail(err, errlen, "mode: '%s' is not single, all or remote", v);
        break;
    case K_GPU: {
        long x;
        if (nvs_parse_long(v, &x) || x < 0 || x > 1 << 20)
            return fail(err, errlen, "gpu: '%s' is not a GPU index (0, 1, ...)", v);
        r->gpu = (int)x;
        break;
    }
    case K_BELOW: {
        double x;
        if (nvs_parse_percent(v, &x)) return fail(err, errlen, "below_baseline: '%s' is not a percent (e.g. 5%%)", v);
        if (!(x >= 0 && x < 100)) return fail(err, errlen, "below_baseline: %s out of range [0%%, 100%%)", v);
        r->has_below = 1;
        r->below_pct = x;
        break;
    }
    }
    return 0;
}

int nvs_rule_parse_line(const char *line, nvs_rule *r, char *err, size_t errlen)
{
    char buf[MAX_LINE];
    char *tok[MAX_TOKENS];
    int ntok = 0;

    memset(r, 0, sizeof *r);
    r->size_lo = 0;
    r->size_hi = SIZE_MAX;
    r->n = 0; /* 0 = not given */
    r->type = r->op = r->inplace = -1;
    r->src = r->dst = -1;
    r->health_check = -1;
    r->gpu = -1;

    if (strlen(line) >= sizeof buf) return fail(err, errlen, "line longer than %d characters", MAX_LINE - 1);
    snprintf(buf, sizeof buf, "%s", line);
    char *hash = strchr(buf, '#');
    if (hash) *hash = '\0';
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t' && *p != '\r' && *p != '\n')
            return fail(err, errlen, "control character 0x%02x in the line", (unsigned)(unsigned char)*p);
    for (char *save = NULL, *t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (ntok == MAX_TOKENS) return fail(err, errlen, "more than %d words in the line", MAX_TOKENS);
        tok[ntok++] = t;
    }
    if (ntok == 0) return fail(err, errlen, "empty rule");
    /* the rule as written, single-spaced, for verdict tables and messages */
    for (int i = 0; i < ntok; i++)
        snprintf(r->text + strlen(r->text), sizeof r->text - strlen(r->text), "%s%s", i ? " " : "", tok[i]);

    int m;
    for (m = 0; m < NVS_RULE_METRIC_COUNT; m++)
        if (!strcmp(tok[0], nvs_rule_metric_name((nvs_rule_metric)m))) break;
    if (m == NVS_RULE_METRIC_COUNT)
        return fail(err, errlen,
                    "unknown metric '%s' (expected busbw, p2p, efficiency, health, host, sustain, gpu or gpus)",
                    tok[0]);
    r->metric = (nvs_rule_metric)m;

    /* the subject */
    const char *subj = ntok > 1 ? tok[1] : NULL;
    if (subj && strpbrk(subj, "=<>")) subj = NULL;
    switch (r->metric) {
    case NVS_RULE_BUSBW:
        if (!subj) return fail(err, errlen, "busbw needs a collective after it (all_reduce, broadcast, ... or *)");
        if (strcmp(subj, "*")) {
            const nvs_coll *c = nvs_coll_find(subj);
            if (!c)
                return fail(err, errlen, "unknown collective '%s' (all_reduce, broadcast, reduce, all_gather, "
                                         "reduce_scatter, alltoall, sendrecv or *)", subj);
            snprintf(r->coll, sizeof r->coll, "%s", c->name);
        }
        break;
    case NVS_RULE_P2P:
        if (!subj) return fail(err, errlen, "p2p needs uni or bidir after it");
        if (!strcmp(subj, "uni")) r->bidir = 0;
        else if (!strcmp(subj, "bidir")) r->bidir = 1;
        else return fail(err, errlen, "p2p: unknown direction '%s' (uni or bidir)", subj);
        break;
    case NVS_RULE_EFFICIENCY:
        if (!subj || strcmp(subj, "train"))
            return fail(err, errlen, "efficiency needs 'train' after it (the training step's scaling efficiency)");
        break;
    case NVS_RULE_HEALTH:
        if (!subj) return fail(err, errlen, "health needs a check after it (%s, or *)", health_list());
        if (strcmp(subj, "*") && (r->health_check = nvs_health_check_parse(subj)) < 0)
            return fail(err, errlen, "health: unknown check '%s' (%s, or *)", subj, health_list());
        break;
    case NVS_RULE_HOST:
        if (!subj) return fail(err, errlen, "host needs h2d, d2h or bidir after it");
        if (!strcmp(subj, "h2d")) r->host_dir = 0;
        else if (!strcmp(subj, "d2h")) r->host_dir = 1;
        else if (!strcmp(subj, "bidir")) r->host_dir = 2;
        else return fail(err, errlen, "host: unknown direction '%s' (h2d, d2h or bidir)", subj);
        break;
    case NVS_RULE_SUSTAIN:
        if (subj && !strcmp(subj, "gemm")) r->sustain_gemm = 1;
        else if (!subj || strcmp(subj, "busbw"))
            return fail(err, errlen, "sustain needs 'busbw' (the sustained all_reduce's bus bandwidth) or 'gemm' (each "
                                     "GPU's GEMM burn) after it");
        break;
    case NVS_RULE_GPU:
        if (!subj) return fail(err, errlen, "gpu needs membw or gemm after it (the per-GPU self-test)");
        if (!strcmp(subj, "membw")) r->gpu_test = 0;
        else if (!strcmp(subj, "gemm")) r->gpu_test = 1;
        else return fail(err, errlen, "gpu: unknown test '%s' (membw or gemm)", subj);
        break;
    case NVS_RULE_GPUS:
        if (!subj || strcmp(subj, "per_host"))
            return fail(err, errlen, "gpus needs 'per_host' after it (how many GPUs each host's ranks ran on)");
        break;
    default: break;
    }

    unsigned seen[K_COUNT] = {0};
    for (int i = 2; i < ntok; i++)
        if (parse_cond(tok[i], r, seen, err, errlen)) return -1;

    if ((r->metric == NVS_RULE_BUSBW || r->metric == NVS_RULE_EFFICIENCY) && r->n == 0)
        return fail(err, errlen, "missing n= (a GPU count, * for every count from 2, or max)");
    /* on one GPU nothing crosses a link: a run records no bus bandwidth there (null), so the rule could never
     * pass (an efficiency rule at n=1 stays allowed: 100 % by definition, it checks that the point exists) */
    if (r->metric == NVS_RULE_BUSBW && r->n == 1)
        return fail(err, errlen, "n=1: one GPU has no bus bandwidth (nothing crosses a link); give n >= 2, * or max");
    if (r->metric == NVS_RULE_SUSTAIN && !r->has_min && !r->has_max_drop)
        return fail(err, errlen, "missing threshold: give min=... (%s) or max_drop=...%%", min_unit(r));
    if (r->metric == NVS_RULE_SUSTAIN && !r->sustain_gemm && r->gpu >= 0)
        return fail(err, errlen, "gpu=%d: sustain busbw is one number for all ranks (gpu= is for sustain gemm)",
                    r->gpu);
    if (r->metric == NVS_RULE_GPUS && !r->has_min)
        return fail(err, errlen, "missing threshold: give min=... (GPUs per host)");
    if (r->metric == NVS_RULE_GPU && !r->has_min && !r->has_min_bound && !r->has_min_peer)
        return fail(err, errlen, "missing threshold: give min=... (%s), min_bound=...%% or min_peer=...%%",
                    min_unit(r));
    if (r->metric != NVS_RULE_HEALTH && r->metric != NVS_RULE_SUSTAIN && r->metric != NVS_RULE_GPU &&
        r->metric != NVS_RULE_GPUS && !r->has_min && !r->has_below && !r->has_min_bound)
        return fail(err, errlen, "missing threshold: give min=..., min_bound=...%% or below_baseline<=...%%");
    return 0;
}

int nvs_ruleset_add(nvs_ruleset *rs, const nvs_rule *r)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 16;
        nvs_rule *v = realloc(rs->v, cap * sizeof *v);
        if (!v) return -1;
        rs->v = v;
        rs->cap = cap;
    }
    rs->v[rs->n++] = *r;
    return 0;
}

/* The same check: metric, every selector and the severity alike, and a threshold of the same kind in both. A
 * health rule's thresholds are the evaluation's own: a warn and a fail rule of one health check would judge the
 * same finding twice (a FAIL and a WARN row of one fact), so the severity does not tell two of them apart. */
static int same_check(const nvs_rule *a, const nvs_rule *b)
{
    if (a->metric == NVS_RULE_HEALTH && b->metric == NVS_RULE_HEALTH) return a->health_check == b->health_check;
    if (a->metric != b->metric || strcmp(a->coll, b->coll) || a->size_lo != b->size_lo || a->size_hi != b->size_hi ||
        a->size_exact != b->size_exact || a->n != b->n || a->type != b->type || a->op != b->op ||
        a->inplace != b->inplace || a->bidir != b->bidir || a->src != b->src || a->dst != b->dst ||
        a->health_check != b->health_check || a->host_dir != b->host_dir || a->host_mode != b->host_mode ||
        a->gpu != b->gpu || a->gpu_test != b->gpu_test || a->sustain_gemm != b->sustain_gemm ||
        a->warn_only != b->warn_only)
        return 0;
    return a->metric == NVS_RULE_HEALTH || (a->has_min && b->has_min) || (a->has_below && b->has_below) ||
           (a->has_min_bound && b->has_min_bound) || (a->has_min_peer && b->has_min_peer) ||
           (a->has_max_drop && b->has_max_drop);
}

const nvs_rule *nvs_ruleset_same_check(const nvs_ruleset *rs, const nvs_rule *r)
{
    for (size_t i = 0; i < rs->n; i++)
        if (same_check(&rs->v[i], r)) return &rs->v[i];
    return NULL;
}

void nvs_rule_where(const nvs_rule *r, char *buf, size_t len)
{
    if (r->line) snprintf(buf, len, "%s:%d", r->source, r->line);
    else snprintf(buf, len, "%s", r->source);
}

int nvs_ruleset_needs_baseline(const nvs_ruleset *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->v[i].has_below) return 1;
    return 0;
}

void nvs_ruleset_free(nvs_ruleset *rs)
{
    free(rs->v);
    memset(rs, 0, sizeof *rs);
}

/* Is the line blank once its comment is removed? */
static int is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len && s[i] != '#'; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
    return 1;
}

static int parse_header(const char *line, char *err, size_t errlen)
{
    char word[32] = "", ver[32] = "", junk[8] = "";
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", line);
    char *hash = strchr(buf, '#');
    if (hash) *hash = '\0';
    int got = sscanf(buf, "%31s %31s %7s", word, ver, junk);
    if (got < 1 || strcmp(word, NVS_RULES_HEADER))
        return fail(err, errlen, "expected the header '%s %d' before any rule", NVS_RULES_HEADER, NVS_RULES_VERSION);
    if (got < 2) return fail(err, errlen, "the header needs a version: '%s %d'", NVS_RULES_HEADER, NVS_RULES_VERSION);
    if (got > 2) return fail(err, errlen, "unexpected '%s' after the header's version", junk);
    long v;
    if (nvs_parse_long(ver, &v)) return fail(err, errlen, "header: version '%s' is not a number", ver);
    if (v != NVS_RULES_VERSION)
        return fail(err, errlen, "unsupported rules version %ld (this nvscale reads version %d)", v, NVS_RULES_VERSION);
    return 0;
}

int nvs_rules_parse_text(const char *text, const char *source, nvs_ruleset *rs, int *err_line, char *err,
                         size_t errlen)
{
    int lineno = 0, header_line = 0;
    size_t added = 0;
    *err_line = 0;
    /* a UTF-8 byte-order mark, which Windows editors (Notepad, "UTF-8 with BOM") put before the first line: not
     * text of the file (Unicode 15.0, section 23.8: U+FEFF at the start is a signature) */
    if (!strncmp(text, "\xEF\xBB\xBF", 3)) text += 3;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        lineno++;
        char line[MAX_LINE];
        if (len >= sizeof line) {
            *err_line = lineno;
            return fail(err, errlen, "line longer than %d characters", MAX_LINE - 1);
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p = eol ? eol + 1 : p + len;
        if (is_blank(line, len)) continue;
        if (!header_line) {
            if (parse_header(line, err, errlen)) {
                *err_line = lineno;
                return -1;
            }
            header_line = lineno;
            continue;
        }
        nvs_rule r;
        if (nvs_rule_parse_line(line, &r, err, errlen)) {
            *err_line = lineno;
            return -1;
        }
        snprintf(r.source, sizeof r.source, "%s", source);
        r.line = lineno;
        if (nvs_ruleset_add(rs, &r)) return -2;
        added++;
    }
    if (!header_line) {
        *err_line = lineno ? 1 : 0;
        return fail(err, errlen, "empty: expected the header '%s %d' and at least one rule", NVS_RULES_HEADER,
                    NVS_RULES_VERSION);
    }
    if (!added) {
        *err_line = header_line;
        return fail(err, errlen, "no rules after the header (an acceptance test must check something)");
    }
    return 0;
}
