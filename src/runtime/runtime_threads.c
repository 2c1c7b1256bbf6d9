/* Threads runtime: one process drives every visible GPU, one thread (= one rank) per GPU.
 * Host collectives go through a shared slot table guarded by a barrier that can time out and be aborted. */
#include "runtime/runtime.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/host_name.h"
#include "core/interrupt.h"
#include "core/log.h"

struct shared {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int nthreads;
    int arrived;
    unsigned long generation;
    int aborted;
    double beat_at; /* the last heartbeat of any rank (runtime.h nvs_rt_beat), nvs_now_s(); under lock */
    const void **slots; /* per rank: pointer published for the current collective */
    /* nvs_rt_tell_failed: the first rank that told it failed (-1: none), and its sentence; under lock */
    int failed_rank;
    char failed_why[NVS_RT_WHY_LEN];
};

struct thread_arg {
    nvs_rt rt;
    nvs_rank_main fn;
    void *arg;
    nvs_result_t result;
};

static nvs_result_t tbarrier(nvs_rt *rt, const char *what)
{
    struct shared *s = rt->impl;
    nvs_result_t res = NVS_OK;
    pthread_mutex_lock(&s->lock);
    if (s->aborted) {
        pthread_mutex_unlock(&s->lock);
        if (nvs_interrupted()) return NVS_ERR_INTERRUPTED;
        (void)nvs_rt_peer_failed(rt); /* as below */
        return NVS_ERR_ABORTED;
    }
    unsigned long gen = s->generation;
    if (++s->arrived == s->nthreads) {
        s->arrived = 0;
        s->generation++;
        pthread_cond_broadcast(&s->cond);
    } else {
        double start = nvs_now_s(), t0 = start;
        while (gen == s->generation && !s->aborted) {
            /* wake every 100 ms: a signal (Ctrl-C) stops every thread, not only the one it reached */
            struct timespec deadline;
            clock_gettime(CLOCK_MONOTONIC, &deadline); /* the condition's clock (nvs_rt_threads_run) */
            deadline.tv_nsec += 100000000;
            if (deadline.tv_nsec >= 1000000000) {
                deadline.tv_sec++;
                deadline.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&s->cond, &s->lock, &deadline);
            if (gen != s->generation) break;
            if (nvs_interrupted()) {
                s->aborted = 1;
                pthread_cond_broadcast(&s->cond);
                res = NVS_ERR_INTERRUPTED;
                break;
            }
            /* counted from the last heartbeat, if one came while waiting: a rank outside a training point waits
             * while the others measure it (runtime.h) */
            if (s->beat_at > t0) t0 = s->beat_at;
            if (nvs_now_s() - t0 > nvs_rt_host_timeout(rt)) {
                if (t0 > start)
                    nvs_error("timed out after %.0f s without a heartbeat (%.0f s in all) waiting for all ranks at %s "
                              "(%d of %d arrived)",
                              nvs_rt_host_timeout(rt), nvs_now_s() - start, what, s->arrived, s->nthreads);
                else
                    nvs_error("timed out after %.0f s waiting for all ranks at %s (%d of %d arrived)",
                              nvs_rt_host_timeout(rt), what, s->arrived, s->nthreads);
                s->aborted = 1;
                pthread_cond_broadcast(&s->cond);
                res = NVS_ERR_TIMEOUT;
                break;
            }
        }
        if (res == NVS_OK && gen == s->generation && s->aborted)
            res = nvs_interrupted() ? NVS_ERR_INTERRUPTED : NVS_ERR_ABORTED;
    }
    pthread_mutex_unlock(&s->lock);
    /* a rank that failed told why before its thread ended and woke this one (thread_main): rank 0 names it */
    if (res == NVS_ERR_ABORTED) (void)nvs_rt_peer_failed(rt);
    return res;
}

static nvs_result_t tallgather(nvs_rt *rt, const void *send, void *recv, size_t bytes, const char *what)
{
    struct shared *s = rt->impl;
    s->slots[rt->rank] = send;
    NVS_CHECK(tbarrier(rt, what));
    for (int r = 0; r < s->nthreads; r++) memcpy((char *)recv + (size_t)r * bytes, s->slots[r], bytes);
    return tbarrier(rt, what); /* nobody may reuse its send buffer before all have copied */
}

