/* run.json reader: the validation context's failure path and the typed getters (runjson_read.h). One validating
 * getter per JSON type; every message names the key path. Its own file: every section's reader (runjson_*.c) reads
 * through these, so the wording of a type or range message and the rule that the first failure is the one reported
 * live in one place, the same for every section. */
#include "runjson/runjson_read.h"

#include "core/escape.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

void rj_fail(vctx *v, const char *fmt, ...)
{
    if (v->failed) return; /* the first problem is the one reported */
    v->failed = 1;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (v->err)
        snprintf(v->err, v->errlen, "%s: %s", v->name, msg);
    else
        nvs_error("%s: %s", v->name, msg);
}

/* Short description of a JSON value for messages: "a string ("abc")", "an array", "5". */
void rj_describe(const json_t *j, char *buf, size_t len)
{
    if (!j) { /* a key that is not there (found by fuzz/fuzz_runjson.c: json_typeof(NULL) dereferenced it) */
        snprintf(buf, len, "nothing");
        return;
    }
    switch (json_typeof(j)) {
    case JSON_OBJECT: snprintf(buf, len, "an object"); break;
    case JSON_ARRAY: snprintf(buf, len, "an array"); break;
    case JSON_STRING: { /* shown, never interpreted: a message goes to a terminal (core/escape.h) */
        char e[NVS_ESC_SIZE(40)];
        snprintf(buf, len, "the string \"%s\"", nvs_esc_term(json_string_value(j), e, 48));
        break;
    }
    case JSON_INTEGER: snprintf(buf, len, "%lld", (long long)json_integer_value(j)); break;
    case JSON_REAL: { /* a real shown as one: "expected an integer ..., got 2" for a 2.0 contradicted itself */
        int w = snprintf(buf, len, "%.15g", json_real_value(j));
        if (w > 0 && (size_t)w + 2 < len && !strpbrk(buf, ".en")) snprintf(buf + w, len - (size_t)w, ".0");
        break;
    }
    case JSON_TRUE: snprintf(buf, len, "true"); break;
    case JSON_FALSE: snprintf(buf, len, "false"); break;
    default: snprintf(buf, len, "null"); break;
    }
}

void rj_type_fail(vctx *v, const char *path, const char *expected, const json_t *got)
{
    char d[80];
    rj_describe(got, d, sizeof d);
    rj_fail(v, "%s: expected %s, got %s", path, expected, d);
}

void *rj_alloc(vctx *v, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        v->nomem = 1;
        rj_fail(v, "out of memory");
    }
    return p;
}

/* Path "prefix.key" or "prefix[i]" into buf (PATH_MAX_LEN bytes; cut if longer). Built by hand: snprintf of
 * a path into a path-sized buffer trips -Wformat-truncation. */
static void append(char *buf, size_t *used, const char *s)
{
    size_t n = strlen(s);
    if (*used + n >= PATH_MAX_LEN) n = PATH_MAX_LEN - 1 - *used;
    memcpy(buf + *used, s, n);
    *used += n;
    buf[*used] = '\0';
}
const char *rj_kpath(char *buf, const char *prefix, const char *key)
{
    size_t used = 0;
    buf[0] = '\0';
    append(buf, &used, prefix);
    if (*prefix) append(buf, &used, ".");
    append(buf, &used, key);
    return buf;
}
const char *rj_ipath(char *buf, const char *prefix, size_t i)
{
    char idx[32];
    snprintf(idx, sizeof idx, "[%zu]", i);
    size_t used = 0;
    buf[0] = '\0';
    append(buf, &used, prefix);
    append(buf, &used, idx);
    return buf;
}


/* A number in [lo, hi]; NAN when absent or null (the reader decides whether that may be), NAN and a failure
 * naming the path when of another type or out of range. */
double rj_num_in(vctx *v, const json_t *o, const char *key, const char *prefix, double lo, double hi)
{
    const json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j)) return NAN;
    char p[PATH_MAX_LEN];
    if (!json_is_number(j)) {
        rj_type_fail(v, rj_kpath(p, prefix, key), "a number", j);
        return NAN;
    }
    double d = json_number_value(j);
    if (!isfinite(d) || d < lo || d > hi) {
        if (isinf(lo))
            rj_fail(v, "%s: expected a number up to %g, got %g", rj_kpath(p, prefix, key), hi, d);
        else
            rj_fail(v, "%s: expected a number from %g to %g, got %g", rj_kpath(p, prefix, key), lo, hi, d);
        return NAN;
    }
    return d;
}

/* Absent or null: NAN. A number >= lo: its value. Anything else: a failure. */
double rj_num(vctx *v, const json_t *o, const char *key, const char *prefix, double lo)
{
    return rj_num_in(v, o, key, prefix, lo, MAX_NUM);
}

/* A byte count: as rj_num, and at most 2^53 (the largest whole number a double holds exactly; far above any
 * memory): readers convert it to size_t, which a value like 4.19e306 would overflow (found by
 * fuzz/fuzz_runjson.c: report_md.c's size formatting, UBSan float-cast-overflow). */
