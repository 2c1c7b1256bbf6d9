/* Host executor of the synthetic step, for the MPI host backend: the same schedule with CPU GEMMs (fp32) and
 * MPI_Iallreduce per bucket, progressed between layers. It makes CPU clusters measurable and lets machines
 * without GPUs run the whole training path (buckets, overlap, timing, efficiency); its numbers are CPU
 * numbers, not predictions of a GPU. */
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef NVS_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include "collectives/backend_mpi.h"
#include "core/clock.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "core/mpi_check.h"
#include "train/train_exec.h"

struct host_impl {
    float *weights, *acts, *ws_x, *ws_dx, *ws_w, *master, *momentum, *grads;
    float *adam_v;   /* AdamW's second state (exp_avg_sq; `momentum` is its exp_avg); NULL under SGD */
    float *adam_tmp; /* foreach AdamW's temporary exp_avg_sq_sqrt (nvs_adamw_foreach); NULL otherwise */
    long long adam_t; /* AdamW's step count (its bias corrections) */
    float *buckets; /* the framework's bucket buffers (plan->bucket_bytes > 0), else NULL */
    float *f32;     /* autocast's fp32 tensors (plan->f32_elems > 0), else NULL */
    char *bufs, *bufs_flat; /* the module buffers a framework broadcasts (plan->buffers > 0), and their flat copy */
    MPI_Request *reqs;
    int nreqs;
    int progress_rc; /* the first failure of an MPI_Testall between layers (MPI_SUCCESS: none): hjoin reports it */
    int bcast_open; /* a buffer broadcast not known complete (a wait cut short): MPI may still write bufs_flat */
    double mark_us[2];
};

static struct host_impl *H(nvs_train_exec *x) { return x->impl; }

static nvs_result_t hmem(nvs_train_exec *x, double *free_bytes)
{
    (void)x;
    /* MemAvailable: the kernel's estimate of memory a new allocation can get without swapping */
    FILE *f = fopen("/proc/meminfo", "r");
    *free_bytes = 0;
    if (!f) {
        nvs_error("cannot read /proc/meminfo to check the training step's memory");
        return NVS_ERR_SYSTEM;
    }
    char line[256];
    while (fgets(line, sizeof line, f)) {
        unsigned long long kb;
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) *free_bytes = (double)kb * 1024.0;
    }
    fclose(f);
    return NVS_OK;
}

static float *halloc(size_t n, const char *what, unsigned seed)
{
    float *p = malloc((n ? n : 1) * sizeof(float));
    if (!p) {
        nvs_error("cannot allocate %zu bytes of host memory for %s", n * sizeof(float), what);
        return NULL;
    }
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u; /* Numerical Recipes' LCG: any non-zero data will do */
        p[i] = ((float)(s >> 8) / 16777216.0f - 0.5f) * 0.1f;
    }
    return p;
}

static nvs_result_t hsetup(nvs_train_exec *x)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
#ifdef NVS_HAVE_OPENBLAS
    /* the ranks of a host share its cores: OpenBLAS would start one thread per core in every rank */
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    int local = x->backend->rt->local_size > 0 ? x->backend->rt->local_size : 1;
    openblas_set_num_threads(cores / local > 0 ? cores / local : 1);