static nvs_result_t tbcast(nvs_rt *rt, void *buf, size_t bytes, int root, const char *what)
{
    struct shared *s = rt->impl;
    if (rt->rank == root) s->slots[root] = buf;
    NVS_CHECK(tbarrier(rt, what));
    if (rt->rank != root) memcpy(buf, s->slots[root], bytes);
    return tbarrier(rt, what);
}

static nvs_result_t tallreduce(nvs_rt *rt, double *vals, int n, nvs_rt_op op, const char *what)
{
    struct shared *s = rt->impl;
    double *mine = malloc((size_t)n * sizeof *mine);
    if (!mine) return NVS_ERR_NOMEM;
    memcpy(mine, vals, (size_t)n * sizeof *mine);
    s->slots[rt->rank] = mine;
    nvs_result_t res = tbarrier(rt, what);
    if (res == NVS_OK) {
        for (int i = 0; i < n; i++) {
            double acc = ((const double *)s->slots[0])[i];
            for (int r = 1; r < s->nthreads; r++) {
                double v = ((const double *)s->slots[r])[i];
                acc = op == NVS_RT_SUM ? acc + v : op == NVS_RT_MAX ? (v > acc ? v : acc) : (v < acc ? v : acc);
            }
            vals[i] = acc;
        }
        res = tbarrier(rt, what);
    }
    free(mine);
    return res;
}

