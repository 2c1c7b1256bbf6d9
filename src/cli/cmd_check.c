/* nvscale check RUN.json: acceptance verdicts. Flags and rules file: docs/check.md.
 * This file only gathers inputs (flags -> rule lines, rules file, run, baseline), then hands them to the pure
 * evaluation (check_eval.c) and the printers (check_out.c). Exit: 0 all PASS, 3 any FAIL, 2 bad input. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "check/check_baseline.h"
#include "check/check_eval.h"
#include "check/check_out.h"
#include "check/rules.h"
#include "cli/commands.h"
#include "core/log.h"
#include "core/out_file.h"
#include "runjson/runjson.h"

#define MAX_RULES_BYTES ((size_t)1 << 20) /* a rules file is a few lines; 1 MiB is not one */
#define MAX_SLOWEST 64

static void usage(FILE *to)
{
    fprintf(to,
            "usage: nvscale check RUN.json [--rules FILE] [--baseline BASE.json] [thresholds...]\n"
            "                     [--save-baseline OUT.json] [--format table|json]\n"
            "Acceptance test of a run: one verdict row per threshold, exit 0 when all pass, 3 when any fails,\n"
            "2 on bad input. Thresholds (repeatable; each is one line of the rules file, see docs/check.md):\n"
            "      --rules FILE                 rules file (first line 'nvscale-rules 1')\n"
            "      --min-busbw COLL:SIZE:N:GBPS  e.g. all_reduce:1G:2:300 (N may be * = every N >= 2, or max)\n"
            "      --max-below-baseline PCT     every collective, size and N >= 2 of --baseline: at most PCT%%\n"
            "                                   below it\n"
            "      --min-p2p GBPS               every ordered GPU pair: unidirectional copy bandwidth\n"
            "      --min-efficiency F|PCT       training step scaling efficiency at every N >= 2 (0.9 or 90%%)\n"
            "      --baseline BASE.json         run.json (or saved baseline) that below_baseline compares with\n"
            "      --save-baseline OUT.json     write a baseline (trimmed copy of RUN.json) atomically\n"
            "      --format table|json          what stdout shows (default table)\n"
            "  -h, --help\n");
}

static int usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "nvscale check: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nTry 'nvscale check --help'.\n");
    return 2;
}

/* A value that goes into a rule line must be one word of it: no blanks, comment or comparison characters. */
static int plain_word(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || strchr("#=<>", *s)) return 0;
    return 1;
}

/* Turn a threshold flag into a rule line and parse it with the rules-file parser. */
static int flag_rule(nvs_ruleset *rs, const char *flag, const char *value, const char *line)
{
    nvs_rule r;
    char err[256];
    if (nvs_rule_parse_line(line, &r, err, sizeof err)) {
        fprintf(stderr, "nvscale check: %s '%s': %s\nTry 'nvscale check --help'.\n", flag, value, err);
        return 2;
    }
    snprintf(r.source, sizeof r.source, "%s %s", flag, value);
    r.line = 0;
    if (nvs_ruleset_add(rs, &r)) {
        fprintf(stderr, "nvscale check: out of memory\n");
        return 1;
    }
    return 0;
}

static int add_min_busbw(nvs_ruleset *rs, const char *v)
{
    char buf[256], *f[5];
    int n = 0;
    if (strlen(v) >= sizeof buf) return usage_error("--min-busbw '%s': too long%s", v, "");
    snprintf(buf, sizeof buf, "%s", v);
    for (char *p = buf, *q; n < 5; p = q + 1) {
        f[n++] = p;
        if (!(q = strchr(p, ':'))) break;
        *q = '\0';
    }
    if (n != 4) return usage_error("--min-busbw '%s': expected COLL:SIZE:N:GBPS%s, e.g. all_reduce:1G:2:300", v, "");
    for (int i = 0; i < 4; i++)
        if (!plain_word(f[i]))
            return usage_error("--min-busbw '%s': field '%s' is empty or holds a blank, #, = < or >", v, f[i]);
    char line[320];
    snprintf(line, sizeof line, "busbw %s size=%s n=%s min=%s", f[0], f[1], f[2], f[3]);
    return flag_rule(rs, "--min-busbw", v, line);
}

