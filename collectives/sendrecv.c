/* sendrecv: every rank sends its buffer to the next rank of the ring and receives from the previous one, all at
 * once (nccl-tests' sendrecv_perf). In-place is not defined. */
#include "collectives/coll.h"

/* nccl-tests doc/PERFORMANCE.md: point-to-point busbw = algbw. */
static double factor(int n) { return n > 0 ? 1.0 : 0.0; }

static void expect(const nvs_coll_counts *c, int n, int rank, int root, int inplace, nvs_expect *e)
{
    (void)root;
    (void)inplace;
    *e = (nvs_expect){.reduce = 0, .fixed_src = nvs_ring_prev(rank, n), .check_count = c->recv_count};
}

const nvs_coll nvs_coll_sendrecv = {"sendrecv", "sendrecv_perf", NVS_PRIM_SENDRECV, NVS_COLL_NO_INPLACE, factor,
                                    nvs_coll_counts_flat, expect};
