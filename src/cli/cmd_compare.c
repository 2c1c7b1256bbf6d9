/* nvscale compare --transports nvlink,pcie,shm,net [run options...] [--out DIR] [--report-only]
 *
 * One `nvscale run` child process per transport (NCCL caches NCCL_* per process), each with its environment and
 * its own run directory DIR/<transport>/; a transport this machine cannot do is skipped with the reason; the
 * transport NCCL really used is read back from each child's run.json; then DIR/compare.md puts them side by
 * side. Usage and the mpirun equivalent: docs/compare.md.
 *
 * The child program is this binary (/proc/self/exe), or NVS_COMPARE_CHILD when set: an executable that the
 * tests point at a fake nvscale (tests/fixtures/check/fake_nvscale), since the test machine has no GPU. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/escape.h"
#include "core/interrupt.h"
#include "core/launch_env.h"
#include "compare/compare.h"
#include "compare/compare_child.h"
#include "core/config.h"
#include "core/log.h"
#include "core/metrics.h"
#include "core/out_file.h"
#include "report/report.h"
#include "runjson/runjson.h"
#include "runtime/runtime.h"
#include "core/units.h"

extern char **environ;

#define MAX_PASS 256
#define TOPO_MAX_BYTES ((size_t)64 << 20) /* topology JSON of a large node is well under 1 MiB */
#define TAIL_LINES 10

typedef enum { ST_SKIPPED, ST_RAN, ST_FAILED, ST_NOT_RUN } tp_state;

typedef struct {
    nvs_tp_kind kind;
    tp_state state;
    char why[NVS_PATH_MAX + 512]; /* skipped: the reason; failed: what failed */
    char note[320];      /* feasibility caveat */
    char status[NVS_PATH_MAX + 128]; /* "exit 0, 41.2 s", "read from DIR/shm/run.json" */
    char tail[2048];     /* stderr tail of a failed child */
    int dropped_env;     /* inherited NCCL_P2P_DISABLE/NCCL_SHM_DISABLE removed */
    char unfinished[600]; /* a loaded run whose result is not ok: "interrupted: WHY"; "" ended well (or unknown) */
    nvs_tp_verification ver;
    int loaded;
    nvs_run run;
} tp_result;

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

/* once under a launcher, from its rank 0 (nvs_stderr_cmdline: the command line alone), as run's own usage errors: every rank said it */
static int usage_error(const char *msg, const char *val)
{
    fprintf(nvs_stderr_cmdline(), "nvscale compare: %s%s%s%s\nTry 'nvscale compare --help'.\n", msg, val ? " '" : "",
            val ? val : "", val ? "'" : "");
    return 2;
}

/* ---- under mpirun: refuse, and say what to type instead ------------------------------------------------- */

static const char *env_first(const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (getenv(names[i]) && *getenv(names[i])) return getenv(names[i]);
    return NULL;
}

/* DIR/NAME as one shell word */
static void put_dir_word(const char *dir, const char *name, FILE *f)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *w = malloc(n);
    if (!w) { /* two words' quoting side by side is still one shell word: 'my dir'/shm */
        nvs_sh_fputs(dir, f);
        fputc('/', f);
        nvs_sh_fputs(name, f);
        return;
    }
    snprintf(w, n, "%s/%s", dir, name);
    nvs_sh_fputs(w, f);
    free(w);
}

/* The commands are for copying into a shell: every word quoted as the shell needs it (an option value with a space,
 * a quote or a $ would otherwise split or expand; nvs_sh_fputs), and never cut (the options were collected into a
 * 2048-byte buffer, which dropped what did not fit without a word) */
static void print_mpirun_sequence(const nvs_tp_kind *kinds, int nk, int pc, char **pass, const char *dir)
{
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL};
    if (nvs_rt_launcher_rank() != 0) return; /* one copy of the message, from rank 0 */
    const char *np = env_first(size_vars);
    fprintf(stderr,
            "nvscale compare: running under an MPI launcher (mpirun -np N nvscale compare): one MPI job cannot start\n"
            "another MPI job per transport. Run each transport as its own mpirun, then compare the runs:\n\n");
    for (int i = 0; i < nk; i++) {
        const nvs_tp_desc *d = nvs_tp(kinds[i]);
        fprintf(stderr, "  mpirun -np ");
        nvs_sh_fputs(np ? np : "N", stderr);
        for (int e = 0; d->env[e]; e++) fprintf(stderr, " -x %s", d->env[e]);
        fprintf(stderr, " nvscale run");
        for (int a = 0; a < pc; a++) {
            fputc(' ', stderr);
            nvs_sh_fputs(pass[a], stderr);
        }
        fprintf(stderr, " --out ");
        put_dir_word(dir, d->name, stderr);
        fprintf(stderr, "%s\n", kinds[i] == NVS_TP_PCIE ? "     # only on GPUs without NVLink between them" : "");
    }
    fprintf(stderr, "  nvscale compare --report-only --transports ");
    for (int i = 0; i < nk; i++) fprintf(stderr, "%s%s", i ? "," : "", nvs_tp(kinds[i])->name);
    fprintf(stderr, " --out ");
    nvs_sh_fputs(dir, stderr);
    fprintf(stderr, "\n  (or: nvscale report ");
    nvs_sh_fputs(dir, stderr); /* the glob after it stays unquoted, outside the quotes */
    fprintf(stderr, "/*/run.json)\n\n");
    fprintf(stderr, "-x VAR=VALUE is Open MPI's; with MPICH/Hydra use -genv VAR VALUE. Make sure NCCL_P2P_DISABLE and\n"
                    "NCCL_SHM_DISABLE are not set in the environment of the nvlink and pcie runs.\n");
}

