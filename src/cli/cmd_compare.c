/* nvscale compare --transports nvlink,pcie,shm,net [run options...] [--out DIR] [--report-only]
 *
 * One `nvscale run` child process per transport (NCCL caches NCCL_* per process), each with its environment and
 * its own run directory DIR/<transport>/; a transport this machine cannot do is skipped with the reason; the
 * transport NCCL really used is read back from each child's run.json; then DIR/compare.md puts them side by
 * side. Usage and the mpirun equivalent: docs/compare.md.
 *
 * The child program is this binary (/proc/self/exe), or NVS_COMPARE_CHILD when set: an executable that the
 * tests point at a fake nvscale (tests/fixtures/check/fake_nvscale), since the test machine has no GPU.
 *
 * Here: compare's options, their checks, and the order of the work; the child runs are started and read back in
 * cmd_compare_runs.c, the side-by-side output is cmd_compare_out.c, the mpirun commands cmd_compare_mpirun.c
 * (cmd_compare_priv.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_common.h"
#include "cli/cmd_compare_priv.h"
#include "cli/commands.h"
#include "compare/compare.h"
#include "core/config.h"
#include "core/interrupt.h"
#include "core/launch_env.h"
#include "core/log.h"
#include "core/out_file.h"
#include "runjson/runjson.h"
#include "runtime/runtime.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: nvscale compare [--transports LIST] [--out DIR] [--report-only] [run options...]\n"
            "Runs `nvscale run` once per transport, each in its own process and directory DIR/<transport>/,\n"
            "and writes DIR/compare.md with them side by side. A transport this machine cannot do is skipped\n"
            "with the reason; the transport NCCL really used is checked in each run's NCCL log.\n"
            "      --transports LIST   nvlink,pcie,shm,net or all (default all)\n"
            "                          nvlink, pcie: NCCL as it is (verified afterwards); shm: NCCL_P2P_DISABLE=1;\n"
            "                          net: NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1\n"
            "      --out DIR           where the runs and compare.md go (default results/<date>-<time>-compare)\n"
            "      --report-only       run nothing: compare DIR/<transport>/run.json written before (e.g. by the\n"
            "                          mpirun commands 'mpirun -np N nvscale compare' prints); needs --out DIR\n"
            "  -h, --help\n"
            "Every other option goes to `nvscale run` unchanged (-b, -e, -f, -n, --coll, --gpus, --model, ...;\n"
            "note that -o is run's reduction operation, as in nccl-tests: compare's directory is --out).\n"
            "Exit: 0 all ran as asked; 1 a run failed or nothing could run; 3 a run used another transport than\n"
            "asked; 2 bad usage; 130 compare was stopped (Ctrl-C, SIGTERM, SIGHUP): compare.md has what ran.\n");
}

/* once under a launcher, from its rank 0 (nvs_stderr_cmdline: the command line alone), as run's own usage errors: every
 * rank said it */
static int usage_error(const char *msg, const char *val)
{
    fprintf(nvs_stderr_cmdline(), "nvscale compare: %s%s%s%s\nTry 'nvscale compare --help'.\n", msg, val ? " '" : "",
            val ? val : "", val ? "'" : "");
    return 2;
}

/* ---- the command ------------------------------------------------------------------------------------------- */

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* NVS_COMPARE_CHILD (tests): must name an executable regular file. */
static int child_program(char *buf, size_t len)
{
    const char *c = getenv("NVS_COMPARE_CHILD");
    if (!c) {
        snprintf(buf, len, "/proc/self/exe");
        return 0;
    }
    struct stat sb;
    if (!*c || strlen(c) >= len || stat(c, &sb) != 0 || !S_ISREG(sb.st_mode) || access(c, X_OK) != 0) {
        fprintf(stderr, "nvscale compare: invalid value '%s' for environment variable NVS_COMPARE_CHILD: expected "
                        "an executable file (a stand-in for nvscale, for tests)\n", c);
        return 2;
    }
    snprintf(buf, len, "%s", c);
    return 0;
}

/* What the command line asked for, and what is worked out from it before anything runs. */
typedef struct {
    nvs_tp_kind kinds[NVS_TP_COUNT];
    int nk;
    int report_only;
    const char *dir_arg; /* --out as given; NULL: the default, named after the time now */
    const char *list;    /* --transports */
    int have_list;
    char *pass[MAX_PASS + 1]; /* the options for `nvscale run`: pass[0] is "run", NULL-terminated */
    int pc;
    nvs_config cfg;      /* pass, parsed: run's options are checked here, once, before anything runs */
    int most;            /* the largest GPU count of --gpus; 0 when not given */
    char dir[NVS_PATH_MAX];
    char prog[NVS_PATH_MAX];
    char made_top[NVS_PATH_MAX]; /* the first directory of DIR that compare made: undone on a late refusal */
} compare_opts;

