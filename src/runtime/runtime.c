/* Runtime selection and the parts common to both backends. */
#include "runtime/runtime.h"

#include <stdlib.h>

int nvs_rt_launched_by_mpi(void)
{
    /* Open MPI's mpirun, PMI-1/2 and PMIx launchers (MPICH hydra, Slurm's srun --mpi=pmi2/pmix). */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return 1;
    /* srun without an MPI plugin still sets these; MPI_Init then works through Slurm's PMI. */
    if (getenv("SLURM_STEP_ID") && getenv("SLURM_NTASKS") && atoi(getenv("SLURM_NTASKS")) > 1) return 1;
    return 0;
}

int nvs_rt_launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return atoi(getenv(vars[i]));
    return 0;
}

nvs_result_t nvs_rt_run(nvs_launch_kind kind, int nthreads, double timeout_s, nvs_rank_main fn, void *arg)
{
    if (kind == NVS_LAUNCH_AUTO) kind = nvs_rt_launched_by_mpi() ? NVS_LAUNCH_MPI : NVS_LAUNCH_THREADS;
    if (kind == NVS_LAUNCH_MPI) return nvs_rt_mpi_run(timeout_s, fn, arg);
    return nvs_rt_threads_run(nthreads, timeout_s, fn, arg);
}

nvs_result_t nvs_rt_agree_result(nvs_rt *rt, nvs_result_t mine)
{
    double v[2] = {(double)nvs_result_severity(mine), 0};
    /* encode the result itself too, so that the agreed value is one some rank really had */
    v[1] = nvs_result_severity(mine) * 1000.0 + (double)mine;
    if (nvs_allreduce_f64(rt, v, 2, NVS_RT_MAX, "agreeing on the run's result") != NVS_OK) return NVS_ERR_TIMEOUT;
    return (nvs_result_t)((long)v[1] % 1000);
}
