/* Convolutions of the synthetic step run as convolutions (cuDNN) rather than as their implicit GEMMs, where the
 * profile gives their geometry (conv2d=, workload/profile.h) and cuDNN can be loaded: PyTorch runs a CNN's
 * convolutions in cuDNN, whose kernels at fp32 are 1.25-1.30x slower than cuBLAS's GEMMs of the same FLOPs
 * (docs/fidelity.md, results/h200x1-census-b64) and which transposes NCHW tensors itself at half precision.
 *
 * conv_plan.c is PURE (shapes, math type, algorithm choice: unit-tested without a GPU); conv_cudnn.c loads
 * cuDNN with dlopen and runs the convolutions (GPU executor only). */
#ifndef NVS_TRAIN_CONV_H
#define NVS_TRAIN_CONV_H

#include <stddef.h>

#include "core/err.h"
#include "core/precision.h"
#include "train/cudnn_min.h"
#include "workload/profile.h"

/* --cudnn: whether the step runs in cuDNN the layers PyTorch runs there (convolutions of a profile that gives
 * their geometry; batch norms at fp32 and fp16) */
typedef enum {
    NVS_CUDNN_AUTO = 0, /* cuDNN when libcudnn.so.9 loads, else implicit GEMMs and passes (and the run says why) */
    NVS_CUDNN_ON,       /* cuDNN, or the run stops before measuring anything */
    NVS_CUDNN_OFF,      /* implicit GEMMs (cuBLAS), as profiles without conv2d= always run, and the batch norms in
                         * nvscale's own kernels (train/norm_kernels.h) */
} nvs_cudnn_mode;

const char *nvs_cudnn_mode_name(nvs_cudnn_mode m); /* "auto" / "on" / "off" */
int nvs_cudnn_mode_parse(const char *s, nvs_cudnn_mode *out); /* 0, or -1 when s is none of them */

/* Whether a failure `r` opening or planning cuDNN turns it off (the convolutions then run as implicit GEMMs, the
 * batch norms in nvscale's kernels, and run.json and the summary say why) rather than stopping the run: under
 * --cudnn auto, any failure of cuDNN's, one of its own device buffers not fitting (device_oom: the workspace, the
 * batch norms' statistics or reserve space, none of which the fallback needs) included; never under --cudnn on;
 * never when the host is out of memory (NVS_ERR_NOMEM without device_oom). */
int nvs_cudnn_falls_back(nvs_cudnn_mode m, nvs_result_t r, int device_oom);

/* How a failure of cuDNN's while opening or planning it is logged: under a mode that falls back (--cudnn auto) it
 * is no error, as the run goes on without cuDNN, saying why in an info line (nvs_cudnn_fallback_note) and in
 * run.json: debug (NVS_LOG_*, core/log.h); else an error. */
int nvs_cudnn_fail_level(nvs_cudnn_mode m);
/* Whether a fallback under --cudnn auto is said in that info line: cuDNN loaded, then failed, while planning
 * (opened) or while opening (nvs_cudnn_open's NVS_ERR_CUDNN: cudnnCreate or a call on its handle, such as
 * cudnnSetStream); not when the library or an entry point is missing (NVS_ERR_UNSUPPORTED), which the summary and
 * run.json say. */
int nvs_cudnn_fallback_said(int opened, nvs_result_t r);
/* The step of nvs_cudnn_open (train/conv_cudnn.h) that failed, and the result it returns for it
 * (nvs_cudnn_open_fail): the library or an entry point missing is NVS_ERR_UNSUPPORTED (cuDNN is not here); once
 * it loaded, cudnnCreate or cudnnSetStream failing is NVS_ERR_CUDNN (it is here and failed: said as such). */
typedef enum {
    NVS_CUDNN_AT_LOAD,       /* dlopen libcudnn.so.9 */
    NVS_CUDNN_AT_SYMBOL,     /* an entry point it lacks */
    NVS_CUDNN_AT_CREATE,     /* cudnnCreate */
    NVS_CUDNN_AT_SET_STREAM, /* cudnnSetStream */
} nvs_cudnn_open_step;
nvs_result_t nvs_cudnn_open_fail(nvs_cudnn_open_step s);
/* That info line: "--cudnn auto: WHY; the convolutions run as implicit GEMMs ... instead (run.json ...)". */
void nvs_cudnn_fallback_note(char *buf, size_t len, const char *why);
/* The reason said when one of cuDNN's device buffers did not fit: "out of memory for a B-byte WHAT (F MiB of GPU
 * memory free)", truncated to len. */
void nvs_cudnn_oom_why(char *buf, size_t len, const char *what, size_t bytes, size_t free_bytes);

/* PURE. Why this rank's batch norms run where they do (run.json train.batchnorm.why; NULL: no reason). With cuDNN
 * closed on this rank (cudnn_open 0) at a precision where PyTorch runs them in cuDNN (bn_prec_ok), what closed it
 * (conv_why: missing, failed, or another rank lacking it under --cudnn auto), not bn_why, set while planning them
 * (say, some too large for cuDNN) and stale once cuDNN is off; else bn_why, or conv_why when none ran in cuDNN
 * (native 0). */
const char *nvs_bn_why(int bn_prec_ok, int cudnn_open, int native, const char *bn_why, const char *conv_why);
/* The layers of p cuDNN can run at prec: convolutions that give their geometry (*conv) and batch norms (*bn, 0 at
 * a precision where PyTorch does not run them there; *bn_total: all those the profile marks). Returns the sum of
 * the two (0: nothing for cuDNN to do). */
int nvs_cudnn_layers(const nvs_profile *p, nvs_precision prec, int *conv, int *bn, int *bn_total);

/* One convolution as cuDNN is given it: NCHW input n x c x h x w, k filters of c x r x s, stride u, padding p,
 * output n x k x ho x wo. */
typedef struct {
    int n, c, h, w, k, r, s, u, p, ho, wo;
} nvs_conv_shape;

/* The shape of layer l's convolution at `batch` samples. -1 when the layer has no geometry; -2 when a tensor
 * would hold 2^31 elements or more (cuDNN's 4-d descriptors take int strides): the layer then runs as a GEMM. */
int nvs_conv_shape_of(const nvs_layer *ly, int batch, nvs_conv_shape *out);
int nvs_conv_shape_same(const nvs_conv_shape *a, const nvs_conv_shape *b);
double nvs_conv_in_elems(const nvs_conv_shape *s);  /* n*c*h*w */
double nvs_conv_out_elems(const nvs_conv_shape *s); /* n*k*ho*wo */

/* cuDNN's data type for the step's element type (NVS_ELEM_*, collectives/kernels.h), and the math type: tensor
 * cores at fp16 and bf16, FMA at fp32 without TF32 (as PyTorch asks for them), cuDNN's default at fp32 with TF32
 * (which permits TF32). cuDNN's default math does not permit tensor cores at bf16: with it, ResNet-50's
 * convolutions at bf16 took 142 ms per step at batch 128 on an H200, slower than at fp32
 * (results/h200x1-conv). The compute type is float in every case. */
int nvs_conv_dtype(int elem);
int nvs_conv_math(int elem, int tf32);

/* Which of cuDNN's timed candidates (fastest first, as the Find calls return them) the step runs: the first that
 * succeeded and needs at most `ws_limit` bytes of workspace (PyTorch with cudnn.benchmark takes the fastest one
 * whose workspace it can allocate). -1 when none qualifies. */
int nvs_conv_pick(const nvsdnn_perf_t *perf, int n, double ws_limit);

#endif
