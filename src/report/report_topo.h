/* The report's "Topology" section (report_topo.c): one host's pair matrix and bounds, or with several hosts one
 * per layout of their GPUs, hosts alike sharing it. Internal to the report layer (report_md.c calls it). */
#ifndef NVS_REPORT_TOPO_H
#define NVS_REPORT_TOPO_H

#include <stdio.h>

#include "runjson/runjson.h"

void nvs_report_topology_md(const nvs_run *r, FILE *f);

#endif
