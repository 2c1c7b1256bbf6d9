/* MPI host backend: the same collectives with MPI on host memory. A real benchmark for CPU clusters (and what
 * runs where there is no GPU). Each operation completes before the next starts (as OSU and IMB time them),
 * through the non-blocking call polled against the timeout so a stalled peer is reported, not waited on forever.
 * half and bfloat16 travel as 16-bit words with user-defined reductions (MPI has no such types). MPI has no
 * average either: avg is MPI_SUM, then a division by the communicator size here (divide_results). */
#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/half.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "core/mpi_check.h"
#include "core/units.h"
#include "collectives/backend.h"
#include "collectives/backend_mpi.h"

struct nvs_comm {
    MPI_Comm comm;
    int rank, size;
};

struct mpi_impl {
    MPI_Comm world;
    MPI_Op half_ops[NVS_OP_COUNT], bf16_ops[NVS_OP_COUNT];
    /* NVS_OK, or why an operation was given up on (timeout, signal, MPI error) with its request still active:
     * every later launch is refused with it, and no buffer is freed any more (left_to_mpi) */
    nvs_result_t abandoned;
};

/* Buffers of an operation given up on. Its request stays active inside MPI, which may read the send buffer and
 * write the receive buffer at any later MPI call of this process (Open MPI progresses every active request in
 * each call), so they are never freed. Nothing can end the request instead: a non-blocking collective cannot be
 * cancelled (MPI-3.1 section 5.12), cancelling a send is deprecated (MPI-4.0 section 3.8.4), and waiting for it
 * waits for the peer that stalled. The process ends soon after (the runtime stops the job on the error this
 * returns), so the memory is lost for seconds; kept reachable from here so that LeakSanitizer does not report
 * a leak that is deliberate. */
struct kept_buf {
    void *p;
    struct kept_buf *next;
};
static struct kept_buf *left_to_mpi;

static void keep_for_mpi(void *p)
{
    struct kept_buf *k = malloc(sizeof *k);
    if (!k) return; /* unreachable then, but still never freed: only LeakSanitizer would notice */
    k->p = p;
    k->next = left_to_mpi;
    left_to_mpi = k;
}


/* ---- 16-bit reductions ---------------------------------------------------------------------------------- */

static float red(float a, float b, int op)
{
    switch (op) {
    case NVS_MAX: return a > b ? a : b;
    case NVS_MIN: return a < b ? a : b;
    case NVS_PROD: return a * b;
    default: return a + b;
    }
}

#define DEFINE_16BIT_OP(kind, op, to_f32, from_f32)                                                         \
    static void kind##_##op(void *in, void *inout, int *len, MPI_Datatype *dt)                              \
    {                                                                                                       \
        (void)dt;                                                                                           \
        const uint16_t *a = in;                                                                             \
        uint16_t *b = inout;                                                                                \
        for (int i = 0; i < *len; i++) b[i] = from_f32(red(to_f32(a[i]), to_f32(b[i]), op));                \
    }
DEFINE_16BIT_OP(half, NVS_SUM, nvs_f16_to_f32, nvs_f32_to_f16)
DEFINE_16BIT_OP(half, NVS_MAX, nvs_f16_to_f32, nvs_f32_to_f16)
DEFINE_16BIT_OP(half, NVS_MIN, nvs_f16_to_f32, nvs_f32_to_f16)
DEFINE_16BIT_OP(half, NVS_PROD, nvs_f16_to_f32, nvs_f32_to_f16)
DEFINE_16BIT_OP(bf16, NVS_SUM, nvs_bf16_to_f32, nvs_f32_to_bf16)
DEFINE_16BIT_OP(bf16, NVS_MAX, nvs_bf16_to_f32, nvs_f32_to_bf16)
DEFINE_16BIT_OP(bf16, NVS_MIN, nvs_bf16_to_f32, nvs_f32_to_bf16)
DEFINE_16BIT_OP(bf16, NVS_PROD, nvs_bf16_to_f32, nvs_f32_to_bf16)

