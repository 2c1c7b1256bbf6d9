/* The NCCL backend's GPUs: whether CUDA sees any, which one each rank drives (decided before any NCCL call),
 * --emulate-nodes' host ids for NCCL, two ranks of a host on one GPU refused, the rank's GPU made current and named. */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu_check.h"
#include "core/log.h"
#include "collectives/backend.h"
#include "collectives/backend_nccl_priv.h"

int nvs_gpu_available(char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(why, len, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        (void)cudaGetLastError(); /* clear the sticky-free error so later probes start clean */
        return 0;
    }
    if (n == 0) {
        snprintf(why, len, "CUDA sees no device (CUDA_VISIBLE_DEVICES=%s)",
                 getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
        return 0;
    }
    snprintf(why, len, "%d GPU%s visible", n, n > 1 ? "s" : "");
    return n;
}

/* Which device this rank drives, decided before any NCCL call so that a bad launch fails with a clear message
 * (NCCL would otherwise stop with "Duplicate GPU detected" or hang). */
nvs_result_t nvs_nb_pick_device(nvs_backend *b, int visible, int *dev)
{
    nvs_rt *rt = b->rt;
    /* GPUs belong to the machine, also when its ranks are split into virtual hosts (--emulate-nodes) */
    int local_rank = rt->machine.local_rank, local_size = rt->machine.local_size;
    if (visible == 1)
        *dev = 0; /* the launcher gave each rank its own GPU (e.g. srun --gpus-per-task=1) */
    else if (local_rank < visible)
        *dev = rt->device >= 0 && rt->device < visible ? rt->device : local_rank;
    else {
        nvs_error("%d ranks run on host %s but only %d GPUs are visible there: start at most %d ranks per host "
                  "(mpirun --map-by ppr:%d:node; srun --ntasks-per-node=%d), or make more GPUs visible",
                  local_size, rt->machine.host, visible, visible, visible, visible);
        return NVS_ERR_USAGE;
    }
    /* one rank per GPU is the layout nvscale measures; idle GPUs are allowed (a 2-GPU test on an 8-GPU box) but
     * said once per host, since a launch that forgot ranks looks like that too */
    if (local_rank == 0 && visible > 1 && local_size < visible)
        nvs_warn("host %s: %d rank%s for %d visible GPUs, %d GPU%s idle (one rank per GPU: mpirun --map-by "
                 "ppr:%d:node; srun --ntasks-per-node=%d)",
                 rt->machine.host, local_size, local_size == 1 ? "" : "s", visible, visible - local_size,
                 visible - local_size == 1 ? " stays" : "s stay", visible, visible);
    return NVS_OK;
}

/* --emulate-nodes: NCCL counts hosts by a hash of NCCL_HOSTID when it is set, in place of hostname + boot id
 * (src/misc/utils.cc, getHostHash; read once per process, at NCCL's first call), and uses neither P2P nor SHM
 * between ranks of different hashes (src/transport/p2p.cc, shm.cc): a distinct value per virtual host makes the
 * virtual hosts talk over NET. NCCL_MNNVL_ENABLE=0: with several "hosts" NCCL would otherwise keep NVLink between
 * them where the NVLink fabric spans them (src/mnnvl.cc). One process per rank (MPI runtime): setenv happens
 * before any NCCL call of this process. */
void nvs_nb_emulated_host_env(nvs_rt *rt)
{
    if (!rt->emulated_nodes || strcmp(rt->ops->name, "mpi")) return;
    const char *old = getenv("NCCL_HOSTID");
    if (old && rt->rank == 0)
        nvs_warn("NCCL_HOSTID=%s is replaced by one value per virtual host (--emulate-nodes)", old);
    const char *mnnvl = getenv("NCCL_MNNVL_ENABLE");
    if (mnnvl && strcmp(mnnvl, "0") && rt->rank == 0)
        nvs_warn("NCCL_MNNVL_ENABLE=%s: NCCL may keep NVLink between the virtual hosts (--emulate-nodes sets 0 "
                 "unless the user set it)",
                 mnnvl);
    if (setenv("NCCL_HOSTID", rt->host, 1) || (!mnnvl && setenv("NCCL_MNNVL_ENABLE", "0", 1)))
        nvs_warn("setenv NCCL_HOSTID: %s: NCCL may see one host", strerror(errno));
}

/* Two ranks of one host on the same GPU is a launch mistake (CUDA_VISIBLE_DEVICES=0 for every rank, say). Every
 * rank sees the same gathered list, so all agree without another collective, and the first pair is said once.
 * `all`: room for every rank's, allocated before the set-up's agreement (its failure is this rank's alone). */
nvs_result_t nvs_nb_check_duplicates(nvs_backend *b, int visible, struct gpu_ident *all)
{
    nvs_rt *rt = b->rt;
    struct gpu_ident mine = {{0}, {0}};
    snprintf(mine.host, sizeof mine.host, "%s", rt->machine.host);
    snprintf(mine.bus, sizeof mine.bus, "%s", b->pci_bus_id);
    nvs_result_t res = nvs_allgather(rt, &mine, all, sizeof mine, "GPU assignment check");
    int first = -1, second = -1, sharing = 0;
    for (int j = 1; res == NVS_OK && j < rt->size && first < 0; j++)
        for (int i = 0; i < j && first < 0; i++)
            if (!strcmp(all[i].host, all[j].host) && !strcasecmp(all[i].bus, all[j].bus)) {
                first = i;
                second = j;
            }
    for (int r = 0; first >= 0 && r < rt->size; r++)
        sharing += !strcmp(all[r].host, all[first].host) && !strcasecmp(all[r].bus, all[first].bus);
    if (first >= 0 && rt->rank == second)
        nvs_error("ranks %d and %d on host %s both drive GPU %s (%d ranks share it; %d GPU%s visible to each rank): "
                  "start one rank per GPU, or give each rank its own (srun --gpus-per-task=1)",
                  first, second, all[first].host, all[first].bus, sharing, visible, visible == 1 ? "" : "s");
    if (res != NVS_OK) return res;
    return first >= 0 ? NVS_ERR_USAGE : NVS_OK;
}

/* This rank's own GPU: made current, named (b->device_name, b->pci_bus_id) and sized. */
nvs_result_t nvs_nb_count_devices(int *visible)
{
    CUDA_TRY(cudaGetDeviceCount(visible));
    return NVS_OK;
}

nvs_result_t nvs_nb_gpu_setup(nvs_backend *b, int dev)
{
    CUDA_TRY(cudaSetDevice(dev));
    struct cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
    snprintf(b->device_name, sizeof b->device_name, "%s", prop.name);
    b->device_memory_bytes = prop.totalGlobalMem;
    CUDA_TRY(cudaDeviceGetPCIBusId(b->pci_bus_id, (int)sizeof b->pci_bus_id, dev));
    return NVS_OK;
}
