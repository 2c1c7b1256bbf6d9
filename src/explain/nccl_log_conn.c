/* PURE: the NCCL log's connection lines ("Channel .. via", "CollNet .. via") and which communicator takes each.
 * Part of the NCCL log parser (nccl_log.c); formats in nccl_log.h. */
#include <ctype.h>
#include <string.h>

#include "explain/nccl_log_priv.h"

/* "R[ID]": rank and the bracket's text (see resolve_ids for what it holds). */
static int read_rank_id(const char **pp, int *rank, char *id, size_t cap)
{
    const char *p = skip_ws(*pp);
    if (!isdigit((unsigned char)*p) || nvs_nl_read_int(&p, rank) != 0) return -1;
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

/* The head of a connection line, "<word>NN/N :" or "<word>NN :" (the /N, the connection index, since NCCL 2.17):
 * cn cleared, its channel and connection index set, *p past the colon. 1 if it is one, 0 if not. */
static int read_line_head(const char **pp, const char *word, nvs_nccl_conn *cn)
{
    memset(cn, 0, sizeof *cn);
    const char *p = skip_ws(*pp);
    size_t wl = strlen(word);
    if (strncmp(p, word, wl)) return 0;
    p += wl;
    if (!isdigit((unsigned char)*p) || nvs_nl_read_int(&p, &cn->channel) != 0) return 0;
    cn->conn_index = -1;
    if (*p == '/') {
        p++;
        if (!isdigit((unsigned char)*p) || nvs_nl_read_int(&p, &cn->conn_index) != 0) return 0;
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
int nvs_nl_parse_conn(const char *p, nvs_nccl_conn *cn)
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
int nvs_nl_parse_collnet(const char *p, nvs_nccl_conn *cn)
{
    if (!read_line_head(&p, "CollNet ", cn)) return 0;
    p = skip_ws(p);
    if (!isdigit((unsigned char)*p) || nvs_nl_read_int(&p, &cn->from_rank) != 0) return 0;
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

nvs_result_t nvs_nl_add_conn(nvs_nccl_log *log, const line_ctx *lc, nvs_nccl_conn *cn)
{
    cn->logged_dev = lc->dev;
    cn->pid = lc->pid;
    cn->file_index = lc->file_index;
    log->conn_lines++;
    for (size_t i = log->ncomms; i-- > 0;) {
        nvs_nccl_comm *c = &log->comms[i];
        if (!conn_fits(c, cn, lc)) continue;
        nvs_nl_resolve_ids(cn, nvs_nl_ids_of(log, c));
        NVS_CHECK(nvs_nl_grow((void **)&c->conns, &c->cap_conns, c->nconns + 1, sizeof *c->conns));
        c->conns[c->nconns++] = *cn;
        return NVS_OK;
    }
    nvs_nl_resolve_ids(cn, nvs_nl_ids_of(log, NULL));
    NVS_CHECK(nvs_nl_grow((void **)&log->orphans, &log->cap_orphans, log->norphans + 1, sizeof *log->orphans));
    log->orphans[log->norphans++] = *cn;
    return NVS_OK;
}

/* Init COMPLETE of a communicator that no line had named before (NCCL < 2.18.3): its channel lines, logged during
 * its initialisation, went to the orphans; it takes those that fit it, in order. */
nvs_result_t nvs_nl_adopt_orphans(nvs_nccl_log *log, nvs_nccl_comm *c)
{
    size_t keep = 0;
    nvs_result_t res = NVS_OK;
    for (size_t k = 0; k < log->norphans; k++) {
        nvs_nccl_conn *cn = &log->orphans[k];
        line_ctx lc = {.pid = cn->pid, .dev = cn->logged_dev, .file_index = cn->file_index};
        set_str(lc.host, sizeof lc.host, c->host); /* the host is not kept per line: pid and file decide */
        if (res == NVS_OK && cn->file_index == c->file_index && conn_fits(c, cn, &lc))
            res = nvs_nl_grow((void **)&c->conns, &c->cap_conns, c->nconns + 1, sizeof *c->conns);
        if (res == NVS_OK && cn->file_index == c->file_index && conn_fits(c, cn, &lc)) {
            nvs_nl_resolve_ids(cn, nvs_nl_ids_of(log, c));
            c->conns[c->nconns++] = *cn;
        } else {
            log->orphans[keep++] = *cn;
        }
    }
    log->norphans = keep;
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
