/* Verdict rows for machines: JUnit XML for CI systems (check_junit.c) and the Prometheus text format for
 * node_exporter's textfile collector (check_prom.c). Both are PURE printers onto a FILE; the caller writes the
 * file whole or not at all (core/out_file.h). docs/accept.md shows both. */
#ifndef NVS_CHECK_EXPORT_H
#define NVS_CHECK_EXPORT_H

#include <stdio.h>

#include "check/check_eval.h"

typedef struct {
    const char *suite;      /* "nvscale accept", "nvscale check" */
    const char *run_path;   /* the run.json judged */
    const char *rules_desc; /* where the rules came from */
    const char *timestamp;  /* ISO 8601 UTC of the run ("2026-11-30T12:00:00Z"); NULL: none */
    const char *hostname;   /* the run's one host; NULL: none, or a run over several (see hosts) */
    double duration_s;      /* of the run; < 0 unknown */
    /* several runs (check's fleet view): every run's path, one "run" property each (run_path is then unused);
     * NULL: run_path alone. The caller gives the header what holds for the whole fleet (check: the earliest
     * run's start, no hostname and no time: the hosts are the testcases') */
    const char *const *runs;
    size_t nruns;
    /* one run over several hosts, or a fleet: each host, one "host" property each (node order; a fleet's run by
     * run, each host once), and no hostname: JUnit's hostname names the one machine the tests ran on, and rank 0's
     * would claim the others' results as its own */
    const char *const *hosts;
    size_t nhosts;
} nvs_export_info;

/* The hosts of run R, each once, in the order of its ranks: a malloc'd array of its strings (the caller frees the
 * array only) and *n; NULL with *n = 0 when R names no host or memory ran out. */
const char **nvs_export_run_hosts(const nvs_run *r, size_t *n);

/* The hosts of a fleet of runs, each once over all of them, run by run in the order of their ranks (a run whose
 * ranks name none: its host): as nvs_export_run_hosts. */
const char **nvs_export_fleet_hosts(const nvs_run *const *runs, size_t nruns, size_t *n);

/* info's header for run R alone: hostname R's host when it ran on one; when its ranks name several hosts (or
 * world.nodes says several) no hostname, and the hosts as properties. HOSTS: what nvs_export_run_hosts gave. */
void nvs_export_set_hosts(nvs_export_info *info, const nvs_run *r, const char *const *hosts, size_t nhosts);

/* One <testsuite> with one <testcase> per row: FAIL rows carry a <failure>, WARN rows a "WARN: ..." line in
 * <system-out> (JUnit has no warning state), SKIP rows a <skipped message="not checked: NOTE"/> (counted in the
 * suite's skipped), and a verdict property. Escapes &<>"' and drops characters XML 1.0
 * cannot carry. 0, or -1 when writing failed. */
int nvs_check_print_junit(FILE *f, const nvs_export_info *info, const nvs_verdicts *vs);

/* Families nvscale_check_status (0 PASS, 1 WARN, 2 FAIL, -1 SKIP), nvscale_check_measured / _expected / _margin (rows
 * with a number) and nvscale_checks (count per verdict); labels check, kind, host, gpu, pair, rank (and unit).
 * When the run happened: node_exporter's own node_textfile_mtime_seconds of the file. Label values escaped as the
 * exposition format says (\\ \" \n); a check name that repeats gets " #2", " #3" so that no two samples share a label
 * set. 0, or -1 when writing failed. */
int nvs_check_print_prometheus(FILE *f, const nvs_export_info *info, const nvs_verdicts *vs);

#endif
