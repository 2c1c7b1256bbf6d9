/* cuDNN loaded at run time (train/conv_cudnn.h): dlopen, dlsym of the calls in cudnn_min.h, descriptors per
 * distinct convolution shape, algorithms found by timing, the convolutions themselves. Every cuDNN status is
 * checked and reported with cuDNN's own text. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu_check.h"
#include "core/log.h"
#include "train/conv_cudnn.h"
#include "train/norm_kernels.h"

/* The shared-library name of cuDNN 9 (the legacy API used here is also cuDNN 8's, whose library is .so.8; 9 is
 * what PyTorch 2.x wheels ship, in site-packages/nvidia/cudnn/lib). */
#define CUDNN_LIB "libcudnn.so.9"

struct shape_state {
    nvs_conv_shape s;
    nvsdnn_tensor_t x, y;
    nvsdnn_filter_t w;
    nvsdnn_conv_t conv[3]; /* one per direction: each carries its chosen algorithm's math type */
    int algo[3];           /* -1: not run */
    float ms[3];
    size_t ws[3];
    int layers;
};

/* a batch norm's tensors: NCHW input of n x c x pixels x 1, and cuDNN's derived per-channel parameter tensor;
 * the workspace its forward and backward ask for (in the shared one) and the reserve space each layer of this
 * shape keeps from its forward to its backward */
struct bn_state {
    int n, c, pixels, elem;
    nvsdnn_tensor_t x, param;
    size_t ws_fwd, ws_bwd, reserve;
};

/* A convolution call replayed as a CUDA graph (see conv_call below): the kernels cuDNN launched for it, captured
 * once with the pointers it was given; state 0 = not captured yet, 1 = exec ready, -1 = called directly */
struct conv_graph {
    const void *p[3];
    cudaGraphExec_t exec;
    int state;
};

struct nvs_cudnn {
    void *lib;
    cudaStream_t stream;
    struct conv_graph *graphs; /* per layer and direction (l * 3 + d) */
    int graphs_ready, graphs_direct;
    char graph_why[160]; /* why the first one that could not be captured was not */
    int fail_level;      /* nvs_cudnn_set_fail_level: NVS_LOG_ERROR unless set */
    char last_error[256];
    struct nvsdnn_api api;
    nvsdnn_handle_t h;
    char describe[48];
    size_t version;
    int nlayers;
    int *shape_of; /* per layer: index into shapes, -1 = not a cuDNN convolution */
    struct shape_state *shapes;
    int nshapes, cap;
    void *ws;
    size_t ws_bytes;
    int planned; /* nvs_cudnn_workspace() has run: no layer or batch norm is added after it (see there) */
    int *bn_of; /* per layer: index into bns, -1 = not a cuDNN batch norm */
    struct bn_state *bns;
    int nbns, bn_cap;
    /* each batch norm layer's own running mean and variance, saved mean and inverse variance (4 x its channels,
     * as a BatchNorm2d keeps them): at bn_stat_off[l] in bn_stats, bn_stat_total floats in all */
    size_t *bn_stat_off, bn_stat_total;
    float *bn_stats;
    size_t *bn_reserve_off, bn_reserve_total; /* per layer: its reserve space at bn_reserve_off[l] bytes */
    char *bn_reserve;
};

/* A failure of cuDNN's, said at the handle's level and kept as its last error */
static void say(nvs_cudnn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(nvs_cudnn *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->last_error, sizeof c->last_error, fmt, ap);
    va_end(ap);
    nvs_log(c->fail_level, "%s", c->last_error);
}

void nvs_cudnn_set_fail_level(nvs_cudnn *c, int level) { c->fail_level = level; }
const char *nvs_cudnn_last_error(const nvs_cudnn *c) { return c->last_error; }

static nvs_result_t dnn_fail(nvs_cudnn *c, const char *call, nvsdnn_status_t st)
{
    const char *s = c->api.GetErrorString ? c->api.GetErrorString(st) : NULL;
    say(c, "%s failed: %s (cuDNN status %d)", call, s ? s : "unknown cuDNN error", st);
    return NVS_ERR_CUDNN;
}

