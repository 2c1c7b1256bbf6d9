/* run.json reader: see runjson.h. One validating getter per JSON type; every message names the key path. */
#include "runjson/runjson.h"

#include "core/escape.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/out_file.h"
#include "health/health.h"

/* ---- validation context --------------------------------------------------------------------------------- */

typedef struct {
    const char *name; /* file name for messages */
    char *err;        /* where the message goes (NULL: log it) */
    size_t errlen;
    int failed;
    int nomem;
} vctx;

static void vfail(vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vfail(vctx *v, const char *fmt, ...)
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
static void describe(const json_t *j, char *buf, size_t len)
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
    case JSON_REAL: snprintf(buf, len, "%g", json_real_value(j)); break;
    case JSON_TRUE: snprintf(buf, len, "true"); break;
    case JSON_FALSE: snprintf(buf, len, "false"); break;
    default: snprintf(buf, len, "null"); break;
    }
}

static void type_fail(vctx *v, const char *path, const char *expected, const json_t *got)
{
    char d[80];
    describe(got, d, sizeof d);
    vfail(v, "%s: expected %s, got %s", path, expected, d);
}

static void *alloc(vctx *v, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        v->nomem = 1;
        vfail(v, "out of memory");
    }
    return p;
}

/* Path "prefix.key" or "prefix[i]" into buf (PATH_MAX_LEN bytes; cut if longer). Built by hand: snprintf of
 * a path into a path-sized buffer trips -Wformat-truncation. */
#define PATH_MAX_LEN 160
static void append(char *buf, size_t *used, const char *s)
{
    size_t n = strlen(s);
    if (*used + n >= PATH_MAX_LEN) n = PATH_MAX_LEN - 1 - *used;
    memcpy(buf + *used, s, n);
    *used += n;
    buf[*used] = '\0';
}
static const char *kpath(char *buf, const char *prefix, const char *key)
{
    size_t used = 0;
    buf[0] = '\0';
    append(buf, &used, prefix);
    if (*prefix) append(buf, &used, ".");
    append(buf, &used, key);
    return buf;
}
static const char *ipath(char *buf, const char *prefix, size_t i)
{
    char idx[32];
    snprintf(idx, sizeof idx, "[%zu]", i);
    size_t used = 0;
    buf[0] = '\0';
    append(buf, &used, prefix);
    append(buf, &used, idx);
    return buf;
}

/* Absent or null: NAN. A number >= lo: its value. Anything else: a failure. */
/* The largest value any number of a run.json may hold: 2^53, the largest whole number a double holds exactly.
 * Far above every quantity in its unit (microseconds: 285 years; GB/s; elements; parameters); a hand-edited
 * 1e308 would otherwise flow into sums and ratios as inf ("inf%", "+inf pts" in check's verdicts). */
#define MAX_NUM 9007199254740992.0

/* A number in [lo, hi]; NAN when absent or null (the reader decides whether that may be), NAN and a failure
 * naming the path when of another type or out of range. */
static double get_num_in(vctx *v, const json_t *o, const char *key, const char *prefix, double lo, double hi)
{
    const json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j)) return NAN;
    char p[PATH_MAX_LEN];
    if (!json_is_number(j)) {
        type_fail(v, kpath(p, prefix, key), "a number", j);
        return NAN;
    }
    double d = json_number_value(j);
    if (!isfinite(d) || d < lo || d > hi) {
        if (isinf(lo))
            vfail(v, "%s: expected a number up to %g, got %g", kpath(p, prefix, key), hi, d);
        else
            vfail(v, "%s: expected a number from %g to %g, got %g", kpath(p, prefix, key), lo, hi, d);
        return NAN;
    }
    return d;
}

static double get_num(vctx *v, const json_t *o, const char *key, const char *prefix, double lo)
{
    return get_num_in(v, o, key, prefix, lo, MAX_NUM);
}

/* A byte count: as get_num, and at most 2^53 (the largest whole number a double holds exactly; far above any
 * memory): readers convert it to size_t, which a value like 4.19e306 would overflow (found by
 * fuzz/fuzz_runjson.c: report_md.c's size formatting, UBSan float-cast-overflow). */
#define MAX_BYTES 9007199254740992.0
static double get_bytes(vctx *v, const json_t *o, const char *key, const char *prefix)
{
    double d = get_num(v, o, key, prefix, 0);
    if (d > MAX_BYTES) {
        char p[PATH_MAX_LEN];
        vfail(v, "%s: %g bytes: more than 2^53, not a size any run has", kpath(p, prefix, key), d);
        return NAN;
    }
    return d;
}

/* Absent or null: `dflt` (or a failure if required). An integer in [lo, hi]: its value. */
static long long get_int(vctx *v, const json_t *o, const char *key, const char *prefix, long long lo, long long hi,
                         long long dflt, int required)
{
    const json_t *j = json_object_get(o, key);
    char p[PATH_MAX_LEN];
    if (!j || json_is_null(j)) {
        if (required) vfail(v, "%s: missing (an integer is required here)", kpath(p, prefix, key));
        return dflt;
    }
    char want[96];
    if (hi == LLONG_MAX)
        snprintf(want, sizeof want, "an integer >= %lld", lo);
    else
        snprintf(want, sizeof want, "an integer from %lld to %lld", lo, hi);
    if (!json_is_integer(j)) {
        type_fail(v, kpath(p, prefix, key), want, j);
        return dflt;
    }
    long long x = json_integer_value(j);
    if (x < lo || x > hi) {
        type_fail(v, kpath(p, prefix, key), want, j);
        return dflt;
    }
    return x;
}

static const char *get_str(vctx *v, const json_t *o, const char *key, const char *prefix, int required)
{
    const json_t *j = json_object_get(o, key);
    char p[PATH_MAX_LEN];
    if (!j || json_is_null(j)) {
        if (required) vfail(v, "%s: missing (a string is required here)", kpath(p, prefix, key));
        return NULL;
    }
    if (!json_is_string(j)) {
        type_fail(v, kpath(p, prefix, key), "a string", j);
        return NULL;
    }
    if (required && !*json_string_value(j)) {
        vfail(v, "%s: empty string", kpath(p, prefix, key));
        return NULL;
    }
    return json_string_value(j);
}

static int get_bool(vctx *v, const json_t *o, const char *key, const char *prefix, int dflt)
{
    const json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j)) return dflt;
    if (!json_is_boolean(j)) {
        char p[PATH_MAX_LEN];
        type_fail(v, kpath(p, prefix, key), "true or false", j);
        return dflt;
    }
    return json_is_true(j);
}