#endif
    /* MPI-3's counts are ints: a bucket (--bucket-cap) or a buffer group past INT_MAX elements would be cut short */
    for (int b = 0; b < pl->nbuckets; b++)
        if (pl->buckets[b].elems > (size_t)INT_MAX) {
            nvs_error("gradient bucket %d holds %zu floats: the host backend's MPI all-reduce takes at most %d a "
                      "call (lower --bucket-cap)",
                      b, pl->buckets[b].elems, INT_MAX);
            return NVS_ERR_USAGE;
        }
    if (pl->buffer_floats > INT_MAX) { /* buffer_longs is an int */
        nvs_error("the module buffers' %.0f floats exceed the %d elements of one MPI broadcast", pl->buffer_floats,
                  INT_MAX);
        return NVS_ERR_USAGE;
    }
    /* BLAS's sizes are ints: more rows would reach cblas_sgemm wrapped (negative, or a fraction of the GEMM) */
    int big = nvs_train_plan_rows_over_int(pl);
    if (big >= 0) {
        const nvs_layer *ly = &pl->profile->layers[big];
        nvs_error("layer %s: a GEMM dimension exceeds what BLAS takes (2^31-1): %.0f rows (M %.0f x batch %d): "
                  "lower --batch",
                  ly->name, ly->gemm_m * pl->batch, ly->gemm_m, pl->batch);
        return NVS_ERR_USAGE;
    }
    h->reqs = calloc((size_t)pl->nbuckets + 1, sizeof(MPI_Request));
    if (!h->reqs) return NVS_ERR_NOMEM;
    /* the buffer layout is the plan's (train_plan.c), the same the memory check counted */
    const int L = pl->profile->nlayers;
    const size_t wt = pl->w_off[L], at = pl->a_off[L], mx = pl->max_x_elems, mw = pl->max_w_elems;
    if (!(h->weights = halloc(wt, "GEMM weights", 1)) || !(h->acts = halloc(at, "activations", 2)) ||
        !(h->ws_x = halloc(mx, "GEMM input", 3)) || !(h->ws_dx = halloc(mx, "input gradient", 4)) ||
        !(h->ws_w = halloc(mw, "weight gradient", 5)) || !(h->master = halloc(pl->grad_elems, "parameters", 6)) ||
        !(h->momentum = halloc(pl->grad_elems, "momentum", 7)) || !(h->grads = halloc(pl->grad_elems, "gradients", 8)))
        return NVS_ERR_NOMEM;
    if (pl->optimizer == NVS_OPT_ADAMW) { /* both states start at 0, as torch.optim.AdamW's (v must be >= 0) */
        if (!(h->adam_v = halloc(pl->grad_elems, "AdamW's second state", 13))) return NVS_ERR_NOMEM;
        memset(h->adam_v, 0, pl->grad_elems * sizeof(float));
        memset(h->momentum, 0, pl->grad_elems * sizeof(float));
        if (nvs_train_plan_opt_foreach(pl) && !(h->adam_tmp = halloc(pl->grad_elems, "AdamW's foreach temporary", 14)))
            return NVS_ERR_NOMEM;
    }
    if (pl->bucket_bytes > 0 && !(h->buckets = halloc(pl->grad_elems, "gradient buckets", 9))) return NVS_ERR_NOMEM;
    if (pl->f32_elems > 0 && !(h->f32 = halloc(pl->f32_elems, "autocast's fp32 tensors", 12))) return NVS_ERR_NOMEM;
    if (pl->buffers > 0) {
        size_t b = (size_t)(pl->buffer_bytes / 2);
        if (!(h->bufs = (char *)halloc(b / 4 + 1, "module buffers", 10)) ||
            !(h->bufs_flat = (char *)halloc(b / 4 + 1, "module buffers' flat copy", 11)))
            return NVS_ERR_NOMEM;
    }
    return NVS_OK;
}

/* Let MPI move the outstanding buckets (MPI progresses non-blocking collectives inside MPI calls). A failure is
 * kept for hjoin, which reports it: a request that ended in error is freed by the failing call, so a later
 * MPI_Testall would find every request done and the all-reduce's failure would be lost. */
static void progress(struct host_impl *h)
{
    if (h->nreqs && h->progress_rc == MPI_SUCCESS) {
        int done;
        h->progress_rc = MPI_Testall(h->nreqs, h->reqs, &done, MPI_STATUSES_IGNORE);
    }
}

/* C[m x n] = A[m x k] B[k x n], column-major, with optional transposes expressed by strides (a_rs/a_cs: the
 * distance between consecutive rows / columns of A; a one-row or one-column matrix has both strides 1, so the
 * transposition is chosen by which layout satisfies BLAS's leading-dimension rule). Through CBLAS (OpenBLAS) when
 * nvscale was built with it: the host backend then measures what a CPU does with a real BLAS (the plain loop below runs
 * at ~3 GFLOP/s, which made a ResNet-50 step take seconds). */
