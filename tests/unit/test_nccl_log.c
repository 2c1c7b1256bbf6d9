/* NCCL INFO log parser: every fixture under tests/fixtures/nccl/ and single lines of every format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/nccl_log.h"
#include "t.h"

#define FIX "tests/fixtures/nccl/"

static void parse_files(nvs_nccl_log *log, const char *const *files)
{
    nvs_nccl_log_init(log);
    for (int i = 0; files[i]; i++) T_EQ_I(nvs_nccl_log_parse_file(files[i], log), NVS_OK);
}

static const nvs_nccl_comm *comm_by_ptr(const nvs_nccl_log *log, const char *ptr)
{
    for (size_t i = 0; i < log->ncomms; i++)
        if (!strcmp(log->comms[i].ptr, ptr)) return &log->comms[i];
    return NULL;
}

static void t_line_formats(void)
{
    static const struct {
        const char *line;
        int channel, conn, from, to, from_dev, to_dev, side;
        const char *transport, *detail, *net;
    } cases[] = {
        {"Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM", 0, 0, 0, 1, 0, 1, 0, "P2P", "P2P/CUMEM", ""},
        {"Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", 0, 0, 0, 1, 0, 1, 0, "P2P", "P2P/CUMEM/read", ""},
        {"Channel 01/0 : 1[1] -> 0[0] via P2P/IPC", 1, 0, 1, 0, 1, 0, 0, "P2P", "P2P/IPC", ""},
        {"Channel 00 : 0[0] -> 1[1] via SHM/direct/direct", 0, -1, 0, 1, 0, 1, 0, "SHM", "SHM/direct/direct", ""},
        {"Channel 00/0 : 1[1] -> 0[0] [send] via NET/Socket/0", 0, 0, 1, 0, 1, 0, 1, "NET", "NET/Socket/0",
         "Socket"},
        {"Channel 00/0 : 0[0] -> 1[1] [receive] via NET/IB/0/GDRDMA", 0, 0, 0, 1, 0, 1, 2, "NET",
         "NET/IB/0/GDRDMA", "IB"},
        {"Channel 13/1 : 2[5] -> 3[7] via P2P/direct pointer", 13, 1, 2, 3, 5, 7, 0, "P2P", "P2P/direct pointer",
         ""},
        {"Channel 02/0 : 0[0] -> 3[3] via P2P/indirect/1[1]/read", 2, 0, 0, 3, 0, 3, 0, "P2P",
         "P2P/indirect/1[1]/read", ""},
        /* a plugin whose name has a space (aws-ofi-nccl on EFA, aws/aws-ofi-nccl issue 715): the name ends at the
         * '/' before the device number, not at the space */
        {"Channel 04/1 : 15[7] -> 2[2] [receive] via NET/AWS Libfabric/1/GDRDMA/Shared", 4, 1, 15, 2, 7, 2, 2, "NET",
         "NET/AWS Libfabric/1/GDRDMA/Shared", "AWS Libfabric"},
        {"Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0(1)/GDRDMA", 0, 0, 0, 1, 0, 1, 1, "NET",
         "NET/IB/0(1)/GDRDMA", "IB"},
        /* before NCCL 2.18.3 the brackets held the PCI bus id in hex: with letters it is one whatever the version */
        {"Channel 00 : 0[1b000] -> 1[3d000] via P2P/IPC", 0, -1, 0, 1, -1, -1, 0, "P2P", "P2P/IPC", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nvs_nccl_log log;
        nvs_nccl_log_init(&log);
        /* the brackets hold nvmlDevs since 2.18.3 (t_bus_ids: before) */
        static const char ver[] = "host:1:1 [0] NCCL INFO NCCL version 2.28.3+cuda13.0";
        T_EQ_I(nvs_nccl_log_parse_line(&log, ver, strlen(ver), 0), NVS_OK);
        char line[256];
        snprintf(line, sizeof line, "host:1:1 [0] NCCL INFO %s\r\n", cases[i].line);
        T_EQ_I(nvs_nccl_log_parse_line(&log, line, strlen(line), 0), NVS_OK);
        T_EQ_U(log.conn_lines, 1);
        T_EQ_U(log.norphans, 1); /* no communicator line came first */
        const nvs_nccl_conn *c = &log.orphans[0];
        T_EQ_I(c->channel, cases[i].channel);
        T_EQ_I(c->conn_index, cases[i].conn);
        T_EQ_I(c->from_rank, cases[i].from);
        T_EQ_I(c->to_rank, cases[i].to);
        T_EQ_I(c->from_dev, cases[i].from_dev);
        T_EQ_I(c->to_dev, cases[i].to_dev);
        T_EQ_I(c->side, cases[i].side);
        T_EQ_S(c->transport, cases[i].transport);
        T_EQ_S(c->detail, cases[i].detail);
        T_EQ_S(c->net, cases[i].net);
        nvs_nccl_log_free(&log);
    }
}

