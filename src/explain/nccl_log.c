/* PURE parser of NCCL's INFO log: see nccl_log.h for the formats and the rules. */
#include "explain/nccl_log.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/link_class.h"
#include "core/log.h"
#include "runjson/runjson_write.h"

/* Lines longer than this are cut: NCCL formats a message into a 1024-byte buffer (src/debug.cc), so nothing
 * of NCCL's is lost; the rest of such a line is junk to us anyway. */
#define LINE_MAX_BYTES 4096

void nvs_nccl_log_init(nvs_nccl_log *log) { memset(log, 0, sizeof *log); }

void nvs_nccl_log_free(nvs_nccl_log *log)
{
    for (size_t i = 0; i < log->ncomms; i++) free(log->comms[i].conns);
    free(log->comms);
    free(log->orphans);
    memset(log, 0, sizeof *log);
}

/* ---- small text helpers ------------------------------------------------------------------------------- */

static void copy_str(char *dst, size_t cap, const char *src, size_t n)
{
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void set_str(char *dst, size_t cap, const char *src) { copy_str(dst, cap, src, strlen(src)); }

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* Decimal integer at *pp (optional '-'); advances *pp. 0 on success. */
static int read_int(const char **pp, int *out)
{
    const char *p = *pp;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < -1000000000L || v > 1000000000L) return -1;
    *out = (int)v;
    *pp = end;
    return 0;
}

/* Value of "key <int>" anywhere in s (key matched as a whole word, case-sensitive). */
static int int_after(const char *s, const char *key, int *out)
{
    size_t kl = strlen(key);
    for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
        if (p != s && p[-1] != ' ') continue;
        if (p[kl] != ' ') continue;
        const char *q = p + kl + 1;
        if (read_int(&q, out) == 0) return 0;
    }
    return -1;
}

/* Token (up to whitespace) after "key " into buf. */
static int token_after(const char *s, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
        if (p != s && p[-1] != ' ') continue;
        if (p[kl] != ' ') continue;
        const char *q = p + kl + 1;
        size_t n = strcspn(q, " \t");
        if (!n) return -1;
        copy_str(buf, cap, q, n);
        return 0;
    }
    return -1;
}

/* ---- parse state -------------------------------------------------------------------------------------- */

typedef struct {
    char host[64];
    long pid;
    int dev; /* [cudaDev] of the prefix */
    int file_index;
} line_ctx;

static int same_process(const nvs_nccl_comm *c, const line_ctx *lc)
{
    if (c->pid >= 0 && lc->pid >= 0) return c->pid == lc->pid && !strcmp(c->host, lc->host);
    return c->file_index == lc->file_index;
}

/* cuda_dev is the device of Init COMPLETE, or until then the "[cudaDev]" prefix of the communicator's first line
 * (the thread's current device when NCCL set it up). Unknown on either side matches. */
static int comm_dev_matches(const nvs_nccl_comm *c, int logged_dev)
{
    return logged_dev < 0 || c->cuda_dev < 0 || c->cuda_dev == logged_dev;
}

static nvs_result_t grow(void **arr, size_t *cap, size_t need, size_t elem)
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
    if (grow((void **)&log->comms, &log->cap_comms, log->ncomms + 1, sizeof *log->comms) != NVS_OK) return NULL;
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
static nvs_nccl_comm *current_comm(nvs_nccl_log *log, const line_ctx *lc)
{
    for (size_t i = log->ncomms; i-- > 0;) {
        nvs_nccl_comm *c = &log->comms[i];
        if (same_process(c, lc) && comm_dev_matches(c, lc->dev)) return c;
    }
    return NULL;
}

/* ---- line kinds ---------------------------------------------------------------------------------------- */

static void parse_version(nvs_nccl_log *log, const char *p)
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
static nvs_result_t parse_comm_line(nvs_nccl_log *log, const line_ctx *lc, const char *p)
{
    char ptr[24];
    if (token_after(p, "comm", ptr, sizeof ptr) != 0 || strncmp(ptr, "0x", 2)) return NVS_OK;
    int rank, nranks;
    if (int_after(p, "rank", &rank) != 0 || int_after(p, "nRanks", &nranks) != 0) return NVS_OK;
    nvs_nccl_comm *c = find_comm(log, lc, ptr, 0);
    if (!c && !(c = new_comm(log, lc, ptr))) return NVS_ERR_NOMEM;
    c->rank = rank;
    c->nranks = nranks;
    c->comm_line = 1;
    int v;
    if (int_after(p, "nNodes", &v) == 0) c->nnodes = v;
    if (int_after(p, "localRanks", &v) == 0) c->local_ranks = v;
    if (int_after(p, "localRank", &v) == 0) c->local_rank = v;
    return NVS_OK;
}