static int add_simple(nvs_ruleset *rs, const char *flag, const char *v, const char *fmt)
{
    if (!plain_word(v)) return usage_error("%s '%s': expected a number", flag, v);
    char line[320];
    snprintf(line, sizeof line, fmt, v);
    return flag_rule(rs, flag, v, line);
}

static int add_rules_file(nvs_ruleset *rs, const char *path)
{
    char *text, err[256];
    int line;
    if (nvs_read_text_file(path, MAX_RULES_BYTES, &text) != NVS_OK) return 2; /* it said why */
    int rc = nvs_rules_parse_text(text, path, rs, &line, err, sizeof err);
    free(text);
    if (rc == -2) {
        fprintf(stderr, "nvscale check: out of memory\n");
        return 1;
    }
    if (rc) {
        if (line) fprintf(stderr, "%s:%d: %s\n", path, line, err);
        else fprintf(stderr, "%s: %s\n", path, err);
        return 2;
    }
    return 0;
}

/* A run or baseline through the shared reader (one message "FILE: key: what is wrong" and exit 2 when bad),
 * with the collective names check compares rules against. */
static nvs_result_t load_run(const char *path, nvs_run *run)
{
    char err[256];
    nvs_result_t res = nvs_run_load(path, 0, run);
    if (res == NVS_OK && (res = nvs_check_run_names(run, err, sizeof err)) != NVS_OK) {
        nvs_error("%s: %s", path, err);
        nvs_run_free(run);
    }
    return res;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

enum { O_RULES = 1000, O_BASELINE, O_MIN_BUSBW, O_MAX_BELOW, O_MIN_P2P, O_MIN_EFF, O_SAVE, O_FORMAT };
static const struct option opts[] = {
    {"rules", required_argument, 0, O_RULES},
    {"baseline", required_argument, 0, O_BASELINE},
    {"min-busbw", required_argument, 0, O_MIN_BUSBW},
    {"max-below-baseline", required_argument, 0, O_MAX_BELOW},
    {"min-p2p", required_argument, 0, O_MIN_P2P},
    {"min-efficiency", required_argument, 0, O_MIN_EFF},
    {"save-baseline", required_argument, 0, O_SAVE},
    {"format", required_argument, 0, O_FORMAT},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

int cmd_check(int argc, char **argv)
{
    nvs_ruleset rs = {0};
    const char *base_path = NULL, *save_path = NULL;
    int json = 0, rc = 0;
    char desc[1024] = "";

    optind = 1;
    opterr = 0;
    for (;;) {
        int opt = getopt_long(argc, argv, ":h", opts, NULL);
        if (opt == -1) break;
        const char *a = optarg;
        size_t before = rs.n;
        switch (opt) {
        case O_RULES:
            if ((rc = add_rules_file(&rs, a))) goto out;
            snprintf(desc + strlen(desc), sizeof desc - strlen(desc), "%s%s (%zu rules)", desc[0] ? ", " : "", a,
                     rs.n - before);
            continue;
        case O_BASELINE:
            if (base_path) {
                rc = usage_error("--baseline given twice ('%s' and '%s')", base_path, a);
                goto out;
            }
            base_path = a;
            continue;
        case O_MIN_BUSBW: rc = add_min_busbw(&rs, a); break;
        case O_MAX_BELOW: rc = add_simple(&rs, "--max-below-baseline", a, "busbw * n=* below_baseline<=%s"); break;
        case O_MIN_P2P: rc = add_simple(&rs, "--min-p2p", a, "p2p uni min=%s"); break;
        case O_MIN_EFF: rc = add_simple(&rs, "--min-efficiency", a, "efficiency train n=* min=%s"); break;
        case O_SAVE:
            if (save_path) {
                rc = usage_error("--save-baseline given twice ('%s' and '%s')", save_path, a);
                goto out;
            }
            if (!*a) {
                rc = usage_error("--save-baseline '%s': expected a file name%s", a, "");
                goto out;
            }
            save_path = a;
            continue;
        case O_FORMAT:
            if (!strcasecmp(a, "table")) json = 0;
            else if (!strcasecmp(a, "json")) json = 1;
            else {
                rc = usage_error("invalid value '%s' for --format: expected table or json%s", a, "");
                goto out;
            }
            continue;
        case 'h':
            usage(stdout);
            goto out;
        case ':':
            rc = usage_error("option %s needs a value%s", argv[optind - 1], "");
            goto out;
        default:
            rc = usage_error("unknown option '%s'%s", argv[optind - 1], "");
            goto out;
        }
        if (rc) goto out;
        snprintf(desc + strlen(desc), sizeof desc - strlen(desc), "%s%s", desc[0] ? ", " : "", rs.v[rs.n - 1].source);
    }
    if (optind >= argc) {
        rc = usage_error("missing RUN.json (the run to check)%s%s", "", "");
        goto out;
    }
    if (optind + 1 < argc) {
        rc = usage_error("unexpected argument '%s' (one RUN.json per check)%s", argv[optind + 1], "");
        goto out;
    }
    const char *run_path = argv[optind];
    if (!rs.n && !save_path) {
        rc = usage_error("nothing to check: give --rules FILE or a threshold (--min-busbw, --min-p2p, "
                         "--min-efficiency, --max-below-baseline)%s%s", "", "");
        goto out;
    }
    for (size_t i = 0; i < rs.n; i++)
        if (rs.v[i].has_below && !base_path) {
            char where[300];
            if (rs.v[i].line) snprintf(where, sizeof where, "%s:%d", rs.v[i].source, rs.v[i].line);
            else snprintf(where, sizeof where, "%s", rs.v[i].source);
            rc = usage_error("%s: below_baseline needs --baseline FILE%s", where, "");
            goto out;
        }
    if (base_path && !nvs_ruleset_needs_baseline(&rs)) {
        rc = usage_error("--baseline %s: no rule compares with it (add --max-below-baseline PCT or a "
                         "below_baseline<= rule)%s", base_path, "");
        goto out;
    }
    if (save_path && (same_file(save_path, run_path) || (base_path && same_file(save_path, base_path)))) {
        rc = usage_error("--save-baseline %s: that is an input file; choose another name%s", save_path, "");
        goto out;
    }

    nvs_run run, base;
    memset(&base, 0, sizeof base);
    nvs_result_t res = load_run(run_path, &run);
    if (res != NVS_OK) {
        rc = nvs_exit_code(res);
        goto out;
    }
    if (base_path && (res = load_run(base_path, &base)) != NVS_OK) {
        rc = nvs_exit_code(res);
        nvs_run_free(&run);
        goto out;
    }

    if (save_path) {
        if (!run.result_status || strcmp(run.result_status, "ok")) {
            fprintf(stderr, "nvscale check: --save-baseline: %s has result status '%s': a baseline must come from a "
                            "run that finished with correct results\n", run_path,
                    run.result_status ? run.result_status : "none");
            rc = 2;
            goto done;
        }
        if ((res = nvs_baseline_save(&run, save_path)) != NVS_OK) {
            rc = nvs_exit_code(res);
            goto done;
        }
        fprintf(stderr, "nvscale check: baseline written to %s\n", save_path);
        if (!rs.n) goto done;
    }

    nvs_verdicts vs;
    if (nvs_check_eval(&rs, &run, base_path ? &base : NULL, &vs)) {
        fprintf(stderr, "nvscale check: out of memory\n");
        nvs_verdicts_free(&vs);
        rc = 1;
        goto done;
    }
    nvs_slowest_rank slowest[MAX_SLOWEST];
    nvs_check_report rep = {
        .run = &run,
        .base = base_path ? &base : NULL,
        .rules_desc = desc,
        .verdicts = &vs,
        .slowest = slowest,
        .nslowest = nvs_check_slowest_ranks(&run, slowest, MAX_SLOWEST),
        .slowest_pair = nvs_check_slowest_pair(&run),
    };
    res = json ? nvs_check_print_json(stdout, &rep) : nvs_check_print_table(stdout, &rep);
    rc = res != NVS_OK ? nvs_exit_code(res) : nvs_check_exit_code(&rep);
    nvs_verdicts_free(&vs);
done:
    nvs_run_free(&run);
    nvs_run_free(&base);
out:
    nvs_ruleset_free(&rs);
    return rc;
}
