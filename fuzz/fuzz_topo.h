/* What the topology harnesses (fuzz_hwloc_xml.c, fuzz_topo_json.c) run on a topology they read: the printers, the
 * best ring over the first 8 GPUs both ways, and placement. */
#ifndef NVS_FUZZ_TOPO_H
#define NVS_FUZZ_TOPO_H

#include <stdio.h>

#include "topo/topo.h"

static inline void nvs_fuzz_topo_use(const nvs_topology *t, FILE *sink)
{
    nvs_topo_print(t, sink);
    nvs_topo_print_csv(t, sink);
    int n = t->ngpus < 8 ? t->ngpus : 8, pick[8], all[8];
    for (int i = 0; i < n; i++) all[i] = i;
    nvs_topo_hop hop;
    nvs_topo_ring_bound_gbps(t, all, n, 1, &hop);
    nvs_topo_ring_bound_gbps(t, all, n, 0, &hop);
    if (n >= 2) nvs_topo_pick_gpus(t, 2, 1, pick);
    nvs_topo_pick_gpus(t, n, 0, pick);
}

#endif
