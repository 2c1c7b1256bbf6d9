/* A tiny unit-test harness (libuv-style): a list of named cases per file, asserts that print both values,
 * and "skipped" as its own result. Output is TAP, read by tests/run.sh.
 *
 *   static void t_sizes(void) { T_EQ_U(nvs_parse_size("1K", &v), 0); ... }
 *   T_LIST = { T_CASE(t_sizes), ... };
 *   T_MAIN
 */
#ifndef NVS_T_H
#define NVS_T_H

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct t_case {
    const char *name;
    void (*fn)(void);
};

static jmp_buf t_jmp;
static int t_failed_here;
static const char *t_skip_reason;

#define T_FAIL(...)                                                                                         \
    do {                                                                                                    \
        printf("#   %s:%d: ", __FILE__, __LINE__);                                                          \
        printf(__VA_ARGS__);                                                                                \
        printf("\n");                                                                                       \
        t_failed_here = 1;                                                                                  \
        longjmp(t_jmp, 1);                                                                                  \
    } while (0)

#define T_ASSERT(c)                                                                                         \
    do {                                                                                                    \
        if (!(c)) T_FAIL("assertion failed: %s", #c);                                                       \
    } while (0)
#define T_EQ_I(a, b)                                                                                        \
    do {                                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                                 \
        if (a_ != b_) T_FAIL("%s == %s: got %lld, expected %lld", #a, #b, a_, b_);                          \
    } while (0)
#define T_EQ_U(a, b)                                                                                        \
    do {                                                                                                    \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);                      \
        if (a_ != b_) T_FAIL("%s == %s: got %llu, expected %llu", #a, #b, a_, b_);                          \
    } while (0)
/* |a - b| <= tol */
#define T_NEAR(a, b, tol)                                                                                   \
    do {                                                                                                    \
        double a_ = (double)(a), b_ = (double)(b);                                                          \
        if (!(fabs(a_ - b_) <= (tol))) T_FAIL("%s ~ %s: got %.9g, expected %.9g (tol %g)", #a, #b, a_, b_, \
                                               (double)(tol));                                             \
    } while (0)
#define T_EQ_S(a, b)                                                                                        \
    do {                                                                                                    \
        const char *a_ = (a), *b_ = (b);                                                                    \
        if (!a_ || !b_ || strcmp(a_, b_)) T_FAIL("%s == %s: got \"%s\", expected \"%s\"", #a, #b,            \
                                                 a_ ? a_ : "(null)", b_ ? b_ : "(null)");                   \
    } while (0)
#define T_CONTAINS(hay, needle)                                                                             \
    do {                                                                                                    \
        const char *h_ = (hay), *n_ = (needle);                                                             \
        if (!h_ || !strstr(h_, n_)) T_FAIL("%s contains \"%s\": got \"%s\"", #hay, n_, h_ ? h_ : "(null)"); \
    } while (0)
#define T_SKIP(reason)                                                                                      \
    do {                                                                                                    \
        t_skip_reason = (reason);                                                                           \
        longjmp(t_jmp, 2);                                                                                  \
    } while (0)

/* The whole content of a stream (rewound first), malloc'd and NUL-terminated; "" when it cannot be read. */
static inline char *t_slurp(FILE *f)
{
    fflush(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) b[0] = '\0';
    return b;
}

/* `got` must equal tests/golden/NAME; NVS_UPDATE_GOLDEN=1 rewrites the file first (review the diff). */
#define T_GOLDEN(name, got)                                                                                 \
    do {                                                                                                    \
        char gp_[256];                                                                                      \
        snprintf(gp_, sizeof gp_, "tests/golden/%s", (name));                                               \
        if (getenv("NVS_UPDATE_GOLDEN")) {                                                                  \
            FILE *gw_ = fopen(gp_, "w");                                                                    \
            T_ASSERT(gw_ != NULL);                                                                          \
            fputs((got), gw_);                                                                              \
            fclose(gw_);                                                                                    \
        }                                                                                                   \
        FILE *gf_ = fopen(gp_, "r");                                                                        \
        if (!gf_) T_FAIL("missing golden file %s (run with NVS_UPDATE_GOLDEN=1 once, then review it)", gp_); \
        char *gwant_ = t_slurp(gf_);                                                                        \
        fclose(gf_);                                                                                        \
        const char *ga_ = gwant_, *gb_ = (got);                                                             \
        int gl_ = 1;                                                                                        \
        while (*ga_ && *ga_ == *gb_) {                                                                      \
            if (*ga_ == '\n') gl_++;                                                                        \
            ga_++;                                                                                          \
            gb_++;                                                                                          \
        }                                                                                                   \
        if (*ga_ || *gb_) T_FAIL("%s differs at line %d: want \"%.60s\", got \"%.60s\"", gp_, gl_, ga_, gb_); \
        free(gwant_);                                                                                       \
    } while (0)

#define T_CASE(f) {#f, f}
#define T_LIST static const struct t_case t_cases[]
#define T_MAIN                                                                                              \
    int main(void)                                                                                          \
    {                                                                                                       \
        /* static: setjmp/longjmp may not keep automatic variables */                                     \
        static int n, failed, i;                                                                            \
        n = (int)(sizeof t_cases / sizeof t_cases[0]);                                                      \
        failed = 0;                                                                                         \
        printf("1..%d\n", n);                                                                               \
        for (i = 0; i < n; i++) {                                                                           \
            t_failed_here = 0;                                                                              \
            t_skip_reason = NULL;                                                                           \
            int how = setjmp(t_jmp);                                                                        \
            if (how == 0) t_cases[i].fn();                                                                  \
            if (how == 2)                                                                                   \
                printf("ok %d - %s # SKIP %s\n", i + 1, t_cases[i].name, t_skip_reason);                   \
            else if (t_failed_here) {                                                                       \
                printf("not ok %d - %s\n", i + 1, t_cases[i].name);                                         \
                failed++;                                                                                   \
            } else                                                                                          \
                printf("ok %d - %s\n", i + 1, t_cases[i].name);                                             \
        }                                                                                                   \
        return failed ? 1 : 0;                                                                              \
    }

#endif
