/* The "why" paragraphs and the facts they are built from; the report's efficiency helpers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "explain/explain.h"
#include "t.h"

#define RUNS "tests/fixtures/runs/"

static void t_facts_3090(void)
{
    nvs_run r;
    T_EQ_I(nvs_run_load(RUNS "box3090_8gpu_shm.json", 0, &r), NVS_OK);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 4, &f);
    T_EQ_I(f.n, 4);
    T_EQ_I(f.has_hop, 1);
    T_EQ_S(f.hop_class, "PHB"); /* ring 0-1-2-3: PXB, PHB, PXB, PHB; equal bounds, PHB is worse */
    T_NEAR(f.bound_gbps, 31.5, 1e-9);
    T_EQ_I(f.hop_p2p, 0);
    T_EQ_S(f.transport, "SHM");
    T_EQ_S(f.collective, "all_reduce");
    T_NEAR(f.busbw_bytes, 1073741824.0, 0);
    T_NEAR(f.busbw_gbps, 9.6, 0.01);
    T_EQ_I(f.prev_n, 2);
    T_NEAR(f.prev_busbw_gbps, 11.2, 0.01);
    T_NEAR(f.exposed_comm_pct, 100.0 * 9200.0 / 199800.0, 1e-9);
    T_NEAR(f.measured_comm_us, 21900.0, 1e-9);
    nvs_explain_facts_from_run(&r, 8, &f);
    T_EQ_S(f.hop_class, "SYS");
    T_EQ_I(f.prev_n, 4);
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_S(f.hop_class, "PXB");
    T_EQ_I(f.prev_n, 0); /* N=1 busbw is 0 by definition: no "previous" for N=2 */
    char text[1024];
    nvs_explain_facts_from_run(&r, 4, &f);
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "At 4 GPUs the ring crosses the CPU host bridge (PHB) and NCCL used SHM through host memory");
    T_CONTAINS(text, "because CUDA reports no peer-to-peer access");
    T_CONTAINS(text, "busbw fell from 11 GB/s at 2 GPUs to 9.6 GB/s at 1 GiB");
    T_CONTAINS(text, "30 % of the 31.5 GB/s bound");
    T_CONTAINS(text, "4.6 % of the training step is communication the backward pass could not hide");
    /* efficiency helpers of the report */
    T_NEAR(nvs_report_common_size(&r, "all_reduce"), 1073741824.0, 0);
    int base = 0;
    T_NEAR(nvs_report_coll_efficiency(&r, "all_reduce", 8, 1073741824.0, &base), 6.2 / 11.2, 1e-3);
    T_EQ_I(base, 2);
    T_ASSERT(isnan(nvs_report_coll_efficiency(&r, "all_reduce", 1, 1073741824.0, NULL)));
    T_ASSERT(isnan(nvs_report_coll_efficiency(&r, "broadcast", 4, 1073741824.0, NULL)));
    nvs_run_free(&r);
}

static void t_facts_nvlink_and_shm(void)
{
    nvs_run r;
    T_EQ_I(nvs_run_load(RUNS "h200x2_shm.json", 0, &r), NVS_OK);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_S(f.hop_class, "NV18");
    T_EQ_S(f.transport, "SHM");
    T_EQ_S(f.p2p_disabled_by, "NCCL_P2P_DISABLE=1");
    char text[1024];
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "the ring runs over NVLink (NV18) but NCCL did not use it: it used SHM through host memory, "
                     "because NCCL_P2P_DISABLE=1");
    /* the hop it went around is named with its rate, not as a bound of what SHM carried ("5.7 % of the 478") */
    T_CONTAINS(text, "27 GB/s at 1 GiB, where the hop NCCL went around is rated 478 GB/s");
    T_ASSERT(!strstr(text, "% of the 478"));
    /* the same machine's GPUs, but ranks of the host backend (--backend mpi): host memory, no GPU ring */
    const char *keep = r.backend;
    r.backend = "mpi";
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_I(f.has_hop, 0);
    T_ASSERT(f.hop_class == NULL && isnan(f.bound_gbps));
    r.backend = keep;
    nvs_run_free(&r);
}

static void t_text_shapes(void)
{
    nvs_explain_facts f;
    char text[1024];
    nvs_explain_facts_init(&f, 1);
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "At 1 GPU nothing crosses a link");

    nvs_explain_facts_init(&f, 2);
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run).");

    /* a network hop over sockets; busbw held (within 10 %) */
    nvs_explain_facts_init(&f, 16);
    f.has_hop = 1;
    f.hop_class = "NET";
    f.bound_gbps = 12.5;
    snprintf(f.transport, sizeof f.transport, "P2P+NET");
    snprintf(f.net, sizeof f.net, "Socket");
    f.collective = "all_reduce";
    f.busbw_gbps = 3.4;
    f.busbw_bytes = 1 << 30;
    f.prev_n = 8;
    f.prev_busbw_gbps = 3.5;
    f.exposed_comm_pct = 0.4;
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 16 GPUs the ring crosses the network between hosts (NET) and NCCL used P2P inside each host "
                 "and NET/Socket: all_reduce busbw held at 3.4 GB/s (3.5 at 8 GPUs) at 1 GiB, 27 % of the 12.5 GB/s "
                 "bound of that hop, and the backward pass hid almost all communication (0.4 % of the step "
                 "exposed).");

    /* rose; no bound; transport unknown */
    nvs_explain_facts_init(&f, 4);
    f.has_hop = 1;
    f.hop_class = "NV4";
    f.collective = "broadcast";
    f.busbw_gbps = 200;
    f.prev_n = 2;
    f.prev_busbw_gbps = 100;
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 4 GPUs the ring runs over NVLink (NV4) (NCCL's transport is not in this run): broadcast busbw "
                 "rose from 100 GB/s at 2 GPUs to 200 GB/s.");

    /* snprintf semantics: the full length is returned, the buffer is cut and terminated */
    size_t need = nvs_explain_text(&f, NULL, 0);
    T_EQ_U(need, strlen(text));
    char small[10];
    T_EQ_U(nvs_explain_text(&f, small, sizeof small), need);
    T_EQ_S(small, "At 4 GPUs");
}

