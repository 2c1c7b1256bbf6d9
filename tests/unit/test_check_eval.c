/* The verdicts of nvscale check (src/check/check_eval.c) on runs built here: thresholds at their edges, the worst
 * variant, "not measured" = FAIL, baseline comparison, slowest rank and pair. */
#include "check/check_eval.h"

#include <math.h>

#include "t.h"

static nvs_ck_coll row(const char *coll, int n, size_t bytes, int inplace, double busbw, int slowest, double tmin,
                       double tmax)
{
    nvs_ck_coll c = {.n = n, .inplace = inplace, .bytes = bytes, .time_min_us = tmin, .time_avg_us = tmax,
                     .time_max_us = tmax, .slowest_rank = slowest, .algbw_gbps = busbw, .busbw_gbps = busbw,
                     .wrong = 0};
    snprintf(c.collective, sizeof c.collective, "%s", coll);
    snprintf(c.type, sizeof c.type, "float");
    snprintf(c.op, sizeof c.op, "sum");
    return c;
}

#define G ((size_t)1 << 30)
#define M ((size_t)1 << 20)

static nvs_ck_coll rows[16];
static int ns[] = {1, 2, 4};
static nvs_ck_pair pairs[2];
static nvs_ck_train train[3];
static nvs_ck_rank ranks[4];

/* A 4-GPU run: all_reduce at 1 MiB and 1 GiB for N = 1, 2, 4 (in- and out-of-place at 1 GiB, N = 2), broadcast
 * at 1 GiB for N = 4 only; p2p 0->1, 1->0; training at 1, 2, 4. */
static nvs_ck_run make_run(void)
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
    pairs[0] = (nvs_ck_pair){.src = 0, .dst = 1, .uni_gbps = 390.0, .bidir_gbps = 760.0, .wrong = 0};
    pairs[1] = (nvs_ck_pair){.src = 1, .dst = 0, .uni_gbps = 380.0, .bidir_gbps = NAN, .wrong = 0};
    snprintf(pairs[0].cls, sizeof pairs[0].cls, "NV18");
    snprintf(pairs[1].cls, sizeof pairs[1].cls, "NV18");
    train[0] = (nvs_ck_train){1, 100000, 1.0};
    train[1] = (nvs_ck_train){2, 104000, 0.96};
    train[2] = (nvs_ck_train){4, 111000, 0.90};
    for (int i = 0; i < 4; i++) {
        ranks[i] = (nvs_ck_rank){.rank = i, .device = i};
        snprintf(ranks[i].host, sizeof ranks[i].host, "node%d", i / 2);
    }
    nvs_ck_run r = {.ns = ns, .nns = 3, .coll = rows, .ncoll = (size_t)k, .has_p2p = 1, .pairs = pairs,
                    .npairs = 2, .has_train = 1, .train = train, .ntrain = 3, .ranks = ranks, .nranks = 4,
                    .world_size = 4, .wrong_total = 0};
    snprintf(r.status, sizeof r.status, "ok");
    snprintf(r.path, sizeof r.path, "run.json");
    return r;
}

/* Evaluate rule lines against run (and base). */
static nvs_verdicts eval(const char *const *lines, const nvs_ck_run *run, const nvs_ck_run *base)
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
    nvs_verdicts vs;
    T_EQ_I(nvs_check_eval(&rs, run, base, &vs), 0);
    nvs_ruleset_free(&rs);
    return vs;
}

static void t_status_row(void)
{
    nvs_ck_run run = make_run();
    const char *none[] = {"busbw all_reduce size=1G n=2 min=1", NULL};
    nvs_verdicts vs = eval(none, &run, NULL);
    T_EQ_U(vs.n, 2);
    T_EQ_S(vs.v[0].metric, "run result");
    T_EQ_I(vs.v[0].pass, 1);
    nvs_verdicts_free(&vs);
    snprintf(run.status, sizeof run.status, "wrong");
    run.wrong_total = 5;
    vs = eval(none, &run, NULL);
    T_EQ_I(vs.v[0].pass, 0);
    T_CONTAINS(vs.v[0].note, "5 wrong elements");
    T_EQ_U(vs.failed, 1);
    nvs_verdicts_free(&vs);
    run.status[0] = '\0'; /* no result section: the run did not finish */
    vs = eval(none, &run, NULL);
    T_EQ_I(vs.v[0].pass, 0);
    nvs_verdicts_free(&vs);
}

static void t_min_edges_and_worst_variant(void)
{
    nvs_ck_run run = make_run();
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
    T_EQ_S(vs.v[2].margin, "-0.0 GB/s (-0.0%)");
    T_EQ_I(vs.v[3].pass, 1); /* out-of-place only: 330 */
    T_NEAR(vs.v[3].measured_v, 330.0, 0);
    T_EQ_U(vs.failed, 1);
    nvs_verdicts_free(&vs);
}

static void t_n_selection(void)
{
    nvs_ck_run run = make_run();
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
    nvs_ck_run run = make_run();
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
    run.has_p2p = 0;
    run.npairs = 0;
    run.has_train = 0;
    run.ntrain = 0;
    const char *sect[] = {"p2p uni min=1", "efficiency train n=* min=0.5", NULL};
    vs = eval(sect, &run, NULL);
    T_EQ_U(vs.failed, 2);
    T_CONTAINS(vs.v[1].note, "no p2p section");
    T_CONTAINS(vs.v[2].note, "no train section");
    nvs_verdicts_free(&vs);
}

static void t_every_collective_and_range(void)
{
    nvs_ck_run run = make_run();
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
    nvs_ck_run run = make_run();
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
    nvs_ck_run run = make_run();
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

static void t_below_baseline(void)
{
    static nvs_ck_coll brows[16];
    nvs_ck_run run = make_run();
    nvs_ck_run base = make_run();
    memcpy(brows, rows, sizeof brows);
    base.coll = brows;
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

    /* the baseline decides which points must exist: a point only the baseline has fails as not measured,
     * a point only the run has is not compared */
    base.ncoll = 8;
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

static void t_baseline_equal_to_run_passes(void)
{
    nvs_ck_run run = make_run();
    const char *lines[] = {"busbw * n=* below_baseline<=0%", "p2p uni below_baseline<=0%",
                           "p2p bidir pair=0,1 below_baseline<=0%", "efficiency train n=* below_baseline<=0%", NULL};
    nvs_verdicts vs = eval(lines, &run, &run);
    T_EQ_U(vs.failed, 0);
    T_ASSERT(vs.n >= 10);
    nvs_verdicts_free(&vs);
}

static void t_slowest(void)
{
    nvs_ck_run run = make_run();
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
    run.npairs = 0;
    T_EQ_I(nvs_check_slowest_pair(&run), -1);
}

T_LIST = {
    T_CASE(t_status_row),         T_CASE(t_min_edges_and_worst_variant), T_CASE(t_n_selection),
    T_CASE(t_not_measured_fails), T_CASE(t_every_collective_and_range),  T_CASE(t_wrong_results_fail),
    T_CASE(t_p2p_and_efficiency), T_CASE(t_below_baseline),              T_CASE(t_baseline_equal_to_run_passes),
    T_CASE(t_slowest),
};
T_MAIN
