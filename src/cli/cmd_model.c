/* nvscale model: the what-if cost model of a data-parallel step (docs/model.md). This file only gathers and
 * validates inputs (flags, preset files, run.json), hands them to the pure model (model*.c) and the printers
 * (model_out.c), and writes the output whole or not at all. Exit: 0 ok, 1 runtime error, 2 bad input. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/log.h"
#include "model/model_calib.h"
#include "model/model_eval.h"
#include "model/model_gap.h"
#include "model/lambda_out.h"
#include "model/model_host.h"
#include "model/model_out.h"
#include "core/out_file.h"
#include "model/preset.h"
#include "core/units.h"
#include "workload/profile.h"

#define MAX_LIST 64          /* entries of a --gpus / --nodes list */
#define MAX_CONFIGS 16       /* --gpu x --machine */
#define MAX_PRESET_FILES 16
#define MAX_TOTAL_GPUS 65536 /* a what-if, not a census: beyond this the alpha-beta model says nothing new */
#define MAX_BATCH NVS_MODEL_MAX_BATCH /* model.h: the bound --batch max has too */

static void usage(FILE *to)
{
    fprintf(to,
            "usage: nvscale model --gpu ID[,ID] --machine ID[,ID] --model NAME|FILE [options]\n"
            "       nvscale model --lambda [--fit]\n"
            "       nvscale model --calibrate RUN.json [--machine ID] [--gpu ID] [--model NAME|FILE] [--tolerance PCT]\n"
            "                     [--host-mem-gbps X] [--gpus LIST | --nodes LIST --net ID]\n"
            "       nvscale model --list-presets [--format json]\n"
            "What-if cost model of a data-parallel training step: per-layer compute from the GPU's rates, DDP\n"
            "gradient buckets, ring/tree all-reduce over the machine's link graph (alpha-beta per hop), overlap of\n"
            "buckets with backward; step time, exposed communication and efficiency for N = 1 ... 65536 GPUs.\n"
            "A --calibrate RUN.json or --preset-file FILE of '-' is read from standard input (one of them).\n"
            "  --gpu ID[,ID]          GPU presets (--list-presets); two GPUs: the gap is explained\n"
            "  --machine ID[,ID]      machine presets (one node's GPUs, PCIe switches, NVLink)\n"
            "  --pairs                GPU i on machine i (as many --gpu as --machine), not every combination:\n"
            "                         two boxes compared, e.g. 3090 in one and A6000 in another; the gap explained\n"
            "  --model NAME|FILE      model profile: resnet50 ssd300 maskrcnn maskrcnn-nvidia bert-large\n"
            "                         bert-large-mlm128 bert-large-squad transformer-xl-large gpt2-xl, or a\n"
            "                         profile file (docs/profiles.md)\n"
            "  --batch B|max          per-GPU batch (default max: the largest that fits in the GPU's memory;\n"
            "                         with --calibrate: the run's, given only where it records none)\n"
            "  --gpus LIST            GPU counts, e.g. 1,2,4,8 (above one node: multiples of --gpus-per-node)\n"
            "  --nodes LIST           node counts, e.g. 1,2,4,16, with --gpus-per-node G GPUs each\n"
            "  --gpus-per-node G      default: the machine's GPU count\n"
            "  --net ID               network between nodes (ib-hdr200, eth-100g, ...); needed above one node\n"
            "  --precision P          fp32 | tf32 | bf16 | fp16 (AMP) (default fp32)\n"
            "  --grad fp32|bf16|fp16  gradient type all-reduced (default fp32)\n"
            "  --algo A               all-reduce algorithm: ring (default) | tree | nvls | nvlstree (NVLink SHARP,\n"
            "                         where the NVSwitch reduces; Hopper or later GPUs) | collnet (IB SHARP) |\n"
            "                         auto (the fastest per bucket)\n"
            "  --p2p on|off           off models NCCL_P2P_DISABLE=1 (SHM through host memory everywhere)\n"
            "  --shm on|off           off models NCCL_SHM_DISABLE=1: what P2P does not join goes over NCCL's NET\n"
            "                         transport (sockets inside the node; the machine's net_local_gbps)\n"
            "  --nccl VERSION         NCCL's P2P rule of that version, e.g. 2.7.8 (default: today's)\n"
            "  --dp ddp|delay|none    data-parallel mode (default: the profile's): buckets overlapping backward,\n"
            "                         one all-reduce after backward (apex delay_allreduce), no all-reduce\n"
            "  --step-cv F            variation of a rank's compute time per step (waiting for the slowest rank)\n"
            "  --framework F          pytorch-ddp (default, as nvscale train): the framework's host work per\n"
            "                         operation and per bucket, its bucket and layout copies | ideal: the hardware\n"
            "                         alone (--calibrate takes the run's own; with --gpus/--nodes this one\n"
            "                         for the projection)\n"
            "  --optimizer O          the optimizer after the last all-reduce: sgd (default, as nvscale train):\n"
            "                         SGD with momentum, one fp32 state | adamw: AdamW, two (m, v): 8 bytes a\n"
            "                         parameter in the memory estimate, and its update's passes (the framework's:\n"
            "                         pytorch-ddp's 8 foreach passes, ideal's one fused) | adamw-fused: AdamW as\n"
            "                         one fused pass under any framework (torch.optim.AdamW(fused=True))\n"
            "  --overlap-penalty F    interference: share of the time the GPU computes beside an all-reduce that\n"
            "                         lengthens the step, at every N (default: a share per NCCL transport,\n"
            "                         fitted on 2x H200: the terms' interference@ lines)\n"
            "  --bucket-first SIZE    first DDP bucket (default 1M); --bucket-cap SIZE: the others (default 25M),\n"
            "                         and alone the first too, as DDP 2.x's bucket_cap_mb does\n"
            "  --calibrate RUN.json   fit link and overhead terms to a measured run and report the model's error\n"
            "  --tolerance PCT        with --calibrate: exit 3 when the step time error at any N exceeds PCT %%\n"
            "  --lambda               the Lambda case: the model beside Lambda's measured 8x RTX 3090 vs 8x RTX A6000\n"
            "                         scaling (4 models, fp32 and fp16, N = 2, 4, 8), errors and causes\n"
            "  --fit                  with --lambda: refit the free parameters on their declared cells first\n"
            "  --host-mem-gbps X      with --calibrate: host memory bandwidth (build/hostbw) for the SHM host check\n"
            "  --list-presets         GPUs, machines and networks known (with sources in --format json)\n"
            "  --preset-file FILE     add or override presets (format: docs/model.md); repeatable\n"
            "  --format table|json    what is printed (default table)\n"
            "  -o, --output FILE      write there (whole or not at all) instead of stdout\n"
            "  -h, --help\n");
}

