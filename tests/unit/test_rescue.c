/* run/rescue.h (issue 14): on a signal, rank 0's thread marks the last checkpoint "interrupted" at once (mpirun
 * SIGKILLs a rank about a second after its SIGTERM); a final word ("ok", "failed") is never undone; no checkpoint,
 * no file. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "core/interrupt.h"
#include "core/out_file.h"
#include "run/rescue.h"
#include "t.h"

static char dir[4200], path[4300];

static void make_dir(void)
{
    char here[4096];
    if (!getcwd(here, sizeof here)) T_FAIL("getcwd");
    snprintf(dir, sizeof dir, "%s/tests/tmp/test_rescue.%ld", here, (long)getpid());
    snprintf(path, sizeof path, "%s/run.json", dir);
    if (nvs_mkdir_p(dir) != NVS_OK) T_FAIL("cannot create %s", dir);
}

static void remove_dir(void)
{
    unlink(path);
    rmdir(dir);
}

static void put(const char *text)
{
    if (nvs_write_text_file(path, text) != NVS_OK) T_FAIL("cannot write %s", path);
}

/* result.<key> of the run.json there, as text ("" when absent) */
static const char *result_of(const char *key, char *buf, size_t len)
{
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    if (!doc) T_FAIL("run.json unreadable: %s", e.text);
    json_t *v = json_object_get(json_object_get(doc, "result"), key);
    if (json_is_string(v)) snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else buf[0] = 0;
    json_decref(doc);
    return buf;
}

static const char *CHECKPOINT =
    "{\"schema\": 3, \"collectives\": [{\"n\": 2, \"bytes\": 1024}], \"result\": {\"status\": \"running\", "
    "\"wrong_total\": 3, \"reason\": \"a checkpoint: the run had not ended when this was written\"}}\n";

static void t_mark(void)
{
    make_dir();
    char b[512];
    put(CHECKPOINT);
    T_EQ_I(nvs_rescue_mark(dir, SIGTERM), NVS_OK);
    T_EQ_S(result_of("status", b, sizeof b), "interrupted");
    T_EQ_S(result_of("exit_code", b, sizeof b), "130");
    T_EQ_S(result_of("wrong_total", b, sizeof b), "3");
    T_CONTAINS(result_of("reason", b, sizeof b), "interrupted by signal 15 (SIGTERM");
    T_CONTAINS(b, "the last checkpoint, marked when the signal came");
    /* the measured part is untouched */
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    T_ASSERT(doc != NULL);
    T_EQ_I((int)json_integer_value(json_object_get(json_array_get(json_object_get(doc, "collectives"), 0), "bytes")),
           1024);
    json_decref(doc);
    /* a final word stays: the run got to write it */
    put("{\"result\": {\"status\": \"ok\", \"exit_code\": 0, \"wrong_total\": 0}}\n");
    T_EQ_I(nvs_rescue_mark(dir, SIGINT), NVS_OK);
    T_EQ_S(result_of("status", b, sizeof b), "ok");
    /* nothing checkpointed yet: nothing written */
    unlink(path);
    T_EQ_I(nvs_rescue_mark(dir, SIGINT), NVS_OK);
    T_ASSERT(access(path, F_OK) != 0);
    remove_dir();
}

static void t_thread(void)
{
    make_dir();
    char b[512];
    put(CHECKPOINT);
    /* no signal: the watch ends without touching the file */
    nvs_rescue *r = nvs_rescue_start(dir);
    T_ASSERT(r != NULL);
    nanosleep(&(struct timespec){0, 50000000}, NULL);
    T_EQ_I(nvs_rescue_stop(r), 0);
    T_EQ_S(result_of("status", b, sizeof b), "running");
    /* a signal: marked within a few polls, while the main thread is busy elsewhere */
    r = nvs_rescue_start(dir);
    T_ASSERT(r != NULL);
    nvs_interrupt_raise(SIGINT);
    int i;
    for (i = 0; i < 200 && strcmp(result_of("status", b, sizeof b), "interrupted"); i++)
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    if (i == 200) T_FAIL("not marked within 1 s of the signal");
    T_CONTAINS(result_of("reason", b, sizeof b), "SIGINT, Ctrl-C");
    T_EQ_I(nvs_rescue_stop(r), 1);
    nvs_interrupt_raise(0);
    remove_dir();
}

static void t_reason(void)
{
    char b[320];
    nvs_interrupt_reason(SIGHUP, b, sizeof b);
    T_EQ_S(b, "interrupted by signal 1 (SIGHUP: the terminal went away): the rows and the training points finished "
              "before it are kept");
    nvs_interrupt_reason(SIGUSR1, b, sizeof b);
    T_CONTAINS(b, "(a signal)");
    nvs_interrupt_reason(0, b, sizeof b); /* rank 0 saw none: another rank's came through an agreement */
    T_EQ_S(b, "interrupted by a signal to another rank: the rows and the training points finished before it are kept");
}

/* the run's result after a signal: interrupted, unless this rank had timed out on a stall first (mpirun -np 3 with
 * rank 2 stopped: ranks 0 and 1 time out together, rank 1's MPI_Abort makes mpirun send SIGTERM to rank 0, whose
 * run.json then said "interrupted by signal 15" and exit 130, after its own "did not complete within 3 s") */
static void t_final(void)
{
    T_EQ_I(nvs_interrupt_final(NVS_ERR_TIMEOUT, NVS_ERR_TIMEOUT, SIGTERM), NVS_ERR_TIMEOUT);
    T_EQ_I(nvs_interrupt_final(NVS_OK, NVS_OK, SIGINT), NVS_ERR_INTERRUPTED);
    T_EQ_I(nvs_interrupt_final(NVS_ERR_NCCL, NVS_ERR_NCCL, SIGTERM), NVS_ERR_INTERRUPTED); /* a peer's abort */
    T_EQ_I(nvs_interrupt_final(NVS_ERR_INTERRUPTED, NVS_ERR_INTERRUPTED, SIGTERM), NVS_ERR_INTERRUPTED);
    T_EQ_I(nvs_interrupt_final(NVS_OK, NVS_ERR_TIMEOUT, SIGTERM), NVS_ERR_INTERRUPTED); /* another rank's */
    T_EQ_I(nvs_interrupt_final(NVS_ERR_WRONG, NVS_ERR_WRONG, 0), NVS_ERR_WRONG);
}

T_LIST = {T_CASE(t_mark), T_CASE(t_thread), T_CASE(t_reason), T_CASE(t_final)};
T_MAIN
