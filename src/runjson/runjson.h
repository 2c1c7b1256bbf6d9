/* A shared READER of run.json (schema nvscale.run/1, docs/run-json.md) into C structs, for the offline
 * subcommands (report, compare, check, model). PURE: jansson and libc only.
 *
 * Validation: every key this reader exposes is type-checked where present; a bad file gives one message
 * "FILE: PATH.TO.KEY: what is wrong" (e.g. "run.json: collectives[3].n: expected an integer >= 1, got "2"")
 * and NVS_ERR_INPUT (exit 2). Required everywhere: "schema" = "nvscale.run/1". Everything else is optional
 * unless the caller asks for it with NVS_RUN_NEED_* flags. A value that was not measured (absent or null) reads
 * as NAN for numbers and NULL for strings, never 0.
 *
 * Strings are borrowed from the parsed JSON document, which the nvs_run owns: they live until nvs_run_free(). */
#ifndef NVS_RUNJSON_H
#define NVS_RUNJSON_H

#include <jansson.h>
#include <stddef.h>

#include "core/err.h"
#include "runjson/runjson_schema.h"


/* What a caller needs present (key present and of the right type; arrays may be empty unless noted). */
enum {
    NVS_RUN_NEED_COLLECTIVES = 1 << 0, /* "collectives" array */
    NVS_RUN_NEED_TRAIN = 1 << 1,       /* "train" object with a non-empty "results" */
    NVS_RUN_NEED_TOPOLOGY = 1 << 2,    /* "topology" object */
    NVS_RUN_NEED_P2P = 1 << 3,         /* "p2p" object */
    NVS_RUN_NEED_MEASURED = 1 << 4,    /* any of: "collectives", "train" results, p2p pairs (what a report shows) */
};

typedef struct {
    const char *key, *value;
} nvs_run_kv;

typedef struct {
    int rank, node, local_rank, device, topo_gpu; /* -1 when absent */
    const char *host, *gpu, *pci_bus_id;
    double memory_bytes;
} nvs_run_rank;

typedef struct {
    int index, cuda_device, numa_node;  /* -1 when absent */
    const char *host, *name, *pci_bus_id, *cpuset;
    int pcie_gen, pcie_width;           /* -1 unknown */
    double pcie_gbps;                   /* NAN unknown */
    int nvlink_links_up, nvlink_version; /* -1 unknown (0 = no NVLink) */
    double nvlink_gbps_per_link;        /* NAN unknown */
    double net_gbps;                    /* "net": the bound of its nearest NICs, GB/s per direction; NAN unknown */
    const char *net_source;             /* where that comes from; NULL unknown */
    const char *machine;                /* its host's machine (--emulate-nodes' virtual hosts); NULL none */
} nvs_run_gpu;

typedef struct {
    int a, b;                           /* topology GPU indices */
    const char *cls;                    /* "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", "NET"; NULL unknown */
    int nvlinks;                        /* -1 unknown */
    const char *pcie_class;             /* class of the PCIe path alone; NULL unknown */
    int p2p_cuda;                       /* cudaDeviceCanAccessPeer: 1 / 0 / -1 unknown */
    double bound_gbps;                  /* per direction; NAN unknown */
    const char *bound_source;
} nvs_run_pair;

/* a pair's place in pairs[] under its key: the lower GPU index, then the higher */
typedef struct {
    int lo, hi;
    size_t pos;
} nvs_run_pair_key;

typedef struct {
    int present;
    const char *source;
    nvs_run_gpu *gpus;
    size_t ngpus;
    nvs_run_pair *pairs;
    size_t npairs;
    nvs_run_pair_key *pair_index; /* the pairs' keys, sorted: the lookups' binary search (NULL: they scan) */
    double net_gbps_given;        /* "net_gbps": the NET bound the user gave; NAN not given */
} nvs_run_topology;

/* Room for a pair the file does not list: two GPUs of different hosts (NET), built from their "net" */
typedef struct {
    nvs_run_pair pair;
    char source[400];
} nvs_run_pair_buf;

typedef struct {
    int n;
    int *ranks, *gpus; /* n entries each (gpus may be NULL if absent) */
    size_t nranks, ngpus;
} nvs_run_scaling;