static nvs_result_t adopt_orphans(nvs_nccl_log *log, nvs_nccl_comm *c);

/* "[fn ]comm 0x.. rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 6000 (commId 0x.. | parent 0x.. ...) - Init COMPLETE",
 * or the same ending "- Init START" (`start`) */
static nvs_result_t parse_complete_line(nvs_nccl_log *log, const line_ctx *lc, const char *p, int start)
{
    char ptr[24];
    if (token_after(p, "comm", ptr, sizeof ptr) != 0 || strncmp(ptr, "0x", 2)) return NVS_OK;
    nvs_nccl_comm *c = find_comm(log, lc, ptr, 0);
    if (!c && !(c = new_comm(log, lc, ptr))) return NVS_ERR_NOMEM;
    const char *s = skip_ws(p);
    if (strncmp(s, "comm ", 5)) {
        size_t n = strcspn(s, " \t");
        copy_str(c->init_fn, sizeof c->init_fn, s, n);
    }
    int v;
    if (int_after(p, "rank", &v) == 0) c->rank = v;
    if (int_after(p, "nranks", &v) == 0) c->nranks = v;
    if (int_after(p, "cudaDev", &v) == 0) c->cuda_dev = v;
    if (int_after(p, "nvmlDev", &v) == 0) c->nvml_dev = v;
    token_after(p, "busId", c->bus_id, sizeof c->bus_id);
    token_after(p, "commId", c->comm_id, sizeof c->comm_id);
    token_after(p, "parent", c->parent, sizeof c->parent);
    if (start) {
        c->comm_line = 1;
        return NVS_OK;
    }
    c->complete = 1;
    /* NCCL < 2.18.3: nothing named the communicator before its channel lines */
    return c->comm_line ? NVS_OK : adopt_orphans(log, c);
}

/* "NVLS comm 0x.. headRank 0 nHeads 4 ..." (src/transport/nvls.cc of v2.18.3-1 .. v2.28.3-1; "NVLS comm 0x.. rank 0
 * nranks 4 ..." in v2.17.1-1, local ranks): the communicator set up its NVLS buffers. The line names it: a
 * communicator being set up, else a complete one that had a line naming it before its channel lines (NCCL >=
 * 2.18.3: Init START; since 2.22 this line comes lazily, after COMPLETE), else a new one (before 2.18.3 this line
 * comes before COMPLETE, the first line naming it, even where an older communicator had the same address). */
