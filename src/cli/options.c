/* The options of the measuring subcommands (run, coll, train, topo, p2p): the table, one row per option, and what
 * --help prints from it; their defaults. The parse is options_parse.c (options_priv.h lists the files). */
#include "core/config.h"

#include <stdio.h>
#include <string.h>

#include "cli/options_priv.h"
#include "collectives/coll.h"
#include "core/dtype.h"
#include "run/phases.h"
#include "workload/framework.h"

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

/* The table: one row per option, in the order --help lists them. nccl-tests' short flags keep their meaning
 * (nccl-tests README, "Arguments"); -g and -t exist only to say how nvscale does the same. */
const opt_spec nvs_opt_specs[NSPECS] = {
    {"minbytes", 'b', 1, S_RUN | S_COLL, "collective sweep (nccl-tests flags)", "SIZE",
     "smallest size (default 8; K/M/G are powers of 1024)"},
    {"maxbytes", 'e', 1, S_RUN | S_COLL, NULL, "SIZE",
     "largest size (default 1G; 16M on the host backend's default run)"},
    {"stepfactor", 'f', 1, S_RUN | S_COLL, NULL, "X",
     "multiply the size by X each step (default 2; 4 on the host\n"
     "backend's default run; 1 with -i: none)"},
    {"stepbytes", 'i', 1, S_RUN | S_COLL, NULL, "SIZE", "add SIZE each step instead of -f"},
    {"iters", 'n', 1, S_RUN | S_COLL, NULL, "N|auto",
     "timed iterations per size (default auto: about 20 ms, 20..1000)"},
    {"warmup_iters", 'w', 1, S_RUN | S_COLL, NULL, "N", "warm-up iterations (default 5)"},
    {"agg_iters", 'm', 1, S_RUN | S_COLL, NULL, "N",
     "operations aggregated in one NCCL group per iteration (default 1)"},
    {"check", 'c', 1, S_RUN | S_COLL, NULL, "0|1", "validate every configuration (default 1)"},
    {"cudagraph", 'G', 1, S_RUN | S_COLL, NULL, "N", "launch the timed loop as a CUDA graph, N times (default 0: off)"},
    {"average", 'a', 1, S_RUN | S_COLL, NULL, "0|1|2|3",
     "time the bandwidths use: 0 rank 0, 1 mean, 2 fastest, 3 slowest\n"
     "rank (default 3: a collective ends when its last rank does)"},
    {"blocking", 'z', 1, S_RUN | S_COLL, NULL, "0|1|2",
     "wait for each operation before launching the next, as\n"
     "nccl-tests: 1 then a host barrier of every rank, 2 no barrier (default 0)"},
    {"datatype", 'd', 1, S_RUN | S_COLL, NULL, "LIST",
     "int8,uint8,int32,uint32,int64,uint64,half,float,double,bfloat16 or all (default float)"},
    {"op", 'o', 1, S_RUN | S_COLL, NULL, "LIST", "sum,prod,max,min,avg or all (default sum)"},
    {"root", 'r', 1, S_RUN | S_COLL, NULL, "R", "root of broadcast and reduce (default 0)"},
    {"coll", OPT_COLL, 1, S_RUN | S_COLL, NULL, "LIST",
     "all_reduce,broadcast,reduce,all_gather,reduce_scatter,alltoall,\n"
     "sendrecv or all (default all_reduce,broadcast)"},
    {"inplace", OPT_INPLACE, 1, S_RUN | S_COLL, NULL, "out|in|both", "out-of-place, in-place or both (default both)"},
    {"alloc", OPT_ALLOC, 1, S_RUN | S_COLL, NULL, "cuda|nccl",
     "the sweep's GPU buffers from cudaMalloc (default) or ncclMemAlloc,\n"
     "as nccl-tests >= 2.19 allocates its own (NCCL backend only)"},
    {"ngpus", 'g', 1, S_RUN | S_COLL, NULL, "1",
     "GPUs per process: always 1 (mpirun -np N, or plain nvscale: a thread\n"
     "per GPU)"},
    {"nthreads", 't', 1, S_RUN | S_COLL, NULL, "1",
     "threads per process: 1 under mpirun; without a launcher nvscale\n"
     "runs one thread per visible GPU by itself"},
    {"gpus", OPT_GPUS, 1, S_MEASURE, "scaling and placement", "LIST",
     "GPU counts to measure, e.g. 1,2,4,8 (default 1,2,4,.. up to all;\n"
     "coll: the world size only, as nccl-tests)"},
    {"placement", OPT_PLACEMENT, 1, S_MEASURE, NULL, "first|best|worst",
     "which GPUs make up each count (default first)"},
    {"model", OPT_MODEL, 1, S_RUN | S_TRAIN, "training step", "NAME|FILE[,..]",
     "resnet50 ssd300 maskrcnn maskrcnn-nvidia bert-large\n"
     "bert-large-mlm128 bert-large-squad transformer-xl-large\n"
     "gpt2-xl, or a profile file; several, comma-separated (train:\n"
     "required; run's default: bert-large,resnet50 on GPUs,\n"
     "resnet50 on the host)"},
    {"batch", OPT_BATCH, 1, S_RUN | S_TRAIN, NULL, "N",
     "samples per GPU (default: each profile's; 1 on the host backend)"},
    {"precision", OPT_PRECISION, 1, S_RUN | S_TRAIN, NULL, "fp32|tf32|bf16|fp16",
     "GEMM precision; fp16 = autocast with a gradient scaler (default bf16\n"
     "on GPUs, fp32 on the host)"},
    {"grad-type", OPT_GRAD, 1, S_RUN | S_TRAIN, NULL, "fp32|bf16", "gradient (all-reduce) type (default fp32)"},
    {"bucket-first", OPT_BFIRST, 1, S_RUN | S_TRAIN, NULL, "SIZE", "first gradient bucket (default 1M, PyTorch DDP's)"},
    {"bucket-cap", OPT_BCAP, 1, S_RUN | S_TRAIN, NULL, "SIZE",
     "other buckets (default 25M, DDP's bucket_cap_mb); alone, the first one too, as DDP 2.x does"},
    {"steps", OPT_STEPS, 1, S_RUN | S_TRAIN, NULL, "N", "timed steps (default 20; 3 on the host backend)"},
    {"warmup-steps", OPT_WSTEPS, 1, S_RUN | S_TRAIN, NULL, "N",
     "untimed steps first (default 5; 1 on the host backend)"},
    {"rounds", OPT_ROUNDS, 1, S_RUN | S_TRAIN, NULL, "R",
     "measure every N R times in turn (1, 2, .., 1, 2, ..); efficiency =\n"
     "the median of each round's step(1)/step(N), with its range, so a\n"
     "host whose speed drifts slows both sides of a ratio (default 1)"},
    {"framework", OPT_FRAMEWORK, 1, S_RUN | S_TRAIN, NULL, "pytorch-ddp|ideal",
     "what the framework adds to the hardware's step: PyTorch DDP's host\n"
     "work per operation and per bucket, bucket copies, NCHW layout copies\n"
     "around convolutions, autocast's weight casts and fp32 residual\n"
     "stream at bf16/fp16, foreach optimizer passes (default), or none"},
    {"optimizer", OPT_OPTIMIZER, 1, S_RUN | S_TRAIN, NULL, "sgd|adamw|adamw-fused",
     "the update after the last all-reduce: sgd (default; momentum, one\n"
     "fp32 state), adamw (two fp32 states, m and v; under pytorch-ddp\n"
     "PyTorch's default foreach passes, 8 over the parameters, under\n"
     "ideal one fused pass) or adamw-fused (one fused pass under any\n"
     "framework: torch.optim.AdamW(fused=True)); run.json\n"
     "train.optimizer_fused says which ran"},
    {"cudnn", OPT_CUDNN, 1, S_RUN | S_TRAIN, NULL, "auto|on|off",
     "run in cuDNN what PyTorch runs there: convolutions whose geometry\n"
     "the profile gives, batch norms at fp32/fp16. auto (default):\n"
     "when libcudnn.so.9 loads; on: or stop; off: implicit GEMMs, passes"},
    {"no-train", OPT_NO_TRAIN, 0, S_RUN, NULL, "", "no training step (run: collectives and topology only)"},
    {"hwloc-xml", OPT_XML, 1, S_TOPO, "topology and copies", "FILE",
     "read a saved hwloc XML instead of this machine: nothing\n"
     "runs (no --timeout, --emulate-nodes)"},
    {"copy-bytes", OPT_COPY_BYTES, 1, S_P2P, NULL, "SIZE", "bytes per copy (default 256M)"},
    {"copy-iters", OPT_COPY_ITERS, 1, S_P2P, NULL, "N", "copies per measurement (default 20)"},
    {"host", OPT_HOST, 0, S_P2P, NULL, "",
     "pinned host<->device copies of every GPU (each alone, all at once,\n"
     "from another NUMA node) instead of GPU pairs"},
    {"backend", OPT_BACKEND, 1, S_MEASURE, "process and output", "nccl|mpi",
     "GPU collectives (NCCL) or host-memory MPI collectives"},
    {"emulate-nodes", OPT_EMULATE, 1, S_ALL, NULL, "K",
     "split the ranks into K virtual hosts of consecutive ranks, as if on\n"
     "K machines (NCCL talks NET between them; needs mpirun;\n"
     "docs/multinode.md)"},
    {"timeout", OPT_TIMEOUT, 1, S_ALL, NULL, "S",
     "abort a collective or wait that stalls longer than S s (default 300)"},
    {"format", OPT_FORMAT, 1, S_ALL, NULL, "table|json|csv", "what stdout shows (default table)"},
    {"out", OPT_OUT, 1, S_ALL, NULL, "DIR", "result directory (default results/<date>-<time>-<subcommand>)"},
    {"no-save", OPT_NO_SAVE, 0, S_ALL, NULL, "", "write no result directory"},
    {"no-nccl-log", OPT_NO_NCCL_LOG, 0, S_MEASURE, NULL, "", "do not capture NCCL's INFO log (transport attribution)"},
    {"quiet", 'q', 0, S_ALL, NULL, "", "errors only, no progress"},
    {"verbose", 'v', 0, S_ALL, NULL, "", "more detail (run: every nccl-tests table too); twice: debug"},
    {"help", 'h', 0, S_ALL, NULL, "", "this list"},
};
_Static_assert(sizeof nvs_opt_specs / sizeof nvs_opt_specs[0] == NSPECS, "NSPECS: the table's rows");

