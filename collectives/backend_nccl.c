/* NCCL backend: one GPU per rank, collectives on device memory, completion polled against the timeout (as
 * nccl-tests does: cudaStreamQuery + ncclCommGetAsyncError), stalled communicators aborted. */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/gpu_check.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "core/units.h"
#include "collectives/backend.h"
#include "collectives/backend_nccl.h"
#include "collectives/kernels.h"
#include "collectives/nccl_types.h"

/* The world communicator is created non-blocking where NCCL has that (ncclConfig_t's `blocking`, NCCL 2.14 on):
 * world_init, await_world. */
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0)
#define NVS_NCCL_NONBLOCKING_WORLD 1
#endif

struct nvs_comm {
    ncclComm_t comm;
    int rank, size;
    int owned; /* ours to destroy (cleared once aborted) */
};

/* After a signal, ncclCommDestroy / ncclCommAbort took 1.5-2 s each in NCCL 2.28.3 on an H200 (results/
 * h200x1-diag-stop: the main thread in a futex wait meanwhile), while mpirun SIGKILLs a rank about 1 s after its
 * SIGTERM. So a rank that was interrupted drains its streams briefly instead of aborting at once, and leaves
 * freeing its communicators to the end, after the results are written. */
#define NVS_MAX_DEFERRED_COMMS 16
/* How long an interrupted wait lets its stream finish by itself: the work already queued (a bucket's all-reduce,
 * the rest of a step's kernels) ends within this while every peer is alive; a stream still busy after it waits on
 * a peer that is gone, and only the abort ends it. */
#define NVS_INTERRUPT_DRAIN_S 0.5

struct nccl_impl {
    ncclComm_t world;
    int device;
    cudaStream_t stream;
    unsigned long long *d_counters; /* [0] wrong, [1] first wrong index */
    ncclComm_t active;              /* communicator of the op being waited for, for abort */
    /* communicators freed after a signal: ended at finalize, once rank 0 has written what was measured */
    ncclComm_t deferred[NVS_MAX_DEFERRED_COMMS];
    int ndeferred;
};


