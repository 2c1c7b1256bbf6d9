/* Acceptance rules of `nvscale check` (PURE: parsing only, no I/O, no CUDA/MPI). Format: docs/check.md.
 *
 *   nvscale-rules 1                                        # header, first line that is not blank or a comment
 *   busbw all_reduce size=1G n=2 min=300                   # GB/s
 *   busbw * size>=1M n=* below_baseline<=5%                # every collective, every N >= 2, vs --baseline
 *   p2p uni min=350                                        # every ordered GPU pair of the p2p matrix
 *   p2p bidir pair=0,1 min=700
 *   efficiency train n=* min=0.9                           # or min=90%
 *   gpu gemm min_peer=90% min_bound=60%                    # every GPU's self-test (accept --level 2)
 *   gpus per_host min=8                                    # GPUs each host ran on (accept --expect-gpus)
 *
 * One rule per line: METRIC SUBJECT KEY<op>VALUE ...  Every key at most once, every token must parse, at least
 * one threshold (min= or below_baseline<=). Thresholds given as flags (--min-busbw ...) are turned into the same
 * line text and parsed here, so flags and files are validated by one piece of code. */
#ifndef NVS_RULES_H
#define NVS_RULES_H

#include <stddef.h>

#define NVS_RULES_HEADER "nvscale-rules"
#define NVS_RULES_VERSION 1

/* busbw, p2p, efficiency: check_eval.c. health, host, sustain, gpu (issue 12, accept): check_accept.c; gpus:
 * check_gpus.c. */
typedef enum {
    NVS_RULE_BUSBW = 0,
    NVS_RULE_P2P,
    NVS_RULE_EFFICIENCY,
    NVS_RULE_HEALTH,  /* health CHECK|*: the findings of health/health_eval.c for that check, every GPU */
    NVS_RULE_HOST,    /* host h2d|d2h|bidir: pinned host<->device copies (p2p.host_copies) */
    NVS_RULE_SUSTAIN, /* sustain busbw|gemm: the sustained all_reduce's busbw, or each GPU's GEMM burn, from first
                       * to last chunk */
    NVS_RULE_GPU,     /* gpu membw|gemm: each GPU's self-test alone (gpu_selftest.gpus) */
    NVS_RULE_GPUS,    /* gpus per_host: how many GPUs each host's ranks ran on (check_gpus.c) */
    NVS_RULE_METRIC_COUNT
} nvs_rule_metric;

/* gpus per_host min=: at most what one host's topology holds (topo/topo.h, NVS_TOPO_MAX_GPUS_PER_HOST; check may
 * not include topo) */
#define NVS_RULE_GPUS_MAX 256

/* Special values of nvs_rule.n */
enum {
    NVS_RULE_N_ALL = -1, /* n=*   every GPU count >= 2 in the run (at 1 GPU nothing crosses a link) */
    NVS_RULE_N_MAX = -2, /* n=max the largest GPU count in the run (or in the baseline, for below_baseline) */
};

typedef struct {
    nvs_rule_metric metric;
    char source[256]; /* "rules.txt" or "--min-busbw": where the rule came from, for messages */
    int line;         /* line in `source`, 0 for a flag */
    char text[256];   /* the rule as written, comment and surrounding blanks removed */

    /* busbw selectors */
    char coll[32];            /* registry spelling ("all_reduce"); "" = every collective (`*`) */
    size_t size_lo, size_hi;  /* inclusive byte range; size=S gives lo = hi = S */
    int size_exact;           /* size=S: that size must have been measured */
    int n;                    /* GPU count >= 1, NVS_RULE_N_ALL or NVS_RULE_N_MAX (busbw, efficiency) */
    int type;                 /* nvs_dtype, -1 = any */
    int op;                   /* nvs_redop, -1 = any */
    int inplace;              /* 0 out-of-place, 1 in-place, -1 = both */

    /* p2p selectors */
    int bidir;                /* 0 = uni_gbps, 1 = bidir_gbps */
    int src, dst;             /* pair=SRC,DST (topology GPU indices); -1 = every pair */

    /* health / host / sustain selectors */
    int health_check;         /* nvs_health_check, -1 = every check (`health *`) */
    int host_dir;             /* 0 h2d, 1 d2h, 2 bidir */
    int host_mode;            /* NVS_H2D_SINGLE / ALL / REMOTE order: 0 single, 1 all, 2 remote */
    int gpu;                  /* gpu=N (topology index); -1 = every GPU (host and gpu) */
    int gpu_test;             /* gpu: 0 membw (GB/s), 1 gemm (TFLOPS) */
    int sustain_gemm;         /* sustain: 0 busbw (the sustained all_reduce), 1 gemm (each GPU's burn, TFLOPS) */

    /* thresholds (at least one, except for health, whose thresholds are the evaluation's own) */
    int has_min;
    double min; /* GB/s for busbw, p2p, host and gpu membw; TFLOPS for gpu gemm; a fraction in (0, 1] for efficiency;
                 * a whole number of GPUs for gpus */
    int has_below;
    double below_pct; /* at most this many % below the baseline's value, in [0, 100) */
    int has_min_bound;
    double min_bound_pct; /* at least this many % of the bound (ring, pair, PCIe link or datasheet peak), in (0, 100] */
    int has_min_peer;
    double min_peer_pct;  /* gpu: at least this many % of the median of the run's GPUs of the same name, in (0, 100] */
    int has_max_drop;
    double max_drop_pct; /* sustain: the last chunk at most this many % below the first, in [0, 100) */
    int warn_only;        /* severity=warn: a miss is a WARN, not a FAIL */
} nvs_rule;

typedef struct {
    nvs_rule *v;
    size_t n, cap;
} nvs_ruleset;

const char *nvs_rule_metric_name(nvs_rule_metric m);

/* Parse one rule line (no header, may hold a trailing # comment). Returns 0, or -1 with a message in err
 * ("unknown collective 'alreduce'") that names the bad token. `out->source/line` are left to the caller. */
int nvs_rule_parse_line(const char *line, nvs_rule *out, char *err, size_t errlen);

/* Parse a whole rules file's text, appending to rs. Returns 0; -1 with *err_line (1-based, 0 = the file as a
 * whole) and a message in err; -2 when out of memory. Rules get `source` and their line number. */
int nvs_rules_parse_text(const char *text, const char *source, nvs_ruleset *rs, int *err_line, char *err,
                         size_t errlen);

/* Append one rule (copied). 0, or -1 when out of memory. */
int nvs_ruleset_add(nvs_ruleset *rs, const nvs_rule *r);
/* The rule of rs that R would repeat or contradict (two values for one threshold, each evaluated): the same metric,
 * selectors (collective, size, n, type, pair, GPU, ...) and severity, and a threshold of the same kind (min=,
 * below_baseline<=, ...); NULL if none. A warn and a fail threshold of one check stay allowed. The rules files of
 * check and accept (rules_file.h) and check's threshold flags refuse such a rule, naming both. */
const nvs_rule *nvs_ruleset_same_check(const nvs_ruleset *rs, const nvs_rule *r);
/* Where R came from, for messages: "FILE:LINE", or the flag and its value. */
void nvs_rule_where(const nvs_rule *r, char *buf, size_t len);
int nvs_ruleset_needs_baseline(const nvs_ruleset *rs); /* any below_baseline threshold */
void nvs_ruleset_free(nvs_ruleset *rs);

#endif