static nvs_result_t parse_nvls_line(nvs_nccl_log *log, const line_ctx *lc, const char *p)
{
    char ptr[24];
    if (token_after(p, "comm", ptr, sizeof ptr) != 0 || strncmp(ptr, "0x", 2)) return NVS_OK;
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
static void parse_channel_counts(nvs_nccl_log *log, const line_ctx *lc, const char *p)
{
    nvs_nccl_comm *c = current_comm(log, lc);
    if (!c) return;
    while (*p) {
        p = skip_ws(p);
        int v;
        if (read_int(&p, &v) != 0) break;
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

/* "R[ID]": rank and the bracket's text (see resolve_ids for what it holds). */
static int read_rank_id(const char **pp, int *rank, char *id, size_t cap)
{
    const char *p = skip_ws(*pp);
    if (!isdigit((unsigned char)*p) || read_int(&p, rank) != 0) return -1;
    id[0] = '\0';
    if (*p == '[') {
        const char *q = p + 1;
        size_t n = strcspn(q, "]");
        if (q[n] != ']') return -1;
        copy_str(id, cap, q, n);
        p = q + n + 1;
    }
    *pp = p;
    return 0;
}

/* 1 if version `v` ("2.18.3") is at least maj.min.patch */
static int version_at_least(const char *v, int maj, int min, int patch)
{
    int a[3] = {0, 0, 0};
    for (int i = 0; i < 3 && isdigit((unsigned char)*v); i++) {
        a[i] = (int)strtol(v, (char **)&v, 10);
        if (*v == '.') v++;
    }
    int want[3] = {maj, min, patch};
    for (int i = 0; i < 3; i++)
        if (a[i] != want[i]) return a[i] > want[i];
    return 1;
}

/* What the brackets of `c`'s channel lines hold (c NULL: an orphan): NCCL 2.18.3 changed them from the PCI bus id to
 * the nvmlDev (src/transport/{p2p,shm,net}.cc, "%d[%lx]" -> "%d[%d]") and added "nvmlDev" to the Init START and
 * COMPLETE lines (src/init.cc) in the same release, so a communicator's own line says it for its channels, then
 * the log's version line (rank 0's process alone prints it, so the other processes' files lack it). */
static int ids_of(const nvs_nccl_log *log, const nvs_nccl_comm *c)
{
    if (c && c->nvml_dev >= 0) return NVS_NCCL_IDS_NVML;
    if (c && c->complete) return NVS_NCCL_IDS_BUS; /* an Init COMPLETE without nvmlDev: before 2.18.3 */
    if (log->version[0] && !log->version_conflict)
        return version_at_least(log->version, 2, 18, 3) ? NVS_NCCL_IDS_NVML : NVS_NCCL_IDS_BUS;
    return NVS_NCCL_IDS_UNKNOWN;
}

static int id_dev(const char *id, int ids)
{
    size_t n = strlen(id);
    if (ids != NVS_NCCL_IDS_NVML || !n || n > 9 || strspn(id, "0123456789") != n) return -1;
    return atoi(id);
}

/* from_dev/to_dev of a channel line by what its brackets hold. Hex letters are a bus id whatever the version. */
static void resolve_ids(nvs_nccl_conn *cn, int ids)
{
    size_t nf = strlen(cn->from_id), nt = strlen(cn->to_id);
    if ((nf && strspn(cn->from_id, "0123456789") != nf) || (nt && strspn(cn->to_id, "0123456789") != nt))
        ids = NVS_NCCL_IDS_BUS;
    cn->ids = ids;
    cn->from_dev = id_dev(cn->from_id, ids);
    cn->to_dev = id_dev(cn->to_id, ids);
}

/* Again for every channel line, once more is known (a version line, an Init COMPLETE of another file) */
static void resolve_all(nvs_nccl_log *log)
{
    for (size_t i = 0; i < log->ncomms; i++) {
        int ids = ids_of(log, &log->comms[i]);
        for (size_t k = 0; k < log->comms[i].nconns; k++) resolve_ids(&log->comms[i].conns[k], ids);
    }
    int ids = ids_of(log, NULL);
    for (size_t k = 0; k < log->norphans; k++) resolve_ids(&log->orphans[k], ids);
}

/* The head of a connection line, "<word>NN/N :" or "<word>NN :" (the /N, the connection index, since NCCL 2.17):
 * cn cleared, its channel and connection index set, *p past the colon. 1 if it is one, 0 if not. */
static int read_line_head(const char **pp, const char *word, nvs_nccl_conn *cn)
{
    memset(cn, 0, sizeof *cn);
    const char *p = skip_ws(*pp);
    size_t wl = strlen(word);
    if (strncmp(p, word, wl)) return 0;
    p += wl;
    if (!isdigit((unsigned char)*p) || read_int(&p, &cn->channel) != 0) return 0;
    cn->conn_index = -1;
    if (*p == '/') {
        p++;
        if (!isdigit((unsigned char)*p) || read_int(&p, &cn->conn_index) != 0) return 0;
    }
    p = skip_ws(p);
    if (*p != ':') return 0;
    *pp = p + 1;
    return 1;
}

/* "[send]" or "[receive]" at *p (after blanks): cn->side set, *p past it and the blanks after. 1 if one was there. */
static int read_side(const char **pp, nvs_nccl_conn *cn)
{
    const char *p = skip_ws(*pp);
    int side = !strncmp(p, "[send]", 6) ? NVS_NCCL_SIDE_SEND : !strncmp(p, "[receive]", 9) ? NVS_NCCL_SIDE_RECV : -1;
    if (side < 0) {
        *pp = p;
        return 0;
    }
    cn->side = side;
    *pp = skip_ws(p + (side == NVS_NCCL_SIDE_SEND ? 6 : 9));
    return 1;
}

/* "Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0". 1 if understood (filled in), 0 if not. */
static int parse_conn(const char *p, nvs_nccl_conn *cn)
{
    if (!read_line_head(&p, "Channel ", cn)) return 0;
    if (read_rank_id(&p, &cn->from_rank, cn->from_id, sizeof cn->from_id) != 0) return 0;
    p = skip_ws(p);
    if (strncmp(p, "->", 2)) return 0;
    p += 2;
    if (read_rank_id(&p, &cn->to_rank, cn->to_id, sizeof cn->to_id) != 0) return 0;
    read_side(&p, cn);
    if (strncmp(p, "via ", 4)) return 0;
    p = skip_ws(p + 4);
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    if (!n) return 0;
    copy_str(cn->detail, sizeof cn->detail, p, n);
    copy_str(cn->transport, sizeof cn->transport, p, strcspn(p, "/ "));
    /* NCCL 2.7 - 2.12 named SHM in words: "via direct shared memory" (src/transport/shm.cc of v2.7.8-1 ..
     * v2.12.12-1); "via SHM/%s/%s" since v2.13.4-1 */
    if (!strcmp(cn->detail, "direct shared memory")) set_str(cn->transport, sizeof cn->transport, "SHM");
    nvs_nccl_net_name(cn->detail, cn->net, sizeof cn->net);
    return 1;
}

/* "CollNet 00/0 : 1 [send] via COLLNET/SHARP/0/GDRDMA": a CollNet (in-network reduction) connection of rank 1 to
 * the network plugin's collective engine, logged by every rank on both sides (src/transport/coll_net.cc: "CollNet
 * %02d : %d [send] via COLLNET/%s/%d%s" in v2.12.12-1 .. v2.16.5-1, "CollNet %02d/%1d : ..." since v2.17.1-1, a
 * "(PCI)" after "/GDRDMA" since 2.19). No peer: from_rank = to_rank = the rank. 1 if understood, 0 if not. */
static int parse_collnet(const char *p, nvs_nccl_conn *cn)
{
    if (!read_line_head(&p, "CollNet ", cn)) return 0;
    p = skip_ws(p);
    if (!isdigit((unsigned char)*p) || read_int(&p, &cn->from_rank) != 0) return 0;
    cn->to_rank = cn->from_rank;
    if (!read_side(&p, cn)) return 0; /* CollNet lines always say their side */
    if (strncmp(p, "via COLLNET", 11)) return 0;
    p = skip_ws(p + 4);
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    copy_str(cn->detail, sizeof cn->detail, p, n);
    set_str(cn->transport, sizeof cn->transport, "COLLNET");
    if (!strncmp(cn->detail, "COLLNET/", 8))
        copy_str(cn->net, sizeof cn->net, cn->detail + 8, strcspn(cn->detail + 8, "/"));
    return 1;
}

/* Whether communicator c may take channel line cn: same process, device, the rank that logged it, enough ranks */
static int conn_fits(const nvs_nccl_comm *c, const nvs_nccl_conn *cn, const line_ctx *lc)
{
    int me = cn->side == NVS_NCCL_SIDE_RECV ? cn->to_rank : cn->from_rank;
    int top = cn->from_rank > cn->to_rank ? cn->from_rank : cn->to_rank;
    if (!same_process(c, lc) || !comm_dev_matches(c, lc->dev)) return 0;
    return c->rank == me && c->nranks > top;
}

static nvs_result_t add_conn(nvs_nccl_log *log, const line_ctx *lc, nvs_nccl_conn *cn)
{
    cn->logged_dev = lc->dev;
    cn->pid = lc->pid;
    cn->file_index = lc->file_index;
    log->conn_lines++;
    for (size_t i = log->ncomms; i-- > 0;) {
        nvs_nccl_comm *c = &log->comms[i];
        if (!conn_fits(c, cn, lc)) continue;
        resolve_ids(cn, ids_of(log, c));
        NVS_CHECK(grow((void **)&c->conns, &c->cap_conns, c->nconns + 1, sizeof *c->conns));
        c->conns[c->nconns++] = *cn;
        return NVS_OK;
    }
    resolve_ids(cn, ids_of(log, NULL));
    NVS_CHECK(grow((void **)&log->orphans, &log->cap_orphans, log->norphans + 1, sizeof *log->orphans));
    log->orphans[log->norphans++] = *cn;
    return NVS_OK;
}

/* Init COMPLETE of a communicator that no line had named before (NCCL < 2.18.3): its channel lines, logged during
 * its initialisation, went to the orphans; it takes those that fit it, in order. */
static nvs_result_t adopt_orphans(nvs_nccl_log *log, nvs_nccl_comm *c)
{
    size_t keep = 0;
    nvs_result_t res = NVS_OK;
    for (size_t k = 0; k < log->norphans; k++) {
        nvs_nccl_conn *cn = &log->orphans[k];
        line_ctx lc = {.pid = cn->pid, .dev = cn->logged_dev, .file_index = cn->file_index};
        set_str(lc.host, sizeof lc.host, c->host); /* the host is not kept per line: pid and file decide */
        if (res == NVS_OK && cn->file_index == c->file_index && conn_fits(c, cn, &lc))
            res = grow((void **)&c->conns, &c->cap_conns, c->nconns + 1, sizeof *c->conns);
        if (res == NVS_OK && cn->file_index == c->file_index && conn_fits(c, cn, &lc)) {
            resolve_ids(cn, ids_of(log, c));
            c->conns[c->nconns++] = *cn;
        } else {
            log->orphans[keep++] = *cn;
        }
    }
    log->norphans = keep;
    return res;
}

/* Split the NCCL prefix "[time] host:pid:tid [dev] NCCL INFO " off; fills lc, returns the message or NULL. */
static const char *split_prefix(const char *line, const char *mark, line_ctx *lc)
{
    const char *end = mark; /* prefix is line .. mark */
    while (end > line && (end[-1] == ' ' || end[-1] == '\t')) end--;
    if (end > line && end[-1] == ']') {
        const char *open = end - 1;
        while (open > line && *open != '[') open--;
        if (*open == '[') {
            const char *q = open + 1;
            int d;
            if (read_int(&q, &d) == 0 && *q == ']') lc->dev = d;
            end = open;
            while (end > line && (end[-1] == ' ' || end[-1] == '\t')) end--;
        }
    }
    /* last token before the device: host:pid:tid */
    const char *tok = end;
    while (tok > line && tok[-1] != ' ' && tok[-1] != '\t' && tok[-1] != ']') tok--;
    char buf[160];
    copy_str(buf, sizeof buf, tok, (size_t)(end - tok));
    char *c2 = strrchr(buf, ':');
    if (c2) {
        *c2 = '\0';
        char *c1 = strrchr(buf, ':');
        if (c1) {
            *c1 = '\0';
            char *e;
            errno = 0;
            long pid = strtol(c1 + 1, &e, 10);
            if (!errno && e != c1 + 1 && !*e && pid >= 0) {
                lc->pid = pid;
                set_str(lc->host, sizeof lc->host, buf);
            }
        }
    }
    return mark;
}

nvs_result_t nvs_nccl_log_parse_line(nvs_nccl_log *log, const char *line, size_t len, int file_index)
{
    char buf[LINE_MAX_BYTES];
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
    copy_str(buf, sizeof buf, line, len); /* a NUL inside the line ends it: the rest is binary junk */
    log->lines++;

    line_ctx lc = {.pid = -1, .dev = -1, .file_index = file_index};
    const char *msg = buf;
    const char *mark = strstr(buf, "NCCL INFO ");
    if (mark) {
        split_prefix(buf, mark, &lc);
        msg = mark + strlen("NCCL INFO ");
        log->info_lines++;
    } else if (strstr(buf, "NCCL WARN")) {
        log->warn_lines++;
        return NVS_OK;
    }

    const char *v = strstr(msg, "NCCL version ");
    if (v) {
        int had = log->version[0] != 0, conflict = log->version_conflict;
        parse_version(log, v + strlen("NCCL version "));
        if (had != (log->version[0] != 0) || conflict != log->version_conflict) resolve_all(log);
        return NVS_OK;
    }
    const char *s = skip_ws(msg);
    if (!strncmp(s, "Channel ", 8) && strstr(s, " via ")) {
        nvs_nccl_conn cn;
        if (parse_conn(s, &cn)) return add_conn(log, &lc, &cn);
        return NVS_OK;
    }
    if (!strncmp(s, "CollNet ", 8)) {
        nvs_nccl_conn cn;
        if (parse_collnet(s, &cn)) return add_conn(log, &lc, &cn);
        return NVS_OK;
    }
    if (strstr(msg, "Init COMPLETE")) return parse_complete_line(log, &lc, msg, 0);
    if (strstr(msg, "Init START")) return parse_complete_line(log, &lc, msg, 1);
    if (strstr(msg, " coll channels")) {
        parse_channel_counts(log, &lc, msg);
        return NVS_OK;
    }
    if (!strncmp(s, "Connected all rings", 19) || !strncmp(s, "Connected all trees", 19)) {
        nvs_nccl_comm *c = current_comm(log, &lc);
        if (c) {
            if (s[14] == 'r') c->rings_connected++;
            else c->trees_connected++;
        }
        return NVS_OK;
    }
    if (!strncmp(s, "NVLS comm 0x", 12)) return parse_nvls_line(log, &lc, s);
    if (!strncmp(s, "Connected NVLS tree", 19)) {
        nvs_nccl_comm *c = current_comm(log, &lc);
        if (c) c->nvls = 1;
        return NVS_OK;
    }
    if (!strncmp(s, "comm 0x", 7) && strstr(s, " nRanks ")) return parse_comm_line(log, &lc, s);
    return NVS_OK;
}

nvs_result_t nvs_nccl_log_parse_text(const char *text, size_t len, nvs_nccl_log *log)
{
    int fi = log->files++;
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        NVS_CHECK(nvs_nccl_log_parse_line(log, text + i, n, fi));
        i += n + 1;
    }
    resolve_all(log); /* an Init COMPLETE after the channel lines tells what their brackets held */
    return NVS_OK;
}

nvs_result_t nvs_nccl_log_parse_file(const char *path, nvs_nccl_log *log)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        nvs_error("%s: %s", path, strerror(errno));
        return NVS_ERR_INPUT;
    }
    int fi = log->files++;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    nvs_result_t res = NVS_OK;
    errno = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        res = nvs_nccl_log_parse_line(log, line, (size_t)n, fi);
        if (res != NVS_OK) break;
    }
    if (res == NVS_OK && ferror(f)) {
        nvs_error("%s: read error: %s", path, strerror(errno));
        res = NVS_ERR_INPUT;
    } else if (res == NVS_OK && n < 0 && errno == ENOMEM) {
        nvs_error("%s: out of memory reading a line", path);
        res = NVS_ERR_NOMEM;
    }
    free(line);
    resolve_all(log);
    if (fclose(f) != 0 && res == NVS_OK) {
        nvs_error("%s: %s", path, strerror(errno));
        res = NVS_ERR_INPUT;
    }
    return res;
}

