/* The MPI host backend's passes over a whole buffer (collectives/backend_mpi.c): poison, fill and verify stop at a
 * signal within one piece of HOST_PASS_BYTES (64 MiB) instead of finishing a 1 GiB buffer first, and otherwise
 * write and check every byte. Ctrl-C at `nvscale coll --backend mpi -e 1G` start-up took 5-7 s to act while two
 * 1 GiB buffers were poisoned; a signal seen between pieces stops it at once. And a communicator whose set-up
 * fails is freed; the buffers of an operation given up on stay allocated. One singleton MPI rank (no mpirun). */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/backend.h"
#include "collectives/coll.h"
#include "collectives/pattern.h"
#include "core/config.h"
#include "core/interrupt.h"
#include "runtime/runtime.h"
#include "t.h"

/* MPI's profiling interface (MPI-3.1 section 14.2): these definitions stand in for the library's and call the
 * PMPI_ names, so that a test can make one call fail and count the communicators made and freed. */
static int fail_errhandler, comms_made, comms_freed;

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    comms_made += rc == MPI_SUCCESS && *newcomm != MPI_COMM_NULL;
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    int rc = PMPI_Comm_free(comm);
    comms_freed += rc == MPI_SUCCESS;
    return rc;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler eh)
{
    return fail_errhandler ? MPI_ERR_OTHER : PMPI_Comm_set_errhandler(comm, eh);
}

/* A peer that never comes: the backend's poll is told "not done" and the request stays active in MPI; the
 * requests are kept so that the test can complete them itself at the end. */
static int stall_testall;
static MPI_Request stalled[2];
static int nstalled;

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (!stall_testall) return PMPI_Testall(count, reqs, flag, statuses);
    nstalled = count < 2 ? count : 2;
    memcpy(stalled, reqs, (size_t)nstalled * sizeof *reqs);
    *flag = 0;
    return MPI_SUCCESS;
}

#define PIECE ((size_t)64 << 20) /* backend_mpi.c HOST_PASS_BYTES */
#define BYTES (3 * PIECE + 4096) /* three whole pieces and a part */

static nvs_result_t passes(nvs_rt *rt, void *arg)
{
    (void)arg;
    nvs_config cfg;
    nvs_config_defaults(&cfg);
    nvs_backend b;
    T_EQ_I(nvs_backend_mpi_init(&b, rt, &cfg), NVS_OK);
    unsigned char *p = NULL;
    T_EQ_I(b.ops->alloc(&b, BYTES, (void **)&p), NVS_OK);
    memset(p, 0, BYTES);

    /* no signal: every byte, the part piece's last included */
    T_EQ_I(b.ops->poison(&b, p, BYTES), NVS_OK);
    T_EQ_U(p[0], 0x7f);
    T_EQ_U(p[BYTES - 1], 0x7f);
    nvs_pattern pat = {.op = NVS_SUM, .nranks = 1, .magnitude = 3, .seed = 7};
    size_t count = BYTES / sizeof(float);
    T_EQ_I(b.ops->fill(&b, NVS_FLOAT, p, count, &pat, 0, 0), NVS_OK);
    nvs_expect e = {.check_count = count, .chunk = count, .fixed_src = 0};
    unsigned long long wrong = 1, first = 0;
    T_EQ_I(b.ops->verify(&b, NVS_FLOAT, p, &pat, &e, &wrong, &first), NVS_OK);
    T_EQ_U(wrong, 0);
    ((float *)p)[count - 1] += 1.0f; /* the check reaches the last element */
    T_EQ_I(b.ops->verify(&b, NVS_FLOAT, p, &pat, &e, &wrong, &first), NVS_OK);
    T_EQ_U(wrong, 1);
    T_EQ_U(first, count - 1);

    /* a signal between the first piece and the second: the first written, the rest not */
    memset(p, 0, BYTES);
    nvs_interrupt_raise_after(2, SIGINT);
    T_EQ_I(b.ops->poison(&b, p, BYTES), NVS_ERR_INTERRUPTED);
    T_EQ_U(p[0], 0x7f);
    T_EQ_U(p[PIECE - 1], 0x7f);
    T_EQ_U(p[PIECE], 0);
    T_EQ_U(p[BYTES - 1], 0);
    nvs_interrupt_raise(0);
    memset(p, 0, BYTES);
    nvs_interrupt_raise_after(2, SIGINT);
    T_EQ_I(b.ops->fill(&b, NVS_FLOAT, p, count, &pat, 0, 0), NVS_ERR_INTERRUPTED);
    size_t first_piece = PIECE / sizeof(float), nonzero = 0;
    for (size_t k = 0; k < first_piece; k++) nonzero += ((float *)p)[k] != 0.0f;
    T_ASSERT(nonzero > first_piece / 2); /* values of -3..3: about 6 in 7 are not 0 */
    for (size_t k = first_piece; k < count; k++)
        if (((float *)p)[k] != 0.0f) T_FAIL("element %zu past the first piece was filled", k);
    nvs_interrupt_raise(0);

    /* a signal already seen: nothing written, nothing read, the run's own stop code */
    memset(p, 0, BYTES);
    nvs_interrupt_raise(SIGINT);
    T_EQ_I(b.ops->poison(&b, p, BYTES), NVS_ERR_INTERRUPTED);
    T_EQ_U(p[0], 0);
    T_EQ_I(b.ops->fill(&b, NVS_FLOAT, p, count, &pat, 0, 0), NVS_ERR_INTERRUPTED);
    T_EQ_U(p[0], 0);
    T_EQ_I(b.ops->verify(&b, NVS_FLOAT, p, &pat, &e, &wrong, &first), NVS_ERR_INTERRUPTED);
    nvs_interrupt_raise(0);

    b.ops->free(&b, p);
    b.ops->finalize(&b);
    return NVS_OK;
}

