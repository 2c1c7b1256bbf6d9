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

/* Catches `sig` unless it was ignored when the process started; then it stays ignored. 0 or errno. */
static int catch_unless_ignored(int sig, const struct sigaction *sa)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old)) return errno;
    if (old.sa_handler == SIG_IGN) return 0;
    return sigaction(sig, sa, NULL) ? errno : 0;
}

int nvs_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocking call returns, and the run notices */
    /* A signal ignored when we start stays ignored, the Unix convention for a program that catches the terminal's
     * signals (Kernighan & Pike, The UNIX Programming Environment, ch. 7: `if (signal(SIGINT, SIG_IGN) !=
     * SIG_IGN)`; coreutils' sort; Python installs its KeyboardInterrupt handler only over SIG_DFL):
     *   SIGINT  a POSIX shell without job control starts `nvscale ... &` with SIGINT (and SIGQUIT) ignored so that
     *           the Ctrl-C typed for the foreground job reaches only that job; a `kill -INT` to the process group
     *           stopped the background run too ("interrupted by signal 2"), because our handler replaced the
     *           ignore.
     *   SIGHUP  `nohup nvscale ... &`: the user asked the run to outlive the terminal, so the hangup at logout
     *           must not stop it (it did: "interrupted by signal 1"), as in nohup(1).
     * SIGTERM is caught always: no shell ignores it on its own, and it is the one way mpirun, batch systems,
     * timeout(1) and compare (compare_child.c, to its child) ask a run to stop and keep what it measured. */
    int e = catch_unless_ignored(SIGINT, &sa);
    if (!e && sigaction(SIGTERM, &sa, NULL)) e = errno;
    if (!e) e = catch_unless_ignored(SIGHUP, &sa);
    return e;
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
