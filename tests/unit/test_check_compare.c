/* The pure part of nvscale compare (src/compare/compare.c): transport lists, which transports a topology allows (from
 * the topology fixtures in tests/fixtures/check/topo_*.json), the child's environment, and the check of the
 * transport NCCL really used. Runs from the repository root (tests/run.sh). */
#include "compare/compare.h"

#include "core/out_file.h"
#include "t.h"

static void t_parse_list(void)
{
    nvs_tp_kind k[NVS_TP_COUNT];
    char err[256];
    T_EQ_I(nvs_tp_parse_list("shm,NVLink", k, NVS_TP_COUNT, err, sizeof err), 2);
    T_EQ_I(k[0], NVS_TP_SHM); /* the order given is the order of the runs and columns */
    T_EQ_I(k[1], NVS_TP_NVLINK);
    T_EQ_I(nvs_tp_parse_list("all", k, NVS_TP_COUNT, err, sizeof err), 4);
    T_EQ_I(k[3], NVS_TP_NET);
    static const struct {
        const char *s, *msg;
    } bad[] = {
        {"", "empty list"},       {"nvlink,", "empty item"},      {",shm", "empty item"},
        {"shm,,net", "empty item"}, {"ib", "unknown transport 'ib'"}, {"shm,net,shm", "'shm' given twice"},
        {"nvlink pcie", "unknown transport 'nvlink pcie'"},
        {"all,shm", "'all' stands alone: it is every transport, in 'all,shm'"}, {"net,ALL", "'all' stands alone"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (nvs_tp_parse_list(bad[i].s, k, NVS_TP_COUNT, err, sizeof err) != -1) T_FAIL("'%s' accepted", bad[i].s);
        if (!strstr(err, bad[i].msg)) T_FAIL("'%s': \"%s\" lacks \"%s\"", bad[i].s, err, bad[i].msg);
    }
}

static int load_topo(const char *name, nvs_run *r)
{
    char path[256], *text, err[512] = "";
    snprintf(path, sizeof path, "tests/fixtures/check/%s", name);
    if (nvs_read_text_file(path, 1 << 20, &text) != NVS_OK) return -1;
    nvs_result_t res = nvs_tp_parse_topology(text, r, err, sizeof err);
    free(text);
    if (res != NVS_OK) printf("# %s: %s\n", name, err);
    return res == NVS_OK ? 0 : -1;
}

/* feasibility of every transport on one fixture: "1010" = nvlink yes, pcie no, shm yes, net no */
static void feasible(const char *fixture, int count, const char *want, const char *reason_of_first_no,
                     const char *pcie_note)
{
    nvs_run r;
    if (load_topo(fixture, &r)) T_FAIL("cannot load %s", fixture);
    int used[16];
    int nused = nvs_tp_used_gpus(&r.topology, count, used, 16);
    int first_no = 1;
    for (int k = 0; k < NVS_TP_COUNT; k++) {
        nvs_tp_feasibility f;
        nvs_tp_feasible((nvs_tp_kind)k, &r.topology, used, nused, &f);
        if (f.feasible != (want[k] == '1'))
            T_FAIL("%s: %s feasible = %d, expected %c (%s)", fixture, nvs_tp((nvs_tp_kind)k)->name, f.feasible,
                   want[k], f.reason);
        if (!f.feasible && !f.reason[0]) T_FAIL("%s: %s skipped without a reason", fixture, nvs_tp((nvs_tp_kind)k)->name);
        if (!f.feasible && first_no) {
            T_CONTAINS(f.reason, reason_of_first_no);
            first_no = 0;
        }
        if (k == NVS_TP_PCIE && f.feasible) {
            if (pcie_note) T_CONTAINS(f.note, pcie_note);
            else T_EQ_S(f.note, "");
        }
    }
    nvs_run_free(&r);
}

static void t_feasibility(void)
{
    /* NV18 (the reference H200 pair, run.json form): no PCIe P2P to measure */
    feasible("topo_nv18.json", 0, "1011", "NVLinked (NV18): CUDA peer-to-peer between them always takes NVLink", NULL);
    /* two GPUs on one PCIe switch, P2P works (bare topology object) */
    feasible("topo_pcie.json", 0, "0111", "GPUs 0 and 1 have no NVLink between them (PIX)", NULL);
    /* GeForce: no peer access at all */
    feasible("topo_nop2p.json", 0, "0011", "no NVLink", NULL);
    /* P2P across a host bridge: feasible, with a caveat about NCCL's P2P level */
    feasible("topo_phb.json", 0, "0111", "no NVLink", "NCCL_P2P_LEVEL=SYS");
    /* P2P support unknown (from an hwloc XML): tried, verified afterwards */
    feasible("topo_unknown_p2p.json", 0, "0111", "no NVLink", "unknown");
    /* 4 GPUs, two NVLink islands: all four mix links, the first two are NVLink alone */
    feasible("topo_mixed.json", 0, "0011", "GPUs 0 and 2 have no NVLink between them (SYS)", NULL);
    feasible("topo_mixed.json", 2, "1011", "NVLinked (NV4)", NULL);
    /* one GPU: nothing to compare */
    feasible("topo_1gpu.json", 0, "0000", "1 GPU on this host: nothing travels between GPUs", NULL);
}

static void t_pcie_refused_without_p2p(void)
{
    nvs_run r;
    if (load_topo("topo_nop2p.json", &r)) T_FAIL("cannot load");
    int used[4];
    int n = nvs_tp_used_gpus(&r.topology, 0, used, 4);
    nvs_tp_feasibility f;
    nvs_tp_feasible(NVS_TP_PCIE, &r.topology, used, n, &f);
    T_EQ_I(f.feasible, 0);
    T_CONTAINS(f.reason, "cudaDeviceCanAccessPeer(0, 1) is false");
    nvs_run_free(&r);
}

static void t_used_gpus(void)
{
    nvs_run r;
    if (load_topo("topo_unknown_p2p.json", &r)) T_FAIL("cannot load");
    int used[4];
    /* ordered by CUDA device: topology GPU 1 is CUDA device 0 */
    T_EQ_I(nvs_tp_used_gpus(&r.topology, 0, used, 4), 2);
    T_EQ_I(used[0], 1);
    T_EQ_I(used[1], 0);
    T_EQ_I(nvs_tp_used_gpus(&r.topology, 1, used, 4), 1);
    T_EQ_I(nvs_tp_used_gpus(&r.topology, 9, used, 4), 2); /* more than there are: all */
    nvs_run_free(&r);
}

static void t_bad_topology(void)
{
    nvs_run r;
    char err[512] = "";
    T_EQ_I(nvs_tp_parse_topology("[1]", &r, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "not a JSON object");
    T_EQ_I(nvs_tp_parse_topology("{\"gpus\": 3}", &r, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "gpus");
    nvs_run_free(&r);
    T_EQ_I(nvs_tp_parse_topology("{\"schema\": \"nvscale.run/1\"}", &r, err, sizeof err), NVS_ERR_INPUT);
    T_CONTAINS(err, "topology");
    nvs_run_free(&r);
}

static int count(char **env, const char *prefix)
{
    int n = 0;
    for (int i = 0; env[i]; i++) n += !strncmp(env[i], prefix, strlen(prefix));
    return n;
}

static void t_child_env(void)
{
    char *parent[] = {"PATH=/usr/bin", "NCCL_P2P_DISABLE=1", "NCCL_DEBUG=WARN", "NCCL_SHM_DISABLE=0",
                      "NCCL_P2P_DISABLEX=7", "CUDA_VISIBLE_DEVICES=0,1", NULL};
    int dropped = -1;
    char **e = nvs_tp_child_env(parent, NVS_TP_NVLINK, &dropped);
    T_ASSERT(e);
    T_EQ_I(dropped, 2); /* the user's NCCL_P2P_DISABLE=1 would have turned the nvlink run into SHM */
    T_EQ_I(count(e, "NCCL_P2P_DISABLE="), 0);
    T_EQ_I(count(e, "NCCL_SHM_DISABLE="), 0);
    T_EQ_I(count(e, "NCCL_DEBUG=WARN"), 1);         /* everything else is inherited */
    T_EQ_I(count(e, "NCCL_P2P_DISABLEX=7"), 1);      /* a longer name is another variable */
    T_EQ_I(count(e, "CUDA_VISIBLE_DEVICES=0,1"), 1);
    T_EQ_I(count(e, "PATH="), 1);
    free(e);
    e = nvs_tp_child_env(parent, NVS_TP_SHM, NULL);
    T_EQ_I(count(e, "NCCL_P2P_DISABLE=1"), 1);
    T_EQ_I(count(e, "NCCL_SHM_DISABLE="), 0);
    free(e);
    e = nvs_tp_child_env(parent, NVS_TP_NET, NULL);
    T_EQ_I(count(e, "NCCL_P2P_DISABLE=1"), 1);
    T_EQ_I(count(e, "NCCL_SHM_DISABLE=1"), 1);
    T_EQ_I(count(e, "NCCL_NET="), 0); /* not forced: IB where there is one, sockets otherwise */
    free(e);
    char *empty[] = {NULL};
    e = nvs_tp_child_env(empty, NVS_TP_PCIE, &dropped);
    T_ASSERT(e && !e[0]);
    T_EQ_I(dropped, 0);
    free(e);
}

static nvs_tp_verification verify(nvs_tp_kind k, const char *transports, const char *backend)
{
    char text[2048], err[512] = "";
    snprintf(text, sizeof text, "{\"schema\": \"nvscale.run/1\", \"command\": {\"backend\": \"%s\"}%s%s}", backend,
             transports ? ", \"transports\": " : "", transports ? transports : "");
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    if (!doc) T_FAIL("test JSON: %s", je.text);
    nvs_run r;
    if (nvs_run_from_json(doc, "t", 0, &r, err, sizeof err) != NVS_OK) T_FAIL("run: %s", err);
    json_decref(doc);
    nvs_tp_verification v;
    nvs_tp_verify(k, &r, &v);
    nvs_run_free(&r);
    return v;
}

static void t_verify(void)
{
    const char *p2p_nvl = "[{\"n\": 2, \"summary\": {\"P2P\": 24}, \"link\": \"NVLink\"}]";
    const char *p2p_pcie = "[{\"n\": 2, \"summary\": {\"P2P\": 2}, \"link\": \"PCIe\"}]";
    const char *shm = "[{\"n\": 2, \"summary\": {\"SHM\": 2}, \"link\": \"host memory\"}]";
    const char *net = "[{\"n\": 2, \"summary\": {\"NET\": 2}, \"link\": \"network\", "
                      "\"channels\": [{\"transport\": \"NET\", \"detail\": \"NET/IB/0\"}]}]";
    const char *mixed = "[{\"n\": 1, \"summary\": {}}, {\"n\": 4, \"summary\": {\"P2P\": 8, \"SHM\": 8}}]";
    nvs_tp_verification v = verify(NVS_TP_NVLINK, p2p_nvl, "nccl");
    T_EQ_I(v.verdict, NVS_TP_VERIFIED);
    T_EQ_S(v.found, "P2P over NVLink (24 channels)");
    v = verify(NVS_TP_PCIE, p2p_nvl, "nccl"); /* asked PCIe, got NVLink */
    T_EQ_I(v.verdict, NVS_TP_MISMATCH);
    T_CONTAINS(v.text, "MISMATCH: asked for pcie (P2P over PCIe), NCCL used P2P over NVLink");
    v = verify(NVS_TP_PCIE, p2p_pcie, "nccl");
    T_EQ_I(v.verdict, NVS_TP_VERIFIED);
    v = verify(NVS_TP_SHM, shm, "nccl");
    T_EQ_I(v.verdict, NVS_TP_VERIFIED);
    v = verify(NVS_TP_SHM, p2p_nvl, "nccl"); /* NCCL_P2P_DISABLE lost on the way */
    T_EQ_I(v.verdict, NVS_TP_MISMATCH);
    T_CONTAINS(v.text, "asked for shm (SHM), NCCL used P2P over NVLink");
    v = verify(NVS_TP_NET, net, "nccl");
    T_EQ_I(v.verdict, NVS_TP_VERIFIED);
    T_CONTAINS(v.found, "NET/IB/0"); /* which network NCCL took */
    /* CollNet's in-network reduction beside the NET rings is the network path asked for, named by its plugin;
     * where SHM was asked it is no SHM */
    const char *collnet = "[{\"n\": 2, \"summary\": {\"NET\": 4, \"COLLNET\": 2}, \"link\": \"network\", "
                          "\"channels\": [{\"transport\": \"NET\", \"detail\": \"NET/IB/0\"},"
                          " {\"transport\": \"COLLNET\", \"detail\": \"COLLNET/SHARP/0/GDRDMA\"}]}]";
    v = verify(NVS_TP_NET, collnet, "nccl");
    T_EQ_I(v.verdict, NVS_TP_VERIFIED);
    T_EQ_S(v.found, "NET/IB/0+COLLNET/SHARP/0/GDRDMA over network (6 channels)");
    v = verify(NVS_TP_SHM, collnet, "nccl");
    T_EQ_I(v.verdict, NVS_TP_MISMATCH);
    v = verify(NVS_TP_SHM, mixed, "nccl"); /* mixed transports at the largest N: not "shm" */
    T_EQ_I(v.verdict, NVS_TP_MISMATCH);
    T_EQ_I(v.n, 4);
    T_CONTAINS(v.found, "P2P+SHM");
    /* every N is verified, not the largest alone: --gpus 2,4 whose n=2 went through SHM read "as asked (n=4)" */
    const char *two_ns = "[{\"n\": 2, \"summary\": {\"SHM\": 2}, \"link\": \"host memory\"},"
                         " {\"n\": 4, \"summary\": {\"P2P\": 24}, \"link\": \"NVLink\"}]";
    v = verify(NVS_TP_NVLINK, two_ns, "nccl");
    T_EQ_I(v.verdict, NVS_TP_MISMATCH);
    T_EQ_I(v.n, 2);
    T_CONTAINS(v.text, "MISMATCH: asked for nvlink (P2P), NCCL used SHM over host memory (2 channels) at n=2");
    const char *both_nvl = "[{\"n\": 2, \"summary\": {\"P2P\": 12}, \"link\": \"NVLink\"},"
                           " {\"n\": 4, \"summary\": {\"P2P\": 24}, \"link\": \"NVLink\"}]";
    v = verify(NVS_TP_NVLINK, both_nvl, "nccl");
    T_EQ_I(v.verdict, NVS_TP_VERIFIED);
    T_EQ_I(v.n, 4);
    T_EQ_S(v.found, "P2P over NVLink (24 channels)");
    T_EQ_S(v.text, "as asked (n=2, 4)");
    v = verify(NVS_TP_NVLINK, p2p_nvl, "nccl");
    T_EQ_S(v.text, "as asked (n=2)");
    v = verify(NVS_TP_NVLINK, "[{\"n\": 2, \"summary\": {\"P2P\": 24}}]", "nccl"); /* link not recorded */
    T_EQ_I(v.verdict, NVS_TP_UNVERIFIED);
    /* P2P between GPUs whose class the run's topology lacked: the log says "P2P (link unknown)", which is no
     * proof of another link (it was a MISMATCH, exit 3, on a run that may well have used NVLink) */
    const char *p2p_unknown = "[{\"n\": 2, \"summary\": {\"P2P\": 24}, \"link\": \"P2P (link unknown)\"}]";
    v = verify(NVS_TP_NVLINK, p2p_unknown, "nccl");
    T_EQ_I(v.verdict, NVS_TP_UNVERIFIED);
    T_CONTAINS(v.text, "not verified: P2P used at n=2, but run.json does not say over which link");
    T_EQ_S(v.found, "P2P, link unknown (24 channels)");
    v = verify(NVS_TP_PCIE, p2p_unknown, "nccl");
    T_EQ_I(v.verdict, NVS_TP_UNVERIFIED);
    v = verify(NVS_TP_SHM, p2p_unknown, "nccl"); /* P2P where SHM was asked: a mismatch whatever the link */
    T_EQ_I(v.verdict, NVS_TP_MISMATCH);
    v = verify(NVS_TP_SHM, NULL, "nccl");
    T_EQ_I(v.verdict, NVS_TP_UNVERIFIED);
    T_CONTAINS(v.text, "not verified");
    v = verify(NVS_TP_SHM, shm, "mpi");
    T_EQ_I(v.verdict, NVS_TP_UNVERIFIED);
    T_CONTAINS(v.text, "MPI host backend");
}

T_LIST = {
    T_CASE(t_parse_list), T_CASE(t_feasibility), T_CASE(t_pcie_refused_without_p2p), T_CASE(t_used_gpus),
    T_CASE(t_bad_topology), T_CASE(t_child_env), T_CASE(t_verify),
};
T_MAIN
