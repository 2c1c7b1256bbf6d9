/* The verdicts of nvscale check (src/check/check_eval.c) on runs built here as the shared reader's nvs_run structs:
 * thresholds at their edges, the worst variant, "not measured" = FAIL, baseline comparison, slowest rank, pair and
 * hop. */
#include "check/check_eval.h"
#include "check/check_out.h"
#include "core/log.h"

#include <math.h>

#include "t.h"

static nvs_run_coll row(const char *coll, int n, size_t bytes, int inplace, double busbw, int slowest, double tmin,
                        double tmax)
{
    return (nvs_run_coll){.collective = coll, .type = "float", .op = "sum", .n = n, .root = -1, .inplace = inplace,
                          .bytes = (double)bytes, .time_min_us = tmin, .time_avg_us = tmax, .time_max_us = tmax,
                          .slowest_rank = slowest, .algbw_gbps = busbw, .busbw_gbps = busbw, .wrong = 0};
}

#define G ((size_t)1 << 30)
#define M ((size_t)1 << 20)

static nvs_run_coll rows[16];
static nvs_run_p2p_pair pairs[2];
static nvs_run_train_result train[3];
static nvs_run_rank ranks[4];
static const char *const hosts[] = {"node0", "node0", "node1", "node1"};

/* A 4-GPU run: all_reduce at 1 MiB and 1 GiB for N = 1, 2, 4 (in- and out-of-place at 1 GiB, N = 2), broadcast
 * at 1 GiB for N = 4 only; p2p 0->1, 1->0; training at 1, 2, 4. */
static nvs_run make_run(void)
{
    int k = 0;
    rows[k++] = row("all_reduce", 1, M, 0, 0.0, 0, 5, 5);
    rows[k++] = row("all_reduce", 1, G, 0, 0.0, 0, 5, 5);
    rows[k++] = row("all_reduce", 2, M, 0, 68.0, 1, 15.0, 15.3);
    rows[k++] = row("all_reduce", 2, G, 0, 330.0, 1, 3200, 3257);
    rows[k++] = row("all_reduce", 2, G, 1, 327.0, 0, 3250, 3282);
    rows[k++] = row("all_reduce", 4, M, 0, 60.0, 3, 20, 22);
    rows[k++] = row("all_reduce", 4, G, 0, 300.0, 3, 5000, 5100);
    rows[k++] = row("broadcast", 4, G, 0, 360.0, 2, 2900, 2950);
    pairs[0] = (nvs_run_p2p_pair){.src = 0, .dst = 1, .cls = "NV18", .uni_gbps = 390.0, .bidir_gbps = 760.0,
                                  .wrong = 0};
    pairs[1] = (nvs_run_p2p_pair){.src = 1, .dst = 0, .cls = "NV18", .uni_gbps = 380.0, .bidir_gbps = NAN,
                                  .wrong = 0};
    train[0] = (nvs_run_train_result){.n = 1, .step_us = 100000, .efficiency = 1.0};
    train[1] = (nvs_run_train_result){.n = 2, .step_us = 104000, .efficiency = 0.96};
    train[2] = (nvs_run_train_result){.n = 4, .step_us = 111000, .efficiency = 0.90};
    for (int i = 0; i < 4; i++) ranks[i] = (nvs_run_rank){.rank = i, .device = i, .host = hosts[i]};
    nvs_run r = {.path = "run.json", .colls = rows, .ncolls = (size_t)k, .has_collectives = 1,
                 .p2p = {.present = 1, .pairs = pairs, .npairs = 2},
                 .train = {.present = 1, .results = train, .nresults = 3}, .ranks = ranks, .nranks = 4,
                 .world_size = 4, .result_status = "ok", .result_exit_code = 0, .result_wrong_total = 0};
    return r;
}

/* Evaluate rule lines against run (and base). */
static nvs_verdicts eval(const char *const *lines, const nvs_run *run, const nvs_run *base)
{
    nvs_ruleset rs = {0};
    for (int i = 0; lines[i]; i++) {
        nvs_rule r;
        char err[256];
        if (nvs_rule_parse_line(lines[i], &r, err, sizeof err)) T_FAIL("rule '%s': %s", lines[i], err);
        snprintf(r.source, sizeof r.source, "test");
        r.line = i + 1;
        T_EQ_I(nvs_ruleset_add(&rs, &r), 0);
    }
    nvs_verdicts vs = {0};
    T_EQ_I(nvs_check_eval(&rs, run, base, &vs), 0);
    nvs_ruleset_free(&rs);
    return vs;
}

/* Two runs into one list (check with several run.json files): the rows of both are kept. The first version
 * zeroed the list on every call, dropping the earlier run's rows and leaking them (ASan found it). */
static void t_appends(void)
{
    nvs_run run = make_run();
    nvs_ruleset rs = {0};
    nvs_rule r;
    char err[256];
    T_EQ_I(nvs_rule_parse_line("busbw all_reduce size=1G n=2 min=1", &r, err, sizeof err), 0);
    T_EQ_I(nvs_ruleset_add(&rs, &r), 0);
    nvs_verdicts vs = {0};
    T_EQ_I(nvs_check_eval(&rs, &run, NULL, &vs), 0);
    size_t one = vs.n;
    T_EQ_I(nvs_check_eval(&rs, &run, NULL, &vs), 0);
    T_EQ_U(vs.n, 2 * one);
    nvs_verdicts_free(&vs);
    nvs_ruleset_free(&rs);
}