/* The steps below return GO to go on, or the exit status to return with. */
#define GO (-1)

/* compare's own options (-h, --transports, --out, --report-only); every other one is passed to the runs. */
static int parse_args(compare_opts *o, int argc, char **argv)
{
    o->list = "all";
    o->pass[o->pc++] = (char *)"run"; /* argv[0] for nvs_config_parse_for */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--transports") || !strcmp(a, "--out") || !strncmp(a, "--transports=", 13) ||
                   !strncmp(a, "--out=", 6)) {
            int t = a[2] == 't';
            const char *eq = strchr(a, '=');
            if (!eq && i + 1 >= argc) return usage_error("option needs a value:", a);
            if (t ? o->have_list : o->dir_arg != NULL) /* the first would be silently lost */
                return usage_error("option given twice:", t ? "--transports" : "--out");
            const char *v = eq ? eq + 1 : argv[++i];
            if (t) {
                o->list = v;
                o->have_list = 1;
            } else {
                o->dir_arg = v;
            }
        } else if (!strcmp(a, "--report-only")) {
            o->report_only = 1;
        } else if (!strcmp(a, "--no-save")) {
            return usage_error("--no-save cannot be passed to the runs: compare needs their run.json", NULL);
        } else {
            if (o->pc == MAX_PASS) return usage_error("too many options", NULL);
            o->pass[o->pc++] = argv[i];
        }
    }
    o->pass[o->pc] = NULL;
    return GO;
}

/* --transports and --out: the values themselves. */
static int check_list_and_out(compare_opts *o)
{
    char err[256];
    if ((o->nk = nvs_tp_parse_list(o->list, o->kinds, NVS_TP_COUNT, err, sizeof err)) < 0)
        return usage_error(err, NULL);
    if (o->dir_arg && (!*o->dir_arg || strlen(o->dir_arg) >= sizeof o->dir - 64))
        return usage_error("invalid --out", o->dir_arg);
    /* before --report-only looks for it ("no such directory -") and before anything runs */
    const char *dash = o->dir_arg ? nvs_out_dash_why(o->dir_arg, 1) : NULL;
    if (dash) return nvs_cli_usage("compare", "--out %s: %s", o->dir_arg, dash);
    return GO;
}

/* the options for `nvscale run`: validated here, so that a typo fails once, before anything runs */
static int check_run_options(compare_opts *o)
{
    nvs_config *cfg = &o->cfg;
    int help = 0;
    nvs_config_defaults(cfg);
    /* run's options, refused as compare's: "nvscale compare: ..." (they said "nvscale run: ..."); the tests' hooks
     * too (NVS_TEST_WRITE_FAIL: compare writes compare.json and the report) */
    if (nvs_config_parse_for(cfg, "run", "compare", o->pc, o->pass, &help) != NVS_OK) return 2;
    if (help) return usage_error("--help of the run options: see 'nvscale run --help'", NULL);
    if (cfg->backend == NVS_BACKEND_MPI)
        return usage_error("--backend mpi runs host MPI collectives, which have no NCCL transport to compare", NULL);
    /* --gpus 1 alone: no run has two GPUs, so there is no transport to compare; every transport was skipped as
     * "1 GPU on this host", which is not what the host has, and compare exited 1 after creating DIR */
    for (int i = 0; i < cfg->n_gpu_counts; i++)
        if (cfg->gpu_counts[i] > o->most) o->most = cfg->gpu_counts[i];
    if (cfg->n_gpu_counts && o->most < 2)
        return usage_error("--gpus 1: one GPU has no transport to another; compare needs a GPU count of 2 or more, "
                           "e.g.", "--gpus 2");
    nvs_log_set_level(cfg->quiet ? NVS_LOG_WARN : NVS_LOG_INFO); /* progress of the runs, on stderr */
    return GO;
}

static int check_report_only(const compare_opts *o)
{
    if (o->report_only && o->pc > 1)
        return usage_error("--report-only runs nothing: run options make no sense with it, e.g.", o->pass[1]);
    /* the default directory is named after the time now: no run can be in it (it said "--report-only: no such
     * directory 'results/20261206-062424-compare'", a name the user never gave) */
    if (o->report_only && !o->dir_arg)
        return usage_error("--report-only needs --out DIR: the directory whose <transport>/run.json to compare", NULL);
    return GO;
}