static void t_junk_lines(void)
{
    static const char *const junk[] = {
        "", "\r", "NCCL INFO", "host:1:1 [0] NCCL INFO ", "host:1:1 [0] NCCL INFO Channel 00/2 : 0 1",
        "host:1:1 [0] NCCL INFO Channel : 0[0] -> 1[1] via P2P", "host:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> via",
        "host:1:1 [0] NCCL INFO Channel 00/0 : 0[0] 1[1] via P2P", "host:1:1 [0] NCCL INFO Channel 00 : a -> b via x",
        "host:1:1 [0] NCCL INFO Channel 00/0 : 0[0 -> 1[1] via P2P", "host:1:1 [0] NCCL INFO comm 0x rank",
        "host:1:1 [0] NCCL INFO comm zz rank 0 nRanks 2", "host:1:1 [0] NCCL INFO NCCL version ",
        "host:1:1 [0] NCCL INFO NCCL version x.y", "host:1:1 [0] NCCL INFO - Init COMPLETE",
        "host:1:1 [0] NCCL INFO Channel 99999999999999999999/0 : 0[0] -> 1[1] via P2P/CUMEM",
        "\xff\xfe\x00binary", ":::: [[[ ]]] NCCL INFO comm 0x1 rank x nRanks y",
    };
    nvs_nccl_log log;
    nvs_nccl_log_init(&log);
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        T_EQ_I(nvs_nccl_log_parse_line(&log, junk[i], strlen(junk[i]), 0), NVS_OK);
    T_EQ_U(log.conn_lines, 0);
    T_EQ_U(log.ncomms, 0);
    T_EQ_S(log.version, "");
    /* a line far longer than NCCL ever writes is cut, not overrun */
    size_t n = 100000;
    char *big = malloc(n);
    T_ASSERT(big);
    memset(big, 'x', n);
    memcpy(big, "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/", 56);
    T_EQ_I(nvs_nccl_log_parse_line(&log, big, n, 0), NVS_OK);
    free(big);
    T_EQ_U(log.conn_lines, 1);
    T_EQ_S(log.orphans[0].transport, "P2P");
    T_EQ_U(strlen(log.orphans[0].detail), sizeof log.orphans[0].detail - 1);
    nvs_nccl_log_free(&log);
}

static void t_h200_p2p(void)
{
    static const char *const files[] = {FIX "h200x2_p2p.nccl.vm.761.log", FIX "h200x2_p2p.nccl.vm.762.log", NULL};
    nvs_nccl_log log;
    parse_files(&log, files);
    T_EQ_S(log.version, "2.28.3");
    T_EQ_S(log.version_full, "2.28.3+cuda13.0");
    T_EQ_I(log.version_conflict, 0);
    T_EQ_I(log.files, 2);
    T_EQ_U(log.ncomms, 2);
    T_EQ_U(log.norphans, 0);
    const nvs_nccl_comm *c = comm_by_ptr(&log, "0x55f3b1e07a10");
    T_ASSERT(c);
    T_EQ_S(c->host, "vm");
    T_EQ_I(c->pid, 762);
    T_EQ_I(c->file_index, 1);
    T_EQ_S(c->init_fn, "ncclCommInitRankConfig");
    T_EQ_S(c->comm_id, "0x9f1c3e2ab45d7c01");
    T_EQ_I(c->rank, 1);
    T_EQ_I(c->nranks, 2);
    T_EQ_I(c->nnodes, 1);
    T_EQ_I(c->local_ranks, 2);
    T_EQ_I(c->cuda_dev, 1);
    T_EQ_I(c->nvml_dev, 1);
    T_EQ_S(c->bus_id, "7000");
    T_EQ_I(c->complete, 1);
    T_EQ_I(c->coll_channels, 8);
    T_EQ_I(c->collnet_channels, 0);
    T_EQ_I(c->nvls_channels, 0);
    T_EQ_I(c->p2p_channels, 32);
    T_EQ_I(c->p2p_channels_per_peer, 32);
    T_EQ_I(c->rings_connected, 1);
    T_EQ_I(c->trees_connected, 1);
    T_EQ_U(c->nconns, 8);
    T_EQ_I(c->conns[7].channel, 7);
    T_EQ_I(c->conns[7].from_rank, 1);
    T_EQ_I(c->conns[7].to_rank, 0);
    nvs_nccl_summary s;
    nvs_nccl_log_summary(&log, 2, &s);
    T_EQ_I(s.p2p, 16);
    T_EQ_I(s.shm + s.net + s.other, 0);
    T_EQ_I(s.nchannels, 8);
    T_EQ_S(s.p2p_detail, "P2P/CUMEM/read");
    char buf[32];
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "P2P");
    nvs_nccl_log_summary(&log, 4, &s);
    T_EQ_I(s.total, 0);
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "none");
    nvs_nccl_log_free(&log);
}