static void sgemm(int m, int n, int k, const float *A, size_t a_rs, size_t a_cs, const float *B, size_t b_rs,
                  size_t b_cs, float *C, struct host_impl *h)
{
#ifdef NVS_HAVE_OPENBLAS
    (void)h;
    /* column-major: a matrix with unit row stride is untransposed with lda = its column stride; a matrix with unit
     * column stride is the transpose of an untransposed one with lda = its row stride */
    int a_plain = a_rs == 1 && a_cs >= (size_t)(m > 1 ? m : 1), b_plain = b_rs == 1 && b_cs >= (size_t)(k > 1 ? k : 1);
    enum CBLAS_TRANSPOSE ta = a_plain ? CblasNoTrans : CblasTrans, tb = b_plain ? CblasNoTrans : CblasTrans;
    blasint lda = (blasint)(a_plain ? a_cs : a_rs), ldb = (blasint)(b_plain ? b_cs : b_rs);
    cblas_sgemm(CblasColMajor, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, m);
    return;
#endif
    for (int j = 0; j < n; j++) {
        float *c = C + (size_t)j * (size_t)m;
        memset(c, 0, (size_t)m * sizeof(float));
        for (int p = 0; p < k; p++) {
            float b = B[(size_t)p * b_rs + (size_t)j * b_cs];
            const float *a = A + (size_t)p * a_cs;
            for (int i = 0; i < m; i++) c[i] += a[(size_t)i * a_rs] * b;
        }
        if ((j & 15) == 0) progress(h);
    }
}


static nvs_result_t hgemm(nvs_train_exec *x, int l, int kind)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    int m = (int)(ly->gemm_m * pl->batch), n = (int)ly->gemm_n, k = (int)ly->gemm_k;
    float *W = h->weights + pl->w_off[l], *Y = h->acts + pl->a_off[l];
    switch (kind) {
    case NVS_GEMM_FWD: /* Y[m x n] = X[m x k] W[k x n] */
        sgemm(m, n, k, h->ws_x, 1, (size_t)m, W, 1, (size_t)k, Y, h);
        break;
    case NVS_GEMM_DGRAD: /* dX[m x k] = dY[m x n] W^T */
        sgemm(m, k, n, Y, 1, (size_t)m, W, (size_t)k, 1, h->ws_dx, h);
        break;
    default: { /* dW[k x n] = X^T dY */
        sgemm(k, n, m, h->ws_x, (size_t)m, 1, Y, 1, (size_t)m, h->ws_w, h);
        size_t cnt = (size_t)ly->params < (size_t)k * n ? (size_t)ly->params : (size_t)k * n;
        memcpy(h->grads + pl->grad_offset[l], h->ws_w, cnt * sizeof(float));
        break;
    }
    }
    return NVS_OK;
}

/* fp32 passes (autocast's, at half precision only: step.c) run over the fp32 scratch; the host's data are fp32 */
static nvs_result_t hew(nvs_train_exec *x, int l, double passes, int fp32)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
    size_t count = (size_t)(pl->profile->layers[l].act_elems * pl->batch);
    if (fp32 && (!h->f32 || count > pl->f32_elems)) {
        nvs_error("layer %d: fp32 passes larger than the plan allocated (internal error)", l);
        return NVS_ERR_SYSTEM;
    }
    float *Y = fp32 ? h->f32 : h->acts + pl->a_off[l];
    size_t total = (size_t)(passes * (double)count);
    for (size_t done = 0; done < total; done += count) {
        size_t c = total - done < count ? total - done : count;
        for (size_t i = 0; i < c; i++) Y[i] = Y[i] * 0.999f + 0.001f;
        progress(h);
    }
    return NVS_OK;
}

/* Layout copies are made at half precision only (step.c), which the host backend refuses today; kept so that the
 * executor does all the step asks. */
static nvs_result_t hcopy(nvs_train_exec *x, int l, double copies)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
    size_t count = (size_t)(pl->profile->layers[l].act_elems * pl->batch);
    const float *Y = h->acts + pl->a_off[l];
    size_t off = 0;
    for (size_t done = 0, c; (c = nvs_copy_piece(done, copies, count, pl->max_x_elems, &off)) > 0; done += c) {
        memcpy(h->ws_dx, Y + off, c * sizeof(float));
        progress(h);
    }
    return NVS_OK;
}

