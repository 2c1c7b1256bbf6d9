/* Where each iteration of a timed loop puts its operation in the sweep buffers (PURE: arithmetic only, tested
 * without a GPU in tests/unit/test_coll.c).
 *
 * nccl-tests moves every iteration to the next slice of its buffers, which are allocated at the sweep's largest
 * size: common.cu's startColl offsets send and receive by totalnbytes * (iter % (maxbytes / totalnbytes)). So an
 * operation whose buffers fit in the GPU's L2 cache (50 MB on an H100 or H200) is not timed from the cache, as
 * it would be if every iteration read and wrote the same bytes: on one H200, a 16 MiB all_reduce took 6.4-6.8 us
 * on the same buffers (algbw 2.5 TB/s, more than HBM3e's 4.8 TB/s can carry for a read and a write) and 11.1-12.3
 * us in nccl-tests (results/h200x1-iters). nvscale slices the same way, for numbers that mean what nccl-tests'
 * mean (and what a training step sees: DDP's gradient buckets are different bytes each time), with one change:
 * the stride is rounded up to 256 bytes, cudaMalloc's alignment, so that no slice starts unaligned (nccl-tests'
 * sizes off a power of two can). As in nccl-tests, it keeps a size out of L2 only where the buffers (-e each) are
 * well above L2: at -e 16M every slice of every size fits in an H200's L2. */
#ifndef NVS_SLICES_H
#define NVS_SLICES_H

#include <stddef.h>

#include "collectives/coll.h"

#define NVS_SLICE_ALIGN 256

typedef struct {
    size_t stride; /* bytes from one slice to the next */
    size_t count;  /* slices that fit in the buffer, >= 1 (1: every iteration at offset 0) */
} nvs_slices;

/* `extent`: the bytes of its buffer the operation touches from the buffer's start (the larger of its send and
 * receive ends); `buffer`: each sweep buffer's bytes. */
static inline nvs_slices nvs_slices_plan(size_t extent, size_t buffer)
{
    nvs_slices s = {0, 1};
    if (extent == 0 || extent > buffer) return s;
    size_t stride = (extent + NVS_SLICE_ALIGN - 1) / NVS_SLICE_ALIGN * NVS_SLICE_ALIGN;
    if (stride < extent || stride > buffer) return s; /* (overflow) or no second slice fits aligned */
    s.stride = stride;
    s.count = buffer / stride;
    if (s.count == 1) s.stride = 0;
    return s;
}

/* The extent of an operation of counts k and element size ts, placed as the sweep places it (sweep.c resolve):
 * out of place, send from the start of one buffer and receive at the start of the other; in place, both in one
 * buffer, the send (all_gather) or the receive (reduce_scatter) that many elements in. */
static inline size_t nvs_slices_extent(const nvs_coll_counts *k, size_t ts, int inplace)
{
    size_t s = k->send_count * ts, r = k->recv_count * ts;
    if (inplace) {
        s += k->send_in_recv * ts;
        r += k->recv_in_send * ts;
    }
    return s > r ? s : r;
}

/* The byte offset of iteration i's slice */
static inline size_t nvs_slice_offset(nvs_slices s, unsigned long long i)
{
    return s.count > 1 ? s.stride * (size_t)(i % s.count) : 0;
}

#endif
