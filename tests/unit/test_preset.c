/* Preset parsing and validation (src/model/preset.h): the built-in families, good and bad texts (every error names
 * its line), user files overriding built-ins, GPU name matching. */
#include <string.h>

#include "model/preset.h"
#include "t.h"

static void t_builtins_valid(void)
{
    nvs_presets ps;
    memset(&ps, 0, sizeof ps);
    char err[512] = "";
    T_EQ_I(nvs_presets_load_builtin(&ps, err, sizeof err), NVS_OK);
    /* the list, at least */
    static const char *const gpus[] = {"rtx3090", "rtxa6000", "a100-sxm", "h100-sxm", "h200-sxm", "l40s"};
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        const nvs_preset *p = nvs_presets_find(&ps, NVS_PK_GPU, gpus[i]);
        if (!p) T_FAIL("no built-in gpu %s", gpus[i]);
        /* every hardware number carries its source */
        for (int f = 0; f < NVS_G_COUNT; f++) {
            if (f == NVS_G_NVLINK_GEN || f == NVS_G_NVLINK_GBPS)
                if (p->f[NVS_G_NVLINK_LINKS].v == 0) continue; /* defaults when there is no NVLink */
            if (!p->f[f].set || !p->f[f].src[0])
                T_FAIL("gpu %s: %s has no source", p->id, nvs_preset_key_name(NVS_PK_GPU, f));
        }
    }
    static const char *const machines[] = {"pcie3-2s-8gpu-switch", "pcie3-2s-8gpu-noswitch", "pcie4-1s-8gpu-switch",
                                           "pcie4-2s-8gpu-switch", "pcie4-2s-8gpu-noswitch", "pcie5-2s-8gpu-switch",
                                           "pcie5-2s-8gpu-noswitch", "pcie4-2s-8gpu-nvpairs", "hgx-a100-8",
                                           "hgx-h100-8", "nvlink-2gpu", "pcie4-1s-8gpu-cascade"};
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++) {
        const nvs_preset *p = nvs_presets_find(&ps, NVS_PK_MACHINE, machines[i]);
        if (!p) T_FAIL("no built-in machine %s", machines[i]);
        static const int facts[] = {NVS_M_GPU_LINK_GBPS, NVS_M_SHM_GBPS, NVS_M_P2P_HOP_US, NVS_M_SHM_HOP_US,
                                    NVS_M_COLL_BASE_US};
        for (size_t f = 0; f < sizeof facts / sizeof facts[0]; f++)
            if (!p->f[facts[f]].src[0])
                T_FAIL("machine %s: %s has no source", p->id, nvs_preset_key_name(NVS_PK_MACHINE, facts[f]));
    }
    T_ASSERT(nvs_presets_find(&ps, NVS_PK_NET, "ib-hdr200") != NULL);
    T_ASSERT(nvs_presets_find(&ps, NVS_PK_NET, "eth-100g") != NULL);
    /* values as documented */
    const nvs_preset *g = nvs_presets_find(&ps, NVS_PK_GPU, "rtx3090");
    T_NEAR(g->f[NVS_G_P2P_PCIE].v, 0, 0);
    T_NEAR(g->f[NVS_G_MEMORY_BYTES].v, 24.0 * 1073741824, 0);
    g = nvs_presets_find(&ps, NVS_PK_GPU, "rtxa6000");
    T_NEAR(g->f[NVS_G_P2P_PCIE].v, 1, 0);
    T_NEAR(g->f[NVS_G_MEMORY_BYTES].v, 48.0 * 1073741824, 0);
    /* compute capability (developer.nvidia.com/cuda-gpus): what NVLink SHARP needs of the GPU (model.h) */
    static const struct {
        const char *id;
        double cc;
    } ccs[] = {{"rtx3090", 8.6}, {"rtx4090", 8.9}, {"rtxa6000", 8.6}, {"l40s", 8.9},
               {"a100-sxm", 8.0}, {"h100-sxm", 9.0}, {"h200-sxm", 9.0}};
    for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
        g = nvs_presets_find(&ps, NVS_PK_GPU, ccs[i].id);
        if (!g) T_FAIL("no built-in gpu %s", ccs[i].id);
        T_NEAR(g->f[NVS_G_COMPUTE_CAP].v, ccs[i].cc, 1e-12);
        T_CONTAINS(g->f[NVS_G_COMPUTE_CAP].src, "cuda-gpus");
    }
    const nvs_preset *m = nvs_presets_find(&ps, NVS_PK_MACHINE, "pcie4-2s-8gpu-switch");
    T_NEAR(m->f[NVS_M_P2P_LEVEL].v, -1, 0); /* no override: NCCL's own rule decides (model.h) */
    T_CONTAINS(m->f[NVS_M_P2P_LEVEL].src, "paths.cc");
    T_NEAR(m->f[NVS_M_CPU].v, NVS_CPU_UNKNOWN, 0);
    T_NEAR(m->f[NVS_M_HOST_GBPS].v, 0, 0); /* no host budget unless a preset gives one */
    T_NEAR(m->f[NVS_M_XSOCKET_SHM_COST].v, 1, 0);
    nvs_presets_free(&ps);
}

