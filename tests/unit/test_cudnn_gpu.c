/* cuDNN's convolutions as the training step runs them (train/conv_cudnn.h): forward, input gradient and weight
 * gradient of one small layer at fp32 without TF32, against the textbook sums computed here, on the first call
 * (captured as a CUDA graph and launched) and on the second (the graph replayed); all three calls replayed,
 * none direct; then a call on other buffers runs direct, and says so; then a layer and a batch norm added after
 * the workspace was planned are refused (the replayed calls hold its address), and the calls stay right. Skipped without a GPU, or where
 * libcudnn.so.9 does not load (tests/t/gpu_train.sh runs this binary with PyTorch's cuDNN on the library
 * path). */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/kernels.h"
#include "train/conv_cudnn.h"
#include "t.h"

/* 2 images of 4 channels, 6 x 6; 5 filters of 3 x 3, stride 1, padding 1: the output is 2 x 5 x 6 x 6 */
enum { N = 2, C = 4, H = 6, W = 6, K = 5, R = 3, S = 3, PAD = 1, HO = 6, WO = 6 };
#define NX (N * C * H * W)
#define NW (K * C * R * S)
#define NY (N * K * HO * WO)

static float x[NX], w[NW], dy[NY], got[NX > NW ? (NX > NY ? NX : NY) : (NW > NY ? NW : NY)];
static double want_y[NY], want_dx[NX], want_dw[NW];

static void reference(void)
{
    memset(want_y, 0, sizeof want_y);
    memset(want_dx, 0, sizeof want_dx);
    memset(want_dw, 0, sizeof want_dw);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int i = 0; i < HO; i++)
                for (int j = 0; j < WO; j++) {
                    const int yi = ((n * K + k) * HO + i) * WO + j;
                    for (int c = 0; c < C; c++)
                        for (int r = 0; r < R; r++)
                            for (int s = 0; s < S; s++) {
                                const int hi = i + r - PAD, wi = j + s - PAD;
                                if (hi < 0 || hi >= H || wi < 0 || wi >= W) continue;
                                const int xi = ((n * C + c) * H + hi) * W + wi, wi_ = ((k * C + c) * R + r) * S + s;
                                want_y[yi] += (double)x[xi] * w[wi_];  /* cross-correlation, as cuDNN's default */
                                want_dx[xi] += (double)dy[yi] * w[wi_];
                                want_dw[wi_] += (double)dy[yi] * x[xi];
                            }
                }
}

/* the largest error of `count` floats at dev against want, relative to the largest |want| */
static double worst(const float *dev, const double *want, int count)
{
    T_EQ_I(cudaMemcpy(got, dev, sizeof(float) * (size_t)count, cudaMemcpyDeviceToHost), cudaSuccess);
    double err = 0, scale = 1e-30;
    for (int i = 0; i < count; i++) {
        err = fmax(err, fabs(got[i] - want[i]));
        scale = fmax(scale, fabs(want[i]));
    }
    return err / scale;
}

/* Forward, input gradient and weight gradient of layer 0, twice (captured and launched, then replayed), each
 * checked against the sums; bufs: dx, x, w, dw, y, dy */
static void three_calls(nvs_cudnn *c, cudaStream_t st, float *const b[6], const char *when)
{
    for (int call = 0; call < 2; call++) {
        T_EQ_I(cudaMemset(b[0], 0xff, sizeof(float) * NX), cudaSuccess); /* NaNs where nothing is written */
        T_EQ_I(cudaMemset(b[3], 0xff, sizeof(float) * NW), cudaSuccess);
        T_EQ_I(cudaMemset(b[4], 0xff, sizeof(float) * NY), cudaSuccess);
        T_EQ_I(cudaDeviceSynchronize(), cudaSuccess);
        T_EQ_I(nvs_cudnn_fwd(c, 0, b[1], b[2], b[4]), NVS_OK);
        T_EQ_I(nvs_cudnn_dgrad(c, 0, b[5], b[2], b[0]), NVS_OK);
        T_EQ_I(nvs_cudnn_wgrad(c, 0, b[1], b[5], b[3]), NVS_OK);
        T_EQ_I(cudaStreamSynchronize(st), cudaSuccess);
        double ey = worst(b[4], want_y, NY), ex = worst(b[0], want_dx, NX), ew = worst(b[3], want_dw, NW);
        if (!(ey < 1e-4 && ex < 1e-4 && ew < 1e-4))
            T_FAIL("%s, call %d: relative errors forward %g, input gradient %g, weight gradient %g", when, call, ey,
                   ex, ew);
    }
}