/* every nvs_dtype, no default: a type added to core/dtype.h without a case here is a -Wswitch warning */
static MPI_Datatype mpi_type(nvs_dtype t)
{
    switch (t) {
    case NVS_HALF:
    case NVS_BF16: return MPI_UINT16_T;
    case NVS_INT32: return MPI_INT32_T;
    case NVS_DOUBLE: return MPI_DOUBLE;
    case NVS_INT8: return MPI_INT8_T;
    case NVS_UINT8: return MPI_UINT8_T;
    case NVS_UINT32: return MPI_UINT32_T;
    case NVS_INT64: return MPI_INT64_T;
    case NVS_UINT64: return MPI_UINT64_T;
    case NVS_FLOAT:
    case NVS_DTYPE_COUNT: break;
    }
    return MPI_FLOAT;
}

static MPI_Op mpi_op(struct mpi_impl *im, nvs_dtype t, nvs_redop op)
{
    if (op == NVS_AVG) op = NVS_SUM; /* then divide_results */
    if (t == NVS_HALF) return im->half_ops[op];
    if (t == NVS_BF16) return im->bf16_ops[op];
    switch (op) {
    case NVS_MAX: return MPI_MAX;
    case NVS_MIN: return MPI_MIN;
    case NVS_PROD: return MPI_PROD;
    default: return MPI_SUM;
    }
}

/* ---- element access for fill/verify ---------------------------------------------------------------------- */

static void store(nvs_dtype t, void *p, size_t k, double v)
{
    switch (t) {
    case NVS_HALF: ((uint16_t *)p)[k] = nvs_f32_to_f16((float)v); break;
    case NVS_BF16: ((uint16_t *)p)[k] = nvs_f32_to_bf16((float)v); break;
    case NVS_INT32: ((int32_t *)p)[k] = (int32_t)v; break;
    case NVS_DOUBLE: ((double *)p)[k] = v; break;
    /* the pattern puts no negative value in an unsigned type (collectives/pattern.h) */
    case NVS_INT8: ((int8_t *)p)[k] = (int8_t)v; break;
    case NVS_UINT8: ((uint8_t *)p)[k] = (uint8_t)v; break;
    case NVS_UINT32: ((uint32_t *)p)[k] = (uint32_t)v; break;
    case NVS_INT64: ((int64_t *)p)[k] = (int64_t)v; break;
    case NVS_UINT64: ((uint64_t *)p)[k] = (uint64_t)v; break;
    default: ((float *)p)[k] = (float)v; break;
    }
}

static double load(nvs_dtype t, const void *p, size_t k)
{
    switch (t) {
    case NVS_HALF: return nvs_f16_to_f32(((const uint16_t *)p)[k]);
    case NVS_BF16: return nvs_bf16_to_f32(((const uint16_t *)p)[k]);
    case NVS_INT32: return ((const int32_t *)p)[k];
    case NVS_DOUBLE: return ((const double *)p)[k];
    case NVS_INT8: return ((const int8_t *)p)[k];
    case NVS_UINT8: return ((const uint8_t *)p)[k];
    case NVS_UINT32: return ((const uint32_t *)p)[k];
    case NVS_INT64: return (double)((const int64_t *)p)[k];
    case NVS_UINT64: return (double)((const uint64_t *)p)[k];
    default: return ((const float *)p)[k];
    }
}

/* the expectation rounded through the type, as the GPU verify kernel does */
static double through(nvs_dtype t, double v)
{
    union {
        double d;
        float f;
        uint16_t h;
        int32_t i;
        uint64_t u64; /* the widest integer types: 8 bytes, as d */
    } u;
    store(t, &u, 0, v);
    return load(t, &u, 0);
}

static struct mpi_impl *impl_of(nvs_backend *b) { return b->impl; }

