/* See cli_common.h. */
#include "cli/cli_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int nvs_cli_output_file_ok(const char *sub, const char *flag, const char *path, const char *prev, const char *other)
{
    if (prev) return nvs_cli_usage(sub, "%s given twice", flag);
    if (!*path) return nvs_cli_usage(sub, "%s needs a file name", flag);
    if (other && !strcmp(path, other)) return nvs_cli_usage(sub, "%s %s: the same file as another output", flag, path);
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
