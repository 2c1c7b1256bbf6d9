/* `nvscale report RUN.json [MORE.json ...] [-o DIR] [--title T] [--no-plots]`: read and validate every run.json
 * (exit 2 naming the file and what is wrong), draw the plots with gnuplot if it is on PATH, write DIR/report.md.
 * Needs no GPU. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/config.h"
#include "core/log.h"
#include "core/out_file.h"
#include <jansson.h>

#include "report/report.h"
#include "runjson/runjson.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: nvscale report RUN.json [MORE.json ...] [-o DIR] [--title TEXT] [--no-plots]\n\n"
            "Writes a Markdown report (DIR/report.md) of one or more runs, with plots drawn by gnuplot\n"
            "(SVG and PNG) when it is installed. Several runs are also shown side by side (busbw ratios\n"
            "against the first): NVLink vs SHM, one box vs another. Needs no GPU. A RUN.json of '-' is read\n"
            "from standard input (one of them; the report then goes to the current directory unless -o).\n\n"
            "  -o, --output DIR   directory for report.md, plots and their data (created if missing;\n"
            "                     default: the directory of the first run.json)\n"
            "  -t, --title TEXT   title of the report (default: from the runs)\n"
            "      --no-plots     do not run gnuplot\n"
            "  -h, --help         this text\n\n"
            "What the report contains and how to read it: docs/report.md.\n");
}

/* Directory part of a path ("." if none). */
static void dir_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, len, ".");
    else if (slash == path)
        snprintf(buf, len, "/");
    else
        snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

/* A report that failed leaves none of the directories it made (nvs_mkdir_made, DIR made as --out's run directory
 * is): DIR, when made, goes with what it held (the plots' data written before the failure), then each other one
 * made while empty; one that was there keeps itself and what it held (as a failed run's --out parents go:
 * runjson_write.c) */
static void unmake_dir(nvs_made_dirs *made)
{
    /* the made directory DIR names, by its own name: "new" for "new/." (nftw cannot rmdir "new/.") */
    char top[sizeof made->path];
    snprintf(top, sizeof top, "%.*s", (int)made->named, made->path);
    if (made->last && nvs_remove_tree(top) != 0) {
        nvs_warn("report: could not remove %s, made for the report that failed: %s", top, strerror(errno));
        return;
    }
    nvs_unmake_dirs(made);
}

/* DIR/report.md that is one of the inputs INPUTS[0..N) (a run saved as report.md, -o its directory): refused
 * before anything is written, as check refuses an output that is an input; the report replaced the run it was
 * made from and exited 0. OUTDIR as report_out_ok's. 0, or 2 after the message. */
static int report_not_input(const char *outdir, const char *dir, char *const *inputs, int n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    for (int i = 0; i < n; i++) {
        if (nvs_input_is_stdin(inputs[i]) || !nvs_cli_same_file(path, inputs[i])) continue;
        if (outdir)
            return nvs_cli_usage("report", "-o %s: its report.md is an input (argument %d, %s): give another "
                                 "directory", outdir, i + 1, inputs[i]);
        return nvs_cli_usage("report", "%s is an input (argument %d) and where the report goes: give -o DIR for the "
                             "report", inputs[i], i + 1);
    }
    return 0;
}

/* DIR/report.md, which the report replaces, a directory: refused as a usage error naming it, as model -o DIR's
 * "is a directory, not a file" (the writer said "nvscale: error: cannot write DIR/report.md: it is a directory",
 * naming neither report nor -o, after the runs were read and the plots written). So is a file of the plots (PLOTS:
 * they are drawn) that is a directory in DIR: the writer's error came half-way, some plots written, and the report
 * was still written and the command failed. REP: the runs' report, NULL for model projections' (the plots' names
 * differ). OUTDIR: -o's value, or NULL when the report goes beside the first input. 0, or 2 after the message. */
static int report_out_ok(const char *outdir, const char *dir, const nvs_report *rep, int plots)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/report.md", dir);
    int in_way = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    if (!in_way && plots)
        in_way = rep ? nvs_report_plots_in_way(rep, dir, path, sizeof path)
                     : nvs_report_model_plots_in_way(dir, path, sizeof path);
    if (!in_way) return 0;
    if (outdir) return nvs_cli_usage("report", "-o %s: %s is a directory, not a file", outdir, path);
    return nvs_cli_usage("report", "%s is a directory, not a file: give -o DIR for the report", path);
}

