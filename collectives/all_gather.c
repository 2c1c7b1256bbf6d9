/* all_gather: rank r's buffer lands in block r of every rank's output. "size" is the whole output, as in
 * nccl-tests, and "count" the elements each rank contributes. */
#include "collectives/coll.h"

/* nccl-tests doc/PERFORMANCE.md: allgather busbw = algbw * (n-1)/n. */
static double factor(int n) { return n > 0 ? (double)(n - 1) / n : 0.0; }

static int counts(size_t bytes, size_t ts, int n, int rank, nvs_coll_counts *c)
{
    size_t base = nvs_coll_per_rank(bytes, ts, n);
    if (!base) return -1;
    *c = (nvs_coll_counts){.count = base,
                           .bytes = base * (size_t)n * ts,
                           .send_count = base,
                           .recv_count = base * (size_t)n,
                           .send_in_recv = base * (size_t)rank};
    return 0;
}

static void expect(const nvs_coll_counts *c, int n, int rank, int root, int inplace, nvs_expect *e)
{
    (void)n;
    (void)rank;
    (void)root;
    (void)inplace;
    *e = (nvs_expect){.reduce = 0, .fixed_src = -1, .chunk = c->send_count, .check_count = c->recv_count};
}

const nvs_coll nvs_coll_all_gather = {"all_gather", "all_gather_perf", NVS_PRIM_ALLGATHER, 0, factor, counts,
                                      expect};