/* The member `key` if it is of type `type` (absent/null: NULL, or a failure if required). */
static json_t *get_typed(vctx *v, const json_t *o, const char *key, const char *prefix, json_type type,
                         int required)
{
    json_t *j = json_object_get(o, key);
    char p[PATH_MAX_LEN];
    const char *what = type == JSON_OBJECT ? "an object" : "an array";
    if (!j || json_is_null(j)) {
        if (required) vfail(v, "%s: missing (%s is required here)", kpath(p, prefix, key), what);
        return NULL;
    }
    if (json_typeof(j) != type) {
        type_fail(v, kpath(p, prefix, key), what, j);
        return NULL;
    }
    return j;
}

/* Element i of array a must be an object. */
static json_t *elem_obj(vctx *v, json_t *a, size_t i, const char *prefix, char *path)
{
    json_t *e = json_array_get(a, i);
    ipath(path, prefix, i);
    if (!json_is_object(e)) {
        type_fail(v, path, "an object", e);
        return NULL;
    }
    return e;
}

/* An object of string values -> key/value pairs. */
static nvs_run_kv *get_kv(vctx *v, const json_t *o, const char *key, size_t *n)
{
    *n = 0;
    json_t *m = get_typed(v, o, key, "", JSON_OBJECT, 0);
    if (!m) return NULL;
    nvs_run_kv *kv = alloc(v, json_object_size(m), sizeof *kv);
    if (!kv) return NULL;
    const char *k;
    json_t *val;
    json_object_foreach(m, k, val)
    {
        if (json_is_null(val)) continue;
        if (!json_is_string(val)) {
            char p[PATH_MAX_LEN];
            type_fail(v, kpath(p, key, k), "a string", val);
            break;
        }
        kv[*n].key = k;
        kv[*n].value = json_string_value(val);
        (*n)++;
    }
    return kv;
}

/* An array of integers >= lo. */
static int *get_int_array(vctx *v, const json_t *o, const char *key, const char *prefix, long long lo, size_t *n)
{
    *n = 0;
    json_t *a = get_typed(v, o, key, prefix, JSON_ARRAY, 0);
    if (!a) return NULL;
    int *out = alloc(v, json_array_size(a), sizeof *out);
    if (!out) return NULL;
    char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
    kpath(p, prefix, key);
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *e = json_array_get(a, i);
        if (!json_is_integer(e) || json_integer_value(e) < lo || json_integer_value(e) > 1000000000) {
            char want[48];
            snprintf(want, sizeof want, "an integer >= %lld", lo);
            type_fail(v, ipath(q, p, i), want, e);
            break;
        }
        out[(*n)++] = (int)json_integer_value(e);
    }
    return out;
}

/* ---- sections ---------------------------------------------------------------------------------------------- */

static void read_command(vctx *v, nvs_run *r)
{
    json_t *t = get_typed(v, r->root, "tool", "", JSON_OBJECT, 0);
    if (t) {
        r->tool_name = get_str(v, t, "name", "tool", 0);
        r->tool_version = get_str(v, t, "version", "tool", 0);
        r->tool_git = get_str(v, t, "git", "tool", 0);
    }
    json_t *c = get_typed(v, r->root, "command", "", JSON_OBJECT, 0);
    if (c) {
        r->subcommand = get_str(v, c, "subcommand", "command", 0);
        r->launcher = get_str(v, c, "launcher", "command", 0);
        r->backend = get_str(v, c, "backend", "command", 0);
        json_t *a = get_typed(v, c, "argv", "command", JSON_ARRAY, 0);
        if (a) {
            r->argv = alloc(v, json_array_size(a), sizeof *r->argv);
            for (size_t i = 0; r->argv && i < json_array_size(a); i++) {
                json_t *e = json_array_get(a, i);
                if (!json_is_string(e)) {
                    char p[PATH_MAX_LEN];
                    type_fail(v, ipath(p, "command.argv", i), "a string", e);
                    break;
                }
                r->argv[r->argc++] = json_string_value(e);
            }
        }
    }
    r->started_utc = get_str(v, r->root, "started_utc", "", 0);
    r->duration_s = get_num(v, r->root, "duration_s", "", 0);
    r->host = get_str(v, r->root, "host", "", 0);
    r->env = get_kv(v, r->root, "env", &r->nenv);
    r->versions = get_kv(v, r->root, "versions", &r->nversions);
    r->world_size = r->world_nodes = -1;
    json_t *w = get_typed(v, r->root, "world", "", JSON_OBJECT, 0);
    if (w) {
        r->world_size = (int)get_int(v, w, "size", "world", 1, 1000000, -1, 0);
        r->world_nodes = (int)get_int(v, w, "nodes", "world", 1, 1000000, -1, 0);
    }
    /* which rank's time the bandwidths were computed from (-a): a reader showing a time beside them must show
     * that one, or the row disagrees with itself (bytes / time != algbw) */
    r->time_basis = NVS_RUN_TIME_SLOWEST;
    json_t *sw = get_typed(v, r->root, "sweep", "", JSON_OBJECT, 0);
    const char *tb = sw ? get_str(v, sw, "time_basis", "sweep", 0) : NULL;
    r->unvalidated = sw && get_int(v, sw, "check", "sweep", 0, 1, 1, 0) == 0;
    if (tb) {
        static const char *const basis[] = {"rank0", "mean", "fastest", "slowest"};
        int k = 0;
        while (k < 4 && strcmp(tb, basis[k])) k++;
        if (k == 4) vfail(v, "sweep.time_basis: '%s' is none of rank0, mean, fastest, slowest", tb);
        else r->time_basis = k;
    }
    json_t *res = get_typed(v, r->root, "result", "", JSON_OBJECT, 0);
    r->result_exit_code = -1;
    r->result_wrong_total = -1;
    if (res) {
        /* the three values runjson_write's nvs_rj_set_result writes; a reader that acts on the status (check)
         * must not take a misspelt one for a failure or a success */
        r->result_status = get_str(v, res, "status", "result", 1);
        static const char *const known[] = {"ok", "wrong", "failed", "interrupted", "running", "error"};
        int ok = !r->result_status;
        for (size_t k = 0; !ok && k < sizeof known / sizeof known[0]; k++) ok = !strcmp(r->result_status, known[k]);
        if (!ok)
            type_fail(v, "result.status", "\"ok\", \"wrong\", \"failed\", \"interrupted\" or \"running\"",
                      json_object_get(res, "status"));
        r->result_reason = get_str(v, res, "reason", "result", 0);
        r->result_exit_code = (int)get_int(v, res, "exit_code", "result", 0, 255, -1, 0);
        r->result_wrong_total = get_int(v, res, "wrong_total", "result", 0, LLONG_MAX, -1, 0);
    }
}

