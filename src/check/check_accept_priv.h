/* PRIVATE to src/check/: what the files that judge the rules of `accept` share (check_accept.h is the
 * interface); no other folder includes this header.
 *   check_accept.c          the pass over the rules; which rank drives a GPU
 *   check_accept_health.c   health: the run's health section, read and evaluated once, one row per finding
 *   check_accept_host.c     host: the host copies of p2p, one row per GPU
 *   check_accept_sustain.c  sustain: the sustained load's chunks (busbw) and each GPU's burn (gemm)
 *   check_accept_gpu.c      gpu: each GPU's self-test against min=, min_bound= and its peers (min_peer=); the
 *                           self-test entries a rule looks at (gpu and sustain gemm) */
#ifndef NVS_CHECK_ACCEPT_PRIV_H
#define NVS_CHECK_ACCEPT_PRIV_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "check/check_eval.h"
#include "check/rules.h"
#include "health/health.h"

/* Rule r demanded what the run does not hold: the row says "not measured" and why, a miss of the rule (FAIL, or
 * WARN under severity=warn). */
static inline void not_measured(nvs_verdicts *vs, nvs_verdict *v, const nvs_rule *r, const char *why)
{
    snprintf(v->measured, sizeof v->measured, "not measured");
    snprintf(v->note, sizeof v->note, "not measured: %.170s", why);
    nvs_verdict_miss(vs, v, r);
}

/* Which rank drives which GPU (ranks[].topo_gpu), sorted by GPU and then by place in "ranks": looked up once per
 * row by binary search (a scan of every rank per row took most of the 9.9 s `check` spent on 8192 GPUs' health). */
typedef struct {
    long long gpu;
    size_t order;
    int rank;
} gpu_rank;
typedef struct {
    gpu_rank *v;
    size_t n;
} gpu_ranks;

/* check_accept.c */
/* The rank that drives the GPU with this topology index (the first that names it), -1 if none does. */
int nvs_ca_rank_of_gpu(const gpu_ranks *gr, int gpu);

/* The run's health section, read and evaluated once for all health rules (the built-in ones are ten: reading it
 * per rule took 9.2 s of `check` on 8192 GPUs, 2.4 s once) */
typedef struct {
    const json_t *section; /* NULL: the run has none */
    int unreadable;        /* the section is malformed: err says how */
    char err[256];
    nvs_health_report rep;
    nvs_health_findings f;
} health_facts;

/* check_accept_health.c: 0, -1 out of memory */
int nvs_ca_health_facts_read(const json_t *root, health_facts *h);
void nvs_ca_health_facts_free(health_facts *h);
int nvs_ca_eval_health(const nvs_rule *r, const health_facts *h, const gpu_ranks *gr, unsigned named, nvs_verdicts *vs);

/* o's number k; NAN when absent or not a number */
static inline double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* check_accept_host.c, check_accept_sustain.c, check_accept_gpu.c: 0, -1 out of memory */
int nvs_ca_eval_host(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, nvs_verdicts *vs);
int nvs_ca_eval_sustain(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, nvs_verdicts *vs);
int nvs_ca_eval_gpu(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, nvs_verdicts *vs);

/* check_accept_gpu.c */
/* The self-test entries a rule looks at (gpu_selftest.gpus[], gpu= or every one), each through `judge` (given
 * `ctx`), which fills the row made for it here with its host, GPU and rank; one "not measured" row for the rule
 * when the section is absent or skipped or no entry matches. 0, -1 out of memory. */
typedef int (*selftest_judge)(const nvs_rule *r, const json_t *gpus, size_t i, const void *ctx, nvs_verdict *v,
                              nvs_verdicts *vs);
int nvs_ca_each_selftest_gpu(const nvs_rule *r, const json_t *root, const gpu_ranks *gr, const char *kind,
                             const char *absent, selftest_judge judge, const void *ctx, nvs_verdicts *vs);

#endif