typedef struct {
    const char *collective, *type, *op;
    int n, root, inplace, graph;        /* root -1 = none; inplace/graph 0/1 */
    double bytes, count;                /* bytes: a whole number >= 0 (required) */
    double size;                        /* the sweep size measured (whole, >= 0): bytes are that size as the
                                         * collective rounds it at this N (all_gather, reduce_scatter and alltoall:
                                         * whole 16-byte blocks per rank), so rows of one size at several N are
                                         * matched by it; = bytes where the file does not say (before "size") */
    int iters;                          /* -1 absent */
    double time_min_us, time_avg_us, time_max_us; /* NAN absent */
    int slowest_rank;                   /* -1 absent */
    double algbw_gbps, busbw_gbps;      /* NAN absent */
    long long wrong;                    /* -1 = not checked (null or absent) */
} nvs_run_coll;

typedef struct {
    int n;
    const char *nccl_version, *link;    /* NULL absent */
    int nchannels;                      /* -1 absent */
    nvs_run_kv *summary;                /* "P2P" -> "24" (value as text, in file order) */
    int *summary_counts;
    size_t nsummary;
    size_t nchannel_entries;            /* size of the "channels" array */
    const char *net_detail;             /* "detail" of the first NET channel ("NET/Socket/0"), NULL if none */
    const char *collnet_detail;         /* of the first COLLNET channel ("COLLNET/SHARP/0/GDRDMA"), NULL if none */
    int nvls;                           /* a communicator of these ranks used NVLS (NVLink SHARP); 0 absent */
} nvs_run_transport;

typedef struct {
    int n, steps;
    double step_us, compute_us, comm_us, exposed_comm_us, predicted_comm_us, samples_per_s, efficiency;
    double interference_us; /* compute slowed while the all-reduces ran beside it; NAN in runs before it existed */
    double contention_us;   /* compute(N) - compute(reference): the compute slowed by sharing the machine (< 0:
                             * faster); NAN in runs before it existed */
    /* the host's CPU speed before the steps, work units per us (lowest rank's 10th, highest rank's 90th
     * percentile); NAN where the framework had no host work, and in runs before it existed */
    double host_rate_p10, host_rate_p90;
    double rank_wait_us; /* waiting at the all-reduces for a slower rank (train/split.h); NAN in older runs */
    /* --rounds (train/rounds.h): rounds merged (0 without), and the smallest and largest of the rounds' own
     * efficiencies; NAN without */
    int rounds;
    double efficiency_min, efficiency_max;
    int reference_n; /* efficiency_reference_n: the N efficiency is relative to (0: not in the file, i.e. 1) */
    double issue_us;     /* the host's time to issue the slowest rank's step (train/step.c); NAN in older runs */
    /* issue_us by what the host issued (issue_by_us: kind, us; src/train/issue.h), in the file's order, at most
     * NVS_RUN_ISSUE_KINDS_MAX kinds (the rest ignored); 0 kinds in runs before 3 December */
#define NVS_RUN_ISSUE_KINDS_MAX 16
    int nissue_by;
    const char *issue_by_kind[NVS_RUN_ISSUE_KINDS_MAX];
    double issue_by_us[NVS_RUN_ISSUE_KINDS_MAX];
    /* the compute-only step without the framework's host work (the first N only): the GPU's own time; NAN
     * elsewhere and in older runs */
    double ideal_compute_us;
} nvs_run_train_result;