/* A communicator whose set-up fails after MPI_Comm_split made it: an error, nothing handed out, and the
 * communicator freed (it was left behind, with the backend's handle of it, until MPI_Finalize). */
static nvs_result_t split_fails(nvs_rt *rt)
{
    nvs_config cfg;
    nvs_config_defaults(&cfg);
    nvs_backend b;
    T_EQ_I(nvs_backend_mpi_init(&b, rt, &cfg), NVS_OK);
    nvs_comm *c = NULL;
    int made = comms_made, freed = comms_freed; /* the runtime's own communicators are not counted */
    T_EQ_I(b.ops->comm_split(&b, 1, &c), NVS_OK);
    T_ASSERT(c != NULL);
    b.ops->comm_free(&b, c);
    T_EQ_I(comms_freed - freed, comms_made - made);
    fail_errhandler = 1;
    c = (nvs_comm *)&b; /* anything but NULL */
    T_EQ_I(b.ops->comm_split(&b, 1, &c), NVS_ERR_MPI);
    fail_errhandler = 0;
    T_ASSERT(c == NULL);
    T_EQ_I(comms_made - made, 2);
    T_EQ_I(comms_freed - freed, 2);
    b.ops->finalize(&b);
    return NVS_OK;
}

/* An operation given up on (its peer stalled: --timeout) is still active inside MPI, which may read its send
 * buffer and write its receive buffer at any later MPI call. The sweep frees its buffers on the way out: the
 * backend must keep them (a buffer handed back to the allocator had its first bytes overwritten by malloc's own
 * list pointers, and MPI could write into whatever was allocated there next). A launch after it is refused. */
static nvs_result_t stall_keeps_buffers(nvs_rt *rt)
{
    nvs_config cfg;
    nvs_config_defaults(&cfg);
    nvs_backend b;
    T_EQ_I(nvs_backend_mpi_init(&b, rt, &cfg), NVS_OK);
    nvs_comm *c = NULL;
    T_EQ_I(b.ops->comm_split(&b, 1, &c), NVS_OK);
    const size_t bytes = 4096;
    unsigned char *send = NULL, *recv = NULL, *after = NULL;
    T_EQ_I(b.ops->alloc(&b, bytes, (void **)&send), NVS_OK);
    T_EQ_I(b.ops->alloc(&b, bytes, (void **)&recv), NVS_OK);
    T_EQ_I(b.ops->alloc(&b, bytes, (void **)&after), NVS_OK); /* neither of the two borders free memory */
    memset(send, 0xab, bytes);
    memset(recv, 0xab, bytes);
    nvs_op op = {.coll = nvs_coll_find("all_reduce"), .type = NVS_FLOAT, .op = NVS_SUM, .send = send, .recv = recv,
                 .bytes = bytes};
    T_ASSERT(op.coll != NULL);
    T_EQ_I(op.coll->counts(bytes, sizeof(float), 1, 0, &op.counts), 0);
    double timeout = rt->timeout_s;
    rt->timeout_s = 0.2;
    stall_testall = 1;
    T_EQ_I(b.ops->launch(&b, c, &op), NVS_ERR_TIMEOUT);
    stall_testall = 0;
    rt->timeout_s = timeout;
    T_EQ_I(nstalled, 1);
    b.ops->free(&b, send);
    b.ops->free(&b, recv);
    for (size_t k = 0; k < 16; k++) {
        if (send[k] != 0xab) T_FAIL("the send buffer of an active request was freed (byte %zu changed)", k);
        if (recv[k] != 0xab) T_FAIL("the receive buffer of an active request was freed (byte %zu changed)", k);
    }
    /* the next operation would pair with the abandoned one on the other ranks: refused */
    T_EQ_I(b.ops->launch(&b, c, &op), NVS_ERR_TIMEOUT);
    T_EQ_I(nstalled, 1);
    /* the peer came after all: MPI completes the request, into the buffers still there */
    T_EQ_I(PMPI_Wait(&stalled[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
    b.ops->free(&b, after);
    b.ops->comm_free(&b, c);
    b.ops->finalize(&b);
    return NVS_OK;
}

/* one MPI_Init per process: every case of this file in one run */
static nvs_result_t rank_main(nvs_rt *rt, void *arg)
{
    NVS_CHECK(passes(rt, arg));
    NVS_CHECK(split_fails(rt));
    return stall_keeps_buffers(rt);
}

static void t_passes_stop_at_a_signal_and_split_failure_frees_and_stall_keeps_buffers(void)
{
    T_EQ_I(nvs_rt_mpi_run(10, 0, rank_main, NULL), NVS_OK);
}

T_LIST = {
    T_CASE(t_passes_stop_at_a_signal_and_split_failure_frees_and_stall_keeps_buffers),
};
T_MAIN
