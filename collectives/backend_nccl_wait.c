/* The NCCL backend's waits, polled against --timeout, the interrupt and another rank's failure: a stream's work
 * (cudaStreamQuery + ncclCommGetAsyncError, as nccl-tests does), and the creation of a communicator from the
 * non-blocking world; what stalled is named and the communicators aborted, or left to nfinalize after a signal. */
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <time.h>

#include "core/clock.h"
#include "core/gpu_check.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "core/units.h"
#include "collectives/backend.h"
#include "collectives/backend_nccl.h"
#include "collectives/backend_nccl_priv.h"

#ifdef NVS_NCCL_NONBLOCKING_WORLD
/* A creation on the non-blocking world communicator (its own, ncclCommInitRankConfig; or an ncclCommSplit of it)
 * runs in NCCL's own thread, and the world's state (ncclCommGetAsyncError) says ncclInProgress until it ends:
 * ncclSuccess, or the error (NCCL src/group.cc ncclGroupEndInternal sets ncclInProgress on the job's communicator,
 * which for a split is the parent, and groupLaunch its result; user guide, "Fault Tolerance"). A rank whose
 * creation failed inside NCCL returns that error, and run_flow.c / the phase tells the others (runtime.h
 * nvs_rt_tell_failed); a rank whose peer failed would see ncclInProgress for good (NCCL's bootstrap waits for
 * every rank), so this polls that notice too, and the interrupt and --timeout. The caller aborts what is left.
 * Interrupted, it waits NVS_INTERRUPT_DRAIN_S for the creation to end by itself (as wait_stream does for a
 * stream) and returns NVS_ERR_INTERRUPTED, *ended saying whether the creation ended well: the caller then leaves
 * the abort to nfinalize, after the write, instead of spending NCCL's 1.5-2 s abort before it. */