MPI_Comm nvs_mpi_comm(nvs_comm *c) { return c ? c->comm : MPI_COMM_NULL; }

static void mfree_comm(nvs_backend *b, nvs_comm *c)
{
    (void)b;
    if (!c) return;
    if (c->comm != MPI_COMM_NULL) MPI_CLEANUP(MPI_Comm_free(&c->comm));
    free(c);
}

static nvs_result_t msplit(nvs_backend *b, int member, nvs_comm **out)
{
    *out = NULL;
    MPI_Comm nc = MPI_COMM_NULL;
    NVS_CHECK(nvs_comm_create_agree(b->rt, NVS_OK, "MPI_Comm_split")); /* it polls nothing: backend.h */
    MPI_TRY(MPI_Comm_split(impl_of(b)->world, member ? 0 : MPI_UNDEFINED, b->rt->rank, &nc));
    if (!member) return NVS_OK;
    nvs_comm *c = calloc(1, sizeof *c);
    if (!c) {
        MPI_CLEANUP(MPI_Comm_free(&nc));
        return NVS_ERR_NOMEM;
    }
    c->comm = nc;
    int rc = MPI_Comm_set_errhandler(nc, MPI_ERRORS_RETURN);
    const char *call = "MPI_Comm_set_errhandler";
    if (rc == MPI_SUCCESS && (rc = MPI_Comm_rank(nc, &c->rank)) != MPI_SUCCESS) call = "MPI_Comm_rank";
    if (rc == MPI_SUCCESS && (rc = MPI_Comm_size(nc, &c->size)) != MPI_SUCCESS) call = "MPI_Comm_size";
    if (rc != MPI_SUCCESS) { /* the communicator and c are not handed out: freed here (comm_free never sees them) */
        nvs_result_t r = nvs_mpi_fail(call, rc);
        mfree_comm(b, c);
        return r;
    }
    *out = c;
    return NVS_OK;
}

static int mcrank(const nvs_comm *c) { return c->rank; }
static int mcsize(const nvs_comm *c) { return c->size; }

static nvs_result_t malloc_buf(nvs_backend *b, size_t bytes, void **p)
{
    (void)b;
    if (posix_memalign(p, 64, bytes ? bytes : 64) != 0) {
        nvs_error("cannot allocate %zu bytes of host memory for the MPI backend", bytes);
        return NVS_ERR_NOMEM;
    }
    return NVS_OK;
}

static void mfree_buf(nvs_backend *b, void *p)
{
    if (impl_of(b) && impl_of(b)->abandoned != NVS_OK) {
        keep_for_mpi(p); /* an active request may still use it: left_to_mpi */
        return;
    }
    free(p);
}

/* Host-memory passes over a whole buffer (1 GiB at -e 1G: 2-6 s of first-touch page faults on a busy 2-core
 * machine) go in pieces of this many bytes, each followed by a look at the signal flag, so that Ctrl-C during
 * start-up or a large size's fill is acted on within a piece's time rather than the buffer's. */
#define HOST_PASS_BYTES ((size_t)64 << 20)

static size_t pass_elems(nvs_dtype t) { return HOST_PASS_BYTES / nvs_dtype_size(t); }

static nvs_result_t mfill(nvs_backend *b, nvs_dtype t, void *p, size_t count, const nvs_pattern *pat, int rank,
                          size_t off)
{
    (void)b;
    for (size_t k0 = 0; k0 < count; k0 += pass_elems(t)) {
        if (nvs_interrupted()) return NVS_ERR_INTERRUPTED;
        size_t k1 = count - k0 < pass_elems(t) ? count : k0 + pass_elems(t);
        for (size_t k = k0; k < k1; k++) store(t, p, k, nvs_pattern_value(pat, rank, off + k));
    }
    return NVS_OK;
}

