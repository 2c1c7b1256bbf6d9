/* `nvscale compare`: the same measurement over several NCCL transports, one process per transport (NCCL reads
 * NCCL_* once per process and caches it, so a new communicator is not enough). Usage: docs/compare.md.
 *
 * This header is the PURE part (no fork, no CUDA/MPI): which transports exist and how each is forced, whether
 * this machine can do one (from the topology), the child's environment, and whether the transport NCCL really
 * used (the child's run.json "transports") is the one that was asked for. compare_child.c runs processes,
 * cli/cmd_compare.c is the command. */
#ifndef NVS_COMPARE_H
#define NVS_COMPARE_H

#include <stddef.h>

#include "core/err.h"
#include "runjson/runjson.h"

typedef enum { NVS_TP_NVLINK = 0, NVS_TP_PCIE, NVS_TP_SHM, NVS_TP_NET, NVS_TP_COUNT } nvs_tp_kind;

typedef struct {
    const char *name;   /* "nvlink": the spelling of --transports and of the run directory */
    const char *env[3]; /* NCCL settings that force it (NULL-terminated); none for nvlink/pcie: verified after */
    const char *nccl;   /* the transport word NCCL's INFO log must show ("P2P", "SHM", "NET") */
    const char *link;   /* the link run.json must show for it, NULL = any */
    const char *what;   /* one line for the report */
} nvs_tp_desc;

const nvs_tp_desc *nvs_tp(nvs_tp_kind k);

/* The variables compare owns: removed from the inherited environment before a transport's own are added, so a
 * stray NCCL_P2P_DISABLE=1 in the user's shell cannot turn the "nvlink" run into SHM. */
extern const char *const nvs_tp_owned_env[];

/* "nvlink,shm" or "all" -> kinds in the order given. Returns the count (>= 1), or -1 with a message in err
 * (unknown name, duplicate, empty item). */
int nvs_tp_parse_list(const char *s, nvs_tp_kind *out, int cap, char *err, size_t errlen);

/* The GPUs (topology indices) a run uses: the GPUs of the first host that have a CUDA device, ordered by CUDA
 * device; the first `count` of them when count > 0 (nvscale's --gpus with --placement first), all otherwise.
 * Returns how many were written. */
int nvs_tp_used_gpus(const nvs_run_topology *t, int count, int *out, int cap);

typedef struct {
    int feasible;
    char reason[320]; /* why not (feasible = 0) */
    char note[320];   /* a caveat when feasible ("" when none) */
} nvs_tp_feasibility;

/* Can this machine do transport k between the used GPUs? nvlink: every pair is NVLinked. pcie: CUDA P2P works
 * and no pair is NVLinked (with NVLink present CUDA P2P always takes it). shm: always (one host). net: always
 * (sockets, or IB if present). Fewer than 2 GPUs: nothing travels between GPUs, nothing is feasible. */
void nvs_tp_feasible(nvs_tp_kind k, const nvs_run_topology *t, const int *used, int nused, nvs_tp_feasibility *f);

/* The child's environment: envp minus nvs_tp_owned_env, plus the transport's settings. A malloc'd
 * NULL-terminated array whose strings are borrowed (from envp and the static table): free only the array.
 * *dropped (may be NULL) gets how many inherited owned variables were removed. NULL when out of memory. */
char **nvs_tp_child_env(char *const *envp, nvs_tp_kind k, int *dropped);

/* The output of `nvscale topo --format json --no-save`: a run document with a "topology" section, or the
 * topology object alone (wrapped here for the shared reader). NVS_ERR_INPUT with a message in err. */
nvs_result_t nvs_tp_parse_topology(const char *text, nvs_run *r, char *err, size_t errlen);

/* Did NCCL use the transport that was asked for? From the run's transports at every N it names: a mismatch at any
 * N is the verdict (that N's), else an N not verified, else verified ("as asked (n=2, 4)"); of equal verdicts, the
 * largest N's. */
enum { NVS_TP_VERIFIED = 1, NVS_TP_MISMATCH = 0, NVS_TP_UNVERIFIED = -1 };
typedef struct {
    int verdict;
    int n;           /* the N the verdict is of; 0 none */
    char found[128]; /* "P2P over NVLink (24 channels)", "NET/Socket/0 (2 channels)", "" */
    char text[320];  /* the sentence for the report */
} nvs_tp_verification;
void nvs_tp_verify(nvs_tp_kind k, const nvs_run *r, nvs_tp_verification *v);

/* Do the runs measure the same thing? For every (collective, N, size) that two runs both have, the row the
 * side-by-side table shows of each (nvs_run_coll_find: the out-of-place one, else the in-place one) must be of the
 * same data type, operation, root, in-place setting and CUDA-graph setting: a transport comparison compares like
 * with like (runs made with `-d float` and `-d double`, or `--inplace in` and `out`, differ in more than the
 * transport). The runs must also agree on the sweep's timing settings that each recorded: -a (run.json
 * sweep.time_basis), -w, -m, -z, --alloc, and -n (each row's iters), and have run on the same host and, at every
 * N that two runs share, on the same GPUs (run.json "scaling"; what a run does not record is not compared). names[i] is
 * how run i is called in the message. Returns 1 when alike; 0 with the first difference in err ("all_reduce N=2 1 MiB:
 * nvlink measured float sum out-of-place, shm double sum out-of-place"). */
int nvs_tp_runs_alike(const nvs_run *const *runs, const char *const *names, int nr, char *err, size_t errlen);

/* The kind of row the table shows: "float sum out-of-place", "float root 0 in-place, CUDA graph". */
void nvs_tp_row_kind(const nvs_run_coll *c, char *buf, size_t len);

#endif
