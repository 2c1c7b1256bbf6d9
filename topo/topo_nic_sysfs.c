/* Live NIC facts hwloc does not keep: link layer, port state and link rate, from Linux sysfs.
 *
 * hwloc's Linux backend stores no rate and no link layer for an InfiniBand device, only Port<i>State/LID/GIDs
 * (hwloc/topology-linux.c, hwloc_linuxfs_infiniband_class_fillinfos), and no speed for a netdev. The kernel's
 * ABI (Documentation/ABI/stable/sysfs-class-infiniband, Documentation/ABI/testing/sysfs-class-net):
 *   /sys/class/infiniband/<dev>/ports/<p>/rate        "400 Gb/sec (4X NDR)"  (active width x active speed)
 *   /sys/class/infiniband/<dev>/ports/<p>/link_layer  "InfiniBand" | "Ethernet" (RoCE)
 *   /sys/class/infiniband/<dev>/ports/<p>/state       "4: ACTIVE"
 *   /sys/class/net/<if>/speed                          Mbit/s, for interfaces with ethtool link settings; an
 *                                                      error or -1 when unknown (down links, virtual devices)
 *   /sys/class/net/<if>/operstate                      "up", "down", "unknown", ...
 * For RoCE the netdev's speed is the Ethernet link itself and is preferred to the IB-style rate the driver
 * maps it to. `root` is "/sys" live; tests point it at a fake tree. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_live.h"

/* First line of root/fmt..., without the newline; 0 on success. */
static int read_line(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int read_line(char *out, size_t len, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof path) return -1;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char *got = fgets(out, (int)len, f);
    fclose(f); /* read-only */
    if (!got) return -1;
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

/* a name from hwloc used in a path: never a path itself */
static int safe_name(const char *s) { return s[0] && s[0] != '.' && !strchr(s, '/'); }

static void rdma_port(const char *root, nvs_topo_nic *nic)
{
    /* the first ACTIVE port, else port 1 (mlx5 exposes one port per PCI function; mlx4 HCAs two) */
    int port = 1;
    char line[128], state[16] = "";
    for (int p = 1; p <= 8; p++) {
        if (read_line(line, sizeof line, "%s/class/infiniband/%s/ports/%d/state", root, nic->name, p)) break;
        nvs_topo_ib_state(line, state, sizeof state);
        if (!strcmp(state, "ACTIVE")) {
            port = p;
            break;
        }
    }
    if (!read_line(line, sizeof line, "%s/class/infiniband/%s/ports/%d/state", root, nic->name, port))
        nvs_topo_ib_state(line, nic->state, sizeof nic->state);
    if (!read_line(line, sizeof line, "%s/class/infiniband/%s/ports/%d/link_layer", root, nic->name, port)) {
        if (!strcmp(line, "InfiniBand")) snprintf(nic->kind, sizeof nic->kind, "InfiniBand");
        else if (!strcmp(line, "Ethernet")) snprintf(nic->kind, sizeof nic->kind, "RoCE");
    }
    if (!read_line(line, sizeof line, "%s/class/infiniband/%s/ports/%d/rate", root, nic->name, port)) {
        double g = nvs_topo_parse_rate(line);
        if (g > 0) {
            nic->gbps = g;
            snprintf(nic->rate, sizeof nic->rate, "%.47s", line);
            snprintf(nic->rate_source, sizeof nic->rate_source, "sysfs class/infiniband/%.32s/ports/%d/rate",
                     nic->name, port);
        }
    }
}

static void netdev_link(const char *root, nvs_topo_nic *nic, int rdma)
{
    char line[128];
    if (!rdma && !read_line(line, sizeof line, "%s/class/net/%s/operstate", root, nic->netdev)) {
        for (char *c = line; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
        snprintf(nic->state, sizeof nic->state, "%.15s", line);
    }
    /* RoCE whose netdev knows no speed (an SR-IOV VF): the port's rate, already read, stays with its source */
    if (read_line(line, sizeof line, "%s/class/net/%s/speed", root, nic->netdev)) {
        if (!(nic->gbps > 0))
            snprintf(nic->rate_source, sizeof nic->rate_source, "sysfs class/net/%.32s/speed: unreadable",
                     nic->netdev);
        return;
    }
    char *end;
    long mbps = strtol(line, &end, 10);
    if (end == line || mbps <= 0 || mbps > 100000000) { /* -1: unknown (link down, no ethtool settings, virtio) */
        if (!(nic->gbps > 0))
            snprintf(nic->rate_source, sizeof nic->rate_source,
                     "sysfs class/net/%.20s/speed is %.6s: no rate (virtual port or link down)", nic->netdev, line);
        return;
    }
    nic->gbps = mbps / 8000.0;
    snprintf(nic->rate, sizeof nic->rate, "%ld Mb/s", mbps);
    snprintf(nic->rate_source, sizeof nic->rate_source, "sysfs class/net/%.32s/speed", nic->netdev);
}

void nvs_topo_nic_sysfs(const char *root, nvs_topo_nic *nic, int rdma)
{
    if (rdma && safe_name(nic->name)) rdma_port(root, nic);
    /* Ethernet-only ports, and RoCE: the Ethernet link's own speed */
    if (nic->netdev[0] && safe_name(nic->netdev) && (!rdma || !strcmp(nic->kind, "RoCE"))) netdev_link(root, nic, rdma);
}
