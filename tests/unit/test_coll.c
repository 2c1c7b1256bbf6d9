/* Collective descriptors: bus-bandwidth factors, counts equal to nccl-tests' columns, and the validation
 * expectations checked against a host simulation of every collective (both reduction orders), including
 * simulations with a planted mistake that validation must catch. */
#include <stdint.h>
#include <stdlib.h>

#include "collectives/coll.h"
#include "collectives/pattern.h"
#include "collectives/slices.h"
#include "core/half.h"
#include "t.h"

static void t_factors(void)
{
    /* nccl-tests doc/PERFORMANCE.md */
    T_NEAR(nvs_coll_all_reduce.busbw_factor(2), 1.0, 1e-12);
    T_NEAR(nvs_coll_all_reduce.busbw_factor(8), 1.75, 1e-12);
    T_NEAR(nvs_coll_all_gather.busbw_factor(8), 0.875, 1e-12);
    T_NEAR(nvs_coll_reduce_scatter.busbw_factor(4), 0.75, 1e-12);
    T_NEAR(nvs_coll_alltoall.busbw_factor(2), 0.5, 1e-12);
    T_NEAR(nvs_coll_broadcast.busbw_factor(8), 1.0, 0);
    T_NEAR(nvs_coll_reduce.busbw_factor(8), 1.0, 0);
    T_NEAR(nvs_coll_sendrecv.busbw_factor(8), 1.0, 0);
    T_NEAR(nvs_coll_all_reduce.busbw_factor(1), 0.0, 0);
}

static void t_registry(void)
{
    T_EQ_I(nvs_coll_count(), 7);
    T_ASSERT(nvs_coll_find("allreduce") == &nvs_coll_all_reduce);
    T_ASSERT(nvs_coll_find("AllGather") == &nvs_coll_all_gather);
    T_ASSERT(nvs_coll_find("bcast") == &nvs_coll_broadcast);
    T_ASSERT(nvs_coll_find("reduce_scatter") == &nvs_coll_reduce_scatter);
    T_ASSERT(nvs_coll_find("scatter") == NULL);
    for (int i = 0; i < nvs_coll_count(); i++) T_EQ_I(nvs_coll_index(nvs_coll_at(i)), i);
}

static void t_counts_match_nccl_tests(void)
{
    nvs_coll_counts c;
    /* shared/reference/h200x2/all_gather.txt: size 1073741824, count 134217728 (float, 2 ranks) */
    T_EQ_I(nvs_coll_all_gather.counts(1073741824, 4, 2, 1, &c), 0);
    T_EQ_U(c.bytes, 1073741824);
    T_EQ_U(c.count, 134217728);
    T_EQ_U(c.send_in_recv, 134217728);
    /* reduce_scatter.txt: same columns */
    T_EQ_I(nvs_coll_reduce_scatter.counts(1073741824, 4, 2, 1, &c), 0);
    T_EQ_U(c.count, 134217728);
    T_EQ_U(c.send_count, 268435456);
    T_EQ_U(c.recv_in_send, 134217728);
    /* alltoall.txt */
    T_EQ_I(nvs_coll_alltoall.counts(1073741824, 4, 2, 0, &c), 0);
    T_EQ_U(c.count, 134217728);
    /* allreduce.txt: 8 B = 2 floats */
    T_EQ_I(nvs_coll_all_reduce.counts(8, 4, 2, 0, &c), 0);
    T_EQ_U(c.count, 2);
    /* sizes that do not divide round down, as nccl-tests prints them: 100 B of float over 3 ranks */
    T_EQ_I(nvs_coll_all_gather.counts(100, 4, 3, 0, &c), 0);
    T_EQ_U(c.count, 8);
    T_EQ_U(c.bytes, 96);
    /* per-rank blocks trimmed to 16 bytes as nccl-tests 2.19.6 does (`(count/nranks) & ~(16/eltSize - 1)`):
     * 64 B of float over 3 ranks is 5 elements each, printed by all_gather_perf as size 48, count 4 */
    T_EQ_I(nvs_coll_all_gather.counts(64, 4, 3, 2, &c), 0);
    T_EQ_U(c.count, 4);
    T_EQ_U(c.bytes, 48);
    T_EQ_U(c.send_in_recv, 8);
    T_EQ_I(nvs_coll_reduce_scatter.counts(4096, 4, 3, 1, &c), 0);
    T_EQ_U(c.count, 340);
    T_EQ_U(c.bytes, 4080);
    T_EQ_U(c.recv_in_send, 340);
    T_EQ_I(nvs_coll_alltoall.counts(1024, 2, 3, 0, &c), 0); /* half: 170 per rank -> 168 (8 elements = 16 B) */
    T_EQ_U(c.count, 168);
    T_EQ_U(c.bytes, 1008);
    T_EQ_I(nvs_coll_all_gather.counts(16, 4, 2, 0, &c), -1); /* 2 floats each: under 16 B, nothing */
    T_EQ_I(nvs_coll_reduce_scatter.counts(24, 8, 2, 0, &c), -1); /* 1 double each */
    T_EQ_U(nvs_coll_per_rank(1073741824, 8, 8), 16777216);
    /* too small for every rank to get an element */
    T_EQ_I(nvs_coll_all_gather.counts(8, 4, 4, 0, &c), -1);
    T_EQ_I(nvs_coll_all_reduce.counts(2, 4, 1, 0, &c), -1);
}

