/* cpuprobe: how fast this CPU runs nvscale's unit of host work, sample after sample (no GPU).
 *
 *   make cpuprobe && build/cpuprobe [-m MS] [-n SAMPLES] [-w MIB | -i] [-s]
 *
 * Each sample times MS milliseconds of nvs_cpu_work (src/core/cpu_work.c: the pointer walk `nvscale train
 * --framework pytorch-ddp` uses for a framework's per-kernel host cost, a 64 KiB table that stays in L1/L2) and
 * prints "UNIX_TIME_S RATE", the rate in work units per microsecond, the time when the sample ended. With -w MIB
 * the walk is instead a random cycle through MIB mebibytes (dependent loads that miss the caches when MIB is
 * larger than the last-level cache): the rate is then loads per microsecond, i.e. the memory latency an
 * interpreter's scattered objects see. With -i it is interpreter-like work instead: a dispatch loop over a random
 * program of 4096 one-byte opcodes (an unpredictable branch per operation, as a bytecode interpreter's) whose
 * operations do integer arithmetic and stores and loads in a 512-entry hash table (as Python's dict work does);
 * the rate is operations per microsecond. Issue 9's question is whether a host-bound step (PyTorch eager at
 * bf16) moves with the CPU's speed, and what moves that speed on a VM: run it pinned (taskset -c) beside a
 * spinning process on each other vCPU to find the vCPUs that share a core, or alone for minutes to see drift.
 * -s spins instead (a plain busy loop, no output) until killed: the load for such a sweep.
 * Defaults: 200 ms, 10 samples. Exit 0, 1 if the -w buffer cannot be allocated, 2 on a bad flag.
 * Built with -DCPUPROBE_LIB (make build/libcpuprobe.so) there is no main: cpuprobe_sample(KIND, MS) returns one
 * sample (kind 0 the work unit, 1 interpreter-like, 2 a 512 MiB walk), for a Python script to interleave with its
 * own interpreter probe on one thread (tools/device/probe_compare.py). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/cpu_work.h"

#ifndef CPUPROBE_LIB
static int number(const char *flag, const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || !(v >= lo && v <= hi)) {
        fprintf(stderr, "cpuprobe: %s '%s': expected a number in [%g, %g]\n", flag, s ? s : "", lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}
#endif

/* a random single cycle through n slots (Sattolo's algorithm), so every load depends on the previous one */
static size_t *cycle_new(size_t n)
{
    size_t *a = malloc(n * sizeof *a);
    if (!a) return NULL;
    for (size_t i = 0; i < n; i++) a[i] = i;
    unsigned long long s = 88172645463325252ull;
    for (size_t i = n - 1; i > 0; i--) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        size_t j = (size_t)(s % i), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    return a;
}

static double cycle_rate(const size_t *a, double ms)
{
    static size_t at;
    double t0 = nvs_now_us(), t, loads = 0;
    do {
        for (int k = 0; k < 4096; k++) at = a[at];
        loads += 4096;
        t = nvs_now_us();
    } while (t - t0 < ms * 1e3);
    return loads / (t - t0);
}

/* interpreter-like work: see the header comment */
static double interp_rate(double ms)
{
    static uint8_t prog[4096];
    static uint32_t tab[512];
    static int ready;
    if (!ready) {
        uint32_t s = 2463534242u;
        for (size_t i = 0; i < sizeof prog; i++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            prog[i] = (uint8_t)(s % 6);
        }
        ready = 1;
    }
    static uint32_t acc = 1;
    double t0 = nvs_now_us(), t, ops = 0;
    do {
        for (size_t pc = 0; pc < sizeof prog; pc++) {
            switch (prog[pc]) {
            case 0: acc += (uint32_t)pc; break;
            case 1: acc ^= acc >> 3; break;
            case 2: tab[(acc * 2654435761u) >> 23] = acc; break;
            case 3: acc += tab[acc & 511]; break;
            case 4: acc = acc * 33 + 7; break;
            default: tab[pc & 511] ^= acc; break;
            }
        }
        ops += (double)sizeof prog;
        t = nvs_now_us();
    } while (t - t0 < ms * 1e3);
    return ops / (t - t0);
}

double cpuprobe_sample(int kind, double ms);
double cpuprobe_sample(int kind, double ms)
{
    static size_t *big;
    if (kind == 1) return interp_rate(ms);
    if (kind == 2) {
        if (!big && !(big = cycle_new((size_t)512 * 1048576 / sizeof *big))) return -1;
        return cycle_rate(big, ms);
    }
    return nvs_cpu_work_calibrate(ms);
}

#ifndef CPUPROBE_LIB
static double unix_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double ms = 200, n = 10, mib = 0;
    int interp = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s")) {
            volatile unsigned sink = 0;
            for (;;) sink += nvs_cpu_work(1e6);
        } else if (!strcmp(argv[i], "-i")) {
            interp = 1;
        } else if (!strcmp(argv[i], "-m") || !strcmp(argv[i], "-n") || !strcmp(argv[i], "-w")) {
            char f = argv[i][1];
            double *dst = f == 'm' ? &ms : f == 'n' ? &n : &mib;
            double hi = f == 'm' ? 60000 : f == 'n' ? 1e6 : 65536;
            if (number(argv[i], i + 1 < argc ? argv[i + 1] : NULL, 1, hi, dst)) return 2;
            i++;
        } else {
            fprintf(stderr, "cpuprobe: unknown option '%s' (usage: cpuprobe [-m MS] [-n SAMPLES] [-w MIB | -i] "
                            "[-s])\n", argv[i]);
            return 2;
        }
    }
    if (interp && mib > 0) {
        fprintf(stderr, "cpuprobe: -i and -w: choose one kind of work\n");
        return 2;
    }
    size_t *big = NULL;
    if (mib > 0 && !(big = cycle_new((size_t)(mib * 1048576.0) / sizeof *big))) {
        fprintf(stderr, "cpuprobe: -w %g: cannot allocate %g MiB\n", mib, mib);
        return 1;
    }
    for (long k = 0; k < (long)n; k++) {
        double r = big ? cycle_rate(big, ms) : interp ? interp_rate(ms) : nvs_cpu_work_calibrate(ms);
        printf("%.3f %.3f\n", unix_now(), r);
        fflush(stdout);
    }
    free(big);
    return 0;
}
#endif
