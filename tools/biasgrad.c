/* The bias gradient's reduction, timed: nvscale's outer-dimension sum as PyTorch launches it
 * (train/reduce_kernels.h) at its own row split G and at others, beside cuBLAS's matrix-vector product with a
 * vector of ones (what `--framework ideal` runs), on one GPU. Each sum is checked against the host's first.
 * tools/device/biasgrad_torch.py times PyTorch's x.sum(0) on the same shapes, for the comparison.
 *
 *   make biasgrad && build/biasgrad [--elem bf16|fp32] [--g G,G,...] ROWSxCOLS ...
 *
 * One line per shape and method: "shape elem method g us GB/s" (bytes: the matrix read once). */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "collectives/kernels.h"
#include "train/reduce_kernels.h"

#define TRY(call) BENCH_TRY("biasgrad", call)

enum { REPS = 50, MAXG = 16 };

static void usage(const char *bad)
{
    fprintf(stderr, "biasgrad: %s: usage: biasgrad [--elem bf16|fp32] [--g G,G,...] ROWSxCOLS ...\n", bad);
    exit(2);
}

/* bf16 of a small integer (exact): the high half of the float's bits */
static unsigned short bf16_of(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return (unsigned short)(u >> 16);
}

static float timed(cudaEvent_t e0, cudaEvent_t e1)
{
    float ms = 0;
    TRY(cudaEventSynchronize(e1));
    TRY(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1000.0f / REPS;
}

int main(int argc, char **argv)
{
    int elem = NVS_ELEM_BF16, gs[MAXG], ngs = 0, first = 1;
    for (; first < argc && argv[first][0] == '-'; first += 2) {
        if (first + 1 >= argc) usage(argv[first]);
        if (!strcmp(argv[first], "--elem")) {
            const char *v = argv[first + 1];
            elem = !strcmp(v, "bf16") ? NVS_ELEM_BF16 : !strcmp(v, "fp32") ? NVS_ELEM_F32 : -1;
            if (elem < 0) usage(v);
        } else if (!strcmp(argv[first], "--g")) {
            for (char *p = argv[first + 1], *end; *p && ngs < MAXG; p = *end ? end + 1 : end) {
                long g = strtol(p, &end, 10);
                if (end == p || g < 1 || g > 65535 || (*end && *end != ',')) usage(argv[first + 1]);
                gs[ngs++] = (int)g;
            }
        } else {
            usage(argv[first]);
        }
    }
    if (first >= argc) usage("no shape");
    int dev = 0;
    nvs_sm_shape sms = {0, 0};
    TRY(cudaGetDevice(&dev));
    TRY(nvs_sm_shape_of(dev, &sms));
    cublasHandle_t blas;
    TRY(cublasCreate(&blas));
    cudaEvent_t e0, e1;
    TRY(cudaEventCreate(&e0));
    TRY(cudaEventCreate(&e1));
    const size_t es = elem == NVS_ELEM_BF16 ? 2 : 4;
    for (int a = first; a < argc; a++) {
        long long rows = 0;
        int cols = 0;
        char tail = 0;
        if (sscanf(argv[a], "%lldx%d%c", &rows, &cols, &tail) != 2 || rows < 1 || cols < 1 ||
            rows > INT_MAX || rows > (1LL << 31) / cols) /* cuBLAS takes the rows as an int */
            usage(argv[a]);
        size_t n = (size_t)rows * (size_t)cols;
        /* x[r][c] = (r + c) % 3: small integers, exact in bf16 and in fp32 sums below 2^24 */
        void *hx = malloc(n * es);
        double *want = calloc((size_t)cols, sizeof *want);
        float *got = malloc((size_t)cols * sizeof *got);
        if (!hx || !want || !got) return 1;
        for (long long r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) {
                float v = (float)((r + c) % 3);
                size_t i = (size_t)r * cols + c;
                if (es == 2)
                    ((unsigned short *)hx)[i] = bf16_of(v);
                else
                    ((float *)hx)[i] = v;
                want[c] += v;
            }
        void *x, *ones;
        float *out, *staging;
        unsigned *sems;
        int gmax = nvs_outer_sum_ctas(rows, cols, sms);
        for (int i = 0; i < ngs; i++)
            if (gs[i] > gmax) gmax = gs[i];
        int nsems = (cols + 127) / 128;
        TRY(cudaMalloc(&x, n * es));
        TRY(cudaMalloc(&ones, (size_t)rows * es));
        TRY(cudaMalloc((void **)&out, (size_t)cols * sizeof(float)));
        TRY(cudaMalloc((void **)&staging, (size_t)gmax * cols * sizeof(float)));
        TRY(cudaMalloc((void **)&sems, (size_t)nsems * sizeof(unsigned)));
        TRY(cudaMemset(sems, 0, (size_t)nsems * sizeof(unsigned)));
        TRY(cudaMemcpy(x, hx, n * es, cudaMemcpyHostToDevice));
        TRY(cudaMemset(ones, 0, (size_t)rows * es)); /* y = 0 * y + 1 needs a finite y */
        TRY(nvs_kern_axpb(ones, (size_t)rows, elem, 0.0f, 1.0f, 0));
        int list[MAXG + 1], nl = 0;
        list[nl++] = nvs_outer_sum_ctas(rows, cols, sms);
        for (int i = 0; i < ngs; i++) list[nl++] = gs[i];
        const double gb = (double)n * es / 1e9;
        for (int k = 0; k < nl; k++) {
            TRY(cudaMemset(out, 0, (size_t)cols * sizeof(float)));
            TRY(nvs_kern_outer_sum_g(x, elem, rows, cols, cols, out, NVS_ELEM_F32, staging, (size_t)gmax * cols,
                                     sems, nsems, list[k], 0));
            TRY(cudaMemcpy(got, out, (size_t)cols * sizeof(float), cudaMemcpyDeviceToHost));
            for (int c = 0; c < cols; c++)
                if (fabs(got[c] - want[c]) > 1e-6 * want[c] + 0.5) {
                    fprintf(stderr, "biasgrad: %s G %d: column %d sums to %g, expected %g\n", argv[a], list[k], c,
                            got[c], want[c]);
                    return 1;
                }
            TRY(cudaEventRecord(e0, 0));
            for (int i = 0; i < REPS; i++)
                TRY(nvs_kern_outer_sum_g(x, elem, rows, cols, cols, out, elem, staging, (size_t)gmax * cols, sems,
                                         nsems, list[k], 0));
            TRY(cudaEventRecord(e1, 0));
            float us = timed(e0, e1);
            printf("%s %s outer_sum%s %d %.2f %.1f\n", argv[a], es == 2 ? "bf16" : "fp32", k ? "" : "(default)",
                   list[k], us, gb / (us * 1e-6));
        }
        /* cuBLAS as the step's `ideal` bias gradient calls it (train_gpu_gemm.c nvs_tg_bias): the gradient
         * column-major rows x cols (the same bytes), transposed, times the ones */
        cudaDataType_t t = es == 2 ? CUDA_R_16BF : CUDA_R_32F;
        const float one = 1.0f, zero = 0.0f;
        /* once into fp32, checked (and cuBLAS's first call, its set-up, kept out of the timing) */
        TRY(cudaMemset(out, 0, (size_t)cols * sizeof(float)));
        TRY(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, cols, 1, (int)rows, &one, x, t, cols, ones, t, (int)rows,
                         &zero, out, CUDA_R_32F, cols, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        TRY(cudaMemcpy(got, out, (size_t)cols * sizeof(float), cudaMemcpyDeviceToHost));
        for (int c = 0; c < cols; c++)
            if (fabs(got[c] - want[c]) > 1e-6 * want[c] + 0.5) {
                fprintf(stderr, "biasgrad: %s cuBLAS: column %d sums to %g, expected %g\n", argv[a], c, got[c],
                        want[c]);
                return 1;
            }
        TRY(cudaEventRecord(e0, 0));
        /* as `ideal` calls it (train_gpu_gemm.c nvs_tg_bias): x row-major [rows x cols], x^T (cols x rows, ld
         * cols) times ones, into the gradients' fp32 (the default --grad-type; a bf16 output makes cuBLAS pick other
         * kernels: 1.6 ms for 4096x1024, results/h200x1-review) */
        for (int i = 0; i < REPS; i++)
            TRY(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, cols, 1, (int)rows, &one, x, t, cols, ones, t, (int)rows,
                             &zero, out, CUDA_R_32F, cols, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        TRY(cudaEventRecord(e1, 0));
        float us = timed(e0, e1);
        printf("%s %s cublas_gemv - %.2f %.1f\n", argv[a], es == 2 ? "bf16" : "fp32", us, gb / (us * 1e-6));
        TRY(cudaFree(x));
        TRY(cudaFree(ones));
        TRY(cudaFree(out));
        TRY(cudaFree(staging));
        TRY(cudaFree(sems));
        free(hx);
        free(want);
        free(got);
    }
    TRY(cublasDestroy(blas));
    return 0;
}