const char *nvs_nccl_net_name(const char *detail, char *buf, size_t len)
{
    if (!len) return buf;
    buf[0] = '\0';
    /* the name follows "NET/" (or CollNet's "COLLNET/"); a bare "NET" names none (reading at detail + 4 there was
     * past its NUL) */
    if (detail && !strncmp(detail, "COLLNET/", 8)) detail += 4;
    if (!detail || strncmp(detail, "NET/", 4)) return buf;
    copy_str(buf, len, detail + 4, strcspn(detail + 4, "/"));
    return buf;
}

/* ---- summaries ---------------------------------------------------------------------------------------- */

/* NET and COLLNET connections are logged on both sides: the [send] line counts */
static int counted(const nvs_nccl_conn *cn)
{
    return !(cn->side == NVS_NCCL_SIDE_RECV && (!strcmp(cn->transport, "NET") || !strcmp(cn->transport, "COLLNET")));
}

static void summary_add(nvs_nccl_summary *s, const nvs_nccl_conn *cn, unsigned char *seen, size_t nseen)
{
    if (!counted(cn)) return;
    if (!strcmp(cn->transport, "P2P")) {
        s->p2p++;
        if (!s->p2p_detail[0]) set_str(s->p2p_detail, sizeof s->p2p_detail, cn->detail);
    } else if (!strcmp(cn->transport, "SHM"))
        s->shm++;
    else if (!strcmp(cn->transport, "NET")) {
        s->net++;
        if (!s->net_name[0]) set_str(s->net_name, sizeof s->net_name, cn->net);
    } else if (!strcmp(cn->transport, "COLLNET"))
        s->collnet++;
    else
        s->other++;
    s->total++;
    if (cn->channel >= 0 && (size_t)cn->channel < nseen && !seen[cn->channel]) {
        seen[cn->channel] = 1;
        s->nchannels++;
    }
}

