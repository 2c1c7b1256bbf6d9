/* The GPU executor's communication stream: each gradient bucket all-reduced by NCCL once the compute stream has
 * it, the streams joined before the optimizer, the framework's buckets copied in and out, DDP's buffer broadcast,
 * and the wait for both streams at the end of a step. */
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "collectives/backend_nccl.h"
#include "core/gpu_check.h"
#include "train/train_exec.h"
#include "train/train_gpu_priv.h"

nvs_result_t nvs_tg_bucket(nvs_train_exec *x, int b)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_bucket *bk = &pl->buckets[b];
    size_t es = pl->grad_bf16 ? 2 : 4;
    CUDA_TRY(cudaEventRecord(g->bucket_ev[b], g->compute));
    CUDA_TRY(cudaStreamWaitEvent(g->comm, g->bucket_ev[b], 0));
    ncclComm_t comm = nvs_nccl_comm(x->comm);
    char *base = g->buckets ? (char *)g->buckets : (char *)g->grads; /* the framework's buckets, else in place */
    ncclResult_t r = ncclAllReduce(base + bk->offset_elems * es, base + bk->offset_elems * es,
                                   bk->elems, pl->grad_bf16 ? ncclBfloat16 : ncclFloat32, ncclSum, comm, g->comm);
    if (r != ncclSuccess) {
        char what[96];
        snprintf(what, sizeof what, "ncclAllReduce of gradient bucket %d (%zu bytes)", b, bk->bytes);
        return nvs_nccl_fail(what, r, comm); /* with NCCL's own last error */
    }
    return NVS_OK;
}

nvs_result_t nvs_tg_join(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    CUDA_TRY(cudaEventRecord(g->comm_done, g->comm));
    CUDA_TRY(cudaStreamWaitEvent(g->compute, g->comm_done, 0));
    return NVS_OK;
}

nvs_result_t nvs_tg_sync(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    NVS_CHECK(nvs_nccl_wait_stream(x->backend, x->comm, g->comm, "a gradient all-reduce of the training step"));
    return nvs_nccl_wait_stream(x->backend, x->comm, g->compute, "the training step's compute");
}

nvs_result_t nvs_tg_grad_to_bucket(nvs_train_exec *x, int l)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    if (!g->buckets) return NVS_OK;
    size_t es = pl->grad_bf16 ? 2 : 4, off = pl->grad_offset[l] * es;
    CUDA_TRY(cudaMemcpyAsync((char *)g->buckets + off, (char *)g->grads + off,
                             (size_t)pl->profile->layers[l].params * es, cudaMemcpyDeviceToDevice, g->compute));
    return NVS_OK;
}

nvs_result_t nvs_tg_bucket_to_grad(nvs_train_exec *x, int b)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    if (!g->buckets) return NVS_OK;
    size_t es = pl->grad_bf16 ? 2 : 4, off = pl->buckets[b].offset_elems * es;
    CUDA_TRY(cudaMemcpyAsync((char *)g->grads + off, (char *)g->buckets + off, pl->buckets[b].bytes,
                             cudaMemcpyDeviceToDevice, g->compute));
    return NVS_OK;
}

/* DDP's buffer broadcast as torch/csrc/distributed/c10d/comm.cpp makes it: per dtype the buffers flattened (one
 * copy: they lie together here), the flat tensors broadcast from rank 0 on the communication stream (where
 * ProcessGroupNCCL runs its collectives) with the compute stream waiting for them, then every buffer copied back
 * on its own (copy_ of a small contiguous tensor: cudaMemcpyAsync), in the order of the module's buffers. */
nvs_result_t nvs_tg_buffers(nvs_train_exec *x)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const size_t fbytes = (size_t)pl->buffer_floats * 4, lbytes = (size_t)pl->buffer_longs * 8;
    const cudaStream_t s = g->compute;
    CUDA_TRY(cudaMemcpyAsync(g->bufs_flat, g->bufs, fbytes, cudaMemcpyDeviceToDevice, s));
    CUDA_TRY(cudaMemcpyAsync(g->bufs_flat + fbytes, g->bufs + fbytes, lbytes, cudaMemcpyDeviceToDevice, s));
    CUDA_TRY(cudaEventRecord(g->buf_ev[0], s));
    CUDA_TRY(cudaStreamWaitEvent(g->comm, g->buf_ev[0], 0));
    ncclComm_t comm = nvs_nccl_comm(x->comm);
    ncclResult_t r = ncclBroadcast(g->bufs_flat, g->bufs_flat, fbytes / 4, ncclFloat32, 0, comm, g->comm);
    if (r == ncclSuccess)
        r = ncclBroadcast(g->bufs_flat + fbytes, g->bufs_flat + fbytes, lbytes / 8, ncclInt64, 0, comm, g->comm);
    if (r != ncclSuccess) {
        char what[96];
        snprintf(what, sizeof what, "ncclBroadcast of the module buffers (%zu bytes)", fbytes + lbytes);
        return nvs_nccl_fail(what, r, comm);
    }
    CUDA_TRY(cudaEventRecord(g->buf_ev[1], g->comm));
    CUDA_TRY(cudaStreamWaitEvent(s, g->buf_ev[1], 0));
    /* each buffer copied back on its own, in the plan's order (nvs_profile_buffers), as the host executor does */
    for (size_t i = 0, off = 0; i < (size_t)pl->buffers; off += pl->buffer_size[i++])
        CUDA_TRY(cudaMemcpyAsync(g->bufs + off, g->bufs_flat + off, pl->buffer_size[i], cudaMemcpyDeviceToDevice, s));
    return NVS_OK;
}