/* Autocast's weight casts, likewise at half precision only (step.c): the host's copy is of the same type */
static nvs_result_t hcast(nvs_train_exec *x, int l)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
    size_t cnt = (size_t)nvs_framework_weight_cast_elems(pl->framework, &pl->profile->layers[l], pl->precision);
    memcpy(h->weights + pl->w_off[l], h->master + pl->grad_offset[l], cnt * sizeof(float));
    return NVS_OK;
}

/* Autocast's cast of an fp32 output to its 16-bit copy and back (half precision only, step.c): a copy here */
static nvs_result_t hcast_act(nvs_train_exec *x, int l, int backward)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
    size_t count = (size_t)(pl->profile->layers[l].act_elems * pl->batch);
    if (!h->f32 || count > pl->f32_elems) {
        nvs_error("layer %d: an fp32 output's cast larger than the plan allocated (internal error)", l);
        return NVS_ERR_SYSTEM;
    }
    float *Y = h->acts + pl->a_off[l];
    if (backward)
        memcpy(h->f32, Y, count * sizeof(float));
    else
        memcpy(Y, h->f32, count * sizeof(float));
    return NVS_OK;
}

/* The bias's gradient: the output gradient (m x n, column-major) summed over its rows, after the matrix in the
 * layer's slot */
static nvs_result_t hbias(nvs_train_exec *x, int l)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    size_t m = (size_t)(ly->gemm_m * pl->batch), n = (size_t)nvs_layer_bias_elems(ly);
    const float *Y = h->acts + pl->a_off[l];
    float *gb = h->grads + pl->grad_offset[l] + (size_t)(ly->gemm_n * ly->gemm_k);
    for (size_t j = 0; j < n; j++) {
        float sum = 0;
        for (size_t i = 0; i < m; i++) sum += Y[j * m + i];
        gb[j] = sum;
    }
    progress(h);
    return NVS_OK;
}

static nvs_result_t hgrad(nvs_train_exec *x, int l)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
    float *g = h->grads + pl->grad_offset[l];
    for (size_t i = 0; i < (size_t)pl->profile->layers[l].params; i++) g[i] *= 0.5f;
    return NVS_OK;
}

static nvs_result_t hbucket(nvs_train_exec *x, int b)
{
    struct host_impl *h = H(x);
    const nvs_bucket *bk = &x->plan->buckets[b];
    float *base = h->buckets ? h->buckets : h->grads; /* the framework's buckets, else in place */
    int rc = MPI_Iallreduce(MPI_IN_PLACE, base + bk->offset_elems, (int)bk->elems, MPI_FLOAT, MPI_SUM,
                            nvs_mpi_comm(x->comm), &h->reqs[h->nreqs]);
    if (rc != MPI_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "MPI_Iallreduce of gradient bucket %d (%zu bytes)", b, bk->bytes);
        return nvs_mpi_fail(what, rc);
    }
    h->nreqs++;
    return NVS_OK;
}

/* Waits for n requests, within the run's timeout (a peer may be stalled or gone); `what` names them. */
static nvs_result_t wait_reqs(nvs_train_exec *x, MPI_Request *reqs, int n, const char *what)
{
    double t0 = nvs_now_s();
    for (;;) {
        int done = 0;
        int rc = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) {
            char call[160];
            snprintf(call, sizeof call, "MPI_Testall on %s", what);
            return nvs_mpi_fail(call, rc);
        }
        if (done) return NVS_OK;
        if (nvs_interrupted()) return NVS_ERR_INTERRUPTED;
        NVS_CHECK(nvs_rt_peer_failed(x->backend->rt)); /* a peer that failed told us: not a stall (runtime.h) */
        if (nvs_now_s() - t0 > x->backend->rt->timeout_s) {
            nvs_error("%s of the training step did not complete within %.0f s on rank %d (host %s): a peer rank is "
                      "stalled or gone",
                      what, x->backend->rt->timeout_s, x->backend->rt->rank, x->backend->rt->host);
            return NVS_ERR_TIMEOUT;
        }
        sched_yield();
    }
}

