/* Model profiles: parser of the text format described in profile.h (PURE: no CUDA/MPI); profile_priv.h lists its
 * other files. One pass over the lines; `repeat` blocks are expanded when their `end` is read, so nested blocks
 * multiply out naturally. Every error is "ORIGIN:LINE: what is wrong" in the caller's buffer and
 * NVS_ERR_INPUT; the profile is then left empty (nothing to free). */
#include "workload/profile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/profile_priv.h"

nvs_result_t nvs_prof_fail(struct parser *ps, const char *fmt, ...)
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

void nvs_prof_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- layers ---------------------------------------------------------------------------------------------- */

nvs_result_t nvs_prof_reserve(struct parser *ps, long long want)
{
    if (want > NVS_PROFILE_MAX_LAYERS)
        return nvs_prof_fail(ps, "more than %d layers after expanding repeat blocks", NVS_PROFILE_MAX_LAYERS);
    if (want <= ps->cap) return NVS_OK;
    long long cap = ps->cap ? ps->cap : 64;
    while (cap < want) cap *= 2;
    if (cap > NVS_PROFILE_MAX_LAYERS) cap = NVS_PROFILE_MAX_LAYERS;
    nvs_layer *nl = realloc(ps->p->layers, (size_t)cap * sizeof *nl);
    if (!nl) {
        nvs_prof_set_err(ps->err, ps->errlen, "%s: out of memory for %lld layers", ps->origin, cap);
        return NVS_ERR_NOMEM;
    }
    ps->p->layers = nl;
    ps->cap = (int)cap;
    return NVS_OK;
}

/* `end`: the block [start, nlayers) is repeated count times in all. */
static nvs_result_t close_repeat(struct parser *ps)
{
    struct frame f = ps->stack[--ps->depth];
    long long len = ps->p->nlayers - f.start;
    if (len == 0) return nvs_prof_fail(ps, "empty repeat block (the repeat is on line %d)", f.line);
    /* parse_layer kept nograd=1 to a prefix of the block's first copy; a block of frozen and trainable layers
     * repeated would put its next copy's frozen layers after trainable ones */
    if (f.count > 1 && ps->p->layers[f.start].nograd && !ps->p->layers[ps->p->nlayers - 1].nograd)
        return nvs_prof_fail(
            ps,
            "layer '%s': nograd=1 after a layer with gradients in the block's next copy (the repeat on "
            "line %d): only a prefix of the layers (a frozen stem) is out of autograd's reach",
            ps->p->layers[f.start].name, f.line);
    long long total = ps->p->nlayers + len * (f.count - 1);
    nvs_result_t r = nvs_prof_reserve(ps, total);
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
    if (*have) return nvs_prof_fail(ps, "'%s' given twice", tok[0]);
    if (ps->depth) return nvs_prof_fail(ps, "'%s' inside a repeat block", tok[0]);
    if (ntok != 2) return nvs_prof_fail(ps, "'%s' takes one value (quote it if it has blanks)", tok[0]);
    if (strlen(tok[1]) >= cap)
        return nvs_prof_fail(ps, "%s is %zu characters long: at most %zu", tok[0], strlen(tok[1]), cap - 1);
    if (!tok[1][0]) return nvs_prof_fail(ps, "empty %s", tok[0]);
    strcpy(dst, tok[1]);
    *have = 1;
    return NVS_OK;
}

