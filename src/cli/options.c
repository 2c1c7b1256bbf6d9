#include "core/config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collectives/coll.h"
#include "core/dtype.h"
#include "core/units.h"

void nvs_config_defaults(nvs_config *c)
{
    memset(c, 0, sizeof *c);
    c->min_bytes = 8;
    c->max_bytes = (size_t)1 << 30; /* issue 2: default sweep 8 B .. 1 GiB */
    c->step_factor = 2.0;
    c->iters = 0; /* automatic */
    c->warmup = 5; /* nccl-tests' default -w */
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
    c->copy_bytes = (size_t)256 << 20;
    c->copy_iters = 20;
    c->timeout_s = 300;
    c->save = 1;
    c->nccl_log = 1;
    c->stall_rank = -1;
    c->corrupt_rank = -1;
}

enum {
    OPT_COLL = 1000, OPT_BACKEND, OPT_GPUS, OPT_PLACEMENT, OPT_TIMEOUT, OPT_FORMAT, OPT_OUT, OPT_NO_SAVE,
    OPT_INPLACE, OPT_MODEL, OPT_BATCH, OPT_PRECISION, OPT_GRAD, OPT_BFIRST, OPT_BCAP, OPT_STEPS, OPT_WSTEPS,
    OPT_XML, OPT_COPY_BYTES, OPT_COPY_ITERS, OPT_NO_NCCL_LOG,
};

static const struct option long_opts[] = {
    {"minbytes", required_argument, 0, 'b'},      {"maxbytes", required_argument, 0, 'e'},
    {"stepfactor", required_argument, 0, 'f'},    {"stepbytes", required_argument, 0, 'i'},
    {"iters", required_argument, 0, 'n'},         {"warmup_iters", required_argument, 0, 'w'},
    {"check", required_argument, 0, 'c'},         {"cudagraph", required_argument, 0, 'G'},
    {"datatype", required_argument, 0, 'd'},      {"op", required_argument, 0, 'o'},
    {"root", required_argument, 0, 'r'},          {"coll", required_argument, 0, OPT_COLL},
    {"backend", required_argument, 0, OPT_BACKEND}, {"gpus", required_argument, 0, OPT_GPUS},
    {"placement", required_argument, 0, OPT_PLACEMENT}, {"timeout", required_argument, 0, OPT_TIMEOUT},
    {"format", required_argument, 0, OPT_FORMAT}, {"out", required_argument, 0, OPT_OUT},
    {"no-save", no_argument, 0, OPT_NO_SAVE},     {"inplace", required_argument, 0, OPT_INPLACE},
    {"model", required_argument, 0, OPT_MODEL},   {"batch", required_argument, 0, OPT_BATCH},
    {"precision", required_argument, 0, OPT_PRECISION}, {"grad-type", required_argument, 0, OPT_GRAD},
    {"bucket-first", required_argument, 0, OPT_BFIRST}, {"bucket-cap", required_argument, 0, OPT_BCAP},
    {"steps", required_argument, 0, OPT_STEPS},   {"warmup-steps", required_argument, 0, OPT_WSTEPS},
    {"hwloc-xml", required_argument, 0, OPT_XML}, {"copy-bytes", required_argument, 0, OPT_COPY_BYTES},
    {"copy-iters", required_argument, 0, OPT_COPY_ITERS}, {"no-nccl-log", no_argument, 0, OPT_NO_NCCL_LOG},
    {"quiet", no_argument, 0, 'q'},               {"verbose", no_argument, 0, 'v'},
    {"help", no_argument, 0, 'h'},                {0, 0, 0, 0},
};

static const char short_opts[] = ":b:e:f:i:n:w:c:G:d:o:r:qvh";

