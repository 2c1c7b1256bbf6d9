/* Collective registry (PURE part: no CUDA, NCCL or MPI here).
 *
 * One collective = one small file (all_reduce.c, broadcast.c, ...) holding an `nvs_coll` descriptor:
 *   - counts():  how a "size" of the sweep turns into element counts and buffer layout, as nccl-tests does it,
 *                so that nvscale's size/count columns equal nccl-tests' row for row;
 *   - busbw_factor(): algbw -> busbw, from nccl-tests doc/PERFORMANCE.md ("bus bandwidth" section): the factor
 *                that makes busbw comparable to the hardware bandwidth whatever the number of ranks;
 *   - expect():  what each output element must hold, given the input pattern of collectives/pattern.h, so that
 *                every configuration is validated.
 * Backends (backend_nccl_launch.c, backend_mpi.c) launch the operation from `prim`.
 *
 * How to add a collective:
 *   1. write collectives/<name>.c with its descriptor (copy the shape of broadcast.c, keep the cited factor);
 *   2. add it to NVS_COLL_LIST below (order = the order of tables);
 *   3. if it needs a new primitive, add it to nvs_prim and implement it in both backends' launch switch;
 *   4. add its factor and counts to tests/unit/test_coll.c.
 */
#ifndef NVS_COLL_H
#define NVS_COLL_H

#include <stddef.h>

#include "core/dtype.h"
#include "collectives/pattern.h"

typedef enum {
    NVS_PRIM_ALLREDUCE,
    NVS_PRIM_BROADCAST,
    NVS_PRIM_REDUCE,
    NVS_PRIM_ALLGATHER,
    NVS_PRIM_REDUCESCATTER,
    NVS_PRIM_ALLTOALL,
    NVS_PRIM_SENDRECV,
} nvs_prim;

enum {
    NVS_COLL_HAS_OP = 1u << 0,      /* takes a reduction operation (else "none" in the table) */
    NVS_COLL_HAS_ROOT = 1u << 1,    /* takes a root rank (else -1 in the table) */
    NVS_COLL_NO_INPLACE = 1u << 2,  /* in-place is not a defined operation for it: only out-of-place runs */
};

/* Layout of one configuration. Counts are elements of the chosen type. */
typedef struct {
    size_t count;          /* the "count" column: elements per rank, as nccl-tests prints it */
    size_t bytes;          /* the "size" column: bytes the bandwidths are computed from */
    size_t send_count;     /* elements each rank sends from its send buffer */
    size_t recv_count;     /* elements in each rank's receive buffer */
    size_t send_in_recv;   /* in-place: the send buffer starts this many elements into the receive buffer */
    size_t recv_in_send;   /* in-place: the receive buffer starts this many elements into the send buffer */
} nvs_coll_counts;

/* What the output holds. Output element k (0 <= k < check_count) must equal:
 *   reduce: op over all ranks s of pattern(s, src_index(k));   else: pattern(src_rank(k), src_index(k))
 * with src_rank(k) = fixed_src >= 0 ? fixed_src : k / chunk, and
 *      src_index(k) = index_offset + (chunk ? k % chunk : k). */
typedef struct {
    int reduce;
    int fixed_src;
    size_t chunk;
    size_t index_offset;
    size_t check_count; /* 0: this rank's output is not defined (reduce on a non-root rank) */
} nvs_expect;

typedef struct nvs_coll {
    const char *name;            /* "all_reduce": the spelling used in flags, tables and run.json */
    const char *nccl_tests_name; /* "all_reduce_perf": the nccl-tests binary it is compared with */
    nvs_prim prim;
    unsigned flags;
    double (*busbw_factor)(int nranks);
    /* Returns 0, or -1 when `bytes` is too small to give every rank at least one element. */
    int (*counts)(size_t bytes, size_t type_size, int nranks, int rank, nvs_coll_counts *c);
    void (*expect)(const nvs_coll_counts *c, int nranks, int rank, int root, int inplace, nvs_expect *e);
} nvs_coll;

#define NVS_COLL_LIST(X)                                                                                     \
    X(all_reduce) X(broadcast) X(reduce) X(all_gather) X(reduce_scatter) X(alltoall) X(sendrecv)

#define NVS_X_DECL(n) extern const nvs_coll nvs_coll_##n;
NVS_COLL_LIST(NVS_X_DECL)
#undef NVS_X_DECL

int nvs_coll_count(void);
const nvs_coll *nvs_coll_at(int i);
const nvs_coll *nvs_coll_find(const char *name); /* accepts "allreduce" and "all_reduce", "bcast" */
int nvs_coll_index(const nvs_coll *c);

/* Shared by the descriptors. counts() of the collectives whose send and receive buffers both hold the whole
 * "size" (all_reduce, broadcast, reduce, sendrecv). */
int nvs_coll_counts_flat(size_t bytes, size_t type_size, int nranks, int rank, nvs_coll_counts *c);
/* Elements per rank of the collectives that split "size" into one block per rank (all_gather, reduce_scatter,
 * alltoall): size / type / nranks, trimmed down to a multiple of 16 bytes as nccl-tests does (2.19.6
 * src/all_gather.cu: `(count/nranks) & ~(16/eltSize - 1)`, since its 2024-12 fix for non-power-of-2 rank
 * counts), so that the size/count columns equal nccl-tests' at every rank count. 0: too small. */
size_t nvs_coll_per_rank(size_t bytes, size_t type_size, int nranks);
/* The ring neighbours of send/recv. */
static inline int nvs_ring_prev(int rank, int nranks) { return (rank - 1 + nranks) % nranks; }
static inline int nvs_ring_next(int rank, int nranks) { return (rank + 1) % nranks; }

/* The validation pattern (pattern.h) of one configuration: type t, operation op (-1 for a collective without
 * one: the sum pattern), n ranks. */
nvs_pattern nvs_pattern_for(nvs_dtype t, int op, int n, uint32_t seed);

#endif
