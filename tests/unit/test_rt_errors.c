/* The runtime after a failure (src/runtime): nvs_rt_agree_ok, where one rank's local failure stops every rank in
 * one collective (the others get NVS_ERR_ABORTED and rank 0 names the rank); nvs_rt_agree_ok_told_usage, where a
 * usage error on one rank is exit 2 on every rank and rank 0 says that rank's own line; and the MPI runtime after a
 * host collective it gave up on (timeout): every later collective fails at once, and the job ends with MPI_Abort
 * even when the rank function goes on as if nothing happened. The MPI cases start this binary again under mpirun. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "runtime/runtime.h"
#include "t.h"

/* ---- nvs_rt_agree_ok on the threads runtime ---------------------------------------------------------------- */

struct agree_job {
    unsigned fail_mask;  /* ranks whose local step failed */
    unsigned usage_mask; /* ranks whose local step found a usage error (with told == 2) */
    int told;            /* 1: nvs_rt_agree_ok_told, 2: nvs_rt_agree_ok_told_usage; a failing rank logs its cause */
    nvs_result_t got[3];
    double max[3];
};

static nvs_result_t agree_rank(nvs_rt *rt, void *arg)
{
    struct agree_job *j = arg;
    double v = 10.0 * rt->rank;
    nvs_result_t mine = j->fail_mask & (1u << rt->rank) ? NVS_ERR_CUDA : NVS_OK;
    if (j->usage_mask & (1u << rt->rank)) mine = NVS_ERR_USAGE;
    if (j->told) {
        nvs_log_forget_error();
        if (mine == NVS_ERR_CUDA) nvs_error("cudaMalloc of 64 MiB on rank %d failed: CUDA error", rt->rank);
        if (mine == NVS_ERR_USAGE)
            nvs_error("%d ranks run on host %s but only %d GPUs are visible there", rt->size, rt->host, rt->rank);
        j->got[rt->rank] = j->told == 2 ? nvs_rt_agree_ok_told_usage(rt, mine, "assigning GPUs")
                                        : nvs_rt_agree_ok_told(rt, mine, "the test's setup");
        v = 20; /* nothing maximised */
    } else {
        j->got[rt->rank] = nvs_rt_agree_ok(rt, mine, &v, "the test's setup");
    }
    j->max[rt->rank] = v;
    return NVS_OK; /* the results are looked at by the case */
}

/* runs the agreement on `n` ranks; returns what went to stderr (malloc'd) */
static char *agree_n(struct agree_job *j, int n)
{
    fflush(stderr);
    FILE *cap = tmpfile();
    T_ASSERT(cap != NULL);
    int keep = dup(2);
    dup2(fileno(cap), 2);
    nvs_result_t r = nvs_rt_threads_run(n, 10, 0, agree_rank, j);
    fflush(stderr);
    dup2(keep, 2);
    close(keep);
    char *err = t_slurp(cap);
    fclose(cap);
    T_EQ_I(r, NVS_OK);
    return err;
}

static char *agree(struct agree_job *j) { return agree_n(j, 3); }

static void t_agree_none_failed(void)
{
    struct agree_job j = {0};
    char *err = agree(&j);
    for (int r = 0; r < 3; r++) {
        T_EQ_I(j.got[r], NVS_OK);
        T_NEAR(j.max[r], 20, 0); /* the value maximised in the same call */
    }
    T_EQ_S(err, "");
    free(err);
}

static void t_agree_one_failed(void)
{
    struct agree_job j = {.fail_mask = 1u << 1};
    char *err = agree(&j);
    T_EQ_I(j.got[1], NVS_ERR_CUDA); /* its own error, said by whatever failed */
    T_EQ_I(j.got[0], NVS_ERR_ABORTED);
    T_EQ_I(j.got[2], NVS_ERR_ABORTED);
    T_CONTAINS(err, "rank 1 failed in the test's setup: CUDA error");
    free(err);
    /* two failed: the first is named, once */
    j = (struct agree_job){.fail_mask = 1u << 1 | 1u << 2};
    err = agree(&j);
    T_EQ_I(j.got[0], NVS_ERR_ABORTED);
    T_EQ_I(j.got[2], NVS_ERR_CUDA);
    T_CONTAINS(err, "rank 1 failed in");
    T_ASSERT(!strstr(strstr(err, "rank 1 failed in") + strlen("rank 1 failed in"), "failed in"));
    free(err);
    /* rank 0 failed itself: nobody else speaks (its own message says why) */
    j = (struct agree_job){.fail_mask = 1u};
    err = agree(&j);
    T_EQ_I(j.got[0], NVS_ERR_CUDA);
    T_EQ_I(j.got[1], NVS_ERR_ABORTED);
    T_EQ_S(err, "");
    free(err);
}