static void t_h200_shm_net(void)
{
    static const char *const shm[] = {FIX "h200x2_shm.nccl.vm.887.log", FIX "h200x2_shm.nccl.vm.888.log", NULL};
    static const char *const net[] = {FIX "h200x2_net.nccl.vm.952.log", FIX "h200x2_net.nccl.vm.953.log", NULL};
    nvs_nccl_log log;
    nvs_nccl_summary s;
    char buf[32];
    parse_files(&log, shm);
    nvs_nccl_log_summary(&log, 2, &s);
    T_EQ_I(s.shm, 4);
    T_EQ_I(s.total, 4);
    T_EQ_I(s.nchannels, 2);
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "SHM");
    T_EQ_I(log.comms[0].conns[0].conn_index, -1);
    nvs_nccl_log_free(&log);

    parse_files(&log, net);
    T_EQ_U(log.conn_lines, 8); /* every connection is logged by both ends */
    nvs_nccl_log_summary(&log, 2, &s);
    T_EQ_I(s.net, 4);          /* ... and counted once */
    T_EQ_I(s.total, 4);
    T_EQ_S(s.net_name, "Socket");
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "NET");
    /* the [receive] line belongs to the receiving rank's communicator */
    const nvs_nccl_comm *c = comm_by_ptr(&log, "0x561122334450");
    T_ASSERT(c);
    T_EQ_U(c->nconns, 4);
    T_EQ_I(c->conns[0].side, NVS_NCCL_SIDE_RECV);
    T_EQ_I(c->conns[0].to_rank, 0);
    nvs_nccl_log_free(&log);

    /* both kinds at once: the summary names them in a fixed order */
    static const char *const both[] = {FIX "h200x2_net.nccl.vm.952.log", FIX "h200x2_shm.nccl.vm.887.log", NULL};
    parse_files(&log, both);
    nvs_nccl_log_summary(&log, 0, &s);
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "SHM+NET");
    nvs_nccl_log_free(&log);
}

static void t_threads_split(void)
{
    static const char *const files[] = {FIX "threads_split.nccl.vm.4242.log", NULL};
    nvs_nccl_log log;
    parse_files(&log, files);
    T_EQ_S(log.version, "2.28.3");
    T_EQ_U(log.ncomms, 6);
    T_EQ_I(log.warn_lines, 1);
    /* the connections made at the first collective belong to the N=2 split, not the parent */
    const nvs_nccl_comm *parent = comm_by_ptr(&log, "0x7f00a0001000");
    const nvs_nccl_comm *s0 = comm_by_ptr(&log, "0x7f00a0003000");
    const nvs_nccl_comm *s1 = comm_by_ptr(&log, "0x7f00b0003000");
    const nvs_nccl_comm *one = comm_by_ptr(&log, "0x7f00b0002000");
    T_ASSERT(parent && s0 && s1 && one);
    T_EQ_U(parent->nconns, 0);
    T_EQ_I(parent->coll_channels, 24);
    T_EQ_I(parent->collnet_channels, 24);
    T_EQ_S(s0->init_fn, "ncclCommSplit");
    T_EQ_S(s0->parent, "0x7f00a0001000");
    T_EQ_S(s0->comm_id, "");
    T_EQ_I(s0->cuda_dev, 0);
    T_EQ_U(s0->nconns, 6); /* 4 channels + the cut line + the partial last line */
    T_EQ_U(s1->nconns, 4);
    T_EQ_I(s0->rings_connected, 1);
    T_EQ_S(s0->conns[0].detail, "P2P/direct pointer/read");
    T_EQ_S(s0->conns[4].detail, "P2P/dir");
    T_EQ_I(s0->conns[5].channel, 6);
    T_EQ_I(one->nranks, 1);
    T_EQ_I(one->rank, 0);
    T_EQ_I(one->cuda_dev, 1);
    T_EQ_U(one->nconns, 0);
    T_EQ_U(log.norphans, 1); /* "0[0] -> 9[9]": no communicator has 10 ranks */
    T_EQ_I(log.orphans[0].to_rank, 9);
    nvs_nccl_summary s;
    nvs_nccl_log_summary(&log, 1, &s);
    T_EQ_I(s.total, 0);
    nvs_nccl_log_summary(&log, 2, &s);
    T_EQ_I(s.p2p, 10);
    T_EQ_I(s.nchannels, 6); /* 0-3, 6, 7 */
    nvs_nccl_log_summary(&log, 0, &s);
    T_EQ_I(s.p2p, 11); /* with the orphan */
    nvs_nccl_log_free(&log);
}

static void t_ib_and_old(void)
{
    static const char *const ib[] = {FIX "ib_2node.nccl.node-a.5001.log", NULL};
    static const char *const old[] = {FIX "old218_pcie4.nccl.box3090.777.log", NULL};
    nvs_nccl_log log;
    nvs_nccl_summary s;
    char buf[32];
    parse_files(&log, ib);
    T_EQ_S(log.version, "2.27.7");
    T_EQ_U(log.ncomms, 1);
    const nvs_nccl_comm *c = &log.comms[0];
    T_EQ_S(c->host, "node-a");
    T_EQ_I(c->nnodes, 2);
    T_EQ_S(c->bus_id, "1b000");
    T_EQ_U(c->nconns, 5);
    T_EQ_S(c->conns[1].net, "IB");
    T_EQ_S(c->conns[1].detail, "NET/IB/1(0)/GDRDMA(PCI)/Shared");
    T_EQ_I(c->conns[3].side, NVS_NCCL_SIDE_RECV);
    T_EQ_S(c->conns[4].detail, "P2P/indirect/3[1]");
    nvs_nccl_log_summary(&log, 4, &s);
    T_EQ_I(s.net, 2);
    T_EQ_I(s.p2p, 2);
    T_EQ_S(s.net_name, "IB");
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "P2P+NET");
    nvs_nccl_log_free(&log);

    parse_files(&log, old);
    T_EQ_S(log.version, "2.18.5");
    T_EQ_U(log.ncomms, 1);
    c = &log.comms[0];
    T_EQ_S(c->init_fn, "");
    T_EQ_I(c->complete, 1);
    T_EQ_I(c->nvml_dev, 2);
    T_EQ_I(c->coll_channels, 2);
    T_EQ_I(c->collnet_channels, -1);
    T_EQ_I(c->nvls_channels, 0);
    T_EQ_U(c->nconns, 3);
    nvs_nccl_log_summary(&log, 4, &s);
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "P2P+SHM");
    nvs_nccl_log_free(&log);
}

