/* Datasheet peaks per GPU model (gpu_specs.h). Only SXM boards, whose numbers NVIDIA's pages give; the PCIe and
 * NVL boards of the same chips (H100 PCIe, H100 NVL, H200 NVL, A100 PCIe) are left out until an entry can be
 * sourced: they have lower clocks or other memory, and exact matching keeps them off the SXM numbers.
 * The datasheets give BF16 "with sparsity"; dense is half of it. */
#include "check/gpu_specs.h"

#include <stddef.h>
#include <string.h>

static const nvs_gpu_spec specs[] = {
    /* H200 SXM 141 GB: 4.8 TB/s HBM3e; BF16 tensor 1,979 TFLOPS with sparsity -> 989.5 dense (990 on the page).
     * https://www.nvidia.com/en-us/data-center/h200/ (specifications, "H200 SXM") */
    {"NVIDIA H200", 4800.0, 989.5},
    /* H100 SXM5 80 GB: 3.35 TB/s HBM3; BF16 tensor 1,979 TFLOPS with sparsity -> 989.5 dense.
     * https://www.nvidia.com/en-us/data-center/h100/ (specifications, "H100 SXM") */
    {"NVIDIA H100 80GB HBM3", 3350.0, 989.5},
    /* A100 SXM4 80 GB: 2,039 GB/s HBM2e; 40 GB: 1,555 GB/s HBM2; BF16 tensor 312 TFLOPS dense (624 with sparsity).
     * https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf
     */
    {"NVIDIA A100-SXM4-80GB", 2039.0, 312.0},
    {"NVIDIA A100-SXM4-40GB", 1555.0, 312.0},
};

const nvs_gpu_spec *nvs_gpu_spec_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof specs / sizeof specs[0]; i++)
        if (!strcmp(name, specs[i].name)) return &specs[i];
    return NULL;
}