/* ---- host simulation -------------------------------------------------------------------------------------- */

/* value as stored in the type (all pattern values are small integers: exact in every type) */
static double as_type(nvs_dtype t, double v)
{
    switch (t) {
    case NVS_HALF: return nvs_f16_to_f32(nvs_f32_to_f16((float)v));
    case NVS_BF16: return nvs_bf16_to_f32(nvs_f32_to_bf16((float)v));
    case NVS_FLOAT: return (float)v;
    default: return v;
    }
}

static double red(int op, double a, double b)
{
    return op == NVS_SUM ? a + b : op == NVS_MAX ? (a > b ? a : b) : op == NVS_MIN ? (a < b ? a : b) : a * b;
}

/* Reduce element j over ranks in forward or reverse order, rounding through the type at every step (as a ring
 * does): the pattern's promise is that the result does not depend on the order. */
static double sim_reduce(nvs_dtype t, const nvs_pattern *p, size_t j, int reverse)
{
    int n = p->nranks;
    /* avg as NCCL does it: floating types multiply each input by 1/n held in the type, then sum (PreMulSum);
     * integers sum, then divide with C's truncation */
    int premul = p->op == NVS_AVG && !nvs_dtype_is_int(t);
    int op = p->op == NVS_AVG ? NVS_SUM : p->op;
    double acc = 0;
    for (int k = 0; k < n; k++) {
        int r = reverse ? n - 1 - k : k;
        double v = as_type(t, nvs_pattern_value(p, r, j));
        if (premul) v = as_type(t, v * p->avg_unit);
        acc = k ? as_type(t, red(op, acc, v)) : v;
        if (nvs_dtype_is_int(t)) { /* no partial result may leave the type's range */
            double lo = nvs_dtype_is_unsigned(t) ? 0 : -nvs_dtype_exact_int(t);
            double hi = nvs_dtype_is_unsigned(t) ? 2 * nvs_dtype_exact_int(t) + 1 : nvs_dtype_exact_int(t);
            if (acc < lo || acc > hi) T_FAIL("%s element %zu: partial %g outside [%g, %g]", nvs_dtype_name(t), j, acc,
                                             lo, hi);
        }
    }
    if (p->op == NVS_AVG && !premul) acc = (double)(int64_t)(acc / n);
    return acc;
}

enum { BUG_NONE, BUG_SWAP_BLOCKS, BUG_STALE_ELEMENT };

