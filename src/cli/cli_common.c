/* See cli_common.h. */
#include "cli/cli_common.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check/rules_file.h"
#include "core/clock.h"
#include "core/escape.h"
#include "core/launch_env.h"
#include "core/log.h"
#include "core/out_file.h"
#include "core/units.h"
#include "runtime/runtime.h"
#include "runjson/runjson_write.h"

json_t *nvs_cli_run_doc(const nvs_config *cfg, const char *launcher, const char *backend, const nvs_cli_out *o)
{
    /* the start, not the time this document is made (after the measurements: 3 s late for a p2p --host), and the
     * duration as a measuring run writes them (run/out_json.c): topo and p2p wrote neither, so a copy of their
     * run.json under another name was not refused by report and check as that run twice */
    nvs_rj_head h = {.subcommand = cfg->subcommand, .argc = cfg->argc, .argv = cfg->argv, .launcher = launcher,
                     .backend = backend, .started_utc = o->started_utc};
    json_t *doc = nvs_rj_doc_new(&h);
    if (doc && json_object_set_new(doc, "duration_s", json_real(nvs_now_s() - o->t0))) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

nvs_result_t nvs_cli_out_begin(const nvs_config *cfg, nvs_cli_out *o)
{
    memset(o, 0, sizeof *o);
    o->t0 = nvs_now_s();
    nvs_rj_utc_stamp((long)time(NULL), o->started_utc, sizeof o->started_utc);
    if (!cfg->save || nvs_rt_launcher_rank() != 0) return NVS_OK;
    const char *out = cfg->out_dir[0] ? cfg->out_dir : NULL;
    NVS_CHECK(nvs_rj_check_out_dir(cfg->subcommand, out));
    NVS_CHECK(nvs_rj_open_run_dir(out, cfg->subcommand, o->final, sizeof o->final, o->work, sizeof o->work));
    o->active = 1;
    return NVS_OK;
}

nvs_result_t nvs_cli_save_run(const nvs_config *cfg, nvs_cli_out *o, const json_t *doc)
{
    if (!cfg->save || !o->active) return NVS_OK;
    nvs_result_t r = nvs_rj_save(doc, o->work);
    if (r != NVS_OK) return r;
    o->active = 0;
    if (nvs_rj_rename_run_dir(o->work, o->final) != 0) {
        nvs_error("cannot rename %s to %s: %s (the results are in the former)", o->work, o->final, strerror(errno));
        return NVS_ERR_SYSTEM;
    }
    if (!cfg->quiet) fprintf(stderr, "nvscale %s: wrote %s/run.json\n", cfg->subcommand, o->final);
    return NVS_OK;
}

void nvs_cli_out_abandon(nvs_cli_out *o)
{
    if (!o->active) return;
    o->active = 0;
    if (rmdir(o->work) == 0) nvs_rj_unmake_parents(); /* only when empty: a run.json saved there stays */
}

void nvs_cli_set_verbosity(int quiet, int verbose)
{
    nvs_log_set_level(quiet ? NVS_LOG_ERROR : verbose >= 2 ? NVS_LOG_DEBUG : verbose ? NVS_LOG_INFO : NVS_LOG_WARN);
    nvs_progress_enable(quiet ? 0 : -1);
}

int nvs_cli_size(const char *s, size_t lo, size_t *out, const char *expect, char *why, size_t wl)
{
    size_t v;
    if (!nvs_parse_size_whole(s, &v, why, wl)) {
        if (v >= lo && v <= NVS_CLI_MAX_SIZE) {
            *out = v;
            return 0;
        }
    } else if (why[0]) {
        return -1;
    }
    snprintf(why, wl, "%s", expect);
    return -1;
}

static void cli_say(const char *sub, const char *fmt, va_list ap)
{
    FILE *to = nvs_stderr_once();
    char *msg = NULL;
    int n = vasprintf(&msg, fmt, ap);
    /* the message quotes flag values and rules-file text: their control, reordering (U+202E) and stray bytes reach
     * the terminal only as visible text (core/escape.h), as nvs_error's do */
    fprintf(to, "nvscale %s: ", sub);
    if (n >= 0) nvs_esc_fputs(NVS_ESC_TERM, msg, to);
    else fputs("bad input (and out of memory to say which)", to);
    free(msg);
    fputc('\n', to);
}

int nvs_cli_usage(const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_say(sub, fmt, ap);
    va_end(ap);
    fprintf(nvs_stderr_once(), "Try 'nvscale %s --help'.\n", sub);
    return 2;
}

int nvs_cli_refuse(const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_say(sub, fmt, ap);
    va_end(ap);
    return 2;
}

/* Standard input: which input named "-" reads it, and which refuses it (a file named '-' is ./-):
 *
 *   input                                     "-"      why
 *   report RUN.json / projection .json        stdin    read whole into memory (kept: report reads its first twice)
 *   check RUN.json, --baseline, --rules       stdin    read whole into memory
 *   model --preset-file, --calibrate RUN.json stdin    read whole into memory (--calibrate's run is read twice)
 *   accept --rules                            refused  every rank of a launch reads it; mpirun gives stdin to one
 *   topo --hwloc-xml                          stdin    read whole into memory, given to hwloc as a buffer
 *   run/train/model --model FILE              refused  a profile is read by every rank, and again by the run
 *
 * Where '-' is taken, so are /dev/stdin, /dev/fd/0 and /proc/self/fd/0, whatever standard input is: the same one
 * input, read the same way (core/out_file.h's nvs_input_is_stdin). Where '-' is refused, so is any other input that
 * can be read once: /dev/stdin (or /dev/fd/0) when standard input is a pipe or a terminal, a named pipe, a
 * character device (nvs_cli_stdin_refused, core/out_file.h's nvs_input_stream); a regular file redirected to
 * /dev/stdin (< FILE) is a file there, and is read as one (its text kept: a second --rules /dev/stdin reads it too).
 * Standard input can be read once: the first input to take it is remembered, and a second is refused naming both,
 * whether it was named '-' or /dev/stdin (/dev/fd/0, /proc/self/fd/0): a file redirected there was read whole the
 * first time and empty the second, each read sharing the descriptor's file position. */
static char stdin_taker[96], stdin_spelled[32];

int nvs_cli_stdin_once(const char *sub, const char *what, const char *path)
{
    /* /dev/stdin is the same stream as '-': the second read found it empty ("--rules: /dev/stdin: empty", also
     * through a file redirected with <), or a run's JSON was read as rules */
    if (!nvs_input_is_stdin(path)) return 0;
    if (stdin_taker[0] && !strcmp(stdin_spelled, path))
        return nvs_cli_usage(sub, "'%s' (standard input) given twice, for %s and for %s: it can be read once; give "
                                  "one of them as a file", path, stdin_taker, what);
    if (stdin_taker[0]) /* spelled two ways: each named as it was given */
        return nvs_cli_usage(sub, "standard input given twice, as '%s' for %s and as '%s' for %s: it can be read "
                                  "once; give one of them as a file", stdin_spelled, stdin_taker, path, what);
    snprintf(stdin_taker, sizeof stdin_taker, "%s", what);
    snprintf(stdin_spelled, sizeof stdin_spelled, "%s", path); /* "-" or an alias: short */
    return 0;
}

int nvs_cli_stdin_refused(const char *sub, const char *flag, const char *path, const char *why)
{
    const char *kind = nvs_input_stream(path);
    if (!kind) return 0;
    if (!strcmp(path, "-"))
        return nvs_cli_usage(sub, "%s reads a file; '-' (standard input) is not supported for %s (%s): give a file, "
                                  "or ./- for a file named '-'", flag, flag, why);
    /* /dev/stdin or a named pipe: the first read would take it all, and the next (or another rank's) find it
     * empty ("/dev/stdin: empty", said by rank 1 alone) */
    return nvs_cli_usage(sub, "%s reads a file; %s (%s) is not supported for %s (%s): give a regular file", flag,
                         path, kind, flag, why);
}

int nvs_cli_output_dir_ok(const char *sub, const char *flag, const char *dir)
{
    struct stat st;
    char why[PATH_MAX + 160];
    const char *dash = nvs_out_dash_why(dir, 1);
    if (dash) return nvs_cli_usage(sub, "%s %s: %s", flag, dir, dash);
    /* it, or an ancestor to be made: stat took the link for a missing name, and mkdir -p, after the inputs were
     * read, said "nvscale: error: cannot create directory L: a file of that name exists" */
    if (nvs_link_to_nothing(dir, why, sizeof why)) return nvs_cli_usage(sub, "%s %s: %s", flag, dir, why);
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) return nvs_cli_usage(sub, "%s %s: not a directory", flag, dir);
    /* the directory, or the nearest of its ancestors that exists: the one in which something will be made */
    char anc[PATH_MAX];
    /* a name longer than the file system takes: refused here, not by the directory maker after the inputs were
     * read, as a runtime error ("nvscale: error: cannot create directory ...: File name too long") */
    if (nvs_nearest_existing(dir, 0, anc, sizeof anc) != 0 || !nvs_names_fit(dir, anc))
        return nvs_cli_usage(sub, "%s %s: path too long", flag, dir);
    if (stat(anc, &st) != 0 || !S_ISDIR(st.st_mode))
        return nvs_cli_usage(sub, "%s %s: '%s' is not a directory", flag, dir, anc);
    /* a directory made there and removed, as the writer will: access(W_OK) is not enough (root passes it on /proc,
     * where mkdir fails with ENOENT, which would read as if the directory were not there) */
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/.nvscale-probe-XXXXXX", anc);
    if (!mkdtemp(probe))
        return nvs_cli_usage(sub, "%s %s: cannot write in directory '%s': %s", flag, dir, anc,
                             errno == ENOENT ? "no directory can be made there" : strerror(errno));
    (void)rmdir(probe);
    return 0;
}

