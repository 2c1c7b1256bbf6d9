/* Rank 0's last word on a signal (issue 14). mpirun answers Ctrl-C or SIGTERM with SIGTERM to every rank and
 * SIGKILL about a second later (Open MPI's odls_base_sigkill_timeout, 1 s by default; Slurm's KillWait is 30 s).
 * A rank inside a GPU training step may need longer than that to reach its final write (aborting NCCL
 * communicators whose peer is gone, cuBLAS launches queued behind a stalled all-reduce): the run.json kept was
 * then the last checkpoint, still saying "running". A thread of rank 0 watches for the signal and, at once, marks
 * that checkpoint "interrupted" with the reason; the final write replaces it when the rank gets there.
 *
 * The checkpoint writers (the main thread) and the thread take one lock, so neither writes over the other. */
#ifndef NVS_RUN_RESCUE_H
#define NVS_RUN_RESCUE_H

#include <stddef.h>

#include "core/err.h"

typedef struct nvs_rescue nvs_rescue;

/* Starts the watch over DIR/run.json (rank 0 of a saving run). NULL on failure (said on stderr): the run goes on
 * without it, as before. */
nvs_rescue *nvs_rescue_start(const char *dir);
/* Around every write of DIR/run.json by the run (NULL: no-ops). */
void nvs_rescue_lock(nvs_rescue *r);
void nvs_rescue_unlock(nvs_rescue *r);
/* Ends the watch before the final write (and the directory's rename); returns whether it marked the checkpoint. */
int nvs_rescue_stop(nvs_rescue *r);

/* The reason run.json gives for an interruption by signal `sig` (0: none reached this rank; another rank's came
 * through an agreement). */
void nvs_interrupt_reason(int sig, char *buf, size_t len);

/* The run's result once a signal `sig` (0: none) has come: NVS_ERR_INTERRUPTED, whatever error the signal caused on
 * the way (a wait cut short, a peer's aborted NCCL communicator), except a timeout of this rank's own (`res`,
 * before any agreement): every wait looks at the signal before its clock, so a timeout came first, and the signal
 * is the launcher stopping the job because of that stall (another rank that timed out too called MPI_Abort
 * first). `agreed`: the result so far (res, or the one agreed over the ranks). */
nvs_result_t nvs_interrupt_final(nvs_result_t res, nvs_result_t agreed, int sig);

/* Marks DIR/run.json "interrupted" by signal `sig`, keeping everything else in it (an atomic rewrite). The
 * thread's action, exposed for the tests. */
nvs_result_t nvs_rescue_mark(const char *dir, int sig);

#endif
