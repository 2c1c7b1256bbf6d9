/* The fleet view (PURE): the same measurement from several hosts' runs, each compared with the fleet's median,
 * so that the one host that is slower than its peers is named (`nvscale check` and `nvscale report` with
 * several run.json files); and whether two runs come from the same kind of machine, so that a baseline from
 * different hardware is said rather than trusted (fleet_machine.c). */
#ifndef NVS_FLEET_H
#define NVS_FLEET_H

#include <stddef.h>

#include "runjson/runjson.h"

/* How far below the fleet's median a host may be before it is named (check --fleet-max-below overrides it):
 * run-to-run noise of bandwidth-bound measurements on one machine is within a few percent (two runs agree
 * within 1 % at >= 64 MiB: results/h200x2-2026-11-30), so 10 % below its peers is the host, not the noise. */
#define NVS_FLEET_MAX_BELOW_PCT 10.0

/* One value of one run: key names the measurement ("busbw all_reduce 1 GiB n=8"), higher is better. */
typedef struct {
    char key[96];
    char unit[16];  /* "GB/s", "%" */
    int run;        /* index of the run (into the caller's list) */
    char host[64];  /* the host(s) the value was measured on: nvs_fleet_hosts_of */
    double value;
} nvs_fleet_sample;

typedef struct {
    nvs_fleet_sample *v;
    size_t n, cap;
} nvs_fleet_samples;

/* Appends one sample (value must be a number). 0, or -1 when out of memory. */
int nvs_fleet_add(nvs_fleet_samples *s, const char *key, const char *unit, int run, const char *host, double value);
void nvs_fleet_samples_free(nvs_fleet_samples *s);

/* The judgement of one sample against its key's fleet. */
typedef struct {
    const nvs_fleet_sample *sample;
    double median;       /* of the key's values over every run that has it */
    int runs;            /* how many runs have the key */
    double below_pct;    /* (median - value) / median * 100; negative = above the median */
    int outlier;         /* below_pct > the allowed percentage */
} nvs_fleet_finding;

typedef struct {
    nvs_fleet_finding *v;
    size_t n;
    size_t outliers;
} nvs_fleet_findings;

/* Every sample whose key at least two runs have, in key order then run order; keys only one run has are left
 * out (nothing to compare with). max_below_pct: how far below the median a value may be. 0 or -1 (memory). */
int nvs_fleet_judge(const nvs_fleet_samples *s, double max_below_pct, nvs_fleet_findings *out);
void nvs_fleet_findings_free(nvs_fleet_findings *f);

/* What makes two runs' numbers comparable: the GPU model, the topology (the class of every GPU pair, e.g.
 * "NV18" vs "PHB"), the number of GPUs, the backend and the NCCL settings of the environment. */
typedef struct {
    const char *host;
    const char *gpu_name;  /* NULL unknown */
    int ngpus;             /* -1 unknown */
    const char *backend;   /* NULL unknown */
    char classes[512];     /* the pair classes in order, "NV18 NV18 ..."; "" unknown */
    char settings[256];    /* the run's NCCL_* variables, "NCCL_P2P_DISABLE=1"; "" none */
} nvs_fleet_machine;

/* "" when a and b look like the same kind of machine; else what differs ("GPU NVIDIA H200 vs NVIDIA H100 80GB
 * HBM3; topology NV18 vs PHB; NCCL settings NCCL_P2P_DISABLE=1 vs none"), into why. Unknown fields are not
 * compared. Returns 1 when they differ. */
int nvs_fleet_machines_differ(const nvs_fleet_machine *a, const nvs_fleet_machine *b, char *why, size_t len);

/* --- from run.json files (fleet_runs.c) ----------------------------------------------------------------- */
/* The samples several runs have in common: for every (collective, N) that two or more runs measured, busbw at
 * the largest size all of those runs measured ("busbw all_reduce 1 GiB n=8"); the slowest GPU pair's copy
 * bandwidth one way and both ways; the slowest GPU's pinned host->GPU and GPU->host bandwidth (each GPU alone);
 * the training step's efficiency of every workload (nvs_run_workloads) at each N >= 2 (not at an N that is its own
 * reference, whose 100 % is no scaling; keyed by its reference N where that is not 1). A row, pair or copy whose
 * data came back wrong (wrong > 0) gives no sample. Each sample's host is where it was measured: the hosts of
 * the ranks of its N, the slowest pair's or GPU's host (nvs_fleet_hosts_of). 0, or -1 when out of memory. */
int nvs_fleet_collect(const nvs_run *const *runs, size_t nruns, nvs_fleet_samples *out);
/* The hosts of `ranks` (n of them; NULL: every rank of the run) into buf, each once, in rank order, joined by
 * "+" ("node1+node2"), ending "+..." where buf is too short; the run's host ("host") when the run is of one host
 * or its ranks name none.
 * A multi-host run's value is not rank 0's host's alone: fleet samples, verdicts and labels blame what this says. */
const char *nvs_fleet_hosts_of(const nvs_run *r, const int *ranks, size_t n, char *buf, size_t len);
/* The machine of a run, for nvs_fleet_machines_differ (the strings point into r). */
void nvs_fleet_machine_of(const nvs_run *r, nvs_fleet_machine *m);

#endif
