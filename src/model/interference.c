/* The interference table (interference.h). PURE. */
#include "model/interference.h"

/* Shares fitted by tests/t/interference_fit.sh's formula on the runs interference.h names (3 decimals):
 *   NVLink  6842.6 us of interference over 10136.3 us hidden = 0.675
 *   SHM    15379.2 us over  85036.8 us                       = 0.181
 *   NET     3199.9 us over 152274.7 us                       = 0.021
 * Over NVLink the all-reduce runs at ~350 GB/s and its kernels keep memory and SMs busy the whole time; over
 * SHM they copy through host memory at ~27 GB/s, over sockets they mostly wait for the proxy thread. */
/* The rate the NVLink share was fitted at: 348 GB/s all_reduce busbw at 8 GiB on the 2x H200 box
 * (shared/reference/h200x2/allreduce.txt; the nvlink-2gpu preset's nvlink_eff). NCCL opens as many channels on
 * NVLink as the link's rate needs (its topology search, src/graph/search.cc: channels x a per-channel speed up to
 * the link's), one CTA each, and the CTAs are what takes the compute's SMs (docs/fidelity.md, "Why NCCL's kernels
 * slow the compute"): a slower NVLink (a bridged pair of GA102 cards: 41 GB/s; A100's NVLink3: ~219) holds fewer,
 * so its share per second of overlap is scaled by its rate, a cost per byte below the fit's rate. ASSUMED: no
 * NVLink other than the H200's was measured. Unscaled, a 41 GB/s bridge paid the H200's 0.675 and made a bridged
 * pair of A6000s slower than the same pair over PCIe P2P (0.181: tests/unit/test_model_props.c, P7). */
#define NVS_INTERFERENCE_NVLINK_FIT_GBPS 348.0

static const nvs_interference table[] = {
    {NVS_TR_NONE, 0, 1, "one GPU: no all-reduce"},
    {NVS_TR_NVLINK, 0.675, 1,
     "fitted: nvscale train fp32 at N=2 over NVLink, lm290m and bert-large-mlm128, 2x H200, NCCL 2.28.3: "
     "interference / hidden comm (results/fidelity/run3-nvlink; src/model/interference.h); a slower NVLink pays "
     "it x its preset ring's GB/s / 348 (assumed: as many NCCL channels as its rate needs)",
     NVS_INTERFERENCE_NVLINK_FIT_GBPS},
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

double nvs_interference_share(double overlap_penalty, nvs_transport t, double ring_gbps)
{
    if (overlap_penalty >= 0) return overlap_penalty;
    const nvs_interference *in = nvs_interference_of(t);
    if (in->fit_gbps > 0 && ring_gbps > 0 && ring_gbps < in->fit_gbps) return in->share * ring_gbps / in->fit_gbps;
    return in->share;
}