/* ---- topology ---------------------------------------------------------------------------------------------- */

static nvs_result_t discover_topology(const char *prog, const char *dir, nvs_run *topo)
{
    char out_path[NVS_PATH_MAX + 32], err_path[NVS_PATH_MAX + 32], err[512], tail[2048];
    char *argv[] = {(char *)"nvscale", (char *)"topo", (char *)"--format", (char *)"json", (char *)"--no-save", NULL};
    char *text = NULL;
    nvs_child_status st;
    snprintf(out_path, sizeof out_path, "%s/topology.json", dir);
    snprintf(err_path, sizeof err_path, "%s/topology.stderr.txt", dir);
    nvs_info("compare: discovering the topology (nvscale topo --format json --no-save)");
    nvs_result_t res = nvs_child_run(prog, argv, environ, NULL, &text, TOPO_MAX_BYTES, err_path, &st);
    if (res != NVS_OK) return res;
    if (!nvs_child_ok(&st) && nvs_interrupted()) { /* Ctrl-C, SIGTERM: not a failure of topo; the caller stops */
        nvs_warn("compare: stopped (signal %d) while discovering the topology: no transport was begun",
                 nvs_interrupted());
        free(text);
        return NVS_ERR_SYSTEM;
    }
    if (!nvs_child_ok(&st)) {
        char s[64];
        nvs_child_status_text(&st, s, sizeof s);
        nvs_file_tail(err_path, TAIL_LINES, tail, sizeof tail);
        nvs_error("compare: cannot discover the topology: nvscale topo failed (%s):\n%s", s, tail);
        free(text);
        return NVS_ERR_SYSTEM;
    }
    res = nvs_tp_parse_topology(text, topo, err, sizeof err);
    if (res == NVS_OK) res = nvs_write_text_file(out_path, text); /* kept with the runs, for the record */
    else nvs_error("compare: the topology printed by nvscale topo is unusable: %s", err);
    free(text);
    return res == NVS_ERR_INPUT ? NVS_ERR_SYSTEM : res;
}

/* ---- one transport ----------------------------------------------------------------------------------------- */

/* DIR/<transport>/run.json into `path`; where only DIR/<transport>.partial/run.json is there (the checkpoint of a
 * run whose rank 0 was killed: SIGKILL, the OOM killer), that one. 0 when neither exists (`path`: the first). */
static int find_run_json(const char *dir, const char *name, char *path, size_t len)
{
    struct stat sb;
    char partial[NVS_PATH_MAX + 64];
    snprintf(partial, sizeof partial, "%s/%s.partial/run.json", dir, name);
    snprintf(path, len, "%s/%s/run.json", dir, name);
    if (stat(path, &sb) == 0) return 1;
    if (stat(partial, &sb) != 0) return 0;
    snprintf(path, len, "%s", partial);
    return 1;
}

static void run_one(const char *prog, const char *dir, int pc, char **pass, tp_result *t)
{
    const nvs_tp_desc *d = nvs_tp(t->kind);
    char rundir[NVS_PATH_MAX + 32], out_path[NVS_PATH_MAX + 64], err_path[NVS_PATH_MAX + 64],
        json_path[NVS_PATH_MAX + 64];
    snprintf(rundir, sizeof rundir, "%s/%s", dir, d->name);
    snprintf(out_path, sizeof out_path, "%s/%s.stdout.txt", dir, d->name);
    snprintf(err_path, sizeof err_path, "%s/%s.stderr.txt", dir, d->name);
    snprintf(json_path, sizeof json_path, "%s/run.json", rundir);

    char *argv[MAX_PASS + 8];
    int a = 0;
    argv[a++] = (char *)"nvscale";
    argv[a++] = (char *)"run";
    for (int i = 0; i < pc; i++) argv[a++] = pass[i];
    argv[a++] = (char *)"--out";
    argv[a++] = rundir;
    argv[a] = NULL;
    char **env = nvs_tp_child_env(environ, t->kind, &t->dropped_env);
    if (!env) {
        t->state = ST_FAILED;
        snprintf(t->why, sizeof t->why, "out of memory");
        return;
    }
    char envtxt[128] = "";
    for (int e = 0; d->env[e]; e++) snprintf(envtxt + strlen(envtxt), sizeof envtxt - strlen(envtxt), " %s", d->env[e]);
    nvs_info("compare: %s: running nvscale run ... --out %s%s%s", d->name, rundir, envtxt[0] ? " with" : "", envtxt);
    if (t->dropped_env)
        nvs_warn("compare: %s: NCCL_P2P_DISABLE/NCCL_SHM_DISABLE from your environment are not passed on: compare "
                 "sets them per transport", d->name);

    nvs_child_status st;
    nvs_result_t res = nvs_child_run(prog, argv, env, out_path, NULL, 0, err_path, &st);
    free(env);
    if (res != NVS_OK) {
        t->state = ST_FAILED;
        snprintf(t->why, sizeof t->why, "could not be started (%s)", nvs_result_text(res));
        return;
    }
    char s[64];
    nvs_child_status_text(&st, s, sizeof s);
    snprintf(t->status, sizeof t->status, "%s, %.1f s", s, st.wall_s);
    if (!nvs_child_ok(&st)) {
        t->state = ST_FAILED;
        nvs_file_tail(err_path, TAIL_LINES, t->tail, sizeof t->tail);
        snprintf(t->why, sizeof t->why, "nvscale run failed (%s); its stderr: %s", s, err_path);
        nvs_error("compare: %s: nvscale run failed (%s); last lines of %s:\n%s", d->name, s, err_path, t->tail);
        /* what it measured before it stopped (Ctrl-C, a timeout, a kill) is shown, marked as a run that did not
         * end well (mark_unfinished), as --report-only shows it */
        if (find_run_json(dir, d->name, json_path, sizeof json_path) && nvs_run_load(json_path, 0, &t->run) == NVS_OK) {
            t->loaded = 1;
            t->state = ST_RAN;
            /* its run.json says it ended well, the process did not (a crash in NCCL's teardown, a kill after the
             * file was written): its rows were measured, and are kept (they were dropped with the run: FAILED, no
             * column); the run still counts as failed. A run.json that says otherwise is said by mark_unfinished. */
            if (!t->run.result_status || !strcmp(t->run.result_status, "ok"))
                snprintf(t->unfinished, sizeof t->unfinished, "its run.json says %s, but the process did not end well (%s): "
                         "its rows are what it measured", t->run.result_status ? "ok" : "no result", s);
        }
        return;
    }
    nvs_info("compare: %s: done (%s)", d->name, t->status);
    if (nvs_run_load(json_path, 0, &t->run) != NVS_OK) { /* it said why */
        t->state = ST_FAILED;
        snprintf(t->why, sizeof t->why, "exit 0 but no usable %s", json_path);
        return;
    }
    t->loaded = 1;
    t->state = ST_RAN;
}