/* NCCL before 2.18.3 printed the PCI bus id in the brackets ("%d[%lx]", src/transport/{p2p,shm,net}.cc up to
 * v2.18.1-1; "%d[%x]" on 2.18.1's P2P/CUMEM line), since then the nvmlDev ("%d[%d]", v2.18.3-1). A bus id of
 * digits alone ("0000:01:00.0" printed "1000") was read as device 1000. */
static void t_bus_ids(void)
{
    static const struct {
        const char *version, *line;
        int from_dev, to_dev, ids;
        const char *from_id, *to_id;
    } cases[] = {
        {"2.17.1", "Channel 00/0 : 0[1000] -> 1[2000] via P2P/IPC/read", -1, -1, NVS_NCCL_IDS_BUS, "1000", "2000"},
        {"2.12.12", "Channel 00 : 0[1000] -> 1[2000] via P2P/IPC", -1, -1, NVS_NCCL_IDS_BUS, "1000", "2000"},
        {"2.18.1", "Channel 00/0 : 0[7000] -> 1[8000] via P2P/CUMEM/read", -1, -1, NVS_NCCL_IDS_BUS, "7000", "8000"},
        {"2.16.5", "Channel 01 : 1[50] -> 0[40] via SHM/direct/direct", -1, -1, NVS_NCCL_IDS_BUS, "50", "40"},
        {"2.17.1", "Channel 00/0 : 1[2000] -> 0[1000] [receive] via NET/IB/0/GDRDMA", -1, -1, NVS_NCCL_IDS_BUS, "2000",
         "1000"},
        {"2.18.3", "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", 0, 1, NVS_NCCL_IDS_NVML, "0", "1"},
        {"2.19.3", "Channel 00 : 1[3] -> 0[2] via SHM/direct/direct", 3, 2, NVS_NCCL_IDS_NVML, "3", "2"},
        {"2.30.7", "Channel 00/0 : 1[7] -> 0[6] via P2P/CUMEM", 7, 6, NVS_NCCL_IDS_NVML, "7", "6"},
        /* no version line (another rank's file) and no communicator: digits alone say nothing */
        {NULL, "Channel 00/0 : 0[1000] -> 1[2000] via P2P/IPC/read", -1, -1, NVS_NCCL_IDS_UNKNOWN, "1000", "2000"},
        {NULL, "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read", -1, -1, NVS_NCCL_IDS_UNKNOWN, "0", "1"},
        {NULL, "Channel 00/0 : 0[1b000] -> 1[1000] via P2P/IPC", -1, -1, NVS_NCCL_IDS_BUS, "1b000", "1000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nvs_nccl_log log;
        nvs_nccl_log_init(&log);
        char text[256];
        snprintf(text, sizeof text, "%s%s%sh:1:1 [0] NCCL INFO %s\n", cases[i].version ? "h:1:1 [0] NCCL INFO NCCL version " : "",
                 cases[i].version ? cases[i].version : "", cases[i].version ? "+cuda12.0\n" : "", cases[i].line);
        T_EQ_I(nvs_nccl_log_parse_text(text, strlen(text), &log), NVS_OK);
        T_EQ_U(log.norphans, 1);
        const nvs_nccl_conn *c = &log.orphans[0];
        T_EQ_I(c->from_dev, cases[i].from_dev);
        T_EQ_I(c->to_dev, cases[i].to_dev);
        T_EQ_I(c->ids, cases[i].ids);
        T_EQ_S(c->from_id, cases[i].from_id);
        T_EQ_S(c->to_id, cases[i].to_id);
        nvs_nccl_log_free(&log);
    }

    /* two processes of NCCL 2.17.1: the version line is in rank 0's file only, and the channel lines come before
     * the first line that names their communicator (Init COMPLETE, src/init.cc of v2.17.1-1). Rank 1's file first,
     * as a caller may give them: its COMPLETE without nvmlDev says bus ids on its own. */
    static const char *const files[] = {FIX "old2171_busid.nccl.box.3002.log", FIX "old2171_busid.nccl.box.3001.log",
                                        NULL};
    nvs_nccl_log log;
    parse_files(&log, files);
    T_EQ_S(log.version, "2.17.1");
    T_EQ_U(log.ncomms, 2);
    T_EQ_U(log.norphans, 0); /* each Init COMPLETE took its process's channel lines */
    const nvs_nccl_comm *c1 = comm_by_ptr(&log, "0x7f3c10"), *c0 = comm_by_ptr(&log, "0x5600a0");
    T_ASSERT(c0 && c1);
    T_EQ_I(c1->rank, 1);
    T_EQ_I(c1->complete, 1);
    T_EQ_I(c1->nvml_dev, -1);
    T_EQ_S(c1->bus_id, "2000");
    T_EQ_U(c1->nconns, 3);
    T_EQ_U(c0->nconns, 2);
    for (size_t k = 0; k < c1->nconns; k++) {
        T_EQ_I(c1->conns[k].from_dev, -1);
        T_EQ_I(c1->conns[k].to_dev, -1);
        T_EQ_I(c1->conns[k].ids, NVS_NCCL_IDS_BUS);
        T_EQ_S(c1->conns[k].from_id, "2000");
    }
    T_EQ_I(c0->conns[0].ids, NVS_NCCL_IDS_BUS);
    T_EQ_S(c0->conns[0].to_id, "2000");
    nvs_nccl_summary s;
    char buf[32];
    nvs_nccl_log_summary(&log, 2, &s); /* what run.json's "transports" count: nothing before */
    T_EQ_I(s.p2p, 4);
    T_EQ_I(s.shm, 1);
    T_EQ_I(s.nchannels, 2);
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "P2P+SHM");
    json_t *j = nvs_nccl_log_to_json(&log);
    T_ASSERT(j);
    json_t *ch = json_array_get(json_object_get(json_array_get(json_object_get(j, "comms"), 0), "channels"), 0);
    T_ASSERT(json_is_null(json_object_get(ch, "from_dev")));
    T_EQ_S(json_string_value(json_object_get(ch, "from_bus_id")), "2000");
    T_EQ_S(json_string_value(json_object_get(ch, "to_bus_id")), "1000");
    json_decref(j);
    nvs_nccl_log_free(&log);

    /* 2.18.5's Init START names the communicator before its channel lines and says nvmlDev */
    static const char *const old[] = {FIX "old218_pcie4.nccl.box3090.777.log", NULL};
    parse_files(&log, old);
    T_EQ_U(log.ncomms, 1);
    T_EQ_U(log.norphans, 0);
    T_EQ_U(log.comms[0].nconns, 3);
    T_EQ_I(log.comms[0].conns[0].from_dev, 2);
    T_EQ_I(log.comms[0].conns[0].to_dev, 3);
    T_EQ_I(log.comms[0].conns[2].to_dev, 1);
    j = nvs_nccl_log_to_json(&log);
    T_ASSERT(j);
    ch = json_array_get(json_object_get(json_array_get(json_object_get(j, "comms"), 0), "channels"), 0);
    T_ASSERT(!json_object_get(ch, "from_bus_id"));
    json_decref(j);
    nvs_nccl_log_free(&log);
}