void nvs_nccl_log_summary(const nvs_nccl_log *log, int nranks, nvs_nccl_summary *out)
{
    memset(out, 0, sizeof *out);
    unsigned char seen[1024] = {0}; /* NCCL has at most 64 channels (MAXCHANNELS); room to spare */
    for (size_t i = 0; i < log->ncomms; i++) {
        const nvs_nccl_comm *c = &log->comms[i];
        if (nranks > 0 && c->nranks != nranks) continue;
        for (size_t k = 0; k < c->nconns; k++) summary_add(out, &c->conns[k], seen, sizeof seen);
    }
    if (nranks <= 0)
        for (size_t k = 0; k < log->norphans; k++) summary_add(out, &log->orphans[k], seen, sizeof seen);
}

const char *nvs_nccl_summary_transport(const nvs_nccl_summary *s, char *buf, size_t len)
{
    const char *names[5] = {"P2P", "SHM", "NET", "COLLNET", "other"};
    int counts[5] = {s->p2p, s->shm, s->net, s->collnet, s->other};
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < 5 && used < len; i++) { /* never a pointer past the buffer */
        if (!counts[i]) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? "+" : "", names[i]);
        if (w > 0) used += (size_t)w;
    }
    if (!used) snprintf(buf, len, "none");
    return buf;
}

