/* How much a GEMM loses beside a few resident CTAs that spin or copy, on one GPU: the mechanism behind the what-if
 * model's interference shares (src/model/interference.c). NCCL's all-reduce kernel keeps one CTA per channel
 * resident while it runs (24 channels over NVLink on the 2x H200 box, 4 over SHM, 2 over sockets: their run.json
 * transports); its CTAs take SMs from the compute, and move data through HBM (peer-to-peer) or through pinned host
 * memory over PCIe (SHM, sockets). Here the same number of CTAs spin (SMs only), copy device to device (SMs and
 * HBM) or device to pinned host memory (SMs and PCIe), and a bf16 GEMM runs beside them on another stream.
 *
 *   share = 1 - t_alone / t_beside      (the compute's progress lost while they run: the model's share)
 *
 *   make contend && build/contend [M [REPS [bf16|fp32]]]
 *   (GEMM M x M x M; bf16: bf16 in and out, fp32 accumulate, the tensor cores; fp32: fp32 throughout on the CUDA
 *   cores, as the training step's fp32 (no TF32); default 8192 30 bf16) */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contend_kernels.h"

#define TRY(call)                                                                                                  \
    do {                                                                                                           \
        cudaError_t e_ = (cudaError_t)(call);                                                                      \
        if (e_ != cudaSuccess) {                                                                                   \
            fprintf(stderr, "contend: %s: %s\n", #call, cudaGetErrorString(e_));                                   \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)
#define BLAS(call)                                                                                                 \
    do {                                                                                                           \
        cublasStatus_t s_ = (call);                                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                         \
            fprintf(stderr, "contend: %s: cuBLAS status %d\n", #call, (int)s_);                                    \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

#define COPY_BYTES (256u << 20) /* each copy's buffer: 256 MiB */

typedef struct {
    cublasHandle_t blas;
    cudaStream_t a, b;
    cudaEvent_t a0, a1, b0, b1;
    void *x, *y, *z;
    int m, reps;
    cudaDataType_t t; /* CUDA_R_16BF or CUDA_R_32F */
} gemm_ctx;

/* ms per GEMM over reps GEMMs on stream a */
static double gemm_ms(gemm_ctx *g)
{
    const float one = 1, zero = 0;
    TRY(cudaEventRecord(g->a0, g->a));
    for (int r = 0; r < g->reps; r++)
        BLAS(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, g->m, g->m, g->m, &one, g->x, g->t, g->m, g->y, g->t,
                          g->m, &zero, g->z, g->t, g->m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    TRY(cudaEventRecord(g->a1, g->a));
    TRY(cudaEventSynchronize(g->a1));
    float ms;
    TRY(cudaEventElapsedTime(&ms, g->a0, g->a1));
    return ms / g->reps;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    gemm_ctx g = {0};
    g.m = argc > 1 ? atoi(argv[1]) : 8192;
    g.reps = argc > 2 ? atoi(argv[2]) : 30;
    if (g.m < 256 || g.m > 32768 || g.m % 64) {
        fprintf(stderr, "contend: M '%s': expected a multiple of 64 from 256 to 32768\n", argv[1]);
        return 2;
    }
    if (g.reps < 1 || g.reps > 10000) {
        fprintf(stderr, "contend: REPS '%s': expected 1 to 10000\n", argv[2]);
        return 2;
    }
    const char *prec = argc > 3 ? argv[3] : "bf16";
    if (strcmp(prec, "bf16") && strcmp(prec, "fp32")) {
        fprintf(stderr, "contend: precision '%s': expected bf16 or fp32\n", prec);
        return 2;
    }
    g.t = strcmp(prec, "fp32") ? CUDA_R_16BF : CUDA_R_32F;
    const size_t esz = g.t == CUDA_R_32F ? 4 : 2;
    struct cudaDeviceProp prop;
    TRY(cudaGetDeviceProperties(&prop, 0));
    BLAS(cublasCreate(&g.blas));
    TRY(cudaStreamCreateWithFlags(&g.a, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&g.b, cudaStreamNonBlocking));
    BLAS(cublasSetStream(g.blas, g.a));
    TRY(cudaEventCreate(&g.a0));
    TRY(cudaEventCreate(&g.a1));
    TRY(cudaEventCreate(&g.b0));
    TRY(cudaEventCreate(&g.b1));
    size_t mat = (size_t)g.m * g.m * esz;
    TRY(cudaMalloc(&g.x, mat));
    TRY(cudaMalloc(&g.y, mat));
    TRY(cudaMalloc(&g.z, mat));
    TRY(cudaMemset(g.x, 0x3c, mat)); /* bf16 0x3c3c, fp32 0x3c3c3c3c: a small nonzero value in every element */
    TRY(cudaMemset(g.y, 0x3c, mat));
    void *src, *ddst, *hdst;
    TRY(cudaMalloc(&src, COPY_BYTES));
    TRY(cudaMalloc(&ddst, COPY_BYTES));
    TRY(cudaMemset(src, 1, COPY_BYTES));
    TRY(cudaHostAlloc(&hdst, COPY_BYTES, cudaHostAllocDefault));
    /* started: host-mapped, the kernel sets it once; stop: in device memory, the kernel polls it and the host
     * sets it with a copy on a third stream (polling host memory would load the PCIe path: contend_kernels.cu) */
    int *started_h, *started_d, *stop_d, *one_h;
    TRY(cudaHostAlloc((void **)&started_h, sizeof(int), cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&started_d, started_h, 0));
    TRY(cudaHostAlloc((void **)&one_h, sizeof(int), cudaHostAllocDefault));
    *one_h = 1;
    TRY(cudaMalloc((void **)&stop_d, sizeof(int)));
    cudaStream_t ctl;
    TRY(cudaStreamCreateWithFlags(&ctl, cudaStreamNonBlocking));
    unsigned long long *moved_d, moved;
    TRY(cudaMalloc((void **)&moved_d, sizeof *moved_d));
    volatile int *started = started_h;

    for (int w = 0; w < 3; w++) gemm_ms(&g); /* clocks up, cuBLAS's choice made */
    printf("GPU %s, %d SMs; GEMM %d x %d x %d %s (fp32 accumulate), %d per timing; beside it, CTAs of 512 "
           "threads\n",
           prop.name, prop.multiProcessorCount, g.m, g.m, g.m, prec, g.reps);
    printf("%-5s %5s %14s %15s %8s %12s\n", "what", "ctas", "gemm_ms_alone", "gemm_ms_beside", "share",
           "copy_GB/s");
    static const char *const what[] = {"spin", "d2d", "d2h"};
    static const int ctas[] = {2, 4, 8, 16, 24, 32};
    for (int k = 0; k < 3; k++)
        for (size_t c = 0; c < sizeof ctas / sizeof ctas[0]; c++) {
            double before = gemm_ms(&g);
            started[0] = 0;
            TRY(cudaMemset(stop_d, 0, sizeof(int)));
            TRY(cudaMemset(moved_d, 0, sizeof *moved_d));
            TRY(cudaDeviceSynchronize());
            TRY(cudaEventRecord(g.b0, g.b));
            TRY(contend_launch(k == 0 ? CONTEND_SPIN : CONTEND_COPY, ctas[c], k == 2 ? hdst : ddst, src, COPY_BYTES,
                               stop_d, started_d, moved_d, g.b));
            TRY(cudaEventRecord(g.b1, g.b));
            /* the GEMMs start once the CTAs are resident, as NCCL's kernel is before the next layer's GEMM */
            double t0 = now_s();
            while (!started[0])
                if (now_s() - t0 > 10) {
                    fprintf(stderr, "contend: the resident kernel did not start within 10 s\n");
                    return 1; /* exiting tears the context down, the kernel with it */
                }
            double beside = gemm_ms(&g);
            TRY(cudaMemcpyAsync(stop_d, one_h, sizeof(int), cudaMemcpyHostToDevice, ctl));
            TRY(cudaStreamSynchronize(ctl));
            TRY(cudaEventSynchronize(g.b1));
            float kms;
            TRY(cudaEventElapsedTime(&kms, g.b0, g.b1));
            TRY(cudaMemcpy(&moved, moved_d, sizeof moved, cudaMemcpyDeviceToHost));
            double after = gemm_ms(&g), alone = 0.5 * (before + after);
            printf("%-5s %5d %14.3f %15.3f %8.3f %12.1f\n", what[k], ctas[c], alone, beside, 1 - alone / beside,
                   k == 0 ? 0.0 : moved / (kms * 1e-3) / 1e9);
            fflush(stdout);
        }
    TRY(cudaFreeHost(hdst));
    TRY(cudaFreeHost(started_h));
    TRY(cudaFreeHost(one_h));
    TRY(cudaFree(stop_d));
    TRY(cudaStreamDestroy(ctl));
    TRY(cudaFree(src));
    TRY(cudaFree(ddst));
    TRY(cudaFree(moved_d));
    TRY(cudaFree(g.x));
    TRY(cudaFree(g.y));
    TRY(cudaFree(g.z));
    BLAS(cublasDestroy(g.blas));
    return 0;
}