nvs_cli_reading nvs_cli_read_begin(const char *sub)
{
    nvs_cli_reading r = {nvs_log_set_sink(nvs_launcher_rank() != 0 ? nvs_stderr_once() : NULL),
                         nvs_log_set_refusal(sub)};
    return r;
}

void nvs_cli_read_end(nvs_cli_reading r)
{
    nvs_log_set_sink(r.sink);
    nvs_log_set_refusal(r.refusal);
}

int nvs_cli_rules_load(const char *sub, const char *path, nvs_ruleset *rs)
{
    char err[512];
    /* the reader would say "cannot open : No such file or directory", naming neither the flag nor the value */
    if (!*path) return nvs_cli_usage(sub, "--rules needs a file name, got ''");
    /* Every rank of a launch reads the file before the runtime starts: the reader's own message (a missing file, a
     * FIFO, one too large: core/out_file.h) once, from rank 0, as for every other input, not once per rank. The
     * other ranks hold it back with the rest of the refusal (nvs_stderr_once) rather than drop it: a file missing
     * on one rank's host alone (a per-host path) is then said by that rank, tagged, reason included (it said only
     * "Try 'nvscale accept --help'."). */
    nvs_cli_reading rd = nvs_cli_read_begin(sub);
    int rc = nvs_rules_load(path, rs, err, sizeof err);
    nvs_cli_read_end(rd);
    if (rc == 2 && err[0]) return nvs_cli_usage(sub, "%s", err);
    /* a file that could not be read: the reader said why (core/out_file.h); the hint, as after any usage error */
    if (rc == 2) fprintf(nvs_stderr_once(), "Try 'nvscale %s --help'.\n", sub);
    if (rc && err[0]) fprintf(nvs_stderr_once(), "nvscale %s: %s\n", sub, err);
    return rc;
}

