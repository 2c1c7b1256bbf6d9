/* The sections of a run report's Markdown, a file each, which report_md.c writes in order (docs/report.md), and
 * what two of them share. Internal to the report layer: only src/report/ includes it. */
#ifndef NVS_REPORT_MD_INT_H
#define NVS_REPORT_MD_INT_H

#include <stdio.h>

#include "report/report.h"

/* report_header.c: a run's heading and its table of what ran where; its warnings; with several runs, the legend */
void nvs_report_header_md(const nvs_report *rep, int i, FILE *f);
void nvs_report_sanity_md(const nvs_run *r, FILE *f);
void nvs_report_legend_md(const nvs_report *rep, FILE *f);
/* "2 x NVIDIA H200" (the report's title and a run's heading) */
void nvs_report_gpus_words(const nvs_run *r, char *buf, size_t len);

/* report_links.c: copy-engine bandwidth per GPU pair; the transports NCCL chose */
void nvs_report_p2p_md(const nvs_run *r, FILE *f);
void nvs_report_transports_md(const nvs_run *r, FILE *f);

/* report_coll.c: a table per collective and GPU count, then the sizes the sweep left out */
void nvs_report_colls_md(const nvs_run *r, FILE *f);

/* report_scaling.c: busbw per size and N, efficiency vs N */
void nvs_report_scaling_md(const nvs_run *r, FILE *f);
/* and the cells and notes the side-by-side tables share with it: the sweep.skipped entry that left a size out,
 * a busbw cell ("skipped", "failed check", the busbw), the note under a table that has such cells */
const nvs_run_skip *nvs_report_skip_of(const nvs_run *r, const char *coll, int n, double size);
const char *nvs_report_busbw_cell(const nvs_run *r, const char *coll, int n, double size, char *buf, size_t len,
                                  int *skipped);
void nvs_report_skipped_note(int skipped, const char *whose, const char *derived, FILE *f);

/* report_train.c: the training step of every workload; one workload's result at N (NULL: none) */
void nvs_report_train_md(const nvs_run *r, FILE *f);
const nvs_run_train_result *nvs_report_train_at(const nvs_run_train *t, int n);

/* report_why.c: explain's paragraph at every N */
void nvs_report_why_md(const nvs_run *r, FILE *f);

/* Several runs: report_side.c, the runs side by side; report_fleet.c, each measurement against the runs' median */
void nvs_report_side_md(const nvs_report *rep, FILE *f);
void nvs_report_fleet_md(const nvs_report *rep, FILE *f);

#endif
