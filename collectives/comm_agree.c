/* See backend.h nvs_comm_create_agree. */
#include <stdio.h>

#include "collectives/backend.h"

nvs_result_t nvs_comm_create_agree(nvs_rt *rt, nvs_result_t mine, const char *call)
{
    /* rank 0's words when a rank enters with a failure: "rank 1 failed in setting up ncclCommInitRank: ..." */
    char what[96];
    snprintf(what, sizeof what, "setting up %s", call);
    /* one allreduce of two doubles, polled (runtime_mpi.c wait_req, runtime_threads.c): the notice of a rank that
     * failed, a signal and --timeout all end it; the blocking call after it then starts on every rank or none */
    return nvs_rt_agree_ok(rt, mine, NULL, what);
}
