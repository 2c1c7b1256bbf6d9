/* Model profiles: parser of the text format described in profile.h, built-in lookup, file loading (PURE: no
 * CUDA/MPI). One pass over the lines; `repeat` blocks are expanded when their `end` is read, so nested blocks
 * multiply out naturally. Every error is "ORIGIN:LINE: what is wrong" in the caller's buffer and
 * NVS_ERR_INPUT; the profile is then left empty (nothing to free). */
#include "workload/profile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/units.h"
#include "workload/profiles/builtin.h"

#define PROFILE_MAGIC "nvscale-profile"
#define PROFILE_VERSION "1"
#define MAX_LINE NVS_LINE_MAX /* characters per line (core/units.h): a layer line is < 200 */
/* "layer NAME" + at most 13 of the 15 keys (LAYER_KEYS: bn and ln each exclude gemm and each other), with room for
 * one more, so that a 14th key gets its own precise refusal (e.g. "bn= with gemm") before "too many fields" */
#define MAX_TOKENS 16
#define MAX_DEPTH 8        /* repeat nesting: transformer stacks need 1-2 */
#define MAX_REPEAT 100000L /* repeat count */
#define MAX_BATCH 1000000L
/* Whole numbers stay exact in a double up to 2^53 ~ 9.0e15; 1e15 elements is far beyond any real layer. */
#define MAX_COUNT 1e15
/* cuBLAS takes int dimensions. */
#define MAX_GEMM_DIM 2147483647.0
/* Memory-bound passes per layer: real layers have 0-10. */
#define MAX_EW 1000.0
/* framework operations, casts or parameter tensors of one layer: a transformer block, the largest layer
 * group a profile line stands for, has tens */
#define MAX_OPS 10000.0
#define LAYER_KEYS "params, gemm, act, ew, ew32, ewb, perm, bn, ln, nograd, conv, conv2d, ops, casts, tensors"
/* conv2d: a filter of at most 64 x 64 pixels, stride at most 64, an input of at most 2^20 pixels a side
 * (real networks: filters 1-11, strides 1-4, inputs up to a few thousand pixels) */
#define MAX_GEOM_WIN 64.0
#define MAX_GEOM_SIDE 1048576.0

struct frame {
    int start; /* index of the block's first layer */
    long count;
    int line; /* line of the `repeat` */
};

struct parser {
    const char *origin;
    int line;
    char *err;
    size_t errlen;
    nvs_profile *p;
    int cap;
    struct frame stack[MAX_DEPTH];
    int depth;
    int have_header, have_name, have_source, have_sample, have_batch, have_dp;
};

