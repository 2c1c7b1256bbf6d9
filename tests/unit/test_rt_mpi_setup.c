/* The MPI runtime's start-up after a failure (src/runtime/runtime_mpi.c): when a call on the host's
 * communicator (MPI_Comm_split_type) fails, the run fails with NVS_ERR_MPI and that communicator is freed, as
 * every other one the runtime made. One singleton MPI rank (no mpirun); MPI_Init once per process, so one case. */
#include <mpi.h>

#include "runtime/runtime.h"
#include "t.h"

/* MPI's profiling interface (MPI-3.1 section 14.2): these definitions stand in for the library's and call the
 * PMPI_ names, so that the test can make MPI_Bcast fail and count the host communicators made and freed. */
static int host_comms_made, host_comms_freed, bcasts;
static MPI_Comm host_comm = MPI_COMM_NULL;

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split_type(comm, type, key, info, newcomm);
    if (rc == MPI_SUCCESS) {
        host_comms_made++;
        host_comm = *newcomm;
    }
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    int host = *comm == host_comm;
    int rc = PMPI_Comm_free(comm);
    host_comms_freed += host && rc == MPI_SUCCESS;
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    (void)buf, (void)count, (void)type, (void)root, (void)comm;
    bcasts++;
    return MPI_ERR_OTHER;
}

static nvs_result_t never(nvs_rt *rt, void *arg)
{
    (void)rt, (void)arg;
    T_FAIL("the rank function ran although the start-up failed");
    return NVS_OK;
}

static void t_host_comm_freed_when_start_up_fails(void)
{
    T_EQ_I(nvs_rt_mpi_run(10, 0, never, NULL), NVS_ERR_MPI);
    T_EQ_I(bcasts, 1);
    T_EQ_I(host_comms_made, 1);
    T_EQ_I(host_comms_freed, 1);
}

T_LIST = {
    T_CASE(t_host_comm_freed_when_start_up_fails),
};
T_MAIN
