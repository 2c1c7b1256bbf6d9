/* run.json reader: what says which run this was and how it ended, whatever it measured: tool, command and argv,
 * started_utc, duration_s, host, env, versions, result (runjson_write.c's common head), world, sweep's time basis
 * and check flag, and ranks (run/out_json.c). Its own file: every subcommand reads these, none of them measured. */
#include "runjson/runjson_read.h"

#include <limits.h>
#include <string.h>

void rj_read_command(vctx *v, nvs_run *r)
{
    json_t *t = rj_typed(v, r->root, "tool", "", JSON_OBJECT, 0);
    if (t) {
        r->tool_name = rj_str(v, t, "name", "tool", 0);
        r->tool_version = rj_str(v, t, "version", "tool", 0);
        r->tool_git = rj_str(v, t, "git", "tool", 0);
    }
    json_t *c = rj_typed(v, r->root, "command", "", JSON_OBJECT, 0);
    if (c) {
        r->subcommand = rj_str(v, c, "subcommand", "command", 0);
        r->launcher = rj_str(v, c, "launcher", "command", 0);
        r->backend = rj_str(v, c, "backend", "command", 0);
        json_t *a = rj_typed(v, c, "argv", "command", JSON_ARRAY, 0);
        if (a) {
            r->argv = rj_alloc(v, json_array_size(a), sizeof *r->argv);
            for (size_t i = 0; r->argv && i < json_array_size(a); i++) {
                json_t *e = json_array_get(a, i);
                if (!json_is_string(e)) {
                    char p[PATH_MAX_LEN];
                    rj_type_fail(v, rj_ipath(p, "command.argv", i), "a string", e);
                    break;
                }
                r->argv[r->argc++] = json_string_value(e);
            }
        }
    }
    r->started_utc = rj_str(v, r->root, "started_utc", "", 0);
    r->duration_s = rj_num(v, r->root, "duration_s", "", 0);
    r->host = rj_str(v, r->root, "host", "", 0);
    r->env = rj_kv(v, r->root, "env", &r->nenv);
    r->versions = rj_kv(v, r->root, "versions", &r->nversions);
    r->world_size = r->world_nodes = -1;
    json_t *w = rj_typed(v, r->root, "world", "", JSON_OBJECT, 0);
    if (w) {
        r->world_size = (int)rj_int(v, w, "size", "world", 1, 1000000, -1, 0);
        r->world_nodes = (int)rj_int(v, w, "nodes", "world", 1, 1000000, -1, 0);
    }
    /* which rank's time the bandwidths were computed from (-a): a reader showing a time beside them must show
     * that one, or the row disagrees with itself (bytes / time != algbw) */
    r->time_basis = NVS_RUN_TIME_SLOWEST;
    json_t *sw = rj_typed(v, r->root, "sweep", "", JSON_OBJECT, 0);
    const char *tb = sw ? rj_str(v, sw, "time_basis", "sweep", 0) : NULL;
    r->unvalidated = sw && rj_int(v, sw, "check", "sweep", 0, 1, 1, 0) == 0;
    /* bounds: the options' own (src/cli/options_sweep.c: -w 0..1000000, -m 1..1024, -z 0..2) */
    r->sweep_warmup = sw ? (int)rj_int(v, sw, "warmup", "sweep", 0, 1000000, -1, 0) : -1;
    r->sweep_agg_iters = sw ? (int)rj_int(v, sw, "agg_iters", "sweep", 1, 1024, -1, 0) : -1;
    /* -z as a number since 6 December 2026 (1: a barrier after each wait, 2: none, as nccl-tests); before, a boolean
     * whose true was the wait alone, today's 2 */
    json_t *bl = sw ? json_object_get(sw, "blocking") : NULL;
    if (json_is_boolean(bl))
        r->sweep_blocking = json_is_true(bl) ? 2 : 0;
    else
        r->sweep_blocking = sw ? (int)rj_int(v, sw, "blocking", "sweep", 0, 2, -1, 0) : -1;
    r->sweep_alloc = sw ? rj_str(v, sw, "alloc", "sweep", 0) : NULL;
    if (tb) {
        static const char *const basis[] = {"rank0", "mean", "fastest", "slowest"};
        int k = 0;
        while (k < 4 && strcmp(tb, basis[k])) k++;
        if (k == 4) rj_fail(v, "sweep.time_basis: '%s' is none of rank0, mean, fastest, slowest", tb);
        else r->time_basis = k;
    }
    json_t *res = rj_typed(v, r->root, "result", "", JSON_OBJECT, 0);
    r->result_exit_code = -1;
    r->result_wrong_total = -1;
    if (res) {
        /* the three values runjson_write's nvs_rj_set_result writes; a reader that acts on the status (check)
         * must not take a misspelt one for a failure or a success */
        r->result_status = rj_str(v, res, "status", "result", 1);
        static const char *const known[] = {"ok", "wrong", "failed", "interrupted", "running", "error"};
        int ok = !r->result_status;
        for (size_t k = 0; !ok && k < sizeof known / sizeof known[0]; k++) ok = !strcmp(r->result_status, known[k]);
        if (!ok)
            rj_type_fail(v, "result.status", "\"ok\", \"wrong\", \"failed\", \"interrupted\" or \"running\"",
                         json_object_get(res, "status"));
        r->result_reason = rj_str(v, res, "reason", "result", 0);
        r->result_exit_code = (int)rj_int(v, res, "exit_code", "result", 0, 255, -1, 0);
        r->result_wrong_total = rj_int(v, res, "wrong_total", "result", 0, LLONG_MAX, -1, 0);
    }
}

void rj_read_ranks(vctx *v, nvs_run *r)
{
    json_t *a = rj_typed(v, r->root, "ranks", "", JSON_ARRAY, 0);
    if (!a || !(r->ranks = rj_alloc(v, json_array_size(a), sizeof *r->ranks))) return;
    for (size_t i = 0; i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "ranks", p);
        if (!e) break;
        nvs_run_rank *k = &r->ranks[r->nranks++];
        k->rank = (int)rj_int(v, e, "rank", p, 0, 1000000000, -1, 1);
        k->node = (int)rj_int(v, e, "node", p, 0, 1000000000, -1, 0);
        k->local_rank = (int)rj_int(v, e, "local_rank", p, 0, 1000000000, -1, 0);
        k->device = (int)rj_int(v, e, "device", p, -1, 1000000, -1, 0);
        k->topo_gpu = (int)rj_int(v, e, "topo_gpu", p, -1, 1000000000, -1, 0);
        k->host = rj_str(v, e, "host", p, 0);
        k->gpu = rj_str(v, e, "gpu", p, 0);
        k->pci_bus_id = rj_str(v, e, "pci_bus_id", p, 0);
        k->memory_bytes = rj_bytes(v, e, "memory_bytes", p);
    }
}
