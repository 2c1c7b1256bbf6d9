/* The bound of a hop between GPUs of two hosts (class NET), one formula for the live topology
 * (topo/topo_bounds.c) and for a run read back from its run.json (runjson/runjson.c), which lists no pair across
 * hosts: each GPU's own network bound (run.json "net", docs/topo.md) says it all. PURE. */
#ifndef NVS_NET_BOUND_H
#define NVS_NET_BOUND_H

#include <stddef.h>

/* One side of the hop: the GPU's topology index, the bound of its nearest NICs (GB/s per direction; 0, negative
 * or NAN unknown) and where that comes from, and the machine its host runs on ("" unless --emulate-nodes made
 * virtual hosts of one machine). */
typedef struct {
    int gpu;
    double gbps;
    const char *source;
    const char *machine;
} nvs_net_end;

/* GB/s per direction, or -1 when no bound is known; `source` (len bytes; NULL and 0: not wanted) says why.
 * `given_gbps` > 0: the rate a topology file gives ("net_gbps"), which overrides the NICs'. Otherwise the slower
 * side's NICs: a ring's bytes cross both hosts' links. Virtual hosts of one machine have no NIC between them:
 * unknown. */
double nvs_net_hop_bound(const nvs_net_end *a, const nvs_net_end *b, double given_gbps, char *source, size_t len);

#endif
