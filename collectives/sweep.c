#include "core/clock.h"
#include "collectives/sweep.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/interrupt.h"
#include "core/launch_env.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/units.h"
#include "collectives/eta.h"
#include "collectives/slices.h"

#define MAX_SIZES 4096
/* automatic -n: time each size for about this long, within [AUTO_MIN, AUTO_MAX] iterations. 20 ms keeps the
 * default sweep (8 B..1 GiB, 2 collectives, out- and in-place, N = 1 and 2) under 20 s on 2 GPUs; 20 is
 * nccl-tests' default -n, the floor so that large sizes are never timed on fewer. */
#define AUTO_TARGET_US 20000.0
#define AUTO_MIN 20
#define AUTO_MAX 1000

size_t nvs_sweep_plan_sizes(const nvs_config *cfg, size_t *sizes, size_t cap)
{
    size_t n = nvs_sweep_sizes(cfg->min_bytes, cfg->max_bytes, cfg->step_factor, cfg->step_bytes, sizes, cap);
    if (n == 0 || n > cap) {
        nvs_error("the sweep from %zu to %zu bytes has %s sizes: use a larger -f or -i (at most %d sizes)",
                  cfg->min_bytes, cfg->max_bytes, n ? "too many" : "no", MAX_SIZES);
        return 0;
    }
    return n;
}

nvs_result_t nvs_sweep_buffers_alloc(nvs_backend *b, const nvs_config *cfg, nvs_sweep_buffers *bufs)
{
    memset(bufs, 0, sizeof *bufs);
    bufs->bytes = cfg->max_bytes; /* every collective's send and receive buffers fit in it (coll.h rounds down) */
    nvs_result_t res = b->ops->alloc(b, bufs->bytes, &bufs->buf_a);
    if (res == NVS_OK) res = b->ops->alloc(b, bufs->bytes, &bufs->buf_b);
    if (res == NVS_OK) res = b->ops->poison(b, bufs->buf_a, bufs->bytes);
    if (res == NVS_OK) res = b->ops->poison(b, bufs->buf_b, bufs->bytes);
    res = nvs_rt_agree_result(b->rt, res);
    if (res != NVS_OK) nvs_sweep_buffers_free(b, bufs);
    return res;
}

void nvs_sweep_buffers_free(nvs_backend *b, nvs_sweep_buffers *bufs)
{
    if (bufs->buf_a) b->ops->free(b, bufs->buf_a);
    if (bufs->buf_b) b->ops->free(b, bufs->buf_b);
    bufs->buf_a = bufs->buf_b = NULL;
}