/* --report-only: the run directory was written by someone else (mpirun). */
static void load_one(const char *dir, tp_result *t)
{
    const nvs_tp_desc *d = nvs_tp(t->kind);
    char json_path[NVS_PATH_MAX + 64];
    if (!find_run_json(dir, d->name, json_path, sizeof json_path)) {
        t->state = ST_NOT_RUN;
        snprintf(t->why, sizeof t->why, "no %s", json_path);
        return;
    }
    nvs_cli_reading rd = nvs_cli_read_begin("compare"); /* a file the user gave to compare: compare's refusal */
    nvs_result_t r = nvs_run_load(json_path, 0, &t->run);
    nvs_cli_read_end(rd);
    if (r != NVS_OK) {
        t->state = ST_FAILED;
        snprintf(t->why, sizeof t->why, "%s is not a usable run.json", json_path);
        return;
    }
    t->loaded = 1;
    t->state = ST_RAN;
    snprintf(t->status, sizeof t->status, "read from %s", json_path);
}

/* A run read back whose result is not ok (--report-only reads what an mpirun left: one stopped by Ctrl-C, a kill's
 * checkpoint, wrong results): its rows are what it measured, shown, but it is a run that failed, not one that "ran
 * as asked" (exit 0). Said once on stderr with the run.json's own reason. */
static void mark_unfinished(const char *dir, tp_result *t)
{
    const char *st = t->run.result_status;
    if (!t->loaded || !st || !strcmp(st, "ok")) return;
    const char *why = t->run.result_reason;
    snprintf(t->unfinished, sizeof t->unfinished, "the run did not end well (%s%s%.500s): its rows are what it "
             "measured before", st, why ? ": " : "", why ? why : "");
    nvs_error("compare: %s: %s: %s", nvs_tp(t->kind)->name, t->run.path ? t->run.path : dir, t->unfinished);
}

/* ---- output ------------------------------------------------------------------------------------------------ */

static const char *state_word(const tp_result *t)
{
    switch (t->state) {
    case ST_SKIPPED: return "skipped";
    case ST_RAN:
        if (t->unfinished[0]) return "ran, DID NOT END WELL";
        return t->ver.verdict == NVS_TP_MISMATCH ? "ran, WRONG TRANSPORT" : "ran";
    case ST_FAILED: return "FAILED";
    default: return "not run";
    }
}

/* Markdown cell text: no '|' or newline inside a cell. */
static void cell(FILE *f, const char *s)
{
    nvs_esc_fputs(NVS_ESC_MD, s ? s : "", f); /* core/escape.h: | < > [ ] ` * and line ends */
}