/* a usage error: one message and the help hint (cli_common.h) */
#define usage_error(...) nvs_cli_usage("model", __VA_ARGS__)

typedef struct {
    const char *gpu, *machine, *model, *batch, *gpus, *nodes, *gpn, *net, *precision, *grad, *algo, *p2p, *shm;
    const char *bucket_first, *bucket_cap, *calibrate, *format, *output, *tolerance, *overlap;
    const char *nccl, *dp, *step_cv, *host_mem, *framework, *optimizer;
    const char *output_flag; /* -o or --output, as given: for messages */
    const char *preset_files[MAX_PRESET_FILES];
    int npreset_files;
    int lambda, list, fit, pairs;
} opts;

enum {
    O_GPU = 1000, O_MACHINE, O_MODEL, O_BATCH, O_GPUS, O_NODES, O_GPN, O_NET, O_PRECISION, O_GRAD, O_ALGO, O_P2P,
    O_SHM, O_BFIRST, O_BCAP, O_CALIBRATE, O_LAMBDA, O_LIST, O_PRESET_FILE, O_FORMAT, O_TOL, O_OVERLAP, O_NCCL, O_DP,
    O_STEP_CV, O_FIT, O_HOST_MEM, O_FRAMEWORK, O_PAIRS, O_OPTIMIZER
};

/* A list of positive integers in 1..hi, sorted; one given twice is refused. */
static int parse_int_list(const char *flag, const char *s, long hi, int *out, int *n)
{
    char *copy, *w[MAX_LIST], why[160];
    int k = nvs_list_split(s, &copy, w, MAX_LIST, why, sizeof why);
    if (k < 0) {
        free(copy);
        usage_error("%s '%s': %s (expected a comma-separated list of at most %d numbers)", flag, s, why, MAX_LIST);
        return -1;
    }
    *n = 0;
    for (int i = 0; i < k; i++) {
        long v;
        if (nvs_parse_long(w[i], &v) || v < 1 || v > hi) {
            usage_error("%s: '%s' is not a whole number in 1..%ld", flag, w[i], hi);
            free(copy);
            return -1;
        }
        int j = *n;
        while (j > 0 && out[j - 1] > v) {
            out[j] = out[j - 1];
            j--;
        }
        if (j > 0 && out[j - 1] == v) { /* as run's --gpus: a repeat is a typo, not a second point */
            usage_error("%s '%s': %ld given twice (each count once)", flag, s, v);
            free(copy);
            return -1;
        }
        out[j] = (int)v;
        (*n)++;
    }
    free(copy);
    return 0;
}

/* --bucket-first / --bucket-cap: read as run's and train's are (cli_common.h nvs_cli_size: 1.5M taken, 1.3K refused
 * as no whole number of bytes), with the same words */
static int parse_size_flag(const char *flag, const char *s, const char *expect, double *out)
{
    size_t v;
    char why[256];
    if (nvs_cli_size(s, 1, &v, expect, why, sizeof why)) {
        usage_error("%s '%s': %s", flag, s, why);
        return -1;
    }
    *out = (double)v;
    return 0;
}