static void t_text_and_versions(void)
{
    const char *text = "a:1:1 [0] NCCL INFO NCCL version 2.28.3+cuda13.0\n"
                       "a:2:2 [1] NCCL INFO NCCL version 2.27.7+cuda12.9\n"
                       "a:1:1 [0] NCCL INFO comm 0xa rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
                       "a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM";
    nvs_nccl_log log;
    nvs_nccl_log_init(&log);
    T_EQ_I(nvs_nccl_log_parse_text(text, strlen(text), &log), NVS_OK);
    T_EQ_S(log.version, "2.28.3");
    T_EQ_I(log.version_conflict, 1);
    T_EQ_U(log.lines, 4);
    T_EQ_U(log.comms[0].nconns, 1);
    /* the same address in another process is another communicator */
    const char *more = "a:2:2 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n";
    T_EQ_I(nvs_nccl_log_parse_text(more, strlen(more), &log), NVS_OK);
    T_EQ_U(log.comms[0].nconns, 1);
    T_EQ_U(log.norphans, 1);
    T_EQ_I(log.files, 2);
    nvs_nccl_log_free(&log);
}

static void t_link_names(void)
{
    T_EQ_S(nvs_nccl_link_name("P2P", "NV18"), "NVLink");
    T_EQ_S(nvs_nccl_link_name("P2P", "NV4"), "NVLink");
    T_EQ_S(nvs_nccl_link_name("P2P", "PIX"), "PCIe");
    T_EQ_S(nvs_nccl_link_name("P2P", "NODE"), "PCIe");
    T_EQ_S(nvs_nccl_link_name("P2P", NULL), "P2P (link unknown)");
    T_EQ_S(nvs_nccl_link_name("SHM", "NV18"), "host memory");
    T_EQ_S(nvs_nccl_link_name("NET", "SYS"), "network");
    T_EQ_S(nvs_nccl_link_name("COLLNET", "SYS"), "network"); /* the CollNet plugin's network (t_collnet) */
    T_ASSERT(nvs_nccl_link_name("FOO", "SYS") == NULL);
}

static const char *cls_fn(void *ctx, int a, int b)
{
    (void)ctx;
    return a != b ? "NV18" : NULL;
}