static void status_table(FILE *f, const tp_result *t, int n, int markdown)
{
    if (markdown)
        fprintf(f, "| transport | environment | status | NCCL used | verdict / reason |\n|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const nvs_tp_desc *d = nvs_tp(t[i].kind);
        char env[128] = "", verdict[NVS_PATH_MAX + 1024];
        for (int e = 0; d->env[e]; e++) snprintf(env + strlen(env), sizeof env - strlen(env), "%s%s", e ? " " : "", d->env[e]);
        if (!env[0]) snprintf(env, sizeof env, "(unchanged)");
        if (t[i].state == ST_RAN)
            snprintf(verdict, sizeof verdict, "%s%s%s%s%s", t[i].ver.text, t[i].note[0] ? "; " : "", t[i].note,
                     t[i].unfinished[0] ? "; " : "", t[i].unfinished);
        else
            snprintf(verdict, sizeof verdict, "%s", t[i].why);
        char st[NVS_PATH_MAX + 256];
        snprintf(st, sizeof st, "%s%s%s%s", state_word(&t[i]), t[i].status[0] ? " (" : "", t[i].status,
                 t[i].status[0] ? ")" : "");
        if (markdown) {
            fprintf(f, "| %s | `%s` | ", d->name, env);
            cell(f, st);
            fprintf(f, " | ");
            cell(f, t[i].ver.found[0] ? t[i].ver.found : "-");
            fprintf(f, " | ");
            cell(f, verdict);
            fprintf(f, " |\n");
        } else {
            char e1[NVS_ESC_SIZE(sizeof t[i].ver.found)], e2[NVS_ESC_SIZE(sizeof verdict)];
            fprintf(f, "  %-7s %-9s %-28s %s\n", d->name, state_word(&t[i]),
                    nvs_esc_term(t[i].ver.found[0] ? t[i].ver.found : "-", e1, sizeof e1),
                    nvs_esc_term(verdict, e2, sizeof e2));
        }
    }
    if (markdown) fprintf(f, "\n");
}

/* busbw per size, one column per transport that ran, for every (collective, N >= 2) any of them measured; the
 * out-of-place row when both exist (nvs_run_coll_find). The ratio column is against the first transport. */
static void busbw_tables(FILE *f, const tp_result *t, int n, int markdown)
{
    const nvs_run *runs[NVS_TP_COUNT];
    const char *names[NVS_TP_COUNT];
    int nr = 0;
    for (int i = 0; i < n; i++)
        if (t[i].loaded) {
            runs[nr] = &t[i].run;
            names[nr++] = nvs_tp(t[i].kind)->name;
        }
    if (!nr) return;
    const char *colls[64];
    int nc = 0;
    for (int i = 0; i < nr; i++) {
        const char **cn = NULL;
        int k = nvs_run_collective_names(runs[i], &cn);
        for (int j = 0; j < k; j++) {
            int seen = 0;
            for (int m = 0; m < nc; m++) seen |= !strcmp(colls[m], cn[j]);
            if (!seen && nc < 64) colls[nc++] = cn[j];
        }
        free(cn);
    }
    for (int c = 0; c < nc; c++) {
        /* every N and size any run has, however many (-i 1M up to 1G is 1024 sizes: a fixed array kept the first
         * 256 and dropped the largest sizes from the table without a word) */
        int *ns = NULL, kn = 0;
        for (int i = 0; i < nr; i++) {
            int *v = NULL, k = nvs_run_coll_ns(runs[i], colls[c], &v);
            int *grown = k > 0 ? realloc(ns, (size_t)(kn + k) * sizeof *ns) : ns;
            if (!grown) {
                nvs_error("compare: out of memory: the busbw table of %s lacks GPU counts", colls[c]);
                free(v);
                break;
            }
            ns = grown;
            for (int j = 0; j < k; j++)
                if (v[j] >= 2) ns[kn++] = v[j]; /* busbw is 0 at N = 1 */
            free(v);
        }
        kn = nvs_sort_unique_int(ns, kn);
        for (int m = 0; m < kn; m++) {
            double *sizes = NULL;
            int ks = 0;
            for (int i = 0; i < nr; i++) {
                double *v = NULL;
                int k = nvs_run_coll_sizes(runs[i], colls[c], &v);
                double *grown = k > 0 ? realloc(sizes, (size_t)(ks + k) * sizeof *sizes) : sizes;
                if (!grown) {
                    nvs_error("compare: out of memory: the busbw table of %s lacks sizes", colls[c]);
                    free(v);
                    break;
                }
                sizes = grown;
                for (int j = 0; j < k; j++)
                    if (nvs_run_coll_find(runs[i], colls[c], ns[m], v[j])) sizes[ks++] = v[j];
                free(v);
            }
            ks = nvs_sort_unique_double(sizes, ks);
            if (!ks) {
                free(sizes);
                continue;
            }
            char cn[NVS_ESC_SIZE(64)];
            nvs_esc(markdown ? NVS_ESC_MD : NVS_ESC_TERM, colls[c], cn, sizeof cn);
            /* a sweep of several types or ops: each cell is the first out-of-place row, named in the heading */
            char var[64] = "", vn[NVS_ESC_SIZE(64)];
            for (int i = 0; i < nr && !var[0]; i++)
                for (int s = 0; s < ks && !var[0]; s++)
                    nvs_run_coll_variant(runs[i], nvs_run_coll_find(runs[i], colls[c], ns[m], sizes[s]), var, sizeof var);
            /* a run of --inplace in has no out-of-place row: its in-place rows are shown, and the heading says so
             * (--report-only refused runs whose shown rows differ in kind, nvs_tp_runs_alike) */
            int in = 0, cells = 0, failed = 0;
            for (int i = 0; i < nr; i++)
                for (int s = 0; s < ks; s++) {
                    const nvs_run_coll *x = nvs_run_coll_find(runs[i], colls[c], ns[m], sizes[s]);
                    cells += x != NULL;
                    in += x && x->inplace;
                }
            if (in) snprintf(var + strlen(var), sizeof var - strlen(var), "%s%s", var[0] ? ", " : "",
                             in == cells ? "in-place" : "in-place where there is no out-of-place row");
            nvs_esc(markdown ? NVS_ESC_MD : NVS_ESC_TERM, var, vn, sizeof vn);
            fprintf(f, markdown ? "### %s%s%s, N=%d: busbw (GB/s)\n\n| size |" : "\n%s%s%s, N=%d: busbw (GB/s)\n%10s", cn,
                    var[0] ? " " : "", vn, ns[m], markdown ? "" : "size");
            for (int i = 0; i < nr; i++) fprintf(f, markdown ? " %s |" : " %9s", names[i]);
            for (int i = 1; i < nr; i++) {
                char ratio[32];
                snprintf(ratio, sizeof ratio, "%s/%s", names[i], names[0]);
                fprintf(f, markdown ? " %s |" : " %12s", ratio);
            }
            if (markdown) {
                fprintf(f, "\n|---:|");
                for (int i = 1; i < 2 * nr; i++) fprintf(f, "---:|");
            }
            fprintf(f, "\n");
            for (int s = 0; s < ks; s++) {
                char sz[32], cellb[32];
                nvs_format_size((size_t)sizes[s], sz, sizeof sz);
                fprintf(f, markdown ? "| %s |" : "%10s", sz);
                double v0 = NAN;
                /* a row whose result check found wrong elements (nvs_report_failed_check, the report's one rule):
                 * its busbw is no measurement of the transport, neither a cell nor a side of a ratio */
                for (int i = 0; i < nr; i++) {
                    const nvs_run_coll *x = nvs_run_coll_find(runs[i], colls[c], ns[m], sizes[s]);
                    int bad = nvs_report_failed_check(x);
                    double v = x && !bad ? x->busbw_gbps : NAN;
                    if (i == 0) v0 = v;
                    failed |= bad;
                    /* the terminal's columns are 9 wide: "failed" there, the note below says what */
                    if (bad) snprintf(cellb, sizeof cellb, "%s", markdown ? "failed check" : "failed");
                    else if (isnan(v)) snprintf(cellb, sizeof cellb, "-");
                    else snprintf(cellb, sizeof cellb, "%.2f", v);
                    fprintf(f, markdown ? " %s |" : " %9s", cellb);
                }
                for (int i = 1; i < nr; i++) {
                    const nvs_run_coll *x = nvs_run_coll_find(runs[i], colls[c], ns[m], sizes[s]);
                    double v = x && !nvs_report_failed_check(x) ? x->busbw_gbps : NAN;
                    if (isnan(v) || isnan(v0) || v0 <= 0) snprintf(cellb, sizeof cellb, "-");
                    else snprintf(cellb, sizeof cellb, "%.3f", v / v0);
                    fprintf(f, markdown ? " %s |" : " %12s", cellb);
                }
                fprintf(f, "\n");
            }
            if (failed)
                fprintf(f, "%s%s: the row's result check found wrong elements (its run's collectives' "
                           "tables give its busbw and how many): no measurement of the transport, and no ratio is "
                           "taken from it.\n", markdown ? "\n" : "", markdown ? "failed check" : "failed");
            if (markdown) fprintf(f, "\n");
            free(sizes);
        }
        free(ns);
    }
}

