/* run.json's "health" section (docs/run-json.md): writing and reading back (PURE). null = unsupported. */
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
    s->pcie_gen = s->pcie_width = s->pcie_max_gen = s->pcie_max_width = -1;
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
                        json_pack("{s:o, s:o, s:o, s:o, s:o}", "gen", jint(s->pcie_gen), "width", jint(s->pcie_width),
                                  "max_gen", jint(s->pcie_max_gen), "max_width", jint(s->pcie_max_width),
                                  "replay_counter", jint(s->pcie_replay)));
    if (s->nlinks < 0) json_object_set_new(o, "nvlink", json_null());
    else {
        json_t *a = json_array();
        for (int i = 0; a && i < s->nlinks; i++) {
            const nvs_health_link *l = &s->links[i];
            json_array_append_new(a, json_pack("{s:i, s:b, s:o, s:o, s:o, s:o}", "link", l->link, "active",
                                               l->active, "replay", jint(l->replay), "recovery", jint(l->recovery),
                                               "crc_flit", jint(l->crc_flit), "crc_data", jint(l->crc_data)));
        }
        json_object_set_new(o, "nvlink", a);
    }
    return o;
}

static json_t *load_json(const nvs_health_load *l)
{
    return json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "samples", l->samples, "busy_samples",
                     l->busy_samples, "sm_min_mhz", jint(l->sm_min_mhz), "sm_mean_mhz", jnum(l->sm_mean_mhz),
                     "mem_min_mhz", jint(l->mem_min_mhz), "event_reasons", jint(l->reasons_busy),
                     "event_reason_names", reason_list(l->reasons_busy), "temp_max_c", jint(l->temp_max_c),
                     "power_max_w", jnum(l->power_max_w), "pcie_gen_max", jint(l->pcie_gen_max), "pcie_width_max",
                     jint(l->pcie_width_max));
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
    json_object_set_new(o, "read_errors", g->read_errors[0] ? json_string(g->read_errors) : json_null());
    return o;
}

json_t *nvs_health_to_json(const nvs_health_report *r)
{
    json_t *a = json_array();
    json_t *o = json_pack("{s:s, s:f, s:i}", "source", r->source, "window_s", r->window_s, "sample_ms", r->sample_ms);
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

typedef struct {
    char *err;
    size_t len;
    int bad;
    char path[96];
} rd;

static void bad_field(rd *c, const char *key, const char *want)
{
    if (c->bad) return;
    c->bad = 1;
    snprintf(c->err, c->len, "health.%s%s%s: expected %s", c->path, c->path[0] ? "." : "", key, want);
}

static long long get_int(rd *c, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return -1;
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        bad_field(c, key, "an integer >= 0 or null");
        return -1;
    }
    return (long long)json_integer_value(v);
}

static double get_num(rd *c, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return NAN;
    if (!json_is_number(v)) {
        bad_field(c, key, "a number or null");
        return NAN;
    }
    return json_number_value(v);
}

static int get_bool(rd *c, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return -1;
    if (!json_is_boolean(v)) {
        bad_field(c, key, "true, false or null");
        return -1;
    }
    return json_is_true(v);
}

static const json_t *get_obj(rd *c, const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (v && !json_is_object(v) && !json_is_null(v)) bad_field(c, key, "an object");
    return json_is_object(v) ? v : NULL;
}

