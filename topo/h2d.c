/* Host <-> device copy measurement (CUDA runtime from C; fill/verify kernels from collectives/kernels.cu; host
 * buffers placed on a NUMA node with hwloc). What is measured and how: h2d.h. Every CUDA and hwloc call is
 * checked; a failure names the call and the GPU. */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "core/log.h"
#include "topo/h2d.h"

typedef struct {
    void *p;
    size_t bytes;
    int numa;     /* where it is (confirmed by hwloc when it can tell), -1 unknown */
    int by_hwloc; /* 1: hwloc_alloc_membind + cudaHostRegister; 0: cudaHostAlloc */
} hbuf;

typedef struct {
    int dev;
    void *src, *dst;
    hbuf a, b;                   /* a: D2H target and H2D source; b: the D2H target of the bidirectional test */
    cudaStream_t s[2];
    cudaEvent_t start, stop, mid; /* mid: where the other direction's copies of a bidir test ended */
    int uncovered;               /* bidir tests whose other direction ended before the timed one */
    unsigned long long *d_wrong; /* [0] wrong count, [1] first wrong index */
    double secs[NVS_H2D_SAMPLES]; /* the timed blocks of the test timed last, in seconds */
} hdev;

typedef struct {
    hwloc_topology_t topo; /* NULL: no NUMA placement (the reason is in why) */
    char why[96];
    size_t bytes;
    int ndev;
    hdev *d;
} hctx;

const char *nvs_h2d_mode_name(int m) { return m == NVS_H2D_SINGLE ? "single" : m == NVS_H2D_ALL ? "all" : "remote"; }

static void numa_init(hctx *c)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) {
        snprintf(c->why, sizeof c->why, "hwloc_topology_init failed: %s", strerror(errno));
        return;
    }
    if (hwloc_topology_load(t) != 0) {
        snprintf(c->why, sizeof c->why, "hwloc_topology_load failed: %s", strerror(errno));
        hwloc_topology_destroy(t);
        return;
    }
    const struct hwloc_topology_support *s = hwloc_topology_get_support(t);
    if (!hwloc_topology_is_thissystem(t) || !s->membind->alloc_membind || !s->membind->bind_membind) {
        snprintf(c->why, sizeof c->why, "not placed: hwloc cannot bind memory here");
        hwloc_topology_destroy(t);
        return;
    }
    c->topo = t;
    snprintf(c->why, sizeof c->why, "hwloc membind (bind, strict)");
}

