/* run.json for topo/p2p: see topo_runjson.h. */
#include "topo_runjson.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/log.h"
#include "../src/out_file.h"
#include "../src/version.h"

json_t *nvs_topo_run_doc(const nvs_config *cfg, const char *launcher)
{
    json_t *doc = json_object(), *tool = json_object(), *cmd = json_object(), *argv = json_array();
    if (!doc || !tool || !cmd || !argv) {
        json_decref(doc);
        json_decref(tool);
        json_decref(cmd);
        json_decref(argv);
        return NULL;
    }
    json_object_set_new(doc, "schema", json_string("nvscale.run/1"));
    json_object_set_new(tool, "name", json_string("nvscale"));
    json_object_set_new(tool, "version", json_string(NVS_VERSION));
    json_object_set_new(tool, "git", json_string(NVS_GIT_REV));
    json_object_set_new(doc, "tool", tool);
    json_array_append_new(argv, json_string("nvscale"));
    for (int i = 0; i < cfg->argc; i++) json_array_append_new(argv, json_string(cfg->argv[i]));
    json_object_set_new(cmd, "subcommand", json_string(cfg->subcommand ? cfg->subcommand : "?"));
    json_object_set_new(cmd, "argv", argv);
    json_object_set_new(cmd, "launcher", launcher ? json_string(launcher) : json_null());
    json_object_set_new(doc, "command", cmd);
    /* the same provenance as every run.json: when, where, which libraries, which NCCL settings */
    char stamp[32], host[64] = "unknown";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) && strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm))
        json_object_set_new(doc, "started_utc", json_string(stamp));
    if (gethostname(host, sizeof host - 1) == 0) json_object_set_new(doc, "host", json_string(host));
    nvs_versions v;
    nvs_versions_collect(&v);
    json_object_set_new(doc, "versions", nvs_versions_json(&v));
    json_object_set_new(doc, "env", nvs_env_json());
    return doc;
}

nvs_result_t nvs_topo_save_run(const nvs_config *cfg, const json_t *doc)
{
    if (!cfg->save) return NVS_OK;
    char dir[NVS_PATH_MAX + 64];
    if (cfg->out_dir[0])
        snprintf(dir, sizeof dir, "%s", cfg->out_dir);
    else {
        time_t now = time(NULL);
        struct tm tm;
        char stamp[32];
        if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm)) {
            nvs_error("cannot format the current time for the result directory");
            return NVS_ERR_SYSTEM;
        }
        snprintf(dir, sizeof dir, "results/%s-%s", stamp, cfg->subcommand ? cfg->subcommand : "run");
    }
    NVS_CHECK(nvs_mkdir_p(dir));
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!text) {
        nvs_error("cannot serialize run.json");
        return NVS_ERR_NOMEM;
    }
    size_t tl = strlen(text);
    char *withnl = malloc(tl + 2);
    if (!withnl) {
        free(text);
        return NVS_ERR_NOMEM;
    }
    memcpy(withnl, text, tl);
    withnl[tl] = '\n';
    withnl[tl + 1] = '\0';
    free(text);
    char path[NVS_PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/run.json", dir);
    nvs_result_t r = nvs_write_text_file(path, withnl);
    free(withnl);
    if (r == NVS_OK && !cfg->quiet) fprintf(stderr, "nvscale %s: wrote %s\n", cfg->subcommand, path);
    return r;
}

nvs_result_t nvs_topo_print_json(const json_t *doc, FILE *to)
{
    if (json_dumpf(doc, to, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 || fputc('\n', to) == EOF ||
        fflush(to) != 0 || ferror(to)) {
        nvs_error("cannot write JSON to the output");
        return NVS_ERR_SYSTEM;
    }
    return NVS_OK;
}