static void t_json(void)
{
    static const char *const files[] = {FIX "h200x2_p2p.nccl.vm.761.log", FIX "h200x2_p2p.nccl.vm.762.log", NULL};
    nvs_nccl_log log;
    parse_files(&log, files);
    json_t *j = nvs_nccl_log_to_json(&log);
    T_ASSERT(j);
    T_EQ_S(json_string_value(json_object_get(j, "nccl_version")), "2.28.3");
    json_t *comms = json_object_get(j, "comms");
    T_EQ_U(json_array_size(comms), 2);
    json_t *c0 = json_array_get(comms, 0);
    T_EQ_I(json_integer_value(json_object_get(c0, "coll_channels")), 8);
    T_EQ_U(json_array_size(json_object_get(c0, "channels")), 8);
    T_EQ_I(json_integer_value(json_object_get(json_object_get(j, "summary"), "P2P")), 16);
    json_decref(j);

    int gpu_of_rank[2] = {1, 0}; /* communicator rank 0 runs on topology GPU 1 */
    json_t *t = nvs_nccl_log_transport_json(&log, 2, gpu_of_rank, cls_fn, NULL);
    T_ASSERT(t);
    T_EQ_I(json_integer_value(json_object_get(t, "n")), 2);
    T_EQ_I(json_integer_value(json_object_get(t, "nchannels")), 8);
    T_EQ_S(json_string_value(json_object_get(t, "link")), "NVLink");
    json_t *ch = json_array_get(json_object_get(t, "channels"), 0);
    T_EQ_I(json_integer_value(json_object_get(ch, "from_gpu")), 1);
    T_EQ_I(json_integer_value(json_object_get(ch, "to_gpu")), 0);
    T_EQ_S(json_string_value(json_object_get(ch, "link")), "NVLink");
    T_EQ_S(json_string_value(json_object_get(ch, "detail")), "P2P/CUMEM/read");
    json_decref(t);
    /* without topology: transport known, link unknown */
    t = nvs_nccl_log_transport_json(&log, 2, NULL, NULL, NULL);
    T_ASSERT(t);
    T_EQ_S(json_string_value(json_object_get(t, "link")), "P2P (link unknown)");
    T_ASSERT(!json_object_get(json_array_get(json_object_get(t, "channels"), 0), "from_gpu"));
    json_decref(t);
    nvs_nccl_log_free(&log);
}

/* A long log (a day of a job's INFO lines) is streamed, not loaded: 200000 lines through a temporary file. */
static void t_big_file(void)
{
    char path[] = "/tmp/nvs_nccl_log_XXXXXX";
    int fd = mkstemp(path);
    T_ASSERT(fd >= 0);
    FILE *f = fdopen(fd, "w");
    T_ASSERT(f);
    fprintf(f, "h:9:9 [0] NCCL INFO comm 0xbig rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n");
    for (int i = 0; i < 200000; i++) {
        if (i % 2)
            fprintf(f, "h:9:9 [0] NCCL INFO Channel %02d/0 : 0[0] -> 1[1] via P2P/CUMEM\n", i % 32);
        else
            fprintf(f, "h:9:9 [0] NCCL INFO some other line %d\n", i);
    }
    T_EQ_I(fclose(f), 0);
    nvs_nccl_log log;
    nvs_nccl_log_init(&log);
    nvs_result_t res = nvs_nccl_log_parse_file(path, &log);
    unlink(path);
    T_EQ_I(res, NVS_OK);
    T_EQ_U(log.lines, 200001);
    T_EQ_U(log.comms[0].nconns, 100000);
    nvs_nccl_summary s;
    nvs_nccl_log_summary(&log, 2, &s);
    T_EQ_I(s.p2p, 100000);
    T_EQ_I(s.nchannels, 16); /* odd i only: the odd channel numbers */
    nvs_nccl_log_free(&log);
}

static void t_missing_file(void)
{
    nvs_nccl_log log;
    nvs_nccl_log_init(&log);
    T_EQ_I(nvs_nccl_log_parse_file(FIX "no-such-file.log", &log), NVS_ERR_INPUT);
    T_EQ_I(nvs_nccl_log_parse_file(FIX, &log), NVS_ERR_INPUT); /* a directory */
    nvs_nccl_log_free(&log);
}

/* issue 14: parse_version kept the length of the digit run (up to 63) and trimmed trailing dots from a 32-byte
 * buffer with it: a stack buffer overflow from one log line (ASan: make check SAN=address,undefined). The
 * version is cut to what the field holds, and a summary never points past its buffer. */
static void t_version_overflow(void)
{
    nvs_nccl_log log;
    nvs_nccl_log_init(&log);
    const char *line = "host:1:1 [0] NCCL INFO NCCL version 1234567890123456789012345678901....................";
    T_EQ_I(nvs_nccl_log_parse_line(&log, line, strlen(line), 0), NVS_OK);
    T_EQ_S(log.version, "1234567890123456789012345678901");
    char many[200];
    memset(many, '.', sizeof many - 1);
    many[sizeof many - 1] = '\0';
    memcpy(many, "host:1:1 [0] NCCL INFO NCCL version 2", 37);
    T_EQ_I(nvs_nccl_log_parse_line(&log, many, strlen(many), 0), NVS_OK);
    T_EQ_I(log.version_conflict, 1);
    nvs_nccl_log_free(&log);
    nvs_nccl_summary sum = {.p2p = 1, .shm = 1, .net = 1, .other = 1};
    char small[6];
    nvs_nccl_summary_transport(&sum, small, sizeof small);
    T_EQ_S(small, "P2P+S");
}

/* "via NET" with nothing after it: the plugin's name was read from 1 byte past the line's end, out of whatever
 * the line buffer held before (here the previous line's "IB"), and the Why said NET/IB for a line naming no
 * plugin. */