static int report_models(int n, char **paths, const char *outdir, const char *title, int plots)
{
    json_t **docs = calloc((size_t)n, sizeof *docs);
    const char **names = calloc((size_t)n, sizeof *names); /* as messages and the report name them */
    if (!docs || !names) {
        free(docs);
        free(names);
        return 1;
    }
    for (int i = 0; i < n; i++) names[i] = nvs_input_name(paths[i]);
    nvs_result_t res = NVS_OK;
    nvs_cli_reading rd = nvs_cli_read_begin("report"); /* the projections' faults are report's refusals */
    for (int i = 0; i < n && res == NVS_OK; i++) {
        json_error_t je;
        /* a FIFO would block the JSON reader forever ("-" is standard input, already read) */
        if (!nvs_input_is_stdin(paths[i]) && nvs_input_file_ok(paths[i], NULL, 0)) {
            res = NVS_ERR_INPUT;
            break;
        }
        docs[i] = nvs_json_load_input(paths[i], 0, &je);
        if (!docs[i]) {
            nvs_cli_refuse("report", "%s: not JSON (%s, line %d)", names[i], je.text, je.line);
            res = NVS_ERR_INPUT;
        } else if (!nvs_report_is_model(docs[i])) {
            nvs_cli_refuse("report", "%s: not a model projection (schema nvscale.model/1, kind projection): give model "
                      "projections or run.json files, not both", names[i]);
            res = NVS_ERR_INPUT;
        }
    }
    if (res == NVS_OK) res = nvs_report_model_check(docs, names, n);
    nvs_cli_read_end(rd);
    char dir[4096];
    static nvs_made_dirs made; /* 8 KiB: off the stack */
    if (res == NVS_OK) {
        if (outdir) snprintf(dir, sizeof dir, "%s", outdir);
        else dir_of(paths[0], dir, sizeof dir);
        res = report_out_ok(outdir, dir, NULL, plots) || report_not_input(outdir, dir, paths, n)
                  ? NVS_ERR_USAGE
                  : nvs_mkdir_made(dir, &made);
        if (res == NVS_OK) res = nvs_report_model(docs, names, n, dir, title, plots);
        if (res != NVS_OK) unmake_dir(&made); /* was left with the data files written before the failure */
    }
    for (int i = 0; i < n; i++) json_decref(docs[i]);
    free(docs);
    free(names);
    return nvs_exit_code(res);
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"title", required_argument, NULL, 't'},
                                         {"no-plots", no_argument, NULL, 'P'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *outdir = NULL, *title = NULL;
    int plots = 1, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!*optarg) return nvs_cli_usage("report", "-o needs a directory, got an empty string");
            if (outdir) return nvs_cli_usage("report", "-o/--output given twice"); /* the first would be lost */
            /* room for the file names inside it (the report's buffers are NVS_PATH_MAX): a longer one was cut
             * short silently, the cut directory made, and the report then failed to be written */
            if (strlen(optarg) > NVS_PATH_MAX - 256)
                return nvs_cli_usage("report", "-o: a directory name of %zu bytes: at most %d", strlen(optarg),
                                     NVS_PATH_MAX - 256);
            outdir = optarg;
            /* refused here as report's ("nvscale report: -o /proc/x: ..."), not by the directory maker after the
             * runs are read ("nvscale: error: cannot create directory /proc/x") */
            if (nvs_cli_output_dir_ok("report", "-o", outdir)) return 2;
            break;
        case 't':
            /* was taken as no title: the default, without a word */
            if (!*optarg) return nvs_cli_usage("report", "-t needs a title, got an empty string");
            if (title) return nvs_cli_usage("report", "-t/--title given twice");
            title = optarg;
            break;
        case 'P': plots = 0; break;
        case 'h': usage(stdout); return 0;
        case ':':
            return nvs_cli_usage("report", "option %s needs a value", argv[optind - 1]);
        default: {
            char why[160];
            /* a long option is named as typed: for "--no-plots=1" getopt's optopt is the option's value 'P',
             * which named a "-P" that does not exist */
            if (nvs_cli_value_on_flag(argv, opts, why, sizeof why)) return nvs_cli_usage("report", "%s", why);
            if (optopt && strncmp(argv[optind - 1], "--", 2))
                return nvs_cli_usage("report", "unknown option -%c", optopt);
            return nvs_cli_usage("report", "unknown option %s", argv[optind - 1]);
        }
        }
    }
    int nruns = argc - optind;
    if (nruns < 1) return nvs_cli_usage("report", "no run.json given");
    /* the tests' write failure hook, refused as run's is before anything is read or written (it was not read
     * here: x went unnoticed, and " 1", which run refuses, failed the first write) */
    if (nvs_cli_write_fail_env_ok("report")) return 2;
    /* model projections (nvscale model --format json) get their own report: efficiency vs N per configuration */
    {
        nvs_cli_reading rd = nvs_cli_read_begin("report"); /* a missing file: report's refusal */
        int bad = 0;
        for (int i = optind; i < argc && !bad; i++) {
            char what[32];
            snprintf(what, sizeof what, "argument %d", i - optind + 1);
            if (nvs_cli_stdin_once("report", what, argv[i])) {
                nvs_cli_read_end(rd);
                return 2;
            }
            /* "-": standard input, read now (and kept) so that a failure to read it is said once, here; else
             * regular files only: a FIFO would block the JSON reader forever */
            char *text = NULL;
            bad = nvs_input_is_stdin(argv[i]) ? nvs_read_text_file(argv[i], NVS_RUN_MAX_BYTES, &text) != NVS_OK
                                              : nvs_input_file_ok(argv[i], NULL, 0) != 0;
            free(text);
        }
        nvs_cli_read_end(rd);
        if (bad) return 2;
        /* one run given twice was reported as two, and counted twice in the fleet's median: a slow host given
         * three times outvoted its peers and was no longer named (as `check` refuses it) */
        if (nvs_cli_inputs_distinct("report", argv + optind, (size_t)nruns, NVS_CLI_RUNS_ONCE)) return 2;
        json_t *first = nvs_json_load_input(argv[optind], 0, NULL);
        int is_model = first && nvs_report_is_model(first);
        json_decref(first);
        if (is_model) return report_models(argc - optind, argv + optind, outdir, title, plots);
    }
    nvs_run *runs = calloc((size_t)nruns, sizeof *runs);
    if (!runs) {
        nvs_error("out of memory");
        return 1;
    }
    nvs_result_t res = NVS_OK;
    int loaded = 0;
    nvs_cli_reading rd = nvs_cli_read_begin("report"); /* a run.json that is not one: report's refusal */
    for (int i = 0; i < nruns; i++) {
        res = nvs_run_load(argv[optind + i], NVS_RUN_NEED_MEASURED, &runs[i]);
        if (res != NVS_OK) break;
        loaded++;
    }
    nvs_cli_read_end(rd);
    /* a copy of a run under another name is that run twice, as the same file is (above) */
    if (res == NVS_OK && nvs_cli_runs_distinct("report", runs, (size_t)nruns, NVS_CLI_RUNS_ONCE)) res = NVS_ERR_USAGE;
    nvs_report rep = {.runs = runs, .nruns = nruns, .title = title && *title ? title : NULL};
    char dir[4096];
    static nvs_made_dirs made; /* what was made for this report (8 KiB: off the stack) */
    if (res == NVS_OK) {
        if (outdir)
            snprintf(dir, sizeof dir, "%s", outdir);
        else /* a run read from standard input: "." (its path, "standard input", has no directory) */
            dir_of(runs[0].path, dir, sizeof dir);
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/') dir[--n] = '\0';
        struct stat st;
        int there = stat(dir, &st) == 0;
        if (there && !S_ISDIR(st.st_mode)) {
            nvs_cli_refuse("report", "-o %s: not a directory", dir);
            res = NVS_ERR_USAGE;
        } else {
            res = report_out_ok(outdir, dir, &rep, plots) || report_not_input(outdir, dir, argv + optind, nruns)
                      ? NVS_ERR_USAGE
                      : nvs_mkdir_made(dir, &made);
        }
    }
    nvs_result_t plot_res = NVS_OK;
    nvs_plot_files old = {0}; /* an earlier report's plots in dir: pruned once report.md is written */
    if (res == NVS_OK) {
        nvs_report_plots_old(dir, &old);
        if (plots)
            plot_res = nvs_report_plots(&rep, dir);
        else
            rep.plots = NVS_PLOTS_NOT_REQUESTED;
    }
    char path[4200];
    if (res == NVS_OK) {
        snprintf(path, sizeof path, "%s/report.md", dir);
        nvs_outfile o;
        res = nvs_outfile_open(&o, path);
        if (res == NVS_OK) {
            res = nvs_report_write_md(&rep, o.f);
            if (res == NVS_OK)
                res = nvs_outfile_commit(&o);
            else
                nvs_outfile_discard(&o);
        }
    }
    if (res == NVS_OK) nvs_report_plots_prune(dir, &old, &rep);
    if (res == NVS_OK) printf("%s\n", path);
    /* no report.md (a full disk): the directories this command made go, dir with what it held (the plots' data),
     * rather than be left empty or half-filled; one that was there keeps what it had */
    if (res != NVS_OK) unmake_dir(&made);
    for (int i = 0; i < loaded; i++) nvs_run_free(&runs[i]);
    free(runs);
    if (res != NVS_OK) return nvs_exit_code(res);
    /* the report is there; a plot failure still makes the command fail so that scripts notice */
    return plot_res == NVS_OK ? 0 : nvs_exit_code(plot_res);
}