int nvs_cli_output_file_ok(const char *sub, const char *flag, const char *path, const char *prev)
{
    if (prev) return nvs_cli_usage(sub, "%s given twice", flag);
    if (!*path) return nvs_cli_usage(sub, "%s needs a file name", flag);
    const char *dash = nvs_out_dash_why(path, 0);
    if (dash) return nvs_cli_usage(sub, "%s %s: %s", flag, path, dash);
    struct stat st;
    int there = stat(path, &st) == 0;
    if (there && S_ISDIR(st.st_mode))
        return nvs_cli_usage(sub, "%s %s: is a directory, not a file", flag, path);
    /* a device, a FIFO, /dev/stdout: written through, nothing is made (core/out_file.h) */
    if (there && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
                  (S_ISREG(st.st_mode) && (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6)))))
        return 0;
    if (there && !S_ISREG(st.st_mode))
        return nvs_cli_usage(sub, "%s %s: not a regular file, a device or a FIFO", flag, path);
    /* it, or its directory, a link to nothing: named with its target (its directory's was "cannot write in
     * directory 'L': No such file or directory") */
    char why[PATH_MAX + 160];
    if (!there && nvs_link_to_nothing(path, why, sizeof why)) return nvs_cli_usage(sub, "%s %s: %s", flag, path, why);
    /* the writer makes its temporary file beside the file (a link's: beside the file it points to) */
    char dir[PATH_MAX];
    if (there ? !realpath(path, dir) : snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return nvs_cli_usage(sub, "%s %s: %s", flag, path, there ? strerror(errno) : "path too long");
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    const char *d = slash ? (dir[0] ? dir : "/") : ".";
    if (stat(d, &st) != 0)
        return nvs_cli_usage(sub, "%s %s: cannot write in directory '%s': %s", flag, path, d, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return nvs_cli_usage(sub, "%s %s: '%s' is not a directory", flag, path, d);
    /* a file made there and removed, as the writer will: access(W_OK) is not enough (root passes it on /proc and
     * /sys, where nothing can be made, and on a read-only file system) */
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/.nvscale-probe-XXXXXX", d);
    int fd = mkstemp(probe);
    /* ENOENT from a directory that stat just found: /proc, where no file can be made (creating PATH itself fails
     * the same way); strerror's "No such file or directory" read as if the directory were missing, as
     * nvs_cli_output_dir_ok's mkdtemp words it */
    if (fd < 0)
        return nvs_cli_usage(sub, "%s %s: cannot write in directory '%s': %s", flag, path, d,
                             errno == ENOENT ? "no file can be made there" : strerror(errno));
    close(fd);
    unlink(probe);
    return 0;
}

/* The file DEST, if there is one, kept under a second name BAK (a hard link: DEST itself stays in place) until the
 * exports' renames are all made. 1 kept, 0 nothing to keep, -1 it could not be kept (a file system without hard
 * links): a failed set then removes the new file rather than putting the old one back. */
static int keep_old(const char *dest, char *bak, size_t len)
{
    struct stat st;
    if (lstat(dest, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    for (int n = 0; n < 100; n++) {
        if (snprintf(bak, len, "%s.nvscale-old.%ld.%d", dest, (long)getpid(), n) >= (int)len) return -1;
        if (link(dest, bak) == 0) return 1;
        if (errno != EEXIST) return -1;
    }
    return -1;
}

int nvs_cli_write_exports(const char *sub, const nvs_cli_export *e, size_t n, const nvs_export_info *info,
                          const nvs_verdicts *vs)
{
    nvs_outfile o[NVS_CLI_MAX_EXPORTS];
    size_t k = 0;
    int rc = 0;
    for (; k < n && k < NVS_CLI_MAX_EXPORTS && !rc; k++) {
        memset(&o[k], 0, sizeof o[k]);
        if (!e[k].path) continue;
        nvs_result_t r = nvs_outfile_open(&o[k], e[k].path);
        if (r != NVS_OK) {
            rc = nvs_exit_code(r); /* it said why: 2 for a path that cannot be written */
            continue;
        }
        errno = 0;
        /* on disk before any is renamed: a full disk shows here, while every one can still be discarded */
        if (e[k].print(o[k].f, info, vs) || fflush(o[k].f) != 0 || (!o[k].through && fsync(fileno(o[k].f)) != 0)) {
            fprintf(stderr, "nvscale %s: cannot write %s: %s\n", sub, e[k].path, errno ? strerror(errno) : "I/O error");
            rc = 1;
        }
    }
    /* renamed into place only once every one is written, each old file kept (a hard link) until every rename
     * is made: a rename that fails after another was made (a full disk at the second fsync) puts the old ones
     * back, so that the set is this run's or the previous run's, never this run's JUnit beside the previous run's
     * Prometheus file, read as one run's. A file written through in place (a device, /dev/stdout) is not ours. */
    int done[NVS_CLI_MAX_EXPORTS] = {0}, kept[NVS_CLI_MAX_EXPORTS] = {0};
    char bak[NVS_CLI_MAX_EXPORTS][sizeof o[0].dest + 48];
    for (size_t i = 0; i < k; i++) {
        if (!o[i].f) continue;
        if (rc) {
            nvs_outfile_discard(&o[i]);
            continue;
        }
        if (!o[i].through) kept[i] = keep_old(o[i].dest, bak[i], sizeof bak[i]);
        if (nvs_outfile_commit(&o[i]) == NVS_OK) {
            done[i] = 1;
            continue;
        }
        rc = 1;
        if (kept[i] > 0) unlink(bak[i]); /* its rename was not made: the old file is still in place */
        kept[i] = 0;
        for (size_t j = 0; j < i; j++) {
            if (!done[j] || o[j].through) continue;
            if (kept[j] > 0 && rename(bak[j], o[j].dest) == 0) {
                kept[j] = 0;
                fprintf(stderr, "nvscale %s: %s put back as it was: %s could not be written (the exports are all "
                                "written or none)\n", sub, e[j].path, e[i].path);
            } else if (unlink(o[j].dest) == 0) /* it had no previous file, or that one could not be put back */
                fprintf(stderr, "nvscale %s: %s removed: %s could not be written (the exports are all written or "
                                "none)\n", sub, e[j].path, e[i].path);
            else
                fprintf(stderr, "nvscale %s: %s was written but %s not, and it cannot be removed: %s\n", sub,
                        e[j].path, e[i].path, strerror(errno));
        }
    }
    for (size_t i = 0; i < k; i++) /* every rename made (or every one undone): the old files go */
        if (kept[i] > 0) unlink(bak[i]);
    return rc;
}

const char *nvs_cli_bad_option(char **argv, int at, char *buf, size_t len)
{
    const char *arg = argv[optind - 1];
    /* inside a cluster ("-Zq") getopt has not moved on: argv[optind - 1] is then an argument before it, one that
     * an earlier call read (index < at) or one it stepped over (not an option); a long option is named as typed */
    if (optopt > 0 && optopt < 128 && (optind - 1 < at || strncmp(arg, "--", 2)))
        snprintf(buf, len, "-%c", optopt);
    else
        snprintf(buf, len, "%.60s", arg);
    return buf;
}

int nvs_cli_value_on_flag(char **argv, const struct option *opts, char *buf, size_t len)
{
    const char *arg = optind > 0 ? argv[optind - 1] : NULL;
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq || strncmp(arg, "--", 2) || !optopt) return 0;
    size_t typed = (size_t)(eq - arg - 2); /* the name as typed: the option's or a prefix of it */
    for (const struct option *o = opts; o->name; o++)
        if (o->has_arg == no_argument && !o->flag && o->val == optopt && typed && !strncmp(o->name, arg + 2, typed)) {
            snprintf(buf, len, "option --%s takes no value (got %.60s)", o->name, arg);
            return 1;
        }
    return 0;
}

/* The directory of PATH (its text before the last '/', "/" or ".") as a stat, and its last component. -1 when the
 * directory cannot be read (then nothing can be said to be in it). */
static int dir_entry(const char *path, struct stat *dir, const char **base)
{
    char d[NVS_PATH_MAX];
    if (snprintf(d, sizeof d, "%s", path) >= (int)sizeof d) return -1;
    char *slash = strrchr(d, '/');
    *base = slash ? path + (slash - d) + 1 : path;
    if (slash) *slash = '\0';
    return stat(slash ? (d[0] ? d : "/") : ".", dir);
}

int nvs_cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb) return 0; /* one is there, the other not: two names */
    const char *ba, *bb;
    return dir_entry(a, &sa, &ba) == 0 && dir_entry(b, &sb, &bb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino && !strcmp(ba, bb);
}

int nvs_cli_inputs_distinct(const char *sub, char *const *paths, size_t n, const char *advice)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++) {
            struct stat a, b;
            /* "-" is standard input, not the file named '-' (nvs_cli_stdin_once refuses it twice); /dev/stdin is
             * looked at as what it is (stat follows it: a file redirected there is that file) */
            if (!strcmp(paths[i], "-") || !strcmp(paths[j], "-")) continue;
            if (stat(paths[i], &a) || stat(paths[j], &b) || !S_ISREG(a.st_mode) || a.st_dev != b.st_dev ||
                a.st_ino != b.st_ino)
                continue;
            return nvs_cli_usage(sub, "%s and %s are the same file: %s", paths[j], paths[i], advice);
        }
    return 0;
}

