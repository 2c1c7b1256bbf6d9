/* The sweep's loops and error paths (collectives/sweep.c), on a fake backend that counts what is open and where
 * each launch points: the warm-up, probe and timed launches move through slices of the buffers as nccl-tests'
 * do (collectives/slices.h), the line-up and validation launches stay at the start. A launch that fails
 * inside a group (-m) still closes the group; one that fails while the timed loop is captured (-G) still ends the
 * capture and frees what was captured; a replay or a wait that fails after the graph was made still frees it. In
 * each case the first error is the one returned. Validation reads an output every byte of which was poisoned or
 * freshly filled. One rank of the threads runtime: no GPU, no launcher. */
#include <string.h>

#include "collectives/backend.h"
#include "collectives/coll.h"
#include "collectives/sweep.h"
#include "core/log.h"
#include "runtime/runtime.h"
#include "t.h"

struct nvs_comm {
    int unused;
};

/* what the fake backend saw; fail_* = the call number (1-based) that fails, 0 = none */
static struct {
    int launches, graph_launches, waits;
    int fail_launch, fail_graph_launch, fail_wait;
    int group_depth, groups_ended;
    int capturing, captures_ended, live_graphs;
    int in_capture_launches; /* launches made while capturing */
    char *base_a, *base_b;   /* the sweep buffers */
    long send_off[32], recv_off[32]; /* each launch's send (from base_a) and receive (from base_b) offsets */
    long last_recv_off, verified_off; /* the last launch's; the buffer validation read (-1: none) */
    /* bytes written by poison or fill since the last launch, and whether they covered the whole receive region of
     * the launch after them (the last launch: validation's), so that an output block the collective leaves
     * unwritten reads as poison, not as what an earlier operation left */
    char written[4096];
    int recv_covered;
} fk;

static void mark(const void *p, size_t n)
{
    long at = (long)((const char *)p - fk.base_b);
    for (size_t k = 0; k < n; k++)
        if (at + (long)k >= 0 && at + (long)k < (long)sizeof fk.written) fk.written[at + (long)k] = 1;
}

#define FAKE_ERR NVS_ERR_NCCL  /* what a failing launch, replay or wait returns */
#define FAKE_GRAPH ((void *)&fk) /* the one graph handle */

static int frank(const nvs_comm *c) { return (void)c, 0; }
static int fsize(const nvs_comm *c) { return (void)c, 1; }
static nvs_result_t ffill(nvs_backend *b, nvs_dtype t, void *p, size_t n, const nvs_pattern *pat, int r, size_t o)
{
    (void)b, (void)pat, (void)r, (void)o;
    mark(p, n * nvs_dtype_size(t));
    return NVS_OK;
}
static nvs_result_t fpoison(nvs_backend *b, void *p, size_t n)
{
    (void)b;
    mark(p, n);
    return NVS_OK;
}
static nvs_result_t flaunch(nvs_backend *b, nvs_comm *c, const nvs_op *op)
{
    (void)b, (void)c;
    fk.in_capture_launches += fk.capturing;
    if (fk.launches < 32) {
        fk.send_off[fk.launches] = (long)((char *)op->send - fk.base_a);
        fk.recv_off[fk.launches] = (long)((char *)op->recv - fk.base_b);
    }
    fk.last_recv_off = (long)((char *)op->recv - fk.base_b);
    fk.recv_covered = 1;
    for (size_t k = 0; k < op->counts.recv_count * nvs_dtype_size(op->type); k++)
        if (fk.last_recv_off + (long)k >= (long)sizeof fk.written || !fk.written[fk.last_recv_off + (long)k])
            fk.recv_covered = 0;
    memset(fk.written, 0, sizeof fk.written);
    return ++fk.launches == fk.fail_launch ? FAKE_ERR : NVS_OK;
}
static nvs_result_t fverify(nvs_backend *b, nvs_dtype t, const void *out, const nvs_pattern *pat,
                            const nvs_expect *e, unsigned long long *wrong, unsigned long long *first)
{
    (void)b, (void)t, (void)pat, (void)e;
    fk.verified_off = (long)((const char *)out - fk.base_b);
    *wrong = 0;
    *first = 0;
    return NVS_OK;
}
static nvs_result_t fwait(nvs_backend *b, nvs_comm *c, const nvs_op *op)
{
    (void)b, (void)c, (void)op;
    T_ASSERT(!fk.capturing); /* a wait inside a capture would be an error of the sweep itself */
    return ++fk.waits == fk.fail_wait ? FAKE_ERR : NVS_OK;
}
static nvs_result_t fgraph_begin(nvs_backend *b)
{
    (void)b;
    T_ASSERT(!fk.capturing);
    fk.capturing = 1;
    return NVS_OK;
}
static nvs_result_t fgraph_end(nvs_backend *b, void **graph)
{
    (void)b;
    T_ASSERT(fk.capturing);
    fk.capturing = 0;
    fk.captures_ended++;
    fk.live_graphs++;
    *graph = FAKE_GRAPH;
    return NVS_OK;
}
static nvs_result_t fgraph_launch(nvs_backend *b, void *graph)
{
    (void)b;
    T_ASSERT(graph == FAKE_GRAPH && fk.live_graphs == 1);
    return ++fk.graph_launches == fk.fail_graph_launch ? FAKE_ERR : NVS_OK;
}
static void fgraph_free(nvs_backend *b, void *graph)
{
    (void)b;
    T_ASSERT(graph == FAKE_GRAPH);
    fk.live_graphs--;
}
static nvs_result_t fgroup_begin(nvs_backend *b)
{
    (void)b;
    fk.group_depth++;
    return NVS_OK;
}
static nvs_result_t fgroup_end(nvs_backend *b)
{
    (void)b;
    T_ASSERT(fk.group_depth > 0);
    fk.group_depth--;
    fk.groups_ended++;
    return NVS_OK;
}

