/* run.json's "health" section (docs/run-json.md) read back (PURE), as health_json.c writes it. null = unsupported. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/health.h"

/* Every field may be absent or null (unknown). A field of another type or out of range is bad input: the message
 * names its whole path ("health.gpus[0].before.ecc.corrected_volatile"), as run.json's reader does for the rest of
 * the document (runjson_health.c, which calls this one). */
typedef struct {
    char *err;
    size_t len;
    int bad;
    char path[128]; /* the object being read, below "health." */
} rd;

/* 2^53, the largest whole number a double holds exactly: far above any counter, watt or MHz (runjson_read.h's
 * MAX_NUM) */
#define HEALTH_MAX_NUM 9007199254740992.0
/* the fields kept in an int (clocks, temperatures, link numbers, the topology index) */
#define HEALTH_MAX_SMALL 1000000000LL

static void bad_field(rd *c, const char *key, const char *want, const json_t *got)
{
    if (c->bad) return;
    c->bad = 1;
    char shown[48] = "";
    char *d = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (d) snprintf(shown, sizeof shown, ", got %.32s%s", d, strlen(d) > 32 ? "..." : "");
    free(d);
    snprintf(c->err, c->len, "health.%s%s%s: expected %s%s", c->path, c->path[0] && key[0] ? "." : "", key, want,
             shown);
}

static long long get_int_in(rd *c, const json_t *o, const char *key, long long hi, const char *want)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return -1;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > hi) {
        bad_field(c, key, want, v);
        return -1;
    }
    return (long long)json_integer_value(v);
}

/* a counter or bit mask */
static long long get_int(rd *c, const json_t *o, const char *key)
{
    return get_int_in(c, o, key, LLONG_MAX, "an integer >= 0 or null");
}

/* a value kept in an int */
static int get_small(rd *c, const json_t *o, const char *key)
{
    return (int)get_int_in(c, o, key, HEALTH_MAX_SMALL, "an integer from 0 to 1000000000 or null");
}

static double get_num(rd *c, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return NAN;
    double d = json_is_number(v) ? json_number_value(v) : -1;
    if (!(d >= 0 && d <= HEALTH_MAX_NUM)) {
        bad_field(c, key, "a number from 0 to 2^53 or null", v);
        return NAN;
    }
    return d;
}

static int get_bool(rd *c, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return -1;
    if (!json_is_boolean(v)) {
        bad_field(c, key, "true, false or null", v);
        return -1;
    }
    return json_is_true(v);
}

/* a string (cut to dst's size) or "" when absent or null */
static void get_str(rd *c, const json_t *o, const char *key, char *dst, size_t len)
{
    const json_t *v = json_object_get(o, key);
    dst[0] = '\0';
    if (json_is_string(v)) snprintf(dst, len, "%s", json_string_value(v));
    else if (v && !json_is_null(v)) bad_field(c, key, "a string or null", v);
}

static const json_t *get_obj(rd *c, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (v && !json_is_object(v) && !json_is_null(v)) bad_field(c, key, "an object or null", v);
    return json_is_object(v) ? v : NULL;
}

/* The object `key` of o, read at path base; the path then points into it (base.key) until the next call. */
static const json_t *enter(rd *c, const json_t *o, const char *key, const char *base)
{
    snprintf(c->path, sizeof c->path, "%s", base);
    const json_t *x = get_obj(c, o, key);
    if (x) snprintf(c->path, sizeof c->path, "%s.%s", base, key);
    return x;
}

/* One entry of "nvlink": its index and state are always written (nvs_health_to_json), so an absent one is bad
 * input: an "active" read as down would FAIL the GPU on a guess. null is a state NVML could not read (-1). */
static void read_link(rd *c, const json_t *l, nvs_health_link *k)
{
    long long link = get_int_in(c, l, "link", HEALTH_MAX_SMALL, "an integer from 0 to 1000000000");
    if (link < 0) bad_field(c, "link", "an integer from 0 to 1000000000", json_object_get(l, "link"));
    k->link = (int)link;
    int active = get_bool(c, l, "active");
    if (!json_object_get(l, "active")) bad_field(c, "active", "true, false or null (not read)", NULL);
    k->active = active;
    k->replay = get_int(c, l, "replay");
    k->recovery = get_int(c, l, "recovery");
    k->crc_flit = get_int(c, l, "crc_flit");
    k->crc_data = get_int(c, l, "crc_data");
}