typedef struct {
    int present;
    char key[32]; /* where in run.json it was read: "train", "trains[2]" (for messages) */
    const char *model, *source, *precision, *grad_type;
    const char *framework; /* train.framework.name (--framework); NULL in runs made before it existed */
    const char *profile_file; /* the profile file the model was read from (train.profile_file); NULL built in */
    /* train.optimizer ("sgd", "adamw": --optimizer; "sgd" in runs made before it existed, which ran SGD) and
     * train.optimizer_fused (the update ran as one fused pass: 1/0, -1 absent) */
    const char *optimizer;
    int optimizer_fused;
    /* the framework's numbers the run used (train.framework): NAN / -1 where the run does not say */
    double fw_host_us_per_op, fw_reducer_us_per_bucket, fw_nchw_copies_fwd, fw_nchw_copies_bwd,
        fw_host_us_per_buffer_op;
    int fw_autocast, fw_bucket_copy, fw_grad_scaler, fw_broadcast_buffers, fw_weight_casts, fw_optimizer_foreach;
    int fw_autocast_fp32; /* train.framework.autocast_fp32 (-1: absent, runs before 3 December 2026 evening) */
    int fw_bias_reduce;   /* train.framework.bias_reduce (-1: absent, runs before 4 December 2026) */
    int fw_view_copies;   /* train.framework.view_copies (-1: absent, runs before its afternoon) */
    /* train.framework.optimizer_host_us_per_tensor (NAN: absent, runs before 7 December 2026 charged the optimizer's
     * operations at host_us_per_op) */
    double fw_optimizer_host_us_per_tensor;
    /* how the step ran its convolutions (train.conv.engine: "cudnn" or "gemm"; NULL in runs without it), and how
     * many of those with a geometry it ran there (train.conv.layers, .geometry_layers; -1 absent) */
    const char *conv_engine;
    int conv_layers, conv_geometry_layers;
    double params, fwd_gflops_per_sample, bucket_first_bytes, bucket_cap_bytes;
    int batch;                          /* -1 absent */
    size_t nbuckets;
    nvs_run_train_result *results;
    size_t nresults;
} nvs_run_train;

typedef struct {
    int src, dst;
    const char *host;                   /* the pair's host; NULL absent */
    const char *path, *cls;
    double uni_gbps, bidir_gbps, latency_us, bound_gbps, pct_of_bound;
    long long wrong;
} nvs_run_p2p_pair;

typedef struct {
    int present;
    double copy_bytes;
    int samples;                        /* timed blocks whose median each pair's bandwidth is; 1 when absent */
    nvs_run_p2p_pair *pairs;
    size_t npairs;
    /* the first "skipped" entry whose "what" names the pairs ("p2p", "p2p and host copies"): why there are none */
    const char *skipped_host, *skipped_why;
} nvs_run_p2p;

typedef struct {
    int n;
    int has_hop, hop_from_gpu, hop_to_gpu;
    const char *hop_class, *hop_link, *hop_source;
    double bound_gbps;
    const char *transport;
    double busbw_gbps, busbw_bytes, pct_of_bound, exposed_comm_pct;
    const char *text;
} nvs_run_explain;

/* A (collective, N, type) whose sweep left sizes out as too small for the ranks (sweep.skipped, run/out_json.c):
 * the run measured no row for them, and says so */
typedef struct {
    const char *collective;             /* required */
    int n;                              /* required */
    const char *type, *why;             /* NULL absent */
    int sizes, of;                      /* sizes left out of the sweep's; -1 absent */
    double from_bytes, to_bytes;        /* the first and last size left out; NAN absent */
} nvs_run_skip;

/* Whose time a run's algbw/busbw come from (sweep.time_basis, nccl-tests' -a): rank 0, the mean over the ranks,
 * the fastest or the slowest rank (the default). */
enum { NVS_RUN_TIME_RANK0 = 0, NVS_RUN_TIME_MEAN, NVS_RUN_TIME_FASTEST, NVS_RUN_TIME_SLOWEST };