static void read_ranks(vctx *v, nvs_run *r)
{
    json_t *a = get_typed(v, r->root, "ranks", "", JSON_ARRAY, 0);
    if (!a || !(r->ranks = alloc(v, json_array_size(a), sizeof *r->ranks))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, "ranks", p);
        if (!e) break;
        nvs_run_rank *k = &r->ranks[r->nranks++];
        k->rank = (int)get_int(v, e, "rank", p, 0, 1000000000, -1, 1);
        k->node = (int)get_int(v, e, "node", p, 0, 1000000000, -1, 0);
        k->local_rank = (int)get_int(v, e, "local_rank", p, 0, 1000000000, -1, 0);
        k->device = (int)get_int(v, e, "device", p, -1, 1000000, -1, 0);
        k->topo_gpu = (int)get_int(v, e, "topo_gpu", p, -1, 1000000000, -1, 0);
        k->host = get_str(v, e, "host", p, 0);
        k->gpu = get_str(v, e, "gpu", p, 0);
        k->pci_bus_id = get_str(v, e, "pci_bus_id", p, 0);
        k->memory_bytes = get_bytes(v, e, "memory_bytes", p);
    }
}

/* ---- topology pairs: looked up by GPU indices ------------------------------------------------------------------ */

/* A pair's key: its lower GPU index, then its higher one (either order in the file). */
static void pair_key(const nvs_run_pair *p, int *lo, int *hi)
{
    *lo = p->a < p->b ? p->a : p->b;
    *hi = p->a < p->b ? p->b : p->a;
}

static int cmp_pair_key(const void *x, const void *y)
{
    const nvs_run_pair_key *p = x, *q = y;
    if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
    if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
    return (p->pos > q->pos) - (p->pos < q->pos); /* the same pair twice: the first in the file is the one found */
}

/* tp->pair_index: the pairs' keys sorted, for a binary search per lookup (report's matrix looks up every pair of
 * GPUs: a scan per lookup took 15 s for 512 GPUs and grows with the fourth power). */
static void index_pairs(vctx *v, nvs_run_topology *tp)
{
    if (!tp->npairs) return;
    tp->pair_index = alloc(v, tp->npairs, sizeof *tp->pair_index);
    if (!tp->pair_index) return;
    for (size_t i = 0; i < tp->npairs; i++) {
        pair_key(&tp->pairs[i], &tp->pair_index[i].lo, &tp->pair_index[i].hi);
        tp->pair_index[i].pos = i;
    }
    qsort(tp->pair_index, tp->npairs, sizeof *tp->pair_index, cmp_pair_key);
}

/* topology.hosts, which check's host rules read from the document (a host with one GPU: its "all at once" copies
 * are the single ones): validated so that a hand-edited name or GPU list is bad input naming its path, not a row
 * "not measured" on a guess. Only checked: no reader here keeps it. */
static void read_topo_hosts(vctx *v, const json_t *t)
{
    json_t *a = get_typed(v, t, "hosts", "topology", JSON_ARRAY, 0);
    for (size_t i = 0; a && i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN], e[PATH_MAX_LEN];
        json_t *h = elem_obj(v, a, i, "topology.hosts", p);
        if (!h) break;
        (void)get_str(v, h, "name", p, 0);
        (void)get_str(v, h, "machine", p, 0);
        json_t *g = get_typed(v, h, "gpus", p, JSON_ARRAY, 0);
        kpath(q, p, "gpus");
        for (size_t k = 0; g && k < json_array_size(g) && !v->failed; k++) {
            json_t *x = json_array_get(g, k);
            if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 1000000000)
                type_fail(v, ipath(e, q, k), "an integer from 0 to 1000000000", x);
        }
    }
}

/* The machine of the host named `host` in topology.hosts (validated by read_topo_hosts), NULL if none says */
static const char *host_machine(const json_t *t, const char *host)
{
    const json_t *hosts = json_object_get(t, "hosts");
    for (size_t i = 0; host && i < json_array_size(hosts); i++) {
        const json_t *h = json_array_get(hosts, i);
        const char *n = json_string_value(json_object_get(h, "name"));
        if (n && !strcmp(n, host)) return json_string_value(json_object_get(h, "machine"));
    }
    return NULL;
}

static void read_topology(vctx *v, nvs_run *r)
{
    json_t *t = get_typed(v, r->root, "topology", "", JSON_OBJECT, 0);
    if (!t) return;
    nvs_run_topology *tp = &r->topology;
    tp->present = 1;
    tp->source = get_str(v, t, "source", "topology", 0);
    read_topo_hosts(v, t);
    json_t *g = get_typed(v, t, "gpus", "topology", JSON_ARRAY, 0);
    if (g && (tp->gpus = alloc(v, json_array_size(g), sizeof *tp->gpus))) {
        for (size_t i = 0; i < json_array_size(g) && !v->failed; i++) {
            char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
            json_t *e = elem_obj(v, g, i, "topology.gpus", p);
            if (!e) break;
            nvs_run_gpu *x = &tp->gpus[tp->ngpus++];
            x->index = (int)get_int(v, e, "index", p, 0, 1000000000, -1, 1);
            x->cuda_device = (int)get_int(v, e, "cuda_device", p, -1, 1000000, -1, 0);
            x->numa_node = (int)get_int(v, e, "numa_node", p, -1, 1000000, -1, 0);
            x->host = get_str(v, e, "host", p, 0);
            x->name = get_str(v, e, "name", p, 0);
            x->pci_bus_id = get_str(v, e, "pci_bus_id", p, 0);
            x->cpuset = get_str(v, e, "cpuset", p, 0);
            x->pcie_gen = x->pcie_width = x->nvlink_links_up = x->nvlink_version = -1;
            x->pcie_gbps = x->nvlink_gbps_per_link = NAN;
            json_t *pc = get_typed(v, e, "pcie", p, JSON_OBJECT, 0);
            if (pc) {
                kpath(q, p, "pcie");
                x->pcie_gen = (int)get_int(v, pc, "gen", q, 0, 100, -1, 0);
                x->pcie_width = (int)get_int(v, pc, "width", q, 0, 1024, -1, 0);
                x->pcie_gbps = get_num(v, pc, "gbps", q, 0);
            }
            json_t *nv = get_typed(v, e, "nvlink", p, JSON_OBJECT, 0);
            if (nv) {
                kpath(q, p, "nvlink");
                x->nvlink_links_up = (int)get_int(v, nv, "links_up", q, 0, 1024, -1, 0);
                x->nvlink_version = (int)get_int(v, nv, "version", q, 0, 100, -1, 0);
                x->nvlink_gbps_per_link = get_num(v, nv, "gbps_per_link", q, 0);
            }
            x->net_gbps = NAN;
            json_t *net = get_typed(v, e, "net", p, JSON_OBJECT, 0);
            if (net) {
                kpath(q, p, "net");
                x->net_gbps = get_num(v, net, "gbps", q, 0);
                x->net_source = get_str(v, net, "source", q, 0);
            }
            x->machine = host_machine(t, x->host);
        }
    }
    tp->net_gbps_given = get_num(v, t, "net_gbps", "topology", 0);
    json_t *pa = get_typed(v, t, "pairs", "topology", JSON_ARRAY, 0);
    if (pa && (tp->pairs = alloc(v, json_array_size(pa), sizeof *tp->pairs))) {
        for (size_t i = 0; i < json_array_size(pa) && !v->failed; i++) {
            char p[PATH_MAX_LEN];
            json_t *e = elem_obj(v, pa, i, "topology.pairs", p);
            if (!e) break;
            nvs_run_pair *x = &tp->pairs[tp->npairs++];
            x->a = (int)get_int(v, e, "a", p, 0, 1000000000, -1, 1);
            x->b = (int)get_int(v, e, "b", p, 0, 1000000000, -1, 1);
            x->cls = get_str(v, e, "class", p, 0);
            x->nvlinks = (int)get_int(v, e, "nvlinks", p, 0, 1024, -1, 0);
            x->pcie_class = get_str(v, e, "pcie_class", p, 0);
            x->bound_gbps = get_num(v, e, "bound_gbps", p, 0);
            x->bound_source = get_str(v, e, "bound_source", p, 0);
            x->p2p_cuda = -1;
            json_t *pp = get_typed(v, e, "p2p", p, JSON_OBJECT, 0);
            if (pp) {
                char q[PATH_MAX_LEN];
                x->p2p_cuda = get_bool(v, pp, "cuda", kpath(q, p, "p2p"), -1);
            }
        }
    }
    if (!v->failed) index_pairs(v, tp);
}