/* nvs_rt_agree_ok_told (before a communicator's creation): rank 0 says the failing rank's own line, told just after
 * the agreement, not the code's text alone; rank 0 itself failing: it tells, nobody else speaks */
static void t_agree_told(void)
{
    struct agree_job j = {.fail_mask = 1u << 1, .told = 1};
    char *err = agree(&j);
    T_EQ_I(j.got[1], NVS_ERR_CUDA);
    T_EQ_I(j.got[0], NVS_ERR_ABORTED);
    T_EQ_I(j.got[2], NVS_ERR_ABORTED);
    T_CONTAINS(err, "rank 1 (host ");
    T_CONTAINS(err, ") failed in the test's setup: cudaMalloc of 64 MiB on rank 1 failed: CUDA error; every rank stops");
    T_ASSERT(!strstr(err, "rank 1 failed in the test's setup: CUDA error")); /* the code's text alone */
    free(err);
    j = (struct agree_job){.fail_mask = 1u, .told = 1};
    err = agree(&j);
    T_EQ_I(j.got[0], NVS_ERR_CUDA);
    T_EQ_I(j.got[1], NVS_ERR_ABORTED);
    T_ASSERT(!strstr(err, "every rank stops"));
    free(err);
}

/* nvs_rt_agree_ok_told_usage (the NCCL backend assigning GPUs): a usage error on one rank is NVS_ERR_USAGE on every
 * rank (exit 2, not a failure: no notice, so nothing left marks the run failed), and rank 0 says that rank's own
 * line; it used to say "rank 2 failed in assigning GPUs: usage error" only */
static void t_agree_told_usage(void)
{
    struct agree_job j = {.usage_mask = 1u << 2, .told = 2};
    char *err = agree(&j);
    for (int r = 0; r < 3; r++) T_EQ_I(j.got[r], NVS_ERR_USAGE);
    T_CONTAINS(err, "[rank 0]: error: rank 2 (host ");
    T_CONTAINS(err, ") failed in assigning GPUs: 3 ranks run on host ");
    T_CONTAINS(err, " but only 2 GPUs are visible there (usage error); every rank stops");
    free(err);
    /* a usage error outranks another rank's failure in the same agreement; the usage error's line is said, and the
     * failing rank tells nobody (a notice would turn exit 2 into a failure) */
    j = (struct agree_job){.fail_mask = 1u << 1, .usage_mask = 1u << 2, .told = 2};
    err = agree(&j);
    for (int r = 0; r < 3; r++) T_EQ_I(j.got[r], NVS_ERR_USAGE);
    T_CONTAINS(err, "[rank 0]: error: rank 2 (host ");
    T_ASSERT(!strstr(err, "rank 1 (host "));
    free(err);
    /* rank 0's own: said once, by itself */
    j = (struct agree_job){.usage_mask = 1u, .told = 2};
    err = agree(&j);
    for (int r = 0; r < 3; r++) T_EQ_I(j.got[r], NVS_ERR_USAGE);
    T_ASSERT(!strstr(err, "every rank stops"));
    T_ASSERT(!strstr(err, "[rank 1]"));
    free(err);
    /* no usage error: as nvs_rt_agree_ok_told (a failure is told, exit 1) */
    j = (struct agree_job){.fail_mask = 1u << 1, .told = 2};
    err = agree(&j);
    T_EQ_I(j.got[1], NVS_ERR_CUDA);
    T_EQ_I(j.got[0], NVS_ERR_ABORTED);
    T_CONTAINS(err, ") failed in assigning GPUs: cudaMalloc of 64 MiB on rank 1 failed: CUDA error; every rank stops");
    free(err);
    j = (struct agree_job){.told = 2};
    err = agree(&j);
    for (int r = 0; r < 3; r++) T_EQ_I(j.got[r], NVS_OK);
    T_EQ_S(err, "");
    free(err);
}

/* the single-rank runtime: its own usage error, returned, said once (by the rank itself) */
static void t_agree_told_usage_one_rank(void)
{
    struct agree_job j = {.usage_mask = 1u, .told = 2};
    char *err = agree_n(&j, 1);
    T_EQ_I(j.got[0], NVS_ERR_USAGE);
    T_CONTAINS(err, "error: 1 ranks run on host ");
    T_ASSERT(!strstr(err, "every rank stops"));
    free(err);
    j = (struct agree_job){.told = 2};
    err = agree_n(&j, 1);
    T_EQ_I(j.got[0], NVS_OK);
    T_EQ_S(err, "");
    free(err);
}

/* ---- heartbeats on the threads runtime (runtime.h nvs_rt_beat) ----------------------------------------------- */

