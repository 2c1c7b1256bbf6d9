/* The one-line verdict of `nvscale run` (run/summary.h): the word from the worst workload's efficiency, the
 * collective named as explain measured it, the bound's class. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/summary.h"
#include "t.h"

static void t_words(void)
{
    char v[512];
    nvs_summary_facts f = {.gpu = 1, .n = 8, .nworkloads = 2, .worst_eff = 0.931, .worst_model = "bert-large",
                           .collective = "all_reduce", .pct_of_bound = 71.2, .hop_class = "NV18"};
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "GOOD: at 8 GPUs bert-large keeps 93.1 % of linear scaling (the worst workload); all_reduce reaches "
              "71 % of the NV18 bound");
    f.worst_eff = 0.70; /* the FAIR threshold is inclusive */
    nvs_summary_verdict(&f, v, sizeof v);
    T_ASSERT(!strncmp(v, "FAIR: ", 6));
    f.worst_eff = 0.12;
    f.pct_of_bound = 30;
    f.hop_class = "PHB";
    nvs_summary_verdict(&f, v, sizeof v);
    T_ASSERT(!strncmp(v, "POOR: ", 6));
    T_CONTAINS(v, "all_reduce reaches 30 % of the PHB bound (low: see Why)");
}

/* every workload faster at N than linear scaling allows (beyond timing noise): no scaling word, the reason */
static void t_above_linear(void)
{
    char v[512];
    nvs_summary_facts f = {.gpu = 0, .n = 2, .nworkloads = 1, .worst_eff = 1.110, .worst_model = "resnet50",
                           .collective = "all_reduce", .pct_of_bound = NAN};
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "UNRELIABLE: at 2 ranks resnet50 ran at 111.0 % of linear scaling, faster than linear: the 1-rank "
              "reference step was slowed by something else (host launch overhead, CPU speed, another process); run "
              "again");
    f.worst_eff = 1.04; /* within timing noise: read as scaling */
    nvs_summary_verdict(&f, v, sizeof v);
    T_ASSERT(!strncmp(v, "GOOD: ", 6));
    /* CPU ranks: the level is said to be the tool's, not a GPU verdict */
    T_CONTAINS(v, "(host backend: CPU ranks stand in for GPUs, so this checks the tool, not a machine's GPUs)");
    f.gpu = 1;
    nvs_summary_verdict(&f, v, sizeof v);
    T_ASSERT(!strstr(v, "host backend"));
}

/* --gpus 2 alone: the one N measured is its own reference; its 100 % is no scaling, and no level is given */
static void t_reference_only(void)
{
    char v[512];
    nvs_summary_facts f = {.gpu = 0, .n = 2, .nworkloads = 1, .worst_eff = 1.0, .worst_model = "tiny-mlp",
                           .collective = "all_reduce", .pct_of_bound = NAN, .ref_n = 2};
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "MEASURED: the training step ran at 2 ranks only, its own reference, so no scaling is graded (add 1 "
              "to --gpus)");
    f.gpu = 1;
    f.pct_of_bound = 80;
    f.hop_class = "NV18";
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "MEASURED: the training step ran at 2 GPUs only, its own reference, so no scaling is graded (add 1 "
              "to --gpus); all_reduce reaches 80 % of the NV18 bound");
    f.ref_n = 1; /* with the 1-GPU reference: graded */
    nvs_summary_verdict(&f, v, sizeof v);
    T_ASSERT(!strncmp(v, "GOOD: ", 6));
}

static void t_collective_named(void)
{
    /* a run that swept only broadcast (-c broadcast): the bound is broadcast's, and the verdict says so */
    char v[512];
    nvs_summary_facts f = {.gpu = 1, .n = 2, .nworkloads = 0, .worst_eff = NAN, .collective = "broadcast",
                           .pct_of_bound = 80, .hop_class = "NV18"};
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "MEASURED: broadcast reaches 80 % of the NV18 bound");
    f.collective = NULL;
    f.hop_class = NULL;
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "MEASURED: the collective reaches 80 % of the link bound");
}

