/* NCCL backend: one GPU per rank, collectives on device memory, completion polled against the timeout (as
 * nccl-tests does: cudaStreamQuery + ncclCommGetAsyncError), stalled communicators aborted. This file: the
 * set-up (the GPUs agreed on, the world communicator: nvs_backend_nccl_init), the teardown (nfinalize) and the
 * ops table; the rest in backend_nccl_*.c (backend_nccl_priv.h lists them). */
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu_check.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "collectives/backend.h"
#include "collectives/backend_nccl_priv.h"
#include "collectives/nccl_types.h"

static void nfinalize(nvs_backend *b)
{
    struct nccl_impl *im = impl_of(b);
    if (!im) return;
    if (im->d_counters) CUDA_CLEANUP(cudaFree(im->d_counters));
    /* after a signal a peer may be gone: a destroy could wait for it, an abort does not */
    int interrupted = nvs_interrupted() != 0;
    for (int i = 0; i < im->ndeferred; i++) NCCL_CLEANUP(ncclCommAbort(im->deferred[i]));
    if (im->world) {
        ncclResult_t r = interrupted ? ncclCommAbort(im->world) : ncclCommDestroy(im->world);
        if (r != ncclSuccess) nvs_nccl_fail(interrupted ? "ncclCommAbort" : "ncclCommDestroy", r, NULL);
    }
    if (im->stream) CUDA_CLEANUP(cudaStreamDestroy(im->stream));
    free(im);
    b->impl = NULL;
}

static const struct nvs_backend_ops nccl_ops = {
    .name = "nccl", .comm_split = nvs_nb_split, .comm_free = nvs_nb_free_comm, .comm_rank = nvs_nb_comm_rank,
    .comm_size = nvs_nb_comm_size, .alloc = nvs_nb_alloc, .free = nvs_nb_free, .fill = nvs_nb_fill,
    .poison = nvs_nb_poison, .verify = nvs_nb_verify, .launch = nvs_nb_launch, .wait = nvs_nb_wait,
    .graph_begin = nvs_nb_graph_begin, .graph_end = nvs_nb_graph_end, .graph_launch = nvs_nb_graph_launch,
    .graph_free = nvs_nb_graph_free, .group_begin = nvs_nb_group_begin, .group_end = nvs_nb_group_end,
    .finalize = nfinalize,
};

/* This rank's own part of the set-up before the world communicator: its stream, its counters and, on rank 0,
 * NCCL's unique id. What was made stays in b->impl for nfinalize. */
static nvs_result_t world_setup(nvs_backend *b, int dev, ncclUniqueId *id)
{
    struct nccl_impl *im = calloc(1, sizeof *im);
    if (!im) return NVS_ERR_NOMEM;
    b->impl = im;
    im->device = dev;
    CUDA_TRY(cudaStreamCreateWithFlags(&im->stream, cudaStreamNonBlocking));
    CUDA_TRY(cudaMalloc((void **)&im->d_counters, 2 * sizeof(unsigned long long)));
    if (b->rt->rank == 0) NCCL_TRY(ncclGetUniqueId(id), NULL);
    return NVS_OK;
}

/* The world communicator, kept only once made. Non-blocking (NCCL 2.14 on): a failure inside ncclCommInitRank on
 * one rank would otherwise leave the others in their own for good (NCCL's bootstrap waits for every rank), the
 * cause lost; polled instead (nvs_nb_await_world), and one that did not end is aborted, which frees it (NCCL user
 * guide, "Fault Tolerance": ncclCommAbort at any point of the initialization). It carries no traffic (nvs_nb_split), so
 * no collective ever runs on a non-blocking communicator. Before 2.14, blocking: one that fails frees what it made and
 * leaves no communicator (src/init.cc, ncclCommInitRankDev's fail path sets *newcomm = NULL). */
