/* What the kernel benchmarks in tools/ (biasgrad, viewbench, lnbench) share: a CUDA or nvscale call that fails ends
 * the run, naming the program, the call and its code (exit 1; bad arguments exit 2 in each tool's usage). */
#ifndef NVS_TOOLS_BENCH_H
#define NVS_TOOLS_BENCH_H

#include <stdio.h>
#include <stdlib.h>

#define BENCH_TRY(prog, call)                                                                               \
    do {                                                                                                    \
        int e_ = (int)(call);                                                                               \
        if (e_ != 0) {                                                                                      \
            fprintf(stderr, "%s: %s: error %d\n", prog, #call, e_);                                         \
            exit(1);                                                                                        \
        }                                                                                                   \
    } while (0)

#endif
