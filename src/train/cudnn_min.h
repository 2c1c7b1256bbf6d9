/* The part of cuDNN's legacy convolution API the GPU step uses, declared here so that nvscale builds without
 * cuDNN's headers and loads the library at run time (train/conv_cudnn.c), as topo/nvml_min.h does for NVML.
 * The values and the layout below are cuDNN's (cudnn_graph.h / cudnn_ops.h / cudnn_cnn.h of cuDNN 9, unchanged
 * since cuDNN 8); tests/abi/cudnn_abi.c (tests/t/cudnn_abi.sh) checks each against the real headers wherever
 * those are installed. The names are our own, so the two can be compiled together; with NVSDNN_AS_CUDNN defined
 * (that test only) the types are cuDNN's own, so that each entry point's type must be exactly cuDNN's for the
 * test to compile. */
#ifndef NVS_CUDNN_MIN_H
#define NVS_CUDNN_MIN_H

#include <stddef.h>

enum { NVSDNN_STATUS_SUCCESS = 0 };
enum { NVSDNN_DATA_FLOAT = 0, NVSDNN_DATA_HALF = 2, NVSDNN_DATA_BFLOAT16 = 9 }; /* cudnnDataType_t */
enum { NVSDNN_TENSOR_NCHW = 0 };                                               /* cudnnTensorFormat_t */
enum { NVSDNN_CROSS_CORRELATION = 1 };                                         /* cudnnConvolutionMode_t */
enum { NVSDNN_DEFAULT_MATH = 0, NVSDNN_TENSOR_OP_MATH = 1, NVSDNN_FMA_MATH = 3 }; /* cudnnMathType_t */
enum { NVSDNN_BATCHNORM_SPATIAL = 1 };                                         /* cudnnBatchNormMode_t */
enum { NVSDNN_BATCHNORM_OPS_BN = 0 };                                          /* cudnnBatchNormOps_t */

/* cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t: the three share this layout */
typedef struct {
    int algo;
    int status; /* cudnnStatus_t */
    float time; /* ms */
    size_t memory;
    int determinism;
    int math_type;
    int reserved[3];
} nvsdnn_perf_t;

/* Algorithms cuDNN 9 can return per direction (CUDNN_CONVOLUTION_FWD_ALGO_COUNT 8, BWD_DATA 6, BWD_FILTER 7):
 * the Find calls are asked for this many. */
#define NVSDNN_MAX_ALGOS 8


#ifdef NVSDNN_AS_CUDNN
typedef cudnnHandle_t nvsdnn_handle_t;
typedef cudnnTensorDescriptor_t nvsdnn_tensor_t;
typedef cudnnFilterDescriptor_t nvsdnn_filter_t;
typedef cudnnConvolutionDescriptor_t nvsdnn_conv_t;
typedef cudnnStatus_t nvsdnn_status_t;
typedef cudnnDataType_t nvsdnn_dtype_t;
typedef cudnnTensorFormat_t nvsdnn_format_t;
typedef cudnnConvolutionMode_t nvsdnn_convmode_t;
typedef cudnnMathType_t nvsdnn_math_t;
typedef cudnnBatchNormMode_t nvsdnn_bnmode_t;
typedef cudnnBatchNormOps_t nvsdnn_bnops_t;
typedef cudnnActivationDescriptor_t nvsdnn_activation_t;
typedef cudnnConvolutionFwdAlgo_t nvsdnn_fwd_algo_t;
typedef cudnnConvolutionBwdDataAlgo_t nvsdnn_dgrad_algo_t;
typedef cudnnConvolutionBwdFilterAlgo_t nvsdnn_wgrad_algo_t;
typedef cudnnConvolutionFwdAlgoPerf_t nvsdnn_fwd_perf_t;
typedef cudnnConvolutionBwdDataAlgoPerf_t nvsdnn_dgrad_perf_t;
typedef cudnnConvolutionBwdFilterAlgoPerf_t nvsdnn_wgrad_perf_t;
typedef cudaStream_t nvsdnn_stream_t;
#else
typedef void *nvsdnn_handle_t; /* cudnnHandle_t */
typedef void *nvsdnn_tensor_t; /* cudnnTensorDescriptor_t */
typedef void *nvsdnn_filter_t; /* cudnnFilterDescriptor_t */
typedef void *nvsdnn_conv_t;   /* cudnnConvolutionDescriptor_t */
typedef int nvsdnn_status_t;   /* cudnnStatus_t */
typedef int nvsdnn_dtype_t, nvsdnn_format_t, nvsdnn_convmode_t, nvsdnn_math_t, nvsdnn_bnmode_t, nvsdnn_bnops_t;
typedef void *nvsdnn_activation_t; /* cudnnActivationDescriptor_t (always NULL here: no fused activation) */
typedef int nvsdnn_fwd_algo_t, nvsdnn_dgrad_algo_t, nvsdnn_wgrad_algo_t;
typedef nvsdnn_perf_t nvsdnn_fwd_perf_t, nvsdnn_dgrad_perf_t, nvsdnn_wgrad_perf_t;
typedef void *nvsdnn_stream_t; /* cudaStream_t */
#endif