static void t_status_row(void)
{
    nvs_run run = make_run();
    const char *none[] = {"busbw all_reduce size=1G n=2 min=1", NULL};
    nvs_verdicts vs = eval(none, &run, NULL);
    T_EQ_U(vs.n, 2);
    T_EQ_S(vs.v[0].metric, "run result");
    T_EQ_I(vs.v[0].pass, 1);
    nvs_verdicts_free(&vs);
    run.result_status = "wrong";
    run.result_wrong_total = 5;
    vs = eval(none, &run, NULL);
    T_EQ_I(vs.v[0].pass, 0);
    T_CONTAINS(vs.v[0].note, "5 wrong elements");
    T_EQ_U(vs.failed, 1);
    nvs_verdicts_free(&vs);
    run.result_status = NULL; /* no result section: the run did not finish */
    vs = eval(none, &run, NULL);
    T_EQ_I(vs.v[0].pass, 0);
    nvs_verdicts_free(&vs);
}

static void t_min_edges_and_worst_variant(void)
{
    nvs_run run = make_run();
    /* 1 GiB at n=2 has out-of-place 330 and in-place 327: the in-place row decides */
    const char *at[] = {"busbw all_reduce size=1G n=2 min=327", "busbw all_reduce size=1G n=2 min=327.01",
                        "busbw all_reduce size=1G n=2 inplace=0 min=330", NULL};
    nvs_verdicts vs = eval(at, &run, NULL);
    T_EQ_U(vs.n, 4);
    T_EQ_S(vs.v[1].metric, "busbw all_reduce 1 GiB n=2");
    T_EQ_I(vs.v[1].pass, 1); /* equal to the minimum passes */
    T_NEAR(vs.v[1].measured_v, 327.0, 0);
    T_NEAR(vs.v[1].margin_v, 0.0, 1e-9);
    T_CONTAINS(vs.v[1].note, "in-place");
    T_EQ_I(vs.v[2].pass, 0); /* 0.01 GB/s short fails */
    T_NEAR(vs.v[2].margin_v, -0.01, 1e-9);
    /* with the digits that tell them apart: one decimal printed "327.0 GB/s >= 327.0 GB/s", "-0.0 GB/s (-0.0%)" */
    T_EQ_S(vs.v[2].measured, "327.00 GB/s");
    T_EQ_S(vs.v[2].expected, ">= 327.01 GB/s");
    T_EQ_S(vs.v[2].margin, "-0.01 GB/s (-0.003%)");
    T_EQ_I(vs.v[3].pass, 1); /* out-of-place only: 330 */
    T_NEAR(vs.v[3].measured_v, 330.0, 0);
    T_EQ_U(vs.failed, 1);
    nvs_verdicts_free(&vs);
}

static void t_n_selection(void)
{
    nvs_run run = make_run();
    const char *all[] = {"busbw all_reduce size=1G n=* min=310", NULL};
    nvs_verdicts vs = eval(all, &run, NULL);
    T_EQ_U(vs.n, 3); /* status + n=2 + n=4: never n=1, where busbw is 0 by definition */
    T_EQ_S(vs.v[1].metric, "busbw all_reduce 1 GiB n=2");
    T_EQ_S(vs.v[2].metric, "busbw all_reduce 1 GiB n=4");
    T_EQ_I(vs.v[1].pass, 1);
    T_EQ_I(vs.v[2].pass, 0);
    nvs_verdicts_free(&vs);
    const char *max[] = {"busbw all_reduce size=1M n=max min=50", NULL};
    vs = eval(max, &run, NULL);
    T_EQ_U(vs.n, 2);
    T_EQ_S(vs.v[1].metric, "busbw all_reduce 1 MiB n=4");
    T_EQ_I(vs.v[1].pass, 1);
    nvs_verdicts_free(&vs);
}

static void t_not_measured_fails(void)
{
    nvs_run run = make_run();
    const char *lines[] = {"busbw all_reduce size=8G n=2 min=1",   /* size not swept */
                           "busbw all_reduce size=1G n=8 min=1",   /* N not run */
                           "busbw broadcast size=1G n=2 min=1",    /* collective not at that N */
                           "busbw reduce size>=1M n=2 min=1",      /* collective never run */
                           "busbw all_reduce size>=2G n=2 min=1",  /* empty range */
                           "p2p uni pair=0,2 min=1",               /* pair not in the matrix */
                           "p2p bidir pair=1,0 min=1",             /* null value */
                           "efficiency train n=8 min=0.5",         /* N not trained */
                           NULL};
    nvs_verdicts vs = eval(lines, &run, NULL);
    T_EQ_U(vs.n, 9);
    T_EQ_U(vs.failed, 8);
    for (size_t i = 1; i < vs.n; i++) {
        if (vs.v[i].pass) T_FAIL("row %zu (%s) passed with nothing measured", i, vs.v[i].metric);
        T_EQ_S(vs.v[i].measured, "not measured");
        T_ASSERT(isnan(vs.v[i].measured_v));
    }
    T_CONTAINS(vs.v[1].note, "no 8 GiB row of all_reduce at n=2");
    T_CONTAINS(vs.v[2].note, "the run has no n=8");
    T_CONTAINS(vs.v[3].note, "no 1 GiB row of broadcast at n=2");
    T_CONTAINS(vs.v[4].note, "no reduce row at n=2 with size >= 1 MiB");
    T_CONTAINS(vs.v[5].note, "with size >= 2 GiB");
    T_CONTAINS(vs.v[6].note, "pair 0->2 is not in the p2p matrix");
    T_CONTAINS(vs.v[7].note, "null");
    T_CONTAINS(vs.v[8].note, "no training result at n=8");
    nvs_verdicts_free(&vs);

    /* sections absent altogether */
    run.p2p.present = 0;
    run.p2p.npairs = 0;
    run.train.present = 0;
    run.train.nresults = 0;
    const char *sect[] = {"p2p uni min=1", "efficiency train n=* min=0.5", NULL};
    vs = eval(sect, &run, NULL);
    T_EQ_U(vs.failed, 2);
    T_CONTAINS(vs.v[1].note, "no p2p section");
    T_CONTAINS(vs.v[2].note, "no train section");
    nvs_verdicts_free(&vs);
}