/* "event_reason_names" is written beside "event_reasons" for people (reason_list) and read by nothing, but a
 * wrong type there is a hand edit all the same: refused like any other field. */
static void check_reason_names(rd *c, const json_t *x)
{
    const json_t *v = json_object_get(x, "event_reason_names");
    if (!v || json_is_null(v)) return;
    int ok = json_is_array(v);
    for (size_t i = 0; ok && i < json_array_size(v); i++) ok = json_is_string(json_array_get(v, i));
    if (!ok) bad_field(c, "event_reason_names", "an array of names or null", v);
}

static void read_snap(rd *c, const json_t *o, nvs_health_snap *s)
{
    char base[64]; /* "gpus[N].before" */
    snprintf(base, sizeof base, "%.63s", c->path);
    nvs_health_snap_unknown(s);
    const json_t *x;
    if ((x = enter(c, o, "ecc", base))) {
        s->ecc_enabled = get_bool(c, x, "enabled");
        s->ecc_corr_volatile = get_int(c, x, "corrected_volatile");
        s->ecc_unc_volatile = get_int(c, x, "uncorrected_volatile");
        s->ecc_corr_aggregate = get_int(c, x, "corrected_aggregate");
        s->ecc_unc_aggregate = get_int(c, x, "uncorrected_aggregate");
    }
    if ((x = enter(c, o, "retired_pages", base))) {
        s->retired_sbe = get_int(c, x, "single_bit");
        s->retired_dbe = get_int(c, x, "double_bit");
        s->retired_pending = get_bool(c, x, "pending");
    }
    if ((x = enter(c, o, "row_remap", base))) {
        s->remap_corr = get_int(c, x, "corrected");
        s->remap_unc = get_int(c, x, "uncorrected");
        s->remap_pending = get_bool(c, x, "pending");
        s->remap_failure = get_bool(c, x, "failure");
    }
    if ((x = enter(c, o, "clocks", base))) {
        s->sm_mhz = get_small(c, x, "sm_mhz");
        s->sm_max_mhz = get_small(c, x, "sm_max_mhz");
        s->mem_mhz = get_small(c, x, "mem_mhz");
        s->mem_max_mhz = get_small(c, x, "mem_max_mhz");
        s->clock_reasons = get_int(c, x, "event_reasons");
        check_reason_names(c, x);
    }
    if ((x = enter(c, o, "temperature", base))) {
        s->temp_c = get_small(c, x, "gpu_c");
        s->temp_slowdown_c = get_small(c, x, "slowdown_c");
        s->temp_shutdown_c = get_small(c, x, "shutdown_c");
    }
    if ((x = enter(c, o, "power", base))) {
        s->power_w = get_num(c, x, "draw_w");
        s->power_limit_w = get_num(c, x, "limit_w");
        s->power_default_limit_w = get_num(c, x, "default_limit_w");
    }
    if ((x = enter(c, o, "pcie", base))) {
        s->pcie_gen = get_small(c, x, "gen");
        s->pcie_width = get_small(c, x, "width");
        s->pcie_max_gen = get_small(c, x, "max_gen");
        s->pcie_max_width = get_small(c, x, "max_width");
        s->pcie_gpu_max_gen = get_small(c, x, "gpu_max_gen"); /* absent before 6 December 2026: unknown */
        s->pcie_gpu_max_width = get_small(c, x, "gpu_max_width"); /* the same */
        s->pcie_replay = get_int(c, x, "replay_counter");
    }
    snprintf(c->path, sizeof c->path, "%s", base);
    const json_t *nl = json_object_get(o, "nvlink");
    if (json_is_array(nl)) {
        s->nlinks = 0;
        /* more links than NVML reports: those past the last kept would go unjudged (a link down among them PASSes) */
        if (json_array_size(nl) > NVS_HEALTH_MAX_LINKS) {
            char want[64];
            snprintf(want, sizeof want, "at most %d links (NVML's most), got %zu", NVS_HEALTH_MAX_LINKS,
                     json_array_size(nl));
            bad_field(c, "nvlink", want, NULL);
        }
        for (size_t i = 0; i < json_array_size(nl) && !c->bad; i++) {
            const json_t *l = json_array_get(nl, i);
            snprintf(c->path, sizeof c->path, "%s.nvlink[%zu]", base, i);
            if (!json_is_object(l)) {
                snprintf(c->path, sizeof c->path, "%s", base);
                bad_field(c, "nvlink", "an array of {\"link\": N, ...}", l);
                return;
            }
            read_link(c, l, &s->links[s->nlinks++]);
        }
    } else if (nl && !json_is_null(nl))
        bad_field(c, "nvlink", "an array or null", nl);
    snprintf(c->path, sizeof c->path, "%s", base);
}