typedef struct {
    const char *path;                   /* as given to nvs_run_load (copied) */
    json_t *root;                       /* owned */
    const char *schema;
    const char *tool_name, *tool_version, *tool_git;
    const char *subcommand, *launcher, *backend;
    const char **argv;                  /* command.argv */
    size_t argc;
    const char *started_utc;
    double duration_s;
    const char *host;
    int time_basis;                     /* sweep.time_basis (-a): NVS_RUN_TIME_*; SLOWEST when absent */
    int unvalidated;                    /* sweep.check is 0 (-c 0): the collectives were not validated; 0 when it
                                         * is 1 or absent (a zeroed nvs_run is a validated one) */
    /* the rest of the sweep's settings that change a measured time (compare --report-only refuses runs that
     * differ in them): sweep.warmup (-w), sweep.agg_iters (-m), sweep.blocking (-z), -1 absent; sweep.alloc
     * ("cudaMalloc", "ncclMemAlloc" or "host"), NULL absent */
    int sweep_warmup, sweep_agg_iters, sweep_blocking;
    const char *sweep_alloc;
    /* the sizes the sweep planned (sweep.min_bytes, max_bytes, step_factor, step_bytes: core/metrics.h's
     * nvs_sweep_sizes, as collectives/sweep.c plans them), ascending; NULL where the file has no sweep section or
     * its plan is none collectives/sweep.c would run. They give a row written before "size" its size. */
    size_t *sweep_sizes;
    size_t nsweep_sizes;
    nvs_run_skip *skipped;              /* sweep.skipped, in file order */
    size_t nskipped;
    nvs_run_kv *env;                    /* in file order */
    size_t nenv;
    nvs_run_kv *versions;
    size_t nversions;
    int world_size, world_nodes;        /* -1 absent */
    nvs_run_rank *ranks;
    size_t nranks;
    nvs_run_topology topology;
    nvs_run_scaling *scaling;
    size_t nscaling;
    nvs_run_coll *colls;
    size_t ncolls;
    int has_collectives;                /* the "collectives" key was there (may be empty) */
    nvs_run_transport *transports;
    size_t ntransports;
    nvs_run_train train;
    /* every workload of a run that trained several (run.json "trains", in its order; "train" is the first):
     * nvs_run_workloads() / nvs_run_workload() read them whether or not the run has "trains" */
    nvs_run_train *trains;
    size_t ntrains;
    nvs_run_p2p p2p;
    nvs_run_explain *explain;
    size_t nexplain;
    const char *result_status;          /* "ok" | "wrong" | "failed" ("error" before) | "interrupted" | "running"
                                         * (a checkpoint of a run cut short), validated; NULL absent */
    const char *result_reason;          /* why it is not ok; NULL absent */
    int result_exit_code;               /* -1 absent */
    long long result_wrong_total;       /* wrong elements over the whole run; -1 absent */
} nvs_run;

/* Read and validate a run.json file. `need`: NVS_RUN_NEED_* flags. Errors (missing file, a directory, empty,
 * not JSON, wrong schema, wrong types, missing needed keys) are logged as "PATH: what is wrong" and return
 * NVS_ERR_INPUT; NVS_ERR_NOMEM. On error *out is left freed (nvs_run_free is still safe to call). */
/* PATH "-": the run read from standard input (core/out_file.h: once; a second load gets the same text), named
 * "standard input" in the messages and as the run's path. */
nvs_result_t nvs_run_load(const char *path, unsigned need, nvs_run *out);
/* json_load_file, or for "-" the JSON document on standard input (as nvs_run_load reads it; a failure to read it
 * was logged, and JE says "cannot read it"). */
json_t *nvs_json_load_input(const char *path, size_t flags, json_error_t *je);
/* Same from a parsed document (the run flow's own json_t before it is written): takes a new reference to
 * `root`; `name` stands for the file name in messages. The message goes to `err` (not logged) when err != NULL,
 * else it is logged. */
nvs_result_t nvs_run_from_json(json_t *root, const char *name, unsigned need, nvs_run *out, char *err,
                               size_t errlen);
void nvs_run_free(nvs_run *r);
/* Make r->train the workload of a run that trained several ("trains"): the one whose model is `name` or `alt`
 * (may be NULL), or whose profile file is `name`. A run without "trains" keeps its "train" unless that names
 * another model. NVS_ERR_INPUT with "PATH: trained A, B, not NAME" in err. */
nvs_result_t nvs_run_select_train(nvs_run *r, const char *name, const char *alt, char *err, size_t errlen);

/* The workloads a run trained: "trains" when the run has it, else its one "train" (0 when it trained none).
 * Every reader that judges or shows training goes through these, so that the second workload of
 * `--model bert-large,resnet50` is not left out (r->train alone is the first). */
size_t nvs_run_workloads(const nvs_run *r);
const nvs_run_train *nvs_run_workload(const nvs_run *r, size_t i);
/* The N a workload's efficiencies are relative to, step(ref) / step(N): the smallest N it trained at (1 unless
 * --gpus left 1 out), as efficiency_reference_n says; 1 in runs from before that key; 0 for no workload or no
 * result. nvs_run_train_ref_n: the first workload's that has results (every workload trains at the same N). */
