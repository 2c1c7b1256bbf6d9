/* PRIVATE to src/cli/: what nvscale compare's files share; no other folder includes this header (commands.h has
 * cmd_compare).
 *   cmd_compare.c         the options, their checks, and the order of the work
 *   cmd_compare_runs.c    the child processes (topo, one run per transport), their run.json read back, the directory
 *   cmd_compare_out.c     the side-by-side output: status table, busbw tables, DIR/compare.md
 *   cmd_compare_mpirun.c  under an MPI launcher: the mpirun commands to type instead */
#ifndef NVS_CMD_COMPARE_PRIV_H
#define NVS_CMD_COMPARE_PRIV_H

#include <stddef.h>
#include <stdio.h>

#include "compare/compare.h"
#include "core/config.h"
#include "core/err.h"
#include "runjson/runjson.h"

#define MAX_PASS 256
#define TAIL_LINES 10

typedef enum { ST_SKIPPED, ST_RAN, ST_FAILED, ST_NOT_RUN } tp_state;

/* One transport: what was done with it and, when its run.json was read, the run. */
typedef struct {
    nvs_tp_kind kind;
    tp_state state;
    char why[NVS_PATH_MAX + 512]; /* skipped: the reason; failed: what failed */
    char note[320];      /* feasibility caveat */
    char status[NVS_PATH_MAX + 128]; /* "exit 0, 41.2 s", "read from DIR/shm/run.json" */
    char tail[2048];     /* stderr tail of a failed child */
    int dropped_env;     /* inherited NCCL_P2P_DISABLE/NCCL_SHM_DISABLE removed */
    char unfinished[600]; /* a loaded run whose result is not ok: "interrupted: WHY"; "" ended well (or unknown) */
    nvs_tp_verification ver;
    int loaded;
    nvs_run run;
} tp_result;

/* cmd_compare_mpirun.c: on stderr, from rank 0 only */
void nvs_cc_print_mpirun_sequence(const nvs_tp_kind *kinds, int nk, int pc, char **pass, const char *dir);

/* cmd_compare_runs.c */
nvs_result_t nvs_cc_discover_topology(const char *prog, const char *dir, nvs_run *topo);
void nvs_cc_run_one(const char *prog, const char *dir, int pc, char **pass, tp_result *t);
void nvs_cc_load_one(const char *dir, tp_result *t);
void nvs_cc_mark_unfinished(const char *dir, tp_result *t);
void nvs_cc_first_missing(const char *dir, char *top, size_t len);
void nvs_cc_undo_dir(const char *dir, const char *top);

/* cmd_compare_out.c */
void nvs_cc_status_table(FILE *f, const tp_result *t, int n, int markdown);
void nvs_cc_busbw_tables(FILE *f, const tp_result *t, int n, int markdown);
nvs_result_t nvs_cc_write_compare_md(const char *dir, const tp_result *t, int n, const char *host);

#endif
