/* run.json's common parts and the results directories: see runjson_write.h. */
#include "runjson/runjson_write.h"

#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/escape.h"
#include "core/host_name.h"
#include "core/launch_env.h"
#include "core/log.h"
#include "core/out_file.h"

extern char **environ;

json_t *nvs_rj_text(const char *s)
{
    json_t *j = json_string(s);
    if (j || !s) return j;
    size_t n = NVS_ESC_SIZE(strlen(s));
    char *buf = malloc(n);
    if (!buf) return NULL;
    j = json_string(nvs_esc_term(s, buf, n));
    free(buf);
    return j;
}

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
        json_object_set_new(e, key, nvs_rj_text(eq + 1)); /* a value that is not UTF-8 made visible, not dropped */
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
    else
        nvs_host_name(host, sizeof host);
    json_object_set_new(doc, "schema", json_string(NVS_RUN_SCHEMA));
    json_object_set_new(doc, "tool", json_pack("{s:s, s:s, s:s}", "name", "nvscale", "version", v->nvscale, "git",
                                               v->git));
    json_array_append_new(argv, json_string("nvscale"));
    /* every argument, one that is not UTF-8 (a Latin-1 file name) made visible: dropped, it shifted the rest */
    for (int i = 0; i < h->argc; i++) json_array_append_new(argv, nvs_rj_text(h->argv[i]));
    json_object_set_new(cmd, "subcommand", json_string(h->subcommand ? h->subcommand : "?"));
    json_object_set_new(cmd, "argv", argv);
    json_object_set_new(cmd, "launcher", h->launcher ? json_string(h->launcher) : json_null());
    if (h->backend) json_object_set_new(cmd, "backend", json_string(h->backend));
    if (h->no_gpu && *h->no_gpu) json_object_set_new(cmd, "no_gpu", nvs_rj_text(h->no_gpu));
    json_object_set_new(doc, "command", cmd);
    json_object_set_new(doc, "started_utc", json_string(stamp));
    json_object_set_new(doc, "host", json_string(host));
    json_object_set_new(doc, "env", nvs_rj_env());
    json_object_set_new(doc, "versions", nvs_rj_versions(v));
    return doc;
}

json_t *nvs_rj_num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *nvs_rj_bytes(double v)
{
    return isfinite(v) && v >= 0 && v <= 9007199254740992.0 ? json_integer((json_int_t)llround(v)) : json_null();
}

json_t *nvs_rj_int(long long v) { return v >= 0 ? json_integer((json_int_t)v) : json_null(); }

int nvs_rj_set_result_reason(json_t *doc, nvs_result_t status, long long wrong_total, const char *reason)
{
    const char *st = status == NVS_OK              ? "ok"
                     : status == NVS_ERR_WRONG       ? "wrong"
                     : status == NVS_ERR_INTERRUPTED ? "interrupted"
                                                     : "failed";
    json_t *r = json_pack("{s:s, s:i, s:I}", "status", st, "exit_code", nvs_exit_code(status), "wrong_total",
                          (json_int_t)wrong_total);
    if (r && status != NVS_OK)
        json_object_set_new(r, "reason", json_string(reason && *reason ? reason : nvs_result_text(status)));
    return json_object_set_new(doc, "result", r);
}

int nvs_rj_set_result(json_t *doc, nvs_result_t status, long long wrong_total)
{
    return nvs_rj_set_result_reason(doc, status, wrong_total, NULL);
}