static void tabort(nvs_rt *rt, int exit_code)
{
    (void)exit_code;
    struct shared *s = rt->impl;
    pthread_mutex_lock(&s->lock);
    s->aborted = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

static void tbeat(nvs_rt *rt)
{
    struct shared *s = rt->impl;
    pthread_mutex_lock(&s->lock);
    s->beat_at = nvs_now_s();
    pthread_mutex_unlock(&s->lock);
}

static void ttell(nvs_rt *rt, const char *why)
{
    struct shared *s = rt->impl;
    pthread_mutex_lock(&s->lock);
    if (s->failed_rank < 0) {
        s->failed_rank = rt->rank;
        snprintf(s->failed_why, sizeof s->failed_why, "%s", why);
    }
    pthread_mutex_unlock(&s->lock);
}

static int theard(nvs_rt *rt, int *rank, char *why)
{
    struct shared *s = rt->impl;
    pthread_mutex_lock(&s->lock);
    int heard = s->failed_rank >= 0 && s->failed_rank != rt->rank;
    if (heard) {
        *rank = s->failed_rank;
        snprintf(why, NVS_RT_WHY_LEN, "%s", s->failed_why);
    }
    pthread_mutex_unlock(&s->lock);
    return heard;
}

static const struct nvs_rt_ops threads_ops = {"threads", tbarrier, tallgather, tbcast, tallreduce, tabort, tbeat,
                                              ttell, theard};

static void *thread_main(void *p)
{
    struct thread_arg *ta = p;
    nvs_log_set_rank(ta->rt.rank, ta->rt.size);
    ta->result = ta->fn(&ta->rt, ta->arg);
    if (ta->result != NVS_OK && nvs_exit_code(ta->result) == 1) tabort(&ta->rt, 1);
    return NULL;
}

nvs_result_t nvs_rt_threads_run(int nthreads, double timeout_s, int emulate_nodes, nvs_rank_main fn, void *arg)
{
    if (nthreads < 1) nthreads = 1;
    if (emulate_nodes > 1) {
        /* NCCL decides "same host" from NCCL_HOSTID, read once per process (src/misc/utils.cc, getHostHash):
         * threads of one process are one host to NCCL whatever we tell it */
        fprintf(stderr, "nvscale: --emulate-nodes %d needs one process per rank: here one process drives every GPU "
                        "(no mpirun), and NCCL reads its host identity (NCCL_HOSTID) once per process, so threads "
                        "cannot be separate hosts. Run it under mpirun with one rank per GPU, e.g. mpirun -np %d "
                        "nvscale ... --emulate-nodes %d\n",
                emulate_nodes, nthreads > emulate_nodes ? nthreads : emulate_nodes, emulate_nodes);
        return NVS_ERR_USAGE;
    }
    struct shared s = {.nthreads = nthreads, .failed_rank = -1};
    /* tbarrier's 100 ms waits are on CLOCK_MONOTONIC: on CLOCK_REALTIME a wall clock stepped back (an NTP step)
     * would hold each wait, and with it Ctrl-C and --timeout, for as long as the step */
    pthread_condattr_t cattr;
    int prc = pthread_condattr_init(&cattr);
    if (prc) {
        nvs_error("pthread_condattr_init: %s", strerror(prc));
        return NVS_ERR_SYSTEM;
    }
    prc = pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    if (!prc) prc = pthread_cond_init(&s.cond, &cattr);
    pthread_condattr_destroy(&cattr);
    if (prc) {
        nvs_error("a condition variable on CLOCK_MONOTONIC: %s", strerror(prc));
        return NVS_ERR_SYSTEM;
    }
    prc = pthread_mutex_init(&s.lock, NULL);
    if (prc) {
        nvs_error("pthread_mutex_init: %s", strerror(prc));
        pthread_cond_destroy(&s.cond);
        return NVS_ERR_SYSTEM;
    }
    s.slots = calloc((size_t)nthreads, sizeof *s.slots);
    struct thread_arg *ta = calloc((size_t)nthreads, sizeof *ta);
    pthread_t *tid = calloc((size_t)nthreads, sizeof *tid);
    int *machine_node = calloc((size_t)nthreads, sizeof *machine_node); /* one machine: node 0 for every rank */
    char err[256];
    nvs_result_t res = NVS_OK;
    if (!s.slots || !ta || !tid || !machine_node) {
        res = NVS_ERR_NOMEM;
        goto out;
    }
    char host[64];
    nvs_host_name(host, sizeof host);
    int started = 0;
    for (int r = 0; r < nthreads; r++) {
        ta[r].rt = (nvs_rt){.ops = &threads_ops, .rank = r, .size = nthreads, .local_rank = r,
                            .local_size = nthreads, .node = 0, .nnodes = 1, .device = r,
                            .timeout_s = timeout_s, .impl = &s};
        memcpy(ta[r].rt.host, host, sizeof host);
        nvs_rt_set_machine(&ta[r].rt);
        /* --emulate-nodes 1: one virtual host holding every rank (one machine: every machine node is 0), only
         * the name changes; it cannot fail */
        if (emulate_nodes == 1) nvs_rt_split_virtual(&ta[r].rt, 1, machine_node, err, sizeof err);
        ta[r].fn = fn;
        ta[r].arg = arg;
        if (r == 0) continue; /* rank 0 runs on the calling thread */
        int rc = pthread_create(&tid[r], NULL, thread_main, &ta[r]);
        if (rc) {
            nvs_error("pthread_create for rank %d: %s", r, strerror(rc));
            tabort(&ta[0].rt, 1);
            res = NVS_ERR_SYSTEM;
            break;
        }
        started = r;
    }
    if (res == NVS_OK) thread_main(&ta[0]);
    for (int r = 1; r <= started; r++) {
        int jrc = pthread_join(tid[r], NULL);
        /* only EDEADLK/EINVAL/ESRCH, none possible for a thread created here and joined once: a bug if seen */
        if (jrc) nvs_error("pthread_join of rank %d: %s", r, strerror(jrc));
    }
    if (res == NVS_OK) {
        /* same severity order as nvs_rt_agree_result, over the threads */
        for (int r = 0; r < nthreads; r++) {
            nvs_result_t x = ta[r].result;
            if (x == NVS_ERR_ABORTED) continue;
            if (nvs_result_severity(x) > nvs_result_severity(res)) res = x;
        }
        if (res == NVS_OK)
            for (int r = 0; r < nthreads; r++)
                if (ta[r].result == NVS_ERR_ABORTED) res = NVS_ERR_ABORTED;
    }
    nvs_log_set_rank(0, 1);
out:
    free(machine_node);
    free(s.slots);
    free(ta);
    free(tid);
    pthread_cond_destroy(&s.cond);
    pthread_mutex_destroy(&s.lock);
    return res;
}