static nvs_result_t mpoison(nvs_backend *b, void *p, size_t bytes)
{
    (void)b;
    for (size_t at = 0; at < bytes; at += HOST_PASS_BYTES) {
        if (nvs_interrupted()) return NVS_ERR_INTERRUPTED;
        size_t n = bytes - at < HOST_PASS_BYTES ? bytes - at : HOST_PASS_BYTES;
        memset((char *)p + at, 0x7f, n); /* same poison as the GPU backend: collectives/kernels.h */
    }
    return NVS_OK;
}

static nvs_result_t mverify(nvs_backend *b, nvs_dtype t, const void *out, const nvs_pattern *pat,
                            const nvs_expect *e, unsigned long long *wrong, unsigned long long *first)
{
    (void)b;
    *wrong = 0;
    *first = ~0ull;
    const size_t count = e->check_count;
    for (size_t k0 = 0; k0 < count; k0 += pass_elems(t)) {
        if (nvs_interrupted()) return NVS_ERR_INTERRUPTED;
        size_t k1 = count - k0 < pass_elems(t) ? count : k0 + pass_elems(t);
        for (size_t k = k0; k < k1; k++) {
            size_t idx = e->index_offset + (e->chunk ? k % e->chunk : k);
            double want = e->reduce             ? nvs_pattern_reduced(pat, idx)
                          : e->fixed_src >= 0 ? nvs_pattern_value(pat, e->fixed_src, idx)
                                              : nvs_pattern_value(pat, (int)(k / e->chunk), idx);
            if (load(t, out, k) != through(t, want)) {
                if (!*wrong) *first = k;
                (*wrong)++;
            }
        }
    }
    return NVS_OK;
}

static nvs_result_t complete(nvs_backend *b, MPI_Request *reqs, int n, const nvs_op *op)
{
    double start = nvs_now_s();
    for (;;) {
        int done = 0;
        MPI_TRY(MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE)); /* an error: mlaunch takes them as active */
        if (done) return NVS_OK;
        if (nvs_interrupted()) return NVS_ERR_INTERRUPTED;
        NVS_CHECK(nvs_rt_peer_failed(b->rt)); /* a peer that failed told us: not a stall (runtime.h) */
        double waited = nvs_now_s() - start;
        if (waited > b->rt->timeout_s) {
            char sz[32];
            nvs_error("%s of %s (%s, %s) did not complete within %.0f s on rank %d (host %s): a peer rank is stalled "
                      "or gone",
                      op->coll->name, nvs_format_size(op->bytes, sz, sizeof sz), nvs_dtype_name(op->type),
                      op->inplace ? "in-place" : "out-of-place", b->rt->timeout_s, b->rt->rank, b->rt->host);
            return NVS_ERR_TIMEOUT;
        }
        if (waited > 1e-3) nanosleep(&(struct timespec){0, 50000}, NULL);
        else sched_yield();
    }
}

/* avg = sum / n, element by element in the type, as NCCL divides: integers with C's division (the validation's
 * integer sums are multiples of n, pattern.h, so truncation never shows), floating types rounded once from the
 * exact quotient (16-bit ones through binary32, as store() converts). Part of the timed operation, as the
 * division is part of ncclAvg. */
#define DIVIDE_IN(T) \
    for (size_t k = 0; k < count; k++) ((T *)p)[k] = (T)(((T *)p)[k] / (T)n)
static void divide_results(nvs_dtype t, void *p, size_t count, int n)
{
    switch (t) {
    case NVS_INT8: DIVIDE_IN(int8_t); break;
    case NVS_UINT8: DIVIDE_IN(uint8_t); break;
    case NVS_INT32: DIVIDE_IN(int32_t); break;
    case NVS_UINT32: DIVIDE_IN(uint32_t); break;
    case NVS_INT64: DIVIDE_IN(int64_t); break;
    case NVS_UINT64: DIVIDE_IN(uint64_t); break;
    case NVS_FLOAT: DIVIDE_IN(float); break;
    case NVS_DOUBLE: DIVIDE_IN(double); break;
    default:
        for (size_t k = 0; k < count; k++) store(t, p, k, load(t, p, k) / n);
        break;
    }
}
#undef DIVIDE_IN

