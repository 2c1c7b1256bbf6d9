/* The topology's storage (PURE): allocation, and the classes of GPU pairs, GPU-NIC and NIC pairs kept host by host.
 *
 * Two GPUs (a GPU and a NIC, two NICs) of different hosts are always NET: the network joins them, CUDA P2P does
 * not, nor any PCIe class (nvidia-smi prints NET there too). So a host's block is all there is to store: host h
 * holds its GPUs squared, its GPUs x its NICs and its NICs squared, each GPU and NIC at its place ("slot") among
 * its host's. 512 hosts of 8 GPUs and 8 NICs keep 3 x 32,768 cells, where full matrices kept 3 x 16.8 million
 * (about 1.4 GB, on every rank of the run). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

/* what a pair across hosts reads as (the NET hop's bound comes from each GPU's "net", core/net_bound.h) */
static const nvs_topo_pair net_pair = {.cls = "NET", .nvlinks = 0, .pcie_cls = "", .p2p_cuda = 0, .nvml_read = ""};

static size_t at_least_1(size_t n) { return n ? n : 1; }
static int nblocks(const nvs_topology *t) { return t->nhosts > 0 ? t->nhosts : 1; }

nvs_topology *nvs_topo_alloc(int nhosts, int ngpus)
{
    if (ngpus < 0 || nhosts < 0 || ngpus > NVS_TOPO_MAX_GPUS || nhosts > NVS_TOPO_MAX_GPUS) return NULL;
    nvs_topology *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->nhosts = nhosts;
    t->ngpus = ngpus;
    t->hosts = calloc(at_least_1((size_t)nhosts), sizeof *t->hosts);
    t->gpus = calloc(at_least_1((size_t)ngpus), sizeof *t->gpus);
    if (!t->hosts || !t->gpus) {
        nvs_topo_free(t);
        return NULL;
    }
    for (int i = 0; i < ngpus; i++) {
        nvs_topo_gpu *g = &t->gpus[i];
        g->index = i;
        g->cuda_device = -1;
        g->numa_node = -1;
        g->path.numa_node = -1;
    }
    /* one host: every GPU is on it, so the layout is known now */
    if (nhosts <= 1 && nvs_topo_layout(t) != NVS_OK) {
        nvs_topo_free(t);
        return NULL;
    }
    return t;
}

static void drop_gpu_layout(nvs_topology *t)
{
    free(t->pairs);
    free(t->gpu_slot);
    free(t->blocks);
    t->pairs = NULL;
    t->gpu_slot = NULL;
    t->blocks = NULL;
}

static void drop_nic_layout(nvs_topology *t)
{
    free(t->gpu_nic_cls);
    free(t->nic_nic_cls);
    free(t->nic_slot);
    t->gpu_nic_cls = t->nic_nic_cls = NULL;
    t->nic_slot = NULL;
}

void nvs_topo_free(nvs_topology *t)
{
    if (!t) return;
    drop_nic_layout(t);
    drop_gpu_layout(t);
    free(t->hosts);
    free(t->gpus);
    free(t->nics);
    free(t);
}

static void fill_unknown(char *cls, size_t n)
{
    for (size_t i = 0; i < n; i++) strcpy(cls + i * NVS_TOPO_CLS_LEN, "?");
}

/* The NIC blocks, from the GPU blocks (laid out already) and the NICs' hosts. */
static nvs_result_t layout_nics(nvs_topology *t)
{
    int nb = nblocks(t);
    drop_nic_layout(t);
    for (int h = 0; h < nb; h++) t->blocks[h].nnics = 0;
    t->nic_slot = calloc(at_least_1((size_t)t->nnics), sizeof *t->nic_slot);
    if (!t->nic_slot) return NVS_ERR_NOMEM;
    for (int k = 0; k < t->nnics; k++) {
        int h = t->nics[k].host;
        if (h < 0 || h >= nb) return NVS_ERR_INPUT;
        t->nic_slot[k] = t->blocks[h].nnics++;
    }
    size_t gn = 0, nn = 0;
    for (int h = 0; h < nb; h++) {
        nvs_topo_block *b = &t->blocks[h];
        b->gpu_nic_off = gn;
        b->nic_nic_off = nn;
        gn += (size_t)b->ngpus * (size_t)b->nnics;
        nn += (size_t)b->nnics * (size_t)b->nnics;
    }
    t->gpu_nic_cls = malloc(at_least_1(gn) * NVS_TOPO_CLS_LEN);
    t->nic_nic_cls = malloc(at_least_1(nn) * NVS_TOPO_CLS_LEN);
    if (!t->gpu_nic_cls || !t->nic_nic_cls) return NVS_ERR_NOMEM;
    fill_unknown(t->gpu_nic_cls, gn);
    fill_unknown(t->nic_nic_cls, nn);
    return NVS_OK;
}

