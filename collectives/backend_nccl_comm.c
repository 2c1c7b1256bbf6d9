/* The NCCL backend's communicators: one split of the world per measurement (created just before it), freed or,
 * after a signal, left for nfinalize to abort once the results are written. */
#include <nccl.h>
#include <stdlib.h>

#include "core/gpu_check.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "collectives/backend.h"
#include "collectives/backend_nccl.h"
#include "collectives/backend_nccl_priv.h"

#ifdef NVS_NCCL_NONBLOCKING_WORLD
/* Leaves `c` to nfinalize, after the results are written (NVS_MAX_DEFERRED_COMMS says why); aborted at once only
 * where the list is full. In order: nfinalize aborts them first to last. */
void nvs_nb_defer_abort(struct nccl_impl *im, ncclComm_t c)
{
    if (!c) return;
    if (im->ndeferred < NVS_MAX_DEFERRED_COMMS)
        im->deferred[im->ndeferred++] = c;
    else
        NCCL_CLEANUP(ncclCommAbort(c));
}
#endif

/* ncclCommSplit of the world: *nc, the new communicator (NULL where !member). From a non-blocking world the split
 * runs as the parent is, whatever the child's config (src/init.cc ncclCommInitChildComm launches the job on the
 * parent): it returns at once, *nc is set once it ended, and it is polled (nvs_nb_await_world). The child asks for
 * blocking = 1, where NULL would inherit the world's non-blocking: the collectives run on it, and their waits
 * expect a launch that returns once enqueued, not ncclInProgress. A split that did not end leaves the world
 * unusable: the world is aborted first, then the child if any (NCCL user guide, "Creating more communicators"). */
static nvs_result_t split_world(nvs_backend *b, int member, ncclComm_t *nc)
{
    struct nccl_impl *im = impl_of(b);
    *nc = NULL;
#ifdef NVS_NCCL_NONBLOCKING_WORLD
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1;
    ncclResult_t r = ncclCommSplit(im->world, member ? 0 : NCCL_SPLIT_NOCOLOR, b->rt->rank, nc, &config);
    int ended = 0;
    nvs_result_t res = r == ncclSuccess || r == ncclInProgress
                           ? nvs_nb_await_world(b, im->world, "ncclCommSplit", &ended)
                           : nvs_nccl_fail("ncclCommSplit", r, im->world);
    if (res == NVS_OK && member && !*nc) {
        nvs_error("ncclCommSplit succeeded but returned no communicator on rank %d", b->rt->rank);
        res = NVS_ERR_NCCL;
    }
    if (res == NVS_OK) return NVS_OK;
    if (res == NVS_ERR_INTERRUPTED) {
        /* a signal: what was measured is written first, the aborts wait for nfinalize (NVS_MAX_DEFERRED_COMMS).
         * A split that ended left both whole: the child is deferred like nvs_nb_free_comm's, the world stays for
         * nfinalize. One that did not end leaves the world unusable, its split job still running in NCCL's
         * thread: no NCCL call but ncclCommGetAsyncError / ncclCommAbort may touch it (user guide,
         * "Communicator Creation" with blocking = 0: the communicator is not ready until its state leaves
         * ncclInProgress; "Fault Tolerance": ncclCommAbort may end it at any point), so it leaves im->world and
         * is deferred, the world first, then the child if any (the order of the failure path below) */
        if (!ended) {
            nvs_nb_defer_abort(im, im->world);
            im->world = NULL;
        }
        nvs_nb_defer_abort(im, *nc);
        *nc = NULL;
        return res;
    }
    NCCL_CLEANUP(ncclCommAbort(im->world)); /* failed already: said above */
    im->world = NULL;
    if (*nc) NCCL_CLEANUP(ncclCommAbort(*nc));
    *nc = NULL;
    return res;
#else
    ncclResult_t r = ncclCommSplit(im->world, member ? 0 : NCCL_SPLIT_NOCOLOR, b->rt->rank, nc, NULL);
    return r == ncclSuccess ? NVS_OK : nvs_nccl_fail("ncclCommSplit", r, im->world);
#endif
}

nvs_result_t nvs_nb_split(nvs_backend *b, int member, nvs_comm **out)
{
    *out = NULL;
    nvs_comm *c = calloc(1, sizeof *c);
    /* ncclCommSplit waits for every rank (polled only from a non-blocking world: split_world): agreed first, so
     * that it starts on every rank or none, this rank's own failure (no memory for c) entering the agreement */
    nvs_result_t ok = nvs_comm_create_agree(b->rt, c ? NVS_OK : NVS_ERR_NOMEM, "ncclCommSplit");
    if (ok != NVS_OK) {
        free(c);
        return ok;
    }
    /* Always a new communicator, even when every rank is a member: NCCL's log then names each measurement's
     * connections under its own communicator, created just before it (src/explain/nccl_log.h explains why that
     * matters), and the world communicator stays a bootstrap that carries no traffic. */
    {
        ncclComm_t nc = NULL;
        nvs_result_t made = split_world(b, member, &nc);
        if (made != NVS_OK) {
            free(c);
            return made;
        }
        if (!member) {
            free(c);
            return NVS_OK;
        }
        c->comm = nc;
        c->owned = 1;
    }
    ncclResult_t r = ncclCommUserRank(c->comm, &c->rank);
    if (r == ncclSuccess) r = ncclCommCount(c->comm, &c->size);
    if (r != ncclSuccess) {
        nvs_nccl_fail("ncclCommUserRank/ncclCommCount", r, c->comm);
        if (c->owned) NCCL_CLEANUP(ncclCommDestroy(c->comm));
        free(c);
        return NVS_ERR_NCCL;
    }
    *out = c;
    return NVS_OK;
}

void nvs_nb_free_comm(nvs_backend *b, nvs_comm *c)
{
    if (!c) return;
    struct nccl_impl *im = impl_of(b);
    if (c->owned && c->comm && nvs_interrupted() && im && im->ndeferred < NVS_MAX_DEFERRED_COMMS) {
        im->deferred[im->ndeferred++] = c->comm; /* ended by nfinalize, after the results are written */
    } else if (c->owned && c->comm) {
        ncclResult_t r = ncclCommDestroy(c->comm);
        if (r != ncclSuccess) nvs_nccl_fail("ncclCommDestroy", r, NULL);
    }
    free(c);
}

int nvs_nb_comm_rank(const nvs_comm *c) { return c->rank; }
int nvs_nb_comm_size(const nvs_comm *c) { return c->size; }

ncclComm_t nvs_nccl_comm(nvs_comm *c) { return c ? c->comm : NULL; }
