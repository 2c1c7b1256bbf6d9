/* One struct for everything a measuring subcommand (run, coll, train, topo, p2p) was asked to do: defaults,
 * command-line parsing (getopt_long, nccl-tests' short flags), validation. No globals: main() owns it.
 * The offline subcommands (report, compare, check, model) parse their own arguments in their own files. */
#ifndef NVS_CONFIG_H
#define NVS_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "core/err.h"
#include "core/precision.h"

#define NVS_MAX_GPU_COUNTS 64
#define NVS_PATH_MAX 4096

typedef enum { NVS_BACKEND_AUTO = 0, NVS_BACKEND_NCCL, NVS_BACKEND_MPI } nvs_backend_kind;
typedef enum { NVS_FMT_TABLE = 0, NVS_FMT_JSON, NVS_FMT_CSV } nvs_format;
typedef enum { NVS_PLACE_FIRST = 0, NVS_PLACE_BEST, NVS_PLACE_WORST } nvs_placement;

/* Phases of the run flow that a subcommand can add (run_flow.c, run_rank()). */
enum {
    NVS_PHASE_HEALTH = 1u << 0,   /* NVML health before/after, sampled during (phase_health.c) */
    NVS_PHASE_P2P = 1u << 1,      /* copies between every GPU pair of a host (phase_p2p.c) */
    NVS_PHASE_H2D = 1u << 2,      /* pinned host<->device copies (phase_p2p.c) */
    NVS_PHASE_SUSTAIN = 1u << 3,  /* minutes of all_reduce load while the health sampler watches (phase_sustain.c) */
    NVS_PHASE_NO_SWEEP = 1u << 4, /* no collective sweep (accept --level 1) */
    NVS_PHASE_SELFTEST = 1u << 5, /* every rank's GPU alone: memory bandwidth, bf16 GEMM (phase_selftest.c) */
    NVS_PHASE_BURN = 1u << 6,     /* with SELFTEST: the GEMM back to back for sustain_s seconds on every GPU */
};

enum { NVS_INPLACE_OUT = 1u << 0, NVS_INPLACE_IN = 1u << 1 };

