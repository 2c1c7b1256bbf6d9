/* run.json -> nvs_ck_run (see check_read.h). jansson only; no CUDA/MPI. */
#include "check/check_read.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "core/out_file.h"

typedef struct {
    char *err;
    size_t errlen;
} ctx;

static nvs_result_t bad(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static nvs_result_t bad(ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return NVS_ERR_INPUT;
}

/* Optional number: absent or null -> NAN. */
static nvs_result_t get_num(ctx *c, json_t *obj, const char *key, const char *where, double *out)
{
    json_t *v = json_object_get(obj, key);
    *out = NAN;
    if (!v || json_is_null(v)) return NVS_OK;
    if (!json_is_number(v)) return bad(c, "%s.%s: expected a number or null", where, key);
    *out = json_number_value(v);
    if (!isfinite(*out) || *out < 0) return bad(c, "%s.%s: %g is not a measurement (must be >= 0)", where, key, *out);
    return NVS_OK;
}

/* Integer in [lo, hi]; absent: *out = dflt unless required. null counts as absent. */
static nvs_result_t get_int(ctx *c, json_t *obj, const char *key, const char *where, long lo, long hi, int required,
                            long dflt, long *out)
{
    json_t *v = json_object_get(obj, key);
    *out = dflt;
    if (!v || json_is_null(v)) {
        if (required) return bad(c, "%s.%s: missing (expected an integer %ld..%ld)", where, key, lo, hi);
        return NVS_OK;
    }
    if (!json_is_integer(v)) return bad(c, "%s.%s: expected an integer", where, key);
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) return bad(c, "%s.%s: %lld out of range %ld..%ld", where, key, (long long)x, lo, hi);
    *out = (long)x;
    return NVS_OK;
}

static nvs_result_t get_str(ctx *c, json_t *obj, const char *key, const char *where, int required, char *buf,
                            size_t len)
{
    json_t *v = json_object_get(obj, key);
    buf[0] = '\0';
    if (!v || json_is_null(v)) {
        if (required) return bad(c, "%s.%s: missing (expected a string)", where, key);
        return NVS_OK;
    }
    if (!json_is_string(v)) return bad(c, "%s.%s: expected a string", where, key);
    if (json_string_length(v) >= len) return bad(c, "%s.%s: string longer than %zu characters", where, key, len - 1);
    snprintf(buf, len, "%s", json_string_value(v));
    return NVS_OK;
}

/* An optional array section: absent/null -> *arr = NULL. */
static nvs_result_t get_array(ctx *c, json_t *obj, const char *key, const char *where, json_t **arr)
{
    json_t *v = json_object_get(obj, key);
    *arr = NULL;
    if (!v || json_is_null(v)) return NVS_OK;
    if (!json_is_array(v)) return bad(c, "%s%s%s: expected an array", where, *where ? "." : "", key);
    *arr = v;
    return NVS_OK;
}

static nvs_result_t elem_object(ctx *c, json_t *arr, size_t i, const char *where, json_t **o)
{
    *o = json_array_get(arr, i);
    if (!json_is_object(*o)) return bad(c, "%s[%zu]: expected an object", where, i);
    return NVS_OK;
}