/* a host whose CPU ran at different speeds (between steps, or between ranks): said after the paragraph from 1.25x
 * apart, never for CPU ranks */
static void t_host_rate(void)
{
    nvs_explain_facts f;
    char text[1024];
    nvs_explain_facts_init(&f, 2);
    f.host_rate_p10 = 101;
    f.host_rate_p90 = 173;
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run). The host's CPU ran at "
                 "different speeds during the training steps: before them, the framework's unit of host work ran at "
                 "101 to 173 per us (1.71x apart); a step bound by such host work (an eager framework at bf16) "
                 "follows the CPU, so repeat the run and compare medians.");
    f.host_rate_p90 = 126; /* 1.248x: jitter */
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run).");
    f.host_rate_p90 = 126.25; /* exactly 1.25x */
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "101 to 126 per us (1.25x apart)");
    f.host_ranks = 1; /* the ranks are CPU processes: their whole step is host work, timed as such */
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 ranks (the MPI host backend: CPU processes over MPI, no GPUs and no NCCL transport).");
    f.host_ranks = 0;
    f.host_rate_p10 = NAN; /* unknown (no host work, an older run) */
    f.exposed_comm_pct = 0.2; /* the step grew by more than its all-reduces last: the rest waited for a rank */
    f.rank_wait_pct = 9.8;
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run): the backward pass hid almost "
                 "all communication (0.2 % of the step exposed); beyond that, 9.8 % of the step went to waiting at "
                 "the all-reduces for a slower rank.");
    /* the compute's own loss, each part once it is 1 % of the step (2 CPU ranks on 2 cores: all communication
     * hidden, 50 % efficiency, and "Why" said only the first) */
    f.rank_wait_pct = NAN;
    f.step_ms = 77810.4;
    f.contention_ms = 19828.9;
    f.interference_ms = 700; /* 0.9 %: within the measurement */
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run): the backward pass hid almost "
                 "all communication (0.2 % of the step exposed); the compute ran 19828.9 ms slower than at the "
                 "reference by sharing the machine (memory, power, host).");
    f.step_ms = 105.5;
    f.contention_ms = 15.5;
    f.interference_ms = 3.1;
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "; the compute ran 15.5 ms slower than at the reference by sharing the machine (memory, power, "
                     "host), and 3.1 ms slower beside the all-reduces (interference: they share its SMs and memory).");
    f.host_ranks = 1; /* CPU ranks: their cores, not SMs */
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "(interference: they share its cores and memory)");
    f.host_ranks = 0;
    f.contention_ms = -2; /* faster alone at N than at the reference: nothing lost there */
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "; the compute ran 3.1 ms slower beside the all-reduces (interference");
    f.contention_ms = f.interference_ms = f.step_ms = NAN;
    f.rank_wait_pct = 0.9; /* within the measurement */
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run): the backward pass hid almost "
                 "all communication (0.2 % of the step exposed).");
    f.exposed_comm_pct = f.rank_wait_pct = NAN;
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run).");
    /* a host-bound step: issued until near its end (results/fidelity/n1-1gpu-fit2, lm290m bf16: 52.2 of 53.9 ms) */
    f.issue_pct = 100.0 * 52.2 / 53.9;
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run). The host set the step's "
                 "pace: issuing it (the framework's host work and the kernel launches) took 97 % of the step, so "
                 "the GPU waited on the host; a faster CPU, fewer and larger operations (fused kernels, CUDA "
                 "graphs) or more work per operation (a larger batch) would shorten the step, faster links would "
                 "not.");
    /* with run.json's issue_by_us: the two kinds the host spent most on, in words (an unknown kind by its key) */
    f.issue_top[0] = "framework";
    f.issue_top_ms[0] = 41.5;
    f.issue_top[1] = "conv_library";
    f.issue_top_ms[1] = 0.9;
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "took 97 % of the step, most of it the framework's host work 42 ms and cuDNN's convolution "
                     "calls 0.9 ms, so the GPU waited on the host");
    /* the framework's host work among them: its time is the fitted CPUs', not this one's (host-spread.md) */
    T_CONTAINS(text, "would not. nvscale spends the framework's host work as it took on the CPUs it was fitted on; "
                     "PyTorch's own took 0.65x to 1.75x of its median");
    f.issue_top[0] = "dataloader";
    f.issue_top[1] = NULL;
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "took 97 % of the step, most of it dataloader 42 ms, so the GPU");
    T_ASSERT(!strstr(text, "fitted on")); /* no framework host work among the top two: no such caveat */
    f.issue_top[1] = "framework";
    f.issue_top_ms[1] = 0.5;
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "as it took on the CPUs it was fitted on");
    f.issue_top[1] = NULL;
    f.issue_top[0] = NULL;
    f.issue_pct = 100.0 * 19.0 / 47.8; /* resnet50 bf16: issued well ahead of the GPU */
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run).");
    f.issue_pct = 90.0; /* the threshold */
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "took 90 % of the step");
    f.host_ranks = 1; /* CPU ranks: the whole step is host work by construction */
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 ranks (the MPI host backend: CPU processes over MPI, no GPUs and no NCCL transport).");
}

