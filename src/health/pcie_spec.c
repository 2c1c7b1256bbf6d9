/* The PCIe link width a GPU model is built for (health.h nvs_health_pcie_spec_width; PURE: a table lookup), and the
 * GPU's own maximum against its link's (nvs_health_pcie_own_max: the health check and `nvscale topo` alike).
 *
 * NVML's nvmlDeviceGetMaxPcieLinkWidth is "the maximum PCIe link width possible with this device and system": a
 * x16 GPU in a x8 slot reads x8 there, so a check of the current width against it cannot see the slot. Neither
 * does DCGM: its health watch (DCGM 4.6.0 modules/health/DcgmHealthWatch.cpp, MonitorPcie) judges only the replay
 * rate, and `dcgmi diag`'s pcie plugin (nvvs/plugin_src/pcie/PcieMain.cpp, bg_check_pci_link) compares the current
 * width with its min_pci_width parameter, 1 by default (Pcie.cpp). The GPU's own width is in its datasheet.
 *
 * NVIDIA's pages give the PCIe bandwidth in both directions at the raw transfer rate: lanes = GB/s / (GT/s / 8 x 2).
 * Names are as NVML and CUDA report them, matched exactly (as check/gpu_specs.c: another board of the same chip is
 * another entry); a model not here is "not known", never guessed. */
#include <stddef.h>
#include <string.h>

#include "health/health.h"

static const struct {
    const char *name;
    int lanes;
    const char *source;
} spec[] = {
    /* "PCIe Gen5: 128GB/s" = 16 x 32 GT/s / 8 x 2 */
    {"NVIDIA H200", 16, "H200 SXM datasheet: PCIe Gen5 128 GB/s"},           /* nvidia.com/en-us/data-center/h200/ */
    {"NVIDIA H100 80GB HBM3", 16, "H100 SXM datasheet: PCIe Gen5 128 GB/s"}, /* nvidia.com/en-us/data-center/h100/ */
    /* "PCIe Gen4: 64GB/s" = 16 x 16 GT/s / 8 x 2 (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf) */
    {"NVIDIA A100-SXM4-80GB", 16, "A100 datasheet: PCIe Gen4 64 GB/s"},
    {"NVIDIA A100-SXM4-40GB", 16, "A100 datasheet: PCIe Gen4 64 GB/s"},
};

int nvs_health_pcie_spec_width(const char *name, const char **source)
{
    for (size_t i = 0; name && i < sizeof spec / sizeof spec[0]; i++)
        if (!strcmp(name, spec[i].name)) {
            if (source) *source = spec[i].source;
            return spec[i].lanes;
        }
    if (source) *source = NULL;
    return -1;
}

void nvs_health_pcie_own_max(const char *name, int gpu_gen, int sysfs_width, int max_gen, int max_width,
                             nvs_health_pcie_own *out)
{
    /* the width: sysfs's max_link_width (the GPU function's Link Capabilities, any model: topo_pci_sysfs.c), else
     * the datasheet's; a model with neither is unknown, never guessed */
    out->width_source = NULL;
    out->width = sysfs_width > 0 ? sysfs_width : -1;
    if (out->width > 0) out->width_source = "its Link Capabilities: sysfs max_link_width";
    else out->width = nvs_health_pcie_spec_width(name, &out->width_source);
    out->gen = gpu_gen > 0 ? gpu_gen : -1;
    out->slot_width = out->width > 0 && max_width > 0 && max_width < out->width;
    out->slot_gen = out->gen > 0 && max_gen > 0 && max_gen < out->gen;
}