static nvs_result_t parse_line(struct parser *ps, char **tok, int *quoted, int ntok)
{
    nvs_profile *p = ps->p;
    const char *d = tok[0];
    if (quoted[0]) return nvs_prof_fail(ps, "a line must start with a directive, not a quoted string");
    if (!ps->have_header) {
        if (strcmp(d, PROFILE_MAGIC))
            return nvs_prof_fail(ps, "missing header: the first line must be '" PROFILE_MAGIC " " PROFILE_VERSION "'");
        if (ntok != 2 || strcmp(tok[1], PROFILE_VERSION))
            return nvs_prof_fail(ps, "unsupported profile format '%s%s%s': this nvscale reads '" PROFILE_MAGIC
                                     " " PROFILE_VERSION "'",
                                 d, ntok > 1 ? " " : "", ntok > 1 ? tok[1] : "");
        ps->have_header = 1;
        return NVS_OK;
    }
    if (!strcmp(d, PROFILE_MAGIC)) return nvs_prof_fail(ps, "header given twice");
    if (!strcmp(d, "layer")) return nvs_prof_layer(ps, tok, quoted, ntok);
    if (!strcmp(d, "repeat")) {
        if (ntok != 2) return nvs_prof_fail(ps, "'repeat' takes one count");
        if (ps->depth == MAX_DEPTH) return nvs_prof_fail(ps, "repeat blocks nested more than %d deep", MAX_DEPTH);
        long n;
        if (nvs_prof_int(ps, "repeat count", tok[1], 1, MAX_REPEAT, &n)) return NVS_ERR_INPUT;
        ps->stack[ps->depth++] = (struct frame){p->nlayers, n, ps->line};
        return NVS_OK;
    }
    if (!strcmp(d, "end")) {
        if (ntok != 1) return nvs_prof_fail(ps, "'end' takes nothing");
        if (!ps->depth) return nvs_prof_fail(ps, "'end' without 'repeat'");
        return close_repeat(ps);
    }
    if (!strcmp(d, "name")) {
        nvs_result_t r = parse_text(ps, tok, ntok, &ps->have_name, p->name, sizeof p->name);
        if (r != NVS_OK) return r;
        if (nvs_prof_name(ps, "profile name", p->name, sizeof p->name, 1)) return NVS_ERR_INPUT;
        return NVS_OK;
    }
    if (!strcmp(d, "source")) return parse_text(ps, tok, ntok, &ps->have_source, p->source, sizeof p->source);
    if (!strcmp(d, "sample")) return parse_text(ps, tok, ntok, &ps->have_sample, p->sample, sizeof p->sample);
    if (!strcmp(d, "batch")) {
        if (ps->have_batch) return nvs_prof_fail(ps, "'batch' given twice");
        if (ps->depth) return nvs_prof_fail(ps, "'batch' inside a repeat block");
        if (ntok != 2) return nvs_prof_fail(ps, "'batch' takes one number");
        long b;
        if (nvs_prof_int(ps, "batch", tok[1], 1, MAX_BATCH, &b)) return NVS_ERR_INPUT;
        p->default_batch = (int)b;
        ps->have_batch = 1;
        return NVS_OK;
    }
    if (!strcmp(d, "dp")) {
        if (ps->have_dp) return nvs_prof_fail(ps, "'dp' given twice");
        if (ps->depth) return nvs_prof_fail(ps, "'dp' inside a repeat block");
        if (ntok != 2 || nvs_dp_parse(tok[1], &p->dp))
            return nvs_prof_fail(ps, "'dp' takes one of ddp, delay, none (got '%s')", ntok >= 2 ? tok[1] : "");
        ps->have_dp = 1;
        return NVS_OK;
    }
    return nvs_prof_fail(ps, "unknown directive '%s' (known: name, source, sample, batch, dp, layer, repeat, end)", d);
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
            res = nvs_prof_fail(&ps, "line longer than %d characters", MAX_LINE);
            goto out;
        }
        memcpy(line, c, len);
        line[len] = '\0';
        c = nl ? nl + 1 : c + len;
        if (len && line[len - 1] == '\r') line[--len] = '\0'; /* CRLF files */
        for (size_t i = 0; i < len; i++) {
            unsigned char u = (unsigned char)line[i];
            if ((u < ' ' && u != '\t') || u == 0x7f) {
                res = nvs_prof_fail(&ps, "control character 0x%02x in column %zu (not a text file?)", u, i + 1);
                goto out;
            }
        }
        char *tok[MAX_TOKENS];
        int quoted[MAX_TOKENS], ntok = 0;
        if (nvs_prof_tokenize(&ps, line, tok, quoted, &ntok)) {
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
        res = nvs_prof_fail(&ps, "empty profile: expected the header '" PROFILE_MAGIC " " PROFILE_VERSION "'");
        goto out;
    }
    if (ps.depth) {
        ps.line = ps.stack[ps.depth - 1].line;
        res = nvs_prof_fail(&ps, "'repeat' without a matching 'end'");
        goto out;
    }
    if (!ps.have_name) {
        res = nvs_prof_fail(&ps, "missing 'name' line");
        goto out;
    }
    if (!ps.have_source) {
        res = nvs_prof_fail(&ps, "missing 'source' line (say where the numbers come from)");
        goto out;
    }
    if (p->nlayers == 0) {
        res = nvs_prof_fail(&ps, "no layers");
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
        res = nvs_prof_fail(&ps, "the profile computes nothing: no layer has params, gemm or ew passes over its act");
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
