/* The checks across the measuring subcommands' options, once every flag is read: the pairs that exclude each other
 * whatever their values (excludes[], shared with accept's parser through cli_common.h), and those whose values
 * decide (-f with -i, -b above -e, --no-train with a training flag, --bucket-cap alone). */
#include "core/config.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli_common.h"
#include "cli/options_priv.h"
#include "core/units.h"

/* Options that exclude each other: given together, the second would do nothing, silently. Refused naming both,
 * "A and B exclude each other: WHY", whatever their order, by nvs_cli_excludes_check: every parser that takes both
 * options of a row (nvs_config_parse, accept's) refuses the pair in these words. A row names each option as --help
 * shows it ("-q/--quiet"); the long name is what follows "--". tests/unit/test_cli_excludes.c gives every row's
 * pair to every subcommand that takes both, so a new row is tested without a new test. A pair that depends on the
 * values, not on the flags alone (-f 1 goes with -i, -f 2 does not), stays where its values are read. */
static const struct {
    const char *a, *b, *why;
} excludes[] = {
    /* --hwloc-xml reads a saved topology in the process itself (cmd_topo.c): no rank is launched, so what bounds or
     * shapes a live discovery has nothing to act on */
    {"--hwloc-xml", "--timeout", "--timeout bounds the waits of a live discovery's ranks; with --hwloc-xml nothing "
                                 "runs"},
    {"--hwloc-xml", "--emulate-nodes", "--emulate-nodes splits the ranks of a live run into virtual hosts; with "
                                       "--hwloc-xml nothing runs"},
    {"-q/--quiet", "-v/--verbose", "one says errors only, the other more detail"},
    {"--out", "--no-save", "--no-save writes no result directory for --out to name"},
};

const char *nvs_cli_exclude_row(size_t i, const char **b)
{
    if (i >= sizeof excludes / sizeof excludes[0]) return NULL;
    *b = excludes[i].b;
    return excludes[i].a;
}

/* The index in OPTS (getopt's table, ended by a NULL name) of the option that DISPLAY ("-q/--quiet") names; -1 when
 * this parser has none. */
static int opt_index(const struct option *opts, const char *display)
{
    const char *name = strstr(display, "--") + 2;
    for (int i = 0; opts[i].name; i++)
        if (!strcmp(opts[i].name, name)) return i;
    return -1;
}

int nvs_cli_excludes_check(const char *sub, const struct option *opts, const unsigned char *given)
{
    for (size_t x = 0; x < sizeof excludes / sizeof excludes[0]; x++) {
        int ia = opt_index(opts, excludes[x].a), ib = opt_index(opts, excludes[x].b);
        if (ia < 0 || ib < 0 || !given[ia] || !given[ib]) continue;
        return nvs_cli_exclude_refuse(sub, excludes[x].a, excludes[x].b, excludes[x].why);
    }
    return 0;
}

int nvs_cli_exclude_refuse(const char *sub, const char *a, const char *b, const char *why)
{
    return nvs_cli_usage(sub, "%s and %s exclude each other: %s", a, b, why);
}

/* -f and -i, the range -b..-e, --no-train, the bucket sizes, then excludes[]: in that order, the first refusal
 * wins */
nvs_result_t nvs_opt_cross_checks(nvs_opt_parse *ps, const struct option *long_opts, const unsigned char *given)
{
    nvs_config *c = ps->c;
    const char *sub = ps->sub;
    if (ps->have_f < 0 && !ps->have_i)
        return nvs_opt_bad(sub, ps->flag_f1, "1",
                           "expected a factor above 1, at most 1024 (e.g. 2); -f 1 (nccl-tests: no factor) only with "
                           "-i/--stepbytes SIZE, the step it then takes");
    if (ps->have_f > 0 && ps->have_i) {
        /* not in excludes[]: -f 1 (nccl-tests' "no factor") goes with -i, above */
        nvs_cli_exclude_refuse(sub, "-f/--stepfactor", "-i/--stepbytes", "-f multiplies the size each step, -i adds "
                                                                         "to it (-f 1 goes with -i)");
        return NVS_ERR_USAGE;
    }
    if (ps->have_i) c->step_factor = 0;
    /* An inverted range names the flag(s) typed, as typed: `-e 4` alone is refused for -e (below -b's default 8),
     * not as "-b 8", which the user never wrote. */
    if (c->min_bytes > c->max_bytes) {
        char why[160], v[32];
        if (ps->b_typed && ps->e_typed) {
            snprintf(why, sizeof why, "larger than %s %s (the smallest size above the largest)", ps->flag_e,
                     ps->e_typed);
            return nvs_opt_bad(sub, ps->flag_b, ps->b_typed, why);
        }
        if (ps->b_typed) {
            snprintf(why, sizeof why, "larger than the largest size, %s by default: give -e/--maxbytes too",
                     nvs_format_size(c->max_bytes, v, sizeof v));
            return nvs_opt_bad(sub, ps->flag_b, ps->b_typed, why);
        }
        snprintf(why, sizeof why, "smaller than the smallest size, %s by default: give -b/--minbytes too",
                 nvs_format_size(c->min_bytes, v, sizeof v));
        return nvs_opt_bad(sub, ps->flag_e, ps->e_typed, why);
    }
    /* the training step's flags (run's and train's alone) mean nothing without a training step */
    for (int i = 0; c->no_train && i < NSPECS; i++)
        if (given[i] && nvs_opt_specs[i].subs == (S_RUN | S_TRAIN)) {
            char b[64], why[128];
            snprintf(b, sizeof b, "--%s", nvs_opt_specs[i].name);
            snprintf(why, sizeof why, "%s sets up the training step that --no-train leaves out", b);
            nvs_cli_exclude_refuse(sub, "--no-train", b, why);
            return NVS_ERR_USAGE;
        }
    if (nvs_cli_excludes_check(sub, long_opts, given)) return NVS_ERR_USAGE;
    /* PyTorch DDP 2.x (torch/nn/parallel/distributed.py, "if self.bucket_bytes_cap_default"): an explicit
     * bucket_cap_mb sizes the first bucket too; the 1 MiB first bucket stays only where no cap is passed
     * (results/h100x1-s54a/ddp-bucket.txt, PyTorch 2.11). --bucket-cap alone does what DDP(bucket_cap_mb=) does;
     * --bucket-first still sets the first bucket apart. */
    int cap_given = 0, first_given = 0;
    for (int i = 0; i < NSPECS; i++) {
        if (nvs_opt_specs[i].key == OPT_BCAP) cap_given = given[i];
        if (nvs_opt_specs[i].key == OPT_BFIRST) first_given = given[i];
    }
    if (cap_given && !first_given) c->bucket_first_bytes = c->bucket_cap_bytes;
    return NVS_OK;
}
