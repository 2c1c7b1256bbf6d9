/* CUDA part of discovery: which GPUs this process sees (CUDA_VISIBLE_DEVICES honoured), in ordinal order, and
 * whether each can access another's memory (cudaDeviceCanAccessPeer). Without a driver cudaGetDeviceCount
 * fails: that is "no GPU", reported with CUDA's own reason. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "topo/topo_live.h"

int nvs_cuda_list(char (*busids)[NVS_TOPO_BUSID_LEN], char (*names)[NVS_TOPO_NAME_LEN], int max, char *why,
                  size_t len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(why, len, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        (void)cudaGetLastError(); /* clear the error so that later calls start clean */
        return -1;
    }
    if (n > max) n = max;
    for (int d = 0; d < n; d++) {
        char b[64];
        e = cudaDeviceGetPCIBusId(b, (int)sizeof b, d);
        if (e != cudaSuccess) {
            snprintf(why, len, "cudaDeviceGetPCIBusId(%d): %s", d, cudaGetErrorString(e));
            return -1;
        }
        if (nvs_topo_busid_normalize(b, busids[d], NVS_TOPO_BUSID_LEN))
            snprintf(busids[d], NVS_TOPO_BUSID_LEN, "%.31s", b);
        struct cudaDeviceProp prop;
        e = cudaGetDeviceProperties(&prop, d);
        if (e != cudaSuccess) {
            snprintf(why, len, "cudaGetDeviceProperties(%d): %s", d, cudaGetErrorString(e));
            return -1;
        }
        snprintf(names[d], NVS_TOPO_NAME_LEN, "%.95s", prop.name);
    }
    return n;
}

int nvs_cuda_can_access_peer(int a, int b)
{
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: read off so that later calls start clean; -1 says unknown */
        return -1;
    }
    return can != 0;
}