int nvs_gpu_available(char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(why, len, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        (void)cudaGetLastError(); /* clear the sticky-free error so later probes start clean */
        return 0;
    }
    if (n == 0) {
        snprintf(why, len, "CUDA sees no device (CUDA_VISIBLE_DEVICES=%s)",
                 getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
        return 0;
    }
    snprintf(why, len, "%d GPU%s visible", n, n > 1 ? "s" : "");
    return n;
}

static struct nccl_impl *impl_of(nvs_backend *b) { return b->impl; }

#ifdef NVS_NCCL_NONBLOCKING_WORLD
/* Leaves `c` to nfinalize, after the results are written (NVS_MAX_DEFERRED_COMMS says why); aborted at once only
 * where the list is full. In order: nfinalize aborts them first to last. */
static void defer_abort(struct nccl_impl *im, ncclComm_t c)
{
    if (!c) return;
    if (im->ndeferred < NVS_MAX_DEFERRED_COMMS)
        im->deferred[im->ndeferred++] = c;
    else
        NCCL_CLEANUP(ncclCommAbort(c));
}

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
static nvs_result_t await_world(nvs_backend *b, ncclComm_t world, const char *call, int *ended)
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

/* ncclCommSplit of the world: *nc, the new communicator (NULL where !member). From a non-blocking world the split
 * runs as the parent is, whatever the child's config (src/init.cc ncclCommInitChildComm launches the job on the
 * parent): it returns at once, *nc is set once it ended, and it is polled (await_world). The child asks for
 * blocking = 1, where NULL would inherit the world's non-blocking: the collectives run on it, and their waits
 * expect a launch that returns once enqueued, not ncclInProgress. A split that did not end leaves the world
 * unusable: the world is aborted first, then the child if any (NCCL user guide, "Creating more communicators"). */
static nvs_result_t split_world(nvs_backend *b, int member, ncclComm_t *nc)
{
    struct nccl_impl *im = impl_of(b);
    *nc = NULL;
#ifdef NVS_NCCL_NONBLOCKING_WORLD
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1;
    ncclResult_t r = ncclCommSplit(im->world, member ? 0 : NCCL_SPLIT_NOCOLOR, b->rt->rank, nc, &config);
    int ended = 0;
    nvs_result_t res = r == ncclSuccess || r == ncclInProgress ? await_world(b, im->world, "ncclCommSplit", &ended)
                                                               : nvs_nccl_fail("ncclCommSplit", r, im->world);
    if (res == NVS_OK && member && !*nc) {
        nvs_error("ncclCommSplit succeeded but returned no communicator on rank %d", b->rt->rank);
        res = NVS_ERR_NCCL;
    }
    if (res == NVS_OK) return NVS_OK;
    if (res == NVS_ERR_INTERRUPTED) {
        /* a signal: what was measured is written first, the aborts wait for nfinalize (NVS_MAX_DEFERRED_COMMS).
         * A split that ended left both whole: the child is deferred like nfree_comm's, the world stays for
         * nfinalize. One that did not end leaves the world unusable, its split job still running in NCCL's
         * thread: no NCCL call but ncclCommGetAsyncError / ncclCommAbort may touch it (user guide,
         * "Communicator Creation" with blocking = 0: the communicator is not ready until its state leaves
         * ncclInProgress; "Fault Tolerance": ncclCommAbort may end it at any point), so it leaves im->world and
         * is deferred, the world first, then the child if any (the order of the failure path below) */
        if (!ended) {
            defer_abort(im, im->world);
            im->world = NULL;
        }
        defer_abort(im, *nc);
        *nc = NULL;
        return res;
    }
    NCCL_CLEANUP(ncclCommAbort(im->world)); /* failed already: said above */
    im->world = NULL;
    if (*nc) NCCL_CLEANUP(ncclCommAbort(*nc));
    *nc = NULL;
    return res;
#else
    ncclResult_t r = ncclCommSplit(im->world, member ? 0 : NCCL_SPLIT_NOCOLOR, b->rt->rank, nc, NULL);
    return r == ncclSuccess ? NVS_OK : nvs_nccl_fail("ncclCommSplit", r, im->world);
#endif
}

static nvs_result_t nsplit(nvs_backend *b, int member, nvs_comm **out)
{
    *out = NULL;
    nvs_comm *c = calloc(1, sizeof *c);
    /* ncclCommSplit waits for every rank (polled only from a non-blocking world: split_world): agreed first, so
     * that it starts on every rank or none, this rank's own failure (no memory for c) entering the agreement */
    nvs_result_t ok = nvs_comm_create_agree(b->rt, c ? NVS_OK : NVS_ERR_NOMEM, "ncclCommSplit");
    if (ok != NVS_OK) {
        free(c);
        return ok;
    }
    /* Always a new communicator, even when every rank is a member: NCCL's log then names each measurement's
     * connections under its own communicator, created just before it (src/explain/nccl_log.h explains why that
     * matters), and the world communicator stays a bootstrap that carries no traffic. */
    {
        ncclComm_t nc = NULL;
        nvs_result_t made = split_world(b, member, &nc);
        if (made != NVS_OK) {
            free(c);
            return made;
        }
        if (!member) {
            free(c);
            return NVS_OK;
        }
        c->comm = nc;
        c->owned = 1;
    }
    ncclResult_t r = ncclCommUserRank(c->comm, &c->rank);
    if (r == ncclSuccess) r = ncclCommCount(c->comm, &c->size);
    if (r != ncclSuccess) {
        nvs_nccl_fail("ncclCommUserRank/ncclCommCount", r, c->comm);
        if (c->owned) NCCL_CLEANUP(ncclCommDestroy(c->comm));
        free(c);
        return NVS_ERR_NCCL;
    }
    *out = c;
    return NVS_OK;
}

static void nfree_comm(nvs_backend *b, nvs_comm *c)
{
    if (!c) return;
    struct nccl_impl *im = impl_of(b);
    if (c->owned && c->comm && nvs_interrupted() && im && im->ndeferred < NVS_MAX_DEFERRED_COMMS) {
        im->deferred[im->ndeferred++] = c->comm; /* ended by nfinalize, after the results are written */
    } else if (c->owned && c->comm) {
        ncclResult_t r = ncclCommDestroy(c->comm);
        if (r != ncclSuccess) nvs_nccl_fail("ncclCommDestroy", r, NULL);
    }
    free(c);
}

static int ncrank(const nvs_comm *c) { return c->rank; }
static int ncsize(const nvs_comm *c) { return c->size; }

/* The free memory after a failed allocation, for its message; *fr = 0 when unknown. */
static int free_memory(size_t *fr, size_t *tot)
{
    *fr = *tot = 0;
    (void)cudaGetLastError(); /* an out-of-memory failure is not sticky: clear it before asking */
    return cudaMemGetInfo(fr, tot) == cudaSuccess;
}

/* cudaMalloc, or ncclMemAlloc with --alloc nccl: NCCL's cuMem allocation (cuMemCreate at the recommended
 * granularity, mapped for every peer it can reach), which nccl-tests uses for its buffers since NCCL 2.19. */
static nvs_result_t nalloc(nvs_backend *b, size_t bytes, void **p)
{
    const int via_nccl = b->cfg && b->cfg->alloc_nccl;
    const char *call = via_nccl ? "ncclMemAlloc" : "cudaMalloc";
    const char *why;
    if (via_nccl) {
        ncclResult_t r = ncclMemAlloc(p, bytes ? bytes : 1);
        if (r == ncclSuccess) return NVS_OK;
        why = ncclGetErrorString(r);
    } else {
        cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
        if (e == cudaSuccess) return NVS_OK;
        why = cudaGetErrorString(e);
    }
    *p = NULL;
    size_t fr, tot;
    if (free_memory(&fr, &tot))
        nvs_error("%s of %zu bytes failed: %s (GPU has %zu bytes free of %zu)", call, bytes, why, fr, tot);
    else /* the free memory is not known: no made-up figure */
        nvs_error("%s of %zu bytes failed: %s", call, bytes, why);
    return via_nccl ? NVS_ERR_NCCL : NVS_ERR_CUDA;
}

static void nfree(nvs_backend *b, void *p)
{
    if (!p) return;
    if (b->cfg && b->cfg->alloc_nccl) {
        ncclResult_t r = ncclMemFree(p);
        if (r != ncclSuccess) nvs_nccl_fail("ncclMemFree", r, NULL);
        return;
    }
    cudaError_t e = cudaFree(p);
    if (e != cudaSuccess) nvs_cuda_fail(NULL, "cudaFree", e);
}

static nvs_result_t nfill(nvs_backend *b, nvs_dtype t, void *p, size_t count, const nvs_pattern *pat, int rank,
                          size_t off)
{
    CUDA_TRY((cudaError_t)nvs_kern_fill(t, p, count, pat, rank, off, impl_of(b)->stream));
    return NVS_OK;
}

static nvs_result_t npoison(nvs_backend *b, void *p, size_t bytes)
{
    CUDA_TRY((cudaError_t)nvs_kern_poison(p, bytes, impl_of(b)->stream));
    return NVS_OK;
}

static nvs_result_t nverify(nvs_backend *b, nvs_dtype t, const void *out, const nvs_pattern *pat,
                            const nvs_expect *e, unsigned long long *wrong, unsigned long long *first)
{
    struct nccl_impl *im = impl_of(b);
    unsigned long long h[2] = {0, ~0ull};
    CUDA_TRY(cudaMemcpyAsync(im->d_counters, h, sizeof h, cudaMemcpyHostToDevice, im->stream));
    CUDA_TRY((cudaError_t)nvs_kern_verify(t, out, pat, e, &im->d_counters[0], &im->d_counters[1], im->stream));
    CUDA_TRY(cudaMemcpyAsync(h, im->d_counters, sizeof h, cudaMemcpyDeviceToHost, im->stream));
    CUDA_TRY(cudaStreamSynchronize(im->stream));
    *wrong = h[0];
    *first = h[1];
    return NVS_OK;
}

/* Ends the group of point-to-point calls an operation opened, also when one of them failed: a group left open
 * would take every later NCCL call of this thread into it. The first failure is said and returned; the group's
 * end then fails as well, as a consequence (a cleanup warning). */
static nvs_result_t p2p_group_end(ncclResult_t first, ncclComm_t comm)
{
    if (first == ncclSuccess) {
        NCCL_TRY(ncclGroupEnd(), comm);
        return NVS_OK;
    }
    nvs_nccl_fail("ncclSend/ncclRecv", first, comm);
    NCCL_CLEANUP(ncclGroupEnd());
    return NVS_ERR_NCCL;
}

static nvs_result_t nlaunch(nvs_backend *b, nvs_comm *c, const nvs_op *op)
{
    struct nccl_impl *im = impl_of(b);
    cudaStream_t s = im->stream;
    ncclDataType_t ty = nvs_nccl_type(op->type);
    ncclRedOp_t ro = nvs_nccl_op(op->op);
    const nvs_coll_counts *k = &op->counts;
    size_t ts = nvs_dtype_size(op->type);
    im->active = c->comm;
    switch (op->coll->prim) {
    case NVS_PRIM_ALLREDUCE:
        NCCL_TRY(ncclAllReduce(op->send, op->recv, k->send_count, ty, ro, c->comm, s), c->comm);
        break;
    case NVS_PRIM_BROADCAST:
        NCCL_TRY(ncclBroadcast(op->send, op->recv, k->send_count, ty, op->root, c->comm, s), c->comm);
        break;
    case NVS_PRIM_REDUCE:
        NCCL_TRY(ncclReduce(op->send, op->recv, k->send_count, ty, ro, op->root, c->comm, s), c->comm);
        break;
    case NVS_PRIM_ALLGATHER:
        NCCL_TRY(ncclAllGather(op->send, op->recv, k->send_count, ty, c->comm, s), c->comm);
        break;
    case NVS_PRIM_REDUCESCATTER:
        NCCL_TRY(ncclReduceScatter(op->send, op->recv, k->recv_count, ty, ro, c->comm, s), c->comm);
        break;
    case NVS_PRIM_ALLTOALL: {
        /* grouped point-to-point, block r to rank r (as nccl-tests' alltoall_perf) */
        size_t chunk = k->send_count / (size_t)c->size;
        NCCL_TRY(ncclGroupStart(), c->comm);
        ncclResult_t r = ncclSuccess;
        for (int p = 0; p < c->size && r == ncclSuccess; p++) {
            r = ncclSend((const char *)op->send + (size_t)p * chunk * ts, chunk, ty, p, c->comm, s);
            if (r == ncclSuccess) r = ncclRecv((char *)op->recv + (size_t)p * chunk * ts, chunk, ty, p, c->comm, s);
        }
        return p2p_group_end(r, c->comm);
    }
    case NVS_PRIM_SENDRECV: {
        NCCL_TRY(ncclGroupStart(), c->comm);
        ncclResult_t r = ncclSend(op->send, k->send_count, ty, nvs_ring_next(c->rank, c->size), c->comm, s);
        if (r == ncclSuccess) r = ncclRecv(op->recv, k->recv_count, ty, nvs_ring_prev(c->rank, c->size), c->comm, s);
        return p2p_group_end(r, c->comm);
    }
    }
    return NVS_OK;
}

ncclComm_t nvs_nccl_comm(nvs_comm *c) { return c ? c->comm : NULL; }

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

static nvs_result_t nwait(nvs_backend *b, nvs_comm *c, const nvs_op *op)
{
    char what[160], sz[32];
    snprintf(what, sizeof what, "%s of %s (%s, %s)", op->coll->name, nvs_format_size(op->bytes, sz, sizeof sz),
             nvs_dtype_name(op->type), op->inplace ? "in-place" : "out-of-place");
    return wait_stream(b, c, impl_of(b)->stream, what);
}

static nvs_result_t ngraph_begin(nvs_backend *b)
{
    /* thread-local capture: the threads runtime has other ranks' threads making CUDA calls meanwhile */
    CUDA_TRY(cudaStreamBeginCapture(impl_of(b)->stream, cudaStreamCaptureModeThreadLocal));
    return NVS_OK;
}

static nvs_result_t ngraph_end(nvs_backend *b, void **graph)
{
    cudaGraph_t g = NULL;
    cudaGraphExec_t exec = NULL;
    CUDA_TRY(cudaStreamEndCapture(impl_of(b)->stream, &g));
    cudaError_t e = cudaGraphInstantiate(&exec, g, 0);
    CUDA_CLEANUP(cudaGraphDestroy(g)); /* the instance keeps what it needs */
    if (e != cudaSuccess) return nvs_cuda_fail(NULL, "cudaGraphInstantiate", e);
    *graph = exec;
    return NVS_OK;
}

static nvs_result_t ngraph_launch(nvs_backend *b, void *graph)
{
    CUDA_TRY(cudaGraphLaunch((cudaGraphExec_t)graph, impl_of(b)->stream));
    return NVS_OK;
}

static void ngraph_free(nvs_backend *b, void *graph)
{
    (void)b;
    if (graph) CUDA_CLEANUP(cudaGraphExecDestroy((cudaGraphExec_t)graph));
}

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

static nvs_result_t ngroup_begin(nvs_backend *b)
{
    (void)b;
    NCCL_TRY(ncclGroupStart(), NULL);
    return NVS_OK;
}

static nvs_result_t ngroup_end(nvs_backend *b)
{
    (void)b;
    NCCL_TRY(ncclGroupEnd(), NULL);
    return NVS_OK;
}

static const struct nvs_backend_ops nccl_ops = {
    .name = "nccl", .comm_split = nsplit, .comm_free = nfree_comm, .comm_rank = ncrank, .comm_size = ncsize,
    .alloc = nalloc, .free = nfree, .fill = nfill, .poison = npoison, .verify = nverify, .launch = nlaunch,
    .wait = nwait, .graph_begin = ngraph_begin, .graph_end = ngraph_end, .graph_launch = ngraph_launch,
    .graph_free = ngraph_free, .group_begin = ngroup_begin, .group_end = ngroup_end, .finalize = nfinalize,
};

/* Which device this rank drives, decided before any NCCL call so that a bad launch fails with a clear message
 * (NCCL would otherwise stop with "Duplicate GPU detected" or hang). */
static nvs_result_t pick_device(nvs_backend *b, int visible, int *dev)
{
    nvs_rt *rt = b->rt;
    /* GPUs belong to the machine, also when its ranks are split into virtual hosts (--emulate-nodes) */
    int local_rank = rt->machine.local_rank, local_size = rt->machine.local_size;
    if (visible == 1)
        *dev = 0; /* the launcher gave each rank its own GPU (e.g. srun --gpus-per-task=1) */
    else if (local_rank < visible)
        *dev = rt->device >= 0 && rt->device < visible ? rt->device : local_rank;
    else {
        nvs_error("%d ranks run on host %s but only %d GPUs are visible there: start at most %d ranks per host "
                  "(mpirun --map-by ppr:%d:node; srun --ntasks-per-node=%d), or make more GPUs visible",
                  local_size, rt->machine.host, visible, visible, visible, visible);
        return NVS_ERR_USAGE;
    }
    /* one rank per GPU is the layout nvscale measures; idle GPUs are allowed (a 2-GPU test on an 8-GPU box) but
     * said once per host, since a launch that forgot ranks looks like that too */
    if (local_rank == 0 && visible > 1 && local_size < visible)
        nvs_warn("host %s: %d rank%s for %d visible GPUs, %d GPU%s idle (one rank per GPU: mpirun --map-by "
                 "ppr:%d:node; srun --ntasks-per-node=%d)",
                 rt->machine.host, local_size, local_size == 1 ? "" : "s", visible, visible - local_size,
                 visible - local_size == 1 ? " stays" : "s stay", visible, visible);
    return NVS_OK;
}

/* --emulate-nodes: NCCL counts hosts by a hash of NCCL_HOSTID when it is set, in place of hostname + boot id
 * (src/misc/utils.cc, getHostHash; read once per process, at NCCL's first call), and uses neither P2P nor SHM
 * between ranks of different hashes (src/transport/p2p.cc, shm.cc): a distinct value per virtual host makes the
 * virtual hosts talk over NET. NCCL_MNNVL_ENABLE=0: with several "hosts" NCCL would otherwise keep NVLink between
 * them where the NVLink fabric spans them (src/mnnvl.cc). One process per rank (MPI runtime): setenv happens
 * before any NCCL call of this process. */
static void emulated_host_env(nvs_rt *rt)
{
    if (!rt->emulated_nodes || strcmp(rt->ops->name, "mpi")) return;
    const char *old = getenv("NCCL_HOSTID");
    if (old && rt->rank == 0)
        nvs_warn("NCCL_HOSTID=%s is replaced by one value per virtual host (--emulate-nodes)", old);
    const char *mnnvl = getenv("NCCL_MNNVL_ENABLE");
    if (mnnvl && strcmp(mnnvl, "0") && rt->rank == 0)
        nvs_warn("NCCL_MNNVL_ENABLE=%s: NCCL may keep NVLink between the virtual hosts (--emulate-nodes sets 0 "
                 "unless the user set it)",
                 mnnvl);
    if (setenv("NCCL_HOSTID", rt->host, 1) || (!mnnvl && setenv("NCCL_MNNVL_ENABLE", "0", 1)))
        nvs_warn("setenv NCCL_HOSTID: %s: NCCL may see one host", strerror(errno));
}

/* Which GPU a rank drives, as check_duplicates gathers it. */
struct gpu_ident {
    char host[64];
    char bus[32];
};

/* Two ranks of one host on the same GPU is a launch mistake (CUDA_VISIBLE_DEVICES=0 for every rank, say). Every
 * rank sees the same gathered list, so all agree without another collective, and the first pair is said once.
 * `all`: room for every rank's, allocated before the set-up's agreement (its failure is this rank's alone). */
static nvs_result_t check_duplicates(nvs_backend *b, int visible, struct gpu_ident *all)
{
    nvs_rt *rt = b->rt;
    struct gpu_ident mine = {{0}, {0}};
    snprintf(mine.host, sizeof mine.host, "%s", rt->machine.host);
    snprintf(mine.bus, sizeof mine.bus, "%s", b->pci_bus_id);
    nvs_result_t res = nvs_allgather(rt, &mine, all, sizeof mine, "GPU assignment check");
    int first = -1, second = -1, sharing = 0;
    for (int j = 1; res == NVS_OK && j < rt->size && first < 0; j++)
        for (int i = 0; i < j && first < 0; i++)
            if (!strcmp(all[i].host, all[j].host) && !strcasecmp(all[i].bus, all[j].bus)) {
                first = i;
                second = j;
            }
    for (int r = 0; first >= 0 && r < rt->size; r++)
        sharing += !strcmp(all[r].host, all[first].host) && !strcasecmp(all[r].bus, all[first].bus);
    if (first >= 0 && rt->rank == second)
        nvs_error("ranks %d and %d on host %s both drive GPU %s (%d ranks share it; %d GPU%s visible to each rank): "
                  "start one rank per GPU, or give each rank its own (srun --gpus-per-task=1)",
                  first, second, all[first].host, all[first].bus, sharing, visible, visible == 1 ? "" : "s");
    if (res != NVS_OK) return res;
    return first >= 0 ? NVS_ERR_USAGE : NVS_OK;
}

/* This rank's own GPU: made current, named (b->device_name, b->pci_bus_id) and sized. */
static nvs_result_t count_devices(int *visible)
{
    CUDA_TRY(cudaGetDeviceCount(visible));
    return NVS_OK;
}

static nvs_result_t gpu_setup(nvs_backend *b, int dev)
{
    CUDA_TRY(cudaSetDevice(dev));
    struct cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
    snprintf(b->device_name, sizeof b->device_name, "%s", prop.name);
    b->device_memory_bytes = prop.totalGlobalMem;
    CUDA_TRY(cudaDeviceGetPCIBusId(b->pci_bus_id, (int)sizeof b->pci_bus_id, dev));
    return NVS_OK;
}

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
 * cause lost; polled instead (await_world), and one that did not end is aborted, which frees it (NCCL user guide,
 * "Fault Tolerance": ncclCommAbort at any point of the initialization). It carries no traffic (nsplit), so no
 * collective ever runs on a non-blocking communicator. Before 2.14, blocking: one that fails frees what it made
 * and leaves no communicator (src/init.cc, ncclCommInitRankDev's fail path sets *newcomm = NULL). */
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
    if (res == NVS_OK) res = await_world(b, world, "ncclCommInitRank", &ended);
    if (res == NVS_ERR_INTERRUPTED) {
        /* a signal: rank 0 writes run.json "interrupted" before anything else (NVS_MAX_DEFERRED_COMMS); a world
         * whose creation did not end is only aborted, by nfinalize (user guide, "Fault Tolerance": ncclCommAbort
         * at any point of the initialization); one that ended stays im->world, which nfinalize aborts too. The
         * caller finalizes this backend after the write (nvs_backend_nccl_init keeps b->impl for it). */
        if (ended)
            impl_of(b)->world = world;
        else
            defer_abort(impl_of(b), world);
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
    emulated_host_env(rt);
    int visible = 0, dev = 0;
    /* every rank must learn that one of them cannot have a GPU (its driver failed, or too few GPUs for its host's
     * ranks), before anyone goes on to collective calls: one agreement, and rank 0 says that rank's own line (its
     * host, how many ranks share it, how many GPUs it sees). A launch with too few GPUs is the user's to change:
     * exit 2 on every rank (runtime.h nvs_rt_agree_ok_told_usage). */
    nvs_result_t mine = count_devices(&visible);
    if (mine == NVS_OK) mine = pick_device(b, visible, &dev);
    nvs_result_t ok = nvs_rt_agree_ok_told_usage(rt, mine, "assigning GPUs");
    if (ok != NVS_OK) return ok;
    rt->device = dev;

    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    /* ncclCommInitRank waits for every rank (polled only where the world is non-blocking: world_init), and
     * check_duplicates' gather and the unique id's broadcast wait for every rank until --timeout: this rank's own
     * set-up (its GPU, the gather's room, its stream and counters, rank 0's unique id) can fail here alone, so its
     * result is agreed on first, and a rank that failed stops the others at once, named (its sentence: run_flow.c
     * tells it), instead of returning alone and leaving them in the next collective */
    struct gpu_ident *all = calloc((size_t)rt->size, sizeof *all);
    mine = all ? gpu_setup(b, dev) : NVS_ERR_NOMEM;
    if (mine == NVS_OK) mine = world_setup(b, dev, &id);
    ok = nvs_comm_create_agree(rt, mine, "ncclCommInitRank");
    /* after it, the same outcome on every rank: the gathered list is the same everywhere */
    if (ok == NVS_OK) ok = check_duplicates(b, visible, all);
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
