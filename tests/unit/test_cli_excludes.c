/* cli/options.c excludes[]: every row, given to every subcommand that takes both of its options, is refused with
 * exit 2 (NVS_ERR_USAGE) and one message naming both, in either order. The rows are walked through
 * nvs_cli_exclude_row, so a row added later is tested here without a new case. How each option is given (a flag,
 * or a flag with a value) is found by parsing it alone first: a row whose options no subcommand takes alone fails. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_common.h"
#include "core/config.h"
#include "t.h"

static const char *const subs[] = {"run", "coll", "train", "topo", "p2p"};
/* values an option may take: "1" fits every number and path option of the table; more when a row needs one */
static const char *const values[] = {"1", "x"};

/* Parses ARGV (a NULL-ended list after the program name) as SUB; its stderr into *ERR (malloc'd). */
static nvs_result_t parse(const char *sub, char **argv, char **err)
{
    char *full[8] = {"nvscale"};
    int n = 1;
    while (argv[n - 1]) full[n] = argv[n - 1], n++;
    FILE *tmp = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(tmp), 2);
    nvs_config c;
    nvs_config_defaults(&c);
    int help = 0;
    nvs_result_t r = nvs_config_parse(&c, sub, n, full, &help);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    *err = t_slurp(tmp);
    fclose(tmp);
    return r;
}

/* How SUB takes option DISPLAY ("-q/--quiet"): into ARG ("--quiet" or "--timeout=1"); 0, or -1 when it does not. */
static int form(const char *sub, const char *display, char *arg, size_t len)
{
    const char *name = strstr(display, "--");
    for (int v = -1; v < (int)(sizeof values / sizeof values[0]); v++) {
        if (v < 0) snprintf(arg, len, "%s", name);
        else snprintf(arg, len, "%s=%s", name, values[v]);
        char *argv[] = {arg, NULL}, *err;
        nvs_result_t r = parse(sub, argv, &err);
        free(err);
        if (r == NVS_OK) return 0;
    }
    return -1;
}

static void t_every_row_refused_naming_both(void)
{
    const char *a, *b;
    size_t rows = 0;
    for (size_t i = 0; (a = nvs_cli_exclude_row(i, &b)); i++, rows++) {
        int tested = 0;
        for (size_t s = 0; s < sizeof subs / sizeof subs[0]; s++) {
            char fa[64], fb[64];
            if (form(subs[s], a, fa, sizeof fa) || form(subs[s], b, fb, sizeof fb)) continue;
            char *ab[] = {fa, fb, NULL}, *ba[] = {fb, fa, NULL};
            char **orders[] = {ab, ba};
            for (int o = 0; o < 2; o++) {
                char *err;
                nvs_result_t r = parse(subs[s], orders[o], &err);
                if (r != NVS_ERR_USAGE || !strstr(err, a) || !strstr(err, b) || !strstr(err, "exclude each other")) {
                    printf("#   %s %s %s: exit %d, \"%s\"\n", subs[s], orders[o][0], orders[o][1], (int)r, err);
                    free(err);
                    T_FAIL("row %zu (%s, %s) not refused naming both", i, a, b);
                }
                /* one message: its line, then the help hint */
                int lines = 0;
                for (const char *p = err; *p; p++) lines += *p == '\n';
                char *nl = strchr(err, '\n');
                int one = lines == 2 && !strncmp(nl + 1, "Try 'nvscale ", 13);
                free(err);
                T_ASSERT(one);
            }
            tested++;
        }
        if (!tested) T_FAIL("row %zu (%s, %s): no subcommand takes both alone", i, a, b);
    }
    T_ASSERT(rows >= 4); /* the table is there: --hwloc-xml's two rows, -q/-v, --out/--no-save */
}

/* each option of a row alone is taken (what the walk above relies on), so the refusal is the pair's */
static void t_pair_alone_taken(void)
{
    char *argv[] = {"-q", "--out=1", NULL}, *err;
    T_EQ_I(parse("coll", argv, &err), NVS_OK);
    free(err);
    char *argv2[] = {"-q", "--out=1", "-v", NULL};
    T_EQ_I(parse("coll", argv2, &err), NVS_ERR_USAGE);
    T_CONTAINS(err, "nvscale coll: -q/--quiet and -v/--verbose exclude each other: ");
    free(err);
}

T_LIST = {T_CASE(t_every_row_refused_naming_both), T_CASE(t_pair_alone_taken)};
T_MAIN
