/* LayerNorm's kernels timed alone: nvscale's forward, input gradient and gamma/beta gradients in PyTorch's launch
 * shapes (train/ln_kernels.h, train/ln_plan.h), each over many launches between two CUDA events, on one GPU.
 * tools/device/ln_torch.py times PyTorch's own kernels on the same shapes, for the comparison (H200, 4096 x 1024
 * fp32: 14.5, 14.2 and 22.6 us). Each kernel's output is checked against the host first (y of the first and last
 * rows, dbeta of the first and last columns).
 *
 *   make lnbench && build/lnbench [--elem fp32|bf16|fp16] [--reps N] ROWSxCOLS ...
 *
 * One line per shape and kernel: "shape elem kernel grid block us GB/s pytorch_kernel" (bytes: every input read
 * once, every output written once; PyTorch's kernels read the row twice, the second time mostly from cache). */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "collectives/kernels.h"
#include "train/ln_kernels.h"
#include "train/ln_plan.h"
#include "train/reduce_kernels.h"

#define TRY(call) BENCH_TRY("lnbench", call)

enum { WARM = 3, KERNELS = 3 };

static void usage(const char *bad)
{
    fprintf(stderr, "lnbench: %s: usage: lnbench [--elem fp32|bf16|fp16] [--reps N] ROWSxCOLS ...\n", bad);
    exit(2);
}

/* the buffers of one shape, on the device */
struct bufs {
    long long rows;
    int cols, elem;
    nvs_sm_shape sms;
    void *x, *y, *dy, *dx;
    float *g, *b, *mean, *rstd, *dg, *db, *scratch;
    unsigned *sems;
    struct nvs_ln_plan p;
};

static void launch(const struct bufs *s, int k)
{
    if (k == 0)
        TRY(nvs_kern_ln_fwd(s->x, s->y, s->elem, s->rows, s->cols, s->g, s->b, s->mean, s->rstd, (float)NVS_LN_EPS, 0));
    else if (k == 1)
        TRY(nvs_kern_ln_bwd_input(s->dy, s->x, s->dx, s->elem, s->rows, s->cols, s->g, s->mean, s->rstd, 0));
    else
        TRY(nvs_kern_ln_bwd_params(s->dy, s->x, s->elem, s->rows, s->cols, s->mean, s->rstd, s->dg, s->db,
                                   s->scratch, s->p.scratch_floats, s->sems, s->p.sems, s->sms, 0));
}

/* what PyTorch runs there (layer_norm_kernel.cu), and the launch shape printed */
static void describe(const struct bufs *s, int k, char *name, size_t nn, char *shape, size_t ns)
{
    const struct nvs_ln_plan *p = &s->p;
    const struct nvs_ln_launch *l = k == 0 ? &p->fwd_vec : k == 1 ? &p->bwd_input : &p->gb;
    /* the vector paths as the kernels choose them: cudaMalloc'd buffers are aligned, so the shape decides */
    if (k == 0 && !p->fwd_vec_cols) {
        snprintf(name, nn, "RowwiseMomentsCUDAKernel+LayerNormForwardCUDAKernel");
        l = &p->fwd_moments;
    } else if (k == 0) {
        snprintf(name, nn, "vectorized_layer_norm_kernel");
    } else if (k == 1) {
        snprintf(name, nn, "layer_norm_grad_input_kernel%s", p->bwd_vec_cols ? "_vectorized" : "");
    } else {
        snprintf(name, nn, "GammaBetaBackwardCUDAKernelTemplate<%u,%u,%d,%s,%s>%s", l->block_x, l->block_y,
                 p->gb_rows_per_block, p->gb_kind == NVS_LN_GB_TILED ? "false" : "true",
                 p->gb_aligned ? "true" : "false", p->gb_kind == NVS_LN_GB_PARTIAL ? "+2xreduce_kernel" : "");
    }
    snprintf(shape, ns, "%ux%u %ux%u", l->grid_x, l->grid_y, l->block_x, l->block_y);
}

/* y of rows 0 and rows - 1, dbeta of columns 0 and cols - 1, against the host (the input gradient and dgamma:
 * tests/unit/test_ln_gpu.c checks those kernels) */