/* Starts op's requests; *posted counts those started (active until completed, also when a later one fails). */
static nvs_result_t post(struct mpi_impl *im, nvs_comm *c, const nvs_op *op, MPI_Request req[2], int *posted)
{
    const nvs_coll_counts *k = &op->counts;
    size_t ts = nvs_dtype_size(op->type);
    MPI_Datatype dt = mpi_type(op->type);
    MPI_Op mo = mpi_op(im, op->type, op->op);
    int in = op->inplace;
    *posted = 0;
    /* MPI counts are int: the sweep refuses larger sizes up front (sweep.c) */
    int sc = (int)k->send_count, rc = (int)k->recv_count;
    switch (op->coll->prim) {
    case NVS_PRIM_ALLREDUCE:
        MPI_TRY(MPI_Iallreduce(in ? MPI_IN_PLACE : op->send, op->recv, sc, dt, mo, c->comm, &req[0]));
        break;
    case NVS_PRIM_BROADCAST:
        /* MPI broadcasts in place; out-of-place = copy on the root first, as NCCL's root does */
        if (!in && c->rank == op->root) memcpy(op->recv, op->send, k->send_count * ts);
        MPI_TRY(MPI_Ibcast(op->recv, sc, dt, op->root, c->comm, &req[0]));
        break;
    case NVS_PRIM_REDUCE:
        MPI_TRY(MPI_Ireduce(in && c->rank == op->root ? MPI_IN_PLACE : op->send, op->recv, sc, dt, mo, op->root,
                            c->comm, &req[0]));
        break;
    case NVS_PRIM_ALLGATHER:
        MPI_TRY(MPI_Iallgather(in ? MPI_IN_PLACE : op->send, sc, dt, op->recv, sc, dt, c->comm, &req[0]));
        break;
    case NVS_PRIM_REDUCESCATTER:
        if (in) /* MPI's in-place result lands at the start of the buffer: op->send is the whole buffer */
            MPI_TRY(MPI_Ireduce_scatter_block(MPI_IN_PLACE, op->send, rc, dt, mo, c->comm, &req[0]));
        else
            MPI_TRY(MPI_Ireduce_scatter_block(op->send, op->recv, rc, dt, mo, c->comm, &req[0]));
        break;
    case NVS_PRIM_ALLTOALL:
        MPI_TRY(MPI_Ialltoall(op->send, sc / c->size, dt, op->recv, rc / c->size, dt, c->comm, &req[0]));
        break;
    case NVS_PRIM_SENDRECV:
        MPI_TRY(MPI_Irecv(op->recv, rc, dt, nvs_ring_prev(c->rank, c->size), 7, c->comm, &req[0]));
        *posted = 1;
        MPI_TRY(MPI_Isend(op->send, sc, dt, nvs_ring_next(c->rank, c->size), 7, c->comm, &req[1]));
        *posted = 2;
        return NVS_OK;
    }
    *posted = 1;
    return NVS_OK;
}

static nvs_result_t mlaunch(nvs_backend *b, nvs_comm *c, const nvs_op *op)
{
    struct mpi_impl *im = impl_of(b);
    const nvs_coll_counts *k = &op->counts;
    size_t ts = nvs_dtype_size(op->type);
    int in = op->inplace;
    if (im->abandoned != NVS_OK) { /* the peers would pair this operation with the one given up on */
        nvs_debug("%s not started: an earlier operation was given up on (%s)", op->coll->name,
                  nvs_result_text(im->abandoned));
        return im->abandoned;
    }
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int nreq = 0;
    nvs_result_t r = post(im, c, op, req, &nreq);
    if (r == NVS_OK) r = complete(b, req, nreq, op);
    if (r != NVS_OK) {
        if (nreq > 0) im->abandoned = r; /* still active: its buffers are MPI's from now on (left_to_mpi) */
        return r;
    }
    if (in && op->coll->prim == NVS_PRIM_REDUCESCATTER && op->recv != op->send)
        memmove(op->recv, op->send, k->recv_count * ts); /* to where NCCL's in-place puts it: block `rank` */
    if (op->op == NVS_AVG && (op->coll->flags & NVS_COLL_HAS_OP) &&
        (op->coll->prim != NVS_PRIM_REDUCE || c->rank == op->root))
        divide_results(op->type, op->recv, k->recv_count, c->size);
    return NVS_OK;
}