/* Under an MPI launcher, and the limits of one process per transport. */
static int check_launch(const compare_opts *o)
{
    /* --report-only runs nothing, so a launcher is no obstacle (it was refused, and told to run every transport
     * again): rank 0 reads and writes, the other ranks' copies of the command stay silent */
    if (o->report_only && nvs_rt_launched_by_mpi() && nvs_rt_launcher_rank() != 0) return 0;
    if (!o->report_only && nvs_rt_launched_by_mpi()) {
        nvs_cc_print_mpirun_sequence(o->kinds, o->nk, o->pc - 1, (char **)o->pass + 1,
                                     o->dir_arg ? o->dir_arg : "results/compare");
        return 2;
    }
    /* compare's runs are one process each, a thread per GPU, where run refuses --emulate-nodes above 1
     * (runtime_threads.c): every transport failed the same way, after the topology, exit 1 */
    if (o->cfg.emulate_nodes > 1) {
        fprintf(stderr,
                "nvscale compare: --emulate-nodes %d needs one process per rank, and compare runs each transport "
                "as one process: run 'mpirun -np N nvscale compare --emulate-nodes %d ...' for the mpirun "
                "commands that do it\nTry 'nvscale compare --help'.\n",
                o->cfg.emulate_nodes, o->cfg.emulate_nodes);
        return 2;
    }
    return GO;
}

/* Every check of the command line, in the order they are said: a refusal comes before anything is made. */
static int parse_and_validate(compare_opts *o, int argc, char **argv)
{
    int rc;
    if ((rc = parse_args(o, argc, argv)) != GO) return rc;
    if ((rc = check_list_and_out(o)) != GO) return rc;
    if ((rc = check_run_options(o)) != GO) return rc;
    if ((rc = check_report_only(o)) != GO) return rc;
    return check_launch(o);
}

static void default_dir(char *dir, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32];
    if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm))
        snprintf(stamp, sizeof stamp, "%ld", (long)now);
    snprintf(dir, len, "results/%s-compare", stamp);
}

/* DIR/<transport>.partial too: a killed run's checkpoint, which compare reads where the run itself left nothing
 * (find_run_json); the new child would refuse it as stale and its old rows read as this run's */
static int refuse_old_runs(const compare_opts *o)
{
    for (int i = 0; i < o->nk; i++)
        for (int part = 0; part < 2; part++) {
            char p[NVS_PATH_MAX + 40];
            struct stat sb;
            snprintf(p, sizeof p, "%s/%s%s", o->dir, nvs_tp(o->kinds[i])->name, part ? ".partial" : "");
            if (stat(p, &sb) == 0) {
                fprintf(stderr, "nvscale compare: %s already exists: compare does not mix new runs with old "
                                "ones; choose another --out (or --report-only to compare what is there)\n", p);
                return 2;
            }
        }
    return GO;
}

