/* Runtime selection and the parts common to both backends. */
#include "runtime/runtime.h"

#include "core/clock.h"
#include "core/interrupt.h"
#include "core/launch_env.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int nvs_rt_launched_by_mpi(void)
{
    /* Open MPI's mpirun, PMI-1/2 and PMIx launchers (MPICH hydra, Slurm's srun --mpi=pmi2/pmix). */
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return 1;
    /* srun without an MPI plugin still sets these; MPI_Init then works through Slurm's PMI. */
    if (getenv("SLURM_STEP_ID") && getenv("SLURM_NTASKS") && atoi(getenv("SLURM_NTASKS")) > 1) return 1;
    return 0;
}

int nvs_rt_launcher_rank(void) { return nvs_launcher_rank(); }

nvs_result_t nvs_rt_run(nvs_launch_kind kind, int nthreads, double timeout_s, int emulate_nodes, nvs_rank_main fn,
                        void *arg)
{
    if (kind == NVS_LAUNCH_AUTO) kind = nvs_rt_launched_by_mpi() ? NVS_LAUNCH_MPI : NVS_LAUNCH_THREADS;
    if (kind == NVS_LAUNCH_MPI) return nvs_rt_mpi_run(timeout_s, emulate_nodes, fn, arg);
    return nvs_rt_threads_run(nthreads, timeout_s, emulate_nodes, fn, arg);
}

void nvs_rt_set_machine(nvs_rt *rt)
{
    snprintf(rt->machine.host, sizeof rt->machine.host, "%s", rt->host);
    rt->machine.node = rt->node;
    rt->machine.nnodes = rt->nnodes;
    rt->machine.local_rank = rt->local_rank;
    rt->machine.local_size = rt->local_size;
}

int nvs_rt_distinct_host(char *host, size_t len, int node, const char (*names)[64], const int *nodes, int n)
{
    int shared = 0;
    for (int r = 0; r < n && !shared; r++) shared = nodes[r] != node && !strncmp(names[r], host, 64);
    if (!shared || len < 2) return 0;
    char suffix[16], name[64];
    int sl = snprintf(suffix, sizeof suffix, "#%d", node);
    snprintf(name, sizeof name, "%s", host);
    int room = (int)len - 1 - sl;
    snprintf(host, len, "%.*s%s", room > 0 ? room : 0, name, suffix);
    return 1;
}

int nvs_rt_split_virtual(nvs_rt *rt, int k, const int *machine_node, char *err, size_t errlen)
{
    int size = rt->size;
    if (k < 1) {
        snprintf(err, errlen, "--emulate-nodes %d: expected at least 1 virtual host", k);
        return -1;
    }
    if (k > size) {
        snprintf(err, errlen,
                 "--emulate-nodes %d: only %d rank%s in this run, and every virtual host needs at least one", k, size,
                 size == 1 ? "" : "s");
        return -1;
    }
    if (size % k) {
        snprintf(err, errlen, "--emulate-nodes %d does not divide the %d ranks of this run into equal hosts (use a "
                              "divisor of %d)",
                 k, size, size);
        return -1;
    }
    int per = size / k;
    /* a virtual host is one NCCL host (one NCCL_HOSTID): its ranks must share a machine, or NCCL would try
     * shared memory and P2P between machines */
    for (int r = 1; r < size; r++)
        if (r % per && machine_node[r] != machine_node[r - 1]) {
            snprintf(err, errlen, "--emulate-nodes %d: virtual host %d would hold ranks %d and %d, which run on "
                                  "different machines; launch consecutive ranks on one machine (mpirun --map-by "
                                  "slot, or ppr:N:node) with a multiple of the machine count",
                     k, r / per, r - 1, r);
            return -1;
        }
    nvs_rt_set_machine(rt);
    rt->emulated_nodes = k;
    rt->node = rt->rank / per;
    rt->nnodes = k;
    rt->local_rank = rt->rank % per;
    rt->local_size = per;
    /* "<machine>/vnode<i>", the machine's name cut so that the suffix always fits */
    char suffix[24];
    int sl = snprintf(suffix, sizeof suffix, "/vnode%d", rt->node);
    int room = (int)sizeof rt->host - 1 - sl;
    snprintf(rt->host, sizeof rt->host, "%.*s%s", room, rt->machine.host, suffix);
    return 0;
}

