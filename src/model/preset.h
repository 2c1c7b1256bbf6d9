/* Presets of the what-if model (`nvscale model`): GPUs, machines and networks as DATA, every number with the
 * place it comes from. PURE: parsing and validation only (no CUDA/MPI), unit-tested without a GPU.
 *
 * Built-in presets are text compiled into the binary (src/model/presets/<family>.c, one file per family); users add
 * or override presets with `--preset-file FILE` in the same format. Format (docs/model.md has the full list of
 * keys):
 *
 *   nvscale-presets 1                      # header: first line that is not blank or a comment
 *   gpu rtx3090                            # block: KIND ID (kind: gpu | machine | net; id: [a-z0-9._-]+)
 *     name NVIDIA GeForce RTX 3090         # text keys take the rest of the line
 *     fp32_tflops 35.58 | GA102 whitepaper v2.1, Table 9: 10496 FP32 lanes x 2 x 1695 MHz
 *     p2p_pcie 0 | nvidia-smi topo -p2p r: GNS (GPU not supported) on GeForce
 *   end
 *
 * One key per line: KEY VALUE [| SOURCE]. Everything after '|' is the source of the number. Numbers that are
 * facts about hardware (rates, sizes, bandwidths, latencies) must carry a source; layout keys (counts, enums)
 * may. '#' starts a comment before any '|'. Any error is reported as "ORIGIN:LINE: what is wrong" and the
 * whole text is rejected. */
#ifndef NVS_PRESET_H
#define NVS_PRESET_H

#include <stddef.h>

#include "core/err.h"

#define NVS_PRESETS_HEADER "nvscale-presets"
#define NVS_PRESETS_VERSION 1
#define NVS_PRESET_SRC_LEN 256

typedef enum { NVS_PK_GPU = 0, NVS_PK_MACHINE, NVS_PK_NET, NVS_PK_COUNT } nvs_preset_kind;

/* Fields, by kind. The parser's key table (preset.c) maps each key to one of these. */
enum {
    /* gpu */
    NVS_G_FP32_TFLOPS = 0,  /* dense FP32 (CUDA cores), TFLOP/s */
    NVS_G_TF32_TFLOPS,      /* dense TF32 tensor, TFLOP/s */
    NVS_G_BF16_TFLOPS,      /* dense BF16/FP16 tensor with FP32 accumulate, TFLOP/s */
    NVS_G_MEM_GBPS,         /* memory bandwidth, GB/s */
    NVS_G_MEMORY_BYTES,     /* memory size */
    NVS_G_P2P_PCIE,         /* 1 = CUDA peer access over PCIe supported */
    NVS_G_NVLINK_GEN,       /* 0 = none */
    NVS_G_NVLINK_LINKS,     /* links per GPU */
    NVS_G_NVLINK_GBPS,      /* per link per direction, GB/s */
    NVS_G_PCIE_GEN,
    NVS_G_COMPUTE_CAP,      /* CUDA compute capability (8.6, 9.0); 0 = not stated. NVLink SHARP needs 9.0 or later:
                             * NCCL's docs (NCCL_NVLS_ENABLE): "third-generation NVSwitch systems (NVLink4) with
                             * Hopper and later GPU architectures" (model.h, nvs_gpu_nvls) */
    NVS_G_COUNT,
    /* machine */
    NVS_M_GPUS = 0,         /* GPUs per node */
    NVS_M_SOCKETS,
    NVS_M_GPUS_PER_SWITCH,  /* 0 = every GPU on its own CPU root port */
    NVS_M_SWITCH_CASCADE,   /* 1 = a socket's switches sit below one parent switch (PXB between them) */
    NVS_M_NVLINK,           /* enum: none | pairs | nvswitch */
    NVS_M_P2P_LEVEL,        /* enum: PIX | PXB | PHB | NODE | SYS: farthest path class NCCL uses P2P over */
    NVS_M_GPU_LINK_GBPS,    /* GPU <-> switch / root port, per direction, achievable DMA GB/s */
    NVS_M_UPLINK_GBPS,      /* switch <-> parent, per direction */
    NVS_M_SOCKET_GBPS,      /* CPU <-> CPU interconnect, per direction */
    NVS_M_SHM_GBPS,         /* NCCL SHM transport (through host memory): cap per flow */
    NVS_M_NVLINK_HOP_US,    /* per ring step latency by transport */
    NVS_M_P2P_HOP_US,
    NVS_M_SHM_HOP_US,
    NVS_M_COLL_BASE_US,     /* fixed cost of one collective call (launch, setup) */
    NVS_M_NICS,             /* network adapters per node, shared by its GPUs */
    NVS_M_NVLINK_EFF,       /* achievable fraction of the NVLink peak for a ring (NCCL busbw / link bound) */
    NVS_M_CPU,              /* enum: intel | amd | arm: the vendor NCCL's P2P rules look at (default: not stated) */
    NVS_M_HOST_GBPS,        /* NCCL SHM budget of one socket's host path, GB/s of flow bytes (0 = none) */
    NVS_M_XSOCKET_SHM_COST, /* how many times a cross-socket SHM flow loads each socket's host budget (default 1) */
    NVS_M_HOST_MEM_GBPS,    /* host memory bandwidth of one socket (STREAM-like copy), GB/s: a bound, reported */
    NVS_M_NVLS_GBPS,        /* NVLink SHARP all-reduce algbw of the node's NVSwitch, GB/s (0 = none) */
    NVS_M_NET_LOCAL_GBPS,   /* NCCL's NET transport between two GPUs of the node (sockets): cap per flow (0: not
                             * known) */
    NVS_M_NET_LOCAL_HOP_US, /* ... and its per ring step latency */
    NVS_M_COUNT,
    /* net */
    NVS_N_GBPS = 0,         /* per NIC per direction, achievable GB/s */
    NVS_N_HOP_US,           /* per ring step latency across the network */
    NVS_N_SHARP,            /* 1 = the switches can reduce (IB SHARP): CollNet possible */
    NVS_N_COUNT,
    NVS_PF_MAX = 24
};

