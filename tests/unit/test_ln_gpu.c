/* LayerNorm in nvscale's own kernels (train/ln_kernels.h) against the textbook formulas computed here in double,
 * for float, bf16 and fp16 inputs: the forward (y, and the rows' mean and rstd), the input gradient and the
 * gamma/beta gradients, on a 1024-wide transformer's 4096 x 1024 (the vectorized kernels and the (32, 32) x 256
 * gamma/beta tile), odd widths (37 x 1000, 5 x 7, 300 x 1030: not vectorized, or tiles and columns that run past
 * the matrix), each gamma/beta tile size, pointers off their alignment (the non-vectorized kernels), and the M >> N
 * path (partial sums then their column sums, twice in a row: the semaphores left at zero). Every output is filled
 * with 0x7f bytes first (3.4e38, or NaN in fp16: an output added to rather than written shows) and surrounded by
 * guard bytes that must stay untouched. The backward runs on mean and rstd computed here, so that each kernel is
 * checked on its own. Skipped without a GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/kernels.h"
#include "core/half.h"
#include "train/ln_kernels.h"
#include "train/ln_plan.h"
#include "train/reduce_kernels.h"
#include "t.h"

#define GUARD 256      /* bytes checked on either side of every buffer */
#define FILL_GUARD 0xa5
#define FILL_OUT 0x7f

static nvs_sm_shape sms;

static void need_gpu(void)
{
    int n = 0, dev = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) T_SKIP("no GPU on this machine");
    T_EQ_I(cudaGetDevice(&dev), cudaSuccess);
    T_EQ_I(nvs_sm_shape_of(dev, &sms), cudaSuccess);
}

static size_t esize(int elem) { return elem == NVS_ELEM_F32 ? 4 : 2; }

static const char *ename(int elem) { return elem == NVS_ELEM_F32 ? "fp32" : elem == NVS_ELEM_BF16 ? "bf16" : "fp16"; }

/* the largest relative rounding error of a value stored in `elem` (round to nearest: half an ulp) */
static double rel_round(int elem) { return elem == NVS_ELEM_F32 ? 0.0 : elem == NVS_ELEM_BF16 ? 1.0 / 256 : 1.0 / 2048; }

static void encode(const float *v, size_t n, int elem, void *out)
{
    for (size_t i = 0; i < n; i++) {
        if (elem == NVS_ELEM_F32) ((float *)out)[i] = v[i];
        else ((uint16_t *)out)[i] = elem == NVS_ELEM_BF16 ? nvs_f32_to_bf16(v[i]) : nvs_f32_to_f16(v[i]);
    }
}

static void decode(const void *in, size_t n, int elem, float *v)
{
    for (size_t i = 0; i < n; i++) {
        if (elem == NVS_ELEM_F32) v[i] = ((const float *)in)[i];
        else {
            uint16_t h = ((const uint16_t *)in)[i];
            v[i] = elem == NVS_ELEM_BF16 ? nvs_bf16_to_f32(h) : nvs_f16_to_f32(h);
        }
    }
}

/* v as `elem` stores it */
static float quant(float v, int elem)
{
    float q;
    unsigned char b[4];
    encode(&v, 1, elem, b);
    decode(b, 1, elem, &q);
    return q;
}

/* deterministic, uniform in [-1, 1) */
static uint32_t rng = 12345;
static float uni(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / 8388608.0f - 1.0f;
}

/* A device buffer: `bytes` of data `off` bytes past GUARD bytes of FILL_GUARD, GUARD more after; the data FILL_OUT
 * (an output's state before the launch) or, with `host`, its `bytes` */
struct gbuf {
    unsigned char *base;
    size_t off, bytes;
};

