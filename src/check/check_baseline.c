/* Baseline = trimmed run.json (see check_baseline.h for what is kept and why). */
#include "check/check_baseline.h"

#include "core/log.h"
#include "runjson/runjson_write.h"

/* Top-level keys copied as they are, in schema order (docs/run-json.md). */
static const char *const keep[] = {"schema", "tool",     "command", "started_utc", "duration_s", "host",
                                   "env",    "versions", "world",   "ranks",       "topology",   "sweep",
                                   "scaling", "collectives", "p2p", "train", "trains", "transports", "result"};

static int copy_key(json_t *dst, json_t *src, const char *key)
{
    json_t *v = json_object_get(src, key);
    if (!v) return 0;
    json_t *c = json_deep_copy(v);
    return !c || json_object_set_new(dst, key, c) ? -1 : 0;
}

json_t *nvs_baseline_build(const nvs_run *run)
{
    json_t *b = json_object();
    int bad = !b;
    for (size_t i = 0; !bad && i < sizeof keep / sizeof keep[0]; i++) bad = copy_key(b, run->root, keep[i]) != 0;

    /* train and every workload of trains (each is judged: check_eval.c): everything but the bucket list
     * (hundreds of entries for big models; not a measurement) */
    json_t *train = bad ? NULL : json_object_get(b, "train");
    if (json_is_object(train) && json_object_get(train, "buckets")) bad = json_object_del(train, "buckets") != 0;
    json_t *trains = bad ? NULL : json_object_get(b, "trains");
    for (size_t i = 0; json_is_array(trains) && !bad && i < json_array_size(trains); i++) {
        json_t *t = json_array_get(trains, i);
        if (json_is_object(t) && json_object_get(t, "buckets")) bad = json_object_del(t, "buckets") != 0;
    }
    /* transports: the per-N summary, not the per-channel list nor paths to logs that stay with the run */
    json_t *tr = bad ? NULL : json_object_get(b, "transports");
    for (size_t i = 0; json_is_array(tr) && !bad && i < json_array_size(tr); i++) {
        json_t *t = json_array_get(tr, i);
        if (!json_is_object(t)) continue;
        if (json_object_get(t, "channels")) bad |= json_object_del(t, "channels") != 0;
        if (json_object_get(t, "log_files")) bad |= json_object_del(t, "log_files") != 0;
    }
    if (!bad) {
        /* the path as given: a file name need not be UTF-8, which json_pack's "s" refuses */
        json_t *meta = json_object(), *src = nvs_rj_text(run->path);
        if (!meta || !src || json_object_set_new(meta, "source_run", src) != 0) { /* set_new took src */
            json_decref(meta);
            if (!meta) json_decref(src);
            bad = 1;
        } else {
            bad = json_object_set_new(b, "baseline", meta) != 0;
        }
    }
    if (bad) {
        json_decref(b);
        return NULL;
    }
    return b;
}

nvs_result_t nvs_baseline_save(const nvs_run *run, const char *out_path)
{
    json_t *b = nvs_baseline_build(run);
    if (!b) {
        nvs_error("out of memory building the baseline of %s", run->path);
        return NVS_ERR_NOMEM;
    }
    nvs_result_t res = nvs_rj_save_file(b, out_path);
    json_decref(b);
    return res;
}
