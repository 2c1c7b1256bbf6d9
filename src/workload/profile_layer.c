/* A profile's `layer` line: its keys (LAYER_KEYS), their values, and the checks between them: a conv2d geometry
 * against the implicit GEMM, bn and ln against the layer's passes and parameters (profile.h says what each means). */
#include "workload/profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/profile_priv.h"

/* conv2d=H,W,R,S,U,P (profile.h): whole numbers, the filter no larger than the padded input, padding smaller
 * than the filter (more would add output pixels that see nothing but padding). */
static int parse_geom(struct parser *ps, const char *val, nvs_layer *l)
{
    static const char *const which[6] = {"conv2d H", "conv2d W", "conv2d R", "conv2d S", "conv2d stride U",
                                         "conv2d padding P"};
    static const double hi[6] = {MAX_GEOM_SIDE, MAX_GEOM_SIDE, MAX_GEOM_WIN, MAX_GEOM_WIN, MAX_GEOM_WIN, MAX_GEOM_WIN};
    double v[6];
    if (nvs_prof_list(ps, "conv2d", val, which, "H,W,R,S,U,P", 6, 0, MAX_GEOM_SIDE, v)) return -1;
    for (int i = 0; i < 6; i++) {
        double lo = i < 5 ? 1 : 0;
        if (v[i] < lo || v[i] > hi[i])
            return nvs_prof_fail(ps, "conv2d=%s: %s is %.0f, must be %.0f..%.0f", val, which[i], v[i], lo, hi[i]), -1;
    }
    l->geom.h = (int)v[0];
    l->geom.w = (int)v[1];
    l->geom.r = (int)v[2];
    l->geom.s = (int)v[3];
    l->geom.stride = (int)v[4];
    l->geom.pad = (int)v[5];
    if (l->geom.pad >= l->geom.r || l->geom.pad >= l->geom.s)
        return nvs_prof_fail(ps, "conv2d=%s: padding %d is not smaller than the %dx%d filter", val, l->geom.pad,
                             l->geom.r, l->geom.s),
               -1;
    if (l->geom.r > l->geom.h + 2 * l->geom.pad || l->geom.s > l->geom.w + 2 * l->geom.pad)
        return nvs_prof_fail(ps, "conv2d=%s: the %dx%d filter is larger than the %dx%d input padded to %dx%d", val,
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
        return nvs_prof_fail(
                   ps, "layer '%s': gemm K=%.0f is not a whole number of %dx%d filters' input channels (K = C*R*S)",
                   l->name, l->gemm_k, l->geom.r, l->geom.s),
               -1;
    if ((double)ho * wo != l->gemm_m)
        return nvs_prof_fail(ps, "layer '%s': conv2d gives a %dx%d output (%.0f pixels), gemm M=%.0f (M = Hout*Wout)",
                             l->name, ho, wo, (double)ho * wo, l->gemm_m),
               -1;
    if (l->gemm_k / rs > MAX_GEMM_DIM / ((double)l->geom.h * l->geom.w))
        return nvs_prof_fail(
                   ps, "layer '%s': an input of %.0f channels of %dx%d pixels per sample is beyond what cuDNN takes",
                   l->name, l->gemm_k / rs, l->geom.h, l->geom.w),
               -1;
    return 0;
}

/* bn=B: a 2-d batch norm over the layer's output, B of its ew passes (profile.h). */
static int check_bn(struct parser *ps, const nvs_layer *l)
{
    if (l->bn_passes <= 0)
        return nvs_prof_fail(ps,
                             "layer '%s': bn=0: a batch norm makes passes of its own (leave bn= out for other layers)",
                             l->name),
               -1;
    if (l->bn_passes > l->ew_passes)
        return nvs_prof_fail(ps, "layer '%s': bn=%g passes of its batch norm, more than its ew=%g", l->name,
                             l->bn_passes, l->ew_passes),
               -1;
    if (l->gemm_m > 0)
        return nvs_prof_fail(ps, "layer '%s': bn= with gemm: a batch norm is a layer of its own", l->name), -1;
    if (l->params < 2 || fmod(l->params, 2) != 0)
        return nvs_prof_fail(
                   ps,
                   "layer '%s': bn= with params=%.0f: a batch norm has a weight and a bias per channel (params = "
                   "2 * channels)",
                   l->name, l->params),
               -1;
    if (fmod(l->act_elems, l->params / 2) != 0)
        return nvs_prof_fail(
                   ps, "layer '%s': bn= over act=%.0f elements, not a whole number of pixels of its %.0f channels",
                   l->name, l->act_elems, l->params / 2),
               -1;
    if (l->params / 2 > 2147483647.0 || l->act_elems > 2147483647.0)
        return nvs_prof_fail(ps,
                             "layer '%s': a batch norm of %.0f channels over %.0f elements is beyond cuDNN's int sizes",
                             l->name, l->params / 2, l->act_elems),
               -1;
    return 0;
}

static int check_ln(struct parser *ps, const nvs_layer *l)
{
    if (l->ln_passes <= 0)
        return nvs_prof_fail(ps,
                             "layer '%s': ln=0: a LayerNorm makes passes of its own (leave ln= out for other layers)",
                             l->name),
               -1;
    if (l->bn_passes > 0)
        return nvs_prof_fail(ps, "layer '%s': ln= with bn=: a layer is one norm or the other", l->name), -1;
    if (l->ln_passes > l->ew_passes)
        return nvs_prof_fail(ps, "layer '%s': ln=%g passes of its LayerNorm, more than its ew=%g", l->name,
                             l->ln_passes, l->ew_passes),
               -1;
    if (l->gemm_m > 0)
        return nvs_prof_fail(ps, "layer '%s': ln= with gemm: a LayerNorm is a layer of its own", l->name), -1;
    if (l->params < 2 || fmod(l->params, 2) != 0)
        return nvs_prof_fail(
                   ps,
                   "layer '%s': ln= with params=%.0f: a LayerNorm has a weight and a bias per feature (params = "
                   "2 * features)",
                   l->name, l->params),
               -1;
    if (fmod(l->act_elems, l->params / 2) != 0)
        return nvs_prof_fail(ps,
                             "layer '%s': ln= over act=%.0f elements, not a whole number of rows of its %.0f features",
                             l->name, l->act_elems, l->params / 2),
               -1;
    if (l->ew32_passes > 0 && l->ew32_passes < l->ln_passes)
        return nvs_prof_fail(ps,
                             "layer '%s': ln=%g with ew32=%g: autocast runs a LayerNorm in fp32, so its own passes are "
                             "among the fp32 ones",
                             l->name, l->ln_passes, l->ew32_passes),
               -1;
    if (l->params / 2 > 2147483647.0)
        return nvs_prof_fail(ps, "layer '%s': a LayerNorm of %.0f features is beyond the kernels' int sizes", l->name,
                             l->params / 2), -1;
    return 0;
}

nvs_result_t nvs_prof_layer(struct parser *ps, char **tok, const int *quoted, int ntok)
{
    if (ntok < 2) return nvs_prof_fail(ps, "'layer' needs a name");
    if (quoted[1]) return nvs_prof_fail(ps, "layer name must not be quoted");
    nvs_layer l;
    memset(&l, 0, sizeof l);
    if (nvs_prof_name(ps, "layer name", tok[1], sizeof l.name, 0)) return NVS_ERR_INPUT;
    strcpy(l.name, tok[1]);
    int seen_params = 0, seen_gemm = 0, seen_act = 0, seen_ew = 0, seen_nograd = 0, seen_conv = 0, seen_ops = 0,
        seen_casts = 0, seen_tensors = 0, seen_geom = 0, seen_bn = 0, seen_ew32 = 0, seen_ewb = 0,
        seen_perm = 0, seen_ln = 0;
    for (int i = 2; i < ntok; i++) {
        char *kv = tok[i];
        char *eq = strchr(kv, '=');
        if (quoted[i] || !eq) return nvs_prof_fail(ps, "'%s': expected key=value (" LAYER_KEYS ")", kv);
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
        if (!seen) return nvs_prof_fail(ps, "unknown key '%s' (known: " LAYER_KEYS ")", key);
        if (*seen) return nvs_prof_fail(ps, "key '%s' given twice", key);
        *seen = 1;
        if (!strcmp(key, "params")) {
            if (nvs_prof_count(ps, key, val, 0, MAX_COUNT, &l.params)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "act")) {
            if (nvs_prof_count(ps, key, val, 0, MAX_COUNT, &l.act_elems)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "nograd")) {
            if (strcmp(val, "0") && strcmp(val, "1")) return nvs_prof_fail(ps, "nograd=%s: expected 0 or 1", val);
            l.nograd = val[0] == '1';
        } else if (!strcmp(key, "conv")) {
            if (strcmp(val, "0") && strcmp(val, "1")) return nvs_prof_fail(ps, "conv=%s: expected 0 or 1", val);
            l.conv = val[0] == '1';
        } else if (!strcmp(key, "conv2d")) {
            if (parse_geom(ps, val, &l)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "ln")) {
            if (nvs_prof_number(ps, key, val, &l.ln_passes)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "bn")) {
            if (nvs_prof_number(ps, key, val, &l.bn_passes)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "ew32")) {
            if (nvs_prof_number(ps, key, val, &l.ew32_passes)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "perm")) {
            if (nvs_prof_number(ps, key, val, &l.perm_passes)) return NVS_ERR_INPUT;
        } else if (!strcmp(key, "ewb")) {
            if (nvs_prof_number(ps, key, val, &l.ewb_passes)) return NVS_ERR_INPUT;
            if (l.ewb_passes > MAX_EW) return nvs_prof_fail(ps, "ewb=%s: at most %.0f passes", val, MAX_EW);
        } else if (!strcmp(key, "ew")) {
            if (nvs_prof_number(ps, key, val, &l.ew_passes)) return NVS_ERR_INPUT;
            if (l.ew_passes > MAX_EW) return nvs_prof_fail(ps, "ew=%s: at most %.0f passes", val, MAX_EW);
        } else if (!strcmp(key, "gemm")) {
            static const char *const which[3] = {"gemm M", "gemm N", "gemm K"};
            double dim[3];
            if (nvs_prof_list(ps, key, val, which, "M,N,K", 3, 1, MAX_GEMM_DIM, dim)) return NVS_ERR_INPUT;
            l.gemm_m = dim[0];
            l.gemm_n = dim[1];
            l.gemm_k = dim[2];
        } else if (!strcmp(key, "ops")) {
            static const char *const which[2] = {"ops forward", "ops backward"};
            double ops[2];
            if (nvs_prof_list(ps, key, val, which, "forward,backward", 2, 0, MAX_OPS, ops)) return NVS_ERR_INPUT;
            l.ops_fwd = ops[0];
            l.ops_bwd = ops[1];
        } else if (!strcmp(key, "casts")) {
            if (nvs_prof_count(ps, key, val, 0, MAX_OPS, &l.casts)) return NVS_ERR_INPUT;
        } else { /* tensors */
            if (nvs_prof_count(ps, key, val, 0, MAX_OPS, &l.tensors)) return NVS_ERR_INPUT;
        }
    }
    if (!seen_params && !seen_gemm && !seen_act)
        return nvs_prof_fail(ps, "layer '%s' has none of params, gemm, act: it would do nothing", l.name);
    /* given, but zero: no gradients, no GEMM, no output, as much nothing as leaving them out */
    if (!seen_gemm && !(l.params > 0) && !(l.act_elems > 0))
        return nvs_prof_fail(ps, "layer '%s': params=0 and act=0 without gemm: it would do nothing", l.name);
    if (l.ew_passes > 0 && l.act_elems <= 0)
        return nvs_prof_fail(ps, "layer '%s': ew=%g passes over an output of act=0 elements: give act", l.name,
                             l.ew_passes);
    if (l.ewb_passes > 0 && l.act_elems <= 0)
        return nvs_prof_fail(ps, "layer '%s': ewb=%g passes over an output of act=0 elements: give act", l.name,
                             l.ewb_passes);
    if (l.ewb_passes > 0 && l.nograd)
        return nvs_prof_fail(ps,
                             "layer '%s': ewb=%g with nograd=1: a layer autograd never reaches has no backward passes",
                             l.name, l.ewb_passes);
    if (seen_geom && seen_conv && !l.conv)
        return nvs_prof_fail(
            ps, "layer '%s': conv2d= with conv=0: a layer with a convolution's geometry is a convolution", l.name);
    if (seen_geom) l.conv = 1;
    if (l.conv && !seen_gemm)
        return nvs_prof_fail(ps,
                             "layer '%s': %s without gemm: a convolution is given as its implicit GEMM (gemm=M,N,K)",
                             l.name, seen_geom ? "conv2d=" : "conv=1");
    if (seen_geom && check_geom(ps, &l)) return NVS_ERR_INPUT;
    if (seen_bn && check_bn(ps, &l)) return NVS_ERR_INPUT;
    if (seen_ln && check_ln(ps, &l)) return NVS_ERR_INPUT;
    if (seen_ew32 && l.ew32_passes > l.ew_passes - l.bn_passes)
        return nvs_prof_fail(ps, "layer '%s': ew32=%g fp32 passes, more than its %g ew passes%s", l.name, l.ew32_passes,
                             l.ew_passes - l.bn_passes, l.bn_passes > 0 ? " beside its batch norm's own (bn=)" : "");
    if (seen_perm && l.perm_passes > l.ew_passes - l.bn_passes - l.ew32_passes)
        return nvs_prof_fail(
            ps, "layer '%s': perm=%g copies through a view, more than its %g ew passes at the step's precision", l.name,
            l.perm_passes, l.ew_passes - l.bn_passes - l.ew32_passes);
    if (l.perm_passes > 0 && l.gemm_m <= 0)
        return nvs_prof_fail(ps, "layer '%s': perm=%g without gemm: the view swaps the batch with the GEMM's M rows",
                             l.name, l.perm_passes);
    if (l.perm_passes > 0 && fmod(l.act_elems, l.gemm_m) != 0)
        return nvs_prof_fail(ps, "layer '%s': perm=%g with act=%.0f, not a whole number of the GEMM's %.0f rows",
                             l.name, l.perm_passes, l.act_elems, l.gemm_m);
    if (l.nograd && l.params > 0)
        return nvs_prof_fail(ps,
                             "layer '%s': nograd=1 with params=%.0f: a layer autograd never reaches has no gradients",
                             l.name, l.params);
    if (seen_tensors && l.tensors > l.params)
        return nvs_prof_fail(
            ps, "layer '%s': tensors=%.0f with params=%.0f: each parameter tensor holds at least one parameter", l.name,
            l.tensors, l.params);
    if (l.nograd && seen_ops && l.ops_bwd > 0)
        return nvs_prof_fail(ps,
                             "layer '%s': nograd=1 with ops=%.0f,%.0f: a layer autograd never reaches has no backward "
                             "operations",
                             l.name, l.ops_fwd, l.ops_bwd);
    if (!seen_ops) l.ops_fwd = l.ops_bwd = -1;
    if (!seen_casts) l.casts = -1;
    if (!seen_tensors) l.tensors = -1;
    if (l.nograd && ps->p->nlayers > 0 && !ps->p->layers[ps->p->nlayers - 1].nograd)
        return nvs_prof_fail(ps,
                             "layer '%s': nograd=1 after a layer with gradients: only a prefix of the layers (a frozen "
                             "stem) is out of autograd's reach",
                             l.name);
    nvs_result_t r = nvs_prof_reserve(ps, (long long)ps->p->nlayers + 1);
    if (r != NVS_OK) return r;
    ps->p->layers[ps->p->nlayers++] = l;
    return NVS_OK;
}