#define DNN_TRY(c, call)                                                                                    \
    do {                                                                                                    \
        nvsdnn_status_t st_ = (call);                                                                       \
        if (st_ != NVSDNN_STATUS_SUCCESS) return dnn_fail((c), #call, st_);                                 \
    } while (0)

/* dlsym into a function pointer without the object/function pointer cast warning */
static int load_sym(void *lib, const char *name, void *fnptr)
{
    void *p = dlsym(lib, name);
    memcpy(fnptr, &p, sizeof p);
    return p != NULL;
}

static const char *load_api(void *lib, struct nvsdnn_api *a)
{
    struct {
        const char *name;
        void *slot;
    } syms[] = {
        {"cudnnGetVersion", &a->GetVersion},
        {"cudnnGetErrorString", &a->GetErrorString},
        {"cudnnCreate", &a->Create},
        {"cudnnDestroy", &a->Destroy},
        {"cudnnSetStream", &a->SetStream},
        {"cudnnCreateTensorDescriptor", &a->CreateTensorDescriptor},
        {"cudnnSetTensor4dDescriptor", &a->SetTensor4dDescriptor},
        {"cudnnDestroyTensorDescriptor", &a->DestroyTensorDescriptor},
        {"cudnnCreateFilterDescriptor", &a->CreateFilterDescriptor},
        {"cudnnSetFilter4dDescriptor", &a->SetFilter4dDescriptor},
        {"cudnnDestroyFilterDescriptor", &a->DestroyFilterDescriptor},
        {"cudnnCreateConvolutionDescriptor", &a->CreateConvolutionDescriptor},
        {"cudnnSetConvolution2dDescriptor", &a->SetConvolution2dDescriptor},
        {"cudnnSetConvolutionMathType", &a->SetConvolutionMathType},
        {"cudnnDestroyConvolutionDescriptor", &a->DestroyConvolutionDescriptor},
        {"cudnnGetConvolution2dForwardOutputDim", &a->GetConvolution2dForwardOutputDim},
        {"cudnnFindConvolutionForwardAlgorithm", &a->FindConvolutionForwardAlgorithm},
        {"cudnnFindConvolutionBackwardDataAlgorithm", &a->FindConvolutionBackwardDataAlgorithm},
        {"cudnnFindConvolutionBackwardFilterAlgorithm", &a->FindConvolutionBackwardFilterAlgorithm},
        {"cudnnConvolutionForward", &a->ConvolutionForward},
        {"cudnnConvolutionBackwardData", &a->ConvolutionBackwardData},
        {"cudnnConvolutionBackwardFilter", &a->ConvolutionBackwardFilter},
        {"cudnnDeriveBNTensorDescriptor", &a->DeriveBNTensorDescriptor},
        {"cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize",
         &a->GetBatchNormalizationForwardTrainingExWorkspaceSize},
        {"cudnnGetBatchNormalizationBackwardExWorkspaceSize", &a->GetBatchNormalizationBackwardExWorkspaceSize},
        {"cudnnGetBatchNormalizationTrainingExReserveSpaceSize", &a->GetBatchNormalizationTrainingExReserveSpaceSize},
        {"cudnnBatchNormalizationForwardTrainingEx", &a->BatchNormalizationForwardTrainingEx},
        {"cudnnBatchNormalizationBackwardEx", &a->BatchNormalizationBackwardEx},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (!load_sym(lib, syms[i].name, syms[i].slot)) return syms[i].name;
    return NULL;
}

/* dlopen and the entry points, or NVS_ERR_UNSUPPORTED with the reason. The library stays mapped either way (as
 * after nvs_cudnn_close: cuDNN registers handlers with the CUDA runtime that a dlclose would leave dangling). */
static nvs_result_t load(void **lib, struct nvsdnn_api *api, char *why, size_t len)
{
    *lib = dlopen(CUDNN_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!*lib) {
        const char *e = dlerror();
        snprintf(why, len,
                 "%s not loaded (%s); PyTorch's pip wheels keep it in site-packages/nvidia/cudnn/lib: add that "
                 "folder to LD_LIBRARY_PATH",
                 CUDNN_LIB, e ? e : "not found");
        return nvs_cudnn_open_fail(NVS_CUDNN_AT_LOAD);
    }
    const char *missing = load_api(*lib, api);
    if (!missing) return NVS_OK;
    snprintf(why, len, "%s has no %s", CUDNN_LIB, missing);
    return nvs_cudnn_open_fail(NVS_CUDNN_AT_SYMBOL);
}

nvs_result_t nvs_cudnn_probe(char *why, size_t len)
{
    void *lib;
    struct nvsdnn_api api;
    return load(&lib, &api, why, len);
}

nvs_result_t nvs_cudnn_open(void *stream, int nlayers, nvs_cudnn **out, char *why, size_t len)
{
    *out = NULL;
    nvs_cudnn *c = calloc(1, sizeof *c);
    int *shape_of = calloc(nlayers > 0 ? 2 * (size_t)nlayers : 1, sizeof *shape_of);
    size_t *stat_off = calloc(nlayers > 0 ? 2 * (size_t)nlayers : 1, sizeof *stat_off);
    if (!c || !shape_of || !stat_off) {
        free(c);
        free(shape_of);
        free(stat_off);
        snprintf(why, len, "out of memory");
        return NVS_ERR_NOMEM;
    }
    c->graphs = calloc(nlayers > 0 ? 3 * (size_t)nlayers : 1, sizeof *c->graphs);
    if (!c->graphs) {
        free(c);
        free(shape_of);
        free(stat_off);
        snprintf(why, len, "out of memory");
        return NVS_ERR_NOMEM;
    }
    c->stream = (cudaStream_t)stream;
    c->shape_of = shape_of;
    c->bn_stat_off = stat_off;
    c->bn_reserve_off = stat_off + nlayers;
    c->bn_of = shape_of + nlayers;
    c->nlayers = nlayers;
    for (int l = 0; l < 2 * nlayers; l++) c->shape_of[l] = -1;
    nvs_result_t r = load(&c->lib, &c->api, why, len);
    if (r != NVS_OK) {
        nvs_cudnn_close(c);
        return r;
    }
    c->version = c->api.GetVersion();
    /* cuDNN 9 numbers its versions major*10000 + minor*100 + patch (91900 = 9.19.0); 8 used major*1000 */
    size_t v = c->version;
    if (v >= 90000)
        snprintf(c->describe, sizeof c->describe, "cuDNN %zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
    else
        snprintf(c->describe, sizeof c->describe, "cuDNN %zu.%zu.%zu", v / 1000, v / 100 % 10, v % 100);
    nvsdnn_status_t st = c->api.Create(&c->h);
    if (st != NVSDNN_STATUS_SUCCESS) {
        /* it loaded and failed (no GPU it supports, a driver too old): said as cudnnSetStream's failure is, in
         * the info line under --cudnn auto and in the caller's error under --cudnn on */
        const char *s = c->api.GetErrorString(st);
        snprintf(why, len, "%s: cudnnCreate failed: %s (cuDNN status %d)", c->describe, s ? s : "?", st);
        c->h = NULL;
        nvs_cudnn_close(c);
        return nvs_cudnn_open_fail(NVS_CUDNN_AT_CREATE);
    }
    st = c->api.SetStream(c->h, stream);
    if (st != NVSDNN_STATUS_SUCCESS) {
        /* the reason goes to the caller, not to the log: under --cudnn auto this falls back (an info line, said
         * by train_gpu_cudnn.c nvs_tg_cudnn_setup), under --cudnn on the caller's error names it. dnn_fail here
         * printed "error:" at the handle's default level before the caller could set it (nvs_cudnn_set_fail_level) */
        const char *e = c->api.GetErrorString(st);
        snprintf(why, len, "%s: cudnnSetStream failed: %s (cuDNN status %d)", c->describe, e ? e : "?", st);
        nvs_cudnn_close(c);
        return nvs_cudnn_open_fail(NVS_CUDNN_AT_SET_STREAM);
    }
    *out = c;
    return NVS_OK;
}

const char *nvs_cudnn_describe(const nvs_cudnn *c) { return c->describe; }
size_t nvs_cudnn_version(const nvs_cudnn *c) { return c->version; }
int nvs_cudnn_has_layer(const nvs_cudnn *c, int l) { return c && l >= 0 && l < c->nlayers && c->shape_of[l] >= 0; }
int nvs_cudnn_nshapes(const nvs_cudnn *c) { return c ? c->nshapes : 0; }

void nvs_cudnn_shape_info(const nvs_cudnn *c, int i, nvs_conv_shape *s, int algo[3], double ms[3], double ws[3],
                          int *layers)
{
    const struct shape_state *e = &c->shapes[i];
    *s = e->s;
    for (int d = 0; d < 3; d++) {
        algo[d] = e->algo[d];
        ms[d] = e->ms[d];
        ws[d] = (double)e->ws[d];
    }
    *layers = e->layers;
}

/* Direction d's algorithm: cuDNN's Find times every candidate (fastest first); the first that fits is kept, and
 * its math type is set on that direction's descriptor, as PyTorch does with the one it picked. */
static nvs_result_t find(nvs_cudnn *c, struct shape_state *e, int d, double ws_limit)
{
    static const char *const what[3] = {"forward", "input-gradient", "weight-gradient"};
    nvsdnn_perf_t perf[NVSDNN_MAX_ALGOS];
    memset(perf, 0, sizeof perf);
    int got = 0;
    if (d == 0)
        DNN_TRY(c, c->api.FindConvolutionForwardAlgorithm(c->h, e->x, e->w, e->conv[0], e->y, NVSDNN_MAX_ALGOS, &got,
                                                          perf));
    else if (d == 1)
        DNN_TRY(c, c->api.FindConvolutionBackwardDataAlgorithm(c->h, e->w, e->y, e->conv[1], e->x, NVSDNN_MAX_ALGOS,
                                                               &got, perf));
    else
        DNN_TRY(c, c->api.FindConvolutionBackwardFilterAlgorithm(c->h, e->x, e->y, e->conv[2], e->w,
                                                                 NVSDNN_MAX_ALGOS, &got, perf));
    if (got > NVSDNN_MAX_ALGOS) got = NVSDNN_MAX_ALGOS;
    int i = nvs_conv_pick(perf, got, ws_limit);
    if (i < 0) {
        const nvs_conv_shape *s = &e->s;
        say(c, "cuDNN has no %s algorithm for the convolution %dx%dx%dx%d, %d filters %dx%d, stride %d, pad %d "
            "within %.0f MiB of workspace (%d tried)", what[d], s->n, s->c, s->h, s->w, s->k, s->r, s->s, s->u, s->p,
            ws_limit / 1048576.0, got);
        return NVS_ERR_CUDNN;
    }
    e->algo[d] = perf[i].algo;
    e->ms[d] = perf[i].time;
    e->ws[d] = perf[i].memory;
    DNN_TRY(c, c->api.SetConvolutionMathType(e->conv[d], perf[i].math_type));
    return NVS_OK;
}

static nvs_result_t make_shape(nvs_cudnn *c, struct shape_state *e, int elem, int tf32, double ws_limit, int dgrad,
                               int wgrad)
{
    const nvs_conv_shape *s = &e->s;
    const int dt = nvs_conv_dtype(elem);
    DNN_TRY(c, c->api.CreateTensorDescriptor(&e->x));
    DNN_TRY(c, c->api.CreateTensorDescriptor(&e->y));
    DNN_TRY(c, c->api.CreateFilterDescriptor(&e->w));
    DNN_TRY(c, c->api.SetTensor4dDescriptor(e->x, NVSDNN_TENSOR_NCHW, dt, s->n, s->c, s->h, s->w));
    DNN_TRY(c, c->api.SetTensor4dDescriptor(e->y, NVSDNN_TENSOR_NCHW, dt, s->n, s->k, s->ho, s->wo));
    DNN_TRY(c, c->api.SetFilter4dDescriptor(e->w, dt, NVSDNN_TENSOR_NCHW, s->k, s->c, s->r, s->s));
    for (int d = 0; d < 3; d++) {
        DNN_TRY(c, c->api.CreateConvolutionDescriptor(&e->conv[d]));
        DNN_TRY(c, c->api.SetConvolution2dDescriptor(e->conv[d], s->p, s->p, s->u, s->u, 1, 1,
                                                     NVSDNN_CROSS_CORRELATION, NVSDNN_DATA_FLOAT));
        DNN_TRY(c, c->api.SetConvolutionMathType(e->conv[d], nvs_conv_math(elem, tf32)));
    }
    /* cuDNN's own output size must be the one the profile's GEMM implies (profile_layer.c checked the formula) */
    int n = 0, k = 0, ho = 0, wo = 0;
    DNN_TRY(c, c->api.GetConvolution2dForwardOutputDim(e->conv[0], e->x, e->w, &n, &k, &ho, &wo));
    if (n != s->n || k != s->k || ho != s->ho || wo != s->wo) {
        say(c, "cuDNN makes the convolution's output %dx%dx%dx%d, the profile %dx%dx%dx%d", n, k, ho, wo, s->n, s->k,
            s->ho, s->wo);
        return NVS_ERR_CUDNN;
    }
    NVS_CHECK(find(c, e, 0, ws_limit));
    if (dgrad) NVS_CHECK(find(c, e, 1, ws_limit));
    return wgrad ? find(c, e, 2, ws_limit) : NVS_OK;
}

/* Room for one more element in *arr (n used of *cap, each `size` bytes): doubles it when full. -1: no memory. */
static int grow(void **arr, int *cap, int n, size_t size)
{
    if (n < *cap) return 0;
    int nc = *cap ? 2 * *cap : 16;
    void *p = realloc(*arr, (size_t)nc * size);
    if (!p) return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

nvs_result_t nvs_cudnn_add_layer(nvs_cudnn *c, int l, const nvs_conv_shape *s, int elem, int tf32, int dgrad,
                                 int wgrad, double ws_limit)
{
    if (l < 0 || l >= c->nlayers || c->planned) return NVS_ERR_USAGE;
    for (int i = 0; i < c->nshapes; i++)
        if (nvs_conv_shape_same(&c->shapes[i].s, s)) {
            struct shape_state *e = &c->shapes[i];
            if (dgrad && e->algo[1] < 0) NVS_CHECK(find(c, e, 1, ws_limit));
            if (wgrad && e->algo[2] < 0) NVS_CHECK(find(c, e, 2, ws_limit));
            c->shape_of[l] = i;
            e->layers++;
            return NVS_OK;
        }
    if (grow((void **)&c->shapes, &c->cap, c->nshapes, sizeof *c->shapes)) return NVS_ERR_NOMEM;
    struct shape_state *e = &c->shapes[c->nshapes++];
    memset(e, 0, sizeof *e);
    e->s = *s;
    for (int d = 0; d < 3; d++) e->algo[d] = -1; /* nothing chosen: a half-built entry is never run */
    NVS_CHECK(make_shape(c, e, elem, tf32, ws_limit, dgrad, wgrad));
    c->shape_of[l] = c->nshapes - 1;
    e->layers = 1;
    return NVS_OK;
}

static nvs_result_t not_planned(int l, const char *what);

int nvs_cudnn_has_bn(const nvs_cudnn *c, int l) { return c && l >= 0 && l < c->nlayers && c->bn_of[l] >= 0; }

/* layer l's reserve space: its own, since its backward runs after other layers' forwards (256-byte aligned, as
 * cudaMalloc's own blocks are) */
static void reserve_for(nvs_cudnn *c, int l, size_t bytes)
{
    c->bn_reserve_off[l] = c->bn_reserve_total;
    c->bn_reserve_total += (bytes + 255) / 256 * 256;
}

nvs_result_t nvs_cudnn_add_bn(nvs_cudnn *c, int l, int n, int ch, int pixels, int elem)
{
    if (l < 0 || l >= c->nlayers || n < 1 || ch < 1 || pixels < 1 || c->planned) return NVS_ERR_USAGE;
    c->bn_stat_off[l] = c->bn_stat_total;
    c->bn_stat_total += 4 * (size_t)ch;
    for (int i = 0; i < c->nbns; i++) {
        const struct bn_state *b = &c->bns[i];
        if (b->n == n && b->c == ch && b->pixels == pixels && b->elem == elem) {
            c->bn_of[l] = i;
            reserve_for(c, l, b->reserve);
            return NVS_OK;
        }
    }
    if (grow((void **)&c->bns, &c->bn_cap, c->nbns, sizeof *c->bns)) return NVS_ERR_NOMEM;
    struct bn_state *b = &c->bns[c->nbns++];
    memset(b, 0, sizeof *b);
    b->n = n;
    b->c = ch;
    b->pixels = pixels;
    b->elem = elem;
    DNN_TRY(c, c->api.CreateTensorDescriptor(&b->x));
    DNN_TRY(c, c->api.CreateTensorDescriptor(&b->param));
    DNN_TRY(c, c->api.SetTensor4dDescriptor(b->x, NVSDNN_TENSOR_NCHW, nvs_conv_dtype(elem), n, ch, pixels, 1));
    DNN_TRY(c, c->api.DeriveBNTensorDescriptor(b->param, b->x, NVSDNN_BATCHNORM_SPATIAL));
    DNN_TRY(c, c->api.GetBatchNormalizationForwardTrainingExWorkspaceSize(
                   c->h, NVSDNN_BATCHNORM_SPATIAL, NVSDNN_BATCHNORM_OPS_BN, b->x, NULL, b->x, b->param, NULL,
                   &b->ws_fwd));
    DNN_TRY(c, c->api.GetBatchNormalizationBackwardExWorkspaceSize(c->h, NVSDNN_BATCHNORM_SPATIAL,
                                                                   NVSDNN_BATCHNORM_OPS_BN, b->x, b->x, b->x, NULL,
                                                                   b->x, b->param, NULL, &b->ws_bwd));
    DNN_TRY(c, c->api.GetBatchNormalizationTrainingExReserveSpaceSize(c->h, NVSDNN_BATCHNORM_SPATIAL,
                                                                      NVSDNN_BATCHNORM_OPS_BN, NULL, b->x,
                                                                      &b->reserve));
    c->bn_of[l] = c->nbns - 1;
    reserve_for(c, l, b->reserve);
    return NVS_OK;
}

nvs_result_t nvs_cudnn_bn_fwd(nvs_cudnn *c, int l, const void *x, void *y, const float *scale, const float *bias)
{
    if (!nvs_cudnn_has_bn(c, l) || !c->bn_stats) return not_planned(l, "batch-norm");
    const struct bn_state *b = &c->bns[c->bn_of[l]];
    const float one = 1.0f, zero = 0.0f;
    float *st = c->bn_stats + c->bn_stat_off[l];
    void *rs = b->reserve ? c->bn_reserve + c->bn_reserve_off[l] : NULL;
    DNN_TRY(c, c->api.BatchNormalizationForwardTrainingEx(
                   c->h, NVSDNN_BATCHNORM_SPATIAL, NVSDNN_BATCHNORM_OPS_BN, &one, &zero, b->x, x, NULL, NULL, b->x, y,
                   b->param, scale, bias, NVS_BN_MOMENTUM, st, st + b->c, NVS_BN_EPS, st + 2 * b->c, st + 3 * b->c,
                   NULL, c->ws, c->ws_bytes, rs, b->reserve));
    return NVS_OK;
}

nvs_result_t nvs_cudnn_bn_bwd(nvs_cudnn *c, int l, const void *x, const void *dy, void *dx, const float *scale,
                              float *dscale, float *dbias)
{
    if (!nvs_cudnn_has_bn(c, l) || !c->bn_stats) return not_planned(l, "batch-norm");
    const struct bn_state *b = &c->bns[c->bn_of[l]];
    const float one = 1.0f, zero = 0.0f;
    const float *st = c->bn_stats + c->bn_stat_off[l];
    void *rs = b->reserve ? c->bn_reserve + c->bn_reserve_off[l] : NULL;
    /* y is only read with a fused activation (none here): cuDNN's documentation allows NULL with OPS_BN */
    DNN_TRY(c, c->api.BatchNormalizationBackwardEx(c->h, NVSDNN_BATCHNORM_SPATIAL, NVSDNN_BATCHNORM_OPS_BN, &one,
                                                   &zero, &one, &zero, b->x, x, NULL, NULL, b->x, dy, NULL, NULL,
                                                   b->x, dx, b->param, scale, NULL, dscale, dbias, NVS_BN_EPS,
                                                   st + 2 * b->c, st + 3 * b->c, NULL, c->ws, c->ws_bytes, rs,
                                                   b->reserve));
    return NVS_OK;
}

/* One of cuDNN's own device buffers. Memory running out is told apart from other failures: *why then says what did
 * not fit and how much was free, nothing is logged here, and the caller falls back or stops with it
 * (nvs_cudnn_falls_back): NVS_ERR_NOMEM. Any other failure is an error said here (NVS_ERR_CUDA). */
static nvs_result_t dnn_alloc(void **p, size_t bytes, const char *what, char *why, size_t len)
{
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaSuccess) return NVS_OK;
    *p = NULL;
    if (e != cudaErrorMemoryAllocation) return nvs_cuda_alloc_fail(bytes, what, e);
    (void)cudaGetLastError(); /* not sticky: said by the caller, not again at the next launch (gpu_check.h) */
    size_t fr = 0, tot = 0;
    if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
        (void)cudaGetLastError(); /* the free memory is only part of the message: 0 then */
        fr = 0;
    }
    nvs_cudnn_oom_why(why, len, what, bytes, fr);
    return NVS_ERR_NOMEM;
}

/* Once, after the last layer: the workspace is never moved afterwards, because the replayed convolutions
 * (conv_call) hold its address; a second call only says its size, and adding a layer or a batch norm after it is
 * refused (NVS_ERR_USAGE). Each of cuDNN's own buffers that does not fit, the workspace as the batch norms'
 * statistics and reserve space: NVS_ERR_NOMEM and *why (dnn_alloc). */
nvs_result_t nvs_cudnn_workspace(nvs_cudnn *c, double *bytes, char *why, size_t len)
{
    if (c->planned) {
        *bytes = (double)c->ws_bytes;
        return NVS_OK;
    }
    if (c->bn_stat_total > 0 && !c->bn_stats) {
        NVS_CHECK(dnn_alloc((void **)&c->bn_stats, c->bn_stat_total * sizeof(float), "batch-norm statistics buffer",
                            why, len));
        /* finite values before the first forward writes them: on the stream the batch norms run on (a non-blocking
         * one, which does not wait for the legacy default stream a plain cudaMemset runs on) */
        CUDA_TRY(cudaMemsetAsync(c->bn_stats, 0, c->bn_stat_total * sizeof(float), c->stream));
    }
    if (c->bn_reserve_total > 0 && !c->bn_reserve)
        NVS_CHECK(dnn_alloc((void **)&c->bn_reserve, c->bn_reserve_total, "batch-norm reserve space", why, len));
    size_t need = 0;
    for (int i = 0; i < c->nshapes; i++)
        for (int d = 0; d < 3; d++)
            if (c->shapes[i].algo[d] >= 0 && c->shapes[i].ws[d] > need) need = c->shapes[i].ws[d];
    for (int i = 0; i < c->nbns; i++) { /* the batch norms run between the convolutions, in the same workspace */
        if (c->bns[i].ws_fwd > need) need = c->bns[i].ws_fwd;
        if (c->bns[i].ws_bwd > need) need = c->bns[i].ws_bwd;
    }
    *bytes = (double)need;
    if (need > 0) NVS_CHECK(dnn_alloc(&c->ws, need, "workspace", why, len));
    c->ws_bytes = need;
    c->planned = 1;
    return NVS_OK;
}

static struct shape_state *layer_shape(nvs_cudnn *c, int l, int d)
{
    if (!nvs_cudnn_has_layer(c, l)) return NULL;
    struct shape_state *e = &c->shapes[c->shape_of[l]];
    return e->algo[d] >= 0 && e->ws[d] <= c->ws_bytes ? e : NULL;
}

static nvs_result_t not_planned(int l, const char *what)
{
    nvs_error("layer %d's %s was not planned in cuDNN (internal error)", l, what);
    return NVS_ERR_CUDNN;
}

/* The direction's cuDNN call itself: forward (d 0: x, w -> y), input gradient (1: dy, w -> dx), weight gradient
 * (2: x, dy -> dw), with the algorithm Find chose */
static nvsdnn_status_t conv_issue(nvs_cudnn *c, const struct shape_state *e, int d, const void *a, const void *b,
                                  void *out)
{
    const float one = 1.0f, zero = 0.0f;
    if (d == 0)
        return c->api.ConvolutionForward(c->h, &one, e->x, a, e->w, b, e->conv[0], e->algo[0], c->ws, c->ws_bytes,
                                         &zero, e->y, out);
    if (d == 1)
        return c->api.ConvolutionBackwardData(c->h, &one, e->w, b, e->y, a, e->conv[1], e->algo[1], c->ws,
                                              c->ws_bytes, &zero, e->x, out);
    return c->api.ConvolutionBackwardFilter(c->h, &one, e->x, a, e->y, b, e->conv[2], e->algo[2], c->ws, c->ws_bytes,
                                            &zero, e->w, out);
}

static nvs_result_t conv_direct(nvs_cudnn *c, const struct shape_state *e, int d, const void *a, const void *b,
                                void *out)
{
    static const char *const call[3] = {"cudnnConvolutionForward", "cudnnConvolutionBackwardData",
                                        "cudnnConvolutionBackwardFilter"};
    nvsdnn_status_t st = conv_issue(c, e, d, a, b, out);
    return st == NVSDNN_STATUS_SUCCESS ? NVS_OK : dnn_fail(c, call[d], st);
}

/* Why a capture failed (the first such, for run.json), and that call direct from now on */
static void graph_off(nvs_cudnn *c, struct conv_graph *g, const char *what, cudaError_t err)
{
    g->state = -1;
    c->graphs_direct++;
    if (!c->graph_why[0])
        snprintf(c->graph_why, sizeof c->graph_why, "%s%s%s", what, err ? ": " : "",
                 err ? cudaGetErrorString(err) : "");
}

/* One convolution of layer l in direction d. cuDNN 9's legacy convolution calls take the host 60-160 us each
 * (results/h200x1-issueby: 9-25 ms per ResNet-50 step for its 158 calls, against 1 ms for its 106 batch-norm
 * calls), where PyTorch's host cost per operation over that step is about lm290m's, which has no convolutions
 * (docs/fidelity.md): the step's host lane would then be cuDNN's legacy front end, not the framework it stands
 * for. So each call is captured once (in a warm-up step) as a CUDA graph of the kernels cuDNN chose, with the
 * same pointers, workspace and stream, and replayed with cudaGraphLaunch: the same kernels on the GPU, a graph
 * launch's host cost. A call that cannot be captured, or that comes with other pointers than its capture's (the
 * executor's buffers are fixed: it should not), runs direct from then on (run.json's conv.graphs says how many,
 * and why). */
static nvs_result_t conv_call(nvs_cudnn *c, int l, int d, const void *a, const void *b, void *out)
{
    struct shape_state *e = layer_shape(c, l, d);
    if (!e) {
        static const char *const what[3] = {"forward convolution", "input-gradient convolution",
                                            "weight-gradient convolution"};
        return not_planned(l, what[d]);
    }
    struct conv_graph *g = &c->graphs[3 * l + d];
    if (g->state == 1 && g->p[0] == a && g->p[1] == b && g->p[2] == out) {
        CUDA_TRY(cudaGraphLaunch(g->exec, c->stream));
        return NVS_OK;
    }
    if (g->state == 1) { /* called with other buffers than its capture's: direct from now on, and said */
        c->graphs_ready--;
        graph_off(c, g, "a convolution called on other buffers than when it was captured", cudaSuccess);
    }
    if (g->state != 0) return conv_direct(c, e, d, a, b, out);
    /* relaxed: cuDNN may make calls a stricter capture mode refuses (attributes, queries), none of which runs work */
    cudaError_t err = cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeRelaxed);
    if (err != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: read it off before the direct call's own checks (gpu_check.h) */
        graph_off(c, g, "cudaStreamBeginCapture", err);
        return conv_direct(c, e, d, a, b, out);
    }
    nvsdnn_status_t st = conv_issue(c, e, d, a, b, out);
    cudaGraph_t graph = NULL;
    err = cudaStreamEndCapture(c->stream, &graph);
    if (st == NVSDNN_STATUS_SUCCESS && err == cudaSuccess && graph)
        err = cudaGraphInstantiate(&g->exec, graph, 0);
    if (graph) CUDA_CLEANUP(cudaGraphDestroy(graph)); /* the exec keeps what it needs */
    if (st != NVSDNN_STATUS_SUCCESS || err != cudaSuccess || !graph) {
        (void)cudaGetLastError(); /* a failed capture's error is not sticky: clear it before the direct call */
        g->exec = NULL;
        graph_off(c, g, st != NVSDNN_STATUS_SUCCESS ? "cuDNN failed under stream capture" : "capturing a convolution",
                  err);
        return conv_direct(c, e, d, a, b, out);
    }
    g->state = 1;
    g->p[0] = a;
    g->p[1] = b;
    g->p[2] = out;
    c->graphs_ready++;
    CUDA_TRY(cudaGraphLaunch(g->exec, c->stream));
    return NVS_OK;
}

nvs_result_t nvs_cudnn_fwd(nvs_cudnn *c, int l, const void *x, const void *w, void *y)
{
    return conv_call(c, l, 0, x, w, y);
}

nvs_result_t nvs_cudnn_dgrad(nvs_cudnn *c, int l, const void *dy, const void *w, void *dx)
{
    return conv_call(c, l, 1, dy, w, dx);
}

nvs_result_t nvs_cudnn_wgrad(nvs_cudnn *c, int l, const void *x, const void *dy, void *dw)
{
    return conv_call(c, l, 2, x, dy, dw);
}

void nvs_cudnn_graphs(const nvs_cudnn *c, int *replayed, int *direct, const char **why)
{
    *replayed = c ? c->graphs_ready : 0;
    *direct = c ? c->graphs_direct : 0;
    *why = c && c->graph_why[0] ? c->graph_why : NULL;
}

void nvs_cudnn_close(nvs_cudnn *c)
{
    if (!c) return;
    /* cuDNN's descriptors are host objects: a failure to destroy one changes nothing measured and leaves no device
     * memory behind, so it is not reported. The device buffers and the handle are (a warning, as gpu_check.h's
     * cleanup): this runs mid-run too, when --cudnn auto or another rank turns cuDNN off before measuring. */
    for (int i = 0; i < c->nshapes; i++) {
        struct shape_state *e = &c->shapes[i];
        if (e->x) (void)c->api.DestroyTensorDescriptor(e->x);
        if (e->y) (void)c->api.DestroyTensorDescriptor(e->y);
        if (e->w) (void)c->api.DestroyFilterDescriptor(e->w);
        for (int d = 0; d < 3; d++)
            if (e->conv[d]) (void)c->api.DestroyConvolutionDescriptor(e->conv[d]);
    }
    for (int i = 0; i < c->nbns; i++) {
        if (c->bns[i].x) (void)c->api.DestroyTensorDescriptor(c->bns[i].x);
        if (c->bns[i].param) (void)c->api.DestroyTensorDescriptor(c->bns[i].param);
    }
    for (int i = 0; c->graphs && i < 3 * c->nlayers; i++)
        if (c->graphs[i].exec) CUDA_CLEANUP(cudaGraphExecDestroy(c->graphs[i].exec));
    free(c->graphs);
    if (c->bn_stats) CUDA_CLEANUP(cudaFree(c->bn_stats));
    if (c->bn_reserve) CUDA_CLEANUP(cudaFree(c->bn_reserve));
    free(c->bns);
    if (c->ws) CUDA_CLEANUP(cudaFree(c->ws));
    nvsdnn_status_t st = c->h ? c->api.Destroy(c->h) : NVSDNN_STATUS_SUCCESS;
    if (st != NVSDNN_STATUS_SUCCESS) {
        const char *why = c->api.GetErrorString ? c->api.GetErrorString(st) : NULL;
        nvs_warn("cleanup: cudnnDestroy failed: %s (cuDNN status %d)", why ? why : "unknown cuDNN error", st);
    }
    /* the library stays mapped: cuDNN registers handlers with the CUDA runtime that a dlclose would leave
     * dangling (PyTorch never unloads it either) */
    free(c->shapes);
    free(c->shape_of);
    free(c->bn_stat_off);
    free(c);
}
