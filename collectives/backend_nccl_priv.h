/* PRIVATE to collectives/: what the NCCL backend's files share (backend.h and backend_nccl.h are the interface;
 * no other folder includes this header). The backend's state and communicators, and the calls that cross files:
 *   backend_nccl.c         set-up (the GPUs agreed on, the world communicator), teardown, the ops table
 *   backend_nccl_device.c  which GPU each rank drives: the probe, the choice, --emulate-nodes, duplicates
 *   backend_nccl_comm.c    communicators: splits of the world, their release, aborts deferred after a signal
 *   backend_nccl_mem.c     device buffers: allocation, fill, poison, verification
 *   backend_nccl_launch.c  launches: the collectives, grouped point-to-point, groups, CUDA graphs
 *   backend_nccl_wait.c    waits polled against the timeout: a stream's work, a communicator's creation */
#ifndef NVS_BACKEND_NCCL_PRIV_H
#define NVS_BACKEND_NCCL_PRIV_H

#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stddef.h>

#include "collectives/backend.h"

/* The world communicator is created non-blocking where NCCL has that (ncclConfig_t's `blocking`, NCCL 2.14 on):
 * world_init, nvs_nb_await_world. */
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0)
#define NVS_NCCL_NONBLOCKING_WORLD 1
#endif

struct nvs_comm {
    ncclComm_t comm;
    int rank, size;
    int owned; /* ours to destroy (cleared once aborted) */
};

/* After a signal, ncclCommDestroy / ncclCommAbort took 1.5-2 s each in NCCL 2.28.3 on an H200 (results/
 * h200x1-diag-stop: the main thread in a futex wait meanwhile), while mpirun SIGKILLs a rank about 1 s after its
 * SIGTERM. So a rank that was interrupted drains its streams briefly instead of aborting at once, and leaves
 * freeing its communicators to the end, after the results are written. */
#define NVS_MAX_DEFERRED_COMMS 16
/* How long an interrupted wait lets its stream finish by itself: the work already queued (a bucket's all-reduce,
 * the rest of a step's kernels) ends within this while every peer is alive; a stream still busy after it waits on
 * a peer that is gone, and only the abort ends it. */
#define NVS_INTERRUPT_DRAIN_S 0.5

struct nccl_impl {
    ncclComm_t world;
    int device;
    cudaStream_t stream;
    unsigned long long *d_counters; /* [0] wrong, [1] first wrong index */
    ncclComm_t active;              /* communicator of the op being waited for, for abort */
    /* communicators freed after a signal: ended at finalize, once rank 0 has written what was measured */
    ncclComm_t deferred[NVS_MAX_DEFERRED_COMMS];
    int ndeferred;
};

static inline struct nccl_impl *impl_of(nvs_backend *b) { return b->impl; }

/* Which GPU a rank drives, as nvs_nb_check_duplicates gathers it. */
struct gpu_ident {
    char host[64];
    char bus[32];
};

/* backend_nccl_device.c */
nvs_result_t nvs_nb_pick_device(nvs_backend *b, int visible, int *dev);
void nvs_nb_emulated_host_env(nvs_rt *rt);
nvs_result_t nvs_nb_check_duplicates(nvs_backend *b, int visible, struct gpu_ident *all);
nvs_result_t nvs_nb_count_devices(int *visible);
nvs_result_t nvs_nb_gpu_setup(nvs_backend *b, int dev);
/* backend_nccl_comm.c */
#ifdef NVS_NCCL_NONBLOCKING_WORLD
void nvs_nb_defer_abort(struct nccl_impl *im, ncclComm_t c);
#endif
nvs_result_t nvs_nb_split(nvs_backend *b, int member, nvs_comm **out);
void nvs_nb_free_comm(nvs_backend *b, nvs_comm *c);
int nvs_nb_comm_rank(const nvs_comm *c);
int nvs_nb_comm_size(const nvs_comm *c);
/* backend_nccl_mem.c */
nvs_result_t nvs_nb_alloc(nvs_backend *b, size_t bytes, void **p);
void nvs_nb_free(nvs_backend *b, void *p);
nvs_result_t nvs_nb_fill(nvs_backend *b, nvs_dtype t, void *p, size_t count, const nvs_pattern *pat, int rank,
                         size_t off);
nvs_result_t nvs_nb_poison(nvs_backend *b, void *p, size_t bytes);
nvs_result_t nvs_nb_verify(nvs_backend *b, nvs_dtype t, const void *out, const nvs_pattern *pat,
                           const nvs_expect *e, unsigned long long *wrong, unsigned long long *first);
/* backend_nccl_launch.c */
nvs_result_t nvs_nb_launch(nvs_backend *b, nvs_comm *c, const nvs_op *op);
nvs_result_t nvs_nb_graph_begin(nvs_backend *b);
nvs_result_t nvs_nb_graph_end(nvs_backend *b, void **graph);
nvs_result_t nvs_nb_graph_launch(nvs_backend *b, void *graph);
void nvs_nb_graph_free(nvs_backend *b, void *graph);
nvs_result_t nvs_nb_group_begin(nvs_backend *b);
nvs_result_t nvs_nb_group_end(nvs_backend *b);
/* backend_nccl_wait.c */
#ifdef NVS_NCCL_NONBLOCKING_WORLD
nvs_result_t nvs_nb_await_world(nvs_backend *b, ncclComm_t world, const char *call, int *ended);
#endif
nvs_result_t nvs_nb_wait(nvs_backend *b, nvs_comm *c, const nvs_op *op);

#endif