void nvs_config_usage(const char *sub, FILE *to)
{
    fprintf(to, "usage: nvscale %s [options]\n", sub ? sub : "run");
    fputs("collective sweep (nccl-tests flags):\n"
          "  -b, --minbytes SIZE      smallest size (default 8; K/M/G are powers of 1024)\n"
          "  -e, --maxbytes SIZE      largest size (default 1G)\n"
          "  -f, --stepfactor X       multiply the size by X each step (default 2)\n"
          "  -i, --stepbytes SIZE     add SIZE each step instead of -f\n"
          "  -n, --iters N|auto       timed iterations per size (default auto: about 20 ms, 20..1000)\n"
          "  -w, --warmup_iters N     warm-up iterations (default 5)\n"
          "  -c, --check 0|1          validate every configuration (default 1)\n"
          "  -G, --cudagraph N        launch the timed loop as a CUDA graph, N times (default 0: off)\n"
          "  -d, --datatype LIST      float,half,bfloat16,int32,double or all (default float)\n"
          "  -o, --op LIST            sum,max,min,prod or all (default sum)\n"
          "  -r, --root R             root of broadcast and reduce (default 0)\n"
          "      --coll LIST          all_reduce,broadcast,reduce,all_gather,reduce_scatter,alltoall,sendrecv\n"
          "                           or all (default all_reduce,broadcast)\n"
          "      --inplace out|in|both  out-of-place, in-place or both (default both)\n"
          "scaling and placement:\n"
          "      --gpus LIST          GPU counts to measure, e.g. 1,2,4,8 (default 1,2,4,.. up to all)\n"
          "      --placement first|best|worst  which GPUs make up each count (default first)\n"
          "training step (nvscale train, or run --model):\n"
          "      --model NAME|FILE    resnet50 ssd300 maskrcnn bert-large transformer-xl-large gpt2-xl, or a\n"
          "                           profile file (see README)\n"
          "      --batch N            samples per GPU (default: the profile's)\n"
          "      --precision fp32|tf32|bf16   GEMM precision (default fp32)\n"
          "      --grad-type fp32|bf16        gradient (all-reduce) type (default fp32)\n"
          "      --bucket-first SIZE  first gradient bucket (default 1M)   --bucket-cap SIZE (default 25M)\n"
          "      --steps N            timed steps (default 20)   --warmup-steps N (default 5)\n"
          "topology and copies:\n"
          "      --hwloc-xml FILE     read a saved hwloc XML instead of this machine (topo)\n"
          "      --copy-bytes SIZE    bytes per copy in p2p (default 256M)   --copy-iters N (default 20)\n"
          "process and output:\n"
          "      --backend nccl|mpi   GPU collectives (NCCL) or host-memory MPI collectives\n"
          "      --timeout S          abort a collective or wait that stalls longer than S s (default 300)\n"
          "      --format table|json|csv   what stdout shows (default table)\n"
          "      --out DIR            result directory (default results/<date>-<time>-<subcommand>)\n"
          "      --no-save            write no result directory\n"
          "      --no-nccl-log        do not capture NCCL's INFO log (transport attribution)\n"
          "  -q, --quiet  -v, --verbose  -h, --help\n",
          to);
}

static nvs_result_t bad(const char *sub, const char *flag, const char *value, const char *why)
{
    fprintf(stderr, "nvscale %s: invalid value '%s' for %s: %s\n", sub, value, flag, why);
    fprintf(stderr, "Try 'nvscale %s --help'.\n", sub);
    return NVS_ERR_USAGE;
}

static int parse_int_range(const char *s, long lo, long hi, int *out)
{
    long v;
    if (nvs_parse_long(s, &v) || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* Comma-separated names into a bit mask; "all" = every bit of `count`. -1 with *badp set on an unknown name. */
static int parse_mask(const char *s, int (*lookup)(const char *), int count, unsigned *mask, char *badp, size_t bl)
{
    if (!strcasecmp(s, "all")) {
        *mask = (1u << count) - 1;
        return 0;
    }
    char buf[512];
    if (strlen(s) >= sizeof buf || !*s) {
        snprintf(badp, bl, "%s", s);
        return -1;
    }
    strcpy(buf, s);
    unsigned m = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i = lookup(tok);
        if (i < 0) {
            snprintf(badp, bl, "%s", tok);
            return -1;
        }
        m |= 1u << i;
    }
    if (!m) {
        snprintf(badp, bl, "%s", s);
        return -1;
    }
    *mask = m;
    return 0;
}

static int lookup_coll(const char *s) { return nvs_coll_find(s) ? nvs_coll_index(nvs_coll_find(s)) : -1; }

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static int parse_gpu_counts(const char *s, nvs_config *c)
{
    char buf[512];
    if (strlen(s) >= sizeof buf || !*s) return -1;
    strcpy(buf, s);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int v;
        if (parse_int_range(tok, 1, 1 << 20, &v) || n == NVS_MAX_GPU_COUNTS) return -1;
        c->gpu_counts[n++] = v;
    }
    if (!n) return -1;
    qsort(c->gpu_counts, (size_t)n, sizeof(int), cmp_int);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (!u || c->gpu_counts[u - 1] != c->gpu_counts[i]) c->gpu_counts[u++] = c->gpu_counts[i];
    c->n_gpu_counts = u;
    return 0;
}