nvs_result_t nvs_sweep_validate(const nvs_config *cfg, const char *backend, int min_n, int print)
{
    int mpi = !strcmp(backend, "mpi");
    if (mpi && cfg->graph_launches) {
        if (print)
            fprintf(nvs_stderr_cmdline(),
                    "nvscale: -G/--cudagraph needs the NCCL backend (CUDA graphs); --backend mpi has none\n");
        return NVS_ERR_USAGE;
    }
    if (mpi && cfg->alloc_nccl) {
        if (print)
            fprintf(nvs_stderr_cmdline(),
                    "nvscale: --alloc nccl needs the NCCL backend (GPU buffers); --backend mpi has none\n");
        return NVS_ERR_USAGE;
    }
    for (int t = 0; t < NVS_DTYPE_COUNT; t++) {
        if (!(cfg->types_mask & (1u << t))) continue;
        if (mpi && cfg->max_bytes / nvs_dtype_size((nvs_dtype)t) > (size_t)INT_MAX) {
            if (print)
                fprintf(nvs_stderr_cmdline(),
                    "nvscale: -e %zu of %s is more than 2^31-1 elements, the most one MPI call can count; use a "
                    "smaller -e with --backend mpi\n",
                    cfg->max_bytes, nvs_dtype_name((nvs_dtype)t));
            return NVS_ERR_USAGE;
        }
    }
    /* --inplace in with only collectives that have no in-place form (alltoall, sendrecv: coll.h) leaves the sweep
     * nothing to run: refused, as an empty sweep is below, not an empty table and exit 0 */
    if (!(cfg->inplace_mask & NVS_INPLACE_OUT)) {
        int placeable = 0;
        for (int i = 0; i < nvs_coll_count(); i++)
            if ((cfg->colls_mask & (1u << i)) && !(nvs_coll_at(i)->flags & NVS_COLL_NO_INPLACE)) placeable = 1;
        if (!placeable) {
            if (print)
                fprintf(nvs_stderr_cmdline(),
                        "nvscale: --inplace in measures nothing here: the collectives asked (--coll) have no in-place "
                        "form and run out of place only; use --inplace out or both\n");
            return NVS_ERR_USAGE;
        }
    }
    int rooted = 0;
    for (int i = 0; i < nvs_coll_count(); i++)
        if ((cfg->colls_mask & (1u << i)) && (nvs_coll_at(i)->flags & NVS_COLL_HAS_ROOT)) rooted = 1;
    if (rooted && min_n > 0 && cfg->root >= min_n) {
        if (print)
            fprintf(nvs_stderr_cmdline(),
                    "nvscale: invalid value '%d' for -r/--root: the smallest communicator measured has %d rank%s "
                    "(ranks 0..%d)\n",
                cfg->root, min_n, min_n > 1 ? "s" : "", min_n - 1);
        return NVS_ERR_USAGE;
    }
    /* A sweep in which no collective and type has a size that gives each rank an element measures nothing (-b 1
     * -e 3 of float; -e 32 of all_gather over 4 ranks: 16 B each, coll.h): a typo, refused before the run, not
     * an empty table and exit 0. Checked at the smallest communicator, where the blocks are largest: if nothing
     * fits there, nothing fits at any N. */
    /* a plan too long to run (-b 1 -i 1 -e 1M: a million sizes) is a usage error, said here before the launch:
     * found by the sweep itself, every rank of `mpirun -np N` said it, after the start-up */
    size_t planned = nvs_sweep_sizes(cfg->min_bytes, cfg->max_bytes, cfg->step_factor, cfg->step_bytes, NULL, 0);
    if (planned == 0 || planned > MAX_SIZES) {
        if (print)
            fprintf(nvs_stderr_cmdline(),
                    "nvscale: the sweep from -b %zu to -e %zu has %s sizes: use a larger -f or -i (at most %d "
                    "sizes)\n",
                    cfg->min_bytes, cfg->max_bytes, planned ? "too many" : "no", MAX_SIZES);
        return NVS_ERR_USAGE;
    }
    if (min_n > 0) {
        size_t *sizes = malloc(MAX_SIZES * sizeof *sizes); /* every rank thread calls this: not static */
        if (!sizes) return NVS_ERR_NOMEM;
        size_t ns = nvs_sweep_sizes(cfg->min_bytes, cfg->max_bytes, cfg->step_factor, cfg->step_bytes, sizes,
                                    MAX_SIZES);
        int any = 0;
        for (int i = 0; i < nvs_coll_count() && !any; i++) {
            if (!(cfg->colls_mask & (1u << i))) continue;
            for (int t = 0; t < NVS_DTYPE_COUNT && !any; t++) {
                if (!(cfg->types_mask & (1u << t))) continue;
                nvs_coll_counts k;
                for (size_t s = 0; s < ns && !any; s++)
                    any = nvs_coll_at(i)->counts(sizes[s], nvs_dtype_size((nvs_dtype)t), min_n, 0, &k) == 0;
            }
        }
        free(sizes);
        if (!any) {
            if (print)
                fprintf(nvs_stderr_cmdline(),
                        "nvscale: the sweep from -b %zu to -e %zu measures nothing: no size gives each of the %d "
                        "rank%s at least one element of the types asked (all_gather, reduce_scatter and alltoall: 16 "
                        "bytes per rank, as nccl-tests); use a larger -e\n",
                        cfg->min_bytes, cfg->max_bytes, min_n, min_n > 1 ? "s" : "");
            return NVS_ERR_USAGE;
        }
    }
    return NVS_OK;
}

