/* The fleet view's pure core (fleet/fleet.c): medians, the outlier host, keys one run lacks, machines compared. */
#include <math.h>
#include <string.h>

#include "fleet/fleet.h"
#include "t.h"

static void t_outlier(void)
{
    nvs_fleet_samples s = {0};
    /* four hosts; node3 is 20 % below the others at 1 GiB; node2 alone measured 4 GiB */
    const char *hosts[] = {"node0", "node1", "node2", "node3"};
    const double v[] = {330, 327, 332, 264};
    for (int r = 0; r < 4; r++) T_EQ_I(nvs_fleet_add(&s, "busbw all_reduce 1 GiB n=8", "GB/s", r, hosts[r], v[r]), 0);
    T_EQ_I(nvs_fleet_add(&s, "busbw all_reduce 4 GiB n=8", "GB/s", 2, "node2", 340), 0);
    T_EQ_I(nvs_fleet_add(&s, "p2p slowest pair", "GB/s", 0, "node0", NAN), 0); /* not measured: not a sample */
    T_EQ_U(s.n, 5);
    nvs_fleet_findings f;
    T_EQ_I(nvs_fleet_judge(&s, 10, &f), 0);
    T_EQ_U(f.n, 4); /* the 4 GiB key has one run: nothing to compare */
    T_EQ_U(f.outliers, 1);
    T_NEAR(f.v[0].median, (327 + 330) / 2.0, 1e-9);
    T_EQ_I(f.v[3].outlier, 1);
    T_EQ_S(f.v[3].sample->host, "node3");
    T_NEAR(f.v[3].below_pct, (328.5 - 264) / 328.5 * 100, 1e-9);
    T_EQ_I(f.v[2].outlier, 0);
    T_ASSERT(f.v[2].below_pct < 0); /* above the median */
    nvs_fleet_findings_free(&f);
    /* a looser limit: no outlier */
    T_EQ_I(nvs_fleet_judge(&s, 25, &f), 0);
    T_EQ_U(f.outliers, 0);
    nvs_fleet_findings_free(&f);
    nvs_fleet_samples_free(&s);
}

static void t_machines(void)
{
    char why[256];
    nvs_fleet_machine a = {"n0", "NVIDIA H200", 2, "NV18 NV18", "nccl"}, b = a;
    T_EQ_I(nvs_fleet_machines_differ(&a, &b, why, sizeof why), 0);
    T_EQ_S(why, "");
    b.gpu_name = "NVIDIA H100 80GB HBM3";
    b.classes = "PHB PHB";
    T_EQ_I(nvs_fleet_machines_differ(&a, &b, why, sizeof why), 1);
    T_EQ_S(why, "GPU NVIDIA H200 vs NVIDIA H100 80GB HBM3; topology NV18 NV18 vs PHB PHB");
    b = a;
    b.ngpus = 8;
    b.backend = "mpi";
    T_EQ_I(nvs_fleet_machines_differ(&a, &b, why, sizeof why), 1);
    T_EQ_S(why, "GPUs 2 vs 8; backend nccl vs mpi");
    b = a;
    b.gpu_name = NULL; /* unknown is not compared */
    b.classes = NULL;
    T_EQ_I(nvs_fleet_machines_differ(&a, &b, why, sizeof why), 0);
}

T_LIST = {T_CASE(t_outlier), T_CASE(t_machines)};
T_MAIN