static void read_scaling(vctx *v, nvs_run *r)
{
    json_t *a = get_typed(v, r->root, "scaling", "", JSON_ARRAY, 0);
    if (!a || !(r->scaling = alloc(v, json_array_size(a), sizeof *r->scaling))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, "scaling", p);
        if (!e) break;
        nvs_run_scaling *s = &r->scaling[r->nscaling++];
        s->n = (int)get_int(v, e, "n", p, 1, 1000000, 0, 1);
        s->ranks = get_int_array(v, e, "ranks", p, 0, &s->nranks);
        s->gpus = get_int_array(v, e, "gpus", p, 0, &s->ngpus);
    }
}

static void read_collectives(vctx *v, nvs_run *r)
{
    json_t *a = get_typed(v, r->root, "collectives", "", JSON_ARRAY, 0);
    if (!a) return;
    r->has_collectives = 1;
    if (!(r->colls = alloc(v, json_array_size(a), sizeof *r->colls))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, "collectives", p);
        if (!e) break;
        nvs_run_coll *c = &r->colls[r->ncolls++];
        c->collective = get_str(v, e, "collective", p, 1);
        c->n = (int)get_int(v, e, "n", p, 1, 1000000, 0, 1);
        c->bytes = get_bytes(v, e, "bytes", p);
        if (isnan(c->bytes) && !v->failed)
            vfail(v, "%s: missing (a number of bytes is required here)", kpath(q, p, "bytes"));
        else if (!isnan(c->bytes) && c->bytes != floor(c->bytes)) /* check compares sizes exactly, as integers */
            type_fail(v, kpath(q, p, "bytes"), "a whole number of bytes", json_object_get(e, "bytes"));
        c->type = get_str(v, e, "type", p, 0);
        c->op = get_str(v, e, "op", p, 0);
        c->root = (int)get_int(v, e, "root", p, -1, 1000000000, -1, 0);
        c->inplace = get_bool(v, e, "inplace", p, 0);
        c->graph = get_bool(v, e, "graph", p, 0);
        c->count = get_num(v, e, "count", p, 0);
        c->iters = (int)get_int(v, e, "iters", p, 0, 2000000000, -1, 0);
        c->time_min_us = c->time_avg_us = c->time_max_us = NAN;
        json_t *t = get_typed(v, e, "time_us", p, JSON_OBJECT, 0);
        if (t) {
            kpath(q, p, "time_us");
            c->time_min_us = get_num(v, t, "min", q, 0);
            c->time_avg_us = get_num(v, t, "avg", q, 0);
            c->time_max_us = get_num(v, t, "max", q, 0);
        }
        c->slowest_rank = (int)get_int(v, e, "slowest_rank", p, 0, 1000000000, -1, 0);
        c->algbw_gbps = get_num(v, e, "algbw_gbps", p, 0);
        c->busbw_gbps = get_num(v, e, "busbw_gbps", p, 0);
        c->wrong = get_int(v, e, "wrong", p, 0, LLONG_MAX, -1, 0);
    }
}

static void read_transports(vctx *v, nvs_run *r)
{
    json_t *a = get_typed(v, r->root, "transports", "", JSON_ARRAY, 0);
    if (!a || !(r->transports = alloc(v, json_array_size(a), sizeof *r->transports))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, "transports", p);
        if (!e) break;
        nvs_run_transport *t = &r->transports[r->ntransports++];
        t->n = (int)get_int(v, e, "n", p, 1, 1000000, 0, 1);
        t->nccl_version = get_str(v, e, "nccl_version", p, 0);
        t->link = get_str(v, e, "link", p, 0);
        t->nchannels = (int)get_int(v, e, "nchannels", p, 0, 1000000, -1, 0);
        json_t *ch = get_typed(v, e, "channels", p, JSON_ARRAY, 0);
        t->nchannel_entries = ch ? json_array_size(ch) : 0;
        for (size_t k = 0; k < t->nchannel_entries && !v->failed; k++) {
            char q[PATH_MAX_LEN], q2[PATH_MAX_LEN];
            json_t *ce = elem_obj(v, ch, k, kpath(q2, p, "channels"), q);
            if (!ce) break;
            const char *tr = get_str(v, ce, "transport", q, 0);
            const char *de = get_str(v, ce, "detail", q, 0);
            if (!t->net_detail && tr && de && !strcmp(tr, "NET")) t->net_detail = de;
        }
        json_t *s = get_typed(v, e, "summary", p, JSON_OBJECT, 0);
        if (s) {
            t->summary = alloc(v, json_object_size(s), sizeof *t->summary);
            t->summary_counts = alloc(v, json_object_size(s), sizeof *t->summary_counts);
            if (!t->summary || !t->summary_counts) break;
            char q[PATH_MAX_LEN];
            kpath(q, p, "summary");
            const char *k;
            json_t *val;
            json_object_foreach(s, k, val)
            {
                long long c = get_int(v, s, k, q, 0, 1000000000, -1, 1);
                if (v->failed) break;
                t->summary[t->nsummary].key = k;
                t->summary_counts[t->nsummary] = (int)c;
                t->nsummary++;
            }
        }
    }
}

