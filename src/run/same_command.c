/* See same_command.h. */
#include "run/same_command.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/version.h"

/* command lines shown of the ranks that differ from rank 0 (besides rank 0's): enough to see the difference */
#define NVS_SAME_COMMAND_SHOWN 3

/* FNV-1a over the bytes of s and its terminating NUL (so that "ab","c" and "a","bc" differ) */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s;; p++) {
        h = (h ^ *p) * 1099511628211ull;
        if (!*p) return h;
    }
}

static void print_command(const nvs_rt *rt, const nvs_config *cfg, const char *what)
{
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "nvscale"); /* argv[0] is the subcommand */
    for (int i = 0; i < cfg->argc && n < sizeof line; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, " %s", cfg->argv[i]);
    nvs_error("rank %d %s: %s (nvscale %s, git %s)", rt->rank, what, line, NVS_VERSION, NVS_GIT_REV);
}

nvs_result_t nvs_same_command(nvs_rt *rt, const nvs_config *cfg)
{
    if (rt->size < 2) return NVS_OK;
    uint64_t mine = fnv(fnv(14695981039346656037ull, NVS_VERSION), NVS_GIT_REV);
    for (int i = 0; i < cfg->argc; i++) mine = fnv(mine, cfg->argv[i]);
    uint64_t *all = calloc((size_t)rt->size, sizeof *all);
    if (!all) return NVS_ERR_NOMEM;
    nvs_result_t r = nvs_allgather(rt, &mine, all, sizeof mine, "comparing the ranks' command lines");
    int differ = 0, first = -1, before_me = 0; /* before_me: ranks below this one that differ from rank 0 */
    uint64_t root = all[0];
    for (int i = 1; r == NVS_OK && i < rt->size; i++)
        if (all[i] != all[0]) {
            differ++;
            if (first < 0) first = i;
            if (i < rt->rank) before_me++;
        }
    free(all);
    if (r != NVS_OK) return r;
    if (!differ) return NVS_OK;
    if (rt->rank == 0) {
        nvs_error("the ranks of this run were started with different command lines (or nvscale builds): rank %d%s "
                  "differ%s from rank 0; every rank must run the same nvscale with the same options%s",
                  first, differ > 1 ? " and others" : "", differ > 1 ? "" : "s",
                  differ > NVS_SAME_COMMAND_SHOWN ? " (the command lines of the first 3 that differ are shown)" : "");
        print_command(rt, cfg, "has");
    } else if (mine != root && before_me < NVS_SAME_COMMAND_SHOWN) {
        /* the first few that differ: where rank 0 is the odd one, every other rank differs from it */
        print_command(rt, cfg, "has");
    }
    return NVS_ERR_USAGE;
}
