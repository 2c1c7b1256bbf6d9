/* Link classes and kinds: see link_class.h. */
#include "core/link_class.h"

#include <stdio.h>
#include <string.h>

/* Indexed by nvs_link_class; "NV" stands for NV<n> and is never matched or printed alone. */
static const char *const class_names[] = {"?", "NV", "PIX", "PXB", "PHB", "NODE", "SYS", "NET"};

nvs_link_class nvs_link_class_parse(const char *s, int *nvlinks)
{
    if (nvlinks) *nvlinks = 0;
    if (!s) return NVS_CLASS_UNKNOWN;
    if (s[0] == 'N' && s[1] == 'V' && s[2] >= '1' && s[2] <= '9') {
        int v = 0;
        for (const char *p = s + 2; *p; p++) {
            if (*p < '0' || *p > '9') return NVS_CLASS_UNKNOWN;
            v = v * 10 + (*p - '0');
            if (v > NVS_LINK_MAX_NVLINKS) return NVS_CLASS_UNKNOWN;
        }
        if (nvlinks) *nvlinks = v;
        return NVS_CLASS_NV;
    }
    for (int c = NVS_CLASS_PIX; c <= NVS_CLASS_NET; c++)
        if (!strcmp(s, class_names[c])) return (nvs_link_class)c;
    return NVS_CLASS_UNKNOWN;
}

const char *nvs_link_class_name(nvs_link_class c, int nvlinks, char *buf, size_t len)
{
    if (nvlinks > 0)
        snprintf(buf, len, "NV%d", nvlinks);
    else
        snprintf(buf, len, "%s", c > NVS_CLASS_NV && c <= NVS_CLASS_NET ? class_names[c] : "?");
    return buf;
}

int nvs_link_class_rank(nvs_link_class c)
{
    return c >= NVS_CLASS_NV && c <= NVS_CLASS_NET ? (int)c : NVS_CLASS_NET + 1;
}

int nvs_link_class_rank_of(const char *s) { return nvs_link_class_rank(nvs_link_class_parse(s, NULL)); }

int nvs_link_class_is_nvlink(const char *s) { return nvs_link_class_parse(s, NULL) == NVS_CLASS_NV; }

/* Indexed by nvs_link_kind. */
static const char *const kind_names[] = {"none", "network", "host memory", "PCIe", "P2P (link unknown)", "NVLink"};

const char *nvs_link_kind_name(nvs_link_kind k)
{
    return k >= NVS_LINK_NONE && k <= NVS_LINK_NVLINK ? kind_names[k] : kind_names[NVS_LINK_NONE];
}

nvs_link_kind nvs_link_kind_parse(const char *s)
{
    for (int k = NVS_LINK_NETWORK; s && k <= NVS_LINK_NVLINK; k++)
        if (!strcmp(s, kind_names[k])) return (nvs_link_kind)k;
    return NVS_LINK_NONE;
}

nvs_link_kind nvs_link_kind_of_class(nvs_link_class c)
{
    switch (c) {
    case NVS_CLASS_NV: return NVS_LINK_NVLINK;
    case NVS_CLASS_NET: return NVS_LINK_NETWORK;
    case NVS_CLASS_PIX:
    case NVS_CLASS_PXB:
    case NVS_CLASS_PHB:
    case NVS_CLASS_NODE:
    case NVS_CLASS_SYS: return NVS_LINK_PCIE;
    default: return NVS_LINK_NONE;
    }
}

nvs_link_kind nvs_link_kind_worst(nvs_link_kind a, nvs_link_kind b)
{
    if (a == NVS_LINK_NONE) return b;
    if (b == NVS_LINK_NONE) return a;
    return a < b ? a : b;
}