/* Rank 0 works alone for `work_s`, beating every 50 ms (nvs_rt_beat sends one per timeout / 4), then stalls for
 * `stall_s` without a beat before the barrier; rank 1 waits in the barrier meanwhile. --timeout 0.5 s: a host wait
 * gives up 2.5 s after its start or its last heartbeat. */
struct beat_job {
    double work_s, stall_s;
    nvs_result_t got[2];
    double waited; /* rank 1's time in the barrier */
};

static nvs_result_t beat_rank(nvs_rt *rt, void *arg)
{
    struct beat_job *j = arg;
    double t0 = nvs_now_s();
    if (rt->rank == 0) {
        while (nvs_now_s() - t0 < j->work_s) {
            nvs_rt_beat(rt);
            nanosleep(&(struct timespec){0, 50000000}, NULL);
        }
        double s = j->stall_s;
        nanosleep(&(struct timespec){(time_t)s, (long)((s - (double)(time_t)s) * 1e9)}, NULL);
    }
    j->got[rt->rank] = nvs_barrier(rt, "the test's barrier");
    if (rt->rank == 1) j->waited = nvs_now_s() - t0;
    return NVS_OK;
}

static char *run_beats(struct beat_job *j)
{
    fflush(stderr);
    FILE *cap = tmpfile();
    T_ASSERT(cap != NULL);
    int keep = dup(2);
    dup2(fileno(cap), 2);
    nvs_result_t r = nvs_rt_threads_run(2, 0.5, 0, beat_rank, j);
    fflush(stderr);
    dup2(keep, 2);
    close(keep);
    char *err = t_slurp(cap);
    fclose(cap);
    (void)r;
    return err;
}

/* working alone longer than the wait's bound, with heartbeats: the waiting rank keeps waiting (it gave up after
 * 2.5 s before heartbeats) */
static void t_beats_keep_waiting(void)
{
    struct beat_job j = {.work_s = 4.0};
    char *err = run_beats(&j);
    T_EQ_I(j.got[0], NVS_OK);
    T_EQ_I(j.got[1], NVS_OK);
    T_ASSERT(j.waited >= 4.0);
    T_EQ_S(err, "");
    free(err);
}

/* heartbeats that stop: the wait gives up its bound after the last one, not after its own start, and says so */
static void t_beats_stop(void)
{
    struct beat_job j = {.work_s = 1.5, .stall_s = 6.0};
    char *err = run_beats(&j);
    T_EQ_I(j.got[1], NVS_ERR_TIMEOUT);
    T_EQ_I(j.got[0], NVS_ERR_ABORTED);
    /* 1.5 s of beats, then 2.5 s (the last beat at most 0.125 s before the beats ended): stopped well before the
     * stall ended */
    T_ASSERT(j.waited >= 1.5 + 2.5 - 0.2);
    T_ASSERT(j.waited < 1.5 + 6.0);
    T_CONTAINS(err, "timed out after 2 s without a heartbeat");
    free(err);
}

/* ---- a host collective given up on, under mpirun ------------------------------------------------------------ */

#define CHILD_ENV "NVS_T_RT_ABANDON_CHILD"
#define USAGE_CHILD_ENV "NVS_T_RT_USAGE_CHILD"

/* this binary started again by mpirun for another case than `mine`: only that case runs */
static int other_child(const char *mine)
{
    return (strcmp(mine, CHILD_ENV) && getenv(CHILD_ENV)) || (strcmp(mine, USAGE_CHILD_ENV) && getenv(USAGE_CHILD_ENV));
}

/* runs this binary under mpirun -np `np` with `env`=1; what it said (stdout and stderr) into out, its wait status */
static int mpirun_self(const char *env, int np, char *out, size_t len, double *took)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    T_ASSERT(n > 0);
    self[n] = '\0';
    /* under the sanitizers (make check SAN=...), as tests/lib.sh's MPIRUN: the slow unwinder, without which a leak
     * that Open MPI keeps till exit has no stack through libmpi (no frame pointers there) and escapes
     * tests/lsan.supp; the rank then exits 1 whatever it returned (seen in the CI of cae0c500) */
    const char *asan = getenv("ASAN_OPTIONS");
    char san[1024] = "";
    if (asan && *asan && strlen(asan) < 900) snprintf(san, sizeof san, "-x 'ASAN_OPTIONS=%s:fast_unwind_on_malloc=0' ", asan);
    char cmd[PATH_MAX + 1400];
    snprintf(cmd, sizeof cmd,
             "mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none -np %d %s-x "
             "%s=1 '%s' 2>&1",
             np, san, env, self);
    double t0 = nvs_now_s();
    FILE *p = popen(cmd, "r");
    T_ASSERT(p != NULL);
    size_t got = fread(out, 1, len - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    *took = nvs_now_s() - t0;
    return st;
}

/* Rank 1 comes to the all-reduce long after rank 0 gave up on it. Rank 0 then frees the buffer, asks for a
 * barrier, and returns NVS_OK regardless. */
