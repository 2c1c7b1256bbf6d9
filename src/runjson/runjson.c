/* run.json reader: see runjson.h. The entry points: loading a file (stat, size, JSON), the schema, the sections in
 * their order (each group's reader is its own runjson_*.c; runjson_read.h), what the caller needs present, and
 * freeing. The order of the sections here decides which problem of a file with several is the one reported. */
#include "runjson/runjson_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/out_file.h"

/* ---- entry points ------------------------------------------------------------------------------------------ */

void nvs_run_free(nvs_run *r)
{
    if (!r) return;
    free((char *)r->path);
    json_decref(r->root);
    free(r->argv);
    free(r->env);
    free(r->versions);
    free(r->ranks);
    free(r->topology.gpus);
    free(r->topology.pairs);
    free(r->topology.pair_index);
    for (size_t i = 0; i < r->nscaling; i++) {
        free(r->scaling[i].ranks);
        free(r->scaling[i].gpus);
    }
    free(r->scaling);
    free(r->colls);
    free(r->sweep_sizes);
    free(r->skipped);
    for (size_t i = 0; i < r->ntransports; i++) {
        free(r->transports[i].summary);
        free(r->transports[i].summary_counts);
    }
    free(r->transports);
    free(r->train.results);
    for (size_t i = 0; i < r->ntrains; i++) free(r->trains[i].results);
    free(r->trains);
    free(r->p2p.pairs);
    free(r->explain);
    memset(r, 0, sizeof *r);
}

static nvs_result_t from_json(json_t *root, const char *name, unsigned need, nvs_run *r, vctx *v)
{
    memset(r, 0, sizeof *r);
    r->path = strdup(name);
    if (!r->path) {
        v->nomem = 1;
        rj_fail(v, "out of memory");
        return NVS_ERR_NOMEM;
    }
    r->root = json_incref(root);
    if (!json_is_object(root)) {
        char d[80];
        rj_describe(root, d, sizeof d);
        rj_fail(v, "not a run.json: the top level is %s, expected an object", d);
        goto out;
    }
    json_t *s = json_object_get(root, "schema");
    if (!s) {
        rj_fail(v, "no \"schema\" key: not an nvscale run.json (expected \"schema\": \"%s\")", NVS_RUN_SCHEMA);
        goto out;
    }
    if (!json_is_string(s) || strcmp(json_string_value(s), NVS_RUN_SCHEMA)) {
        char d[80];
        rj_describe(s, d, sizeof d);
        if (json_is_string(s) && !strncmp(json_string_value(s), "nvscale.model/", 14))
            rj_fail(v, "schema is %s: a what-if projection (nvscale model --format json), not a measurement; this "
                       "reads the run.json of a run (\"%s\")", d, NVS_RUN_SCHEMA);
        else
            rj_fail(v, "schema is %s, expected \"%s\" (a file of another nvscale version, or not a run.json)", d,
                    NVS_RUN_SCHEMA);
        goto out;
    }
    r->schema = json_string_value(s);
    rj_read_command(v, r);
    if (!v->failed) rj_read_sweep(v, r);
    if (!v->failed) rj_read_ranks(v, r);
    if (!v->failed) rj_read_topology(v, r);
    if (!v->failed) rj_read_scaling(v, r);
    if (!v->failed) rj_read_collectives(v, r);
    if (!v->failed) rj_read_transports(v, r);
    if (!v->failed) rj_read_train(v, r);
    if (!v->failed) rj_read_p2p(v, r);
    if (!v->failed) rj_read_selftest(v, r);
    if (!v->failed) rj_read_sustain(v, r);
    if (!v->failed) rj_read_health(v, r);
    if (!v->failed) rj_read_explain(v, r);
    if (v->failed) goto out;
    if ((need & NVS_RUN_NEED_MEASURED) && !r->has_collectives && !rj_has_train_results(r) && !r->p2p.npairs)
        rj_fail(v, "nothing to report: no \"collectives\", no \"train\" results and no GPU pairs in \"p2p\" (a run "
                   "of `nvscale run`, `coll`, `train` or `p2p` has them)");
    else if ((need & NVS_RUN_NEED_COLLECTIVES) && !r->has_collectives)
        rj_fail(v, "no \"collectives\" array: nothing to report (a run of `nvscale run` or `nvscale coll` has one)");
    else if ((need & NVS_RUN_NEED_TRAIN) && (!r->train.present || !r->train.nresults))
        rj_fail(v, "no \"train\" results (a run of `nvscale train` or `nvscale run --model` has them)");
    else if ((need & NVS_RUN_NEED_TOPOLOGY) && !r->topology.present)
        rj_fail(v, "no \"topology\" section");
    else if ((need & NVS_RUN_NEED_P2P) && !r->p2p.present)
        rj_fail(v, "no \"p2p\" section (a run of `nvscale p2p` has one)");
out:
    if (v->failed) {
        nvs_result_t res = v->nomem ? NVS_ERR_NOMEM : NVS_ERR_INPUT;
        nvs_run_free(r);
        return res;
    }
    return NVS_OK;
}