static void t_classes_and_json(void)
{
    nvs_run r;
    T_EQ_I(nvs_run_load(RUNS "h200x2_nvlink.json", 0, &r), NVS_OK);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 2, &f);
    json_t *j = nvs_explain_json(&f);
    T_ASSERT(j);
    T_EQ_I(json_integer_value(json_object_get(j, "n")), 2);
    json_t *h = json_object_get(j, "slowest_hop");
    T_EQ_S(json_string_value(json_object_get(h, "class")), "NV18");
    T_EQ_S(json_string_value(json_object_get(h, "link")), "NVLink");
    T_EQ_S(json_string_value(json_object_get(j, "transport")), "P2P");
    T_EQ_S(json_string_value(json_object_get(j, "collective")), "all_reduce"); /* what pct_of_bound is of */
    T_NEAR(json_real_value(json_object_get(j, "pct_of_bound")), 100 * 329.65 / 478.1, 1e-9);
    T_CONTAINS(json_string_value(json_object_get(j, "text")), "runs over NVLink (NV18) and NCCL used P2P over NVLink");
    /* what the reader gets back from it is the same text */
    json_t *doc = json_pack("{s:s, s:[O]}", "schema", "nvscale.run/1", "explain", j);
    T_ASSERT(doc);
    nvs_run back;
    char err[256];
    T_EQ_I(nvs_run_from_json(doc, "mem", 0, &back, err, sizeof err), NVS_OK);
    T_EQ_S(back.explain[0].text, json_string_value(json_object_get(j, "text")));
    nvs_run_free(&back);
    json_decref(doc);
    json_decref(j);
    /* the hop's link is the kind its class names (core/link_class.h); a class that is none of nvidia-smi's names
     * no link */
    static const struct {
        const char *cls, *link;
    } links[] = {{"NV2", "NVLink"}, {"PHB", "PCIe"}, {"SYS", "PCIe"}, {"NET", "network"}, {"?", NULL}, {"NVX", NULL}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        f.hop_class = links[i].cls;
        j = nvs_explain_json(&f);
        T_ASSERT(j);
        json_t *l = json_object_get(json_object_get(j, "slowest_hop"), "link");
        if (links[i].link) T_EQ_S(json_string_value(l), links[i].link);
        else T_ASSERT(json_is_null(l));
        json_decref(j);
    }
    nvs_run_free(&r);
}

/* Two hosts of two GPUs each (as --emulate-nodes 2 gives on 4 GPUs): the NET hop of unknown rate is the ring's
 * slowest, not the NV18 hops of known bound; the paragraph says how many hosts each count spans, and where the
 * previous count ran (intra- against inter-host). */
static void t_two_hosts(void)
{
    const char *doc =
        "{\"schema\": \"nvscale.run/1\", \"world\": {\"size\": 4, \"nodes\": 2},"
        " \"ranks\": [{\"rank\": 0, \"host\": \"m/vnode0\", \"node\": 0, \"topo_gpu\": 0},"
        "             {\"rank\": 1, \"host\": \"m/vnode0\", \"node\": 0, \"topo_gpu\": 1},"
        "             {\"rank\": 2, \"host\": \"m/vnode1\", \"node\": 1, \"topo_gpu\": 2},"
        "             {\"rank\": 3, \"host\": \"m/vnode1\", \"node\": 1, \"topo_gpu\": 3}],"
        " \"topology\": {\"hosts\": [{\"name\": \"m/vnode0\"}, {\"name\": \"m/vnode1\"}],"
        "   \"gpus\": [{\"index\": 0, \"host\": \"m/vnode0\", \"pci_bus_id\": \"0000:01:00.0\"},"
        "            {\"index\": 1, \"host\": \"m/vnode0\", \"pci_bus_id\": \"0000:02:00.0\"},"
        "            {\"index\": 2, \"host\": \"m/vnode1\", \"pci_bus_id\": \"0000:03:00.0\"},"
        "            {\"index\": 3, \"host\": \"m/vnode1\", \"pci_bus_id\": \"0000:04:00.0\"}],"
        "   \"pairs\": [{\"a\": 0, \"b\": 1, \"class\": \"NV18\", \"bound_gbps\": 478.1},"
        "             {\"a\": 0, \"b\": 2, \"class\": \"NET\", \"bound_gbps\": null},"
        "             {\"a\": 0, \"b\": 3, \"class\": \"NET\", \"bound_gbps\": null},"
        "             {\"a\": 1, \"b\": 2, \"class\": \"NET\", \"bound_gbps\": null},"
        "             {\"a\": 1, \"b\": 3, \"class\": \"NET\", \"bound_gbps\": null},"
        "             {\"a\": 2, \"b\": 3, \"class\": \"NV18\", \"bound_gbps\": 478.1}]},"
        " \"scaling\": [{\"n\": 2, \"ranks\": [0, 1], \"gpus\": [0, 1]},"
        "               {\"n\": 4, \"ranks\": [0, 1, 2, 3], \"gpus\": [0, 1, 2, 3]}],"
        " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1073741824, \"busbw_gbps\": 330.0},"
        "                   {\"collective\": \"all_reduce\", \"n\": 4, \"bytes\": 1073741824, \"busbw_gbps\": 2.6}]}";
    json_error_t je;
    json_t *j = json_loads(doc, 0, &je);
    if (!j) T_FAIL("fixture JSON: %s", je.text);
    nvs_run r;
    char err[256];
    T_EQ_I(nvs_run_from_json(j, "mem", 0, &r, err, sizeof err), NVS_OK);
    json_decref(j);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 4, &f);
    T_EQ_I(f.has_hop, 1);
    T_EQ_S(f.hop_class, "NET");
    T_ASSERT(isnan(f.bound_gbps));
    T_EQ_I(f.hosts, 2);
    T_EQ_I(f.prev_n, 2);
    T_EQ_I(f.prev_hosts, 1);
    snprintf(f.transport, sizeof f.transport, "P2P+NET");
    snprintf(f.net, sizeof f.net, "Socket");
    char text[1024];
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 4 GPUs on 2 hosts (2 each) the ring crosses the network between hosts (NET) and NCCL used P2P "
                 "inside each host and NET/Socket: all_reduce busbw fell from 330 GB/s at 2 GPUs on one host to 2.6 GB/s at "
                 "1 GiB.");
    /* 3 + 1 ranks on the two hosts: not "(2 each)", which any even split of 4 over 2 hosts used to say */
    size_t r1 = r.nranks;
    for (size_t k = 0; k < r.nranks; k++)
        if (r.ranks[k].rank == 1) r1 = k;
    T_ASSERT(r1 < r.nranks);
    const char *host1 = r.ranks[r1].host, *other = NULL;
    for (size_t k = 0; k < r.nranks; k++)
        if (r.ranks[k].rank == 3) other = r.ranks[k].host;
    T_ASSERT(other && strcmp(other, host1));
    r.ranks[r1].host = other;
    nvs_explain_facts_from_run(&r, 4, &f);
    T_EQ_I(f.hosts, 2);
    T_EQ_I(f.per_host, 0);
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "At 4 GPUs on 2 hosts the ring");
    r.ranks[r1].host = host1;
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_S(f.hop_class, "NV18");
    T_EQ_I(f.hosts, 1);
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "At 2 GPUs on one host the ring runs over NVLink (NV18)");
    json_t *ej = nvs_explain_json(&f);
    T_EQ_I(json_integer_value(json_object_get(ej, "hosts")), 1);
    json_decref(ej);
    nvs_run_free(&r);
    /* a one-host run says nothing about hosts (its paragraphs are as before) */
    T_EQ_I(nvs_run_load(RUNS "h200x2_nvlink.json", 0, &r), NVS_OK);
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_I(f.hosts, 0);
    nvs_run_free(&r);
}