static void check(const struct bufs *s, const float *hx, const float *hdy, const float *hg, const float *hb)
{
    const size_t C = (size_t)s->cols;
    float *y32 = malloc(2 * C * 4), *db = malloc(C * 4);
    float *dev;
    if (!y32 || !db) exit(1);
    TRY(cudaMalloc((void **)&dev, C * 4));
    const long long rows[2] = {0, s->rows - 1};
    const size_t es = s->elem == NVS_ELEM_F32 ? 4 : 2;
    for (int i = 0; i < 2; i++) {
        TRY(nvs_kern_convert((const char *)s->y + (size_t)rows[i] * C * es, s->elem, dev, NVS_ELEM_F32, C, 0));
        TRY(cudaMemcpy(y32 + i * C, dev, C * 4, cudaMemcpyDeviceToHost));
    }
    TRY(cudaMemcpy(db, s->db, C * 4, cudaMemcpyDeviceToHost));
    TRY(cudaFree(dev));
    for (int i = 0; i < 2; i++) {
        const float *xr = hx + (size_t)rows[i] * C;
        double m = 0, v = 0;
        for (size_t c = 0; c < C; c++) m += xr[c];
        m /= (double)C;
        for (size_t c = 0; c < C; c++) v += (xr[c] - m) * (xr[c] - m);
        const double r = 1 / sqrt(v / (double)C + NVS_LN_EPS);
        for (size_t c = 0; c < C; c++) {
            const double want = (xr[c] - m) * r * hg[c] + hb[c];
            if (fabs(y32[i * C + c] - want) > 0.02 * (1 + fabs(want))) {
                fprintf(stderr, "lnbench: y[%lld][%zu] is %g, expected %g\n", rows[i], c, y32[i * C + c], want);
                exit(1);
            }
        }
    }
    for (size_t c = 0; c < C; c += C > 1 ? C - 1 : 1) {
        double want = 0, mag = 0;
        for (long long r = 0; r < s->rows; r++) want += hdy[(size_t)r * C + c], mag += fabs(hdy[(size_t)r * C + c]);
        if (fabs(db[c] - want) > 1e-3 * mag + 1e-3) {
            fprintf(stderr, "lnbench: dbeta[%zu] is %g, expected %g\n", c, db[c], want);
            exit(1);
        }
    }
    free(y32);
    free(db);
}