#define MAX_BYTES 9007199254740992.0
double rj_bytes(vctx *v, const json_t *o, const char *key, const char *prefix)
{
    double d = rj_num(v, o, key, prefix, 0);
    if (d > MAX_BYTES) {
        char p[PATH_MAX_LEN];
        rj_fail(v, "%s: %g bytes: more than 2^53, not a size any run has", rj_kpath(p, prefix, key), d);
        return NAN;
    }
    return d;
}

/* Absent or null: `dflt` (or a failure if required). An integer in [lo, hi]: its value. */
long long rj_int(vctx *v, const json_t *o, const char *key, const char *prefix, long long lo, long long hi,
                 long long dflt, int required)
{
    const json_t *j = json_object_get(o, key);
    char p[PATH_MAX_LEN];
    if (!j || json_is_null(j)) {
        if (required) rj_fail(v, "%s: missing (an integer is required here)", rj_kpath(p, prefix, key));
        return dflt;
    }
    char want[96];
    if (hi == LLONG_MAX)
        snprintf(want, sizeof want, "an integer >= %lld", lo);
    else
        snprintf(want, sizeof want, "an integer from %lld to %lld", lo, hi);
    if (!json_is_integer(j)) {
        rj_type_fail(v, rj_kpath(p, prefix, key), want, j);
        return dflt;
    }
    long long x = json_integer_value(j);
    if (x < lo || x > hi) {
        rj_type_fail(v, rj_kpath(p, prefix, key), want, j);
        return dflt;
    }
    return x;
}

const char *rj_str(vctx *v, const json_t *o, const char *key, const char *prefix, int required)
{
    const json_t *j = json_object_get(o, key);
    char p[PATH_MAX_LEN];
    if (!j || json_is_null(j)) {
        if (required) rj_fail(v, "%s: missing (a string is required here)", rj_kpath(p, prefix, key));
        return NULL;
    }
    if (!json_is_string(j)) {
        rj_type_fail(v, rj_kpath(p, prefix, key), "a string", j);
        return NULL;
    }
    if (required && !*json_string_value(j)) {
        rj_fail(v, "%s: empty string", rj_kpath(p, prefix, key));
        return NULL;
    }
    return json_string_value(j);
}

int rj_bool(vctx *v, const json_t *o, const char *key, const char *prefix, int dflt)
{
    const json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j)) return dflt;
    if (!json_is_boolean(j)) {
        char p[PATH_MAX_LEN];
        rj_type_fail(v, rj_kpath(p, prefix, key), "true or false", j);
        return dflt;
    }
    return json_is_true(j);
}

/* The member `key` if it is of type `type` (absent/null: NULL, or a failure if required). */
json_t *rj_typed(vctx *v, const json_t *o, const char *key, const char *prefix, json_type type, int required)
{
    json_t *j = json_object_get(o, key);
    char p[PATH_MAX_LEN];
    const char *what = type == JSON_OBJECT ? "an object" : "an array";
    if (!j || json_is_null(j)) {
        if (required) rj_fail(v, "%s: missing (%s is required here)", rj_kpath(p, prefix, key), what);
        return NULL;
    }
    if (json_typeof(j) != type) {
        rj_type_fail(v, rj_kpath(p, prefix, key), what, j);
        return NULL;
    }
    return j;
}

/* Element i of array a must be an object. */
json_t *rj_elem_obj(vctx *v, json_t *a, size_t i, const char *prefix, char *path)
{
    json_t *e = json_array_get(a, i);
    rj_ipath(path, prefix, i);
    if (!json_is_object(e)) {
        rj_type_fail(v, path, "an object", e);
        return NULL;
    }
    return e;
}

/* An object of string values -> key/value pairs. */
nvs_run_kv *rj_kv(vctx *v, const json_t *o, const char *key, size_t *n)
{
    *n = 0;
    json_t *m = rj_typed(v, o, key, "", JSON_OBJECT, 0);
    if (!m) return NULL;
    nvs_run_kv *kv = rj_alloc(v, json_object_size(m), sizeof *kv);
    if (!kv) return NULL;
    const char *k;
    json_t *val;
    json_object_foreach(m, k, val)
    {
        if (json_is_null(val)) continue;
        if (!json_is_string(val)) {
            char p[PATH_MAX_LEN];
            rj_type_fail(v, rj_kpath(p, key, k), "a string", val);
            break;
        }
        kv[*n].key = k;
        kv[*n].value = json_string_value(val);
        (*n)++;
    }
    return kv;
}

/* An array of integers >= lo. */
int *rj_int_array(vctx *v, const json_t *o, const char *key, const char *prefix, long long lo, size_t *n)
{
    *n = 0;
    json_t *a = rj_typed(v, o, key, prefix, JSON_ARRAY, 0);
    if (!a) return NULL;
    int *out = rj_alloc(v, json_array_size(a), sizeof *out);
    if (!out) return NULL;
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    rj_kpath(p, prefix, key);
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *e = json_array_get(a, i);
        if (!json_is_integer(e) || json_integer_value(e) < lo || json_integer_value(e) > 1000000000) {
            char want[48];
            snprintf(want, sizeof want, "an integer >= %lld", lo);
            rj_type_fail(v, rj_ipath(q, p, i), want, e);
            break;
        }
        out[(*n)++] = (int)json_integer_value(e);
    }
    return out;
}