/* A run of two workloads: "Why" gives the figures of the one that scales worst at N, which the verdict names, and
 * says which it is (results/h200x2-final5: the verdict "resnet50 keeps 88.9 %" stood over bert-large's "0.1 % of
 * the step exposed", where resnet50's was 5.65 of 57.73 ms) */
static void t_worst_workload(void)
{
    nvs_run r;
    T_EQ_I(nvs_run_load("results/h200x2-final5/default/run.json", 0, &r), NVS_OK);
    T_EQ_I((int)nvs_run_workloads(&r), 2);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_S(f.workload, "resnet50");
    T_NEAR(f.exposed_comm_pct, 100.0 * 5.65 / 57.73, 0.01);
    char text[2048];
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "9.8 % of the training step of resnet50 is communication the backward pass could not hide");
    json_t *ej = nvs_explain_json(&f);
    T_EQ_S(json_string_value(json_object_get(ej, "workload")), "resnet50");
    json_decref(ej);
    /* at N=1 every workload is at 100 %: the first listed, named */
    nvs_explain_facts_from_run(&r, 1, &f);
    T_EQ_S(f.workload, nvs_run_workload(&r, 0)->model);
    nvs_run_free(&r);
    /* one workload: not named (its paragraphs are as before) */
    T_EQ_I(nvs_run_load(RUNS "h200x2_nvlink.json", 0, &r), NVS_OK);
    nvs_explain_facts_from_run(&r, 2, &f);
    T_ASSERT(f.workload == NULL);
    nvs_run_free(&r);
}

/* no 1-GPU step (--gpus 2 or 2,4): at the reference N reducer and exposed communication cannot be told apart (was
 * "hid almost all communication (0.0 % exposed)": the reference's whole loss had been charged to the reducer);
 * above it the exposed figure says what it leaves out */
static void t_reference_above_one(void)
{
    nvs_explain_facts f;
    char text[1024];
    nvs_explain_facts_init(&f, 2);
    f.exposed_comm_pct = 0;
    f.train_ref_n = 2;
    f.train_lost_ms = 281.4;
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs (neither the topology nor NCCL's transport is in this run): the training step spent 281 ms "
                 "beyond its compute, the framework's reducer and exposed communication together: only a 1-GPU step "
                 "tells them apart, and this run has none (--gpus).");
    nvs_explain_facts_init(&f, 4);
    f.exposed_comm_pct = 12;
    f.train_ref_n = 2;
    f.train_lost_ms = 300;
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "12 % of the training step is communication the backward pass could not hide (beyond what the "
                     "2-GPU step lost, taken as the reducer's: no 1-GPU step in this run).");
    /* with a 1-GPU reference: as before */
    f.train_ref_n = 1;
    nvs_explain_text(&f, text, sizeof text);
    T_ASSERT(!strstr(text, "beyond what"));
}

/* Rows of one sweep size at several N are matched by their "size", not their bytes: all_gather keeps whole 16-byte
 * blocks per rank, so 1 MiB of float is 1048576 B at N=2 and 1048560 B at N=3. Matched by bytes, the N=3 row had no
 * N=2 row of its size: "Why" gave no previous N and the finders said "not measured". A file without "size" (written
 * before it) still loads, its bytes standing for the size. */
static const char *ag_doc(int with_size)
{
    return with_size
               ? "{\"schema\": \"nvscale.run/1\","
                 " \"collectives\": [{\"collective\": \"all_gather\", \"n\": 2, \"size\": 1048576, \"bytes\": 1048576,"
                 "                    \"busbw_gbps\": 100.0},"
                 "                   {\"collective\": \"all_gather\", \"n\": 3, \"size\": 1048576, \"bytes\": 1048560,"
                 "                    \"busbw_gbps\": 40.0}]}"
               : "{\"schema\": \"nvscale.run/1\","
                 " \"collectives\": [{\"collective\": \"all_gather\", \"n\": 2, \"bytes\": 1048576,"
                 "                    \"busbw_gbps\": 100.0},"
                 "                   {\"collective\": \"all_gather\", \"n\": 3, \"bytes\": 1048560,"
                 "                    \"busbw_gbps\": 40.0}]}";
}

static void load_doc(const char *doc, nvs_run *r)
{
    json_error_t je;
    json_t *j = json_loads(doc, 0, &je);
    if (!j) T_FAIL("fixture JSON: %s", je.text);
    char err[256];
    int rc = nvs_run_from_json(j, "mem", 0, r, err, sizeof err);
    json_decref(j);
    if (rc != NVS_OK) T_FAIL("load: %s", err);
}