static void t_one_gpu(void)
{
    char v[512];
    nvs_summary_facts f = {.gpu = 0, .n = 1, .worst_eff = NAN, .pct_of_bound = NAN};
    nvs_summary_verdict(&f, v, sizeof v);
    T_CONTAINS(v, "one rank: nothing to scale");
    /* the host backend has no GPUs to make visible (it said "or more visible GPUs") */
    T_ASSERT(!strstr(v, "GPU"));
    f.gpu = 1;
    nvs_summary_verdict(&f, v, sizeof v);
    T_CONTAINS(v, "one GPU: nothing to scale; run on more (mpirun -np N nvscale, or more visible GPUs)");
}

/* below GOOD the verdict names the largest part of the lost time, so a slow host is not read as a slow link */
static void t_loss_named(void)
{
    char v[512];
    /* results/h200x2-final5/default's ResNet-50 at N=2: 57.73 - 51.31 ms lost; contention 0.77, exposed 0.49 (its
     * all-reduces alone), the rest waiting */
    nvs_summary_facts f = {.gpu = 1, .n = 2, .nworkloads = 2, .worst_eff = 0.889, .worst_model = "resnet50",
                           .collective = "all_reduce", .pct_of_bound = 68, .hop_class = "NV18", .loss_us = 6420,
                           .part_us = {770, 0, 487, 5163}};
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "FAIR: at 2 GPUs resnet50 keeps 88.9 % of linear scaling (the worst workload), and the largest part of "
              "the 6.4 ms it loses per step is waiting for a slower rank (5.2 ms); all_reduce reaches 68 % of the "
              "NV18 bound");
    f.part_us[NVS_LOSS_EXPOSED] = 6000; /* exposed communication the largest */
    nvs_summary_verdict(&f, v, sizeof v);
    T_CONTAINS(v, "is communication left exposed (6.0 ms)");
    f.part_us[NVS_LOSS_EXPOSED] = NAN; /* a part the run lacks is skipped */
    f.part_us[NVS_LOSS_RANK_WAIT] = NAN;
    nvs_summary_verdict(&f, v, sizeof v);
    T_CONTAINS(v, "is the compute slowed by sharing the machine (0.8 ms)");
    f.worst_eff = 0.93; /* GOOD: nothing to explain in the verdict */
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "GOOD: at 2 GPUs resnet50 keeps 93.0 % of linear scaling (the worst workload); all_reduce reaches 68 % "
              "of the NV18 bound");
    /* the compute alone ran faster at N than at 1 (contention < 0), so one part exceeds the whole loss: the
     * clause says what offset it rather than calling 214.0 ms a part of 213.5 (CPU ranks, 2 December) */
    nvs_summary_facts g = {.gpu = 0, .n = 2, .nworkloads = 1, .worst_eff = 0.45, .worst_model = "bert-large",
                           .pct_of_bound = NAN, .loss_us = 213500, .part_us = {-7600, 0, 214000, 7100}, .ref_n = 1};
    nvs_summary_verdict(&g, v, sizeof v);
    T_CONTAINS(v, "POOR: at 2 ranks bert-large keeps 45.0 % of linear scaling, and it loses 213.5 ms per step: "
                  "communication left exposed took 214.0 ms, and the rest of the step ran 0.5 ms faster than at 1 "
                  "rank (the compute alone: 7.6 ms faster) (host backend");
    T_ASSERT(!strstr(v, "largest part"));
    g.part_us[NVS_LOSS_CONTENTION] = 0; /* the reducer's share, not the compute, offset it: no compute clause */
    g.loss_us = 213900;
    g.n = 4;
    g.ref_n = 2; /* --gpus 2,4: the reference is 2 GPUs */
    g.gpu = 1;
    nvs_summary_verdict(&g, v, sizeof v);
    T_EQ_S(v, "POOR: at 4 GPUs bert-large keeps 45.0 % of linear scaling, and it loses 213.9 ms per step: "
              "communication left exposed took 214.0 ms, and the rest of the step ran 0.1 ms faster than at 2 GPUs");
    g.loss_us = 213960; /* within the printed 0.1 ms: the plain clause, not "ran 0.0 ms faster" */
    nvs_summary_verdict(&g, v, sizeof v);
    T_CONTAINS(v, "the largest part of the 214.0 ms it loses per step is communication left exposed (214.0 ms)");
    g.loss_us = 214000; /* equal */
    nvs_summary_verdict(&g, v, sizeof v);
    T_CONTAINS(v, "the largest part of the 214.0 ms it loses per step is communication left exposed (214.0 ms)");
    f.worst_eff = 0.5;
    f.loss_us = NAN; /* no reference step: no clause */
    nvs_summary_verdict(&f, v, sizeof v);
    T_ASSERT(!strstr(v, "loses per step"));
}

