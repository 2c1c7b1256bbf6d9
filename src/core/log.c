#include "core/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/escape.h"

static int g_level = NVS_LOG_WARN;
static int g_progress = -1; /* -1: decide from isatty(stderr) */
static int g_progress_dirty;
static int g_progress_tty = -1;      /* stderr is a terminal */
static char g_progress_key[64];      /* phase of the last plain line */
static double g_progress_last_s = -1; /* when the last plain line was printed */
static double g_t0_s = -1;            /* first progress call: the stamps count from here */
static _Thread_local int t_rank = 0;
static _Thread_local int t_nranks = 1;
static _Thread_local char t_last_error[NVS_LOG_LAST_LEN]; /* nvs_log_last_error: per rank, as t_rank */
/* One lock so lines from the threads of the one-process runtime never interleave mid-line. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static FILE *g_sink; /* NULL: stderr (nvs_log_set_sink) */
static const char *g_refusal; /* NULL: errors are runtime errors (nvs_log_set_refusal) */

void nvs_log_set_level(int level) { g_level = level; }
FILE *nvs_log_set_sink(FILE *to)
{
    FILE *was = g_sink;
    g_sink = to;
    return was;
}
const char *nvs_log_set_refusal(const char *sub)
{
    const char *was = g_refusal;
    g_refusal = sub;
    return was;
}
int nvs_log_level(void) { return g_level; }
void nvs_log_set_rank(int rank, int nranks)
{
    t_rank = rank;
    t_nranks = nranks;
}

static const char *const level_names[] = {"error", "warning", "info", "debug"};

char *nvs_utf8_trim(char *s)
{
    size_t n = strlen(s), lead = n;
    while (lead > 0 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80 && n - lead < 3) lead--; /* continuation bytes */
    if (lead == 0) return s;
    unsigned char c = (unsigned char)s[lead - 1];
    /* the sequence's length from its lead byte (RFC 3629 section 3); not a lead byte: nothing to drop */
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (need > 1 && n - (lead - 1) < need) s[lead - 1] = '\0';
    return s;
}

const char *nvs_log_last_error(void) { return t_last_error; }
void nvs_log_forget_error(void) { t_last_error[0] = '\0'; }

char *nvs_log_cause(nvs_result_t res, char *buf, size_t len)
{
    const char *said = t_last_error, *code = nvs_result_text(res);
    if (!said[0])
        snprintf(buf, len, "%s", code);
    else if (strstr(said, code))
        snprintf(buf, len, "%s", said);
    else
        snprintf(buf, len, "%s (%s)", said, code);
    return nvs_utf8_trim(buf);
}

/* t_last_error = the message's first line, control characters as spaces, cut whole characters */
static void keep_last_error(const char *msg)
{
    size_t k = 0;
    for (; msg[k] && msg[k] != '\n' && k < sizeof t_last_error - 1; k++) {
        unsigned char c = (unsigned char)msg[k];
        t_last_error[k] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    t_last_error[k] = '\0';
    if (msg[k] && msg[k] != '\n') nvs_utf8_trim(t_last_error);
}

void nvs_log(int level, const char *fmt, ...)
{
    if (level > g_level && level != NVS_LOG_ERROR) return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n') msg[--n] = '\0';
    if (level == NVS_LOG_ERROR) keep_last_error(msg);
    if (level > g_level) return;
    pthread_mutex_lock(&g_lock);
    /* The message is composed whole and written with one write(2): stderr is unbuffered, and written piece by piece
     * (prefix, text, newline) the lines of two ranks forwarded by mpirun interleaved mid-line ("... were s" then
     * rank 1's line, then "tarted with ..."). One write of up to PIPE_BUF bytes to a pipe is not split. */
    char *whole = NULL;
    size_t wlen = 0;
    FILE *m = open_memstream(&whole, &wlen);
    FILE *to = m ? m : stderr;
    if (g_progress_dirty) {
        fputs("\r\033[K", to);
        g_progress_dirty = 0;
    }
    if (level == NVS_LOG_ERROR && g_refusal)
        fprintf(to, "nvscale %s: ", g_refusal);
    else if (t_nranks > 1)
        fprintf(to, "nvscale[rank %d]: %s: ", t_rank, level_names[level]);
    else
        fprintf(to, "nvscale: %s: ", level_names[level]);
    /* Messages quote values from files and other processes: control characters reach the terminal only as
     * visible text (core/escape.h); the line breaks of a multi-line message (a child's last lines) stay. */
    for (char *line = msg, *nl;; line = nl + 1) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        nvs_esc_fputs(NVS_ESC_TERM, line, to);
        fputc('\n', to);
        if (!nl) break;
    }
    int composed = m && fclose(m) == 0 && whole;
    if (composed && g_sink) {
        fwrite(whole, 1, wlen, g_sink);
    } else if (composed) {
        fflush(stderr);
        for (size_t off = 0; off < wlen;) {
            ssize_t w = write(STDERR_FILENO, whole + off, wlen - off);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) break; /* stderr gone: nowhere left to say it */
            off += (size_t)w;
        }
    }
    free(whole);
    fflush(stderr);
    pthread_mutex_unlock(&g_lock);
}

void nvs_progress_enable(int enabled) { g_progress = enabled; }

static int progress_on(void)
{
    if (t_rank != 0) return 0;
    return g_progress != 0; /* -1 (undecided) and 1: on; a terminal gets the live line, anything else plain lines */
}

/* Plain lines are rate-limited to one per phase change or per this many seconds. */
#define NVS_PROGRESS_PLAIN_EVERY_S 5.0

void nvs_progress(const char *key, const char *fmt, ...)
{
    if (!progress_on()) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_lock);
    double now = nvs_now_s();
    if (g_t0_s < 0) g_t0_s = now;
    if (g_progress_tty < 0) g_progress_tty = isatty(STDERR_FILENO);
    if (g_progress_tty) {
        fprintf(stderr, "\r\033[K%s", msg);
        g_progress_dirty = 1;
    } else if (strncmp(key, g_progress_key, sizeof g_progress_key - 1) ||
               now - g_progress_last_s >= NVS_PROGRESS_PLAIN_EVERY_S) {
        fprintf(stderr, "nvscale: [%4.0f s] %s\n", now - g_t0_s, msg);
        snprintf(g_progress_key, sizeof g_progress_key, "%s", key);
        g_progress_last_s = now;
    }
    fflush(stderr);
    pthread_mutex_unlock(&g_lock);
}

void nvs_progress_done(void)
{
    if (!progress_on()) return;
    pthread_mutex_lock(&g_lock);
    if (g_progress_dirty) fputs("\r\033[K", stderr);
    fflush(stderr);
    g_progress_dirty = 0;
    pthread_mutex_unlock(&g_lock);
}
