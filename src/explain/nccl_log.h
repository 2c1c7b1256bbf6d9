/* PURE parser of NCCL's INFO log (NCCL_DEBUG=INFO, one file per process with NCCL_DEBUG_FILE=dir/nccl.%h.%p.log):
 * which transport NCCL picked for every channel of every communicator, the channel counts and the NCCL version.
 * No CUDA or NCCL includes: it reads text, so it is unit-tested on machines without GPUs.
 *
 * Formats (NCCL 2.12 - 2.30, from src/debug.cc, src/init.cc and src/transport/{p2p,shm,net}.cc):
 *   prefix   "host:pid:tid [cudaDev] NCCL INFO "; since 2.26 an optional timestamp may come first
 *            (NCCL_DEBUG_TIMESTAMP_FORMAT, default "[%F %T] "). Lines without the prefix are still read.
 *   version  "NCCL version 2.28.3+cuda13.0"
 *   comm     "comm 0x55d0c8 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0"
 *   complete "ncclCommInitRank comm 0x.. rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 6000 commId 0x.. - Init COMPLETE"
 *            "ncclCommSplit comm 0x.. rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 6000 parent 0x.. splitCount 1
 *             color 0 key 0 - Init COMPLETE" (childCount in 2.28; older releases start with "comm 0x..")
 *   channels "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer"
 *            (2.18 lacks the collnet item; the parser reads whatever "<n> <name> channels" items there are)
 *   conns    "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read"          (also P2P/IPC, P2P/direct pointer,
 *            "Channel 00 : 0[0] -> 1[1] via SHM/direct/direct"          P2P/indirect/2[2], P2P/MNNVL, .../CE)
 *            "Channel 00 : 0[1b000] -> 1[3d000] via direct shared memory"  (SHM of NCCL 2.7 - 2.12, shm.cc)
 *            "Channel 00/0 : 1[1] -> 0[0] [send] via NET/Socket/0"
 *            "Channel 00/0 : 0[0] -> 1[1] [receive] via NET/IB/0/GDRDMA"
 *            "Channel CC/I : R1[D1] -> R2[D2]": channel, connection index (0 rings/trees, 1 p2p ops; absent
 *            before 2.12, and on P2P lines before 2.17), sender rank -> receiver rank of the communicator (the
 *            direction of the data, also on [receive] lines), and in brackets since 2.18.3 the NVML device index
 *            (nvmlDev, "%d[%d]": the physical GPU index, which ignores CUDA_VISIBLE_DEVICES). Releases before
 *            2.18.3 printed the PCI bus id there ("%d[%lx]", p2p.cc/shm.cc/net.cc of 2.7 - 2.18.1): the hex digits
 *            of "dddd:bb:dd.f" run together without leading zeros, "0000:1b:00.0" as "1b000", "0000:07:00.0" as
 *            "7000", "0000:00:05.0" (a VM's GPU) as "50". Digits alone read the same as a device number, so what
 *            the brackets hold is decided by the version: the communicator's Init START/COMPLETE line names
 *            nvmlDev since 2.18.3 (the same release), else the log's "NCCL version" line (rank 0 prints it).
 *   old      before 2.20 no "comm .. nRanks" line; 2.18.3 - 2.19 print "comm 0x.. rank 0 nranks 2 cudaDev 0
 *            nvmlDev 0 busId 6000 commId 0x.. - Init START" before connecting; before 2.18.3 the channel lines of
 *            a communicator come before its Init COMPLETE, the first line that names it: that line takes the
 *            channel lines of its process, device and rank that no communicator had been found for.
 *   collnet  "CollNet 00/0 : 1 [send] via COLLNET/SHARP/0/GDRDMA" (src/transport/coll_net.cc; "CollNet 00 : .." before
 *            2.17): rank 1's connection to the CollNet plugin's in-network reduction, logged [send] and [receive]
 *            by every rank; transport "COLLNET", from_rank = to_rank = that rank, link "network"
 *   nvls     "NVLS comm 0x.. headRank 0 nHeads 4 ..." (src/transport/nvls.cc, 2.17+; "rank 0 nranks 4" in 2.17): the
 *            communicator set up NVLS buffers (since 2.22 lazily, when an NVLS algorithm is first chosen);
 *            "Connected NVLS tree" (src/init.cc 2.18 - 2.21, nvls.cc since): NVLS across nodes. "NVLS multicast
 *            support is available" only says the GPU could, and names no communicator: not read.
 *   rings    "Connected all rings, use ring PXN 0 GDR 1", "Connected all trees"
 *
 * Which communicator a channel line belongs to: the line does not say. Since 2.22 connections are made lazily at
 * the first collective (NCCL_RUNTIME_CONNECT=1), possibly on another thread. The parser gives a channel line to
 * the most recently initialised communicator of the same host and process whose device (the "[cudaDev]" of the
 * prefix) and rank match the line and that has enough ranks. Callers that create several communicators should
 * run their first collective on each before creating the next, so that this is unambiguous.
 *
 * Counting: P2P and SHM connections are logged once, by the sender; NET and COLLNET connections twice ([send] by the
 * sender, [receive] by the receiver). Summaries count every line except NET [receive] lines, so each connection
 * counts once when the logs of all processes are parsed. */
