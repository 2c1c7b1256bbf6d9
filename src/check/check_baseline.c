/* Baseline = trimmed run.json (see check_baseline.h for what is kept and why). */
#include "check/check_baseline.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_read.h"
#include "core/log.h"
#include "core/out_file.h"

/* Top-level keys copied as they are, in schema order (docs/run-json.md). */
static const char *const keep[] = {"schema", "tool",     "command", "started_utc", "duration_s", "host",
                                   "env",    "versions", "world",   "ranks",       "topology",   "sweep",
                                   "scaling", "collectives", "p2p", "train", "transports", "result"};

static int copy_key(json_t *dst, json_t *src, const char *key)
{
    json_t *v = json_object_get(src, key);
    if (!v) return 0;
    json_t *c = json_deep_copy(v);
    return !c || json_object_set_new(dst, key, c) ? -1 : 0;
}

nvs_result_t nvs_baseline_from_text(const char *run_text, const char *source_path, char **out, char *err,
                                    size_t errlen)
{
    json_error_t je;
    *out = NULL;
    json_t *run = json_loads(run_text, JSON_REJECT_DUPLICATES, &je);
    if (!run || !json_is_object(run)) {
        snprintf(err, errlen, "line %d: not a JSON object: %s", je.line, run ? "" : je.text);
        json_decref(run);
        return NVS_ERR_INPUT;
    }
    json_t *b = json_object();
    int bad = !b;
    for (size_t i = 0; !bad && i < sizeof keep / sizeof keep[0]; i++) bad = copy_key(b, run, keep[i]) != 0;

    /* train: everything but the bucket list (hundreds of entries for big models; not a measurement) */
    json_t *train = bad ? NULL : json_object_get(b, "train");
    if (json_is_object(train) && json_object_get(train, "buckets")) bad = json_object_del(train, "buckets") != 0;
    /* transports: the per-N summary, not the per-channel list nor paths to logs that stay with the run */
    json_t *tr = bad ? NULL : json_object_get(b, "transports");
    for (size_t i = 0; json_is_array(tr) && !bad && i < json_array_size(tr); i++) {
        json_t *t = json_array_get(tr, i);
        if (!json_is_object(t)) continue;
        if (json_object_get(t, "channels")) bad |= json_object_del(t, "channels") != 0;
        if (json_object_get(t, "log_files")) bad |= json_object_del(t, "log_files") != 0;
    }
    if (!bad) {
        json_t *meta = json_pack("{s:s}", "source_run", source_path);
        bad = !meta || json_object_set_new(b, "baseline", meta) != 0;
    }
    char *text = bad ? NULL : json_dumps(b, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(b);
    json_decref(run);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return NVS_ERR_NOMEM;
    }
    /* json_dumps' memory comes from jansson's allocator (malloc by default); copy with a newline so the
     * caller frees with free() whatever jansson was configured with. */
    size_t len = strlen(text);
    *out = malloc(len + 2);
    if (*out) {
        memcpy(*out, text, len);
        (*out)[len] = '\n';
        (*out)[len + 1] = '\0';
    }
    json_free_t free_fn;
    json_get_alloc_funcs(NULL, &free_fn);
    free_fn(text);
    if (!*out) {
        snprintf(err, errlen, "out of memory");
        return NVS_ERR_NOMEM;
    }
    return NVS_OK;
}

nvs_result_t nvs_baseline_save(const char *run_path, const char *out_path)
{
    char *text = NULL, *btext = NULL, err[512];
    nvs_result_t res = nvs_read_text_file(run_path, NVS_RUN_MAX_BYTES, &text);
    if (res != NVS_OK) return res;
    res = nvs_baseline_from_text(text, run_path, &btext, err, sizeof err);
    free(text);
    if (res != NVS_OK) {
        fprintf(stderr, "nvscale check: %s: %s\n", run_path, err);
        return res;
    }
    res = nvs_write_text_file(out_path, btext);
    free(btext);
    return res;
}