static void t_net_without_name(void)
{
    nvs_nccl_log log;
    nvs_nccl_log_init(&log);
    const char *a = "host:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA";
    const char *b = "host:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] [send] via NET";
    T_EQ_I(nvs_nccl_log_parse_line(&log, a, strlen(a), 0), NVS_OK);
    T_EQ_I(nvs_nccl_log_parse_line(&log, b, strlen(b), 0), NVS_OK);
    T_EQ_U(log.norphans, 2);
    T_EQ_S(log.orphans[0].net, "IB");
    T_EQ_S(log.orphans[1].transport, "NET");
    T_EQ_S(log.orphans[1].net, "");
    nvs_nccl_log_free(&log);
}

/* NCCL 2.7 - 2.12 printed SHM connections as "Channel %02d : %d[%lx] -> %d[%lx] via direct shared memory"
 * (src/transport/shm.cc of v2.7.8-1 .. v2.12.12-1; "via SHM/%s/%s" since v2.13.4-1): the transport word was read
 * as "direct", so a P2P-disabled run of NCCL 2.12 counted its SHM rings as "other". */
static void t_old_shm(void)
{
    static const char *const files[] = {FIX "old21212_shm.nccl.box.5001.log", FIX "old21212_shm.nccl.box.5002.log",
                                        NULL};
    nvs_nccl_log log;
    parse_files(&log, files);
    T_EQ_S(log.version, "2.12.12");
    T_EQ_U(log.ncomms, 2);
    T_EQ_U(log.norphans, 0);
    const nvs_nccl_comm *c1 = comm_by_ptr(&log, "0x7f2b40");
    T_ASSERT(c1);
    T_EQ_U(c1->nconns, 2);
    T_EQ_S(c1->conns[0].transport, "SHM");
    T_EQ_S(c1->conns[0].detail, "direct shared memory");
    T_EQ_I(c1->conns[0].conn_index, -1);
    T_EQ_S(c1->conns[0].from_id, "3d000");
    nvs_nccl_summary s;
    char buf[32];
    nvs_nccl_log_summary(&log, 2, &s);
    T_EQ_I(s.shm, 4);
    T_EQ_I(s.other, 0);
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "SHM");
    T_EQ_S(nvs_nccl_link_name(c1->conns[1].transport, NULL), "host memory");
    nvs_nccl_log_free(&log);
}

/* CollNet (in-network reduction, e.g. SHARP): "CollNet %02d/%1d : %d [send] via COLLNET/%s/%d%s"
 * (src/transport/coll_net.cc of v2.21.5-1; no "/%1d" before v2.17.1-1, "(PCI)" after /GDRDMA since 2.19) were
 * ignored: a CollNet run's report had its NET rings but never said CollNet carried the reductions. */
