/* PRIVATE to src/workload/: what the files of the profile parser share; no other folder includes this header
 * (workload/profile.h is the parser's interface).
 *   profile.c         the format's directives, one pass over the lines, the whole profile's checks; nvs_profile_free
 *   profile_values.c  numbers, lists, names and the split of a line into tokens, each refused with its line
 *   profile_layer.c   a `layer` line: its keys, and the checks between them (conv2d, bn, ln)
 *   profile_load.c    a name or a path: the built-in profiles, or the file read whole */
#ifndef NVS_PROFILE_PRIV_H
#define NVS_PROFILE_PRIV_H

#include <stddef.h>

#include "core/err.h"
#include "core/units.h"
#include "workload/profile.h"

#define PROFILE_MAGIC "nvscale-profile"
#define PROFILE_VERSION "1"
#define MAX_LINE NVS_LINE_MAX /* characters per line (core/units.h): a layer line is < 200 */
/* "layer NAME" + at most 13 of the 15 keys (LAYER_KEYS: bn and ln each exclude gemm and each other), with room for
 * one more, so that a 14th key gets its own precise refusal (e.g. "bn= with gemm") before "too many fields" */
#define MAX_TOKENS 16
#define MAX_DEPTH 8        /* repeat nesting: transformer stacks need 1-2 */
#define MAX_REPEAT 100000L /* repeat count */
#define MAX_BATCH 1000000L
/* Whole numbers stay exact in a double up to 2^53 ~ 9.0e15; 1e15 elements is far beyond any real layer. */
#define MAX_COUNT 1e15
/* cuBLAS takes int dimensions. */
#define MAX_GEMM_DIM 2147483647.0
/* Memory-bound passes per layer: real layers have 0-10. */
#define MAX_EW 1000.0
/* framework operations, casts or parameter tensors of one layer: a transformer block, the largest layer
 * group a profile line stands for, has tens */
#define MAX_OPS 10000.0
#define LAYER_KEYS "params, gemm, act, ew, ew32, ewb, perm, bn, ln, nograd, conv, conv2d, ops, casts, tensors"
/* conv2d: a filter of at most 64 x 64 pixels, stride at most 64, an input of at most 2^20 pixels a side
 * (real networks: filters 1-11, strides 1-4, inputs up to a few thousand pixels) */
#define MAX_GEOM_WIN 64.0
#define MAX_GEOM_SIDE 1048576.0

struct frame {
    int start; /* index of the block's first layer */
    long count;
    int line; /* line of the `repeat` */
};

struct parser {
    const char *origin;
    int line;
    char *err;
    size_t errlen;
    nvs_profile *p;
    int cap;
    struct frame stack[MAX_DEPTH];
    int depth;
    int have_header, have_name, have_source, have_sample, have_batch, have_dp;
};

/* profile.c: "ORIGIN:LINE: " and the message in the caller's buffer, NVS_ERR_INPUT */
nvs_result_t nvs_prof_fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the message alone (no line: the file as a whole), where there is a buffer */
void nvs_prof_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* room for WANT layers in all, at most NVS_PROFILE_MAX_LAYERS */
nvs_result_t nvs_prof_reserve(struct parser *ps, long long want);

/* profile_values.c: 0, or -1 with the message set */
int nvs_prof_number(struct parser *ps, const char *key, const char *s, double *out);
int nvs_prof_count(struct parser *ps, const char *key, const char *s, double lo, double hi, double *out);
int nvs_prof_list(struct parser *ps, const char *key, const char *val, const char *const *which, const char *names,
                  int n, double lo, double hi, double *out);
int nvs_prof_int(struct parser *ps, const char *what, const char *s, long lo, long hi, long *out);
int nvs_prof_tokenize(struct parser *ps, char *line, char **tok, int *quoted, int *ntok);
int nvs_prof_name(struct parser *ps, const char *what, const char *s, size_t cap, int strict);

/* profile_layer.c: a `layer NAME key=value ...` line, appended to ps->p */
nvs_result_t nvs_prof_layer(struct parser *ps, char **tok, const int *quoted, int ntok);

#endif
