/* The built-in rules of `nvscale accept` when no --rules file is given (PURE). They are rules-file lines
 * (rules.h), parsed by the same parser, so `nvscale accept --print-rules` prints them, itself a rules file
 * to start from. What each threshold is and where it comes from: docs/accept.md ("Default rules"). */
#ifndef NVS_ACCEPT_RULES_H
#define NVS_ACCEPT_RULES_H

#include <stddef.h>

#include "check/check_eval.h"
#include "check/rules.h"

/* What the run can offer, which decides which rules apply (a host-backend run has no GPU to hold to a link). */
typedef struct {
    int level;      /* 1, 2, 3 */
    int gpu;        /* the run used GPUs (NCCL backend) */
    int health;     /* the health section lists GPUs */
    int host_copies; /* host copies were measured */
    int p2p;        /* GPU pairs were measured */
    int bounds;     /* the run has ring bounds (explain[].slowest_hop) */
    int train;      /* a training step was measured */
    int sustain;    /* the sustained-load phase ran */
    int selftest;   /* the per-GPU self-test ran (gpu_selftest lists GPUs, not skipped) */
    int burn;       /* the GEMM burn ran (gpu_selftest.burn_s) */
    int gpus_min;   /* GPUs each host must show (accept --expect-gpus, else 1); 0: no such rule (--backend mpi asked
                     * for a host without GPUs) */
    const char *health_why; /* why the health section lists no GPU (its source: "unsupported: libnvidia-ml.so.1 not
                             * loaded"); NULL or "": not said */
    int train_one;  /* a training step was measured, at N=1 only (one rank: accept not under mpirun): efficiency
                     * needs N >= 2, and its SKIP row says so rather than "no training step" */
} nvs_accept_facts;

/* The rules text (header and one rule per line, each with a comment saying why), into buf. Lines for things
 * the facts say were not measured are written as comments "# skipped: ..." so that the reader sees what the
 * level would check on a GPU machine. Returns the length, or -1 when buf is too small; *rules (may be NULL)
 * gets the number of rule lines. */
int nvs_accept_rules_text(const nvs_accept_facts *f, char *buf, size_t len, int *rules);
/* Parsed into rs (source "built-in level N"; empty when nothing applies). 0, -1 on a parse error (a bug: the
 * text is ours), -2 no memory. */
int nvs_accept_default_rules(const nvs_accept_facts *f, nvs_ruleset *rs, char *err, size_t errlen);
/* One SKIP row per built-in rule the facts leave out (the "# skipped (WHY): RULE" lines): metric the rule, measured
 * "not checked", the note WHY, rule "built-in level N", so that the JSON, JUnit and Prometheus outputs say what
 * was not checked as the table does. 0, -1 out of memory or built-in rules longer than their buffer. */
int nvs_accept_skipped_verdicts(const nvs_accept_facts *f, nvs_verdicts *vs);

#endif