static const struct nvs_backend_ops fake_ops = {
    .name = "fake", .comm_rank = frank, .comm_size = fsize, .fill = ffill, .poison = fpoison, .verify = fverify,
    .launch = flaunch,
    .wait = fwait, .graph_begin = fgraph_begin, .graph_end = fgraph_end, .graph_launch = fgraph_launch,
    .graph_free = fgraph_free, .group_begin = fgroup_begin, .group_end = fgroup_end,
};

/* one all_reduce of 1 KiB float, out of place, -n 4 (or automatic: auto_iters), no warm-up (or -w warmup), no
 * validation (or check), in buffers of 1 KiB (or buf_bytes, at most 4 KiB) */
struct sweep_job {
    int agg_iters, graph_launches, warmup, buf_bytes, auto_iters, check;
    const char *coll; /* NULL: all_reduce */
    int inplace, n;   /* in place; the communicator's size (0: 1), of which the fake is rank 0 */
    nvs_result_t res;
    size_t rows;
};

static nvs_result_t sweep_rank(nvs_rt *rt, void *arg)
{
    struct sweep_job *job = arg;
    nvs_config cfg;
    nvs_config_defaults(&cfg);
    cfg.min_bytes = cfg.max_bytes = 1024;
    cfg.step_factor = 2;
    cfg.step_bytes = 0;
    cfg.iters = job->auto_iters ? 0 : 4;
    cfg.warmup = job->warmup;
    cfg.check = job->check;
    cfg.agg_iters = job->agg_iters;
    cfg.graph_launches = job->graph_launches;
    cfg.blocking = 0;
    cfg.types_mask = 1u << NVS_FLOAT;
    cfg.ops_mask = 1u << NVS_SUM;
    cfg.inplace_mask = job->inplace ? NVS_INPLACE_IN : NVS_INPLACE_OUT;
    cfg.colls_mask = 0;
    for (int i = 0; i < nvs_coll_count(); i++)
        if (nvs_coll_at(i) == nvs_coll_find(job->coll ? job->coll : "all_reduce")) cfg.colls_mask = 1u << i;
    cfg.stall_rank = cfg.corrupt_rank = -1;
    nvs_backend b = {.ops = &fake_ops, .rt = rt, .cfg = &cfg};
    struct nvs_comm comm = {0};
    char buf_a[4096], buf_b[4096];
    nvs_sweep_buffers bufs = {.buf_a = buf_a, .buf_b = buf_b, .bytes = job->buf_bytes ? (size_t)job->buf_bytes : 1024};
    fk.base_a = buf_a;
    fk.base_b = buf_b;
    nvs_coll_rows rows = {0};
    job->res = nvs_sweep_run(&b, &comm, job->n ? job->n : 1, &bufs, &rows);
    job->rows = rows.n;
    nvs_rows_free(&rows);
    return NVS_OK;
}