/* One workload's training section (run.json "train", or an element of "trains") into r->train. */
/* a result's issue_by_us: each kind's time, a number >= 0 (the kinds are the writer's: train/issue.h) */
static void read_issue_by(vctx *v, json_t *e, const char *prefix, nvs_run_train_result *x)
{
    char p[PATH_MAX_LEN];
    json_t *o = get_typed(v, e, "issue_by_us", prefix, JSON_OBJECT, 0);
    const char *k;
    json_t *val;
    if (!o) return;
    kpath(p, prefix, "issue_by_us");
    json_object_foreach(o, k, val) {
        double us = get_num(v, o, k, p, 0);
        if (v->failed || x->nissue_by >= NVS_RUN_ISSUE_KINDS_MAX) break;
        if (isnan(us)) continue;
        x->issue_by_kind[x->nissue_by] = k;
        x->issue_by_us[x->nissue_by++] = us;
    }
}

static void read_train_obj(vctx *v, nvs_run_train *tr, json_t *t, const char *pre)
{
    char pfw[PATH_MAX_LEN], pres[PATH_MAX_LEN];
    snprintf(pfw, sizeof pfw, "%s.framework", pre);
    snprintf(pres, sizeof pres, "%s.results", pre);
    tr->present = 1;
    snprintf(tr->key, sizeof tr->key, "%s", pre);
    tr->model = get_str(v, t, "model", pre, 0);
    tr->source = get_str(v, t, "source", pre, 0);
    tr->precision = get_str(v, t, "precision", pre, 0);
    tr->grad_type = get_str(v, t, "grad_type", pre, 0);
    tr->profile_file = get_str(v, t, "profile_file", pre, 0);
    json_t *fw = get_typed(v, t, "framework", pre, JSON_OBJECT, 0);
    tr->fw_host_us_per_op = tr->fw_reducer_us_per_bucket = tr->fw_nchw_copies_fwd = tr->fw_nchw_copies_bwd = NAN;
    tr->fw_host_us_per_buffer_op = NAN;
    tr->fw_autocast = tr->fw_bucket_copy = tr->fw_grad_scaler = tr->fw_broadcast_buffers = -1;
    tr->fw_weight_casts = tr->fw_optimizer_foreach = tr->fw_autocast_fp32 = tr->fw_bias_reduce = -1;
    tr->fw_view_copies = -1;
    if (fw) {
        tr->framework = get_str(v, fw, "name", pfw, 1);
        tr->fw_host_us_per_op = get_num_in(v, fw, "host_us_per_op", pfw, 0, 1e6);
        tr->fw_reducer_us_per_bucket = get_num_in(v, fw, "reducer_us_per_bucket", pfw, 0, 1e6);
        tr->fw_nchw_copies_fwd = get_num_in(v, fw, "nchw_copies_fwd", pfw, 0, 1e4);
        tr->fw_nchw_copies_bwd = get_num_in(v, fw, "nchw_copies_bwd", pfw, 0, 1e4);
        tr->fw_autocast = get_bool(v, fw, "autocast", pfw, -1);
        tr->fw_bucket_copy = get_bool(v, fw, "bucket_copy", pfw, -1);
        tr->fw_grad_scaler = get_bool(v, fw, "grad_scaler", pfw, -1);
        tr->fw_broadcast_buffers = get_bool(v, fw, "broadcast_buffers", pfw, -1);
        tr->fw_host_us_per_buffer_op = get_num_in(v, fw, "host_us_per_buffer_op", pfw, 0, 1e6);
        tr->fw_weight_casts = get_bool(v, fw, "weight_casts", pfw, -1);
        tr->fw_optimizer_foreach = get_bool(v, fw, "optimizer_foreach", pfw, -1);
        tr->fw_autocast_fp32 = get_bool(v, fw, "autocast_fp32", pfw, -1);
        tr->fw_bias_reduce = get_bool(v, fw, "bias_reduce", pfw, -1);
        tr->fw_view_copies = get_bool(v, fw, "view_copies", pfw, -1);
    }
    char pconv[PATH_MAX_LEN];
    snprintf(pconv, sizeof pconv, "%s.conv", pre);
    json_t *cv = get_typed(v, t, "conv", pre, JSON_OBJECT, 0);
    tr->conv_engine = cv ? get_str(v, cv, "engine", pconv, 1) : NULL;
    tr->conv_layers = cv ? (int)get_int(v, cv, "layers", pconv, 0, 100000000, -1, 1) : -1;
    tr->conv_geometry_layers = cv ? (int)get_int(v, cv, "geometry_layers", pconv, 0, 100000000, -1, 1) : -1;
    tr->params = get_num(v, t, "params", pre, 0);
    tr->fwd_gflops_per_sample = get_num(v, t, "fwd_gflops_per_sample", pre, 0);
    tr->bucket_first_bytes = get_bytes(v, t, "bucket_first_bytes", pre);
    tr->bucket_cap_bytes = get_bytes(v, t, "bucket_cap_bytes", pre);
    tr->batch = (int)get_int(v, t, "batch", pre, 1, 100000000, -1, 0);
    json_t *b = get_typed(v, t, "buckets", pre, JSON_ARRAY, 0);
    tr->nbuckets = b ? json_array_size(b) : 0;
    json_t *a = get_typed(v, t, "results", pre, JSON_ARRAY, 0);
    if (!a || !(tr->results = alloc(v, json_array_size(a), sizeof *tr->results))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, pres, p);
        if (!e) break;
        nvs_run_train_result *x = &tr->results[tr->nresults++];
        x->n = (int)get_int(v, e, "n", p, 1, 1000000, 0, 1);
        x->steps = (int)get_int(v, e, "steps", p, 0, 2000000000, -1, 0);
        x->step_us = get_num(v, e, "step_us", p, 0);
        x->compute_us = get_num(v, e, "compute_us", p, 0);
        x->comm_us = get_num(v, e, "comm_us", p, 0);
        /* step - compute can come out slightly negative from noise: accept it as measured */
        x->exposed_comm_us = get_num(v, e, "exposed_comm_us", p, -INFINITY);
        x->interference_us = get_num(v, e, "interference_us", p, 0);
        x->contention_us = get_num_in(v, e, "contention_us", p, -MAX_NUM, MAX_NUM); /* faster at N: < 0 */
        x->host_rate_p10 = get_num(v, e, "host_rate_p10", p, 0);
        x->host_rate_p90 = get_num(v, e, "host_rate_p90", p, 0);
        x->rank_wait_us = get_num(v, e, "rank_wait_us", p, 0);
        x->issue_us = get_num(v, e, "issue_us", p, 0);
        read_issue_by(v, e, p, x);
        x->ideal_compute_us = get_num(v, e, "ideal_compute_us", p, 0);
        x->predicted_comm_us = get_num(v, e, "predicted_comm_us", p, 0);
        x->samples_per_s = get_num(v, e, "samples_per_s", p, 0);
        /* a fraction: 100 (10,000 %) is already nonsense, and the sanity check (sanity.h) flags far less */
        x->efficiency = get_num_in(v, e, "efficiency", p, 0, 100);
        x->rounds = (int)get_int(v, e, "rounds_measured", p, 1, 100000, 0, 0);
        x->reference_n = (int)get_int(v, e, "efficiency_reference_n", p, 1, 1000000, 0, 0);
        x->efficiency_min = get_num_in(v, e, "efficiency_min", p, 0, 100);
        x->efficiency_max = get_num_in(v, e, "efficiency_max", p, 0, 100);
    }
}

