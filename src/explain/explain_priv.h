/* PRIVATE to src/explain/: what the files of the "why" paragraph (explain.h) share; no other folder includes this
 * header (explain.h is the interface).
 *   explain.c        the facts' defaults; the facts and the paragraph as run.json's "explain" entry
 *   explain_text.c   the paragraph in words (nvs_explain_text)
 *   explain_words.c  the words for the slowest hop and the transport; whether NCCL went around the hop
 *   explain_ring.c   the slowest hop of the best ring at N, from a run
 *   explain_run.c    the facts at N from a run (nvs_explain_facts_from_run) */
#ifndef NVS_EXPLAIN_PRIV_H
#define NVS_EXPLAIN_PRIV_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "explain/explain.h"

/* snprintf into a growing text that remembers the full length even when the buffer is too small. */
typedef struct {
    char *buf;
    size_t len, used;
} sb;

static inline void sbf(sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void sbf(sb *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = s->used < s->len ? s->len - s->used : 0;
    int w = vsnprintf(room ? s->buf + s->used : NULL, room, fmt, ap);
    va_end(ap);
    if (w > 0) s->used += (size_t)w;
}

/* A figure in prose: one decimal below `whole_from`, none from there up. */
static inline const char *figure(double v, double whole_from, char *buf, size_t len)
{
    snprintf(buf, len, fabs(v) >= whole_from ? "%.0f" : "%.1f", v);
    return buf;
}

/* Measurements: 3 significant digits are more than the noise allows; "330", "27", "3.4". */
static inline const char *num(double v, char *buf, size_t len) { return figure(v, 10, buf, len); }

/* A bound is a derived constant, not a noisy measurement: keep its decimal below 100 ("31.5", "478"). */
static inline const char *bound_num(double v, char *buf, size_t len) { return figure(v, 100, buf, len); }

/* ---- explain_words.c ---------------------------------------------------------------------------------------- */

/* What the slowest hop is, in words ("the ring crosses the CPU host bridge (PHB)"). */
void nvs_ex_hop_words(sb *s, const nvs_explain_facts *f);

/* What NCCL used, in words, and whether that wastes the hop. */
void nvs_ex_transport_words(sb *s, const nvs_explain_facts *f);

/* Whether NVLS replaces the ring's steps in collective `coll` (its ring bound then bounds nothing) */
int nvs_ex_nvls_reduces(const char *coll);

/* ---- explain_ring.c ----------------------------------------------------------------------------------------- */

/* The slowest hop of the best ring over the GPUs at n into f (left unset when the run cannot say) */
void nvs_ex_ring_hop(const nvs_run *r, int n, nvs_explain_facts *f);

#endif
