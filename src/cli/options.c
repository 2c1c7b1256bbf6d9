#include "core/config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli/cli_common.h"
#include "cli/nccl_tests_flags.h"
#include "collectives/coll.h"
#include "core/dtype.h"
#include "core/launch_env.h"
#include "core/metrics.h"
#include "core/out_file.h"
#include "core/units.h"
#include "run/phases.h"
#include "train/conv.h"
#include "workload/framework.h"
#include "workload/optimizer.h"
#include "workload/profile.h"

void nvs_config_defaults(nvs_config *c)
{
    memset(c, 0, sizeof *c);
    c->min_bytes = 8;
    c->max_bytes = (size_t)1 << 30; /* issue 2: default sweep 8 B .. 1 GiB */
    c->step_factor = 2.0;
    c->iters = 0; /* automatic */
    c->warmup = 5; /* nvscale's own default; nccl-tests 2.19.6 warms up once (-w 1 matches it) */
    c->check = 1;
    c->types_mask = 1u << NVS_FLOAT;
    c->ops_mask = 1u << NVS_SUM;
    c->inplace_mask = NVS_INPLACE_OUT | NVS_INPLACE_IN;
    c->colls_mask = (1u << nvs_coll_index(&nvs_coll_all_reduce)) | (1u << nvs_coll_index(&nvs_coll_broadcast));
    c->placement = NVS_PLACE_FIRST;
    c->precision = NVS_PREC_FP32;
    /* PyTorch DDP defaults: bucket_cap_mb=25 and dist._DEFAULT_FIRST_BUCKET_BYTES = 1 MiB */
    c->bucket_first_bytes = (size_t)1 << 20;
    c->bucket_cap_bytes = (size_t)25 << 20;
    c->steps = 20;
    c->warmup_steps = 5;
    c->rounds = 1;
    c->copy_bytes = (size_t)256 << 20;
    c->copy_iters = 20;
    c->health_sample_ms = 100; /* 10 readings a second: short throttling episodes still show */
    c->timeout_s = 300;
    c->save = 1;
    c->nccl_log = 1;
    c->stall_rank = -1;
    c->corrupt_rank = -1;
    c->train_fail_rank = -1;
    c->agg_iters = 1;
    snprintf(c->framework, sizeof c->framework, "%s", nvs_framework_default()->name);
    c->time_basis = 3; /* the slowest rank: a collective is done when its last rank is */
}

