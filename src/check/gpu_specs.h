/* Datasheet peaks of GPU models, for the `min_bound=` of `gpu membw|gemm` rules (PURE: a table lookup).
 * The name is the one CUDA reports (cudaDeviceProp.name, run.json gpu_selftest.gpus[].name), matched exactly:
 * a PCIe or NVL board of the same chip has other clocks, memory and power, so "NVIDIA H200 NVL" must not take
 * the SXM "NVIDIA H200" numbers. A model not in the table has no bound: a min_bound= rule on it is not judged
 * (not a pass), min= or min_peer= still are. */
#ifndef NVS_GPU_SPECS_H
#define NVS_GPU_SPECS_H

typedef struct {
    const char *name;   /* as CUDA reports it */
    double membw_gbps;  /* HBM bandwidth, GB/s (1e9 bytes/s) */
    double bf16_tflops; /* dense BF16 tensor-core TFLOPS (the datasheet's "with sparsity" figure halved) */
} nvs_gpu_spec;

/* The entry of this CUDA device name; NULL when the table has none (or name is NULL). */
const nvs_gpu_spec *nvs_gpu_spec_find(const char *name);

#endif
