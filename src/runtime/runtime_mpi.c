/* MPI runtime: one process per rank under mpirun / srun (or a singleton when started alone with the MPI host
 * backend). Host collectives are the non-blocking MPI calls polled against the run's timeout, so a rank that
 * never arrives is reported instead of hanging the job. */
#include <pthread.h>
#include <mpi.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/host_name.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "core/san.h"
#include "core/mpi_check.h"
#include "runtime/runtime.h"

struct mpi_impl {
    MPI_Comm world;
    /* Heartbeats (runtime.h nvs_rt_beat): empty messages on a communicator of their own, so that they never
     * match a collective's. sent[r]: how many this rank sent to rank r; got[r]: how many it received from r.
     * Every heartbeat is received before MPI_Finalize (drain_all_beats): a send left unmatched is erroneous. */
    MPI_Comm beats;
    long long *sent, *got;
    /* NVS_OK, or why a host collective was given up on (timeout, signal, MPI error) while its request was still
     * active: every later collective returns this at once, and the end is MPI_Abort, not MPI_Finalize (runtime.h) */
    nvs_result_t abandoned;
    /* nvs_rt_tell_failed's sentence, sent (tag NOTICE_TAG on `beats`) to every other rank; it stays here until
     * the job ends, as the sends may still read it */
    char notice[NVS_RT_WHY_LEN];
};

/* a failure notice's tag on the heartbeats' communicator (heartbeats are tag 0) */
#define NOTICE_TAG 1

static struct mpi_impl *impl_of(nvs_rt *rt) { return rt->impl; }

/* MPI's own text for an error code, or the code when MPI cannot say (an invalid code, MPI gone) */
static const char *mpi_text(int rc, char msg[MPI_MAX_ERROR_STRING])
{
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS || len <= 0 || !msg[0])
        snprintf(msg, MPI_MAX_ERROR_STRING, "MPI error code %d", rc);
    return msg;
}

nvs_result_t nvs_mpi_fail(const char *call, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    nvs_error("%s failed: %s", call, mpi_text(rc, msg));
    return NVS_ERR_MPI;
}

void nvs_mpi_cleanup_fail(const char *call, int rc)
{
    static __thread int failures; /* the first is a warning, the rest debug (as gpu_check.h's cleanup) */
    char msg[MPI_MAX_ERROR_STRING];
    nvs_log(failures++ ? NVS_LOG_DEBUG : NVS_LOG_WARN, "cleanup: %s failed: %s", call, mpi_text(rc, msg));
}

