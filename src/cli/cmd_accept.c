/* nvscale accept [--level 1|2|3] [--rules FILE]: one launch measures what the level names (run/run_flow.c with
 * the phases of core/config.h NVS_PHASE_*), writes one run.json, and the run is judged by check's evaluation
 * (built-in rules derived from the topology's bounds, or the rules files given) into ONE verdict table; JSON,
 * JUnit and Prometheus copies of the verdicts on request. Exit 0 every check PASS, WARN or SKIP, 3 any FAIL (or wrong
 * results), 2 bad input, 1 runtime error, 130 interrupted (no verdict). docs/accept.md. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/accept_rules.h"
#include "check/check_accept.h"
#include "check/check_eval.h"
#include "check/check_export.h"
#include "check/check_out.h"
#include "check/check_load.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "collectives/backend.h"
#include "collectives/coll.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/out_file.h"
#include "core/units.h"
#include "run/run_flow.h"
#include "runjson/runjson_write.h"

#define MAX_SLOWEST 64
#define DEFAULT_SUSTAIN_S 120.0 /* "minutes" of load at level 3: two, long enough for a GPU to heat up */
#define DEFAULT_SUSTAIN_HOST_S 10.0 /* the host backend (no GPU): nothing heats up, a CI box finishes in seconds */

typedef struct {
    int level;
    nvs_ruleset rules; /* from --rules files; empty: the built-in ones */
    char rules_desc[512];
    const char *junit, *prometheus;
    int json;
    int print_rules;
    int expect_gpus; /* --expect-gpus N; 0: not given */
    int host_asked;  /* --backend mpi: a host without GPUs is what the user accepts */
} accept_opts;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: nvscale accept [--level 1|2|3] [--rules FILE]... [--junit FILE] [--prometheus FILE]\n"
            "                      [--format table|json] [--out DIR | --no-save] [--backend nccl|mpi]\n"
            "                      [--expect-gpus N] [--sustain S] [--timeout S] [--print-rules] [-q | -v]\n"
            "Acceptance test of this machine (or every host under mpirun) in one launch, one verdict table.\n"
            "  --level 1          topology and GPU health through NVML (seconds)\n"
            "  --level 2          + a self-test of every GPU (memory bandwidth, bf16 GEMM, both validated),\n"
            "                     copies between GPUs and with host memory, all_reduce and all_gather at\n"
            "                     1 MiB .. 1 GiB, a short training step (default; about 10 s on 1-2 H200s)\n"
            "  --level 3          + every collective over the full sweep, the default training workloads, a GEMM\n"
            "                     burn on every GPU at once and a sustained all_reduce load (--sustain S each,\n"
            "                     default %.0f) with clocks sampled\n"
            "                     On the host backend (no GPU) levels 2 and 3 are sized for seconds: sizes up\n"
            "                     to 16 MiB, resnet50 alone at the host's steps, --sustain default %.0f\n"
            "  --expect-gpus N    each host must show N GPUs (default 1: a host where no GPU is usable fails;\n"
            "                     --backend mpi accepts the host backend on a machine without GPUs)\n"
            "  --rules FILE       judge with these rules instead of the built-in ones (docs/check.md, docs/accept.md)\n"
            "  --print-rules      print the level's built-in rules (a rules file to start from) and exit\n"
            "  --junit FILE       the verdicts as JUnit XML (one testcase per check)\n"
            "  --prometheus FILE  the verdicts in Prometheus text format (node_exporter's textfile collector)\n"
            "  --format table|json  what stdout shows (default table)\n"
            "  --out DIR          results directory (default results/<date>-<time>-accept); --no-save: none\n"
            "  --backend, --timeout, -q, -v, -h: as for nvscale run\n"
            "Exit 0: every check PASS, WARN or SKIP (not checked: read the skipped rows); 3: a check failed;\n"
            "2: bad input; 1: runtime error; 130: interrupted\n"
            "(Ctrl-C, SIGTERM: no verdict, what was measured is kept; under mpirun, mpirun's own status).\n",
            DEFAULT_SUSTAIN_S, DEFAULT_SUSTAIN_HOST_S);
}

/* a usage error: one message and the help hint (cli_common.h) */
#define bad(...) nvs_cli_usage("accept", __VA_ARGS__)

