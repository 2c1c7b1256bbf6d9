/* nvscale check RUN.json: acceptance verdicts. Flags and rules file: docs/check.md.
 * This file only gathers inputs (flags -> rule lines, rules file, run, baseline), then hands them to the pure
 * evaluation (check_eval.c) and the printers (check_out.c). Exit: 0 all PASS, 3 any FAIL, 2 bad input. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/check_accept.h"
#include "check/check_baseline.h"
#include "check/check_eval.h"
#include "check/check_load.h"
#include "check/check_export.h"
#include "check/check_fleet.h"
#include "check/check_out.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/out_file.h"
#include "check/rules.h"
#include "core/log.h"
#include "core/units.h"
#include "fleet/fleet.h"
#include "runjson/runjson.h"

#define MAX_SLOWEST 64

static void usage(FILE *to)
{
    fprintf(to,
            "usage: nvscale check RUN.json [MORE.json ...] [--rules FILE] [--baseline BASE.json] [thresholds...]\n"
            "                     [--save-baseline OUT.json] [--format table|json] [--junit FILE]\n"
            "                     [--prometheus FILE] [--fleet-max-below PCT]\n"
            "Acceptance test of a run: one verdict row per threshold, exit 0 when all pass (or warn, or are\n"
            "skipped: not checked), 3 when any fails, 2 on bad input, 1 on a runtime error. Several runs (from\n"
            "different hosts): every rule for each, and the fleet view: each shared measurement against the runs'\n"
            "median, the host more than PCT%% below it named. A RUN.json, BASE.json or rules FILE of '-' is read\n"
            "from standard input (one of them).\n"
            "Thresholds (repeatable; each is one line of the rules file, see docs/check.md and docs/accept.md):\n"
            "      --rules FILE                 rules file (first line 'nvscale-rules 1')\n"
            "      --min-busbw COLL:SIZE:N:GBPS  e.g. all_reduce:1G:2:300 (N may be * = every N >= 2, or max)\n"
            "      --max-below-baseline PCT     every collective, size and N >= 2 of --baseline: at most PCT %%\n"
            "                                   below it (5 or 5%%)\n"
            "      --min-p2p GBPS               every ordered GPU pair: unidirectional copy bandwidth\n"
            "      --min-efficiency F|PCT       training step scaling efficiency at every N >= 2 (0.9 or 90%%)\n"
            "      --baseline BASE.json         run.json (or saved baseline) that below_baseline compares with\n"
            "      --save-baseline OUT.json     write a baseline (trimmed copy of RUN.json) atomically\n"
            "      --format table|json          what stdout shows (default table)\n"
            "      --junit FILE                 the verdicts as JUnit XML (one testcase per check)\n"
            "      --prometheus FILE            the verdicts in Prometheus text format (textfile collector)\n"
            "      --fleet-max-below PCT        several runs: how far below the fleet median a run may be, in %%\n"
            "                                   (10 or 10%%; default 10)\n"
            "  -h, --help\n");
}

/* a usage error: one message and the help hint (cli_common.h) */
#define usage_error(...) nvs_cli_usage("check", __VA_ARGS__)

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
    if (nvs_rule_parse_line(line, &r, err, sizeof err)) return usage_error("%s '%s': %s", flag, value, err);
    snprintf(r.source, sizeof r.source, "%s %s", flag, value);
    r.line = 0;
    const nvs_rule *same = nvs_ruleset_same_check(rs, &r);
    if (same) {
        char where[300];
        nvs_rule_where(same, where, sizeof where);
        return usage_error("%s '%s': the same check as %s ('%s'): one threshold per check and severity", flag, value,
                           where, same->text);
    }
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

/* The runs to check that take standard input ("-", /dev/stdin), found before any option is acted on:
 * --rules is read as it is parsed, before the runs are looked at, and read a piped run as rules (a rules-header
 * error) where standard input given twice is meant. Set by stdin_runs. */