/* Receives the heartbeats that have arrived; how many. An MPI error here only loses heartbeats (debug). */
static int drain_beats(nvs_rt *rt)
{
    struct mpi_impl *im = impl_of(rt);
    int n = 0;
    for (;;) {
        int flag = 0, rc;
        MPI_Status st;
        if (im->beats == MPI_COMM_NULL) return n;
        if ((rc = MPI_Iprobe(MPI_ANY_SOURCE, 0, im->beats, &flag, &st)) != MPI_SUCCESS || !flag) {
            if (rc != MPI_SUCCESS) nvs_debug("MPI_Iprobe for heartbeats failed (code %d)", rc);
            return n;
        }
        if ((rc = MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, 0, im->beats, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
            nvs_debug("MPI_Recv of a heartbeat from rank %d failed (code %d)", st.MPI_SOURCE, rc);
            return n;
        }
        im->got[st.MPI_SOURCE]++;
        n++;
    }
}

static void mbeat(nvs_rt *rt)
{
    struct mpi_impl *im = impl_of(rt);
    if (im->beats == MPI_COMM_NULL) return;
    for (int r = 0; r < rt->size; r++) {
        if (r == rt->rank) continue;
        MPI_Request req;
        /* empty: it completes at once, and the receiver's drain matches it (freeing an active send is allowed) */
        int rc = MPI_Isend(NULL, 0, MPI_BYTE, r, 0, im->beats, &req);
        if (rc == MPI_SUCCESS) rc = MPI_Request_free(&req);
        if (rc != MPI_SUCCESS) {
            nvs_debug("heartbeat to rank %d not sent (code %d)", r, rc);
            continue;
        }
        im->sent[r]++;
    }
}

static void mtell(nvs_rt *rt, const char *why)
{
    struct mpi_impl *im = impl_of(rt);
    if (im->beats == MPI_COMM_NULL) return;
    snprintf(im->notice, sizeof im->notice, "%s", why);
    for (int r = 0; r < rt->size; r++) {
        if (r == rt->rank) continue;
        MPI_Request req;
        int rc = MPI_Isend(im->notice, (int)sizeof im->notice, MPI_CHAR, r, NOTICE_TAG, im->beats, &req);
        if (rc == MPI_SUCCESS) rc = MPI_Request_free(&req); /* the job ends soon: nothing waits for it */
        if (rc != MPI_SUCCESS) nvs_debug("failure notice to rank %d not sent (code %d)", r, rc);
    }
}

static int mheard(nvs_rt *rt, int *rank, char *why)
{
    struct mpi_impl *im = impl_of(rt);
    int flag = 0;
    MPI_Status st;
    if (im->beats == MPI_COMM_NULL) return 0;
    int rc = MPI_Iprobe(MPI_ANY_SOURCE, NOTICE_TAG, im->beats, &flag, &st);
    if (rc != MPI_SUCCESS || !flag) return 0;
    rc = MPI_Recv(why, NVS_RT_WHY_LEN, MPI_CHAR, st.MPI_SOURCE, NOTICE_TAG, im->beats, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        nvs_debug("MPI_Recv of a failure notice from rank %d failed (code %d)", st.MPI_SOURCE, rc);
        return 0;
    }
    why[NVS_RT_WHY_LEN - 1] = '\0';
    *rank = st.MPI_SOURCE;
    return 1;
}

/* Poll a request until done or the timeout passes: counted from the wait's start or from the last heartbeat
 * received, whichever is later (runtime.h). Yields, then sleeps, so that ranks oversubscribing a few cores (CI
 * runs 4 ranks on 2) leave the CPU to the rank they wait for. */
static nvs_result_t wait_req(nvs_rt *rt, MPI_Request *req, const char *what)
{
    double start = nvs_now_s(), since = start;
    int done = 0;
    for (unsigned spins = 0;; spins++) {
        MPI_TRY(MPI_Test(req, &done, MPI_STATUS_IGNORE));
        if (done) return NVS_OK;
        if (nvs_interrupted()) return NVS_ERR_INTERRUPTED; /* the run stops and keeps what it measured */
        NVS_CHECK(nvs_rt_peer_failed(rt)); /* a rank that failed told us: not a stall */
        if (drain_beats(rt)) since = nvs_now_s();
        double waited = nvs_now_s() - since;
        if (waited > nvs_rt_host_timeout(rt)) {
            if (since > start)
                nvs_error("timed out after %.0f s without a heartbeat (%.0f s in all) waiting for all ranks at %s; "
                          "some rank is stalled or gone",
                          nvs_rt_host_timeout(rt), nvs_now_s() - start, what);
            else
                nvs_error("timed out after %.0f s waiting for all ranks at %s; some rank is stalled or gone",
                          nvs_rt_host_timeout(rt), what);
            return NVS_ERR_TIMEOUT;
        }
        if (waited < 1e-3)
            sched_yield();
        else
            nanosleep(&(struct timespec){0, 100000}, NULL);
    }
}

static MPI_Comm comm_of(nvs_rt *rt) { return impl_of(rt)->world; }

/* A host collective works on the runtime's own copy of the caller's buffer (`stage`, malloc'd by the caller of
 * this; NULL for a barrier), never on the caller's memory: a request given up on stays active inside MPI, which
 * may still write into its buffer at any later MPI call of this process, long after the caller's stack frame or
 * buffer is gone. Once the request completed, `n` bytes at `result` are copied out to `out` and the stage freed;
 * if it did not, the stage is left to MPI (never freed, never reused) and the runtime is marked abandoned. */
static nvs_result_t finish(nvs_rt *rt, MPI_Request *req, void *stage, const void *result, void *out, size_t n,
                           const char *what)
{
    nvs_result_t r = wait_req(rt, req, what);
    if (r != NVS_OK) {
        impl_of(rt)->abandoned = r;
        return r;
    }
    if (n) memcpy(out, result, n);
    free(stage);
    return NVS_OK;
}

/* After an abandoned request every collective is refused with its error: on the other ranks a new one would pair
 * with the abandoned one (collectives match by order), and mixing them is undefined in MPI. */
static nvs_result_t refused(nvs_rt *rt, const char *what)
{
    nvs_result_t r = impl_of(rt)->abandoned;
    if (r != NVS_OK)
        nvs_debug("%s not started: an earlier host collective was given up on (%s)", what, nvs_result_text(r));
    return r;
}

static nvs_result_t mbarrier(nvs_rt *rt, const char *what)
{
    NVS_CHECK(refused(rt, what));
    MPI_Request req;
    MPI_TRY(MPI_Ibarrier(comm_of(rt), &req));
    return finish(rt, &req, NULL, NULL, NULL, 0, what);
}

static nvs_result_t mallgather(nvs_rt *rt, const void *send, void *recv, size_t bytes, const char *what)
{
    if (bytes > (size_t)INT32_MAX) return nvs_mpi_fail("MPI_Iallgather (message over 2 GiB)", MPI_ERR_COUNT);
    NVS_CHECK(refused(rt, what));
    size_t all = bytes * (size_t)rt->size;
    char *stage = malloc(bytes + all + 1); /* this rank's block, then every rank's */
    if (!stage) return NVS_ERR_NOMEM;
    if (bytes) memcpy(stage, send, bytes);
    MPI_Request req;
    int rc = MPI_Iallgather(stage, (int)bytes, MPI_BYTE, stage + bytes, (int)bytes, MPI_BYTE, comm_of(rt), &req);
    if (rc != MPI_SUCCESS) {
        free(stage);
        return nvs_mpi_fail("MPI_Iallgather", rc);
    }
    return finish(rt, &req, stage, stage + bytes, recv, all, what);
}

static nvs_result_t mbcast(nvs_rt *rt, void *buf, size_t bytes, int root, const char *what)
{
    if (bytes > (size_t)INT32_MAX) return nvs_mpi_fail("MPI_Ibcast (message over 2 GiB)", MPI_ERR_COUNT);
    NVS_CHECK(refused(rt, what));
    char *stage = malloc(bytes + 1);
    if (!stage) return NVS_ERR_NOMEM;
    if (bytes) memcpy(stage, buf, bytes);
    MPI_Request req;
    int rc = MPI_Ibcast(stage, (int)bytes, MPI_BYTE, root, comm_of(rt), &req);
    if (rc != MPI_SUCCESS) {
        free(stage);
        return nvs_mpi_fail("MPI_Ibcast", rc);
    }
    return finish(rt, &req, stage, stage, buf, bytes, what);
}

static nvs_result_t mallreduce(nvs_rt *rt, double *vals, int n, nvs_rt_op op, const char *what)
{
    NVS_CHECK(refused(rt, what));
    MPI_Op mop = op == NVS_RT_SUM ? MPI_SUM : op == NVS_RT_MAX ? MPI_MAX : MPI_MIN;
    size_t bytes = (size_t)n * sizeof *vals;
    double *stage = malloc(bytes + 1);
    if (!stage) return NVS_ERR_NOMEM;
    memcpy(stage, vals, bytes);
    MPI_Request req;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, stage, n, MPI_DOUBLE, mop, comm_of(rt), &req);
    if (rc != MPI_SUCCESS) {
        free(stage);
        return nvs_mpi_fail("MPI_Iallreduce", rc);
    }
    return finish(rt, &req, stage, stage, vals, bytes, what);
}

