/* run.json's common parts and the results directories: see runjson_write.h. */
#include "runjson/runjson_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out_file.h"

extern char **environ;

/* One serialization for every run.json: one space of indent (a 1024-GPU run is a few MB), keys in the order
 * written, 10 significant digits (microsecond times of multi-second steps keep their last digit). */
#define NVS_RJ_DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

json_t *nvs_rj_env(void)
{
    json_t *e = json_object();
    if (!e) return NULL;
    for (char **p = environ; p && *p; p++) {
        const char *eq = strchr(*p, '=');
        if (!eq) continue;
        size_t klen = (size_t)(eq - *p);
        int keep = (klen > 5 && !strncmp(*p, "NCCL_", 5)) || (klen == 20 && !strncmp(*p, "CUDA_VISIBLE_DEVICES", 20)) ||
                   (klen == 17 && !strncmp(*p, "CUDA_DEVICE_ORDER", 17));
        if (!keep) continue;
        char key[256];
        if (klen >= sizeof key) continue;
        memcpy(key, *p, klen);
        key[klen] = '\0';
        json_object_set_new(e, key, json_string(eq + 1));
    }
    return e;
}

json_t *nvs_rj_versions(const nvs_versions *v)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "nvscale", v->nvscale, "git",
                     v->git, "nccl", v->nccl, "nccl_headers", v->nccl_headers, "cuda_runtime", v->cuda_runtime,
                     "cuda_driver", v->cuda_driver, "nvidia_driver", v->nvidia_driver, "cublas", v->cublas, "mpi",
                     v->mpi, "hwloc", v->hwloc, "jansson", v->jansson, "blas", v->blas);
}

void nvs_rj_utc_stamp(long t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm)) snprintf(buf, len, "%ld", t);
}

void nvs_rj_default_dir(const char *subcommand, char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    char stamp[32];
    if (!gmtime_r(&t, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm))
        snprintf(stamp, sizeof stamp, "%ld", (long)t);
    snprintf(buf, len, "results/%s-%s", stamp, subcommand ? subcommand : "run");
}

json_t *nvs_rj_doc_new(const nvs_rj_head *h)
{
    json_t *doc = json_object(), *argv = json_array(), *cmd = json_object();
    if (!doc || !argv || !cmd) {
        json_decref(doc);
        json_decref(argv);
        json_decref(cmd);
        return NULL;
    }
    nvs_versions collected;
    const nvs_versions *v = h->versions;
    if (!v) {
        nvs_versions_collect(&collected);
        v = &collected;
    }
    char stamp[32], host[64] = "unknown";
    if (h->started_utc)
        snprintf(stamp, sizeof stamp, "%s", h->started_utc);
    else
        nvs_rj_utc_stamp((long)time(NULL), stamp, sizeof stamp);
    if (h->host)
        snprintf(host, sizeof host, "%s", h->host);
    else if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "unknown");
    json_object_set_new(doc, "schema", json_string(NVS_RUN_SCHEMA));
    json_object_set_new(doc, "tool", json_pack("{s:s, s:s, s:s}", "name", "nvscale", "version", v->nvscale, "git",
                                               v->git));
    json_array_append_new(argv, json_string("nvscale"));
    for (int i = 0; i < h->argc; i++) json_array_append_new(argv, json_string(h->argv[i]));
    json_object_set_new(cmd, "subcommand", json_string(h->subcommand ? h->subcommand : "?"));
    json_object_set_new(cmd, "argv", argv);
    json_object_set_new(cmd, "launcher", h->launcher ? json_string(h->launcher) : json_null());
    if (h->backend) json_object_set_new(cmd, "backend", json_string(h->backend));
    json_object_set_new(doc, "command", cmd);
    json_object_set_new(doc, "started_utc", json_string(stamp));
    json_object_set_new(doc, "host", json_string(host));
    json_object_set_new(doc, "env", nvs_rj_env());
    json_object_set_new(doc, "versions", nvs_rj_versions(v));
    return doc;
}

json_t *nvs_rj_num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *nvs_rj_int(long long v) { return v >= 0 ? json_integer((json_int_t)v) : json_null(); }

int nvs_rj_set_result(json_t *doc, nvs_result_t status, long long wrong_total)
{
    const char *st = status == NVS_OK ? "ok" : status == NVS_ERR_WRONG ? "wrong" : "error";
    return json_object_set_new(doc, "result", json_pack("{s:s, s:i, s:I}", "status", st, "exit_code",
                                                        nvs_exit_code(status), "wrong_total",
                                                        (json_int_t)wrong_total));
}

nvs_result_t nvs_rj_save_file(const json_t *doc, const char *path)
{
    char *text = json_dumps(doc, NVS_RJ_DUMP_FLAGS);
    if (!text) {
        nvs_error("cannot serialize %s (out of memory)", path);
        return NVS_ERR_NOMEM;
    }
    nvs_outfile o;
    nvs_result_t r = nvs_outfile_open(&o, path);
    if (r == NVS_OK) {
        if (fputs(text, o.f) == EOF || fputc('\n', o.f) == EOF) {
            nvs_outfile_discard(&o);
            nvs_error("cannot write %s", path);
            r = NVS_ERR_SYSTEM;
        } else {
            r = nvs_outfile_commit(&o);
        }
    }
    free(text);
    return r;
}

nvs_result_t nvs_rj_save(const json_t *doc, const char *dir)
{
    NVS_CHECK(nvs_mkdir_p(dir));
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    return nvs_rj_save_file(doc, path);
}

nvs_result_t nvs_rj_print(const json_t *doc, FILE *to)
{
    if (json_dumpf(doc, to, NVS_RJ_DUMP_FLAGS) != 0 || fputc('\n', to) == EOF || fflush(to) != 0 || ferror(to)) {
        nvs_error("cannot write JSON to the output");
        return NVS_ERR_SYSTEM;
    }
    return NVS_OK;
}