static const char *stdin_run_path, *stdin_run_what;
static char stdin_run_what_buf[32];

static int add_rules_file(nvs_ruleset *rs, const char *path)
{
    int rc = nvs_cli_stdin_once("check", "--rules", path); /* "-": standard input, once */
    /* a run takes it too: refused now, naming both as the runs' turn would, before the rules read it */
    if (!rc && stdin_run_path && nvs_input_is_stdin(path))
        rc = nvs_cli_stdin_once("check", stdin_run_what, stdin_run_path);
    return rc ? rc : nvs_cli_rules_load("check", path, rs);
}

enum { O_RULES = 1000, O_BASELINE, O_MIN_BUSBW, O_MAX_BELOW, O_MIN_P2P, O_MIN_EFF, O_SAVE, O_FORMAT, O_JUNIT, O_PROM,
       O_FLEET };
static const struct option opts[] = {
    {"rules", required_argument, 0, O_RULES},
    {"baseline", required_argument, 0, O_BASELINE},
    {"min-busbw", required_argument, 0, O_MIN_BUSBW},
    {"max-below-baseline", required_argument, 0, O_MAX_BELOW},
    {"min-p2p", required_argument, 0, O_MIN_P2P},
    {"min-efficiency", required_argument, 0, O_MIN_EFF},
    {"save-baseline", required_argument, 0, O_SAVE},
    {"format", required_argument, 0, O_FORMAT},
    {"junit", required_argument, 0, O_JUNIT},
    {"prometheus", required_argument, 0, O_PROM},
    {"fleet-max-below", required_argument, 0, O_FLEET},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

static void stdin_runs(int argc, char **argv)
{
    char **copy = malloc(((size_t)argc + 1) * sizeof *copy); /* getopt reorders what it scans */
    stdin_run_path = stdin_run_what = NULL;
    if (!copy) return; /* then only the runs' own turn refuses a second standard input */
    memcpy(copy, argv, (size_t)argc * sizeof *copy);
    copy[argc] = NULL;
    optind = 1;
    opterr = 0;
    while (getopt_long(argc, copy, ":h", opts, NULL) != -1) {
    }
    int nruns = argc - optind;
    for (int i = optind; i < argc && !stdin_run_path; i++)
        if (nvs_input_is_stdin(copy[i])) {
            stdin_run_path = copy[i];
            snprintf(stdin_run_what_buf, sizeof stdin_run_what_buf, "RUN.json %d", i - optind + 1);
            stdin_run_what = nruns > 1 ? stdin_run_what_buf : "RUN.json";
        }
    free(copy);
}

int cmd_check(int argc, char **argv)
{
    nvs_ruleset rs = {0};
    const char *base_path = NULL, *save_path = NULL, *junit = NULL, *prom = NULL, *format = NULL, *fleet = NULL;
    double fleet_pct = NVS_FLEET_MAX_BELOW_PCT;
    int json = 0, rc = 0;
    char desc[1024] = "";
    /* every file named, for nvs_cli_files_distinct: each takes an argument, so there are fewer than argc */
    nvs_cli_file *files = calloc((size_t)argc, sizeof *files);
    size_t nfiles = 0;
    if (!files) {
        fprintf(stderr, "nvscale check: out of memory\n");
        return 1;
    }
#define ADD_FILE(w, p, out) (files[nfiles++] = (nvs_cli_file){(w), (p), (out)})

    stdin_runs(argc, argv);
    optind = 1;
    opterr = 0;
    for (;;) {
        int at = optind, opt = getopt_long(argc, argv, ":h", opts, NULL);
        if (opt == -1) break;
        const char *a = optarg;
        size_t before = rs.n;
        switch (opt) {
        case O_RULES:
            if ((rc = add_rules_file(&rs, a))) goto out;
            ADD_FILE("--rules", a, 0);
            snprintf(desc + strlen(desc), sizeof desc - strlen(desc), "%s%s (%zu rules)", desc[0] ? ", " : "",
                     nvs_input_name(a), rs.n - before);
            continue;
        case O_BASELINE:
            if (base_path) {
                rc = usage_error("--baseline given twice ('%s' and '%s')", base_path, a);
                goto out;
            }
            base_path = a;
            if ((rc = nvs_cli_stdin_once("check", "--baseline", a))) goto out;
            ADD_FILE("--baseline", a, 0);
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
            /* as --junit's: a path that cannot be written is refused before any run is read (it was the writer's
             * "nvscale: error: cannot write ...", after the work, naming neither the flag nor check) */
            if ((rc = nvs_cli_output_file_ok("check", "--save-baseline", a, NULL))) goto out;
            save_path = a;
            ADD_FILE("--save-baseline", a, 1);
            continue;
        case O_FORMAT:
            if (format) {
                rc = usage_error("--format given twice ('%s' and '%s')", format, a);
                goto out;
            }
            format = a;
            if (!strcasecmp(a, "table")) json = 0;
            else if (!strcasecmp(a, "json")) json = 1;
            else {
                rc = usage_error("invalid value '%s' for --format: expected table or json%s", a, "");
                goto out;
            }
            continue;
        case O_JUNIT:
        case O_PROM:
            if ((rc = nvs_cli_output_file_ok("check", opt == O_JUNIT ? "--junit" : "--prometheus", a,
                                             opt == O_JUNIT ? junit : prom)))
                goto out;
            *(opt == O_JUNIT ? &junit : &prom) = a;
            ADD_FILE(opt == O_JUNIT ? "--junit" : "--prometheus", a, 1);
            continue;
        case O_FLEET:
            if (fleet) {
                rc = usage_error("--fleet-max-below given twice ('%s' and '%s')", fleet, a);
                goto out;
            }
            fleet = a;
            if (nvs_parse_percent(a, &fleet_pct) || !(fleet_pct >= 0 && fleet_pct < 100)) {
                rc = usage_error("invalid value '%s' for --fleet-max-below: expected a percent in [0, 100)%s", a, "");
                goto out;
            }
            continue;
        case 'h':
            usage(stdout);
            goto out;
        case ':':
        default: {
            char shown[64];
            nvs_cli_bad_option(argv, at, shown, sizeof shown);
            char why[160];
            if (opt == ':') rc = usage_error("option %s needs a value", shown);
            else if (nvs_cli_value_on_flag(argv, opts, why, sizeof why)) rc = usage_error("%s", why);
            else rc = usage_error("unknown option '%s'", shown);
            goto out;
        }
        }
        if (rc) goto out;
        snprintf(desc + strlen(desc), sizeof desc - strlen(desc), "%s%s", desc[0] ? ", " : "", rs.v[rs.n - 1].source);
    }
    if (optind >= argc) {
        rc = usage_error("missing RUN.json (the run to check)%s%s", "", "");
        goto out;
    }
    int nruns = argc - optind;
    char **paths = argv + optind;
    const char *run_path = paths[0];
    if (nruns > 1 && (base_path || save_path)) {
        rc = usage_error("--baseline and --save-baseline take one RUN.json; %s were given (a fleet is compared with "
                         "its own median)", nruns == 2 ? "two" : "several");
        goto out;
    }
    if (fleet && nruns == 1) {
        rc = usage_error("--fleet-max-below %s: the fleet view needs several runs; one was given", fleet);
        goto out;
    }
    if (!rs.n && !save_path && nruns == 1) {
        rc = usage_error("nothing to check: give --rules FILE or a threshold (--min-busbw, --min-p2p, "
                         "--min-efficiency, --max-below-baseline), or several runs for the fleet view%s%s", "", "");
        goto out;
    }
    for (size_t i = 0; i < rs.n; i++)
        if (rs.v[i].has_below && !base_path) {
            char where[300];
            nvs_rule_where(&rs.v[i], where, sizeof where);
            rc = usage_error("%s: below_baseline needs --baseline FILE%s", where, "");
            goto out;
        }
    if (base_path && !nvs_ruleset_needs_baseline(&rs)) {
        rc = usage_error("--baseline %s: no rule compares with it (add --max-below-baseline PCT or a "
                         "below_baseline<= rule)%s", base_path, "");
        goto out;
    }
    for (int i = 0; i < nruns; i++) {
        char what[32];
        snprintf(what, sizeof what, "RUN.json %d", i + 1);
        if ((rc = nvs_cli_stdin_once("check", nruns > 1 ? what : "RUN.json", paths[i]))) goto out;
        ADD_FILE("the run", paths[i], 0);
    }
#undef ADD_FILE
    /* before anything is loaded or written: the outputs are written last, over whatever they name; the write
     * failure hook of the tests is refused as run's is (it was not read here: a bad value went unnoticed) */
    if (nvs_cli_write_fail_env_ok("check")) {
        rc = 2;
        goto out;
    }
    if ((rc = nvs_cli_files_distinct("check", files, nfiles)) ||
        (rc = nvs_cli_inputs_distinct("check", paths, (size_t)nruns, NVS_CLI_RUNS_ONCE)))
        goto out;

    /* every file read and validated before anything is judged: a bad one is exit 2 with nothing printed */
    nvs_run *runs = calloc((size_t)nruns, sizeof *runs);
    const nvs_run **dp = calloc((size_t)nruns, sizeof *dp);
    nvs_run base;
    memset(&base, 0, sizeof base);
    nvs_verdicts vs = {0};
    int loaded = 0;
    nvs_result_t res = runs && dp ? NVS_OK : NVS_ERR_NOMEM;
    nvs_cli_reading rd = nvs_cli_read_begin("check"); /* a missing or malformed run.json: check's refusal */
    for (; loaded < nruns && res == NVS_OK; loaded++) {
        if ((res = nvs_check_load_run(paths[loaded], &runs[loaded])) != NVS_OK) break;
        dp[loaded] = &runs[loaded];
    }
    if (res == NVS_OK && base_path) res = nvs_check_load_run(base_path, &base);
    nvs_cli_read_end(rd);
    if (res != NVS_OK) {
        rc = nvs_exit_code(res);
        goto done;
    }
    /* a copy of a run under another name is that run twice, as the same file is (above) */
    if ((rc = nvs_cli_runs_distinct("check", runs, (size_t)nruns, NVS_CLI_RUNS_ONCE))) goto done;

    if (save_path) {
        if (!runs[0].result_status || strcmp(runs[0].result_status, "ok")) {
            fprintf(stderr, "nvscale check: --save-baseline: %s has result status '%s': a baseline must come from a "
                            "run that finished with correct results\n", nvs_input_name(run_path),
                    runs[0].result_status ? runs[0].result_status : "none");
            rc = 2;
            goto done;
        }
        if ((res = nvs_baseline_save(&runs[0], save_path)) != NVS_OK) {
            rc = nvs_exit_code(res);
            goto done;
        }
        fprintf(stderr, "nvscale check: baseline written to %s\n", save_path);
        if (!rs.n) goto done;
    }

    int bad = 0;
    for (int i = 0; i < nruns && !bad; i++) {
        size_t first = vs.n;
        bad = nvs_check_eval(&rs, &runs[i], base_path ? &base : NULL, &vs) ||
              nvs_check_eval_accept(&rs, runs[i].root, &vs) ||
              (base_path && nvs_check_eval_machine(&runs[i], &base, &vs));
        char label[136];
        if (nruns > 1) nvs_check_run_label(dp, (size_t)nruns, (size_t)i, label, sizeof label);
        for (size_t k = first; nruns > 1 && !bad && k < vs.n; k++) { /* which run each row is about */
            char m[sizeof vs.v[k].metric];
            snprintf(m, sizeof m, "%s: %.*s", label, (int)(sizeof m - 3 - strlen(label)), vs.v[k].metric);
            memcpy(vs.v[k].metric, m, sizeof m);
            /* a row that blames no host (run result, efficiency) is still one host's: its host label, so that
             * the JSON, JUnit and Prometheus rows of a fleet can be told apart and selected by host */
            if (!vs.v[k].host[0]) /* a multi-host run's row: all of its hosts, not rank 0's */
                nvs_fleet_hosts_of(&runs[i], NULL, 0, vs.v[k].host, sizeof vs.v[k].host);
        }
    }
    if (!bad && nruns > 1) bad = nvs_check_eval_fleet(dp, (size_t)nruns, fleet_pct, &vs);
    if (bad) {
        fprintf(stderr, "nvscale check: out of memory\n");
        rc = 1;
        goto done;
    }
    if (base_path)
        for (size_t k = 0; k < vs.n; k++)
            if (!strcmp(vs.v[k].kind, "baseline"))
                nvs_warn("%s and %s are not the same kind of machine: %s", base_path,
                        run_path, vs.v[k].note);
    char title[64];
    snprintf(title, sizeof title, nruns > 1 ? "nvscale check (%d runs, the first)" : "nvscale check", nruns);
    nvs_slowest_rank slowest[MAX_SLOWEST];
    nvs_check_report rep = {
        .title = title,
        .run = &runs[0],
        .runs = dp,
        .nruns = (size_t)nruns,
        .base = base_path ? &base : NULL,
        .rules_desc = desc[0] ? desc : "(none: the fleet view only)",
        .verdicts = &vs,
        .slowest = slowest,
        .nslowest = nvs_check_slowest_ranks(&runs[0], slowest, MAX_SLOWEST),
        .slowest_pair = nvs_check_slowest_pair(&runs[0]),
    };
    nvs_export_info info = {"nvscale check", run_path, rep.rules_desc, runs[0].started_utc, runs[0].host,
                            isnan(runs[0].duration_s) ? -1 : runs[0].duration_s};
    size_t nhosts = 0;
    const char **hosts = nruns == 1 ? nvs_export_run_hosts(&runs[0], &nhosts)
                                    : nvs_export_fleet_hosts(dp, (size_t)nruns, &nhosts);
    if (nruns == 1) nvs_export_set_hosts(&info, &runs[0], hosts, nhosts);
    if (nruns > 1) { /* the fleet's header: when its first run started; every host of every run once (a run over
                      * several hosts has a testcase per run, labelled by rank 0's host) */
        info.runs = (const char *const *)paths;
        info.nruns = (size_t)nruns;
        info.hostname = NULL;
        info.hosts = hosts;
        info.nhosts = nhosts;
        info.duration_s = -1;
        info.timestamp = NULL;
        for (int i = 0; i < nruns; i++) /* ISO 8601 UTC, one format: the earliest sorts first */
            if (runs[i].started_utc && (!info.timestamp || strcmp(runs[i].started_utc, info.timestamp) < 0))
                info.timestamp = runs[i].started_utc;
    }
    /* both or neither; a FAIL stays exit 3 (the message says what was not written) */
    nvs_cli_export ex[] = {{junit, nvs_check_print_junit}, {prom, nvs_check_print_prometheus}};
    int wrc = nvs_cli_write_exports("check", ex, 2, &info, &vs);
    free(hosts);
    /* the exports before stdout: the JSON's exit_code is the one the process returns (a --junit that could not
     * be written was exit 1 under "exit_code": 0) */
    rc = nvs_check_exit_code(&rep);
    if (!rc) rc = wrc;
    rep.exit_code = rc;
    res = json ? nvs_check_print_json(stdout, NULL, &rep) : nvs_check_print_table(stdout, &rep);
    if (res != NVS_OK) rc = nvs_exit_code(res);
done:
    nvs_verdicts_free(&vs);
    for (int i = 0; i < loaded && runs; i++) nvs_run_free(&runs[i]);
    free(runs);
    free(dp);
    nvs_run_free(&base);
out:
    nvs_ruleset_free(&rs);
    free(files);
    return rc;
}
