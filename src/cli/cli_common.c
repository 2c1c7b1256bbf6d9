/* See cli_common.h. */
#include "cli/cli_common.h"

#include <stdio.h>

#include "core/log.h"
#include "runjson/runjson_write.h"

json_t *nvs_cli_run_doc(const nvs_config *cfg, const char *launcher, const char *backend)
{
    nvs_rj_head h = {.subcommand = cfg->subcommand, .argc = cfg->argc, .argv = cfg->argv, .launcher = launcher,
                     .backend = backend};
    return nvs_rj_doc_new(&h);
}

nvs_result_t nvs_cli_save_run(const nvs_config *cfg, const json_t *doc)
{
    if (!cfg->save) return NVS_OK;
    char dir[NVS_PATH_MAX];
    if (cfg->out_dir[0])
        snprintf(dir, sizeof dir, "%s", cfg->out_dir);
    else
        nvs_rj_default_dir(cfg->subcommand, dir, sizeof dir);
    nvs_result_t r = nvs_rj_save(doc, dir);
    if (r == NVS_OK && !cfg->quiet) fprintf(stderr, "nvscale %s: wrote %s/run.json\n", cfg->subcommand, dir);
    return r;
}

void nvs_cli_set_verbosity(int quiet, int verbose)
{
    nvs_log_set_level(quiet ? NVS_LOG_ERROR : verbose >= 2 ? NVS_LOG_DEBUG : verbose ? NVS_LOG_INFO : NVS_LOG_WARN);
    nvs_progress_enable(quiet ? 0 : -1);
}
