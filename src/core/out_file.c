#include "core/out_file.h"

#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"

nvs_result_t nvs_outfile_open(nvs_outfile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (strlen(path) >= sizeof o->path) {
        nvs_error("output path too long: %s", path);
        return NVS_ERR_USAGE;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        nvs_error("cannot create %s: %s", o->tmp, strerror(errno));
        return NVS_ERR_SYSTEM;
    }
    return NVS_OK;
}

nvs_result_t nvs_outfile_commit(nvs_outfile *o)
{
    if (!o->f) return NVS_ERR_SYSTEM;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    if (!bad) bad = fsync(fileno(o->f)) != 0 && errno != EINVAL; /* EINVAL: a pipe or special file */
    int err = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        nvs_error("cannot write %s: %s", o->path, strerror(err));
        unlink(o->tmp);
        return NVS_ERR_SYSTEM;
    }
    return NVS_OK;
}

void nvs_outfile_discard(nvs_outfile *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->tmp[0]) unlink(o->tmp);
}

nvs_result_t nvs_mkdir_p(const char *dir)
{
    char buf[4096];
    if (!*dir || strlen(dir) >= sizeof buf) return NVS_ERR_USAGE;
    strcpy(buf, dir);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                nvs_error("cannot create directory %s: %s", buf, strerror(errno));
                return NVS_ERR_SYSTEM;
            }
            struct stat st;
            if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
                nvs_error("cannot create directory %s: a file of that name exists", buf);
                return NVS_ERR_SYSTEM;
            }
            *p = c;
            if (!c) break;
        }
    }
    return NVS_OK;
}

nvs_result_t nvs_write_text_file(const char *path, const char *text)
{
    nvs_outfile o;
    NVS_CHECK(nvs_outfile_open(&o, path));
    if (fputs(text, o.f) == EOF) {
        nvs_outfile_discard(&o);
        nvs_error("cannot write %s", path);
        return NVS_ERR_SYSTEM;
    }
    return nvs_outfile_commit(&o);
}

nvs_result_t nvs_read_text_file(const char *path, size_t max_bytes, char **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        nvs_error("cannot open %s: %s", path, strerror(errno));
        return NVS_ERR_INPUT;
    }
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap + 1);
    nvs_result_t res = NVS_OK;
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (len > max_bytes) {
            nvs_error("%s is larger than %zu bytes: not a file nvscale reads", path, max_bytes);
            res = NVS_ERR_INPUT;
            break;
        }
        if (n == 0) break;
        if (len == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (!buf) res = NVS_ERR_NOMEM;
    if (res == NVS_OK && ferror(f)) {
        nvs_error("cannot read %s: %s", path, strerror(errno));
        res = NVS_ERR_INPUT;
    }
    fclose(f);
    if (res != NVS_OK) {
        free(buf);
        return res;
    }
    if (memchr(buf, '\0', len)) {
        nvs_error("%s is not a text file (it contains NUL bytes)", path);
        free(buf);
        return NVS_ERR_INPUT;
    }
    buf[len] = '\0';
    *out = buf;
    return NVS_OK;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int nvs_remove_tree(const char *dir)
{
    return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