static void t_rows_by_size(void)
{
    nvs_run r;
    load_doc(ag_doc(1), &r);
    T_EQ_I((int)r.colls[1].size, 1048576);
    T_EQ_I((int)r.colls[1].bytes, 1048560);
    T_ASSERT(nvs_run_coll_find(&r, "all_gather", 3, 1048576) == &r.colls[1]);
    T_ASSERT(nvs_run_coll_find(&r, "all_gather", 2, 1048576) == &r.colls[0]);
    double *sizes = NULL;
    T_EQ_I(nvs_run_coll_sizes(&r, "all_gather", &sizes), 1);
    T_EQ_I((int)sizes[0], 1048576);
    free(sizes);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 3, &f);
    T_EQ_I(f.prev_n, 2);
    T_NEAR(f.prev_busbw_gbps, 100.0, 1e-9);
    char text[1024];
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "all_gather busbw fell from 100 GB/s at 2 GPUs to 40 GB/s");
    nvs_run_free(&r);
    /* an older file: no "size"; the bytes stand for it */
    load_doc(ag_doc(0), &r);
    T_EQ_I((int)r.colls[1].size, 1048560);
    T_ASSERT(nvs_run_coll_find(&r, "all_gather", 3, 1048560) == &r.colls[1]);
    nvs_run_free(&r);
    /* a size that is not a whole number is refused, as bytes are */
    json_error_t je;
    json_t *j = json_loads("{\"schema\": \"nvscale.run/1\", \"collectives\": [{\"collective\": \"all_gather\","
                           " \"n\": 2, \"size\": 1.5, \"bytes\": 16}]}", 0, &je);
    char err[256];
    T_ASSERT(nvs_run_from_json(j, "mem", 0, &r, err, sizeof err) != NVS_OK);
    T_CONTAINS(err, "collectives[0].size");
    json_decref(j);
}

/* A run interrupted or failed before some counts lists them in "scaling" (and the run's plan): their paragraphs
 * said "At 2 ranks (neither the topology nor NCCL's transport is in this run)." as if 2 ranks had been measured
 * (seen: mpirun -np 3 nvscale run --backend mpi, stopped during N=2: run.json has N=1 rows only) */
static void t_not_measured(void)
{
    nvs_run r;
    load_doc("{\"schema\": \"nvscale.run/1\","
             " \"scaling\": [{\"n\": 1, \"ranks\": [0]}, {\"n\": 2, \"ranks\": [0, 1]}, {\"n\": 3, \"ranks\": [0, 1, 2]}],"
             " \"collectives\": [{\"collective\": \"all_gather\", \"n\": 1, \"size\": 65536, \"bytes\": 65536}],"
             " \"train\": {\"model\": \"resnet50\", \"results\": [{\"n\": 3, \"step_us\": 1000, \"compute_us\": 900}]}}",
             &r);
    nvs_explain_facts f;
    char text[1024];
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_I(f.not_measured, 1);
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 2 GPUs nothing was measured: the run did not get to this count or failed at it (see its result).");
    /* a training result is a measurement */
    nvs_explain_facts_from_run(&r, 3, &f);
    T_EQ_I(f.not_measured, 0);
    nvs_explain_facts_from_run(&r, 1, &f);
    T_EQ_I(f.not_measured, 0);
    nvs_run_free(&r);
    /* no N=1 row either (stopped before the baseline): not "this is the baseline" */
    load_doc("{\"schema\": \"nvscale.run/1\", \"scaling\": [{\"n\": 1, \"ranks\": [0]}], \"collectives\": []}", &r);
    nvs_explain_facts_from_run(&r, 1, &f);
    nvs_explain_text(&f, text, sizeof text);
    T_EQ_S(text, "At 1 GPU nothing was measured: the run did not get to this count or failed at it (see its result).");
    nvs_run_free(&r);
}

/* The previous N a busbw is compared with is the one whose row of the same placement has one: an in-place row with
 * a busbw chose N=3, whose out-of-place row had none, and the paragraph compared nothing although N=2 had a row */
static void t_prev_same_row(void)
{
    nvs_run r;
    load_doc("{\"schema\": \"nvscale.run/1\", \"collectives\": ["
             "{\"collective\": \"all_reduce\", \"n\": 2, \"size\": 1048576, \"bytes\": 1048576, \"inplace\": false,"
             " \"busbw_gbps\": 100},"
             "{\"collective\": \"all_reduce\", \"n\": 3, \"size\": 1048576, \"bytes\": 1048576, \"inplace\": false},"
             "{\"collective\": \"all_reduce\", \"n\": 3, \"size\": 1048576, \"bytes\": 1048576, \"inplace\": true,"
             " \"busbw_gbps\": 90},"
             "{\"collective\": \"all_reduce\", \"n\": 4, \"size\": 1048576, \"bytes\": 1048576, \"inplace\": false,"
             " \"busbw_gbps\": 40}]}", &r);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 4, &f);
    T_EQ_I(f.prev_n, 2);
    T_NEAR(f.prev_busbw_gbps, 100.0, 1e-9);
    char text[1024];
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "all_reduce busbw fell from 100 GB/s at 2 GPUs to 40 GB/s");
    nvs_run_free(&r);
}

/* A row whose result check failed (wrong elements) is no evidence of a bandwidth: its busbw was quoted as the N's
 * figure and as the previous N's, without a word */
static void t_failed_rows(void)
{
    nvs_run r;
    load_doc("{\"schema\": \"nvscale.run/1\", \"collectives\": ["
             "{\"collective\": \"all_reduce\", \"n\": 2, \"size\": 1048576, \"bytes\": 1048576, \"busbw_gbps\": 100,"
             " \"wrong\": 0},"
             "{\"collective\": \"all_reduce\", \"n\": 3, \"size\": 1048576, \"bytes\": 1048576, \"busbw_gbps\": 999,"
             " \"wrong\": 12},"
             "{\"collective\": \"all_reduce\", \"n\": 4, \"size\": 65536, \"bytes\": 65536, \"busbw_gbps\": 30,"
             " \"wrong\": 0},"
             "{\"collective\": \"all_reduce\", \"n\": 4, \"size\": 1048576, \"bytes\": 1048576, \"busbw_gbps\": 500,"
             " \"wrong\": 7}]}", &r);
    nvs_explain_facts f;
    char text[1024];
    nvs_explain_facts_from_run(&r, 3, &f);
    T_ASSERT(isnan(f.busbw_gbps));
    T_EQ_I(f.failed_rows, 1);
    nvs_explain_text(&f, text, sizeof text);
    T_ASSERT(!strstr(text, "999"));
    T_CONTAINS(text, "1 all_reduce row at 3 GPUs failed the result check (12 wrong elements): its busbw is not used");
    nvs_explain_facts_from_run(&r, 4, &f);
    T_NEAR(f.busbw_gbps, 30.0, 1e-9); /* the largest size that passed */
    T_EQ_I(f.prev_n, 0);               /* no passing 64 KiB row before */
    nvs_explain_text(&f, text, sizeof text);
    T_ASSERT(!strstr(text, "500"));
    T_CONTAINS(text, "all_reduce busbw is 30 GB/s at 64 KiB; 1 all_reduce row at 4 GPUs failed the result check (7 wrong");
    nvs_run_free(&r);
}

