/* compare's child runs (compare/compare_child.h): a stop that came before compare blocked on the child is still
 * passed on. A signal that lands just before a blocking read or waitpid interrupts nothing (its handler has run
 * already), so compare waited out the whole child run; the flag set before the call stands for that signal. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare/compare_child.h"
#include "core/interrupt.h"
#include "t.h"

extern char **environ;

/* a child that runs 5 s unless stopped with SIGTERM (then exit 7, once its trap is set) */
static char *const child_argv[] = {"/bin/sh", "-c",
                                   "trap 'exit 7' TERM; i=0; while [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done",
                                   NULL};

static void run_one(int capture)
{
    char err[] = "/tmp/nvs_test_compare_child.XXXXXX";
    int fd = mkstemp(err);
    T_ASSERT(fd >= 0);
    close(fd);
    char out[sizeof err + 4];
    snprintf(out, sizeof out, "%s.out", err);
    nvs_interrupt_raise(SIGTERM); /* came before the call: no wait below is interrupted by it */
    nvs_child_status st;
    char *got = NULL;
    T_EQ_I(nvs_child_run("/bin/sh", child_argv, environ, out, capture ? &got : NULL, 1 << 20, err, &st), NVS_OK);
    nvs_interrupt_raise(0);
    /* it was asked to stop: by its trap, or by SIGTERM itself when that came before the trap was set */
    if (!((st.exited && st.code == 7) || (st.signaled && st.sig == SIGTERM)))
        T_FAIL("the child was not stopped: exited %d code %d, signaled %d sig %d", st.exited, st.code, st.signaled,
               st.sig);
    if (!(st.wall_s < 3)) T_FAIL("the child ran %.1f s: the stop was not passed on at once", st.wall_s); /* soon */
    free(got);
    unlink(err);
    unlink(out);
}

static void t_stop_before_wait(void) { run_one(0); }
static void t_stop_before_read(void) { run_one(1); }

T_LIST = {T_CASE(t_stop_before_wait), T_CASE(t_stop_before_read)};
T_MAIN