/* DIR: named, checked, and (runs to come) made, with the child program and the signal handlers ready. */
static int prepare_dir(compare_opts *o)
{
    int rc;
    if (o->dir_arg) snprintf(o->dir, sizeof o->dir, "%s", o->dir_arg);
    else default_dir(o->dir, sizeof o->dir);
    /* a file of that name is there: "no such directory" read as if nothing were (report's -o FILE: not a directory) */
    struct stat sb;
    if (o->report_only && stat(o->dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return usage_error("--report-only: not a directory", o->dir);
    if (o->report_only && !is_dir(o->dir)) return usage_error("--report-only: no such directory", o->dir);
    /* DIR, where the runs and compare.md go, can be made and written before anything runs, as report's -o: one
     * that cannot (a file of that name, a parent that is a file, /proc) was the maker's "nvscale: error: cannot
     * create directory ...", naming neither compare nor --out */
    if ((rc = nvs_cli_output_dir_ok("compare", o->dir_arg ? "--out" : "--out (default)", o->dir))) return rc;
    if (o->report_only) return GO;
    if ((rc = refuse_old_runs(o)) != GO) return rc;
    if ((rc = child_program(o->prog, sizeof o->prog))) return rc;
    nvs_cc_first_missing(o->dir, o->made_top, sizeof o->made_top);
    /* it said why; a --out that cannot be a directory (a file of that name, a parent that is a file or not
     * writable) is bad usage, exit 2 as the help says, only the system's own failures exit 1 */
    nvs_result_t made = nvs_mkdir_p(o->dir);
    if (made != NVS_OK) return nvs_exit_code(made);
    /* Ctrl-C or SIGTERM: the run going on stops as interrupted (compare_child.c passes it on), the transports
     * not begun are not, and compare.md is written of what there is (exit 130) */
    int e = nvs_interrupt_install();
    if (e) nvs_warn("compare: signals keep their default action (sigaction: %s)", strerror(e));
    return GO;
}

static void mark_not_begun(tp_result *t)
{
    t->state = ST_NOT_RUN;
    snprintf(t->why, sizeof t->why, "compare was interrupted (signal %d) before it began", nvs_interrupted());
}

/* One child per feasible transport, on the topology that `nvscale topo` (the child program) found. */
static int run_transports(const compare_opts *o, tp_result *t, nvs_run *topo)
{
    nvs_result_t res = nvs_cc_discover_topology(o->prog, o->dir, topo);
    /* stopped while topo ran (Ctrl-C reaches it too): as any stop, exit 130 with compare.md of what there is,
     * here every transport "not run" (it was exit 1, "nvscale topo failed (killed by signal 2)") */
    if (res != NVS_OK && nvs_interrupted()) {
        for (int i = 0; i < o->nk; i++) {
            t[i].kind = o->kinds[i];
            mark_not_begun(&t[i]);
        }
    } else if (res != NVS_OK) {
        return nvs_exit_code(res);
    }
    int used[1024];
    /* --gpus beyond the GPUs of this host: each run stopped at it (run's "only 2 ranks (GPUs) in this run",
     * exit 2) after NCCL's start-up, every transport FAILED and compare exited 1; bad usage, said once */
    int all = res == NVS_OK ? nvs_tp_used_gpus(&topo->topology, 0, used, 1024) : 0;
    if (all > 0 && o->most > all) {
        fprintf(stderr, "nvscale compare: invalid value '%d' in --gpus: this host has %d GPU%s (nvscale topo), and "
                        "each transport runs on one host\nTry 'nvscale compare --help'.\n", o->most, all,
                all > 1 ? "s" : "");
        nvs_cc_undo_dir(o->dir, o->made_top);
        return 2;
    }
    int count = o->most;
    /* --placement best/worst may pick any GPUs: then every GPU of the host must qualify */
    if (o->cfg.placement != NVS_PLACE_FIRST) count = 0;
    int nused = nvs_tp_used_gpus(&topo->topology, count, used, 1024);
    for (int i = 0; i < o->nk && res == NVS_OK; i++) {
        nvs_tp_feasibility fz;
        t[i].kind = o->kinds[i];
        nvs_tp_feasible(o->kinds[i], &topo->topology, used, nused, &fz);
        snprintf(t[i].note, sizeof t[i].note, "%s", fz.note);
        if (!fz.feasible) {
            t[i].state = ST_SKIPPED;
            snprintf(t[i].why, sizeof t[i].why, "%s", fz.reason);
            nvs_warn("compare: %s: skipped: %s", nvs_tp(o->kinds[i])->name, fz.reason);
            continue;
        }
        if (fz.note[0]) nvs_warn("compare: %s: %s", nvs_tp(o->kinds[i])->name, fz.note);
        if (nvs_interrupted()) {
            mark_not_begun(&t[i]);
            continue;
        }
        nvs_cc_run_one(o->prog, o->dir, o->pc - 1, (char **)o->pass + 1, &t[i]);
    }
    return GO;
}

/* runs written by separate mpiruns may have been made with different options (-d float for one, -d double for
 * another, --inplace in): side by side they would differ in more than the transport. compare's own runs share one
 * set of options, so only here. Bad input: exit 2, compare.md left as it was */
static int refuse_unlike_runs(const compare_opts *o, const tp_result *t)
{
    const nvs_run *lr[NVS_TP_COUNT];
    const char *ln[NVS_TP_COUNT];
    int nl = 0;
    for (int i = 0; i < o->nk; i++)
        if (t[i].loaded) {
            lr[nl] = &t[i].run;
            ln[nl++] = nvs_tp(o->kinds[i])->name;
        }
    char why[512];
    if (!nvs_tp_runs_alike(lr, ln, nl, why, sizeof why)) {
        fprintf(stderr,
                "nvscale compare: --report-only: the runs in '%s' were not made with the same options "
                "(%s): a comparison of transports compares the same measurement; run them again with "
                "the same -d, -o, -r, --inplace, -G, -n, -w, -m, -z, -a and --alloc, on the same host and GPUs (or see "
                "them all with 'nvscale report %s/*/run.json')\n",
                o->dir, why, o->dir);
        return 2;
    }
    return GO;
}

/* --report-only: DIR/<transport>/run.json, written before, read back. */
static int load_runs(const compare_opts *o, tp_result *t)
{
    int loaded = 0, unreadable = 0;
    for (int i = 0; i < o->nk; i++) {
        t[i].kind = o->kinds[i];
        nvs_cc_load_one(o->dir, &t[i]);
        loaded += t[i].loaded;
        unreadable += t[i].state == ST_FAILED;
    }
    /* here the runs are the input: one that cannot be read (the reader said which file and what is wrong), or
     * none at all (a wrong --out), is bad input, exit 2, and DIR/compare.md, perhaps an earlier good one, is
     * not replaced by a page of FAILED rows */
    if (unreadable) return 2;
    if (!loaded) {
        fprintf(stderr, "nvscale compare: --report-only: no run to compare in '%s': none of", o->dir);
        for (int i = 0; i < o->nk; i++) fprintf(stderr, "%s %s/run.json", i ? "," : "", nvs_tp(o->kinds[i])->name);
        fprintf(stderr, " is there\n");
        return 2;
    }
    return refuse_unlike_runs(o, t);
}

/* The transport each loaded run used, checked against the one asked; compare.md and stdout; the exit status. */
static int report(const compare_opts *o, tp_result *t)
{
    const char *host = NULL;
    int ran = 0, failed = 0, mismatch = 0, rc = 0;
    for (int i = 0; i < o->nk; i++) {
        if (t[i].loaded) {
            nvs_cc_mark_unfinished(o->dir, &t[i]);
            failed += t[i].unfinished[0] != '\0';
            nvs_tp_verify(o->kinds[i], &t[i].run, &t[i].ver);
            if (!host) host = t[i].run.host;
            if (t[i].ver.verdict == NVS_TP_MISMATCH) {
                mismatch = 1;
                nvs_error("compare: %s: %s", nvs_tp(o->kinds[i])->name, t[i].ver.text);
            } else if (t[i].ver.verdict == NVS_TP_UNVERIFIED)
                nvs_warn("compare: %s: %s", nvs_tp(o->kinds[i])->name, t[i].ver.text);
        }
        ran += t[i].state == ST_RAN;
        failed += t[i].state == ST_FAILED;
    }
    nvs_result_t res = nvs_cc_write_compare_md(o->dir, t, o->nk, host);
    printf("nvscale compare (%s):\n", o->dir);
    nvs_cc_status_table(stdout, t, o->nk, 0);
    nvs_cc_busbw_tables(stdout, t, o->nk, 0);
    printf("\nside-by-side report: %s/compare.md\n", o->dir);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        nvs_error("cannot write to stdout");
        if (res == NVS_OK) res = NVS_ERR_SYSTEM;
    }
    if (res != NVS_OK) rc = nvs_exit_code(res);
    else if (!o->report_only && nvs_interrupted()) rc = 130; /* what was measured is in compare.md */
    else if (failed) rc = 1;
    else if (!ran) {
        nvs_error("compare: no transport could %s on this machine: nothing was compared",
                  o->report_only ? "be read" : "run");
        rc = 1;
    } else if (mismatch) rc = 3;
    return rc;
}

/* The runs (or, --report-only, the runs read back), then the comparison of them. */
static int do_work(const compare_opts *o)
{
    tp_result *t = calloc((size_t)o->nk, sizeof *t);
    nvs_run topo;
    memset(&topo, 0, sizeof topo);
    if (!t) {
        nvs_error("out of memory");
        return 1;
    }
    int rc = o->report_only ? load_runs(o, t) : run_transports(o, t, &topo);
    if (rc == GO) rc = report(o, t);
    for (int i = 0; i < o->nk; i++)
        if (t[i].loaded) nvs_run_free(&t[i].run);
    free(t);
    nvs_run_free(&topo);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    compare_opts o;
    int rc;
    memset(&o, 0, sizeof o);
    if ((rc = parse_and_validate(&o, argc, argv)) != GO) return rc;
    if ((rc = prepare_dir(&o)) != GO) return rc;
    return do_work(&o);
}
