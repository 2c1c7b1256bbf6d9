/* p2p measurement (CUDA runtime API from C; the fill/verify kernels are collectives/kernels.cu). What is
 * measured and how: p2p.h. Every CUDA call is checked; a failure names the call and the devices. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "core/log.h"
#include "topo/p2p.h"

#define STAGE_CHUNK_BYTES ((size_t)8 << 20) /* host path: 8 MiB chunks keep both copy engines busy */
/* latency: enough back-to-back copies that launch jitter averages out (p2pBandwidthLatencyTest-style) */
#define LATENCY_ITERS 1000
#define LATENCY_WARMUP 20
#define LATENCY_BYTES 4 /* one element: the smallest copy that still moves data */

typedef struct {
    void *src, *dst;             /* copy_bytes each */
    cudaStream_t s[2];           /* slot 0: i->j of a pair, slot 1: the other direction */
    cudaEvent_t start, stop;     /* timing */
    cudaEvent_t staged[2];       /* host path: "chunk k is in host memory" */
    cudaEvent_t done[2];         /* host path: "the H2D copies of this pass are done" */
    unsigned long long *d_wrong; /* [0] wrong count, [1] first wrong index */
} dev_ctx;

typedef struct {
    int ndev;
    dev_ctx *d;
    void *host[2]; /* pinned staging buffers, one per direction (NULL until a pair needs them) */
    size_t bytes;
} p2p_ctx;

static nvs_result_t ctx_init(p2p_ctx *c, int ndev, size_t bytes)
{
    c->ndev = ndev;
    c->bytes = bytes;
    c->d = calloc((size_t)ndev, sizeof *c->d);
    if (!c->d) return NVS_ERR_NOMEM;
    for (int i = 0; i < ndev; i++) {
        dev_ctx *d = &c->d[i];
        CUDA_TRY_AT(cudaSetDevice(i), "GPU %d", i);
        CUDA_TRY_AT(cudaMalloc(&d->src, bytes), "GPU %d: %zu bytes", i, bytes);
        CUDA_TRY_AT(cudaMalloc(&d->dst, bytes), "GPU %d: %zu bytes", i, bytes);
        CUDA_TRY_AT(cudaMalloc((void **)&d->d_wrong, 2 * sizeof *d->d_wrong), "GPU %d", i);
        for (int k = 0; k < 2; k++) {
            CUDA_TRY_AT(cudaStreamCreateWithFlags(&d->s[k], cudaStreamNonBlocking), "GPU %d", i);
            CUDA_TRY_AT(cudaEventCreateWithFlags(&d->staged[k], cudaEventDisableTiming), "GPU %d", i);
            CUDA_TRY_AT(cudaEventCreateWithFlags(&d->done[k], cudaEventDisableTiming), "GPU %d", i);
        }
        CUDA_TRY_AT(cudaEventCreate(&d->start), "GPU %d", i);
        CUDA_TRY_AT(cudaEventCreate(&d->stop), "GPU %d", i);
    }
    return NVS_OK;
}

static void ctx_free(p2p_ctx *c)
{
    for (int i = 0; c->d && i < c->ndev; i++) {
        dev_ctx *d = &c->d[i];
        if (cudaSetDevice(i) != cudaSuccess) continue;
        /* teardown: failures here change no result, and are said (gpu_check.h: memory the next phase lacks) */
        if (d->src) CUDA_CLEANUP(cudaFree(d->src));
        if (d->dst) CUDA_CLEANUP(cudaFree(d->dst));
        if (d->d_wrong) CUDA_CLEANUP(cudaFree(d->d_wrong));
        for (int k = 0; k < 2; k++) {
            if (d->s[k]) CUDA_CLEANUP(cudaStreamDestroy(d->s[k]));
            if (d->staged[k]) CUDA_CLEANUP(cudaEventDestroy(d->staged[k]));
            if (d->done[k]) CUDA_CLEANUP(cudaEventDestroy(d->done[k]));
        }
        if (d->start) CUDA_CLEANUP(cudaEventDestroy(d->start));
        if (d->stop) CUDA_CLEANUP(cudaEventDestroy(d->stop));
    }
    for (int k = 0; k < 2; k++)
        if (c->host[k]) CUDA_CLEANUP(cudaFreeHost(c->host[k]));
    free(c->d);
}

static nvs_result_t need_host(p2p_ctx *c)
{
    for (int k = 0; k < 2; k++)
        if (!c->host[k])
            CUDA_TRY_AT(cudaHostAlloc(&c->host[k], c->bytes, cudaHostAllocPortable),
                        "pinned staging buffer of %zu bytes", c->bytes);
    return NVS_OK;
}