static nvs_result_t read_coll(ctx *c, json_t *o, const char *w, nvs_ck_coll *r)
{
    long x;
    char name[64];
    NVS_CHECK(get_str(c, o, "collective", w, 1, name, sizeof name));
    const nvs_coll *k = nvs_coll_find(name);
    if (!k) return bad(c, "%s.collective: unknown collective '%s'", w, name);
    snprintf(r->collective, sizeof r->collective, "%s", k->name);
    NVS_CHECK(get_int(c, o, "n", w, 1, 1 << 20, 1, 0, &x));
    r->n = (int)x;
    NVS_CHECK(get_str(c, o, "type", w, 0, r->type, sizeof r->type));
    NVS_CHECK(get_str(c, o, "op", w, 0, r->op, sizeof r->op));
    json_t *ip = json_object_get(o, "inplace");
    r->inplace = -1;
    if (ip && !json_is_null(ip)) {
        if (!json_is_boolean(ip)) return bad(c, "%s.inplace: expected true or false", w);
        r->inplace = json_is_true(ip);
    }
    json_t *b = json_object_get(o, "bytes");
    if (!json_is_integer(b) || json_integer_value(b) < 0)
        return bad(c, "%s.bytes: expected an integer >= 0", w);
    r->bytes = (size_t)json_integer_value(b);
    r->time_min_us = r->time_avg_us = r->time_max_us = NAN;
    json_t *t = json_object_get(o, "time_us");
    if (t && !json_is_null(t)) {
        char tw[160];
        if (!json_is_object(t)) return bad(c, "%s.time_us: expected an object {min, avg, max}", w);
        snprintf(tw, sizeof tw, "%s.time_us", w);
        NVS_CHECK(get_num(c, t, "min", tw, &r->time_min_us));
        NVS_CHECK(get_num(c, t, "avg", tw, &r->time_avg_us));
        NVS_CHECK(get_num(c, t, "max", tw, &r->time_max_us));
    }
    NVS_CHECK(get_int(c, o, "slowest_rank", w, 0, 1 << 24, 0, -1, &x));
    r->slowest_rank = (int)x;
    NVS_CHECK(get_num(c, o, "algbw_gbps", w, &r->algbw_gbps));
    NVS_CHECK(get_num(c, o, "busbw_gbps", w, &r->busbw_gbps));
    NVS_CHECK(get_int(c, o, "wrong", w, 0, 1L << 62, 0, -1, &r->wrong));
    return NVS_OK;
}

static nvs_result_t read_pair(ctx *c, json_t *o, const char *w, nvs_ck_pair *p)
{
    long x;
    NVS_CHECK(get_int(c, o, "src", w, 0, 1 << 20, 1, 0, &x));
    p->src = (int)x;
    NVS_CHECK(get_int(c, o, "dst", w, 0, 1 << 20, 1, 0, &x));
    p->dst = (int)x;
    NVS_CHECK(get_str(c, o, "class", w, 0, p->cls, sizeof p->cls));
    NVS_CHECK(get_str(c, o, "path", w, 0, p->path, sizeof p->path));
    NVS_CHECK(get_num(c, o, "uni_gbps", w, &p->uni_gbps));
    NVS_CHECK(get_num(c, o, "bidir_gbps", w, &p->bidir_gbps));
    NVS_CHECK(get_num(c, o, "latency_us", w, &p->latency_us));
    NVS_CHECK(get_num(c, o, "bound_gbps", w, &p->bound_gbps));
    NVS_CHECK(get_num(c, o, "pct_of_bound", w, &p->pct_of_bound));
    NVS_CHECK(get_int(c, o, "wrong", w, 0, 1L << 62, 0, -1, &p->wrong));
    return NVS_OK;
}

