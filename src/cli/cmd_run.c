/* run / coll / train: the measuring subcommands' command line. Parsing and the checks that need no
 * launch happen here; the flow itself (backend, topology, sweeps, training step, outputs) is run/run_flow.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/config.h"
#include "core/launch_env.h"
#include "run/run_flow.h"

static int run_main(const char *sub, int argc, char **argv)
{
    nvs_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg) return 1;
    nvs_config_defaults(cfg);
    int help = 0;
    nvs_result_t res = nvs_config_parse(cfg, sub, argc, argv, &help);
    if (res != NVS_OK || help) {
        free(cfg);
        return help ? 0 : nvs_exit_code(res);
    }
    cfg->argc = argc;
    cfg->argv = argv;
    if (!strcmp(sub, "train") && !cfg->model[0]) {
        fprintf(nvs_stderr_cmdline(), "nvscale train: --model is required (a built-in name or a profile file)\n"
                        "Try 'nvscale train --help'.\n");
        free(cfg);
        return 2;
    }
    nvs_cli_set_verbosity(cfg->quiet, cfg->verbose);
    nvs_result_t r = nvs_run_measure(cfg);
    free(cfg);
    return nvs_exit_code(r);
}

int cmd_run(int argc, char **argv) { return run_main("run", argc, argv); }
int cmd_coll(int argc, char **argv) { return run_main("coll", argc, argv); }
int cmd_train(int argc, char **argv) { return run_main("train", argc, argv); }