enum { NVS_NVLINK_NONE = 0, NVS_NVLINK_PAIRS = 1, NVS_NVLINK_SWITCH = 2 };
/* CPU vendors as NCCL's topology tells them apart (src/graph/topo.h NCCL_TOPO_CPU_*) */
enum { NVS_CPU_UNKNOWN = 0, NVS_CPU_INTEL = 1, NVS_CPU_AMD = 2, NVS_CPU_ARM = 3 };
/* Path classes in distance order (nvidia-smi topo -m); the model uses these ranks, the output the names. */
enum { NVS_CLS_NV = 0, NVS_CLS_PIX, NVS_CLS_PXB, NVS_CLS_PHB, NVS_CLS_NODE, NVS_CLS_SYS, NVS_CLS_COUNT };
const char *nvs_class_name(int cls);

typedef struct {
    double v;
    int set;
    char src[NVS_PRESET_SRC_LEN]; /* where the number comes from ("" for a layout key given without one) */
} nvs_pval;

typedef struct {
    nvs_preset_kind kind;
    char id[48];
    char name[96];
    char match[64];   /* gpu: whole words of the CUDA device name ("RTX 3090"), for run.json calibration */
    char origin[160]; /* "builtin gpus:12" or "FILE:12": where the block starts */
    nvs_pval f[NVS_PF_MAX];
} nvs_preset;

typedef struct {
    nvs_preset *v;
    int n, cap;
} nvs_preset_list;

typedef struct {
    nvs_preset_list kind[NVS_PK_COUNT];
} nvs_presets;

const char *nvs_preset_kind_name(nvs_preset_kind k); /* "gpu" / "machine" / "net" */
const char *nvs_preset_key_name(nvs_preset_kind k, int field);
/* How a key's value v reads: NVS_PV_NUMBER, NVS_PV_INTEGER (a count or a 0/1 flag), or NVS_PV_NAME with *name the
 * name the preset file writes (nvlink pairs, cpu amd), NULL where v is the default that has none (p2p_level -1:
 * NCCL's own rule) */
enum { NVS_PV_NUMBER, NVS_PV_INTEGER, NVS_PV_NAME };
int nvs_preset_value_form(nvs_preset_kind k, int field, double v, const char **name);

/* Parse `text` (its name in messages: `origin`) and merge into `ps`: a preset whose id already exists replaces
 * it (user files override built-ins); the same id twice in one text is an error. On error `ps` is unchanged,
 * NVS_ERR_INPUT is returned and `err` holds "ORIGIN:LINE: what". */
nvs_result_t nvs_presets_parse(nvs_presets *ps, const char *text, const char *origin, char *err, size_t errlen);
/* A file: parse errors in err as above; when the file cannot be read, the reason is already printed and err
 * is empty. */
nvs_result_t nvs_presets_load_file(nvs_presets *ps, const char *path, char *err, size_t errlen);
/* Every built-in family (src/model/presets/). */
nvs_result_t nvs_presets_load_builtin(nvs_presets *ps, char *err, size_t errlen);
void nvs_presets_free(nvs_presets *ps);

const nvs_preset *nvs_presets_find(const nvs_presets *ps, nvs_preset_kind k, const char *id);
/* The GPU preset whose `match` ends `device_name` in whole words (not inside a letter or digit run: "H200" is not
 * in "GH200"; nothing after it: "H200" is not the "H200 NVL", "RTX 3090" not the "RTX 3090 Ti"; longest match
 * wins), or NULL. */
const nvs_preset *nvs_presets_match_gpu(const nvs_presets *ps, const char *device_name);

/* Built-in families: {family name, text}. NULL-terminated. */
typedef struct {
    const char *family;
    const char *text;
} nvs_preset_family;
extern const nvs_preset_family nvs_builtin_preset_families[];

#endif