static nvs_result_t parse_stall_env(nvs_config *c)
{
    const char *k = getenv("NVS_TEST_CORRUPT");
    if (k && *k && parse_int_range(k, 0, 1 << 20, &c->corrupt_rank)) {
        fprintf(stderr, "nvscale: invalid value '%s' for environment variable NVS_TEST_CORRUPT: expected a rank\n", k);
        return NVS_ERR_USAGE;
    }
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
    fprintf(stderr, "nvscale: invalid value '%s' for environment variable NVS_TEST_STALL: expected RANK:SIZE\n", s);
    return NVS_ERR_USAGE;
}

nvs_result_t nvs_config_parse(nvs_config *c, const char *sub, int argc, char **argv, int *help)
{
    char badname[128];
    int have_f = 0, have_i = 0;
    *help = 0;
    c->subcommand = sub;
    optind = 1;
    opterr = 0;
    for (;;) {
        int li = -1;
        int opt = getopt_long(argc, argv, short_opts, long_opts, &li);
        if (opt == -1) break;
        const char *flag_name = argv[optind - 1];
        char flag[64];
        if (li >= 0)
            snprintf(flag, sizeof flag, "--%s", long_opts[li].name);
        else
            snprintf(flag, sizeof flag, "-%c", opt);
        const char *a = optarg;
        switch (opt) {
        case 'b':
            if (nvs_parse_size(a, &c->min_bytes) || !c->min_bytes) return bad(sub, flag, a, "expected a size >= 1 such as 8, 64K, 1M");
            break;
        case 'e':
            if (nvs_parse_size(a, &c->max_bytes) || !c->max_bytes) return bad(sub, flag, a, "expected a size >= 1 such as 128M or 8G");
            break;
        case 'f':
            if (nvs_parse_double(a, &c->step_factor) || c->step_factor <= 1.0 || c->step_factor > 1024)
                return bad(sub, flag, a, "expected a factor above 1 (e.g. 2)");
            have_f = 1;
            break;
        case 'i':
            if (nvs_parse_size(a, &c->step_bytes) || !c->step_bytes) return bad(sub, flag, a, "expected a step size >= 1");
            have_i = 1;
            break;
        case 'n':
            if (!strcasecmp(a, "auto")) c->iters = 0;
            else if (parse_int_range(a, 1, 10000000, &c->iters)) return bad(sub, flag, a, "expected 1..10000000 or auto");
            break;
        case 'w':
            if (parse_int_range(a, 0, 1000000, &c->warmup)) return bad(sub, flag, a, "expected 0..1000000");
            break;
        case 'c':
            if (parse_int_range(a, 0, 1, &c->check)) return bad(sub, flag, a, "expected 0 or 1");
            break;
        case 'G':
            if (parse_int_range(a, 0, 1000000, &c->graph_launches)) return bad(sub, flag, a, "expected 0..1000000");
            break;
        case 'd':
            if (parse_mask(a, nvs_dtype_parse, NVS_DTYPE_COUNT, &c->types_mask, badname, sizeof badname))
                return bad(sub, flag, badname, "types are float, half, bfloat16, int32, double, or all");
            break;
        case 'o':
            if (parse_mask(a, nvs_redop_parse, NVS_OP_COUNT, &c->ops_mask, badname, sizeof badname))
                return bad(sub, flag, badname, "operations are sum, max, min, prod, or all");
            break;
        case 'r':
            if (parse_int_range(a, 0, 1 << 20, &c->root)) return bad(sub, flag, a, "expected a rank >= 0");
            break;
        case OPT_COLL:
            if (parse_mask(a, lookup_coll, nvs_coll_count(), &c->colls_mask, badname, sizeof badname))
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
        case OPT_GPUS:
            if (parse_gpu_counts(a, c)) return bad(sub, flag, a, "expected a comma-separated list of GPU counts >= 1, e.g. 1,2,4,8");
            break;
        case OPT_PLACEMENT:
            if (!strcasecmp(a, "first")) c->placement = NVS_PLACE_FIRST;
            else if (!strcasecmp(a, "best")) c->placement = NVS_PLACE_BEST;
            else if (!strcasecmp(a, "worst")) c->placement = NVS_PLACE_WORST;
            else return bad(sub, flag, a, "expected first, best or worst");
            break;
        case OPT_TIMEOUT:
            if (nvs_parse_double(a, &c->timeout_s) || c->timeout_s <= 0 || c->timeout_s > 86400)
                return bad(sub, flag, a, "expected seconds in (0, 86400]");
            break;
        case OPT_FORMAT:
            if (!strcasecmp(a, "table")) c->format = NVS_FMT_TABLE;
            else if (!strcasecmp(a, "json")) c->format = NVS_FMT_JSON;
            else if (!strcasecmp(a, "csv")) c->format = NVS_FMT_CSV;
            else return bad(sub, flag, a, "expected table, json or csv");
            break;
        case OPT_OUT:
            if (!*a || strlen(a) >= sizeof c->out_dir - 64) return bad(sub, flag, a, "expected a directory path");
            snprintf(c->out_dir, sizeof c->out_dir, "%s", a);
            break;
        case OPT_NO_SAVE: c->save = 0; break;
        case OPT_NO_NCCL_LOG: c->nccl_log = 0; break;
        case OPT_MODEL:
            if (!*a || strlen(a) >= sizeof c->model) return bad(sub, flag, a, "expected a model name or profile file");
            snprintf(c->model, sizeof c->model, "%s", a);
            break;
        case OPT_BATCH:
            if (parse_int_range(a, 1, 1000000, &c->batch)) return bad(sub, flag, a, "expected a batch of 1..1000000 samples per GPU");
            break;
        case OPT_PRECISION:
            if (nvs_precision_parse(a, &c->precision)) return bad(sub, flag, a, "expected fp32, tf32 or bf16");
            break;
        case OPT_GRAD:
            if (!strcasecmp(a, "fp32")) c->grad_bf16 = 0;
            else if (!strcasecmp(a, "bf16")) c->grad_bf16 = 1;
            else return bad(sub, flag, a, "expected fp32 or bf16");
            break;
        case OPT_BFIRST:
            if (nvs_parse_size(a, &c->bucket_first_bytes) || !c->bucket_first_bytes) return bad(sub, flag, a, "expected a size >= 1 such as 1M");
            break;
        case OPT_BCAP:
            if (nvs_parse_size(a, &c->bucket_cap_bytes) || !c->bucket_cap_bytes) return bad(sub, flag, a, "expected a size >= 1 such as 25M");
            break;
        case OPT_STEPS:
            if (parse_int_range(a, 1, 1000000, &c->steps)) return bad(sub, flag, a, "expected 1..1000000");
            break;
        case OPT_WSTEPS:
            if (parse_int_range(a, 0, 1000000, &c->warmup_steps)) return bad(sub, flag, a, "expected 0..1000000");
            break;
        case OPT_XML:
            if (!*a || strlen(a) >= sizeof c->hwloc_xml) return bad(sub, flag, a, "expected a file");
            snprintf(c->hwloc_xml, sizeof c->hwloc_xml, "%s", a);
            break;
        case OPT_COPY_BYTES:
            if (nvs_parse_size(a, &c->copy_bytes) || c->copy_bytes < 4) return bad(sub, flag, a, "expected a size >= 4 such as 256M");
            break;
        case OPT_COPY_ITERS:
            if (parse_int_range(a, 1, 1000000, &c->copy_iters)) return bad(sub, flag, a, "expected 1..1000000");
            break;
        case 'q': c->quiet = 1; break;
        case 'v': c->verbose++; break;
        case 'h':
            nvs_config_usage(sub, stdout);
            *help = 1;
            return NVS_OK;
        case ':':
            fprintf(stderr, "nvscale %s: option %s needs a value\nTry 'nvscale %s --help'.\n", sub, flag_name, sub);
            return NVS_ERR_USAGE;
        default:
            fprintf(stderr, "nvscale %s: unknown option '%s'\nTry 'nvscale %s --help'.\n", sub, flag_name, sub);
            return NVS_ERR_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nvscale %s: unexpected argument '%s'\nTry 'nvscale %s --help'.\n", sub, argv[optind], sub);
        return NVS_ERR_USAGE;
    }
    if (have_f && have_i) {
        fprintf(stderr, "nvscale %s: -f/--stepfactor and -i/--stepbytes exclude each other\n", sub);
        return NVS_ERR_USAGE;
    }
    if (have_i) c->step_factor = 0;
    if (c->min_bytes > c->max_bytes) {
        char v[64];
        snprintf(v, sizeof v, "%zu", c->min_bytes);
        return bad(sub, "-b/--minbytes", v, "larger than -e/--maxbytes");
    }
    if (c->quiet && c->verbose) {
        fprintf(stderr, "nvscale %s: -q/--quiet and -v/--verbose exclude each other\n", sub);
        return NVS_ERR_USAGE;
    }
    return parse_stall_env(c);
}
