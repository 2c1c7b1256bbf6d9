/* PRIVATE to src/cli/: what the files of the measuring subcommands' options share (core/config.h has
 * nvs_config_parse; cli_common.h the excludes and the test hooks that other parsers use too); no other folder
 * includes this header.
 *   options.c          the option table (one row per option: its subcommands, its --help text), the defaults, --help
 *   options_parse.c    the parse loop: getopt over the table, an option given twice or of another subcommand, an
 *                      unknown option, and the order of the rest
 *   options_values.c   value validators: the refusal's words, integer ranges, sizes, name lists, GPU counts
 *   options_sweep.c    the values of the collective sweep's flags (nccl-tests' flags)
 *   options_train.c    the values of the training step's flags
 *   options_general.c  the values of the other flags: scaling and placement, topology and copies, process and output
 *   options_checks.c   the checks across options: the excludes[] table, and the pairs whose values decide
 *   options_env.c      the test hooks' environment variables (NVS_TEST_*) */
#ifndef NVS_OPTIONS_PRIV_H
#define NVS_OPTIONS_PRIV_H

#include <getopt.h>
#include <stddef.h>

#include "core/config.h"
#include "core/err.h"

enum {
    OPT_COLL = 1000, OPT_BACKEND, OPT_GPUS, OPT_PLACEMENT, OPT_TIMEOUT, OPT_FORMAT, OPT_OUT, OPT_NO_SAVE,
    OPT_INPLACE, OPT_MODEL, OPT_BATCH, OPT_PRECISION, OPT_GRAD, OPT_BFIRST, OPT_BCAP, OPT_STEPS, OPT_WSTEPS, OPT_ROUNDS,
    OPT_XML, OPT_COPY_BYTES, OPT_COPY_ITERS, OPT_NO_NCCL_LOG, OPT_NO_TRAIN, OPT_FRAMEWORK, OPT_OPTIMIZER, OPT_EMULATE,
    OPT_HOST, OPT_CUDNN, OPT_ALLOC,
};

/* Which subcommands take an option: each lists only its own in --help and refuses the others by name. */
enum { S_RUN = 1 << 0, S_COLL = 1 << 1, S_TRAIN = 1 << 2, S_TOPO = 1 << 3, S_P2P = 1 << 4 };
#define S_MEASURE (S_RUN | S_COLL | S_TRAIN)
#define S_ALL (S_MEASURE | S_TOPO | S_P2P)

typedef struct {
    const char *name; /* long name */
    int key;          /* short letter or OPT_* */
    int has_arg;
    unsigned subs;    /* S_* mask */
    const char *group;
    const char *arg;  /* the value's placeholder in --help ("" for flags without one) */
    const char *help; /* continuation lines start with \n and are indented by the printer */
} opt_spec;

/* options.c: the table (its rows: NSPECS, checked there), the subcommand's S_* bit, an option's subcommands */
#define NSPECS 48
extern const opt_spec nvs_opt_specs[NSPECS];
unsigned nvs_opt_sub_mask(const char *sub);
void nvs_opt_owners(unsigned subs, char *buf, size_t len);

/* One parse: the config it fills, the subcommand that refuses (SUB, the one typed), and what the checks across
 * the sweep's flags need once every flag is read. */
typedef struct {
    nvs_config *c;
    const char *sub;
    int have_f, have_i; /* -f: 1 a factor above 1, -1 nccl-tests' -f 1 (no factor); -i given */
    char flag_f1[64];   /* -f as typed (-f or --stepfactor) */
    /* -b and -e as typed (argv outlives the parse), for the message of an inverted range */
    const char *b_typed, *e_typed;
    char flag_b[64], flag_e[64];
} nvs_opt_parse;

/* options_sweep.c, options_train.c, options_general.c: the value A of option OPT (typed as FLAG) into ps->c.
 * NVS_OK, NVS_ERR_USAGE after one message, or NVS_OPT_NOT_MINE for an option of another file. */
#define NVS_OPT_NOT_MINE (-1)
int nvs_opt_sweep(nvs_opt_parse *ps, int opt, const char *flag, const char *a);
int nvs_opt_train(nvs_opt_parse *ps, int opt, const char *flag, const char *a);
int nvs_opt_general(nvs_opt_parse *ps, int opt, const char *flag, const char *a);

/* options_values.c */
nvs_result_t nvs_opt_bad(const char *sub, const char *flag, const char *value, const char *why);
int nvs_opt_int_range(const char *s, long lo, long hi, int *out);
int nvs_opt_mask(const char *s, int (*lookup)(const char *), int count, unsigned *mask, const char *what, char *badp,
                 size_t bl);
int nvs_opt_gpu_counts(const char *s, nvs_config *c, char *why, size_t wl);
nvs_result_t nvs_opt_size(const char *sub, const char *flag, const char *a, size_t lo, size_t *out,
                          const char *expect);

/* options_checks.c: once every flag is read; GIVEN: by index in nvs_opt_specs, LONG_OPTS: getopt's table */
nvs_result_t nvs_opt_cross_checks(nvs_opt_parse *ps, const struct option *long_opts, const unsigned char *given);

/* options_env.c: the test hooks' variables, refused as SUB's */
nvs_result_t nvs_opt_test_hooks_env(nvs_config *c, const char *sub);

#endif