static nvs_result_t write_compare_md(const char *dir, const tp_result *t, int n, const char *host)
{
    char path[NVS_PATH_MAX + 32], title[512] = "Runs in detail:";
    snprintf(path, sizeof path, "%s/compare.md", dir);
    nvs_outfile o;
    NVS_CHECK(nvs_outfile_open(&o, path));
    FILE *f = o.f;
    fprintf(f, "# nvscale compare:");
    for (int i = 0; i < n; i++) fprintf(f, "%s %s", i ? "," : "", nvs_tp(t[i].kind)->name);
    fprintf(f, "%s%s\n\n", host ? " on " : "", host ? host : "");
    fprintf(f, "Each transport ran as its own `nvscale run` process (NCCL reads its settings once per process), in "
               "its own directory `<transport>/`. \"NCCL used\" is read from NCCL's own INFO log in each run "
               "(run.json \"transports\", at every GPU count; the column shows the largest one's, or the one that "
               "differs); a run whose transport differs at any GPU count from the one asked for is marked WRONG "
               "TRANSPORT. How to read it: docs/compare.md.\n\n");
    status_table(f, t, n, 1);
    for (int i = 0; i < n; i++)
        if (t[i].state == ST_FAILED && t[i].tail[0]) {
            fprintf(f, "Last lines of the failed %s run's stderr:\n\n```\n%s\n```\n\n", nvs_tp(t[i].kind)->name,
                    t[i].tail);
        }
    fprintf(f, "## busbw side by side\n\nThe out-of-place rows of each run (the in-place ones where a run has only "
               "those, said in the table's heading); the ratio columns are against the first transport.\n\n");
    busbw_tables(f, t, n, 1);
    nvs_run runs[NVS_TP_COUNT];
    int nr = 0;
    for (int i = 0; i < n; i++)
        if (t[i].loaded) {
            runs[nr] = t[i].run;
            snprintf(title + strlen(title), sizeof title - strlen(title), "%s R%d = %s", nr ? "," : "", nr + 1,
                     nvs_tp(t[i].kind)->name);
            nr++;
        }
    nvs_result_t res = NVS_OK;
    if (nr) {
        nvs_report rep = {.runs = runs, .nruns = nr, .title = title, .plots = NVS_PLOTS_NOT_REQUESTED};
        res = nvs_report_write_md(&rep, f);
    } else
        fprintf(f, "No transport produced a run: nothing to put side by side.\n");
    if (res != NVS_OK) {
        nvs_outfile_discard(&o);
        return res;
    }
    return nvs_outfile_commit(&o);
}