static void t_match_gpu(void)
{
    nvs_presets ps;
    memset(&ps, 0, sizeof ps);
    char err[512];
    T_EQ_I(nvs_presets_load_builtin(&ps, err, sizeof err), NVS_OK);
    static const struct {
        const char *name, *id;
    } v[] = {
        {"NVIDIA GeForce RTX 3090", "rtx3090"}, {"NVIDIA RTX A6000", "rtxa6000"},
        {"NVIDIA H200", "h200-sxm"},            {"NVIDIA H100 80GB HBM3", "h100-sxm"},
        {"NVIDIA A100-SXM4-80GB", "a100-sxm"},  {"NVIDIA L40S", "l40s"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        const nvs_preset *p = nvs_presets_match_gpu(&ps, v[i].name);
        T_ASSERT(p != NULL);
        T_EQ_S(p->id, v[i].id);
    }
    T_ASSERT(nvs_presets_match_gpu(&ps, "Tesla K80") == NULL);
    /* other cards whose names hold a preset's: the H100 PCIe and NVL took the SXM5's 3.35 TB/s and 18 NVLinks, a
     * Grace Hopper GH200 the H200's 141 GB */
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA H100 PCIe") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA H100 NVL") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA GH200 480GB") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA L40") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA A100-SXM4-40GB") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, NULL) == NULL);
    /* sibling cards whose CUDA names START with a preset's: the H200 NVL (PCIe card, NVLink bridges, lower
     * TDP) took the H200 SXM's 18 NVLinks and 4.8 TB/s; the RTX 3090 Ti (84 SMs, higher clocks) the 3090's
     * 82 SMs; the RTX 4090 D (114 SMs) and the 4090 laptop part (another chip) the 4090's 128; a MIG slice or
     * a vGPU profile a fraction of the card. A preset's match must end the name. */
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA H200 NVL") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA GeForce RTX 3090 Ti") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA GeForce RTX 4090 D") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA GeForce RTX 4090 Laptop GPU") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA A100-SXM4-80GB MIG 1g.10gb") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA L40S-48Q") == NULL);
    T_ASSERT(nvs_presets_match_gpu(&ps, "NVIDIA RTX A6000 Ada Generation") == NULL);
    /* older drivers leave out the "NVIDIA " prefix; a trailing blank is not a word */
    const nvs_preset *old = nvs_presets_match_gpu(&ps, "GeForce RTX 3090");
    T_ASSERT(old && !strcmp(old->id, "rtx3090"));
    old = nvs_presets_match_gpu(&ps, "NVIDIA H200 ");
    T_ASSERT(old && !strcmp(old->id, "h200-sxm"));
    nvs_presets_free(&ps);
}

#define HDR "nvscale-presets 1\n"
#define GPU_OK                                                                                              \
    "gpu g1\n"                                                                                              \
    "  name Test GPU\n"                                                                                     \
    "  match Test GPU\n"                                                                                    \
    "  fp32_tflops 10 | s\n"                                                                                \
    "  tf32_tflops 20 | s\n"                                                                                \
    "  bf16_tflops 40 | s\n"                                                                                \
    "  mem_gbps 500 | s\n"                                                                                  \
    "  memory_bytes 1e10 | s\n"                                                                             \
    "  p2p_pcie 1 | s\n"                                                                                    \
    "  nvlink_links 0 | s\n"                                                                                \
    "  pcie_gen 4 | s\n"
