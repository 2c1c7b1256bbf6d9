/* run.json's "health" section (docs/run-json.md): writing and reading back (PURE). null = unsupported. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/health.h"

void nvs_health_snap_unknown(nvs_health_snap *s)
{
    memset(s, 0, sizeof *s);
    s->ecc_enabled = -1;
    s->ecc_corr_volatile = s->ecc_unc_volatile = s->ecc_corr_aggregate = s->ecc_unc_aggregate = -1;
    s->retired_sbe = s->retired_dbe = -1;
    s->retired_pending = -1;
    s->remap_corr = s->remap_unc = -1;
    s->remap_pending = s->remap_failure = -1;
    s->clock_reasons = -1;
    s->sm_mhz = s->sm_max_mhz = s->mem_mhz = s->mem_max_mhz = -1;
    s->temp_c = s->temp_slowdown_c = s->temp_shutdown_c = -1;
    s->power_w = s->power_limit_w = s->power_default_limit_w = NAN;
    s->pcie_gen = s->pcie_width = s->pcie_max_gen = s->pcie_max_width = s->pcie_gpu_max_gen = s->pcie_gpu_max_width = -1;
    s->pcie_replay = -1;
    s->nlinks = -1;
}

void nvs_health_load_init(nvs_health_load *l)
{
    memset(l, 0, sizeof *l);
    l->sm_min_mhz = l->mem_min_mhz = -1;
    l->sm_mean_mhz = NAN;
    l->reasons_busy = -1;
    l->temp_max_c = -1;
    l->power_max_w = NAN;
    l->pcie_gen_max = l->pcie_width_max = -1;
    l->pcie_width_min = l->pcie_width_min_busy = -1;
}

void nvs_health_gpu_init(nvs_health_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->gpu = -1;
    nvs_health_snap_unknown(&g->before);
    nvs_health_snap_unknown(&g->after);
    nvs_health_load_init(&g->load);
}

void nvs_health_report_free(nvs_health_report *r)
{
    free(r->gpus);
    r->gpus = NULL;
    r->ngpus = 0;
}

nvs_result_t nvs_health_report_append(nvs_health_report *dst, const nvs_health_report *src)
{
    if (!src->ngpus) return NVS_OK;
    nvs_health_gpu *g = realloc(dst->gpus, (size_t)(dst->ngpus + src->ngpus) * sizeof *g);
    if (!g) return NVS_ERR_NOMEM;
    memcpy(g + dst->ngpus, src->gpus, (size_t)src->ngpus * sizeof *g);
    dst->gpus = g;
    dst->ngpus += src->ngpus;
    return NVS_OK;
}

static const struct {
    unsigned long long bit;
    const char *name;
} reasons[] = {
    {NVS_CLK_GPU_IDLE, "idle"},
    {NVS_CLK_APP_CLOCKS, "application clocks"},
    {NVS_CLK_SW_POWER_CAP, "SW power cap"},
    {NVS_CLK_HW_SLOWDOWN, "HW slowdown"},
    {NVS_CLK_SYNC_BOOST, "sync boost"},
    {NVS_CLK_SW_THERMAL, "SW thermal slowdown"},
    {NVS_CLK_HW_THERMAL, "HW thermal slowdown"},
    {NVS_CLK_HW_POWER_BRAKE, "HW power brake"},
    {NVS_CLK_DISPLAY, "display clock"},
};
#define NREASONS (sizeof reasons / sizeof reasons[0])

const char *nvs_health_reason_names(long long bits, char *buf, size_t len)
{
    buf[0] = '\0';
    if (bits < 0) {
        snprintf(buf, len, "unsupported");
        return buf;
    }
    unsigned long long known = 0;
    for (size_t i = 0; i < NREASONS; i++) {
        known |= reasons[i].bit;
        if ((unsigned long long)bits & reasons[i].bit)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", reasons[i].name);
    }
    if ((unsigned long long)bits & ~known)
        snprintf(buf + strlen(buf), len - strlen(buf), "%sother (0x%llx)", buf[0] ? ", " : "",
                 (unsigned long long)bits & ~known);
    if (!buf[0]) snprintf(buf, len, "none");
    return buf;
}

/* ---- writing ---------------------------------------------------------------------------------------------- */

static json_t *jint(long long v) { return v >= 0 ? json_integer((json_int_t)v) : json_null(); }
static json_t *jnum(double v) { return isnan(v) ? json_null() : json_real(v); }
static json_t *jbool(int v) { return v < 0 ? json_null() : json_boolean(v); }

static json_t *reason_list(long long bits)
{
    if (bits < 0) return json_null();
    json_t *a = json_array();
    for (size_t i = 0; a && i < NREASONS; i++)
        if ((unsigned long long)bits & reasons[i].bit) json_array_append_new(a, json_string(reasons[i].name));
    return a;
}

