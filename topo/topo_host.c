/* One topology per host for the gather: the host's local rank 0 discovers it. Under --emulate-nodes a host is a
 * virtual host, a slice of one machine: it keeps the GPUs its own ranks drive (one rank per GPU under mpirun),
 * all of the machine's NICs (they serve every slice), the virtual host's name, and the machine's name, so that
 * the bounds know that NET between two slices never leaves the machine. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "topo/topo.h"

struct rank_gpu {
    int node, device;
    char bus[NVS_TOPO_BUSID_LEN];
};

/* The GPUs of `t` that the ranks of virtual host `node` drive: by bus id where the rank knows it, else by CUDA
 * ordinal. When CUDA did not answer (NVML and hwloc did: no GPU of `t` has an ordinal), the list is hwloc's, in
 * bus id order, and the ordinal is taken as the place in it (CUDA_DEVICE_ORDER=PCI_BUS_ID's numbering): every
 * virtual host found none and the run stopped. keep[] gets topology indices in rank order; returns how many. */
static int gpus_of_node(const nvs_topology *t, const struct rank_gpu *all, int nranks, int node, int *keep)
{
    int n = 0, cuda = 0;
    for (int i = 0; i < t->ngpus; i++) cuda |= t->gpus[i].cuda_device >= 0;
    for (int r = 0; r < nranks; r++) {
        if (all[r].node != node) continue;
        int g = -1;
        if (all[r].bus[0])
            g = nvs_topo_find_gpu(t, NULL, all[r].bus);
        else if (!cuda)
            g = all[r].device >= 0 && all[r].device < t->ngpus ? all[r].device : -1;
        else
            for (int i = 0; i < t->ngpus && g < 0; i++)
                if (t->gpus[i].cuda_device >= 0 && t->gpus[i].cuda_device == all[r].device) g = i;
        int dup = g < 0;
        for (int k = 0; k < n && !dup; k++) dup = keep[k] == g;
        if (!dup) keep[n++] = g;
    }
    return n;
}

nvs_result_t nvs_topo_discover_host(nvs_rt *rt, const char *my_bus_id, nvs_topology **local)
{
    *local = NULL;
    if (!rt->emulated_nodes) return rt->local_rank == 0 ? nvs_topo_discover(NULL, local) : NVS_OK;
    struct rank_gpu me = {.node = rt->node, .device = rt->device}, *all = calloc((size_t)rt->size, sizeof *all);
    if (!all) return NVS_ERR_NOMEM;
    if (my_bus_id) snprintf(me.bus, sizeof me.bus, "%s", my_bus_id);
    nvs_result_t res = nvs_allgather(rt, &me, all, sizeof me, "which GPUs each virtual host drives");
    nvs_topology *whole = NULL;
    if (res == NVS_OK && rt->local_rank == 0) res = nvs_topo_discover(NULL, &whole);
    if (res == NVS_OK && whole) {
        int *keep = malloc((size_t)(rt->size > 0 ? rt->size : 1) * sizeof *keep);
        int n = keep ? gpus_of_node(whole, all, rt->size, rt->node, keep) : 0;
        if (!keep)
            res = NVS_ERR_NOMEM;
        else if (n == 0) {
            nvs_error("virtual host %s: none of the GPUs its ranks drive was found in the topology of %s", rt->host,
                      rt->machine.host);
            res = NVS_ERR_SYSTEM;
        } else if (!(*local = nvs_topo_subset(whole, keep, n)))
            res = NVS_ERR_NOMEM;
        else {
            snprintf((*local)->hosts[0].name, sizeof (*local)->hosts[0].name, "%s", rt->host);
            snprintf((*local)->hosts[0].machine, sizeof (*local)->hosts[0].machine, "%s", rt->machine.host);
        }
        free(keep);
    }
    nvs_topo_free(whole);
    free(all);
    return res;
}
