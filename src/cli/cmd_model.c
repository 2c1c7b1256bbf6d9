/* nvscale model: the what-if cost model of a data-parallel step (docs/model.md). This file only gathers and
 * validates inputs (flags, preset files, run.json), hands them to the pure model (model*.c) and the printers
 * (model_out.c), and writes the output whole or not at all. Exit: 0 ok, 1 runtime error, 2 bad input.
 * Here: the options, their checks across modes, the presets, and the choice of mode; the modes are in
 * cmd_model_project.c, cmd_model_lambda.c and cmd_model_calibrate.c (cmd_model_priv.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_common.h"
#include "cli/cmd_model_priv.h"
#include "cli/commands.h"
#include "model/model_calib.h"
#include "model/model_out.h"
#include "model/preset.h"
#include "workload/profile.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: nvscale model --gpu ID[,ID] --machine ID[,ID] --model NAME|FILE [options]\n"
            "       nvscale model --lambda [--fit]\n"
            "       nvscale model --calibrate RUN.json [--machine ID] [--gpu ID] [--model NAME|FILE] "
            "[--tolerance PCT]\n"
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
            "                         (10 or 10%%)\n"
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

enum {
    O_GPU = 1000, O_MACHINE, O_MODEL, O_BATCH, O_GPUS, O_NODES, O_GPN, O_NET, O_PRECISION, O_GRAD, O_ALGO, O_P2P,
    O_SHM, O_BFIRST, O_BCAP, O_CALIBRATE, O_LAMBDA, O_LIST, O_PRESET_FILE, O_FORMAT, O_TOL, O_OVERLAP, O_NCCL, O_DP,
    O_STEP_CV, O_FIT, O_HOST_MEM, O_FRAMEWORK, O_PAIRS, O_OPTIMIZER
};

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
        const char *flag = o.list ? nvs_cm_projection_flag(&o) : NULL;
        if (flag) /* the presets do not depend on a projection's flags: refused by name, never dropped */
            rc = usage_error("%s with --list-presets: it takes only --preset-file, --format and --output", flag);
        else if (o.list)
            rc = nvs_cm_render_and_emit(&o, json, print_presets_cb, &ps, json ? nvs_model_json_presets(&ps) : NULL);
        else if (o.lambda)
            rc = nvs_cm_lambda(&o, &ps, json);
        else if (o.calibrate)
            rc = nvs_cm_calibrate(&o, &ps, json);
        else
            rc = nvs_cm_project(&o, &ps, json);
    }
    nvs_presets_free(&ps);
    return rc;
}
