/* The state of one measuring run on one rank: what was asked, where it runs, what it measured. Built up by the
 * phases of run_flow.c (backend, topology, sweeps per GPU count, training step), then turned into run.json and
 * tables by rank 0 (out_*.c). */
#ifndef NVS_RUN_H
#define NVS_RUN_H

#include <jansson.h>

#include "collectives/backend.h"
#include "core/config.h"
#include "collectives/rows.h"
#include "runtime/runtime.h"
#include "core/version.h"

/* What each rank reports about itself (gathered to everyone). Fixed-size: it travels through allgather. */
typedef struct {
    int rank, node, local_rank, device;
    char host[64];    /* the (virtual, under --emulate-nodes) host */
    char machine[64]; /* the machine it runs on: == host unless --emulate-nodes */
    char gpu[256];
    char pci_bus_id[32];
    double memory_bytes;
    int topo_gpu; /* index into the topology's GPU list, -1 if unknown */
    int cpus_allowed; /* CPUs this process may run on (sched_getaffinity); 1 = bound to one core */
} nvs_rank_info;

/* One GPU count of the scaling plan. */
typedef struct {
    int n;
    int *ranks; /* world ranks taking part, in communicator order */
} nvs_scale_point;

typedef struct nvs_ctx {
    const nvs_config *cfg;
    nvs_rt *rt;
    nvs_backend backend;
    int have_backend;
    nvs_versions versions;
    nvs_rank_info *ranks; /* [world size] */
    nvs_scale_point *points;
    int npoints;
    nvs_coll_rows rows;
    struct nvs_topology *topo; /* every rank: all hosts' topology (NULL if it could not be discovered) */
    json_t *topology; /* rank 0: topology section of run.json (NULL if not discovered) */
    json_t *transports; /* rank 0: per-N transports from NCCL's log */
    json_t *trains;   /* rank 0: the training step's sections, one per workload (array; NULL: none measured) */
    struct nvs_health_monitor *health_mon; /* local rank 0 while NVS_PHASE_HEALTH watches (phase_health.c) */
    json_t *health;   /* rank 0: the health section (NVS_PHASE_HEALTH) */
    json_t *p2p;      /* rank 0: the p2p section, GPU pairs and/or host copies (NVS_PHASE_P2P / _H2D) */
    json_t *sustain;  /* rank 0: the sustained-load section (NVS_PHASE_SUSTAIN) */
    json_t *selftest; /* rank 0: the GPU self-test section (NVS_PHASE_SELFTEST) */
    long long phase_wrong; /* wrong elements found by the extra phases (copies, sustained load) */
    char out_dir[NVS_PATH_MAX];   /* where this run writes while it runs: <final_dir>.partial */
    char final_dir[NVS_PATH_MAX]; /* the name it takes once it has ended (completed, failed or interrupted) */
    double last_checkpoint_s;     /* rank 0: when run.json was last written */
    int running;                  /* run.json describes a run still going on (a checkpoint) */
    struct nvs_rescue *rescue;    /* rank 0: marks the checkpoint "interrupted" on a signal (rescue.h) */
    char reason[NVS_RT_WHY_LEN + 96]; /* why the run did not end well, for run.json's result.reason: holds a notice's
                                   * sentence (NVS_RT_WHY_LEN) with run_flow's words around it */
    char nccl_log_dir[NVS_PATH_MAX];
    int nccl_log_tmp; /* log directory is a temporary one (--no-save): removed at the end */
    char started_utc[32];
    double t_start;
    const char *launcher;
    const char *no_gpu; /* the host backend ran because no GPU was found (no --backend given): why; "" otherwise */
    int fail_phase, fail_rank; /* test hook NVS_TEST_FAIL (run/phase_fail.h): that rank fails in that phase */
} nvs_ctx;

/* Hosts spanned by the ranks of GPU count n (0: unknown). */
int nvs_ctx_hosts_at(const nvs_ctx *run, int n);

/* Rank 0 writes run.json with what was measured so far (status "running"), at most every few seconds unless
 * `force`; nothing without --save. A write error stops the run (the results could not be kept anyway). */
nvs_result_t nvs_run_checkpoint(nvs_ctx *run, int force);

/* Writers (rank 0). */
json_t *nvs_ctx_to_json(const nvs_ctx *run, nvs_result_t status, double duration_s);
void nvs_print_table(const nvs_ctx *run, FILE *to);
nvs_result_t nvs_print_csv(const nvs_ctx *run, FILE *to);
/* "explain" entries per N from the finished run.json (rank 0); NULL when they cannot be made. */
json_t *nvs_ctx_explain(const nvs_ctx *ctx, json_t *root);
void nvs_print_explain(const json_t *explain, FILE *to);
/* The one-screen answer of `nvscale run` from the finished run.json document (out_summary.c). */
void nvs_print_summary(const nvs_ctx *run, const json_t *root, FILE *to);
/* The lines on how a training workload (run.json trains[k]) ran its convolutions and batch norms, each after
 * `prefix`; nothing for a
 * workload without such layers (summary.h nvs_summary_cudnn_note). */
void nvs_print_cudnn_notes(const json_t *train, const char *prefix, FILE *to);
/* With --rounds: one line, after `prefix`, of each N's efficiency over the paired rounds and its range; nothing
 * for a workload measured in one round. */
void nvs_print_rounds_note(const json_t *train, const char *prefix, FILE *to);

#endif