/* The output of rank `rank` for collective c, simulated from the semantics. */
static void simulate(const nvs_coll *c, nvs_dtype t, const nvs_pattern *p, int rank, int root,
                     const nvs_coll_counts *k, double *out, int reverse, int bug)
{
    int n = p->nranks;
    size_t rc = k->recv_count;
    for (size_t i = 0; i < rc; i++) {
        switch (c->prim) {
        case NVS_PRIM_ALLREDUCE:
        case NVS_PRIM_REDUCE: out[i] = sim_reduce(t, p, i, reverse); break;
        case NVS_PRIM_BROADCAST: out[i] = as_type(t, nvs_pattern_value(p, root, i)); break;
        case NVS_PRIM_ALLGATHER: {
            size_t ch = k->send_count;
            int src = (int)(i / ch);
            if (bug == BUG_SWAP_BLOCKS) src = n - 1 - src;
            out[i] = as_type(t, nvs_pattern_value(p, src, i % ch));
            break;
        }
        case NVS_PRIM_REDUCESCATTER: out[i] = sim_reduce(t, p, (size_t)rank * rc + i, reverse); break;
        case NVS_PRIM_ALLTOALL: {
            size_t ch = rc / (size_t)n;
            int src = (int)(i / ch);
            if (bug == BUG_SWAP_BLOCKS) src = n - 1 - src;
            out[i] = as_type(t, nvs_pattern_value(p, src, (size_t)rank * ch + i % ch));
            break;
        }
        case NVS_PRIM_SENDRECV: out[i] = as_type(t, nvs_pattern_value(p, nvs_ring_prev(rank, n), i)); break;
        }
    }
    if (bug == BUG_STALE_ELEMENT && rc) out[rc / 2] = as_type(t, nvs_pattern_value(p, rank, rc / 2)) + 1000;
}

/* The check the backends make: count outputs that differ from the expectation. */
static size_t count_wrong(nvs_dtype t, const nvs_pattern *p, const nvs_expect *e, const double *out)
{
    size_t wrong = 0;
    for (size_t k = 0; k < e->check_count; k++) {
        size_t idx = e->index_offset + (e->chunk ? k % e->chunk : k);
        double want = e->reduce ? nvs_pattern_reduced(p, idx)
                                : nvs_pattern_value(p, e->fixed_src >= 0 ? e->fixed_src : (int)(k / e->chunk), idx);
        if (out[k] != as_type(t, want)) wrong++;
    }
    return wrong;
}

static size_t run_sim(const nvs_coll *c, nvs_dtype t, int op, int n, size_t bytes, int bug, int reverse)
{
    size_t wrong = 0;
    int root = n > 1 ? 1 : 0;
    for (int rank = 0; rank < n; rank++) {
        nvs_coll_counts k;
        if (c->counts(bytes, nvs_dtype_size(t), n, rank, &k)) continue;
        nvs_pattern p = nvs_pattern_for(t, op, n, 1234u + (uint32_t)n);
        double *out = malloc(k.recv_count * sizeof *out);
        simulate(c, t, &p, rank, root, &k, out, reverse, bug);
        nvs_expect e;
        c->expect(&k, n, rank, root, 0, &e);
        wrong += count_wrong(t, &p, &e, out);
        free(out);
    }
    return wrong;
}

static void t_expectations_hold(void)
{
    static const int ns[] = {1, 2, 3, 4, 8};
    for (int ci = 0; ci < nvs_coll_count(); ci++) {
        const nvs_coll *c = nvs_coll_at(ci);
        for (int t = 0; t < NVS_DTYPE_COUNT; t++)
            for (int op = 0; op < NVS_OP_COUNT; op++) {
                if (!(c->flags & NVS_COLL_HAS_OP) && op) continue;
                for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
                    for (int rev = 0; rev < 2; rev++) {
                        size_t w = run_sim(c, (nvs_dtype)t, op, ns[ni], 4096, BUG_NONE, rev);
                        if (w) T_FAIL("%s %s op %d n %d reverse %d: %zu wrong on a correct simulation", c->name,
                                      nvs_dtype_name((nvs_dtype)t), op, ns[ni], rev, w);
                    }
            }
    }
}

