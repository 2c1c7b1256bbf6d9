/* The verdicts of `nvscale check` (PURE: rules x run [x baseline] -> rows; no I/O, no CUDA/MPI). The run and the
 * baseline are nvs_run structs from the shared run.json reader (runjson/runjson.h): the tests build them by hand.
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
 * must be measured, for busbw down to the data types, reductions and placements: the run's rows of those alone are
 * compared, each with the baseline's of the same, and a run lacking one is "not comparable") and passes when
 * value >= baseline * (1 - P/100) for each.
 * A point that was demanded but not measured is a FAIL ("not measured"), never a skip: an acceptance test that
 * passes because nothing was measured accepts a machine nobody tested. A measured point with wrong results
 * (validation failed) fails too. The run's own result status is the first row. */
#ifndef NVS_CHECK_EVAL_H
#define NVS_CHECK_EVAL_H

#include <stddef.h>

#include "check/rules.h"
#include "core/err.h"
#include "runjson/runjson.h"
#include "health/health.h"

typedef struct {
    char metric[256];   /* "busbw all_reduce 1 GiB n=2", or the rule text when it selected nothing */
    char measured[48];  /* "330.1 GB/s", "not measured" */
    char expected[48];  /* ">= 300.0 GB/s" */
    char margin[48];    /* "+30.1 GB/s (+10.0%)", "-" */
    char note[384];     /* why it failed, or the baseline value it was compared with; "" */
    char rule[300];     /* "rules.txt:3" or "--min-busbw" */
    int pass;
    const char *unit;   /* "GB/s", "fraction", "" */
    double measured_v, expected_v, margin_v; /* NAN when not measured */
    /* added for accept (verdicts.c): a WARN is a pass that deserves a look; a SKIP is a check that could not be
     * performed (NVML does not report it, no NVML, a built-in rule the machine gives nothing to judge): neither a
     * pass nor a fail (pass = PASS or WARN) */
    int severity;       /* nvs_severity (health/health.h): PASS, WARN, FAIL, SKIP */
    char kind[16];      /* what is checked: "run", "busbw", "p2p", "host", "efficiency", "health", "sustain", "gpu",
                         * "gpus", "fleet" */
    char host[64];      /* who to blame: the host, "" unknown */
    int rank, gpu, src, dst; /* the rank, the GPU, the GPU pair (src -> dst); -1 unknown */
} nvs_verdict;

typedef struct {
    nvs_verdict *v;
    size_t n, cap;
    size_t failed;
    size_t warned;
    size_t skipped;     /* not checked: counted in n, never as passed or failed */
} nvs_verdicts;

/* The collectives a run names must be ones this nvscale knows: the rules name them by the registry's spelling
 * (collectives/coll.h), so an alias in the file ("allreduce") is rewritten to it and an unknown name is an input
 * error, never a silent "not measured". NVS_ERR_INPUT with "collectives[I].collective: unknown collective 'X'" in
 * err. */
nvs_result_t nvs_check_run_names(nvs_run *run, char *err, size_t errlen);
/* A new row with nothing known (NAN values, -1 indices, "-" margin), PASS until nvs_verdict_set says otherwise;
 * NULL when out of memory (verdicts.c). */
nvs_verdict *nvs_verdicts_add(nvs_verdicts *vs, const char *kind);
/* Sets the row's severity and counts it (call once per row). */
void nvs_verdict_set(nvs_verdicts *vs, nvs_verdict *v, int severity);
/* A new row for rule R, its `rule` column saying where R came from (FILE:LINE or the flag); NULL out of memory. */
nvs_verdict *nvs_verdicts_add_rule(nvs_verdicts *vs, const nvs_rule *r, const char *kind);
/* A miss of rule R: FAIL, or WARN under severity=warn (counted as nvs_verdict_set does). */
void nvs_verdict_miss(nvs_verdicts *vs, nvs_verdict *v, const nvs_rule *r);
const char *nvs_verdict_word(const nvs_verdict *v); /* "PASS", "WARN", "FAIL", "SKIP" */

/* Evaluate every rule, appending the rows to `out` (start from nvs_verdicts vs = {0}; several runs go into one
 * list). `base` may be NULL when no rule has below_baseline. Returns 0, -1 when out of memory. */
int nvs_check_eval(const nvs_ruleset *rules, const nvs_run *run, const nvs_run *base, nvs_verdicts *out);
void nvs_verdicts_free(nvs_verdicts *v);
/* The measuring itself found wrong results (it ended with NVS_ERR_WRONG, exit 3) while no row failed (its run.json
 * status said "ok", or had no "run result" row): that row FAILs, "measured wrong", its note naming why, so that every
 * output (table, JSON, JUnit, Prometheus) says FAIL with the exit code 3, never PASS. A row that already fails
 * stays as it is. Returns 0, -1 when out of memory. */
int nvs_check_run_wrong(nvs_verdicts *vs);

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

/* One entry per N >= 2 that has collective rows; returns the count written (at most cap; 0 when out of memory). */
size_t nvs_check_slowest_ranks(const nvs_run *run, nvs_slowest_rank *out, size_t cap);

/* The slowest p2p pair: lowest uni_gbps. Returns the index into run->p2p.pairs, -1 when none was measured. */
int nvs_check_slowest_pair(const nvs_run *run);

/* The ring's slowest hop that the explanation names at the largest N (explain[].slowest_hop with both GPUs
 * known), the next best answer when there is no p2p matrix; NULL when none. */
const nvs_run_explain *nvs_check_slowest_hop(const nvs_run *run);

#endif
