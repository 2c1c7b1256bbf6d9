/* See cli_common.h. */
#include "cli/cli_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/rules_file.h"
#include "core/launch_env.h"
#include "core/log.h"
#include "runtime/runtime.h"
#include "runjson/runjson_write.h"

json_t *nvs_cli_run_doc(const nvs_config *cfg, const char *launcher, const char *backend)
{
    nvs_rj_head h = {.subcommand = cfg->subcommand, .argc = cfg->argc, .argv = cfg->argv, .launcher = launcher,
                     .backend = backend};
    return nvs_rj_doc_new(&h);
}

nvs_result_t nvs_cli_out_begin(const nvs_config *cfg, nvs_cli_out *o)
{
    memset(o, 0, sizeof *o);
    if (!cfg->save || nvs_rt_launcher_rank() != 0) return NVS_OK;
    const char *out = cfg->out_dir[0] ? cfg->out_dir : NULL;
    NVS_CHECK(nvs_rj_check_out_dir(out));
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

int nvs_cli_usage(const char *sub, const char *fmt, ...)
{
    FILE *to = nvs_stderr_once();
    va_list ap;
    va_start(ap, fmt);
    fprintf(to, "nvscale %s: ", sub);
    vfprintf(to, fmt, ap);
    fprintf(to, "\nTry 'nvscale %s --help'.\n", sub);
    va_end(ap);
    return 2;
}

int nvs_cli_rules_load(const char *sub, const char *path, nvs_ruleset *rs)
{
    char err[512];
    int rc = nvs_rules_load(path, rs, err, sizeof err);
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
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return nvs_cli_usage(sub, "%s %s: is a directory, not a file", flag, path);
    char dir[NVS_PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return nvs_cli_usage(sub, "%s: path too long (%zu bytes)", flag, strlen(path));
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    const char *d = slash ? (dir[0] ? dir : "/") : ".";
    if (stat(d, &st) != 0)
        return nvs_cli_usage(sub, "%s %s: cannot write in directory '%s': %s", flag, path, d, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return nvs_cli_usage(sub, "%s %s: '%s' is not a directory", flag, path, d);
    if (access(d, W_OK) != 0)
        return nvs_cli_usage(sub, "%s %s: cannot write in directory '%s': %s", flag, path, d, strerror(errno));
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

/* Whether writing A would replace B (or B, A): see nvs_cli_files_distinct. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb) return 0; /* one is there, the other not: two names */
    const char *ba, *bb;
    return dir_entry(a, &sa, &ba) == 0 && dir_entry(b, &sb, &bb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino && !strcmp(ba, bb);
}

int nvs_cli_files_distinct(const char *sub, const nvs_cli_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!f[i].output) continue;
        /* the inputs first: an input lost is worse than an output lost */
        for (size_t j = 0; j < n; j++)
            if (!f[j].output && same_file(f[i].path, f[j].path))
                return nvs_cli_usage(sub, "%s %s: that is an input file (%s %s); choose another name", f[i].what,
                                     f[i].path, f[j].what, f[j].path);
        for (size_t j = 0; j < i; j++)
            if (f[j].output && same_file(f[i].path, f[j].path))
                return nvs_cli_usage(sub, "%s %s: the same file as another output (%s %s); choose another name",
                                     f[i].what, f[i].path, f[j].what, f[j].path);
    }
    return 0;
}
