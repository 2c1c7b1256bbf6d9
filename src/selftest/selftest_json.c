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
