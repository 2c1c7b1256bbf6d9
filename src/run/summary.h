/* The verdict line of the one-screen answer (PURE: facts in, words out; unit-tested). */
#ifndef NVS_SUMMARY_H
#define NVS_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    int gpu;                 /* NCCL on GPUs (else the host backend's ranks) */
    int n;                   /* the largest N measured */
    int nworkloads;
    double worst_eff;        /* lowest training efficiency at n over the workloads; NAN none */
    const char *worst_model; /* its workload */
    const char *collective;  /* the collective pct_of_bound is of (explain's: all_reduce when measured); NULL */
    double pct_of_bound;     /* its busbw at the largest size at n, % of the slowest hop's bound; NAN */
    const char *hop_class;   /* that hop's class ("NV18", "PHB", "NET"); NULL unknown */
    /* the worst workload's step at n over its step at the reference N (us; <= 0 or NAN unknown), and the parts
     * of it (run.json train.results): NVS_LOSS_* order; NAN or 0 for a part the run does not have */
    double loss_us, part_us[4];
    int ref_n; /* that reference N (0: 1) */
    /* nothing measured at all (no collective row, no training result): the verdict says so, with the run's
     * status (run.json result.status: "interrupted", "failed"; NULL or "ok" when the run ended by itself) */
    int nothing;
    const char *status;
} nvs_summary_facts;

/* The parts of the worst workload's lost time, as the training table splits the step (train/split.h). */
enum { NVS_LOSS_CONTENTION, NVS_LOSS_INTERFERENCE, NVS_LOSS_EXPOSED, NVS_LOSS_RANK_WAIT };

/* "GOOD: at 8 GPUs bert-large keeps 93.1 % of linear scaling (the worst workload); all_reduce reaches 71 % of
 * the NV18 bound". GOOD >= 90 %, FAIR >= 70 %, POOR below; MEASURED when no training step ran, or when it ran
 * only at its reference N (ref_n == n: nothing to compare). Below GOOD it
 * names the largest part of the worst workload's lost time: ", and the largest part of the 6.4 ms it loses per
 * step is waiting for a slower rank (5.2 ms)"; NOT MEASURED when the run ended before any row or step (interrupted:
 * "NOT MEASURED: the run was interrupted before ..."), rather than a bare MEASURED over nothing; where that part alone
 * exceeds the loss (the compute ran faster than at the reference), ", and it loses 213.5 ms per step: ... took 214.0
 * ms, and the rest of the step ran 0.5 ms faster than at 1 rank (the compute alone: 7.6 ms faster)". */
void nvs_summary_verdict(const nvs_summary_facts *f, char *buf, size_t len);

/* The training table's note for a row whose compute-only step (timed apart from the full step) came out longer
 * than the full step: its parts cannot add up to the step and read 0 (train/split.c). range (NULL or 0s: not
 * known, runs before 6 December): the full step's fastest and slowest timed step, then the compute-only step's;
 * where they overlap the note says noise, where every compute-only step was slower, that the host ran slower
 * meanwhile. Writes "note: MODEL N=n: ..." into buf and returns 1, or returns 0 (buf untouched) for a row that needs
 * no note. */
int nvs_summary_compute_note(const char *model, int n, double step_us, double compute_us, const double range[4],
                             char *buf, size_t len);

/* The training table's line on how a workload ran the layers PyTorch runs in cuDNN (run.json train.conv and
 * train.batchnorm, train/conv.h): "WHAT of MODEL: 53 in cuDNN 9.19.0 (DETAIL)", or "...: 53 as FALLBACK (--cudnn
 * off)", or "...: 53 as FALLBACK, not cuDNN: WHY". `native`: whether they ran in `library`; `layers` of `total`
 * did; `why` NULL or the reason cuDNN is not used (for some of them or all); `detail` NULL or what to say in
 * parentheses. Returns 0 (buf untouched) for a workload without such layers (total 0). */
/* What the batch norms cuDNN does not run run as, on a GPU (train/norm_kernels.h) */
#define NVS_SUMMARY_BN_KERNELS "nvscale's kernels, launched as PyTorch launches its own"
int nvs_summary_cudnn_note(const char *what, const char *model, int native, const char *library, int layers,
                           int total, const char *detail, const char *fallback, const char *mode, const char *why,
                           char *buf, size_t len);

/* A "Why" paragraph to `to`, wrapped at 110 columns with a two-space indent, never breaking between a number
 * and the word after it (its unit) where another space can break the line. */
void nvs_summary_wrap(const char *text, FILE *to);

#endif