static void t_every_collective_and_range(void)
{
    nvs_run run = make_run();
    const char *lines[] = {"busbw * size>=1M n=4 min=50", NULL};
    nvs_verdicts vs = eval(lines, &run, NULL);
    /* all_reduce 1 MiB and 1 GiB (ascending), broadcast 1 GiB, in the order the run measured them */
    T_EQ_U(vs.n, 4);
    T_EQ_S(vs.v[1].metric, "busbw all_reduce 1 MiB n=4");
    T_EQ_S(vs.v[2].metric, "busbw all_reduce 1 GiB n=4");
    T_EQ_S(vs.v[3].metric, "busbw broadcast 1 GiB n=4");
    T_EQ_U(vs.failed, 0);
    nvs_verdicts_free(&vs);
}

static void t_wrong_results_fail(void)
{
    nvs_run run = make_run();
    rows[3].wrong = 12; /* all_reduce 1 GiB n=2 out-of-place */
    pairs[0].wrong = 1;
    const char *lines[] = {"busbw all_reduce size=1G n=2 min=1", "p2p uni pair=0,1 min=1", NULL};
    nvs_verdicts vs = eval(lines, &run, NULL);
    T_EQ_I(vs.v[1].pass, 0);
    T_EQ_S(vs.v[1].measured, "wrong results");
    T_CONTAINS(vs.v[1].note, "12 wrong elements");
    T_EQ_I(vs.v[2].pass, 0);
    nvs_verdicts_free(&vs);
}

static void t_p2p_and_efficiency(void)
{
    nvs_run run = make_run();
    const char *lines[] = {"p2p uni min=385", "p2p bidir pair=0,1 min=700", "efficiency train n=* min=91%", NULL};
    nvs_verdicts vs = eval(lines, &run, NULL);
    T_EQ_U(vs.n, 6);
    T_EQ_S(vs.v[1].metric, "p2p uni 0->1");
    T_EQ_I(vs.v[1].pass, 1);
    T_EQ_S(vs.v[2].metric, "p2p uni 1->0");
    T_EQ_I(vs.v[2].pass, 0);
    T_EQ_S(vs.v[2].margin, "-5.0 GB/s (-1.3%)");
    T_EQ_S(vs.v[3].metric, "p2p bidir 0->1");
    T_EQ_I(vs.v[3].pass, 1);
    T_EQ_S(vs.v[4].metric, "efficiency train n=2");
    T_EQ_I(vs.v[4].pass, 1);
    T_EQ_S(vs.v[4].measured, "96.0%");
    T_EQ_S(vs.v[5].metric, "efficiency train n=4");
    T_EQ_I(vs.v[5].pass, 0);
    T_EQ_S(vs.v[5].margin, "-1.0 pts");
    T_EQ_U(vs.failed, 2);
    nvs_verdicts_free(&vs);
}

/* min_bound= holds a point to a share of its bound, and the row prints that share as given: 87.5 %, not "88%" */
static void t_min_bound_pct(void)
{
    nvs_run run = make_run();
    pairs[0].bound_gbps = 450.0; /* 0->1 only: 1->0 has no bound, so min_bound alone cannot judge it */
    const char *lines[] = {"p2p uni min_bound=87.5%", NULL};
    nvs_verdicts vs = eval(lines, &run, NULL);
    T_EQ_U(vs.n, 3);
    T_EQ_S(vs.v[1].metric, "p2p uni 0->1");
    T_NEAR(vs.v[1].expected_v, 393.75, 1e-9);
    T_CONTAINS(vs.v[1].expected, "(87.5% of 450.0)");
    T_EQ_I(vs.v[1].pass, 0); /* 390 < 393.75 */
    T_EQ_I(vs.v[2].pass, 0);
    T_CONTAINS(vs.v[2].note, "the run has no bound for it");
    nvs_verdicts_free(&vs);
    pairs[0].bound_gbps = 0;
}

/* A baseline run whose collective rows are a copy of the run's, in brows, to change one by one. */
static nvs_run baseline_of(nvs_run_coll *brows, size_t nbrows)
{
    nvs_run base = make_run();
    memcpy(brows, rows, nbrows * sizeof *brows);
    base.colls = brows;
    return base;
}

