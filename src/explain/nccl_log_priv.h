/* PRIVATE to src/explain/: what the NCCL log parser (nccl_log.c: files and lines, each line's prefix) shares with
 * the files it is split into; no other folder includes this header (nccl_log.h is the interface).
 *   nccl_log_text.c     integers and "key value" tokens in a line
 *   nccl_log_comm.c     the lines that name or describe a communicator, and which communicator a line belongs to
 *   nccl_log_ids.c      what the brackets of a channel line hold (NVML device indices or PCI bus ids)
 *   nccl_log_conn.c     connection lines ("Channel .. via", "CollNet .. via") and the communicator each goes to
 *   nccl_log_summary.c  connections counted per transport; the link a transport takes
 *   nccl_log_json.c     the parsed log as JSON */
#ifndef NVS_NCCL_LOG_PRIV_H
#define NVS_NCCL_LOG_PRIV_H

#include <stddef.h>
#include <string.h>

#include "core/link_class.h"
#include "explain/nccl_log.h"

/* What a line's prefix says ("host:pid:tid [cudaDev] NCCL INFO "), and the file it is in. */
typedef struct {
    char host[64];
    long pid;
    int dev; /* [cudaDev] of the prefix */
    int file_index;
} line_ctx;

/* ---- small text helpers ------------------------------------------------------------------------------- */

static inline void copy_str(char *dst, size_t cap, const char *src, size_t n)
{
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static inline void set_str(char *dst, size_t cap, const char *src) { copy_str(dst, cap, src, strlen(src)); }

static inline const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* nccl_log_text.c */
/* Decimal integer at *pp (optional '-'); advances *pp. 0 on success. */
int nvs_nl_read_int(const char **pp, int *out);
/* Value of "key <int>" anywhere in s (key matched as a whole word, case-sensitive). */
int nvs_nl_int_after(const char *s, const char *key, int *out);
/* Token (up to whitespace) after "key " into buf. */
int nvs_nl_token_after(const char *s, const char *key, char *buf, size_t cap);

/* ---- communicators (nccl_log_comm.c) ------------------------------------------------------------------ */

static inline int same_process(const nvs_nccl_comm *c, const line_ctx *lc)
{
    if (c->pid >= 0 && lc->pid >= 0) return c->pid == lc->pid && !strcmp(c->host, lc->host);
    return c->file_index == lc->file_index;
}

/* cuda_dev is the device of Init COMPLETE, or until then the "[cudaDev]" prefix of the communicator's first line
 * (the thread's current device when NCCL set it up). Unknown on either side matches. */
static inline int comm_dev_matches(const nvs_nccl_comm *c, int logged_dev)
{
    return logged_dev < 0 || c->cuda_dev < 0 || c->cuda_dev == logged_dev;
}

/* *arr grown to hold `need` elements of `elem` bytes; NVS_ERR_NOMEM (said) when out of memory. */
nvs_result_t nvs_nl_grow(void **arr, size_t *cap, size_t need, size_t elem);
/* Most recent communicator of this process on the line's device, NULL if none. */
nvs_nccl_comm *nvs_nl_current_comm(nvs_nccl_log *log, const line_ctx *lc);
/* The line kinds: p is the message after "NCCL INFO " (after "NCCL version " for the version). */
void nvs_nl_parse_version(nvs_nccl_log *log, const char *p);
nvs_result_t nvs_nl_parse_comm_line(nvs_nccl_log *log, const line_ctx *lc, const char *p);
nvs_result_t nvs_nl_parse_complete_line(nvs_nccl_log *log, const line_ctx *lc, const char *p, int start);
nvs_result_t nvs_nl_parse_nvls_line(nvs_nccl_log *log, const line_ctx *lc, const char *p);
void nvs_nl_parse_channel_counts(nvs_nccl_log *log, const line_ctx *lc, const char *p);

/* ---- channel lines' brackets (nccl_log_ids.c) --------------------------------------------------------- */

/* What the brackets of `c`'s channel lines hold (c NULL: an orphan), enum nvs_nccl_ids. */
int nvs_nl_ids_of(const nvs_nccl_log *log, const nvs_nccl_comm *c);
/* from_dev/to_dev of a channel line by what its brackets hold. */
void nvs_nl_resolve_ids(nvs_nccl_conn *cn, int ids);
/* Again for every channel line, once more is known (a version line, an Init COMPLETE of another file). */
void nvs_nl_resolve_all(nvs_nccl_log *log);

/* ---- connection lines (nccl_log_conn.c) ------------------------------------------------------------- */

/* "Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0" and "CollNet 00/0 : 1 [send] via COLLNET/...": 1 if
 * understood (cn filled in), 0 if not. */
int nvs_nl_parse_conn(const char *p, nvs_nccl_conn *cn);
int nvs_nl_parse_collnet(const char *p, nvs_nccl_conn *cn);
/* The connection to the communicator that may take it, else to the orphans. */
nvs_result_t nvs_nl_add_conn(nvs_nccl_log *log, const line_ctx *lc, nvs_nccl_conn *cn);
/* A communicator's first naming line came after its channel lines (NCCL < 2.18.3): it takes the orphans that fit. */
nvs_result_t nvs_nl_adopt_orphans(nvs_nccl_log *log, nvs_nccl_comm *c);

/* ---- summaries (nccl_log_summary.c) ----------------------------------------------------------------- */

/* NET and COLLNET connections are logged on both sides: the [send] line counts */
static inline int counted(const nvs_nccl_conn *cn)
{
    return !(cn->side == NVS_NCCL_SIDE_RECV && (!strcmp(cn->transport, "NET") || !strcmp(cn->transport, "COLLNET")));
}

/* Adds a connection to a summary (if counted); seen: nseen flags of the channels already counted. */
void nvs_nl_summary_add(nvs_nccl_summary *s, const nvs_nccl_conn *cn, unsigned char *seen, size_t nseen);
/* The link kind of a transport, given the nvidia-smi class of the GPU pair (see nvs_nccl_link_name). */
nvs_link_kind nvs_nl_link_kind(const char *transport, const char *pair_class);

#endif