nvs_result_t nvs_topo_layout(nvs_topology *t)
{
    int nb = nblocks(t);
    drop_nic_layout(t);
    drop_gpu_layout(t);
    t->blocks = calloc((size_t)nb, sizeof *t->blocks);
    t->gpu_slot = calloc(at_least_1((size_t)t->ngpus), sizeof *t->gpu_slot);
    if (!t->blocks || !t->gpu_slot) return NVS_ERR_NOMEM;
    for (int i = 0; i < t->ngpus; i++) {
        int h = t->gpus[i].host;
        if (h < 0 || h >= nb) {
            drop_gpu_layout(t);
            return NVS_ERR_INPUT;
        }
        t->gpu_slot[i] = t->blocks[h].ngpus++;
    }
    size_t np = 0;
    for (int h = 0; h < nb; h++) {
        t->blocks[h].pair_off = np;
        np += (size_t)t->blocks[h].ngpus * (size_t)t->blocks[h].ngpus;
    }
    t->pairs = calloc(at_least_1(np), sizeof *t->pairs);
    if (!t->pairs) return NVS_ERR_NOMEM;
    for (size_t i = 0; i < np; i++) {
        strcpy(t->pairs[i].cls, "?");
        t->pairs[i].p2p_cuda = -1;
    }
    nvs_result_t r = layout_nics(t);
    if (r != NVS_OK) drop_gpu_layout(t); /* the NIC half failed: nothing half laid out */
    return r;
}

nvs_result_t nvs_topo_alloc_nics(nvs_topology *t, int n)
{
    drop_nic_layout(t);
    free(t->nics);
    t->nnics = 0;
    t->nics = calloc(at_least_1(n > 0 ? (size_t)n : 0), sizeof *t->nics);
    if (!t->nics) return NVS_ERR_NOMEM;
    t->nnics = n > 0 ? n : 0;
    for (int i = 0; i < t->nnics; i++) {
        t->nics[i].index = i;
        t->nics[i].numa_node = -1;
        t->nics[i].path.numa_node = -1;
    }
    /* GPU blocks known (one host, or laid out already): every new NIC is on host 0 until the caller says else */
    return t->blocks ? layout_nics(t) : NVS_OK;
}

/* --- cells ------------------------------------------------------------------------------------------------- */
/* The cell of (x, y), x of host hx at slot sx and y of host hy at slot sy, in host hx's block that starts at
 * `off` with `width` cells a row; SIZE_MAX when they are of different hosts (nothing stored: NET). */
static size_t block_cell(int hx, int hy, size_t off, int sx, int sy, int width)
{
    return hx != hy ? SIZE_MAX : off + (size_t)sx * (size_t)width + (size_t)sy;
}

/* SIZE_MAX: out of range, not laid out, or of different hosts */
static size_t pair_index(const nvs_topology *t, int a, int b)
{
    if (!t || !t->blocks || a < 0 || b < 0 || a >= t->ngpus || b >= t->ngpus) return SIZE_MAX;
    const nvs_topo_block *k = &t->blocks[t->gpus[a].host];
    return block_cell(t->gpus[a].host, t->gpus[b].host, k->pair_off, t->gpu_slot[a], t->gpu_slot[b], k->ngpus);
}

static size_t gpu_nic_index(const nvs_topology *t, int g, int n)
{
    if (!t || !t->gpu_nic_cls || g < 0 || n < 0 || g >= t->ngpus || n >= t->nnics) return SIZE_MAX;
    const nvs_topo_block *k = &t->blocks[t->gpus[g].host];
    return block_cell(t->gpus[g].host, t->nics[n].host, k->gpu_nic_off, t->gpu_slot[g], t->nic_slot[n], k->nnics);
}

static size_t nic_nic_index(const nvs_topology *t, int a, int b)
{
    if (!t || !t->nic_nic_cls || a < 0 || b < 0 || a >= t->nnics || b >= t->nnics) return SIZE_MAX;
    const nvs_topo_block *k = &t->blocks[t->nics[a].host];
    return block_cell(t->nics[a].host, t->nics[b].host, k->nic_nic_off, t->nic_slot[a], t->nic_slot[b], k->nnics);
}

nvs_topo_pair *nvs_topo_pair_cell(nvs_topology *t, int a, int b)
{
    size_t i = pair_index(t, a, b);
    return i == SIZE_MAX ? NULL : &t->pairs[i];
}

char *nvs_topo_gpu_nic_cell(nvs_topology *t, int gpu, int nic)
{
    size_t i = gpu_nic_index(t, gpu, nic);
    return i == SIZE_MAX ? NULL : t->gpu_nic_cls + i * NVS_TOPO_CLS_LEN;
}

char *nvs_topo_nic_nic_cell(nvs_topology *t, int a, int b)
{
    size_t i = nic_nic_index(t, a, b);
    return i == SIZE_MAX ? NULL : t->nic_nic_cls + i * NVS_TOPO_CLS_LEN;
}

const nvs_topo_pair *nvs_topo_pair_at(const nvs_topology *t, int a, int b)
{
    if (!t || !t->blocks || a < 0 || b < 0 || a >= t->ngpus || b >= t->ngpus) return NULL;
    size_t i = pair_index(t, a, b);
    return i == SIZE_MAX ? &net_pair : &t->pairs[i];
}

const char *nvs_topo_gpu_nic_class(const nvs_topology *t, int gpu, int nic)
{
    if (!t || !t->gpu_nic_cls || gpu < 0 || nic < 0 || gpu >= t->ngpus || nic >= t->nnics) return NULL;
    size_t i = gpu_nic_index(t, gpu, nic);
    return i == SIZE_MAX ? "NET" : t->gpu_nic_cls + i * NVS_TOPO_CLS_LEN;
}

const char *nvs_topo_nic_nic_class(const nvs_topology *t, int a, int b)
{
    if (!t || !t->nic_nic_cls || a < 0 || b < 0 || a >= t->nnics || b >= t->nnics) return NULL;
    if (a == b) return "X";
    size_t i = nic_nic_index(t, a, b);
    return i == SIZE_MAX ? "NET" : t->nic_nic_cls + i * NVS_TOPO_CLS_LEN;
}
