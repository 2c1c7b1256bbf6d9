/* The runtime: who am I (rank, size, local rank, node) and host-side collectives between ranks.
 *
 * Two backends, one interface, so that nothing above this file knows how it was launched:
 *   mpi      one process per rank under mpirun/srun; local rank from an MPI shared-memory split.
 *   threads  no launcher: one process, one thread per visible GPU (CUDA_VISIBLE_DEVICES honoured).
 * Every host collective takes the run's timeout: a rank that never arrives turns into NVS_ERR_TIMEOUT and a
 * message naming what was awaited, never a silent hang.
 *
 * A collective given up on (NVS_ERR_TIMEOUT, NVS_ERR_INTERRUPTED, or an MPI error while waiting) may still be in
 * flight under MPI: the runtime then works on its own copy of the buffers, which it never frees, so the caller's
 * memory is free to go; every later collective of the rank fails at once with the same result (the other ranks
 * would pair it with the abandoned one), and the MPI runtime ends the job with MPI_Abort instead of MPI_Finalize
 * once `fn` has returned. So a rank writes what it measured before returning, without any collective (run_flow's
 * rank 0 does). The threads backend is alike: once a wait failed, every later collective fails. */
#ifndef NVS_RUNTIME_H
#define NVS_RUNTIME_H

#include <stddef.h>

#include "core/err.h"

typedef struct nvs_rt nvs_rt;

typedef enum { NVS_RT_SUM, NVS_RT_MAX, NVS_RT_MIN } nvs_rt_op;

struct nvs_rt_ops {
    const char *name;
    nvs_result_t (*barrier)(nvs_rt *rt, const char *what);
    /* Every rank contributes `bytes` at `send`; `recv` gets size*bytes, rank order. */
    nvs_result_t (*allgather)(nvs_rt *rt, const void *send, void *recv, size_t bytes, const char *what);
    nvs_result_t (*bcast)(nvs_rt *rt, void *buf, size_t bytes, int root, const char *what);
    nvs_result_t (*allreduce_f64)(nvs_rt *rt, double *vals, int n, nvs_rt_op op, const char *what);
    /* Tell every rank to stop (another rank failed): threads wake from barriers; MPI calls MPI_Abort. */
    void (*abort)(nvs_rt *rt, int exit_code);
    /* Send this rank's heartbeat to every other rank (nvs_rt_beat says when). Never blocks, never fails: a
     * heartbeat that could not be sent only means the others time out sooner. */
    void (*beat)(nvs_rt *rt);
    /* Tell every other rank that this one failed, with `why` (NVS_RT_WHY_LEN bytes, a sentence). Never blocks,
     * never fails (the others then only learn it later, from --timeout). */
    void (*tell_failed)(nvs_rt *rt, const char *why);
    /* Whether some other rank told it failed: 1 with its rank and sentence; 0 when none did. Never blocks. */
    int (*heard_failed)(nvs_rt *rt, int *rank, char *why);
};

/* A failure notice: "rank R (host H) failed in WHAT: " (host names up to 255 bytes, WHAT a phase's name) and the
 * cause, NVS_LOG_LAST_LEN at most, with its "(code text)": room for all of it with a short host name. */
#define NVS_RT_WHY_LEN 640

struct nvs_rt {
    const struct nvs_rt_ops *ops;
    int rank, size;
    int local_rank, local_size; /* within this host */
    int node, nnodes;           /* hosts numbered in order of their lowest rank */
    int device;                 /* CUDA device ordinal this rank drives (-1: none, host backend) */
    char host[64];
    /* --emulate-nodes K (0: off): the world is split into K virtual hosts of size/K consecutive ranks, and host
     * ("<machine>/vnode<i>"), node, nnodes, local_rank and local_size above are the virtual host's. `machine`
     * is always the real host this process runs on (equal to the above when not emulating): what GPUs are
     * visible, and whether two ranks share a GPU, are questions about the machine. */
    int emulated_nodes;
    struct {
        char host[64];
        int node, nnodes, local_rank, local_size;
    } machine;
    double timeout_s; /* for host collectives and GPU waits */
    double beat_at;   /* when this rank last sent its heartbeat (nvs_rt_beat), nvs_now_s() */
    /* nvs_rt_tell_failed / nvs_rt_peer_failed: whether this rank told the others it failed; whether another told
     * this one, which rank and its sentence (this rank's own sentence once it told); agreed_failed: an agreement
     * (nvs_rt_agree_result, nvs_rt_agree_ok) ended on another rank's failure, whose notice may follow */
    int told_failed, peer_failed, agreed_failed;
    int failed_rank;
    char failed_why[NVS_RT_WHY_LEN];
    void *impl;
};