static void read_train(vctx *v, nvs_run *r)
{
    json_t *t = get_typed(v, r->root, "train", "", JSON_OBJECT, 0);
    if (t) read_train_obj(v, &r->train, t, "train");
    /* every workload, validated as "train" is: check and report judge and show each of them */
    json_t *a = v->failed ? NULL : get_typed(v, r->root, "trains", "", JSON_ARRAY, 0);
    if (!a || !json_array_size(a) || !(r->trains = alloc(v, json_array_size(a), sizeof *r->trains))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, "trains", p);
        if (!e) break;
        read_train_obj(v, &r->trains[r->ntrains++], e, p);
    }
}

static int has_train_results(const nvs_run *r)
{
    for (size_t i = 0; i < nvs_run_workloads(r); i++)
        if (nvs_run_workload(r, i)->nresults) return 1;
    return 0;
}

nvs_result_t nvs_run_select_train(nvs_run *r, const char *name, const char *alt, char *err, size_t errlen)
{
    const json_t *trains = json_object_get(r->root, "trains");
    char seen[256] = "";
    size_t k = 0;
    for (size_t i = 0; i < json_array_size(trains); i++) {
        json_t *t = json_array_get(trains, i);
        const char *m = json_string_value(json_object_get(t, "model"));
        const char *f = json_string_value(json_object_get(t, "profile_file"));
        if (!json_is_object(t) || !m) continue;
        if (!strcmp(m, name) || (alt && !strcmp(m, alt)) || (f && !strcmp(f, name))) {
            free(r->train.results);
            memset(&r->train, 0, sizeof r->train);
            vctx v = {.name = r->path ? r->path : "run.json", .err = err, .errlen = errlen};
            char pre[32];
            snprintf(pre, sizeof pre, "trains[%zu]", i);
            read_train_obj(&v, &r->train, t, pre);
            return v.failed ? (v.nomem ? NVS_ERR_NOMEM : NVS_ERR_INPUT) : NVS_OK;
        }
        k += (size_t)snprintf(seen + k, k < sizeof seen ? sizeof seen - k : 0, "%s%s", k ? ", " : "", m);
        if (k >= sizeof seen) k = sizeof seen - 1;
    }
    if (json_array_size(trains)) {
        snprintf(err, errlen, "%s: trained %s, not %s", r->path ? r->path : "the run", seen, name);
        return NVS_ERR_INPUT;
    }
    /* a run of one workload, written before "trains": its "train", unless it names another model */
    if (r->train.model && strcmp(r->train.model, name) && (!alt || strcmp(r->train.model, alt))) {
        snprintf(err, errlen, "%s: trained %s, not %s", r->path ? r->path : "the run", r->train.model, name);
        return NVS_ERR_INPUT;
    }
    return NVS_OK;
}

/* p2p.host_copies (topo/h2d_report.c), which check's host rules and fleet read from the document: validated here
 * so that a value of the wrong type or range is bad input naming its path, not a row judged on a guess. */
static void read_host_copies(vctx *v, const json_t *p2p)
{
    json_t *t = get_typed(v, p2p, "host_copies", "p2p", JSON_OBJECT, 0);
    if (!t) return;
    static const char *const prefix = "p2p.host_copies";
    (void)get_bytes(v, t, "copy_bytes", prefix);
    (void)get_int(v, t, "iters", prefix, 0, INT_MAX, 0, 0);
    (void)get_int(v, t, "samples", prefix, 1, INT_MAX, 1, 0); /* absent before session 50: one block */
    (void)get_int(v, t, "warmup", prefix, 0, INT_MAX, 0, 0);
    (void)get_str(v, t, "numa_binding", prefix, 0);
    json_t *a = get_typed(v, t, "gpus", prefix, JSON_ARRAY, 0);
    static const char *const modes[] = {"single", "all", "remote"};
    static const char *const nums[] = {"h2d_gbps", "d2h_gbps", "bidir_gbps", "h2d_pct_of_bound", "d2h_pct_of_bound",
                                       "bidir_pct_of_bound"};
    for (size_t i = 0; a && i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, "p2p.host_copies.gpus", p);
        if (!e) break;
        (void)get_int(v, e, "gpu", p, 0, 1000000000, -1, 0);
        (void)get_str(v, e, "host", p, 0);
        (void)get_str(v, e, "pci_bus_id", p, 0);
        (void)get_int(v, e, "gpu_numa_node", p, 0, 1000000000, -1, 0);
        (void)get_num(v, e, "bound_gbps", p, 0);
        (void)get_str(v, e, "bound_source", p, 0);
        (void)get_str(v, e, "remote_why", p, 0);
        for (size_t m = 0; m < sizeof modes / sizeof modes[0] && !v->failed; m++) {
            json_t *x = get_typed(v, e, modes[m], p, JSON_OBJECT, 0);
            if (!x) continue;
            kpath(q, p, modes[m]);
            (void)get_int(v, x, "numa_node", q, 0, 1000000000, -1, 0);
            for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) (void)get_num(v, x, nums[k], q, 0);
            (void)get_int(v, x, "wrong", q, 0, LLONG_MAX, -1, 0);
        }
    }
}

static void read_p2p(vctx *v, nvs_run *r)
{
    json_t *t = get_typed(v, r->root, "p2p", "", JSON_OBJECT, 0);
    if (!t) return;
    r->p2p.present = 1;
    read_host_copies(v, t);
    json_t *sk = get_typed(v, t, "skipped", "p2p", JSON_ARRAY, 0);
    for (size_t i = 0; sk && i < json_array_size(sk) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = elem_obj(v, sk, i, "p2p.skipped", p);
        if (!e) break;
        const char *host = get_str(v, e, "host", p, 0), *what = get_str(v, e, "what", p, 0);
        const char *why = get_str(v, e, "why", p, 0);
        if (!r->p2p.skipped_why && what && !strncmp(what, "p2p", 3) && why && *why) {
            r->p2p.skipped_host = host;
            r->p2p.skipped_why = why;
        }
    }
    r->p2p.copy_bytes = get_bytes(v, t, "copy_bytes", "p2p");
    json_t *a = get_typed(v, t, "pairs", "p2p", JSON_ARRAY, 0);
    if (!a || !(r->p2p.pairs = alloc(v, json_array_size(a), sizeof *r->p2p.pairs))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, "p2p.pairs", p);
        if (!e) break;
        nvs_run_p2p_pair *x = &r->p2p.pairs[r->p2p.npairs++];
        x->src = (int)get_int(v, e, "src", p, 0, 1000000000, -1, 1);
        x->dst = (int)get_int(v, e, "dst", p, 0, 1000000000, -1, 1);
        x->path = get_str(v, e, "path", p, 0);
        x->cls = get_str(v, e, "class", p, 0);
        x->uni_gbps = get_num(v, e, "uni_gbps", p, 0);
        x->bidir_gbps = get_num(v, e, "bidir_gbps", p, 0);
        x->latency_us = get_num(v, e, "latency_us", p, 0);
        x->bound_gbps = get_num(v, e, "bound_gbps", p, 0);
        x->pct_of_bound = get_num(v, e, "pct_of_bound", p, 0);
        x->wrong = get_int(v, e, "wrong", p, 0, LLONG_MAX, -1, 0);
    }
}

