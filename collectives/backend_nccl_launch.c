/* The NCCL backend's launches: each collective on the rank's stream (alltoall and sendrecv as grouped
 * point-to-point), the sweep's NCCL groups, and the CUDA graphs a timed loop is captured into. */
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "core/gpu_check.h"
#include "collectives/backend.h"
#include "collectives/backend_nccl_priv.h"
#include "collectives/nccl_types.h"

/* Ends the group of point-to-point calls an operation opened, also when one of them failed: a group left open
 * would take every later NCCL call of this thread into it. The first failure is said and returned; the group's
 * end then fails as well, as a consequence (a cleanup warning). */
static nvs_result_t p2p_group_end(ncclResult_t first, ncclComm_t comm)
{
    if (first == ncclSuccess) {
        NCCL_TRY(ncclGroupEnd(), comm);
        return NVS_OK;
    }
    nvs_nccl_fail("ncclSend/ncclRecv", first, comm);
    NCCL_CLEANUP(ncclGroupEnd());
    return NVS_ERR_NCCL;
}

nvs_result_t nvs_nb_launch(nvs_backend *b, nvs_comm *c, const nvs_op *op)
{
    struct nccl_impl *im = impl_of(b);
    cudaStream_t s = im->stream;
    ncclDataType_t ty = nvs_nccl_type(op->type);
    ncclRedOp_t ro = nvs_nccl_op(op->op);
    const nvs_coll_counts *k = &op->counts;
    size_t ts = nvs_dtype_size(op->type);
    im->active = c->comm;
    switch (op->coll->prim) {
    case NVS_PRIM_ALLREDUCE:
        NCCL_TRY(ncclAllReduce(op->send, op->recv, k->send_count, ty, ro, c->comm, s), c->comm);
        break;
    case NVS_PRIM_BROADCAST:
        NCCL_TRY(ncclBroadcast(op->send, op->recv, k->send_count, ty, op->root, c->comm, s), c->comm);
        break;
    case NVS_PRIM_REDUCE:
        NCCL_TRY(ncclReduce(op->send, op->recv, k->send_count, ty, ro, op->root, c->comm, s), c->comm);
        break;
    case NVS_PRIM_ALLGATHER:
        NCCL_TRY(ncclAllGather(op->send, op->recv, k->send_count, ty, c->comm, s), c->comm);
        break;
    case NVS_PRIM_REDUCESCATTER:
        NCCL_TRY(ncclReduceScatter(op->send, op->recv, k->recv_count, ty, ro, c->comm, s), c->comm);
        break;
    case NVS_PRIM_ALLTOALL: {
        /* grouped point-to-point, block r to rank r (as nccl-tests' alltoall_perf) */
        size_t chunk = k->send_count / (size_t)c->size;
        NCCL_TRY(ncclGroupStart(), c->comm);
        ncclResult_t r = ncclSuccess;
        for (int p = 0; p < c->size && r == ncclSuccess; p++) {
            r = ncclSend((const char *)op->send + (size_t)p * chunk * ts, chunk, ty, p, c->comm, s);
            if (r == ncclSuccess) r = ncclRecv((char *)op->recv + (size_t)p * chunk * ts, chunk, ty, p, c->comm, s);
        }
        return p2p_group_end(r, c->comm);
    }
    case NVS_PRIM_SENDRECV: {
        NCCL_TRY(ncclGroupStart(), c->comm);
        ncclResult_t r = ncclSend(op->send, k->send_count, ty, nvs_ring_next(c->rank, c->size), c->comm, s);
        if (r == ncclSuccess) r = ncclRecv(op->recv, k->recv_count, ty, nvs_ring_prev(c->rank, c->size), c->comm, s);
        return p2p_group_end(r, c->comm);
    }
    }
    return NVS_OK;
}

nvs_result_t nvs_nb_graph_begin(nvs_backend *b)
{
    /* thread-local capture: the threads runtime has other ranks' threads making CUDA calls meanwhile */
    CUDA_TRY(cudaStreamBeginCapture(impl_of(b)->stream, cudaStreamCaptureModeThreadLocal));
    return NVS_OK;
}

nvs_result_t nvs_nb_graph_end(nvs_backend *b, void **graph)
{
    cudaGraph_t g = NULL;
    cudaGraphExec_t exec = NULL;
    CUDA_TRY(cudaStreamEndCapture(impl_of(b)->stream, &g));
    cudaError_t e = cudaGraphInstantiate(&exec, g, 0);
    CUDA_CLEANUP(cudaGraphDestroy(g)); /* the instance keeps what it needs */
    if (e != cudaSuccess) return nvs_cuda_fail(NULL, "cudaGraphInstantiate", e);
    *graph = exec;
    return NVS_OK;
}

nvs_result_t nvs_nb_graph_launch(nvs_backend *b, void *graph)
{
    CUDA_TRY(cudaGraphLaunch((cudaGraphExec_t)graph, impl_of(b)->stream));
    return NVS_OK;
}

void nvs_nb_graph_free(nvs_backend *b, void *graph)
{
    (void)b;
    if (graph) CUDA_CLEANUP(cudaGraphExecDestroy((cudaGraphExec_t)graph));
}

nvs_result_t nvs_nb_group_begin(nvs_backend *b)
{
    (void)b;
    NCCL_TRY(ncclGroupStart(), NULL);
    return NVS_OK;
}

nvs_result_t nvs_nb_group_end(nvs_backend *b)
{
    (void)b;
    NCCL_TRY(ncclGroupEnd(), NULL);
    return NVS_OK;
}
