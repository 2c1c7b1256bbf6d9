/* PRIVATE to src/check/: the pieces that the evaluation of check's rules (check_eval.c) shares with the files it
 * is split into; no other folder includes this header (check_eval.h is the interface).
 *   check_points.c   a rule -> the points it demands of a reference run
 *   check_measure.c  what a run holds at a point
 *   check_rowtext.c  the text of a rule's row
 *   check_runrows.c  the rows every run gets (result status, sanity)
 *   check_slowest.c  the slowest rank, pair and hop */
#ifndef NVS_CHECK_EVAL_PRIV_H
#define NVS_CHECK_EVAL_PRIV_H

#include "check/check_eval.h"

/* A string of the run that may be absent (NULL) as text. */
static inline const char *str(const char *s) { return s ? s : ""; }

/* One thing a rule demands: a (collective, N, size), a GPU pair, or a training N. `empty` = the rule selected
 * nothing at all in the reference run; `why` says what was missing. */
typedef struct {
    char coll[32];
    char model[64]; /* efficiency: the workload (its model); "" when the reference names none */
    int labelled;   /* efficiency: the reference trained several workloads, so the row names this one */
    int n;
    size_t bytes;
    int src, dst;
    int empty;
    char why[160];
} point;

typedef struct {
    point *v;
    size_t n, cap;
} points;

/* What a run holds for a point. */
typedef struct {
    int found;   /* at least one row matches */
    int rows;    /* how many (busbw: in-place/out-of-place, types, ops) */
    int mixed_type; /* the rows differ in type or op */
    char worst[48]; /* the variant the value comes from: "in-place", "out-of-place half max" */
    int null;    /* a matching row has no value */
    int self_ref; /* efficiency: the point is its own reference (--gpus 2 alone): its 100 % is no scaling */
    int ref_n;    /* efficiency: the N it is relative to, step(ref_n) / step(N) (1 in runs without the key) */
    double value;
    long long wrong; /* summed wrong elements of the matching rows (0 when unchecked) */
    int slowest_rank; /* busbw: the slowest rank of the row the value comes from; -1 unknown */
} meas;

/* A busbw row's data type, reduction ("float", "sum"; op "none" where nothing is reduced) and placement (in- or
 * out-of-place: NCCL's in-place all_reduce reads and writes one buffer and can run at another speed): what a
 * baseline's row must be compared with. */
typedef struct {
    const char *type, *op;
    int inplace;
} variant;
#define MAX_VARIANTS 128 /* types x ops x placements of one (collective, N, size): 10 x 5 x 2 = 100 in a sweep of
                          * every one (-d all -o all --inplace both) */

/* check_points.c */
/* The GPU counts a run measured at, ascending (nvs_run_ns: collectives, training, scaling, transports). NULL with
 * *n = 0 when out of memory; the callers then see a run that measured nothing. */
int *nvs_ck_run_ns(const nvs_run *run, size_t *n);
/* Appends the points rule r demands of `ref` (`what` names it in the rows: "the run", "the baseline"); -1 when out
 * of memory. */
int nvs_ck_expand(const nvs_rule *r, const nvs_run *ref, const char *what, points *ps);

/* check_measure.c */
int nvs_ck_row_matches(const nvs_rule *r, const nvs_run_coll *c); /* the rule's type=, op=, inplace= */
const nvs_run_train *nvs_ck_workload_of(const nvs_run *run, const point *p);
int nvs_ck_variant_of(const variant *v, size_t n, const nvs_run_coll *c);
size_t nvs_ck_variants_at(const nvs_rule *r, const nvs_run *run, const point *p, variant *v, size_t cap);
void nvs_ck_variants_text(const variant *v, size_t n, char *buf, size_t len);
meas nvs_ck_measure(const nvs_rule *r, const nvs_run *run, const point *p, const variant *only, size_t nonly);

/* check_rowtext.c */
void nvs_ck_point_label(const nvs_rule *r, const point *p, int vs_baseline, char *buf, size_t len);
void nvs_ck_missing_text(const nvs_rule *r, const point *p, const nvs_run *run, char *buf, size_t len);
void nvs_ck_fill_values(nvs_verdict *v, const nvs_rule *r, double value, double expected);
void nvs_ck_expected_only(nvs_verdict *v, const nvs_rule *r, double expected);
int nvs_ck_unusable(nvs_verdict *v, const meas *m);

/* check_runrows.c */
/* The run's own rows, before any rule's: its result status, then a WARN per number that cannot be right
 * (runjson/sanity.h); -1 when out of memory. */
int nvs_ck_run_rows(const nvs_run *run, nvs_verdicts *vs);

/* check_eval.c */
/* A new row of rule r (NULL: the run's own "run" row), its kind, unit and rule column set; NULL out of memory. */
nvs_verdict *nvs_ck_new_row(nvs_verdicts *vs, const nvs_rule *r);
static inline void finish(nvs_verdicts *vs, nvs_verdict *v, int pass)
{
    nvs_verdict_set(vs, v, pass ? NVS_SEV_PASS : NVS_SEV_FAIL);
}

#endif
