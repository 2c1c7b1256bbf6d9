/* reduce_scatter: block r of the reduction of all ranks' buffers lands on rank r. "size" is the whole input,
 * as in nccl-tests, and "count" the elements each rank receives. */
#include "collectives/coll.h"

/* nccl-tests doc/PERFORMANCE.md: reducescatter busbw = algbw * (n-1)/n. */
static double factor(int n) { return n > 0 ? (double)(n - 1) / n : 0.0; }

static int counts(size_t bytes, size_t ts, int n, int rank, nvs_coll_counts *c)
{
    size_t base = nvs_coll_per_rank(bytes, ts, n);
    if (!base) return -1;
    *c = (nvs_coll_counts){.count = base,
                           .bytes = base * (size_t)n * ts,
                           .send_count = base * (size_t)n,
                           .recv_count = base,
                           .recv_in_send = base * (size_t)rank};
    return 0;
}

static void expect(const nvs_coll_counts *c, int n, int rank, int root, int inplace, nvs_expect *e)
{
    (void)n;
    (void)root;
    (void)inplace;
    *e = (nvs_expect){.reduce = 1, .fixed_src = 0, .index_offset = c->recv_count * (size_t)rank,
                      .check_count = c->recv_count};
}

const nvs_coll nvs_coll_reduce_scatter = {"reduce_scatter", "reduce_scatter_perf", NVS_PRIM_REDUCESCATTER,
                                          NVS_COLL_HAS_OP, factor, counts, expect};
