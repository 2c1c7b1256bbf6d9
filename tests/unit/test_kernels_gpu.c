/* The GPU kernels of the training step: a library's layout transforms (collectives/kernels.h: nvs_kern_copy):
 * every byte arrives at every access width its split picks (collectives/copy_split.h: 16, 8, 4, 2 or 1 bytes,
 * with head and tail bytes around the body), and nothing outside the copy is touched; the element-wise pass
 * (nvs_kern_axpb) on every element, vectorized or not, and nothing past its end; the foreach optimizer's pass
 * (nvs_kern_axpy) likewise, from float, bf16 and fp16; the casts between those types (nvs_kern_convert), exact on
 * small integers; the batch norm in nvscale's own
 * kernels (train/norm_kernels.h) against the textbook formulas computed here; the bias-gradient reduction
 * (train/reduce_kernels.h) against sums computed here; the copy through a permuted view (train/view_kernels.h)
 * element by element, for 2- and 4-byte elements. Skipped without a GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/kernels.h"
#include "train/norm_kernels.h"
#include "train/reduce_kernels.h"
#include "train/view_kernels.h"
#include "workload/optimizer.h"
#include "t.h"

#define N_BYTES (1u << 20)

static unsigned char *dev_src, *dev_dst;
static unsigned char host_src[N_BYTES], host_dst[N_BYTES];

static void need_gpu(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) T_SKIP("no GPU on this machine");
    if (!dev_src) {
        T_EQ_I(cudaMalloc((void **)&dev_src, N_BYTES), cudaSuccess);
        T_EQ_I(cudaMalloc((void **)&dev_dst, N_BYTES), cudaSuccess);
        for (size_t i = 0; i < N_BYTES; i++) host_src[i] = (unsigned char)(i * 131u + 7u);
        T_EQ_I(cudaMemcpy(dev_src, host_src, N_BYTES, cudaMemcpyHostToDevice), cudaSuccess);
    }
}

/* copy `bytes` from src+so to dst+do over a dst filled with 0xa5, then check the copy and the bytes around it */
static void check_copy(size_t so, size_t dof, size_t bytes)
{
    T_EQ_I(cudaMemset(dev_dst, 0xa5, N_BYTES), cudaSuccess);
    T_EQ_I(nvs_kern_copy(dev_dst + dof, dev_src + so, bytes, 0), cudaSuccess);
    T_EQ_I(cudaDeviceSynchronize(), cudaSuccess);
    T_EQ_I(cudaMemcpy(host_dst, dev_dst, N_BYTES, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < N_BYTES; i++) {
        int inside = i >= dof && i < dof + bytes;
        unsigned want = inside ? host_src[so + (i - dof)] : 0xa5u;
        if (host_dst[i] != want)
            T_FAIL("copy of %zu bytes (src +%zu, dst +%zu): byte %zu is 0x%02x, expected 0x%02x", bytes, so, dof, i,
                   host_dst[i], want);
    }
}

static void t_copy_aligned(void)
{
    need_gpu();
    check_copy(0, 0, N_BYTES);
    check_copy(4096, 256, 65536);
}

static void t_copy_unaligned(void)
{
    need_gpu();
    check_copy(1, 0, 1000);     /* source off 16 bytes */
    check_copy(0, 3, 4096);     /* destination off */
    check_copy(16, 32, 4097);   /* size not a multiple of 16 */
    check_copy(8, 0, 100003);   /* 8-byte words, a tail */
    check_copy(4, 0, 50001);    /* 4-byte words */
    check_copy(2, 0, 3001);     /* 2-byte words: a bf16 piece at an odd element offset */
    check_copy(6, 6, 4099);     /* same phase, off the boundary: head bytes, 16-byte words, tail bytes */
    check_copy(5, 5, 10);       /* shorter than the head: no body at all */
    check_copy(3, 0, 7);        /* tiny, byte by byte */
    T_EQ_I(nvs_kern_copy(dev_dst, dev_src, 0, 0), cudaSuccess); /* nothing to copy */
}

/* y = 0.5 y + 1 over `count` floats at float offset `off` (16-byte aligned or not), the float after untouched */
static void check_axpb(size_t off, size_t count)
{
    float *d = (float *)dev_dst, *h = (float *)host_dst;
    for (size_t i = 0; i < off + count + 1; i++) h[i] = (float)(i % 97);
    T_EQ_I(cudaMemcpy(d, h, (off + count + 1) * 4, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(nvs_kern_axpb(d + off, count, NVS_ELEM_F32, 0.5f, 1.0f, 0), cudaSuccess);
    T_EQ_I(cudaMemcpy(h, d, (off + count + 1) * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    size_t bad = 0;
    for (size_t i = 0; i < off + count + 1; i++) {
        float want = (float)(i % 97);
        if (i >= off && i < off + count) want = want * 0.5f + 1.0f;
        bad += h[i] != want;
    }
    T_EQ_U(bad, 0);
}

static void t_axpb(void)
{
    need_gpu();
    check_axpb(0, 4096);  /* 16-byte vectors only */
    check_axpb(0, 4099);  /* and a tail of 3 */
    check_axpb(4, 1001);  /* aligned start, tail of 1 */
    check_axpb(1, 1000);  /* not 16-byte aligned: one element per thread */
    check_axpb(0, 3);     /* all tail */
    /* half precision: 8 per vector; 0.5 x + 1 of a small integer is exact in fp16 and bf16 */
    for (int el = NVS_ELEM_BF16; el <= NVS_ELEM_F16; el++) {
        unsigned short *h = (unsigned short *)host_dst;
        const size_t n = 1003;
        /* 2.0 in each encoding: bf16 0x4000, fp16 0x4000; 0.5 * 2 + 1 = 2 again */
        for (size_t i = 0; i < n + 1; i++) h[i] = 0x4000;
        T_EQ_I(cudaMemcpy(dev_dst, h, (n + 1) * 2, cudaMemcpyHostToDevice), cudaSuccess);
        T_EQ_I(nvs_kern_axpb(dev_dst, n, el, 0.5f, 1.0f, 0), cudaSuccess);
        T_EQ_I(nvs_kern_axpb(dev_dst, n, el, 1.0f, 1.0f, 0), cudaSuccess); /* 3.0: bf16 0x4040, fp16 0x4200 */
        T_EQ_I(cudaMemcpy(h, dev_dst, (n + 1) * 2, cudaMemcpyDeviceToHost), cudaSuccess);
        const unsigned short three = el == NVS_ELEM_BF16 ? 0x4040 : 0x4200;
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += h[i] != three;
        T_EQ_U(bad, 0);
        T_EQ_U(h[n], 0x4000); /* past the end: untouched */
    }
}

/* y += -0.5 x over `count` floats at float offset `off` (y and x at the same offset: 16-byte vectors when it is a
 * multiple of 4), x of element type `el` holding 2.0 (bf16 and fp16 0x4000) or i % 97 (float); the float after
 * untouched */
static void check_axpy(size_t off, size_t count, int el)
{
    float *y = (float *)dev_dst, *h = (float *)host_dst;
    for (size_t i = 0; i < off + count + 1; i++) h[i] = (float)(i % 89);
    T_EQ_I(cudaMemcpy(y, h, (off + count + 1) * 4, cudaMemcpyHostToDevice), cudaSuccess);
    const size_t es = el == NVS_ELEM_F32 ? 4 : 2;
    unsigned char *hx = host_src + N_BYTES / 2; /* x in the second halves of host_src and dev_src, kept equal */
    for (size_t i = 0; i < off + count; i++) {
        if (el == NVS_ELEM_F32) ((float *)hx)[i] = (float)(i % 97);
        else ((unsigned short *)hx)[i] = 0x4000;
    }
    unsigned char *x = dev_src + N_BYTES / 2;
    T_EQ_I(cudaMemcpy(x, hx, (off + count) * es, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(nvs_kern_axpy(y + off, x + off * es, el, count, -0.5f, 0), cudaSuccess);
    T_EQ_I(cudaMemcpy(h, y, (off + count + 1) * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    size_t bad = 0;
    for (size_t i = 0; i < off + count + 1; i++) {
        float want = (float)(i % 89);
        if (i >= off && i < off + count) want += -0.5f * (el == NVS_ELEM_F32 ? (float)(i % 97) : 2.0f);
        bad += h[i] != want;
    }
    T_EQ_U(bad, 0);
}

static void t_axpy(void)
{
    need_gpu();
    check_axpy(0, 4096, NVS_ELEM_F32);  /* float4 only */
    check_axpy(0, 4099, NVS_ELEM_F32);  /* and a tail of 3 */
    check_axpy(1, 1000, NVS_ELEM_F32);  /* not 16-byte aligned: one element per thread */
    check_axpy(0, 2, NVS_ELEM_F32);     /* all tail */
    check_axpy(0, 1001, NVS_ELEM_BF16); /* bf16 gradients */
    check_axpy(3, 1001, NVS_ELEM_F16);
    T_EQ_I(nvs_kern_axpy((float *)dev_dst, dev_src, 7, 10, 1.0f, 0), cudaErrorInvalidValue);
}

/* every cast between float, bf16 and fp16 of the integers -64..63 (exact in all three), and nothing past the end */
static void t_convert(void)
{
    need_gpu();
    const size_t n = 128;
    for (int from = NVS_ELEM_F32; from <= NVS_ELEM_F16; from++)
        for (int to = NVS_ELEM_F32; to <= NVS_ELEM_F16; to++) {
            float *f = (float *)host_dst;
            for (size_t i = 0; i < n; i++) f[i] = (float)i - 64.0f;
            /* the source in its type: float, or cast on the GPU from float (checked by the round trip below) */
            T_EQ_I(cudaMemcpy(dev_dst, f, n * 4, cudaMemcpyHostToDevice), cudaSuccess);
            unsigned char *src = dev_dst + 4096, *dst = dev_dst + 8192, *back = dev_dst + 16384;
            T_EQ_I(nvs_kern_convert(dev_dst, NVS_ELEM_F32, src, from, n, 0), cudaSuccess);
            T_EQ_I(cudaMemset(dst, 0xa5, 4 * (n + 1)), cudaSuccess);
            T_EQ_I(nvs_kern_convert(src, from, dst, to, n, 0), cudaSuccess);
            T_EQ_I(nvs_kern_convert(dst, to, back, NVS_ELEM_F32, n, 0), cudaSuccess);
            T_EQ_I(cudaMemcpy(f, back, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) bad += f[i] != (float)i - 64.0f;
            if (bad) T_FAIL("cast %d -> %d: %zu of %zu values wrong", from, to, bad, n);
            unsigned char past[4];
            const size_t es = to == NVS_ELEM_F32 ? 4 : 2;
            T_EQ_I(cudaMemcpy(past, dst + n * es, es, cudaMemcpyDeviceToHost), cudaSuccess);
            for (size_t b = 0; b < es; b++) T_EQ_U(past[b], 0xa5);
        }
    T_EQ_I(nvs_kern_convert(dev_src, NVS_ELEM_F32, dev_dst, 3, 1, 0), cudaErrorInvalidValue);
}

/* The bias-gradient reduction (train/reduce_kernels.h): cols columns from column coff of a rows x ld matrix of small
 * integers summed over the rows, exact in fp32, from each input type into each output type; with the rows split
 * over G blocks and a global step (4096 x 1024: G > 1 on an H200), twice in a row (the semaphores are left at
 * zero), and in one block (G = 1); one bias's columns of a wider gradient (ld > cols, as the query's of q/k/v);
 * columns not a multiple of 4 and an unaligned start (the one-element path); rows aligned to 2 elements only, and odd
 * ld; rows not a multiple of the 16 a block loads at once (the kernel's tail loop); nothing past the output touched. */
static void outer_sum_case(long long rows, int cols, int ld, int coff, int from, int to, size_t xoff, nvs_sm_shape sms)
{
    const size_t n = (size_t)rows * (size_t)ld, es = from == NVS_ELEM_F32 ? 4 : 2, os = to == NVS_ELEM_F32 ? 4 : 2;
    float *hx = malloc(n * 4), *got = malloc((size_t)cols * 4);
    T_ASSERT(hx && got);
    for (long long r = 0; r < rows; r++)
        for (int c = 0; c < ld; c++) hx[(size_t)r * ld + c] = (float)((r * 7 + c) % 5);
    float *d32;
    unsigned char *x, *out, *back;
    T_EQ_I(cudaMalloc((void **)&d32, n * 4), cudaSuccess);
    T_EQ_I(cudaMalloc((void **)&x, n * es + 16), cudaSuccess);
    T_EQ_I(cudaMalloc((void **)&out, (size_t)cols * 4 + 16), cudaSuccess);
    T_EQ_I(cudaMalloc((void **)&back, (size_t)cols * 4), cudaSuccess);
    T_EQ_I(cudaMemcpy(d32, hx, n * 4, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(nvs_kern_convert(d32, NVS_ELEM_F32, x + xoff, from, n, 0), cudaSuccess);
    size_t st = nvs_outer_sum_staging(rows, cols, sms);
    int ns = nvs_outer_sum_sems(rows, cols, sms);
    float *staging = NULL;
    unsigned *sems = NULL;
    if (st) T_EQ_I(cudaMalloc((void **)&staging, st * 4), cudaSuccess);
    if (ns) {
        T_EQ_I(cudaMalloc((void **)&sems, (size_t)ns * sizeof(unsigned)), cudaSuccess);
        T_EQ_I(cudaMemset(sems, 0, (size_t)ns * sizeof(unsigned)), cudaSuccess);
    }
    for (int rep = 0; rep < 2; rep++) {
        T_EQ_I(cudaMemset(out, 0xa5, (size_t)cols * 4 + 16), cudaSuccess);
        T_EQ_I(nvs_kern_outer_sum(x + xoff + (size_t)coff * es, from, rows, cols, ld, out, to, staging, st, sems, ns,
                                  sms, 0),
               cudaSuccess);
        T_EQ_I(nvs_kern_convert(out, to, back, NVS_ELEM_F32, (size_t)cols, 0), cudaSuccess);
        T_EQ_I(cudaMemcpy(got, back, (size_t)cols * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        size_t bad = 0;
        for (int c = 0; c < cols; c++) {
            double want = 0;
            for (long long r = 0; r < rows; r++) want += hx[(size_t)r * ld + coff + c];
            /* a 16-bit output rounds the sum: 8 bits of mantissa */
            bad += fabs(got[c] - want) > (os == 2 ? want / 128.0 : 0);
        }
        if (bad)
            T_FAIL("outer sum %lldx%d (ld %d, from column %d) %d -> %d (G %d), launch %d: %zu of %d columns wrong", rows,
                   cols, ld, coff, from, to, nvs_outer_sum_ctas(rows, cols, sms), rep + 1, bad, cols);
        unsigned char past[16];
        T_EQ_I(cudaMemcpy(past, out + (size_t)cols * os, 16, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int b = 0; b < 16; b++) T_EQ_U(past[b], 0xa5);
    }
    if (ns) {
        unsigned *hs = malloc((size_t)ns * sizeof *hs);
        T_ASSERT(hs);
        T_EQ_I(cudaMemcpy(hs, sems, (size_t)ns * sizeof(unsigned), cudaMemcpyDeviceToHost), cudaSuccess);
        for (int i = 0; i < ns; i++) T_EQ_U(hs[i], 0);
        free(hs);
    }
    cudaFree(d32), cudaFree(x), cudaFree(out), cudaFree(back), cudaFree(staging), cudaFree(sems);
    free(hx), free(got);
}

static void t_outer_sum(void)
{
    need_gpu();
    int dev = 0;
    nvs_sm_shape sms = {0, 0};
    T_EQ_I(cudaGetDevice(&dev), cudaSuccess);
    T_EQ_I(nvs_sm_shape_of(dev, &sms), cudaSuccess);
    T_ASSERT(nvs_outer_sum_ctas(4096, 1024, sms) > 1);
    for (int from = NVS_ELEM_F32; from <= NVS_ELEM_F16; from++)
        for (int to = NVS_ELEM_F32; to <= NVS_ELEM_F16; to++) outer_sum_case(4096, 1024, 1024, 0, from, to, 0, sms);
    outer_sum_case(4096, 1024, 3072, 1024, NVS_ELEM_BF16, NVS_ELEM_BF16, 0, sms); /* the key's bias of q/k/v */
    outer_sum_case(4096, 1030, 1030, 0, NVS_ELEM_BF16, NVS_ELEM_F32, 2, sms);     /* odd columns, start off */
    /* rows aligned to 2 elements only (ld = 2 mod 4, BERT's vocabulary): a wide gradient over split rows (G = 4 on an
     * H200), its last 2 columns a part group */
    outer_sum_case(512, 30522, 30522, 0, NVS_ELEM_BF16, NVS_ELEM_BF16, 0, sms);
    outer_sum_case(512, 30522, 30522, 0, NVS_ELEM_F32, NVS_ELEM_F32, 0, sms);
    outer_sum_case(4103, 1030, 1030, 0, NVS_ELEM_F16, NVS_ELEM_F32, 4, sms); /* G 33 of 125 rows: 7 x 16 + 13 */
    outer_sum_case(4096, 1029, 1031, 2, NVS_ELEM_F32, NVS_ELEM_F32, 0, sms); /* odd ld: one element at a time */
    outer_sum_case(7, 5, 5, 0, NVS_ELEM_F32, NVS_ELEM_F32, 0, sms);               /* one block: G = 1 */
    T_EQ_I(nvs_kern_outer_sum(dev_src, NVS_ELEM_F32, 4096, 1024, 1024, dev_dst, NVS_ELEM_F32, NULL, 0, NULL, 0, sms, 0),
           cudaErrorInvalidValue); /* G > 1 needs its staging */
    T_EQ_I(nvs_kern_outer_sum(dev_src, 3, 7, 5, 5, dev_dst, NVS_ELEM_F32, NULL, 0, NULL, 0, sms, 0),
           cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_outer_sum(dev_src, NVS_ELEM_F32, 7, 5, 4, dev_dst, NVS_ELEM_F32, NULL, 0, NULL, 0, sms, 0),
           cudaErrorInvalidValue); /* ld below the columns */
}

/* Batch norm forward and backward in fp32 on n x c x hw against the formulas in double */
static void t_batchnorm(void)
{
    need_gpu();
    enum { n = 3, c = 5, hw = 37, M = n * c * hw };
    static float x[M], dy[M], y[M], dx[M], stats[4 * c], w[c], b[c], dw[c], db[c];
    for (int i = 0; i < M; i++) {
        x[i] = (float)((i * 37 % 101) - 50) / 25.0f;
        dy[i] = (float)((i * 13 % 89) - 44) / 40.0f;
    }
    for (int k = 0; k < c; k++) {
        w[k] = 0.5f + 0.25f * (float)k;
        b[k] = 0.1f * (float)k;
        stats[k] = 0.0f;     /* running mean */
        stats[c + k] = 1.0f; /* running variance */
    }
    float *d;
    T_EQ_I(cudaMalloc((void **)&d, sizeof(float) * (4 * (size_t)M + 8 * c)), cudaSuccess);
    float *dX = d, *dY = d + M, *dDY = d + 2 * M, *dDX = d + 3 * M, *dS = d + 4 * M, *dW = dS + 4 * c, *dB = dW + c,
          *dDW = dB + c, *dDB = dDW + c;
    T_EQ_I(cudaMemcpy(dX, x, sizeof x, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(cudaMemcpy(dDY, dy, sizeof dy, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(cudaMemcpy(dS, stats, sizeof stats, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(cudaMemcpy(dW, w, sizeof w, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(cudaMemcpy(dB, b, sizeof b, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(nvs_kern_bn_fwd(dX, dY, NVS_ELEM_F32, n, c, hw, dW, dB, dS, 0.1f, 1e-5f, 0), cudaSuccess);
    T_EQ_I(nvs_kern_bn_bwd(dX, dDY, dDX, NVS_ELEM_F32, n, c, hw, dW, dS, dDW, dDB, 0), cudaSuccess);
    T_EQ_I(cudaMemcpy(y, dY, sizeof y, cudaMemcpyDeviceToHost), cudaSuccess);
    T_EQ_I(cudaMemcpy(dx, dDX, sizeof dx, cudaMemcpyDeviceToHost), cudaSuccess);
    T_EQ_I(cudaMemcpy(stats, dS, sizeof stats, cudaMemcpyDeviceToHost), cudaSuccess);
    T_EQ_I(cudaMemcpy(dw, dDW, sizeof dw, cudaMemcpyDeviceToHost), cudaSuccess);
    T_EQ_I(cudaMemcpy(db, dDB, sizeof db, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(d);
    double worst = 0;
    for (int k = 0; k < c; k++) {
        double s = 0, q = 0, g = 0, gx = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < hw; j++) s += x[(i * c + k) * hw + j];
        const double m = (double)n * hw, mean = s / m;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < hw; j++) {
                const int e = (i * c + k) * hw + j;
                q += (x[e] - mean) * (x[e] - mean);
                g += dy[e];
                gx += dy[e] * (x[e] - mean);
            }
        const double var = q / m, inv = 1 / sqrt(var + 1e-5);
        T_NEAR(stats[2 * c + k], mean, 1e-5);
        T_NEAR(stats[3 * c + k], inv, 1e-4 * inv);
        T_NEAR(stats[k], 0.1 * mean, 1e-5);                       /* running mean from 0 */
        T_NEAR(stats[c + k], 0.9 + 0.1 * q / (m - 1), 1e-4);       /* running variance (unbiased) from 1 */
        T_NEAR(db[k], g, 1e-4 * (1 + fabs(g)));
        T_NEAR(dw[k], gx * inv, 1e-4 * (1 + fabs(gx * inv)));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < hw; j++) {
                const int e = (i * c + k) * hw + j;
                const double xh = (x[e] - mean) * inv, want_y = xh * w[k] + b[k];
                const double want_dx = w[k] * inv * (dy[e] - g / m - xh * gx * inv / m);
                worst = fmax(worst, fabs(y[e] - want_y) + fabs(dx[e] - want_dx));
            }
    }
    T_ASSERT(worst < 1e-4);
    T_EQ_I(nvs_kern_bn_fwd(dev_dst, dev_dst, 7, 1, 1, 1, w, b, stats, 0.1f, 1e-5f, 0), cudaErrorInvalidValue);
}

/* dst[o][j][i][r] = src[o][i][j][r] for 2- and 4-byte elements, and nothing past the copy's end written */
static void check_view(int elem, long long o, long long a, long long b, long long r)
{
    const size_t es = elem == NVS_ELEM_F32 ? 4 : 2, n = (size_t)(o * a * b * r), guard = 4096;
    unsigned char *src = NULL, *dst = NULL;
    unsigned char *h_src = malloc(n * es), *h_dst = malloc(n * es + guard);
    T_ASSERT(h_src && h_dst);
    for (size_t k = 0; k < n * es; k++) h_src[k] = (unsigned char)(k * 2654435761u >> 13);
    T_EQ_I(cudaMalloc((void **)&src, n * es), cudaSuccess);
    T_EQ_I(cudaMalloc((void **)&dst, n * es + guard), cudaSuccess);
    T_EQ_I(cudaMemcpy(src, h_src, n * es, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(cudaMemset(dst, 0xa5, n * es + guard), cudaSuccess);
    T_EQ_I(nvs_kern_view_copy(src, dst, elem, o, a, b, r, 0), cudaSuccess);
    T_EQ_I(cudaDeviceSynchronize(), cudaSuccess);
    T_EQ_I(cudaMemcpy(h_dst, dst, n * es + guard, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t idx = 0; idx < n; idx++) {
        size_t rr = idx % (size_t)r, t = idx / (size_t)r, i = t % (size_t)a, j = t / (size_t)a % (size_t)b,
               oo = t / (size_t)a / (size_t)b;
        size_t s = ((oo * (size_t)a + i) * (size_t)b + j) * (size_t)r + rr;
        if (memcmp(h_dst + idx * es, h_src + s * es, es))
            T_FAIL("view copy %lldx%lldx%lldx%lld (%zu-byte): element %zu is not source element %zu", o, a, b, r, es, idx,
                   s);
    }
    for (size_t k = n * es; k < n * es + guard; k++)
        if (h_dst[k] != 0xa5) T_FAIL("view copy wrote byte %zu past its end", k - n * es);
    T_EQ_I(cudaFree(src), cudaSuccess);
    T_EQ_I(cudaFree(dst), cudaSuccess);
    free(h_src);
    free(h_dst);
}

static void t_view_copy(void)
{
    need_gpu();
    const int elems[] = {NVS_ELEM_BF16, NVS_ELEM_F32, NVS_ELEM_F16};
    for (int e = 0; e < 3; e++) {
        check_view(elems[e], 1, 8, 512, 3072); /* lm290m's head split at batch 8 */
        check_view(elems[e], 1, 512, 8, 1024); /* and a gradient's copy back */
        check_view(elems[e], 2, 3, 5, 7);
        check_view(elems[e], 1, 3, 1000, 37);
        check_view(elems[e], 1, 1, 1, 1);
    }
    /* refused: a bad type, an empty dimension */
    T_EQ_I(nvs_kern_view_copy(dev_src, dev_dst, 7, 1, 2, 2, 2, 0), cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_view_copy(dev_src, dev_dst, NVS_ELEM_BF16, 1, 0, 2, 2, 0), cudaErrorInvalidValue);
}

/* AdamW's fused kernel against the host's formula (workload/optimizer.h nvs_adamw_elem), three steps running, from
 * float and bf16 gradients (bf16: the host takes the gradient as the kernel reads it, exactly representable) */
static void t_adamw(void)
{
    need_gpu();
    enum { n = 1001 };
    static float w[n], m[n], v[n], g[n], hw[n], hm[n], hv[n];
    static unsigned short gb[n];
    nvs_adamw_hyper h = nvs_adamw_defaults();
    h.lr = 1e-2f;
    for (int bf = 0; bf < 2; bf++) {
        for (int i = 0; i < n; i++) {
            hw[i] = w[i] = 0.5f - (float)i / n;
            hm[i] = m[i] = hv[i] = v[i] = 0;
            g[i] = ((float)(i % 17) - 8) / 8; /* multiples of 1/8: exact in bf16 */
            union { float f; unsigned u; } c = {g[i]};
            gb[i] = (unsigned short)(c.u >> 16);
        }
        float *dw, *dm, *dv;
        void *dg;
        T_EQ_I(cudaMalloc((void **)&dw, n * 4), cudaSuccess);
        T_EQ_I(cudaMalloc((void **)&dm, n * 4), cudaSuccess);
        T_EQ_I(cudaMalloc((void **)&dv, n * 4), cudaSuccess);
        T_EQ_I(cudaMalloc(&dg, n * 4), cudaSuccess);
        T_EQ_I(cudaMemcpy(dw, w, n * 4, cudaMemcpyHostToDevice), cudaSuccess);
        T_EQ_I(cudaMemset(dm, 0, n * 4), cudaSuccess);
        T_EQ_I(cudaMemset(dv, 0, n * 4), cudaSuccess);
        T_EQ_I(cudaMemcpy(dg, bf ? (void *)gb : (void *)g, n * (bf ? 2 : 4), cudaMemcpyHostToDevice), cudaSuccess);
        for (long long t = 1; t <= 3; t++) {
            T_EQ_I(nvs_kern_adamw(dw, dm, dv, dg, bf ? NVS_ELEM_BF16 : NVS_ELEM_F32, n, 0.5f, h.lr, h.beta1, h.beta2,
                                  h.eps, h.weight_decay, t, 0),
                   cudaSuccess);
            for (int i = 0; i < n; i++) nvs_adamw_elem(&hw[i], &hm[i], &hv[i], g[i] * 0.5f, t, &h);
        }
        T_EQ_I(cudaMemcpy(w, dw, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        T_EQ_I(cudaMemcpy(m, dm, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        T_EQ_I(cudaMemcpy(v, dv, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int i = 0; i < n; i++) {
            T_NEAR(w[i], hw[i], 1e-6 + 1e-5 * fabs(hw[i]));
            T_NEAR(m[i], hm[i], 1e-6 + 1e-5 * fabs(hm[i]));
            T_NEAR(v[i], hv[i], 1e-9 + 1e-5 * fabs(hv[i]));
        }
        cudaFree(dw), cudaFree(dm), cudaFree(dv), cudaFree(dg);
    }
    /* step 0 and an unknown gradient type are refused */
    T_EQ_I(nvs_kern_adamw(NULL, NULL, NULL, NULL, NVS_ELEM_F32, 1, 1, 1, 0.9f, 0.999f, 1e-8f, 0, 0, 0),
           cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_adamw(NULL, NULL, NULL, NULL, 7, 1, 1, 1, 0.9f, 0.999f, 1e-8f, 0, 1, 0), cudaErrorInvalidValue);
}

/* fp16 bits of x, for an x exact in fp16 (at most 11 significant bits) and normal there, or 0: sign, exponent
 * biased by 15, 10-bit mantissa (IEEE 754 binary16) */
static unsigned short half_bits(float x)
{
    if (x == 0) return 0;
    int e;
    float f = frexpf(fabsf(x), &e); /* |x| = f 2^e, f in [0.5, 1): 1.m 2^(e - 1) */
    return (unsigned short)((x < 0 ? 0x8000 : 0) | (unsigned)(e - 1 + 15) << 10 | (unsigned)((2 * f - 1) * 1024));
}

/* AdamW's foreach passes (nvs_kern_adamw_foreach: PyTorch's default on CUDA, what the step runs under pytorch-ddp)
 * against the fused kernel and the host's formula (nvs_adamw_elem) within fp32 rounding, and against the host's own
 * foreach passes (nvs_adamw_foreach), five steps running, from float, bf16 and fp16 gradients (multiples of 1/8:
 * exact in each); the temporary holds the last step's denominator, sqrt(v) / sqrt(1 - b2^t) + eps */
static void t_adamw_foreach(void)
{
    need_gpu();
    enum { n = 1001, steps = 5 };
    static float w[n], m[n], v[n], tmp[n], fw[n], fm[n], fv[n], g[n], hw[n], hm[n], hv[n], cw[n], cm[n], cv[n], ct[n];
    static unsigned short g16[n];
    nvs_adamw_hyper h = nvs_adamw_defaults();
    h.lr = 1e-2f;
    for (int el = NVS_ELEM_F32; el <= NVS_ELEM_F16; el++) {
        for (int i = 0; i < n; i++) {
            hw[i] = cw[i] = w[i] = 0.5f - (float)i / n;
            hm[i] = hv[i] = cm[i] = cv[i] = 0;
            g[i] = ((float)(i % 17) - 8) / 8;
            union { float f; unsigned u; } c = {g[i]};
            if (el == NVS_ELEM_BF16) g16[i] = (unsigned short)(c.u >> 16);
            if (el == NVS_ELEM_F16) g16[i] = half_bits(g[i]);
        }
        float *d[7]; /* foreach w, m, v, tmp; fused w, m, v */
        void *dg;
        for (int k = 0; k < 7; k++) T_EQ_I(cudaMalloc((void **)&d[k], n * 4), cudaSuccess);
        T_EQ_I(cudaMalloc(&dg, n * 4), cudaSuccess);
        T_EQ_I(cudaMemcpy(d[0], w, n * 4, cudaMemcpyHostToDevice), cudaSuccess);
        T_EQ_I(cudaMemcpy(d[4], w, n * 4, cudaMemcpyHostToDevice), cudaSuccess);
        for (int k = 1; k < 7; k++)
            if (k != 4) T_EQ_I(cudaMemset(d[k], 0, n * 4), cudaSuccess);
        T_EQ_I(cudaMemcpy(dg, el == NVS_ELEM_F32 ? (void *)g : (void *)g16, n * (el == NVS_ELEM_F32 ? 4 : 2),
                          cudaMemcpyHostToDevice),
               cudaSuccess);
        for (long long t = 1; t <= steps; t++) {
            T_EQ_I(nvs_kern_adamw_foreach(d[0], d[1], d[2], d[3], dg, el, n, 0.5f, h.lr, h.beta1, h.beta2, h.eps,
                                          h.weight_decay, t, 0),
                   cudaSuccess);
            T_EQ_I(nvs_kern_adamw(d[4], d[5], d[6], dg, el, n, 0.5f, h.lr, h.beta1, h.beta2, h.eps, h.weight_decay, t,
                                  0),
                   cudaSuccess);
            for (int i = 0; i < n; i++) nvs_adamw_elem(&hw[i], &hm[i], &hv[i], g[i] * 0.5f, t, &h);
            nvs_adamw_foreach(cw, cm, cv, ct, g, n, 0.5f, t, &h);
        }
        T_EQ_I(cudaDeviceSynchronize(), cudaSuccess);
        float *back[7] = {w, m, v, tmp, fw, fm, fv};
        for (int k = 0; k < 7; k++) T_EQ_I(cudaMemcpy(back[k], d[k], n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        for (int i = 0; i < n; i++) {
            /* foreach against the host's formula and the fused kernel */
            T_NEAR(w[i], hw[i], 1e-6 + 1e-5 * fabs(hw[i]));
            T_NEAR(m[i], hm[i], 1e-6 + 1e-5 * fabs(hm[i]));
            T_NEAR(v[i], hv[i], 1e-9 + 1e-5 * fabs(hv[i]));
            T_NEAR(w[i], fw[i], 1e-6 + 1e-5 * fabs(fw[i]));
            T_NEAR(m[i], fm[i], 1e-6 + 1e-5 * fabs(fm[i]));
            T_NEAR(v[i], fv[i], 1e-9 + 1e-5 * fabs(fv[i]));
            /* and against the host's foreach passes, operation for operation (fma contraction aside) */
            T_NEAR(w[i], cw[i], 1e-7 + 1e-6 * fabs(cw[i]));
            T_NEAR(m[i], cm[i], 1e-7 + 1e-6 * fabs(cm[i]));
            T_NEAR(v[i], cv[i], 1e-10 + 1e-6 * fabs(cv[i]));
            T_NEAR(tmp[i], ct[i], 1e-10 + 1e-6 * fabs(ct[i]));
        }
        /* the update moved the parameters (a pass left out would leave w at its decay alone) */
        T_ASSERT(fabs(w[0] - 0.5 * pow(1 - 1e-4, steps)) > 1e-3);
        for (int k = 0; k < 7; k++) cudaFree(d[k]);
        cudaFree(dg);
    }
    /* step 0 and an unknown gradient type are refused; nothing to do is done */
    T_EQ_I(nvs_kern_adamw_foreach(NULL, NULL, NULL, NULL, NULL, NVS_ELEM_F32, 1, 1, 1, 0.9f, 0.999f, 1e-8f, 0, 0, 0),
           cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_adamw_foreach(NULL, NULL, NULL, NULL, NULL, 7, 1, 1, 1, 0.9f, 0.999f, 1e-8f, 0, 1, 0),
           cudaErrorInvalidValue);
    T_EQ_I(nvs_kern_adamw_foreach(NULL, NULL, NULL, NULL, NULL, NVS_ELEM_F32, 0, 1, 1, 0.9f, 0.999f, 1e-8f, 0, 1, 0),
           cudaSuccess);
}

T_LIST = {T_CASE(t_copy_aligned), T_CASE(t_copy_unaligned), T_CASE(t_axpb), T_CASE(t_axpy), T_CASE(t_convert),
          T_CASE(t_batchnorm), T_CASE(t_outer_sum), T_CASE(t_view_copy), T_CASE(t_adamw),
          T_CASE(t_adamw_foreach)};
T_MAIN