/* Enqueue one copy of `bytes` from GPU i's src to GPU j's dst on direction slot k. Host path: D2H on i's
 * stream, H2D on j's, chunk by chunk; i's stream then waits for j's last H2D, so that the next pass cannot
 * overwrite staging memory still being read and so that timing events on i's stream cover the whole copy. */
static nvs_result_t enqueue_copy(p2p_ctx *c, int i, int j, size_t bytes, int p2p, int k)
{
    dev_ctx *a = &c->d[i], *b = &c->d[j];
    if (p2p) {
        CUDA_TRY_AT(cudaMemcpyPeerAsync(b->dst, j, a->src, i, bytes, a->s[k]), "copy GPU %d -> GPU %d", i, j);
        return NVS_OK;
    }
    char *h = c->host[k];
    for (size_t off = 0; off < bytes; off += STAGE_CHUNK_BYTES) {
        size_t n = bytes - off < STAGE_CHUNK_BYTES ? bytes - off : STAGE_CHUNK_BYTES;
        CUDA_TRY_AT(cudaMemcpyAsync(h + off, (char *)a->src + off, n, cudaMemcpyDeviceToHost, a->s[k]),
                    "GPU %d -> host", i);
        CUDA_TRY_AT(cudaEventRecord(a->staged[k], a->s[k]), "GPU %d", i);
        /* waits on the record just made: re-recording for the next chunk does not affect this wait */
        CUDA_TRY_AT(cudaStreamWaitEvent(b->s[k], a->staged[k], 0), "GPU %d waits for GPU %d", j, i);
        CUDA_TRY_AT(cudaMemcpyAsync((char *)b->dst + off, h + off, n, cudaMemcpyHostToDevice, b->s[k]),
                    "host -> GPU %d", j);
    }
    CUDA_TRY_AT(cudaEventRecord(b->done[k], b->s[k]), "GPU %d", j);
    CUDA_TRY_AT(cudaStreamWaitEvent(a->s[k], b->done[k], 0), "GPU %d waits for GPU %d", i, j);
    return NVS_OK;
}

static nvs_result_t elapsed_ms(dev_ctx *a, int dev, float *ms)
{
    CUDA_TRY_AT(cudaEventSynchronize(a->stop), "GPU %d", dev);
    CUDA_TRY_AT(cudaEventElapsedTime(ms, a->start, a->stop), "GPU %d", dev);
    return NVS_OK;
}

/* One direction, `iters` copies: seconds per copy */
static nvs_result_t time_uni(p2p_ctx *c, int i, int j, size_t bytes, int p2p, int warmup, int iters, double *s)
{
    dev_ctx *a = &c->d[i];
    CUDA_TRY_AT(cudaSetDevice(i), "GPU %d", i);
    for (int w = 0; w < warmup; w++) NVS_CHECK(enqueue_copy(c, i, j, bytes, p2p, 0));
    CUDA_TRY_AT(cudaEventRecord(a->start, a->s[0]), "GPU %d", i);
    for (int it = 0; it < iters; it++) NVS_CHECK(enqueue_copy(c, i, j, bytes, p2p, 0));
    CUDA_TRY_AT(cudaEventRecord(a->stop, a->s[0]), "GPU %d", i);
    float ms;
    NVS_CHECK(elapsed_ms(a, i, &ms));
    *s = ms * 1e-3 / iters;
    return NVS_OK;
}

/* Both directions at once, each timed to its own end: i->j on i's slot-0 stream between i's start and stop events,
 * j->i on j's slot-1 stream between j's, which waits for i's start so that both begin together. A direction ends
 * when its last copy is done; on the host path that is its last H2D, which enqueue_copy makes the source's stream
 * wait for. Seconds for `iters` copies, each direction's.
 * This is nvbandwidth v0.8's device_to_device_bidirectional_memcpy_write_ce (testcases_ce.cpp,
 * DeviceToDeviceBidirWriteCE::run; memcpy.cpp, MemcpyOperation::doMemcpyCore with VECTOR_BW): a start and an end
 * event per copy, each direction's rate over its own time, the total their sum. Timing both from one start to
 * the end of the later one (nvscale before 7 December 2026) counts the slower direction's time alone once the
 * faster is done: host copies timed so read 5 % low beside nvbandwidth (topo/h2d.c, enqueue). */