static void t_validation_catches_mistakes(void)
{
    /* blocks from the wrong rank */
    T_ASSERT(run_sim(&nvs_coll_all_gather, NVS_FLOAT, 0, 4, 4096, BUG_SWAP_BLOCKS, 0) > 0);
    T_ASSERT(run_sim(&nvs_coll_alltoall, NVS_HALF, 0, 4, 4096, BUG_SWAP_BLOCKS, 0) > 0);
    /* one element left as this rank's input */
    for (int ci = 0; ci < nvs_coll_count(); ci++) {
        const nvs_coll *c = nvs_coll_at(ci);
        size_t w = run_sim(c, NVS_BF16, 0, 4, 4096, BUG_STALE_ELEMENT, 0);
        if (!w) T_FAIL("%s: a stale element was not caught", c->name);
    }
}

static void t_pattern_exact_many_ranks(void)
{
    /* bfloat16 sums stay exact beyond 256 ranks (sparse pattern), in any order */
    nvs_pattern p = {.op = NVS_SUM, .nranks = 300, .magnitude = nvs_pattern_magnitude(256, 300), .seed = 7};
    T_EQ_I(p.magnitude, 0);
    for (size_t j = 0; j < 2000; j++) {
        double a = sim_reduce(NVS_BF16, &p, j, 0), b = sim_reduce(NVS_BF16, &p, j, 1);
        if (a != b || a != as_type(NVS_BF16, nvs_pattern_reduced(&p, j))) T_FAIL("element %zu: %g vs %g", j, a, b);
    }
    /* int8 and uint8 sums and averages over many ranks never leave the type (sim_reduce checks every partial
     * result): dense up to 127 ranks (M * n <= 127), sparse beyond */
    static const int many[] = {2, 3, 31, 42, 64, 127, 128, 300};
    static const nvs_dtype small[] = {NVS_INT8, NVS_UINT8};
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++)
        for (size_t d = 0; d < 2; d++)
            for (int op = 0; op < NVS_OP_COUNT; op++) {
                nvs_pattern q8 = nvs_pattern_for(small[d], op, many[i], 11);
                for (size_t j = 0; j < 500; j++) {
                    double a = sim_reduce(small[d], &q8, j, 0), b = sim_reduce(small[d], &q8, j, 1);
                    double want = nvs_pattern_reduced(&q8, j);
                    if (a != b || a != want || (nvs_dtype_is_unsigned(small[d]) && want < 0))
                        T_FAIL("%s %s n %d element %zu: %g / %g, want %g", nvs_dtype_name(small[d]),
                               nvs_redop_name((nvs_redop)op), many[i], j, a, b, want);
                }
            }
    /* avg on floating types is not vacuous: non-zero results exist, and a missing division is caught */
    nvs_pattern pa = nvs_pattern_for(NVS_HALF, NVS_AVG, 3, 5);
    int nonzero = 0;
    for (size_t j = 0; j < 100; j++) {
        double r = nvs_pattern_reduced(&pa, j), s = 0;
        for (int k = 0; k < 3; k++) s += nvs_pattern_value(&pa, k, j);
        nonzero += r != 0;
        if (r != 0 && as_type(NVS_HALF, s) == as_type(NVS_HALF, r)) T_FAIL("avg element %zu: sum %g == avg", j, s);
    }
    T_ASSERT(nonzero > 50);
    /* dense magnitudes: M * n within the exact range */
    T_EQ_I(nvs_pattern_magnitude(2048, 8), 4);
    T_EQ_I(nvs_pattern_magnitude(256, 128), 2);
    T_EQ_I(nvs_pattern_magnitude(256, 200), 1);
    /* products stay within +-2 */
    nvs_pattern q = {.op = NVS_PROD, .nranks = 64, .magnitude = 1, .seed = 3};
    for (size_t j = 0; j < 1000; j++) {
        double v = nvs_pattern_reduced(&q, j);
        if (v != 1 && v != -1 && v != 2 && v != -2) T_FAIL("product %g out of range", v);
    }
}

