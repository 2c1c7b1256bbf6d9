/* The parse of the measuring subcommands' options: getopt over options.c's table, an option given twice or of
 * another subcommand, an unknown one (nccl-tests' flags named as such); each value to the file of its group, then
 * the checks across options and the test hooks' variables. */
#include "core/config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_common.h"
#include "cli/nccl_tests_flags.h"
#include "cli/options_priv.h"
#include "core/launch_env.h"

nvs_result_t nvs_config_parse(nvs_config *c, const char *sub, int argc, char **argv, int *help)
{
    return nvs_config_parse_for(c, sub, sub, argc, argv, help);
}

/* OPTS_OF decides which options are taken and what c->subcommand is; SUB, the subcommand typed, is the one that
 * refuses: every message below is "nvscale SUB: ..." with SUB's help hint (compare said "nvscale run: ..." for a
 * bad option of its runs, naming a command the user never typed). */
nvs_result_t nvs_config_parse_for(nvs_config *c, const char *opts_of, const char *sub, int argc, char **argv,
                                  int *help)
{
    nvs_opt_parse ps = {.c = c, .sub = sub, .flag_f1 = "-f", .flag_b = "-b", .flag_e = "-e"};
    /* which options were given (by index in specs[]): one given twice would silently lose its first value; and
     * --no-train with a training flag would silently ignore the flag */
    unsigned char given[NSPECS];
    memset(given, 0, sizeof given);
    *help = 0;
    c->subcommand = opts_of;
    /* getopt sees every option of every subcommand, so that one that belongs elsewhere is named as such */
    struct option long_opts[NSPECS + 1];
    char short_opts[2 * NSPECS + 2] = ":";
    for (int i = 0; i < NSPECS; i++) {
        long_opts[i] = (struct option){
            nvs_opt_specs[i].name, nvs_opt_specs[i].has_arg ? required_argument : no_argument, 0, nvs_opt_specs[i].key};
        if (nvs_opt_specs[i].key < 256) {
            size_t l = strlen(short_opts);
            short_opts[l] = (char)nvs_opt_specs[i].key;
            short_opts[l + 1] = nvs_opt_specs[i].has_arg ? ':' : '\0';
            short_opts[l + 2] = '\0';
        }
    }
    long_opts[NSPECS] = (struct option){0, 0, 0, 0};
    unsigned mine = nvs_opt_sub_mask(opts_of);
    optind = 0; /* glibc: 0 resets getopt completely (1 keeps its position inside an earlier "-qv"); a second
                 * parse in one process, as the fuzz harness does, must not read the first one's argv */
    opterr = 0;
    for (;;) {
        int li = -1, at = optind;
        int opt = getopt_long(argc, argv, short_opts, long_opts, &li);
        if (opt == -1) break;

        char flag[64];
        if (li >= 0)
            snprintf(flag, sizeof flag, "--%s", long_opts[li].name);
        else
            snprintf(flag, sizeof flag, "-%c", opt);
        const char *a = optarg;
        for (int i = 0; i < NSPECS && opt != '?' && opt != ':'; i++) {
            if (nvs_opt_specs[i].key != opt) continue;
            if (given[i] && opt != 'v') { /* -v counts (-vv: debug) */
                fprintf(nvs_stderr_cmdline(), "nvscale %s: option %s given twice\nTry 'nvscale %s --help'.\n", sub,
                        flag, sub);
                return NVS_ERR_USAGE;
            }
            given[i] = 1;
            if (!(nvs_opt_specs[i].subs & mine)) {
                char who[64];
                nvs_opt_owners(nvs_opt_specs[i].subs, who, sizeof who);
                fprintf(nvs_stderr_cmdline(),
                        "nvscale %s: option %s is not one of %s's (it belongs to: %s)\nTry 'nvscale %s --help'.\n", sub,
                        flag, opts_of, who, sub);
                return NVS_ERR_USAGE;
            }
        }
        if (opt == 'h') {
            /* under another subcommand (compare -qh) run's usage went to stdout, then compare refused the help
             * (exit 2): one answer, the caller's, which says where OPTS_OF's help is */
            if (!strcmp(opts_of, sub)) nvs_config_usage(sub, stdout);
            *help = 1;
            return NVS_OK;
        }
        int r = nvs_opt_sweep(&ps, opt, flag, a);
        if (r == NVS_OPT_NOT_MINE) r = nvs_opt_train(&ps, opt, flag, a);
        if (r == NVS_OPT_NOT_MINE) r = nvs_opt_general(&ps, opt, flag, a);
        if (r != NVS_OPT_NOT_MINE) {
            if (r != NVS_OK) return (nvs_result_t)r;
            continue;
        }
        /* none of them: getopt's '?' or ':' */
        /* a short option inside a cluster ("-qX") is named alone: getopt's optopt; a long one as typed */
        char shown[64];
        nvs_cli_bad_option(argv, at, shown, sizeof shown);
        char why[256];
        if (opt == ':')
            fprintf(nvs_stderr_cmdline(), "nvscale %s: option %s needs a value\nTry 'nvscale %s --help'.\n", sub,
                    shown, sub);
        else if (nvs_cli_value_on_flag(argv, long_opts, why, sizeof why))
            fprintf(nvs_stderr_cmdline(), "nvscale %s: %s\nTry 'nvscale %s --help'.\n", sub, why, sub);
        else if ((mine & (S_RUN | S_COLL)) && nvs_nccl_tests_flag(shown, why, sizeof why))
            fprintf(nvs_stderr_cmdline(), "nvscale %s: %s\nTry 'nvscale %s --help'.\n", sub, why, sub);
        else
            fprintf(nvs_stderr_cmdline(), "nvscale %s: unknown option '%s'\nTry 'nvscale %s --help'.\n", sub,
                    shown, sub);
        return NVS_ERR_USAGE;
    }
    if (optind < argc) {
        fprintf(nvs_stderr_cmdline(), "nvscale %s: unexpected argument '%s'\nTry 'nvscale %s --help'.\n", sub,
                argv[optind], sub);
        return NVS_ERR_USAGE;
    }
    nvs_result_t res = nvs_opt_cross_checks(&ps, long_opts, given);
    return res != NVS_OK ? res : nvs_opt_test_hooks_env(c, sub);
}
