/* run.json (src/runjson/runjson.c), the one reader of every offline subcommand, and what reads its result: the
 * report's Markdown (names escaped: core/escape.h), check's verdicts and table, the explain facts, and the
 * choice of one workload of a run that trained several. */
#include <jansson.h>

#include "check/check_eval.h"
#include "check/check_out.h"
#include "check/rules.h"
#include "fuzz/fuzz.h"
#include "report/report.h"
#include "runjson/runjson.h"

/* rules that touch every metric check knows on a run.json */
static const char *const rules_text = "nvscale-rules 1\n"
                                      "busbw * n=* min=1\n"
                                      "busbw all_reduce size>=1M n=max min=10\n"
                                      "busbw * n=* below_baseline<=5%\n"
                                      "p2p pair=0,1 min=1\n"
                                      "efficiency n=max min=50%\n";

NVS_FUZZ_TARGET(runjson)
{
    FILE *sink = nvs_fuzz_sink();
    json_error_t je;
    json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    if (!root) return 0;
    nvs_run run;
    char err[512];
    if (nvs_run_from_json(root, "fuzz.json", 0, &run, err, sizeof err) == NVS_OK) {
        nvs_report rep = {.runs = &run, .nruns = 1, .plots = NVS_PLOTS_NOT_REQUESTED};
        nvs_report_write_md(&rep, sink);
        nvs_ruleset rs = {0};
        int line;
        if (nvs_rules_parse_text(rules_text, "fuzz", &rs, &line, err, sizeof err) == 0 &&
            nvs_check_run_names(&run, err, sizeof err) == NVS_OK) {
            nvs_verdicts vs = {0};
            if (nvs_check_eval(&rs, &run, &run, &vs) == 0) {
                nvs_slowest_rank slowest[8];
                nvs_check_report cr = {.run = &run, .base = &run, .rules_desc = "fuzz", .verdicts = &vs,
                                       .slowest = slowest, .nslowest = nvs_check_slowest_ranks(&run, slowest, 8),
                                       .slowest_pair = nvs_check_slowest_pair(&run)};
                nvs_check_print_table(sink, &cr);
                nvs_check_print_json(sink, NULL, &cr);
            }
            nvs_verdicts_free(&vs);
        }
        nvs_ruleset_free(&rs);
        /* model --calibrate --model NAME: one workload of "trains" read in place of "train" */
        (void)nvs_run_select_train(&run, "lm290m", "bert-large-mlm128", err, sizeof err);
    }
    nvs_run_free(&run);
    json_decref(root);
    return 0;
}
