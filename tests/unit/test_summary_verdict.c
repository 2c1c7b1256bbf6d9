/* The one-line verdict of `nvscale run` (run/summary.h): the word from the worst workload's efficiency, the
 * collective named as explain measured it, the bound's class. */
#include <math.h>
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
}

T_LIST = {T_CASE(t_words), T_CASE(t_collective_named), T_CASE(t_one_gpu)};
T_MAIN
