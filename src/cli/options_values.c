/* The values' validators of the measuring subcommands' options (options_priv.h): every refusal of a value in one
 * form, "nvscale SUB: invalid value 'V' for FLAG: WHY" and the help hint, exit 2. */
#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli_common.h"
#include "cli/options_priv.h"
#include "core/launch_env.h"
#include "core/metrics.h"
#include "core/units.h"

nvs_result_t nvs_opt_bad(const char *sub, const char *flag, const char *value, const char *why)
{
    fprintf(nvs_stderr_cmdline(), "nvscale %s: invalid value '%s' for %s: %s\n", sub, value, flag, why);
    fprintf(nvs_stderr_cmdline(), "Try 'nvscale %s --help'.\n", sub);
    return NVS_ERR_USAGE;
}

int nvs_opt_int_range(const char *s, long lo, long hi, int *out)
{
    long v;
    if (nvs_parse_long(s, &v) || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* Comma-separated names into a bit mask; "all" = every bit of `count`. -1 with *badp set to an unknown name;
 * -2 with *badp set to the reason when the list itself is malformed ("a,,b": core/units.h, one list splitter), names
 * one `what` twice (by itself or by an alias: -d float,fp32), or has "all" beside other items: each would be
 * measured once and the list's typo (all_reduce,all_reduce for all_reduce,all_gather?) go unseen, as --gpus,
 * --model and compare --transports refuse a repeat and 'all' with other transports. */
int nvs_opt_mask(const char *s, int (*lookup)(const char *), int count, unsigned *mask, const char *what, char *badp,
                 size_t bl)
{
    if (!strcasecmp(s, "all")) {
        *mask = (1u << count) - 1;
        return 0;
    }
    char *copy, *items[64], err[160];
    int n = nvs_list_split(s, &copy, items, 64, err, sizeof err);
    if (n < 0) {
        free(copy);
        snprintf(badp, bl, "%s", err);
        return -2;
    }
    unsigned m = 0;
    for (int k = 0; k < n; k++) {
        int i = lookup(items[k]);
        if (i < 0 && !strcasecmp(items[k], "all")) {
            snprintf(badp, bl, "'all' stands alone: it is every %s", what);
            free(copy);
            return -2;
        }
        if (i < 0) {
            snprintf(badp, bl, "%s", items[k]);
            free(copy);
            return -1;
        }
        if (m & (1u << i)) {
            int j = 0; /* the earlier item naming it, for an alias */
            while (j < k && lookup(items[j]) != i) j++;
            if (!strcasecmp(items[j], items[k]))
                snprintf(badp, bl, "'%.40s' given twice (each %s once)", items[k], what);
            else
                snprintf(badp, bl, "'%.40s' given twice, the second time as '%.40s' (each %s once)", items[j], items[k],
                         what);
            free(copy);
            return -2;
        }
        m |= 1u << i;
    }
    free(copy);
    *mask = m;
    return 0;
}

/* The counts, smallest first: the scaling table and its reference (the first count) go up in N whatever order they
 * were typed in. A count given twice is refused, as a workload (--model) or a transport (compare --transports)
 * given twice: it would be measured once and the list's other typo (4,4 for 4,8?) go unseen. 0 ok; -1 with *why
 * set. */
int nvs_opt_gpu_counts(const char *s, nvs_config *c, char *why, size_t wl)
{
    char *copy, *items[NVS_MAX_GPU_COUNTS];
    int n = nvs_list_split(s, &copy, items, NVS_MAX_GPU_COUNTS, why, wl);
    for (int k = 0; k < n; k++)
        if (nvs_opt_int_range(items[k], 1, 1 << 20, &c->gpu_counts[k])) {
            snprintf(why, wl, "'%.40s' is not a GPU count >= 1 (expected a comma-separated list such as 1,2,4,8)",
                     items[k]);
            n = -1;
        }
    free(copy);
    if (n <= 0) return -1;
    qsort(c->gpu_counts, (size_t)n, sizeof(int), nvs_cmp_int);
    for (int i = 1; i < n; i++)
        if (c->gpu_counts[i - 1] == c->gpu_counts[i]) {
            snprintf(why, wl, "%d given twice (each GPU count once)", c->gpu_counts[i]);
            return -1;
        }
    c->n_gpu_counts = n;
    return 0;
}

/* A size flag's value (nvs_cli_size: -b 1.5M is 1572864 bytes, as nccl-tests 2.19.6 common.cu parsesize reads it;
 * 1.3K, no whole number of bytes, is refused, where nccl-tests would cut it to 1331): on a refusal, one message and
 * NVS_ERR_USAGE. */
nvs_result_t nvs_opt_size(const char *sub, const char *flag, const char *a, size_t lo, size_t *out,
                          const char *expect)
{
    char why[256];
    return nvs_cli_size(a, lo, out, expect, why, sizeof why) ? nvs_opt_bad(sub, flag, a, why) : NVS_OK;
}
