/* Interruption by a signal (SIGINT from Ctrl-C, SIGTERM from mpirun or a batch system, SIGHUP): the handler only
 * records the signal; the run polls nvs_interrupted() where it waits (collective and stream waits, host
 * barriers) and between measurements, stops, and writes what it has measured as run.json with status
 * "interrupted". A second SIGINT gives the default action back (the process ends at once). Async-signal-safe:
 * the handler writes one sig_atomic_t. */
#ifndef NVS_INTERRUPT_H
#define NVS_INTERRUPT_H

/* 0, or the errno of the sigaction that failed (the signal then keeps its default action). */
int nvs_interrupt_install(void);
/* The signal number that interrupted the run, or 0. */
int nvs_interrupted(void);
/* For tests: as if `sig` had arrived. */
void nvs_interrupt_raise(int sig);

#endif
