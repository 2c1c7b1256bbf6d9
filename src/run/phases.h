/* The phases of a measuring run that build on other layers (topology, training step, NCCL log), kept out of
 * run_flow.c so the flow reads as a list of steps. Each is called on every rank. */
#ifndef NVS_PHASES_H
#define NVS_PHASES_H

#include <stdio.h>

#include "run/run.h"

/* Checks of the request that need no runtime (model profile readable, ...): exit 2 material. */
nvs_result_t nvs_phase_validate(const nvs_config *cfg);
/* The workloads of --model (comma-separated) into names[]; returns how many (at most max). */
#define NVS_MAX_WORKLOADS 8
int nvs_phase_models(const nvs_config *cfg, char names[][NVS_PATH_MAX], int max);
/* The world ranks that make up the N-GPU communicator (--placement). */
nvs_result_t nvs_phase_place(nvs_ctx *run, int n, int *ranks);
/* Topology of every host, gathered to rank 0 (run->topology). */
nvs_result_t nvs_phase_topology(nvs_ctx *run);
/* Before anything is measured: every workload loads, plans and fits in every rank's free memory (else one
 * message and NVS_ERR_USAGE, not after the sweeps). The training phase checks again when it starts. */
nvs_result_t nvs_phase_train_preflight(nvs_ctx *run);
/* The synthetic training step at every N (run->train). */
nvs_result_t nvs_phase_train(nvs_ctx *run);
/* Which transport NCCL used per N, from its INFO log (run->transports). */
nvs_result_t nvs_phase_transports(nvs_ctx *run);
/* Scaling summary and explanation under the table (rank 0). */
void nvs_phase_print_summary(const nvs_ctx *run, FILE *to);
/* `train --format csv`: one row per workload and GPU count, from run.json's train sections (times in us, the
 * step's split as in docs/run-json.md; empty where run.json has no number). NVS_ERR_SYSTEM: a write failed. */
nvs_result_t nvs_phase_print_train_csv(const nvs_ctx *run, FILE *to);
void nvs_phase_cleanup(nvs_ctx *run);

#endif
