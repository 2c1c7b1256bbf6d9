/* PRIVATE to src/health/: what the evaluation of health facts (health_eval.c: one finding per GPU and check) shares
 * with the files the checks are split into; no other folder includes this header (health.h is the interface).
 *   health_memory.c  ecc, memory: ECC errors, row remapping and page retirement
 *   health_xid.c     xid: XID events during the run
 *   health_clocks.c  throttle, clocks, temperature, power: what holds the clocks down
 *   health_pcie.c    pcie, pcie_replay: the PCIe link's generation and width, replays
 *   health_nvlink.c  nvlink, nvlink_errors: NVLink links up, error counters
 * Each check fills in a finding that health_eval.c made (its check, GPU and "what" set, severity PASS). */
#ifndef NVS_HEALTH_EVAL_PRIV_H
#define NVS_HEALTH_EVAL_PRIV_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "health/health.h"

/* snprintf into one of a finding's texts */
static inline void put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void put(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

static inline void worsen(nvs_health_finding *x, nvs_severity s)
{
    if (s > x->severity) x->severity = s;
}

/* The change of a counter from reading a to reading b, -1 when either is unknown. */
static inline long long delta(long long a, long long b) { return a >= 0 && b >= 0 ? b - a : -1; }

/* The reading that counts as "now": after the run when there is one. */
static inline const nvs_health_snap *now_of(const nvs_health_gpu *g) { return g->have_after ? &g->after : &g->before; }

/* appends "; text" (or "text" to an empty note) */
static inline void note_add(nvs_health_finding *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void note_add(nvs_health_finding *x, const char *fmt, ...)
{
    size_t l = strlen(x->note);
    if (l) l += (size_t)snprintf(x->note + l, sizeof x->note - l, "; ");
    if (l >= sizeof x->note) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->note + l, sizeof x->note - l, fmt, ap);
    va_end(ap);
}

/* health_eval.c */
/* Something the check needs was not there: a SKIP, or a WARN naming the NVML calls that failed on the GPU. */
void nvs_he_not_judged(nvs_health_finding *x, const nvs_health_gpu *g, const char *why);
/* What the check looks at is not reported: measured "unsupported", then as nvs_he_not_judged. */
void nvs_he_unsupported(nvs_health_finding *x, const nvs_health_gpu *g, const char *what);

/* the checks, one finding each; window_s: the seconds between the two readings (0 unknown) */
void nvs_he_eval_ecc(nvs_health_finding *x, const nvs_health_gpu *g);          /* health_memory.c */
void nvs_he_eval_memory(nvs_health_finding *x, const nvs_health_gpu *g);       /* health_memory.c */
void nvs_he_eval_xid(nvs_health_finding *x, const nvs_health_gpu *g, double window_s); /* health_xid.c */
void nvs_he_eval_throttle(nvs_health_finding *x, const nvs_health_gpu *g);     /* health_clocks.c */
void nvs_he_eval_clocks(nvs_health_finding *x, const nvs_health_gpu *g);       /* health_clocks.c */
void nvs_he_eval_temperature(nvs_health_finding *x, const nvs_health_gpu *g);  /* health_clocks.c */
void nvs_he_eval_power(nvs_health_finding *x, const nvs_health_gpu *g);        /* health_clocks.c */
void nvs_he_eval_pcie(nvs_health_finding *x, const nvs_health_gpu *g);         /* health_pcie.c */
void nvs_he_eval_pcie_replay(nvs_health_finding *x, const nvs_health_gpu *g, double window_s); /* health_pcie.c */
/* needs the whole report: the host's other GPUs of the same model say how many links should be up */
void nvs_he_eval_nvlink(nvs_health_finding *x, const nvs_health_report *r, int gi); /* health_nvlink.c */
void nvs_he_eval_nvlink_errors(nvs_health_finding *x, const nvs_health_gpu *g, double window_s); /* health_nvlink.c */

#endif