nvs_result_t nvs_run_from_json(json_t *root, const char *name, unsigned need, nvs_run *out, char *err,
                               size_t errlen)
{
    vctx v = {.name = name, .err = err, .errlen = errlen};
    if (err && errlen) err[0] = '\0';
    return from_json(root, name, need, out, &v);
}

/* The parsed document ROOT (NULL: JE says why) validated as the run NAME. */
static nvs_result_t load_root(json_t *root, const json_error_t *je, const char *name, unsigned need, nvs_run *out)
{
    if (!root) {
        if (je->line <= 0)
            nvs_error("%s: cannot read: %s", name, je->text);
        else
            nvs_error("%s: not JSON: %s (line %d, column %d)", name, je->text, je->line, je->column);
        return NVS_ERR_INPUT;
    }
    vctx v = {.name = name};
    nvs_result_t res = from_json(root, name, need, out, &v);
    json_decref(root); /* from_json holds its own reference */
    return res;
}

/* "-": the run piped in (core/out_file.h), named "standard input" in messages and as the run's path. */
static nvs_result_t load_stdin(unsigned need, nvs_run *out)
{
    const char *name = nvs_input_name("-");
    char *text = NULL;
    nvs_result_t r = nvs_read_text_file("-", NVS_RUN_MAX_BYTES, &text);
    if (r != NVS_OK) return r; /* it said why */
    if (!text[0]) {
        nvs_error("%s: empty, not a run.json", name);
        free(text);
        return NVS_ERR_INPUT;
    }
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    free(text);
    return load_root(root, &je, name, need, out);
}

nvs_result_t nvs_run_load(const char *path, unsigned need, nvs_run *out)
{
    memset(out, 0, sizeof *out);
    if (nvs_input_is_stdin(path)) return load_stdin(need, out);
    struct stat st;
    if (stat(path, &st) != 0) {
        nvs_error("%s: %s", path, strerror(errno));
        return NVS_ERR_INPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        nvs_error("%s: is a directory, not a run.json file", path);
        return NVS_ERR_INPUT;
    }
    if (!S_ISREG(st.st_mode)) {
        if (!nvs_input_file_ok(path, NULL, 0)) /* core/out_file.h names what it is (a FIFO, a device) */
            nvs_error("%s: not a regular file", path);
        return NVS_ERR_INPUT;
    }
    if (st.st_size == 0) {
        nvs_error("%s: empty file, not a run.json", path);
        return NVS_ERR_INPUT;
    }
    if ((size_t)st.st_size > NVS_RUN_MAX_BYTES) {
        nvs_error("%s: %lld bytes: too large to be a run.json (limit %zu)", path, (long long)st.st_size,
                  (size_t)NVS_RUN_MAX_BYTES);
        return NVS_ERR_INPUT;
    }
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    return load_root(root, &je, path, need, out);
}

json_t *nvs_json_load_input(const char *path, size_t flags, json_error_t *je)
{
    if (!nvs_input_is_stdin(path)) return json_load_file(path, flags, je);
    char *text = NULL;
    if (nvs_read_text_file(path, NVS_RUN_MAX_BYTES, &text) != NVS_OK) {
        if (je) {
            memset(je, 0, sizeof *je);
            snprintf(je->text, sizeof je->text, "cannot read it");
        }
        return NULL;
    }
    json_t *root = json_loads(text, flags, je);
    free(text);
    return root;
}