static nvs_result_t hjoin(nvs_train_exec *x)
{
    struct host_impl *h = H(x);
    if (h->progress_rc != MPI_SUCCESS) /* the requests stay counted: teardown leaves their buffers alone */
        return nvs_mpi_fail("MPI_Testall on the gradient all-reduces (between layers)", h->progress_rc);
    NVS_CHECK(wait_reqs(x, h->reqs, h->nreqs, "the gradient all-reduces"));
    h->nreqs = 0;
    return NVS_OK;
}

/* DDP's buffer broadcast (train_exec.h): per dtype a flatten and a broadcast from rank 0, then each buffer copied
 * back. Issued at the step's start, when no bucket is in flight. */
static nvs_result_t hbuffers(nvs_train_exec *x)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
    const size_t fbytes = (size_t)pl->buffer_floats * 4, lbytes = (size_t)pl->buffer_longs * 8;
    MPI_Request r[2];
    memcpy(h->bufs_flat, h->bufs, fbytes);
    memcpy(h->bufs_flat + fbytes, h->bufs + fbytes, lbytes);
    char what[96];
    int rc = MPI_Ibcast(h->bufs_flat, (int)(fbytes / 4), MPI_FLOAT, 0, nvs_mpi_comm(x->comm), &r[0]);
    if (rc != MPI_SUCCESS) {
        snprintf(what, sizeof what, "MPI_Ibcast of the module buffers' floats (%zu bytes)", fbytes);
        return nvs_mpi_fail(what, rc);
    }
    h->bcast_open = 1; /* from here MPI may write bufs_flat until the wait below completes */
    rc = MPI_Ibcast(h->bufs_flat + fbytes, (int)(lbytes / 8), MPI_INT64_T, 0, nvs_mpi_comm(x->comm), &r[1]);
    if (rc != MPI_SUCCESS) {
        snprintf(what, sizeof what, "MPI_Ibcast of the module buffers' int64s (%zu bytes)", lbytes);
        return nvs_mpi_fail(what, rc);
    }
    NVS_CHECK(wait_reqs(x, r, 2, "the broadcast of the module buffers"));
    h->bcast_open = 0;
    for (size_t i = 0, off = 0; i < (size_t)pl->buffers; off += pl->buffer_size[i++])
        memcpy(h->bufs + off, h->bufs_flat + off, pl->buffer_size[i]);
    return NVS_OK;
}

/* Made at fp16 only (step.c), which the host backend refuses today; kept so that the executor does all the step
 * asks. */
static nvs_result_t hunscale(nvs_train_exec *x)
{
    struct host_impl *h = H(x);
    for (size_t i = 0; i < x->plan->grad_elems; i++) h->grads[i] = h->grads[i] * 0.999f + 0.001f;
    return NVS_OK;
}

static nvs_result_t hopt(nvs_train_exec *x)
{
    struct host_impl *h = H(x);
    float scale = 1.0f / (float)x->nranks;
    const size_t n = x->plan->grad_elems;
    if (x->plan->optimizer == NVS_OPT_ADAMW) { /* the framework's foreach passes or one fused, as the GPU executor's */
        const nvs_adamw_hyper hp = nvs_adamw_defaults();
        if (nvs_train_plan_opt_foreach(x->plan))
            nvs_adamw_foreach(h->master, h->momentum, h->adam_v, h->adam_tmp, h->grads, n, scale, ++h->adam_t, &hp);
        else
            nvs_adamw_update(h->master, h->momentum, h->adam_v, h->grads, n, scale, ++h->adam_t, &hp);
        return NVS_OK;
    }
    if (nvs_train_plan_opt_foreach(x->plan)) { /* three passes, as the GPU executor makes them (framework.h) */
        for (size_t i = 0; i < n; i++) h->momentum[i] *= 0.9f;
        for (size_t i = 0; i < n; i++) h->momentum[i] += h->grads[i] * scale;
        for (size_t i = 0; i < n; i++) h->master[i] -= 1e-4f * h->momentum[i];
        return NVS_OK;
    }
    for (size_t i = 0; i < n; i++) {
        h->momentum[i] = 0.9f * h->momentum[i] + h->grads[i] * scale;
        h->master[i] -= 1e-4f * h->momentum[i];
    }
    return NVS_OK;
}