static void t_below_baseline(void)
{
    static nvs_run_coll brows[16];
    nvs_run run = make_run();
    nvs_run base = baseline_of(brows, 16);
    /* baseline 1 GiB n=4 = 320: the run's 300 is 6.25% below */
    brows[6].busbw_gbps = 320.0;
    const char *ok[] = {"busbw all_reduce size=1G n=4 below_baseline<=6.25%", NULL};
    nvs_verdicts vs = eval(ok, &run, &base);
    T_EQ_U(vs.n, 2);
    T_EQ_S(vs.v[1].metric, "busbw all_reduce 1 GiB n=4 vs baseline");
    T_NEAR(vs.v[1].expected_v, 300.0, 1e-9);
    T_EQ_I(vs.v[1].pass, 1);
    T_CONTAINS(vs.v[1].note, "baseline 320.0 GB/s, 6.2% below it");
    nvs_verdicts_free(&vs);
    const char *tight[] = {"busbw all_reduce size=1G n=4 below_baseline<=6%", NULL};
    vs = eval(tight, &run, &base);
    T_EQ_I(vs.v[1].pass, 0);
    nvs_verdicts_free(&vs);
    /* a baseline below 0.05 GB/s (a host backend's small sizes) is said in 2 digits, not as 0.0 */
    brows[6].busbw_gbps = 0.0012;
    vs = eval(ok, &run, &base);
    T_CONTAINS(vs.v[1].note, "baseline 0.0012 GB/s, ");
    nvs_verdicts_free(&vs);
    /* below 1 GB/s the note says the baseline in three digits, as the expected column says its limit: 0.0508
     * read "baseline 0.1 GB/s" beside ">= 0.0483 GB/s" */
    brows[6].busbw_gbps = 0.0508;
    vs = eval(ok, &run, &base);
    T_CONTAINS(vs.v[1].note, "baseline 0.0508 GB/s, ");
    nvs_verdicts_free(&vs);
    brows[6].busbw_gbps = 320.0;

    /* the baseline decides which points must exist: a point only the baseline has fails as not measured,
     * a point only the run has is not compared */
    base.ncolls = 8;
    brows[7] = row("broadcast", 2, G, 0, 350.0, 0, 1, 1); /* replaces broadcast n=4 in the baseline */
    const char *all[] = {"busbw * n=* below_baseline<=10%", NULL};
    vs = eval(all, &run, &base);
    /* baseline points at n>=2: all_reduce 1M/1G at 2 and 4, broadcast 1G at 2 */
    T_EQ_U(vs.n, 6);
    T_EQ_S(vs.v[5].metric, "busbw broadcast 1 GiB n=2 vs baseline");
    T_EQ_I(vs.v[5].pass, 0);
    T_CONTAINS(vs.v[5].note, "not measured");
    T_EQ_U(vs.failed, 1);
    nvs_verdicts_free(&vs);

    /* a run better than its baseline passes; the baseline's own point missing fails */
    const char *p2p[] = {"p2p uni pair=0,2 below_baseline<=1%", "efficiency train n=max below_baseline<=0%", NULL};
    vs = eval(p2p, &run, &base);
    T_EQ_I(vs.v[1].pass, 0);
    T_CONTAINS(vs.v[1].note, "not in the baseline");
    T_EQ_I(vs.v[2].pass, 1); /* equal to the baseline, 0% allowed */
    nvs_verdicts_free(&vs);
}

/* A baseline point the run did not measure: its limit is said in the digits a measured row's would be (three
 * significant below 1 GB/s), not "%.1f": a host backend's or small size's limit read ">= 0.0 GB/s"
 * (h200x1-head18 against h200x2-final5, 8 B at n=2); bb75fbf gave the note its digits, not this column. */
static void t_below_baseline_small_not_measured(void)
{
    static nvs_run_coll brows[16];
    nvs_run run = make_run();
    nvs_run base = baseline_of(brows, 16);
    base.ncolls = 8;
    brows[7] = row("broadcast", 2, G, 0, 0.0012, 0, 1, 1); /* the run has no broadcast at n=2 */
    const char *lines[] = {"busbw broadcast n=2 below_baseline<=10%", NULL};
    nvs_verdicts vs = eval(lines, &run, &base);
    T_EQ_U(vs.n, 2);
    T_EQ_S(vs.v[1].measured, "not measured");
    T_EQ_S(vs.v[1].expected, ">= 0.00108 GB/s");
    T_NEAR(vs.v[1].expected_v, 0.00108, 1e-12);
    nvs_verdicts_free(&vs);
    brows[7].busbw_gbps = 350.0; /* 1 GB/s and more: one decimal, as before */
    vs = eval(lines, &run, &base);
    T_EQ_S(vs.v[1].expected, ">= 315.0 GB/s");
    nvs_verdicts_free(&vs);
}

/* A baseline and a run of other data types or reductions at a point: the run's number is of another measurement.
 * A run of -d half against a float baseline passed "vs baseline" on its half row; a run of float alone against a
 * baseline of float and double was held to the baseline's worst variant without a word. Now the run must have
 * every variant the baseline measured there (else "not comparable", a FAIL), and only those are compared. */
static void t_below_baseline_variants(void)
{
    static nvs_run_coll brows[16], rrows[16];
    nvs_run run = make_run(), base = baseline_of(brows, 16);
    memcpy(rrows, rows, sizeof rrows);
    run.colls = rrows;
    const char *lines[] = {"busbw all_reduce size=1G n=4 below_baseline<=5%", NULL};
    rrows[6].type = "half"; /* the run's only 1 GiB n=4 row, 300 GB/s against the baseline's float 300 */
    nvs_verdicts vs = eval(lines, &run, &base);
    T_EQ_U(vs.n, 2);
    T_EQ_I(vs.v[1].pass, 0);
    T_EQ_S(vs.v[1].measured, "not comparable");
    T_CONTAINS(vs.v[1].note, "the baseline measured float sum out-of-place here, the run half sum out-of-place");
    nvs_verdicts_free(&vs);
    /* the run has the baseline's float and also half (slower): only float is compared, and passes */
    rrows[6].type = "float";
    rrows[run.ncolls] = rrows[6];
    rrows[run.ncolls].type = "half";
    rrows[run.ncolls].busbw_gbps = 100;
    run.ncolls++;
    vs = eval(lines, &run, &base);
    T_EQ_I(vs.v[1].pass, 1);
    T_NEAR(vs.v[1].measured_v, 300, 1e-9);
    nvs_verdicts_free(&vs);
    /* the baseline measured double beside float; the run float alone: not comparable, not a pass on float */
    brows[base.ncolls] = brows[6];
    brows[base.ncolls].type = "double";
    brows[base.ncolls].busbw_gbps = 200;
    base.ncolls++;
    run.ncolls--;
    vs = eval(lines, &run, &base);
    T_EQ_I(vs.v[1].pass, 0);
    T_CONTAINS(vs.v[1].note, "the baseline measured float sum out-of-place, double sum out-of-place here, the run "
                             "float sum out-of-place");
    nvs_verdicts_free(&vs);
}