/* A host wait (barrier, gather, agreement) gives up this long after --timeout, not at it. A rank whose peer never
 * joined a GPU collective waits for that collective; the peer, ahead of it, waits in the next host barrier,
 * started a few milliseconds earlier (it skipped the GPU work). With equal bounds the barrier would time out
 * first and say only "waiting for all ranks"; with this margin the rank at the GPU names the collective, its
 * size and its GPU, and stops the job (every rank is still out within --timeout plus a few seconds). */
#define NVS_RT_HOST_GRACE_S 2.0
static inline double nvs_rt_host_timeout(const nvs_rt *rt) { return rt->timeout_s + NVS_RT_HOST_GRACE_S; }

/* Heartbeats. A rank working alone for long, while others wait for it in a host collective (a training point that
 * they sit out: run/phase_train_measure.c), says it is still working with nvs_rt_beat() between its own bounded
 * steps. A host wait gives up nvs_rt_host_timeout() after its start or after the last heartbeat it received,
 * whichever is later: a rank stalled in such work is noticed within --timeout (+ grace + one interval), not after the
 * worst case of all the work. nvs_rt_beat() sends at most NVS_RT_BEATS_PER_TIMEOUT heartbeats per --timeout (a
 * clock read when none is due), so a waiting rank sees one at least every --timeout / 4 plus one step of the
 * sender's: a step may take up to 3/4 of --timeout + the grace before the waiting ranks call it a stall. */
#define NVS_RT_BEATS_PER_TIMEOUT 4.0
void nvs_rt_beat(nvs_rt *rt);

/* What a subcommand runs on every rank; its return value is that rank's result. */
typedef nvs_result_t (*nvs_rank_main)(nvs_rt *rt, void *arg);

typedef enum { NVS_LAUNCH_AUTO, NVS_LAUNCH_MPI, NVS_LAUNCH_THREADS } nvs_launch_kind;

/* Whether an MPI/PMI launcher started this process (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK, SLURM_STEP_ID
 * with SLURM_NTASKS). */
int nvs_rt_launched_by_mpi(void);
/* This process's rank as the launcher's environment tells it before MPI starts (0 when not launched), so that
 * a message printed before the runtime exists comes once, not once per rank. */
int nvs_rt_launcher_rank(void);

/* Start the runtime and run `fn` on every rank. `nthreads` is the number of ranks of the threads backend
 * (ignored under MPI). `emulate_nodes` > 0: split the ranks into that many virtual hosts (--emulate-nodes; a
 * bad split, or more than one virtual host under the threads backend, is NVS_ERR_USAGE with one message, before
 * `fn` runs). The result is the worst over the ranks of this process; under MPI the caller also combines it
 * over all ranks with nvs_rt_agree_result(). */
nvs_result_t nvs_rt_run(nvs_launch_kind kind, int nthreads, double timeout_s, int emulate_nodes, nvs_rank_main fn,
                        void *arg);

/* PURE. Applies --emulate-nodes k to rt, whose host/node/local fields are the machine's (copied into
 * rt->machine here), given the machine node number of every rank (machine_node[rank]). Virtual host i holds
 * ranks i*size/k .. (i+1)*size/k-1 and is named "<machine host>/vnode<i>". 0 on success; -1 with one sentence in
 * err when k < 1, k > size, k does not divide size, or a virtual host would span two machines (NCCL would then
 * treat ranks of different machines as one host). */
int nvs_rt_split_virtual(nvs_rt *rt, int k, const int *machine_node, char *err, size_t errlen);
/* PURE. Two hosts of one job with the same name (containers all called "localhost", a cloned image) would be one
 * name in every output that names a host (run.json's ranks, the merged topology, fleet labels) and one host to
 * whatever matches GPUs by host name. Given every rank's host name (names[r]) and node (nodes[r]), renames
 * `host` of node `node` to "<name>#<node>" (the name cut so that the suffix fits) when a rank of another node
 * has the same name; unchanged otherwise. Every host sharing the name is renamed, the first too, so that no
 * plain name stands for two. Returns 1 when renamed. */
int nvs_rt_distinct_host(char *host, size_t len, int node, const char (*names)[64], const int *nodes, int n);
/* Copies host/node/local fields into rt->machine (what every backend does before any emulation). */
void nvs_rt_set_machine(nvs_rt *rt);

/* Result agreed over all ranks: the most severe one (by exit code: 1 > 3 > 2 > 0, runtime errors first). */
nvs_result_t nvs_rt_agree_result(nvs_rt *rt, nvs_result_t mine);

