/* Bandwidth bounds from the discovered links (PURE). Every constant says where it comes from.
 *
 * A bound is what the links of a path cannot exceed, per direction, in GB/s (1e9 bytes/s, as nccl-tests):
 *   NVLink      links x per-link rate of the generation (both GPUs' rates, the smaller one)
 *   PCIe P2P    the slower of the two GPUs' PCIe links (lanes x transfer rate x encoding)
 *   host memory (no P2P: NCCL's SHM transport, cudaMemcpy staged through pinned host memory) each byte leaves
 *               the source GPU over its PCIe link and enters the destination over its own, so the slower link
 *               bounds it. It is an UPPER bound: host memory bandwidth, the CPU interconnect (SYS pairs) and
 *               the staging copies usually cost more.
 *   network     the slower of the two GPUs' NET bounds, each from the NICs nearest to it (topo_nic.c); unknown when a
 *               side has no NIC or no known rate, and between virtual hosts of one machine (--emulate-nodes: the
 *               traffic stays inside the machine, over loopback); nvs_topology.net_gbps overrides when given.
 * Protocol overheads (TLP headers, NVLink flit headers) are not subtracted: measured copies reach 80-90% of it
 * (2x H200: NV18 81.6-82.5 %, pinned host copies over PCIe gen5 x16 86-88 %; check/accept_rules.c says where). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "core/net_bound.h"
#include "core/ring.h"
#include "topo/topo.h"

double nvs_topo_pcie_gbps(int gen, int width)
{
    /* Transfer rate per lane (GT/s) and line-code efficiency, from the PCI-SIG base specifications:
     * gen1 2.5 GT/s and gen2 5 GT/s with 8b/10b; gen3 8, gen4 16, gen5 32 GT/s with 128b/130b;
     * gen6 64 GT/s PAM4 in FLIT mode, where a 256-byte flit carries 236 bytes of TLP and 6 of DLLP
     * (we count 242/256 as payload, an upper bound). Same arithmetic as hwloc's pci_link_speed
     * (gen5 x16 = 63.015385 in the reference hwloc XML). */
    static const double gts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    static const double eff[] = {0, 8.0 / 10, 8.0 / 10, 128.0 / 130, 128.0 / 130, 128.0 / 130, 242.0 / 256};
    if (gen < 1 || gen > 6 || width < 1 || width > 32) return 0;
    return gts[gen] * eff[gen] * width / 8.0;
}

double nvs_topo_nvlink_gbps(int version, char *source, size_t len)
{
    /* Per link, per direction. We use the link rate the driver reports (`nvidia-smi nvlink -s`), not the
     * rounded marketing figure, so that the bound is never below what a copy can reach:
     *   NVLink1 (P100): 20 GB/s: 8 lanes x 20 Gbit/s (P100 whitepaper: 4 links, 160 GB/s bidirectional)
     *   NVLink2 (V100): 25.78125 GB/s: 8 lanes x 25.78125 Gbit/s; nvidia-smi nvlink -s shows 25.781 GB/s
     *   NVLink3 (A100): 25 GB/s: 4 lanes x 50 Gbit/s; nvidia-smi nvlink -s shows 25 GB/s. GA10x bridges
     *           (RTX 3090, A6000) run 14.0625 GB/s per link: live, the driver's link speed overrides the table
     *           when they disagree (topo_nvml.c)
     *   NVLink4 (H100, H200): 26.5625 GB/s: 2 lanes x 106.25 Gbit/s PAM4; nvidia-smi nvlink -s shows
     *           26.562 GB/s on the reference 2xH200 machine (NVIDIA's "900 GB/s" = 18 x 25 x 2 is nominal)
     *   NVLink5 (B200, GB200): 53.125 GB/s: 2 lanes x 212.5 Gbit/s, twice NVLink4; nvidia-smi nvlink -s shows
     *           53.125 GB/s a link on GB200 (NVIDIA/k8s-test-infra#371; NVIDIA's "1.8 TB/s" = 18 x 50 x 2 is
     *           nominal, as NVLink4's 900). */
    static const struct {
        double gbps;
        const char *src;
    } rates[] = {
        {0, ""},
        {20.0, "NVLink1: 8 lanes x 20 Gbit/s (P100 whitepaper)"},
        {25.78125, "NVLink2: 8 lanes x 25.78125 Gbit/s (nvidia-smi nvlink -s: 25.781 GB/s)"},
        {25.0, "NVLink3: 4 lanes x 50 Gbit/s (nvidia-smi nvlink -s: 25 GB/s)"},
        {26.5625, "NVLink4: 2 lanes x 106.25 Gbit/s (nvidia-smi nvlink -s: 26.562 GB/s)"},
        {53.125, "NVLink5: 2 lanes x 212.5 Gbit/s (nvidia-smi nvlink -s on GB200: 53.125 GB/s)"},
    };
    if (version < 1 || version > 5) {
        if (source && len) snprintf(source, len, "NVLink version %d unknown", version);
        return 0;
    }
    if (source && len) snprintf(source, len, "%s", rates[version].src);
    return rates[version].gbps;
}

