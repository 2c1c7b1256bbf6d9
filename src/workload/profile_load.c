/* A model profile by name or path: a built-in (workload/profiles/, the name alone wins over a file of that name),
 * else the file, read whole and bounded, then parsed (profile.c). */
#include "workload/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workload/profile_priv.h"
#include "workload/profiles/builtin.h"

const char *const *nvs_profile_builtin_names(void) { return nvs_profile_builtin_list(); }

static int looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') != NULL || (n >= 5 && !strcmp(s + n - 5, ".prof"));
}

int nvs_profile_is_builtin(const char *name_or_path)
{
    return !looks_like_path(name_or_path) && nvs_profile_builtin_text(name_or_path) != NULL;
}

nvs_result_t nvs_profile_load(const char *name_or_path, nvs_profile *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (err && errlen) err[0] = '\0';
    if (!name_or_path || !*name_or_path) {
        nvs_prof_set_err(err, errlen, "empty model profile name");
        return NVS_ERR_INPUT;
    }
    /* A built-in name wins over a file of the same name in the current directory: write ./NAME for the file. */
    if (!looks_like_path(name_or_path)) {
        const char *text = nvs_profile_builtin_text(name_or_path);
        if (text) {
            char origin[96];
            snprintf(origin, sizeof origin, "built-in profile %s", name_or_path);
            return nvs_profile_parse(text, origin, p, err, errlen);
        }
    }
    struct stat st;
    if (stat(name_or_path, &st) != 0) {
        if (errno == ENOENT && !looks_like_path(name_or_path)) {
            char list[512] = "";
            size_t used = 0;
            for (const char *const *n = nvs_profile_builtin_names(); *n; n++) {
                int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *n);
                if (w < 0 || (size_t)w >= sizeof list - used) break;
                used += (size_t)w;
            }
            nvs_prof_set_err(err, errlen, "unknown model profile '%s': not a built-in (%s) and no such file",
                             name_or_path, list);
        } else {
            nvs_prof_set_err(err, errlen, "cannot open model profile %s: %s", name_or_path, strerror(errno));
        }
        return NVS_ERR_INPUT;
    }
    if (!S_ISREG(st.st_mode)) {
        nvs_prof_set_err(err, errlen, "model profile %s is not a regular file", name_or_path);
        return NVS_ERR_INPUT;
    }
    if ((unsigned long long)st.st_size > NVS_PROFILE_MAX_FILE_BYTES) {
        nvs_prof_set_err(err, errlen, "model profile %s is %lld bytes: larger than %d, not a profile", name_or_path,
                         (long long)st.st_size, NVS_PROFILE_MAX_FILE_BYTES);
        return NVS_ERR_INPUT;
    }
    /* read here, not through core/out_file.h's reader: that one prints its reason, and the callers print err (one
     * message, not two); the size stat gave, bounded above (what grew since is not read) */
    const size_t size = (size_t)st.st_size;
    FILE *f = fopen(name_or_path, "rb");
    char *text = f ? malloc(size + 1) : NULL;
    size_t len = text ? fread(text, 1, size, f) : 0;
    int e = errno, bad = !f || !text || ferror(f);
    if (f) fclose(f);
    if (bad) {
        if (!f) nvs_prof_set_err(err, errlen, "cannot open model profile %s: %s", name_or_path, strerror(e));
        else if (!text) nvs_prof_set_err(err, errlen, "out of memory reading model profile %s", name_or_path);
        else nvs_prof_set_err(err, errlen, "cannot read model profile %s: %s", name_or_path, strerror(e));
        free(text);
        return f && !text ? NVS_ERR_NOMEM : NVS_ERR_INPUT;
    }
    text[len] = '\0';
    if (strlen(text) < len) {
        nvs_prof_set_err(err, errlen, "model profile %s contains a NUL byte: not a text file", name_or_path);
        free(text);
        return NVS_ERR_INPUT;
    }
    nvs_result_t r = nvs_profile_parse(text, name_or_path, p, err, errlen);
    free(text);
    return r;
}