/* gpu_selftest (selftest/selftest_json.c, phase_selftest.c), which check's gpu and sustain gemm rules judge: only
 * validated here (check_accept.c reads it from the document), so that a value of the wrong type or range is bad
 * input naming its path rather than a row judged on a guess. Every key may be absent or null (not measured). */
static void read_selftest(vctx *v, nvs_run *r)
{
    json_t *t = get_typed(v, r->root, "gpu_selftest", "", JSON_OBJECT, 0);
    if (!t) return;
    (void)get_str(v, t, "skipped", "gpu_selftest", 0);
    (void)get_num(v, t, "burn_s", "gpu_selftest", 0);
    json_t *a = get_typed(v, t, "gpus", "gpu_selftest", JSON_ARRAY, 0);
    for (size_t i = 0; a && i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN], c[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, "gpu_selftest.gpus", p);
        if (!e) break;
        (void)get_str(v, e, "host", p, 0);
        (void)get_int(v, e, "gpu", p, -1, 1000000000, -1, 0);
        (void)get_int(v, e, "rank", p, 0, 1000000000, -1, 0);
        (void)get_str(v, e, "pci_bus_id", p, 0);
        (void)get_str(v, e, "name", p, 0);
        (void)get_str(v, e, "why", p, 0);
        (void)get_num(v, e, "membw_gbps", p, 0);
        (void)get_num(v, e, "gemm_tflops", p, 0);
        (void)get_int(v, e, "membw_wrong", p, 0, LLONG_MAX, -1, 0);
        (void)get_int(v, e, "gemm_wrong", p, 0, LLONG_MAX, -1, 0);
        json_t *b = get_typed(v, e, "burn", p, JSON_OBJECT, 0);
        if (!b) continue;
        kpath(q, p, "burn");
        static const char *const nums[] = {"requested_s", "elapsed_s", "tflops_first", "tflops_last", "tflops_min"};
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) (void)get_num(v, b, nums[k], q, 0);
        (void)get_int(v, b, "wrong", q, 0, LLONG_MAX, -1, 0);
        (void)get_str(v, b, "why", q, 0);
        json_t *ch = get_typed(v, b, "chunks", q, JSON_ARRAY, 0);
        for (size_t k = 0; ch && k < json_array_size(ch) && !v->failed; k++) {
            char qc[PATH_MAX_LEN];
            json_t *x = elem_obj(v, ch, k, kpath(c, q, "chunks"), qc);
            if (!x) break;
            (void)get_num(v, x, "end_s", qc, 0);
            (void)get_num(v, x, "tflops", qc, 0);
        }
    }
}

/* sustain (run/phase_sustain.c), which check's sustain busbw rule judges from the document: validated here, as
 * gpu_selftest is. */
static void read_sustain(vctx *v, nvs_run *r)
{
    json_t *t = get_typed(v, r->root, "sustain", "", JSON_OBJECT, 0);
    if (!t) return;
    (void)get_str(v, t, "collective", "sustain", 0);
    const char *m = get_str(v, t, "measure", "sustain", 0);
    if (m && strcmp(m, "busbw") && strcmp(m, "algbw"))
        vfail(v, "sustain.measure: expected \"busbw\" or \"algbw\", got \"%.40s\"", m);
    (void)get_bytes(v, t, "bytes", "sustain");
    (void)get_int(v, t, "n", "sustain", 1, 1000000000, 0, 0);
    static const char *const nums[] = {"requested_s", "elapsed_s", "busbw_first_gbps", "busbw_last_gbps",
                                       "busbw_min_gbps"};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) (void)get_num(v, t, nums[k], "sustain", 0);
    (void)get_int(v, t, "wrong", "sustain", 0, LLONG_MAX, -1, 0);
    json_t *ch = get_typed(v, t, "chunks", "sustain", JSON_ARRAY, 0);
    for (size_t k = 0; ch && k < json_array_size(ch) && !v->failed; k++) {
        char p[PATH_MAX_LEN];
        json_t *x = elem_obj(v, ch, k, "sustain.chunks", p);
        if (!x) break;
        (void)get_num(v, x, "end_s", p, 0);
        (void)get_int(v, x, "iters", p, 0, LLONG_MAX, -1, 0);
        (void)get_num(v, x, "busbw_gbps", p, 0);
        (void)get_num(v, x, "algbw_gbps", p, 0);
        (void)get_int(v, x, "wrong", p, 0, LLONG_MAX, -1, 0);
    }
}

/* health (health/health_json.c), which check's health rules judge: read through the section's own reader, which
 * names the bad field's path, so that a malformed section is bad input (exit 2), not "not measured". */
static void read_health(vctx *v, nvs_run *r)
{
    json_t *t = json_object_get(r->root, "health");
    if (!t || json_is_null(t)) return;
    nvs_health_report rep;
    char err[256];
    nvs_result_t res = nvs_health_from_json(t, &rep, err, sizeof err);
    if (res == NVS_ERR_NOMEM) {
        v->nomem = 1;
        vfail(v, "out of memory");
    } else if (res != NVS_OK)
        vfail(v, "%s", err);
    else
        nvs_health_report_free(&rep);
}

static void read_explain(vctx *v, nvs_run *r)
{
    json_t *a = get_typed(v, r->root, "explain", "", JSON_ARRAY, 0);
    if (!a || !(r->explain = alloc(v, json_array_size(a), sizeof *r->explain))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
        json_t *e = elem_obj(v, a, i, "explain", p);
        if (!e) break;
        nvs_run_explain *x = &r->explain[r->nexplain++];
        x->n = (int)get_int(v, e, "n", p, 1, 1000000, 0, 1);
        x->bound_gbps = NAN;
        x->hop_from_gpu = x->hop_to_gpu = -1;
        json_t *h = get_typed(v, e, "slowest_hop", p, JSON_OBJECT, 0);
        if (h) {
            kpath(q, p, "slowest_hop");
            x->has_hop = 1;
            x->hop_from_gpu = (int)get_int(v, h, "from_gpu", q, 0, 1000000000, -1, 0);
            x->hop_to_gpu = (int)get_int(v, h, "to_gpu", q, 0, 1000000000, -1, 0);
            x->hop_class = get_str(v, h, "class", q, 0);
            x->hop_link = get_str(v, h, "link", q, 0);
            x->hop_source = get_str(v, h, "source", q, 0);
            x->bound_gbps = get_num(v, h, "bound_gbps", q, 0);
        }
        x->transport = get_str(v, e, "transport", p, 0);
        x->busbw_gbps = get_num(v, e, "busbw_gbps", p, 0);
        x->busbw_bytes = get_bytes(v, e, "busbw_bytes", p);
        x->pct_of_bound = get_num(v, e, "pct_of_bound", p, 0);
        x->exposed_comm_pct = get_num(v, e, "exposed_comm_pct", p, -INFINITY);
        x->text = get_str(v, e, "text", p, 0);
    }
}