static nvs_result_t hsync(nvs_train_exec *x)
{
    (void)x;
    return NVS_OK; /* host work is synchronous; buckets were joined before the optimizer */
}

static nvs_result_t hgrad_to_bucket(nvs_train_exec *x, int l)
{
    struct host_impl *h = H(x);
    const nvs_train_plan *pl = x->plan;
    if (h->buckets)
        memcpy(h->buckets + pl->grad_offset[l], h->grads + pl->grad_offset[l],
               (size_t)pl->profile->layers[l].params * sizeof(float));
    progress(h);
    return NVS_OK;
}

static nvs_result_t hbucket_to_grad(nvs_train_exec *x, int b)
{
    struct host_impl *h = H(x);
    const nvs_bucket *bk = &x->plan->buckets[b];
    if (h->buckets) memcpy(h->grads + bk->offset_elems, h->buckets + bk->offset_elems, bk->elems * sizeof(float));
    return NVS_OK;
}

static nvs_result_t hmark(nvs_train_exec *x, int which)
{
    H(x)->mark_us[which ? 1 : 0] = nvs_now_us();
    return NVS_OK;
}

static nvs_result_t hspan(nvs_train_exec *x, double *us)
{
    *us = H(x)->mark_us[1] - H(x)->mark_us[0];
    return NVS_OK;
}

static void hteardown(nvs_train_exec *x)
{
    struct host_impl *h = H(x);
    if (!h) return;
    if (h->nreqs > 0 || h->bcast_open) {
        /* a step cut short (interrupt, timeout, failed peer) with all-reduces or the buffers' broadcast in flight:
         * MPI may still write into the buckets or the flat buffers, and a collective cannot be cancelled (the MPI
         * standard makes MPI_Cancel on a nonblocking collective's request erroneous). The buffers are left to the
         * process's end, which follows: the run stops on any such error. */
        x->impl = NULL;
        return;
    }
    void *bufs[] = {h->weights, h->acts,    h->ws_x,    h->ws_dx, h->ws_w,      h->master,
                    h->momentum, h->grads, h->buckets, h->bufs,  h->bufs_flat, h->f32, h->adam_v, h->adam_tmp};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) free(bufs[i]);
    free(h->reqs);
    free(h);
    x->impl = NULL;
}

static const struct nvs_train_exec_ops host_ops = {.name = "host",
                                                   .sync_issue = 1,
                                                   .setup = hsetup,
                                                   .gemm = hgemm,
                                                   .ew = hew,
                                                   .copy_out = hcopy,
                                                   .cast_weights = hcast,
                                                   .cast_act = hcast_act,
                                                   .bias_grad = hbias,
                                                   .grad_pass = hgrad,
                                                   .bucket_ready = hbucket,
                                                   .join_comm = hjoin,
                                                   .unscale = hunscale,
                                                   .optimizer = hopt,
                                                   .sync = hsync,
                                                   .mark = hmark,
                                                   .span = hspan,
                                                   .grad_to_bucket = hgrad_to_bucket,
                                                   .bucket_to_grad = hbucket_to_grad,
                                                   .memory = hmem,
                                                   .buffers = hbuffers,
                                                   .teardown = hteardown};

nvs_result_t nvs_train_exec_host(nvs_train_exec *x)
{
    const nvs_train_plan *pl = x->plan;
    if (pl->precision == NVS_PREC_BF16 || pl->precision == NVS_PREC_FP16 || pl->grad_bf16) {
        if (x->backend->rt->rank == 0)
            fprintf(stderr, "nvscale: %s %s needs the NCCL backend (GPUs); the host backend computes in fp32\n",
                    pl->grad_bf16 ? "bf16" : nvs_precision_name(pl->precision),
                    pl->grad_bf16 ? "gradients" : "precision");
        return NVS_ERR_USAGE;
    }
    x->ops = &host_ops;
    x->impl = calloc(1, sizeof(struct host_impl));
    return x->impl ? NVS_OK : NVS_ERR_NOMEM;
}