/* Resolve buffers for one configuration: in-place collectives overlap as NCCL defines (coll.h). */
static void resolve(nvs_op *op, const nvs_sweep_buffers *bufs)
{
    size_t ts = nvs_dtype_size(op->type);
    if (!op->inplace) {
        op->send = bufs->buf_a;
        op->recv = bufs->buf_b;
        return;
    }
    op->send = op->recv = bufs->buf_b;
    if (op->counts.send_in_recv) op->send = (char *)bufs->buf_b + op->counts.send_in_recv * ts;
    if (op->counts.recv_in_send) op->recv = (char *)bufs->buf_b + op->counts.recv_in_send * ts;
}

/* Where the input pattern goes and which elements it covers: the send region, at pattern index 0. */
static nvs_result_t fill_inputs(nvs_backend *b, const nvs_op *op, const nvs_pattern *pat, int crank)
{
    size_t ts = nvs_dtype_size(op->type);
    /* poison the whole receive buffer first so unwritten output is caught: out of place, and in place wherever the
     * input does not cover the output (all_gather: the input is one block of it, at every rank, rank 0's at offset
     * 0 included); the send region lies inside it and is filled right after */
    if (!op->inplace || op->counts.send_count < op->counts.recv_count)
        NVS_CHECK(b->ops->poison(b, op->recv, op->counts.recv_count * ts));
    return b->ops->fill(b, op->type, op->send, op->counts.send_count, pat, crank, 0);
}

static uint32_t seed_of(int coll, int type, int opi, size_t bytes, int inplace, int n)
{
    uint64_t x = (uint64_t)coll * 1000003u ^ (uint64_t)type * 10007u ^ (uint64_t)(opi + 1) * 101u ^
                 (uint64_t)bytes * 2654435761u ^ (uint64_t)inplace * 7u ^ (uint64_t)n * 131071u;
    return (uint32_t)(x ^ (x >> 32));
}

struct cfg_point {
    const nvs_coll *coll;
    int ci;
    nvs_dtype type;
    int opi; /* -1 = none */
    size_t size;
    int inplace;
    int planned; /* sizes in the sweep */
};

/* One operation, unless a signal came: a backend whose launch completes the operation (mpi: a 1 GiB all-reduce
 * takes the host about a second) never reaches a wait that polls for it, and -w/-n/-m loops of them would run
 * on for minutes after Ctrl-C. Every rank got the signal (mpirun forwards it) and stops at its next launch; one
 * that launched once more waits for its peers in that operation's wait, which polls for the signal too. */
static nvs_result_t launch_one(nvs_backend *b, nvs_comm *c, const nvs_op *op)
{
    if (nvs_interrupted()) return NVS_ERR_INTERRUPTED;
    /* Ranks outside this point's N wait in a host collective while the members warm up and time it (seconds to
     * minutes: -n 1000 of a large size); a heartbeat now and then (a clock read when none is due, runtime.h) says
     * the members are working, so that the waiting ranks do not take a loop longer than --timeout for a stall.
     * A member stalled for good is still noticed: the beats stop, and its peers' own waits time out. */
    nvs_rt_beat(b->rt);
    return b->ops->launch(b, c, op);
}

/* Where the next operation of a point goes: slice `next` of the buffers (slices.h: nccl-tests' rotation). One
 * count runs through a point's warm-up, probe and timed loop, so that the timed loop starts on slices those did
 * not just touch (nccl-tests warms every size up front, before it times any). */
typedef struct {
    nvs_slices sl;
    unsigned long long next;
} slice_cursor;

/* The same operation in the cursor's next slice, which then moves on */
static nvs_result_t launch_at(nvs_backend *b, nvs_comm *c, const nvs_op *op, slice_cursor *cur)
{
    nvs_op at = *op;
    size_t off = nvs_slice_offset(cur->sl, cur->next++);
    at.send = (char *)op->send + off;
    at.recv = (char *)op->recv + off;
    return launch_one(b, c, &at);
}

/* One timed iteration: -m operations, in one group where the backend has groups (nccl-tests' agg_iters). The
 * group is closed also after a failed launch (an open group would take every later call of this thread into it);
 * the first error is the one returned. */