/* Four GPUs whose NVLinks make the ring 0-1-3-2 (every hop NV4, 100 GB/s) where rank order 0-1-2-3 crosses SYS
 * twice (10 GB/s). NCCL builds the former; the run's Why (run/out_explain.c) quoted it while the report's % of
 * bound and plot took the ring in rank order: 800 % of a 10 GB/s bound beside "80 % of the 100 GB/s bound". */
#define BEST_RING_DOC(EXPLAIN)                                                                                       \
    "{\"schema\": \"nvscale.run/1\", \"world\": {\"size\": 4, \"nodes\": 1},"                                       \
    " \"topology\": {\"gpus\": [{\"index\": 0}, {\"index\": 1}, {\"index\": 2}, {\"index\": 3}],"                  \
    "   \"pairs\": [{\"a\": 0, \"b\": 1, \"class\": \"NV4\", \"bound_gbps\": 100.0},"                                 \
    "             {\"a\": 0, \"b\": 2, \"class\": \"NV4\", \"bound_gbps\": 100.0},"                                   \
    "             {\"a\": 0, \"b\": 3, \"class\": \"SYS\", \"bound_gbps\": 10.0},"                                    \
    "             {\"a\": 1, \"b\": 2, \"class\": \"SYS\", \"bound_gbps\": 10.0},"                                    \
    "             {\"a\": 1, \"b\": 3, \"class\": \"NV4\", \"bound_gbps\": 100.0},"                                   \
    "             {\"a\": 2, \"b\": 3, \"class\": \"NV4\", \"bound_gbps\": 100.0}]},"                                 \
    " \"scaling\": [{\"n\": 4, \"ranks\": [0, 1, 2, 3], \"gpus\": [0, 1, 2, 3]}],"                                 \
    " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 4, \"size\": 1048576, \"bytes\": 1048576,"          \
    "                    \"busbw_gbps\": 80.0}]" EXPLAIN "}"

static void t_best_ring(void)
{
    nvs_run r;
    nvs_explain_facts f;
    char text[1024];
    load_doc(BEST_RING_DOC(""), &r);
    nvs_explain_facts_from_run(&r, 4, &f);
    T_EQ_I(f.has_hop, 1);
    T_EQ_S(f.hop_class, "NV4"); /* rank order said SYS, 10 GB/s */
    T_NEAR(f.bound_gbps, 100.0, 1e-9);
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "80 % of the 100 GB/s bound");
    /* where every ring has the slow hop, it is still named */
    nvs_run_free(&r);
    load_doc("{\"schema\": \"nvscale.run/1\","
             " \"topology\": {\"gpus\": [{\"index\": 0}, {\"index\": 1}, {\"index\": 2}],"
             "   \"pairs\": [{\"a\": 0, \"b\": 1, \"class\": \"NV4\", \"bound_gbps\": 100.0},"
             "             {\"a\": 0, \"b\": 2, \"class\": \"NV4\", \"bound_gbps\": 100.0},"
             "             {\"a\": 1, \"b\": 2, \"class\": \"SYS\", \"bound_gbps\": 10.0}]},"
             " \"scaling\": [{\"n\": 3, \"ranks\": [0, 1, 2], \"gpus\": [0, 1, 2]}],"
             " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 3, \"bytes\": 1024, \"busbw_gbps\": 1.0}]}",
             &r);
    nvs_explain_facts_from_run(&r, 3, &f);
    T_EQ_S(f.hop_class, "SYS"); /* a ring over three GPUs has every pair */
    T_NEAR(f.bound_gbps, 10.0, 1e-9);
    nvs_run_free(&r);
    /* the run's own explain entry is the ring it found over its live topology (and the transport NCCL used):
     * the facts take it, so the report's % of bound is of the bound the Why text quotes */
    load_doc(BEST_RING_DOC(", \"explain\": [{\"n\": 4, \"slowest_hop\": {\"from_gpu\": 3, \"to_gpu\": 2, \"class\": "
                           "\"NV4\", \"bound_gbps\": 90.0, \"source\": \"as the run found it\"}, \"text\": \"T\"}]"),
             &r);
    nvs_explain_facts_from_run(&r, 4, &f);
    T_NEAR(f.bound_gbps, 90.0, 1e-9);
    T_EQ_I(f.hop_from_gpu, 3);
    T_EQ_S(f.bound_source, "as the run found it");
    nvs_run_free(&r);
}

/* A NET plugin whose name has a space ("AWS Libfabric", aws-ofi-nccl on EFA): the Why named "NET/AWS" */
static void t_net_name_with_space(void)
{
    const char *doc =
        "{\"schema\": \"nvscale.run/1\", \"world\": {\"size\": 2},"
        " \"transports\": [{\"n\": 2, \"summary\": {\"NET\": 2}, \"channels\": ["
        "   {\"comm\": \"0x1\", \"channel\": 0, \"from_rank\": 0, \"to_rank\": 1, \"transport\": \"NET\","
        "    \"detail\": \"NET/AWS Libfabric/0/GDRDMA\"}]}],"
        " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1048576, \"busbw_gbps\": 20.0}]}";
    json_error_t je;
    json_t *j = json_loads(doc, 0, &je);
    if (!j) T_FAIL("fixture JSON: %s", je.text);
    nvs_run r;
    char err[256];
    T_EQ_I(nvs_run_from_json(j, "mem", 0, &r, err, sizeof err), NVS_OK);
    json_decref(j);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_S(f.transport, "NET");
    T_EQ_S(f.net, "AWS Libfabric");
    char text[1024];
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "NCCL used NET/AWS Libfabric (");
    char tr[64];
    T_EQ_S(nvs_report_transport(&r, 2, tr, sizeof tr), "NET/AWS Libfabric");
    nvs_run_free(&r);
}