nvs_result_t nvs_rt_agree_result(nvs_rt *rt, nvs_result_t mine)
{
    double v[2] = {(double)nvs_result_severity(mine), 0};
    /* encode the result itself too, so that the agreed value is one some rank really had */
    v[1] = nvs_result_severity(mine) * 1000.0 + (double)mine;
    /* when the agreement itself fails (a peer gone, a signal), that is the run's result: the error says which */
    nvs_result_t r = nvs_allreduce_f64(rt, v, 2, NVS_RT_MAX, "agreeing on the run's result");
    if (r != NVS_OK) return nvs_result_severity(r) >= nvs_result_severity(mine) ? r : mine;
    r = (nvs_result_t)((long)v[1] % 1000);
    if (r != mine && nvs_exit_code(r) == 1) rt->agreed_failed = 1; /* another rank's: its notice may follow */
    return r;
}

/* The notice that a rank which failed in an agreement that tells (nvs_rt_agree_ok_told) sends just after it: sent
 * at once, so this bounds only a notice lost with its rank (gone right after the agreement); the code's text is said
 * then. The same bound as run_flow's wait for a notice at the end of a run. */
#define NVS_RT_TOLD_WAIT_S 2.0

/* An agreement of nvs_rt_agree_ok_told_usage that found a usage error on some rank: the launch is the user's to
 * change, and every rank ends normally with exit 2. Every rank finished the agreement and is in step, so the lowest
 * such rank (`root`) sends rank 0 its own line in one more collective, not in a failure notice: a notice marks the
 * run failed on the ranks that hear it (rt->peer_failed: their next host wait, the runtime's final agreement among
 * them, returns NVS_ERR_ABORTED, exit 1 through MPI_Abort), and one not read before MPI_Finalize is an unmatched
 * send. Returns NVS_ERR_USAGE, or the collective's own error (a rank gone meanwhile, a signal). */
static nvs_result_t told_usage(nvs_rt *rt, nvs_result_t mine, int root, const char *what)
{
    char why[NVS_RT_WHY_LEN] = "";
    if (rt->rank == root) {
        char cause[NVS_LOG_LAST_LEN + 64];
        snprintf(why, sizeof why, "rank %d (host %s) failed in %s: %s", rt->rank, rt->host, what,
                 nvs_log_cause(mine, cause, sizeof cause));
        nvs_utf8_trim(why);
    }
    NVS_CHECK(nvs_bcast(rt, why, sizeof why, root, what));
    why[sizeof why - 1] = '\0';
    if (rt->rank == 0 && root != 0) nvs_error("%s; every rank stops", why); /* the root said its own already */
    return NVS_ERR_USAGE;
}