static void read_snap(rd *c, const json_t *o, nvs_health_snap *s)
{
    nvs_health_snap_unknown(s);
    const json_t *x;
    if ((x = get_obj(c, o, "ecc"))) {
        s->ecc_enabled = get_bool(c, x, "enabled");
        s->ecc_corr_volatile = get_int(c, x, "corrected_volatile");
        s->ecc_unc_volatile = get_int(c, x, "uncorrected_volatile");
        s->ecc_corr_aggregate = get_int(c, x, "corrected_aggregate");
        s->ecc_unc_aggregate = get_int(c, x, "uncorrected_aggregate");
    }
    if ((x = get_obj(c, o, "retired_pages"))) {
        s->retired_sbe = get_int(c, x, "single_bit");
        s->retired_dbe = get_int(c, x, "double_bit");
        s->retired_pending = get_bool(c, x, "pending");
    }
    if ((x = get_obj(c, o, "row_remap"))) {
        s->remap_corr = get_int(c, x, "corrected");
        s->remap_unc = get_int(c, x, "uncorrected");
        s->remap_pending = get_bool(c, x, "pending");
        s->remap_failure = get_bool(c, x, "failure");
    }
    if ((x = get_obj(c, o, "clocks"))) {
        s->sm_mhz = (int)get_int(c, x, "sm_mhz");
        s->sm_max_mhz = (int)get_int(c, x, "sm_max_mhz");
        s->mem_mhz = (int)get_int(c, x, "mem_mhz");
        s->mem_max_mhz = (int)get_int(c, x, "mem_max_mhz");
        s->clock_reasons = get_int(c, x, "event_reasons");
    }
    if ((x = get_obj(c, o, "temperature"))) {
        s->temp_c = (int)get_int(c, x, "gpu_c");
        s->temp_slowdown_c = (int)get_int(c, x, "slowdown_c");
        s->temp_shutdown_c = (int)get_int(c, x, "shutdown_c");
    }
    if ((x = get_obj(c, o, "power"))) {
        s->power_w = get_num(c, x, "draw_w");
        s->power_limit_w = get_num(c, x, "limit_w");
        s->power_default_limit_w = get_num(c, x, "default_limit_w");
    }
    if ((x = get_obj(c, o, "pcie"))) {
        s->pcie_gen = (int)get_int(c, x, "gen");
        s->pcie_width = (int)get_int(c, x, "width");
        s->pcie_max_gen = (int)get_int(c, x, "max_gen");
        s->pcie_max_width = (int)get_int(c, x, "max_width");
        s->pcie_replay = get_int(c, x, "replay_counter");
    }
    const json_t *nl = json_object_get(o, "nvlink");
    if (json_is_array(nl)) {
        s->nlinks = 0;
        for (size_t i = 0; i < json_array_size(nl) && s->nlinks < NVS_HEALTH_MAX_LINKS; i++) {
            const json_t *l = json_array_get(nl, i);
            nvs_health_link *k = &s->links[s->nlinks++];
            if (!json_is_object(l) || !json_is_integer(json_object_get(l, "link"))) {
                bad_field(c, "nvlink", "an array of {\"link\": N, ...}");
                return;
            }
            k->link = (int)json_integer_value(json_object_get(l, "link"));
            k->active = get_bool(c, l, "active") == 1;
            k->replay = get_int(c, l, "replay");
            k->recovery = get_int(c, l, "recovery");
            k->crc_flit = get_int(c, l, "crc_flit");
            k->crc_data = get_int(c, l, "crc_data");
        }
    } else if (nl && !json_is_null(nl))
        bad_field(c, "nvlink", "an array or null");
}

static void copy_str(char *dst, size_t len, const json_t *v) { snprintf(dst, len, "%s", json_is_string(v) ? json_string_value(v) : ""); }

