/* PURE: the NCCL log lines that name or describe a communicator (its version line, "comm .. nRanks", Init START
 * and COMPLETE, NVLS, channel counts), and which communicator a line of a process and device belongs to. Part of
 * the NCCL log parser (nccl_log.c); formats in nccl_log.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "explain/nccl_log_priv.h"

nvs_result_t nvs_nl_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return NVS_OK;
    size_t nc = *cap ? *cap * 2 : 8;
    while (nc < need) nc *= 2;
    void *p = realloc(*arr, nc * elem);
    if (!p) {
        nvs_error("out of memory parsing an NCCL log");
        return NVS_ERR_NOMEM;
    }
    *arr = p;
    *cap = nc;
    return NVS_OK;
}

static nvs_nccl_comm *new_comm(nvs_nccl_log *log, const line_ctx *lc, const char *ptr)
{
    if (nvs_nl_grow((void **)&log->comms, &log->cap_comms, log->ncomms + 1, sizeof *log->comms) != NVS_OK) return NULL;
    nvs_nccl_comm *c = &log->comms[log->ncomms++];
    memset(c, 0, sizeof *c);
    set_str(c->ptr, sizeof c->ptr, ptr);
    set_str(c->host, sizeof c->host, lc->host);
    c->pid = lc->pid;
    c->file_index = lc->file_index;
    c->rank = c->nranks = c->nnodes = c->local_ranks = c->local_rank = -1;
    c->nvml_dev = -1;
    c->cuda_dev = lc->dev; /* until Init COMPLETE says: the thread's device when the comm was created */
    c->coll_channels = c->collnet_channels = c->nvls_channels = c->p2p_channels = c->p2p_channels_per_peer = -1;
    return c;
}

/* Most recent communicator of this process with this address that is still being set up (or any, if
 * `complete_ok`). */
static nvs_nccl_comm *find_comm(nvs_nccl_log *log, const line_ctx *lc, const char *ptr, int complete_ok)
{
    for (size_t i = log->ncomms; i-- > 0;) {
        nvs_nccl_comm *c = &log->comms[i];
        if (!same_process(c, lc) || strcmp(c->ptr, ptr)) continue;
        if (c->complete && !complete_ok) return NULL; /* address reused by a newer communicator */
        return c;
    }
    return NULL;
}

/* Most recent communicator of this process on the line's device. */
nvs_nccl_comm *nvs_nl_current_comm(nvs_nccl_log *log, const line_ctx *lc)
{
    for (size_t i = log->ncomms; i-- > 0;) {
        nvs_nccl_comm *c = &log->comms[i];
        if (same_process(c, lc) && comm_dev_matches(c, lc->dev)) return c;
    }
    return NULL;
}

void nvs_nl_parse_version(nvs_nccl_log *log, const char *p)
{
    p = skip_ws(p);
    size_t n = strcspn(p, " \t");
    if (!n || !isdigit((unsigned char)*p)) return;
    char full[64], num[32];
    copy_str(full, sizeof full, p, n);
    copy_str(num, sizeof num, full, strspn(full, "0123456789."));
    /* the length of what was copied, not of the run of digits: that can reach 63 while num holds 31 (issue 14,
     * a stack overflow from "NCCL version <31 digits><20 dots>") */
    size_t d = strlen(num);
    while (d && num[d - 1] == '.') num[--d] = '\0';
    if (!num[0]) return;
    if (!log->version[0]) {
        set_str(log->version, sizeof log->version, num);
        set_str(log->version_full, sizeof log->version_full, full);
    } else if (strcmp(log->version, num)) {
        log->version_conflict = 1;
    }
}

/* "comm 0x.. rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0" */
nvs_result_t nvs_nl_parse_comm_line(nvs_nccl_log *log, const line_ctx *lc, const char *p)
{
    char ptr[24];
    if (nvs_nl_token_after(p, "comm", ptr, sizeof ptr) != 0 || strncmp(ptr, "0x", 2)) return NVS_OK;
    int rank, nranks;
    if (nvs_nl_int_after(p, "rank", &rank) != 0 || nvs_nl_int_after(p, "nRanks", &nranks) != 0) return NVS_OK;
    nvs_nccl_comm *c = find_comm(log, lc, ptr, 0);
    if (!c && !(c = new_comm(log, lc, ptr))) return NVS_ERR_NOMEM;
    c->rank = rank;
    c->nranks = nranks;
    c->comm_line = 1;
    int v;
    if (nvs_nl_int_after(p, "nNodes", &v) == 0) c->nnodes = v;
    if (nvs_nl_int_after(p, "localRanks", &v) == 0) c->local_ranks = v;
    if (nvs_nl_int_after(p, "localRank", &v) == 0) c->local_rank = v;
    return NVS_OK;
}