/* runs the sweep with these failures planted; the fake's counters are left for the case to look at */
static struct sweep_job sweep(int agg_iters, int graph_launches, int fail_launch, int fail_graph_launch,
                              int fail_wait)
{
    memset(&fk, 0, sizeof fk);
    fk.fail_launch = fail_launch;
    fk.fail_graph_launch = fail_graph_launch;
    fk.fail_wait = fail_wait;
    struct sweep_job job = {.agg_iters = agg_iters, .graph_launches = graph_launches};
    nvs_progress_enable(0);
    T_EQ_I(nvs_rt_threads_run(1, 10, 0, sweep_rank, &job), NVS_OK);
    return job;
}

static void t_clean_runs(void)
{
    /* the fake itself: a whole sweep point, plain, grouped and captured, ends with nothing left open */
    struct sweep_job j = sweep(1, 0, 0, 0, 0);
    T_EQ_I(j.res, NVS_OK);
    T_EQ_I(j.rows, 1);
    j = sweep(3, 0, 0, 0, 0);
    T_EQ_I(j.res, NVS_OK);
    T_EQ_I(fk.group_depth, 0);
    T_EQ_I(fk.groups_ended, 4); /* -n 4 iterations of -m 3 */
    j = sweep(1, 2, 0, 0, 0);
    T_EQ_I(j.res, NVS_OK);
    T_EQ_I(j.rows, 1);
    T_EQ_I(fk.in_capture_launches, 4);
    T_EQ_I(fk.graph_launches, 3); /* the untimed upload, then -G 2 */
    T_EQ_I(fk.live_graphs, 0);
}

static void t_group_closed_after_failed_launch(void)
{
    /* -m 3: launch 1 lines the ranks up, launches 2-4 are the first group: launch 3 fails in its middle */
    struct sweep_job j = sweep(3, 0, 3, 0, 0);
    T_EQ_I(j.res, FAKE_ERR);
    T_EQ_I(j.rows, 0);
    T_EQ_I(fk.launches, 3); /* nothing launched after the failure */
    T_EQ_I(fk.group_depth, 0);
    T_EQ_I(fk.groups_ended, 1);
}

static void t_capture_ended_after_failed_launch(void)
{
    /* -G: the 2nd of the 4 captured launches fails: the capture is ended and its graph freed */
    struct sweep_job j = sweep(1, 1, 2, 0, 0);
    T_EQ_I(j.res, FAKE_ERR);
    T_EQ_I(fk.capturing, 0);
    T_EQ_I(fk.captures_ended, 1);
    T_EQ_I(fk.live_graphs, 0);
    T_EQ_I(fk.graph_launches, 0); /* never replayed */
    /* with -m 2 the failure is inside a group inside the capture: both are closed */
    j = sweep(2, 1, 3, 0, 0);
    T_EQ_I(j.res, FAKE_ERR);
    T_EQ_I(fk.group_depth, 0);
    T_EQ_I(fk.capturing, 0);
    T_EQ_I(fk.live_graphs, 0);
}

static void t_graph_freed_on_every_exit(void)
{
    /* the untimed upload fails */
    struct sweep_job j = sweep(1, 2, 0, 1, 0);
    T_EQ_I(j.res, FAKE_ERR);
    T_EQ_I(fk.live_graphs, 0);
    /* the wait after the upload fails (waits: the warm-up's, the upload's, the line-up's, the loop's) */
    j = sweep(1, 2, 0, 0, 2);
    T_EQ_I(j.res, FAKE_ERR);
    T_EQ_I(fk.live_graphs, 0);
    /* the launch that lines the ranks up (the first launch outside the capture: 4 captured before it) */
    j = sweep(1, 2, 5, 0, 0);
    T_EQ_I(j.res, FAKE_ERR);
    T_EQ_I(fk.live_graphs, 0);
    /* a timed replay (the 2nd of -G 2; the upload was the 1st) */
    j = sweep(1, 2, 0, 3, 0);
    T_EQ_I(j.res, FAKE_ERR);
    T_EQ_I(fk.graph_launches, 3);
    T_EQ_I(fk.live_graphs, 0);
    /* the wait at the end of the timed loop */
    j = sweep(1, 2, 0, 0, 4);
    T_EQ_I(j.res, FAKE_ERR);
    T_EQ_I(j.rows, 0);
    T_EQ_I(fk.live_graphs, 0);
}