static void read_load(rd *c, const json_t *x, nvs_health_load *l)
{
    long long v = get_small(c, x, "samples");
    l->samples = v < 0 ? 0 : (int)v;
    v = get_small(c, x, "busy_samples");
    l->busy_samples = v < 0 ? 0 : (int)v;
    l->sm_min_mhz = get_small(c, x, "sm_min_mhz");
    l->sm_mean_mhz = get_num(c, x, "sm_mean_mhz");
    l->mem_min_mhz = get_small(c, x, "mem_min_mhz");
    l->reasons_busy = get_int(c, x, "event_reasons");
    check_reason_names(c, x);
    l->temp_max_c = get_small(c, x, "temp_max_c");
    l->power_max_w = get_num(c, x, "power_max_w");
    l->pcie_gen_max = get_small(c, x, "pcie_gen_max");
    l->pcie_width_max = get_small(c, x, "pcie_width_max");
    /* absent (run.json before 6 December 2026): -1, the width is judged on the two readings */
    l->pcie_width_min = get_small(c, x, "pcie_width_min");
    l->pcie_width_min_busy = get_small(c, x, "pcie_width_min_busy");
}

/* One entry of xid.events, read with the path pointing into it ("gpus[0].xid.events[2].count"); 0 if bad. */
static int read_xid_event(rd *c, const json_t *e, unsigned long long *xid, int *count)
{
    if (!json_is_object(e)) {
        bad_field(c, "", "{\"xid\": N, \"count\": N >= 1}", e);
        return 0;
    }
    long long x = get_int_in(c, e, "xid", LLONG_MAX, "an integer >= 0");
    long long n = get_int_in(c, e, "count", HEALTH_MAX_SMALL, "an integer from 1 to 1000000000");
    if (x < 0) bad_field(c, "xid", "an integer >= 0", json_object_get(e, "xid"));
    if (n < 1) bad_field(c, "count", "an integer from 1 to 1000000000", json_object_get(e, "count"));
    *xid = (unsigned long long)x;
    *count = (int)n;
    return !c->bad;
}

static void read_xid(rd *c, const json_t *x, nvs_health_gpu *g)
{
    char base[64]; /* "gpus[N].xid" */
    snprintf(base, sizeof base, "%.63s", c->path);
    g->xid_watched = get_bool(c, x, "watched") == 1;
    get_str(c, x, "why", g->xid_why, sizeof g->xid_why);
    long long other = get_small(c, x, "other");
    g->xid_other = other < 0 ? 0 : (int)other;
    const json_t *ev = json_object_get(x, "events");
    if (ev && !json_is_array(ev) && !json_is_null(ev)) bad_field(c, "events", "an array or null", ev);
    for (size_t k = 0; json_is_array(ev) && k < json_array_size(ev) && !c->bad; k++) {
        unsigned long long xid;
        int count;
        snprintf(c->path, sizeof c->path, "%s.events[%zu]", base, k);
        if (read_xid_event(c, json_array_get(ev, k), &xid, &count) && g->nxid < NVS_HEALTH_MAX_XIDS) {
            g->xids[g->nxid].xid = xid;
            g->xids[g->nxid++].count = count;
        }
    }
    snprintf(c->path, sizeof c->path, "%s", base);
}