static nvs_link_kind link_kind(const char *transport, const char *pair_class)
{
    if (!transport) return NVS_LINK_NONE;
    if (!strcmp(transport, "SHM")) return NVS_LINK_HOST_MEMORY;
    if (!strcmp(transport, "NET") || !strcmp(transport, "COLLNET")) return NVS_LINK_NETWORK;
    if (!strcmp(transport, "P2P")) {
        nvs_link_kind k = nvs_link_kind_of_class(nvs_link_class_parse(pair_class, NULL));
        return k == NVS_LINK_NONE ? NVS_LINK_P2P_UNKNOWN : k;
    }
    return NVS_LINK_NONE;
}

const char *nvs_nccl_link_name(const char *transport, const char *pair_class)
{
    nvs_link_kind k = link_kind(transport, pair_class);
    return k == NVS_LINK_NONE ? NULL : nvs_link_kind_name(k);
}

/* ---- JSON ------------------------------------------------------------------------------------------------ */

/* json_object_set_new that records failure instead of returning it at every call. */
static void put(json_t *o, const char *k, json_t *v, int *bad)
{
    if (!v || json_object_set_new(o, k, v) != 0) *bad = 1;
}

static json_t *str_or_null(const char *s) { return s && *s ? json_string(s) : json_null(); }