static nvs_result_t fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static nvs_result_t fail(struct parser *ps, const char *fmt, ...)
{
    if (ps->err && ps->errlen) {
        int n = snprintf(ps->err, ps->errlen, "%s:%d: ", ps->origin, ps->line);
        if (n >= 0 && (size_t)n < ps->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return NVS_ERR_INPUT;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- numbers ------------------------------------------------------------------------------------------- */

/* Plain or scientific decimal notation only (core/units.h, the one number parser of flags and files): 123, 1.5,
 * .5, 2.5e7, 1E+3. No sign, no suffix, no hex, no inf/nan: K/M suffixes are refused because they are ambiguous
 * between 1000 and 1024. Returns 0 or -1 (message set). */
static int parse_number(struct parser *ps, const char *key, const char *s, double *out)
{
    nvs_num_status st = nvs_parse_decimal(s, out);
    switch (st) {
    case NVS_NUM_OK: return 0;
    case NVS_NUM_EMPTY: return fail(ps, "%s= needs a value", key), -1;
    case NVS_NUM_NEGATIVE: return fail(ps, "%s=%s: must not be negative", key, s), -1;
    case NVS_NUM_SUFFIX:
        return fail(ps, "%s=%s: no K/M/G suffixes (ambiguous between 1000 and 1024): write the number, "
                        "e.g. 25557032 or 2.5557032e7",
                    key, s),
               -1;
    case NVS_NUM_RANGE: return fail(ps, "%s=%s: not a finite number", key, s), -1;
    case NVS_NUM_TINY:
        return fail(ps, "%s=%s: too small: not 0, but below the smallest number held (2.2e-308); write 0 or a larger "
                        "value",
                    key, s),
               -1;
    default:
        return fail(ps, "%s=%s: not a finite decimal number (plain or scientific notation, e.g. 4096 or 2.5e7)",
                    key, s),
               -1;
    }
}

/* A whole number (element count, GEMM dimension) in [lo, hi]. */
static int parse_count(struct parser *ps, const char *key, const char *s, double lo, double hi, double *out)
{
    double v;
    if (parse_number(ps, key, s, &v)) return -1;
    if (v != floor(v)) return fail(ps, "%s=%s: must be a whole number", key, s), -1;
    if (v < lo || v > hi) return fail(ps, "%s=%s: must be between %.0f and %.0f", key, s, lo, hi), -1;
    *out = v;
    return 0;
}

/* key=V1,V2,...: exactly n whole numbers in [lo, hi]; which[i] names value i in messages, `names` all of them. */
static int parse_list(struct parser *ps, const char *key, const char *val, const char *const *which, const char *names,
                      int n, double lo, double hi, double *out)
{
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "%s", val);
    int got = 0;
    char *part = buf;
    for (;;) {
        char *comma = strchr(part, ',');
        if (comma) *comma = '\0';
        if (got < n && parse_count(ps, which[got], part, lo, hi, &out[got])) return -1;
        got++;
        if (!comma) break;
        part = comma + 1;
    }
    if (got != n) return fail(ps, "%s=%s: needs %d values %s, got %d", key, val, n, names, got), -1;
    return 0;
}

/* conv2d=H,W,R,S,U,P (profile.h): whole numbers, the filter no larger than the padded input, padding smaller
 * than the filter (more would add output pixels that see nothing but padding). */
static int parse_geom(struct parser *ps, const char *val, nvs_layer *l)
{
    static const char *const which[6] = {"conv2d H", "conv2d W", "conv2d R", "conv2d S", "conv2d stride U",
                                         "conv2d padding P"};
    static const double hi[6] = {MAX_GEOM_SIDE, MAX_GEOM_SIDE, MAX_GEOM_WIN, MAX_GEOM_WIN, MAX_GEOM_WIN, MAX_GEOM_WIN};
    double v[6];
    if (parse_list(ps, "conv2d", val, which, "H,W,R,S,U,P", 6, 0, MAX_GEOM_SIDE, v)) return -1;
    for (int i = 0; i < 6; i++) {
        double lo = i < 5 ? 1 : 0;
        if (v[i] < lo || v[i] > hi[i])
            return fail(ps, "conv2d=%s: %s is %.0f, must be %.0f..%.0f", val, which[i], v[i], lo, hi[i]), -1;
    }
    l->geom.h = (int)v[0];
    l->geom.w = (int)v[1];
    l->geom.r = (int)v[2];
    l->geom.s = (int)v[3];
    l->geom.stride = (int)v[4];
    l->geom.pad = (int)v[5];
    if (l->geom.pad >= l->geom.r || l->geom.pad >= l->geom.s)
        return fail(ps, "conv2d=%s: padding %d is not smaller than the %dx%d filter", val, l->geom.pad, l->geom.r,
                    l->geom.s), -1;
    if (l->geom.r > l->geom.h + 2 * l->geom.pad || l->geom.s > l->geom.w + 2 * l->geom.pad)
        return fail(ps, "conv2d=%s: the %dx%d filter is larger than the %dx%d input padded to %dx%d", val,
                    l->geom.r, l->geom.s, l->geom.h, l->geom.w, l->geom.h + 2 * l->geom.pad,
                    l->geom.w + 2 * l->geom.pad), -1;
    return 0;
}

/* The geometry agrees with the layer's implicit GEMM (profile.h). */
static int check_geom(struct parser *ps, const nvs_layer *l)
{
    const double rs = (double)l->geom.r * l->geom.s; /* K's share per input channel */
    const int ho = nvs_layer_geom_out(l->geom.h, l->geom.r, l->geom.stride, l->geom.pad);
    const int wo = nvs_layer_geom_out(l->geom.w, l->geom.s, l->geom.stride, l->geom.pad);
    if (fmod(l->gemm_k, rs) != 0)
        return fail(ps, "layer '%s': gemm K=%.0f is not a whole number of %dx%d filters' input channels (K = C*R*S)",
                    l->name, l->gemm_k, l->geom.r, l->geom.s), -1;
    if ((double)ho * wo != l->gemm_m)
        return fail(ps, "layer '%s': conv2d gives a %dx%d output (%.0f pixels), gemm M=%.0f (M = Hout*Wout)", l->name,
                    ho, wo, (double)ho * wo, l->gemm_m), -1;
    if (l->gemm_k / rs > MAX_GEMM_DIM / ((double)l->geom.h * l->geom.w))
        return fail(ps, "layer '%s': an input of %.0f channels of %dx%d pixels per sample is beyond what cuDNN takes",
                    l->name, l->gemm_k / rs, l->geom.h, l->geom.w), -1;
    return 0;
}

/* bn=B: a 2-d batch norm over the layer's output, B of its ew passes (profile.h). */
static int check_bn(struct parser *ps, const nvs_layer *l)
{
    if (l->bn_passes <= 0)
        return fail(ps, "layer '%s': bn=0: a batch norm makes passes of its own (leave bn= out for other layers)",
                    l->name), -1;
    if (l->bn_passes > l->ew_passes)
        return fail(ps, "layer '%s': bn=%g passes of its batch norm, more than its ew=%g", l->name, l->bn_passes,
                    l->ew_passes), -1;
    if (l->gemm_m > 0)
        return fail(ps, "layer '%s': bn= with gemm: a batch norm is a layer of its own", l->name), -1;
    if (l->params < 2 || fmod(l->params, 2) != 0)
        return fail(ps, "layer '%s': bn= with params=%.0f: a batch norm has a weight and a bias per channel (params = "
                        "2 * channels)", l->name, l->params), -1;
    if (fmod(l->act_elems, l->params / 2) != 0)
        return fail(ps, "layer '%s': bn= over act=%.0f elements, not a whole number of pixels of its %.0f channels",
                    l->name, l->act_elems, l->params / 2), -1;
    if (l->params / 2 > 2147483647.0 || l->act_elems > 2147483647.0)
        return fail(ps, "layer '%s': a batch norm of %.0f channels over %.0f elements is beyond cuDNN's int sizes",
                    l->name, l->params / 2, l->act_elems), -1;
    return 0;
}

static int check_ln(struct parser *ps, const nvs_layer *l)
{
    if (l->ln_passes <= 0)
        return fail(ps, "layer '%s': ln=0: a LayerNorm makes passes of its own (leave ln= out for other layers)",
                    l->name), -1;
    if (l->bn_passes > 0) return fail(ps, "layer '%s': ln= with bn=: a layer is one norm or the other", l->name), -1;
    if (l->ln_passes > l->ew_passes)
        return fail(ps, "layer '%s': ln=%g passes of its LayerNorm, more than its ew=%g", l->name, l->ln_passes,
                    l->ew_passes), -1;
    if (l->gemm_m > 0) return fail(ps, "layer '%s': ln= with gemm: a LayerNorm is a layer of its own", l->name), -1;
    if (l->params < 2 || fmod(l->params, 2) != 0)
        return fail(ps, "layer '%s': ln= with params=%.0f: a LayerNorm has a weight and a bias per feature (params = "
                        "2 * features)", l->name, l->params), -1;
    if (fmod(l->act_elems, l->params / 2) != 0)
        return fail(ps, "layer '%s': ln= over act=%.0f elements, not a whole number of rows of its %.0f features",
                    l->name, l->act_elems, l->params / 2), -1;
    if (l->ew32_passes > 0 && l->ew32_passes < l->ln_passes)
        return fail(ps, "layer '%s': ln=%g with ew32=%g: autocast runs a LayerNorm in fp32, so its own passes are "
                        "among the fp32 ones", l->name, l->ln_passes, l->ew32_passes), -1;
    if (l->params / 2 > 2147483647.0)
        return fail(ps, "layer '%s': a LayerNorm of %.0f features is beyond the kernels' int sizes", l->name,
                    l->params / 2), -1;
    return 0;
}

/* A plain positive integer (repeat count, batch): digits only. */
static int parse_int(struct parser *ps, const char *what, const char *s, long lo, long hi, long *out)
{
    const char *c = s;
    while (*c >= '0' && *c <= '9') c++;
    if (c == s || *c || c - s > 9) return fail(ps, "%s '%s': expected a whole number %ld..%ld", what, s, lo, hi), -1;
    long v = strtol(s, NULL, 10);
    if (v < lo || v > hi) return fail(ps, "%s %ld: must be %ld..%ld", what, v, lo, hi), -1;
    *out = v;
    return 0;
}

/* ---- lines and tokens ------------------------------------------------------------------------------------ */

/* Splits `line` in place: blanks separate tokens, a double-quoted token may hold blanks (no escapes), '#'
 * outside quotes starts a comment. quoted[i] says whether token i was quoted. */
static int tokenize(struct parser *ps, char *line, char **tok, int *quoted, int *ntok)
{
    int n = 0;
    char *c = line;
    for (;;) {
        while (*c == ' ' || *c == '\t') c++;
        if (!*c || *c == '#') break;
        if (n == MAX_TOKENS) return fail(ps, "too many fields on one line (at most %d)", MAX_TOKENS), -1;
        if (*c == '"') {
            char *end = strchr(c + 1, '"');
            if (!end) return fail(ps, "unterminated quoted string"), -1;
            if (end[1] && end[1] != ' ' && end[1] != '\t' && end[1] != '#')
                return fail(ps, "text right after a closing quote"), -1;
            *end = '\0';
            quoted[n] = 1;
            tok[n++] = c + 1;
            c = end + 1;
            continue;
        }
        quoted[n] = 0;
        tok[n++] = c;
        while (*c && *c != ' ' && *c != '\t' && *c != '#') {
            if (*c == '"') return fail(ps, "stray quote in '%s'", tok[n - 1]), -1;
            c++;
        }
        if (*c == '#') {
            *c = '\0';
            break;
        }
        if (*c) *c++ = '\0';
    }
    *ntok = n;
    return 0;
}

/* Names: printable ASCII except blank, quote, '#' and '='; profile names also only [A-Za-z0-9._-] because
 * they end up in file names and JSON keys. */
static int check_name(struct parser *ps, const char *what, const char *s, size_t cap, int strict)
{
    size_t len = strlen(s);
    if (len == 0) return fail(ps, "empty %s", what), -1;
    if (len >= cap) return fail(ps, "%s '%.20s...' is %zu characters long: at most %zu", what, s, len, cap - 1), -1;
    for (const char *c = s; *c; c++) {
        unsigned char u = (unsigned char)*c;
        int ok = strict ? ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '.' ||
                           u == '_' || u == '-')
                        : (u > ' ' && u < 0x7f && u != '"' && u != '#' && u != '=');
        if (!ok) return fail(ps, "%s '%s': character '%c' not allowed", what, s, *c), -1;
    }
    return 0;
}

/* ---- layers ---------------------------------------------------------------------------------------------- */

static nvs_result_t reserve(struct parser *ps, long long want)
{
    if (want > NVS_PROFILE_MAX_LAYERS)
        return fail(ps, "more than %d layers after expanding repeat blocks", NVS_PROFILE_MAX_LAYERS);
    if (want <= ps->cap) return NVS_OK;
    long long cap = ps->cap ? ps->cap : 64;
    while (cap < want) cap *= 2;
    if (cap > NVS_PROFILE_MAX_LAYERS) cap = NVS_PROFILE_MAX_LAYERS;
    nvs_layer *nl = realloc(ps->p->layers, (size_t)cap * sizeof *nl);
    if (!nl) {
        set_err(ps->err, ps->errlen, "%s: out of memory for %lld layers", ps->origin, cap);
        return NVS_ERR_NOMEM;
    }
    ps->p->layers = nl;
    ps->cap = (int)cap;
    return NVS_OK;
}

static nvs_result_t parse_layer(struct parser *ps, char **tok, const int *quoted, int ntok)
{
    if (ntok < 2) return fail(ps, "'layer' needs a name");
    if (quoted[1]) return fail(ps, "layer name must not be quoted");
    nvs_layer l;
    memset(&l, 0, sizeof l);
    if (check_name(ps, "layer name", tok[1], sizeof l.name, 0)) return NVS_ERR_INPUT;
    strcpy(l.name, tok[1]);
    int seen_params = 0, seen_gemm = 0, seen_act = 0, seen_ew = 0, seen_nograd = 0, seen_conv = 0, seen_ops = 0,
        seen_casts = 0, seen_tensors = 0, seen_geom = 0, seen_bn = 0, seen_ew32 = 0, seen_ewb = 0,
        seen_perm = 0, seen_ln = 0;
    for (int i = 2; i < ntok; i++) {
        char *kv = tok[i];
        char *eq = strchr(kv, '=');
        if (quoted[i] || !eq) return fail(ps, "'%s': expected key=value (" LAYER_KEYS ")", kv);
        *eq = '\0';
        const char *key = kv, *val = eq + 1;
        int *seen = !strcmp(key, "params") ? &seen_params
                    : !strcmp(key, "gemm") ? &seen_gemm
                    : !strcmp(key, "act")  ? &seen_act
                    : !strcmp(key, "ew")   ? &seen_ew
                    : !strcmp(key, "ew32") ? &seen_ew32
                    : !strcmp(key, "ewb")  ? &seen_ewb
                    : !strcmp(key, "perm") ? &seen_perm
                    : !strcmp(key, "bn")   ? &seen_bn
                    : !strcmp(key, "ln")   ? &seen_ln
                    : !strcmp(key, "nograd") ? &seen_nograd
                    : !strcmp(key, "conv")   ? &seen_conv
                    : !strcmp(key, "conv2d") ? &seen_geom
                    : !strcmp(key, "ops")    ? &seen_ops
                    : !strcmp(key, "casts")  ? &seen_casts
                    : !strcmp(key, "tensors") ? &seen_tensors
                                           : NULL;
        if (!seen) return fail(ps, "unknown key '%s' (known: " LAYER_KEYS ")", key);
        if (*seen) return fail(ps, "key '%s' given twice", key);
        *seen = 1;
        if (!strcmp(key, "params")) {
            if (parse_count(ps, key, val, 0, MAX_COUNT, &l.params)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "act")) {
            if (parse_count(ps, key, val, 0, MAX_COUNT, &l.act_elems)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "nograd")) {
            if (strcmp(val, "0") && strcmp(val, "1")) return fail(ps, "nograd=%s: expected 0 or 1", val);
            l.nograd = val[0] == '1';
        } else if (!strcmp(key, "conv")) {
            if (strcmp(val, "0") && strcmp(val, "1")) return fail(ps, "conv=%s: expected 0 or 1", val);
            l.conv = val[0] == '1';
        } else if (!strcmp(key, "conv2d")) {
            if (parse_geom(ps, val, &l)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "ln")) {
            if (parse_number(ps, key, val, &l.ln_passes)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "bn")) {
            if (parse_number(ps, key, val, &l.bn_passes)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "ew32")) {
            if (parse_number(ps, key, val, &l.ew32_passes)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "perm")) {
            if (parse_number(ps, key, val, &l.perm_passes)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "ewb")) {
            if (parse_number(ps, key, val, &l.ewb_passes)) return NVS_ERR_INPUT;
            if (l.ewb_passes > MAX_EW) return fail(ps, "ewb=%s: at most %.0f passes", val, MAX_EW);
        } else if (!strcmp(key, "ew")) {
            if (parse_number(ps, key, val, &l.ew_passes)) return NVS_ERR_INPUT;
            if (l.ew_passes > MAX_EW) return fail(ps, "ew=%s: at most %.0f passes", val, MAX_EW);
        } else if (!strcmp(key, "gemm")) {
            static const char *const which[3] = {"gemm M", "gemm N", "gemm K"};
            double dim[3];
            if (parse_list(ps, key, val, which, "M,N,K", 3, 1, MAX_GEMM_DIM, dim)) return NVS_ERR_INPUT;
            l.gemm_m = dim[0];
            l.gemm_n = dim[1];
            l.gemm_k = dim[2];
        } else if (!strcmp(key, "ops")) {
            static const char *const which[2] = {"ops forward", "ops backward"};
            double ops[2];
            if (parse_list(ps, key, val, which, "forward,backward", 2, 0, MAX_OPS, ops)) return NVS_ERR_INPUT;
            l.ops_fwd = ops[0];
            l.ops_bwd = ops[1];
        } else if (!strcmp(key, "casts")) {
            if (parse_count(ps, key, val, 0, MAX_OPS, &l.casts)) return NVS_ERR_INPUT;
        } else { /* tensors */
            if (parse_count(ps, key, val, 0, MAX_OPS, &l.tensors)) return NVS_ERR_INPUT;
        }
    }
    if (!seen_params && !seen_gemm && !seen_act)
        return fail(ps, "layer '%s' has none of params, gemm, act: it would do nothing", l.name);
    /* given, but zero: no gradients, no GEMM, no output, as much nothing as leaving them out */
    if (!seen_gemm && !(l.params > 0) && !(l.act_elems > 0))
        return fail(ps, "layer '%s': params=0 and act=0 without gemm: it would do nothing", l.name);
    if (l.ew_passes > 0 && l.act_elems <= 0)
        return fail(ps, "layer '%s': ew=%g passes over an output of act=0 elements: give act", l.name, l.ew_passes);
    if (l.ewb_passes > 0 && l.act_elems <= 0)
        return fail(ps, "layer '%s': ewb=%g passes over an output of act=0 elements: give act", l.name, l.ewb_passes);
    if (l.ewb_passes > 0 && l.nograd)
        return fail(ps, "layer '%s': ewb=%g with nograd=1: a layer autograd never reaches has no backward passes",
                    l.name, l.ewb_passes);
    if (seen_geom && seen_conv && !l.conv)
        return fail(ps, "layer '%s': conv2d= with conv=0: a layer with a convolution's geometry is a convolution",
                    l.name);
    if (seen_geom) l.conv = 1;
    if (l.conv && !seen_gemm)
        return fail(ps, "layer '%s': %s without gemm: a convolution is given as its implicit GEMM (gemm=M,N,K)",
                    l.name, seen_geom ? "conv2d=" : "conv=1");
    if (seen_geom && check_geom(ps, &l)) return NVS_ERR_INPUT;
    if (seen_bn && check_bn(ps, &l)) return NVS_ERR_INPUT;
    if (seen_ln && check_ln(ps, &l)) return NVS_ERR_INPUT;
    if (seen_ew32 && l.ew32_passes > l.ew_passes - l.bn_passes)
        return fail(ps, "layer '%s': ew32=%g fp32 passes, more than its %g ew passes%s", l.name, l.ew32_passes,
                    l.ew_passes - l.bn_passes, l.bn_passes > 0 ? " beside its batch norm's own (bn=)" : "");
    if (seen_perm && l.perm_passes > l.ew_passes - l.bn_passes - l.ew32_passes)
        return fail(ps, "layer '%s': perm=%g copies through a view, more than its %g ew passes at the step's precision",
                    l.name, l.perm_passes, l.ew_passes - l.bn_passes - l.ew32_passes);
    if (l.perm_passes > 0 && l.gemm_m <= 0)
        return fail(ps, "layer '%s': perm=%g without gemm: the view swaps the batch with the GEMM's M rows", l.name,
                    l.perm_passes);
    if (l.perm_passes > 0 && fmod(l.act_elems, l.gemm_m) != 0)
        return fail(ps, "layer '%s': perm=%g with act=%.0f, not a whole number of the GEMM's %.0f rows", l.name,
                    l.perm_passes, l.act_elems, l.gemm_m);
    if (l.nograd && l.params > 0)
        return fail(ps, "layer '%s': nograd=1 with params=%.0f: a layer autograd never reaches has no gradients",
                    l.name, l.params);
    if (seen_tensors && l.tensors > l.params)
        return fail(ps, "layer '%s': tensors=%.0f with params=%.0f: each parameter tensor holds at least one parameter",
                    l.name, l.tensors, l.params);
    if (l.nograd && seen_ops && l.ops_bwd > 0)
        return fail(ps, "layer '%s': nograd=1 with ops=%.0f,%.0f: a layer autograd never reaches has no backward "
                        "operations", l.name, l.ops_fwd, l.ops_bwd);
    if (!seen_ops) l.ops_fwd = l.ops_bwd = -1;
    if (!seen_casts) l.casts = -1;
    if (!seen_tensors) l.tensors = -1;
    if (l.nograd && ps->p->nlayers > 0 && !ps->p->layers[ps->p->nlayers - 1].nograd)
        return fail(ps, "layer '%s': nograd=1 after a layer with gradients: only a prefix of the layers (a frozen "
                        "stem) is out of autograd's reach", l.name);
    nvs_result_t r = reserve(ps, (long long)ps->p->nlayers + 1);
    if (r != NVS_OK) return r;
    ps->p->layers[ps->p->nlayers++] = l;
    return NVS_OK;
}

/* `end`: the block [start, nlayers) is repeated count times in all. */
static nvs_result_t close_repeat(struct parser *ps)
{
    struct frame f = ps->stack[--ps->depth];
    long long len = ps->p->nlayers - f.start;
    if (len == 0) return fail(ps, "empty repeat block (the repeat is on line %d)", f.line);
    /* parse_layer kept nograd=1 to a prefix of the block's first copy; a block of frozen and trainable layers
     * repeated would put its next copy's frozen layers after trainable ones */
    if (f.count > 1 && ps->p->layers[f.start].nograd && !ps->p->layers[ps->p->nlayers - 1].nograd)
        return fail(ps, "layer '%s': nograd=1 after a layer with gradients in the block's next copy (the repeat on "
                        "line %d): only a prefix of the layers (a frozen stem) is out of autograd's reach",
                    ps->p->layers[f.start].name, f.line);
    long long total = ps->p->nlayers + len * (f.count - 1);
    nvs_result_t r = reserve(ps, total);
    if (r != NVS_OK) return r;
    for (long c = 1; c < f.count; c++) {
        memcpy(ps->p->layers + ps->p->nlayers, ps->p->layers + f.start, (size_t)len * sizeof(nvs_layer));
        ps->p->nlayers += (int)len;
    }
    return NVS_OK;
}

/* name / source / sample: one value, a bare word or a quoted string. */
static nvs_result_t parse_text(struct parser *ps, char **tok, int ntok, int *have, char *dst, size_t cap)
{
    if (*have) return fail(ps, "'%s' given twice", tok[0]);
    if (ps->depth) return fail(ps, "'%s' inside a repeat block", tok[0]);
    if (ntok != 2) return fail(ps, "'%s' takes one value (quote it if it has blanks)", tok[0]);
    if (strlen(tok[1]) >= cap) return fail(ps, "%s is %zu characters long: at most %zu", tok[0], strlen(tok[1]), cap - 1);
    if (!tok[1][0]) return fail(ps, "empty %s", tok[0]);
    strcpy(dst, tok[1]);
    *have = 1;
    return NVS_OK;
}

static nvs_result_t parse_line(struct parser *ps, char **tok, int *quoted, int ntok)
{
    nvs_profile *p = ps->p;
    const char *d = tok[0];
    if (quoted[0]) return fail(ps, "a line must start with a directive, not a quoted string");
    if (!ps->have_header) {
        if (strcmp(d, PROFILE_MAGIC))
            return fail(ps, "missing header: the first line must be '" PROFILE_MAGIC " " PROFILE_VERSION "'");
        if (ntok != 2 || strcmp(tok[1], PROFILE_VERSION))
            return fail(ps, "unsupported profile format '%s%s%s': this nvscale reads '" PROFILE_MAGIC
                            " " PROFILE_VERSION "'",
                        d, ntok > 1 ? " " : "", ntok > 1 ? tok[1] : "");
        ps->have_header = 1;
        return NVS_OK;
    }
    if (!strcmp(d, PROFILE_MAGIC)) return fail(ps, "header given twice");
    if (!strcmp(d, "layer")) return parse_layer(ps, tok, quoted, ntok);
    if (!strcmp(d, "repeat")) {
        if (ntok != 2) return fail(ps, "'repeat' takes one count");
        if (ps->depth == MAX_DEPTH) return fail(ps, "repeat blocks nested more than %d deep", MAX_DEPTH);
        long n;
        if (parse_int(ps, "repeat count", tok[1], 1, MAX_REPEAT, &n)) return NVS_ERR_INPUT;
        ps->stack[ps->depth++] = (struct frame){p->nlayers, n, ps->line};
        return NVS_OK;
    }
    if (!strcmp(d, "end")) {
        if (ntok != 1) return fail(ps, "'end' takes nothing");
        if (!ps->depth) return fail(ps, "'end' without 'repeat'");
        return close_repeat(ps);
    }
    if (!strcmp(d, "name")) {
        nvs_result_t r = parse_text(ps, tok, ntok, &ps->have_name, p->name, sizeof p->name);
        if (r != NVS_OK) return r;
        if (check_name(ps, "profile name", p->name, sizeof p->name, 1)) return NVS_ERR_INPUT;
        return NVS_OK;
    }
    if (!strcmp(d, "source")) return parse_text(ps, tok, ntok, &ps->have_source, p->source, sizeof p->source);
    if (!strcmp(d, "sample")) return parse_text(ps, tok, ntok, &ps->have_sample, p->sample, sizeof p->sample);
    if (!strcmp(d, "batch")) {
        if (ps->have_batch) return fail(ps, "'batch' given twice");
        if (ps->depth) return fail(ps, "'batch' inside a repeat block");
        if (ntok != 2) return fail(ps, "'batch' takes one number");
        long b;
        if (parse_int(ps, "batch", tok[1], 1, MAX_BATCH, &b)) return NVS_ERR_INPUT;
        p->default_batch = (int)b;
        ps->have_batch = 1;
        return NVS_OK;
    }
    if (!strcmp(d, "dp")) {
        if (ps->have_dp) return fail(ps, "'dp' given twice");
        if (ps->depth) return fail(ps, "'dp' inside a repeat block");
        if (ntok != 2 || nvs_dp_parse(tok[1], &p->dp))
            return fail(ps, "'dp' takes one of ddp, delay, none (got '%s')", ntok >= 2 ? tok[1] : "");
        ps->have_dp = 1;
        return NVS_OK;
    }
    return fail(ps, "unknown directive '%s' (known: name, source, sample, batch, dp, layer, repeat, end)", d);
}

const char *nvs_dp_name(nvs_dp_mode m)
{
    static const char *const n[NVS_DP_COUNT] = {"ddp", "delay", "none"};
    return (m >= 0 && m < NVS_DP_COUNT) ? n[m] : "?";
}

int nvs_dp_parse(const char *s, nvs_dp_mode *out)
{
    for (int i = 0; s && i < NVS_DP_COUNT; i++)
        if (!strcmp(s, nvs_dp_name((nvs_dp_mode)i))) {
            *out = (nvs_dp_mode)i;
            return 0;
        }
    return -1;
}

nvs_result_t nvs_profile_parse(const char *text, const char *origin, nvs_profile *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (err && errlen) err[0] = '\0';
    struct parser ps = {.origin = origin ? origin : "<profile>", .err = err, .errlen = errlen, .p = p};
    nvs_result_t res = NVS_OK;
    char line[MAX_LINE + 2];
    const char *c = text ? text : "";
    while (*c) {
        ps.line++;
        const char *nl = strchr(c, '\n');
        size_t len = nl ? (size_t)(nl - c) : strlen(c);
        if (len > MAX_LINE) {
            res = fail(&ps, "line longer than %d characters", MAX_LINE);
            goto out;
        }
        memcpy(line, c, len);
        line[len] = '\0';
        c = nl ? nl + 1 : c + len;
        if (len && line[len - 1] == '\r') line[--len] = '\0'; /* CRLF files */
        for (size_t i = 0; i < len; i++) {
            unsigned char u = (unsigned char)line[i];
            if ((u < ' ' && u != '\t') || u == 0x7f) {
                res = fail(&ps, "control character 0x%02x in column %zu (not a text file?)", u, i + 1);
                goto out;
            }
        }
        char *tok[MAX_TOKENS];
        int quoted[MAX_TOKENS], ntok = 0;
        if (tokenize(&ps, line, tok, quoted, &ntok)) {
            res = NVS_ERR_INPUT;
            goto out;
        }
        if (ntok == 0) continue;
        res = parse_line(&ps, tok, quoted, ntok);
        if (res != NVS_OK) goto out;
    }
    /* end of text: errors point at the last line (or at the unterminated repeat) */
    if (ps.line == 0) ps.line = 1;
    if (!ps.have_header) {
        res = fail(&ps, "empty profile: expected the header '" PROFILE_MAGIC " " PROFILE_VERSION "'");
        goto out;
    }
    if (ps.depth) {
        ps.line = ps.stack[ps.depth - 1].line;
        res = fail(&ps, "'repeat' without a matching 'end'");
        goto out;
    }
    if (!ps.have_name) {
        res = fail(&ps, "missing 'name' line");
        goto out;
    }
    if (!ps.have_source) {
        res = fail(&ps, "missing 'source' line (say where the numbers come from)");
        goto out;
    }
    if (p->nlayers == 0) {
        res = fail(&ps, "no layers");
        goto out;
    }
    if (!ps.have_sample) snprintf(p->sample, sizeof p->sample, "one sample");
    if (!ps.have_batch) p->default_batch = 1;
    double passes = 0;
    for (int i = 0; i < p->nlayers; i++) {
        p->total_params += p->layers[i].params;
        p->fwd_flops_per_sample += nvs_layer_fwd_flops(&p->layers[i]);
        passes += p->layers[i].ew_passes + p->layers[i].ewb_passes;
    }
    /* a step that computes nothing (outputs without passes over them, no GEMM, no parameters): its time is the
     * framework's alone, and what divides by the compute (the model's calibration: the measured compute over
     * the modelled one) would divide by zero */
    if (!(p->total_params > 0) && !(p->fwd_flops_per_sample > 0) && !(passes > 0)) {
        res = fail(&ps, "the profile computes nothing: no layer has params, gemm or ew passes over its act");
        goto out;
    }
out:
    if (res != NVS_OK) nvs_profile_free(p);
    return res;
}

void nvs_profile_free(nvs_profile *p)
{
    if (!p) return;
    free(p->layers);
    memset(p, 0, sizeof *p);
}

const char *const *nvs_profile_builtin_names(void) { return nvs_profile_builtin_list(); }

static int looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') != NULL || (n >= 5 && !strcmp(s + n - 5, ".prof"));
}

