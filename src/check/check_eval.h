/* The verdicts of `nvscale check` (PURE: rules x run [x baseline] -> rows; no I/O, no JSON, no CUDA/MPI).
 *
 * Every rule expands into the points it demands, and every point gets one verdict row:
 *   busbw   one point per (collective, N, size): collective `*` = every collective the reference measured, at
 *           the N where it measured it; n=* = every N >= 2; n=max = the largest N; size=S demands S;
 *           size>=A / size<=B take the sizes measured in that range (none at all: one failing row).
 *           When several rows share a point (in-place and out-of-place, several types or ops, unless the rule
 *           picks one), the point's value is the WORST of them: acceptance holds for every variant.
 *   p2p     one point per ordered pair (pair=S,D: that pair), uni_gbps or bidir_gbps.
 *   efficiency  one point per N of train.results (n=*: N >= 2).
 * min=X passes when value >= X. below_baseline<=P takes its points from the BASELINE (the baseline says what
 * must be measured) and passes when value >= baseline * (1 - P/100).
 * A point that was demanded but not measured is a FAIL ("not measured"), never a skip: an acceptance test that
 * passes because nothing was measured accepts a machine nobody tested. A measured point with wrong results
 * (validation failed) fails too. The run's own result status is the first row. */
#ifndef NVS_CHECK_EVAL_H
#define NVS_CHECK_EVAL_H

#include <stddef.h>

#include "check/check_run.h"
#include "check/rules.h"

typedef struct {
    char metric[256];   /* "busbw all_reduce 1 GiB n=2", or the rule text when it selected nothing */
    char measured[48];  /* "330.1 GB/s", "not measured" */
    char expected[48];  /* ">= 300.0 GB/s" */
    char margin[48];    /* "+30.1 GB/s (+10.0%)", "-" */
    char note[192];     /* why it failed, or the baseline value it was compared with; "" */
    char rule[300];     /* "rules.txt:3" or "--min-busbw" */
    int pass;
    const char *unit;   /* "GB/s", "fraction", "" */
    double measured_v, expected_v, margin_v; /* NAN when not measured */
} nvs_verdict;

typedef struct {
    nvs_verdict *v;
    size_t n, cap;
    size_t failed;
} nvs_verdicts;

/* Evaluate every rule. `base` may be NULL when no rule has below_baseline. Returns 0, -1 when out of memory. */
int nvs_check_eval(const nvs_ruleset *rules, const nvs_ck_run *run, const nvs_ck_run *base, nvs_verdicts *out);
void nvs_verdicts_free(nvs_verdicts *v);

/* The slowest rank at one N: the rank that was slowest (collectives[].slowest_rank) in the most configurations,
 * ties broken by the larger summed lag; lag = time_us.max - time_us.min of those configurations. */
typedef struct {
    int n;
    int rank;          /* -1 when no row names one */
    int slowest_in;    /* configurations where it was the slowest */
    int configs;       /* configurations at this N naming a slowest rank */
    double lag_pct;    /* mean over all those configurations of (max - min) / min * 100; NAN without times */
    char host[64];
    int device;        /* from ranks[]; -1 unknown */
} nvs_slowest_rank;

/* One entry per N >= 2 that has collective rows; returns the count written (at most cap). */
size_t nvs_check_slowest_ranks(const nvs_ck_run *run, nvs_slowest_rank *out, size_t cap);

/* The slowest p2p pair: lowest uni_gbps. Returns the index into run->pairs, -1 when none was measured. */
int nvs_check_slowest_pair(const nvs_ck_run *run);

#endif
