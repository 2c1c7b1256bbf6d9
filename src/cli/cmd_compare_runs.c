/* nvscale compare: the child processes (nvscale topo, then one nvscale run per transport, each with its
 * environment and directory), their run.json read back (or, with --report-only, read as another left them), and
 * the directory compare made, removed again when it refuses the job (cmd_compare_priv.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_common.h"
#include "cli/cmd_compare_priv.h"
#include "compare/compare.h"
#include "compare/compare_child.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "core/out_file.h"
#include "runjson/runjson.h"

extern char **environ;

#define TOPO_MAX_BYTES ((size_t)64 << 20) /* topology JSON of a large node is well under 1 MiB */

/* ---- topology ---------------------------------------------------------------------------------------------- */

nvs_result_t nvs_cc_discover_topology(const char *prog, const char *dir, nvs_run *topo)
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

void nvs_cc_run_one(const char *prog, const char *dir, int pc, char **pass, tp_result *t)
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
                snprintf(t->unfinished, sizeof t->unfinished,
                         "its run.json says %s, but the process did not end well (%s): "
                         "its rows are what it measured",
                         t->run.result_status ? "ok" : "no result", s);
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
void nvs_cc_load_one(const char *dir, tp_result *t)
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
void nvs_cc_mark_unfinished(const char *dir, tp_result *t)
{
    const char *st = t->run.result_status;
    if (!t->loaded || !st || !strcmp(st, "ok")) return;
    const char *why = t->run.result_reason;
    snprintf(t->unfinished, sizeof t->unfinished, "the run did not end well (%s%s%.500s): its rows are what it "
             "measured before", st, why ? ": " : "", why ? why : "");
    nvs_error("compare: %s: %s: %s", nvs_tp(t->kind)->name, t->run.path ? t->run.path : dir, t->unfinished);
}

/* ---- the directory --------------------------------------------------------------------------------------- */

/* The highest directory of DIR that is not there yet ("" when DIR is): what compare's mkdir -p makes, and removes
 * again (undo_dir) when it refuses the job once the topology is known. */
void nvs_cc_first_missing(const char *dir, char *top, size_t len)
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
void nvs_cc_undo_dir(const char *dir, const char *top)
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