static json_t *snap_json(const nvs_health_snap *s)
{
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "ecc",
                        json_pack("{s:o, s:o, s:o, s:o, s:o}", "enabled", jbool(s->ecc_enabled), "corrected_volatile",
                                  jint(s->ecc_corr_volatile), "uncorrected_volatile", jint(s->ecc_unc_volatile),
                                  "corrected_aggregate", jint(s->ecc_corr_aggregate), "uncorrected_aggregate",
                                  jint(s->ecc_unc_aggregate)));
    json_object_set_new(o, "retired_pages",
                        json_pack("{s:o, s:o, s:o}", "single_bit", jint(s->retired_sbe), "double_bit",
                                  jint(s->retired_dbe), "pending", jbool(s->retired_pending)));
    json_object_set_new(o, "row_remap",
                        json_pack("{s:o, s:o, s:o, s:o}", "corrected", jint(s->remap_corr), "uncorrected",
                                  jint(s->remap_unc), "pending", jbool(s->remap_pending), "failure",
                                  jbool(s->remap_failure)));
    json_object_set_new(o, "clocks",
                        json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "sm_mhz", jint(s->sm_mhz), "sm_max_mhz",
                                  jint(s->sm_max_mhz), "mem_mhz", jint(s->mem_mhz), "mem_max_mhz",
                                  jint(s->mem_max_mhz), "event_reasons", jint(s->clock_reasons),
                                  "event_reason_names", reason_list(s->clock_reasons)));
    json_object_set_new(o, "temperature",
                        json_pack("{s:o, s:o, s:o}", "gpu_c", jint(s->temp_c), "slowdown_c", jint(s->temp_slowdown_c),
                                  "shutdown_c", jint(s->temp_shutdown_c)));
    json_object_set_new(o, "power",
                        json_pack("{s:o, s:o, s:o}", "draw_w", jnum(s->power_w), "limit_w", jnum(s->power_limit_w),
                                  "default_limit_w", jnum(s->power_default_limit_w)));
    json_object_set_new(o, "pcie",
                        json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "gen", jint(s->pcie_gen), "width",
                                  jint(s->pcie_width), "max_gen", jint(s->pcie_max_gen), "max_width",
                                  jint(s->pcie_max_width), "gpu_max_gen", jint(s->pcie_gpu_max_gen), "gpu_max_width",
                                  jint(s->pcie_gpu_max_width), "replay_counter", jint(s->pcie_replay)));
    if (s->nlinks < 0) json_object_set_new(o, "nvlink", json_null());
    else {
        json_t *a = json_array();
        for (int i = 0; a && i < s->nlinks; i++) {
            const nvs_health_link *l = &s->links[i];
            json_array_append_new(a, json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "link", l->link, "active",
                                               jbool(l->active), "replay", jint(l->replay), "recovery", jint(l->recovery),
                                               "crc_flit", jint(l->crc_flit), "crc_data", jint(l->crc_data)));
        }
        json_object_set_new(o, "nvlink", a);
    }
    return o;
}

static json_t *load_json(const nvs_health_load *l)
{
    return json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "samples", l->samples,
                     "busy_samples", l->busy_samples, "sm_min_mhz", jint(l->sm_min_mhz), "sm_mean_mhz",
                     jnum(l->sm_mean_mhz), "mem_min_mhz", jint(l->mem_min_mhz), "event_reasons", jint(l->reasons_busy),
                     "event_reason_names", reason_list(l->reasons_busy), "temp_max_c", jint(l->temp_max_c),
                     "power_max_w", jnum(l->power_max_w), "pcie_gen_max", jint(l->pcie_gen_max), "pcie_width_max",
                     jint(l->pcie_width_max), "pcie_width_min", jint(l->pcie_width_min), "pcie_width_min_busy",
                     jint(l->pcie_width_min_busy));
}

static json_t *gpu_json(const nvs_health_gpu *g)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:s}", "host", g->host, "pci_bus_id", g->pci_bus_id, "name", g->name,
                          "gpu", jint(g->gpu), "status", g->why[0] ? g->why : "ok");
    if (!o) return NULL;
    json_object_set_new(o, "before", g->why[0] ? json_null() : snap_json(&g->before));
    json_object_set_new(o, "after", g->why[0] || !g->have_after ? json_null() : snap_json(&g->after));
    json_object_set_new(o, "under_load", load_json(&g->load));
    json_t *ev = json_array();
    for (int i = 0; ev && i < g->nxid; i++)
        json_array_append_new(ev, json_pack("{s:I, s:i}", "xid", (json_int_t)g->xids[i].xid, "count", g->xids[i].count));
    json_object_set_new(o, "xid", json_pack("{s:b, s:s, s:o, s:i}", "watched", g->xid_watched, "why", g->xid_why,
                                            "events", ev ? ev : json_null(), "other", g->xid_other));
    const nvs_health_lost *l = &g->lost;
    json_object_set_new(o, "lost", l->code ? json_pack("{s:i, s:s, s:s, s:s}", "code", l->code, "call", l->call,
                                                       "when", l->when, "text", l->text)
                                           : json_null());
    /* left out where the run it came from did not record failed calls: null would say none failed */
    if (!g->read_errors_unknown)
        json_object_set_new(o, "read_errors", g->read_errors[0] ? json_string(g->read_errors) : json_null());
    return o;
}

json_t *nvs_health_to_json(const nvs_health_report *r)
{
    json_t *a = json_array();
    /* window_s NAN (unknown) is null: json_pack's "f" refuses a NAN and the section would be lost */
    json_t *o = json_pack("{s:s, s:o, s:i}", "source", r->source, "window_s", jnum(r->window_s), "sample_ms", r->sample_ms);
    if (!a || !o) {
        json_decref(a);
        json_decref(o);
        return NULL;
    }
    for (int i = 0; i < r->ngpus; i++) {
        json_t *g = gpu_json(&r->gpus[i]);
        if (!g || json_array_append_new(a, g)) {
            json_decref(a);
            json_decref(o);
            return NULL;
        }
    }
    json_object_set_new(o, "gpus", a);
    return o;
}

/* ---- reading ---------------------------------------------------------------------------------------------- */

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