static void mabort(nvs_rt *rt, int exit_code)
{
    (void)rt;
    MPI_Abort(MPI_COMM_WORLD, exit_code);
}

static const struct nvs_rt_ops mpi_ops = {"mpi",  mbarrier, mallgather, mbcast, mallreduce,
                                          mabort, mbeat,    mtell,      mheard};

/* At the end of a run that ends well: every heartbeat sent to this rank, received (an all-to-all of the counts
 * says how many), so that none is left unmatched at MPI_Finalize. They were sent before their senders got here:
 * the wait is short, bounded all the same. */
static nvs_result_t drain_all_beats(nvs_rt *rt)
{
    struct mpi_impl *im = impl_of(rt);
    long long *want = calloc((size_t)rt->size + 1, sizeof *want);
    if (!want) return NVS_ERR_NOMEM;
    MPI_Request req;
    int rc = MPI_Ialltoall(im->sent, 1, MPI_LONG_LONG, want, 1, MPI_LONG_LONG, im->world, &req);
    if (rc != MPI_SUCCESS) {
        free(want);
        return nvs_mpi_fail("MPI_Ialltoall (heartbeat counts)", rc);
    }
    /* `want` must outlive a request given up on (finish's rule): kept then */
    nvs_result_t r = wait_req(rt, &req, "counting heartbeats at the end");
    if (r != NVS_OK) {
        im->abandoned = r;
        return r;
    }
    double t0 = nvs_now_s();
    for (int s = 0; s < rt->size; s++)
        while (im->got[s] < want[s]) {
            if (!drain_beats(rt)) {
                if (nvs_now_s() - t0 > nvs_rt_host_timeout(rt)) {
                    nvs_error("%lld heartbeat(s) from rank %d never arrived within %.0f s", want[s] - im->got[s], s,
                              nvs_rt_host_timeout(rt));
                    free(want);
                    im->abandoned = NVS_ERR_TIMEOUT; /* unmatched sends: MPI_Abort, not MPI_Finalize */
                    return NVS_ERR_TIMEOUT;
                }
                nanosleep(&(struct timespec){0, 100000}, NULL);
            }
        }
    free(want);
    return NVS_OK;
}