/* "lost": null or {"code": 15 | 16, "call", "when", "text"}; absent from runs written before 3 December 2026 */
static void read_lost(rd *c, const json_t *o, nvs_health_gpu *g, const char *base)
{
    const json_t *x = enter(c, o, "lost", base);
    if (!x) return;
    long long code = get_int(c, x, "code");
    get_str(c, x, "call", g->lost.call, sizeof g->lost.call);
    get_str(c, x, "when", g->lost.when, sizeof g->lost.when);
    get_str(c, x, "text", g->lost.text, sizeof g->lost.text);
    snprintf(c->path, sizeof c->path, "%s", base);
    if (code != NVS_HEALTH_LOST_CODE && code != NVS_HEALTH_RESET_CODE)
        bad_field(c, "lost", "{\"code\": 15 or 16, \"call\", \"when\", \"text\"} or null", x);
    g->lost.code = (int)code;
}

static void read_gpu(rd *c, const json_t *o, nvs_health_gpu *g, size_t i)
{
    char base[48];
    snprintf(base, sizeof base, "gpus[%zu]", i);
    snprintf(c->path, sizeof c->path, "%s", base);
    get_str(c, o, "host", g->host, sizeof g->host);
    get_str(c, o, "pci_bus_id", g->pci_bus_id, sizeof g->pci_bus_id);
    get_str(c, o, "name", g->name, sizeof g->name);
    g->gpu = get_small(c, o, "gpu");
    char status[sizeof g->why];
    get_str(c, o, "status", status, sizeof status);
    if (strcmp(status, "ok")) memcpy(g->why, status, sizeof g->why);
    const json_t *x;
    if ((x = enter(c, o, "before", base))) read_snap(c, x, &g->before);
    if ((x = enter(c, o, "after", base))) {
        read_snap(c, x, &g->after);
        g->have_after = 1;
    }
    if ((x = enter(c, o, "under_load", base))) read_load(c, x, &g->load);
    if ((x = enter(c, o, "xid", base))) read_xid(c, x, g);
    read_lost(c, o, g, base);
    snprintf(c->path, sizeof c->path, "%s", base);
    get_str(c, o, "read_errors", g->read_errors, sizeof g->read_errors);
    /* absent: written before failed calls were recorded (7067e8b), not "none failed" (null) */
    g->read_errors_unknown = !json_object_get(o, "read_errors");
}

nvs_result_t nvs_health_from_json(const json_t *j, nvs_health_report *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    rd c = {.err = err, .len = errlen};
    const json_t *gpus = json_object_get(j, "gpus");
    if (!json_is_object(j) || !json_is_array(gpus)) {
        snprintf(err, errlen, "health: expected an object with a \"gpus\" array");
        return NVS_ERR_INPUT;
    }
    get_str(&c, j, "source", out->source, sizeof out->source);
    out->window_s = get_num(&c, j, "window_s");
    /* the window turns counts into DCGM's rates (PCIe replays per minute, NVLink CRC errors per second): 1e300 s
     * would pass any count */
    if (!isnan(out->window_s) && !(out->window_s <= 1e9))
        bad_field(&c, "window_s", "a number of seconds from 0 to 1e9 or null", json_object_get(j, "window_s"));
    out->sample_ms = get_small(&c, j, "sample_ms");
    size_t n = json_array_size(gpus);
    out->gpus = calloc(n ? n : 1, sizeof *out->gpus);
    if (!out->gpus) {
        snprintf(err, errlen, "out of memory");
        return NVS_ERR_NOMEM;
    }
    for (size_t i = 0; i < n && !c.bad; i++) {
        const json_t *o = json_array_get(gpus, i);
        nvs_health_gpu *g = &out->gpus[out->ngpus++];
        nvs_health_gpu_init(g);
        if (!json_is_object(o) || !json_is_string(json_object_get(o, "pci_bus_id"))) {
            snprintf(err, errlen, "health.gpus[%zu]: expected an object with a \"pci_bus_id\"", i);
            nvs_health_report_free(out);
            return NVS_ERR_INPUT;
        }
        read_gpu(&c, o, g, i);
    }
    if (c.bad) {
        nvs_health_report_free(out);
        return NVS_ERR_INPUT;
    }
    return NVS_OK;
}
