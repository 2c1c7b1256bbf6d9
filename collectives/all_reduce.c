/* all_reduce: every rank ends with the reduction of all ranks' buffers. */
#include "collectives/coll.h"

/* nccl-tests doc/PERFORMANCE.md: a ring allreduce moves 2(n-1)/n of the data over each link. */
static double factor(int n) { return n > 0 ? 2.0 * (n - 1) / n : 0.0; }

static void expect(const nvs_coll_counts *c, int n, int rank, int root, int inplace, nvs_expect *e)
{
    (void)n;
    (void)rank;
    (void)root;
    (void)inplace;
    *e = (nvs_expect){.reduce = 1, .fixed_src = 0, .check_count = c->recv_count};
}

const nvs_coll nvs_coll_all_reduce = {"all_reduce", "all_reduce_perf", NVS_PRIM_ALLREDUCE, NVS_COLL_HAS_OP,
                                      factor, nvs_coll_counts_flat, expect};