/* a row whose compute-only step came out longer than its full step gets a note; one shorter, or equal, none */
static void t_compute_note(void)
{
    char v[256] = "untouched";
    T_EQ_I(nvs_summary_compute_note("bert-large", 1, 77580, 77580, NULL, v, sizeof v), 0);
    T_EQ_I(nvs_summary_compute_note("bert-large", 1, 77580, 70000, NULL, v, sizeof v), 0);
    T_EQ_I(nvs_summary_compute_note("bert-large", 1, NAN, 79460, NULL, v, sizeof v), 0);
    T_EQ_S(v, "untouched");
    T_EQ_I(nvs_summary_compute_note("bert-large", 1, 77580, 79460, NULL, v, sizeof v), 1);
    T_EQ_S(v, "note: bert-large N=1: the compute-only step, timed apart, took 1.88 ms (2.4 %) longer than the full "
              "step: run-to-run noise, so its parts read 0");
    /* with the timed steps' ranges (run.json step_min_us .. compute_max_us): overlapping, noise ... */
    const double overlap[4] = {550, 20000, 600, 21000};
    T_EQ_I(nvs_summary_compute_note("tiny-mlp", 1, 560, 10500, overlap, v, sizeof v), 1);
    T_EQ_S(v, "note: tiny-mlp N=1: the compute-only step, timed apart, took 9.94 ms (1775.0 %) longer than the full "
              "step, within the spread of their steps (full 0.55-20.00 ms, compute-only 0.60-21.00 ms): noise, so "
              "its parts read 0");
    /* ... apart, the host ran slower while the compute-only steps were timed: not called noise */
    const double apart[4] = {540, 580, 800, 900};
    T_EQ_I(nvs_summary_compute_note("tiny-mlp", 2, 560, 850, apart, v, sizeof v), 1);
    T_EQ_S(v, "note: tiny-mlp N=2: every compute-only step (0.80-0.90 ms) took longer than every full step (0.54-0.58 "
              "ms): the host ran slower while they were timed, so the step's parts read 0 (more --steps or --rounds "
              "to see it settle)");
    /* ranges not known (zeros: keys absent from an older run.json) read as before */
    const double none[4] = {0, 0, 0, 0};
    T_EQ_I(nvs_summary_compute_note("bert-large", 1, 77580, 79460, none, v, sizeof v), 1);
    T_ASSERT(strstr(v, "run-to-run noise") != NULL);
}