int nvs_topo_nvlink_version_of_model(const char *name)
{
    /* Products whose NVLink generation is one (NVIDIA's datasheets): V100 NVLink2; A100, A800 NVLink3 (the GA10x
     * boards with NVLink, RTX A6000 and the like, run 14.0625 GB/s a link and are left out); H100, H200, H800, GH200
     * NVLink4; B100, B200, GB200 NVLink5. A word, not a substring: "GH100" is the H100's chip, "A100X" another
     * board. */
    static const struct {
        const char *word;
        int version;
    } models[] = {{"V100", 2}, {"A100", 3}, {"A800", 3},  {"H100", 4},  {"H200", 4},
                  {"H800", 4}, {"GH200", 4}, {"B100", 5}, {"B200", 5}, {"GB200", 5}};
    int found = 0;
    for (const char *p = name ? name : ""; *p;) {
        size_t n = 0;
        while (p[n] && ((p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9')))
            n++;
        for (size_t i = 0; n && i < sizeof models / sizeof models[0]; i++)
            if (strlen(models[i].word) == n && !strncmp(p, models[i].word, n)) {
                if (found && found != models[i].version) return 0; /* two generations named: neither is known */
                found = models[i].version;
            }
        p += n ? n : 1;
    }
    return found;
}

static double min2(double a, double b) { return a < b ? a : b; }

/* The ring and placement searches ask for values only, for millions of pairs at a few thousand GPUs: they pass
 * no hop, and then no text is made (formatting it was most of their time: 5.5 s for one ring over 4096 GPUs). */
static void set_link(nvs_topo_hop *h, int text, nvs_link_kind k)
{
    if (text) snprintf(h->link, sizeof h->link, "%s", nvs_link_kind_name(k));
}

static void note(nvs_topo_hop *h, int text, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(nvs_topo_hop *h, int text, const char *fmt, ...)
{
    if (!text) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->source, sizeof h->source, fmt, ap);
    va_end(ap);
}

static void hop_init(nvs_topo_hop *h, int text, const nvs_topology *t, int a, int b)
{
    if (text) {
        memset(h, 0, sizeof *h);
        const char *c = nvs_topo_pair_class(t, a, b);
        snprintf(h->cls, sizeof h->cls, "%s", c ? c : "?");
        set_link(h, text, NVS_LINK_NONE);
    }
    h->from_gpu = a;
    h->to_gpu = b;
    h->bound_gbps = -1;
}

static double net_hop(const nvs_topology *t, int a, int b, nvs_topo_hop *h, int text)
{
    const nvs_topo_gpu *ga = &t->gpus[a], *gb = &t->gpus[b];
    const nvs_net_end ea = {ga->index, ga->net.gbps, ga->net.source, t->hosts[ga->host].machine};
    const nvs_net_end eb = {gb->index, gb->net.gbps, gb->net.source, t->hosts[gb->host].machine};
    set_link(h, text, NVS_LINK_NETWORK);
    double v = nvs_net_hop_bound(&ea, &eb, t->net_gbps, text ? h->source : NULL, text ? sizeof h->source : 0);
    if (v > 0) h->bound_gbps = v;
    return v;
}

double nvs_topo_pair_hop(const nvs_topology *t, int a, int b, int p2p_allowed, nvs_topo_hop *hop)
{
    nvs_topo_hop local;
    nvs_topo_hop *h = hop ? hop : &local;
    int text = hop != NULL;
    hop_init(h, text, t, a, b);
    const nvs_topo_pair *p = nvs_topo_pair_at(t, a, b);
    if (!p || a == b) {
        note(h, text, "no such pair");
        return -1;
    }
    const nvs_topo_gpu *ga = &t->gpus[a], *gb = &t->gpus[b];
    if (nvs_link_class_parse(p->cls, NULL) == NVS_CLASS_NET) return net_hop(t, a, b, h, text);
    /* P2P unknown (offline) is assumed possible: the bound stays an upper bound */
    int use_p2p = p2p_allowed && p->p2p_cuda != 0;
    if (use_p2p && p->nvlinks > 0) {
        double ra = ga->nvlink.gbps_per_link, rb = gb->nvlink.gbps_per_link;
        double r = ra > 0 && rb > 0 ? min2(ra, rb) : (ra > 0 ? ra : rb);
        set_link(h, text, NVS_LINK_NVLINK);
        if (r <= 0) {
            note(h, text, "%d NVLinks, per-link rate unknown", p->nvlinks);
            return -1;
        }
        int ver = ga->nvlink.version ? ga->nvlink.version : gb->nvlink.version;
        int via_switch = ga->nvlink.to_switch > 0 && gb->nvlink.to_switch > 0;
        char vname[16] = "NVLink";
        if (ver && text) snprintf(vname, sizeof vname, "NVLink%d", ver);
        h->bound_gbps = p->nvlinks * r;
        note(h, text, "%d %s links%s x %.6g GB/s per direction", p->nvlinks, vname, via_switch ? " (via NVSwitch)" : "",
             r);
        return h->bound_gbps;
    }
    double pa = ga->pcie.gbps, pb = gb->pcie.gbps;
    const nvs_topo_gpu *slow = pa <= pb ? ga : gb;
    set_link(h, text, use_p2p ? NVS_LINK_PCIE : NVS_LINK_HOST_MEMORY);
    if (pa <= 0 || pb <= 0) {
        note(h, text, "%s: PCIe link rate unknown", use_p2p ? "PCIe P2P" : "host memory");
        return -1;
    }
    h->bound_gbps = min2(pa, pb);
    if (use_p2p)
        note(h, text, "PCIe (%.40s): %.2f GB/s per direction (the slower GPU link)", slow->pcie.gbps_source,
             h->bound_gbps);
    else
        note(h, text, "host memory: PCIe (%.40s) %.2f GB/s, each byte crosses both GPUs' links (upper bound)",
             slow->pcie.gbps_source, h->bound_gbps);
    return h->bound_gbps;
}

double nvs_topo_pair_bound_gbps(const nvs_topology *t, int a, int b, int p2p_allowed, char *source, size_t len)
{
    nvs_topo_hop h;
    double v = nvs_topo_pair_hop(t, a, b, p2p_allowed, &h);
    if (source && len) snprintf(source, len, "%s", h.source);
    return v;
}

/* --- rings ------------------------------------------------------------------------------------------------ */

double nvs_topo_ring_bound_order(const nvs_topology *t, const int *gpus, int n, int p2p_allowed,
                                 nvs_topo_hop *slowest, int *ring_order)
{
    if (slowest) {
        memset(slowest, 0, sizeof *slowest);
        slowest->from_gpu = slowest->to_gpu = -1;
        snprintf(slowest->link, sizeof slowest->link, "none");
        snprintf(slowest->cls, sizeof slowest->cls, "-");
        snprintf(slowest->source, sizeof slowest->source, "fewer than 2 GPUs: no ring");
    }
    if (ring_order)
        for (int i = 0; i < n; i++) ring_order[i] = gpus[i];
    if (n < 2) return 0;
    for (int i = 0; i < n; i++)
        if (gpus[i] < 0 || gpus[i] >= t->ngpus) return -1;
    double *w = malloc(sizeof(double) * (size_t)n * (size_t)n);
    int *order = malloc(sizeof(int) * (size_t)n);
    if (!w || !order) {
        free(w);
        free(order);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = i == j ? 0 : nvs_topo_pair_hop(t, gpus[i], gpus[j], p2p_allowed, NULL);
            w[i * n + j] = v < 0 ? -1 : v; /* unknown ranks below everything known */
        }
    nvs_ring_best_cycle(w, n, order);
    /* the slowest hop along the chosen ring, first one on ties */
    int worst = 0;
    for (int i = 1; i < n; i++)
        if (w[order[i] * n + order[(i + 1) % n]] < w[order[worst] * n + order[(worst + 1) % n]]) worst = i;
    nvs_topo_hop h;
    double bound = nvs_topo_pair_hop(t, gpus[order[worst]], gpus[order[(worst + 1) % n]], p2p_allowed, &h);
    if (slowest) *slowest = h;
    if (ring_order)
        for (int i = 0; i < n; i++) ring_order[i] = gpus[order[i]];
    free(w);
    free(order);
    return bound;
}

double nvs_topo_ring_bound_gbps(const nvs_topology *t, const int *gpus, int n, int p2p_allowed,
                                nvs_topo_hop *slowest)
{
    return nvs_topo_ring_bound_order(t, gpus, n, p2p_allowed, slowest, NULL);
}

/* --- placement -------------------------------------------------------------------------------------------- */

/* A candidate set: its best ring's bottleneck first; on equal bounds (all-PCIe boxes where every link has the
 * same rate) the set whose pairs have the closer classes (PIX before PXB ... before SYS) is the better one. */
typedef struct {
    double ring;
    int class_sum;
} set_value;

static set_value ring_value(const nvs_topology *t, const int *set, int n)
{
    set_value v = {nvs_topo_ring_bound_order(t, set, n, 1, NULL, NULL), 0};
    if (v.ring < 0) v.ring = -1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) v.class_sum += nvs_link_class_rank_of(nvs_topo_pair_class(t, set[i], set[j]));
    return v;
}

static int better(set_value cand, set_value cur, int best)
{
    if (cand.ring != cur.ring) return best ? cand.ring > cur.ring : cand.ring < cur.ring;
    return best ? cand.class_sum < cur.class_sum : cand.class_sum > cur.class_sum;
}

int nvs_topo_pick_gpus(const nvs_topology *t, int n, int best, int *out)
{
    int N = t ? t->ngpus : 0;
    if (n < 1 || n > N) return -1;
    /* cost of the exhaustive search: C(N, n) rings of about 2^n * n^2 steps each */
    double combos = 1;
    for (int i = 0; i < n; i++) combos = combos * (N - i) / (i + 1);
    double ring_cost = n <= NVS_RING_EXACT_MAX ? (double)(1u << n) * n * n * 4 : (double)n * n;
    int *cur = malloc(sizeof(int) * (size_t)n);
    if (!cur) return -1;
    if (N <= 16 && combos * ring_cost <= 5e7) { /* about a second at most */
        /* every combination in lexicographic order: the first of equal ones (lowest indices) wins */
        for (int i = 0; i < n; i++) cur[i] = i;
        set_value bestv = {0, 0};
        int have = 0;
        for (;;) {
            set_value v = ring_value(t, cur, n);
            if (!have || better(v, bestv, best)) {
                bestv = v;
                memcpy(out, cur, sizeof(int) * (size_t)n);
                have = 1;
            }
            int i = n - 1;
            while (i >= 0 && cur[i] == N - n + i) i--;
            if (i < 0) break;
            cur[i]++;
            for (int j = i + 1; j < n; j++) cur[j] = cur[j - 1] + 1;
        }
        free(cur);
        return 0;
    }
    /* greedy: start from GPU 0, add the GPU that keeps the ring best (or worst); lowest index on ties. Every
     * pair's bound is computed once (N^2), and a candidate is valued by inserting it at the best place of the
     * current ring (O(k) each): O(N n^2) in all. Solving the ring again for every candidate and step was
     * O(N n^4) pair look-ups, hours at a few hundred GPUs. */
    char *used = calloc((size_t)N, 1);
    double *w = malloc(sizeof(double) * (size_t)N * (size_t)N);
    int *cr = malloc(sizeof(int) * (size_t)N * (size_t)N), *ring = malloc(sizeof(int) * (size_t)n);
    if (!used || !w || !cr || !ring) {
        free(used);
        free(w);
        free(cr);
        free(ring);
        free(cur);
        return -1;
    }
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++) {
            double v = a == b ? 0 : nvs_topo_pair_hop(t, a, b, 1, NULL);
            w[(size_t)a * N + b] = v < 0 ? -1 : v;
            cr[(size_t)a * N + b] = a == b ? 0 : nvs_link_class_rank_of(nvs_topo_pair_class(t, a, b));
        }
    ring[0] = 0;
    used[0] = 1;
    int k = 1, class_sum = 0;
    for (; k < n; k++) {
        /* the ring's edges: the smallest bound, where it is, and the second smallest */
        double m1 = INFINITY, m2 = INFINITY;
        int i1 = -1;
        for (int i = 0; k > 1 && i < k; i++) {
            double e = w[(size_t)ring[i] * N + ring[(i + 1) % k]];
            if (e < m1) m2 = m1, m1 = e, i1 = i;
            else if (e < m2) m2 = e;
        }
        int pick = -1, pick_at = 0;
        set_value pv = {0, 0};
        for (int g = 0; g < N; g++) {
            if (used[g]) continue;
            set_value v = {-INFINITY, class_sum};
            int at = 0;
            for (int j = 0; j < k; j++) v.class_sum += cr[(size_t)ring[j] * N + g];
            for (int i = 0; i < k; i++) { /* g between ring[i] and ring[i + 1] */
                double rest = k == 1 ? INFINITY : i == i1 ? m2 : m1;
                double in = w[(size_t)ring[i] * N + g], out = w[(size_t)g * N + ring[(i + 1) % k]];
                double val = min2(rest, min2(in, out));
                if (val > v.ring) v.ring = val, at = i;
            }
            if (v.ring < 0) v.ring = -1;
            if (pick < 0 || better(v, pv, best)) {
                pick = g;
                pick_at = at;
                pv = v;
            }
        }
        memmove(ring + pick_at + 2, ring + pick_at + 1, sizeof(int) * (size_t)(k - pick_at - 1));
        ring[pick_at + 1] = pick;
        used[pick] = 1;
        class_sum = pv.class_sum;
    }
    free(w);
    free(cr);
    free(ring);
    /* ascending order */
    int m = 0;
    for (int g = 0; g < N; g++)
        if (used[g]) out[m++] = g;
    free(used);
    free(cur);
    return 0;
}
