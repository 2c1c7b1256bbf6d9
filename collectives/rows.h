/* What a run measured, in memory, before it becomes run.json / a table / CSV (one row type shared by every
 * writer, so they cannot disagree). */
#ifndef NVS_RESULTS_H
#define NVS_RESULTS_H

#include <stddef.h>

#include "core/dtype.h"
#include "core/err.h"

typedef struct {
    int coll;           /* registry index (collectives/coll.h) */
    int n;              /* communicator size: GPUs (or host ranks) taking part */
    nvs_dtype type;
    int op;             /* nvs_redop, or -1 for collectives without one ("none") */
    int root;           /* -1 for collectives without one */
    int inplace;
    size_t bytes, count;
    size_t size;        /* the sweep's size (-b .. -e) this row measured. `bytes` is that size as the collective
                         * rounds it at this N (coll.h: all_gather, reduce_scatter and alltoall keep whole 16-byte
                         * blocks per rank, so 64 KiB of float is 65520 B at N=3, 65536 B at N=2): rows of one size
                         * at several N are matched by `size`, not `bytes` */
    int iters;          /* timed operations per rank */
    int graph_launches; /* 0: plain launches */
    double t_min_us, t_avg_us, t_max_us; /* per-operation time over the member ranks */
    int slowest_rank;   /* world rank with t_max */
    double t_basis_us;  /* the -a time basis's time (rank 0, mean, fastest, slowest): what the table shows and the
                         * bandwidths come from, as in nccl-tests */
    double algbw_gbps, busbw_gbps;       /* from the -a time basis (default the slowest rank); NAN where no bus
                                          * was crossed (N=1: busbw; N=1 in place: algbw too) */
    long long wrong;    /* summed over ranks; -1 = not checked (-c 0) */
    int wrong_rank;     /* lowest world rank with a wrong element, -1 if none */
    unsigned long long first_wrong; /* that rank's first wrong element index */
} nvs_coll_row;

/* Sizes of one (collective, N, type) the sweep left out because they give some rank no element (coll.h: 16-byte
 * blocks per rank for all_gather, reduce_scatter, alltoall): said in the table and run.json, never a silent gap.
 * The sweep's sizes rise, so those left out are the `sizes` from `first` to `last`; `planned` is how many it had. */
typedef struct {
    int coll, n;
    nvs_dtype type;
    size_t first, last;
    int sizes, planned;
} nvs_coll_skip;

typedef struct {
    nvs_coll_row *v;
    size_t n, cap;
    nvs_coll_skip *skips;
    size_t nskips, skips_cap;
    /* called after every row pushed, e.g. to checkpoint what was measured so far (may be NULL); an error it
     * returns stops the sweep */
    nvs_result_t (*on_push)(void *arg);
    void *on_push_arg;
} nvs_coll_rows;

nvs_result_t nvs_rows_push(nvs_coll_rows *r, const nvs_coll_row *row);
/* One size of (coll, n, type) left out as too small (counted once over its ops and placements). */
nvs_result_t nvs_rows_skip(nvs_coll_rows *r, int coll, int n, nvs_dtype type, size_t size, int planned);
/* Why an entry was left out, for people: "3 of 8 sizes (8 B to 32 B) left out: ..." or, where no size was left,
 * "no size measured: ..." */
char *nvs_coll_skip_text(const nvs_coll_skip *k, char *buf, size_t len);
void nvs_rows_free(nvs_coll_rows *r);

#endif