int nvs_run_workload_ref_n(const nvs_run_train *t);
int nvs_run_train_ref_n(const nvs_run *r);
/* The workload whose model is `model`; NULL when the run did not train it. */
const nvs_run_train *nvs_run_workload_named(const nvs_run *r, const char *model);

/* Lookups (NULL / -1 when absent). */
const char *nvs_run_env(const nvs_run *r, const char *key);
const char *nvs_run_version(const nvs_run *r, const char *key);
/* The pair of two topology GPUs, either order: its entry in "pairs"; for two GPUs of different hosts that it does
 * not list (since 3 December 2026 run.json lists the pairs within a host only), the NET pair built into *buf from
 * the GPUs' "net" by the live topology's formula (core/net_bound.h), when buf is given. NULL: neither. */
const nvs_run_pair *nvs_run_pair_of(const nvs_run *r, int gpu_a, int gpu_b, nvs_run_pair_buf *buf);
/* The topology's GPU with that index (its "index"), NULL when the topology does not list it. */
const nvs_run_gpu *nvs_run_gpu_at(const nvs_run *r, int index);
const nvs_run_pair *nvs_run_topology_pair(const nvs_run_topology *t, int gpu_a, int gpu_b); /* listed pairs only */
const nvs_run_scaling *nvs_run_scaling_of(const nvs_run *r, int n);
const nvs_run_transport *nvs_run_transport_of(const nvs_run *r, int n);
const nvs_run_train_result *nvs_run_train_of(const nvs_run *r, int n);
const nvs_run_explain *nvs_run_explain_of(const nvs_run *r, int n);
/* The collective result for (collective, n, sweep size: nvs_run_coll.size), choosing out-of-place when both
 * exist; NULL if none. */
const nvs_run_coll *nvs_run_coll_find(const nvs_run *r, const char *collective, int n, double size);
/* Which row nvs_run_coll_find picked, for a table that shows one row per (collective, n, bytes) of a sweep of
 * several types or ops (-d float,double -o sum,max): "float sum" ("float" where the op is none) in buf when the
 * collective has rows of more than one (type, op) in the run, "" otherwise (then there is nothing to say). Returns buf.
 */
const char *nvs_run_coll_variant(const nvs_run *r, const nvs_run_coll *picked, char *buf, size_t len);
/* Why the run has no GPU pairs when a host said so (p2p.skipped): "skipped on host H: WHY" in buf ("?" for a host
 * it does not name; not escaped), as check's rules, its table and its summary all say it. NULL (buf "") when no
 * host said. Returns buf. */
const char *nvs_run_p2p_skipped(const nvs_run *r, char *buf, size_t len);

/* Distinct values in ascending order (caller frees). Returns the count; -1 on out of memory. */
int nvs_run_ns(const nvs_run *r, int **out);                 /* every N of collectives, train and scaling */
int nvs_run_coll_ns(const nvs_run *r, const char *collective, int **out);
int nvs_run_coll_sizes(const nvs_run *r, const char *collective, double **out); /* sweep sizes (.size) */
int nvs_run_collective_names(const nvs_run *r, const char ***out); /* in first-appearance order */

/* The bytes `collective` measures for a sweep size at n ranks with elements of type_size bytes, the rounding of
 * collectives/coll.c: all_reduce, broadcast, reduce, sendrecv whole elements; all_gather, reduce_scatter,
 * alltoall whole 16-byte blocks per rank (1 MiB of float over 3 ranks: 1048560 B). -1 for a collective it does
 * not know (or no type, n < 1). PURE. */
double nvs_run_coll_round(const char *collective, size_t type_size, int n, double size);
/* The sweep size a row of `bytes` was measured at, for a file written before rows said it ("size"): the one size
 * of `sizes` (the planned sweep, ascending) that the collective rounds to `bytes` at n ranks of `type` (a type
 * name, as run.json writes it). `bytes` itself where the collective or type is unknown, no size rounds to it or
 * more than one does. PURE. */
double nvs_run_size_of_bytes(const char *collective, const char *type, int n, double bytes, const size_t *sizes,
                             size_t nsizes);

#endif