static nvs_result_t mwait(nvs_backend *b, nvs_comm *c, const nvs_op *op)
{
    (void)b;
    (void)c;
    (void)op;
    return NVS_OK; /* launch already completed the operation */
}

static void mfinalize(nvs_backend *b)
{
    struct mpi_impl *im = impl_of(b);
    if (!im) return;
    for (int i = 0; i < NVS_OP_COUNT; i++) {
        if (im->half_ops[i] != MPI_OP_NULL) MPI_CLEANUP(MPI_Op_free(&im->half_ops[i]));
        if (im->bf16_ops[i] != MPI_OP_NULL) MPI_CLEANUP(MPI_Op_free(&im->bf16_ops[i]));
    }
    if (im->world != MPI_COMM_NULL) MPI_CLEANUP(MPI_Comm_free(&im->world));
    free(im);
    b->impl = NULL;
}

static const struct nvs_backend_ops mpi_ops = {
    .name = "mpi", .comm_split = msplit, .comm_free = mfree_comm, .comm_rank = mcrank, .comm_size = mcsize,
    .alloc = malloc_buf, .free = mfree_buf, .fill = mfill, .poison = mpoison, .verify = mverify, .launch = mlaunch,
    .wait = mwait, .finalize = mfinalize, /* no CUDA graphs (-G refused), no groups (-m runs operations in turn) */
};

nvs_result_t nvs_backend_mpi_init(nvs_backend *b, nvs_rt *rt, const nvs_config *cfg)
{
    memset(b, 0, sizeof *b);
    b->ops = &mpi_ops;
    b->rt = rt;
    b->cfg = cfg;
    snprintf(b->device_name, sizeof b->device_name, "host memory (MPI)");
    MPI_Comm *world = nvs_rt_mpi_comm(rt);
    if (!world) {
        nvs_error("the MPI host backend needs the MPI runtime (internal: started under the threads runtime)");
        return NVS_ERR_UNSUPPORTED;
    }
    struct mpi_impl *im = calloc(1, sizeof *im);
    if (!im) return NVS_ERR_NOMEM;
    b->impl = im;
    for (int i = 0; i < NVS_OP_COUNT; i++) im->half_ops[i] = im->bf16_ops[i] = MPI_OP_NULL;
    im->world = MPI_COMM_NULL;
    MPI_TRY(MPI_Comm_dup(*world, &im->world));
    MPI_TRY(MPI_Comm_set_errhandler(im->world, MPI_ERRORS_RETURN));
    /* avg: the sum, then divide_results */
    MPI_User_function *hf[NVS_OP_COUNT] = {half_NVS_SUM, half_NVS_MAX, half_NVS_MIN, half_NVS_PROD, half_NVS_SUM};
    MPI_User_function *bf[NVS_OP_COUNT] = {bf16_NVS_SUM, bf16_NVS_MAX, bf16_NVS_MIN, bf16_NVS_PROD, bf16_NVS_SUM};
    for (int i = 0; i < NVS_OP_COUNT; i++) {
        MPI_TRY(MPI_Op_create(hf[i], 1, &im->half_ops[i]));
        MPI_TRY(MPI_Op_create(bf[i], 1, &im->bf16_ops[i]));
    }
    return NVS_OK;
}