static void *gb_alloc(struct gbuf *b, size_t bytes, size_t off, const void *host)
{
    b->off = off;
    b->bytes = bytes;
    T_EQ_I(cudaMalloc((void **)&b->base, GUARD + off + bytes + GUARD), cudaSuccess);
    T_EQ_I(cudaMemset(b->base, FILL_GUARD, GUARD + off + bytes + GUARD), cudaSuccess);
    if (host) T_EQ_I(cudaMemcpy(b->base + GUARD + off, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    else T_EQ_I(cudaMemset(b->base + GUARD + off, FILL_OUT, bytes), cudaSuccess);
    return b->base + GUARD + off;
}

/* the data back into `host`, and every byte around it still FILL_GUARD */
static void gb_read(const struct gbuf *b, void *host, const char *what)
{
    const size_t lo = GUARD + b->off, hi = lo + b->bytes, total = hi + GUARD;
    unsigned char *h = malloc(total);
    T_ASSERT(h);
    T_EQ_I(cudaMemcpy(h, b->base, total, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < total; i++)
        if ((i < lo || i >= hi) && h[i] != FILL_GUARD) {
            long long at = i < lo ? -(long long)(lo - i) : (long long)(i - hi);
            free(h);
            T_FAIL("%s: a byte outside it written (%s %lld)", what, at < 0 ? "before the start by" : "past the end by",
                   at < 0 ? -at : at + 1);
        }
    memcpy(host, h + lo, b->bytes);
    free(h);
}

/* counts values off their reference by more than tol(i); says the first */
struct diff {
    size_t bad, first;
    double got, want;
};

static void diff_add(struct diff *d, size_t i, double got, double want, double tol)
{
    if (fabs(got - want) <= tol) return; /* NaN fails too */
    if (!d->bad++) d->first = i, d->got = got, d->want = want;
}

#define DIFF_OK(d, what, shape)                                                                             \
    do {                                                                                                    \
        if ((d).bad)                                                                                        \
            T_FAIL("%s %s: %zu wrong, the first [%zu] %.7g, expected %.7g", shape, what, (d).bad, (d).first, \
                   (d).got, (d).want);                                                                      \
    } while (0)

/* One shape and type: forward, input gradient, gamma/beta gradients. xoff: x, y, dy and dx that many elements off
 * their alignment; goff: gamma and beta that many floats off theirs. */
static void ln_case(long long rows, int cols, int elem, int xoff, int goff)
{
    const size_t n = (size_t)rows * (size_t)cols, es = esize(elem), R = (size_t)rows, C = (size_t)cols;
    const double rr = rel_round(elem);
    char shape[96];
    snprintf(shape, sizeof shape, "%lldx%d %s (x +%d, gamma +%d)", rows, cols, ename(elem), xoff, goff);
    float *hx = malloc(n * 4), *hdy = malloc(n * 4), *got = malloc(n * 4), *hg = malloc(C * 4), *hb = malloc(C * 4);
    float *fm = malloc(R * 4), *fr = malloc(R * 4), *gm = malloc(R * 4), *gr = malloc(R * 4);
    float *gdg = malloc(C * 4), *gdb = malloc(C * 4);
    double *wdg = calloc(C, 8), *wdb = calloc(C, 8), *adg = calloc(C, 8), *adb = calloc(C, 8);
    unsigned char *enc = malloc(n * es);
    T_ASSERT(hx && hdy && got && hg && hb && fm && fr && gm && gr && gdg && gdb && wdg && wdb && adg && adb && enc);
    /* rows of different offsets and spreads, the values as `elem` holds them */
    for (size_t r = 0; r < R; r++) {
        const float o = 3.0f * uni(), s = 1.5f + uni();
        for (size_t c = 0; c < C; c++) {
            hx[r * C + c] = quant(o + s * uni(), elem);
            hdy[r * C + c] = quant(uni(), elem);
        }
    }
    for (size_t c = 0; c < C; c++) hg[c] = 1.0f + 0.5f * uni(), hb[c] = 0.5f * uni();

    struct gbuf bx, by, bdy, bdx, bg, bb, bm, br, bmi, bri, bdg, bdb;
    encode(hx, n, elem, enc);
    void *x = gb_alloc(&bx, n * es, (size_t)xoff * es, enc), *y = gb_alloc(&by, n * es, (size_t)xoff * es, NULL);
    encode(hdy, n, elem, enc);
    void *dy = gb_alloc(&bdy, n * es, (size_t)xoff * es, enc), *dx = gb_alloc(&bdx, n * es, (size_t)xoff * es, NULL);
    float *g = gb_alloc(&bg, C * 4, (size_t)goff * 4, hg), *b = gb_alloc(&bb, C * 4, (size_t)goff * 4, hb);
    float *mean = gb_alloc(&bm, R * 4, 0, NULL), *rstd = gb_alloc(&br, R * 4, 0, NULL);

    /* forward */
    T_EQ_I(nvs_kern_ln_fwd(x, y, elem, rows, cols, g, b, mean, rstd, (float)NVS_LN_EPS, 0), cudaSuccess);
    T_EQ_I(cudaDeviceSynchronize(), cudaSuccess);
    gb_read(&by, enc, "y");
    decode(enc, n, elem, got);
    gb_read(&bm, gm, "mean");
    gb_read(&br, gr, "rstd");
    struct diff dm = {0}, ds = {0}, dyv = {0};
    for (size_t r = 0; r < R; r++) {
        double s = 0, q = 0, a = 0;
        for (size_t c = 0; c < C; c++) s += hx[r * C + c], a += fabs(hx[r * C + c]);
        const double mu = s / C;
        for (size_t c = 0; c < C; c++) q += (hx[r * C + c] - mu) * (hx[r * C + c] - mu);
        const double rs = 1 / sqrt(q / C + NVS_LN_EPS);
        diff_add(&dm, r, gm[r], mu, 1e-5 * (1 + a / C));
        diff_add(&ds, r, gr[r], rs, 1e-4 * rs);
        fm[r] = (float)mu, fr[r] = (float)rs;
        for (size_t c = 0; c < C; c++) {
            const double want = (hx[r * C + c] - mu) * rs * hg[c] + hb[c];
            diff_add(&dyv, r * C + c, got[r * C + c], want, 1e-4 * (1 + fabs(want)) + rr * fabs(want));
        }
    }
    DIFF_OK(dm, "mean", shape);
    DIFF_OK(ds, "rstd", shape);
    DIFF_OK(dyv, "y", shape);

    /* input gradient, from this side's mean and rstd */
    float *mi = gb_alloc(&bmi, R * 4, 0, fm), *ri = gb_alloc(&bri, R * 4, 0, fr);
    T_EQ_I(nvs_kern_ln_bwd_input(dy, x, dx, elem, rows, cols, g, mi, ri, 0), cudaSuccess);
    T_EQ_I(cudaDeviceSynchronize(), cudaSuccess);
    gb_read(&bdx, enc, "dx");
    decode(enc, n, elem, got);
    struct diff dd = {0};
    for (size_t r = 0; r < R; r++) {
        double s1 = 0, s2 = 0;
        for (size_t c = 0; c < C; c++) {
            const double gd = (double)hg[c] * hdy[r * C + c], xh = ((double)hx[r * C + c] - fm[r]) * fr[r];
            s1 += gd, s2 += gd * xh;
            wdg[c] += hdy[r * C + c] * xh, adg[c] += fabs(hdy[r * C + c] * xh);
            wdb[c] += hdy[r * C + c], adb[c] += fabs(hdy[r * C + c]);
        }
        for (size_t c = 0; c < C; c++) {
            const double gd = (double)hg[c] * hdy[r * C + c], xh = ((double)hx[r * C + c] - fm[r]) * fr[r];
            const double want = fr[r] / C * (C * gd - s1 - xh * s2);
            diff_add(&dd, r * C + c, got[r * C + c], want, 1e-4 * (1 + fabs(want)) + rr * fabs(want));
        }
    }
    DIFF_OK(dd, "dx", shape);

    /* gamma and beta gradients, twice: written, not added to; the M >> N path's semaphores left at zero */
    struct nvs_ln_plan p;
    T_EQ_I(nvs_ln_make_plan(rows, cols, (int)es, sms, &p), 0);
    float *scratch = NULL;
    unsigned *sems = NULL;
    if (p.scratch_floats) T_EQ_I(cudaMalloc((void **)&scratch, p.scratch_floats * 4), cudaSuccess);
    if (p.sems) {
        T_EQ_I(cudaMalloc((void **)&sems, (size_t)p.sems * sizeof *sems), cudaSuccess);
        T_EQ_I(cudaMemset(sems, 0, (size_t)p.sems * sizeof *sems), cudaSuccess);
    }
    float *dg = gb_alloc(&bdg, C * 4, 0, NULL), *db = gb_alloc(&bdb, C * 4, 0, NULL);
    for (int rep = 0; rep < 2; rep++) {
        T_EQ_I(nvs_kern_ln_bwd_params(dy, x, elem, rows, cols, mi, ri, dg, db, scratch, p.scratch_floats, sems, p.sems,
                                      sms, 0),
               cudaSuccess);
        T_EQ_I(cudaDeviceSynchronize(), cudaSuccess);
        gb_read(&bdg, gdg, "dgamma");
        gb_read(&bdb, gdb, "dbeta");
        struct diff dgv = {0}, dbv = {0};
        for (size_t c = 0; c < C; c++) {
            diff_add(&dgv, c, gdg[c], wdg[c], 1e-4 * adg[c] + 1e-5);
            diff_add(&dbv, c, gdb[c], wdb[c], 1e-4 * adb[c] + 1e-5);
        }
        DIFF_OK(dgv, "dgamma", shape);
        DIFF_OK(dbv, "dbeta", shape);
    }
    if (p.sems) {
        unsigned *hs = malloc((size_t)p.sems * sizeof *hs);
        T_ASSERT(hs);
        T_EQ_I(cudaMemcpy(hs, sems, (size_t)p.sems * sizeof *hs, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int i = 0; i < p.sems; i++) T_EQ_U(hs[i], 0);
        free(hs);
    }
    struct gbuf *all[] = {&bx, &by, &bdy, &bdx, &bg, &bb, &bm, &br, &bmi, &bri, &bdg, &bdb};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) T_EQ_I(cudaFree(all[i]->base), cudaSuccess);
    T_EQ_I(cudaFree(scratch), cudaSuccess);
    T_EQ_I(cudaFree(sems), cudaSuccess);
    free(hx), free(hdy), free(got), free(hg), free(hb), free(fm), free(fr), free(gm), free(gr), free(gdg), free(gdb);
    free(wdg), free(wdb), free(adg), free(adb), free(enc);
}

/* a 1024-wide transformer's LayerNorm: every kernel vectorized, the gamma/beta tile (32, 32) x 256, aligned */
static void t_ln_transformer(void)
{
    need_gpu();
    for (int el = NVS_ELEM_F32; el <= NVS_ELEM_F16; el++) ln_case(4096, 1024, el, 0, 0);
}

/* widths and heights off the tiles: not vectorized (cols % 4), tiles and column blocks running past the matrix,
 * each gamma/beta tile (8, 64, 128 and 256 rows), one element */
static void t_ln_odd_shapes(void)
{
    need_gpu();
    static const struct { long long rows; int cols; } shapes[] = {
        {37, 1000}, {5, 7}, {300, 1030}, {100, 64}, {200, 96}, {256, 36}, {1, 1}, {3, 8}, {64, 4096},
    };
    for (int el = NVS_ELEM_F32; el <= NVS_ELEM_F16; el++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) ln_case(shapes[i].rows, shapes[i].cols, el, 0, 0);
}

/* pointers off their alignment: the non-vectorized kernels, as PyTorch falls back to them */
static void t_ln_unaligned(void)
{
    need_gpu();
    for (int el = NVS_ELEM_F32; el <= NVS_ELEM_F16; el++) {
        ln_case(4096, 1024, el, 1, 0); /* x, y, dy, dx one element off */
        ln_case(257, 1024, el, 0, 1);  /* gamma and beta one float off */
        ln_case(300, 1028, el, 3, 2);
    }
}

/* M >> N (above 64 Ki rows, fewer than SMs / 2 column blocks): partial sums then their column sums */
static void t_ln_partial(void)
{
    need_gpu();
    struct nvs_ln_plan p;
    T_EQ_I(nvs_ln_make_plan(70000, 64, 2, sms, &p), 0);
    if (p.gb_kind != NVS_LN_GB_PARTIAL) T_SKIP("too few SMs for PyTorch's M >> N path at 64 columns");
    ln_case(70000, 64, NVS_ELEM_BF16, 0, 0);
    ln_case(70000, 64, NVS_ELEM_F32, 0, 0);
    ln_case(66001, 40, NVS_ELEM_F16, 0, 0); /* and unaligned */
}

static void t_ln_errors(void)
{
    need_gpu();
    float *d;
    T_EQ_I(cudaMalloc((void **)&d, 1 << 20), cudaSuccess);
    T_EQ_I(nvs_kern_ln_fwd(d, d, 7, 4, 4, d, d, d, d, 1e-5f, 0), cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_ln_fwd(d, d, NVS_ELEM_F32, 0, 4, d, d, d, d, 1e-5f, 0), cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_ln_fwd(d, d, NVS_ELEM_F32, 4, 0, d, d, d, d, 1e-5f, 0), cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_ln_fwd(d, d, NVS_ELEM_F32, 4, 4, NULL, d, d, d, 1e-5f, 0), cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_ln_bwd_input(d, d, d, NVS_ELEM_BF16, 4, 4, d, NULL, d, 0), cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_ln_bwd_params(d, d, NVS_ELEM_F16, 4, 4, d, d, d, d, NULL, 0, NULL, 0, (nvs_sm_shape){0, 0}, 0),
           cudaErrorInvalidValue); /* no SM count */
    struct nvs_ln_plan p;
    T_EQ_I(nvs_ln_make_plan(70000, 64, 4, sms, &p), 0);
    if (p.scratch_floats) /* the M >> N path without its scratch */
        T_EQ_I(nvs_kern_ln_bwd_params(d, d, NVS_ELEM_F32, 70000, 64, d, d, d, d, NULL, 0, NULL, 0, sms, 0),
               cudaErrorInvalidValue);
    T_EQ_I(cudaFree(d), cudaSuccess);
}

T_LIST = {T_CASE(t_ln_transformer), T_CASE(t_ln_odd_shapes), T_CASE(t_ln_unaligned), T_CASE(t_ln_partial),
          T_CASE(t_ln_errors)};
T_MAIN
