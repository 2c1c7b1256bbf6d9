/* The interference table (interference.h). PURE. */
#include "model/interference.h"

/* Shares fitted by tests/t/interference_fit.sh's formula on the runs interference.h names (3 decimals):
 *   NVLink  6842.6 us of interference over 10136.3 us hidden = 0.675
 *   SHM    15379.2 us over  85036.8 us                       = 0.181
 *   NET     3199.9 us over 152274.7 us                       = 0.021
 * Over NVLink the all-reduce runs at ~350 GB/s and its kernels keep memory and SMs busy the whole time; over
 * SHM they copy through host memory at ~27 GB/s, over sockets they mostly wait for the proxy thread. */
static const nvs_interference table[] = {
    {NVS_TR_NONE, 0, 1, "one GPU: no all-reduce"},
    {NVS_TR_NVLINK, 0.675, 1,
     "fitted: nvscale train fp32 at N=2 over NVLink, lm290m and bert-large-mlm128, 2x H200, NCCL 2.28.3: "
     "interference / hidden comm (results/fidelity/run3-nvlink; src/model/interference.h)"},
    {NVS_TR_P2P, 0.181, 0,
     "assumed: SHM's share (both move the data over PCIe with the GPU's SMs at PCIe speed); P2P over PCIe was not "
     "measured (the 2x H200 box's GPUs peer over NVLink)"},
    {NVS_TR_SHM, 0.181, 1,
     "fitted: nvscale train fp32 at N=2 over SHM (NCCL_P2P_DISABLE=1), lm290m and bert-large-mlm128, 2x H200: "
     "interference / hidden comm (results/fidelity/run3-shm; src/model/interference.h)"},
    {NVS_TR_NET, 0.021, 1,
     "fitted: nvscale train fp32 at N=2 over NCCL's sockets between two GPUs of one box, lm290m and "
     "bert-large-mlm128, 2x H200: interference / hidden comm (results/fidelity/run3-net); InfiniBand with "
     "GPUDirect RDMA not measured"},
};

const nvs_interference *nvs_interference_of(nvs_transport t)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].transport == t) return &table[i];
    return &table[0];
}

double nvs_interference_share(double overlap_penalty, nvs_transport t)
{
    return overlap_penalty >= 0 ? overlap_penalty : nvs_interference_of(t)->share;
}
