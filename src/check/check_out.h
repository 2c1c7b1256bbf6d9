/* Printing the verdicts of `nvscale check`: an aligned table (default) or JSON (--format json). */
#ifndef NVS_CHECK_OUT_H
#define NVS_CHECK_OUT_H

#include <stdio.h>

#include "check/check_eval.h"
#include "core/err.h"
#include "runjson/runjson.h"

#define NVS_CHECK_SCHEMA "nvscale.check/1"

typedef struct {
    const char *title;           /* first word of the table: "nvscale accept"; NULL = "nvscale check" */
    const nvs_run *run;          /* the run (of several: the first, whose slowest rank and pair are shown) */
    const nvs_run *const *runs;  /* several runs (check's fleet view): every one, for the JSON's "runs"; NULL: run */
    size_t nruns;
    const nvs_run *base;      /* NULL without --baseline */
    const char *rules_desc;      /* "rules.txt (4 rules), --min-p2p" */
    const nvs_verdicts *verdicts;
    const nvs_slowest_rank *slowest;
    size_t nslowest;
    int slowest_pair;            /* index into run->p2p.pairs, -1 none */
    int exit_code;               /* the JSON's "exit_code": the process's, known only once the exports are written
                                  * (a failed --junit is exit 1) and the run's own result is counted (wrong results
                                  * are exit 3 without a FAIL row); the caller sets it before printing */
} nvs_check_report;

/* The verdicts' own exit code: 0 when every verdict passed, else 3. */
int nvs_check_exit_code(const nvs_check_report *rep);
nvs_result_t nvs_check_print_table(FILE *f, const nvs_check_report *rep);
/* TO names f in the message when it cannot be written: a path (accept's verdicts.json), NULL for stdout. */
nvs_result_t nvs_check_print_json(FILE *f, const char *to, const nvs_check_report *rep);

#endif
