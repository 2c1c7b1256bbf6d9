/* `nvscale check --save-baseline OUT.json`: a trimmed copy of a run.json (same schema nvscale.run/1) that later
 * checks compare against. Kept: identity (tool, command, host, env, versions, world, ranks, topology, sweep,
 * scaling), the measurements (collectives, p2p, train and every workload of trains without their bucket lists,
 * transports without the per-channel list and log paths) and the result. Dropped: explain (derived text,
 * regenerated from the numbers), the bucket lists, transports[].channels/log_files. Added: "baseline":
 * {"source_run": path}. */
#ifndef NVS_CHECK_BASELINE_H
#define NVS_CHECK_BASELINE_H

#include <jansson.h>

#include "core/err.h"
#include "runjson/runjson.h"

/* The baseline document of a run read (and so validated) by nvs_run_load: a new reference, NULL when out of
 * memory. */
json_t *nvs_baseline_build(const nvs_run *run);
/* Write the baseline of `run` to out_path with the run.json writer (whole or not at all). */
nvs_result_t nvs_baseline_save(const nvs_run *run, const char *out_path);

#endif