/* the NUMA node (OS index) of another node than `not`, -1 if the host has only one */
static int other_node(const hctx *c, int not)
{
    if (!c->topo) return -1;
    int n = hwloc_get_nbobjs_by_type(c->topo, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(c->topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (o && (int)o->os_index != not) return (int)o->os_index;
    }
    return -1;
}

static int numa_count(const hctx *c) { return c->topo ? hwloc_get_nbobjs_by_type(c->topo, HWLOC_OBJ_NUMANODE) : 0; }

static void hbuf_free(hctx *c, hbuf *h)
{
    if (!h->p) return;
    /* teardown: a failure changes no result, and is said (gpu_check.h: memory the next phase lacks) */
    if (h->by_hwloc) {
        CUDA_CLEANUP(cudaHostUnregister(h->p));
        if (hwloc_free(c->topo, h->p, h->bytes) != 0) nvs_warn("cleanup: hwloc_free of %zu bytes failed", h->bytes);
    } else
        CUDA_CLEANUP(cudaFreeHost(h->p));
    memset(h, 0, sizeof *h);
}

/* Pinned host memory on NUMA node `numa` (-1 or no hwloc: wherever cudaHostAlloc puts it). */
static nvs_result_t hbuf_alloc(hctx *c, hbuf *h, int numa, int dev)
{
    hbuf_free(c, h);
    h->bytes = c->bytes;
    h->numa = -1;
    if (c->topo && numa >= 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (!set || hwloc_bitmap_only(set, (unsigned)numa) != 0) { /* hwloc's only failure here: no memory */
            nvs_error("GPU %d: hwloc cannot make the node set of NUMA node %d: out of memory", dev, numa);
            hwloc_bitmap_free(set); /* NULL is fine */
            return NVS_ERR_NOMEM;
        }
        h->p = hwloc_alloc_membind(c->topo, c->bytes, set, HWLOC_MEMBIND_BIND,
                                   HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
        if (!h->p) {
            /* the copies still run, unplaced, and say so: a placement the OS refuses is not a broken machine */
            snprintf(c->why, sizeof c->why, "not placed: hwloc_alloc_membind on node %d failed (%s)", numa,
                     strerror(errno));
            nvs_warn(
                "GPU %d: host buffers not placed on NUMA node %d (hwloc_alloc_membind: %s): pinned where CUDA puts "
                "them",
                dev, numa, strerror(errno));
            hwloc_bitmap_free(set);
            CUDA_TRY_AT(cudaHostAlloc(&h->p, c->bytes, cudaHostAllocPortable),
                        "GPU %d: %zu bytes of pinned host memory", dev, c->bytes);
            return NVS_OK;
        }
        memset(h->p, 0, c->bytes); /* fault the pages in, on the bound node, before pinning them */
        h->by_hwloc = 1;
        h->numa = numa;
        /* where the pages really are, when the OS can say */
        if (hwloc_get_area_memlocation(c->topo, h->p, c->bytes, set, HWLOC_MEMBIND_BYNODESET) == 0 &&
            hwloc_bitmap_weight(set) == 1)
            h->numa = hwloc_bitmap_first(set);
        hwloc_bitmap_free(set);
        cudaError_t e = cudaHostRegister(h->p, c->bytes, cudaHostRegisterPortable);
        if (e != cudaSuccess) {
            (void)hwloc_free(c->topo, h->p, c->bytes); /* undoing: the failure that matters is reported below */
            h->p = NULL;
            CUDA_TRY_AT(e, "GPU %d: pinning %zu bytes on NUMA node %d", dev, c->bytes, numa);
        }
        return NVS_OK;
    }
    CUDA_TRY_AT(cudaHostAlloc(&h->p, c->bytes, cudaHostAllocPortable), "GPU %d: %zu bytes of pinned host memory", dev,
                c->bytes);
    return NVS_OK;
}

static nvs_result_t dev_init(hctx *c, hdev *d, int dev)
{
    d->dev = dev;
    CUDA_TRY_AT(cudaSetDevice(dev), "GPU %d", dev);
    CUDA_TRY_AT(cudaMalloc(&d->src, c->bytes), "GPU %d: %zu bytes", dev, c->bytes);
    CUDA_TRY_AT(cudaMalloc(&d->dst, c->bytes), "GPU %d: %zu bytes", dev, c->bytes);
    CUDA_TRY_AT(cudaMalloc((void **)&d->d_wrong, 2 * sizeof *d->d_wrong), "GPU %d", dev);
    for (int k = 0; k < 2; k++) CUDA_TRY_AT(cudaStreamCreateWithFlags(&d->s[k], cudaStreamNonBlocking), "GPU %d", dev);
    CUDA_TRY_AT(cudaEventCreate(&d->start), "GPU %d", dev);
    CUDA_TRY_AT(cudaEventCreate(&d->stop), "GPU %d", dev);
    CUDA_TRY_AT(cudaEventCreate(&d->mid), "GPU %d", dev);
    return NVS_OK;
}

static void dev_free(hctx *c, hdev *d)
{
    if (cudaSetDevice(d->dev) != cudaSuccess) return; /* nothing of it can be freed from elsewhere */
    /* teardown: failures here change no result, and are said (gpu_check.h) */
    if (d->src) CUDA_CLEANUP(cudaFree(d->src));
    if (d->dst) CUDA_CLEANUP(cudaFree(d->dst));
    if (d->d_wrong) CUDA_CLEANUP(cudaFree(d->d_wrong));
    for (int k = 0; k < 2; k++)
        if (d->s[k]) CUDA_CLEANUP(cudaStreamDestroy(d->s[k]));
    if (d->start) CUDA_CLEANUP(cudaEventDestroy(d->start));
    if (d->stop) CUDA_CLEANUP(cudaEventDestroy(d->stop));
    if (d->mid) CUDA_CLEANUP(cudaEventDestroy(d->mid));
    hbuf_free(c, &d->a);
    hbuf_free(c, &d->b);
}

/* The copies of one test on one GPU, enqueued (not waited for). dir 0 = H2D (a -> dst), 1 = D2H (src -> a); 2 and
 * 3 are the two halves of the bidirectional figure, measured as nvbandwidth's host_to_device_bidirectional_memcpy_ce
 * and device_to_host_bidirectional_memcpy_ce do (testcases_ce.cpp): one direction is timed (stream 0) while the
 * other direction copies twice as many bytes beside it (stream 1, from the same start), so that every timed copy
 * shares the link. 2 = H2D timed (a -> dst) beside D2H (src -> b); 3 = D2H timed (src -> b) beside H2D (a -> dst).
 * Timing both directions from a common start to the end of the later one (nvscale before December 2026) mixes in
 * the time the slower direction runs alone once the faster is done: on a one-H100 VM whose link gives 22.5 GB/s
 * host -> GPU and 35.3 back under load, that read 54.7 GB/s against nvbandwidth's 57.7 (results/h100x1-s62a). */
static nvs_result_t enqueue(hctx *c, hdev *d, int dir, int warmup, int iters)
{
    CUDA_TRY_AT(cudaSetDevice(d->dev), "GPU %d", d->dev);
    for (int pass = 0; pass < 2; pass++) {
        int n = pass ? iters : warmup;
        if (pass) {
            CUDA_TRY_AT(cudaEventRecord(d->start, d->s[0]), "GPU %d", d->dev);
            if (dir >= 2) CUDA_TRY_AT(cudaStreamWaitEvent(d->s[1], d->start, 0), "GPU %d", d->dev);
        }
        for (int i = 0; i < n; i++) {
            if (dir == 0 || dir == 2)
                CUDA_TRY_AT(cudaMemcpyAsync(d->dst, d->a.p, c->bytes, cudaMemcpyHostToDevice, d->s[0]),
                            "host -> GPU %d", d->dev);
            if (dir == 1)
                CUDA_TRY_AT(cudaMemcpyAsync(d->a.p, d->src, c->bytes, cudaMemcpyDeviceToHost, d->s[0]),
                            "GPU %d -> host", d->dev);
            if (dir == 3)
                CUDA_TRY_AT(cudaMemcpyAsync(d->b.p, d->src, c->bytes, cudaMemcpyDeviceToHost, d->s[0]),
                            "GPU %d -> host", d->dev);
        }
        if (pass) CUDA_TRY_AT(cudaEventRecord(d->stop, d->s[0]), "GPU %d", d->dev);
        for (int i = 0; dir >= 2 && i < 2 * n; i++) { /* the other direction, beside it */
            if (dir == 2)
                CUDA_TRY_AT(cudaMemcpyAsync(d->b.p, d->src, c->bytes, cudaMemcpyDeviceToHost, d->s[1]),
                            "GPU %d -> host", d->dev);
            else
                CUDA_TRY_AT(cudaMemcpyAsync(d->dst, d->a.p, c->bytes, cudaMemcpyHostToDevice, d->s[1]),
                            "host -> GPU %d", d->dev);
        }
        if (pass && dir >= 2) CUDA_TRY_AT(cudaEventRecord(d->mid, d->s[1]), "GPU %d", d->dev);
    }
    return NVS_OK;
}

/* Seconds of the direction timed by the test enqueued last on this GPU (0 when closer than the event timer's
 * resolution); a bidir test also waits for the other direction (the next test must not share the link with it)
 * and counts it as uncovered when it ended first */
static nvs_result_t result(hdev *d, int dir, double *secs)
{
    float ms, other;
    CUDA_TRY_AT(cudaSetDevice(d->dev), "GPU %d", d->dev);
    CUDA_TRY_AT(cudaEventSynchronize(d->stop), "GPU %d", d->dev);
    CUDA_TRY_AT(cudaEventElapsedTime(&ms, d->start, d->stop), "GPU %d", d->dev);
    if (dir >= 2) {
        CUDA_TRY_AT(cudaEventSynchronize(d->mid), "GPU %d", d->dev);
        CUDA_TRY_AT(cudaEventElapsedTime(&other, d->start, d->mid), "GPU %d", d->dev);
        if (other < ms) d->uncovered++;
    }
    *secs = ms > 0 ? ms * 1e-3 : 0;
    return NVS_OK;
}

static nvs_pattern pattern_for(int ndev, int dev, int mode)
{
    /* max/min pattern: integers in [-32, 31], exact in float; a seed per GPU and mode so stale data cannot pass */
    nvs_pattern p = {1 /* NVS_MAX */, ndev, 0, 0x7f4a7c15u ^ (uint32_t)(dev * 977 + mode * 31 + 1)};
    return p;
}

static nvs_result_t fill_src(hctx *c, hdev *d, const nvs_pattern *p)
{
    CUDA_TRY_AT(cudaSetDevice(d->dev), "GPU %d", d->dev);
    CUDA_TRY_AT((cudaError_t)nvs_kern_fill(NVS_FLOAT, d->src, c->bytes / sizeof(float), p, d->dev, 0, d->s[0]),
                "fill on GPU %d", d->dev);
    CUDA_TRY_AT(cudaStreamSynchronize(d->s[0]), "GPU %d", d->dev);
    return NVS_OK;
}

static nvs_result_t poison_dst(hdev *d, size_t bytes)
{
    CUDA_TRY_AT(cudaSetDevice(d->dev), "GPU %d", d->dev);
    CUDA_TRY_AT((cudaError_t)nvs_kern_poison(d->dst, bytes, d->s[0]), "poison on GPU %d", d->dev);
    CUDA_TRY_AT(cudaStreamSynchronize(d->s[0]), "GPU %d", d->dev);
    return NVS_OK;
}

/* wrong elements in dst, which must hold the GPU's own pattern */
static nvs_result_t verify_dst(hctx *c, hdev *d, const nvs_pattern *p, const char *what, long long *wrong)
{
    size_t count = c->bytes / sizeof(float);
    nvs_expect e = {0, d->dev, 0, 0, count};
    unsigned long long init[2] = {0, ~0ull}, got[2];
    CUDA_TRY_AT(cudaSetDevice(d->dev), "GPU %d", d->dev);
    CUDA_TRY_AT(cudaMemcpyAsync(d->d_wrong, init, sizeof init, cudaMemcpyHostToDevice, d->s[0]), "GPU %d", d->dev);
    CUDA_TRY_AT((cudaError_t)nvs_kern_verify(NVS_FLOAT, d->dst, p, &e, &d->d_wrong[0], &d->d_wrong[1], d->s[0]),
                "verify on GPU %d", d->dev);
    CUDA_TRY_AT(cudaMemcpyAsync(got, d->d_wrong, sizeof got, cudaMemcpyDeviceToHost, d->s[0]), "GPU %d", d->dev);
    CUDA_TRY_AT(cudaStreamSynchronize(d->s[0]), "GPU %d", d->dev);
    if (*wrong < 0) *wrong = 0;
    *wrong += (long long)got[0];
    if (got[0]) nvs_error("GPU %d %s: %llu wrong elements, the first at index %llu", d->dev, what, got[0], got[1]);
    return NVS_OK;
}

/* One mode on a set of GPUs at once (one GPU for single/remote, all for `all`): D2H, then H2D of what came
 * back, then each direction timed beside the other (enqueue()), each validated. */
static nvs_result_t run_mode(hctx *c, hdev **ds, nvs_h2d_gpu **outs, int n, int mode, int warmup, int iters)
{
    static const int order[4] = {1, 0, 2, 3}; /* D2H first: it fills the host buffer the H2D copies read */
    for (int k = 0; k < n; k++) {
        nvs_pattern p = pattern_for(c->ndev, ds[k]->dev, mode);
        NVS_CHECK(fill_src(c, ds[k], &p));
        NVS_CHECK(poison_dst(ds[k], c->bytes));
        outs[k]->mode[mode].wrong = 0;
    }
    for (int t = 0; t < 4; t++) {
        int dir = order[t];
        /* what b holds must come from this test's D2H: NaN bytes, which no pattern value equals */
        for (int k = 0; dir >= 2 && k < n; k++) memset(ds[k]->b.p, 0xff, c->bytes);
        /* NVS_H2D_SAMPLES timed blocks, the warm-up before the first only; the GPUs of `all` copy at once in each */
        for (int s = 0; s < NVS_H2D_SAMPLES; s++) {
            for (int k = 0; k < n; k++) NVS_CHECK(enqueue(c, ds[k], dir, s ? 0 : warmup, iters));
            for (int k = 0; k < n; k++) NVS_CHECK(result(ds[k], dir, &ds[k]->secs[s]));
        }
        for (int k = 0; k < n; k++)
            nvs_h2d_mode_set(&outs[k]->mode[mode], dir, ds[k]->secs, NVS_H2D_SAMPLES, (double)c->bytes * iters);
        for (int k = 0; k < n; k++) {
            hdev *d = ds[k];
            nvs_pattern p = pattern_for(c->ndev, d->dev, mode);
            long long *w = &outs[k]->mode[mode].wrong;
            CUDA_TRY_AT(cudaSetDevice(d->dev), "GPU %d", d->dev);
            CUDA_TRY_AT(cudaStreamSynchronize(d->s[1]), "GPU %d", d->dev);
            if (dir != 1) { /* what H2D left in dst */
                NVS_CHECK(verify_dst(c, d, &p, dir ? "host -> GPU (both directions)" : "host -> GPU", w));
                NVS_CHECK(poison_dst(d, c->bytes));
            }
            if (dir >= 2) { /* what the D2H beside it left in b: bring it back untimed and check it */
                CUDA_TRY_AT(cudaMemcpyAsync(d->dst, d->b.p, c->bytes, cudaMemcpyHostToDevice, d->s[0]),
                            "host -> GPU %d", d->dev);
                NVS_CHECK(verify_dst(c, d, &p, "GPU -> host (both directions)", w));
                NVS_CHECK(poison_dst(d, c->bytes));
            }
        }
    }
    for (int k = 0; k < n; k++)
        if (ds[k]->uncovered) {
            nvs_warn("GPU %d, %s: in %d of %d bidirectional blocks the other direction's copies (twice the bytes) "
                     "ended before the timed ones: the bidir figure includes time the link carried one direction only",
                     ds[k]->dev, nvs_h2d_mode_name(mode), ds[k]->uncovered, 2 * NVS_H2D_SAMPLES);
            ds[k]->uncovered = 0;
        }
    return NVS_OK;
}

/* host buffers of GPU d on node `numa` (-1: unplaced) */
static nvs_result_t place(hctx *c, hdev *d, int numa, nvs_h2d_mode *m)
{
    NVS_CHECK(hbuf_alloc(c, &d->a, numa, d->dev));
    NVS_CHECK(hbuf_alloc(c, &d->b, numa, d->dev));
    m->numa = d->a.numa;
    return NVS_OK;
}

static nvs_result_t measure_all(hctx *c, const nvs_topology *t, nvs_h2d_result *out, int warmup, int iters)
{
    hdev **ds = calloc((size_t)c->ndev, sizeof *ds);
    nvs_h2d_gpu **os = calloc((size_t)c->ndev, sizeof *os);
    nvs_result_t r = ds && os ? NVS_OK : NVS_ERR_NOMEM;
    for (int i = 0; i < c->ndev && r == NVS_OK; i++) {
        nvs_h2d_gpu *g = &out->gpus[i];
        g->gpu_numa = g->gpu >= 0 ? t->gpus[g->gpu].numa_node : -1;
        ds[i] = &c->d[i];
        os[i] = g;
        r = dev_init(c, &c->d[i], g->dev);
    }
    /* one GPU at a time, buffers on its own node */
    for (int i = 0; i < c->ndev && r == NVS_OK; i++) {
        nvs_progress("h2d", "host copies: GPU %d alone", ds[i]->dev);
        r = place(c, ds[i], out->gpus[i].gpu_numa, &os[i]->mode[NVS_H2D_SINGLE]);
        if (r == NVS_OK) r = run_mode(c, &ds[i], &os[i], 1, NVS_H2D_SINGLE, warmup, iters);
    }
    /* every GPU at once, the same buffers */
    if (r == NVS_OK && c->ndev > 1) {
        nvs_progress("h2d", "host copies: all %d GPUs at once", c->ndev);
        for (int i = 0; i < c->ndev; i++) os[i]->mode[NVS_H2D_ALL].numa = ds[i]->a.numa;
        r = run_mode(c, ds, os, c->ndev, NVS_H2D_ALL, warmup, iters);
    }
    /* one GPU at a time, buffers on another node */
    for (int i = 0; i < c->ndev && r == NVS_OK; i++) {
        nvs_h2d_gpu *g = os[i];
        int other = g->gpu_numa >= 0 ? other_node(c, g->gpu_numa) : -1;
        if (!c->topo) snprintf(g->remote_why, sizeof g->remote_why, "%s", c->why);
        else if (g->gpu_numa < 0) snprintf(g->remote_why, sizeof g->remote_why, "the GPU's NUMA node is unknown");
        else if (other < 0) snprintf(g->remote_why, sizeof g->remote_why, "the host has %d NUMA node", numa_count(c));
        if (g->remote_why[0]) continue;
        nvs_progress("h2d", "host copies: GPU %d, buffers on NUMA node %d", ds[i]->dev, other);
        r = place(c, ds[i], other, &g->mode[NVS_H2D_REMOTE]);
        if (r == NVS_OK) r = run_mode(c, &ds[i], &os[i], 1, NVS_H2D_REMOTE, warmup, iters);
        for (int k = 0; k < 2 && r == NVS_OK; k++) hbuf_free(c, k ? &ds[i]->b : &ds[i]->a);
    }
    nvs_progress_done();
    free(ds);
    free(os);
    return r;
}

nvs_result_t nvs_h2d_measure(const nvs_topology *t, size_t copy_bytes, int iters, int warmup, nvs_h2d_result *out)
{
    memset(out, 0, sizeof *out);
    int ndev = 0, prev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev < 1) {
        nvs_error("host copies need a GPU; %s", e != cudaSuccess ? cudaGetErrorString(e) : "no GPU is visible");
        return NVS_ERR_UNSUPPORTED;
    }
    CUDA_TRY_AT(cudaGetDevice(&prev), "the caller's GPU");
    hctx c = {.bytes = copy_bytes / sizeof(float) * sizeof(float)};
    out->copy_bytes = c.bytes;
    out->iters = iters;
    out->warmup = warmup;
    out->samples = NVS_H2D_SAMPLES;
    out->gpus = calloc((size_t)ndev, sizeof *out->gpus);
    c.d = calloc((size_t)ndev, sizeof *c.d);
    if (!out->gpus || !c.d) {
        free(c.d);
        return NVS_ERR_NOMEM;
    }
    nvs_result_t r = NVS_OK;
    /* the GPUs of this host's topology; a device it leaves out (another virtual host's under --emulate-nodes)
     * is not measured */
    for (int d = 0; d < ndev; d++) {
        int gi = -1;
        for (int k = 0; k < t->ngpus; k++)
            if (t->gpus[k].cuda_device == d) gi = k;
        if (gi < 0) continue;
        nvs_h2d_gpu *g = &out->gpus[out->ngpus++];
        g->dev = d;
        g->gpu = gi;
        for (int m = 0; m < NVS_H2D_MODES; m++) {
            g->mode[m].numa = -1;
            g->mode[m].h2d_gbps = g->mode[m].d2h_gbps = g->mode[m].bidir_gbps = -1;
            g->mode[m].bidir_h2d_gbps = g->mode[m].bidir_d2h_gbps = -1;
            g->mode[m].wrong = -1;
        }
    }
    c.ndev = out->ngpus;
    if (!out->ngpus) {
        nvs_error("host copies: none of the %d visible CUDA devices is in the topology", ndev);
        r = NVS_ERR_SYSTEM;
    }
    if (r == NVS_OK) {
        numa_init(&c);
        r = measure_all(&c, t, out, warmup, iters);
        snprintf(out->numa_binding, sizeof out->numa_binding, "%s", c.why);
    }
    for (int i = 0; i < c.ndev; i++) dev_free(&c, &c.d[i]); /* a GPU never set up has nothing to free */
    free(c.d);
    if (c.topo) hwloc_topology_destroy(c.topo);
    cudaError_t back = cudaSetDevice(prev); /* the caller (a rank driving one GPU) keeps its device */
    if (r == NVS_OK) CUDA_TRY_AT(back, "back to GPU %d", prev);
    return r;
}

void nvs_h2d_result_free(nvs_h2d_result *r)
{
    free(r->gpus);
    r->gpus = NULL;
    r->ngpus = 0;
}

long long nvs_h2d_wrong_total(const nvs_h2d_result *r)
{
    long long w = 0;
    for (int i = 0; i < r->ngpus; i++)
        for (int m = 0; m < NVS_H2D_MODES; m++)
            if (r->gpus[i].mode[m].wrong > 0) w += r->gpus[i].mode[m].wrong;
    return w;
}
