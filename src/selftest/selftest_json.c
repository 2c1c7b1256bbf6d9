/* The self-test in run.json (PURE): the section's head and one GPU's measurements; the phase (src/run/
 * phase_selftest.c) adds who measured them. null = not measured. docs/run-json.md "gpu_selftest". */
#include "selftest/selftest.h"

static json_t *num_or_null(double v) { return v >= 0 ? json_real(v) : json_null(); }
static json_t *int_or_null(long long v) { return v >= 0 ? json_integer(v) : json_null(); }

json_t *nvs_selftest_head_json(const nvs_selftest_cfg *c)
{
    return json_pack("{s:{s:I, s:i, s:i}, s:{s:s, s:s, s:i, s:i, s:i}}", "membw", "bytes", (json_int_t)c->membw_bytes,
                     "iters", c->iters, "warmup", c->warmup, "gemm", "type", "bf16", "accumulate", "fp32", "n",
                     c->gemm_n, "iters", c->iters, "warmup", c->warmup);
}

json_t *nvs_selftest_result_json(const nvs_selftest_result *r)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:s}", "membw_gbps", num_or_null(r->membw_gbps), "membw_wrong",
                     int_or_null(r->membw_wrong), "gemm_tflops", num_or_null(r->gemm_tflops), "gemm_wrong",
                     int_or_null(r->gemm_wrong), "why", r->why);
}

json_t *nvs_selftest_burn_json(const nvs_selftest_burn *b)
{
    json_t *chunks = json_array();
    double first = -1, last = -1, lo = -1;
    for (int i = 0; chunks && i < b->nchunks; i++) {
        json_array_append_new(chunks, json_pack("{s:f, s:f}", "end_s", b->end_s[i], "tflops", b->tflops[i]));
        if (i == 0) continue; /* the probe: a few GEMMs, before the GPU has warmed */
        if (first < 0) first = b->tflops[i];
        last = b->tflops[i];
        if (lo < 0 || b->tflops[i] < lo) lo = b->tflops[i];
    }
    return json_pack("{s:f, s:f, s:o, s:o, s:o, s:o, s:s, s:o}", "requested_s", b->requested_s, "elapsed_s",
                     b->elapsed_s, "tflops_first", num_or_null(first), "tflops_last", num_or_null(last), "tflops_min",
                     num_or_null(lo), "wrong", int_or_null(b->wrong), "why", b->why, "chunks",
                     chunks ? chunks : json_null());
}