static nvs_result_t time_bidir(p2p_ctx *c, int i, int j, size_t bytes, int p2p, int warmup, int iters, double s[2])
{
    dev_ctx *a = &c->d[i], *b = &c->d[j];
    CUDA_TRY_AT(cudaSetDevice(i), "GPU %d", i);
    for (int w = 0; w < warmup; w++) {
        NVS_CHECK(enqueue_copy(c, i, j, bytes, p2p, 0));
        NVS_CHECK(enqueue_copy(c, j, i, bytes, p2p, 1));
    }
    CUDA_TRY_AT(cudaEventRecord(a->start, a->s[0]), "GPU %d", i);
    CUDA_TRY_AT(cudaStreamWaitEvent(b->s[1], a->start, 0), "GPU %d waits for GPU %d", j, i);
    /* j's own start: after its warm-up too, as nvbandwidth records one start event per stream */
    CUDA_TRY_AT(cudaEventRecord(b->start, b->s[1]), "GPU %d", j);
    for (int it = 0; it < iters; it++) {
        NVS_CHECK(enqueue_copy(c, i, j, bytes, p2p, 0));
        NVS_CHECK(enqueue_copy(c, j, i, bytes, p2p, 1));
    }
    CUDA_TRY_AT(cudaEventRecord(a->stop, a->s[0]), "GPU %d", i);
    CUDA_TRY_AT(cudaEventRecord(b->stop, b->s[1]), "GPU %d", j);
    /* both stop events waited for: every copy of both directions is done before either buffer is verified */
    float ms[2];
    NVS_CHECK(elapsed_ms(a, i, &ms[0]));
    NVS_CHECK(elapsed_ms(b, j, &ms[1]));
    for (int k = 0; k < 2; k++) s[k] = ms[k] * 1e-3;
    return NVS_OK;
}

static nvs_pattern pattern_for(int ndev, int i, int j)
{
    /* the max/min pattern: integers in [-32, 31], exact in float, depending on index, rank (= source GPU) and a
     * seed per pair, so data from another pair or GPU cannot pass */
    nvs_pattern p = {1 /* NVS_MAX */, ndev, 0, 0x9e37u * (uint32_t)(i * 131 + j + 1)};
    return p;
}

static nvs_result_t fill_src(p2p_ctx *c, int i, const nvs_pattern *p, size_t count)
{
    CUDA_TRY_AT(cudaSetDevice(i), "GPU %d", i);
    CUDA_TRY_AT((cudaError_t)nvs_kern_fill(NVS_FLOAT, c->d[i].src, count, p, i, 0, c->d[i].s[0]), "fill on GPU %d", i);
    CUDA_TRY_AT((cudaError_t)nvs_kern_poison(c->d[i].dst, c->bytes, c->d[i].s[0]), "poison on GPU %d", i);
    CUDA_TRY_AT(cudaStreamSynchronize(c->d[i].s[0]), "GPU %d", i);
    return NVS_OK;
}

static nvs_result_t poison_dst(p2p_ctx *c, int j)
{
    CUDA_TRY_AT(cudaSetDevice(j), "GPU %d", j);
    CUDA_TRY_AT((cudaError_t)nvs_kern_poison(c->d[j].dst, c->bytes, c->d[j].s[0]), "poison on GPU %d", j);
    CUDA_TRY_AT(cudaStreamSynchronize(c->d[j].s[0]), "GPU %d", j);
    return NVS_OK;
}

/* wrong elements in GPU j's dst, which must hold GPU src_gpu's pattern */
static nvs_result_t verify_dst(p2p_ctx *c, int j, int src_gpu, const nvs_pattern *p, size_t count, long long *wrong)
{
    dev_ctx *d = &c->d[j];
    nvs_expect e = {0, src_gpu, 0, 0, count};
    unsigned long long init[2] = {0, ~0ull}, got[2];
    CUDA_TRY_AT(cudaSetDevice(j), "GPU %d", j);
    CUDA_TRY_AT(cudaMemcpyAsync(d->d_wrong, init, sizeof init, cudaMemcpyHostToDevice, d->s[0]), "GPU %d", j);
    CUDA_TRY_AT((cudaError_t)nvs_kern_verify(NVS_FLOAT, d->dst, p, &e, &d->d_wrong[0], &d->d_wrong[1], d->s[0]),
                "verify on GPU %d", j);
    CUDA_TRY_AT(cudaMemcpyAsync(got, d->d_wrong, sizeof got, cudaMemcpyDeviceToHost, d->s[0]), "GPU %d", j);
    CUDA_TRY_AT(cudaStreamSynchronize(d->s[0]), "GPU %d", j);
    *wrong += (long long)got[0];
    if (got[0]) nvs_error("GPU %d -> GPU %d: %llu wrong elements, the first at index %llu", src_gpu, j, got[0], got[1]);
    return NVS_OK;
}

