/* See same_backend.h. */
#include "run/same_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* what one rank tells the others: its choice, its host, and why it found no GPU (cut: a sentence's start is
 * enough to name the cause, and the gather stays small at thousands of ranks) */
struct choice {
    int backend;
    char host[64];
    char no_gpu[160];
};

static const char *backend_name(int b) { return b == NVS_BACKEND_NCCL ? "NCCL" : "the MPI host backend"; }

nvs_result_t nvs_same_backend(nvs_rt *rt, nvs_backend_kind backend, const char *no_gpu)
{
    if (rt->size < 2) return NVS_OK;
    struct choice mine;
    memset(&mine, 0, sizeof mine);
    mine.backend = (int)backend;
    snprintf(mine.host, sizeof mine.host, "%s", rt->machine.host);
    snprintf(mine.no_gpu, sizeof mine.no_gpu, "%s", no_gpu ? no_gpu : "");
    struct choice *all = calloc((size_t)rt->size, sizeof *all);
    if (!all) return NVS_ERR_NOMEM;
    nvs_result_t r = nvs_allgather(rt, &mine, all, sizeof mine, "comparing the ranks' backends");
    int first = -1;
    for (int i = 1; r == NVS_OK && i < rt->size && first < 0; i++)
        if (all[i].backend != all[0].backend) first = i;
    if (r == NVS_OK && first >= 0 && rt->rank == 0) {
        /* the rank without a GPU is the one to name: rank 0 or the first that differs from it */
        const struct choice *off = all[first].no_gpu[0] ? &all[first] : &all[0];
        int off_rank = off == &all[0] ? 0 : first;
        nvs_error("rank %d (host %s) found no usable GPU (%s) and chose %s, rank %d (host %s) chose %s: every rank "
                  "of one run needs the same backend; make the GPUs usable on host %s (nvidia-smi there), or run "
                  "--backend mpi",
                  off_rank, off->host, off->no_gpu[0] ? off->no_gpu : "no reason given", backend_name(off->backend),
                  off_rank == 0 ? first : 0, off_rank == 0 ? all[first].host : all[0].host,
                  backend_name(off_rank == 0 ? all[first].backend : all[0].backend), off->host);
    }
    free(all);
    if (r != NVS_OK) return r;
    return first >= 0 ? NVS_ERR_UNSUPPORTED : NVS_OK;
}
