/* See backend.h nvs_comm_create_agree. */
#include <stdio.h>

#include "collectives/backend.h"

nvs_result_t nvs_comm_create_agree(nvs_rt *rt, nvs_result_t mine, const char *call)
{
    /* the failing rank's notice, which rank 0 says: "rank 1 (host h) failed in setting up ncclCommInitRank: " and
     * that rank's last error line */
    char what[96];
    snprintf(what, sizeof what, "setting up %s", call);
    /* one allreduce of three doubles, polled (runtime_mpi.c wait_req, runtime_threads.c): the notice of a rank that
     * failed, a signal and --timeout all end it; the blocking call after it then starts on every rank or none */
    return nvs_rt_agree_ok_told(rt, mine, what);
}
