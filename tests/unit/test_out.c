/* The writers of the measuring subcommands against golden files: the nccl-tests-style table, the CSV and the
 * measured sections of run.json, from fixed rows (what a 2-GPU sweep produces), so a change in any column,
 * unit or number format shows up. NVS_UPDATE_GOLDEN=1 rewrites the golden files (review the diff). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "run/phases.h"
#include "run/run.h"
#include "train/split.h"
#include "t.h"


static const struct nvs_backend_ops fake_nccl = {.name = "nccl"};

/* A fixed 2-GPU run: all_reduce and broadcast at two sizes, out-of-place and in-place, N = 1 and 2. */
static void make_ctx(nvs_ctx *ctx, nvs_config *cfg, nvs_rt *rt)
{
    nvs_config_defaults(cfg);
    cfg->subcommand = "run";
    static char *argv[] = {"-b", "1M", "-e", "1G", "-f", "1024"};
    cfg->argc = 6;
    cfg->argv = argv;
    *rt = (nvs_rt){.rank = 0, .size = 2, .nnodes = 1};
    strcpy(rt->host, "gpuhost");
    memset(ctx, 0, sizeof *ctx);
    ctx->cfg = cfg;
    ctx->rt = rt;
    ctx->backend.ops = &fake_nccl;
    ctx->launcher = "mpi";
    strcpy(ctx->started_utc, "2026-11-30T00:00:00Z");
    strcpy(ctx->versions.nvscale, "0.1.0");
    strcpy(ctx->versions.git, "test");
    static nvs_rank_info ranks[2];
    for (int r = 0; r < 2; r++) {
        ranks[r] = (nvs_rank_info){.rank = r, .node = 0, .local_rank = r, .device = r, .topo_gpu = r, .cpus_allowed = 16,
                                   .memory_bytes = 150754820096.0};
        strcpy(ranks[r].host, "gpuhost");
        strcpy(ranks[r].gpu, "NVIDIA H200");
        snprintf(ranks[r].pci_bus_id, sizeof ranks[r].pci_bus_id, "0000:00:0%d.0", 6 + r);
    }
    ctx->ranks = ranks;
    static int r1[] = {0}, r2[] = {0, 1};
    static nvs_scale_point pts[2];
    pts[0] = (nvs_scale_point){1, r1};
    pts[1] = (nvs_scale_point){2, r2};
    ctx->points = pts;
    ctx->npoints = 2;
    int ar = nvs_coll_index(&nvs_coll_all_reduce), bc = nvs_coll_index(&nvs_coll_broadcast);
    const size_t sizes[] = {1048576, 1073741824};
    for (int n = 1; n <= 2; n++)
        for (int c = 0; c < 2; c++)
            for (int s = 0; s < 2; s++)
                for (int ip = 0; ip < 2; ip++) {
                    double t = (s ? 3280.0 : 13.8) * (c ? 0.9 : 1.0) * (ip ? 1.01 : 1.0) / (n == 1 ? 8 : 1);
                    const nvs_coll *coll = c ? &nvs_coll_broadcast : &nvs_coll_all_reduce;
                    nvs_coll_row row = {.coll = c ? bc : ar, .n = n, .type = NVS_FLOAT, .op = c ? -1 : NVS_SUM,
                                        .root = c ? 0 : -1, .inplace = ip, .bytes = sizes[s], .size = sizes[s],
                                        .count = sizes[s] / 4, .iters = s ? 20 : 1000, .t_min_us = t * 0.99,
                                        .t_avg_us = t * 0.995, .t_max_us = t, .slowest_rank = n - 1,
                                        .t_basis_us = t, .wrong = 0, .wrong_rank = -1};
                    row.algbw_gbps = (double)sizes[s] / (t * 1e-6) / 1e9;
                    row.busbw_gbps = row.algbw_gbps * coll->busbw_factor(n);
                    if (n == 1) { /* as the sweep leaves them: no bus at N=1, nothing moved in place */
                        row.busbw_gbps = NAN;
                        if (ip) row.algbw_gbps = NAN;
                    }
                    nvs_rows_push(&ctx->rows, &row);
                }
}

/* nvs_print_table's text (the caller frees it) */
static char *table_text(const nvs_ctx *ctx)
{
    FILE *f = tmpfile();
    T_ASSERT(f != NULL);
    nvs_print_table(ctx, f);
    char *got = t_slurp(f);
    fclose(f);
    return got;
}