void *nvs_rt_mpi_comm(nvs_rt *rt)
{
    return rt && rt->ops == &mpi_ops ? &((struct mpi_impl *)rt->impl)->world : NULL;
}

/* Local rank and node numbering from an MPI shared-memory split (one communicator per host). */
static nvs_result_t discover_nodes(nvs_rt *rt)
{
    MPI_Comm local;
    MPI_TRY(MPI_Comm_split_type(comm_of(rt), MPI_COMM_TYPE_SHARED, rt->rank, MPI_INFO_NULL, &local));
    int leader = rt->rank;
    const char *call = "MPI_Comm_rank";
    int rc = MPI_Comm_rank(local, &rt->local_rank);
    if (rc == MPI_SUCCESS && (rc = MPI_Comm_size(local, &rt->local_size)) != MPI_SUCCESS) call = "MPI_Comm_size";
    /* world rank of this host's local rank 0 */
    if (rc == MPI_SUCCESS && (rc = MPI_Bcast(&leader, 1, MPI_INT, 0, local)) != MPI_SUCCESS) call = "MPI_Bcast";
    if (rc != MPI_SUCCESS) { /* the host's communicator goes too */
        nvs_result_t r = nvs_mpi_fail(call, rc);
        MPI_CLEANUP(MPI_Comm_free(&local));
        return r;
    }
    MPI_TRY(MPI_Comm_free(&local));
    int *leaders = malloc((size_t)rt->size * sizeof *leaders);
    if (!leaders) return NVS_ERR_NOMEM;
    int is_leader = rt->local_rank == 0 ? rt->rank : -1;
    rc = MPI_Allgather(&is_leader, 1, MPI_INT, leaders, 1, MPI_INT, comm_of(rt));
    if (rc != MPI_SUCCESS) {
        free(leaders);
        return nvs_mpi_fail("MPI_Allgather", rc);
    }
    rt->nnodes = 0;
    rt->node = 0;
    for (int r = 0; r < rt->size; r++) {
        if (leaders[r] < 0) continue;
        if (leaders[r] < leader) rt->node++;
        rt->nnodes++;
    }
    free(leaders);
    return NVS_OK;
}

/* Hosts of the same name made distinct (nvs_rt_distinct_host): every rank's name and node to every rank. */
struct host_id {
    int node;
    char host[64];
};

static nvs_result_t distinct_hosts(nvs_rt *rt)
{
    struct host_id me = {.node = rt->node}, *all = calloc((size_t)rt->size, sizeof *all);
    char (*names)[64] = calloc((size_t)rt->size, sizeof *names);
    int *nodes = calloc((size_t)rt->size, sizeof *nodes);
    nvs_result_t res = NVS_ERR_NOMEM;
    if (all && names && nodes) {
        snprintf(me.host, sizeof me.host, "%s", rt->host);
        res = nvs_allgather(rt, &me, all, sizeof me, "the host names");
    }
    if (res == NVS_OK) {
        for (int r = 0; r < rt->size; r++) {
            memcpy(names[r], all[r].host, sizeof names[r]);
            names[r][63] = '\0';
            nodes[r] = all[r].node;
        }
        char was[64];
        snprintf(was, sizeof was, "%s", rt->host);
        if (nvs_rt_distinct_host(rt->host, sizeof rt->host, rt->node, (const char(*)[64])names, nodes, rt->size) &&
            rt->local_rank == 0)
            nvs_warn("host %d is called '%s' as another host of this job: named '%s' in what this run writes", rt->node,
                     was, rt->host);
    }
    free(all);
    free(names);
    free(nodes);
    return res;
}