int nvs_rj_set_running(json_t *doc, long long wrong_total)
{
    return json_object_set_new(doc, "result", json_pack("{s:s, s:I, s:s}", "status", "running", "wrong_total",
                                                        (json_int_t)wrong_total, "reason",
                                                        "a checkpoint: the run had not ended when this was written"));
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
            int e = errno;
            nvs_outfile_discard(&o);
            nvs_error("cannot write %s: %s", path, strerror(e));
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

nvs_result_t nvs_rj_check_out_dir(const char *sub, const char *out)
{
    if (!out || !*out) return NVS_OK;
    struct stat st;
    char why[4096 + 160];
    /* the flag parsers refuse it first (as their other bad values); said here too, so that a caller that did not
     * (a new subcommand, a path built by a program) never makes a directory named '-' for standard output */
    const char *dash = nvs_out_dash_why(out, 1);
    if (dash) {
        fprintf(nvs_stderr_once(), "nvscale %s: --out %s: %s\n", sub, out, dash);
        return NVS_ERR_USAGE;
    }
    /* it ("it exists", as if a run were there) or an ancestor to be made (refused by mkdir once launched) */
    if (nvs_link_to_nothing(out, why, sizeof why)) {
        fprintf(nvs_stderr_once(), "nvscale %s: --out %s: %s\n", sub, out, why);
        return NVS_ERR_USAGE;
    }
    if (lstat(out, &st) == 0) {
        fprintf(nvs_stderr_once(),
                "nvscale %s: --out %s: it exists: nvscale does not mix a new run with an earlier one's files; "
                "choose another --out or remove it\n",
                sub, out);
        return NVS_ERR_USAGE;
    }
    /* "new/." and "new/.." name new or its parent once new is made: directories that exist by then */
    const char *last = strrchr(out, '/');
    last = last ? last + 1 : out;
    if (!strcmp(last, ".") || !strcmp(last, "..")) {
        fprintf(nvs_stderr_once(), "nvscale %s: --out %s: ends in '%s': name the new directory itself (nvscale makes "
                                   "it, and never writes into one that exists)\n", sub, out, last);
        return NVS_ERR_USAGE;
    }
    /* the nearest existing ancestor must be a directory we can write in */
    char anc[4096];
    /* a name longer than the file system takes: refused here, not by the run's mkdir once launched, as a runtime
     * error ("nvscale: error: cannot create directory ...: File name too long") */
    if (nvs_nearest_existing(out, 1, anc, sizeof anc) != 0 || !nvs_names_fit(out, anc)) {
        fprintf(nvs_stderr_once(), "nvscale %s: --out %s: path too long\n", sub, out);
        return NVS_ERR_USAGE;
    }
    if (stat(anc, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(nvs_stderr_once(), "nvscale %s: --out %s: %s is not a directory\n", sub, out, anc);
        return NVS_ERR_USAGE;
    }
    /* a directory made there and removed, as the run will make --out's: access(W_OK) is not enough (root passes it
     * on /proc and /sys, where nothing can be made, and on a read-only file system). Found here, before the launch,
     * every rank refuses it and rank 0 alone says it (nvs_stderr_once); found by rank 0's mkdir once launched, it
     * was said by every rank that srun started without an MPI of its own (each one a world of one). */
    char probe[4096 + 32];
    snprintf(probe, sizeof probe, "%s/.nvscale-probe-XXXXXX", anc);
    if (access(anc, W_OK) != 0 || !mkdtemp(probe)) {
        /* mkdir in /proc fails with ENOENT, which would read as if the directory were not there */
        fprintf(nvs_stderr_once(), "nvscale %s: --out %s: cannot write in %s: %s\n", sub, out, anc,
                errno == ENOENT ? "no directory can be made there" : strerror(errno));
        return NVS_ERR_USAGE;
    }
    (void)rmdir(probe);
    return NVS_OK;
}

/* The parent directories the last nvs_rj_open_run_dir of this process made (results/, or the parents of --out), as
 * mkdir answered (nvs_mkdir_made). A run refused once launched removes them again (nvs_rj_unmake_parents). One run
 * directory per process: rank 0's. */
static nvs_made_dirs made_parents;

void nvs_rj_unmake_parents(void) { nvs_unmake_dirs(&made_parents); }

nvs_result_t nvs_rj_open_run_dir(const char *out, const char *subcommand, char *final, size_t final_len, char *partial,
                                 size_t partial_len)
{
    char base[4096];
    if (out && *out)
        snprintf(base, sizeof base, "%s", out);
    else
        nvs_rj_default_dir(subcommand, base, sizeof base);
    /* the parent first (results/, or the user's path) */
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", base);
    char *slash = strrchr(parent, '/');
    made_parents.any = 0;
    if (slash && slash != parent) {
        *slash = '\0';
        nvs_result_t r = nvs_mkdir_made(parent, &made_parents);
        if (r != NVS_OK) {
            nvs_rj_unmake_parents();
            return r;
        }
    }
    for (int k = 1; k < 1000; k++) {
        if (k == 1)
            snprintf(final, final_len, "%s", base);
        else
            snprintf(final, final_len, "%s-%d", base, k);
        snprintf(partial, partial_len, "%s.partial", final);
        struct stat st;
        int taken = lstat(final, &st) == 0;
        if (!taken && mkdir(partial, 0777) == 0) {
            /* the final name may have appeared between the check and the mkdir (another run renaming its
             * .partial): then this name is taken after all */
            if (lstat(final, &st) != 0) return NVS_OK;
            rmdir(partial);
            taken = 1;
        } else if (!taken && errno != EEXIST) {
            int e = errno;
            nvs_error("cannot create the run directory %s: %s", partial, strerror(e));
            nvs_rj_unmake_parents(); /* a refused run leaves nothing behind */
            /* a place that cannot be written is the user's to fix (exit 2); a failing disk is not */
            return e == EACCES || e == EPERM || e == EROFS || e == ENOTDIR || e == ENAMETOOLONG || e == ELOOP ||
                           e == ENOENT
                       ? NVS_ERR_USAGE
                       : NVS_ERR_SYSTEM;
        }
        if (out && *out) {
            if (taken)
                fprintf(stderr, "nvscale %s: --out %s: it exists: nvscale does not mix a new run with an earlier one's "
                                "files; choose another --out or remove it\n", subcommand, out);
            else
                fprintf(stderr,
                        "nvscale %s: --out %s: %s exists: an earlier run into it was cut short (its run.json "
                        "holds what it measured); remove it or choose another --out\n",
                        subcommand, out, partial);
            nvs_rj_unmake_parents();
            return NVS_ERR_USAGE;
        }
    }
    nvs_error("no free run directory name under %s", base);
    nvs_rj_unmake_parents();
    return NVS_ERR_SYSTEM;
}

int nvs_rj_rename_run_dir(const char *partial, const char *final)
{
    /* never over a directory that appeared meanwhile (rename(2) would replace an empty one): RENAME_NOREPLACE
     * where the file system has it, else a check just before */
    if (renameat2(AT_FDCWD, partial, AT_FDCWD, final, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    struct stat st;
    if (lstat(final, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(partial, final);
}
