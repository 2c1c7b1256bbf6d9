/* Every host's health report to every rank (JSON through nvs_allgather_blobs, as topo_gather.c does). */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "topo/health_monitor.h"
#include "topo/topo_live.h"

nvs_result_t nvs_health_gather(nvs_rt *rt, const nvs_health_report *local, nvs_health_report *global)
{
    memset(global, 0, sizeof *global);
    char *text = NULL;
    if (local) {
        json_t *j = nvs_health_to_json(local);
        text = j ? json_dumps(j, JSON_COMPACT) : NULL;
        json_decref(j);
        if (!text) {
            nvs_error("cannot serialize the health report");
            return NVS_ERR_NOMEM;
        }
    }
    char **all;
    size_t *lens;
    nvs_result_t res = nvs_allgather_blobs(rt, text, text ? strlen(text) : 0, &all, &lens, "gathering GPU health");
    free(text);
    if (res != NVS_OK) return res;
    for (int r = 0; r < rt->size && res == NVS_OK; r++) {
        if (!lens[r]) continue;
        json_error_t je;
        json_t *j = json_loads(all[r], 0, &je);
        nvs_health_report part;
        char err[256];
        if (!j || nvs_health_from_json(j, &part, err, sizeof err) != NVS_OK) {
            nvs_error("health report of rank %d unreadable: %s", r, j ? err : je.text);
            res = NVS_ERR_SYSTEM;
        } else {
            /* the first host's source and window stand for the run; every GPU keeps its own facts */
            if (!global->source[0]) {
                memcpy(global->source, part.source, sizeof global->source);
                global->window_s = part.window_s;
                global->sample_ms = part.sample_ms;
            }
            res = nvs_health_report_append(global, &part);
            nvs_health_report_free(&part);
        }
        json_decref(j);
    }
    nvs_blobs_free(all, rt->size);
    free(lens);
    if (res != NVS_OK) nvs_health_report_free(global);
    return res;
}
