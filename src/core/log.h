/* Rank-prefixed logging to stderr.
 *
 * Messages go to stderr as "nvscale[rank 3]: error: ..." (the rank part only when there is more than one rank),
 * so that stdout carries nothing but the requested output (table, JSON or CSV). The rank is thread-local
 * because the one-process runtime drives one GPU per thread. */
#ifndef NVS_LOG_H
#define NVS_LOG_H

#include <stdarg.h>
#include <stdio.h>

#include "core/err.h"

enum nvs_log_level { NVS_LOG_ERROR = 0, NVS_LOG_WARN = 1, NVS_LOG_INFO = 2, NVS_LOG_DEBUG = 3 };

void nvs_log_set_level(int level); /* below NVS_LOG_ERROR: nothing at all */
int nvs_log_level(void);
/* Where the messages go: NULL (the default) is stderr, one write(2) a message; a stream (nvs_stderr_once() on a
 * launcher rank other than 0) receives them whole instead, so that a reader's reason can be held back with the
 * rest of a refusal and said by the rank that alone saw it. Returns the sink it replaces. */
FILE *nvs_log_set_sink(FILE *to);
void nvs_log_set_rank(int rank, int nranks); /* per thread */
/* While a subcommand reads the input its user named (a run.json, a rules, preset or hwloc XML file), the readers'
 * error lines are that subcommand's refusal: "nvscale SUB: ..." as its other refusals say it (cli/cli_common.h), not
 * a runtime error's "nvscale: error: ...". SUB NULL: errors as runtime errors again. Returns the SUB it replaces.
 * Process-wide: set by the command line before any rank thread runs, never during a measurement. */
const char *nvs_log_set_refusal(const char *sub);

void nvs_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define nvs_error(...) nvs_log(NVS_LOG_ERROR, __VA_ARGS__)
#define nvs_warn(...) nvs_log(NVS_LOG_WARN, __VA_ARGS__)
#define nvs_info(...) nvs_log(NVS_LOG_INFO, __VA_ARGS__)
#define nvs_debug(...) nvs_log(NVS_LOG_DEBUG, __VA_ARGS__)

/* The last error line this rank logged (nvs_error, said or not under -q), for a failure notice that names the
 * specific cause ("cudaMalloc of 2.0 GiB on GPU 1 failed: out of memory"), not only the error code's text. Per
 * thread, like the rank: the threads runtime runs each rank as a thread. The first line of the message, without
 * the "nvscale[rank N]: error: " prefix, control characters as spaces, cut at a UTF-8 character boundary to at most
 * NVS_LOG_LAST_LEN - 1 bytes. "" when none since nvs_log_forget_error(), which a phase calls as it starts so that
 * an error said and got over earlier is not taken for the phase's cause. */
/* 400: the longest error lines a rank tells (a GPU assignment's, with its count of ranks and GPUs and its remedy,
 * ~230 bytes; an NCCL or CUDA call's with a PCI bus id) whole; at 160 they were cut mid-word in rank 0's line */
#define NVS_LOG_LAST_LEN 400
const char *nvs_log_last_error(void);
void nvs_log_forget_error(void);
/* The cause of this rank's failure `res`, as a failure notice says it: the last error line (above), which names
 * what failed, followed by "(TEXT)", the error code's text, when it does not say that already; the code's text
 * alone when no error line was logged. Cut whole characters to fit len. Returns buf. */
char *nvs_log_cause(nvs_result_t res, char *buf, size_t len);
/* Drops an incomplete UTF-8 sequence left at the end of s by a cut at a byte count (snprintf's). Returns s. */
char *nvs_utf8_trim(char *s);

/* Progress on stderr, rank 0 only, never under -q (nvs_progress_enable(0)). On a terminal one live line that
 * each call rewrites ("\r"); otherwise (a log file, CI, a pipe) plain lines: one whenever `key` (the phase and N,
 * e.g. "sweep N=2") changes and at most one every 5 s within a phase, each stamped with the seconds since the
 * process started, so that an unattended run shows it is alive. */
void nvs_progress_enable(int enabled);
void nvs_progress(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void nvs_progress_done(void);

#endif
