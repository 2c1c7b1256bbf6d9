/* See interrupt.h. */
#include "core/interrupt.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t g_sig;

static void on_signal(int sig)
{
    if (g_sig == SIGINT && sig == SIGINT) {
        /* the second Ctrl-C: the user wants out now */
        signal(SIGINT, SIG_DFL);
        raise(SIGINT);
        return;
    }
    if (!g_sig) g_sig = sig;
}

int nvs_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocking call returns, and the run notices */
    if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL)) return errno;
    /* SIGHUP ignored when we start is `nohup nvscale ... &`: the user asked the run to outlive the terminal, so a
     * hangup at logout must not stop it (it did: "interrupted by signal 1"). It stays ignored, as in nohup(1). */
    struct sigaction old;
    if (sigaction(SIGHUP, NULL, &old)) return errno;
    if (old.sa_handler != SIG_IGN && sigaction(SIGHUP, &sa, NULL)) return errno;
    return 0;
}

static int g_after, g_after_sig; /* nvs_interrupt_raise_after's countdown: tests only */

int nvs_interrupted(void)
{
    if (g_after > 0 && --g_after == 0) g_sig = g_after_sig;
    return (int)g_sig;
}

void nvs_interrupt_raise(int sig) { g_sig = sig; }

void nvs_interrupt_raise_after(int polls, int sig)
{
    g_after_sig = sig;
    g_after = polls;
}

int nvs_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigemptyset(&all);
    sigaddset(&all, SIGINT);
    sigaddset(&all, SIGTERM);
    sigaddset(&all, SIGHUP);
    int e = pthread_sigmask(SIG_BLOCK, &all, &old);
    if (e != 0) return e;
    e = pthread_create(t, NULL, fn, arg);
    int e2 = pthread_sigmask(SIG_SETMASK, &old, NULL);
    return e != 0 ? e : e2;
}
