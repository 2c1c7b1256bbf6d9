/* core/launch_env.c: the launcher's rank from the environment. A garbage or leftover rank variable must not make
 * a process believe it is a non-zero rank: every message of it would go to /dev/null (nvs_stderr_once), and a
 * usage error would exit 2 without a word. */
#include <stdio.h>
#include <stdlib.h>

#include "core/launch_env.h"
#include "t.h"

static void clear(void)
{
    static const char *const v[] = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                    "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "OMPI_APP_CTX_NUM_PROCS",
                                    "SLURM_STEP_ID", "SLURM_HET_SIZE", "MPI_LOCALRANKID"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) unsetenv(v[i]);
}

static void t_ranks_of_a_job(void)
{
    clear();
    T_EQ_I(nvs_launcher_rank(), 0);
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "8", 1);
    T_EQ_I(nvs_launcher_rank(), 3);
    clear();
    setenv("PMIX_RANK", "5", 1); /* PMIx sets no size beside it */
    T_EQ_I(nvs_launcher_rank(), 5);
    clear();
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_NTASKS", "2", 1);
    T_EQ_I(nvs_launcher_rank(), 1);
    T_ASSERT(nvs_stderr_once() != stderr);
    clear();
}

static void t_garbage_or_leftover_is_rank_0(void)
{
    static const char *const bad[] = {"abc", "-1", "1x", " 1", "99999999", "1.0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clear();
        setenv("PMI_RANK", bad[i], 1);
        if (nvs_launcher_rank() != 0) T_FAIL("PMI_RANK='%s' taken as rank %d", bad[i], nvs_launcher_rank());
    }
    clear();
    setenv("SLURM_PROCID", "1", 1); /* a one-task step, or a size that says the rank is not in it */
    setenv("SLURM_NTASKS", "1", 1);
    T_EQ_I(nvs_launcher_rank(), 0);
    setenv("SLURM_NTASKS", "x", 1);
    T_EQ_I(nvs_launcher_rank(), 0);
    unsetenv("SLURM_NTASKS"); /* srun always sets it: SLURM_PROCID alone is a leftover */
    T_EQ_I(nvs_launcher_rank(), 0);
    T_ASSERT(nvs_stderr_once() == stderr);
    clear();
}

/* A non-zero rank's refusal is held, not discarded: said late, tagged, if rank 0 did not end the job first (a
 * variable or file on that rank's host alone). It was written to /dev/null: mpirun said only "exit code 2". */
static void t_held_then_said_late(void)
{
    clear();
    setenv("OMPI_COMM_WORLD_RANK", "2", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    fprintf(nvs_stderr_once(), "nvscale: invalid value 'x' for environment variable V\nTry it.\n");
    char *buf = NULL;
    size_t len = 0;
    FILE *to = open_memstream(&buf, &len);
    T_ASSERT(to != NULL);
    nvs_stderr_once_late(to);
    nvs_stderr_once_late(to); /* said once: nothing held any more */
    fclose(to);
    T_EQ_S(buf, "[rank 2] nvscale: invalid value 'x' for environment variable V\n[rank 2] Try it.\n");
    free(buf);
    clear();
}

/* What nvs_stderr_once_late writes now, as a string (the caller frees it). */
static char *said_late(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *to = open_memstream(&buf, &len);
    T_ASSERT(to != NULL);
    nvs_stderr_once_late(to);
    fclose(to);
    return buf;
}

/* Under srun (which does not end the step when rank 0 exits 2) every task has srun's command line and environment:
 * rank 0 refused the same and said it. Each other rank said it again, tagged, 2 s later: N copies of a bad flag,
 * variable, or missing file. */
static void t_srun_keeps_back(void)
{
    clear();
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_NTASKS", "4", 1);
    T_ASSERT(nvs_launched_by_srun());
    fprintf(nvs_stderr_cmdline(), "nvscale coll: unknown option '--bogus'\n");
    char *buf = said_late();
    T_EQ_S(buf, "");
    free(buf);
    fprintf(nvs_stderr_once(), "nvscale: invalid value 'x' for environment variable V\n");
    buf = said_late();
    T_EQ_S(buf, "");
    free(buf);
    /* srun --mpi=pmix: PMIX_RANK, the same number */
    setenv("PMIX_RANK", "1", 1);
    T_ASSERT(nvs_launched_by_srun());
    /* a heterogeneous step (srun A : B): rank 0 may have run another command line */
    setenv("SLURM_HET_SIZE", "2", 1);
    fprintf(nvs_stderr_cmdline(), "nvscale coll: unknown option '--bogus'\n");
    buf = said_late();
    T_EQ_S(buf, "[rank 1] nvscale coll: unknown option '--bogus'\n");
    free(buf);
    clear();
}

/* mpirun or MPICH's mpiexec inside a Slurm allocation: the ranks inherit SLURM_* of the daemons srun started, the
 * job ends at the first rank that exits non-zero, and a rank still there said what rank 0 did not see */
static void t_mpirun_in_slurm_is_not_srun(void)
{
    clear();
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_PROCID", "0", 1); /* the daemon's: node 0 */
    setenv("SLURM_NTASKS", "2", 1);
    setenv("PMI_RANK", "3", 1);
    setenv("PMI_SIZE", "8", 1);
    T_ASSERT(!nvs_launched_by_srun());
    setenv("SLURM_PROCID", "3", 1); /* one rank per node: the same number by chance; hydra's own variable says */
    setenv("MPI_LOCALRANKID", "0", 1);
    T_ASSERT(!nvs_launched_by_srun());
    unsetenv("MPI_LOCALRANKID");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "8", 1);
    T_ASSERT(!nvs_launched_by_srun());
    clear();
}

/* Ranks of one mpirun with different command lines (a per-rank wrapper under one app: OMPI_APP_CTX_NUM_PROCS "2";
 * MPICH's mpiexec A : B, no variable at all): a refusal of rank 1's own command line was kept back as if rank 0
 * had said it, and mpirun named only the exit code. Said, tagged. */
static void t_cmdline_refusal_said_late(void)
{
    clear();
    setenv("OMPI_COMM_WORLD_RANK", "1", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    setenv("OMPI_APP_CTX_NUM_PROCS", "2", 1);
    fprintf(nvs_stderr_cmdline(), "nvscale coll: unknown option '--bogus'\n");
    char *buf = said_late();
    T_EQ_S(buf, "[rank 1] nvscale coll: unknown option '--bogus'\n");
    free(buf);
    clear();
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", "2", 1);
    setenv("MPI_LOCALRANKID", "1", 1);
    fprintf(nvs_stderr_cmdline(), "nvscale coll: unknown option '--bogus'\n");
    buf = said_late();
    T_EQ_S(buf, "[rank 1] nvscale coll: unknown option '--bogus'\n");
    free(buf);
    clear();
}

T_LIST = {T_CASE(t_ranks_of_a_job), T_CASE(t_garbage_or_leftover_is_rank_0), T_CASE(t_held_then_said_late),
          T_CASE(t_srun_keeps_back), T_CASE(t_mpirun_in_slurm_is_not_srun), T_CASE(t_cmdline_refusal_said_late)};
T_MAIN