enum { O_LEVEL = 1000, O_RULES, O_JUNIT, O_PROM, O_FORMAT, O_OUT, O_NO_SAVE, O_BACKEND, O_SUSTAIN, O_TIMEOUT, O_PRINT,
       O_EXPECT };
static const struct option opts[] = {
    {"level", required_argument, 0, O_LEVEL},     {"rules", required_argument, 0, O_RULES},
    {"junit", required_argument, 0, O_JUNIT},     {"prometheus", required_argument, 0, O_PROM},
    {"format", required_argument, 0, O_FORMAT},   {"out", required_argument, 0, O_OUT},
    {"no-save", no_argument, 0, O_NO_SAVE},       {"backend", required_argument, 0, O_BACKEND},
    {"sustain", required_argument, 0, O_SUSTAIN}, {"timeout", required_argument, 0, O_TIMEOUT},
    {"print-rules", no_argument, 0, O_PRINT},     {"expect-gpus", required_argument, 0, O_EXPECT},
    {"quiet", no_argument, 0, 'q'},
    {"verbose", no_argument, 0, 'v'},             {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* --expect-gpus beside --rules FILE: the flag is one more rule, refused when a file sets the same one */
static int expect_rule(accept_opts *o)
{
    char text[64], err[256], where[300];
    nvs_rule r;
    snprintf(text, sizeof text, "gpus per_host min=%d", o->expect_gpus);
    if (nvs_rule_parse_line(text, &r, err, sizeof err)) return bad("--expect-gpus %d: %s", o->expect_gpus, err);
    snprintf(r.source, sizeof r.source, "--expect-gpus %d", o->expect_gpus);
    const nvs_rule *same = nvs_ruleset_same_check(&o->rules, &r);
    if (same) {
        nvs_rule_where(same, where, sizeof where);
        return bad("--expect-gpus %d and %s ('%s') set the same check", o->expect_gpus, where, same->text);
    }
    if (nvs_ruleset_add(&o->rules, &r)) {
        fprintf(stderr, "nvscale accept: out of memory\n");
        return 1;
    }
    snprintf(o->rules_desc + strlen(o->rules_desc), sizeof o->rules_desc - strlen(o->rules_desc), ", %s", r.source);
    return 0;
}

static int parse_flags(int argc, char **argv, nvs_config *cfg, accept_opts *o, nvs_cli_file *files, size_t *nfiles)
{
    optind = 1;
    opterr = 0;
    int quiet = 0, verbose = 0, c, li = -1, rc;
    unsigned char given[sizeof opts / sizeof opts[0]] = {0};
    for (int at = optind; (c = getopt_long(argc, argv, ":qvh", opts, &li)) != -1; at = optind, li = -1) {
        const char *a = optarg;
        double d;
        char shown[64];
        /* every option once (a second value would silently replace the first), except --rules (several files) and
         * -v (-vv) */
        for (size_t i = 0; opts[i].name; i++)
            if (opts[i].val == c && given[i]++ && c != O_RULES && c != 'v') {
                if (li >= 0) snprintf(shown, sizeof shown, "--%s", opts[li].name);
                else snprintf(shown, sizeof shown, "-%c", c);
                return bad("option %s given twice", shown);
            }
        switch (c) {
        case O_LEVEL:
            if (strcmp(a, "1") && strcmp(a, "2") && strcmp(a, "3"))
                return bad("invalid value '%s' for --level: expected 1, 2 or 3", a);
            o->level = a[0] - '0';
            break;
        case O_RULES: {
            size_t before = o->rules.n;
            /* check's --rules takes "-"; accept's is read by every rank of a launch, and mpirun gives standard
             * input to one of them only: "-", and a pipe through /dev/stdin (rank 1 read /dev/null: "empty") */
            if ((rc = nvs_cli_stdin_refused("accept", "--rules", a, "every rank of a launch reads it, and mpirun "
                                                                    "gives standard input to one rank only")))
                return rc;
            rc = nvs_cli_rules_load("accept", a, &o->rules);
            if (rc) return rc;
            /* accept judges its run alone: a below_baseline rule could only fail "needs a baseline", and only once
             * the whole level was measured */
            for (size_t i = before; i < o->rules.n; i++)
                if (o->rules.v[i].has_below) {
                    char where[300];
                    nvs_rule_where(&o->rules.v[i], where, sizeof where);
                    return bad("%s: below_baseline needs a baseline, which accept does not take ('%s'; judge the "
                               "run with it afterwards: nvscale check RUN.json --rules FILE --baseline BASE.json)",
                               where, o->rules.v[i].text);
                }
            files[(*nfiles)++] = (nvs_cli_file){"--rules", a, 0};
            snprintf(o->rules_desc + strlen(o->rules_desc), sizeof o->rules_desc - strlen(o->rules_desc), "%s%s",
                     o->rules_desc[0] ? ", " : "", a);
            break;
        }
        case O_JUNIT:
            if (nvs_cli_output_file_ok("accept", "--junit", a, o->junit)) return 2;
            o->junit = a;
            files[(*nfiles)++] = (nvs_cli_file){"--junit", a, 1};
            break;
        case O_PROM:
            if (nvs_cli_output_file_ok("accept", "--prometheus", a, o->prometheus)) return 2;
            o->prometheus = a;
            files[(*nfiles)++] = (nvs_cli_file){"--prometheus", a, 1};
            break;
        case O_FORMAT:
            if (!strcasecmp(a, "json")) o->json = 1;
            else if (!strcasecmp(a, "table")) o->json = 0;
            else return bad("invalid value '%s' for --format: expected table or json", a);
            break;
        case O_OUT: {
            const char *dash = nvs_out_dash_why(a, 1);
            if (!*a || strlen(a) >= sizeof cfg->out_dir - 64)
                return bad("invalid value '%s' for --out: expected a directory path", a);
            if (dash) return bad("invalid value '%s' for --out: %s", a, dash);
            snprintf(cfg->out_dir, sizeof cfg->out_dir, "%s", a);
            /* "runs/x/" names the directory runs/x, as for the measuring commands (options_general.c) */
            for (size_t l = strlen(cfg->out_dir); l > 1 && cfg->out_dir[l - 1] == '/'; l--) cfg->out_dir[l - 1] = '\0';
            break;
        }
        case O_NO_SAVE: cfg->save = 0; break;
        case O_BACKEND:
            if (!strcasecmp(a, "nccl")) cfg->backend = NVS_BACKEND_NCCL;
            else if (!strcasecmp(a, "mpi")) cfg->backend = NVS_BACKEND_MPI;
            else return bad("invalid value '%s' for --backend: expected nccl or mpi", a);
            cfg->backend_explicit = 1;
            break;
        case O_SUSTAIN:
            if (nvs_parse_double(a, &d) || !(d >= 1 && d <= 86400))
                return bad("invalid value '%s' for --sustain: expected seconds in [1, 86400]", a);
            cfg->sustain_s = d;
            break;
        case O_TIMEOUT:
            /* the same range as the measuring commands' --timeout (options_general.c) */
            if (nvs_parse_double(a, &d) || !(d >= 1 && d <= 86400))
                return bad("invalid value '%s' for --timeout: expected seconds from 1 to 86400", a);
            cfg->timeout_s = d;
            break;
        case O_PRINT: o->print_rules = 1; break;
        case O_EXPECT: {
            long n;
            if (nvs_parse_long(a, &n) || n < 1 || n > NVS_RULE_GPUS_MAX)
                return bad("invalid value '%s' for --expect-gpus: expected a GPU count from 1 to %d", a,
                           NVS_RULE_GPUS_MAX);
            o->expect_gpus = (int)n;
            break;
        }
        case 'q': quiet = 1; break;
        case 'v': verbose++; break;
        case 'h': usage(stdout); return -1;
        case ':': return bad("option %s needs a value", nvs_cli_bad_option(argv, at, shown, sizeof shown));
        default: {
            char why[160];
            if (nvs_cli_value_on_flag(argv, opts, why, sizeof why)) return bad("%s", why);
            return bad("unknown option '%s'", nvs_cli_bad_option(argv, at, shown, sizeof shown));
        }
        }
    }
    if (optind < argc)
        return bad("unexpected argument '%s' (accept measures this machine; nvscale check judges a run.json)",
                   argv[optind]);
    /* the printed rules depend on the level and the GPU count alone: any other flag would be silently ignored */
    for (size_t i = 0; o->print_rules && opts[i].name; i++)
        if (given[i] && opts[i].val != O_PRINT && opts[i].val != O_LEVEL && opts[i].val != O_EXPECT)
            return bad("--print-rules with --%s: it takes only --level and --expect-gpus", opts[i].name);
    o->host_asked = cfg->backend_explicit && cfg->backend == NVS_BACKEND_MPI;
    if (o->host_asked && o->expect_gpus)
        return bad("--expect-gpus %d with --backend mpi: the host backend runs on no GPU", o->expect_gpus);
    if (o->expect_gpus && o->rules.n && (rc = expect_rule(o))) return rc;
    if (nvs_cli_excludes_check("accept", opts, given)) return 2; /* -q with -v, --out with --no-save */
    if (cfg->sustain_s > 0 && o->level != 3) return bad("%s", "--sustain is for --level 3 (the sustained-load phase)");
    cfg->quiet = quiet;
    cfg->verbose = verbose;
    /* before anything is measured: the outputs are written after the run, over whatever they name */
    return nvs_cli_files_distinct("accept", files, *nfiles);
}

/* The flags, and the files they name checked against each other (each file takes an argument: fewer than argc). */
static int parse(int argc, char **argv, nvs_config *cfg, accept_opts *o)
{
    nvs_cli_file *files = calloc((size_t)argc, sizeof *files);
    size_t nfiles = 0;
    if (!files) {
        fprintf(stderr, "nvscale accept: out of memory\n");
        return 1;
    }
    int rc = parse_flags(argc, argv, cfg, o, files, &nfiles);
    free(files);
    /* the test hooks as run and coll read them (NVS_TEST_CORRUPT: wrong results, tests/t/accept_exit_code.sh),
     * refused as accept's (level_config names the subcommand again for the run) */
    cfg->subcommand = "accept";
    if (!rc && nvs_cli_test_hooks_env(cfg) != NVS_OK) return 2;
    return rc;
}

/* What each level measures (the run flow's switches). `gpu`: a GPU will run (else the MPI host backend, sized to
 * finish in seconds on a small CI box). */
static void level_config(nvs_config *cfg, int level, int gpu)
{
    cfg->subcommand = "accept";
    cfg->phases = NVS_PHASE_HEALTH;
    cfg->sizes_explicit = 1;
    cfg->colls_explicit = 1;
    if (level == 1) {
        cfg->phases |= NVS_PHASE_NO_SWEEP;
        cfg->no_train = 1;
        return;
    }
    cfg->phases |= NVS_PHASE_SELFTEST | NVS_PHASE_P2P | NVS_PHASE_H2D;
    if (level == 2) {
        /* the sizes the default rules look at (1 GiB) and a few on the way: 1, 4, 16, 64, 256 MiB, 1 GiB */
        cfg->colls_mask = 1u << nvs_coll_index(&nvs_coll_all_reduce) | 1u << nvs_coll_index(&nvs_coll_all_gather);
        cfg->inplace_mask = NVS_INPLACE_OUT;
        cfg->min_bytes = (size_t)1 << 20;
        cfg->max_bytes = gpu ? (size_t)1 << 30 : (size_t)16 << 20;
        cfg->step_factor = 4;
        snprintf(cfg->model, sizeof cfg->model, "resnet50");
        if (gpu) {
            cfg->steps = 10;
            cfg->warmup_steps = 3;
            cfg->steps_explicit = cfg->warmup_steps_explicit = 1;
        }
        cfg->copy_bytes = (size_t)256 << 20;
        return;
    }
    /* level 3: everything, then minutes of load */
    cfg->colls_mask = (1u << nvs_coll_count()) - 1;
    cfg->min_bytes = 8;
    cfg->max_bytes = gpu ? (size_t)1 << 30 : (size_t)16 << 20;
    cfg->step_factor = gpu ? 2 : 4;
    snprintf(cfg->model, sizeof cfg->model, "%s", gpu ? "bert-large,resnet50" : "resnet50");
    cfg->phases |= NVS_PHASE_SUSTAIN | NVS_PHASE_BURN;
    if (cfg->sustain_s <= 0) cfg->sustain_s = gpu ? DEFAULT_SUSTAIN_S : DEFAULT_SUSTAIN_HOST_S;
}

static int has_items(const json_t *o, const char *k) { return json_array_size(json_object_get(o, k)) > 0; }

static nvs_accept_facts facts_of(const json_t *root, int level)
{
    nvs_accept_facts f = {.level = level};
    const json_t *cmd = json_object_get(root, "command"), *p2p = json_object_get(root, "p2p");
    const char *backend = json_string_value(json_object_get(cmd, "backend"));
    f.gpu = backend && !strcmp(backend, "nccl");
    f.health = has_items(json_object_get(root, "health"), "gpus");
    f.health_why = json_string_value(json_object_get(json_object_get(root, "health"), "source"));
    f.host_copies = has_items(json_object_get(p2p, "host_copies"), "gpus");
    f.p2p = has_items(p2p, "pairs");
    const json_t *ex = json_object_get(root, "explain");
    for (size_t i = 0; i < json_array_size(ex); i++)
        f.bounds |=
            json_is_number(json_object_get(json_object_get(json_array_get(ex, i), "slowest_hop"), "bound_gbps"));
    /* efficiency needs N >= 2: at one GPU it is 1 by definition */
    const json_t *res = json_object_get(json_object_get(root, "train"), "results");
    for (size_t i = 0; i < json_array_size(res); i++) {
        const json_t *n = json_object_get(json_array_get(res, i), "n");
        f.train |= json_is_integer(n) && json_integer_value(n) >= 2;
        f.train_one |= json_is_integer(n) && json_integer_value(n) == 1;
    }
    f.sustain = json_is_object(json_object_get(root, "sustain"));
    const json_t *st = json_object_get(root, "gpu_selftest");
    const char *st_skipped = json_string_value(json_object_get(st, "skipped"));
    f.selftest = has_items(st, "gpus") && !(st_skipped && *st_skipped);
    f.burn = f.selftest && json_is_number(json_object_get(st, "burn_s"));
    return f;
}

/* --no-save's directory, once judged: what is left behind in /tmp does not change the verdict, but is said */
static void remove_tmp(const char *tmp)
{
    if (nvs_remove_tree(tmp) != 0)
        fprintf(stderr, "nvscale accept: warning: could not remove --no-save's directory %s: %s\n", tmp,
                strerror(errno));
}

/* What was not measured and why, under the table: the hosts' own reasons. */
/* a string of the run for the terminal: escaped (core/escape.h), "?" when the key is absent or null (the loader
 * lets every one be: a NULL given to %s is undefined) */
static const char *term_str(const json_t *o, const char *key, char *buf, size_t len)
{
    const char *v = json_string_value(json_object_get(o, key));
    return nvs_esc_term(v ? v : "?", buf, len);
}

static void print_skipped(const json_t *root, FILE *to)
{
    const json_t *sk = json_object_get(json_object_get(root, "p2p"), "skipped");
    char what[NVS_ESC_SIZE(64)], host[NVS_ESC_SIZE(64)], why[NVS_ESC_SIZE(300)];
    for (size_t i = 0; i < json_array_size(sk); i++) {
        const json_t *s = json_array_get(sk, i);
        fprintf(to, "skipped: %s on host %s: %s\n", term_str(s, "what", what, sizeof what),
                term_str(s, "host", host, sizeof host), term_str(s, "why", why, sizeof why));
    }
    /* (GPU health read nowhere: its SKIP rows say so, with the reason, in the table) */
}

static void export_no_verdict(const accept_opts *o, nvs_result_t r, const char *dir);

/* Judges the run in dir/run.json and writes what was asked. Returns the exit code. Failing before a verdict, it
 * still writes --junit and --prometheus (export_no_verdict): the previous run's would otherwise stay beside this run.
 */
static int judge(const accept_opts *o, const char *dir, int run_wrong, int save_verdicts)
{
    char path[NVS_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/run.json", dir);
    nvs_run run;
    if (nvs_check_load_run(path, &run) != NVS_OK) { /* our own run.json: unreadable is a bug, not bad input */
        export_no_verdict(o, NVS_ERR_SYSTEM, dir);
        return 1;
    }
    /* --no-save: the run.json is removed once judged, so no output names it (stdout's first line, --format json's
     * "run", --junit's and --prometheus's run label named a /tmp path gone by the time anyone read it) */
    const char *shown = path;
    if (!save_verdicts) {
        char *label = strdup("(--no-save: not kept)");
        if (!label) {
            fprintf(stderr, "nvscale accept: out of memory\n");
            export_no_verdict(o, NVS_ERR_NOMEM, dir);
            nvs_run_free(&run);
            return 1;
        }
        free((char *)run.path);
        run.path = shown = label;
    }
    const json_t *root = run.root;
    nvs_accept_facts facts = facts_of(root, o->level);
    facts.gpus_min = o->host_asked ? 0 : o->expect_gpus ? o->expect_gpus : 1;
    nvs_ruleset builtin = {0};
    const nvs_ruleset *rules = &o->rules;
    char desc[600];
    int rc = 0;
    nvs_verdicts vs = {0};
    if (!o->rules.n) {
        char err[256];
        if (nvs_accept_default_rules(&facts, &builtin, err, sizeof err)) {
            fprintf(stderr, "nvscale accept: built-in rules: %s\n", err);
            export_no_verdict(o, NVS_ERR_SYSTEM, dir);
            rc = 1;
            goto out;
        }
        rules = &builtin;
        snprintf(desc, sizeof desc, "built-in level %d (%zu rules; nvscale accept --level %d --print-rules)", o->level,
                 builtin.n, o->level);
    } else
        snprintf(desc, sizeof desc, "%s", o->rules_desc);
    /* the built-in rules left out are SKIP rows: every output says what was not checked, not the table alone */
    size_t before_left_out = 0;
    if (nvs_check_eval(rules, &run, NULL, &vs) || nvs_check_eval_accept(rules, root, &vs) ||
        (before_left_out = vs.n, rules == &builtin && nvs_accept_skipped_verdicts(&facts, &vs))) {
        fprintf(stderr, "nvscale accept: out of memory\n");
        export_no_verdict(o, NVS_ERR_NOMEM, dir);
        rc = 1;
        goto out;
    }
    if (rules == &builtin && vs.n > before_left_out) /* "0 rules" read as if nothing were asked */
        snprintf(desc, sizeof desc, "built-in level %d (%zu rules apply to this run, %zu do not: SKIP; nvscale accept "
                 "--level %d --print-rules)", o->level, builtin.n, vs.n - before_left_out, o->level);
    /* wrong results are exit 3: the "run result" row says FAIL and why in every output, whatever run.json said */
    if (run_wrong && nvs_check_run_wrong(&vs)) {
        fprintf(stderr, "nvscale accept: out of memory\n");
        export_no_verdict(o, NVS_ERR_NOMEM, dir);
        rc = 1;
        goto out;
    }
    nvs_slowest_rank slowest[MAX_SLOWEST];
    nvs_check_report rep = {.title = "nvscale accept",
                            .run = &run,
                            .rules_desc = desc,
                            .verdicts = &vs,
                            .slowest = slowest,
                            .nslowest = nvs_check_slowest_ranks(&run, slowest, MAX_SLOWEST),
                            .slowest_pair = nvs_check_slowest_pair(&run)};
    nvs_export_info info = {"nvscale accept", shown, desc, run.started_utc, run.host,
                            isnan(run.duration_s) ? -1 : run.duration_s};
    size_t nhosts = 0;
    const char **hosts = nvs_export_run_hosts(&run, &nhosts);
    nvs_export_set_hosts(&info, &run, hosts, nhosts);
    /* the exports, then verdicts.json, then stdout: each JSON's exit_code is the one the process returns (a
     * --junit that could not be written was exit 1, and wrong results without a FAIL row exit 3, under
     * "exit_code": 0) */
    nvs_cli_export ex[] = {{o->junit, nvs_check_print_junit}, {o->prometheus, nvs_check_print_prometheus}};
    int erc = nvs_cli_write_exports("accept", ex, 2, &info, &vs); /* both or neither; a FAIL stays exit 3 */
    free(hosts);
    rep.exit_code = vs.failed || run_wrong ? 3 : erc;
    int wrc = 0;
    if (save_verdicts) { /* the verdicts beside the run they judge, whatever stdout showed */
        char vp[NVS_PATH_MAX + 32];
        snprintf(vp, sizeof vp, "%s/verdicts.json", dir);
        nvs_outfile vf;
        if (nvs_outfile_open(&vf, vp) != NVS_OK) wrc = 1;
        else if (nvs_check_print_json(vf.f, vp, &rep) != NVS_OK) {
            nvs_outfile_discard(&vf);
            wrc = 1;
        } else if (nvs_outfile_commit(&vf) != NVS_OK)
            wrc = 1;
    }
    if (wrc) rep.exit_code = 1;
    nvs_result_t pr = o->json ? nvs_check_print_json(stdout, NULL, &rep) : nvs_check_print_table(stdout, &rep);
    if (!o->json) print_skipped(root, stdout);
    rc = pr != NVS_OK ? 1 : rep.exit_code;
out:
    nvs_verdicts_free(&vs);
    nvs_ruleset_free(&builtin);
    nvs_run_free(&run);
    return rc;
}

/* The run ended without a verdict (Ctrl-C, a failure): --junit and --prometheus still get one, a FAIL row "run
 * result" saying why, rather than being left as they were: a node_exporter textfile collector would go on
 * reporting the previous run's PASS, and a CI job would read the last run's JUnit as this one's. The exit code
 * stays the run's; a file that cannot be written is said (nvs_cli_write_exports) and changes nothing else. */
static void export_no_verdict(const accept_opts *o, nvs_result_t r, const char *dir)
{
    /* bad input found by the run (exit 2) writes nothing, as every refusal; what did run and stopped writes */
    if ((!o->junit && !o->prometheus) || nvs_exit_code(r) == 2) return;
    char kept[NVS_PATH_MAX + 32], host[256] = "";
    struct stat st;
    snprintf(kept, sizeof kept, "%s/run.json", dir);
    if (stat(kept, &st) != 0) snprintf(kept, sizeof kept, "%s.partial/run.json", dir);
    int have = stat(kept, &st) == 0;
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    nvs_verdicts vs = {0};
    nvs_verdict *v = nvs_verdicts_add(&vs, "run");
    if (!v) {
        fprintf(stderr, "nvscale accept: out of memory: --junit/--prometheus not written\n");
        return;
    }
    snprintf(v->metric, sizeof v->metric, "run result");
    snprintf(v->measured, sizeof v->measured, "%s", r == NVS_ERR_INTERRUPTED ? "interrupted" : "failed");
    snprintf(v->expected, sizeof v->expected, "ok");
    snprintf(v->rule, sizeof v->rule, "(always)");
    /* the note's room is the row's; the file's path is whole in the run property */
    snprintf(v->note, sizeof v->note, "accept ended before a verdict (%s); %s", nvs_result_text(r),
             have ? "what was measured is in the run.json named by the run property" : "nothing was measured");
    snprintf(v->host, sizeof v->host, "%s", host);
    nvs_verdict_set(&vs, v, NVS_SEV_FAIL);
    nvs_export_info info = {"nvscale accept", have ? kept : "(none)", "(no verdict: the run did not end)", NULL,
                            host[0] ? host : NULL, -1};
    nvs_cli_export ex[] = {{o->junit, nvs_check_print_junit}, {o->prometheus, nvs_check_print_prometheus}};
    (void)nvs_cli_write_exports("accept", ex, 2, &info, &vs);
    nvs_verdicts_free(&vs);
}

int cmd_accept(int argc, char **argv)
{
    nvs_config *cfg = calloc(1, sizeof *cfg);
    accept_opts o = {.level = 2};
    if (!cfg) return 1;
    nvs_config_defaults(cfg);
    cfg->argc = argc;
    cfg->argv = argv;
    int rc = parse(argc, argv, cfg, &o);
    if (rc) {
        free(cfg);
        nvs_ruleset_free(&o.rules);
        return rc < 0 ? 0 : rc;
    }
    if (o.print_rules) {
        /* named fields: a positional list stopped one short when `burn` was added, and level 3's GEMM burn rule
         * came out as "# skipped (no GEMM burn in the run)" */
        nvs_accept_facts all = {.level = o.level, .gpu = 1, .health = 1, .host_copies = 1, .p2p = 1, .bounds = 1,
                                .train = 1, .sustain = 1, .selftest = 1, .burn = 1,
                                .gpus_min = o.expect_gpus ? o.expect_gpus : 1};
        char text[4096];
        rc = nvs_accept_rules_text(&all, text, sizeof text, NULL) < 0 ? 1 : fputs(text, stdout) == EOF;
        free(cfg);
        nvs_ruleset_free(&o.rules);
        return rc;
    }
    nvs_cli_set_verbosity(cfg->quiet, cfg->verbose);
    char why[256];
    int gpu = cfg->backend == NVS_BACKEND_MPI ? 0 : nvs_gpu_available(why, sizeof why);
    level_config(cfg, o.level, gpu);
    /* the verdicts need run.json: --no-save measures into a temporary directory, removed at the end */
    char tmp[64] = "";
    int lead = nvs_rt_launcher_rank() == 0;
    if (!cfg->save) {
        snprintf(tmp, sizeof tmp, "/tmp/nvscale-accept-XXXXXX");
        if (lead && !mkdtemp(tmp)) {
            fprintf(stderr, "nvscale accept: cannot make a temporary directory: %s\n", strerror(errno));
            free(cfg);
            nvs_ruleset_free(&o.rules);
            return 1;
        }
        /* a name inside it that does not exist yet: a run never writes into an existing directory */
        snprintf(cfg->out_dir, sizeof cfg->out_dir, "%s/run", tmp); /* rank 0's name reaches every rank (run_flow) */
        cfg->save = 1;
    } else if (!cfg->out_dir[0])
        nvs_rj_default_dir("accept", cfg->out_dir, sizeof cfg->out_dir);
    /* (--backend nccl without a GPU is not run on the host backend: the run refuses it, naming why) --no-save's
     * directory is named too: a run stopped by Ctrl-C or a failure keeps what it measured there (an
     * MPI job's ranks end inside the run, so that the directory cannot be removed after it) */
    if (lead && !cfg->quiet)
        fprintf(stderr, "nvscale accept: level %d%s; results in %s%s\n", o.level,
                gpu || cfg->backend == NVS_BACKEND_NCCL ? "" : " on the host backend (no GPU)", cfg->out_dir,
                tmp[0] ? " (--no-save: removed once judged)" : "");
    nvs_result_t r = nvs_run_measure(cfg);
    if (!lead) rc = nvs_exit_code(r);
    else if (r != NVS_OK && r != NVS_ERR_WRONG) {
        rc = nvs_exit_code(r); /* the run said what failed; there is nothing whole to judge */
        export_no_verdict(&o, r, cfg->out_dir);
    } else {
        rc = judge(&o, cfg->out_dir, r == NVS_ERR_WRONG, !tmp[0]);
        if (!tmp[0] && !cfg->quiet && !o.json) printf("results: %s/run.json\n", cfg->out_dir);
    }
    if (lead && tmp[0] && (r == NVS_OK || r == NVS_ERR_WRONG))
        remove_tmp(tmp);
    else if (lead && tmp[0]) { /* stopped before a verdict: what was measured stays, and where */
        char kept[sizeof cfg->out_dir + 32];
        struct stat st;
        snprintf(kept, sizeof kept, "%s/run.json", cfg->out_dir);
        if (stat(kept, &st) != 0) snprintf(kept, sizeof kept, "%s.partial/run.json", cfg->out_dir);
        if (stat(kept, &st) == 0)
            fprintf(stderr, "nvscale accept: no verdict (%s); what was measured is kept in %s (--no-save's "
                            "directory, not removed)\n", nvs_result_text(r), kept);
        else /* stopped before the run wrote anything (--backend nccl without a GPU, a start-up failure): naming
              * a run.json that is not there would send the user looking for it, and the empty directory would
              * stay in /tmp for nothing */
            remove_tmp(tmp);
    }
    free(cfg);
    nvs_ruleset_free(&o.rules);
    return rc;
}
