/* The run.json that `nvscale topo` and `nvscale p2p` write (schema nvscale.run/1, docs/run-json.md).
 * Kept small and in one place on purpose: the shared run-directory/run.json writer will replace it. */
#ifndef NVS_TOPO_RUNJSON_H
#define NVS_TOPO_RUNJSON_H

#include <jansson.h>
#include <stdio.h>

#include "../src/config.h"

/* {"schema", "tool", "command": {"subcommand", "argv", "launcher"}} */
json_t *nvs_topo_run_doc(const nvs_config *cfg, const char *launcher);
/* Writes doc as <dir>/run.json (whole or not at all); dir = cfg->out_dir, or results/<YYYYmmdd-HHMMSS>-<sub>
 * when it is empty. Nothing is written without cfg->save. */
nvs_result_t nvs_topo_save_run(const nvs_config *cfg, const json_t *doc);
/* doc to `to`, indented, with the stream checked (fflush/ferror). */
nvs_result_t nvs_topo_print_json(const json_t *doc, FILE *to);

#endif