/* The timed loops' slices (collectives/slices.h): nccl-tests' rotation, strides aligned to 256 B; every slice of
 * every collective's placement, at any size and world size, lies inside the sweep buffers. */
static void t_slices(void)
{
    nvs_slices s = nvs_slices_plan(16u << 20, 512u << 20); /* 16 MiB in 512 MiB: 32 slices */
    T_EQ_U(s.stride, 16u << 20);
    T_EQ_U(s.count, 32);
    T_EQ_U(nvs_slice_offset(s, 0), 0);
    T_EQ_U(nvs_slice_offset(s, 31), 31u * (16u << 20));
    T_EQ_U(nvs_slice_offset(s, 32), 0);
    s = nvs_slices_plan(8, 1024); /* 8 B: strides of 256 */
    T_EQ_U(s.stride, 256);
    T_EQ_U(s.count, 4);
    T_EQ_U(nvs_slice_offset(s, 5), 256);
    s = nvs_slices_plan(1000, 1024); /* one slice: always at 0 */
    T_EQ_U(s.count, 1);
    T_EQ_U(nvs_slice_offset(s, 7), 0);
    s = nvs_slices_plan(1000, 1000); /* the largest size: no room to move */
    T_EQ_U(s.count, 1);
    T_EQ_U(nvs_slice_offset(s, 3), 0);
    s = nvs_slices_plan(0, 1024);
    T_EQ_U(nvs_slice_offset(s, 3), 0);
    s = nvs_slices_plan(2048, 1024); /* cannot happen in a sweep; still never out of the buffer */
    T_EQ_U(nvs_slice_offset(s, 3), 0);
    s = nvs_slices_plan((size_t)-1, (size_t)-1); /* the rounding would overflow */
    T_EQ_U(nvs_slice_offset(s, 1), 0);

    const size_t buffer = 3u << 20; /* a sweep's buffers: -e 3 MiB */
    const size_t sizes[] = {8, 24, 1000, 4096, 65536 + 4, 1u << 20, (3u << 20) - 4, 3u << 20};
    const int ns[] = {1, 2, 3, 8, 64};
    for (int ci = 0; ci < nvs_coll_count(); ci++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
                for (int ip = 0; ip < 2; ip++)
                    for (int rank = 0; rank < ns[ni]; rank += ns[ni] > 2 ? ns[ni] - 1 : 1) {
                        nvs_coll_counts k;
                        if (nvs_coll_at(ci)->counts(sizes[si], 4, ns[ni], rank, &k)) continue;
                        size_t ext = nvs_slices_extent(&k, 4, ip);
                        T_ASSERT(ext <= buffer);
                        nvs_slices sl = nvs_slices_plan(ext, buffer);
                        for (unsigned long long i = 0; i < 2 * sl.count + 1; i++)
                            if (nvs_slice_offset(sl, i) + ext > buffer || nvs_slice_offset(sl, i) % NVS_SLICE_ALIGN)
                                T_FAIL("%s %zu B n=%d rank %d %s: slice %llu at %zu + %zu B outside %zu B or unaligned",
                                       nvs_coll_at(ci)->name, sizes[si], ns[ni], rank, ip ? "in-place" : "out-of-place",
                                       i, nvs_slice_offset(sl, i), ext, buffer);
                    }
}

T_LIST = {T_CASE(t_factors), T_CASE(t_registry), T_CASE(t_counts_match_nccl_tests), T_CASE(t_expectations_hold),
          T_CASE(t_validation_catches_mistakes), T_CASE(t_pattern_exact_many_ranks), T_CASE(t_slices)};
T_MAIN
