/* The host path check of a measured SHM all-reduce (`nvscale model --calibrate RUN.json [--host-mem-gbps X]`):
 * NCCL's SHM transport stores every byte into host memory and loads it back, so a ring of N SHM flows at bus
 * bandwidth B moves N B GB/s of flow bytes through the host and 2 N B GB/s of DRAM traffic. Given the
 * measured B, this says what the host must have carried, what share of the host memory bandwidth that is, what
 * the machine preset predicts (and which link or budget binds), and what the host memory bandwidth alone
 * would predict as the budget (half of a STREAM copy rate: each flow byte is one write and one read). PURE. */
#ifndef NVS_MODEL_HOST_H
#define NVS_MODEL_HOST_H

#include "model/model.h"

typedef struct {
    int n;
    double meas_gbps;         /* measured busbw = each ring flow's rate */
    double flow_gbps;         /* n x meas: flow bytes through the host per second */
    double dram_gbps;         /* 2 x flow_gbps: DRAM write + read */
    double host_mem_gbps;     /* the host memory bandwidth given (0 = none) */
    double dram_share;        /* dram_gbps / host_mem_gbps (NAN without it) */
    double implied_host_gbps; /* the per-socket budget that reproduces meas if the host path binds */
    double preset_gbps;       /* the machine preset's SHM ring bandwidth */
    char preset_why[160];
    double mem_model_gbps;    /* the ring with host_gbps = host_mem_gbps / 2 (NAN without host_mem_gbps) */
    char mem_model_why[160];
} nvs_host_check;

/* m, g: the machine and GPU presets; the ring runs SHM everywhere (NCCL_P2P_DISABLE=1). NVS_ERR_INPUT when n is
 * not a ring the machine has. */
nvs_result_t nvs_host_check_eval(const nvs_machine_spec *m, const nvs_gpu_spec *g, int n, double meas_gbps,
                                 double host_mem_gbps, nvs_host_check *out);

#endif