/* CollNet (NCCL_COLLNET_ENABLE=1, a collnet plugin such as SHARP) beside the NET rings: the Why said only
 * "NET/IB", as if nothing reduced in the network */
static void t_collnet_words(void)
{
    const char *doc =
        "{\"schema\": \"nvscale.run/1\", \"world\": {\"size\": 2},"
        " \"transports\": [{\"n\": 2, \"summary\": {\"NET\": 4, \"COLLNET\": 2}, \"channels\": ["
        "   {\"comm\": \"0x1\", \"channel\": 0, \"from_rank\": 0, \"to_rank\": 1, \"transport\": \"NET\","
        "    \"detail\": \"NET/IB/0/GDRDMA\"},"
        "   {\"comm\": \"0x1\", \"channel\": 0, \"from_rank\": 0, \"to_rank\": 0, \"transport\": \"COLLNET\","
        "    \"detail\": \"COLLNET/SHARP/0/GDRDMA\"}]}],"
        " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1048576, \"busbw_gbps\": 20.0}]}";
    json_error_t je;
    json_t *j = json_loads(doc, 0, &je);
    if (!j) T_FAIL("fixture JSON: %s", je.text);
    nvs_run r;
    char err[256];
    T_EQ_I(nvs_run_from_json(j, "mem", 0, &r, err, sizeof err), NVS_OK);
    json_decref(j);
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_S(f.transport, "NET+COLLNET");
    T_EQ_S(f.net, "IB");
    char text[1024];
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "NCCL used NET/IB and CollNet/SHARP (in-network reduction through the network plugin)");
    /* CollNet alone (a communicator whose only connections were CollNet's), no plugin known */
    nvs_explain_facts g;
    nvs_explain_facts_init(&g, 2);
    snprintf(g.transport, sizeof g.transport, "COLLNET");
    nvs_explain_text(&g, text, sizeof text);
    T_CONTAINS(text, "NCCL used CollNet (in-network reduction");
    nvs_run_free(&r);
}

/* NVLS (NVLink SHARP) recorded per N in run.json's transports ("nvls": true): the Why said nothing of it, at that
 * N or any; an N whose communicators did not use it (or a run.json without the key) says nothing */
static void t_nvls_words(void)
{
    const char *doc =
        "{\"schema\": \"nvscale.run/1\", \"world\": {\"size\": 4},"
        " \"transports\": [{\"n\": 2, \"summary\": {\"P2P\": 8}, \"nvls\": false},"
        "                  {\"n\": 4, \"summary\": {\"P2P\": 16}, \"nvls\": true},"
        "                  {\"n\": 3, \"summary\": {\"P2P\": 12}}],"
        " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1048576, \"busbw_gbps\": 20.0},"
        "                   {\"collective\": \"all_reduce\", \"n\": 3, \"bytes\": 1048576, \"busbw_gbps\": 20.0},"
        "                   {\"collective\": \"all_reduce\", \"n\": 4, \"bytes\": 1048576, \"busbw_gbps\": 20.0}]}";
    json_error_t je;
    json_t *j = json_loads(doc, 0, &je);
    if (!j) T_FAIL("fixture JSON: %s", je.text);
    nvs_run r;
    char err[256];
    T_EQ_I(nvs_run_from_json(j, "mem", 0, &r, err, sizeof err), NVS_OK);
    json_decref(j);
    char text[1024];
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 4, &f);
    T_EQ_I(f.nvls, 1);
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "At 4 GPUs NCCL used P2P, with NVLink SHARP (NVLS: the NVSwitch reduces) (");
    for (int n = 2; n <= 3; n++) {
        nvs_explain_facts_from_run(&r, n, &f);
        T_EQ_I(f.nvls, 0);
        nvs_explain_text(&f, text, sizeof text);
        T_ASSERT(!strstr(text, "NVLS"));
    }
    nvs_run_free(&r);
    /* with NVLS an all_reduce's busbw may pass the ring's hop bound (the switch reduces): no % of it; a broadcast,
     * which NVLS does not run, keeps its % */
    nvs_explain_facts_init(&f, 4);
    f.has_hop = 1;
    f.hop_class = "NV18";
    f.bound_gbps = 450;
    snprintf(f.transport, sizeof f.transport, "P2P");
    f.nvls = 1;
    f.collective = "all_reduce";
    f.busbw_gbps = 480;
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "all_reduce busbw is 480 GB/s (NVLS: the ring bound of that hop, 450 GB/s, does not bound it)");
    T_ASSERT(!strstr(text, "% of the"));
    f.collective = "broadcast";
    f.busbw_gbps = 400;
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "% of the 450 GB/s bound of that hop");
    /* "nvls" is a boolean: anything else is a bad run.json, named */
    j = json_loads("{\"schema\": \"nvscale.run/1\", \"transports\": [{\"n\": 2, \"nvls\": 1}]}", 0, &je);
    if (!j) T_FAIL("fixture JSON: %s", je.text);
    T_ASSERT(nvs_run_from_json(j, "mem", 0, &r, err, sizeof err) != NVS_OK);
    T_CONTAINS(err, "nvls");
    json_decref(j);
}

/* The rule of a hop NCCL went around, over (class, transport) as the screen table reads them from run.json: an
 * NVLink hop with SHM or NET and no P2P; a PCIe hop, a P2P transport, an unknown transport or no hop is used. */
