/* See launch_env.h. */
#include "core/launch_env.h"

#include <stdlib.h>

int nvs_launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return 0;
}

FILE *nvs_stderr_once(void)
{
    static FILE *sink;
    if (nvs_launcher_rank() == 0) return stderr;
    if (!sink) sink = fopen("/dev/null", "w"); /* kept open until exit: one per process */
    return sink ? sink : stderr;
}
