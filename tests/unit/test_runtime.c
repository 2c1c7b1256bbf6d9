/* --emulate-nodes in the runtime (src/runtime): the split of a world into virtual hosts (names, node numbers,
 * local ranks, the machine kept apart), every refusal with its one message, and the threads runtime, which
 * cannot hold more than one virtual host (NCCL reads its host identity once per process). And a rank's failure notice
 * (nvs_rt_tell_failed), heard after an agreement or in a threads barrier. */
#include <string.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "t.h"

static nvs_rt machine_rank(int rank, int size, int local_rank, int local_size, int node, int nnodes, const char *host)
{
    nvs_rt rt = {.rank = rank, .size = size, .local_rank = local_rank, .local_size = local_size, .node = node,
                 .nnodes = nnodes, .device = local_rank};
    snprintf(rt.host, sizeof rt.host, "%s", host);
    return rt;
}

static void t_split(void)
{
    /* 4 ranks on one machine "box", 2 virtual hosts of 2 */
    int one_machine[4] = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++) {
        nvs_rt rt = machine_rank(r, 4, r, 4, 0, 1, "box");
        char err[256] = "";
        T_EQ_I(nvs_rt_split_virtual(&rt, 2, one_machine, err, sizeof err), 0);
        T_EQ_I(rt.emulated_nodes, 2);
        T_EQ_I(rt.node, r / 2);
        T_EQ_I(rt.nnodes, 2);
        T_EQ_I(rt.local_rank, r % 2);
        T_EQ_I(rt.local_size, 2);
        T_EQ_S(rt.host, r < 2 ? "box/vnode0" : "box/vnode1");
        /* the machine is what it was: GPUs and duplicates are its business */
        T_EQ_S(rt.machine.host, "box");
        T_EQ_I(rt.machine.local_rank, r);
        T_EQ_I(rt.machine.local_size, 4);
        T_EQ_I(rt.device, r);
    }
    /* 2 machines x 4 ranks into 4 virtual hosts: each machine holds two */
    int two_machines[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    nvs_rt rt = machine_rank(6, 8, 2, 4, 1, 2, "b");
    char err[256] = "";
    T_EQ_I(nvs_rt_split_virtual(&rt, 4, two_machines, err, sizeof err), 0);
    T_EQ_S(rt.host, "b/vnode3");
    T_EQ_I(rt.local_rank, 0);
    T_EQ_I(rt.machine.node, 1);
    /* a long host name is cut so that the suffix always fits (two virtual hosts never share a name) */
    char longname[64];
    memset(longname, 'h', 63);
    longname[63] = '\0';
    rt = machine_rank(1, 2, 1, 2, 0, 1, longname);
    T_EQ_I(nvs_rt_split_virtual(&rt, 2, one_machine, err, sizeof err), 0);
    T_EQ_I((int)strlen(rt.host), 63);
    T_CONTAINS(rt.host, "/vnode1");
}

