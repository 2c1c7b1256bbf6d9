/* Sustained load (NVS_PHASE_SUSTAIN): all_reduce of a large buffer over every rank, back to back, for
 * cfg->sustain_s seconds, in chunks of about CHUNK_S seconds; each chunk is timed and validated by the sweep
 * engine (collectives/sweep.h) exactly like a sweep point. A link that degrades, retrains or throttles under
 * minutes of load shows as busbw falling from chunk to chunk, while the health sampler (phase_health.c) watches
 * clocks and throttle reasons and the error counters are read before and after. Section "sustain" of run.json. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collectives/coll.h"
#include "collectives/sweep.h"
#include "core/clock.h"
#include "core/log.h"
#include "run/phases_extra.h"

#define CHUNK_S 10.0  /* a busbw reading every 10 s (at least 4 readings in shorter runs): enough to see a trend */
#define GPU_BYTES ((size_t)256 << 20)        /* all_reduce busbw is at its plateau from about 256 MiB on NVLink */
#define HOST_BYTES ((size_t)16 << 20)        /* the host backend: what a 2-core CI box moves in milliseconds */

nvs_result_t nvs_phase_sustain(nvs_ctx *run)
{
    nvs_backend *b = &run->backend;
    const nvs_config *orig = b->cfg;
    int gpu = !strcmp(b->ops->name, "nccl");
    nvs_config c = *run->cfg;
    c.colls_mask = 1u << nvs_coll_index(&nvs_coll_all_reduce);
    c.types_mask = 1u << NVS_FLOAT;
    c.ops_mask = 1u << NVS_SUM;
    c.inplace_mask = NVS_INPLACE_OUT;
    c.min_bytes = c.max_bytes = gpu ? GPU_BYTES : HOST_BYTES;
    c.step_factor = 2;
    c.step_bytes = 0;
    c.graph_launches = 0;
    c.agg_iters = 1;
    c.iters = 0; /* the first chunk: automatic, to learn the time of one operation */
    nvs_sweep_buffers bufs;
    nvs_coll_rows rows = {0};
    nvs_comm *comm = NULL;
    nvs_result_t res = nvs_sweep_buffers_alloc(b, &c, &bufs); /* agreed over the ranks */
    if (res == NVS_OK) res = b->ops->comm_split(b, 1, &comm);
    b->cfg = &c; /* the sweep engine reads its configuration from the backend */
    double t0 = nvs_now_s(), elapsed = 0;
    while (res == NVS_OK) {
        nvs_progress("sustain", "sustained load: all_reduce for %.0f of %.0f s", elapsed, run->cfg->sustain_s);
        res = nvs_sweep_run(b, comm, run->rt->size, &bufs, &rows);
        if (res != NVS_OK) break;
        /* every rank agrees on the clock of the slowest, so that all stop after the same chunk */
        elapsed = nvs_now_s() - t0;
        res = nvs_allreduce_f64(run->rt, &elapsed, 1, NVS_RT_MAX, "sustained load");
        if (res != NVS_OK || elapsed >= run->cfg->sustain_s) break;
        const nvs_coll_row *last = &rows.v[rows.n - 1];
        double per_op_s = last->t_max_us * 1e-6;
        double chunk_s = fmin(CHUNK_S, run->cfg->sustain_s / 4);
        c.iters = per_op_s > 0 ? (int)fmin(1e7, fmax(1, chunk_s / per_op_s)) : 1000;
    }
    nvs_progress_done();
    b->cfg = orig;
    if (comm) b->ops->comm_free(b, comm);
    nvs_sweep_buffers_free(b, &bufs);
    if (res == NVS_OK && run->rt->rank == 0) {
        json_t *chunks = json_array();
        long long wrong = 0;
        double t = 0, first = NAN, last = NAN, lo = NAN;
        /* one rank crosses no link and has no busbw (rows.h): its algbw (a copy in GPU memory) still shows a
         * GPU that slows down under load */
        int one = run->rt->size == 1;
        for (size_t i = 0; chunks && i < rows.n; i++) {
            const nvs_coll_row *r = &rows.v[i];
            double bw = one ? r->algbw_gbps : r->busbw_gbps;
            t += r->t_avg_us * 1e-6 * r->iters;
            if (r->wrong > 0) wrong += r->wrong;
            json_array_append_new(chunks,
                                  json_pack("{s:f, s:i, s:o, s:o}", "end_s", t, "iters", r->iters,
                                            one ? "algbw_gbps" : "busbw_gbps", isnan(bw) ? json_null() : json_real(bw),
                                            "wrong", r->wrong < 0 ? json_null() : json_integer(r->wrong)));
            if (i == 0 || isnan(bw)) continue; /* the first chunk is the short probe */
            if (isnan(first)) first = bw;
            last = bw;
            if (isnan(lo) || bw < lo) lo = bw;
        }
        run->phase_wrong += wrong;
        run->sustain = json_pack("{s:s, s:s, s:I, s:i, s:f, s:f, s:o, s:o, s:o, s:I, s:o}", "collective", "all_reduce",
                                 "measure", one ? "algbw" : "busbw", "bytes", (json_int_t)c.max_bytes, "n",
                                 run->rt->size, "requested_s", run->cfg->sustain_s, "elapsed_s", elapsed,
                                 "busbw_first_gbps", isnan(first) ? json_null() : json_real(first), "busbw_last_gbps",
                                 isnan(last) ? json_null() : json_real(last), "busbw_min_gbps",
                                 isnan(lo) ? json_null() : json_real(lo), "wrong", (json_int_t)wrong, "chunks",
                                 chunks ? chunks : json_null());
        if (!run->sustain) res = NVS_ERR_NOMEM;
        if (wrong) nvs_error("sustained load: %lld wrong elements in all_reduce results", wrong);
    }
    nvs_rows_free(&rows);
    return res;
}