static void t_hop_unused_by(void)
{
    T_ASSERT(nvs_explain_hop_unused_by("NV18", "SHM"));
    T_ASSERT(nvs_explain_hop_unused_by("NV4", "NET/Socket"));
    T_ASSERT(!nvs_explain_hop_unused_by("NV18", "P2P/CUMEM"));
    T_ASSERT(!nvs_explain_hop_unused_by("NV18", "P2P/IPC+SHM"));
    T_ASSERT(!nvs_explain_hop_unused_by("NV18", ""));
    T_ASSERT(!nvs_explain_hop_unused_by("NV18", NULL));
    T_ASSERT(!nvs_explain_hop_unused_by("SYS", "SHM"));
    T_ASSERT(!nvs_explain_hop_unused_by(NULL, "SHM"));
}

/* Transport words are matched whole: a substring test took "NET" inside "COLLNET" for NET (right by accident:
 * CollNet is a network path too) and inside any word that merely holds it, as it did "SHM" and "P2P" */
static void t_hop_unused_whole_words(void)
{
    /* CollNet goes through the network plugin: around an NVLink hop, as NET; beside P2P the hop is used */
    T_ASSERT(nvs_explain_hop_unused_by("NV18", "COLLNET"));
    T_ASSERT(nvs_explain_hop_unused_by("NV18", "NET+COLLNET"));
    T_ASSERT(!nvs_explain_hop_unused_by("NV18", "P2P+COLLNET"));
    /* words nvscale does not know are not NET, SHM (or P2P) for holding those letters */
    T_ASSERT(!nvs_explain_hop_unused_by("NV18", "XNET"));
    T_ASSERT(!nvs_explain_hop_unused_by("NV18", "NETX/1"));
    T_ASSERT(!nvs_explain_hop_unused_by("NV18", "SHMEM"));
    /* whole words with NCCL's detail after '/' are still words */
    T_ASSERT(nvs_explain_hop_unused_by("NV18", "COLLNET/SHARP+SHM"));
    /* the facts' rule is the same: a CollNet-only communicator around an NVLink hop has no % of its bound */
    nvs_explain_facts f;
    nvs_explain_facts_init(&f, 2);
    nvs_explain_set_hop(&f, 0, 1, "NV18", 450.0, NULL, 1);
    snprintf(f.transport, sizeof f.transport, "COLLNET");
    f.collective = "all_reduce";
    f.busbw_gbps = 20.0;
    T_ASSERT(nvs_explain_hop_unused(&f));
    snprintf(f.transport, sizeof f.transport, "P2P+COLLNET");
    T_ASSERT(!nvs_explain_hop_unused(&f));
    char text[1024];
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "% of the 450 GB/s bound of that hop");
}

/* Transport words nvscale does not know (a newer NCCL's transport, the log's "other") were dropped beside known
 * ones, so the Why said "NCCL used P2P" of a communicator that also ran over something else */
static void t_unknown_transport_words(void)
{
    const char *doc =
        "{\"schema\": \"nvscale.run/1\", \"world\": {\"size\": 4},"
        " \"transports\": [{\"n\": 2, \"summary\": {\"GIN\": 2, \"P2P\": 4}},"
        "                  {\"n\": 4, \"summary\": {\"NET\": 8, \"other\": 2}}],"
        " \"collectives\": [{\"collective\": \"all_reduce\", \"n\": 2, \"bytes\": 1048576, \"busbw_gbps\": 20.0},"
        "                   {\"collective\": \"all_reduce\", \"n\": 4, \"bytes\": 1048576, \"busbw_gbps\": 20.0}]}";
    json_error_t je;
    json_t *j = json_loads(doc, 0, &je);
    if (!j) T_FAIL("fixture JSON: %s", je.text);
    nvs_run r;
    char err[256];
    T_EQ_I(nvs_run_from_json(j, "mem", 0, &r, err, sizeof err), NVS_OK);
    json_decref(j);
    char text[1024];
    nvs_explain_facts f;
    nvs_explain_facts_from_run(&r, 2, &f);
    T_EQ_S(f.transport, "P2P+GIN");
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "NCCL used P2P and GIN (not a transport nvscale knows)");
    nvs_explain_facts_from_run(&r, 4, &f);
    nvs_explain_text(&f, text, sizeof text);
    T_CONTAINS(text, "NCCL used NET and another transport (not one nvscale knows)");
    /* NCCL's detail after '/' is said with the word; several unknown words are each said */
    nvs_explain_facts g;
    nvs_explain_facts_init(&g, 2);
    snprintf(g.transport, sizeof g.transport, "SHM+XYZ/1+ABC");
    nvs_explain_text(&g, text, sizeof text);
    T_CONTAINS(text, "NCCL used SHM through host memory and XYZ/1 (not a transport nvscale knows) and ABC (not a "
                     "transport nvscale knows)");
    /* an unknown word alone beside an NVLink hop is no known path around it: not "did not use it", and the % of
     * the hop's bound is given, as run.json's pct_of_bound and the screen table (nvs_explain_hop_unused_by) do */
    nvs_explain_set_hop(&g, 0, 1, "NV18", 450.0, NULL, 1);
    snprintf(g.transport, sizeof g.transport, "XYZ");
    g.collective = "all_reduce";
    g.busbw_gbps = 20.0;
    nvs_explain_text(&g, text, sizeof text);
    T_CONTAINS(text, "the ring runs over NVLink (NV18) and NCCL used XYZ (not a transport nvscale knows)");
    T_CONTAINS(text, "% of the 450 GB/s bound of that hop");
    T_ASSERT(!strstr(text, "did not use it"));
    nvs_run_free(&r);
}

T_LIST = {T_CASE(t_reference_above_one), T_CASE(t_worst_workload), T_CASE(t_facts_3090), T_CASE(t_facts_nvlink_and_shm), T_CASE(t_text_shapes), T_CASE(t_host_rate), T_CASE(t_classes_and_json),
          T_CASE(t_two_hosts), T_CASE(t_rows_by_size),
          T_CASE(t_not_measured), T_CASE(t_prev_same_row), T_CASE(t_failed_rows), T_CASE(t_best_ring),
          T_CASE(t_net_name_with_space), T_CASE(t_collnet_words), T_CASE(t_nvls_words), T_CASE(t_hop_unused_by),
          T_CASE(t_hop_unused_whole_words), T_CASE(t_unknown_transport_words)};
T_MAIN