nvs_result_t nvs_health_from_json(const json_t *j, nvs_health_report *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    rd c = {.err = err, .len = errlen};
    const json_t *gpus = json_object_get(j, "gpus");
    if (!json_is_object(j) || !json_is_array(gpus)) {
        snprintf(err, errlen, "health: expected an object with a \"gpus\" array");
        return NVS_ERR_INPUT;
    }
    copy_str(out->source, sizeof out->source, json_object_get(j, "source"));
    out->window_s = get_num(&c, j, "window_s");
    /* the window turns counts into DCGM's rates (PCIe replays per minute, NVLink CRC errors per second): 1e300 s
     * would pass any count */
    if (!isnan(out->window_s) && !(out->window_s >= 0 && out->window_s <= 1e9))
        bad_field(&c, "window_s", "a number of seconds from 0 to 1e9 or null");
    out->sample_ms = (int)get_int(&c, j, "sample_ms");
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
        snprintf(c.path, sizeof c.path, "gpus[%zu]", i);
        if (!json_is_object(o) || !json_is_string(json_object_get(o, "pci_bus_id"))) {
            snprintf(err, errlen, "health.gpus[%zu]: expected an object with a \"pci_bus_id\"", i);
            nvs_health_report_free(out);
            return NVS_ERR_INPUT;
        }
        copy_str(g->host, sizeof g->host, json_object_get(o, "host"));
        copy_str(g->pci_bus_id, sizeof g->pci_bus_id, json_object_get(o, "pci_bus_id"));
        copy_str(g->name, sizeof g->name, json_object_get(o, "name"));
        g->gpu = (int)get_int(&c, o, "gpu");
        const json_t *st = json_object_get(o, "status");
        if (json_is_string(st) && strcmp(json_string_value(st), "ok")) copy_str(g->why, sizeof g->why, st);
        const json_t *x;
        char base[48];
        snprintf(base, sizeof base, "gpus[%zu]", i);
        if ((x = get_obj(&c, o, "before"))) {
            snprintf(c.path, sizeof c.path, "%s.before", base);
            read_snap(&c, x, &g->before);
        }
        if ((x = get_obj(&c, o, "after"))) {
            snprintf(c.path, sizeof c.path, "%s.after", base);
            read_snap(&c, x, &g->after);
            g->have_after = 1;
        }
        snprintf(c.path, sizeof c.path, "%s", base);
        if ((x = get_obj(&c, o, "under_load"))) {
            nvs_health_load *l = &g->load;
            snprintf(c.path, sizeof c.path, "%s.under_load", base);
            long long v = get_int(&c, x, "samples");
            l->samples = v < 0 ? 0 : (int)v;
            v = get_int(&c, x, "busy_samples");
            l->busy_samples = v < 0 ? 0 : (int)v;
            l->sm_min_mhz = (int)get_int(&c, x, "sm_min_mhz");
            l->sm_mean_mhz = get_num(&c, x, "sm_mean_mhz");
            l->mem_min_mhz = (int)get_int(&c, x, "mem_min_mhz");
            l->reasons_busy = get_int(&c, x, "event_reasons");
            l->temp_max_c = (int)get_int(&c, x, "temp_max_c");
            l->power_max_w = get_num(&c, x, "power_max_w");
            l->pcie_gen_max = (int)get_int(&c, x, "pcie_gen_max");
            l->pcie_width_max = (int)get_int(&c, x, "pcie_width_max");
        }
        snprintf(c.path, sizeof c.path, "%s.xid", base);
        if ((x = get_obj(&c, o, "xid"))) {
            g->xid_watched = get_bool(&c, x, "watched") == 1;
            copy_str(g->xid_why, sizeof g->xid_why, json_object_get(x, "why"));
            long long other = get_int(&c, x, "other");
            g->xid_other = other < 0 ? 0 : (int)other;
            const json_t *ev = json_object_get(x, "events");
            for (size_t k = 0; json_is_array(ev) && k < json_array_size(ev) && g->nxid < NVS_HEALTH_MAX_XIDS; k++) {
                const json_t *e = json_array_get(ev, k);
                long long xid = get_int(&c, e, "xid"), cnt = get_int(&c, e, "count");
                if (xid < 0 || cnt < 1) {
                    bad_field(&c, "events", "[{\"xid\": N, \"count\": N >= 1}]");
                    break;
                }
                g->xids[g->nxid].xid = (unsigned long long)xid;
                g->xids[g->nxid++].count = (int)cnt;
            }
        }
        /* both absent from runs written before 3 December 2026: the GPU answered, nothing failed */
        snprintf(c.path, sizeof c.path, "%s", base);
        if ((x = get_obj(&c, o, "lost"))) {
            snprintf(c.path, sizeof c.path, "%s.lost", base); /* its keys' errors name it */
            long long code = get_int(&c, x, "code");
            static const char *const keys[3] = {"call", "when", "text"};
            for (int k = 0; k < 3; k++) {
                const json_t *sv = json_object_get(x, keys[k]);
                if (sv && !json_is_string(sv) && !json_is_null(sv)) bad_field(&c, keys[k], "a string or null");
            }
            snprintf(c.path, sizeof c.path, "%s", base);
            if (code != NVS_HEALTH_LOST_CODE && code != NVS_HEALTH_RESET_CODE)
                bad_field(&c, "lost", "{\"code\": 15 or 16, \"call\", \"when\", \"text\"} or null");
            g->lost.code = (int)code;
            copy_str(g->lost.call, sizeof g->lost.call, json_object_get(x, "call"));
            copy_str(g->lost.when, sizeof g->lost.when, json_object_get(x, "when"));
            copy_str(g->lost.text, sizeof g->lost.text, json_object_get(x, "text"));
        }
        const json_t *re = json_object_get(o, "read_errors");
        if (json_is_string(re)) copy_str(g->read_errors, sizeof g->read_errors, re);
        else if (re && !json_is_null(re)) bad_field(&c, "read_errors", "a string or null");
    }
    if (c.bad) {
        nvs_health_report_free(out);
        return NVS_ERR_INPUT;
    }
    return NVS_OK;
}
