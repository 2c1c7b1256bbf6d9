/* Health check of XID events during the run (PURE): the driver's error reports, and what a watch that could not
 * be set up means. Part of the evaluation of health facts (health_eval.c). */
#include <string.h>

#include "health/health_eval_priv.h"

/* What the common XIDs mean (NVIDIA's "XID Errors" catalogue, docs.nvidia.com/deploy/xid-errors). */
static const char *xid_meaning(unsigned long long x)
{
    switch (x) {
    case 13: return "graphics engine exception";
    case 31: return "GPU memory page fault";
    case 43: return "GPU stopped processing";
    case 48: return "double-bit ECC error";
    case 63: return "row remap / page retirement recorded";
    case 64: return "row remap / page retirement failed";
    case 74: return "NVLink error";
    case 79: return "GPU has fallen off the bus";
    case 92: return "high single-bit ECC error rate";
    case 94: return "contained ECC error";
    case 95: return "uncontained ECC error";
    case 119: return "GSP RPC timeout";
    case 120: return "GSP error";
    default: return NULL;
    }
}

/* The event call whose failure xid.why names ("call: NVML's text"; topo/health_nvml.c setup_events and
 * drain_events have written it so since 30 November 2026), NULL when it names none or NVML answered that the
 * watch is not offered: the answers health_nvml.c's seen() keeps out of read_errors, as nvmlErrorString words
 * them. read_errors lists these calls only since d861ffa (6 December 2026): a run.json of 3 to 6 December has
 * the key (so it is no file "before failed calls were recorded") without them, and its refused event set read
 * back as "not watched for want of support", a SKIP. The why is in every file, and it says the call failed. */
static const char *xid_failed_call(const char *why)
{
    static const char *const calls[] = {"nvmlEventSetCreate", "nvmlDeviceRegisterEvents", "nvmlEventSetWait_v2"};
    static const char *const not_offered[] = {"Not Supported", "Invalid Argument", "Insufficient Size"};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        size_t n = strlen(calls[i]);
        if (strncmp(why, calls[i], n) || (why[n] != ':' && why[n] != ' ')) continue;
        const char *text = strstr(why + n, ": ");
        if (!text) return NULL;
        for (size_t k = 0; k < sizeof not_offered / sizeof not_offered[0]; k++)
            if (!strcmp(text + 2, not_offered[k])) return NULL;
        return calls[i];
    }
    return NULL;
}

void nvs_he_eval_xid(nvs_health_finding *x, const nvs_health_gpu *g, double window_s)
{
    put(x->expected, sizeof x->expected, "no XID");
    x->expected_v = 0;
    if (!g->xid_watched) { /* nothing judged: a SKIP, a WARN where an event call failed (in read_errors) */
        char why[240];
        put(x->measured, sizeof x->measured, "not watched");
        put(why, sizeof why, "XID events not watched (%s): see the kernel log (dmesg | grep Xid)",
            g->xid_why[0] ? g->xid_why : "no NVML event set");
        const char *call = xid_failed_call(g->xid_why);
        if (call && !g->read_errors_unknown && !g->read_errors[0]) {
            /* a run.json of 3 to 6 December: the failed call is in the why, not yet in read_errors (where read_errors
             * lists other calls, not_judged's WARN names them, and the why this one) */
            worsen(x, NVS_SEV_WARN);
            note_add(x, "%s (the NVML call %s failed on this GPU)", why, call);
            return;
        }
        nvs_he_not_judged(x, g, why);
        return;
    }
    /* in a long long: run.json allows up to 1e9 per code and 16 codes besides "other", whose sum in an int
     * wrapped (4 x 1e9 + 294967296 summed to 0: "none", PASS) */
    long long total = g->xid_other;
    for (int i = 0; i < g->nxid; i++) total += g->xids[i].count;
    x->measured_v = (double)total;
    if (!total) {
        if (window_s > 0) put(x->measured, sizeof x->measured, "none in %.*f s", window_s < 10 ? 1 : 0, window_s);
        else put(x->measured, sizeof x->measured, "none");
        return;
    }
    put(x->measured, sizeof x->measured, "%lld XID event%s", total, total == 1 ? "" : "s");
    worsen(x, NVS_SEV_FAIL);
    for (int i = 0; i < g->nxid; i++) {
        const char *m = xid_meaning(g->xids[i].xid);
        note_add(x, "XID %llu x%d%s%s%s", g->xids[i].xid, g->xids[i].count, m ? " (" : "", m ? m : "", m ? ")" : "");
    }
    if (g->xid_other) note_add(x, "%d more of other codes", g->xid_other);
}