/* --emulate-nodes: every rank needs every rank's machine to check the split; all ranks reach the same verdict,
 * rank 0 says it. */
static nvs_result_t emulate(nvs_rt *rt, int k)
{
    int *machine_node = malloc((size_t)rt->size * sizeof *machine_node);
    if (!machine_node) return NVS_ERR_NOMEM;
    nvs_result_t res = nvs_allgather(rt, &rt->node, machine_node, sizeof rt->node, "--emulate-nodes");
    char err[512];
    if (res == NVS_OK && nvs_rt_split_virtual(rt, k, machine_node, err, sizeof err)) {
        if (rt->rank == 0) fprintf(stderr, "nvscale: %s\n", err);
        res = NVS_ERR_USAGE;
    }
    free(machine_node);
    return res;
}

/* Ctrl-C or SIGTERM while ranks were still starting: nothing was measured yet (the run directory comes later).
 * Said and ended with write and _exit only: the watchdog thread calls it while the main thread may be inside
 * MPI_Init, whose locks and stdio state are not ours to touch. */
static void exit_interrupted_at_startup(void)
{
    char msg[160];
    int n = snprintf(msg, sizeof msg, "nvscale[rank %d]: interrupted by signal %d during MPI start-up: nothing "
                                      "was measured\n", nvs_rt_launcher_rank(), nvs_interrupted());
    if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0) { /* nothing more to do */
    }
    _exit(130);
}

/* --timeout covers MPI's start-up too: a rank that never starts (stopped, lost, a launcher stuck) would leave the
 * others inside MPI_Init for good. This thread ends the process after timeout_s unless start-up finished, and at
 * once on a signal (interrupt.h): MPI_Init retries the waits a signal cuts short, so the main thread would notice
 * a Ctrl-C only when MPI_Init returns; with a rank missing that was --timeout later, ending in exit 1 and "did not
 * complete within" instead of 130 and "interrupted" (seen: SIGINT to rank 0 of `mpirun -np 2` with rank 1
 * stopped, --timeout 31: out after 35 s). */
struct init_watch {
    double timeout_s;
    atomic_int done; /* written by the main thread, read by the watchdog: volatile alone is a data race in C11 */
};

static void *init_watchdog(void *p)
{
    struct init_watch *w = p;
    double t0 = nvs_now_s();
    while (!atomic_load(&w->done)) {
        if (nvs_interrupted()) exit_interrupted_at_startup();
        if (nvs_now_s() - t0 > w->timeout_s) {
            char msg[256];
            int n = snprintf(msg, sizeof msg,
                             "nvscale[rank %d]: error: MPI start-up did not complete within %.0f s (--timeout): a "
                             "rank of the job did not start or is stopped\n",
                             nvs_rt_launcher_rank(), w->timeout_s);
            if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0) { /* nothing more to do */
            }
            _exit(1);
        }
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    return NULL;
}

