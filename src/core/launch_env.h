/* What the launcher's environment says before any MPI call: this process's rank in the job. Messages printed
 * before the runtime exists (a bad flag, a bad --out) go through nvs_stderr_once(), so that `mpirun -np 8
 * nvscale --bogus` says it once, not eight times. PURE apart from getenv. */
#ifndef NVS_LAUNCH_ENV_H
#define NVS_LAUNCH_ENV_H

#include <stdio.h>

/* The rank an MPI/PMI launcher gave this process (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID, the
 * first set), 0 when none is set, when it is not a plain decimal number, or when the job size its launcher
 * sets beside it (OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS) is missing or does not exceed it: a leftover
 * variable must not silence this process's messages. */
int nvs_launcher_rank(void);
/* stderr on launcher rank 0; on the other ranks a stream that holds what is written to it until
 * nvs_stderr_once_late() (stderr again if no memory: a message twice rather than none). */
FILE *nvs_stderr_once(void);
/* nvs_stderr_once() for a refusal of the command line alone (a flag, its value, the subcommand). Said late as any
 * other: ranks of one job may run different command lines (a per-rank wrapper under one mpirun app, MPICH's
 * `mpiexec A : B`, srun's heterogeneous steps), and one rank cannot tell whether rank 0 had its own. */
FILE *nvs_stderr_cmdline(void);
/* Whether srun started this process as a task of its step (SLURM_STEP_ID, and SLURM_PROCID is the rank taken), not
 * mpirun or MPICH's mpiexec inside a Slurm allocation (their ranks inherit SLURM_* from the daemons they started
 * with srun). srun, unlike them, does not end the job when rank 0 exits non-zero (unless --kill-on-bad-exit). */
int nvs_launched_by_srun(void);
/* On a non-zero rank that refused its input, called once rank 0 had time to refuse too and so end the job (mpirun
 * stops every rank at the first that exits non-zero): writes to `to` what the rank held back, each line tagged
 * "[rank N] ". A refusal that only this rank saw (its own command line, a variable set or a file missing on its
 * host alone) is then said, not lost: rank 0 went on and never said it. Nothing when nothing was held and on rank
 * 0. Under srun, which lets the job go on, nothing either: every task has srun's command line and environment,
 * so rank 0 refused the same and said it (each rank said it again: N copies). What only this rank saw (srun
 * --multi-prog, a file missing on its host alone) then goes unsaid: srun names the task that exited 2. A
 * heterogeneous step (SLURM_HET_SIZE above 1: several command lines) says it, as mpirun's ranks do. */
void nvs_stderr_once_late(FILE *to);
/* Whether this process holds back anything written through nvs_stderr_once() (0 on rank 0, which holds nothing) */
int nvs_stderr_once_held(void);

#endif
