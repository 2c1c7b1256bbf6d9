/* Human-readable topology: per-GPU details, then the pair matrix laid out like `nvidia-smi topo -m` (GPU
 * columns, CPU Affinity, NUMA Affinity, "X" on the diagonal), the P2P matrix, the bound matrix and a legend. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/escape.h"
#include "core/link_class.h"
#include "core/out_file.h"
#include "health/health.h"
#include "topo/topo.h"

/* Names come from an XML file, a run.json or other hosts: printed through core/escape.h (no control character
 * reaches the terminal, no comma or line end splits a CSV row) */
#define TERM(s, b) nvs_esc_term((s), (b), sizeof(b))
#define CSV(s, b) nvs_esc_csv((s), (b), sizeof(b))

/* Matrix rows are built in a buffer so that trailing blanks can be cut (golden files, diff-friendly). */
typedef struct {
    char buf[16384];
    size_t n;
} line_t;

static void lcat(line_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lcat(line_t *l, const char *fmt, ...)
{
    if (l->n >= sizeof l->buf - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(l->buf + l->n, sizeof l->buf - l->n, fmt, ap);
    va_end(ap);
    if (k > 0) l->n += (size_t)k < sizeof l->buf - l->n ? (size_t)k : sizeof l->buf - 1 - l->n;
}

static void lend(line_t *l, FILE *to)
{
    while (l->n && l->buf[l->n - 1] == ' ') l->n--;
    l->buf[l->n] = '\0';
    fprintf(to, "%s\n", l->buf);
    l->n = 0;
}

static void remote_text(const nvs_topology *t, const nvs_topo_link *l, char *buf, size_t len)
{
    switch (l->remote) {
    case NVS_REMOTE_GPU:
        if (l->remote_gpu >= 0)
            snprintf(buf, len, "GPU%d", l->remote_gpu);
        else
            snprintf(buf, len, "GPU %s (not visible here)", l->remote_pci_bus_id);
        break;
    case NVS_REMOTE_NVSWITCH: snprintf(buf, len, "NVSwitch %s", l->remote_pci_bus_id); break;
    case NVS_REMOTE_CPU: snprintf(buf, len, "CPU"); break;
    default: snprintf(buf, len, "unknown %s", l->remote_pci_bus_id); break;
    }
    (void)t;
}

static void print_nvlink(const nvs_topology *t, const nvs_topo_gpu *g, FILE *to)
{
    if (!g->nvlink.known) {
        fprintf(to, "      NVLink: %s\n", g->nvlink.why_unknown[0] ? g->nvlink.why_unknown : "unsupported");
        return;
    }
    if (!g->nvlink.links_up) {
        fprintf(to, "      NVLink: no link up\n");
        return;
    }
    char ver[16] = "version unknown";
    if (g->nvlink.version) snprintf(ver, sizeof ver, "NVLink%d", g->nvlink.version);
    fprintf(to, "      NVLink: %d links up, %s, ", g->nvlink.links_up, ver);
    if (g->nvlink.gbps_per_link > 0)
        fprintf(to, "%.6g GB/s per link per direction", g->nvlink.gbps_per_link);
    else
        fprintf(to, "per-link rate unknown");
    if (g->nvlink.nvml_speed_gbps > 0) fprintf(to, " (NVML link speed %.3f GB/s)", g->nvlink.nvml_speed_gbps);
    if (g->nvlink.rate_source[0]) fprintf(to, "\n      rate: %s", g->nvlink.rate_source);
    fprintf(to, "\n      links:");
    /* group by what each link reaches: "18 to GPU1", "5 to NVSwitch 0000:05:00.0" */
    char done[NVS_TOPO_MAX_NVLINKS * 4] = {0};
    for (int k = 0; k < g->nvlink.nlinks; k++) {
        if (done[k]) continue;
        char rk[96], rj[96];
        remote_text(t, &g->nvlink.links[k], rk, sizeof rk);
        int count = 0;
        for (int j = k; j < g->nvlink.nlinks; j++) {
            remote_text(t, &g->nvlink.links[j], rj, sizeof rj);
            if (!strcmp(rk, rj)) {
                done[j] = 1;
                count++;
            }
        }
        fprintf(to, "%s %d to %s", k ? "," : "", count, rk);
    }
    fprintf(to, "\n");
}

/* "gen5 x16", "gen5", "x16": the parts that are > 0 */
static void gen_width(char *out, size_t len, int gen, int width)
{
    if (gen > 0 && width > 0) snprintf(out, len, "gen%d x%d", gen, width);
    else if (gen > 0) snprintf(out, len, "gen%d", gen);
    else snprintf(out, len, "x%d", width);
}

static void print_pcie(const nvs_topology *t, const nvs_topo_gpu *g, FILE *to)
{
    /* offline is the XML's topology; live without CUDA (cuda_device -1) NVML did not answer either */
    int offline = !strncmp(t->source, "hwloc-xml:", 10);
    /* NVML's maximum is the GPU's and its slot's together: the GPU's own is shown where it differs, as
     * `nvidia-smi -q` shows the GPU's and the device's maximum apart */
    nvs_health_pcie_own own;
    nvs_health_pcie_own_max(g->name, g->pcie.gpu_max_gen, g->pcie.gpu_max_width, g->pcie.max_gen, g->pcie.max_width,
                            &own);
    fprintf(to, "      PCIe: ");
    if (g->pcie.gen && g->pcie.width) {
        fprintf(to, "gen%d x%d now", g->pcie.gen, g->pcie.width);
        if (g->pcie.max_gen && g->pcie.max_width) {
            fprintf(to, ", max gen%d x%d", g->pcie.max_gen, g->pcie.max_width);
            int dg = own.gen > 0 && own.gen != g->pcie.max_gen, dw = own.width > 0 && own.width != g->pcie.max_width;
            if (dg || dw) {
                char gpu[32];
                gen_width(gpu, sizeof gpu, own.gen, own.width);
                fprintf(to, ", the GPU's own %s", gpu);
            }
        }
    } else
        fprintf(to, "generation/width unknown%s", offline ? " offline" : " (no NVML)");
    if (g->pcie.gbps > 0) fprintf(to, "; bound %.2f GB/s per direction (%s)", g->pcie.gbps, g->pcie.gbps_source);
    fprintf(to, "\n");
    if (own.slot_gen || own.slot_width) {
        char lim[32], gpu[32];
        gen_width(lim, sizeof lim, own.slot_gen ? g->pcie.max_gen : 0, own.slot_width ? g->pcie.max_width : 0);
        gen_width(gpu, sizeof gpu, own.slot_gen ? own.gen : 0, own.slot_width ? own.width : 0);
        fprintf(to, "      SLOT-LIMITED: the link's maximum (GPU and slot together) is %s, the GPU is %s%s%s%s: host "
                    "transfers capped at %s (move it to a %s slot)\n",
                lim, gpu, own.slot_width ? " (width: " : "", own.slot_width ? own.width_source : "",
                own.slot_width ? ")" : "", lim, gpu);
    }
    if (g->pcie.width && g->pcie.max_width && g->pcie.width < g->pcie.max_width)
        fprintf(to, "      DOWNTRAINED: x%d of x%d lanes (reseat the card or check the slot/riser)\n", g->pcie.width,
                g->pcie.max_width);
    if (g->pcie.gen && g->pcie.max_gen && g->pcie.gen < g->pcie.max_gen)
        fprintf(to, "      DOWNTRAINED: gen%d of gen%d (idle GPUs drop the generation to save power: check under "
                    "load)\n",
                g->pcie.gen, g->pcie.max_gen);
}

static int col_width(const nvs_topology *t)
{
    int w = 6;
    for (int a = 0; a < t->ngpus; a++)
        for (int b = 0; b < t->ngpus; b++) {
            int l = (int)strlen(nvs_topo_pair_class(t, a, b)) + 2;
            if (l > w) w = l;
        }
    char lab[16];
    int l = snprintf(lab, sizeof lab, "GPU%d", t->ngpus - 1) + 2;
    if (l > w) w = l;
    l = t->nnics ? snprintf(lab, sizeof lab, "NIC%d", t->nnics - 1) + 2 : 0;
    return l > w ? l : w;
}

/* GPU columns only (the P2P and bound matrices) or, as `nvidia-smi topo -m`, GPU then NIC columns */
static void header(line_t *l, const nvs_topology *t, int w, int with_nics)
{
    lcat(l, "%*s", w, "");
    for (int b = 0; b < t->ngpus; b++) lcat(l, "GPU%-*d", w - 3, b);
    for (int k = 0; with_nics && k < t->nnics; k++) lcat(l, "NIC%-*d", w - 3, k);
}

static void matrix_rows(const nvs_topology *t, FILE *to, int nic_rows)
{
    static line_t l;
    int w = col_width(t), cw = 14;
    for (int i = 0; i < t->ngpus; i++)
        if ((int)strlen(t->gpus[i].cpuset) + 2 > cw) cw = (int)strlen(t->gpus[i].cpuset) + 2;
    header(&l, t, w, 1);
    lcat(&l, "%-*s%-15s%s", cw, "CPU Affinity", "NUMA Affinity", t->nhosts > 1 ? "Host" : "");
    lend(&l, to);
    for (int a = 0; a < t->ngpus; a++) {
        lcat(&l, "GPU%-*d", w - 3, a);
        for (int b = 0; b < t->ngpus; b++) lcat(&l, "%-*s", w, a == b ? " X" : nvs_topo_pair_class(t, a, b));
        for (int k = 0; k < t->nnics; k++) lcat(&l, "%-*s", w, nvs_topo_gpu_nic_class(t, a, k));
        const nvs_topo_gpu *g = &t->gpus[a];
        char numa[16] = "N/A";
        if (g->numa_node >= 0) snprintf(numa, sizeof numa, "%d", g->numa_node);
        char hn[NVS_ESC_SIZE(64)], cs[NVS_ESC_SIZE(sizeof g->cpuset)];
        lcat(&l, "%-*s%-15s%s", cw, g->cpuset[0] ? nvs_esc_term(g->cpuset, cs, sizeof cs) : "N/A", numa,
             t->nhosts > 1 ? nvs_esc_term(t->hosts[g->host].name, hn, sizeof hn) : "");
        lend(&l, to);
    }
    /* NIC rows, as nvidia-smi prints them: classes only */
    for (int k = 0; nic_rows && k < t->nnics; k++) {
        lcat(&l, "NIC%-*d", w - 3, k);
        for (int b = 0; b < t->ngpus; b++) lcat(&l, "%-*s", w, nvs_topo_gpu_nic_class(t, b, k));
        for (int m = 0; m < t->nnics; m++) lcat(&l, "%-*s", w, m == k ? " X" : nvs_topo_nic_nic_class(t, k, m));
        lend(&l, to);
    }
}

/* `nvidia-smi topo -m`'s "NIC Legend": the RDMA device names (the interface where there is none) */
static void nic_legend(const nvs_topology *t, FILE *to)
{
    if (!t->nnics) return;
    fprintf(to, "\nNIC Legend:\n");
    for (int k = 0; k < t->nnics; k++) {
        char e1[NVS_ESC_SIZE(sizeof t->nics[k].name)], e2[NVS_ESC_SIZE(sizeof t->hosts[0].name)];
        fprintf(to, "  NIC%d: %s", k, TERM(t->nics[k].name, e1));
        if (t->nhosts > 1) fprintf(to, " (host %s)", TERM(t->hosts[t->nics[k].host].name, e2));
        fprintf(to, "\n");
    }
}

void nvs_topo_print_matrix(const nvs_topology *t, FILE *to)
{
    matrix_rows(t, to, 1);
    nic_legend(t, to);
}

void nvs_topo_print_matrix_brief(const nvs_topology *t, FILE *to)
{
    matrix_rows(t, to, 0);
    if (!t->nnics) return;
    /* the NIC legend on one line: "NICs: NIC0 mlx5_0, NIC1 mlx5_1" */
    static line_t l;
    lcat(&l, "NICs:");
    for (int k = 0; k < t->nnics; k++) {
        char e[NVS_ESC_SIZE(sizeof t->nics[k].name)];
        lcat(&l, "%s NIC%d %s", k ? "," : "", k, TERM(t->nics[k].name, e));
    }
    lend(&l, to);
}

static const char *p2p_cell(const nvs_topo_pair *p)
{
    if (p->p2p_cuda == 1) return "OK";
    if (p->p2p_cuda == 0) return p->nvml_read[0] && strcmp(p->nvml_read, "OK") ? p->nvml_read : "NS";
    if (p->nvml_read[0]) return p->nvml_read;
    return "-";
}

static void print_p2p(const nvs_topology *t, FILE *to, int w)
{
    static line_t l;
    int known = 0, pairs = 0;
    for (int a = 0; a < t->ngpus && !known; a++)
        for (int b = 0; b < t->ngpus && !known; b++) {
            const nvs_topo_pair *p = a == b || t->gpus[a].host != t->gpus[b].host ? NULL : nvs_topo_pair_at(t, a, b);
            pairs += p != NULL;
            known = p && (p->p2p_cuda >= 0 || p->nvml_read[0]);
        }
    if (!pairs) { /* one GPU, or one per host: "neither CUDA nor NVML answered" stood beside "CUDA: ok" */
        fprintf(to, "\nP2P access: no two GPUs on one host (nothing to ask)\n");
        return;
    }
    if (!known) {
        fprintf(to, "\nP2P access: unknown (neither CUDA nor NVML answered; offline they are not asked)\n");
        return;
    }
    fprintf(to, "\nP2P access (cudaDeviceCanAccessPeer both ways; NVML's reason when it says no):\n");
    header(&l, t, w, 0);
    lend(&l, to);
    for (int a = 0; a < t->ngpus; a++) {
        lcat(&l, "GPU%-*d", w - 3, a);
        for (int b = 0; b < t->ngpus; b++) {
            const nvs_topo_pair *p = nvs_topo_pair_at(t, a, b);
            int net = nvs_link_class_parse(p->cls, NULL) == NVS_CLASS_NET;
            lcat(&l, "%-*s", w, a == b ? " X" : net ? "NET" : p2p_cell(p));
        }
        lend(&l, to);
    }
}

static void print_bounds(const nvs_topology *t, FILE *to, int w)
{
    static line_t l;
    if (w < 8) w = 8;
    fprintf(to, "\nBound (GB/s per direction from the links, P2P where possible; '-' unknown):\n");
    header(&l, t, w, 0);
    lend(&l, to);
    for (int a = 0; a < t->ngpus; a++) {
        lcat(&l, "GPU%-*d", w - 3, a);
        for (int b = 0; b < t->ngpus; b++) {
            char cell[32];
            double v = a == b ? 0 : nvs_topo_pair_bound_gbps(t, a, b, 1, NULL, 0);
            if (a == b) snprintf(cell, sizeof cell, " X");
            else if (v < 0) snprintf(cell, sizeof cell, "-");
            else snprintf(cell, sizeof cell, "%.1f", v);
            lcat(&l, "%-*s", w, cell);
        }
        lend(&l, to);
    }
}

static int host_has_nics(const nvs_topology *t, int h)
{
    for (int k = 0; k < t->nnics; k++)
        if (t->nics[k].host == h) return 1;
    return 0;
}

static void print_nic(const nvs_topo_nic *n, FILE *to)
{
    char numa[16] = "N/A";
    if (n->numa_node >= 0) snprintf(numa, sizeof numa, "%d", n->numa_node);
    char e1[NVS_ESC_SIZE(sizeof n->name)], e2[NVS_ESC_SIZE(sizeof n->netdev)], e3[NVS_ESC_SIZE(sizeof n->state)],
        e4[NVS_ESC_SIZE(sizeof n->rate_source)];
    fprintf(to, "NIC%-3d%s", n->index, TERM(n->name, e1));
    if (n->netdev[0] && strcmp(n->netdev, n->name)) fprintf(to, " (%s)", TERM(n->netdev, e2));
    fprintf(to, "  %s  %s  NUMA %s  %s\n", n->kind, TERM(n->pci_bus_id, e1), numa,
            n->state[0] ? TERM(n->state, e3) : "state unknown");
    if (n->gbps > 0)
        fprintf(to, "      rate: %s = %.6g GB/s per direction (%s)\n", TERM(n->rate, e1), n->gbps,
                TERM(n->rate_source, e4)); /* the source names the device */
    else
        fprintf(to, "      rate: unknown (%s)\n", n->rate_source[0] ? TERM(n->rate_source, e4)
                                                                   : "offline: hwloc stores no link rate; an XML info "
                                                                     "LinkRate gives one");
}

/* The source as the table says it. --hwloc-xml - is "hwloc-xml:standard input" (topo_discover.c), which read as
 * the path of a file named "standard input"; run.json keeps that value, documented as "hwloc-xml:<path>" for
 * scripts (docs/run-json.md), and only the table says it in words. */
static const char *source_text(const char *source, char *buf, size_t len)
{
    snprintf(buf, len, "hwloc-xml:%s", nvs_input_name("-"));
    if (strcmp(source, buf)) return source;
    snprintf(buf, len, "hwloc XML from %s", nvs_input_name("-"));
    return buf;
}

void nvs_topo_print(const nvs_topology *t, FILE *to)
{
    char e1[NVS_ESC_SIZE(sizeof t->source)], e2[NVS_ESC_SIZE(NVS_TOPO_NAME_LEN)], e3[NVS_ESC_SIZE(256)], src[64];
    fprintf(to, "Topology: %s\n", TERM(source_text(t->source, src, sizeof src), e1));
    fprintf(to, "NVML: %s\nCUDA: %s\n", t->nvml_status[0] ? t->nvml_status : "-",
            t->cuda_status[0] ? t->cuda_status : "-");
    for (int h = 0; h < t->nhosts; h++) {
        fprintf(to, "\nHost %s:", TERM(t->hosts[h].name, e1));
        if (t->hosts[h].packages)
            fprintf(to, " %d package%s,", t->hosts[h].packages, t->hosts[h].packages == 1 ? "" : "s");
        if (t->hosts[h].numa_nodes)
            fprintf(to, " %d NUMA node%s", t->hosts[h].numa_nodes, t->hosts[h].numa_nodes == 1 ? "" : "s");
        fprintf(to, "\n");
        for (int i = 0; i < t->ngpus; i++) {
            const nvs_topo_gpu *g = &t->gpus[i];
            if (g->host != h) continue;
            char numa[16] = "N/A";
            if (g->numa_node >= 0) snprintf(numa, sizeof numa, "%d", g->numa_node);
            fprintf(to, "GPU%-3d%s  %s  NUMA %s  CPUs %s", i, TERM(g->name, e2), TERM(g->pci_bus_id, e1), numa,
                    TERM(g->cpuset[0] ? g->cpuset : "N/A", e3));
            if (g->cuda_device >= 0) fprintf(to, "  (CUDA device %d)", g->cuda_device);
            fprintf(to, "\n");
            print_pcie(t, g, to);
            print_nvlink(t, g, to);
            if (host_has_nics(t, h)) /* the source names the NICs */
                fprintf(to, "      NET: %s\n", g->net.source[0] ? TERM(g->net.source, e3) : "unknown");
        }
        for (int k = 0; k < t->nnics; k++)
            if (t->nics[k].host == h) print_nic(&t->nics[k], to);
    }
    fprintf(to, "\n");
    matrix_rows(t, to, 1);
    int w = col_width(t);
    print_p2p(t, to, w);
    print_bounds(t, to, w);
    fputs("\nLegend:\n"
          "  X    = Self\n"
          "  NET  = Connection between hosts (network)\n"
          "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
          "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a "
          "NUMA node\n"
          "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
          "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
          "  PIX  = Connection traversing at most a single PCIe bridge\n"
          "  NV#  = Connection traversing a bonded set of # NVLinks\n"
          "  P2P: OK = peer access, NS = not supported (copies go through host memory), CNS/GNS/TNS = chipset/GPU/\n"
          "       topology not supported (NVML), - = unknown (offline: CUDA and NVML not asked)\n",
          to);
    nic_legend(t, to);
}

void nvs_topo_print_csv(const nvs_topology *t, FILE *to)
{
    fprintf(to, "a,b,host_a,host_b,class,nvlinks,pcie_class,p2p_cuda,nvml_read,bound_gbps,bound_link\n");
    for (int a = 0; a < t->ngpus; a++)
        for (int b = a + 1; b < t->ngpus; b++) {
            const nvs_topo_pair *p = nvs_topo_pair_at(t, a, b);
            nvs_topo_hop h;
            double v = nvs_topo_pair_hop(t, a, b, 1, &h);
            char bound[32] = "";
            if (v >= 0) snprintf(bound, sizeof bound, "%.3f", v);
            char ha[NVS_ESC_SIZE(64)], hb[NVS_ESC_SIZE(64)];
            fprintf(to, "%d,%d,%s,%s,%s,%d,%s,%s,%s,%s,%s\n", a, b, CSV(t->hosts[t->gpus[a].host].name, ha),
                    CSV(t->hosts[t->gpus[b].host].name, hb), p->cls, p->nvlinks, p->pcie_cls,
                    p->p2p_cuda < 0 ? "" : p->p2p_cuda ? "1" : "0", p->nvml_read, bound, h.link);
        }
    /* then GPU-NIC rows: b is "NIC<k>", the bound the NIC's line rate */
    for (int a = 0; a < t->ngpus; a++)
        for (int k = 0; k < t->nnics; k++) {
            const nvs_topo_nic *n = &t->nics[k];
            const char *c = nvs_topo_gpu_nic_class(t, a, k);
            char bound[32] = "";
            if (n->gbps > 0) snprintf(bound, sizeof bound, "%.3f", n->gbps);
            char ha[NVS_ESC_SIZE(64)], hn[NVS_ESC_SIZE(64)];
            fprintf(to, "%d,NIC%d,%s,%s,%s,0,%s,,,%s,network\n", a, k, CSV(t->hosts[t->gpus[a].host].name, ha),
                    CSV(t->hosts[n->host].name, hn), c, strcmp(c, "NET") ? c : "", bound);
        }
}
