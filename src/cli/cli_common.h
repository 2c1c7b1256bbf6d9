/* What several subcommands of the command line share: the run.json head and its saving for the measuring
 * subcommands that have no run flow of their own (topo, p2p), and the log level from -q / -v. */
#ifndef NVS_CLI_COMMON_H
#define NVS_CLI_COMMON_H

#include <jansson.h>

#include "check/check_export.h"
#include "check/rules.h"
#include "core/config.h"
#include "core/err.h"
#include "runjson/runjson.h"

/* The run directory of topo and p2p (runjson/runjson_write.h, as the measuring runs): --out checked before
 * anything is discovered or measured (exit 2 when it exists or cannot be made), a name no other run has, made
 * as DIR.partial and renamed to DIR once run.json is in it. Nothing with --no-save; under mpirun only the
 * launcher's rank 0 (the one that saves) makes it. */
typedef struct {
    char final[NVS_PATH_MAX];
    char work[NVS_PATH_MAX + 16]; /* final.partial */
    int active;
    /* when the command began (nvs_cli_out_begin, on every rank, saving or not): run.json's started_utc and the
     * start of its duration_s */
    char started_utc[32];
    double t0; /* core/clock.h nvs_now_s */
} nvs_cli_out;
nvs_result_t nvs_cli_out_begin(const nvs_config *cfg, nvs_cli_out *o);
/* run.json head (runjson/runjson_write.h) for cfg's subcommand and argv, started_utc and duration_s from o's begin
 * (without a duration a run.json could not be told from a copy of it: nvs_cli_runs_distinct). */
json_t *nvs_cli_run_doc(const nvs_config *cfg, const char *launcher, const char *backend, const nvs_cli_out *o);
/* Saves doc as run.json in o and renames the directory; says where on stderr unless -q. No-op when o was not
 * begun. */
nvs_result_t nvs_cli_save_run(const nvs_config *cfg, nvs_cli_out *o, const json_t *doc);
/* After a run that saved nothing: its directory goes (what was saved stays). */
void nvs_cli_out_abandon(nvs_cli_out *o);
/* A usage error of subcommand SUB: "nvscale SUB: <message>" and the help hint, once under mpirun. Returns 2,
 * the exit status of a usage error. */
/* NVS_TEST_SYSFS_ROOT (tests: the tree topo/ reads instead of /sys, topo_pci_sysfs.c), when set, is a directory: 0;
 * else the message said as SUB's refusal, "nvscale SUB: ...", -1 (options_env.c) */
int nvs_cli_sysfs_root_env_ok(const char *sub);
/* NVS_TEST_WRITE_FAIL (tests: the K-th file written fails as on a full disk, core/out_file.h), when set, is read as
 * core/out_file.c reads it (nvs_outfile_fail_env): 0; else "nvscale SUB: invalid value ..." and -1
 * (options_env.c). Every subcommand that writes a file calls it before it writes anything (run/coll/train/topo/p2p
 * through nvs_cli_test_hooks_env, and accept, compare, check, report, model), so that a bad value is refused alike
 * everywhere, never silently ignored. */
int nvs_cli_write_fail_env_ok(const char *sub);
/* The measuring commands' test hooks (NVS_TEST_CORRUPT, NVS_TEST_STALL, NVS_TEST_TRAIN_FAIL, NVS_TEST_SLOW_STOP,
 * NVS_TEST_WRITE_FAIL, NVS_TEST_SYSFS_ROOT), read into c as nvs_config_parse does for run/coll/train; accept calls it
 * so that its measurement honours them the same way. A bad value: one message naming it, "nvscale SUB: ..." for
 * c->subcommand, NVS_ERR_USAGE (options_env.c). */