static nvs_result_t launch_iter(nvs_backend *b, nvs_comm *c, const nvs_op *op, const nvs_config *cfg,
                                slice_cursor *cur)
{
    int grouped = cfg->agg_iters > 1 && b->ops->group_begin;
    if (grouped) NVS_CHECK(b->ops->group_begin(b));
    nvs_result_t res = NVS_OK;
    /* each operation of the group in its own slice, as nccl-tests' iter * agg_iters + aiter */
    for (int j = 0; j < cfg->agg_iters && res == NVS_OK; j++) res = launch_at(b, c, op, cur);
    if (grouped) {
        nvs_result_t end = b->ops->group_end(b);
        if (res == NVS_OK) res = end;
    }
    return res;
}

/* -G: the timed loop captured into one graph. A failure while capturing still ends the capture (a stream left
 * capturing fails every later call, with errors that hide this one) and frees what was captured; the first error
 * is the one returned. */
static nvs_result_t capture_loop(nvs_backend *b, nvs_comm *c, const nvs_op *op, slice_cursor *cur, int iters,
                                 void **graph)
{
    *graph = NULL;
    NVS_CHECK(b->ops->graph_begin(b));
    nvs_result_t res = NVS_OK;
    for (int i = 0; i < iters && res == NVS_OK; i++) res = launch_iter(b, c, op, b->cfg, cur);
    if (res == NVS_OK) return b->ops->graph_end(b, graph);
    void *partial = NULL;
    (void)b->ops->graph_end(b, &partial); /* fails too where the capture was invalidated: said after ours */
    if (partial) b->ops->graph_free(b, partial);
    return res;
}

/* The timed loop: every rank starts it together (a host barrier); each active member times its own launches to
 * completion, *us per operation (-1 on the others), each operation in the cursor's next slice. With -G the loop is
 * captured first and replayed; the graph is freed on every way out. */
static nvs_result_t timed_loop(nvs_backend *b, nvs_comm *c, const nvs_op *op, slice_cursor *cur, int iters,
                               int active, double *us)
{
    const nvs_config *cfg = b->cfg;
    int launches = cfg->graph_launches;
    void *graph = NULL;
    nvs_result_t res = NVS_OK;
    *us = -1;
    if (active && launches) {
        NVS_CHECK(capture_loop(b, c, op, cur, iters, &graph));
        NVS_CHECK_GOTO(b->ops->graph_launch(b, graph), res, out); /* first replay uploads the graph: not timed */
        NVS_CHECK_GOTO(b->ops->wait(b, c, op), res, out);
    }
    NVS_CHECK_GOTO(nvs_barrier(b->rt, "start of a timed loop"), res, out);
    /* -z 1 as nccl-tests 2.19's (common.cu startColl: the wait, then Barrier, an MPI_Barrier of MPI_COMM_WORLD): a
     * host barrier of every rank after each operation, the ranks outside this point too (iters is every rank's:
     * agreed in run_point), so that they meet the members' barriers one for one */
    const int barriers = cfg->blocking == 1 && !launches;
    if (!active && barriers)
        for (int i = 0; i < iters && res == NVS_OK; i++) res = nvs_barrier(b->rt, "-z 1 barrier after an operation");
    if (active) {
        /* A host barrier releases ranks microseconds apart; one untimed operation, waited for, lines the members
         * up on the GPU side, so that a rank leaving the barrier early does not count the others' lateness as
         * collective time (it matters for short loops: -n 20 of 10 us). */
        NVS_CHECK_GOTO(launch_one(b, c, op), res, out);
        NVS_CHECK_GOTO(b->ops->wait(b, c, op), res, out);
        double t0 = nvs_now_us();
        if (launches) {
            for (int l = 0; l < launches && res == NVS_OK; l++)
                res = nvs_interrupted() ? NVS_ERR_INTERRUPTED : b->ops->graph_launch(b, graph);
        } else {
            for (int i = 0; i < iters && res == NVS_OK; i++) {
                res = launch_iter(b, c, op, cfg, cur);
                if (res == NVS_OK && cfg->blocking) res = b->ops->wait(b, c, op); /* -z 1 and 2 */
                if (res == NVS_OK && barriers) res = nvs_barrier(b->rt, "-z 1 barrier after an operation");
            }
        }
        if (res == NVS_OK) res = b->ops->wait(b, c, op);
        if (res == NVS_OK) *us = (nvs_now_us() - t0) / ((double)iters * (launches ? launches : 1) * cfg->agg_iters);
    }
out:
    if (graph) b->ops->graph_free(b, graph);
    return res;
}

