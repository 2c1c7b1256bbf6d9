/* hwloc XML import (topo/topo_hwloc.c through hwloc's own XML reader, as --hwloc-xml): the GPUs, their PCIe
 * paths, NVLinkBandwidth, NICs; then what uses the topology: pair classes, bounds, the best ring and placement,
 * the table, matrix and CSV printers, and run.json's "topology" written and read back (topo/topo_json.c). */
#include <jansson.h>

#include "fuzz/fuzz.h"
#include "fuzz/fuzz_topo.h"
#include "topo/topo.h"

#ifndef NVS_FUZZ_REPLAY
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    nvs_fuzz_hold_hwloc_plugins();
    return 0;
}
#endif

NVS_FUZZ_TARGET(hwloc_xml)
{
    FILE *sink = nvs_fuzz_sink();
    nvs_topology *t = NULL;
    if (nvs_topo_discover_xml_buffer("fuzz.xml", (const char *)data, size, &t) != NVS_OK) return 0;
    nvs_fuzz_topo_use(t, sink);
    json_t *j = nvs_topo_to_json(t);
    nvs_topology *back = NULL;
    char err[256];
    if (j && nvs_topo_from_json(j, &back, err, sizeof err) == NVS_OK) nvs_topo_print_matrix(back, sink);
    nvs_topo_free(back);
    json_decref(j);
    nvs_topo_free(t);
    return 0;
}
