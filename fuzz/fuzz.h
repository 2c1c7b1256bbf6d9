/* What every fuzz harness of fuzz/ shares (fuzz/README.md).
 *
 * A harness is one function, NVS_FUZZ_TARGET(name), that feeds one input to one parser and to the code that
 * uses its result; it must never crash, leak, hang or read out of bounds, whatever the bytes (ASan and UBSan
 * are on in both builds below). Built two ways:
 *   make fuzz         clang -fsanitize=fuzzer: the function is LLVMFuzzerTestOneInput, libFuzzer drives it
 *   make check        tests/unit/test_fuzz_corpus.c includes every harness with NVS_FUZZ_REPLAY defined: the
 *                     function is nvs_fuzz_<name>, fed every file of fuzz/corpus/<name>/ (every crash found
 *                     becomes a file there) and the seeds of tests/fixtures, under the unit tests' sanitizers */
#ifndef NVS_FUZZ_H
#define NVS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

#ifdef NVS_FUZZ_REPLAY
#define NVS_FUZZ_TARGET(name) int nvs_fuzz_##name(const uint8_t *data, size_t size)
#else
#define NVS_FUZZ_TARGET(name)                                                                               \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                                           \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#endif

/* The input as a NUL-terminated string (a parser of text files stops at a NUL as the file readers do: they
 * refuse files holding one). malloc'd; NULL when out of memory. */
static inline char *nvs_fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return NULL;
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Where the printers write: nowhere, but through a real FILE (their fprintf and escaping run). Opened once. */
static inline FILE *nvs_fuzz_sink(void)
{
    static FILE *f;
    if (!f) {
        f = fopen("/dev/null", "w");
        nvs_log_set_level(-1); /* the parsers' messages are what they must produce, not output to read */
    }
    return f;
}

/* hwloc loads its XML reader (the libxml2 plug-in) for each topology and unloads it after: what leaks in there
 * then has a stack without a module name, which no suppression (tests/lsan.supp) can match. Held open with
 * RTLD_NODELETE, the plug-ins stay loaded and named. Called once by the hwloc harness and its replay. */
#include <dlfcn.h>
#include <glob.h>

static inline void nvs_fuzz_hold_hwloc_plugins(void)
{
    static int done;
    if (done++) return;
    glob_t g;
    if (glob("/usr/lib{,64,/*}/hwloc/hwloc_*.so", GLOB_BRACE, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) dlopen(g.gl_pathv[i], RTLD_NOW | RTLD_NODELETE);
        globfree(&g);
    }
}

#endif
