/* The verdicts of `gpus per_host min=N` (PURE: the run document in, rows out): one row per host of the run, the
 * number of distinct GPUs its ranks ran on (ranks[].pci_bus_id) against N. An acceptance run of an 8-GPU host
 * whose GPU fell off the bus measures the 7 others and every other rule passes on them; a host whose driver
 * cannot start CUDA runs on the host backend and measures none. This rule is what catches both. docs/accept.md,
 * "GPUs each host must show". */
#ifndef NVS_CHECK_GPUS_H
#define NVS_CHECK_GPUS_H

#include <jansson.h>

#include "check/check_eval.h"
#include "check/rules.h"

/* Appends the rows of rule R (metric gpus) for the run `root` to vs. 0, or -1 when out of memory. */
int nvs_check_eval_gpus(const nvs_rule *r, const json_t *root, nvs_verdicts *vs);

#endif