/* ---- entry points ------------------------------------------------------------------------------------------ */

void nvs_run_free(nvs_run *r)
{
    if (!r) return;
    free((char *)r->path);
    json_decref(r->root);
    free(r->argv);
    free(r->env);
    free(r->versions);
    free(r->ranks);
    free(r->topology.gpus);
    free(r->topology.pairs);
    free(r->topology.pair_index);
    for (size_t i = 0; i < r->nscaling; i++) {
        free(r->scaling[i].ranks);
        free(r->scaling[i].gpus);
    }
    free(r->scaling);
    free(r->colls);
    for (size_t i = 0; i < r->ntransports; i++) {
        free(r->transports[i].summary);
        free(r->transports[i].summary_counts);
    }
    free(r->transports);
    free(r->train.results);
    for (size_t i = 0; i < r->ntrains; i++) free(r->trains[i].results);
    free(r->trains);
    free(r->p2p.pairs);
    free(r->explain);
    memset(r, 0, sizeof *r);
}

static nvs_result_t from_json(json_t *root, const char *name, unsigned need, nvs_run *r, vctx *v)
{
    memset(r, 0, sizeof *r);
    r->path = strdup(name);
    if (!r->path) {
        v->nomem = 1;
        vfail(v, "out of memory");
        return NVS_ERR_NOMEM;
    }
    r->root = json_incref(root);
    if (!json_is_object(root)) {
        char d[80];
        describe(root, d, sizeof d);
        vfail(v, "not a run.json: the top level is %s, expected an object", d);
        goto out;
    }
    json_t *s = json_object_get(root, "schema");
    if (!s) {
        vfail(v, "no \"schema\" key: not an nvscale run.json (expected \"schema\": \"%s\")", NVS_RUN_SCHEMA);
        goto out;
    }
    if (!json_is_string(s) || strcmp(json_string_value(s), NVS_RUN_SCHEMA)) {
        char d[80];
        describe(s, d, sizeof d);
        if (json_is_string(s) && !strncmp(json_string_value(s), "nvscale.model/", 14))
            vfail(v, "schema is %s: a what-if projection (nvscale model --format json), not a measurement; this reads "
                     "the run.json of a run (\"%s\")", d, NVS_RUN_SCHEMA);
        else
            vfail(v, "schema is %s, expected \"%s\" (a file of another nvscale version, or not a run.json)", d,
                  NVS_RUN_SCHEMA);
        goto out;
    }
    r->schema = json_string_value(s);
    read_command(v, r);
    if (!v->failed) read_ranks(v, r);
    if (!v->failed) read_topology(v, r);
    if (!v->failed) read_scaling(v, r);
    if (!v->failed) read_collectives(v, r);
    if (!v->failed) read_transports(v, r);
    if (!v->failed) read_train(v, r);
    if (!v->failed) read_p2p(v, r);
    if (!v->failed) read_selftest(v, r);
    if (!v->failed) read_sustain(v, r);
    if (!v->failed) read_health(v, r);
    if (!v->failed) read_explain(v, r);
    if (v->failed) goto out;
    if ((need & NVS_RUN_NEED_MEASURED) && !r->has_collectives && !has_train_results(r) && !r->p2p.npairs)
        vfail(v, "nothing to report: no \"collectives\", no \"train\" results and no GPU pairs in \"p2p\" (a run "
                 "of `nvscale run`, `coll`, `train` or `p2p` has them)");
    else if ((need & NVS_RUN_NEED_COLLECTIVES) && !r->has_collectives)
        vfail(v, "no \"collectives\" array: nothing to report (a run of `nvscale run` or `nvscale coll` has one)");
    else if ((need & NVS_RUN_NEED_TRAIN) && (!r->train.present || !r->train.nresults))
        vfail(v, "no \"train\" results (a run of `nvscale train` or `nvscale run --model` has them)");
    else if ((need & NVS_RUN_NEED_TOPOLOGY) && !r->topology.present)
        vfail(v, "no \"topology\" section");
    else if ((need & NVS_RUN_NEED_P2P) && !r->p2p.present)
        vfail(v, "no \"p2p\" section (a run of `nvscale p2p` has one)");
out:
    if (v->failed) {
        nvs_result_t res = v->nomem ? NVS_ERR_NOMEM : NVS_ERR_INPUT;
        nvs_run_free(r);
        return res;
    }
    return NVS_OK;
}

nvs_result_t nvs_run_from_json(json_t *root, const char *name, unsigned need, nvs_run *out, char *err,
                               size_t errlen)
{
    vctx v = {.name = name, .err = err, .errlen = errlen};
    if (err && errlen) err[0] = '\0';
    return from_json(root, name, need, out, &v);
}

nvs_result_t nvs_run_load(const char *path, unsigned need, nvs_run *out)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st) != 0) {
        nvs_error("%s: %s", path, strerror(errno));
        return NVS_ERR_INPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        nvs_error("%s: is a directory, not a run.json file", path);
        return NVS_ERR_INPUT;
    }
    if (!S_ISREG(st.st_mode)) {
        if (!nvs_input_file_ok(path, NULL, 0)) /* core/out_file.h names what it is (a FIFO, a device) */
            nvs_error("%s: not a regular file", path);
        return NVS_ERR_INPUT;
    }
    if (st.st_size == 0) {
        nvs_error("%s: empty file, not a run.json", path);
        return NVS_ERR_INPUT;
    }
    if ((size_t)st.st_size > NVS_RUN_MAX_BYTES) {
        nvs_error("%s: %lld bytes: too large to be a run.json (limit %zu)", path, (long long)st.st_size,
                  (size_t)NVS_RUN_MAX_BYTES);
        return NVS_ERR_INPUT;
    }
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (je.line <= 0)
            nvs_error("%s: cannot read: %s", path, je.text);
        else
            nvs_error("%s: not JSON: %s (line %d, column %d)", path, je.text, je.line, je.column);
        return NVS_ERR_INPUT;
    }
    vctx v = {.name = path};
    nvs_result_t res = from_json(root, path, need, out, &v);
    json_decref(root); /* from_json holds its own reference */
    return res;
}
