/* cuDNN, loaded at run time (dlopen "libcudnn.so.9"), running the step's convolutions (train/conv.h) on the GPU
 * executor's compute stream. Nothing here is needed to build nvscale: the declarations are train/cudnn_min.h. */
#ifndef NVS_CUDNN_ON_H
#define NVS_CUDNN_ON_H

#include "train/conv.h"

typedef struct nvs_cudnn nvs_cudnn;

/* Loads cuDNN and makes a handle on the current GPU, issuing on `stream` (a cudaStream_t), for a profile of
 * `nlayers` layers. NVS_ERR_UNSUPPORTED with the reason in `why` when the library or one of its entry points is
 * missing; NVS_ERR_CUDNN with the reason when cudnnCreate (no GPU it supports) or a call on the handle it made
 * failed (nvs_cudnn_open_fail). It logs nothing: the caller says the reason (nvs_cudnn_fallback_said). */
nvs_result_t nvs_cudnn_open(void *stream, int nlayers, nvs_cudnn **out, char *why, size_t len);
/* Whether cuDNN loads here, with every entry point (no GPU needed): NVS_ERR_UNSUPPORTED and the reason if not. */
nvs_result_t nvs_cudnn_probe(char *why, size_t len);
/* "cuDNN 9.19.0" */
const char *nvs_cudnn_describe(const nvs_cudnn *c);
size_t nvs_cudnn_version(const nvs_cudnn *c);

/* Layer l runs as this convolution: descriptors, and per direction the algorithm cuDNN's Find call timed fastest
 * within `ws_limit` bytes of workspace (PyTorch with cudnn.benchmark = True does the same); layers of one shape
 * share them, as PyTorch's benchmark cache does. `dgrad` = 0: no input gradient is ever asked for (the first
 * layer); `wgrad` = 0: no weight gradient (a frozen layer). After the last layer and batch norm,
 * nvs_cudnn_workspace() allocates, once, the largest workspace the choices need (and the batch norms' statistics
 * and reserve space; one that does not fit: NVS_ERR_NOMEM, and *why says which, its bytes and the memory free);
 * adding a layer or a batch norm after it is refused (NVS_ERR_USAGE): the convolutions replayed as CUDA graphs
 * hold the workspace's address, so it never moves. */
nvs_result_t nvs_cudnn_add_layer(nvs_cudnn *c, int l, const nvs_conv_shape *s, int elem, int tf32, int dgrad,
                                 int wgrad, double ws_limit);
nvs_result_t nvs_cudnn_workspace(nvs_cudnn *c, double *bytes, char *why, size_t len);
int nvs_cudnn_has_layer(const nvs_cudnn *c, int l);

/* The three convolutions of layer l (NCHW tensors of the layer's shape; dw in the data type of x). */
nvs_result_t nvs_cudnn_fwd(nvs_cudnn *c, int l, const void *x, const void *w, void *y);
nvs_result_t nvs_cudnn_dgrad(nvs_cudnn *c, int l, const void *dy, const void *w, void *dx);
nvs_result_t nvs_cudnn_wgrad(nvs_cudnn *c, int l, const void *x, const void *dy, void *dw);

/* Layer l's batch norm (workload/profile.h bn=) in cuDNN, spatial mode over an NCHW input of n x ch x pixels, in
 * the step's element type, with PyTorch's eps and momentum; its parameters and their gradients are fp32 (the
 * step's master weights). Call nvs_cudnn_workspace() after the last layer. */
nvs_result_t nvs_cudnn_add_bn(nvs_cudnn *c, int l, int n, int ch, int pixels, int elem);
int nvs_cudnn_has_bn(const nvs_cudnn *c, int l);
nvs_result_t nvs_cudnn_bn_fwd(nvs_cudnn *c, int l, const void *x, void *y, const float *scale, const float *bias);
nvs_result_t nvs_cudnn_bn_bwd(nvs_cudnn *c, int l, const void *x, const void *dy, void *dx, const float *scale,
                              float *dscale, float *dbias);

/* What was chosen, per distinct shape (for run.json): shape i's dimensions and per direction (0 forward, 1 input
 * gradient, 2 weight gradient) cuDNN's algorithm number, its time in Find (ms) and workspace (bytes); algo -1
 * for a direction never run. */
int nvs_cudnn_nshapes(const nvs_cudnn *c);
void nvs_cudnn_shape_info(const nvs_cudnn *c, int i, nvs_conv_shape *s, int algo[3], double ms[3], double ws[3],
                          int *layers);

/* How the convolution calls ran (conv_cudnn.c conv_call): how many (layer, direction) calls replay as CUDA graphs
 * of cuDNN's kernels, how many run direct because their capture failed, and why the first failed (NULL: none) */
void nvs_cudnn_graphs(const nvs_cudnn *c, int *replayed, int *direct, const char **why);

/* The level cuDNN's failures are logged at from here on (nvs_cudnn_fail_level: debug while planning under --cudnn
 * auto, which falls back; an error otherwise, the default), and the last failure said, "" if none: for the
 * caller's reason when it falls back. */
void nvs_cudnn_set_fail_level(nvs_cudnn *c, int level);
const char *nvs_cudnn_last_error(const nvs_cudnn *c);

void nvs_cudnn_close(nvs_cudnn *c);

#endif
