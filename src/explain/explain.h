/* "Why": one short paragraph in plain words per GPU count N, from the facts of a run (PURE).
 *
 *   At 4 GPUs the ring crosses the CPU host bridge (PHB) and NCCL used SHM through host memory: all_reduce busbw
 *   fell from 11 GB/s at 2 GPUs to 9.6 GB/s at 1 GiB, 30 % of the 31.5 GB/s bound of that hop, and 4.6 % of the
 *   step is communication the backward pass could not hide.
 *
 * The run flow fills run.json's "explain" section with nvs_explain_facts_from_run + nvs_explain_json (or its own
 * facts + nvs_explain_text); `nvscale report` uses the section when present and the same functions when not. */
#ifndef NVS_REPORT_EXPLAIN_H
#define NVS_REPORT_EXPLAIN_H

#include <jansson.h>
#include <stddef.h>

#include "core/err.h"
#include "runjson/runjson.h"

typedef struct {
    int n;                       /* GPU count */
    /* the run has no collective row and no training result at n (it ended or failed before this count, which
     * the run's plan and "scaling" still list): the paragraph says so and nothing else. 0 in facts built by hand */
    int not_measured;
    int host_ranks;              /* the run's ranks are CPU processes (MPI host backend): "ranks", not "GPUs" */
    const char *collective;      /* the collective the busbw figures are of ("all_reduce"); NULL: none */
    /* the slowest hop of the ring at this N, from the topology (has_hop 0: unknown) */
    int has_hop, hop_from_gpu, hop_to_gpu;
    const char *hop_class;       /* nvidia-smi class: "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", "NET" */
    double bound_gbps;           /* that hop's bandwidth bound per direction, NAN unknown */
    const char *bound_source;    /* how the bound was derived ("18 NVLink4 links x 26.5625 GB/s"), may be NULL */
    int hop_p2p;                 /* CUDA peer access across that hop: 1 yes, 0 no (GeForce), -1 unknown */
    /* what NCCL used (from its INFO log): "P2P", "SHM", "NET", "P2P+NET", ... ("" unknown; see
     * nvs_nccl_summary_transport) */
    char transport[32];
    char net[16];                /* the NET plugin when NET is used: "Socket", "IB"; "" otherwise */
    char collnet[16];            /* the CollNet plugin when COLLNET is used: "SHARP"; "" otherwise */
    int nvls;                    /* a communicator at this N used NVLS (NVLink SHARP: the NVSwitch reduces) */
    const char *p2p_disabled_by; /* the setting that kept NCCL off P2P, "NCCL_P2P_DISABLE=1"; NULL none known */
    /* measured busbw of `collective` at the largest size measured at this N, and at the previous N (>= 2) */
    double busbw_gbps, busbw_bytes; /* NAN unknown */
    int prev_n;                  /* 0: none */
    /* rows of `collective` at n whose result check failed, and their wrong elements: not used for busbw (0: none) */
    int failed_rows;
    long long failed_wrong;
    /* hosts the GPUs at n (and at prev_n) span, in a run with several hosts (real or --emulate-nodes); 0 in a
     * one-host run or unknown, so that one-host paragraphs do not mention hosts */
    int hosts, prev_hosts;
    /* GPUs on each of those hosts where every host has as many (0: uneven, or unknown) */
    int per_host;
    double prev_busbw_gbps;      /* same collective and size at prev_n; NAN unknown */
    /* training step: exposed communication as % of the step at this N (NAN: no training measured) */
    double exposed_comm_pct;
    /* the smallest N the workload trained at, its reference (0 unknown). Above 1 (--gpus 2,4) the reference step
     * had communication of its own: what it lost beyond compute is taken as the framework's reducer, so at that N
     * reducer and exposed communication cannot be told apart, and above it the exposed figure leaves out what the
     * reference lost. train_lost_ms: step - compute at this N (NAN unknown). */
    int train_ref_n;
    double train_lost_ms;
    /* the workload the training figures are of, where the run trained several: the one with the lowest efficiency
     * at this N, as the verdict names (borrowed); NULL in a run of one workload */
    const char *workload;
    double predicted_comm_us, measured_comm_us; /* the buckets' comm: predicted from the curve vs measured; NAN */
    /* the host's CPU speed before the training steps at this N (framework host work units per us: lowest rank's
     * 10th and highest rank's 90th percentile); NAN unknown or no host work */
    double host_rate_p10, host_rate_p90;
    /* waiting at the all-reduces for a slower rank, % of the step at this N (NAN unknown) */
    double rank_wait_pct;
    /* the compute slowed, in ms at this N (NAN unknown): by sharing the machine (compute alone, against the
     * reference's), and beside the all-reduces (interference) */
    double contention_ms, interference_ms, step_ms;
    /* the host's time to issue the step, % of the step at this N (NAN unknown); and the two kinds of work it
     * spent most of that on (run.json issue_by_us keys, borrowed; NULL unknown) with their ms */
    double issue_pct;
    const char *issue_top[2];
    double issue_top_ms[2];
} nvs_explain_facts;

/* Initialise with "unknown" everywhere (NAN numbers, NULL or "" strings). */
void nvs_explain_facts_init(nvs_explain_facts *f, int n);

/* The slowest hop of the ring: from/to GPUs, class, bound and its derivation, CUDA peer access (1/0/-1). The
 * strings are borrowed (they must outlive f). */
void nvs_explain_set_hop(nvs_explain_facts *f, int from_gpu, int to_gpu, const char *cls, double bound_gbps,
                         const char *bound_source, int p2p);

/* The paragraph, snprintf-style: writes at most len bytes (NUL-terminated when len > 0) and returns the length
 * the whole text has. Deterministic: same facts, same words. */
size_t nvs_explain_text(const nvs_explain_facts *f, char *buf, size_t len);

/* Facts for GPU count n from a run: the slowest hop is the run's own explain entry's at n (the best ring it found
 * over its live topology) where it has one, else that of the best ring (core/ring.h) over the GPUs at n
 * (scaling[n].gpus, else ranks 0..n-1 mapped through ranks[].topo_gpu, else GPUs 0..n-1) by the file's pairs:
 * the ring's pair with the lowest bound (ties: the worse class); the collective is "all_reduce" if measured at n,
 * else the first one measured at n. The const char * strings point into the run. The training figures are of the
 * workload with the lowest efficiency at n (the first listed where none has one). An unknown bound does not hide a
 * worse class: a NET hop of unknown rate is the slowest hop of a ring that also has NVLink hops. Never fails: what the
 * run lacks stays unknown. */
void nvs_explain_facts_from_run(const nvs_run *r, int n, nvs_explain_facts *f);

/* Whether NCCL went around the ring's slowest hop: an NVLink hop, and a transport known to be SHM (through host
 * memory) or NET without P2P (the text's "NCCL did not use it"). That hop's bound then says nothing of what was
 * measured: no % of it is given (run.json's pct_of_bound is null), the tables give none, the plot draws no line. */
int nvs_explain_hop_unused(const nvs_explain_facts *f);

/* The same rule over a hop's class ("NV18", "SYS"; NULL: no hop) and the transport NCCL reported ("" unknown),
 * for a reader that has those two and no facts (the screen summary's table). */
int nvs_explain_hop_unused_by(const char *hop_class, const char *transport);

/* A run.json "explain" entry (docs/run-json.md) with the text; NULL on out of memory. */
json_t *nvs_explain_json(const nvs_explain_facts *f);

#endif
