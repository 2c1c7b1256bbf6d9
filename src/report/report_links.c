/* What the links of one run carried: the copy-engine bandwidth per GPU pair, and the transports NCCL chose (from
 * its INFO log). */
#include <math.h>
#include <stdio.h>

#include "report/md_fmt.h"
#include "report/report_md_int.h"

void nvs_report_p2p_md(const nvs_run *r, FILE *f)
{
    if (!r->p2p.present || !r->p2p.npairs) return;
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    fprintf(f, "### Copy-engine bandwidth per GPU pair\n\n");
    if (!isnan(r->p2p.copy_bytes)) {
        fprintf(f, "Copies of %s", fsize(r->p2p.copy_bytes, b1, sizeof b1));
        /* a run.json before the samples timed one block and says nothing here, as before */
        if (r->p2p.samples > 1) fprintf(f, "; bandwidth: the median of %d timed blocks", r->p2p.samples);
        fprintf(f, ".\n\n");
    }
    fprintf(f, "| src -> dst | path | class | uni (GB/s) | bidir (GB/s) | latency (us) | %% of bound | wrong |\n"
               "|---|---|---|---|---|---|---|---|\n");
    for (size_t k = 0; k < r->p2p.npairs; k++) {
        const nvs_run_p2p_pair *p = &r->p2p.pairs[k];
        fprintf(f, "| %d -> %d | ", p->src, p->dst);
        cell(f, p->path);
        fprintf(f, " | ");
        cell(f, p->cls);
        fprintf(f, " | %s | %s | %s | %s | %s |\n", fnum(p->uni_gbps, "%.1f", b2, sizeof b2),
                fnum(p->bidir_gbps, "%.1f", b3, sizeof b3), fnum(p->latency_us, "%.2f", b4, sizeof b4),
                fnum(p->pct_of_bound, "%.1f", b5, sizeof b5), fint(p->wrong, b6, sizeof b6));
    }
    fprintf(f, "\n");
}

void nvs_report_transports_md(const nvs_run *r, FILE *f)
{
    if (!r->ntransports) return;
    fprintf(f, "### Transports (from NCCL's INFO log)\n\n| N | transport | connections | channels | link | NCCL |\n"
               "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < r->ntransports; i++) {
        const nvs_run_transport *t = &r->transports[i];
        char w[64], b[32];
        fprintf(f, "| %d | ", t->n);
        cell(f, nvs_report_transport(r, t->n, w, sizeof w));
        if (t->nvls) fprintf(f, ", with NVLink SHARP (NVLS)"); /* no connection of its own: not in the counts */
        fprintf(f, " | ");
        if (!t->nsummary) fputs(DASH, f);
        for (size_t k = 0; k < t->nsummary; k++) {
            fprintf(f, "%s", k ? ", " : "");
            cell(f, t->summary[k].key);
            fprintf(f, " %d", t->summary_counts[k]);
        }
        fprintf(f, " | %s | ", fint(t->nchannels, b, sizeof b));
        cell(f, t->link);
        fprintf(f, " | ");
        cell(f, t->nccl_version);
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
}

