/* What several subcommands of the command line share: the run.json head and its saving for the measuring
 * subcommands that have no run flow of their own (topo, p2p), and the log level from -q / -v. */
#ifndef NVS_CLI_COMMON_H
#define NVS_CLI_COMMON_H

#include <jansson.h>

#include "core/config.h"
#include "core/err.h"

/* run.json head (runjson/runjson_write.h) for cfg's subcommand and argv. */
json_t *nvs_cli_run_doc(const nvs_config *cfg, const char *launcher, const char *backend);
/* Saves doc as <--out or results/<stamp>-<sub>>/run.json unless --no-save; says where on stderr unless -q. */
nvs_result_t nvs_cli_save_run(const nvs_config *cfg, const json_t *doc);
/* -q: errors only; default: warnings; -v: info; -vv: debug. Progress lines off under -q. */
void nvs_cli_set_verbosity(int quiet, int verbose);

#endif