#define MACH_OK                                                                                             \
    "machine m1\n"                                                                                          \
    "  name Test box\n"                                                                                     \
    "  gpus 8\n"                                                                                            \
    "  sockets 2\n"                                                                                         \
    "  gpus_per_switch 4\n"                                                                                 \
    "  gpu_link_gbps 24 | s\n"                                                                              \
    "  uplink_gbps 24 | s\n"                                                                                \
    "  socket_gbps 20 | s\n"                                                                                \
    "  shm_gbps 10 | s\n"                                                                                   \
    "  p2p_hop_us 1.5 | s\n"                                                                                \
    "  shm_hop_us 3 | s\n"                                                                                  \
    "  coll_base_us 7 | s\n"

static void t_good_text(void)
{
    nvs_presets ps;
    memset(&ps, 0, sizeof ps);
    char err[512] = "";
    const char *text = HDR "# a comment\n\n" GPU_OK "end\n" MACH_OK "  nvlink pairs\n  nvlink_hop_us 1 | s\n"
                           "  nvlink_eff 0.7 | s\n  p2p_level SYS   # NCCL_P2P_LEVEL=SYS\nend\n"
                           "net n1\n  name Test net\n  gbps 12 | s with | bars and # hashes\n  hop_us 5 | s\nend\n";
    T_EQ_I(nvs_presets_parse(&ps, text, "t", err, sizeof err), NVS_OK);
    const nvs_preset *g = nvs_presets_find(&ps, NVS_PK_GPU, "g1");
    T_ASSERT(g != NULL);
    T_EQ_S(g->name, "Test GPU");
    T_NEAR(g->f[NVS_G_MEMORY_BYTES].v, 1e10, 0);
    T_EQ_S(g->origin, "t:4");
    T_NEAR(g->f[NVS_G_COMPUTE_CAP].v, 0, 0); /* optional: not stated (no NVLink SHARP assumed) */
    T_EQ_S(g->f[NVS_G_COMPUTE_CAP].src, "not stated");
    const nvs_preset *m = nvs_presets_find(&ps, NVS_PK_MACHINE, "m1");
    T_NEAR(m->f[NVS_M_NVLINK].v, NVS_NVLINK_PAIRS, 0);
    T_NEAR(m->f[NVS_M_P2P_LEVEL].v, NVS_CLS_SYS, 0);
    T_NEAR(m->f[NVS_M_NICS].v, 1, 0);
    const nvs_preset *n = nvs_presets_find(&ps, NVS_PK_NET, "n1");
    T_EQ_S(n->f[NVS_N_GBPS].src, "s with | bars and # hashes");
    nvs_presets_free(&ps);
}

/* The fastest NIC there is (preset.c: 1.6 Tb/s, 200 GB/s) still parses; above it the value is refused. */
static void t_nic_bound(void)
{
    nvs_presets ps;
    memset(&ps, 0, sizeof ps);
    char err[512];
    T_EQ_I(nvs_presets_parse(&ps, HDR "net n\n  name N\n  gbps 200 | s\n  hop_us 5 | s\nend\n", "t", err, sizeof err),
           NVS_OK);
    T_NEAR(nvs_presets_find(&ps, NVS_PK_NET, "n")->f[NVS_N_GBPS].v, 200, 0);
    T_EQ_I(nvs_presets_parse(&ps, HDR "net n\n  name N\n  gbps 200.5 | s\n  hop_us 5 | s\nend\n", "t", err,
                             sizeof err),
           NVS_ERR_INPUT);
    T_CONTAINS(err, "'gbps' = 200.5");
    T_NEAR(nvs_presets_find(&ps, NVS_PK_NET, "n")->f[NVS_N_GBPS].v, 200, 0); /* unchanged */
    nvs_presets_free(&ps);
}