/* Write the rendered output to stdout or --output, whole or not at all. */
static int emit(const char *path, const char *text)
{
    if (path) /* it says what went wrong: exit 2 for a path that cannot be written, 1 for a failed write */
        return nvs_exit_code(nvs_write_text_file(path, text));
    size_t len = strlen(text);
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nvscale model: writing to stdout failed: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

/* Render into memory: a FILE* for the printers, or a JSON document. */
typedef struct {
    char *buf;
    size_t len;
    FILE *f;
} membuf;

static int mem_open(membuf *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    return m->f ? 0 : -1;
}

static int mem_close(membuf *m)
{
    int bad = ferror(m->f) != 0;
    bad |= fclose(m->f) != 0;
    m->f = NULL;
    return bad ? -1 : 0;
}

static int emit_json(const char *path, json_t *doc)
{
    if (!doc) {
        fprintf(stderr, "nvscale model: out of memory building the JSON output\n");
        return 1;
    }
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(doc);
    if (!text) {
        fprintf(stderr, "nvscale model: out of memory writing the JSON output\n");
        return 1;
    }
    size_t len = strlen(text);
    char *withnl = malloc(len + 2);
    if (!withnl) {
        free(text);
        return 1;
    }
    memcpy(withnl, text, len);
    withnl[len] = '\n';
    withnl[len + 1] = '\0';
    free(text);
    int rc = emit(path, withnl);
    free(withnl);
    return rc;
}

/* Shapes (nodes x gpn) to evaluate for one machine. Returns the count, or -1 (message printed). */
static int shapes_of(const opts *o, const nvs_model_config *c, int *nodes, int *gpn)
{
    int g = c->machine.gpus, k = 0, list[MAX_LIST], nl = 0;
    if (o->gpn) {
        long v;
        if (nvs_parse_long(o->gpn, &v) || v < 1 || v > c->machine.gpus) {
            usage_error("--gpus-per-node '%s': machine '%s' has 1..%d GPUs", o->gpn, c->machine.id, c->machine.gpus);
            return -1;
        }
        g = (int)v;
    }
    if (o->nodes) {
        if (parse_int_list("--nodes", o->nodes, MAX_TOTAL_GPUS, list, &nl)) return -1;
        for (int i = 0; i < nl; i++) {
            if ((long)list[i] * g > MAX_TOTAL_GPUS) {
                usage_error("--nodes %d x %d GPUs: more than %d GPUs", list[i], g, MAX_TOTAL_GPUS);
                return -1;
            }
            nodes[k] = list[i];
            gpn[k++] = g;
        }
        return k;
    }
    if (o->gpus) {
        if (parse_int_list("--gpus", o->gpus, MAX_TOTAL_GPUS, list, &nl)) return -1;
        for (int i = 0; i < nl; i++) {
            if (list[i] <= g) {
                nodes[k] = 1;
                gpn[k++] = list[i];
            } else if (list[i] % g == 0) {
                nodes[k] = list[i] / g;
                gpn[k++] = g;
            } else {
                usage_error("--gpus %d: more than one node of %d GPUs (machine '%s') must be a multiple of %d", list[i],
                            g, c->machine.id, g);
                return -1;
            }
        }
        return k;
    }
    /* default: 1, 2, 4 ... the node; with a network, doubling the nodes up to 1024 GPUs */
    for (int n = 1; n < g && k < MAX_LIST; n *= 2) {
        nodes[k] = 1;
        gpn[k++] = n;
    }
    nodes[k] = 1;
    gpn[k++] = g;
    if (c->has_net)
        for (int m = 2; (long)m * g <= 1024 && k < MAX_LIST; m *= 2) {
            nodes[k] = m;
            gpn[k++] = g;
        }
    return k;
}

static int load_presets(const opts *o, nvs_presets *ps)
{
    char err[1024];
    if (nvs_presets_load_builtin(ps, err, sizeof err) != NVS_OK) {
        fprintf(stderr, "nvscale model: built-in presets are broken: %s\n", err); /* a bug, caught by tests */
        return 1;
    }
    for (int i = 0; i < o->npreset_files; i++) {
        nvs_cli_reading rd = nvs_cli_read_begin("model"); /* a file that cannot be read: model's refusal */
        nvs_result_t r = nvs_presets_load_file(ps, o->preset_files[i], err, sizeof err);
        nvs_cli_read_end(rd);
        if (r != NVS_OK) {
            if (err[0]) fprintf(stderr, "nvscale model: %s\n", err);
            return 2;
        }
    }
    return 0;
}

/* --p2p / --shm VALUE: on (the transport as NCCL's rules have it) or off (turned off); 2 after a usage message */
static int transport_off(const char *flag, const char *v, int *off)
{
    if (!strcmp(v, "on") || !strcmp(v, "off")) {
        *off = !strcmp(v, "off");
        return 0;
    }
    return usage_error("%s '%s': expected on or off", flag, v);
}

/* Settings shared by every configuration (precision, grad, algo, p2p, buckets, net). */
static int common_settings(const opts *o, const nvs_presets *ps, nvs_model_config *c)
{
    if (o->precision && nvs_precision_parse(o->precision, &c->prec))
        return usage_error("--precision '%s': expected fp32, tf32, bf16 or fp16", o->precision);
    if (o->grad) {
        if (!strcmp(o->grad, "fp32"))
            c->grad_bytes = 4;
        else if (!strcmp(o->grad, "bf16") || !strcmp(o->grad, "fp16"))
            c->grad_bytes = 2;
        else
            return usage_error("--grad '%s': expected fp32, bf16 or fp16", o->grad);
    }
    if (o->nccl) {
        int code;
        if (nvs_nccl_version_parse(o->nccl, &code))
            return usage_error("--nccl '%s': expected a version such as 2.7.8 or 2.28.3", o->nccl);
        c->machine.nccl = code; /* the machine is set before (mode_project) */
    }
    if (o->dp) {
        nvs_dp_mode m;
        if (nvs_dp_parse(o->dp, &m)) return usage_error("--dp '%s': expected ddp, delay or none", o->dp);
        c->dp = (int)m;
    }
    if (o->framework && !(c->fw = nvs_framework_find(o->framework)))
        return usage_error("--framework '%s': expected %s", o->framework, nvs_framework_choices());
    if (o->optimizer && nvs_optimizer_parse(o->optimizer, &c->opt, &c->adamw_fused))
        return usage_error("--optimizer '%s': expected %s", o->optimizer, nvs_optimizer_choices());
    if (o->step_cv) {
        double v;
        if (nvs_parse_double(o->step_cv, &v) || v < 0 || v > 1)
            return usage_error("--step-cv '%s': expected a fraction from 0 to 1", o->step_cv);
        c->step_cv = v;
    }
    if (o->algo && nvs_algo_parse(o->algo, &c->algo))
        return usage_error("--algo '%s': expected ring, tree, nvls, nvlstree, collnet or auto", o->algo);
    if (c->algo == NVS_ALGO_NVLS || c->algo == NVS_ALGO_NVLSTREE) {
        /* asked by name for what the GPU cannot do: refused (auto falls back to ring or tree; a machine without
         * NVLink SHARP, or a shape NVLS does not take, falls back to the ring: model.h) */
        char why[320];
        if (!nvs_gpu_nvls(&c->gpu, why, sizeof why)) return usage_error("--algo %s: %s", nvs_algo_name(c->algo), why);
    }
    /* NCCL transports turned off, as the environment would (NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1) */
    if (o->p2p && transport_off("--p2p", o->p2p, &c->p2p_disabled)) return 2;
    if (o->shm && transport_off("--shm", o->shm, &c->shm_disabled)) return 2;
    if (o->overlap) {
        /* interference: the share of the time the GPU computes beside an all-reduce that still lengthens the
         * step (NCCL takes SMs, memory and PCIe bandwidth from the compute); by default per transport
         * (model/interference.h), --calibrate measures it, this sets one for every N */
        double v;
        if (nvs_parse_double(o->overlap, &v) || v < 0 || v > 1)
            return usage_error("--overlap-penalty '%s': expected a fraction from 0 to 1", o->overlap);
        c->overlap_penalty = v; /* "-0" is 0 already (nvs_parse_double) */
    }
    if (o->bucket_first && parse_size_flag("--bucket-first", o->bucket_first, "expected a size from 1 to 1T such as 1M",
                                            &c->bucket_first_bytes)) return 2;
    if (o->bucket_cap && parse_size_flag("--bucket-cap", o->bucket_cap, "expected a size from 1 to 1T such as 25M",
                                          &c->bucket_cap_bytes)) return 2;
    /* as DDP 2.x: an explicit bucket_cap_mb sizes the first bucket too (src/cli/options.c says where from) */
    if (o->bucket_cap && !o->bucket_first) c->bucket_first_bytes = c->bucket_cap_bytes;
    if (o->net) {
        const nvs_preset *np = nvs_presets_find(ps, NVS_PK_NET, o->net);
        if (!np) return usage_error("--net '%s': unknown network (nvscale model --list-presets)", o->net);
        nvs_net_spec_from(np, &c->net);
        c->has_net = 1;
    }
    if (c->algo == NVS_ALGO_COLLNET && (!c->has_net || !c->net.sharp))
        return usage_error("%s", "--algo collnet needs --net with in-network reduction (sharp 1: ib-hdr200, ib-ndr400)");
    return 0;
}

/* Batch: user value or the largest that fits. */
static int set_batch(const opts *o, nvs_model_config *c, nvs_mem_estimate *mem)
{
    int maxb = nvs_model_max_batch(c, mem);
    if (!o->batch || !strcmp(o->batch, "max")) {
        if (maxb < 1)
            return usage_error("%s does not fit on %s even at batch 1 by the memory estimate "
                               "(weights, gradients, optimizer and reserve take %.2f GB of its %.1f GB; %.1f MB per "
                               "sample): give --batch",
                               c->profile->name, c->gpu.id,
                               (mem->weights_bytes + mem->grads_bytes + mem->buckets_bytes + mem->optimizer_bytes +
                                mem->reserve_bytes) / 1e9,
                               c->gpu.memory_bytes / 1e9, mem->per_sample_bytes / 1e6);
        c->batch = maxb;
        c->batch_is_max = 1;
        return 0;
    }
    long v;
    if (nvs_parse_long(o->batch, &v) || v < 1 || v > MAX_BATCH) {
        return usage_error("--batch '%s': expected a whole number in 1..%d or 'max'", o->batch, MAX_BATCH);
    }
    c->batch = (int)v;
    if (v > maxb)
        nvs_warn("batch %ld on %s is above the largest the memory estimate allows (%d): modelled anyway", v,
                 c->gpu.id, maxb);
    return 0;
}

static int eval_series(const opts *o, nvs_model_series *s)
{
    int nodes[MAX_LIST + 16], gpn[MAX_LIST + 16];
    int k = shapes_of(o, &s->cfg, nodes, gpn);
    if (k < 0) return 2;
    /* a network given but never crossed: the label says "+ NET", and a planner would take it as modelled */
    int across = 0;
    for (int i = 0; i < k; i++) across |= nodes[i] > 1;
    if (s->cfg.has_net && !across)
        nvs_warn("--net %s: %s: every GPU count asked for fits on one machine of %d GPUs, so nothing crosses the "
                 "network (give --gpus above %d, or --nodes)",
                 o->net, s->cfg.label, s->cfg.machine.gpus, s->cfg.machine.gpus);
    s->pts = calloc((size_t)k, sizeof *s->pts);
    if (!s->pts) return 1;
    for (int i = 0; i < k; i++) {
        char err[512];
        nvs_result_t r = nvs_model_eval(&s->cfg, nodes[i], gpn[i], &s->pts[i], err, sizeof err);
        if (r == NVS_ERR_INPUT) return usage_error("%s: %s", s->cfg.label, err); /* a shape the flags asked for */
        if (r != NVS_OK) {
            fprintf(stderr, "nvscale model: %s: %s\n", s->cfg.label, err);
            return 1;
        }
        s->npts++;
    }
    return 0;
}

static int render_and_emit(const opts *o, int json, void (*print)(FILE *, const void *), const void *arg,
                           json_t *doc)
{
    if (json) return emit_json(o->output, doc);
    membuf m;
    if (mem_open(&m)) return 1;
    print(m.f, arg);
    if (mem_close(&m)) {
        free(m.buf);
        fprintf(stderr, "nvscale model: out of memory rendering the table\n");
        return 1;
    }
    int rc = emit(o->output, m.buf);
    free(m.buf);
    return rc;
}

/* The first flag given that only shapes a projection's configuration (common_settings), or NULL. A mode that has
 * no projection to apply it to refuses it by name rather than drop it. */
static const char *projection_setting(const opts *o)
{
    return o->precision      ? "--precision"
           : o->grad         ? "--grad"
           : o->algo         ? "--algo"
           : o->p2p          ? "--p2p"
           : o->shm          ? "--shm"
           : o->overlap      ? "--overlap-penalty"
           : o->bucket_first ? "--bucket-first"
           : o->bucket_cap   ? "--bucket-cap"
           : o->gpn          ? "--gpus-per-node"
           : o->framework    ? "--framework"
           : o->optimizer    ? "--optimizer"
           : o->nccl         ? "--nccl"
           : o->dp           ? "--dp"
           : o->step_cv      ? "--step-cv"
                             : NULL;
}

/* ... or a flag that picks a projection's configurations and GPU counts (--gpu ... --net), or NULL */
static const char *projection_flag(const opts *o)
{
    return o->gpu ? "--gpu" : o->machine ? "--machine" : o->model ? "--model" : o->batch ? "--batch"
           : o->gpus ? "--gpus" : o->nodes ? "--nodes" : o->net ? "--net" : projection_setting(o);
}

/* --- the modes --------------------------------------------------------------------------------------------------- */

typedef struct {
    const nvs_presets *ps;
    const nvs_model_series *s;
    int ns;
    const nvs_gap *gap;
    int gap_n;
} series_args;

static void print_series_cb(FILE *f, const void *a)
{
    const series_args *x = a;
    nvs_model_print_series(f, x->ps, x->s, x->ns, x->gap, x->gap_n);
}

/* The points of a and b at the largest N above 1 both have (returns 1 if there is one): the gap is explained there, each
 * configuration at its own shape (two boxes of 4 and 8 GPUs run 16 GPUs as 4 x 4 and 2 x 8; with --nodes their
 * N differ altogether), so that it splits the efficiencies their rows show */
static int gap_points(const nvs_model_series *a, const nvs_model_series *b, const nvs_model_point **pa,
                      const nvs_model_point **pb)
{
    for (int i = a->npts - 1; i >= 0; i--)
        for (int j = b->npts - 1; j >= 0 && a->pts[i].n > 1; j--)
            if (b->pts[j].n == a->pts[i].n) {
                *pa = &a->pts[i];
                *pb = &b->pts[j];
                return 1;
            }
    return 0;
}

static int mode_project(const opts *o, const nvs_presets *ps, int json)
{
    char *gcopy = NULL, *mcopy = NULL, *gw[MAX_CONFIGS], *mw[MAX_CONFIGS];
    nvs_model_series s[MAX_CONFIGS];
    nvs_profile prof;
    int ns = 0, rc = 0, have_prof = 0;
    memset(s, 0, sizeof s);
    if (!o->gpu) return usage_error("%s", "--gpu is required (nvscale model --list-presets)");
    if (!o->machine) return usage_error("%s", "--machine is required (nvscale model --list-presets)");
    if (!o->model) return usage_error("%s", "--model is required (resnet50, bert-large, ... or a profile file)");
    if (o->gpus && o->nodes) return usage_error("%s", "--gpus and --nodes: give one of them");
    char why[160];
    int ng = nvs_list_split(o->gpu, &gcopy, gw, MAX_CONFIGS, why, sizeof why);
    int nm = ng < 0 ? -1 : nvs_list_split(o->machine, &mcopy, mw, MAX_CONFIGS, why, sizeof why);
    if (ng < 0 || nm < 0 || ng * nm > MAX_CONFIGS) {
        if (ng < 0 || nm < 0)
            rc = usage_error("--gpu and --machine: %s (comma-separated ids, at most 16 combinations)", why);
        else
            rc = usage_error("%s", "--gpu and --machine: comma-separated ids, at most 16 combinations");
        goto out;
    }
    if (o->pairs && ng != nm) {
        rc = usage_error("--pairs: %d --gpu value(s) and %d --machine value(s); pairs need as many of each", ng, nm);
        goto out;
    }
    char err[1024];
    if (nvs_profile_load(o->model, &prof, err, sizeof err) != NVS_OK) {
        fprintf(stderr, "nvscale model: --model: %s\n", err);
        rc = 2;
        goto out;
    }
    have_prof = 1;
    for (int i = 0; i < ng && !rc; i++) {
        const nvs_preset *gp = nvs_presets_find(ps, NVS_PK_GPU, gw[i]);
        if (!gp) {
            rc = usage_error("--gpu '%s': unknown GPU (nvscale model --list-presets)", gw[i]);
            break;
        }
        for (int j = 0; j < nm && !rc; j++) {
            if (o->pairs && j != i) continue; /* GPU i on machine i only */
            const nvs_preset *mp = nvs_presets_find(ps, NVS_PK_MACHINE, mw[j]);
            if (!mp) {
                rc = usage_error("--machine '%s': unknown machine (nvscale model --list-presets)", mw[j]);
                break;
            }
            /* the same GPU on the same machine twice (--gpu a,a, --machine x,x, or a pair given twice) would
             * print one configuration twice and explain a gap of nothing between them */
            int dup = 0;
            for (int k = 0; k < ns && !dup; k++)
                dup = !strcmp(s[k].cfg.gpu.id, gp->id) && !strcmp(s[k].cfg.machine.id, mp->id);
            if (dup) {
                rc = usage_error("--gpu '%s' on --machine '%s' given twice: each configuration once", gp->id,
                                 mp->id);
                break;
            }
            nvs_model_series *x = &s[ns++];
            nvs_model_config_init(&x->cfg);
            x->cfg.fw = nvs_framework_default(); /* as `nvscale train` runs its step; --framework changes it */
            nvs_gpu_spec_from(gp, &x->cfg.gpu);
            nvs_machine_spec_from(mp, &x->cfg.machine);
            x->cfg.profile = &prof;
            snprintf(x->cfg.label, sizeof x->cfg.label, "%s @ %s", gp->id, mp->id);
            if ((rc = common_settings(o, ps, &x->cfg))) break;
            if (x->cfg.has_net) {
                size_t l = strlen(x->cfg.label);
                snprintf(x->cfg.label + l, sizeof x->cfg.label - l, " + %s", x->cfg.net.id);
            }
            if ((rc = set_batch(o, &x->cfg, &x->mem))) break;
            if ((rc = eval_series(o, x))) break;
        }
    }
    if (!rc) {
        nvs_gap gap, *gp = NULL;
        int gap_n = 0;
        const nvs_model_point *pa, *pb;
        if (ns == 2 && ng == 2 && gap_points(&s[0], &s[1], &pa, &pb) &&
            nvs_model_gap_at(&s[0].cfg, pa->nodes, pa->gpn, &s[1].cfg, pb->nodes, pb->gpn, &gap, err, sizeof err) ==
                NVS_OK) {
            gp = &gap;
            gap_n = pa->n;
        }
        series_args a = {ps, s, ns, gp, gap_n};
        rc = render_and_emit(o, json, print_series_cb, &a, json ? nvs_model_json_series(ps, s, ns, gp, gap_n) : NULL);
    }
out:
    for (int i = 0; i < ns; i++) free(s[i].pts);
    if (have_prof) nvs_profile_free(&prof);
    free(gcopy);
    free(mcopy);
    return rc;
}

static void print_lambda_cb(FILE *f, const void *a) { nvs_lambda_print(f, a); }

static int mode_lambda(const opts *o, const nvs_presets *ps, int json)
{
    const char *flag = projection_flag(o);
    if (flag)
        return usage_error("%s: --lambda models Lambda's own runs (their GPUs, boxes, batches, "
                           "precisions and N = 2, 4, 8): it takes only --fit, --preset-file, --format and --output",
                           flag);
    char err[512];
    nvs_lambda_params par, fitp;
    double resid[NVS_LAMBDA_NFIT];
    if (nvs_lambda_params_committed(ps, &par, err, sizeof err) != NVS_OK) {
        fprintf(stderr, "nvscale model: %s\n", err);
        return 2;
    }
    if (o->fit && nvs_lambda_fit(ps, &par, &fitp, resid, err, sizeof err) != NVS_OK) {
        fprintf(stderr, "nvscale model: fitting the Lambda case: %s\n", err);
        return 1;
    }
    int nrows = nvs_lambda_nworkloads * NVS_LAMBDA_PRECS;
    nvs_lambda_row *rows = calloc((size_t)nrows, sizeof *rows);
    if (!rows) return 1;
    int rc = 0;
    for (int w = 0; w < nvs_lambda_nworkloads && !rc; w++)
        for (int fp16 = 0; fp16 < NVS_LAMBDA_PRECS && !rc; fp16++) {
            /* with --fit the table is the refit parameters' (equal to the committed ones unless a preset file
             * or the data changed) */
            nvs_result_t r = nvs_lambda_row_eval(ps, o->fit ? &fitp : &par, w, fp16,
                                                 &rows[w * NVS_LAMBDA_PRECS + fp16], err, sizeof err);
            if (r != NVS_OK) {
                fprintf(stderr, "nvscale model: %s\n", err);
                rc = r == NVS_ERR_INPUT ? 2 : 1;
            }
        }
    if (!rc) {
        nvs_lambda_report rep = {rows, nrows, par, o->fit ? &fitp : NULL, o->fit ? resid : NULL};
        rc = render_and_emit(o, json, print_lambda_cb, &rep, json ? nvs_lambda_json(&rep) : NULL);
    }
    free(rows);
    return rc;
}

typedef struct {
    const nvs_presets *ps;
    const nvs_calibration *c;
    const nvs_model_series *proj; /* may be NULL */
    const nvs_host_check *hc;
    int nhc;
} calib_args;

static void print_host_checks(FILE *f, const nvs_host_check *hc, int n)
{
    if (n <= 0) return;
    fprintf(f, "host path of the SHM all-reduce (docs/model.md, Host budget): N flows at busbw B store and load\n"
               "N x B GB/s through host memory, 2 x N x B of DRAM traffic\n");
    for (int i = 0; i < n; i++) {
        const nvs_host_check *h = &hc[i];
        fprintf(f, "  N=%d: measured busbw %.4g GB/s -> %.4g GB/s of flow bytes, %.4g GB/s of DRAM traffic", h->n,
                h->meas_gbps, h->flow_gbps, h->dram_gbps);
        if (h->host_mem_gbps > 0)
            fprintf(f, " = %.0f %% of the host memory bandwidth (%.4g GB/s)", 100 * h->dram_share, h->host_mem_gbps);
        fprintf(f, "\n    host budget that reproduces it if the host path binds: host_gbps %.4g per socket\n",
                h->implied_host_gbps);
        fprintf(f, "    machine preset: %.4g GB/s (%+.1f %%): %s\n", h->preset_gbps,
                nvs_model_pct1(100 * (h->preset_gbps - h->meas_gbps) / h->meas_gbps), h->preset_why);
        if (isfinite(h->mem_model_gbps))
            fprintf(f, "    budget = host memory bandwidth / 2: %.4g GB/s (%+.1f %%): %s\n", h->mem_model_gbps,
                    nvs_model_pct1(100 * (h->mem_model_gbps - h->meas_gbps) / h->meas_gbps), h->mem_model_why);
        else
            fprintf(f, "    (give --host-mem-gbps X, from `make hostbw && build/hostbw`, to test host memory as the "
                       "bound)\n");
    }
    fprintf(f, "\n");
}

static json_t *json_host_checks(const nvs_host_check *hc, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) {
        const nvs_host_check *h = &hc[i];
        json_t *x = json_pack("{s:i, s:f, s:f, s:f, s:o, s:o, s:f, s:f, s:s, s:o, s:s}", "n", h->n,
                              "measured_busbw_gbps", h->meas_gbps, "host_flow_gbps", h->flow_gbps, "dram_gbps",
                              h->dram_gbps, "host_mem_gbps", h->host_mem_gbps > 0 ? json_real(h->host_mem_gbps)
                                                                                 : json_null(),
                              "dram_share", isfinite(h->dram_share) ? json_real(h->dram_share) : json_null(),
                              "implied_host_gbps", h->implied_host_gbps, "preset_busbw_gbps", h->preset_gbps,
                              "preset_bottleneck", h->preset_why, "host_mem_model_busbw_gbps",
                              isfinite(h->mem_model_gbps) ? json_real(h->mem_model_gbps) : json_null(),
                              "host_mem_model_bottleneck", h->mem_model_why);
        if (!x || json_array_append_new(a, x)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static void print_calib_cb(FILE *f, const void *a)
{
    const calib_args *x = a;
    nvs_model_print_calibration(f, x->ps, x->c);
    print_host_checks(f, x->hc, x->nhc);
    if (x->proj) {
        fprintf(f, "\nprojection from the calibrated configuration\n");
        nvs_model_print_series(f, x->ps, x->proj, 1, NULL, 0);
    }
}

static int mode_calibrate(const opts *o, const nvs_presets *ps, int json)
{
    if (o->gpu && strchr(o->gpu, ',')) return usage_error("%s", "--calibrate takes one --gpu (the run's GPU)");
    if (o->machine && strchr(o->machine, ','))
        return usage_error("%s", "--calibrate takes one --machine (the run's machine)");
    if (o->gpus && o->nodes) return usage_error("%s", "--gpus and --nodes: give one of them");
    double tol = -1;
    if (o->tolerance && (nvs_parse_double(o->tolerance, &tol) || tol <= 0 || tol > 1000))
        return usage_error("--tolerance '%s': expected a percentage in (0, 1000]", o->tolerance);
    nvs_calib_opts co = {o->machine, o->gpu, o->model, 0};
    if (o->batch) {
        long v;
        if (nvs_parse_long(o->batch, &v) || v < 1 || v > MAX_BATCH)
            return usage_error("--batch '%s' with --calibrate: the run's per-GPU batch, a whole number", o->batch);
        co.batch = (int)v;
    }
    nvs_calibration c;
    char err[1024] = "";
    nvs_cli_reading rd = nvs_cli_read_begin("model"); /* the run.json reader's refusal: model's */
    nvs_result_t r = nvs_calibrate(o->calibrate, ps, &co, &c, err, sizeof err);
    nvs_cli_read_end(rd);
    if (r != NVS_OK) {
        /* an empty err: the run.json loader already printed the one message */
        if (err[0] || r != NVS_ERR_INPUT) fprintf(stderr, "nvscale model: %s\n", err[0] ? err : nvs_result_text(r));
        return nvs_exit_code(r);
    }
    int rc = 0;
    nvs_model_series proj, *pp = NULL;
    memset(&proj, 0, sizeof proj);
    if (!(o->gpus || o->nodes || o->net)) {
        /* the model's settings shape only a projection: without one they would be ignored, so a value is
         * checked (one message for a bad one) and then refused by name, never dropped */
        nvs_model_config scratch = c.cfg;
        /* --nccl, --dp and --step-cv were missing here and silently changed nothing */
        const char *ignored = projection_setting(o);
        if ((rc = common_settings(o, ps, &scratch)) == 0 && ignored)
            rc = usage_error("%s with --calibrate sets a projection from the calibrated configuration: add --gpus "
                             "or --nodes (without them it would change nothing)",
                             ignored);
        if (rc) goto out;
    }
    if (o->gpus || o->nodes || o->net) {
        if (!c.has_train) {
            nvs_calibration_free(&c);
            return usage_error("%s: the run has no training results to project from", nvs_input_name(o->calibrate));
        }
        proj.cfg = c.cfg;
        if ((rc = common_settings(o, ps, &proj.cfg))) goto out;
        nvs_model_max_batch(&proj.cfg, &proj.mem);
        if ((rc = eval_series(o, &proj))) goto out;
        pp = &proj;
    }
    /* the host path of an SHM run: NCCL_P2P_DISABLE=1, or a GPU without P2P, on a machine preset */
    nvs_host_check hc[NVS_MODEL_MAX_MEAS];
    int nhc = 0;
    double host_mem = c.cfg.machine.host_mem_gbps;
    if (o->host_mem) {
        if (nvs_parse_double(o->host_mem, &host_mem) || !(host_mem > 0) || host_mem > 1e5) {
            rc = usage_error("--host-mem-gbps '%s': expected GB/s, e.g. 180 (build/hostbw prints it)", o->host_mem);
            goto out;
        }
    }
    for (int i = 0; c.machine_preset[0] && i < c.nlinks && nhc < NVS_MODEL_MAX_MEAS; i++) {
        nvs_ring_links rl;
        int n = c.links[i].n;
        if (n < 2 || nvs_ring_links_of(&c.cfg.machine, &c.cfg.gpu, n, nvs_model_off(&c.cfg), &rl) != NVS_OK ||
            rl.transport != NVS_TR_SHM)
            continue;
        if (nvs_host_check_eval(&c.cfg.machine, &c.cfg.gpu, n, c.links[i].busbw_gbps, host_mem, &hc[nhc]) == NVS_OK)
            nhc++;
    }
    if (o->host_mem && nhc == 0) {
        rc = usage_error("%s", "--host-mem-gbps: the run has no SHM all-reduce on a machine preset to check "
                               "(NCCL_P2P_DISABLE=1, or GPUs without P2P; give --machine)");
        goto out;
    }
    calib_args ca = {ps, &c, pp, hc, nhc};
    json_t *doc = NULL;
    if (json) {
        doc = nvs_model_json_calibration(ps, &c);
        if (doc && nhc && json_object_set_new(doc, "host_check", json_host_checks(hc, nhc))) {
            json_decref(doc);
            doc = NULL;
        }
        if (doc && pp && json_object_set_new(doc, "projection", nvs_model_json_series(ps, pp, 1, NULL, 0))) {
            json_decref(doc);
            doc = NULL;
        }
    }
    rc = render_and_emit(o, json, print_calib_cb, &ca, doc);
    if (rc == 0 && tol > 0) {
        /* the stated tolerance: step time within tol % at every measured N */
        int checked = 0;
        for (int i = 0; i < c.ntrain; i++) {
            const nvs_calib_train_row *t = &c.train[i];
            if (!(t->meas_step_us > 0)) continue;
            double e = 100.0 * (t->model_step_us - t->meas_step_us) / t->meas_step_us;
            checked++;
            if (fabs(e) > tol) {
                fprintf(stderr, "nvscale model: %s: at N=%d the model's step time is off by %+.1f%% (tolerance %g%%)\n",
                        nvs_input_name(o->calibrate), t->n, e, tol);
                rc = 3;
            }
        }
        /* a measured N the model could not evaluate is one the gate cannot vouch for: it fails, naming it (the
         * gate passed on the Ns that were left, without a word) */
        for (int i = 0; i < c.nskip; i++) {
            fprintf(stderr, "nvscale model: %s: N=%d was measured but not modelled (%s): --tolerance cannot check it "
                            "(exit 3)\n", nvs_input_name(o->calibrate), c.skip[i].n, c.skip[i].why);
            rc = 3;
        }
        /* a gate that checked nothing must not pass: a run without training results (a killed run, a p2p run)
         * fails it, as check fails a rule whose number was not measured */
        if (!checked && !c.nskip) {
            fprintf(stderr, "nvscale model: %s: no training step measured: --tolerance checked nothing (exit 3)\n",
                    nvs_input_name(o->calibrate));
            rc = 3;
        }
    }
out:
    free(proj.pts);
    nvs_calibration_free(&c);
    return rc;
}

static void print_presets_cb(FILE *f, const void *a) { nvs_model_print_presets(f, a); }

int cmd_model(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"gpu", required_argument, 0, O_GPU},
        {"machine", required_argument, 0, O_MACHINE},
        {"model", required_argument, 0, O_MODEL},
        {"batch", required_argument, 0, O_BATCH},
        {"gpus", required_argument, 0, O_GPUS},
        {"nodes", required_argument, 0, O_NODES},
        {"gpus-per-node", required_argument, 0, O_GPN},
        {"net", required_argument, 0, O_NET},
        {"precision", required_argument, 0, O_PRECISION},
        {"grad", required_argument, 0, O_GRAD},
        {"algo", required_argument, 0, O_ALGO},
        {"p2p", required_argument, 0, O_P2P},
        {"shm", required_argument, 0, O_SHM},
        {"bucket-first", required_argument, 0, O_BFIRST},
        {"bucket-cap", required_argument, 0, O_BCAP},
        {"calibrate", required_argument, 0, O_CALIBRATE},
        {"tolerance", required_argument, 0, O_TOL},
        {"overlap-penalty", required_argument, 0, O_OVERLAP},
        {"nccl", required_argument, 0, O_NCCL},
        {"dp", required_argument, 0, O_DP},
        {"step-cv", required_argument, 0, O_STEP_CV},
        {"framework", required_argument, 0, O_FRAMEWORK},
        {"optimizer", required_argument, 0, O_OPTIMIZER},
        {"fit", no_argument, 0, O_FIT},
        {"host-mem-gbps", required_argument, 0, O_HOST_MEM},
        {"lambda", no_argument, 0, O_LAMBDA},
        {"pairs", no_argument, 0, O_PAIRS},
        {"list-presets", no_argument, 0, O_LIST},
        {"preset-file", required_argument, 0, O_PRESET_FILE},
        {"format", required_argument, 0, O_FORMAT},
        {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    opts o;
    memset(&o, 0, sizeof o);
    optind = 1;
    opterr = 0;
    int c, li = -1, rc;
    for (int at = optind; (c = getopt_long(argc, argv, ":ho:", lopts, &li)) != -1; at = optind) {
        const char **slot = NULL;
        /* the flag as given, for messages: getopt_long sets li only for a long option ("--output", not "-o") */
        char flag[40];
        if (li >= 0) snprintf(flag, sizeof flag, "--%s", lopts[li].name);
        else snprintf(flag, sizeof flag, "-%c", c);
        li = -1;
        switch (c) {
        case 'h': usage(stdout); return fflush(stdout) == 0 ? 0 : 1;
        case 'o': slot = &o.output; break;
        case O_GPU: slot = &o.gpu; break;
        case O_MACHINE: slot = &o.machine; break;
        case O_MODEL: slot = &o.model; break;
        case O_BATCH: slot = &o.batch; break;
        case O_GPUS: slot = &o.gpus; break;
        case O_NODES: slot = &o.nodes; break;
        case O_GPN: slot = &o.gpn; break;
        case O_NET: slot = &o.net; break;
        case O_PRECISION: slot = &o.precision; break;
        case O_GRAD: slot = &o.grad; break;
        case O_ALGO: slot = &o.algo; break;
        case O_P2P: slot = &o.p2p; break;
        case O_SHM: slot = &o.shm; break;
        case O_BFIRST: slot = &o.bucket_first; break;
        case O_BCAP: slot = &o.bucket_cap; break;
        case O_CALIBRATE: slot = &o.calibrate; break;
        case O_TOL: slot = &o.tolerance; break;
        case O_OVERLAP: slot = &o.overlap; break;
        case O_NCCL: slot = &o.nccl; break;
        case O_DP: slot = &o.dp; break;
        case O_STEP_CV: slot = &o.step_cv; break;
        case O_FRAMEWORK: slot = &o.framework; break;
        case O_OPTIMIZER: slot = &o.optimizer; break;
        case O_HOST_MEM: slot = &o.host_mem; break;
        case O_FIT:
            if (o.fit) return usage_error("%s", "option --fit given twice");
            o.fit = 1;
            break;
        case O_FORMAT: slot = &o.format; break;
        case O_LAMBDA:
            if (o.lambda) return usage_error("%s", "option --lambda given twice");
            o.lambda = 1;
            break;
        case O_PAIRS:
            if (o.pairs) return usage_error("%s", "option --pairs given twice");
            o.pairs = 1;
            break;
        case O_LIST:
            if (o.list) return usage_error("%s", "option --list-presets given twice");
            o.list = 1;
            break;
        case O_PRESET_FILE:
            if (o.npreset_files == MAX_PRESET_FILES) return usage_error("%s", "at most 16 --preset-file");
            { /* "-": standard input, once */
                char what[32];
                snprintf(what, sizeof what, "--preset-file #%d", o.npreset_files + 1);
                if ((rc = nvs_cli_stdin_once("model", what, optarg))) return rc;
            }
            o.preset_files[o.npreset_files++] = optarg;
            break;
        case ':': return usage_error("option '%s' needs a value", nvs_cli_bad_option(argv, at, flag, sizeof flag));
        default: {
            char why[160];
            if (nvs_cli_value_on_flag(argv, lopts, why, sizeof why)) return usage_error("%s", why);
            return usage_error("unknown option '%s'", nvs_cli_bad_option(argv, at, flag, sizeof flag));
        }
        }
        if (slot) {
            if (*slot) return usage_error("option %s given twice", flag);
            if (!*optarg) return usage_error("option %s needs a non-empty value", flag);
            *slot = optarg;
            if (slot == &o.calibrate && (rc = nvs_cli_stdin_once("model", "--calibrate", optarg))) return rc;
            /* a profile is read several times (the projection, the calibration's checks): a pipe is read once */
            if (slot == &o.model && !nvs_profile_is_builtin(optarg) &&
                (rc = nvs_cli_stdin_refused("model", "--model", optarg, "a profile is read several times, a pipe "
                                                                        "once")))
                return rc;
            if (slot == &o.output) o.output_flag = flag[1] == '-' ? "--output" : "-o";
        }
    }
    if (optind < argc) return usage_error("unexpected argument '%s'", argv[optind]);
    int json = 0;
    if (o.format) {
        if (!strcmp(o.format, "json"))
            json = 1;
        else if (strcmp(o.format, "table"))
            return usage_error("--format '%s': expected table or json", o.format);
    }
    if (o.tolerance && !o.calibrate) return usage_error("%s", "--tolerance goes with --calibrate");
    if (o.host_mem && !o.calibrate) return usage_error("%s", "--host-mem-gbps goes with --calibrate");
    if (o.fit && !o.lambda) return usage_error("%s", "--fit goes with --lambda");
    if (o.pairs && (o.lambda || o.list || o.calibrate))
        return usage_error("%s", "--pairs goes with --gpu and --machine (a projection)");
    if (o.lambda + o.list + (o.calibrate != NULL) > 1)
        return usage_error("%s", "--lambda, --list-presets and --calibrate: give one of them");
    /* one preset file twice (./x and x, a link to it): read twice, the second overriding the first with itself, as
     * check and report refuse a run given twice; a typo for another file, most likely */
    if ((rc = nvs_cli_inputs_distinct("model", (char *const *)o.preset_files, (size_t)o.npreset_files,
                                      "give each --preset-file once")))
        return rc;
    if (o.output) {
        /* a path that cannot be written is refused now, as a usage error of model's ("nvscale model: -o ..."), not
         * after the work by the file writer in its own words ("nvscale: error: cannot write ...") */
        if ((rc = nvs_cli_output_file_ok("model", o.output_flag, o.output, NULL))) return rc;
        /* the output is written last, over whatever it names: never over a file this command reads */
        nvs_cli_file files[MAX_PRESET_FILES + 4];
        size_t nf = 0;
        char run_prof[4096];
        files[nf++] = (nvs_cli_file){o.output_flag, o.output, 1};
        if (o.calibrate) files[nf++] = (nvs_cli_file){"--calibrate", o.calibrate, 0};
        /* and the profile file the calibrated run read (train.profile_file), which calibration reads again */
        if (o.calibrate && !nvs_calib_profile_path(o.calibrate, o.model, run_prof, sizeof run_prof) &&
            !nvs_profile_is_builtin(run_prof))
            files[nf++] = (nvs_cli_file){"the run's profile", run_prof, 0};
        if (o.model && !nvs_profile_is_builtin(o.model)) files[nf++] = (nvs_cli_file){"--model", o.model, 0};
        for (int i = 0; i < o.npreset_files; i++) files[nf++] = (nvs_cli_file){"--preset-file", o.preset_files[i], 0};
        if ((rc = nvs_cli_files_distinct("model", files, nf))) return rc;
    }
    /* the tests' write failure hook (-o's writer reads it), refused as run's is: it was not read here */
    if (nvs_cli_write_fail_env_ok("model")) return 2;

    nvs_presets ps;
    memset(&ps, 0, sizeof ps);
    rc = load_presets(&o, &ps);
    if (rc == 0) {
        const char *flag = o.list ? projection_flag(&o) : NULL;
        if (flag) /* the presets do not depend on a projection's flags: refused by name, never dropped */
            rc = usage_error("%s with --list-presets: it takes only --preset-file, --format and --output", flag);
        else if (o.list)
            rc = render_and_emit(&o, json, print_presets_cb, &ps, json ? nvs_model_json_presets(&ps) : NULL);
        else if (o.lambda)
            rc = mode_lambda(&o, &ps, json);
        else if (o.calibrate)
            rc = mode_calibrate(&o, &ps, json);
        else
            rc = mode_project(&o, &ps, json);
    }
    nvs_presets_free(&ps);
    return rc;
}