/* In-place and out-of-place are two measurements (NCCL's in-place all_reduce runs on one buffer): each is held to
 * the baseline's of the same placement. Before, an in-place run passed against an out-of-place baseline, and the
 * run's worst row was set against the baseline's worst row whichever placement each came from. */
static void t_below_baseline_placement(void)
{
    static nvs_run_coll brows[16], rrows[16];
    nvs_run run = make_run(), base = baseline_of(brows, 16);
    memcpy(rrows, rows, sizeof rrows);
    run.colls = rrows;
    /* 1 GiB n=4: the baseline out-of-place 300, the run in-place 300 alone: not comparable */
    const char *n4[] = {"busbw all_reduce size=1G n=4 below_baseline<=5%", NULL};
    rrows[6].inplace = 1;
    nvs_verdicts vs = eval(n4, &run, &base);
    T_EQ_U(vs.n, 2);
    T_EQ_I(vs.v[1].pass, 0);
    T_EQ_S(vs.v[1].measured, "not comparable");
    T_CONTAINS(vs.v[1].note, "the baseline measured float sum out-of-place here, the run float sum in-place");
    nvs_verdicts_free(&vs);
    /* the run has both, its in-place one far slower: the out-of-place baseline is compared with out-of-place */
    rrows[6].inplace = 0;
    rrows[run.ncolls] = rrows[6];
    rrows[run.ncolls].inplace = 1;
    rrows[run.ncolls].busbw_gbps = 100;
    run.ncolls++;
    vs = eval(n4, &run, &base);
    T_EQ_I(vs.v[1].pass, 1);
    T_NEAR(vs.v[1].measured_v, 300, 1e-9);
    nvs_verdicts_free(&vs);
    run.ncolls--;
    /* 1 GiB n=2, both placements in both: the baseline out 330 / in 300, the run out 300 / in 327. Worst against
     * worst is 300 vs 300; out-of-place is 9.1% below its baseline, a FAIL at 5% */
    const char *n2[] = {"busbw all_reduce size=1G n=2 below_baseline<=5%", NULL};
    brows[4].busbw_gbps = 300;
    rrows[3].busbw_gbps = 300;
    vs = eval(n2, &run, &base);
    T_EQ_I(vs.v[1].pass, 0);
    T_NEAR(vs.v[1].measured_v, 300, 1e-9);
    T_NEAR(vs.v[1].expected_v, 330 * 0.95, 1e-9);
    T_CONTAINS(vs.v[1].note, "baseline 330.0 GB/s, 9.1% below it (limit 5.0%); worst of 2 variants: float sum "
                             "out-of-place");
    nvs_verdicts_free(&vs);
}

static void t_baseline_equal_to_run_passes(void)
{
    nvs_run run = make_run();
    const char *lines[] = {"busbw * n=* below_baseline<=0%", "p2p uni below_baseline<=0%",
                           "p2p bidir pair=0,1 below_baseline<=0%", "efficiency train n=* below_baseline<=0%", NULL};
    nvs_verdicts vs = eval(lines, &run, &run);
    T_EQ_U(vs.failed, 0);
    T_ASSERT(vs.n >= 10);
    nvs_verdicts_free(&vs);
}

static void t_slowest(void)
{
    nvs_run run = make_run();
    nvs_slowest_rank s[8];
    size_t k = nvs_check_slowest_ranks(&run, s, 8);
    T_EQ_U(k, 2); /* n=2 and n=4; never n=1 */
    T_EQ_I(s[0].n, 2);
    T_EQ_I(s[0].rank, 1); /* slowest in 2 of 3 configurations */
    T_EQ_I(s[0].slowest_in, 2);
    T_EQ_I(s[0].configs, 3);
    T_EQ_S(s[0].host, "node0");
    T_EQ_I(s[0].device, 1);
    /* mean of (max - min) / min: 2%, 1.78125%, 0.984615...% */
    T_NEAR(s[0].lag_pct, (0.3 / 15 + 57.0 / 3200 + 32.0 / 3250) * 100 / 3, 1e-9);
    T_EQ_I(s[1].n, 4);
    T_EQ_I(s[1].rank, 3);
    /* a tie (one configuration each) goes to the rank that lost more time */
    rows[5].slowest_rank = 2;
    rows[6].slowest_rank = 1;
    rows[7].slowest_rank = 0;
    k = nvs_check_slowest_ranks(&run, s, 8);
    T_EQ_I(s[1].rank, 1); /* 100 us behind, against 2 and 50 */
    T_EQ_I(nvs_check_slowest_pair(&run), 1);
    run.p2p.npairs = 0;
    T_EQ_I(nvs_check_slowest_pair(&run), -1);

    /* no p2p matrix: the slowest hop the explanation names at the largest N, only with both GPUs known */
    T_ASSERT(nvs_check_slowest_hop(&run) == NULL);
    nvs_run_explain ex[3] = {
        {.n = 2, .has_hop = 1, .hop_from_gpu = 0, .hop_to_gpu = 1, .hop_class = "NV18"},
        {.n = 4, .has_hop = 1, .hop_from_gpu = 2, .hop_to_gpu = 3, .hop_class = "SYS", .hop_link = "PCIe"},
        {.n = 8, .has_hop = 1, .hop_from_gpu = -1, .hop_to_gpu = 3}, /* GPUs unknown: not a pair to name */
    };
    run.explain = ex;
    run.nexplain = 3;
    const nvs_run_explain *h = nvs_check_slowest_hop(&run);
    T_ASSERT(h != NULL);
    T_EQ_I(h->n, 4);
    T_EQ_S(h->hop_class, "SYS");
}