typedef struct nvs_config {
    const char *subcommand;
    int argc;
    char **argv; /* as typed, for run.json */

    nvs_backend_kind backend;
    int backend_explicit; /* --backend given */

    /* collective sweep (nccl-tests flags) */
    size_t min_bytes, max_bytes;
    double step_factor; /* -f; 0 when -i is used */
    size_t step_bytes;  /* -i */
    int iters;          /* -n; 0 = automatic per size */
    int warmup;         /* -w */
    int check;          /* -c: validate every configuration (1) or not (0, shown as "skipped") */
    int graph_launches; /* -G: 0 = plain launches, else CUDA-graph launches of the timed loop */
    unsigned types_mask; /* bit per nvs_dtype */
    unsigned ops_mask;   /* bit per nvs_redop */
    int root;
    int agg_iters;      /* -m: operations per iteration, in one NCCL group */
    int time_basis;     /* -a: which rank's time the bandwidths use: 0 rank 0, 1 mean, 2 fastest, 3 slowest */
    int blocking;       /* -z: wait for each operation before the next; 1: then a host barrier of every rank */
    int alloc_nccl;     /* --alloc nccl: the sweep's buffers from ncclMemAlloc, as nccl-tests allocates its own
                         * since NCCL 2.19 (common.cu AllocateBuffs); 0: cudaMalloc, as PyTorch's caching allocator */
    int sizes_explicit; /* -b/-e/-f/-i given (else the backend's default sweep) */
    unsigned inplace_mask;
    unsigned colls_mask; /* bit per registry index (collectives/coll.h) */
    int colls_explicit;

    /* scaling */
    int gpu_counts[NVS_MAX_GPU_COUNTS];
    int n_gpu_counts; /* 0 = 1, 2, 4, ... up to the world size, plus the world size */
    nvs_placement placement;

    /* training step */
    char model[NVS_PATH_MAX]; /* built-in profile name or profile file; empty = no training step in `run` */
    int batch;                /* per GPU; 0 = the profile's default */
    nvs_precision precision;
    int grad_bf16;
    size_t bucket_first_bytes, bucket_cap_bytes;
    int steps, warmup_steps;
    int rounds; /* --rounds: every N measured this many times in turn, efficiency from the paired rounds */
    int precision_explicit, steps_explicit, warmup_steps_explicit;
    char framework[32]; /* --framework: workload/framework.h (default pytorch-ddp) */
    int optimizer;      /* --optimizer: an nvs_optimizer (workload/optimizer.h); 0 = sgd, the default */
    int optimizer_fused; /* --optimizer adamw-fused: AdamW as one fused pass under any framework */
    int cudnn;          /* --cudnn: an nvs_cudnn_mode (train/conv.h); 0 = auto */
    int no_train; /* run --no-train */

    /* topology / p2p */
    char hwloc_xml[NVS_PATH_MAX];
    size_t copy_bytes;
    int copy_iters;
    int p2p_host; /* p2p --host: pinned host<->device copies instead of GPU pairs */

    /* phases beyond what the subcommand implies (NVS_PHASE_*; set by `accept` per level, 0 otherwise) */
    unsigned phases;
    double sustain_s;     /* NVS_PHASE_SUSTAIN: seconds of sustained load */
    int health_sample_ms; /* NVS_PHASE_HEALTH: sampler period (0: no sampler) */

    /* process */
    int emulate_nodes; /* --emulate-nodes K: ranks split into K virtual hosts (0: off; runtime/runtime.h) */
    double timeout_s;
    nvs_format format;
    char out_dir[NVS_PATH_MAX]; /* results/<run>/ unless --out; empty with --no-save */
    int save;
    int quiet, verbose;
    int nccl_log; /* capture NCCL's INFO log to find transports (1 unless the user set NCCL_DEBUG) */

    /* test hook (NVS_TEST_STALL=rank:bytes): that rank skips the collective of that size, to test --timeout */
    int stall_rank;
    size_t stall_bytes;
    /* test hook (NVS_TEST_CORRUPT=rank): that rank spoils one output element before every validation, to show
     * that validation catches it (exit 3) */
    int corrupt_rank;
    /* test hook (NVS_TEST_SLOW_STOP=S): after a signal, rank 0 takes S seconds more to reach its final write, as
     * a rank aborting NCCL communicators or queued behind a stalled all-reduce may; tests/t/faults_train.sh shows
     * that the run.json left when the launcher's SIGKILL comes first says "interrupted" (run/rescue.h) */
    int slow_stop_s;
    /* test hook (NVS_TEST_TRAIN_FAIL=rank:N): that rank fails with "out of memory" as it starts timing the training
     * step at N, as a failed allocation would, while the other members go on into the step's all-reduces;
     * tests/t/faults_train_fail.sh shows that the job ends at once, naming the rank and why */
    int train_fail_rank, train_fail_n;
} nvs_config;

void nvs_config_defaults(nvs_config *c);
/* Parse argv (after the subcommand name). Prints one message naming the bad flag or value and a usage hint on
 * error, returning NVS_ERR_USAGE. Sets *help when -h was given (usage printed, caller exits 0). */
nvs_result_t nvs_config_parse(nvs_config *c, const char *subcommand, int argc, char **argv, int *help);
/* The same for OPTS_OF's options (which are taken, c->subcommand) typed under another subcommand, AS, which names
 * every refusal ("nvscale AS: ...", "Try 'nvscale AS --help'."): compare, which passes run's options to its runs.
 * With -h, *help is set and nothing printed: AS says where OPTS_OF's help is. */
nvs_result_t nvs_config_parse_for(nvs_config *c, const char *opts_of, const char *as, int argc, char **argv,
                                  int *help);
void nvs_config_usage(const char *subcommand, FILE *to);

#endif
