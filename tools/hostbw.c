/* hostbw: host memory bandwidth, a STREAM-like copy with N threads (no GPU, no network, C11 + pthreads).
 *
 *   make hostbw && build/hostbw [-t THREADS] [-s MIB_PER_THREAD] [-r REPEATS]
 *
 * Each thread first-touches its own source and destination arrays (so Linux places them on the thread's NUMA
 * node), then all threads copy at once, REPEATS times behind a barrier; the best round counts. Bandwidth is
 * STREAM's convention for Copy: bytes read + bytes written (2 x the array) per second, GB = 1e9 bytes.
 * The last line, "host_mem_gbps X", is what `nvscale model --calibrate RUN.json --host-mem-gbps X` takes: NCCL's
 * SHM transport stores every byte into host memory and loads it back, so N SHM flows at busbw B move 2 N B of
 * DRAM traffic, which cannot exceed this (docs/model.md, "Host budget").
 * Defaults: all online CPUs, 256 MiB per thread (far above any last-level cache), 10 repeats. Exit 0 ok, 1 on
 * a failed allocation or thread, 2 on a bad flag. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 4096

typedef struct {
    pthread_barrier_t *bar;
    size_t n;            /* doubles per array */
    int repeats;
    double *best;        /* per round: the slowest thread's time wins (written by thread 0) */
    double *t0;          /* round start, thread 0 */
    int id;
    int ok;
} worker;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *run(void *arg)
{
    worker *w = arg;
    double *a = malloc(w->n * sizeof *a), *b = malloc(w->n * sizeof *b);
    int ok = a && b;
    if (ok) /* first touch, by this thread: the pages land on its NUMA node */
        for (size_t i = 0; i < w->n; i++) {
            a[i] = (double)i;
            b[i] = 0;
        }
    for (int r = 0; r < w->repeats; r++) {
        pthread_barrier_wait(w->bar);
        if (w->id == 0) *w->t0 = now_s();
        pthread_barrier_wait(w->bar);
        if (ok) memcpy(b, a, w->n * sizeof *a);
        pthread_barrier_wait(w->bar);
        if (w->id == 0) {
            double t = now_s() - *w->t0;
            if (t < *w->best) *w->best = t;
        }
    }
    /* keep the copy observable */
    w->ok = ok && b[w->n - 1] == (double)(w->n - 1);
    free(a);
    free(b);
    return NULL;
}

static int parse_pos(const char *s, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < 1 || v > hi) return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    long threads = sysconf(_SC_NPROCESSORS_ONLN), mib = 256, repeats = 10;
    int c;
    while ((c = getopt(argc, argv, "t:s:r:h")) != -1) {
        long *slot = c == 't' ? &threads : c == 's' ? &mib : c == 'r' ? &repeats : NULL;
        long hi = c == 't' ? MAX_THREADS : c == 's' ? 65536 : 1000;
        if (c == 'h') {
            printf("usage: hostbw [-t THREADS] [-s MIB_PER_THREAD] [-r REPEATS]\n");
            return 0;
        }
        if (!slot || parse_pos(optarg, hi, slot)) {
            fprintf(stderr, "hostbw: -%c '%s': expected a whole number from 1 to %ld\n", c, slot ? optarg : "?",
                    hi);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "hostbw: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (threads < 1) threads = 1;
    size_t n = (size_t)mib * 1048576 / sizeof(double);
    pthread_barrier_t bar;
    if (pthread_barrier_init(&bar, NULL, (unsigned)threads)) {
        fprintf(stderr, "hostbw: pthread_barrier_init failed\n");
        return 1;
    }
    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    double best = 1e30, t0 = 0;
    if (!w || !tid) {
        fprintf(stderr, "hostbw: out of memory\n");
        return 1;
    }
    for (long i = 0; i < threads; i++) {
        w[i] = (worker){&bar, n, (int)repeats, &best, &t0, (int)i, 0};
        if (pthread_create(&tid[i], NULL, run, &w[i])) {
            fprintf(stderr, "hostbw: pthread_create failed at thread %ld\n", i);
            return 1; /* the others wait at the barrier: exit ends them */
        }
    }
    int ok = 1;
    for (long i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        ok &= w[i].ok;
    }
    pthread_barrier_destroy(&bar);
    free(w);
    free(tid);
    if (!ok) {
        fprintf(stderr, "hostbw: a thread could not allocate 2 x %ld MiB\n", mib);
        return 1;
    }
    double bytes = 2.0 * (double)n * sizeof(double) * threads; /* read + write, STREAM Copy */
    printf("hostbw: copy, %ld threads x %ld MiB, best of %ld: %.3f s, %.1f GB/s (read + write)\n", threads, mib,
           repeats, best, bytes / best / 1e9);
    printf("host_mem_gbps %.1f\n", bytes / best / 1e9);
    return 0;
}
