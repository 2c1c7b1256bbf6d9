/* The "Why" section of one run: explain's paragraph at every GPU count, the run's own where it has one. */
#include <stdio.h>
#include <stdlib.h>

#include "report/md_fmt.h"
#include "report/report_md_int.h"

void nvs_report_why_md(const nvs_run *r, FILE *f)
{
    int *ns = NULL;
    int k = nvs_run_ns(r, &ns);
    if (k <= 0) {
        free(ns);
        return;
    }
    fprintf(f, "### Why\n\n");
    for (int i = 0; i < k; i++) {
        const nvs_run_explain *e = nvs_run_explain_of(r, ns[i]);
        nvs_explain_facts fa;
        nvs_explain_facts_from_run(r, ns[i], &fa);
        fprintf(f, "- **N=%d**: ", ns[i]);
        /* a count nothing was measured at says so, whatever a file written before explain said it (its text read
         * "At 2 ranks (neither the topology nor NCCL's transport is in this run)." as if 2 ranks had been measured) */
        if (e && e->text && !fa.not_measured) {
            cell(f, e->text);
        } else { /* as long as the paragraph is: a host-bound step of several workloads passes 1 KiB */
            size_t need = nvs_explain_text(&fa, NULL, 0) + 1;
            char *text = malloc(need);
            if (text) nvs_explain_text(&fa, text, need);
            cell(f, text ? text : "(out of memory)");
            free(text);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\n");
    free(ns);
}