nvs_result_t nvs_nb_await_world(nvs_backend *b, ncclComm_t world, const char *call, int *ended)
{
    nvs_rt *rt = b->rt;
    double start = nvs_now_s(), drain_until = 0;
    *ended = 0;
    for (;;) {
        nvs_rt_beat(rt); /* this rank is working, not stalled (as wait_stream) */
        ncclResult_t state = ncclInProgress;
        ncclResult_t r = ncclCommGetAsyncError(world, &state);
        if (r != ncclSuccess) return nvs_nccl_fail("ncclCommGetAsyncError", r, world);
        *ended = state == ncclSuccess;
        if (drain_until > 0 && (state != ncclInProgress || nvs_now_s() >= drain_until)) {
            nvs_info("interrupted during %s on rank %d: %s", call, rt->rank,
                     *ended ? "it ended; its communicators are freed after the results are written"
                            : "it did not end; its communicators are aborted after the results are written");
            return NVS_ERR_INTERRUPTED;
        }
        if (drain_until == 0 && state == ncclSuccess) return NVS_OK;
        if (drain_until == 0 && state != ncclInProgress) return nvs_nccl_fail(call, state, world);
        if (drain_until == 0 && nvs_interrupted()) {
            drain_until = nvs_now_s() + NVS_INTERRUPT_DRAIN_S;
            continue;
        }
        if (drain_until > 0) {
            nanosleep(&(struct timespec){0, 1000000}, NULL);
            continue;
        }
        nvs_result_t peer = nvs_rt_peer_failed(rt); /* rank 0 says the failing rank's sentence */
        if (peer != NVS_OK) {
            nvs_info("%s on rank %d: another rank failed; aborting the NCCL communicators", call, rt->rank);
            return peer;
        }
        if (nvs_now_s() - start > rt->timeout_s) {
            nvs_error("%s did not complete within %.0f s on rank %d (host %s, GPU %s): a peer rank is stalled or "
                      "gone; aborting the NCCL communicators",
                      call, rt->timeout_s, rt->rank, rt->host, b->pci_bus_id);
            return NVS_ERR_TIMEOUT;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}
#endif

/* Poll a stream to completion (as nccl-tests does: cudaStreamQuery + ncclCommGetAsyncError); past the timeout,
 * name what stalled and abort the communicators so the GPU work ends instead of spinning forever. */
static nvs_result_t wait_stream(nvs_backend *b, nvs_comm *c, cudaStream_t s, const char *what)
{
    struct nccl_impl *im = impl_of(b);
    double start = nvs_now_s(), drain_until = 0;
    for (;;) {
        /* a timed loop of a large size is queued at once and waited for here, for seconds to minutes: the ranks
         * sitting out this point wait in a host collective meanwhile, and a heartbeat (runtime.h; a clock read
         * when none is due) says this one is working (as sweep.c's launch_one for the MPI backend) */
        nvs_rt_beat(b->rt);
        cudaError_t e = cudaStreamQuery(s);
        if (e == cudaSuccess) return drain_until > 0 ? NVS_ERR_INTERRUPTED : NVS_OK;
        if (e != cudaErrorNotReady) return nvs_cuda_fail(NULL, "cudaStreamQuery", e);
        /* read first: after Ctrl-C a peer's abort shows up here as an NCCL error, and the run was interrupted */
        int interrupted = nvs_interrupted() != 0;
        if (c) {
            ncclResult_t async = ncclSuccess;
            ncclResult_t r = ncclCommGetAsyncError(c->comm, &async);
            if (r != ncclSuccess) return nvs_nccl_fail("ncclCommGetAsyncError", r, c->comm);
            if (async != ncclSuccess && async != ncclInProgress) {
                if (!interrupted) nvs_nccl_fail(what, async, c->comm);
                NCCL_CLEANUP(ncclCommAbort(c->comm)); /* failed already: said above */
                if (c->comm == im->world) im->world = NULL;
                c->comm = NULL;
                return interrupted || nvs_interrupted() ? NVS_ERR_INTERRUPTED : NVS_ERR_NCCL;
            }
        }
        if (interrupted && drain_until == 0) drain_until = nvs_now_s() + NVS_INTERRUPT_DRAIN_S;
        if (interrupted && nvs_now_s() < drain_until) {
            /* the stream may end by itself: then the communicators stay whole and are ended after the write */
            nanosleep(&(struct timespec){0, 1000000}, NULL);
            continue;
        }
        /* a peer that failed told us (runtime.h): its part of the collective will never come */
        nvs_result_t peer = nvs_rt_peer_failed(b->rt);
        if (interrupted || peer != NVS_OK || nvs_now_s() - start > b->rt->timeout_s) {
            if (peer != NVS_OK && !interrupted)
                nvs_info("%s on rank %d: another rank failed; aborting the NCCL communicators", what, b->rt->rank);
            else if (interrupted)
                nvs_info("interrupted during %s on rank %d: aborting the NCCL communicators", what, b->rt->rank);
            else
                nvs_error("%s did not complete within %.0f s on rank %d (host %s, GPU %s): a peer rank is stalled "
                          "or gone; aborting the NCCL communicators",
                          what, b->rt->timeout_s, b->rt->rank, b->rt->host, b->pci_bus_id);
            if (c && c->comm && c->comm != im->world) NCCL_CLEANUP(ncclCommAbort(c->comm));
            if (im->world) NCCL_CLEANUP(ncclCommAbort(im->world));
            if (c) c->comm = NULL; /* aborted: nothing left to destroy */
            im->world = NULL;
            return interrupted ? NVS_ERR_INTERRUPTED : peer != NVS_OK ? peer : NVS_ERR_TIMEOUT;
        }
    }
}

nvs_result_t nvs_nccl_wait_stream(nvs_backend *b, nvs_comm *c, cudaStream_t s, const char *what)
{
    return wait_stream(b, c, s, what);
}

nvs_result_t nvs_nb_wait(nvs_backend *b, nvs_comm *c, const nvs_op *op)
{
    char what[160], sz[32];
    snprintf(what, sizeof what, "%s of %s (%s, %s)", op->coll->name, nvs_format_size(op->bytes, sz, sizeof sz),
             nvs_dtype_name(op->type), op->inplace ? "in-place" : "out-of-place");
    return wait_stream(b, c, impl_of(b)->stream, what);
}