static nvs_result_t read_transport(ctx *c, json_t *o, const char *w, nvs_ck_transport *t)
{
    long x;
    NVS_CHECK(get_int(c, o, "n", w, 1, 1 << 20, 1, 0, &x));
    t->n = (int)x;
    NVS_CHECK(get_str(c, o, "link", w, 0, t->link, sizeof t->link));
    json_t *s = json_object_get(o, "summary");
    if (s && !json_is_null(s)) {
        if (!json_is_object(s)) return bad(c, "%s.summary: expected an object {\"P2P\": channels, ...}", w);
        const char *key;
        json_t *val;
        json_object_foreach(s, key, val) {
            if (!json_is_integer(val) || json_integer_value(val) < 0)
                return bad(c, "%s.summary.%s: expected a channel count >= 0", w, key);
            if (t->nsummary == NVS_CK_MAX_TRANSPORT_KINDS) return bad(c, "%s.summary: too many transports", w);
            if (strlen(key) >= sizeof t->summary[0].name) return bad(c, "%s.summary: name '%s' too long", w, key);
            snprintf(t->summary[t->nsummary].name, sizeof t->summary[0].name, "%s", key);
            t->summary[t->nsummary++].channels = (long)json_integer_value(val);
        }
    }
    json_t *ch;
    char cw[160];
    snprintf(cw, sizeof cw, "%s.channels", w);
    NVS_CHECK(get_array(c, o, "channels", w, &ch));
    for (size_t i = 0; ch && i < json_array_size(ch); i++) {
        json_t *co;
        char d[32], ew[200];
        NVS_CHECK(elem_object(c, ch, i, cw, &co));
        snprintf(ew, sizeof ew, "%s[%zu]", cw, i);
        NVS_CHECK(get_str(c, co, "detail", ew, 0, d, sizeof d));
        if (!d[0]) continue;
        int seen = 0;
        for (int k = 0; k < t->ndetails; k++) seen |= !strcmp(t->details[k], d);
        if (!seen && t->ndetails < NVS_CK_MAX_DETAILS) snprintf(t->details[t->ndetails++], sizeof d, "%s", d);
    }
    return NVS_OK;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Allocate n zeroed elements (at least one, so that an empty section is not confused with no memory). */
static void *alloc_n(size_t n, size_t size) { return calloc(n ? n : 1, size); }

static nvs_result_t parse(json_t *root, nvs_ck_run *r, ctx *c)
{
    char w[96];
    long x;
    json_t *arr;
    if (!json_is_object(root)) return bad(c, "not a JSON object");
    char schema[64];
    json_t *sv = json_object_get(root, "schema");
    if (!json_is_string(sv))
        return bad(c, "no \"schema\" string: not an nvscale run.json (expected \"%s\")", NVS_RUN_SCHEMA);
    snprintf(schema, sizeof schema, "%s", json_string_value(sv));
    if (strcmp(schema, NVS_RUN_SCHEMA))
        return bad(c, "schema \"%s\": this nvscale reads \"%s\"", schema, NVS_RUN_SCHEMA);
    NVS_CHECK(get_str(c, root, "host", "run", 0, r->host, sizeof r->host));

    json_t *cmd = json_object_get(root, "command");
    if (cmd && !json_is_object(cmd)) return bad(c, "command: expected an object");
    if (cmd) NVS_CHECK(get_str(c, cmd, "backend", "command", 0, r->backend, sizeof r->backend));
    json_t *world = json_object_get(root, "world");
    r->world_size = -1;
    if (world && !json_is_object(world)) return bad(c, "world: expected an object");
    if (world) {
        NVS_CHECK(get_int(c, world, "size", "world", 1, 1 << 24, 0, -1, &x));
        r->world_size = (int)x;
    }
    json_t *res = json_object_get(root, "result");
    r->wrong_total = -1;
    if (res && !json_is_null(res)) {
        if (!json_is_object(res)) return bad(c, "result: expected an object");
        NVS_CHECK(get_str(c, res, "status", "result", 1, r->status, sizeof r->status));
        if (strcmp(r->status, "ok") && strcmp(r->status, "wrong") && strcmp(r->status, "error"))
            return bad(c, "result.status: '%s' is not ok, wrong or error", r->status);
        NVS_CHECK(get_int(c, res, "wrong_total", "result", 0, 1L << 62, 0, -1, &r->wrong_total));
    }

    NVS_CHECK(get_array(c, root, "ranks", "", &arr));
    if (arr) {
        r->nranks = json_array_size(arr);
        if (!(r->ranks = alloc_n(r->nranks, sizeof *r->ranks))) return NVS_ERR_NOMEM;
        for (size_t i = 0; i < r->nranks; i++) {
            json_t *o;
            snprintf(w, sizeof w, "ranks[%zu]", i);
            NVS_CHECK(elem_object(c, arr, i, "ranks", &o));
            NVS_CHECK(get_int(c, o, "rank", w, 0, 1 << 24, 1, 0, &x));
            r->ranks[i].rank = (int)x;
            NVS_CHECK(get_str(c, o, "host", w, 0, r->ranks[i].host, sizeof r->ranks[i].host));
            NVS_CHECK(get_int(c, o, "device", w, 0, 1 << 20, 0, -1, &x));
            r->ranks[i].device = (int)x;
        }
    }

    NVS_CHECK(get_array(c, root, "scaling", "", &arr));
    if (arr) {
        r->nns = json_array_size(arr);
        if (!(r->ns = alloc_n(r->nns, sizeof *r->ns))) return NVS_ERR_NOMEM;
        for (size_t i = 0; i < r->nns; i++) {
            json_t *o;
            snprintf(w, sizeof w, "scaling[%zu]", i);
            NVS_CHECK(elem_object(c, arr, i, "scaling", &o));
            NVS_CHECK(get_int(c, o, "n", w, 1, 1 << 20, 1, 0, &x));
            r->ns[i] = (int)x;
        }
        qsort(r->ns, r->nns, sizeof *r->ns, cmp_int);
    }

    NVS_CHECK(get_array(c, root, "collectives", "", &arr));
    if (arr) {
        r->ncoll = json_array_size(arr);
        if (!(r->coll = alloc_n(r->ncoll, sizeof *r->coll))) return NVS_ERR_NOMEM;
        for (size_t i = 0; i < r->ncoll; i++) {
            json_t *o;
            snprintf(w, sizeof w, "collectives[%zu]", i);
            NVS_CHECK(elem_object(c, arr, i, "collectives", &o));
            NVS_CHECK(read_coll(c, o, w, &r->coll[i]));
        }
    }

    json_t *p2p = json_object_get(root, "p2p");
    if (p2p && !json_is_null(p2p)) {
        if (!json_is_object(p2p)) return bad(c, "p2p: expected an object");
        r->has_p2p = 1;
        NVS_CHECK(get_array(c, p2p, "pairs", "p2p", &arr));
        r->npairs = arr ? json_array_size(arr) : 0;
        if (!(r->pairs = alloc_n(r->npairs, sizeof *r->pairs))) return NVS_ERR_NOMEM;
        for (size_t i = 0; i < r->npairs; i++) {
            json_t *o;
            snprintf(w, sizeof w, "p2p.pairs[%zu]", i);
            NVS_CHECK(elem_object(c, arr, i, "p2p.pairs", &o));
            NVS_CHECK(read_pair(c, o, w, &r->pairs[i]));
        }
    }

    json_t *train = json_object_get(root, "train");
    if (train && !json_is_null(train)) {
        if (!json_is_object(train)) return bad(c, "train: expected an object");
        r->has_train = 1;
        NVS_CHECK(get_array(c, train, "results", "train", &arr));
        r->ntrain = arr ? json_array_size(arr) : 0;
        if (!(r->train = alloc_n(r->ntrain, sizeof *r->train))) return NVS_ERR_NOMEM;
        for (size_t i = 0; i < r->ntrain; i++) {
            json_t *o;
            snprintf(w, sizeof w, "train.results[%zu]", i);
            NVS_CHECK(elem_object(c, arr, i, "train.results", &o));
            NVS_CHECK(get_int(c, o, "n", w, 1, 1 << 20, 1, 0, &x));
            r->train[i].n = (int)x;
            NVS_CHECK(get_num(c, o, "step_us", w, &r->train[i].step_us));
            NVS_CHECK(get_num(c, o, "efficiency", w, &r->train[i].efficiency));
        }
    }

    NVS_CHECK(get_array(c, root, "transports", "", &arr));
    if (arr) {
        r->has_transports = 1;
        r->ntransports = json_array_size(arr);
        if (!(r->transports = alloc_n(r->ntransports, sizeof *r->transports))) return NVS_ERR_NOMEM;
        for (size_t i = 0; i < r->ntransports; i++) {
            json_t *o;
            snprintf(w, sizeof w, "transports[%zu]", i);
            NVS_CHECK(elem_object(c, arr, i, "transports", &o));
            NVS_CHECK(read_transport(c, o, w, &r->transports[i]));
        }
    }

    NVS_CHECK(get_array(c, root, "explain", "", &arr));
    if (arr) {
        size_t n = json_array_size(arr);
        if (!(r->hops = alloc_n(n, sizeof *r->hops))) return NVS_ERR_NOMEM;
        for (size_t i = 0; i < n; i++) {
            json_t *o, *h;
            snprintf(w, sizeof w, "explain[%zu]", i);
            NVS_CHECK(elem_object(c, arr, i, "explain", &o));
            h = json_object_get(o, "slowest_hop");
            if (!h || json_is_null(h)) continue;
            if (!json_is_object(h)) return bad(c, "%s.slowest_hop: expected an object", w);
            nvs_ck_hop *hp = &r->hops[r->nhops];
            NVS_CHECK(get_int(c, o, "n", w, 1, 1 << 20, 1, 0, &x));
            hp->n = (int)x;
            snprintf(w, sizeof w, "explain[%zu].slowest_hop", i);
            NVS_CHECK(get_int(c, h, "from_gpu", w, 0, 1 << 20, 1, 0, &x));
            hp->from_gpu = (int)x;
            NVS_CHECK(get_int(c, h, "to_gpu", w, 0, 1 << 20, 1, 0, &x));
            hp->to_gpu = (int)x;
            NVS_CHECK(get_str(c, h, "class", w, 0, hp->cls, sizeof hp->cls));
            NVS_CHECK(get_str(c, h, "link", w, 0, hp->link, sizeof hp->link));
            NVS_CHECK(get_num(c, h, "bound_gbps", w, &hp->bound_gbps));
            r->nhops++;
        }
    }

    /* No scaling section: the GPU counts are those the collectives and training were measured at. */
    if (!r->nns) {
        size_t cap = r->ncoll + r->ntrain;
        free(r->ns);
        if (!(r->ns = alloc_n(cap, sizeof *r->ns))) return NVS_ERR_NOMEM;
        for (size_t i = 0; i < cap; i++) {
            int n = i < r->ncoll ? r->coll[i].n : r->train[i - r->ncoll].n, seen = 0;
            for (size_t k = 0; k < r->nns; k++) seen |= r->ns[k] == n;
            if (!seen) r->ns[r->nns++] = n;
        }
        qsort(r->ns, r->nns, sizeof *r->ns, cmp_int);
    }
    return NVS_OK;
}

nvs_result_t nvs_ck_parse_run(const char *text, const char *name, nvs_ck_run *out, char *err, size_t errlen)
{
    ctx c = {err, errlen};
    json_error_t je;
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", name);
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) return bad(&c, "line %d: not valid JSON: %s", je.line, je.text);
    nvs_result_t res = parse(root, out, &c);
    json_decref(root);
    if (res == NVS_ERR_NOMEM) snprintf(err, errlen, "out of memory");
    if (res != NVS_OK) nvs_ck_run_free(out);
    return res;
}

nvs_result_t nvs_ck_read_run(const char *path, const char *who, nvs_ck_run *out)
{
    char *text, err[512];
    memset(out, 0, sizeof *out);
    nvs_result_t res = nvs_read_text_file(path, NVS_RUN_MAX_BYTES, &text);
    if (res != NVS_OK) return res; /* already said why */
    res = nvs_ck_parse_run(text, path, out, err, sizeof err);
    free(text);
    if (res != NVS_OK) fprintf(stderr, "nvscale %s: %s: %s\n", who, path, err);
    return res;
}

void nvs_ck_run_free(nvs_ck_run *r)
{
    free(r->ns);
    free(r->coll);
    free(r->pairs);
    free(r->train);
    free(r->ranks);
    free(r->transports);
    free(r->hops);
    memset(r, 0, sizeof *r);
}
