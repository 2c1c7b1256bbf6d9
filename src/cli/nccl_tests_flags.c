#include "cli/nccl_tests_flags.h"

#include <stdio.h>
#include <string.h>

static const struct {
    char letter;
    const char *name;
    const char *why;
} flags[] = {
    {'p', "parallel_init", "nvscale makes one communicator per GPU count itself"},
    {'N', "run_cycles", "run nvscale again (each run its own result directory; nvscale compare sets runs side by "
                        "side)"},
    {'y', "stream_null", "nvscale launches on a stream of its own"},
    {'C', "report_cputime", "the time column is always the time to completion"},
    {'S', "report_timestamps", "run.json records when the run started and ended"},
    {'J', "output_file", "every run writes run.json to its result directory (--out DIR), or prints it with "
                         "--format json"},
    {'R', "local_register", "buffers are not registered with NCCL"},
    {'x', "cta_policy", "NCCL's default CTA policy is used"},
    {'D', "device_implementation", "NCCL's own implementation is timed"},
    {'V', "device_cta_count", "NCCL's own implementation is timed"},
    {'M', "memory", "no memory usage report"},
    {'u', "unalign", "buffers are aligned (not misaligned on purpose)"},
    {'I', "per_iter_timing", "each size's loop is timed as a whole (-n iterations)"},
    {'K', "per_iter_skip", "each size's loop is timed as a whole (-n iterations)"},
    {'T', "timeout", NULL}, /* nvscale has --timeout, not -T */
};

int nvs_nccl_tests_flag(const char *shown, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        int hit = 0;
        if (shown[0] == '-' && shown[1] == flags[i].letter && !shown[2]) {
            hit = 1;
        } else if (!strncmp(shown, "--", 2)) {
            size_t n = strlen(flags[i].name);
            hit = !strncmp(shown + 2, flags[i].name, n) && (!shown[2 + n] || shown[2 + n] == '=');
        }
        if (!hit) continue;
        if (!flags[i].why)
            snprintf(buf, len, "-%c is nccl-tests' --%s; nvscale's is --timeout S (seconds, default 300)",
                     flags[i].letter, flags[i].name);
        else
            snprintf(buf, len, "%s is nccl-tests' --%s, which nvscale does not take: %s", shown, flags[i].name,
                     flags[i].why);
        return 1;
    }
    return 0;
}
