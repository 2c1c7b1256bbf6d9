/* See rescue.h. */
#include "run/rescue.h"

#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/interrupt.h"
#include "core/log.h"
#include "runjson/runjson_write.h"

/* How often the thread looks at the signal flag: a signal handler may not write files (nothing it could call is
 * async-signal-safe), so a thread polls. 10 ms of the ~1000 ms mpirun leaves. */
#define RESCUE_POLL_NS 10000000L

struct nvs_rescue {
    pthread_t thread;
    pthread_mutex_t lock;
    char dir[4096];
    volatile int stop; /* under lock */
    int marked;
};

void nvs_interrupt_reason(int sig, char *buf, size_t len)
{
    if (sig == 0) { /* this rank saw none: another rank's signal reached it through an agreement */
        snprintf(buf, len, "interrupted by a signal to another rank: the rows and the training points finished "
                           "before it are kept");
        return;
    }
    snprintf(buf, len, "interrupted by signal %d (%s): the rows and the training points finished before it are kept",
             sig,
             sig == SIGINT    ? "SIGINT, Ctrl-C"
             : sig == SIGTERM ? "SIGTERM: Ctrl-C on mpirun (which passes it on as SIGTERM), another rank failed "
                                "and the launcher stopped the job, or a batch system or a user stopped it"
             : sig == SIGHUP  ? "SIGHUP: the terminal went away"
                              : "a signal");
}

nvs_result_t nvs_interrupt_final(nvs_result_t res, nvs_result_t agreed, int sig)
{
    if (!sig || res == NVS_ERR_TIMEOUT) return agreed;
    return NVS_ERR_INTERRUPTED;
}

nvs_result_t nvs_rescue_mark(const char *dir, int sig)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc) return NVS_OK; /* no checkpoint yet: nothing was measured */
    json_t *res = json_object_get(doc, "result");
    json_t *st = res ? json_object_get(res, "status") : NULL;
    nvs_result_t r = NVS_OK;
    if (json_is_string(st) && !strcmp(json_string_value(st), "running")) { /* a final word is never undone */
        json_int_t wrong = json_integer_value(json_object_get(res, "wrong_total"));
        char reason[320];
        nvs_interrupt_reason(sig, reason, sizeof reason);
        strncat(reason, " (the last checkpoint, marked when the signal came)", sizeof reason - strlen(reason) - 1);
        if (nvs_rj_set_result_reason(doc, NVS_ERR_INTERRUPTED, (long long)wrong, reason) != 0) r = NVS_ERR_NOMEM;
        else r = nvs_rj_save_file(doc, path);
    }
    json_decref(doc);
    return r;
}

static void *watch(void *arg)
{
    nvs_rescue *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->lock);
        int stop = r->stop, sig = nvs_interrupted();
        if (!stop && sig) {
            r->marked = nvs_rescue_mark(r->dir, sig) == NVS_OK;
            stop = 1;
        }
        pthread_mutex_unlock(&r->lock);
        if (stop) return NULL;
        nanosleep(&(struct timespec){0, RESCUE_POLL_NS}, NULL);
    }
}

nvs_rescue *nvs_rescue_start(const char *dir)
{
    nvs_rescue *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    int e = pthread_mutex_init(&r->lock, NULL);
    if (e == 0) {
        e = nvs_thread_start(&r->thread, watch, r); /* the signals stay with the main thread */
        if (e != 0) pthread_mutex_destroy(&r->lock);
    }
    if (e != 0) {
        nvs_warn("cannot start the thread that marks run.json on a signal (%s): a run stopped by SIGKILL soon "
                 "after a signal keeps its last checkpoint as \"running\"", strerror(e));
        free(r);
        return NULL;
    }
    return r;
}

void nvs_rescue_lock(nvs_rescue *r)
{
    if (r) pthread_mutex_lock(&r->lock);
}

void nvs_rescue_unlock(nvs_rescue *r)
{
    if (r) pthread_mutex_unlock(&r->lock);
}

int nvs_rescue_stop(nvs_rescue *r)
{
    if (!r) return 0;
    pthread_mutex_lock(&r->lock);
    r->stop = 1;
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->lock);
    int marked = r->marked;
    free(r);
    return marked;
}
