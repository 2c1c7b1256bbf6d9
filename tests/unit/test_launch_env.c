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
                                    "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "OMPI_APP_CTX_NUM_PROCS"};
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

/* A refusal of the command line is rank 0's too: said by it alone. Under srun (the job goes on after rank 0 exits
 * 2) each other rank said `nvscale coll --bogus`'s refusal again, tagged, 2 s later. */
static void t_cmdline_refusal_not_said_late(void)
{
    clear();
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_NTASKS", "4", 1);
    fprintf(nvs_stderr_cmdline(), "nvscale coll: unknown option '--bogus'\n");
    char *buf = said_late();
    T_EQ_S(buf, "");
    free(buf);
    /* one of several command lines (mpirun -np 1 A : -np 3 B): rank 0 ran another, so it is said */
    setenv("OMPI_APP_CTX_NUM_PROCS", "1 3", 1);
    fprintf(nvs_stderr_cmdline(), "nvscale coll: unknown option '--bogus'\n");
    buf = said_late();
    T_EQ_S(buf, "[rank 1] nvscale coll: unknown option '--bogus'\n");
    free(buf);
    /* a refusal of this host's input after all that: said */
    unsetenv("OMPI_APP_CTX_NUM_PROCS");
    fprintf(nvs_stderr_once(), "nvscale: invalid value 'x' for environment variable V\n");
    buf = said_late();
    T_EQ_S(buf, "[rank 1] nvscale: invalid value 'x' for environment variable V\n");
    free(buf);
    clear();
}

T_LIST = {T_CASE(t_ranks_of_a_job), T_CASE(t_garbage_or_leftover_is_rank_0), T_CASE(t_held_then_said_late),
          T_CASE(t_cmdline_refusal_not_said_late)};
T_MAIN