/* nvs_rt_agree_ok; with `tells` nvs_rt_agree_ok_told; with `usage` too nvs_rt_agree_ok_told_usage */
static nvs_result_t agree_ok(nvs_rt *rt, nvs_result_t mine, double *max, const char *what, int tells, int usage)
{
    /* [1]: the lowest rank that failed and its result, as (size - rank) * 1000 + result; 0: none failed. [2]: a
     * rank that failed tells why just after (the failing ranks of one agreement all tell, or none). [3] (`usage`
     * only): the lowest rank whose result is a usage error, as size - rank; 0: none */
    double v[4] = {max ? *max : 0, mine != NVS_OK ? (double)(rt->size - rt->rank) * 1000.0 + (double)mine : 0,
                   tells && mine != NVS_OK, usage && mine == NVS_ERR_USAGE ? (double)(rt->size - rt->rank) : 0};
    nvs_result_t r = nvs_allreduce_f64(rt, v, usage ? 4 : 3, NVS_RT_MAX, what);
    if (r == NVS_OK && v[3] > 0) return told_usage(rt, mine, rt->size - (int)v[3], what);
    if (mine != NVS_OK) {
        if (tells) { /* after the agreement, which every rank then finished: none is left in it */
            char cause[NVS_LOG_LAST_LEN + 64], why[NVS_RT_WHY_LEN];
            snprintf(why, sizeof why, "rank %d (host %s) failed in %s: %s", rt->rank, rt->host, what,
                     nvs_log_cause(mine, cause, sizeof cause));
            nvs_rt_tell_failed(rt, nvs_utf8_trim(why));
        }
        return mine;
    }
    if (r != NVS_OK) return r;
    if (max) *max = v[0];
    if (v[1] == 0) return NVS_OK;
    rt->agreed_failed = 1;
    long first = (long)v[1];
    if (rt->rank != 0) return NVS_ERR_ABORTED;
    /* rank 0 says the failing rank's own sentence as it hears it (nvs_rt_peer_failed), which run.json's reason
     * takes too; the code's text only when no notice comes */
    if (v[2] > 0 && nvs_rt_await_notice(rt, NVS_RT_TOLD_WAIT_S) != NVS_OK && rt->peer_failed) return NVS_ERR_ABORTED;
    nvs_error("rank %ld failed in %s: %s; every rank stops", rt->size - first / 1000, what,
              nvs_result_text((nvs_result_t)(first % 1000)));
    return NVS_ERR_ABORTED;
}

/* See runtime.h. */
nvs_result_t nvs_rt_agree_ok(nvs_rt *rt, nvs_result_t mine, double *max, const char *what)
{
    return agree_ok(rt, mine, max, what, 0, 0);
}

nvs_result_t nvs_rt_agree_ok_told(nvs_rt *rt, nvs_result_t mine, const char *what)
{
    return agree_ok(rt, mine, NULL, what, 1, 0);
}

nvs_result_t nvs_rt_agree_ok_told_usage(nvs_rt *rt, nvs_result_t mine, const char *what)
{
    return agree_ok(rt, mine, NULL, what, 1, 1);
}

void nvs_rt_beat(nvs_rt *rt)
{
    if (rt->size < 2) return;
    double now = nvs_now_s();
    if (now - rt->beat_at < rt->timeout_s / NVS_RT_BEATS_PER_TIMEOUT) return;
    rt->beat_at = now;
    rt->ops->beat(rt);
}

void nvs_rt_tell_failed(nvs_rt *rt, const char *why)
{
    if (rt->size < 2 || rt->told_failed || rt->peer_failed || !rt->ops->tell_failed) return; /* once; no echo */
    char msg[NVS_RT_WHY_LEN];
    snprintf(msg, sizeof msg, "%s", why);
    rt->told_failed = 1;
    rt->failed_rank = rt->rank; /* its own sentence, for rank 0's run.json when rank 0 is the one */
    snprintf(rt->failed_why, sizeof rt->failed_why, "%s", msg);
    rt->ops->tell_failed(rt, msg);
}

nvs_result_t nvs_rt_peer_failed(nvs_rt *rt)
{
    if (rt->peer_failed) return NVS_ERR_ABORTED;
    if (rt->size < 2 || rt->told_failed || !rt->ops->heard_failed) return NVS_OK;
    int from = -1;
    char why[NVS_RT_WHY_LEN] = "";
    if (!rt->ops->heard_failed(rt, &from, why)) return NVS_OK;
    rt->peer_failed = 1;
    rt->failed_rank = from;
    snprintf(rt->failed_why, sizeof rt->failed_why, "%s", why);
    if (rt->rank == 0) nvs_error("%s; every rank stops", why); /* the sentence names the rank */
    return NVS_ERR_ABORTED;
}

nvs_result_t nvs_rt_await_notice(nvs_rt *rt, double max_s)
{
    double until = nvs_now_s() + max_s;
    for (;;) {
        nvs_result_t r = nvs_rt_peer_failed(rt);
        if (r != NVS_OK || rt->told_failed || rt->size < 2 || nvs_now_s() >= until || nvs_interrupted()) return r;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
}