static void t_conv_note(void)
{
    char v[640] = "untouched";
    const char *det = "20 shapes, algorithms timed as PyTorch's cudnn.benchmark does", *gemm = "implicit GEMMs in cuBLAS";
    T_EQ_I(nvs_summary_cudnn_note("convolutions", "bert-large", 0, NULL, 0, 0, det, gemm, "auto", NULL, v, sizeof v), 0);
    T_EQ_S(v, "untouched");
    T_EQ_I(nvs_summary_cudnn_note("convolutions", "resnet50", 1, "cuDNN 9.19.0", 53, 53, det, gemm, "auto", NULL, v,
                                  sizeof v), 1);
    T_EQ_S(v, "convolutions of resnet50: 53 in cuDNN 9.19.0 (20 shapes, algorithms timed as PyTorch's cudnn.benchmark "
              "does)");
    T_EQ_I(nvs_summary_cudnn_note("convolutions", "resnet50", 1, "cuDNN 9.19.0", 50, 53, NULL, gemm, "on",
                                  "3 convolutions at batch 9000 hold 2^31 elements or more", v, sizeof v), 1);
    T_EQ_S(v, "convolutions of resnet50: 50 of 53 in cuDNN 9.19.0; the others not: 3 convolutions at batch 9000 hold "
              "2^31 elements or more");
    T_EQ_I(nvs_summary_cudnn_note("convolutions", "resnet50", 0, NULL, 0, 53, det, gemm, "off", NULL, v, sizeof v), 1);
    T_EQ_S(v, "convolutions of resnet50: 53 as implicit GEMMs in cuBLAS (--cudnn off)");
    T_EQ_I(nvs_summary_cudnn_note("batch norms", "resnet50", 0, NULL, 53, 53, NULL, NVS_SUMMARY_BN_KERNELS, "auto",
                                  "PyTorch runs bf16 batch norms in its own kernels, not cuDNN's", v, sizeof v), 1);
    T_EQ_S(v, "batch norms of resnet50: 53 as nvscale's kernels, launched as PyTorch launches its own, not cuDNN: "
              "PyTorch runs bf16 batch norms in its own kernels, not cuDNN's");
    T_EQ_I(nvs_summary_cudnn_note("batch norms", "resnet50", 0, NULL, 0, 53, NULL, "memory passes", "off", NULL, v,
                                  sizeof v), 1);
    T_EQ_S(v, "batch norms of resnet50: 53 as memory passes (--cudnn off)");
}

/* the "Why" paragraph keeps a number with its unit: the 2x H200 run's read "331 GB/s at 1\n  GiB" */
static void t_wrap_units(void)
{
    const char *why = "At 2 GPUs the ring runs over NVLink (NV18) and NCCL used P2P over NVLink: all_reduce busbw is "
                      "331 GB/s at 1 GiB, 69 % of the 478 GB/s bound of that hop, and 6.4 % of the training step is "
                      "communication the backward pass could not hide; the gradient all-reduces took 5.6 ms where the "
                      "measured all_reduce curve predicts 5.5 ms.";
    FILE *f = tmpfile();
    T_ASSERT(f != NULL);
    nvs_summary_wrap(why, f);
    char *got = t_slurp(f);
    fclose(f);
    T_CONTAINS(got, " 1 GiB,");
    T_CONTAINS(got, " 5.5 ms.");
    /* the words, in order, and no line longer than 110 columns */
    char flat[1024] = "";
    for (const char *l = got; *l;) {
        const char *e = strchr(l, '\n');
        T_ASSERT(e != NULL && e - l <= 110 && !strncmp(l, "  ", 2));
        if (flat[0]) strcat(flat, " ");
        strncat(flat, l + 2, (size_t)(e - l - 2));
        l = e + 1;
    }
    T_EQ_S(flat, why);
    free(got);
}

/* nothing measured (SIGTERM during the first sweep point): not a bare "MEASURED", which read as a result */
static void t_nothing(void)
{
    char v[512];
    nvs_summary_facts f = {.gpu = 0, .n = 2, .worst_eff = NAN, .pct_of_bound = NAN, .nothing = 1,
                           .status = "interrupted"};
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "NOT MEASURED: the run was interrupted before any collective or training step was measured; see its "
              "result (run.json) and the messages above");
    f.status = "ok";
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "NOT MEASURED: no collective or training step was measured");
    f.nothing = 0;
    nvs_summary_verdict(&f, v, sizeof v);
    T_EQ_S(v, "MEASURED");
}

T_LIST = {T_CASE(t_wrap_units), T_CASE(t_words), T_CASE(t_above_linear), T_CASE(t_reference_only), T_CASE(t_collective_named), T_CASE(t_one_gpu), T_CASE(t_loss_named), T_CASE(t_compute_note), T_CASE(t_conv_note), T_CASE(t_nothing)};
T_MAIN