static void t_table(void)
{
    nvs_config cfg;
    nvs_rt rt;
    nvs_ctx ctx;
    make_ctx(&ctx, &cfg, &rt);
    char *got = table_text(&ctx);
    T_GOLDEN("out_table.txt", got);
    /* independent of the golden file: the numbers a reader checks first */
    T_CONTAINS(got, "  1073741824     268435456     float     sum      -1  3280.00  327.36  327.36       0");
    T_CONTAINS(got, "# all_reduce on 2 GPUs");
    free(got);
    nvs_rows_free(&ctx.rows);
}

/* The host backend (no GPU): a rank is a CPU process with no device or bus id; its header lines said
 * "device  0 [] host memory (MPI)" and "ranks: 0[gpuhost:]" */
static void t_table_host_backend(void)
{
    static const struct nvs_backend_ops fake_mpi = {.name = "mpi"};
    nvs_config cfg;
    nvs_rt rt;
    nvs_ctx ctx;
    make_ctx(&ctx, &cfg, &rt);
    ctx.backend.ops = &fake_mpi;
    nvs_rank_info ranks[2];
    for (int r = 0; r < 2; r++) {
        ranks[r] = ctx.ranks[r];
        ranks[r].pci_bus_id[0] = '\0';
        strcpy(ranks[r].gpu, "host memory (MPI)");
    }
    ctx.ranks = ranks;
    char *got = table_text(&ctx);
    T_CONTAINS(got, "#  Rank   1 on          gpuhost  host memory (MPI)\n");
    T_CONTAINS(got, "#  ranks: 0[gpuhost] 1[gpuhost]\n");
    T_CONTAINS(got, "# all_reduce on 2 ranks");
    T_ASSERT(!strstr(got, "[]"));
    free(got);
    nvs_rows_free(&ctx.rows);
}

/* -a 1 (mean): the time column is the mean's, the one the bandwidths come from (not the slowest rank's) */
static void t_table_time_basis(void)
{
    nvs_config cfg;
    nvs_rt rt;
    nvs_ctx ctx;
    make_ctx(&ctx, &cfg, &rt);
    for (size_t i = 0; i < ctx.rows.n; i++) ctx.rows.v[i].t_basis_us = ctx.rows.v[i].t_avg_us;
    char *got = table_text(&ctx);
    T_CONTAINS(got, "  1073741824     268435456     float     sum      -1  3263.60");
    T_ASSERT(!strstr(got, "  1073741824     268435456     float     sum      -1  3280.00"));
    free(got);
    nvs_rows_free(&ctx.rows);
}

/* -i steps smaller than the type or than a rank's block give sizes of equal bytes (-b 8 -e 11 -i 1 of float:
 * four rows of 8 B): every measured row gets its own line, as in nccl-tests, each out-of-place beside its own
 * in-place */
static void t_table_repeated_sizes(void)
{
    nvs_config cfg;
    nvs_rt rt;
    nvs_ctx ctx;
    make_ctx(&ctx, &cfg, &rt);
    nvs_rows_free(&ctx.rows);
    for (int s = 0; s < 3; s++)
        for (int ip = 0; ip < 2; ip++) {
            double t = 10.0 + s + (ip ? 0.5 : 0); /* 10.00 10.50, 11.00 11.50, 12.00 12.50 */
            nvs_coll_row row = {.coll = nvs_coll_index(&nvs_coll_all_reduce), .n = 2, .type = NVS_FLOAT,
                                .op = NVS_SUM, .root = -1, .inplace = ip, .bytes = 8, .count = 2, .iters = 20,
                                .t_min_us = t, .t_avg_us = t, .t_max_us = t, .slowest_rank = 1, .t_basis_us = t,
                                .algbw_gbps = 8 / (t * 1e3), .busbw_gbps = 8 / (t * 1e3), .wrong = 0,
                                .wrong_rank = -1};
            nvs_rows_push(&ctx.rows, &row);
        }
    char *got = table_text(&ctx);
    T_CONTAINS(got, "-1    10.00    0.00    0.00       0    10.50");
    T_CONTAINS(got, "-1    11.00    0.00    0.00       0    11.50");
    T_CONTAINS(got, "-1    12.00    0.00    0.00       0    12.50");
    free(got);
    nvs_rows_free(&ctx.rows);
}

static void t_csv(void)
{
    nvs_config cfg;
    nvs_rt rt;
    nvs_ctx ctx;
    make_ctx(&ctx, &cfg, &rt);
    FILE *f = tmpfile();
    T_EQ_I(nvs_print_csv(&ctx, f), NVS_OK);
    char *got = t_slurp(f);
    fclose(f);
    T_GOLDEN("out_collectives.csv", got);
    T_CONTAINS(got, "all_reduce,2,float,sum,-1,0,1073741824,268435456,20,0,");
    free(got);
    nvs_rows_free(&ctx.rows);
}