static void t_run_names(void)
{
    nvs_run run = make_run();
    nvs_run_coll c[2] = {row("allreduce", 2, M, 0, 1, 0, 1, 1), row("BCAST", 2, M, 0, 1, 0, 1, 1)};
    run.colls = c;
    run.ncolls = 2;
    char err[128] = "";
    T_EQ_I(nvs_check_run_names(&run, err, sizeof err), NVS_OK);
    T_EQ_S(c[0].collective, "all_reduce"); /* the registry's spelling, which rules use */
    T_EQ_S(c[1].collective, "broadcast");
    c[1] = row("gather", 2, M, 0, 1, 0, 1, 1);
    T_EQ_I(nvs_check_run_names(&run, err, sizeof err), NVS_ERR_INPUT);
    T_EQ_S(err, "collectives[1].collective: unknown collective 'gather'");
}

/* A run that trained several workloads (run.json "trains", `--model bert-large,resnet50`): every workload is
 * held to an efficiency rule, each in its own row. Only the first ("train") was, so a run whose resnet50 kept
 * 88.4 % passed min=90% on bert-large's 97.2 % while the run's own verdict named resnet50 (results/h200x2-final3). */
static void t_every_workload(void)
{
    static nvs_run_train_result bert[2], resnet[2], bres[2], gres[2];
    bert[0] = (nvs_run_train_result){.n = 1, .efficiency = 1.0};
    bert[1] = (nvs_run_train_result){.n = 2, .efficiency = 0.972};
    resnet[0] = (nvs_run_train_result){.n = 1, .efficiency = 1.0};
    resnet[1] = (nvs_run_train_result){.n = 2, .efficiency = 0.884};
    nvs_run_train w[2] = {{.present = 1, .model = "bert-large", .results = bert, .nresults = 2},
                          {.present = 1, .model = "resnet50", .results = resnet, .nresults = 2}};
    nvs_run run = make_run();
    run.train = w[0];
    run.trains = w;
    run.ntrains = 2;
    const char *min[] = {"efficiency train n=* min=90%", NULL};
    nvs_verdicts vs = eval(min, &run, NULL);
    T_EQ_U(vs.n, 3);
    T_EQ_S(vs.v[1].metric, "efficiency bert-large n=2");
    T_EQ_I(vs.v[1].pass, 1);
    T_EQ_S(vs.v[2].metric, "efficiency resnet50 n=2");
    T_EQ_S(vs.v[2].measured, "88.4%");
    T_EQ_I(vs.v[2].pass, 0);
    T_EQ_U(vs.failed, 1);
    nvs_verdicts_free(&vs);

    /* against a baseline each workload meets the baseline's of the same model, whatever their order; one the
     * run did not train fails as not measured */
    bres[0] = (nvs_run_train_result){.n = 1, .efficiency = 1.0};
    bres[1] = (nvs_run_train_result){.n = 2, .efficiency = 0.99};
    gres[0] = (nvs_run_train_result){.n = 1, .efficiency = 1.0};
    gres[1] = (nvs_run_train_result){.n = 2, .efficiency = 0.95};
    nvs_run_train bw[3] = {{.present = 1, .model = "resnet50", .results = bres, .nresults = 2},
                           {.present = 1, .model = "bert-large", .results = bert, .nresults = 2},
                           {.present = 1, .model = "gpt2-xl", .results = gres, .nresults = 2}};
    nvs_run base = make_run();
    base.train = bw[0];
    base.trains = bw;
    base.ntrains = 3;
    const char *below[] = {"efficiency train n=2 below_baseline<=5%", NULL};
    vs = eval(below, &run, &base);
    T_EQ_U(vs.n, 4);
    T_EQ_S(vs.v[1].metric, "efficiency resnet50 n=2 vs baseline");
    T_EQ_I(vs.v[1].pass, 0);
    T_CONTAINS(vs.v[1].note, "baseline 99.0%");
    T_EQ_S(vs.v[2].metric, "efficiency bert-large n=2 vs baseline");
    T_EQ_I(vs.v[2].pass, 1);
    T_EQ_S(vs.v[3].metric, "efficiency gpt2-xl n=2 vs baseline");
    T_EQ_I(vs.v[3].pass, 0);
    T_EQ_S(vs.v[3].note, "not measured: the run did not train gpt2-xl");
    nvs_verdicts_free(&vs);
}

/* collectives not validated (-c 0): a WARN row of its own, whatever the rules; the rows still pass on their
 * numbers (the verdict is not made up), and the exit status stays (a WARN never changes it) */