nvs_result_t nvs_rt_mpi_run(double timeout_s, int emulate_nodes, nvs_rank_main fn, void *arg)
{
    int provided = 0;
    struct init_watch watch = {.timeout_s = timeout_s};
    pthread_t wt;
    int have_watch = nvs_thread_start(&wt, init_watchdog, &watch) == 0; /* signals: the main thread's */
    NVS_LSAN_IGNORE_BEGIN(); /* core/san.h: Open MPI's own allocations until exit */
    int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    NVS_LSAN_IGNORE_END();
    int barrier_rc = MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        /* start-up ends when every rank has arrived */
        MPI_Request req;
        int done = 0;
        barrier_rc = MPI_Ibarrier(MPI_COMM_WORLD, &req);
        while (barrier_rc == MPI_SUCCESS && !done && !nvs_interrupted() &&
               (barrier_rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS)
            if (!done) nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    atomic_store(&watch.done, 1);
    if (have_watch) pthread_join(wt, NULL);
    if (nvs_interrupted()) exit_interrupted_at_startup();
    if (rc != MPI_SUCCESS) {
        nvs_error("MPI_Init_thread failed (code %d): is this MPI library the one nvscale was built with?", rc);
        return NVS_ERR_MPI;
    }
    struct mpi_impl impl = {.world = MPI_COMM_NULL, .beats = MPI_COMM_NULL};
    nvs_rt rt = {.ops = &mpi_ops, .device = -1, .timeout_s = timeout_s, .impl = &impl};
    nvs_result_t res = NVS_OK;
    if (barrier_rc != MPI_SUCCESS) { /* the ranks did not meet: nothing can be agreed on */
        res = nvs_mpi_fail("MPI_Ibarrier/MPI_Test (start-up: every rank arriving)", barrier_rc);
        goto out;
    }
    /* Errors come back as return codes (checked everywhere) instead of aborting inside MPI. */
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &impl.world);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(impl.world, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(impl.world, &rt.rank);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(impl.world, &rt.size);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(impl.world, &impl.beats); /* its error handler too */
    if (rc != MPI_SUCCESS) {
        res = nvs_mpi_fail("MPI communicator setup", rc);
        goto out;
    }
    impl.sent = calloc((size_t)rt.size, sizeof *impl.sent);
    impl.got = calloc((size_t)rt.size, sizeof *impl.got);
    if (!impl.sent || !impl.got) {
        res = NVS_ERR_NOMEM;
        goto out;
    }
    nvs_log_set_rank(rt.rank, rt.size);
    nvs_host_name(rt.host, sizeof rt.host);
    NVS_CHECK_GOTO(discover_nodes(&rt), res, out);
    if (rt.nnodes > 1) NVS_CHECK_GOTO(distinct_hosts(&rt), res, out);
    rt.device = rt.local_rank; /* the machine's local rank, also when emulating hosts */
    nvs_rt_set_machine(&rt);
    if (emulate_nodes > 0) NVS_CHECK_GOTO(emulate(&rt, emulate_nodes), res, out);
    res = fn(&rt, arg);
    /* A job of one process has no peer to stop: it ends as any program does, without MPI_Abort's banner (17
     * lines of Open MPI's on stderr after nvscale's own message, e.g. `nvscale coll >&-`) */
    if (rt.size == 1 && impl.abandoned == NVS_OK) goto out;
    if (res == NVS_ERR_INTERRUPTED) {
        /* rank 0 has written what was measured; it ends the job. The others wait for that (a few seconds at
         * most: if rank 0 is gone, nobody will) rather than finalize with operations in flight. */
        if (rt.rank == 0) MPI_Abort(MPI_COMM_WORLD, 130);
        nanosleep(&(struct timespec){5, 0}, NULL);
        _exit(130);
    }
    if (nvs_exit_code(res) == 1 && (rt.told_failed || rt.peer_failed || rt.agreed_failed) && rt.rank != 0) {
        /* it told the others (nvs_rt_tell_failed), or stopped for a rank that did or will (rank 0 among them, or
         * not): rank 0 writes what was measured and ends the job itself. An MPI_Abort now would reach rank 0 as the
         * launcher's SIGTERM, maybe before its write, and call the run "interrupted". 5 s is the interrupted ranks'
         * wait below; if rank 0 is stuck, the abort below ends it. */
        double until = nvs_now_s() + 5.0;
        while (nvs_now_s() < until && !nvs_interrupted()) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    if (nvs_exit_code(res) == 1) {
        /* A rank that failed cannot take part in the agreement; stop the whole job now, as mpirun would. */
        nvs_error("rank %d stopping the job: %s", rt.rank, nvs_result_text(res));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    res = nvs_rt_agree_result(&rt, res);
    if (impl.abandoned == NVS_OK) {
        nvs_result_t d = drain_all_beats(&rt);
        if (d != NVS_OK && res == NVS_OK) res = d;
    }
out:
    if (impl.abandoned != NVS_OK) {
        /* A host collective given up on is still active: MPI_Finalize would wait for it (its peers may never come)
         * and freeing the communicator could progress it. What was measured is written by now (rank 0 writes it
         * before fn returns): the job ends here, as after any other failure of a rank. */
        MPI_Abort(MPI_COMM_WORLD, nvs_exit_code(res != NVS_OK ? res : impl.abandoned));
    }
    /* the result is decided: a failure now is a warning (mpi_check.h) */
    if (impl.beats != MPI_COMM_NULL) MPI_CLEANUP(MPI_Comm_free(&impl.beats));
    if (impl.world != MPI_COMM_NULL) MPI_CLEANUP(MPI_Comm_free(&impl.world));
    free(impl.sent);
    free(impl.got);
    NVS_LSAN_IGNORE_BEGIN();
    MPI_CLEANUP(MPI_Finalize());
    NVS_LSAN_IGNORE_END();
    nvs_log_set_rank(0, 1);
    return res;
}
