/* The one WRITER of run.json's common parts (schema nvscale.run/1, docs/run-json.md), shared by every
 * subcommand that writes one (run, coll, train: run/out_json.c; topo, p2p: cli/cmd_topo.c, cli/cmd_p2p.c), and
 * the results directories' names. The reader is runjson.h; the schema constant lives in runjson_schema.h.
 *
 *   head     schema, tool {name, version, git}, command {subcommand, argv, launcher, backend}, started_utc,
 *            host, versions, env: the provenance every run.json starts with
 *   result   {status, exit_code, wrong_total}
 *   save     <dir>/run.json (or any file: check's baselines) whole or not at all (core/out_file.h)
 * May include: core, runjson. */
#ifndef NVS_RUNJSON_WRITE_H
#define NVS_RUNJSON_WRITE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/err.h"
#include "core/version.h"
#include "runjson/runjson_schema.h"

/* What the head records about the command. */
typedef struct {
    const char *subcommand;
    int argc;
    char **argv;             /* after the subcommand name, as typed */
    const char *launcher;    /* "mpi", "threads", NULL = absent (JSON null) */
    const char *backend;     /* "nccl", "mpi", "none"; NULL = key left out */
    const char *no_gpu;      /* no backend was asked for and none was usable, so the host one ran: why (the CUDA
                              * error); NULL or "" = key left out */
    const char *started_utc; /* NULL = now */
    const char *host;        /* NULL = gethostname() */
    const nvs_versions *versions; /* NULL = collected now */
} nvs_rj_head;

/* A JSON string of text from the command line, the environment or a file name: as it is when it is UTF-8 (all
 * JSON can hold), else with the bytes that are not UTF-8 (and control characters) written as visible \xNN
 * (core/escape.h, terminal form), rather than nothing: jansson's json_string refuses such text. NULL only on
 * out of memory. */
json_t *nvs_rj_text(const char *s);
json_t *nvs_rj_versions(const nvs_versions *v);
json_t *nvs_rj_env(void); /* every NCCL_* variable, CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER */
/* A new document holding the head; NULL on out of memory. */
json_t *nvs_rj_doc_new(const nvs_rj_head *h);
/* Sets "result": status "ok" / "wrong" / "interrupted" / "failed" from `status` (runs before these had "error"
 * for "failed": readers accept both), the exit code, wrong_total, and, when not ok, "reason" (the result's words,
 * or `reason` when given). */
int nvs_rj_set_result(json_t *doc, nvs_result_t status, long long wrong_total);
int nvs_rj_set_result_reason(json_t *doc, nvs_result_t status, long long wrong_total, const char *reason);
/* A checkpoint written while the run goes on: "result": {"status": "running"}. A file left so was cut short
 * (the process was killed): what it holds was measured, the rest was not. */
int nvs_rj_set_running(json_t *doc, long long wrong_total);

/* A measured value, or null when there is none (NaN, or infinite: JSON has neither); readers take null as "not
 * measured", never 0. NULL only when out of memory. */
json_t *nvs_rj_num(double v);
/* A byte count: the whole number (a real was written to 10 significant digits, "free_bytes": 2.454079898e10, no
 * whole count of bytes), or null when unknown (NaN, infinite, negative, or beyond 2^53 where doubles skip
 * integers). */
json_t *nvs_rj_bytes(double v);
/* A count or index that may be unknown (< 0, the writers' and the reader's convention): the integer, or null. */
json_t *nvs_rj_int(long long v);

/* "2026-11-30T20:09:45Z" into buf (>= 21 bytes) for time t. */
void nvs_rj_utc_stamp(long t, char *buf, size_t len);
/* The default results directory of a subcommand: results/<YYYYmmdd-HHMMSS>-<subcommand>, UTC. */
void nvs_rj_default_dir(const char *subcommand, char *buf, size_t len);

/* Checks, before anything is measured, that --out DIR can be made: DIR must not exist (a new run is never mixed
 * with an earlier one's files), and its nearest existing ancestor must be a writable directory. NVS_ERR_USAGE
 * with one message naming the path otherwise, said as a refusal of subcommand SUB ("nvscale SUB: --out DIR: ..."),
 * as its other bad flags are. NULL: nothing to check (the default directory). */
nvs_result_t nvs_rj_check_out_dir(const char *sub, const char *out);
/* Creates the directory a run writes into while it runs, <final>.partial, exclusively (no other run can be
 * writing there); final = `out`, or results/<stamp>-<subcommand> with -2, -3 ... appended until the name is
 * free. A stale <out>.partial (a run cut short) is refused, naming it. */
nvs_result_t nvs_rj_open_run_dir(const char *out, const char *subcommand, char *final, size_t final_len, char *partial,
                                 size_t partial_len);
/* After a run refused before it measured anything (its <final>.partial removed): removes the parent directories
 * the last nvs_rj_open_run_dir of this process made for it, while they are empty (an empty results/ or the
 * parents of --out were left behind). */
void nvs_rj_unmake_parents(void);
/* <final>.partial takes its final name once the run has ended: never over anything that exists by then (another
 * run's directory). 0, or -1 with errno set (EEXIST when the name was taken). */
int nvs_rj_rename_run_dir(const char *partial, const char *final);

/* Serialize (indented, key order kept, a final newline) into <dir>/run.json, creating dir. */
nvs_result_t nvs_rj_save(const json_t *doc, const char *dir);
/* The same into the file `path` (its directory must exist: nothing is created but the file). */
nvs_result_t nvs_rj_save_file(const json_t *doc, const char *path);
/* doc to `to`, indented, with the stream checked (fflush/ferror). */
nvs_result_t nvs_rj_print(const json_t *doc, FILE *to);

#endif
