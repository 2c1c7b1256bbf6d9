/* The "why" paragraph per N: see explain.h. This file: the facts' defaults and the section as JSON; the
 * paragraph is explain_text.c's (words for the hop and the transport: explain_words.c), the facts of a run
 * explain_run.c's (the slowest hop of its ring: explain_ring.c). */
#include "explain/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "runjson/runjson_write.h"

void nvs_explain_facts_init(nvs_explain_facts *f, int n)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    f->hop_from_gpu = f->hop_to_gpu = f->hop_p2p = -1;
    f->bound_gbps = f->busbw_gbps = f->busbw_bytes = f->prev_busbw_gbps = NAN;
    f->exposed_comm_pct = f->predicted_comm_us = f->measured_comm_us = NAN;
    f->host_rate_p10 = f->host_rate_p90 = f->rank_wait_pct = f->issue_pct = NAN;
    f->contention_ms = f->interference_ms = f->step_ms = NAN;
    f->train_lost_ms = NAN;
}

json_t *nvs_explain_json(const nvs_explain_facts *f)
{
    size_t need = nvs_explain_text(f, NULL, 0);
    char *text = malloc(need + 1);
    if (!text) return NULL;
    nvs_explain_text(f, text, need + 1);
    json_t *o = json_object();
    int bad = !o;
#define PUT(k, v)                                                                                           \
    do {                                                                                                    \
        json_t *v_ = (v);                                                                                   \
        if (!o || !v_ || json_object_set_new(o, (k), v_) != 0) bad = 1;                                     \
    } while (0)
    PUT("n", json_integer(f->n));
    if (f->has_hop) {
        /* the link the hop's class names; null when the class is not one of nvidia-smi's */
        nvs_link_kind kind = nvs_link_kind_of_class(nvs_link_class_parse(f->hop_class, NULL));
        json_t *h = json_object();
        if (h) {
            if (json_object_set_new(h, "from_gpu", json_integer(f->hop_from_gpu)) ||
                json_object_set_new(h, "to_gpu", json_integer(f->hop_to_gpu)) ||
                json_object_set_new(h, "class", f->hop_class ? json_string(f->hop_class) : json_null()) ||
                json_object_set_new(h, "link", kind != NVS_LINK_NONE ? json_string(nvs_link_kind_name(kind))
                                                                     : json_null()) ||
                json_object_set_new(h, "bound_gbps", nvs_rj_num(f->bound_gbps)) ||
                json_object_set_new(h, "source", f->bound_source ? json_string(f->bound_source) : json_null()))
                bad = 1;
        }
        PUT("slowest_hop", h);
    }
    if (f->hosts > 0) PUT("hosts", json_integer(f->hosts));
    PUT("transport", f->transport[0] ? json_string(f->transport) : json_null());
    PUT("collective", f->collective ? json_string(f->collective) : json_null());
    PUT("busbw_gbps", nvs_rj_num(f->busbw_gbps));
    PUT("busbw_bytes", nvs_rj_bytes(f->busbw_bytes));
    PUT("pct_of_bound", !isnan(f->busbw_gbps) && !isnan(f->bound_gbps) && f->bound_gbps > 0 &&
                            !nvs_explain_hop_unused(f)
                            ? json_real(100.0 * f->busbw_gbps / f->bound_gbps)
                            : json_null());
    PUT("exposed_comm_pct", nvs_rj_num(f->exposed_comm_pct));
    PUT("rank_wait_pct", nvs_rj_num(f->rank_wait_pct));
    if (f->workload) PUT("workload", json_string(f->workload));
    PUT("text", json_string(text));
#undef PUT
    free(text);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
