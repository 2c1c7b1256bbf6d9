/* reduce: the root ends with the reduction of all ranks' buffers; other ranks' outputs are undefined. */
#include "collectives/coll.h"

/* nccl-tests doc/PERFORMANCE.md: reduce busbw = algbw. */
static double factor(int n) { return n > 0 ? 1.0 : 0.0; }

static void expect(const nvs_coll_counts *c, int n, int rank, int root, int inplace, nvs_expect *e)
{
    (void)n;
    (void)inplace;
    *e = (nvs_expect){.reduce = 1, .fixed_src = 0, .check_count = rank == root ? c->recv_count : 0};
}

const nvs_coll nvs_coll_reduce = {"reduce", "reduce_perf", NVS_PRIM_REDUCE, NVS_COLL_HAS_OP | NVS_COLL_HAS_ROOT,
                                  factor, nvs_coll_counts_flat, expect};
