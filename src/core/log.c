#include "core/log.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int g_level = NVS_LOG_WARN;
static int g_progress = -1; /* -1: decide from isatty(stderr) */
static int g_progress_dirty;
static _Thread_local int t_rank = 0;
static _Thread_local int t_nranks = 1;
/* One lock so lines from the threads of the one-process runtime never interleave mid-line. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

void nvs_log_set_level(int level) { g_level = level; }
void nvs_log_set_rank(int rank, int nranks)
{
    t_rank = rank;
    t_nranks = nranks;
}

static const char *const level_names[] = {"error", "warning", "info", "debug"};

void nvs_log(int level, const char *fmt, ...)
{
    if (level > g_level) return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n') msg[--n] = '\0';
    pthread_mutex_lock(&g_lock);
    if (g_progress_dirty) {
        fputs("\r\033[K", stderr);
        g_progress_dirty = 0;
    }
    if (t_nranks > 1)
        fprintf(stderr, "nvscale[rank %d]: %s: %s\n", t_rank, level_names[level], msg);
    else
        fprintf(stderr, "nvscale: %s: %s\n", level_names[level], msg);
    fflush(stderr);
    pthread_mutex_unlock(&g_lock);
}

void nvs_progress_enable(int enabled) { g_progress = enabled; }

static int progress_on(void)
{
    if (t_rank != 0) return 0;
    if (g_progress < 0) g_progress = isatty(STDERR_FILENO) ? 1 : 0;
    return g_progress;
}

void nvs_progress(const char *fmt, ...)
{
    if (!progress_on()) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g_lock);
    fprintf(stderr, "\r\033[K%s", msg);
    fflush(stderr);
    g_progress_dirty = 1;
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
