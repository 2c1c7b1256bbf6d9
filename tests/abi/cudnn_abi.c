/* train/cudnn_min.h against cuDNN's own headers: every value and the layout of the performance record must be
 * cuDNN's, or nvscale would pass cuDNN wrong arguments. Built and run by tests/t/cudnn_abi.sh where the headers
 * are installed (a compile error is the failure). */
#include <cudnn.h>
#include <stddef.h>
#include <stdio.h>

#include "train/cudnn_min.h"

#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " != " #b)
SAME(NVSDNN_STATUS_SUCCESS, CUDNN_STATUS_SUCCESS);
SAME(NVSDNN_DATA_FLOAT, CUDNN_DATA_FLOAT);
SAME(NVSDNN_DATA_HALF, CUDNN_DATA_HALF);
SAME(NVSDNN_DATA_BFLOAT16, CUDNN_DATA_BFLOAT16);
SAME(NVSDNN_TENSOR_NCHW, CUDNN_TENSOR_NCHW);
SAME(NVSDNN_CROSS_CORRELATION, CUDNN_CROSS_CORRELATION);
SAME(NVSDNN_DEFAULT_MATH, CUDNN_DEFAULT_MATH);
SAME(NVSDNN_TENSOR_OP_MATH, CUDNN_TENSOR_OP_MATH);
SAME(NVSDNN_FMA_MATH, CUDNN_FMA_MATH);
SAME(NVSDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_SPATIAL);
_Static_assert(NVSDNN_MAX_ALGOS >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT, "forward algorithms");
_Static_assert(NVSDNN_MAX_ALGOS >= CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, "input-gradient algorithms");
_Static_assert(NVSDNN_MAX_ALGOS >= CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, "weight-gradient algorithms");

#define LAYOUT(T)                                                                                           \
    _Static_assert(sizeof(T) == sizeof(nvsdnn_perf_t), #T " size");                                         \
    _Static_assert(offsetof(T, algo) == offsetof(nvsdnn_perf_t, algo), #T ".algo");                          \
    _Static_assert(offsetof(T, status) == offsetof(nvsdnn_perf_t, status), #T ".status");                    \
    _Static_assert(offsetof(T, time) == offsetof(nvsdnn_perf_t, time), #T ".time");                          \
    _Static_assert(offsetof(T, memory) == offsetof(nvsdnn_perf_t, memory), #T ".memory");                    \
    _Static_assert(offsetof(T, determinism) == offsetof(nvsdnn_perf_t, determinism), #T ".determinism");     \
    _Static_assert(offsetof(T, mathType) == offsetof(nvsdnn_perf_t, math_type), #T ".mathType")
LAYOUT(cudnnConvolutionFwdAlgoPerf_t);
LAYOUT(cudnnConvolutionBwdDataAlgoPerf_t);
LAYOUT(cudnnConvolutionBwdFilterAlgoPerf_t);

/* The entry points' types: each of ours must take what cuDNN's takes, argument for argument (the handle and
 * descriptor types are pointers to cuDNN's structs in its headers, void pointers in ours). */
int main(void)
{
    struct nvsdnn_api a;
    (void)a;
    /* a call through each of our pointers with cuDNN's argument types compiles only if the counts agree */
    cudnnHandle_t h = 0;
    cudnnTensorDescriptor_t t = 0;
    cudnnFilterDescriptor_t f = 0;
    cudnnConvolutionDescriptor_t c = 0;
    cudnnConvolutionFwdAlgoPerf_t pf;
    cudnnConvolutionBwdDataAlgoPerf_t pd;
    cudnnConvolutionBwdFilterAlgoPerf_t pw;
    int n = 0;
    if (0) {
        a.FindConvolutionForwardAlgorithm(h, t, f, c, t, 1, &n, (nvsdnn_perf_t *)&pf);
        a.FindConvolutionBackwardDataAlgorithm(h, f, t, c, t, 1, &n, (nvsdnn_perf_t *)&pd);
        a.FindConvolutionBackwardFilterAlgorithm(h, t, t, c, f, 1, &n, (nvsdnn_perf_t *)&pw);
        cudnnFindConvolutionForwardAlgorithm(h, t, f, c, t, 1, &n, &pf);
        cudnnFindConvolutionBackwardDataAlgorithm(h, f, t, c, t, 1, &n, &pd);
        cudnnFindConvolutionBackwardFilterAlgorithm(h, t, t, c, f, 1, &n, &pw);
        a.ConvolutionForward(h, 0, t, 0, f, 0, c, 0, 0, 0, 0, t, 0);
        cudnnConvolutionForward(h, 0, t, 0, f, 0, c, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, 0, 0, 0, t, 0);
        a.ConvolutionBackwardData(h, 0, f, 0, t, 0, c, 0, 0, 0, 0, t, 0);
        cudnnConvolutionBackwardData(h, 0, f, 0, t, 0, c, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, 0, 0, 0, t, 0);
        a.ConvolutionBackwardFilter(h, 0, t, 0, t, 0, c, 0, 0, 0, 0, f, 0);
        cudnnConvolutionBackwardFilter(h, 0, t, 0, t, 0, c, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, 0, 0, 0, f, 0);
        a.SetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 1, 1, 0);
        cudnnSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
        a.SetTensor4dDescriptor(t, 0, 0, 1, 1, 1, 1);
        cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
        a.SetFilter4dDescriptor(f, 0, 0, 1, 1, 1, 1);
        cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 1, 1);
        a.GetConvolution2dForwardOutputDim(c, t, f, &n, &n, &n, &n);
        a.DeriveBNTensorDescriptor(t, t, 1);
        cudnnDeriveBNTensorDescriptor(t, t, CUDNN_BATCHNORM_SPATIAL);
        a.BatchNormalizationForwardTraining(h, 1, 0, 0, t, 0, t, 0, t, 0, 0, 0.1, 0, 0, 1e-5, 0, 0);
        cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, 0, 0, t, 0, t, 0, t, 0, 0, 0.1, 0, 0, 1e-5,
                                               0, 0);
        a.BatchNormalizationBackward(h, 1, 0, 0, 0, 0, t, 0, t, 0, t, 0, t, 0, 0, 0, 1e-5, 0, 0);
        cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, 0, 0, 0, 0, t, 0, t, 0, t, 0, t, 0, 0, 0, 1e-5, 0,
                                        0);
        cudnnGetConvolution2dForwardOutputDim(c, t, f, &n, &n, &n, &n);
    }
    printf("cudnn_min.h agrees with cuDNN %d.%d.%d's headers\n", CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
    return 0;
}
