/* The collective sweep: for every collective, type, operation, size and placement (out-of-place / in-place):
 * warm-up, timed iterations, validation; per-rank times combined over the world. Every world rank calls it with
 * the same configuration; ranks outside this GPU count pass comm = NULL and only take part in the host-side
 * agreement (barriers, time gathering), so the members never wait on a rank that is not there. */
#ifndef NVS_SWEEP_H
#define NVS_SWEEP_H

#include "collectives/rows.h"
#include "collectives/backend.h"

typedef struct {
    void *buf_a, *buf_b; /* send / receive buffers, `bytes` each */
    size_t bytes;
} nvs_sweep_buffers;

/* The two buffers the sweep of this configuration needs, -e bytes each, every byte poisoned once: the timed loops
 * move through slices of them (slices.h) that no fill reaches, and sum what is there, which must not be denormal
 * floats (slow on a CPU) or anything left by an earlier program. The result is agreed over every rank (a host
 * collective): a rank out of memory, or stopped by a signal while poisoning (host memory stops between pieces),
 * must not leave the others in the communicator split that follows, which no signal or timeout cuts short. On
 * failure, here or on another rank, nothing stays allocated. */
nvs_result_t nvs_sweep_buffers_alloc(nvs_backend *b, const nvs_config *cfg, nvs_sweep_buffers *bufs);
void nvs_sweep_buffers_free(nvs_backend *b, nvs_sweep_buffers *bufs);
/* Sizes the configuration sweeps (same on every rank). 0 with a message if the sweep is empty or too long. */
size_t nvs_sweep_plan_sizes(const nvs_config *cfg, size_t *sizes, size_t cap);
/* Up-front checks of the configuration against the backend (sizes MPI can count, -G without CUDA, root < the
 * smallest communicator `min_n`; 0 = not known yet). Prints the reason when `print`, through nvs_stderr_once():
 * called before the launch on every rank of `mpirun -np N`, it is said once, not N times. */
nvs_result_t nvs_sweep_validate(const nvs_config *cfg, const char *backend, int min_n, int print);

nvs_result_t nvs_sweep_run(nvs_backend *b, nvs_comm *c, int n, const nvs_sweep_buffers *bufs,
                           nvs_coll_rows *rows);

#endif