unsigned nvs_opt_sub_mask(const char *sub)
{
    if (!sub || !strcmp(sub, "run")) return S_RUN;
    if (!strcmp(sub, "coll")) return S_COLL;
    if (!strcmp(sub, "train")) return S_TRAIN;
    if (!strcmp(sub, "topo")) return S_TOPO;
    if (!strcmp(sub, "p2p")) return S_P2P;
    return S_RUN;
}

/* The subcommands an option belongs to, for "--hwloc-xml is an option of: topo". */
void nvs_opt_owners(unsigned subs, char *buf, size_t len)
{
    static const char *const names[] = {"run", "coll", "train", "topo", "p2p"};
    buf[0] = '\0';
    for (int i = 0; i < 5; i++)
        if (subs & (1u << i)) snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", names[i]);
}

void nvs_config_usage(const char *sub, FILE *to)
{
    unsigned m = nvs_opt_sub_mask(sub);
    /* train has no default workload (cmd_run.c refuses it without --model): its usage line names the flag */
    fprintf(to, "usage: nvscale %s%s [options]\n", sub ? sub : "run", m == S_TRAIN ? " --model NAME|FILE[,..]" : "");
    const char *group = NULL;
    for (int i = 0; i < NSPECS; i++) {
        if (nvs_opt_specs[i].group) group = nvs_opt_specs[i].group;
        if (!(nvs_opt_specs[i].subs & m)) continue;
        if (group) {
            fprintf(to, "%s:\n", group);
            group = NULL;
        }
        char left[64];
        if (nvs_opt_specs[i].key < 256)
            snprintf(left, sizeof left, "  -%c, --%s %s", nvs_opt_specs[i].key, nvs_opt_specs[i].name,
                     nvs_opt_specs[i].arg);
        else
            snprintf(left, sizeof left, "      --%s %s", nvs_opt_specs[i].name, nvs_opt_specs[i].arg);
        /* the text starts in column 30, or on the next line when the flag is wider */
        if (strlen(left) < 29)
            fprintf(to, "%-29s", left);
        else
            fprintf(to, "%s\n%29s", left, "");
        for (const char *p = nvs_opt_specs[i].help; *p; p++) {
            fputc(*p, to);
            if (*p == '\n') fprintf(to, "%29s", "");
        }
        fputc('\n', to);
    }
}