static void t_unvalidated_warns(void)
{
    nvs_run run = make_run();
    run.unvalidated = 1;
    for (size_t i = 0; i < run.ncolls; i++) run.colls[i].wrong = -1;
    const char *one[] = {"busbw all_reduce size=1G n=2 min=1", NULL};
    nvs_verdicts vs = eval(one, &run, NULL);
    int warn = -1;
    for (size_t i = 0; i < vs.n; i++)
        if (!strcmp(vs.v[i].metric, "sanity: collectives not validated")) warn = (int)i;
    T_ASSERT(warn >= 0);
    T_EQ_I(vs.v[warn].severity, NVS_SEV_WARN);
    T_EQ_S(vs.v[warn].measured, "8 rows not validated");
    T_EQ_S(vs.v[warn].expected, "validated (-c 1)");
    T_EQ_U(vs.failed, 0);
    nvs_verdicts_free(&vs);
    for (size_t i = 0; i < run.ncolls; i++) run.colls[i].wrong = 0;
}

/* a busbw rule at n=max on a run of one GPU (accept --print-rules' rules given to check): FAIL, said as one GPU
 * having no bus bandwidth, not as a value the run failed to record */
static void t_one_gpu_busbw(void)
{
    nvs_run run = make_run();
    run.ncolls = 2; /* only the N=1 rows (1 MiB, 1 GiB), and training at N=1 */
    run.train.nresults = 1;
    run.world_size = 1;
    run.colls[0].busbw_gbps = run.colls[1].busbw_gbps = NAN;
    const char *max[] = {"busbw all_reduce size=1G n=max min=50", NULL};
    nvs_verdicts vs = eval(max, &run, NULL);
    T_EQ_U(vs.n, 2);
    T_EQ_I(vs.v[1].pass, 0);
    T_EQ_S(vs.v[1].measured, "not measured");
    T_CONTAINS(vs.v[1].note, "one GPU has no bus bandwidth");
    nvs_verdicts_free(&vs);
}

/* a run that trained at N=2 only (--gpus 2): N=2 is its own reference and its efficiency 1.0 by construction;
 * an efficiency rule there FAILs as not measured, not PASS at 100 % (a run of N=1 and 2 is held to its number) */
static void t_self_reference_efficiency(void)
{
    static nvs_run_train_result only2[1];
    only2[0] = (nvs_run_train_result){.n = 2, .efficiency = 1.0, .reference_n = 2};
    nvs_run run = make_run();
    run.train.results = only2;
    run.train.nresults = 1;
    const char *min[] = {"efficiency train n=max min=90%", NULL};
    nvs_verdicts vs = eval(min, &run, NULL);
    T_EQ_U(vs.n, 2);
    T_EQ_S(vs.v[1].metric, "efficiency train n=2");
    T_EQ_I(vs.v[1].pass, 0);
    T_EQ_S(vs.v[1].measured, "not measured");
    T_CONTAINS(vs.v[1].note, "n=2 is its own reference");
    nvs_verdicts_free(&vs);
    run = make_run(); /* reference 1 (as written, or absent in older runs): graded */
    train[1].reference_n = 1;
    const char *two[] = {"efficiency train n=2 min=90%", NULL};
    vs = eval(two, &run, NULL);
    T_EQ_I(vs.v[1].pass, 1);
    nvs_verdicts_free(&vs);
    train[1].reference_n = 0;
}

/* --gpus 2,4: efficiency is step(2)/step(N). A min= row says so (it was the bare number, read against a threshold
 * written for step(1)/step(N)); against a baseline measured from N=1 it is no comparison and does not pass */
static void t_reference_above_one(void)
{
    static nvs_run_train_result from2[2], from1[2];
    from2[0] = (nvs_run_train_result){.n = 2, .step_us = 100000, .efficiency = 1.0, .reference_n = 2};
    from2[1] = (nvs_run_train_result){.n = 4, .step_us = 104000, .efficiency = 0.96, .reference_n = 2};
    from1[0] = (nvs_run_train_result){.n = 1, .step_us = 80000, .efficiency = 1.0, .reference_n = 1};
    from1[1] = (nvs_run_train_result){.n = 4, .step_us = 104000, .efficiency = 0.77, .reference_n = 1};
    nvs_run run = make_run(), base = make_run();
    run.train.results = from2;
    run.train.nresults = 2;
    base.train.results = from1;
    base.train.nresults = 2;
    const char *min[] = {"efficiency train n=4 min=90%", NULL};
    nvs_verdicts vs = eval(min, &run, NULL);
    T_EQ_I(vs.v[1].pass, 1);
    T_CONTAINS(vs.v[1].note, "step(2)/step(N): the run has no N=1 step");
    nvs_verdicts_free(&vs);
    const char *below[] = {"efficiency train n=4 below_baseline<=5%", NULL};
    vs = eval(below, &run, &base); /* 96 % from N=2 is not 25 % above 77 % from N=1 */
    T_EQ_I(vs.v[1].pass, 0);
    T_CONTAINS(vs.v[1].note, "not comparable: the run's efficiency is step(2)/step(N), the baseline's step(1)/step(N)");
    nvs_verdicts_free(&vs);
    base.train.results = from2; /* the same reference: compared */
    vs = eval(below, &run, &base);
    T_EQ_I(vs.v[1].pass, 1);
    nvs_verdicts_free(&vs);
    base.train.results = from1;
    vs = eval(min, &base, NULL); /* a run from N=1: no note */
    T_EQ_S(vs.v[1].note, "");
    nvs_verdicts_free(&vs);
}

