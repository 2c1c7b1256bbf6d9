/* NCCL's INFO log (src/explain/nccl_log.c): the transports of a run, as run.json's "transports" get them. */
#include <jansson.h>

#include "explain/nccl_log.h"
#include "fuzz/fuzz.h"

static const char *pair_class(void *ctx, int a, int b)
{
    (void)ctx;
    return a == b ? "X" : (a ^ b) & 1 ? "NV18" : "SYS";
}

NVS_FUZZ_TARGET(nccl_log)
{
    nvs_fuzz_sink();
    nvs_nccl_log log;
    nvs_nccl_log_init(&log);
    if (nvs_nccl_log_parse_text((const char *)data, size, &log) == NVS_OK) {
        static const int gpu_of_rank[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        for (int n = 0; n <= 8; n += 2) {
            nvs_nccl_summary s;
            char buf[64];
            nvs_nccl_log_summary(&log, n, &s);
            nvs_nccl_summary_transport(&s, buf, sizeof buf);
            json_decref(nvs_nccl_log_transport_json(&log, n, n ? gpu_of_rank : NULL, pair_class, NULL));
        }
        json_decref(nvs_nccl_log_to_json(&log));
    }
    nvs_nccl_log_free(&log);
    return 0;
}