#ifndef NVS_NCCL_LOG_H
#define NVS_NCCL_LOG_H

#include <jansson.h>
#include <stddef.h>

#include "core/err.h"

enum nvs_nccl_side { NVS_NCCL_SIDE_NONE = 0, NVS_NCCL_SIDE_SEND = 1, NVS_NCCL_SIDE_RECV = 2 };
/* What the brackets of a channel line hold: unknown (digits, and no version known), NVML device indices (NCCL >=
 * 2.18.3), PCI bus ids (before 2.18.3, or hex letters in them). */
enum nvs_nccl_ids { NVS_NCCL_IDS_UNKNOWN = 0, NVS_NCCL_IDS_NVML = 1, NVS_NCCL_IDS_BUS = 2 };

typedef struct {
    int channel;           /* "Channel 03/1": 3 */
    int conn_index;        /* "/1": 1; -1 when the line has none (NCCL < 2.12) */
    int from_rank, to_rank; /* sender -> receiver, ranks of the communicator */
    int from_dev, to_dev;  /* bracketed numbers when they are nvmlDevs (NCCL >= 2.18.3); -1 otherwise */
    char from_id[20], to_id[20]; /* the brackets' text as printed ("1", "1b000") */
    int ids;               /* enum nvs_nccl_ids: what the brackets hold, as far as the log tells */
    long pid;              /* the line's process (prefix; -1 without) and file: which communicator may take it */
    int file_index;
    char transport[8];     /* "P2P", "SHM", "NET", "COLLNET", or the first word after "via" for anything else */
    char detail[64];       /* everything after "via ": "P2P/CUMEM/read", "SHM/direct/direct", "NET/IB/0/GDRDMA" */
    char net[16];          /* for NET: the network plugin's name, "Socket", "IB", ...; "" otherwise */
    int side;              /* enum nvs_nccl_side: [send] / [receive] on NET lines */
    int logged_dev;        /* "[cudaDev]" of the line's prefix, -1 without prefix */
} nvs_nccl_conn;

typedef struct {
    char ptr[24];          /* communicator address as printed, "0x55d0c8": unique within one process */
    char host[64];         /* from the prefix ("" without) */
    long pid;              /* from the prefix (-1 without); lines of one file without prefix share file_index */
    int file_index;        /* which parsed file (0-based, in the order given) */
    char init_fn[24];      /* "ncclCommInitRank", "ncclCommSplit", ... ("" if the COMPLETE line had no name) */
    char comm_id[24];      /* "0x..." commId of ncclCommInitRank (same on every rank); "" for splits */
    char parent[24];       /* ncclCommSplit's parent communicator ("" otherwise) */
    int rank, nranks;      /* -1 unknown */
    int nnodes, local_ranks, local_rank;
    int cuda_dev, nvml_dev; /* -1 unknown */
    char bus_id[24];       /* "6000" as printed (hex) */
    int complete;          /* "Init COMPLETE" seen */
    int comm_line;         /* its "comm .. nRanks" line (NCCL >= 2.20) or "Init START" line (>= 2.18.3) seen */
    int coll_channels, collnet_channels, nvls_channels, p2p_channels, p2p_channels_per_peer; /* -1 unknown */
    int rings_connected, trees_connected; /* "Connected all rings/trees" lines attributed to it */
    int nvls;              /* it used NVLS (NVLink SHARP): its "NVLS comm 0x.." or "Connected NVLS tree" line seen */
    nvs_nccl_conn *conns;
    size_t nconns, cap_conns;
} nvs_nccl_comm;

typedef struct {
    int p2p, shm, net, collnet, other; /* connections per transport (NET/COLLNET [receive] lines not counted) */
    int total;
    int nchannels;            /* distinct channel numbers among the counted connections */
    char net_name[16];        /* NET plugin name ("Socket", "IB") if any NET connection; "" otherwise */
    char p2p_detail[64];      /* first P2P detail seen ("P2P/CUMEM/read"), "" if none */
} nvs_nccl_summary;

