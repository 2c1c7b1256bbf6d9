/* PRIVATE to src/run/: what the training phase's files share; no other folder includes this header (phases.h has
 * the phase).
 *   phase_train.c          the phase: the host work's rate, every round and N of each workload in turn, checkpointed;
 *                          the preflight
 *   phase_train_prepare.c  one workload loaded, planned, given its executor and refused when it does not fit
 *   phase_train_measure.c  one N of one round: the members time the step's variants, every rank gathers them
 *   phase_train_json.c     run.json's "train" section of one workload (rank 0) */
#ifndef NVS_PHASE_TRAIN_PRIV_H
#define NVS_PHASE_TRAIN_PRIV_H

#include <jansson.h>

#include "core/err.h"
#include "run/run.h"
#include "train/rounds.h"
#include "train/train.h"
#include "train/train_exec.h"
#include "workload/profile.h"

/* phase_train_prepare.c: load, plan and size `model` on every rank; NVS_ERR_USAGE (one message, from rank 0) when
 * it does not fit. *have_exec says whether x needs its teardown. */
nvs_result_t nvs_pt_prepare(nvs_ctx *run, const char *model, nvs_profile *prof, nvs_train_plan *plan,
                            nvs_train_exec *x, int *have_exec, double *free_min_out);

/* phase_train_measure.c: point i of run->points in round rd into *out, on every rank; charged[]: a member's count
 * of the framework's host work in one full step, set in the first round */
nvs_result_t nvs_pt_measure_point(nvs_ctx *run, const char *name, nvs_train_exec *x, int i, int rd, int warmup,
                                  double charged[5], nvs_train_point *out);

/* phase_train_json.c: the workload's "train" section from the points measured so far (pts[0..npts), each merged
 * over the rounds; raw[round * npoints + i]); NULL when out of memory */
json_t *nvs_pt_train_json(const nvs_ctx *run, const char *model, const nvs_profile *p, const nvs_train_plan *pl,
                          const nvs_train_exec *x, double free_min, double work_rate, const double charged[5],
                          const nvs_train_point *pts, int npts, const nvs_train_point *raw, int npoints);

#endif