/* "[fn ]comm 0x.. rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 6000 (commId 0x.. | parent 0x.. ...) - Init COMPLETE",
 * or the same ending "- Init START" (`start`) */
nvs_result_t nvs_nl_parse_complete_line(nvs_nccl_log *log, const line_ctx *lc, const char *p, int start)
{
    char ptr[24];
    if (nvs_nl_token_after(p, "comm", ptr, sizeof ptr) != 0 || strncmp(ptr, "0x", 2)) return NVS_OK;
    nvs_nccl_comm *c = find_comm(log, lc, ptr, 0);
    if (!c && !(c = new_comm(log, lc, ptr))) return NVS_ERR_NOMEM;
    const char *s = skip_ws(p);
    if (strncmp(s, "comm ", 5)) {
        size_t n = strcspn(s, " \t");
        copy_str(c->init_fn, sizeof c->init_fn, s, n);
    }
    int v;
    if (nvs_nl_int_after(p, "rank", &v) == 0) c->rank = v;
    if (nvs_nl_int_after(p, "nranks", &v) == 0) c->nranks = v;
    if (nvs_nl_int_after(p, "cudaDev", &v) == 0) c->cuda_dev = v;
    if (nvs_nl_int_after(p, "nvmlDev", &v) == 0) c->nvml_dev = v;
    nvs_nl_token_after(p, "busId", c->bus_id, sizeof c->bus_id);
    nvs_nl_token_after(p, "commId", c->comm_id, sizeof c->comm_id);
    nvs_nl_token_after(p, "parent", c->parent, sizeof c->parent);
    if (start) {
        c->comm_line = 1;
        return NVS_OK;
    }
    c->complete = 1;
    /* NCCL < 2.18.3: nothing named the communicator before its channel lines */
    return c->comm_line ? NVS_OK : nvs_nl_adopt_orphans(log, c);
}

/* "NVLS comm 0x.. headRank 0 nHeads 4 ..." (src/transport/nvls.cc of v2.18.3-1 .. v2.28.3-1; "NVLS comm 0x.. rank 0
 * nranks 4 ..." in v2.17.1-1, local ranks): the communicator set up its NVLS buffers. The line names it: a
 * communicator being set up, else a complete one that had a line naming it before its channel lines (NCCL >=
 * 2.18.3: Init START; since 2.22 this line comes lazily, after COMPLETE), else a new one (before 2.18.3 this line
 * comes before COMPLETE, the first line naming it, even where an older communicator had the same address). */
nvs_result_t nvs_nl_parse_nvls_line(nvs_nccl_log *log, const line_ctx *lc, const char *p)
{
    char ptr[24];
    if (nvs_nl_token_after(p, "comm", ptr, sizeof ptr) != 0 || strncmp(ptr, "0x", 2)) return NVS_OK;
    nvs_nccl_comm *c = find_comm(log, lc, ptr, 0);
    if (!c) {
        c = find_comm(log, lc, ptr, 1);
        if (c && !c->comm_line) c = NULL;
    }
    if (!c && !(c = new_comm(log, lc, ptr))) return NVS_ERR_NOMEM;
    c->nvls = 1;
    return NVS_OK;
}

/* "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer" */
void nvs_nl_parse_channel_counts(nvs_nccl_log *log, const line_ctx *lc, const char *p)
{
    nvs_nccl_comm *c = nvs_nl_current_comm(log, lc);
    if (!c) return;
    while (*p) {
        p = skip_ws(p);
        int v;
        if (nvs_nl_read_int(&p, &v) != 0) break;
        p = skip_ws(p);
        size_t n = strcspn(p, ",");
        char item[48];
        copy_str(item, sizeof item, p, n);
        if (!strcmp(item, "coll channels")) c->coll_channels = v;
        else if (!strcmp(item, "collnet channels")) c->collnet_channels = v;
        else if (!strcmp(item, "nvls channels")) c->nvls_channels = v;
        else if (!strcmp(item, "p2p channels")) c->p2p_channels = v;
        else if (!strcmp(item, "p2p channels per peer")) c->p2p_channels_per_peer = v;
        p += n;
        if (*p == ',') p++;
    }
}
