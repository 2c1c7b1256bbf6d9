/* PURE: shapes, types and algorithm choice of the step's cuDNN convolutions (train/conv.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "collectives/kernels.h"
#include "core/log.h"
#include "train/conv.h"
#include "workload/framework.h"

static const char *const mode_names[] = {"auto", "on", "off"};

const char *nvs_cudnn_mode_name(nvs_cudnn_mode m)
{
    return m >= NVS_CUDNN_AUTO && m <= NVS_CUDNN_OFF ? mode_names[m] : "?";
}

int nvs_cudnn_mode_parse(const char *s, nvs_cudnn_mode *out)
{
    for (int i = 0; i <= NVS_CUDNN_OFF; i++)
        if (s && !strcmp(s, mode_names[i])) {
            *out = (nvs_cudnn_mode)i;
            return 0;
        }
    return -1;
}

int nvs_cudnn_falls_back(nvs_cudnn_mode m, nvs_result_t r, int device_oom)
{
    return m == NVS_CUDNN_AUTO && r != NVS_OK && (r != NVS_ERR_NOMEM || device_oom);
}

int nvs_cudnn_fail_level(nvs_cudnn_mode m)
{
    return nvs_cudnn_falls_back(m, NVS_ERR_CUDNN, 0) ? NVS_LOG_DEBUG : NVS_LOG_ERROR;
}

int nvs_cudnn_fallback_said(int opened, nvs_result_t r) { return r != NVS_OK && (opened || r == NVS_ERR_CUDNN); }

nvs_result_t nvs_cudnn_open_fail(nvs_cudnn_open_step s)
{
    return s == NVS_CUDNN_AT_LOAD || s == NVS_CUDNN_AT_SYMBOL ? NVS_ERR_UNSUPPORTED : NVS_ERR_CUDNN;
}

void nvs_cudnn_fallback_note(char *buf, size_t len, const char *why)
{
    snprintf(buf, len, "--cudnn auto: %s; the convolutions run as implicit GEMMs in cuBLAS and the batch norms in "
                       "nvscale's kernels instead (run.json train.conv.fallback and .why)", why);
}

void nvs_cudnn_oom_why(char *buf, size_t len, const char *what, size_t bytes, size_t free_bytes)
{
    snprintf(buf, len, "out of memory for a %zu-byte %s (%.1f MiB of GPU memory free)", bytes, what,
             (double)free_bytes / 1048576.0);
}

const char *nvs_bn_why(int bn_prec_ok, int cudnn_open, int native, const char *bn_why, const char *conv_why)
{
    if (bn_prec_ok && !cudnn_open && conv_why[0]) return conv_why;
    if (bn_why[0]) return bn_why;
    return !native && conv_why[0] ? conv_why : NULL;
}

int nvs_cudnn_layers(const nvs_profile *p, nvs_precision prec, int *conv, int *bn, int *bn_total)
{
    int c = 0, b = 0;
    for (int l = 0; l < p->nlayers; l++) {
        c += nvs_layer_has_geom(&p->layers[l]);
        b += p->layers[l].bn_passes > 0;
    }
    if (conv) *conv = c;
    if (bn_total) *bn_total = b;
    if (!nvs_bn_in_cudnn(prec)) b = 0;
    if (bn) *bn = b;
    return c + b;
}

double nvs_conv_in_elems(const nvs_conv_shape *s) { return (double)s->n * s->c * s->h * s->w; }
double nvs_conv_out_elems(const nvs_conv_shape *s) { return (double)s->n * s->k * s->ho * s->wo; }

int nvs_conv_shape_of(const nvs_layer *ly, int batch, nvs_conv_shape *out)
{
    if (!nvs_layer_has_geom(ly) || batch < 1) return -1;
    nvs_conv_shape s;
    s.n = batch;
    s.r = ly->geom.r;
    s.s = ly->geom.s;
    s.c = (int)nvs_layer_geom_channels(ly); /* whole: profile_layer.c checked K = C*R*S */
    s.h = ly->geom.h;
    s.w = ly->geom.w;
    s.k = (int)ly->gemm_n;
    s.u = ly->geom.stride;
    s.p = ly->geom.pad;
    s.ho = nvs_layer_geom_out(s.h, s.r, s.u, s.p);
    s.wo = nvs_layer_geom_out(s.w, s.s, s.u, s.p);
    if (nvs_conv_in_elems(&s) > INT_MAX || nvs_conv_out_elems(&s) > INT_MAX || (double)s.k * s.c * s.r * s.s > INT_MAX)
        return -2;
    *out = s;
    return 0;
}

int nvs_conv_shape_same(const nvs_conv_shape *a, const nvs_conv_shape *b)
{
    return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w && a->k == b->k && a->r == b->r &&
           a->s == b->s && a->u == b->u && a->p == b->p;
}

int nvs_conv_dtype(int elem)
{
    return elem == NVS_ELEM_BF16 ? NVSDNN_DATA_BFLOAT16 : elem == NVS_ELEM_F16 ? NVSDNN_DATA_HALF : NVSDNN_DATA_FLOAT;
}

int nvs_conv_math(int elem, int tf32)
{
    if (elem == NVS_ELEM_F16 || elem == NVS_ELEM_BF16) return NVSDNN_TENSOR_OP_MATH;
    return elem == NVS_ELEM_F32 && !tf32 ? NVSDNN_FMA_MATH : NVSDNN_DEFAULT_MATH;
}

int nvs_conv_pick(const nvsdnn_perf_t *perf, int n, double ws_limit)
{
    for (int i = 0; i < n; i++)
        if (perf[i].status == NVSDNN_STATUS_SUCCESS && perf[i].time >= 0 && (double)perf[i].memory <= ws_limit)
            return i;
    return -1;
}