/* Peer access i -> j on (enable 1) or off (0). *changed (may be NULL) says whether this call changed it: access
 * someone else enabled (NCCL, in a run that measures copies beside its collectives) is left as it was found. */
static nvs_result_t peer_access(int i, int j, int enable, int *changed)
{
    if (changed) *changed = 0;
    CUDA_TRY_AT(cudaSetDevice(i), "GPU %d", i);
    cudaError_t e = enable ? cudaDeviceEnablePeerAccess(j, 0) : cudaDeviceDisablePeerAccess(j);
    if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled) {
        (void)cudaGetLastError(); /* already in the wanted state */
        return NVS_OK;
    }
    CUDA_TRY_AT(e, "peer access GPU %d -> GPU %d", i, j);
    if (changed) *changed = 1;
    return NVS_OK;
}

/* One direction, NVS_P2P_SAMPLES timed blocks (the warm-up before the first only), each validated: j's buffer is
 * poisoned before a block and must hold i's pattern after it. GB/s: the median (nvs_p2p_median_gbps). */
static nvs_result_t uni_samples(p2p_ctx *c, int i, int j, int p2p, int warmup, int iters, const nvs_pattern *pi,
                                nvs_p2p_pair *out)
{
    size_t count = c->bytes / sizeof(float);
    double s[NVS_P2P_SAMPLES];
    for (int k = 0; k < NVS_P2P_SAMPLES; k++) {
        NVS_CHECK(poison_dst(c, j));
        NVS_CHECK(time_uni(c, i, j, c->bytes, p2p, k ? 0 : warmup, iters, &s[k]));
        NVS_CHECK(verify_dst(c, j, i, pi, count, &out->wrong));
    }
    out->uni_gbps = nvs_p2p_median_gbps(s, NVS_P2P_SAMPLES, (double)c->bytes);
    return NVS_OK;
}

/* Both directions, NVS_P2P_SAMPLES timed blocks (the warm-up before the first only), both buffers poisoned before
 * each and checked after it. Each half is the median of its own times, bidir their sum (as topo/h2d.c's halves). */
static nvs_result_t bidir_samples(p2p_ctx *c, int i, int j, int p2p, int warmup, int iters, const nvs_pattern *pi,
                                  const nvs_pattern *pj, nvs_p2p_pair *out)
{
    size_t count = c->bytes / sizeof(float);
    double fwd[NVS_P2P_SAMPLES], rev[NVS_P2P_SAMPLES];
    for (int k = 0; k < NVS_P2P_SAMPLES; k++) {
        double sb[2] = {0, 0};
        NVS_CHECK(poison_dst(c, i));
        NVS_CHECK(poison_dst(c, j));
        NVS_CHECK(time_bidir(c, i, j, c->bytes, p2p, k ? 0 : warmup, iters, sb));
        NVS_CHECK(verify_dst(c, j, i, pi, count, &out->wrong));
        NVS_CHECK(verify_dst(c, i, j, pj, count, &out->wrong));
        fwd[k] = sb[0];
        rev[k] = sb[1];
    }
    double bytes = (double)c->bytes * iters;
    out->bidir_fwd_gbps = nvs_p2p_median_gbps(fwd, NVS_P2P_SAMPLES, bytes);
    out->bidir_rev_gbps = nvs_p2p_median_gbps(rev, NVS_P2P_SAMPLES, bytes);
    out->bidir_gbps =
        out->bidir_fwd_gbps >= 0 && out->bidir_rev_gbps >= 0 ? out->bidir_fwd_gbps + out->bidir_rev_gbps : -1;
    return NVS_OK;
}