static void t_conv_graphs(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) T_SKIP("no GPU on this machine");
    char why[256] = "";
    if (nvs_cudnn_probe(why, sizeof why) != NVS_OK) T_SKIP(why);
    for (int i = 0; i < NX; i++) x[i] = (float)((i * 37 % 19) - 9) / 8.0f;
    for (int i = 0; i < NW; i++) w[i] = (float)((i * 11 % 13) - 6) / 8.0f;
    for (int i = 0; i < NY; i++) dy[i] = (float)((i * 23 % 17) - 8) / 8.0f;
    reference();

    cudaStream_t st;
    T_EQ_I(cudaStreamCreate(&st), cudaSuccess);
    nvs_cudnn *c = NULL;
    T_EQ_I(nvs_cudnn_open(st, 2, &c, why, sizeof why), NVS_OK);
    nvs_conv_shape sh = {N, C, H, W, K, R, S, 1, PAD, HO, WO};
    T_EQ_I(nvs_cudnn_add_layer(c, 0, &sh, NVS_ELEM_F32, 0, 1, 1, 1e9), NVS_OK);
    double ws = 0;
    T_EQ_I(nvs_cudnn_workspace(c, &ws, why, sizeof why), NVS_OK);
    float *d = NULL;
    T_EQ_I(cudaMalloc((void **)&d, sizeof(float) * (2 * (size_t)NX + 2 * NW + 3 * NY)), cudaSuccess);
    float *dx_ = d, *dX = d + NX, *dW = d + 2 * NX, *dDW = dW + NW, *dY = dDW + NW, *dDY = dY + NY, *spare = dDY + NY;
    T_EQ_I(cudaMemcpy(dX, x, sizeof x, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(cudaMemcpy(dW, w, sizeof w, cudaMemcpyHostToDevice), cudaSuccess);
    T_EQ_I(cudaMemcpy(dDY, dy, sizeof dy, cudaMemcpyHostToDevice), cudaSuccess);
    float *const bufs[6] = {dx_, dX, dW, dDW, dY, dDY};
    three_calls(c, st, bufs, "first capture");
    int replayed = -1, direct = -1;
    const char *gwhy = NULL;
    nvs_cudnn_graphs(c, &replayed, &direct, &gwhy);
    if (gwhy) T_FAIL("a convolution was not captured: %s", gwhy);
    T_EQ_I(replayed, 3);
    T_EQ_I(direct, 0);
    /* a call on other buffers than its capture's runs direct, right, and is said */
    T_EQ_I(cudaMemset(spare, 0xff, sizeof(float) * NY), cudaSuccess);
    T_EQ_I(nvs_cudnn_fwd(c, 0, dX, dW, spare), NVS_OK);
    T_EQ_I(cudaStreamSynchronize(st), cudaSuccess);
    T_ASSERT(worst(spare, want_y, NY) < 1e-4);
    nvs_cudnn_graphs(c, &replayed, &direct, &gwhy);
    T_EQ_I(replayed, 2);
    T_EQ_I(direct, 1);
    T_ASSERT(gwhy && strstr(gwhy, "other buffers"));
    /* the workspace is planned once: the replayed calls hold its address, so nothing added later may move it */
    T_EQ_I(nvs_cudnn_add_layer(c, 1, &sh, NVS_ELEM_F32, 0, 1, 1, 1e9), NVS_ERR_USAGE);
    T_EQ_I(nvs_cudnn_add_bn(c, 1, N, C, H * W, NVS_ELEM_F32), NVS_ERR_USAGE);
    double ws2 = -1;
    T_EQ_I(nvs_cudnn_workspace(c, &ws2, why, sizeof why), NVS_OK);
    T_ASSERT(ws2 == ws);
    T_ASSERT(!nvs_cudnn_has_layer(c, 1) && !nvs_cudnn_has_bn(c, 1));
    three_calls(c, st, bufs, "after the refused additions");
    nvs_cudnn_graphs(c, &replayed, &direct, &gwhy);
    T_EQ_I(replayed, 2);
    T_EQ_I(direct, 1);
    T_EQ_I(cudaFree(d), cudaSuccess);
    nvs_cudnn_close(c);
    T_EQ_I(cudaStreamDestroy(st), cudaSuccess);
}

/* One of cuDNN's own buffers not fitting (the batch norms' statistics here: 1 GiB, with all but 256 MiB of the GPU
 * held): NVS_ERR_NOMEM, the reason naming the buffer, its bytes and the memory free, and the error read off the
 * thread, so that --cudnn auto's fallback (train_gpu_cudnn.c nvs_tg_cudnn_setup) runs on a clean slate. */
static void t_oom_said(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) T_SKIP("no GPU on this machine");
    char why[256] = "";
    if (nvs_cudnn_probe(why, sizeof why) != NVS_OK) T_SKIP(why);
    cudaStream_t st;
    T_EQ_I(cudaStreamCreate(&st), cudaSuccess);
    nvs_cudnn *c = NULL;
    T_EQ_I(nvs_cudnn_open(st, 1, &c, why, sizeof why), NVS_OK);
    T_EQ_I(nvs_cudnn_add_bn(c, 0, 2, 1 << 26, 1, NVS_ELEM_F32), NVS_OK); /* 4 x 2^26 floats of statistics */
    size_t fr = 0, tot = 0;
    T_EQ_I(cudaMemGetInfo(&fr, &tot), cudaSuccess);
    void *hog = NULL;
    const size_t keep = (size_t)256 << 20, step = (size_t)64 << 20;
    for (size_t b = fr > keep ? fr - keep : 0; b >= step; b -= step) {
        if (cudaMalloc(&hog, b) == cudaSuccess) break;
        (void)cudaGetLastError(); /* a failed try: the next one smaller */
        hog = NULL;
    }
    T_ASSERT(hog != NULL);
    double ws = -1;
    why[0] = '\0';
    T_EQ_I(nvs_cudnn_workspace(c, &ws, why, sizeof why), NVS_ERR_NOMEM);
    if (!strstr(why, "out of memory for a 1073741824-byte batch-norm statistics buffer (") ||
        !strstr(why, "MiB of GPU memory free)"))
        T_FAIL("the reason: %s", why);
    T_EQ_I(cudaGetLastError(), cudaSuccess);
    T_EQ_I(cudaFree(hog), cudaSuccess);
    nvs_cudnn_close(c);
    T_EQ_I(cudaStreamDestroy(st), cudaSuccess);
}

T_LIST = {T_CASE(t_conv_graphs), T_CASE(t_oom_said)};
T_MAIN