/* Everything parsed so far: call the parse functions once per file, then read it, then free it. */
typedef struct {
    char version[32];        /* "2.28.3" (digits and dots only); "" if no version line */
    char version_full[64];   /* "2.28.3+cuda13.0" as printed */
    int version_conflict;    /* two different versions were seen (processes loaded different libraries) */
    nvs_nccl_comm *comms;
    size_t ncomms, cap_comms;
    nvs_nccl_conn *orphans;  /* channel lines that no communicator could be found for */
    size_t norphans, cap_orphans;
    size_t lines;            /* lines read */
    size_t info_lines;       /* lines with "NCCL INFO" */
    size_t conn_lines;       /* channel connection lines understood */
    int files;               /* files (or texts) parsed */
    int warn_lines;          /* lines with "NCCL WARN" */
} nvs_nccl_log;

void nvs_nccl_log_init(nvs_nccl_log *log);
void nvs_nccl_log_free(nvs_nccl_log *log);

/* Parse one log file, streaming line by line (files of any size; partial last line, CRLF and junk lines are fine).
 * Accumulates into `log`. NVS_ERR_INPUT with a message if the file cannot be opened or read; NVS_ERR_NOMEM. */
nvs_result_t nvs_nccl_log_parse_file(const char *path, nvs_nccl_log *log);
/* Same for text already in memory (`len` bytes; need not be NUL-terminated). Counts as one file. */
nvs_result_t nvs_nccl_log_parse_text(const char *text, size_t len, nvs_nccl_log *log);

/* Parse one line (without its end of line) as part of file `file_index`. Exposed for tests and for callers that
 * read lines themselves. Returns NVS_OK (also for lines it ignores) or NVS_ERR_NOMEM. */
nvs_result_t nvs_nccl_log_parse_line(nvs_nccl_log *log, const char *line, size_t len, int file_index);

/* Connection summary over the communicators with `nranks` ranks (0: all communicators and orphan lines). */
void nvs_nccl_log_summary(const nvs_nccl_log *log, int nranks, nvs_nccl_summary *out);
/* The transport word for a summary: "P2P", "SHM", "NET", "NET+COLLNET", "P2P+SHM", ... ("none" when nothing was
 * counted). */
const char *nvs_nccl_summary_transport(const nvs_nccl_summary *s, char *buf, size_t len);

/* The NET plugin's name in a connection's detail, as NCCL prints it ("NET/%s/%d...", src/transport/net.cc): all
 * up to the '/' before the device number, spaces included ("NET/AWS Libfabric/0/GDRDMA": "AWS Libfabric",
 * aws-ofi-nccl's name); likewise the CollNet plugin's ("COLLNET/SHARP/0/GDRDMA": "SHARP"); "" when the detail
 * names none ("NET" alone, not NET). Returns buf. */
const char *nvs_nccl_net_name(const char *detail, char *buf, size_t len);

/* What physical path a transport takes (a link kind's word, core/link_class.h), given the nvidia-smi class of the
 * GPU pair (NULL if unknown): P2P over NV# = "NVLink", P2P over PIX..SYS = "PCIe", SHM = "host memory", NET =
 * "network". P2P with an unknown class (NULL, "?") is "P2P (link unknown)". NULL for another transport. */
const char *nvs_nccl_link_name(const char *transport, const char *pair_class);

/* Everything as JSON: {"nccl_version", "version_conflict", "files", "lines", "comms": [{..., "channels": [...],
 * "summary": {...}}], "orphans": [...], "summary": {...}}. NULL on out of memory. */
json_t *nvs_nccl_log_to_json(const nvs_nccl_log *log);
/* One run.json "transports" entry for the communicators of `nranks` ranks (see docs/run-json.md), without
 * "log_files" (the caller knows them) and with from_gpu/to_gpu/link only when `gpu_of_rank` (nranks entries:
 * the topology GPU index of each communicator rank) and `pair_class` (a function giving the nvidia-smi class of
 * two topology GPUs, or NULL) are given. NULL on out of memory. */
typedef const char *(*nvs_nccl_pair_class_fn)(void *ctx, int gpu_a, int gpu_b);
json_t *nvs_nccl_log_transport_json(const nvs_nccl_log *log, int nranks, const int *gpu_of_rank,
                                    nvs_nccl_pair_class_fn pair_class, void *ctx);

#endif
