/* nvscale result codes and checking macros.
 *
 * Every function that can fail returns nvs_result_t (0 = NVS_OK). The list is an X-macro so that the enum and
 * its printable names cannot drift apart. Process exit codes are separate (see nvs_exit_code()):
 * 0 ok, 1 runtime error, 2 usage/input error, 3 check failed (wrong data or below a threshold). */
#ifndef NVS_ERR_H
#define NVS_ERR_H

#define NVS_RESULTS(X)                                                                                      \
    X(NVS_OK, "ok")                                                                                         \
    X(NVS_ERR_USAGE, "usage error")                 /* bad flag, value, file content: exit 2 */            \
    X(NVS_ERR_INPUT, "invalid input")               /* bad input file (run.json, rules, profile): exit 2 */ \
    X(NVS_ERR_SYSTEM, "system error")               /* libc/OS call failed */                              \
    X(NVS_ERR_NOMEM, "out of memory")                                                                       \
    X(NVS_ERR_CUDA, "CUDA error")                                                                           \
    X(NVS_ERR_NCCL, "NCCL error")                                                                           \
    X(NVS_ERR_MPI, "MPI error")                                                                             \
    X(NVS_ERR_HWLOC, "hwloc error")                                                                         \
    X(NVS_ERR_CUBLAS, "cuBLAS error")                                                                       \
    X(NVS_ERR_CUDNN, "cuDNN error")                                                                         \
    X(NVS_ERR_UNSUPPORTED, "unsupported")           /* feature absent here: shown, never silently zero */  \
    X(NVS_ERR_TIMEOUT, "timed out")                                                                         \
    X(NVS_ERR_WRONG, "wrong results")               /* validation failed: exit 3 */                        \
    X(NVS_ERR_CHECK, "check failed")                /* acceptance threshold missed: exit 3 */              \
    X(NVS_ERR_ABORTED, "aborted by another rank")                                                         \
    X(NVS_ERR_INTERRUPTED, "interrupted by a signal") /* SIGINT/SIGTERM/SIGHUP: what was measured is kept; exit 130 */

typedef enum {
#define NVS_X_ENUM(name, text) name,
    NVS_RESULTS(NVS_X_ENUM)
#undef NVS_X_ENUM
        NVS_RESULT_COUNT
} nvs_result_t;

const char *nvs_result_name(nvs_result_t r); /* "NVS_ERR_CUDA" */
const char *nvs_result_text(nvs_result_t r); /* "CUDA error" */
int nvs_exit_code(nvs_result_t r);           /* 0 / 1 / 2 / 3 as above */
/* For agreeing on one result among ranks: a runtime error (exit 1) outranks wrong data (3), which outranks a
 * usage error (2), which outranks success. */
int nvs_result_severity(nvs_result_t r);

/* Propagate a failure: the callee has already logged what failed. */
#define NVS_CHECK(expr)                                                                                     \
    do {                                                                                                    \
        nvs_result_t nvs_r_ = (expr);                                                                       \
        if (nvs_r_ != NVS_OK) return nvs_r_;                                                                \
    } while (0)

/* Same, for functions with one cleanup label: sets `res` and jumps. */
#define NVS_CHECK_GOTO(expr, res, label)                                                                    \
    do {                                                                                                    \
        (res) = (expr);                                                                                     \
        if ((res) != NVS_OK) goto label;                                                                    \
    } while (0)

#endif
