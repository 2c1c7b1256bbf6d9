/* run.json's "topology" read back (topo/topo_json.c: the gather's reader of every host's part, and of the hwloc
 * reader process's answer), then what uses it: the classes kept host by host (topo/topo_store.c), the printers,
 * bounds, the best ring, placement, a subset in reversed order, the merge of it with itself, and the JSON written
 * again. Seeds: three hosts with NICs, in today's form and with the rows written before 3 December 2026. */
#include <jansson.h>

#include "fuzz/fuzz.h"
#include "fuzz/fuzz_topo.h"
#include "topo/topo.h"

NVS_FUZZ_TARGET(topo_json)
{
    char *text = nvs_fuzz_text(data, size);
    json_t *j = text ? json_loads(text, JSON_REJECT_DUPLICATES, NULL) : NULL;
    free(text);
    nvs_topology *t = NULL, *parts[2], *m = NULL, *s = NULL, *back = NULL;
    char err[256];
    if (!j || nvs_topo_from_json(j, &t, err, sizeof err) != NVS_OK) {
        json_decref(j);
        return 0;
    }
    json_decref(j);
    FILE *sink = nvs_fuzz_sink();
    nvs_fuzz_topo_use(t, sink);
    int rev[64], nr = t->ngpus < 64 ? t->ngpus : 64;
    for (int i = 0; i < nr; i++) rev[i] = nr - 1 - i;
    if ((s = nvs_topo_subset(t, rev, nr))) nvs_topo_print_matrix(s, sink);
    parts[0] = parts[1] = t;
    if (nvs_topo_merge(parts, 2, &m) == NVS_OK && (j = nvs_topo_to_json(m))) {
        if (nvs_topo_from_json(j, &back, err, sizeof err) == NVS_OK) nvs_topo_print_matrix(back, sink);
        json_decref(j);
    }
    nvs_topo_free(back);
    nvs_topo_free(m);
    nvs_topo_free(s);
    nvs_topo_free(t);
    return 0;
}