static json_t *conn_json(const nvs_nccl_conn *cn, int *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    put(o, "channel", json_integer(cn->channel), bad);
    put(o, "conn_index", nvs_rj_int(cn->conn_index), bad);
    put(o, "from_rank", json_integer(cn->from_rank), bad);
    put(o, "to_rank", json_integer(cn->to_rank), bad);
    put(o, "from_dev", nvs_rj_int(cn->from_dev), bad);
    put(o, "to_dev", nvs_rj_int(cn->to_dev), bad);
    if (cn->ids == NVS_NCCL_IDS_BUS) { /* NCCL < 2.18.3: the PCI bus ids, hex as printed */
        put(o, "from_bus_id", json_string(cn->from_id), bad);
        put(o, "to_bus_id", json_string(cn->to_id), bad);
    }
    put(o, "transport", json_string(cn->transport), bad);
    put(o, "detail", json_string(cn->detail), bad);
    if (cn->net[0]) put(o, "net", json_string(cn->net), bad);
    if (cn->side) put(o, "side", json_string(cn->side == NVS_NCCL_SIDE_SEND ? "send" : "receive"), bad);
    return o;
}

static json_t *summary_json(const nvs_nccl_summary *s, int *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    if (s->p2p) put(o, "P2P", json_integer(s->p2p), bad);
    if (s->shm) put(o, "SHM", json_integer(s->shm), bad);
    if (s->net) put(o, "NET", json_integer(s->net), bad);
    if (s->collnet) put(o, "COLLNET", json_integer(s->collnet), bad);
    if (s->other) put(o, "other", json_integer(s->other), bad);
    return o;
}

static json_t *conns_json(const nvs_nccl_conn *conns, size_t n, int *bad)
{
    json_t *a = json_array();
    if (!a) {
        *bad = 1;
        return NULL;
    }
    for (size_t k = 0; k < n; k++)
        if (json_array_append_new(a, conn_json(&conns[k], bad)) != 0) *bad = 1;
    return a;
}