nvs_result_t nvs_cli_test_hooks_env(nvs_config *c);
int nvs_cli_usage(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An input error of subcommand SUB that the help does not answer (a file's content): "nvscale SUB: <message>", once
 * under mpirun, no hint. Returns 2. */
int nvs_cli_refuse(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An output directory asked for by FLAG (report's -o), made if missing: it, or the nearest of its ancestors that
 * exists, must be a directory in which one can be made (one is made there and removed). Checked before anything is
 * read, so that the refusal is the subcommand's usage error, not the directory maker's later words. Returns 0, or 2
 * after one usage message of subcommand SUB. */
int nvs_cli_output_dir_ok(const char *sub, const char *flag, const char *dir);
/* The largest size a size flag takes: 1 TiB. No GPU (141 GB on an H200) or host rank comes near it, and every size
 * stays exact in a double, which the sweep's arithmetic (core/metrics.c) and the model's use. */
#define NVS_CLI_MAX_SIZE ((size_t)1 << 40)
/* The value of a size flag, every subcommand's alike (run/coll/train/p2p/topo's through options_values.c, model's
 * bucket flags): nvs_parse_size_whole (core/units.h: "1.5M" is 1572864 bytes, as nccl-tests reads it), from LO to
 * NVS_CLI_MAX_SIZE. 0 with *out; else -1 with why: that it is no whole number of bytes ("1.3K"), or EXPECT. */
int nvs_cli_size(const char *s, size_t lo, size_t *out, const char *expect, char *why, size_t wl);
/* An input named "-" (standard input: the table in cli_common.c says which inputs take it). nvs_cli_stdin_once,
 * for an input that reads it: 0, or 2 after one usage message of SUB naming WHAT ("--rules", "RUN.json 2") and the
 * input that took standard input before it in this command; /dev/stdin, /dev/fd/0 or /proc/self/fd/0 takes it as
 * "-" does, whatever it is (core/out_file.h's nvs_input_is_stdin). nvs_cli_stdin_refused, for an input that
 * cannot (read by
 * every rank, or more than once): 2 after "FLAG reads a file; '-' (standard input) is not supported for FLAG (WHY)"
 * for "-", or "FLAG reads a file; PATH (KIND) is not supported ..." when PATH can be read once only (a pipe through
 * /dev/stdin, a named pipe, a device: core/out_file.h's nvs_input_stream); else 0. */
int nvs_cli_stdin_once(const char *sub, const char *what, const char *path);
int nvs_cli_stdin_refused(const char *sub, const char *flag, const char *path, const char *why);
/* An output file asked for by FLAG (--junit, --prometheus): checked before anything is measured or judged, so that
 * a typo does not cost the run. PATH must be non-empty, not an existing directory nor a link to nothing, and its
 * directory must exist and take a new file (one is made there and removed, as the writer will: core/out_file.h);
 * a device or FIFO (/dev/stdout) is written through and needs nothing made; "-" is refused (nvs_out_dash_why,
 * core/out_file.h). PREV (may be NULL): the value FLAG already had (given twice, the first would be lost). That it
 * names no input and no other output: nvs_cli_files_distinct, once every flag is read. Returns 0, or 2 after one usage
 * message of subcommand SUB. */
int nvs_cli_output_file_ok(const char *sub, const char *flag, const char *path, const char *prev);
/* The verdict exports asked for (check/check_export.h): PATH NULL when not. */
#define NVS_CLI_MAX_EXPORTS 4
typedef struct {
    const char *path;
    int (*print)(FILE *, const nvs_export_info *, const nvs_verdicts *);
} nvs_cli_export;
/* Writes E[0..N) (N <= NVS_CLI_MAX_EXPORTS) all or none: each printed to its temporary file (core/out_file.h),
 * and renamed into place only once every one is written; a rename that fails puts back the old files of those
 * already renamed (kept as hard links until the end; a file with no previous one is removed), so that the set on
 * disk is this run's or the previous one's, never a mix. Returns 0, or the exit code after one message: 2 when a
 * path cannot be written (the directory went away since nvs_cli_output_file_ok), 1 when writing failed. */
int nvs_cli_write_exports(const char *sub, const nvs_cli_export *e, size_t n, const nvs_export_info *info,
                          const nvs_verdicts *vs);
/* The option getopt_long just refused ('?' or ':'), for "unknown option '%s'": a short one alone ("-Z" of "-qZ" or
 * "-Zq": getopt's optopt), a long one as typed. AT: optind before that getopt_long call. Returns buf. */
const char *nvs_cli_bad_option(char **argv, int at, char *buf, size_t len);
/* When the option getopt_long just refused ('?') is a flag that takes no value given one ("--no-save=1", or
 * "--no-sa=1", an abbreviation getopt resolved): writes "option --no-save takes no value (got --no-save=1)" to buf
 * and returns 1; else 0 (the caller says "unknown option"). glibc's getopt_long sets optopt to the option's val
 * for exactly this refusal, 0 for an unknown or ambiguous long option (posix/getopt.c process_long_option). */
struct option; /* <getopt.h> */
int nvs_cli_value_on_flag(char **argv, const struct option *opts, char *buf, size_t len);
/* Options that exclude each other (options_checks.c excludes[]), one table for every parser of the command line: the
 * first row both of whose options this parser has (OPTS, ended by a NULL name) and were given (GIVEN[i]: OPTS[i]
 * was) is refused, "nvscale SUB: A and B exclude each other: WHY" and the help hint, returning 2; else 0. */
int nvs_cli_excludes_check(const char *sub, const struct option *opts, const unsigned char *given);
/* Row I of that table: its first option as --help shows it ("-q/--quiet"), the second in *B; NULL past the end. */
const char *nvs_cli_exclude_row(size_t i, const char **b);
/* The table's refusal for a pair decided elsewhere (one of a class of flags, or a pair that depends on the values):
 * the same words. Returns 2. */
int nvs_cli_exclude_refuse(const char *sub, const char *a, const char *b, const char *why);
/* A file named on a command line: `what` names it in messages (a flag such as "--rules", or "the run" for an
 * argument), `output` says the command writes it (replacing what is there). */
typedef struct {
    const char *what;
    const char *path;
    int output;
} nvs_cli_file;
/* That no output of F[0..N) is an input or another output: written after the run, it would replace the input (a
 * run.json, a rules file) or the other output, and the command would still exit 0. Two names are the same file
 * when both exist as one regular file (device and inode: links, './x' and 'x'), or when neither exists yet and
 * they name the same entry of the same directory ('./j.xml' and 'j.xml'). Devices and FIFOs are written through,
 * never replaced: /dev/stdout twice is not refused. Call it once every flag is read and before anything is
 * measured or written. Returns 0, or 2 after one usage message of subcommand SUB naming both. */
int nvs_cli_files_distinct(const char *sub, const nvs_cli_file *f, size_t n);
/* Whether writing A would replace B (or B, A), by nvs_cli_files_distinct's rule of the same file. */
int nvs_cli_same_file(const char *a, const char *b);
/* That no input file is named twice among PATHS[0..N) (the runs of a fleet: one file given twice would count twice
 * in the fleet's median, and outvote the others; model's preset files: one read twice). Same file: both exist as
 * one regular file (device and inode: links, './x' and 'x'). Returns 0, or 2 after one usage message of subcommand
 * SUB naming both spellings, "A and B are the same file: ADVICE". */
#define NVS_CLI_RUNS_ONCE "give each run once (it would count twice in the fleet's median)"
int nvs_cli_inputs_distinct(const char *sub, char *const *paths, size_t n, const char *advice);
/* That no run among RUNS[0..N) is a copy of another under another file name (nvs_cli_inputs_distinct sees one file
 * only): one run is its host, its start (started_utc, to the second) and its duration_s (to the microsecond: two runs
 * started in the same second on one host do not last as long to the digit); a run without all three is not judged
 * (topo and p2p wrote no duration_s before session 64).
 * Returns 0, or 2 after one usage message of SUB, "A and B are the same run (host H, started T, D s): ADVICE". */
int nvs_cli_runs_distinct(const char *sub, const nvs_run *runs, size_t n, const char *advice);
/* The rules file PATH appended to rs (check/rules_file.h) for subcommand SUB: a malformed one is a usage error of
 * SUB ("nvscale SUB: FILE:LINE: why" and the help hint), like a bad threshold flag. Returns the exit code: 0, 2 or
 * 1 (out of memory), after one message. */
int nvs_cli_rules_load(const char *sub, const char *path, nvs_ruleset *rs);
/* Around the reading of an input named on SUB's command line (a run.json, a preset or hwloc XML file) by a reader of
 * a lower layer that says what is wrong through the log: its error lines are SUB's refusal, "nvscale SUB: ..."
 * (core/log.h: nvs_log_set_refusal), as a bad flag's, not "nvscale: error: ..."; on a launcher rank other than 0
 * they are held back with the rest of a refusal (nvs_stderr_once), said by that rank only if it alone saw it.
 * Only around reading and validating: what fails after (writing, plotting) is a runtime error. */
typedef struct {
    FILE *sink;
    const char *refusal;
} nvs_cli_reading;
nvs_cli_reading nvs_cli_read_begin(const char *sub);
void nvs_cli_read_end(nvs_cli_reading r);
/* -q: errors only; default: warnings; -v: info; -vv: debug. Progress lines off under -q. */
void nvs_cli_set_verbosity(int quiet, int verbose);

#endif
