/* run.json's "health" section (docs/run-json.md): written (PURE), and the clock event reasons' names, which it
 * writes beside their bits. null = unsupported. Read back by health_json_read.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "health/health.h"

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
            json_array_append_new(a,
                                  json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "link", l->link, "active",
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
        json_array_append_new(ev,
                              json_pack("{s:I, s:i}", "xid", (json_int_t)g->xids[i].xid, "count", g->xids[i].count));
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
    json_t *o =
        json_pack("{s:s, s:o, s:i}", "source", r->source, "window_s", jnum(r->window_s), "sample_ms", r->sample_ms);
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
