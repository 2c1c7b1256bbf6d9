/* Phases a subcommand can add to the run flow with cfg->phases (core/config.h NVS_PHASE_*), each in its own
 * file: `nvscale accept` switches them on per level. Every rank calls each; what each leaves for run.json is
 * on rank 0 (run->health, run->p2p). */
#ifndef NVS_PHASES_EXTRA_H
#define NVS_PHASES_EXTRA_H

#include "run/run.h"

/* phase_health.c: the first reading, XID events and the sampler on each host's local rank 0 ... */
nvs_result_t nvs_phase_health_start(nvs_ctx *run);
/* ... and the second reading; every host's report gathered into run->health (rank 0). */
nvs_result_t nvs_phase_health_finish(nvs_ctx *run);
/* phase_p2p.c: copies between every GPU pair of each host (NVS_PHASE_P2P) and pinned host<->device copies
 * (NVS_PHASE_H2D), measured by each host's local rank 0 while the host's other ranks wait; run->p2p. A host
 * where one process cannot see two GPUs (or any) is skipped with the reason in the section. */
nvs_result_t nvs_phase_copies(nvs_ctx *run);
/* phase_sustain.c: all_reduce of a large buffer over every rank for cfg->sustain_s seconds, results validated
 * at the end (NVS_PHASE_SUSTAIN). */
nvs_result_t nvs_phase_sustain(nvs_ctx *run);
/* phase_selftest.c: every rank's GPU alone, all at once (memory bandwidth, bf16 GEMM, both validated:
 * selftest/selftest.h), gathered into run->selftest (NVS_PHASE_SELFTEST). */
nvs_result_t nvs_phase_selftest(nvs_ctx *run);
/* A monitor still running (a phase failed) stopped, the sections freed. */
void nvs_phase_extra_cleanup(nvs_ctx *run);

#endif
