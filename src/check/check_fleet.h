/* Verdict rows of the fleet view (fleet/fleet.h) for `nvscale check` with several run.json files, and the row
 * that says a baseline comes from a different kind of machine. */
#ifndef NVS_CHECK_FLEET_H
#define NVS_CHECK_FLEET_H

#include "check/check_eval.h"
#include "runjson/runjson.h"

/* One row per run and shared measurement: PASS when the run is within max_below_pct of the fleet's median,
 * FAIL (the outlier, its host named) when further below. Runs of a different kind of machine than most runs
 * are of (the first run's kind on a tie) get a WARN row first. 0, or -1 when out of memory. */
int nvs_check_eval_fleet(const nvs_run *const *runs, size_t nruns, double max_below_pct, nvs_verdicts *out);
/* A WARN row when the baseline's machine differs from the run's (GPU model, count, pair classes, backend, NCCL
 * settings); nothing when they are alike. 0, or -1 when out of memory. */
int nvs_check_eval_machine(const nvs_run *run, const nvs_run *base, nvs_verdicts *out);
/* The name of run i among several, for its rows: its host; where another run has the same host (two runs of one
 * machine), "host (NAME)", NAME its file's name without .json or, for a run.json, its directory's ("vm (default)"),
 * or "host (run K)" (K from 1, in the order given) where that name repeats too. Into buf; returns buf. */
const char *nvs_check_run_label(const nvs_run *const *runs, size_t nruns, size_t i, char *buf, size_t len);

#endif
