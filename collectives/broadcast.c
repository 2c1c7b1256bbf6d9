/* broadcast: the root's buffer is copied to every rank. */
#include "collectives/coll.h"

/* nccl-tests doc/PERFORMANCE.md: broadcast busbw = algbw (each link carries the data once). */
static double factor(int n) { return n > 0 ? 1.0 : 0.0; }

static void expect(const nvs_coll_counts *c, int n, int rank, int root, int inplace, nvs_expect *e)
{
    (void)n;
    (void)rank;
    (void)inplace;
    *e = (nvs_expect){.reduce = 0, .fixed_src = root, .check_count = c->recv_count};
}

const nvs_coll nvs_coll_broadcast = {"broadcast", "broadcast_perf", NVS_PRIM_BROADCAST, NVS_COLL_HAS_ROOT,
                                     factor, nvs_coll_counts_flat, expect};