/* What the verdict outputs print of REP: the table (json 0) or the JSON, read back from a temporary file. */
static char *printed(const nvs_check_report *rep, int json, char *buf, size_t len)
{
    FILE *f = tmpfile();
    T_ASSERT(f);
    T_EQ_I(json ? nvs_check_print_json(f, NULL, rep) : nvs_check_print_table(f, rep), NVS_OK);
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Wrong results are exit 3 and never PASS. accept's run ended with wrong results (NVS_ERR_WRONG) while no row
 * failed: its JSON said "result": "PASS" beside "exit_code": 3. The outputs agree with the exit code, and the
 * "run result" row fails, saying why, so that JUnit and Prometheus (which print rows) say FAIL too. */
static void t_run_wrong_never_pass(void)
{
    nvs_run run = make_run(); /* run.json says "ok" */
    const char *lines[] = {"busbw all_reduce size=1G n=2 min=1", NULL};
    nvs_verdicts vs = eval(lines, &run, NULL);
    T_EQ_U(vs.failed, 0);
    static char buf[16384];
    nvs_check_report rep = {.title = "nvscale accept", .run = &run, .rules_desc = "test", .verdicts = &vs,
                            .slowest_pair = -1, .exit_code = 3};
    T_CONTAINS(printed(&rep, 1, buf, sizeof buf), "\"result\": \"FAIL\"");
    T_CONTAINS(printed(&rep, 0, buf, sizeof buf), "result: FAIL (the run found wrong results: exit 3");
    T_EQ_I(nvs_check_run_wrong(&vs), 0);
    T_EQ_U(vs.failed, 1);
    T_EQ_U(vs.n, 2);
    T_EQ_S(vs.v[0].metric, "run result");
    T_EQ_S(vs.v[0].measured, "wrong");
    T_EQ_I(vs.v[0].severity, NVS_SEV_FAIL);
    T_CONTAINS(vs.v[0].note, "found wrong elements (exit 3");
    T_CONTAINS(vs.v[0].note, "its run.json says 'ok'");
    T_EQ_I(nvs_check_run_wrong(&vs), 0); /* once is enough: a failing row is not counted twice */
    T_EQ_U(vs.failed, 1);
    T_CONTAINS(printed(&rep, 1, buf, sizeof buf), "\"result\": \"FAIL\"");
    T_CONTAINS(printed(&rep, 0, buf, sizeof buf), "result: FAIL (1 of 2 checks failed)");
    nvs_verdicts_free(&vs);
    /* no "run result" row at all: one is added */
    nvs_verdicts none = {0};
    T_EQ_I(nvs_check_run_wrong(&none), 0);
    T_EQ_U(none.n, 1);
    T_EQ_U(none.failed, 1);
    T_CONTAINS(none.v[0].note, "says 'no status'");
    nvs_verdicts_free(&none);
    /* the same run without wrong results passes: the FAIL above is not every run's */
    vs = eval(lines, &run, NULL);
    rep.verdicts = &vs;
    rep.exit_code = 0;
    T_CONTAINS(printed(&rep, 1, buf, sizeof buf), "\"result\": \"PASS\"");
    nvs_verdicts_free(&vs);
}

/* A JSON that cannot be written names where it was going: accept's verdicts.json said "cannot write the JSON
 * verdicts to stdout" when the file was the run's verdicts.json (/dev/full stands for a full disk). */
static void t_json_write_failure_names_file(void)
{
    FILE *full = fopen("/dev/full", "w");
    if (!full) T_SKIP("no /dev/full to fail a write");
    nvs_run run = make_run();
    const char *lines[] = {"busbw all_reduce size=1G n=2 min=1", NULL};
    nvs_verdicts vs = eval(lines, &run, NULL);
    nvs_check_report rep = {.run = &run, .rules_desc = "test", .verdicts = &vs, .slowest_pair = -1};
    static char buf[1024];
    const char *to[] = {"results/x/verdicts.json", NULL};
    const char *said[] = {"cannot write the JSON verdicts to results/x/verdicts.json: No space left on device",
                          "cannot write the JSON verdicts to stdout: No space left on device"};
    for (int i = 0; i < 2; i++) {
        FILE *log = tmpfile();
        T_ASSERT(log);
        FILE *was = nvs_log_set_sink(log);
        nvs_result_t r = nvs_check_print_json(full, to[i], &rep);
        nvs_log_set_sink(was);
        clearerr(full);
        rewind(log);
        size_t n = fread(buf, 1, sizeof buf - 1, log);
        buf[n] = '\0';
        fclose(log);
        T_EQ_I(r, NVS_ERR_SYSTEM);
        T_CONTAINS(buf, said[i]);
    }
    fclose(full);
    nvs_verdicts_free(&vs);
}

T_LIST = {T_CASE(t_json_write_failure_names_file), T_CASE(t_run_wrong_never_pass), T_CASE(t_self_reference_efficiency), T_CASE(t_reference_above_one), T_CASE(t_one_gpu_busbw), T_CASE(t_unvalidated_warns), T_CASE(t_appends), 
    T_CASE(t_status_row),         T_CASE(t_min_edges_and_worst_variant), T_CASE(t_n_selection),
    T_CASE(t_not_measured_fails), T_CASE(t_every_collective_and_range),  T_CASE(t_wrong_results_fail),
    T_CASE(t_p2p_and_efficiency), T_CASE(t_min_bound_pct), T_CASE(t_below_baseline), T_CASE(t_below_baseline_small_not_measured),              T_CASE(t_baseline_equal_to_run_passes), T_CASE(t_below_baseline_variants), T_CASE(t_below_baseline_placement),
    T_CASE(t_slowest),            T_CASE(t_run_names),           T_CASE(t_every_workload),
};
T_MAIN