/* Warm-up, choose iterations, time, validate one configuration. Members and idle ranks alike. */
static nvs_result_t run_point(nvs_backend *b, nvs_comm *c, int n, const nvs_sweep_buffers *bufs,
                              const struct cfg_point *pt, nvs_coll_rows *rows)
{
    const nvs_config *cfg = b->cfg;
    nvs_rt *rt = b->rt;
    int member = c != NULL;
    int crank = member ? b->ops->comm_rank(c) : -1;
    int stall = rt->rank == cfg->stall_rank && pt->size == cfg->stall_bytes; /* test hook: NVS_TEST_STALL */
    nvs_op op = {.coll = pt->coll, .type = pt->type, .op = pt->opi < 0 ? NVS_SUM : (nvs_redop)pt->opi,
                 .root = (pt->coll->flags & NVS_COLL_HAS_ROOT) ? cfg->root : 0, .bytes = pt->size,
                 .inplace = pt->inplace};
    size_t ts = nvs_dtype_size(pt->type);
    int ok_counts = pt->coll->counts(pt->size, ts, n, member ? crank : 0, &op.counts) == 0;
    /* [0] some rank cannot take this size; [1] some rank was interrupted: every rank stops here together */
    double agree[2] = {ok_counts ? 0 : 1, nvs_interrupted() ? 1 : 0};
    NVS_CHECK(nvs_allreduce_f64(rt, agree, 2, NVS_RT_MAX, "sweep configuration"));
    if (agree[1] > 0) return NVS_ERR_INTERRUPTED;
    /* too small to give every rank an element: left out (nccl-tests prints such a size as a row of 0 bytes, which
     * moves nothing and times only the launch; nvs_sweep_validate refuses a sweep left with no size at all), and
     * kept as left out, so that the table and run.json say so (an N of all_gather with no size was a silent gap) */
    if (agree[0] > 0) return nvs_rows_skip(rows, pt->ci, n, pt->type, pt->size, pt->planned);
    resolve(&op, bufs);
    slice_cursor cur = {nvs_slices_plan(nvs_slices_extent(&op.counts, ts, op.inplace), bufs->bytes), 0};
    nvs_pattern pat = nvs_pattern_for(pt->type, op.op, n, seed_of(pt->ci, pt->type, pt->opi, pt->size, pt->inplace, n));

    /* warm-up, then a short probe to size the timed loop */
    double probe_us = 0;
    if (member && !stall) {
        NVS_CHECK(fill_inputs(b, &op, &pat, crank));
        for (int i = 0; i < cfg->warmup; i++) NVS_CHECK(launch_at(b, c, &op, &cur));
        NVS_CHECK(b->ops->wait(b, c, &op));
        if (cfg->iters == 0) {
            double t0 = nvs_now_us();
            for (int i = 0; i < 4; i++) NVS_CHECK(launch_at(b, c, &op, &cur));
            NVS_CHECK(b->ops->wait(b, c, &op));
            probe_us = (nvs_now_us() - t0) / 4;
        }
    }
    int iters = cfg->iters;
    if (iters == 0) {
        NVS_CHECK(nvs_allreduce_f64(rt, &probe_us, 1, NVS_RT_MAX, "choosing iteration counts"));
        iters = nvs_auto_iters(probe_us, AUTO_TARGET_US, AUTO_MIN, AUTO_MAX);
    }

    /* timed loop: all ranks start together; each measures its own launches to completion */
    int launches = cfg->graph_launches;
    double my_us;
    NVS_CHECK(timed_loop(b, c, &op, &cur, iters, member && !stall, &my_us));
    double *all = malloc((size_t)rt->size * sizeof *all);
    if (!all) return NVS_ERR_NOMEM;
    nvs_result_t res = nvs_allgather(rt, &my_us, all, sizeof my_us, "gathering times");
    if (res != NVS_OK) {
        free(all);
        return res;
    }
    nvs_coll_row row = {.coll = pt->ci, .n = n, .type = pt->type, .op = pt->opi,
                        .root = (pt->coll->flags & NVS_COLL_HAS_ROOT) ? cfg->root : -1, .inplace = pt->inplace,
                        .bytes = op.counts.bytes, .count = op.counts.count, .size = pt->size, .iters = iters,
                        .graph_launches = launches, .slowest_rank = -1, .wrong = -1, .wrong_rank = -1};
    double sum = 0, first_member = -1;
    int cnt = 0;
    for (int r = 0; r < rt->size; r++) {
        if (all[r] < 0) continue;
        if (first_member < 0) first_member = all[r];
        if (!cnt || all[r] < row.t_min_us) row.t_min_us = all[r];
        if (!cnt || all[r] > row.t_max_us) {
            row.t_max_us = all[r];
            row.slowest_rank = r;
        }
        sum += all[r];
        cnt++;
    }
    free(all);
    row.t_avg_us = cnt ? sum / cnt : 0;
    /* -a: the time the bandwidths come from (nccl-tests' average modes); rank 0 = the lowest member rank */
    double basis = cfg->time_basis == 0 ? first_member
                   : cfg->time_basis == 1 ? row.t_avg_us
                   : cfg->time_basis == 2 ? row.t_min_us
                                          : row.t_max_us;
    row.t_basis_us = basis;
    row.algbw_gbps = nvs_algbw_gbps((double)row.bytes, basis);
    row.busbw_gbps = nvs_busbw_gbps((double)row.bytes, basis, pt->coll->busbw_factor(n));
    /* N=1 is the baseline, not a bus: nothing crosses a link, so there is no bus bandwidth; in place there is not
     * even a copy (the library returns at once), so no algorithm bandwidth either. Unknown, not zero. */
    if (n == 1) {
        row.busbw_gbps = NAN;
        if (pt->inplace) row.algbw_gbps = NAN;
    }

    /* validation: fresh inputs, one operation, every output element compared with its exact expectation */
    if (cfg->check) {
        unsigned long long wrong = 0, first = 0;
        if (member && !stall) {
            pat.seed ^= 0x5bd1e995u;
            NVS_CHECK(fill_inputs(b, &op, &pat, crank));
            NVS_CHECK(b->ops->launch(b, c, &op));
            NVS_CHECK(b->ops->wait(b, c, &op));
            nvs_expect e;
            pt->coll->expect(&op.counts, n, crank, op.root, op.inplace, &e);
            if (rt->rank == cfg->corrupt_rank && e.check_count) /* test hook: NVS_TEST_CORRUPT */
                NVS_CHECK(b->ops->poison(b, op.recv, ts));
            NVS_CHECK(b->ops->verify(b, op.type, op.recv, &pat, &e, &wrong, &first));
        }
        double wsum = (double)wrong, who = wrong ? (double)rt->rank : 1e18;
        NVS_CHECK(nvs_allreduce_f64(rt, &wsum, 1, NVS_RT_SUM, "validation"));
        NVS_CHECK(nvs_allreduce_f64(rt, &who, 1, NVS_RT_MIN, "validation"));
        row.wrong = (long long)wsum;
        if (row.wrong) {
            row.wrong_rank = (int)who;
            double fi = rt->rank == row.wrong_rank ? (double)first : 0;
            NVS_CHECK(nvs_allreduce_f64(rt, &fi, 1, NVS_RT_MAX, "validation"));
            row.first_wrong = (unsigned long long)fi;
        }
    }
    return nvs_rows_push(rows, &row);
}