/* The entry points, looked up by name (cudnn<Name>) in libcudnn.so.9, in cuDNN's argument order. */
struct nvsdnn_api {
    size_t (*GetVersion)(void);
    const char *(*GetErrorString)(nvsdnn_status_t);
    nvsdnn_status_t (*Create)(nvsdnn_handle_t *);
    nvsdnn_status_t (*Destroy)(nvsdnn_handle_t);
    nvsdnn_status_t (*SetStream)(nvsdnn_handle_t, nvsdnn_stream_t);
    nvsdnn_status_t (*CreateTensorDescriptor)(nvsdnn_tensor_t *);
    nvsdnn_status_t (*SetTensor4dDescriptor)(nvsdnn_tensor_t, nvsdnn_format_t, nvsdnn_dtype_t, int n, int c, int h,
                                             int w);
    nvsdnn_status_t (*DestroyTensorDescriptor)(nvsdnn_tensor_t);
    nvsdnn_status_t (*CreateFilterDescriptor)(nvsdnn_filter_t *);
    nvsdnn_status_t (*SetFilter4dDescriptor)(nvsdnn_filter_t, nvsdnn_dtype_t, nvsdnn_format_t, int k, int c, int h,
                                             int w);
    nvsdnn_status_t (*DestroyFilterDescriptor)(nvsdnn_filter_t);
    nvsdnn_status_t (*CreateConvolutionDescriptor)(nvsdnn_conv_t *);
    nvsdnn_status_t (*SetConvolution2dDescriptor)(nvsdnn_conv_t, int pad_h, int pad_w, int u, int v, int dil_h,
                                                  int dil_w, nvsdnn_convmode_t, nvsdnn_dtype_t compute);
    nvsdnn_status_t (*SetConvolutionMathType)(nvsdnn_conv_t, nvsdnn_math_t);
    nvsdnn_status_t (*DestroyConvolutionDescriptor)(nvsdnn_conv_t);
    nvsdnn_status_t (*GetConvolution2dForwardOutputDim)(nvsdnn_conv_t, nvsdnn_tensor_t, nvsdnn_filter_t, int *n,
                                                        int *c, int *h, int *w);
    nvsdnn_status_t (*FindConvolutionForwardAlgorithm)(nvsdnn_handle_t, nvsdnn_tensor_t x, nvsdnn_filter_t w,
                                                       nvsdnn_conv_t, nvsdnn_tensor_t y, int requested,
                                                       int *returned, nvsdnn_fwd_perf_t *);
    nvsdnn_status_t (*FindConvolutionBackwardDataAlgorithm)(nvsdnn_handle_t, nvsdnn_filter_t w, nvsdnn_tensor_t dy,
                                                            nvsdnn_conv_t, nvsdnn_tensor_t dx, int requested,
                                                            int *returned, nvsdnn_dgrad_perf_t *);
    nvsdnn_status_t (*FindConvolutionBackwardFilterAlgorithm)(nvsdnn_handle_t, nvsdnn_tensor_t x, nvsdnn_tensor_t dy,
                                                              nvsdnn_conv_t, nvsdnn_filter_t dw, int requested,
                                                              int *returned, nvsdnn_wgrad_perf_t *);
    nvsdnn_status_t (*ConvolutionForward)(nvsdnn_handle_t, const void *alpha, nvsdnn_tensor_t, const void *x,
                                          nvsdnn_filter_t, const void *w, nvsdnn_conv_t, nvsdnn_fwd_algo_t, void *ws,
                                          size_t ws_bytes, const void *beta, nvsdnn_tensor_t, void *y);
    nvsdnn_status_t (*ConvolutionBackwardData)(nvsdnn_handle_t, const void *alpha, nvsdnn_filter_t, const void *w,
                                               nvsdnn_tensor_t, const void *dy, nvsdnn_conv_t, nvsdnn_dgrad_algo_t,
                                               void *ws, size_t ws_bytes, const void *beta, nvsdnn_tensor_t,
                                               void *dx);
    nvsdnn_status_t (*ConvolutionBackwardFilter)(nvsdnn_handle_t, const void *alpha, nvsdnn_tensor_t, const void *x,
                                                 nvsdnn_tensor_t, const void *dy, nvsdnn_conv_t, nvsdnn_wgrad_algo_t,
                                                 void *ws, size_t ws_bytes, const void *beta, nvsdnn_filter_t,
                                                 void *dw);
    nvsdnn_status_t (*DeriveBNTensorDescriptor)(nvsdnn_tensor_t derived, nvsdnn_tensor_t x, nvsdnn_bnmode_t);
    /* The Ex batch norm, as PyTorch's cudnn_batch_norm calls it (CUDNN_BATCHNORM_OPS_BN, no z, no activation):
     * cuDNN picks among more kernels there (e.g. the single-read __half2 ones) than in the plain function. */
    nvsdnn_status_t (*GetBatchNormalizationForwardTrainingExWorkspaceSize)(
        nvsdnn_handle_t, nvsdnn_bnmode_t, nvsdnn_bnops_t, nvsdnn_tensor_t x, nvsdnn_tensor_t z, nvsdnn_tensor_t y,
        nvsdnn_tensor_t param, nvsdnn_activation_t, size_t *bytes);
    nvsdnn_status_t (*GetBatchNormalizationBackwardExWorkspaceSize)(
        nvsdnn_handle_t, nvsdnn_bnmode_t, nvsdnn_bnops_t, nvsdnn_tensor_t x, nvsdnn_tensor_t y, nvsdnn_tensor_t dy,
        nvsdnn_tensor_t dz, nvsdnn_tensor_t dx, nvsdnn_tensor_t dparam, nvsdnn_activation_t, size_t *bytes);
    nvsdnn_status_t (*GetBatchNormalizationTrainingExReserveSpaceSize)(nvsdnn_handle_t, nvsdnn_bnmode_t,
                                                                       nvsdnn_bnops_t, nvsdnn_activation_t,
                                                                       nvsdnn_tensor_t x, size_t *bytes);
    nvsdnn_status_t (*BatchNormalizationForwardTrainingEx)(
        nvsdnn_handle_t, nvsdnn_bnmode_t, nvsdnn_bnops_t, const void *alpha, const void *beta, nvsdnn_tensor_t,
        const void *x, nvsdnn_tensor_t, const void *z, nvsdnn_tensor_t, void *y, nvsdnn_tensor_t param,
        const void *scale, const void *bias, double avg_factor, void *running_mean, void *running_var,
        double epsilon, void *save_mean, void *save_inv_var, nvsdnn_activation_t, void *ws, size_t ws_bytes,
        void *reserve, size_t reserve_bytes);
    nvsdnn_status_t (*BatchNormalizationBackwardEx)(
        nvsdnn_handle_t, nvsdnn_bnmode_t, nvsdnn_bnops_t, const void *alpha_data, const void *beta_data,
        const void *alpha_param, const void *beta_param, nvsdnn_tensor_t, const void *x, nvsdnn_tensor_t,
        const void *y, nvsdnn_tensor_t, const void *dy, nvsdnn_tensor_t, void *dz, nvsdnn_tensor_t, void *dx,
        nvsdnn_tensor_t param, const void *scale, const void *bias, void *dscale, void *dbias, double epsilon,
        const void *save_mean, const void *save_inv_var, nvsdnn_activation_t, void *ws, size_t ws_bytes,
        void *reserve, size_t reserve_bytes);
};

#endif