static void t_json(void)
{
    nvs_config cfg;
    nvs_rt rt;
    nvs_ctx ctx;
    make_ctx(&ctx, &cfg, &rt);
    json_t *root = nvs_ctx_to_json(&ctx, NVS_OK, 12.5);
    T_ASSERT(root != NULL);
    /* the measured sections only: versions and environment differ between machines */
    json_t *keep = json_pack("{s:O, s:O, s:O, s:O, s:O, s:O}", "schema", json_object_get(root, "schema"), "collectives",
                             json_object_get(root, "collectives"), "scaling", json_object_get(root, "scaling"), "ranks",
                             json_object_get(root, "ranks"), "sweep", json_object_get(root, "sweep"), "result",
                             json_object_get(root, "result"));
    char *got = json_dumps(keep, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
    T_GOLDEN("out_run.json", got);
    T_EQ_S(json_string_value(json_object_get(root, "schema")), "nvscale.run/1");
    T_EQ_I(json_array_size(json_object_get(root, "collectives")), 16);
    T_ASSERT(json_is_object(json_object_get(root, "versions")) && json_is_object(json_object_get(root, "env")));
    free(got);
    json_decref(keep);
    json_decref(root);
    nvs_rows_free(&ctx.rows);
}

/* all_gather at N = 1, 2, 3 from one sweep size: its bytes are 65536 at N=1 and 2 but 65520 at N=3 (whole 16-byte
 * blocks per rank, coll.h). The scaling table matched rows by bytes and read '-' at N=3, as did the run summary's
 * all_gather column, though N=3 was measured; N=1's busbw (no bus: NAN) printed "nan" */
static void t_scaling_odd_n(void)
{
    nvs_config cfg;
    nvs_rt rt;
    nvs_ctx ctx;
    make_ctx(&ctx, &cfg, &rt);
    nvs_rows_free(&ctx.rows);
    rt.size = 3;
    static nvs_rank_info ranks[3];
    for (int r = 0; r < 3; r++) ranks[r] = ctx.ranks[r < 2 ? r : 1];
    ranks[2].rank = 2;
    ctx.ranks = ranks;
    static int r1[] = {0}, r2[] = {0, 1}, r3[] = {0, 1, 2};
    static nvs_scale_point pts[3];
    pts[0] = (nvs_scale_point){1, r1};
    pts[1] = (nvs_scale_point){2, r2};
    pts[2] = (nvs_scale_point){3, r3};
    ctx.points = pts;
    ctx.npoints = 3;
    int ag = nvs_coll_index(&nvs_coll_all_gather);
    for (int n = 1; n <= 3; n++) {
        nvs_coll_counts k;
        T_EQ_I(nvs_coll_all_gather.counts(65536, 4, n, 0, &k), 0);
        nvs_coll_row row = {.coll = ag, .n = n, .type = NVS_FLOAT, .op = -1, .root = -1, .bytes = k.bytes,
                            .count = k.count, .size = 65536, .iters = 20, .t_min_us = 10, .t_avg_us = 10,
                            .t_max_us = 10, .slowest_rank = 0, .t_basis_us = 10, .wrong = 0, .wrong_rank = -1};
        row.algbw_gbps = (double)k.bytes / 10e-6 / 1e9;
        row.busbw_gbps = n == 1 ? NAN : row.algbw_gbps * nvs_coll_all_gather.busbw_factor(n);
        nvs_rows_push(&ctx.rows, &row);
    }
    T_EQ_U(ctx.rows.v[2].bytes, 65520);
    FILE *f = tmpfile();
    T_ASSERT(f != NULL);
    nvs_phase_print_summary(&ctx, f);
    char *got = t_slurp(f);
    fclose(f);
    /* busbw 3.28 at N=2 (65536 B / 10 us * 1/2), 4.37 at N=3 (65520 B * 2/3) */
    T_CONTAINS(got, "   all_gather        float  none        65536          -       3.28       4.37\n");
    T_ASSERT(!strstr(got, "nan"));
    free(got);
    json_t *root = nvs_ctx_to_json(&ctx, NVS_OK, 1.0);
    T_ASSERT(root != NULL);
    f = tmpfile();
    T_ASSERT(f != NULL);
    nvs_print_summary(&ctx, root, f);
    got = t_slurp(f);
    fclose(f);
    T_CONTAINS(got, "all_gather 64 KiB");
    T_ASSERT(strstr(got, "\n    3  ") != NULL);
    const char *l3 = strstr(got, "\n    3  ");
    T_ASSERT(l3 && strstr(l3, "4.4") && strstr(l3, "4.4") < strchr(l3 + 1, '\n'));
    free(got);
    json_decref(root);
    nvs_rows_free(&ctx.rows);
}

/* The screen summary's collectives table over an NVLink hop: a % of its bound where NCCL used P2P, none where it went
 * around the hop (SHM), as the report and run.json's pct_of_bound (explain.h, nvs_explain_hop_unused_by) */
static void t_summary_hop_unused(void)
{
    nvs_config cfg;
    nvs_rt rt;
    nvs_ctx ctx;
    make_ctx(&ctx, &cfg, &rt);
    const char *tr[] = {"P2P/CUMEM", "SHM"};
    for (int k = 0; k < 2; k++) {
        char doc[600];
        snprintf(doc, sizeof doc,
                 "{\"explain\": [{\"n\": 2, \"transport\": \"%s\", \"slowest_hop\": {\"from_gpu\": 0, "
                 "\"to_gpu\": 1, \"class\": \"NV18\", \"bound_gbps\": 478.0}}]}",
                 tr[k]);
        json_error_t je;
        json_t *root = json_loads(doc, 0, &je);
        if (!root) T_FAIL("fixture JSON: %s", je.text);
        FILE *f = tmpfile();
        T_ASSERT(f != NULL);
        nvs_print_summary(&ctx, root, f);
        char *got = t_slurp(f);
        fclose(f);
        const char *l2 = strstr(got, "\n    2  GPU0-1 NV18 478");
        T_ASSERT(l2 != NULL);
        const char *eol = strchr(l2 + 1, '\n');
        const char *pct = strstr(l2, "%)");
        if (k == 0)
            T_ASSERT(pct && pct < eol);
        else
            T_ASSERT(!pct || pct > eol);
        free(got);
        json_decref(root);
    }
    nvs_rows_free(&ctx.rows);
}

/* train --format csv: a row whose compute-only step, timed apart, came out longer than its full step (step 535096,
 * compute 1015153 us: one step each on a busy 2-core host) says so in the column compute_above_step, as the table
 * says it in a note: step = compute + the parts does not hold there (train/split.h). The other row says 0. */
static void t_train_csv_compute_above_step(void)
{
    nvs_config cfg;
    nvs_rt rt;
    nvs_ctx ctx;
    make_ctx(&ctx, &cfg, &rt);
    ctx.trains = json_pack("[{s:s, s:i, s:s, s:s, s:{s:s}, s:[{s:i, s:f, s:f}, {s:i, s:f, s:f}]}]", "model", "resnet50",
                           "batch", 1, "precision", "fp32", "grad_type", "fp32", "framework", "name", "pytorch-ddp",
                           "results", "n", 1, "step_us", 535096.0, "compute_us", 1015153.0, "n", 2, "step_us",
                           600000.0, "compute_us", 500000.0);
    T_ASSERT(ctx.trains != NULL);
    FILE *f = tmpfile();
    T_EQ_I(nvs_phase_print_train_csv(&ctx, f), NVS_OK);
    char *got = t_slurp(f);
    fclose(f);
    T_CONTAINS(got, ",samples_per_s,efficiency,compute_above_step\n");
    T_CONTAINS(got, "resnet50,1,fp32,fp32,pytorch-ddp,1,535096,1015153,");
    T_CONTAINS(got, ",1\nresnet50,1,fp32,fp32,pytorch-ddp,2,600000,500000,");
    T_ASSERT(strlen(got) > 2 && !strcmp(got + strlen(got) - 3, ",0\n"));
    /* run.json (and --format json) carry the same flag: the same test decides it */
    T_EQ_I(nvs_step_compute_above(535096.0, 1015153.0), 1);
    T_EQ_I(nvs_step_compute_above(600000.0, 500000.0), 0);
    T_EQ_I(nvs_step_compute_above(0, 500000.0), 0);
    free(got);
    json_decref(ctx.trains);
    ctx.trains = NULL;
    nvs_rows_free(&ctx.rows);
}

T_LIST = {T_CASE(t_table), T_CASE(t_table_host_backend), T_CASE(t_table_time_basis), T_CASE(t_table_repeated_sizes), T_CASE(t_csv), T_CASE(t_json),
          T_CASE(t_scaling_odd_n), T_CASE(t_summary_hop_unused), T_CASE(t_train_csv_compute_above_step)};
T_MAIN