static int same_run(const nvs_run *a, const nvs_run *b)
{
    return a->host && b->host && a->started_utc && b->started_utc && !strcmp(a->host, b->host) &&
           !strcmp(a->started_utc, b->started_utc) && a->duration_s == b->duration_s; /* NAN: absent, not judged */
}

int nvs_cli_runs_distinct(const char *sub, const nvs_run *runs, size_t n, const char *advice)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (same_run(&runs[j], &runs[i]))
                return nvs_cli_usage(sub, "%s and %s are the same run (host %s, started %s, %g s): %s",
                                     nvs_input_name(runs[j].path), nvs_input_name(runs[i].path), runs[i].host,
                                     runs[i].started_utc, runs[i].duration_s, advice);
    return 0;
}

int nvs_cli_files_distinct(const char *sub, const nvs_cli_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!f[i].output) continue;
        /* the inputs first: an input lost is worse than an output lost */
        for (size_t j = 0; j < n; j++)
            if (!f[j].output && strcmp(f[j].path, "-") && nvs_cli_same_file(f[i].path, f[j].path))
                return nvs_cli_usage(sub, "%s %s: that is an input file (%s %s); choose another name", f[i].what,
                                     f[i].path, f[j].what, f[j].path);
        for (size_t j = 0; j < i; j++)
            if (f[j].output && nvs_cli_same_file(f[i].path, f[j].path))
                return nvs_cli_usage(sub, "%s %s: the same file as another output (%s %s); choose another name",
                                     f[i].what, f[i].path, f[j].what, f[j].path);
    }
    return 0;
}