/* Convenience wrappers. */
static inline nvs_result_t nvs_barrier(nvs_rt *rt, const char *what) { return rt->ops->barrier(rt, what); }
static inline nvs_result_t nvs_allgather(nvs_rt *rt, const void *s, void *r, size_t b, const char *what)
{
    return rt->ops->allgather(rt, s, r, b, what);
}
static inline nvs_result_t nvs_bcast(nvs_rt *rt, void *buf, size_t b, int root, const char *what)
{
    return rt->ops->bcast(rt, buf, b, root, what);
}
static inline nvs_result_t nvs_allreduce_f64(nvs_rt *rt, double *v, int n, nvs_rt_op op, const char *what)
{
    return rt->ops->allreduce_f64(rt, v, n, op, what);
}

/* One rank's local failure (out of memory, a setup that failed on its GPU), made known to every rank in one
 * allreduce that each enters whatever happened to it: a rank that failed alone and skipped the next collective
 * would leave the others waiting in it until --timeout, which then blames a "stalled or gone" rank. `mine`: this
 * rank's result so far; `max` (may be NULL): a value maximised over the ranks in the same call. Returns NVS_OK
 * when no rank failed; else `mine` where it failed (its own message says why) and NVS_ERR_ABORTED on the others,
 * where rank 0 names the first rank that failed and its error. */
nvs_result_t nvs_rt_agree_ok(nvs_rt *rt, nvs_result_t mine, double *max, const char *what);
/* nvs_rt_agree_ok for a failure that no phase will tell (a communicator's creation: collectives/backend.h
 * nvs_comm_create_agree, in the backend's start or in a phase): a rank that enters with its own failure tells the
 * others just after the agreement (nvs_rt_tell_failed: "rank R (host H) failed in WHAT: " and its last error line,
 * core/log.h nvs_log_cause), and rank 0 says that sentence (and run.json's reason takes it), not the code's text
 * alone. Rank 0 waits for the notice at most 2 s; the others return at once. */
nvs_result_t nvs_rt_agree_ok_told(nvs_rt *rt, nvs_result_t mine, const char *what);
/* nvs_rt_agree_ok_told for a check whose failure may be the user's to change (collectives/backend_nccl_device.c: more
 * ranks on a host than GPUs visible there): when any rank enters with NVS_ERR_USAGE, every rank returns
 * NVS_ERR_USAGE (exit 2 on every rank, the job ending normally; a usage error outranks another rank's failure in
 * the same agreement), and rank 0 says the lowest such rank's own line, "rank R (host H) failed in WHAT: " and its
 * last error line, carried to rank 0 in one collective (no failure notice: runtime.c told_usage says why). No usage
 * error: as nvs_rt_agree_ok_told. */
nvs_result_t nvs_rt_agree_ok_told_usage(nvs_rt *rt, nvs_result_t mine, const char *what);

/* A rank's own failure (out of memory, a CUDA error) in the middle of work that the other ranks share (a training
 * point's all-reduces): the others would wait for it until --timeout, then blame a "stalled or gone" rank; and
 * under MPI the failing rank's MPI_Abort reaches rank 0 as a SIGTERM, which calls the run "interrupted". So the
 * failing rank tells the others at once, in a sentence ("rank 1 (host h): out of memory in train x N=2"), and every
 * wait of theirs (host collectives, the backends' waits for a collective) polls nvs_rt_peer_failed(): NVS_OK, or
 * NVS_ERR_ABORTED once a rank told it failed; rank 0 then says so, once. The failing rank leaves rank 0 a few
 * seconds to write what was measured before the job ends (runtime_mpi.c). */
void nvs_rt_tell_failed(nvs_rt *rt, const char *why);
nvs_result_t nvs_rt_peer_failed(nvs_rt *rt);
/* A rank that learnt of another's failure from an agreement (rt->agreed_failed), not from its notice, and has no
 * collective left to wait in (run_flow's rank 0 before it writes run.json): polls for the notice, which the
 * failing rank sends just after that agreement, for at most max_s seconds. Never blocks longer: no collective,
 * so a rank that never tells (gone, or failed before it could) costs max_s, not a hang. NVS_ERR_ABORTED once
 * heard (rt->failed_why names the rank and why), else NVS_OK. */
nvs_result_t nvs_rt_await_notice(nvs_rt *rt, double max_s);

/* Backend entry points (runtime_mpi.c, runtime_threads.c). */
nvs_result_t nvs_rt_mpi_run(double timeout_s, int emulate_nodes, nvs_rank_main fn, void *arg);
nvs_result_t nvs_rt_threads_run(int nthreads, double timeout_s, int emulate_nodes, nvs_rank_main fn, void *arg);
/* The MPI communicator of a rank, for the MPI host backend (NULL under threads). Returned as void* so that
 * this header needs no mpi.h. */
void *nvs_rt_mpi_comm(nvs_rt *rt);

#endif