static void t_bad_texts(void)
{
    static const struct {
        const char *text, *want;
    } v[] = {
        {"", "t:1: empty"},
        {"   \n# only comments\n", "t:2: empty"},
        {"gpu a\nend\n", "t:1: expected the header 'nvscale-presets 1'"},
        {"nvscale-presets 2\n", "t:1: expected the header"},
        {HDR "widget x\n", "t:2: expected 'gpu ID'"},
        {HDR "gpu A\n", "t:2: 'gpu' needs one ID"},
        {HDR "gpu a b\n", "t:2: 'gpu' needs one ID"},
        {HDR GPU_OK "  bogus 1 | s\nend\n", "t:13: unknown gpu key 'bogus'"},
        {HDR GPU_OK "  nvlink_gen 3\nend\n", "t:13: 'nvlink_gen' needs its source"},
        {HDR GPU_OK "  compute_capability 9.0\nend\n", "t:13: 'compute_capability' needs its source"},
        {HDR GPU_OK "  compute_capability 90 | sm_90\nend\n", "t:13: 'compute_capability' = 90 is outside 1..20"},
        {HDR "gpu g\n  fp32_tflops abc | s\n", "t:3: 'fp32_tflops' is not a number: 'abc'"},
        {HDR "gpu g\n  fp32_tflops -1 | s\n", "t:3: 'fp32_tflops' = -1 is outside"},
        {HDR "gpu g\n  fp32_tflops 1e9 | s\n", "is outside 0.1..100000"},
        {HDR "gpu g\n  nvlink_links 2.5 | s\n", "t:3: 'nvlink_links' must be an integer"},
        {HDR "gpu g\n  p2p_pcie 2 | s\n", "t:3: 'p2p_pcie' = 2 is outside 0..1"},
        {HDR "gpu g\n  fp32_tflops 1 | s\n  fp32_tflops 2 | s\n", "t:4: 'fp32_tflops' given twice"},
        {HDR "gpu g\n  fp32_tflops 1 2 | s\n", "t:3: 'fp32_tflops' takes one value"},
        {HDR "gpu g\n  fp32_tflops 1 |   \n", "t:3: 'fp32_tflops': empty source"},
        {HDR "gpu g\n  name \"Quoted\"\n", "t:3: quotes are not part of the format"},
        {HDR "gpu g\n  fp32_tflops 1 # c | s\n", "t:3: '#' before the source"},
        {HDR "gpu g\n  name A | s\n", "t:3: 'name' takes no source"},
        {HDR "gpu g\n  fp32_tflops\n", "t:3: 'fp32_tflops' needs a value"},
        {HDR GPU_OK, "t:2: gpu 'g1' has no 'end'"},
        {HDR "gpu g\n  name G\nend\n", "t:2: gpu 'g' lacks the required key 'match'"},
        {HDR GPU_OK "end\n" GPU_OK "end\n", "t:14: gpu 'g1' defined twice (first at t:2)"},
        {HDR GPU_OK "  nvlink_links 4 | s\nend\n", "'nvlink_links' given twice"},
        {HDR "gpu g\n  name G\n  match G\n  fp32_tflops 10 | s\n  tf32_tflops 20 | s\n  bf16_tflops 40 | s\n"
             "  mem_gbps 500 | s\n  memory_bytes 1e10 | s\n  p2p_pcie 1 | s\n  nvlink_links 4 | s\n"
             "  pcie_gen 4 | s\nend\n",
         "t:2: gpu 'g' needs 'nvlink_gen' (it has NVLink links)"},
        /* a NIC's rate typed in Gb/s (bits) where the key is GB/s (bytes): 400 GB/s is no NIC */
        {HDR "net n\n  name N\n  gbps 400 | s\n  hop_us 5 | s\nend\n",
         "t:4: 'gbps' = 400 GB/s per direction (3200 Gb/s) is faster than any NIC"},
        {HDR "net n\n  name N\n  gbps 800 | s\n  hop_us 5 | s\nend\n", "if 800 is Gb/s, write 100 (800 / 8)"},
        {HDR MACH_OK "  nvlink bridge\nend\n", "t:14: 'nvlink' must be one of none pairs nvswitch, not 'bridge'"},
        {HDR MACH_OK "  p2p_level NV\nend\n", "'p2p_level' must be one of PIX PXB PHB NODE SYS, not 'NV'"},
        {HDR MACH_OK "  nvlink pairs\n  nvlink_hop_us 1 | s\nend\n", "t:2: machine 'm1' needs 'nvlink_eff'"},
        {HDR "machine m\n  name M\n  gpus 7\n  sockets 2\n  gpus_per_switch 0\n  gpu_link_gbps 1 | s\n"
             "  socket_gbps 1 | s\n  shm_gbps 1 | s\n  p2p_hop_us 1 | s\n  shm_hop_us 1 | s\n  coll_base_us 1 | s\nend\n",
         "t:2: machine 'm': gpus 7 is not a multiple of sockets 2"},
        {HDR "machine m\n  name M\n  gpus 8\n  sockets 2\n  gpus_per_switch 3\n  gpu_link_gbps 1 | s\n"
             "  uplink_gbps 1 | s\n  socket_gbps 1 | s\n  shm_gbps 1 | s\n  p2p_hop_us 1 | s\n  shm_hop_us 1 | s\n"
             "  coll_base_us 1 | s\nend\n",
         "4 GPUs per socket do not fill switches of 3"},
        {HDR "machine m\n  name M\n  gpus 8\n  sockets 2\n  gpus_per_switch 4\n  gpu_link_gbps 1 | s\n"
             "  socket_gbps 1 | s\n  shm_gbps 1 | s\n  p2p_hop_us 1 | s\n  shm_hop_us 1 | s\n  coll_base_us 1 | s\nend\n",
         "needs 'uplink_gbps' (it has PCIe switches)"},
        {HDR "net n\n  name N\n  gbps 1 | s\nend\n", "t:2: net 'n' lacks the required key 'hop_us'"},
        {HDR "gpu g\nend extra\n", "t:3: 'end' takes nothing after it"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        nvs_presets ps;
        memset(&ps, 0, sizeof ps);
        char err[512] = "";
        nvs_result_t r = nvs_presets_parse(&ps, v[i].text, "t", err, sizeof err);
        if (r != NVS_ERR_INPUT) T_FAIL("case %zu: accepted (want \"%s\")", i, v[i].want);
        if (!strstr(err, v[i].want)) T_FAIL("case %zu: got \"%s\", want \"%s\"", i, err, v[i].want);
        T_EQ_I(ps.kind[NVS_PK_GPU].n + ps.kind[NVS_PK_MACHINE].n + ps.kind[NVS_PK_NET].n, 0);
        nvs_presets_free(&ps);
    }
}

static void t_override_and_atomic(void)
{
    nvs_presets ps;
    memset(&ps, 0, sizeof ps);
    char err[512];
    T_EQ_I(nvs_presets_load_builtin(&ps, err, sizeof err), NVS_OK);
    int ngpu = ps.kind[NVS_PK_GPU].n;
    /* the fixture file adds a GPU, a machine and a net, and overrides rtx3090 */
    T_EQ_I(nvs_presets_load_file(&ps, "tests/fixtures/presets/good.txt", err, sizeof err), NVS_OK);
    T_EQ_I(ps.kind[NVS_PK_GPU].n, ngpu + 1);
    const nvs_preset *g = nvs_presets_find(&ps, NVS_PK_GPU, "rtx3090");
    T_NEAR(g->f[NVS_G_FP32_TFLOPS].v, 30, 0);
    T_CONTAINS(g->origin, "tests/fixtures/presets/good.txt:");
    T_ASSERT(nvs_presets_find(&ps, NVS_PK_MACHINE, "lab-4gpu") != NULL);
    T_ASSERT(nvs_presets_find(&ps, NVS_PK_NET, "lab-25g") != NULL);
    /* a bad file changes nothing, and says where */
    T_EQ_I(nvs_presets_load_file(&ps, "tests/fixtures/presets/bad_nosource.txt", err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "tests/fixtures/presets/bad_nosource.txt:5: 'fp32_tflops' needs its source");
    T_EQ_I(ps.kind[NVS_PK_GPU].n, ngpu + 1);
    T_ASSERT(nvs_presets_find(&ps, NVS_PK_GPU, "broken") == NULL);
    /* an unreadable file: the reader printed its one message naming the file (stderr); err stays empty so that
     * the caller does not print a second */
    T_EQ_I(nvs_presets_load_file(&ps, "tests/fixtures/presets/no_such_file.txt", err, sizeof err), NVS_ERR_INPUT);
    T_EQ_S(err, "");
    nvs_presets_free(&ps);
}

T_LIST = {
    T_CASE(t_builtins_valid), T_CASE(t_match_gpu), T_CASE(t_good_text), T_CASE(t_bad_texts), T_CASE(t_nic_bound),
    T_CASE(t_override_and_atomic),
};
T_MAIN
