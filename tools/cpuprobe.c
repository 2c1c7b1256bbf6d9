/* cpuprobe: how fast this CPU runs nvscale's unit of host work, sample after sample (no GPU).
 *
 *   make cpuprobe && build/cpuprobe [-m MS] [-n SAMPLES] [-s]
 *
 * Each sample times MS milliseconds of nvs_cpu_work (src/core/cpu_work.c: the pointer walk `nvscale train
 * --framework pytorch-ddp` uses for a framework's per-kernel host cost) and prints "t_ms rate" with the rate in
 * work units per microsecond. Issue 9's question is whether a host-bound step (PyTorch eager at bf16) moves
 * with the CPU's speed, and what moves that speed on a VM: run it pinned (taskset -c) beside a spinning
 * process on each other vCPU to find the vCPUs that share a core, or alone for minutes to see drift.
 * -s spins instead (a plain busy loop, no output) until killed: the load for such a sweep.
 * Defaults: 200 ms, 10 samples. Exit 0, or 2 on a bad flag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/cpu_work.h"

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

int main(int argc, char **argv)
{
    double ms = 200, n = 10;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s")) {
            volatile unsigned sink = 0;
            for (;;) sink += nvs_cpu_work(1e6);
        } else if (!strcmp(argv[i], "-m") || !strcmp(argv[i], "-n")) {
            double *dst = argv[i][1] == 'm' ? &ms : &n;
            if (number(argv[i], i + 1 < argc ? argv[i + 1] : NULL, 1, argv[i][1] == 'm' ? 60000 : 1e6, dst)) return 2;
            i++;
        } else {
            fprintf(stderr, "cpuprobe: unknown option '%s' (usage: cpuprobe [-m MS] [-n SAMPLES] [-s])\n", argv[i]);
            return 2;
        }
    }
    double t0 = nvs_now_us();
    for (long k = 0; k < (long)n; k++) {
        double r = nvs_cpu_work_calibrate(ms);
        printf("%.1f %.2f\n", (nvs_now_us() - t0) / 1e3, r);
        fflush(stdout);
    }
    return 0;
}
