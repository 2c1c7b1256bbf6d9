/* The verdicts of the rules `nvscale accept` added to the rules file (PURE: the run document in, rows out):
 *   health CHECK|*    one row per GPU of run.json's "health" section: the finding of health/health_eval.c
 *   host DIR          one row per GPU (gpu=N: that one) of "p2p.host_copies", mode=single|all|remote
 *   sustain busbw     one row: the sustained-load phase's busbw, last chunk against the first (max_drop=) or its
 *                     lowest chunk against min=
 * As for every rule, what was demanded but not measured is a FAIL ("not measured" with the reason the run gave),
 * wrong copies fail, and severity=warn turns a FAIL of that rule into a WARN. docs/accept.md. */
#ifndef NVS_CHECK_ACCEPT_H
#define NVS_CHECK_ACCEPT_H

#include <jansson.h>

#include "check/check_eval.h"
#include "check/rules.h"

/* Evaluates the rules of the metrics health, host and sustain (others are check_eval.c's) against `root`, the
 * parsed run.json; appends rows to `out`. 0, or -1 when out of memory. */
int nvs_check_eval_accept(const nvs_ruleset *rules, const json_t *root, nvs_verdicts *out);

#endif