int nvs_profile_is_builtin(const char *name_or_path)
{
    return !looks_like_path(name_or_path) && nvs_profile_builtin_text(name_or_path) != NULL;
}

nvs_result_t nvs_profile_load(const char *name_or_path, nvs_profile *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (err && errlen) err[0] = '\0';
    if (!name_or_path || !*name_or_path) {
        set_err(err, errlen, "empty model profile name");
        return NVS_ERR_INPUT;
    }
    /* A built-in name wins over a file of the same name in the current directory: write ./NAME for the file. */
    if (!looks_like_path(name_or_path)) {
        const char *text = nvs_profile_builtin_text(name_or_path);
        if (text) {
            char origin[96];
            snprintf(origin, sizeof origin, "built-in profile %s", name_or_path);
            return nvs_profile_parse(text, origin, p, err, errlen);
        }
    }
    struct stat st;
    if (stat(name_or_path, &st) != 0) {
        if (errno == ENOENT && !looks_like_path(name_or_path)) {
            char list[512] = "";
            size_t used = 0;
            for (const char *const *n = nvs_profile_builtin_names(); *n; n++) {
                int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *n);
                if (w < 0 || (size_t)w >= sizeof list - used) break;
                used += (size_t)w;
            }
            set_err(err, errlen, "unknown model profile '%s': not a built-in (%s) and no such file", name_or_path,
                    list);
        } else {
            set_err(err, errlen, "cannot open model profile %s: %s", name_or_path, strerror(errno));
        }
        return NVS_ERR_INPUT;
    }
    if (!S_ISREG(st.st_mode)) {
        set_err(err, errlen, "model profile %s is not a regular file", name_or_path);
        return NVS_ERR_INPUT;
    }
    if ((unsigned long long)st.st_size > NVS_PROFILE_MAX_FILE_BYTES) {
        set_err(err, errlen, "model profile %s is %lld bytes: larger than %d, not a profile", name_or_path,
                (long long)st.st_size, NVS_PROFILE_MAX_FILE_BYTES);
        return NVS_ERR_INPUT;
    }
    /* read here, not through core/out_file.h's reader: that one prints its reason, and the callers print err (one
     * message, not two); the size stat gave, bounded above (what grew since is not read) */
    const size_t size = (size_t)st.st_size;
    FILE *f = fopen(name_or_path, "rb");
    char *text = f ? malloc(size + 1) : NULL;
    size_t len = text ? fread(text, 1, size, f) : 0;
    int e = errno, bad = !f || !text || ferror(f);
    if (f) fclose(f);
    if (bad) {
        if (!f) set_err(err, errlen, "cannot open model profile %s: %s", name_or_path, strerror(e));
        else if (!text) set_err(err, errlen, "out of memory reading model profile %s", name_or_path);
        else set_err(err, errlen, "cannot read model profile %s: %s", name_or_path, strerror(e));
        free(text);
        return f && !text ? NVS_ERR_NOMEM : NVS_ERR_INPUT;
    }
    text[len] = '\0';
    if (strlen(text) < len) {
        set_err(err, errlen, "model profile %s contains a NUL byte: not a text file", name_or_path);
        free(text);
        return NVS_ERR_INPUT;
    }
    nvs_result_t r = nvs_profile_parse(text, name_or_path, p, err, errlen);
    free(text);
    return r;
}
