/* What `nvscale check` and `nvscale compare` need from a run.json (docs/run-json.md), as plain C data.
 *
 * check_read.c fills it from the JSON (jansson) and validates every field it uses; the evaluation
 * (check_eval.c) and the comparison (compare*.c) see only these structs, so they are unit-tested on structs
 * built in the test. A value that was not measured is NAN (numbers) or -1 (indices), never 0. */
#ifndef NVS_CHECK_RUN_H
#define NVS_CHECK_RUN_H

#include <stddef.h>

typedef struct {
    char collective[32]; /* registry spelling, "all_reduce" */
    int n;
    char type[16], op[16]; /* "" when absent */
    int inplace;           /* 0, 1, or -1 when absent */
    size_t bytes;
    double time_min_us, time_avg_us, time_max_us; /* over ranks; NAN when absent */
    int slowest_rank;                             /* -1 when absent */
    double algbw_gbps, busbw_gbps;                /* NAN when null/absent */
    long wrong;                                   /* -1 = not checked (null) */
} nvs_ck_coll;

typedef struct {
    int src, dst;
    char cls[16], path[16];
    double uni_gbps, bidir_gbps, latency_us, bound_gbps, pct_of_bound; /* NAN when absent */
    long wrong;
} nvs_ck_pair;

typedef struct {
    int n;
    double step_us, efficiency; /* NAN when absent */
} nvs_ck_train;

typedef struct {
    int rank;
    char host[64];
    int device; /* -1 when absent */
} nvs_ck_rank;

typedef struct {
    char name[16]; /* "P2P", "SHM", "NET" */
    long channels;
} nvs_ck_tcount;

#define NVS_CK_MAX_TRANSPORT_KINDS 8
#define NVS_CK_MAX_DETAILS 4
typedef struct {
    int n;
    char link[32]; /* "NVLink", "PCIe", "host memory", "network"; "" when absent */
    nvs_ck_tcount summary[NVS_CK_MAX_TRANSPORT_KINDS];
    int nsummary;
    char details[NVS_CK_MAX_DETAILS][32]; /* distinct channels[].detail: "P2P/CUMEM", "NET/Socket/0" */
    int ndetails;
} nvs_ck_transport;

typedef struct {
    int n;
    int from_gpu, to_gpu;
    char cls[16], link[32];
    double bound_gbps;
} nvs_ck_hop;

typedef struct {
    char path[4096];
    char host[64];
    char status[16];    /* result.status: "ok", "wrong", "error"; "" when no result section */
    long wrong_total;   /* result.wrong_total, -1 when absent */
    char backend[16];   /* command.backend, "" when absent */
    int world_size;     /* -1 when absent */
    int *ns;            /* scaling[].n, ascending; may be empty */
    size_t nns;
    nvs_ck_coll *coll;
    size_t ncoll;
    int has_p2p;
    nvs_ck_pair *pairs;
    size_t npairs;
    int has_train;
    nvs_ck_train *train;
    size_t ntrain;
    nvs_ck_rank *ranks;
    size_t nranks;
    int has_transports;
    nvs_ck_transport *transports;
    size_t ntransports;
    nvs_ck_hop *hops; /* explain[].slowest_hop */
    size_t nhops;
} nvs_ck_run;

void nvs_ck_run_free(nvs_ck_run *r);

#endif