static void bench(const char *arg, int elem, int reps, nvs_sm_shape sms, cudaEvent_t e0, cudaEvent_t e1)
{
    struct bufs s = {0};
    char tail = 0;
    if (sscanf(arg, "%lldx%d%c", &s.rows, &s.cols, &tail) != 2 || s.rows < 1 || s.cols < 1 ||
        s.rows > (1LL << 31) / s.cols)
        usage(arg);
    s.elem = elem, s.sms = sms;
    const size_t es = elem == NVS_ELEM_F32 ? 4 : 2, n = (size_t)s.rows * (size_t)s.cols, C = (size_t)s.cols;
    if (nvs_ln_make_plan(s.rows, s.cols, (int)es, sms, &s.p) != 0) usage(arg);
    /* x: rows of different offsets and spreads; dy in [-1, 1); gamma near 1, beta near 0 (the host's copies are
     * what the device holds: the values rounded to `elem`, through the device's own conversion) */
    float *hx = malloc(n * 4), *hdy = malloc(n * 4), *hg = malloc(C * 4), *hb = malloc(C * 4);
    if (!hx || !hdy || !hg || !hb) exit(1);
    unsigned rng = 12345;
#define UNI() ((rng = rng * 1664525u + 1013904223u), (float)(rng >> 8) / 8388608.0f - 1.0f)
    for (long long r = 0; r < s.rows; r++) {
        const float o = 3.0f * UNI(), sp = 1.5f + UNI();
        for (size_t c = 0; c < C; c++) hx[(size_t)r * C + c] = o + sp * UNI(), hdy[(size_t)r * C + c] = UNI();
    }
    for (size_t c = 0; c < C; c++) hg[c] = 1.0f + 0.5f * UNI(), hb[c] = 0.5f * UNI();
#undef UNI
    float *f32;
    TRY(cudaMalloc((void **)&f32, n * 4));
    TRY(cudaMalloc(&s.x, n * es));
    TRY(cudaMalloc(&s.y, n * es));
    TRY(cudaMalloc(&s.dy, n * es));
    TRY(cudaMalloc(&s.dx, n * es));
    TRY(cudaMalloc((void **)&s.g, C * 4));
    TRY(cudaMalloc((void **)&s.b, C * 4));
    TRY(cudaMalloc((void **)&s.dg, C * 4));
    TRY(cudaMalloc((void **)&s.db, C * 4));
    TRY(cudaMalloc((void **)&s.mean, (size_t)s.rows * 4));
    TRY(cudaMalloc((void **)&s.rstd, (size_t)s.rows * 4));
    if (s.p.scratch_floats) TRY(cudaMalloc((void **)&s.scratch, s.p.scratch_floats * 4));
    if (s.p.sems) {
        TRY(cudaMalloc((void **)&s.sems, (size_t)s.p.sems * sizeof(unsigned)));
        TRY(cudaMemset(s.sems, 0, (size_t)s.p.sems * sizeof(unsigned)));
    }
    /* the inputs in `elem`, and back, so that the host checks against the values the kernels see */
    TRY(cudaMemcpy(f32, hx, n * 4, cudaMemcpyHostToDevice));
    TRY(nvs_kern_convert(f32, NVS_ELEM_F32, s.x, elem, n, 0));
    TRY(nvs_kern_convert(s.x, elem, f32, NVS_ELEM_F32, n, 0));
    TRY(cudaMemcpy(hx, f32, n * 4, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(f32, hdy, n * 4, cudaMemcpyHostToDevice));
    TRY(nvs_kern_convert(f32, NVS_ELEM_F32, s.dy, elem, n, 0));
    TRY(nvs_kern_convert(s.dy, elem, f32, NVS_ELEM_F32, n, 0));
    TRY(cudaMemcpy(hdy, f32, n * 4, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(s.g, hg, C * 4, cudaMemcpyHostToDevice));
    TRY(cudaMemcpy(s.b, hb, C * 4, cudaMemcpyHostToDevice));
    for (int k = 0; k < KERNELS; k++) launch(&s, k);
    TRY(cudaDeviceSynchronize());
    check(&s, hx, hdy, hg, hb);
    const double elems = (double)n * (double)es, rowf = (double)s.rows * 4, colf = (double)C * 4;
    const double bytes[KERNELS] = {2 * elems + 2 * colf + 2 * rowf, 3 * elems + colf + 2 * rowf,
                                   2 * elems + 2 * rowf + 2 * colf};
    const char *kname[KERNELS] = {"ln_fwd", "ln_bwd_input", "ln_bwd_params"};
    for (int k = 0; k < KERNELS; k++) {
        for (int i = 0; i < WARM; i++) launch(&s, k);
        TRY(cudaEventRecord(e0, 0));
        for (int i = 0; i < reps; i++) launch(&s, k);
        TRY(cudaEventRecord(e1, 0));
        TRY(cudaEventSynchronize(e1));
        float ms = 0;
        TRY(cudaEventElapsedTime(&ms, e0, e1));
        const double us = ms * 1000.0 / reps;
        char name[160], shape[64];
        describe(&s, k, name, sizeof name, shape, sizeof shape);
        const char *en = elem == NVS_ELEM_F32 ? "fp32" : elem == NVS_ELEM_BF16 ? "bf16" : "fp16";
        printf("%s %s %s %s %.2f %.1f %s\n", arg, en, kname[k], shape, us, bytes[k] / (us * 1e3), name);
    }
    void *all[] = {f32, s.x, s.y, s.dy, s.dx, s.g, s.b, s.dg, s.db, s.mean, s.rstd, s.scratch, s.sems};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) TRY(cudaFree(all[i]));
    free(hx);
    free(hdy);
    free(hg);
    free(hb);
}

int main(int argc, char **argv)
{
    int elem = NVS_ELEM_F32, reps = 200, first = 1;
    for (; first < argc && argv[first][0] == '-'; first += 2) {
        if (first + 1 >= argc) usage(argv[first]);
        const char *v = argv[first + 1];
        if (!strcmp(argv[first], "--elem")) {
            elem = !strcmp(v, "fp32")   ? NVS_ELEM_F32
                   : !strcmp(v, "bf16") ? NVS_ELEM_BF16
                   : !strcmp(v, "fp16") ? NVS_ELEM_F16
                                        : -1;
            if (elem < 0) usage(v);
        } else if (!strcmp(argv[first], "--reps")) {
            char *end;
            long r = strtol(v, &end, 10);
            if (*end || r < 1 || r > 100000) usage(v);
            reps = (int)r;
        } else {
            usage(argv[first]);
        }
    }
    if (first >= argc) usage("no shape");
    int dev = 0;
    nvs_sm_shape sms = {0, 0};
    TRY(cudaGetDevice(&dev));
    TRY(nvs_sm_shape_of(dev, &sms));
    cudaEvent_t e0, e1;
    TRY(cudaEventCreate(&e0));
    TRY(cudaEventCreate(&e1));
    for (int a = first; a < argc; a++) bench(argv[a], elem, reps, sms, e0, e1);
    TRY(cudaEventDestroy(e0));
    TRY(cudaEventDestroy(e1));
    return 0;
}