static void t_refusals(void)
{
    int one_machine[4] = {0, 0, 0, 0}, interleaved[4] = {0, 1, 0, 1}, two_machines[4] = {0, 0, 1, 1};
    struct {
        int k;
        const int *nodes;
        const char *want;
    } cases[] = {
        {3, one_machine, "--emulate-nodes 3 does not divide the 4 ranks"},
        {5, one_machine, "only 4 ranks in this run"},
        {0, one_machine, "at least 1"},
        {-2, one_machine, "at least 1"},
        {2, interleaved, "different machines"},
        {1, two_machines, "ranks 1 and 2, which run on different machines"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nvs_rt rt = machine_rank(0, 4, 0, 2, 0, 2, "box");
        char err[256] = "";
        T_EQ_I(nvs_rt_split_virtual(&rt, cases[i].k, cases[i].nodes, err, sizeof err), -1);
        T_CONTAINS(err, cases[i].want);
        T_EQ_S(rt.host, "box"); /* nothing half-applied */
        T_EQ_I(rt.emulated_nodes, 0);
    }
    /* two machines into two virtual hosts: fine */
    nvs_rt rt = machine_rank(3, 4, 1, 2, 1, 2, "b");
    char err[256] = "";
    T_EQ_I(nvs_rt_split_virtual(&rt, 2, two_machines, err, sizeof err), 0);
    T_EQ_S(rt.host, "b/vnode1");
}

static int calls;
static nvs_result_t count_rank(nvs_rt *rt, void *arg)
{
    (void)arg;
    __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
    if (rt->emulated_nodes != 1 || rt->nnodes != 1 || !strstr(rt->host, "/vnode0") || rt->local_size != 2)
        return NVS_ERR_SYSTEM;
    return NVS_OK;
}

static void t_threads(void)
{
    /* more than one virtual host in one process: refused before any rank runs */
    calls = 0;
    int saved = dup(2); /* the refusal's message is for users, not for the TAP stream */
    T_ASSERT(saved >= 0 && freopen("/dev/null", "w", stderr) != NULL);
    nvs_result_t r = nvs_rt_threads_run(2, 10, 2, count_rank, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    T_EQ_I(r, NVS_ERR_USAGE);
    T_EQ_I(calls, 0);
    /* one virtual host holding both threads: runs, named as a virtual host */
    T_EQ_I(nvs_rt_threads_run(2, 10, 1, count_rank, NULL), NVS_OK);
    T_EQ_I(calls, 2);
}

/* A rank's own failure found in an agreement (nvs_rt_agree_result), told just after it (nvs_rt_tell_failed): the
 * rank that had no failure marks agreed_failed and hears the sentence with nvs_rt_await_notice; the failing rank
 * does not. And a failure told before a thread ends wakes the other from its barrier with the sentence (the
 * threads runtime polls for it there). */
static struct {
    int agreed[2], peer, from;
    nvs_result_t got, waited;
    char why[NVS_RT_WHY_LEN];
} heard;
static nvs_result_t fail_in_agreement(nvs_rt *rt, void *arg)
{
    (void)arg;
    nvs_result_t r = nvs_rt_agree_result(rt, rt->rank == 1 ? NVS_ERR_NOMEM : NVS_OK);
    heard.agreed[rt->rank] = rt->agreed_failed;
    if (rt->rank == 1) {
        nvs_rt_tell_failed(rt, "rank 1 (host h) failed in the test: out of memory");
        return NVS_ERR_NOMEM;
    }
    heard.got = r;
    heard.waited = nvs_rt_await_notice(rt, 10.0);
    heard.peer = rt->peer_failed;
    heard.from = rt->failed_rank;
    snprintf(heard.why, sizeof heard.why, "%s", rt->failed_why);
    return NVS_ERR_ABORTED;
}
static nvs_result_t fail_then_end(nvs_rt *rt, void *arg)
{
    (void)arg;
    if (rt->rank == 1) {
        nvs_rt_tell_failed(rt, "rank 1 (host h) failed in the sweep: CUDA error");
        return NVS_ERR_CUDA;
    }
    heard.waited = nvs_barrier(rt, "the test's barrier");
    heard.peer = rt->peer_failed;
    snprintf(heard.why, sizeof heard.why, "%s", rt->failed_why);
    return heard.waited;
}

static void t_failure_notice(void)
{
    int saved = dup(2); /* rank 0 says what it heard: for users, not for the TAP stream */
    T_ASSERT(saved >= 0 && freopen("/dev/null", "w", stderr) != NULL);
    memset(&heard, 0, sizeof heard);
    nvs_result_t r = nvs_rt_threads_run(2, 30, 0, fail_in_agreement, NULL);
    T_EQ_I(nvs_exit_code(r), 1);
    T_EQ_I(heard.got, NVS_ERR_NOMEM);
    T_EQ_I(heard.agreed[0], 1);
    T_EQ_I(heard.agreed[1], 0);
    T_EQ_I(heard.waited, NVS_ERR_ABORTED);
    T_EQ_I(heard.peer, 1);
    T_EQ_I(heard.from, 1);
    T_EQ_S(heard.why, "rank 1 (host h) failed in the test: out of memory");
    memset(&heard, 0, sizeof heard);
    r = nvs_rt_threads_run(2, 30, 0, fail_then_end, NULL);
    T_EQ_I(nvs_exit_code(r), 1);
    T_EQ_I(heard.waited, NVS_ERR_ABORTED);
    T_EQ_I(heard.peer, 1);
    T_EQ_S(heard.why, "rank 1 (host h) failed in the sweep: CUDA error");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

/* Hosts of one name in a job (containers all "localhost"): each is told apart by its node, "<name>#<node>", as
 * the merged topology names them; a name no other node has stays; a long name is cut so that the suffix fits. */
static void t_distinct_hosts(void)
{
    const char names[4][64] = {"localhost", "localhost", "gpu-a", "localhost"};
    const int nodes[4] = {0, 0, 1, 2}; /* ranks 0 and 1 on node 0 */
    char h[64] = "localhost";
    T_EQ_I(nvs_rt_distinct_host(h, sizeof h, 0, names, nodes, 4), 1);
    T_EQ_S(h, "localhost#0");
    snprintf(h, sizeof h, "localhost");
    T_EQ_I(nvs_rt_distinct_host(h, sizeof h, 2, names, nodes, 4), 1);
    T_EQ_S(h, "localhost#2");
    snprintf(h, sizeof h, "gpu-a");
    T_EQ_I(nvs_rt_distinct_host(h, sizeof h, 1, names, nodes, 4), 0);
    T_EQ_S(h, "gpu-a");
    /* one host of two ranks: its own ranks share its name, nothing to tell apart */
    const int one[2] = {0, 0};
    snprintf(h, sizeof h, "localhost");
    T_EQ_I(nvs_rt_distinct_host(h, sizeof h, 0, names, one, 2), 0);
    char longn[2][64];
    memset(longn, 'x', sizeof longn);
    longn[0][63] = longn[1][63] = '\0';
    const int two[2] = {0, 11};
    memcpy(h, longn[1], sizeof h);
    T_EQ_I(nvs_rt_distinct_host(h, sizeof h, 11, (const char(*)[64])longn, two, 2), 1);
    T_EQ_U(strlen(h), 63);
    T_EQ_S(h + 60, "#11");
}

T_LIST = {T_CASE(t_split), T_CASE(t_refusals), T_CASE(t_threads), T_CASE(t_distinct_hosts), T_CASE(t_failure_notice)};
T_MAIN