static nvs_result_t abandon_rank(nvs_rt *rt, void *arg)
{
    (void)arg;
    if (rt->rank == 1) nanosleep(&(struct timespec){5, 500000000}, NULL); /* past rank 0's 2 + 2 s */
    double *v = calloc(4, sizeof *v);
    if (!v) return NVS_ERR_NOMEM;
    double t0 = nvs_now_s();
    nvs_result_t first = nvs_allreduce_f64(rt, v, 4, NVS_RT_MAX, "the test's all-reduce");
    double t1 = nvs_now_s();
    free(v); /* the runtime must not write here any more */
    nvs_result_t second = nvs_barrier(rt, "the test's barrier");
    double t2 = nvs_now_s();
    if (rt->rank == 0) {
        printf("rank 0: first %s after %.1f s, then %s after %.3f s\n", nvs_result_name(first), t1 - t0,
               nvs_result_name(second), t2 - t1);
        fflush(stdout);
    }
    return NVS_OK;
}

static void t_abandoned_collective(void)
{
    if (getenv(CHILD_ENV)) exit(nvs_exit_code(nvs_rt_mpi_run(2, 0, abandon_rank, NULL)));
    if (other_child(CHILD_ENV)) return;
    if (system("command -v mpirun >/dev/null 2>&1") != 0) T_SKIP("no mpirun");
    char out[16384];
    double took;
    int st = mpirun_self(CHILD_ENV, 2, out, sizeof out, &took);
    if (!strstr(out, "then NVS_ERR_TIMEOUT after 0.0")) printf("# mpirun said:\n%s\n", out);
    T_CONTAINS(out, "rank 0: first NVS_ERR_TIMEOUT after");
    /* refused at once: not paired with rank 1's late all-reduce, not another wait of --timeout */
    T_CONTAINS(out, "then NVS_ERR_TIMEOUT after 0.0");
    /* the rank went on as if nothing happened, yet the job fails (MPI_Abort, not MPI_Finalize) */
    T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) != 0);
    T_ASSERT(took < 30);
}

/* ---- nvs_rt_agree_ok_told_usage under mpirun ---------------------------------------------------------------- */

/* rank 2 of 3 finds a usage error; every rank returns what the agreement gave, the MPI runtime ends the job */
static nvs_result_t usage_rank(nvs_rt *rt, void *arg)
{
    (void)arg;
    nvs_result_t mine = NVS_OK;
    if (rt->rank == 2) {
        nvs_error("%d ranks run on host %s but only 2 GPUs are visible there", rt->size, rt->host);
        mine = NVS_ERR_USAGE;
    }
    nvs_result_t got = nvs_rt_agree_ok_told_usage(rt, mine, "assigning GPUs");
    printf("rank %d: %s\n", rt->rank, nvs_result_name(got));
    fflush(stdout);
    return got;
}

/* exit 2 on every rank, the job ending normally (MPI_Finalize, no MPI_Abort), rank 0 saying rank 2's own line */
static void t_agree_told_usage_mpi(void)
{
    if (getenv(USAGE_CHILD_ENV)) exit(nvs_exit_code(nvs_rt_mpi_run(20, 0, usage_rank, NULL)));
    if (other_child(USAGE_CHILD_ENV)) return;
    if (system("command -v mpirun >/dev/null 2>&1") != 0) T_SKIP("no mpirun");
    char out[16384];
    double took;
    int st = mpirun_self(USAGE_CHILD_ENV, 3, out, sizeof out, &took);
    if (!strstr(out, "every rank stops")) printf("# mpirun said:\n%s\n", out);
    for (int r = 0; r < 3; r++) {
        char want[64];
        snprintf(want, sizeof want, "rank %d: NVS_ERR_USAGE", r);
        T_CONTAINS(out, want);
    }
    T_CONTAINS(out, "[rank 0]: error: rank 2 (host ");
    T_CONTAINS(out, ") failed in assigning GPUs: 3 ranks run on host ");
    T_ASSERT(!strstr(out, "MPI_ABORT"));
    T_ASSERT(!strstr(out, "stopping the job"));
    T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    T_ASSERT(took < 20); /* no wait for a notice, nor for --timeout */
}

T_LIST = {
    /* first: under mpirun the binary runs only its child side */
    T_CASE(t_abandoned_collective),
    T_CASE(t_agree_told_usage_mpi),
    T_CASE(t_agree_none_failed),
    T_CASE(t_agree_one_failed),
    T_CASE(t_agree_told),
    T_CASE(t_agree_told_usage),
    T_CASE(t_agree_told_usage_one_rank),
    T_CASE(t_beats_keep_waiting),
    T_CASE(t_beats_stop),
};
T_MAIN
