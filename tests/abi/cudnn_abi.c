/* train/cudnn_min.h against cuDNN's own headers: every value and the layout of the performance record must be
 * cuDNN's, or nvscale would pass cuDNN wrong arguments. Built and run by tests/t/cudnn_abi.sh where the headers
 * are installed (a compile error is the failure). */
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <stddef.h>
#include <stdio.h>

#define NVSDNN_AS_CUDNN
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
SAME(NVSDNN_BATCHNORM_OPS_BN, CUDNN_BATCHNORM_OPS_BN);
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

/* Every entry point: with NVSDNN_AS_CUDNN, our pointer's type is built from cuDNN's own types, so each assignment
 * compiles (under -Werror) only if the argument count, order and types are cuDNN's exactly. */
int main(void)
{
    struct nvsdnn_api a;
    a.GetVersion = cudnnGetVersion;
    a.GetErrorString = cudnnGetErrorString;
    a.Create = cudnnCreate;
    a.Destroy = cudnnDestroy;
    a.SetStream = cudnnSetStream;
    a.CreateTensorDescriptor = cudnnCreateTensorDescriptor;
    a.SetTensor4dDescriptor = cudnnSetTensor4dDescriptor;
    a.DestroyTensorDescriptor = cudnnDestroyTensorDescriptor;
    a.CreateFilterDescriptor = cudnnCreateFilterDescriptor;
    a.SetFilter4dDescriptor = cudnnSetFilter4dDescriptor;
    a.DestroyFilterDescriptor = cudnnDestroyFilterDescriptor;
    a.CreateConvolutionDescriptor = cudnnCreateConvolutionDescriptor;
    a.SetConvolution2dDescriptor = cudnnSetConvolution2dDescriptor;
    a.SetConvolutionMathType = cudnnSetConvolutionMathType;
    a.DestroyConvolutionDescriptor = cudnnDestroyConvolutionDescriptor;
    a.GetConvolution2dForwardOutputDim = cudnnGetConvolution2dForwardOutputDim;
    a.FindConvolutionForwardAlgorithm = cudnnFindConvolutionForwardAlgorithm;
    a.FindConvolutionBackwardDataAlgorithm = cudnnFindConvolutionBackwardDataAlgorithm;
    a.FindConvolutionBackwardFilterAlgorithm = cudnnFindConvolutionBackwardFilterAlgorithm;
    a.ConvolutionForward = cudnnConvolutionForward;
    a.ConvolutionBackwardData = cudnnConvolutionBackwardData;
    a.ConvolutionBackwardFilter = cudnnConvolutionBackwardFilter;
    a.DeriveBNTensorDescriptor = cudnnDeriveBNTensorDescriptor;
    a.GetBatchNormalizationForwardTrainingExWorkspaceSize = cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize;
    a.GetBatchNormalizationBackwardExWorkspaceSize = cudnnGetBatchNormalizationBackwardExWorkspaceSize;
    a.GetBatchNormalizationTrainingExReserveSpaceSize = cudnnGetBatchNormalizationTrainingExReserveSpaceSize;
    a.BatchNormalizationForwardTrainingEx = cudnnBatchNormalizationForwardTrainingEx;
    a.BatchNormalizationBackwardEx = cudnnBatchNormalizationBackwardEx;
    (void)a;
    printf("cudnn_min.h agrees with cuDNN %d.%d.%d's headers\n", CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
    return 0;
}
