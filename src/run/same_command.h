/* Every rank of one run must run the same command: `mpirun ... nvscale coll -e 1G` with another -e, --coll or -n
 * on one rank (a wrapper script, a node with another build) made the ranks call different collectives, and the
 * job waited for --timeout (300 s by default), then blamed "a peer rank is stalled or gone". Checked once at the
 * start, before the run directory is made. Every option counts, also those that change no collective (-v, -q,
 * --timeout): the ranks of one run are started alike. A build from before this check (5 December 2026) does not
 * take part in it: mixed with one, the job still waits for --timeout. */
#ifndef NVS_RUN_SAME_COMMAND_H
#define NVS_RUN_SAME_COMMAND_H

#include "core/config.h"
#include "core/err.h"
#include "runtime/runtime.h"

/* NVS_OK when every rank has rank 0's subcommand, options and nvscale version; else NVS_ERR_USAGE on every rank,
 * each rank that differs printing its own command line and rank 0 saying which ranks differ; or the runtime's
 * error when the ranks cannot be asked. */
nvs_result_t nvs_same_command(nvs_rt *rt, const nvs_config *cfg);

#endif
