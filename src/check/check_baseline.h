/* `nvscale check --save-baseline OUT.json`: a trimmed copy of a run.json (same schema nvscale.run/1) that later
 * checks compare against. Kept: identity (tool, command, host, env, versions, world, ranks, topology, sweep,
 * scaling), the measurements (collectives, p2p, train without its bucket list, transports without the
 * per-channel list and log paths) and the result. Dropped: explain (derived text, regenerated from the numbers),
 * train.buckets, transports[].channels/log_files. Added: "baseline": {"source_run": path}. */
#ifndef NVS_CHECK_BASELINE_H
#define NVS_CHECK_BASELINE_H

#include <stddef.h>

#include "core/err.h"

/* Trim run.json text into baseline JSON text (malloc'd). NVS_ERR_INPUT with a message in err when the text is
 * not JSON. Does not validate the schema: the caller has read the run with nvs_ck_read_run() first. */
nvs_result_t nvs_baseline_from_text(const char *run_text, const char *source_path, char **out, char *err,
                                    size_t errlen);
/* Read run_path, write the baseline to out_path atomically (whole or not at all). */
nvs_result_t nvs_baseline_save(const char *run_path, const char *out_path);

#endif
