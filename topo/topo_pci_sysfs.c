/* A PCI device's own link width from Linux sysfs (topo_live.h nvs_topo_pci_max_link_width).
 *
 * /sys/bus/pci/devices/<domain:bus:dev.fn>/max_link_width is the device's Link Capabilities width (Linux
 * drivers/pci/pci-sysfs.c max_link_width_show -> pcie_get_width_cap(), which reads PCI_EXP_LNKCAP of that device;
 * Documentation/ABI/testing/sysfs-bus-pci): what the device itself is built for, whatever the slot. NVML's
 * nvmlDeviceGetMaxPcieLinkWidth is GPU and slot together (a x16 GPU in a x8 slot reads x8), so this is what
 * says the slot limits it, for any model, where the datasheet table (health/pcie_spec.c) knows a few.
 *
 * On SXM boards (HGX) each GPU sits behind a PCIe switch: the GPU function's max_link_width is still the GPU's own
 * LnkCap (x16), and NVML's maximum is the link GPU <-> switch downstream port; neither says anything of the
 * switch's own upstream link to the CPU, which this does not judge. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_live.h"

/* "16\n" -> 16; anything else (a read error, text, 0, a width PCIe has no such link of) -> -1 */
int nvs_topo_pci_width_parse(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || (*end && *end != '\n') || (end[0] == '\n' && end[1])) return -1;
    /* the widths a PCIe link can have (PCIe Base Specification, Link Capabilities: Maximum Link Width) */
    switch (v) {
    case 1: case 2: case 4: case 8: case 12: case 16: case 32: return (int)v;
    default: return -1;
    }
}

const char *nvs_topo_sysfs_root(void)
{
    const char *root = getenv("NVS_TEST_SYSFS_ROOT");
    return root && *root ? root : "/sys";
}

int nvs_topo_pci_max_link_width(const char *root, const char *busid)
{
    /* a bus id names one directory: never a path (the run's bus ids come from NVML or hwloc, "index N" when not) */
    if (!root || !busid || !busid[0] || busid[0] == '.' || strchr(busid, '/') || strchr(busid, ' ')) return -1;
    char path[1024], line[32];
    int n = snprintf(path, sizeof path, "%s/bus/pci/devices/%s/max_link_width", root, busid);
    if (n < 0 || (size_t)n >= sizeof path) return -1;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *got = fgets(line, (int)sizeof line, f);
    fclose(f); /* read-only */
    return got ? nvs_topo_pci_width_parse(line) : -1;
}
