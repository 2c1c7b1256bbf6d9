/* PURE parser of NCCL's INFO log: see nccl_log.h for the formats and the rules. This file reads files and texts
 * line by line, splits off each line's prefix and hands the message to the reader of its kind (nccl_log_priv.h
 * lists the files). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "explain/nccl_log_priv.h"

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
            if (nvs_nl_read_int(&q, &d) == 0 && *q == ']') lc->dev = d;
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
        nvs_nl_parse_version(log, v + strlen("NCCL version "));
        if (had != (log->version[0] != 0) || conflict != log->version_conflict) nvs_nl_resolve_all(log);
        return NVS_OK;
    }
    const char *s = skip_ws(msg);
    if (!strncmp(s, "Channel ", 8) && strstr(s, " via ")) {
        nvs_nccl_conn cn;
        if (nvs_nl_parse_conn(s, &cn)) return nvs_nl_add_conn(log, &lc, &cn);
        return NVS_OK;
    }
    if (!strncmp(s, "CollNet ", 8)) {
        nvs_nccl_conn cn;
        if (nvs_nl_parse_collnet(s, &cn)) return nvs_nl_add_conn(log, &lc, &cn);
        return NVS_OK;
    }
    if (strstr(msg, "Init COMPLETE")) return nvs_nl_parse_complete_line(log, &lc, msg, 0);
    if (strstr(msg, "Init START")) return nvs_nl_parse_complete_line(log, &lc, msg, 1);
    if (strstr(msg, " coll channels")) {
        nvs_nl_parse_channel_counts(log, &lc, msg);
        return NVS_OK;
    }
    if (!strncmp(s, "Connected all rings", 19) || !strncmp(s, "Connected all trees", 19)) {
        nvs_nccl_comm *c = nvs_nl_current_comm(log, &lc);
        if (c) {
            if (s[14] == 'r') c->rings_connected++;
            else c->trees_connected++;
        }
        return NVS_OK;
    }
    if (!strncmp(s, "NVLS comm 0x", 12)) return nvs_nl_parse_nvls_line(log, &lc, s);
    if (!strncmp(s, "Connected NVLS tree", 19)) {
        nvs_nccl_comm *c = nvs_nl_current_comm(log, &lc);
        if (c) c->nvls = 1;
        return NVS_OK;
    }
    if (!strncmp(s, "comm 0x", 7) && strstr(s, " nRanks ")) return nvs_nl_parse_comm_line(log, &lc, s);
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
    nvs_nl_resolve_all(log); /* an Init COMPLETE after the channel lines tells what their brackets held */
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
    nvs_nl_resolve_all(log);
    if (fclose(f) != 0 && res == NVS_OK) {
        nvs_error("%s: %s", path, strerror(errno));
        res = NVS_ERR_INPUT;
    }
    return res;
}