/* ---- the command ------------------------------------------------------------------------------------------- */

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The highest directory of DIR that is not there yet ("" when DIR is): what compare's mkdir -p makes, and removes
 * again (undo_dir) when it refuses the job once the topology is known. */
static void first_missing(const char *dir, char *top, size_t len)
{
    char p[NVS_PATH_MAX];
    struct stat sb;
    top[0] = '\0';
    snprintf(p, sizeof p, "%s", dir);
    while (p[0] && stat(p, &sb) != 0) {
        snprintf(top, len, "%s", p);
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) break;
        *slash = '\0';
    }
}

/* A job refused after the topology was discovered: its files go, and the directories compare made (only those, and
 * only while empty) */
static void undo_dir(const char *dir, const char *top)
{
    char p[NVS_PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/topology.json", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/topology.stderr.txt", dir);
    unlink(p);
    if (!top[0]) return;
    snprintf(p, sizeof p, "%s", dir);
    for (;;) {
        (void)rmdir(p);
        char *slash = strrchr(p, '/');
        if (!strcmp(p, top) || !slash || slash == p) break;
        *slash = '\0';
    }
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

int cmd_compare(int argc, char **argv)
{
    nvs_tp_kind kinds[NVS_TP_COUNT];
    int nk = 0, report_only = 0, pc = 0, rc = 0, have_list = 0;
    const char *dir_arg = NULL, *list = "all";
    char *pass[MAX_PASS + 1];
    char err[256], dir[NVS_PATH_MAX], prog[NVS_PATH_MAX], made_top[NVS_PATH_MAX] = "";

    pass[pc++] = (char *)"run"; /* argv[0] for nvs_config_parse_for */
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
            if (t ? have_list : dir_arg != NULL) /* the first would be silently lost */
                return usage_error("option given twice:", t ? "--transports" : "--out");
            const char *v = eq ? eq + 1 : argv[++i];
            if (t) {
                list = v;
                have_list = 1;
            } else {
                dir_arg = v;
            }
        } else if (!strcmp(a, "--report-only")) {
            report_only = 1;
        } else if (!strcmp(a, "--no-save")) {
            return usage_error("--no-save cannot be passed to the runs: compare needs their run.json", NULL);
        } else {
            if (pc == MAX_PASS) return usage_error("too many options", NULL);
            pass[pc++] = argv[i];
        }
    }
    pass[pc] = NULL;
    if ((nk = nvs_tp_parse_list(list, kinds, NVS_TP_COUNT, err, sizeof err)) < 0)
        return usage_error(err, NULL);
    if (dir_arg && (!*dir_arg || strlen(dir_arg) >= sizeof dir - 64)) return usage_error("invalid --out", dir_arg);
    /* before --report-only looks for it ("no such directory -") and before anything runs */
    const char *dash = dir_arg ? nvs_out_dash_why(dir_arg, 1) : NULL;
    if (dash) return nvs_cli_usage("compare", "--out %s: %s", dir_arg, dash);

    /* the options for `nvscale run`: validated here, so that a typo fails once, before anything runs */
    nvs_config cfg;
    int help = 0;
    nvs_config_defaults(&cfg);
    /* run's options, refused as compare's: "nvscale compare: ..." (they said "nvscale run: ..."); the tests' hooks
     * too (NVS_TEST_WRITE_FAIL: compare writes compare.json and the report) */
    if (nvs_config_parse_for(&cfg, "run", "compare", pc, pass, &help) != NVS_OK) return 2;
    if (help) return usage_error("--help of the run options: see 'nvscale run --help'", NULL);
    if (cfg.backend == NVS_BACKEND_MPI)
        return usage_error("--backend mpi runs host MPI collectives, which have no NCCL transport to compare", NULL);
    /* --gpus 1 alone: no run has two GPUs, so there is no transport to compare; every transport was skipped as
     * "1 GPU on this host", which is not what the host has, and compare exited 1 after creating DIR */
    int most = 0;
    for (int i = 0; i < cfg.n_gpu_counts; i++)
        if (cfg.gpu_counts[i] > most) most = cfg.gpu_counts[i];
    if (cfg.n_gpu_counts && most < 2)
        return usage_error("--gpus 1: one GPU has no transport to another; compare needs a GPU count of 2 or more, "
                           "e.g.", "--gpus 2");
    nvs_log_set_level(cfg.quiet ? NVS_LOG_WARN : NVS_LOG_INFO); /* progress of the runs, on stderr */
    if (report_only && pc > 1)
        return usage_error("--report-only runs nothing: run options make no sense with it, e.g.", pass[1]);
    /* the default directory is named after the time now: no run can be in it (it said "--report-only: no such
     * directory 'results/20261206-062424-compare'", a name the user never gave) */
    if (report_only && !dir_arg)
        return usage_error("--report-only needs --out DIR: the directory whose <transport>/run.json to compare", NULL);

    /* --report-only runs nothing, so a launcher is no obstacle (it was refused, and told to run every transport
     * again): rank 0 reads and writes, the other ranks' copies of the command stay silent */
    if (report_only && nvs_rt_launched_by_mpi() && nvs_rt_launcher_rank() != 0) return 0;
    if (!report_only && nvs_rt_launched_by_mpi()) {
        print_mpirun_sequence(kinds, nk, pc - 1, pass + 1, dir_arg ? dir_arg : "results/compare");
        return 2;
    }
    /* compare's runs are one process each, a thread per GPU, where run refuses --emulate-nodes above 1
     * (runtime_threads.c): every transport failed the same way, after the topology, exit 1 */
    if (cfg.emulate_nodes > 1) {
        fprintf(stderr, "nvscale compare: --emulate-nodes %d needs one process per rank, and compare runs each transport "
                        "as one process: run 'mpirun -np N nvscale compare --emulate-nodes %d ...' for the mpirun "
                        "commands that do it\nTry 'nvscale compare --help'.\n", cfg.emulate_nodes, cfg.emulate_nodes);
        return 2;
    }

    if (dir_arg) snprintf(dir, sizeof dir, "%s", dir_arg);
    else {
        time_t now = time(NULL);
        struct tm tm;
        char stamp[32];
        if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm))
            snprintf(stamp, sizeof stamp, "%ld", (long)now);
        snprintf(dir, sizeof dir, "results/%s-compare", stamp);
    }
    if (report_only && !is_dir(dir)) return usage_error("--report-only: no such directory", dir);
    /* DIR, where the runs and compare.md go, can be made and written before anything runs, as report's -o: one
     * that cannot (a file of that name, a parent that is a file, /proc) was the maker's "nvscale: error: cannot
     * create directory ...", naming neither compare nor --out */
    if ((rc = nvs_cli_output_dir_ok("compare", dir_arg ? "--out" : "--out (default)", dir))) return rc;
    if (!report_only) {
        /* DIR/<transport>.partial too: a killed run's checkpoint, which compare reads where the run itself left
         * nothing (find_run_json); the new child would refuse it as stale and its old rows read as this run's */
        for (int i = 0; i < nk; i++)
            for (int part = 0; part < 2; part++) {
                char p[NVS_PATH_MAX + 40];
                struct stat sb;
                snprintf(p, sizeof p, "%s/%s%s", dir, nvs_tp(kinds[i])->name, part ? ".partial" : "");
                if (stat(p, &sb) == 0) {
                    fprintf(stderr, "nvscale compare: %s already exists: compare does not mix new runs with old "
                                    "ones; choose another --out (or --report-only to compare what is there)\n", p);
                    return 2;
                }
            }
        if ((rc = child_program(prog, sizeof prog))) return rc;
        first_missing(dir, made_top, sizeof made_top);
        /* it said why; a --out that cannot be a directory (a file of that name, a parent that is a file or not
         * writable) is bad usage, exit 2 as the help says, only the system's own failures exit 1 */
        nvs_result_t made = nvs_mkdir_p(dir);
        if (made != NVS_OK) return nvs_exit_code(made);
        /* Ctrl-C or SIGTERM: the run going on stops as interrupted (compare_child.c passes it on), the transports
         * not begun are not, and compare.md is written of what there is (exit 130) */
        int e = nvs_interrupt_install();
        if (e) nvs_warn("compare: signals keep their default action (sigaction: %s)", strerror(e));
    }

    tp_result *t = calloc((size_t)nk, sizeof *t);
    nvs_run topo;
    memset(&topo, 0, sizeof topo);
    if (!t) {
        nvs_error("out of memory");
        return 1;
    }
    const char *host = NULL;
    if (!report_only) {
        nvs_result_t res = discover_topology(prog, dir, &topo);
        /* stopped while topo ran (Ctrl-C reaches it too): as any stop, exit 130 with compare.md of what there is,
         * here every transport "not run" (it was exit 1, "nvscale topo failed (killed by signal 2)") */
        if (res != NVS_OK && nvs_interrupted()) {
            for (int i = 0; i < nk; i++) {
                t[i].kind = kinds[i];
                t[i].state = ST_NOT_RUN;
                snprintf(t[i].why, sizeof t[i].why, "compare was interrupted (signal %d) before it began",
                         nvs_interrupted());
            }
        } else if (res != NVS_OK) {
            rc = nvs_exit_code(res);
            goto out;
        }
        int used[1024];
        /* --gpus beyond the GPUs of this host: each run stopped at it (run's "only 2 ranks (GPUs) in this run",
         * exit 2) after NCCL's start-up, every transport FAILED and compare exited 1; bad usage, said once */
        int all = res == NVS_OK ? nvs_tp_used_gpus(&topo.topology, 0, used, 1024) : 0;
        if (all > 0 && most > all) {
            fprintf(stderr, "nvscale compare: invalid value '%d' in --gpus: this host has %d GPU%s (nvscale topo), and "
                            "each transport runs on one host\nTry 'nvscale compare --help'.\n", most, all,
                    all > 1 ? "s" : "");
            undo_dir(dir, made_top);
            rc = 2;
            goto out;
        }
        int count = most;
        /* --placement best/worst may pick any GPUs: then every GPU of the host must qualify */
        if (cfg.placement != NVS_PLACE_FIRST) count = 0;
        int nused = nvs_tp_used_gpus(&topo.topology, count, used, 1024);
        for (int i = 0; i < nk && res == NVS_OK; i++) {
            nvs_tp_feasibility fz;
            t[i].kind = kinds[i];
            nvs_tp_feasible(kinds[i], &topo.topology, used, nused, &fz);
            snprintf(t[i].note, sizeof t[i].note, "%s", fz.note);
            if (!fz.feasible) {
                t[i].state = ST_SKIPPED;
                snprintf(t[i].why, sizeof t[i].why, "%s", fz.reason);
                nvs_warn("compare: %s: skipped: %s", nvs_tp(kinds[i])->name, fz.reason);
                continue;
            }
            if (fz.note[0]) nvs_warn("compare: %s: %s", nvs_tp(kinds[i])->name, fz.note);
            if (nvs_interrupted()) {
                t[i].state = ST_NOT_RUN;
                snprintf(t[i].why, sizeof t[i].why, "compare was interrupted (signal %d) before it began",
                         nvs_interrupted());
                continue;
            }
            run_one(prog, dir, pc - 1, pass + 1, &t[i]);
        }
    } else {
        int loaded = 0, unreadable = 0;
        for (int i = 0; i < nk; i++) {
            t[i].kind = kinds[i];
            load_one(dir, &t[i]);
            loaded += t[i].loaded;
            unreadable += t[i].state == ST_FAILED;
        }
        /* here the runs are the input: one that cannot be read (the reader said which file and what is wrong), or
         * none at all (a wrong --out), is bad input, exit 2, and DIR/compare.md, perhaps an earlier good one, is
         * not replaced by a page of FAILED rows */
        if (unreadable) {
            rc = 2;
            goto out;
        }
        if (!loaded) {
            fprintf(stderr, "nvscale compare: --report-only: no run to compare in '%s': none of", dir);
            for (int i = 0; i < nk; i++) fprintf(stderr, "%s %s/run.json", i ? "," : "", nvs_tp(kinds[i])->name);
            fprintf(stderr, " is there\n");
            rc = 2;
            goto out;
        }
        /* runs written by separate mpiruns may have been made with different options (-d float for one, -d double
         * for another, --inplace in): side by side they would differ in more than the transport. compare's own
         * runs share one set of options, so only here. Bad input: exit 2, compare.md left as it was */
        const nvs_run *lr[NVS_TP_COUNT];
        const char *ln[NVS_TP_COUNT];
        int nl = 0;
        for (int i = 0; i < nk; i++)
            if (t[i].loaded) {
                lr[nl] = &t[i].run;
                ln[nl++] = nvs_tp(kinds[i])->name;
            }
        char why[512];
        if (!nvs_tp_runs_alike(lr, ln, nl, why, sizeof why)) {
            fprintf(stderr, "nvscale compare: --report-only: the runs in '%s' were not made with the same options "
                            "(%s): a comparison of transports compares the same measurement; run them again with "
                            "the same -d, -o, -r, --inplace, -G, -n, -w, -m, -z, -a and --alloc, on the same host and GPUs (or see them all with 'nvscale report %s/*/run.json')\n",
                    dir, why, dir);
            rc = 2;
            goto out;
        }
    }

    int ran = 0, failed = 0, mismatch = 0;
    for (int i = 0; i < nk; i++) {
        if (t[i].loaded) {
            mark_unfinished(dir, &t[i]);
            failed += t[i].unfinished[0] != '\0';
            nvs_tp_verify(kinds[i], &t[i].run, &t[i].ver);
            if (!host) host = t[i].run.host;
            if (t[i].ver.verdict == NVS_TP_MISMATCH) {
                mismatch = 1;
                nvs_error("compare: %s: %s", nvs_tp(kinds[i])->name, t[i].ver.text);
            } else if (t[i].ver.verdict == NVS_TP_UNVERIFIED)
                nvs_warn("compare: %s: %s", nvs_tp(kinds[i])->name, t[i].ver.text);
        }
        ran += t[i].state == ST_RAN;
        failed += t[i].state == ST_FAILED;
    }
    nvs_result_t res = write_compare_md(dir, t, nk, host);
    printf("nvscale compare (%s):\n", dir);
    status_table(stdout, t, nk, 0);
    busbw_tables(stdout, t, nk, 0);
    printf("\nside-by-side report: %s/compare.md\n", dir);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        nvs_error("cannot write to stdout");
        if (res == NVS_OK) res = NVS_ERR_SYSTEM;
    }
    if (res != NVS_OK) rc = nvs_exit_code(res);
    else if (!report_only && nvs_interrupted()) rc = 130; /* what was measured is in compare.md */
    else if (failed) rc = 1;
    else if (!ran) {
        nvs_error("compare: no transport could %s on this machine: nothing was compared",
                  report_only ? "be read" : "run");
        rc = 1;
    } else if (mismatch) rc = 3;
out:
    for (int i = 0; i < nk; i++)
        if (t[i].loaded) nvs_run_free(&t[i].run);
    free(t);
    nvs_run_free(&topo);
    return rc;
}
