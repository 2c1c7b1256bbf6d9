/* Interruption by a signal (SIGINT from Ctrl-C unless it was ignored at start, as for `nvscale ... &` in a
 * script; SIGTERM from mpirun or a batch system; SIGHUP unless it was ignored at start, as under nohup): the handler
 * only records the signal; the run polls nvs_interrupted() where it waits (collective and stream waits, host barriers)
 * and between measurements, stops, and writes what it has measured as run.json with status "interrupted". A second
 * SIGINT gives the default action back (the process ends at once). Async-signal-safe: the handler writes one
 * sig_atomic_t. */
#ifndef NVS_INTERRUPT_H
#define NVS_INTERRUPT_H

#include <pthread.h>

/* 0, or the errno of the sigaction that failed (the signal then keeps its default action). */
int nvs_interrupt_install(void);
/* The signal number that interrupted the run, or 0. */
int nvs_interrupted(void);
/* pthread_create with the signals above blocked in the new thread: they stay with the main thread, whose waits
 * are the ones that must notice them (a blocking call is cut short only in the thread the signal lands on).
 * Helper threads start this way (rescue, the NVML sampler, MPI_Init's watchdog). Returns pthread_create's code. */
int nvs_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);
/* For tests: as if `sig` had arrived. */
void nvs_interrupt_raise(int sig);
/* For tests whose one thread polls: as if `sig` arrived just before the `polls`-th nvs_interrupted() from now
 * (1: the next), to see where a loop looks at the flag. */
void nvs_interrupt_raise_after(int polls, int sig);

#endif