json_t *nvs_nccl_log_to_json(const nvs_nccl_log *log)
{
    int bad = 0;
    json_t *root = json_object();
    if (!root) return NULL;
    put(root, "nccl_version", str_or_null(log->version), &bad);
    put(root, "nccl_version_full", str_or_null(log->version_full), &bad);
    put(root, "version_conflict", json_boolean(log->version_conflict), &bad);
    put(root, "files", json_integer(log->files), &bad);
    put(root, "lines", json_integer((json_int_t)log->lines), &bad);
    put(root, "warn_lines", json_integer(log->warn_lines), &bad);
    json_t *comms = json_array();
    put(root, "comms", comms, &bad);
    for (size_t i = 0; comms && i < log->ncomms; i++) {
        const nvs_nccl_comm *c = &log->comms[i];
        json_t *o = json_object();
        if (!o || json_array_append_new(comms, o) != 0) {
            bad = 1;
            break;
        }
        put(o, "comm", json_string(c->ptr), &bad);
        put(o, "host", str_or_null(c->host), &bad);
        put(o, "pid", nvs_rj_int(c->pid), &bad);
        put(o, "file_index", json_integer(c->file_index), &bad);
        put(o, "init", str_or_null(c->init_fn), &bad);
        put(o, "comm_id", str_or_null(c->comm_id), &bad);
        put(o, "parent", str_or_null(c->parent), &bad);
        put(o, "rank", nvs_rj_int(c->rank), &bad);
        put(o, "nranks", nvs_rj_int(c->nranks), &bad);
        put(o, "nnodes", nvs_rj_int(c->nnodes), &bad);
        put(o, "local_rank", nvs_rj_int(c->local_rank), &bad);
        put(o, "local_ranks", nvs_rj_int(c->local_ranks), &bad);
        put(o, "cuda_dev", nvs_rj_int(c->cuda_dev), &bad);
        put(o, "nvml_dev", nvs_rj_int(c->nvml_dev), &bad);
        put(o, "bus_id", str_or_null(c->bus_id), &bad);
        put(o, "complete", json_boolean(c->complete), &bad);
        put(o, "coll_channels", nvs_rj_int(c->coll_channels), &bad);
        put(o, "collnet_channels", nvs_rj_int(c->collnet_channels), &bad);
        put(o, "nvls_channels", nvs_rj_int(c->nvls_channels), &bad);
        put(o, "p2p_channels", nvs_rj_int(c->p2p_channels), &bad);
        put(o, "p2p_channels_per_peer", nvs_rj_int(c->p2p_channels_per_peer), &bad);
        put(o, "rings_connected", json_boolean(c->rings_connected > 0), &bad);
        put(o, "trees_connected", json_boolean(c->trees_connected > 0), &bad);
        put(o, "nvls", json_boolean(c->nvls), &bad);
        put(o, "channels", conns_json(c->conns, c->nconns, &bad), &bad);
        nvs_nccl_summary s = {0};
        unsigned char seen[1024] = {0};
        for (size_t k = 0; k < c->nconns; k++) summary_add(&s, &c->conns[k], seen, sizeof seen);
        put(o, "summary", summary_json(&s, &bad), &bad);
    }
    put(root, "orphans", conns_json(log->orphans, log->norphans, &bad), &bad);
    nvs_nccl_summary all;
    nvs_nccl_log_summary(log, 0, &all);
    put(root, "summary", summary_json(&all, &bad), &bad);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

json_t *nvs_nccl_log_transport_json(const nvs_nccl_log *log, int nranks, const int *gpu_of_rank,
                                    nvs_nccl_pair_class_fn pair_class, void *ctx)
{
    int bad = 0;
    json_t *o = json_object();
    if (!o) return NULL;
    put(o, "n", json_integer(nranks), &bad);
    put(o, "nccl_version", str_or_null(log->version), &bad);
    json_t *chans = json_array();
    put(o, "channels", chans, &bad);
    nvs_link_kind worst = NVS_LINK_NONE; /* the ring runs at the pace of its slowest hop */
    int nvls = 0;
    for (size_t i = 0; chans && i < log->ncomms; i++) {
        const nvs_nccl_comm *c = &log->comms[i];
        if (c->nranks != nranks) continue;
        nvls |= c->nvls;
        for (size_t k = 0; k < c->nconns; k++) {
            const nvs_nccl_conn *cn = &c->conns[k];
            if (!counted(cn)) continue;
            json_t *e = json_object();
            if (!e || json_array_append_new(chans, e) != 0) {
                bad = 1;
                break;
            }
            put(e, "comm", json_string(c->ptr), &bad);
            put(e, "channel", json_integer(cn->channel), &bad);
            put(e, "from_rank", json_integer(cn->from_rank), &bad);
            put(e, "to_rank", json_integer(cn->to_rank), &bad);
            const char *cls = NULL;
            if (gpu_of_rank && cn->from_rank < nranks && cn->to_rank < nranks) {
                int ga = gpu_of_rank[cn->from_rank], gb = gpu_of_rank[cn->to_rank];
                put(e, "from_gpu", json_integer(ga), &bad);
                put(e, "to_gpu", json_integer(gb), &bad);
                cls = pair_class ? pair_class(ctx, ga, gb) : NULL;
            }
            nvs_link_kind link = link_kind(cn->transport, cls);
            put(e, "transport", json_string(cn->transport), &bad);
            put(e, "detail", json_string(cn->detail), &bad);
            if (link != NVS_LINK_NONE) {
                put(e, "link", json_string(nvs_link_kind_name(link)), &bad);
                worst = nvs_link_kind_worst(worst, link);
            }
        }
    }
    nvs_nccl_summary s;
    nvs_nccl_log_summary(log, nranks, &s);
    put(o, "summary", summary_json(&s, &bad), &bad);
    put(o, "nchannels", json_integer(s.nchannels), &bad);
    put(o, "nvls", json_boolean(nvls), &bad); /* a communicator of these ranks used NVLS (NVLink SHARP) */
    put(o, "link", worst == NVS_LINK_NONE ? json_null() : json_string(nvs_link_kind_name(worst)), &bad);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