static void t_collnet(void)
{
    static const char *const files[] = {FIX "collnet_2node.nccl.node-a.6001.log", NULL};
    nvs_nccl_log log;
    parse_files(&log, files);
    T_EQ_U(log.ncomms, 1);
    T_EQ_U(log.norphans, 0);
    const nvs_nccl_comm *c = &log.comms[0];
    T_EQ_U(c->nconns, 8);
    const nvs_nccl_conn *cn = &c->conns[6]; /* CollNet 00/1 : 0 [send] */
    T_EQ_S(cn->transport, "COLLNET");
    T_EQ_S(cn->detail, "COLLNET/SHARP/0/GDRDMA");
    T_EQ_S(cn->net, "SHARP");
    T_EQ_I(cn->channel, 0);
    T_EQ_I(cn->conn_index, 1);
    T_EQ_I(cn->from_rank, 0);
    T_EQ_I(cn->to_rank, 0);
    T_EQ_I(cn->side, NVS_NCCL_SIDE_SEND);
    nvs_nccl_summary s;
    char buf[32];
    nvs_nccl_log_summary(&log, 2, &s);
    T_EQ_I(s.net, 2);
    T_EQ_I(s.other, 0);
    T_EQ_S(nvs_nccl_summary_transport(&s, buf, sizeof buf), "NET+COLLNET");
    json_t *j = nvs_nccl_log_transport_json(&log, 2, NULL, NULL, NULL);
    T_ASSERT(j);
    /* 2 [send] lines; the [receive] lines do not count again */
    T_EQ_I(json_integer_value(json_object_get(json_object_get(j, "summary"), "COLLNET")), 2);
    T_EQ_S(json_string_value(json_object_get(j, "link")), "network");
    json_decref(j);
    nvs_nccl_log_free(&log);

    /* the other releases' forms, one line each; a line that is not a connection is left alone */
    static const struct {
        const char *line;
        int ok, channel, conn, side;
        const char *detail;
    } cases[] = {
        {"CollNet 03 : 5 [receive] via COLLNET/SHARP/1", 1, 3, -1, NVS_NCCL_SIDE_RECV, "COLLNET/SHARP/1"},
        {"CollNet 00/1 : 5 [send] via COLLNET/SHARP/0/GDRDMA(PCI)", 1, 0, 1, NVS_NCCL_SIDE_SEND,
         "COLLNET/SHARP/0/GDRDMA(PCI)"},
        {"CollNet 00/1 : 5 via COLLNET/SHARP/0", 0, 0, 0, 0, ""},
        {"CollNet 00/1 : x [send] via COLLNET/SHARP/0", 0, 0, 0, 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nvs_nccl_log_init(&log);
        char line[160];
        snprintf(line, sizeof line, "host:1:1 [0] NCCL INFO %s", cases[i].line);
        T_EQ_I(nvs_nccl_log_parse_line(&log, line, strlen(line), 0), NVS_OK);
        T_EQ_U(log.norphans, (size_t)cases[i].ok);
        if (cases[i].ok && log.norphans == 1) {
            T_EQ_S(log.orphans[0].transport, "COLLNET");
            T_EQ_I(log.orphans[0].from_rank, 5);
            T_EQ_I(log.orphans[0].channel, cases[i].channel);
            T_EQ_I(log.orphans[0].conn_index, cases[i].conn);
            T_EQ_I(log.orphans[0].side, cases[i].side);
            T_EQ_S(log.orphans[0].detail, cases[i].detail);
        }
        nvs_nccl_log_free(&log);
    }
}

/* NVLS (NVLink SHARP multicast, NCCL 2.17+): "NVLS comm %p headRank %d nHeads %d ..." when a communicator sets up its
 * NVLS buffers (src/transport/nvls.cc of v2.28.3-1; lazily, at the first NVLS collective, since 2.22) and
 * "Connected NVLS tree" across nodes were ignored: nothing said which communicators used NVLS. */
static void t_nvls(void)
{
    static const char *const files[] = {FIX "nvls_h100x4.nccl.dgx.7001.log", NULL};
    nvs_nccl_log log;
    parse_files(&log, files);
    T_EQ_U(log.ncomms, 2);
    T_EQ_U(log.norphans, 0);
    const nvs_nccl_comm *c4 = comm_by_ptr(&log, "0x55aa001000"), *c2 = comm_by_ptr(&log, "0x55aa002000");
    T_ASSERT(c4 && c2);
    T_EQ_I(c4->nvls, 1);
    T_EQ_I(c2->nvls, 0); /* NVLS was available to it (16 nvls channels) but it set none up */
    T_EQ_I(c2->nvls_channels, 16);
    json_t *j = nvs_nccl_log_to_json(&log);
    T_ASSERT(j);
    T_ASSERT(json_is_true(json_object_get(json_array_get(json_object_get(j, "comms"), 0), "nvls")));
    T_ASSERT(json_is_false(json_object_get(json_array_get(json_object_get(j, "comms"), 1), "nvls")));
    json_decref(j);
    j = nvs_nccl_log_transport_json(&log, 4, NULL, NULL, NULL);
    T_ASSERT(j && json_is_true(json_object_get(j, "nvls")));
    json_decref(j);
    j = nvs_nccl_log_transport_json(&log, 2, NULL, NULL, NULL);
    T_ASSERT(j && json_is_false(json_object_get(j, "nvls")));
    json_decref(j);
    nvs_nccl_log_free(&log);

    /* NCCL 2.17 - 2.18.1: the NVLS line names the communicator before anything else does (src/init.cc of
     * v2.17.1-1: ncclNvlsSetup before Init COMPLETE), and the channel lines before COMPLETE are still adopted;
     * across nodes (2.18+) "Connected NVLS tree" follows the communicator's lines */
    static const char *const lines[] = {
        "box:1:2 [0] NCCL INFO NVLS comm 0x5600a0 rank 0 nranks 2 buffSize 4194304 memSize 2097152 nvlsPerRankSize "
        "201326592 nvlsTotalSize 402653184",
        "box:1:2 [0] NCCL INFO Channel 00/0 : 0[1000] -> 1[2000] via P2P/IPC/read",
        "box:1:2 [0] NCCL INFO comm 0x5600a0 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0x1a2b - Init COMPLETE",
        "box:1:2 [0] NCCL INFO comm 0x7700b0 rank 0 nranks 4 cudaDev 0 busId 1000 commId 0x3c4d - Init COMPLETE",
        "box:1:2 [0] NCCL INFO Connected NVLS tree",
    };
    nvs_nccl_log_init(&log);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        T_EQ_I(nvs_nccl_log_parse_line(&log, lines[i], strlen(lines[i]), 0), NVS_OK);
    T_EQ_U(log.ncomms, 2);
    T_EQ_U(log.norphans, 0);
    T_EQ_I(log.comms[0].nvls, 1);
    T_EQ_I(log.comms[0].nranks, 2);
    T_EQ_U(log.comms[0].nconns, 1);
    T_EQ_I(log.comms[1].nvls, 1);
    nvs_nccl_log_free(&log);
}

T_LIST = {T_CASE(t_version_overflow), T_CASE(t_line_formats), T_CASE(t_junk_lines),    T_CASE(t_h200_p2p),          T_CASE(t_h200_shm_net),
          T_CASE(t_threads_split), T_CASE(t_ib_and_old),   T_CASE(t_text_and_versions), T_CASE(t_link_names),
          T_CASE(t_json),          T_CASE(t_big_file),       T_CASE(t_missing_file), T_CASE(t_net_without_name), T_CASE(t_bus_ids),
          T_CASE(t_old_shm), T_CASE(t_collnet), T_CASE(t_nvls)};
T_MAIN
