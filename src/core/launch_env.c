/* See launch_env.h. */
#include "core/launch_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A rank or size as a launcher writes it: decimal digits only, below 2^20; -1 otherwise (unset, empty, "abc",
 * "-1", "1x"). */
static long env_count(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 7) return -1;
    long n = strtol(v, NULL, 10);
    return n < (1L << 20) ? n : -1;
}

int nvs_launcher_rank(void)
{
    /* each launcher's rank variable with the job size it sets beside it (PMIx sets none) */
    static const char *const vars[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                          {"PMIX_RANK", NULL},
                                          {"PMI_RANK", "PMI_SIZE"},
                                          {"SLURM_PROCID", "SLURM_NTASKS"}};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        if (!getenv(vars[i][0]) || !*getenv(vars[i][0])) continue;
        long r = env_count(vars[i][0]);
        /* a value no launcher writes, or a rank without the job size its launcher always sets beside it, or
         * outside it (a variable left over in the environment, not a rank of this job): not a rank. Taking it
         * would send every message of this process to /dev/null (nvs_stderr_once). */
        if (r < 0) return 0;
        if (vars[i][1] && env_count(vars[i][1]) <= r) return 0;
        return (int)r;
    }
    return 0;
}

/* What a non-zero rank wrote through nvs_stderr_once(): kept, not discarded, for nvs_stderr_once_late() */
static char *held;
static size_t held_len;
static FILE *held_fp;

FILE *nvs_stderr_once(void)
{
    if (nvs_launcher_rank() == 0) return stderr;
    if (!held_fp) held_fp = open_memstream(&held, &held_len); /* kept open until exit: one per process */
    return held_fp ? held_fp : stderr;
}

/* Whether rank 0 refused the same is not told by the kind of input: one mpirun app runs different command lines
 * through a per-rank wrapper (OMPI_APP_CTX_NUM_PROCS said "2" and rank 1's `--bogus` went unsaid), as MPICH's
 * `mpiexec A : B` does without any variable saying so. nvs_stderr_once_late() decides for every refusal alike. */
FILE *nvs_stderr_cmdline(void) { return nvs_stderr_once(); }

int nvs_launched_by_srun(void)
{
    /* mpirun (Open MPI: OMPI_COMM_WORLD_RANK) and MPICH's hydra (MPI_LOCALRANKID) started inside a Slurm allocation
     * start their ranks under a srun of their own daemons, whose SLURM_PROCID the ranks inherit: theirs, not srun's */
    if (getenv("OMPI_COMM_WORLD_RANK") || getenv("MPI_LOCALRANKID")) return 0;
    if (!getenv("SLURM_STEP_ID") || env_count("SLURM_PROCID") < 0) return 0;
    /* srun --mpi=pmi2/pmix sets PMI_RANK / PMIX_RANK to the task's SLURM_PROCID */
    return nvs_launcher_rank() == env_count("SLURM_PROCID");
}

/* srun's components of a heterogeneous step (`srun A : B`) each run their own command line; srun sets the number
 * of components in SLURM_HET_SIZE */
static int several_command_lines_under_srun(void) { return env_count("SLURM_HET_SIZE") > 1; }

int nvs_stderr_once_held(void) { return held_fp && fflush(held_fp) == 0 && held_len > 0; }

void nvs_stderr_once_late(FILE *to)
{
    if (!held_fp || fflush(held_fp) != 0 || !held_len) return;
    if (nvs_launched_by_srun() && !several_command_lines_under_srun()) {
        /* srun ends the step at rank 0's exit only with --kill-on-bad-exit, so being here says nothing of rank 0.
         * Every task got the command line and the environment of the srun command (--export=ALL by default), so
         * the same file names: rank 0 refused the same and said it. Each other rank said it again: N copies. */
        held_len = 0;
        rewind(held_fp);
        return;
    }
    int rank = nvs_launcher_rank();
    /* every line tagged with the rank that saw it: rank 0 did not (mpirun, MPICH's mpiexec end the job at the first
     * rank that exits non-zero, rank 0 within the delay had it refused too), so the reader learns that the ranks
     * disagree: a command line of their own, a file or a variable missing on one host */
    /* held_len bounds it, not a NUL: after a rewind the buffer keeps older, longer text past the new */
    for (const char *p = held, *end = held + held_len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        int n = nl ? (int)(nl - p) : (int)(end - p);
        fprintf(to, "[rank %d] %.*s\n", rank, n, p);
        p += n + (nl != NULL);
    }
    fflush(to);
    held_len = 0;
    rewind(held_fp);
}