static nvs_result_t measure_pair(p2p_ctx *c, int i, int j, int warmup, int iters, nvs_p2p_pair *out)
{
    int ij = 0, ji = 0, mine_ij = 0, mine_ji = 0;
    CUDA_TRY_AT(cudaDeviceCanAccessPeer(&ij, i, j), "GPU %d -> GPU %d", i, j);
    CUDA_TRY_AT(cudaDeviceCanAccessPeer(&ji, j, i), "GPU %d -> GPU %d", j, i);
    int p2p = ij && ji;
    snprintf(out->path, sizeof out->path, "%s", p2p ? "P2P" : "host");
    if (p2p) {
        NVS_CHECK(peer_access(i, j, 1, &mine_ij));
        NVS_CHECK(peer_access(j, i, 1, &mine_ji));
    } else
        NVS_CHECK(need_host(c));
    size_t count = c->bytes / sizeof(float);
    nvs_pattern pi = pattern_for(c->ndev, i, j), pj = pattern_for(c->ndev, j, i);
    out->wrong = 0;
    /* one direction, then both: each block's copies checked in the buffers they wrote */
    NVS_CHECK(fill_src(c, i, &pi, count));
    NVS_CHECK(uni_samples(c, i, j, p2p, warmup, iters, &pi, out));
    NVS_CHECK(fill_src(c, j, &pj, count));
    NVS_CHECK(bidir_samples(c, i, j, p2p, warmup, iters, &pi, &pj, out));
    /* latency: back-to-back small copies, one block (LATENCY_ITERS copies already average) */
    double s;
    NVS_CHECK(time_uni(c, i, j, LATENCY_BYTES, p2p, LATENCY_WARMUP, LATENCY_ITERS, &s));
    out->latency_us = s > 0 ? s * 1e6 : -1;
    if (p2p) {
        if (mine_ij) NVS_CHECK(peer_access(i, j, 0, NULL));
        if (mine_ji) NVS_CHECK(peer_access(j, i, 0, NULL));
    }
    return NVS_OK;
}

nvs_result_t nvs_p2p_measure(const nvs_topology *t, size_t copy_bytes, int iters, int warmup, nvs_p2p_result *out)
{
    memset(out, 0, sizeof *out);
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev < 2) {
        nvs_error("p2p measures copies between GPUs and needs at least two; %s", e != cudaSuccess
                                                                                     ? cudaGetErrorString(e)
                                                                                 : ndev == 1 ? "only one GPU is visible"
                                                                                             : "no GPU is visible");
        return NVS_ERR_UNSUPPORTED;
    }
    int prev = 0;
    CUDA_TRY_AT(cudaGetDevice(&prev), "the caller's GPU");
    size_t bytes = copy_bytes / sizeof(float) * sizeof(float);
    out->copy_bytes = bytes;
    out->iters = iters;
    out->warmup = warmup;
    out->samples = NVS_P2P_SAMPLES;
    out->latency_iters = LATENCY_ITERS;
    out->pairs = calloc((size_t)ndev * (size_t)(ndev - 1), sizeof *out->pairs);
    if (!out->pairs) return NVS_ERR_NOMEM;
    /* CUDA ordinal -> topology GPU index; a device the topology leaves out (another virtual host's GPU under
     * --emulate-nodes) is not measured */
    int *idx = calloc((size_t)ndev, sizeof *idx), in_topo = 0;
    if (!idx) return NVS_ERR_NOMEM;
    for (int d = 0; d < ndev; d++) {
        idx[d] = -1;
        for (int g = 0; g < t->ngpus; g++)
            if (t->gpus[g].cuda_device == d) idx[d] = g;
        in_topo += idx[d] >= 0;
    }
    if (in_topo < 2) {
        nvs_error("p2p: %d of the %d visible CUDA devices are in the topology, fewer than a pair", in_topo, ndev);
        free(idx);
        return NVS_ERR_SYSTEM;
    }
    p2p_ctx c = {0};
    nvs_result_t r = ctx_init(&c, ndev, bytes);
    for (int i = 0; i < ndev && r == NVS_OK; i++)
        for (int j = 0; j < ndev && r == NVS_OK; j++) {
            if (i == j || idx[i] < 0 || idx[j] < 0) continue;
            nvs_p2p_pair *p = &out->pairs[out->npairs++];
            p->src = idx[i];
            p->dst = idx[j];
            p->src_dev = i;
            p->dst_dev = j;
            p->uni_gbps = p->bidir_gbps = p->bidir_fwd_gbps = p->bidir_rev_gbps = p->latency_us = -1;
            p->wrong = -1;
            nvs_progress("p2p", "p2p: GPU %d -> GPU %d", i, j);
            r = measure_pair(&c, i, j, warmup, iters, p);
        }
    nvs_progress_done();
    ctx_free(&c);
    free(idx);
    cudaError_t back = cudaSetDevice(prev); /* the caller (a rank driving one GPU) keeps its device */
    if (r == NVS_OK) CUDA_TRY_AT(back, "back to GPU %d", prev);
    return r;
}
