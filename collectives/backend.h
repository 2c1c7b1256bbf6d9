/* Collective backends: where the bytes move.
 *   nccl  NCCL on GPU memory, one GPU per rank (backend_nccl.c; its parts in backend_nccl_*.c)
 *   mpi   MPI collectives on host memory (backend_mpi.c): a real benchmark for CPU clusters, and what runs on
 *         machines without GPUs (CI)
 * The sweep engine (sweep.c) and the training step see only this interface.
 *
 * Communicators: one per GPU count N, made from the world communicator by a split (ncclCommSplit /
 * MPI_Comm_split) that every world rank takes part in; ranks outside the N get NULL and wait. */
#ifndef NVS_BACKEND_H
#define NVS_BACKEND_H

#include <stddef.h>

#include "core/config.h"
#include "core/err.h"
#include "runtime/runtime.h"
#include "collectives/coll.h"
#include "collectives/pattern.h"

typedef struct nvs_backend nvs_backend;
typedef struct nvs_comm nvs_comm;

/* One operation, fully resolved for this rank. */
typedef struct {
    const nvs_coll *coll;
    nvs_dtype type;
    nvs_redop op;
    int root; /* comm rank */
    nvs_coll_counts counts;
    void *send, *recv; /* in-place already resolved: they overlap as the collective defines */
    size_t bytes;      /* the sweep size (for messages) */
    int inplace;
} nvs_op;

struct nvs_backend_ops {
    const char *name; /* "nccl", "mpi" */
    /* `member`: whether this rank belongs to the new communicator (ranks keep their world order). */
    nvs_result_t (*comm_split)(nvs_backend *b, int member, nvs_comm **out);
    void (*comm_free)(nvs_backend *b, nvs_comm *c);
    int (*comm_rank)(const nvs_comm *c);
    int (*comm_size)(const nvs_comm *c);
    /* Device (or host) buffers for the sweep. */
    nvs_result_t (*alloc)(nvs_backend *b, size_t bytes, void **p);
    void (*free)(nvs_backend *b, void *p);
    nvs_result_t (*fill)(nvs_backend *b, nvs_dtype t, void *p, size_t count, const nvs_pattern *pat, int rank,
                         size_t index_offset);
    nvs_result_t (*poison)(nvs_backend *b, void *p, size_t bytes);
    /* Counts wrong elements of `out` against the expectation (blocking). */
    nvs_result_t (*verify)(nvs_backend *b, nvs_dtype t, const void *out, const nvs_pattern *pat,
                           const nvs_expect *e, unsigned long long *wrong, unsigned long long *first_wrong);
    /* Enqueue (NCCL) or perform (MPI) one operation. */
    nvs_result_t (*launch)(nvs_backend *b, nvs_comm *c, const nvs_op *op);
    /* Wait until everything launched has completed; past the timeout, abort the communicators and say which
     * operation stalled. */
    nvs_result_t (*wait)(nvs_backend *b, nvs_comm *c, const nvs_op *op);
    /* CUDA graphs (-G): begin capturing, launch ops, end into a graph handle, replay, free. The MPI backend
     * has none (NULL): -G is refused there. */
    nvs_result_t (*graph_begin)(nvs_backend *b);
    nvs_result_t (*graph_end)(nvs_backend *b, void **graph);
    nvs_result_t (*graph_launch)(nvs_backend *b, void *graph);
    void (*graph_free)(nvs_backend *b, void *graph);
    /* -m: operations launched between group_begin and group_end go out as one (ncclGroupStart/End). NULL where
     * the backend has no such thing (MPI: the operations simply run one after the other). */
    nvs_result_t (*group_begin)(nvs_backend *b);
    nvs_result_t (*group_end)(nvs_backend *b);
    void (*finalize)(nvs_backend *b);
};

struct nvs_backend {
    const struct nvs_backend_ops *ops;
    nvs_rt *rt;
    const nvs_config *cfg;
    void *impl;
    /* Facts for run.json, filled by init: */
    char device_name[256];
    char pci_bus_id[32];
    size_t device_memory_bytes;
};

/* Whether this process sees a usable GPU; if not, `why` says why (no driver, no device, ...). */
int nvs_gpu_available(char *why, size_t len);

/* Before a communicator creation that blocks and polls nothing until every rank has entered it (MPI_Comm_split,
 * ncclCommSplit, ncclCommInitRank): a rank that failed just before it (and told the others, runtime.h
 * nvs_rt_tell_failed), or that enters here with its own failure `mine`, would leave the others inside that call
 * for good, the job ending only on the failing rank's MPI_Abort ("interrupted") or never (threads). So every rank
 * first takes part in this non-blocking agreement, which polls the failure notice, the interrupt and --timeout
 * (runtime.h nvs_rt_agree_ok_told): NVS_OK when all ranks may go on; else `mine` where it failed (that rank tells
 * the others its last error line), NVS_ERR_ABORTED (rank 0 says that line) or the wait's own error elsewhere.
 * `call` names the blocking call. Shared by both backends (comm_agree.c). */
nvs_result_t nvs_comm_create_agree(nvs_rt *rt, nvs_result_t mine, const char *call);

/* Each init frees what it made when it fails, except an NCCL init cut short by a signal (NVS_ERR_INTERRUPTED) that
 * leaves b->impl set: its communicator's abort, 1.5-2 s in NCCL 2.28.3, waits for ops->finalize, which the caller
 * runs after writing what it has (backend_nccl_priv.h, NVS_MAX_DEFERRED_COMMS). */
nvs_result_t nvs_backend_nccl_init(nvs_backend *b, nvs_rt *rt, const nvs_config *cfg);
nvs_result_t nvs_backend_mpi_init(nvs_backend *b, nvs_rt *rt, const nvs_config *cfg);

#endif