static nvs_result_t world_init(nvs_backend *b, ncclUniqueId id)
{
    ncclComm_t world = NULL;
#ifdef NVS_NCCL_NONBLOCKING_WORLD
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclResult_t r = ncclCommInitRankConfig(&world, b->rt->size, id, b->rt->rank, &config);
    nvs_result_t res = r == ncclSuccess || r == ncclInProgress ? NVS_OK : nvs_nccl_fail("ncclCommInitRank", r, world);
    if (res == NVS_OK && !world) {
        nvs_error("ncclCommInitRank returned no communicator on rank %d", b->rt->rank);
        res = NVS_ERR_NCCL;
    }
    int ended = 0;
    if (res == NVS_OK) res = nvs_nb_await_world(b, world, "ncclCommInitRank", &ended);
    if (res == NVS_ERR_INTERRUPTED) {
        /* a signal: rank 0 writes run.json "interrupted" before anything else (NVS_MAX_DEFERRED_COMMS); a world
         * whose creation did not end is only aborted, by nfinalize (user guide, "Fault Tolerance": ncclCommAbort
         * at any point of the initialization); one that ended stays im->world, which nfinalize aborts too. The
         * caller finalizes this backend after the write (nvs_backend_nccl_init keeps b->impl for it). */
        if (ended)
            impl_of(b)->world = world;
        else
            nvs_nb_defer_abort(impl_of(b), world);
        return res;
    }
    if (res != NVS_OK) {
        if (world) NCCL_CLEANUP(ncclCommAbort(world)); /* failed already: said above */
        return res;
    }
#else
    ncclResult_t r = ncclCommInitRank(&world, b->rt->size, id, b->rt->rank);
    if (r != ncclSuccess) return nvs_nccl_fail("ncclCommInitRank", r, NULL);
#endif
    impl_of(b)->world = world;
    return NVS_OK;
}

nvs_result_t nvs_backend_nccl_init(nvs_backend *b, nvs_rt *rt, const nvs_config *cfg)
{
    memset(b, 0, sizeof *b);
    b->ops = &nccl_ops;
    b->rt = rt;
    b->cfg = cfg;
    if ((cfg->ops_mask & (1u << NVS_AVG)) && !nvs_nccl_has_avg()) {
        nvs_error("-o avg needs ncclAvg, which NCCL has from 2.10; this nvscale was built against NCCL %d.%d",
                  NCCL_MAJOR, NCCL_MINOR);
        return NVS_ERR_USAGE;
    }
    nvs_nb_emulated_host_env(rt);
    int visible = 0, dev = 0;
    /* every rank must learn that one of them cannot have a GPU (its driver failed, or too few GPUs for its host's
     * ranks), before anyone goes on to collective calls: one agreement, and rank 0 says that rank's own line (its
     * host, how many ranks share it, how many GPUs it sees). A launch with too few GPUs is the user's to change:
     * exit 2 on every rank (runtime.h nvs_rt_agree_ok_told_usage). */
    nvs_result_t mine = nvs_nb_count_devices(&visible);
    if (mine == NVS_OK) mine = nvs_nb_pick_device(b, visible, &dev);
    nvs_result_t ok = nvs_rt_agree_ok_told_usage(rt, mine, "assigning GPUs");
    if (ok != NVS_OK) return ok;
    rt->device = dev;

    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    /* ncclCommInitRank waits for every rank (polled only where the world is non-blocking: world_init), and
     * nvs_nb_check_duplicates' gather and the unique id's broadcast wait for every rank until --timeout: this rank's
     * own set-up (its GPU, the gather's room, its stream and counters, rank 0's unique id) can fail here alone, so its
     * result is agreed on first, and a rank that failed stops the others at once, named (its sentence: run_flow.c tells
     * it), instead of returning alone and leaving them in the next collective */
    struct gpu_ident *all = calloc((size_t)rt->size, sizeof *all);
    mine = all ? nvs_nb_gpu_setup(b, dev) : NVS_ERR_NOMEM;
    if (mine == NVS_OK) mine = world_setup(b, dev, &id);
    ok = nvs_comm_create_agree(rt, mine, "ncclCommInitRank");
    /* after it, the same outcome on every rank: the gathered list is the same everywhere */
    if (ok == NVS_OK) ok = nvs_nb_check_duplicates(b, visible, all);
    free(all);
    if (ok != NVS_OK) {
        nfinalize(b); /* what world_setup made: the caller finalizes only a backend that started */
        return ok;
    }
    nvs_result_t res = nvs_bcast(rt, &id, sizeof id, 0, "NCCL unique id broadcast");
    if (res == NVS_OK) res = world_init(b, id);
    /* world_setup's stream and counters: the caller finalizes only a backend that started (nfinalize clears
     * b->impl, so a second call frees nothing twice); or, interrupted, one that kept b->impl, after its write:
     * an interrupted world_init leaves its communicator's abort to nfinalize (backend.h) */
    if (res != NVS_OK && res != NVS_ERR_INTERRUPTED) nfinalize(b);
    return res;
}