/* The sweep's points in the order they run, for the time left (eta.h): pass 0 counts them, pass 1 fills eta[],
 * pass 2 runs them */
nvs_result_t nvs_sweep_run(nvs_backend *b, nvs_comm *c, int n, const nvs_sweep_buffers *bufs, nvs_coll_rows *rows)
{
    const nvs_config *cfg = b->cfg;
    size_t sizes[MAX_SIZES];
    size_t nsizes = nvs_sweep_plan_sizes(cfg, sizes, MAX_SIZES);
    if (!nsizes) return NVS_ERR_USAGE;
    int total = 0, done = 0;
    nvs_eta_point *eta = NULL;
    const nvs_eta_auto au = {AUTO_TARGET_US, AUTO_MIN, AUTO_MAX};
    /* untimed operations of a point (run_point): warm-up, the probe of the automatic -n, the one that lines the
     * ranks up before the timed loop, the check */
    const int extra = cfg->warmup + (cfg->iters == 0 ? 4 : 0) + 1 + (cfg->check ? 1 : 0);
    const int per_iter = (cfg->agg_iters > 0 ? cfg->agg_iters : 1) * (cfg->graph_launches ? cfg->graph_launches : 1);
    double t_start = nvs_now_us();
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1 && !(eta = calloc((size_t)(total ? total : 1), sizeof *eta))) return NVS_ERR_NOMEM;
        int k = 0;
        for (int ci = 0; ci < nvs_coll_count(); ci++) {
            const nvs_coll *coll = nvs_coll_at(ci);
            if (!(cfg->colls_mask & (1u << ci))) continue;
            for (int t = 0; t < NVS_DTYPE_COUNT; t++) {
                if (!(cfg->types_mask & (1u << t))) continue;
                for (int o = 0; o < NVS_OP_COUNT; o++) {
                    int has_op = coll->flags & NVS_COLL_HAS_OP;
                    if (has_op ? !(cfg->ops_mask & (1u << o)) : o > 0) continue;
                    for (size_t s = 0; s < nsizes; s++) {
                        for (int ip = 0; ip < 2; ip++) {
                            if (!(cfg->inplace_mask & (ip ? NVS_INPLACE_IN : NVS_INPLACE_OUT))) continue;
                            if (ip && (coll->flags & NVS_COLL_NO_INPLACE)) continue;
                            if (pass == 0) {
                                total++;
                                continue;
                            }
                            nvs_eta_point *e = &eta[k++];
                            if (pass == 1) {
                                /* bytes an operation moves: the bus bytes, plus the copy to the output out of
                                 * place (in place at N = 1 moves nothing: the library returns at once) */
                                double f = coll->busbw_factor(n) + (ip ? 0 : 1);
                                *e = (nvs_eta_point){.size = (double)sizes[s], .wbytes = (double)sizes[s] * f,
                                                     .iters = cfg->iters, .per_iter = per_iter, .extra = extra,
                                                     .state = NVS_ETA_TODO};
                                continue;
                            }
                            struct cfg_point pt = {coll, ci, (nvs_dtype)t, has_op ? o : -1, sizes[s], ip, (int)nsizes};
                            char sz[32], key[32], left[64] = "";
                            double now = nvs_now_us(), el = now - t_start;
                            /* time left at this N: this point and the ones after it, each by its expected cost
                             * (eta.h); the next N, other collectives' runs and the training step are not in it */
                            double est = nvs_eta_left_us(eta, (size_t)total, &au);
                            if (est >= 0) snprintf(left, sizeof left, ", ~%.0f s left at N=%d", est / 1e6, n);
                            snprintf(key, sizeof key, "sweep N=%d", n);
                            nvs_progress(key, "sweep N=%d  %s %s %s %s  [%d/%d]  %.0f s elapsed%s", n, coll->name,
                                         nvs_format_size(sizes[s], sz, sizeof sz), nvs_dtype_name((nvs_dtype)t),
                                         ip ? "in-place" : "out-of-place", done + 1, total, el / 1e6, left);
                            done++;
                            size_t had = rows->n;
                            nvs_result_t res = run_point(b, c, n, bufs, &pt, rows);
                            if (res != NVS_OK) {
                                free(eta);
                                return res;
                            }
                            e->state = rows->n > had ? NVS_ETA_TIMED : NVS_ETA_LEFT_OUT;
                            e->wall_us = nvs_now_us() - now;
                            if (rows->n > had) {
                                e->iters = rows->v[rows->n - 1].iters;
                                e->op_us = rows->v[rows->n - 1].t_max_us;
                            }
                        }
                    }
                }
            }
        }
    }
    free(eta);
    nvs_progress_done();
    return NVS_OK;
}
