/* alltoall: block j of rank r's input goes to block r of rank j's output. Built from grouped send/recv in NCCL
 * (as nccl-tests does) and MPI_Alltoall on the host backend. In-place is not defined. */
#include "collectives/coll.h"

/* nccl-tests doc/PERFORMANCE.md: alltoall busbw = algbw * (n-1)/n. */
static double factor(int n) { return n > 0 ? (double)(n - 1) / n : 0.0; }

static int counts(size_t bytes, size_t ts, int n, int rank, nvs_coll_counts *c)
{
    (void)rank;
    size_t base = nvs_coll_per_rank(bytes, ts, n);
    if (!base) return -1;
    *c = (nvs_coll_counts){.count = base,
                           .bytes = base * (size_t)n * ts,
                           .send_count = base * (size_t)n,
                           .recv_count = base * (size_t)n};
    return 0;
}

static void expect(const nvs_coll_counts *c, int n, int rank, int root, int inplace, nvs_expect *e)
{
    (void)root;
    (void)inplace;
    *e = (nvs_expect){.reduce = 0, .fixed_src = -1, .chunk = c->recv_count / (size_t)n,
                      .index_offset = c->recv_count / (size_t)n * (size_t)rank, .check_count = c->recv_count};
}

const nvs_coll nvs_coll_alltoall = {"alltoall", "alltoall_perf", NVS_PRIM_ALLTOALL, NVS_COLL_NO_INPLACE, factor,
                                    counts, expect};