enum {
    OPT_COLL = 1000, OPT_BACKEND, OPT_GPUS, OPT_PLACEMENT, OPT_TIMEOUT, OPT_FORMAT, OPT_OUT, OPT_NO_SAVE,
    OPT_INPLACE, OPT_MODEL, OPT_BATCH, OPT_PRECISION, OPT_GRAD, OPT_BFIRST, OPT_BCAP, OPT_STEPS, OPT_WSTEPS, OPT_ROUNDS,
    OPT_XML, OPT_COPY_BYTES, OPT_COPY_ITERS, OPT_NO_NCCL_LOG, OPT_NO_TRAIN, OPT_FRAMEWORK, OPT_OPTIMIZER, OPT_EMULATE, OPT_HOST,
    OPT_CUDNN, OPT_ALLOC,
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

/* The table: one row per option, in the order --help lists them. nccl-tests' short flags keep their meaning
 * (nccl-tests README, "Arguments"); -g and -t exist only to say how nvscale does the same. */
static const opt_spec specs[] = {
    {"minbytes", 'b', 1, S_RUN | S_COLL, "collective sweep (nccl-tests flags)", "SIZE", "smallest size (default 8; K/M/G are powers of 1024)"},
    {"maxbytes", 'e', 1, S_RUN | S_COLL, NULL, "SIZE", "largest size (default 1G; 16M on the host backend's default run)"},
    {"stepfactor", 'f', 1, S_RUN | S_COLL, NULL, "X", "multiply the size by X each step (default 2; 4 on the host\n"
                                                "backend's default run; 1 with -i: none)"},
    {"stepbytes", 'i', 1, S_RUN | S_COLL, NULL, "SIZE", "add SIZE each step instead of -f"},
    {"iters", 'n', 1, S_RUN | S_COLL, NULL, "N|auto", "timed iterations per size (default auto: about 20 ms, 20..1000)"},
    {"warmup_iters", 'w', 1, S_RUN | S_COLL, NULL, "N", "warm-up iterations (default 5)"},
    {"agg_iters", 'm', 1, S_RUN | S_COLL, NULL, "N", "operations aggregated in one NCCL group per iteration (default 1)"},
    {"check", 'c', 1, S_RUN | S_COLL, NULL, "0|1", "validate every configuration (default 1)"},
    {"cudagraph", 'G', 1, S_RUN | S_COLL, NULL, "N", "launch the timed loop as a CUDA graph, N times (default 0: off)"},
    {"average", 'a', 1, S_RUN | S_COLL, NULL, "0|1|2|3", "time the bandwidths use: 0 rank 0, 1 mean, 2 fastest, 3 slowest\n"
                                                "rank (default 3: a collective ends when its last rank does)"},
    {"blocking", 'z', 1, S_RUN | S_COLL, NULL, "0|1|2", "wait for each operation before launching the next, as\n"
                                                "nccl-tests: 1 then a host barrier of every rank, 2 no barrier (default 0)"},
    {"datatype", 'd', 1, S_RUN | S_COLL, NULL, "LIST",
     "int8,uint8,int32,uint32,int64,uint64,half,float,double,bfloat16 or all (default float)"},
    {"op", 'o', 1, S_RUN | S_COLL, NULL, "LIST", "sum,prod,max,min,avg or all (default sum)"},
    {"root", 'r', 1, S_RUN | S_COLL, NULL, "R", "root of broadcast and reduce (default 0)"},
    {"coll", OPT_COLL, 1, S_RUN | S_COLL, NULL, "LIST", "all_reduce,broadcast,reduce,all_gather,reduce_scatter,alltoall,\n"
                                                 "sendrecv or all (default all_reduce,broadcast)"},
    {"inplace", OPT_INPLACE, 1, S_RUN | S_COLL, NULL, "out|in|both", "out-of-place, in-place or both (default both)"},
    {"alloc", OPT_ALLOC, 1, S_RUN | S_COLL, NULL, "cuda|nccl", "the sweep's GPU buffers from cudaMalloc (default) or ncclMemAlloc,\n"
                                               "as nccl-tests >= 2.19 allocates its own (NCCL backend only)"},
    {"ngpus", 'g', 1, S_RUN | S_COLL, NULL, "1", "GPUs per process: always 1 (mpirun -np N, or plain nvscale: a thread\n"
                                              "per GPU)"},
    {"nthreads", 't', 1, S_RUN | S_COLL, NULL, "1", "threads per process: 1 under mpirun; without a launcher nvscale\n"
                                                 "runs one thread per visible GPU by itself"},
    {"gpus", OPT_GPUS, 1, S_MEASURE, "scaling and placement", "LIST", "GPU counts to measure, e.g. 1,2,4,8 (default 1,2,4,.. up to all;\n"
                                                                       "coll: the world size only, as nccl-tests)"},
    {"placement", OPT_PLACEMENT, 1, S_MEASURE, NULL, "first|best|worst", "which GPUs make up each count (default first)"},
    {"model", OPT_MODEL, 1, S_RUN | S_TRAIN, "training step", "NAME|FILE[,..]", "resnet50 ssd300 maskrcnn maskrcnn-nvidia bert-large\n"
                                                             "bert-large-mlm128 bert-large-squad transformer-xl-large\n"
                                                             "gpt2-xl, or a profile file; several, comma-separated (train:\n"
                                                             "required; run's default: bert-large,resnet50 on GPUs,\n"
                                                             "resnet50 on the host)"},
    {"batch", OPT_BATCH, 1, S_RUN | S_TRAIN, NULL, "N", "samples per GPU (default: each profile's; 1 on the host backend)"},
    {"precision", OPT_PRECISION, 1, S_RUN | S_TRAIN, NULL, "fp32|tf32|bf16|fp16", "GEMM precision; fp16 = autocast with a gradient scaler (default bf16\n"
                                                         "on GPUs, fp32 on the host)"},
    {"grad-type", OPT_GRAD, 1, S_RUN | S_TRAIN, NULL, "fp32|bf16", "gradient (all-reduce) type (default fp32)"},
    {"bucket-first", OPT_BFIRST, 1, S_RUN | S_TRAIN, NULL, "SIZE", "first gradient bucket (default 1M, PyTorch DDP's)"},
    {"bucket-cap", OPT_BCAP, 1, S_RUN | S_TRAIN, NULL, "SIZE", "other buckets (default 25M, DDP's bucket_cap_mb); alone, the first one too, as DDP 2.x does"},
    {"steps", OPT_STEPS, 1, S_RUN | S_TRAIN, NULL, "N", "timed steps (default 20; 3 on the host backend)"},
    {"warmup-steps", OPT_WSTEPS, 1, S_RUN | S_TRAIN, NULL, "N", "untimed steps first (default 5; 1 on the host backend)"},
    {"rounds", OPT_ROUNDS, 1, S_RUN | S_TRAIN, NULL, "R", "measure every N R times in turn (1, 2, .., 1, 2, ..); efficiency =\n"
                                                     "the median of each round's step(1)/step(N), with its range, so a\n"
                                                     "host whose speed drifts slows both sides of a ratio (default 1)"},
    {"framework", OPT_FRAMEWORK, 1, S_RUN | S_TRAIN, NULL, "pytorch-ddp|ideal", "what the framework adds to the hardware's step: PyTorch DDP's host\n"
                                                         "work per operation and per bucket, bucket copies, NCHW layout copies\n"
                                                         "around convolutions, autocast's weight casts and fp32 residual\n"
                                                         "stream at bf16/fp16, foreach optimizer passes (default), or none"},
    {"optimizer", OPT_OPTIMIZER, 1, S_RUN | S_TRAIN, NULL, "sgd|adamw|adamw-fused", "the update after the last all-reduce: sgd (default; momentum, one\n"
                                                         "fp32 state), adamw (two fp32 states, m and v; under pytorch-ddp\n"
                                                         "PyTorch's default foreach passes, 8 over the parameters, under\n"
                                                         "ideal one fused pass) or adamw-fused (one fused pass under any\n"
                                                         "framework: torch.optim.AdamW(fused=True)); run.json\n"
                                                         "train.optimizer_fused says which ran"},
    {"cudnn", OPT_CUDNN, 1, S_RUN | S_TRAIN, NULL, "auto|on|off", "run in cuDNN what PyTorch runs there: convolutions whose geometry\n"
                                                         "the profile gives, batch norms at fp32/fp16. auto (default):\n"
                                                         "when libcudnn.so.9 loads; on: or stop; off: implicit GEMMs, passes"},
    {"no-train", OPT_NO_TRAIN, 0, S_RUN, NULL, "", "no training step (run: collectives and topology only)"},
    {"hwloc-xml", OPT_XML, 1, S_TOPO, "topology and copies", "FILE", "read a saved hwloc XML instead of this machine: nothing\n"
                                                                         "runs (no --timeout, --emulate-nodes)"},
    {"copy-bytes", OPT_COPY_BYTES, 1, S_P2P, NULL, "SIZE", "bytes per copy (default 256M)"},
    {"copy-iters", OPT_COPY_ITERS, 1, S_P2P, NULL, "N", "copies per measurement (default 20)"},
    {"host", OPT_HOST, 0, S_P2P, NULL, "", "pinned host<->device copies of every GPU (each alone, all at once,\n"
                                           "from another NUMA node) instead of GPU pairs"},
    {"backend", OPT_BACKEND, 1, S_MEASURE, "process and output", "nccl|mpi", "GPU collectives (NCCL) or host-memory MPI collectives"},
    {"emulate-nodes", OPT_EMULATE, 1, S_ALL, NULL, "K", "split the ranks into K virtual hosts of consecutive ranks, as if on\n"
                                                  "K machines (NCCL talks NET between them; needs mpirun;\n"
                                                  "docs/multinode.md)"},
    {"timeout", OPT_TIMEOUT, 1, S_ALL, NULL, "S", "abort a collective or wait that stalls longer than S s (default 300)"},
    {"format", OPT_FORMAT, 1, S_ALL, NULL, "table|json|csv", "what stdout shows (default table)"},
    {"out", OPT_OUT, 1, S_ALL, NULL, "DIR", "result directory (default results/<date>-<time>-<subcommand>)"},
    {"no-save", OPT_NO_SAVE, 0, S_ALL, NULL, "", "write no result directory"},
    {"no-nccl-log", OPT_NO_NCCL_LOG, 0, S_MEASURE, NULL, "", "do not capture NCCL's INFO log (transport attribution)"},
    {"quiet", 'q', 0, S_ALL, NULL, "", "errors only, no progress"},
    {"verbose", 'v', 0, S_ALL, NULL, "", "more detail (run: every nccl-tests table too); twice: debug"},
    {"help", 'h', 0, S_ALL, NULL, "", "this list"},
};
#define NSPECS ((int)(sizeof specs / sizeof specs[0]))

/* Options that exclude each other: given together, the second would do nothing, silently. Refused naming both,
 * "A and B exclude each other: WHY", whatever their order, by nvs_cli_excludes_check: every parser that takes both
 * options of a row (nvs_config_parse, accept's) refuses the pair in these words. A row names each option as --help
 * shows it ("-q/--quiet"); the long name is what follows "--". tests/unit/test_cli_excludes.c gives every row's
 * pair to every subcommand that takes both, so a new row is tested without a new test. A pair that depends on the
 * values, not on the flags alone (-f 1 goes with -i, -f 2 does not), stays where its values are read. */
static const struct {
    const char *a, *b, *why;
} excludes[] = {
    /* --hwloc-xml reads a saved topology in the process itself (cmd_topo.c): no rank is launched, so what bounds or
     * shapes a live discovery has nothing to act on */
    {"--hwloc-xml", "--timeout", "--timeout bounds the waits of a live discovery's ranks; with --hwloc-xml nothing "
                                 "runs"},
    {"--hwloc-xml", "--emulate-nodes", "--emulate-nodes splits the ranks of a live run into virtual hosts; with "
                                       "--hwloc-xml nothing runs"},
    {"-q/--quiet", "-v/--verbose", "one says errors only, the other more detail"},
    {"--out", "--no-save", "--no-save writes no result directory for --out to name"},
};

const char *nvs_cli_exclude_row(size_t i, const char **b)
{
    if (i >= sizeof excludes / sizeof excludes[0]) return NULL;
    *b = excludes[i].b;
    return excludes[i].a;
}

/* The index in OPTS (getopt's table, ended by a NULL name) of the option that DISPLAY ("-q/--quiet") names; -1 when
 * this parser has none. */
static int opt_index(const struct option *opts, const char *display)
{
    const char *name = strstr(display, "--") + 2;
    for (int i = 0; opts[i].name; i++)
        if (!strcmp(opts[i].name, name)) return i;
    return -1;
}

int nvs_cli_excludes_check(const char *sub, const struct option *opts, const unsigned char *given)
{
    for (size_t x = 0; x < sizeof excludes / sizeof excludes[0]; x++) {
        int ia = opt_index(opts, excludes[x].a), ib = opt_index(opts, excludes[x].b);
        if (ia < 0 || ib < 0 || !given[ia] || !given[ib]) continue;
        return nvs_cli_exclude_refuse(sub, excludes[x].a, excludes[x].b, excludes[x].why);
    }
    return 0;
}

int nvs_cli_exclude_refuse(const char *sub, const char *a, const char *b, const char *why)
{
    return nvs_cli_usage(sub, "%s and %s exclude each other: %s", a, b, why);
}

static unsigned sub_mask(const char *sub)
{
    if (!sub || !strcmp(sub, "run")) return S_RUN;
    if (!strcmp(sub, "coll")) return S_COLL;
    if (!strcmp(sub, "train")) return S_TRAIN;
    if (!strcmp(sub, "topo")) return S_TOPO;
    if (!strcmp(sub, "p2p")) return S_P2P;
    return S_RUN;
}

/* The subcommands an option belongs to, for "--hwloc-xml is an option of: topo". */
static void owners(unsigned subs, char *buf, size_t len)
{
    static const char *const names[] = {"run", "coll", "train", "topo", "p2p"};
    buf[0] = '\0';
    for (int i = 0; i < 5; i++)
        if (subs & (1u << i)) snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", names[i]);
}

void nvs_config_usage(const char *sub, FILE *to)
{
    unsigned m = sub_mask(sub);
    /* train has no default workload (cmd_run.c refuses it without --model): its usage line names the flag */
    fprintf(to, "usage: nvscale %s%s [options]\n", sub ? sub : "run", m == S_TRAIN ? " --model NAME|FILE[,..]" : "");
    const char *group = NULL;
    for (int i = 0; i < NSPECS; i++) {
        if (specs[i].group) group = specs[i].group;
        if (!(specs[i].subs & m)) continue;
        if (group) {
            fprintf(to, "%s:\n", group);
            group = NULL;
        }
        char left[64];
        if (specs[i].key < 256)
            snprintf(left, sizeof left, "  -%c, --%s %s", specs[i].key, specs[i].name, specs[i].arg);
        else
            snprintf(left, sizeof left, "      --%s %s", specs[i].name, specs[i].arg);
        /* the text starts in column 30, or on the next line when the flag is wider */
        if (strlen(left) < 29)
            fprintf(to, "%-29s", left);
        else
            fprintf(to, "%s\n%29s", left, "");
        for (const char *p = specs[i].help; *p; p++) {
            fputc(*p, to);
            if (*p == '\n') fprintf(to, "%29s", "");
        }
        fputc('\n', to);
    }
}

static nvs_result_t bad(const char *sub, const char *flag, const char *value, const char *why)
{
    fprintf(nvs_stderr_cmdline(), "nvscale %s: invalid value '%s' for %s: %s\n", sub, value, flag, why);
    fprintf(nvs_stderr_cmdline(), "Try 'nvscale %s --help'.\n", sub);
    return NVS_ERR_USAGE;
}

static int parse_int_range(const char *s, long lo, long hi, int *out)
{
    long v;
    if (nvs_parse_long(s, &v) || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* Comma-separated names into a bit mask; "all" = every bit of `count`. -1 with *badp set to an unknown name;
 * -2 with *badp set to the reason when the list itself is malformed ("a,,b": core/units.h, one list splitter), names
 * one `what` twice (by itself or by an alias: -d float,fp32), or has "all" beside other items: each would be
 * measured once and the list's typo (all_reduce,all_reduce for all_reduce,all_gather?) go unseen, as --gpus,
 * --model and compare --transports refuse a repeat and 'all' with other transports. */
static int parse_mask(const char *s, int (*lookup)(const char *), int count, unsigned *mask, const char *what,
                      char *badp, size_t bl)
{
    if (!strcasecmp(s, "all")) {
        *mask = (1u << count) - 1;
        return 0;
    }
    char *copy, *items[64], err[160];
    int n = nvs_list_split(s, &copy, items, 64, err, sizeof err);
    if (n < 0) {
        free(copy);
        snprintf(badp, bl, "%s", err);
        return -2;
    }
    unsigned m = 0;
    for (int k = 0; k < n; k++) {
        int i = lookup(items[k]);
        if (i < 0 && !strcasecmp(items[k], "all")) {
            snprintf(badp, bl, "'all' stands alone: it is every %s", what);
            free(copy);
            return -2;
        }
        if (i < 0) {
            snprintf(badp, bl, "%s", items[k]);
            free(copy);
            return -1;
        }
        if (m & (1u << i)) {
            int j = 0; /* the earlier item naming it, for an alias */
            while (j < k && lookup(items[j]) != i) j++;
            if (!strcasecmp(items[j], items[k]))
                snprintf(badp, bl, "'%.40s' given twice (each %s once)", items[k], what);
            else
                snprintf(badp, bl, "'%.40s' given twice, the second time as '%.40s' (each %s once)", items[j], items[k],
                         what);
            free(copy);
            return -2;
        }
        m |= 1u << i;
    }
    free(copy);
    *mask = m;
    return 0;
}

static int lookup_coll(const char *s) { return nvs_coll_find(s) ? nvs_coll_index(nvs_coll_find(s)) : -1; }

/* The counts, smallest first: the scaling table and its reference (the first count) go up in N whatever order they
 * were typed in. A count given twice is refused, as a workload (--model) or a transport (compare --transports)
 * given twice: it would be measured once and the list's other typo (4,4 for 4,8?) go unseen. 0 ok; -1 with *why
 * set. */
static int parse_gpu_counts(const char *s, nvs_config *c, char *why, size_t wl)
{
    char *copy, *items[NVS_MAX_GPU_COUNTS];
    int n = nvs_list_split(s, &copy, items, NVS_MAX_GPU_COUNTS, why, wl);
    for (int k = 0; k < n; k++)
        if (parse_int_range(items[k], 1, 1 << 20, &c->gpu_counts[k])) {
            snprintf(why, wl, "'%.40s' is not a GPU count >= 1 (expected a comma-separated list such as 1,2,4,8)",
                     items[k]);
            n = -1;
        }
    free(copy);
    if (n <= 0) return -1;
    qsort(c->gpu_counts, (size_t)n, sizeof(int), nvs_cmp_int);
    for (int i = 1; i < n; i++)
        if (c->gpu_counts[i - 1] == c->gpu_counts[i]) {
            snprintf(why, wl, "%d given twice (each GPU count once)", c->gpu_counts[i]);
            return -1;
        }
    c->n_gpu_counts = n;
    return 0;
}

/* A size flag's value (nvs_cli_size: -b 1.5M is 1572864 bytes, as nccl-tests 2.19.6 common.cu parsesize reads it;
 * 1.3K, no whole number of bytes, is refused, where nccl-tests would cut it to 1331): on a refusal, one message and
 * NVS_ERR_USAGE. */
static nvs_result_t size_arg(const char *sub, const char *flag, const char *a, size_t lo, size_t *out, const char *expect)
{
    char why[256];
    return nvs_cli_size(a, lo, out, expect, why, sizeof why) ? bad(sub, flag, a, why) : NVS_OK;
}

int nvs_cli_sysfs_root_env_ok(const char *sub)
{
    const char *sys = getenv("NVS_TEST_SYSFS_ROOT"); /* read by topo/topo_pci_sysfs.c: where /sys is, for tests */
    struct stat st;
    if (!sys || !*sys || (!stat(sys, &st) && S_ISDIR(st.st_mode))) return 0;
    nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_SYSFS_ROOT: expected a directory (a "
                        "stand-in for /sys)", sys);
    return -1;
}

int nvs_cli_write_fail_env_ok(const char *sub)
{
    long k_unused;
    if (!nvs_outfile_fail_env(&k_unused)) return 0;
    nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_WRITE_FAIL: expected the number of the "
                        "first file write to fail (1, 2, ...)", getenv("NVS_TEST_WRITE_FAIL"));
    return -1;
}

/* The test hooks' refusals are the subcommand's, "nvscale SUB: ...", as its flags' are (they said "nvscale: ...",
 * the form of a runtime error); no help hint: the help does not list them. SUB: the subcommand typed, which may
 * not be c->subcommand (compare reads them for its runs). */
static nvs_result_t test_hooks_env(nvs_config *c, const char *sub)
{
    const char *k = getenv("NVS_TEST_CORRUPT");
    if (k && *k && parse_int_range(k, 0, 1 << 20, &c->corrupt_rank)) {
        nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_CORRUPT: expected a rank", k);
        return NVS_ERR_USAGE;
    }
    if (nvs_cli_write_fail_env_ok(sub)) return NVS_ERR_USAGE;
    const char *slow = getenv("NVS_TEST_SLOW_STOP");
    if (slow && *slow && parse_int_range(slow, 1, 600, &c->slow_stop_s)) {
        nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_SLOW_STOP: expected seconds, 1 to "
                            "600", slow);
        return NVS_ERR_USAGE;
    }
    const char *tf = getenv("NVS_TEST_TRAIN_FAIL");
    if (tf && *tf) {
        char rk[32];
        const char *at = strchr(tf, ':');
        size_t rl = at ? (size_t)(at - tf) : 0;
        if (rl < sizeof rk) {
            memcpy(rk, tf, rl);
            rk[rl] = '\0';
        }
        if (!at || rl >= sizeof rk || parse_int_range(rk, 0, 1 << 20, &c->train_fail_rank) ||
            parse_int_range(at + 1, 1, 1 << 20, &c->train_fail_n)) {
            nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_TRAIN_FAIL: expected RANK:N", tf);
            return NVS_ERR_USAGE;
        }
    }
    if (nvs_cli_sysfs_root_env_ok(sub)) return NVS_ERR_USAGE;
    const char *s = getenv("NVS_TEST_STALL");
    if (!s || !*s) return NVS_OK;
    char buf[64];
    const char *colon = strchr(s, ':');
    if (!colon || strlen(s) >= sizeof buf) goto fail;
    memcpy(buf, s, (size_t)(colon - s));
    buf[colon - s] = '\0';
    if (parse_int_range(buf, 0, 1 << 20, &c->stall_rank) || nvs_parse_size(colon + 1, &c->stall_bytes)) goto fail;
    return NVS_OK;
fail:
    nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_STALL: expected RANK:SIZE", s);
    return NVS_ERR_USAGE;
}

nvs_result_t nvs_cli_test_hooks_env(nvs_config *c) { return test_hooks_env(c, c->subcommand); }

nvs_result_t nvs_config_parse(nvs_config *c, const char *sub, int argc, char **argv, int *help)
{
    return nvs_config_parse_for(c, sub, sub, argc, argv, help);
}

/* OPTS_OF decides which options are taken and what c->subcommand is; SUB, the subcommand typed, is the one that
 * refuses: every message below is "nvscale SUB: ..." with SUB's help hint (compare said "nvscale run: ..." for a
 * bad option of its runs, naming a command the user never typed). */
nvs_result_t nvs_config_parse_for(nvs_config *c, const char *opts_of, const char *sub, int argc, char **argv,
                                  int *help)
{
    char badname[192];
    int have_f = 0, have_i = 0, pm;
    char flag_f1[64] = "-f";
    /* -b and -e as typed (argv outlives the parse), for the message of an inverted range */
    const char *b_typed = NULL, *e_typed = NULL;
    char flag_b[64] = "-b", flag_e[64] = "-e";
    /* which options were given (by index in specs[]): one given twice would silently lose its first value; and
     * --no-train with a training flag would silently ignore the flag */
    unsigned char given[NSPECS];
    memset(given, 0, sizeof given);
    *help = 0;
    c->subcommand = opts_of;
    /* getopt sees every option of every subcommand, so that one that belongs elsewhere is named as such */
    struct option long_opts[NSPECS + 1];
    char short_opts[2 * NSPECS + 2] = ":";
    for (int i = 0; i < NSPECS; i++) {
        long_opts[i] = (struct option){specs[i].name, specs[i].has_arg ? required_argument : no_argument, 0, specs[i].key};
        if (specs[i].key < 256) {
            size_t l = strlen(short_opts);
            short_opts[l] = (char)specs[i].key;
            short_opts[l + 1] = specs[i].has_arg ? ':' : '\0';
            short_opts[l + 2] = '\0';
        }
    }
    long_opts[NSPECS] = (struct option){0, 0, 0, 0};
    unsigned mine = sub_mask(opts_of);
    optind = 0; /* glibc: 0 resets getopt completely (1 keeps its position inside an earlier "-qv"); a second
                 * parse in one process, as the fuzz harness does, must not read the first one's argv */
    opterr = 0;
    for (;;) {
        int li = -1, at = optind;
        int opt = getopt_long(argc, argv, short_opts, long_opts, &li);
        if (opt == -1) break;

        char flag[64];
        if (li >= 0)
            snprintf(flag, sizeof flag, "--%s", long_opts[li].name);
        else
            snprintf(flag, sizeof flag, "-%c", opt);
        const char *a = optarg;
        for (int i = 0; i < NSPECS && opt != '?' && opt != ':'; i++) {
            if (specs[i].key != opt) continue;
            if (given[i] && opt != 'v') { /* -v counts (-vv: debug) */
                fprintf(nvs_stderr_cmdline(), "nvscale %s: option %s given twice\nTry 'nvscale %s --help'.\n", sub, flag,
                        sub);
                return NVS_ERR_USAGE;
            }
            given[i] = 1;
            if (!(specs[i].subs & mine)) {
                char who[64];
                owners(specs[i].subs, who, sizeof who);
                fprintf(nvs_stderr_cmdline(), "nvscale %s: option %s is not one of %s's (it belongs to: %s)\nTry 'nvscale %s --help'.\n",
                        sub, flag, opts_of, who, sub);
                return NVS_ERR_USAGE;
            }
        }
        switch (opt) {
        case 'm':
            if (parse_int_range(a, 1, 1024, &c->agg_iters)) return bad(sub, flag, a, "expected 1..1024");
            break;
        case 'a':
            if (parse_int_range(a, 0, 3, &c->time_basis)) return bad(sub, flag, a, "expected 0 (rank 0), 1 (mean), 2 (fastest) or 3 (slowest rank)");
            break;
        case 'z':
            /* nccl-tests 2.19 (common.cu startColl): -z 1 syncs and barriers after each operation, -z 2 syncs only,
             * -z 3 times only the synced operations (paired events), which nvscale does not: named, not a bare range */
            if (parse_int_range(a, 0, 2, &c->blocking))
                return bad(sub, flag, a, "expected 0, 1 or 2 (wait for each operation, 1 then a host barrier, 2 without, "
                                         "as nccl-tests; its -z 3, timing only the waited operations, is not taken)");
            break;
        case 'g':
        case 't': {
            int one = 0;
            if (parse_int_range(a, 1, 1, &one))
                return bad(sub, flag, a,
                           opt == 'g' ? "nvscale drives one GPU per rank: for N GPUs run `mpirun -np N nvscale` (or plain "
                                        "`nvscale`: one thread per visible GPU, CUDA_VISIBLE_DEVICES honoured)"
                                      : "nvscale runs one thread per rank: under mpirun use -np N; without a launcher it "
                                        "starts one thread per visible GPU by itself");
            break;
        }
        case OPT_NO_TRAIN: c->no_train = 1; break;
        case OPT_FRAMEWORK:
            if (!nvs_framework_find(a)) return bad(sub, flag, a, "expected pytorch-ddp or ideal");
            snprintf(c->framework, sizeof c->framework, "%s", a);
            break;
        case OPT_OPTIMIZER: {
            nvs_optimizer o;
            int fused;
            if (nvs_optimizer_parse(a, &o, &fused)) return bad(sub, flag, a, "expected sgd, adamw or adamw-fused");
            c->optimizer = (int)o;
            c->optimizer_fused = fused;
            break;
        }
        case OPT_CUDNN: {
            nvs_cudnn_mode m;
            if (nvs_cudnn_mode_parse(a, &m)) return bad(sub, flag, a, "expected auto, on or off");
            c->cudnn = (int)m;
            break;
        }
        case OPT_HOST: c->p2p_host = 1; break;
        case OPT_ALLOC:
            if (strcmp(a, "cuda") && strcmp(a, "nccl")) return bad(sub, flag, a, "expected cuda or nccl");
            c->alloc_nccl = !strcmp(a, "nccl");
            break;
        case 'b':
            c->sizes_explicit = 1;
            if (size_arg(sub, flag, a, 1, &c->min_bytes, "expected a size from 1 to 1T such as 8, 64K, 1M")) return NVS_ERR_USAGE;
            b_typed = a;
            snprintf(flag_b, sizeof flag_b, "%s", flag);
            break;
        case 'e':
            c->sizes_explicit = 1;
            if (size_arg(sub, flag, a, 1, &c->max_bytes, "expected a size from 1 to 1T such as 128M or 8G")) return NVS_ERR_USAGE;
            e_typed = a;
            snprintf(flag_e, sizeof flag_e, "%s", flag);
            break;
        case 'f':
            if (nvs_parse_double(a, &c->step_factor) || c->step_factor < 1.0 || c->step_factor > 1024)
                return bad(sub, flag, a, "expected a factor above 1, at most 1024 (e.g. 2)");
            /* nccl-tests' -f 1: no factor, its -i steps (nccl-tests' default); taken with -i alone, below */
            have_f = c->step_factor > 1.0 ? 1 : -1;
            snprintf(flag_f1, sizeof flag_f1, "%s", flag);
            c->sizes_explicit = 1;
            break;
        case 'i':
            if (size_arg(sub, flag, a, 1, &c->step_bytes, "expected a step size from 1 to 1T")) return NVS_ERR_USAGE;
            have_i = 1;
            c->sizes_explicit = 1;
            break;
        case 'n':
            if (!strcasecmp(a, "auto")) c->iters = 0;
            else if (parse_int_range(a, 1, 10000000, &c->iters)) return bad(sub, flag, a, "expected 1..10000000 or auto");
            break;
        case 'w':
            if (parse_int_range(a, 0, 1000000, &c->warmup)) return bad(sub, flag, a, "expected 0..1000000");
            break;
        case 'c':
            /* nccl-tests' -c N checks N iterations (common.cu: for c < datacheck); nvscale checks one */
            if (parse_int_range(a, 0, 1, &c->check))
                return bad(sub, flag, a, "expected 0 or 1 (nccl-tests' -c N checks N iterations; nvscale validates "
                                         "each configuration once: -c 1)");
            break;
        case 'G':
            if (parse_int_range(a, 0, 1000000, &c->graph_launches)) return bad(sub, flag, a, "expected 0..1000000");
            break;
        case 'd':
            if ((pm = parse_mask(a, nvs_dtype_parse, NVS_DTYPE_COUNT, &c->types_mask, "type", badname, sizeof badname)) == -2)
                return bad(sub, flag, a, badname);
            else if (pm && (!strcasecmp(badname, "f8e4m3") || !strcasecmp(badname, "f8e5m2")))
                /* nccl-tests 2.19.6 names (common.cu test_typenames): ncclFloat8e4m3/e5m2, which the fill and
                 * check of collectives/kernels.cu and the MPI host backend do not have */
                return bad(sub, flag, badname,
                           "nccl-tests' fp8 type, which nvscale does not measure: types are int8, uint8, int32, "
                           "uint32, int64, uint64, half, float, double, bfloat16, or all");
            else if (pm)
                return bad(sub, flag, badname,
                           "types are int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, or "
                           "all");
            break;
        case 'o':
            if ((pm = parse_mask(a, nvs_redop_parse, NVS_OP_COUNT, &c->ops_mask, "operation", badname, sizeof badname)) == -2)
                return bad(sub, flag, a, badname);
            else if (pm && !strcasecmp(badname, "mulsum"))
                /* nccl-tests 2.19.6's mulsum: a sum premultiplied by a scalar (ncclRedOpCreatePreMulSum) */
                return bad(sub, flag, badname,
                           "nccl-tests' premultiplied sum (ncclRedOpCreatePreMulSum), which nvscale does not "
                           "measure: operations are sum, prod, max, min, avg, or all");
            else if (pm)
                return bad(sub, flag, badname, "operations are sum, prod, max, min, avg, or all");
            break;
        case 'r':
            if (parse_int_range(a, 0, 1 << 20, &c->root)) return bad(sub, flag, a, "expected a rank >= 0");
            break;
        case OPT_COLL:
            if ((pm = parse_mask(a, lookup_coll, nvs_coll_count(), &c->colls_mask, "collective", badname, sizeof badname)) == -2)
                return bad(sub, flag, a, badname);
            else if (pm)
                return bad(sub, flag, badname,
                           "collectives are all_reduce, broadcast, reduce, all_gather, reduce_scatter, alltoall, "
                           "sendrecv, or all");
            c->colls_explicit = 1;
            break;
        case OPT_INPLACE:
            if (!strcasecmp(a, "out")) c->inplace_mask = NVS_INPLACE_OUT;
            else if (!strcasecmp(a, "in")) c->inplace_mask = NVS_INPLACE_IN;
            else if (!strcasecmp(a, "both")) c->inplace_mask = NVS_INPLACE_OUT | NVS_INPLACE_IN;
            else return bad(sub, flag, a, "expected out, in or both");
            break;
        case OPT_BACKEND:
            if (!strcasecmp(a, "nccl")) c->backend = NVS_BACKEND_NCCL;
            else if (!strcasecmp(a, "mpi")) c->backend = NVS_BACKEND_MPI;
            else if (!strcasecmp(a, "auto")) c->backend = NVS_BACKEND_AUTO;
            else return bad(sub, flag, a, "expected nccl, mpi or auto");
            c->backend_explicit = c->backend != NVS_BACKEND_AUTO;
            break;
        case OPT_GPUS: {
            char why[160];
            if (parse_gpu_counts(a, c, why, sizeof why)) return bad(sub, flag, a, why);
            break;
        }
        case OPT_PLACEMENT:
            if (!strcasecmp(a, "first")) c->placement = NVS_PLACE_FIRST;
            else if (!strcasecmp(a, "best")) c->placement = NVS_PLACE_BEST;
            else if (!strcasecmp(a, "worst")) c->placement = NVS_PLACE_WORST;
            else return bad(sub, flag, a, "expected first, best or worst");
            break;
        case OPT_TIMEOUT:
            /* at least 1 s: a shorter wait cannot tell a stall from MPI and NCCL start-up */
            if (nvs_parse_double(a, &c->timeout_s) || c->timeout_s < 1 || c->timeout_s > 86400)
                return bad(sub, flag, a, "expected seconds from 1 to 86400");
            break;
        case OPT_FORMAT:
            if (!strcasecmp(a, "table")) c->format = NVS_FMT_TABLE;
            else if (!strcasecmp(a, "json")) c->format = NVS_FMT_JSON;
            else if (!strcasecmp(a, "csv")) c->format = NVS_FMT_CSV;
            else return bad(sub, flag, a, "expected table, json or csv");
            break;
        case OPT_OUT: {
            const char *dash = nvs_out_dash_why(a, 1);
            if (!*a || strlen(a) >= sizeof c->out_dir - 64) return bad(sub, flag, a, "expected a directory path");
            if (dash) return bad(sub, flag, a, dash);
            snprintf(c->out_dir, sizeof c->out_dir, "%s", a);
            /* "runs/x/" names the directory runs/x: without the slash, DIR.partial and the final rename agree */
            for (size_t l = strlen(c->out_dir); l > 1 && c->out_dir[l - 1] == '/'; l--) c->out_dir[l - 1] = '\0';
            break;
        }
        case OPT_NO_SAVE: c->save = 0; break;
        case OPT_EMULATE:
            /* the world size is known only once launched: the runtime checks that K divides it */
            if (parse_int_range(a, 1, 1 << 20, &c->emulate_nodes))
                return bad(sub, flag, a, "expected a number of virtual hosts >= 1 that divides the number of ranks");
            break;
        case OPT_NO_NCCL_LOG: c->nccl_log = 0; break;
        case OPT_MODEL: {
            char *copy, *items[NVS_MAX_WORKLOADS], why[160];
            int n = nvs_list_split(a, &copy, items, NVS_MAX_WORKLOADS, why, sizeof why);
            /* "-" was looked up as a profile named '-'; /dev/stdin or a named pipe read by rank 0 left the others
             * an empty profile (a built-in name wins over a file of that name: not one to look at) */
            for (int i = 0; i < n; i++)
                if (!nvs_profile_is_builtin(items[i]) &&
                    nvs_cli_stdin_refused(sub, flag, items[i], "a profile is read by every rank, and again for the "
                                                               "run.json")) {
                    free(copy);
                    return NVS_ERR_USAGE;
                }
            /* one workload measured twice in one run is a typo, not a repeat (--rounds repeats) */
            for (int i = 0; i < n; i++) /* n = -1 ends it */
                for (int k = 0; k < i; k++)
                    if (!strcmp(items[i], items[k])) {
                        snprintf(why, sizeof why, "'%.100s' given twice", items[i]);
                        n = -1;
                        break;
                    }
            free(copy);
            if (n < 0) return bad(sub, flag, a, why);
            if (strlen(a) >= sizeof c->model) return bad(sub, flag, a, "expected a model name or profile file");
            snprintf(c->model, sizeof c->model, "%s", a);
            break;
        }
        case OPT_BATCH:
            if (parse_int_range(a, 1, 1000000, &c->batch)) return bad(sub, flag, a, "expected a batch of 1..1000000 samples per GPU");
            break;
        case OPT_PRECISION:
            if (nvs_precision_parse(a, &c->precision)) return bad(sub, flag, a, "expected fp32, tf32, bf16 or fp16");
            c->precision_explicit = 1;
            break;
        case OPT_GRAD:
            if (!strcasecmp(a, "fp32")) c->grad_bf16 = 0;
            else if (!strcasecmp(a, "bf16")) c->grad_bf16 = 1;
            else return bad(sub, flag, a, "expected fp32 or bf16");
            break;
        case OPT_BFIRST:
            if (size_arg(sub, flag, a, 1, &c->bucket_first_bytes, "expected a size from 1 to 1T such as 1M")) return NVS_ERR_USAGE;
            break;
        case OPT_BCAP:
            if (size_arg(sub, flag, a, 1, &c->bucket_cap_bytes, "expected a size from 1 to 1T such as 25M")) return NVS_ERR_USAGE;
            break;
        case OPT_STEPS:
            if (parse_int_range(a, 1, 1000000, &c->steps)) return bad(sub, flag, a, "expected 1..1000000");
            c->steps_explicit = 1;
            break;
        case OPT_ROUNDS:
            if (parse_int_range(a, 1, 100, &c->rounds)) return bad(sub, flag, a, "expected 1..100");
            break;
        case OPT_WSTEPS:
            if (parse_int_range(a, 0, 1000000, &c->warmup_steps)) return bad(sub, flag, a, "expected 0..1000000");
            c->warmup_steps_explicit = 1;
            break;
        case OPT_XML:
            if (!*a || strlen(a) >= sizeof c->hwloc_xml) return bad(sub, flag, a, "expected a file");
            /* "-": the XML on standard input (topo/topo_discover.c reads it whole; topo's only input) */
            snprintf(c->hwloc_xml, sizeof c->hwloc_xml, "%s", a);
            break;
        case OPT_COPY_BYTES:
            if (size_arg(sub, flag, a, 4, &c->copy_bytes, "expected a size from 4 to 1T such as 256M")) return NVS_ERR_USAGE;
            break;
        case OPT_COPY_ITERS:
            if (parse_int_range(a, 1, 1000000, &c->copy_iters)) return bad(sub, flag, a, "expected 1..1000000");
            break;
        case 'q': c->quiet = 1; break;
        case 'v': c->verbose++; break;
        case 'h':
            /* under another subcommand (compare -qh) run's usage went to stdout, then compare refused the help
             * (exit 2): one answer, the caller's, which says where OPTS_OF's help is */
            if (!strcmp(opts_of, sub)) nvs_config_usage(sub, stdout);
            *help = 1;
            return NVS_OK;
        case ':':
        default: {
            /* a short option inside a cluster ("-qX") is named alone: getopt's optopt; a long one as typed */
            char shown[64];
            nvs_cli_bad_option(argv, at, shown, sizeof shown);
            char why[256];
            if (opt == ':')
                fprintf(nvs_stderr_cmdline(), "nvscale %s: option %s needs a value\nTry 'nvscale %s --help'.\n", sub,
                        shown, sub);
            else if (nvs_cli_value_on_flag(argv, long_opts, why, sizeof why))
                fprintf(nvs_stderr_cmdline(), "nvscale %s: %s\nTry 'nvscale %s --help'.\n", sub, why, sub);
            else if ((mine & (S_RUN | S_COLL)) && nvs_nccl_tests_flag(shown, why, sizeof why))
                fprintf(nvs_stderr_cmdline(), "nvscale %s: %s\nTry 'nvscale %s --help'.\n", sub, why, sub);
            else
                fprintf(nvs_stderr_cmdline(), "nvscale %s: unknown option '%s'\nTry 'nvscale %s --help'.\n", sub,
                        shown, sub);
            return NVS_ERR_USAGE;
        }
        }
    }
    if (optind < argc) {
        fprintf(nvs_stderr_cmdline(), "nvscale %s: unexpected argument '%s'\nTry 'nvscale %s --help'.\n", sub, argv[optind], sub);
        return NVS_ERR_USAGE;
    }
    if (have_f < 0 && !have_i)
        return bad(sub, flag_f1, "1", "expected a factor above 1, at most 1024 (e.g. 2); -f 1 (nccl-tests: no factor) only with "
                                      "-i/--stepbytes SIZE, the step it then takes");
    if (have_f > 0 && have_i) {
        /* not in excludes[]: -f 1 (nccl-tests' "no factor") goes with -i, above */
        nvs_cli_exclude_refuse(sub, "-f/--stepfactor", "-i/--stepbytes", "-f multiplies the size each step, -i adds "
                                                                         "to it (-f 1 goes with -i)");
        return NVS_ERR_USAGE;
    }
    if (have_i) c->step_factor = 0;
    /* An inverted range names the flag(s) typed, as typed: `-e 4` alone is refused for -e (below -b's default 8),
     * not as "-b 8", which the user never wrote. */
    if (c->min_bytes > c->max_bytes) {
        char why[160], v[32];
        if (b_typed && e_typed) {
            snprintf(why, sizeof why, "larger than %s %s (the smallest size above the largest)", flag_e, e_typed);
            return bad(sub, flag_b, b_typed, why);
        }
        if (b_typed) {
            snprintf(why, sizeof why, "larger than the largest size, %s by default: give -e/--maxbytes too",
                     nvs_format_size(c->max_bytes, v, sizeof v));
            return bad(sub, flag_b, b_typed, why);
        }
        snprintf(why, sizeof why, "smaller than the smallest size, %s by default: give -b/--minbytes too",
                 nvs_format_size(c->min_bytes, v, sizeof v));
        return bad(sub, flag_e, e_typed, why);
    }
    /* the training step's flags (run's and train's alone) mean nothing without a training step */
    for (int i = 0; c->no_train && i < NSPECS; i++)
        if (given[i] && specs[i].subs == (S_RUN | S_TRAIN)) {
            char b[64], why[128];
            snprintf(b, sizeof b, "--%s", specs[i].name);
            snprintf(why, sizeof why, "%s sets up the training step that --no-train leaves out", b);
            nvs_cli_exclude_refuse(sub, "--no-train", b, why);
            return NVS_ERR_USAGE;
        }
    if (nvs_cli_excludes_check(sub, long_opts, given)) return NVS_ERR_USAGE;
    /* PyTorch DDP 2.x (torch/nn/parallel/distributed.py, "if self.bucket_bytes_cap_default"): an explicit
     * bucket_cap_mb sizes the first bucket too; the 1 MiB first bucket stays only where no cap is passed
     * (results/h100x1-s54a/ddp-bucket.txt, PyTorch 2.11). --bucket-cap alone does what DDP(bucket_cap_mb=) does;
     * --bucket-first still sets the first bucket apart. */
    int cap_given = 0, first_given = 0;
    for (int i = 0; i < NSPECS; i++) {
        if (specs[i].key == OPT_BCAP) cap_given = given[i];
        if (specs[i].key == OPT_BFIRST) first_given = given[i];
    }
    if (cap_given && !first_given) c->bucket_first_bytes = c->bucket_cap_bytes;
    return test_hooks_env(c, sub);
}
