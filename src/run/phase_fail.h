/* One rank's own failure in a phase that every rank runs together (topology gathering, health checks, self-test,
 * copies, the collective sweep, the training step, sustained load, transport attribution): told to the others at
 * once (runtime.h nvs_rt_tell_failed), so that they stop at their next wait and rank 0 writes run.json "failed",
 * naming the rank, the phase and why (nvs_fail_cause), instead of waiting out --timeout or ending on mpirun's abort.
 * And the test hook NVS_TEST_FAIL=PHASE:RANK that makes a rank fail so (tests/t/faults_phase_fail.sh). */
#ifndef NVS_PHASE_FAIL_H
#define NVS_PHASE_FAIL_H

#include "run/run.h"

typedef enum {
    NVS_PF_NONE = 0,
    NVS_PF_RANKS,      /* gathering every rank's host and GPU */
    NVS_PF_TOPOLOGY,   /* nvs_phase_topology */
    NVS_PF_HEALTH,     /* nvs_phase_health_start / _finish */
    NVS_PF_PREFLIGHT,  /* nvs_phase_train_preflight */
    NVS_PF_SELFTEST,   /* nvs_phase_selftest */
    NVS_PF_COPIES,     /* nvs_phase_copies (p2p, host copies) */
    NVS_PF_SWEEP,      /* run_flow's sweep_phase */
    NVS_PF_TRAIN,      /* nvs_phase_train */
    NVS_PF_SUSTAIN,    /* nvs_phase_sustain */
    NVS_PF_TRANSPORTS, /* nvs_phase_transports */
    NVS_PF_SPLIT,      /* no phase of its own: the test hook's sweep variant, before the communicator split */
    NVS_PF_BACKEND,    /* the backend's set-up (its GPU, stream, world communicator); told, no test hook */
    NVS_PF_COMM,       /* no phase of its own: the hook's sweep variant, failing in the split's agreement */
    NVS_PF_COUNT
} nvs_phase_id;

/* The phase as said to the user ("the collective sweep"). */
const char *nvs_phase_said(nvs_phase_id p);

/* NVS_TEST_FAIL=PHASE:RANK (PHASE: ranks topology health preflight selftest p2p sweep split comm train sustain
 * transports), unset or empty: none (*phase = NVS_PF_NONE). That rank fails with "out of memory" as the phase starts
 * (the sweep: as it starts its last GPU count, after the earlier ones are measured and after that count's
 * communicator split; split: the same, but before the split, which the others are then about to enter:
 * collectives/backend.h nvs_comm_create_agree; comm: the same, but entering that agreement with its failure, as a
 * rank with no memory for the new communicator would), logging a specific error line as a real failure would ("out of
 * memory in the collective sweep (injected by NVS_TEST_FAIL=sweep:1)"), which its notice carries. A bad value: one
 * message naming it, as subcommand SUB's refusal ("nvscale SUB: ..."), NVS_ERR_USAGE. */
nvs_result_t nvs_fail_hook_parse(const char *sub, const char *val, nvs_phase_id *phase, int *rank);

/* Whether the hook makes this rank fail in phase p now; if so, says so on this rank's stderr. */
int nvs_fail_injected(const nvs_ctx *run, nvs_phase_id p);

/* The cause of this rank's failure `res`, as its notice says it: core/log.h nvs_log_cause (the last error line
 * this rank logged, nvs_log_last_error, with the error code's text when it does not say that already). The
 * agreement before a communicator creation says a failure the same way (runtime.h nvs_rt_agree_ok_told). */
char *nvs_fail_cause(nvs_result_t res, char *buf, size_t len);

/* `res`, this rank's result of phase p (`at`: where in it, "" or e.g. " at N=2"), told to the others when it is
 * this rank's own failure: not a wait that timed out, was interrupted or stopped for another rank (told, or found in
 * an agreement), not a usage error (every rank finds it alike). Returns res. */
nvs_result_t nvs_phase_told(nvs_ctx *run, nvs_phase_id p, const char *at, nvs_result_t res);

#endif
