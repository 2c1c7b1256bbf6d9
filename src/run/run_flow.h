/* The measuring flow of run / coll / train (run_flow.c): choose the backend (NCCL when a GPU is visible, else the
 * MPI host backend, said in one line), launch the ranks (mpirun/srun, or one thread per GPU), then per rank:
 * backend, rank facts, topology, GPU-count plan and placement, collective sweeps, training step, NCCL
 * transports; rank 0 writes run.json, CSV, table and the summary. */
#ifndef NVS_RUN_FLOW_H
#define NVS_RUN_FLOW_H

#include "core/config.h"
#include "core/err.h"

/* cfg: parsed and checked by the command line (cfg->subcommand is "run", "coll" or "train"). Returns the result
 * agreed over the ranks. */
nvs_result_t nvs_run_measure(const nvs_config *cfg);

#endif