static struct sweep_job sliced(struct sweep_job j)
{
    memset(&fk, 0, sizeof fk);
    fk.verified_off = -1;
    nvs_progress_enable(0);
    T_EQ_I(nvs_rt_threads_run(1, 10, 0, sweep_rank, &j), NVS_OK);
    T_EQ_I(j.res, NVS_OK);
    return j;
}

static void t_launches_move_through_slices(void)
{
    /* buffers of 3.5 KiB hold three slices of a 1 KiB operation: -w 2 in slices 0 and 1, the line-up at the
     * start, then 4 timed iterations from slice 2 on, past what the warm-up touched */
    sliced((struct sweep_job){.agg_iters = 1, .warmup = 2, .buf_bytes = 3584});
    T_EQ_I(fk.launches, 2 + 1 + 4);
    const long want[] = {0, 1024, /* warm-up */ 0, /* line-up */ 2048, 0, 1024, 2048 /* timed, wrapping */};
    for (int k = 0; k < 7; k++) {
        T_EQ_I(fk.send_off[k], want[k]);
        T_EQ_I(fk.recv_off[k], want[k]);
    }
    /* -m 2: each operation of a group in its own slice (nccl-tests' iter * agg_iters + aiter) */
    sliced((struct sweep_job){.agg_iters = 2, .buf_bytes = 3584});
    const long grouped[] = {0, /* line-up */ 0, 1024, 2048, 0, 1024, 2048, 0, 1024};
    T_EQ_I(fk.launches, 9);
    for (int k = 0; k < 9; k++) T_EQ_I(fk.recv_off[k], grouped[k]);
    /* automatic -n: the 4 probe launches go on from the warm-up's slices, the timed loop from theirs; validation
     * runs and reads at the start */
    sliced((struct sweep_job){.agg_iters = 1, .warmup = 1, .buf_bytes = 3584, .auto_iters = 1, .check = 1});
    const long probed[] = {0, /* warm-up */ 1024, 2048, 0, 1024, /* probe */ 0, /* line-up */ 2048, 0 /* timed */};
    T_ASSERT(fk.launches > 8);
    for (int k = 0; k < 8; k++) T_EQ_I(fk.recv_off[k], probed[k]);
    T_EQ_I(fk.last_recv_off, 0);
    T_EQ_I(fk.verified_off, 0);
    /* buffers no larger than the operation: every launch at the start */
    sliced((struct sweep_job){.agg_iters = 1, .warmup = 2, .buf_bytes = 1024});
    T_EQ_I(fk.launches, 2 + 1 + 4);
    for (int k = 0; k < fk.launches; k++) T_EQ_I(fk.recv_off[k], 0);
}

static void t_validation_poisons_the_whole_output(void)
{
    /* before the validation launch, every byte of its receive buffer was poisoned or filled with fresh input, on
     * every collective and placement. In-place all_gather of 4 ranks at rank 0: the input is block 0 of the output
     * (send_in_recv 0), and blocks 1-3 kept what the warm-up had left there (the rotation's slice 0) */
    static const char *const colls[] = {"all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter"};
    for (int c = 0; c < 5; c++)
        for (int ip = 0; ip < 2; ip++) {
            sliced((struct sweep_job){.agg_iters = 1, .warmup = 1, .buf_bytes = 1024, .check = 1, .coll = colls[c],
                                      .inplace = ip, .n = 4});
            T_EQ_I(fk.verified_off, fk.last_recv_off);
            if (!fk.recv_covered) fprintf(stderr, "  %s %s: output not all poisoned\n", colls[c], ip ? "in" : "out");
            T_ASSERT(fk.recv_covered);
        }
}

T_LIST = {
    T_CASE(t_validation_poisons_the_whole_output),
    T_CASE(t_clean_runs),
    T_CASE(t_launches_move_through_slices),
    T_CASE(t_group_closed_after_failed_launch),
    T_CASE(t_capture_ended_after_failed_launch),
    T_CASE(t_graph_freed_on_every_exit),
};
T_MAIN
