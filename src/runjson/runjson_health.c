/* run.json reader: the sections check judges from the document and no reader here keeps: gpu_selftest, sustain and
 * health, only validated, so that a value of the wrong type or range is bad input naming its path (exit 2) and
 * not a row judged on a guess. Their own file: the acceptance sections of `accept`, read alike and kept by none. */
#include "runjson/runjson_read.h"

#include <limits.h>
#include <string.h>

#include "health/health.h"

/* gpu_selftest (selftest/selftest_json.c, phase_selftest.c), which check's gpu and sustain gemm rules judge: only
 * validated here (check_accept_gpu.c and check_accept_sustain.c read it from the document), so that a value of the
 * wrong type or range is bad input naming its path rather than a row judged on a guess. Every key may be absent or
 * null (not measured). */
void rj_read_selftest(vctx *v, nvs_run *r)
{
    json_t *t = rj_typed(v, r->root, "gpu_selftest", "", JSON_OBJECT, 0);
    if (!t) return;
    (void)rj_str(v, t, "skipped", "gpu_selftest", 0);
    (void)rj_num(v, t, "burn_s", "gpu_selftest", 0);
    json_t *a = rj_typed(v, t, "gpus", "gpu_selftest", JSON_ARRAY, 0);
    for (size_t i = 0; a && i < json_array_size(a) && !v->failed; i++) {
        char p[PATH_MAX_LEN], q[PATH_MAX_LEN], c[PATH_MAX_LEN];
        json_t *e = rj_elem_obj(v, a, i, "gpu_selftest.gpus", p);
        if (!e) break;
        (void)rj_str(v, e, "host", p, 0);
        (void)rj_int(v, e, "gpu", p, -1, 1000000000, -1, 0);
        (void)rj_int(v, e, "rank", p, 0, 1000000000, -1, 0);
        (void)rj_str(v, e, "pci_bus_id", p, 0);
        (void)rj_str(v, e, "name", p, 0);
        (void)rj_str(v, e, "why", p, 0);
        (void)rj_num(v, e, "membw_gbps", p, 0);
        (void)rj_num(v, e, "gemm_tflops", p, 0);
        (void)rj_int(v, e, "membw_wrong", p, 0, LLONG_MAX, -1, 0);
        (void)rj_int(v, e, "gemm_wrong", p, 0, LLONG_MAX, -1, 0);
        json_t *b = rj_typed(v, e, "burn", p, JSON_OBJECT, 0);
        if (!b) continue;
        rj_kpath(q, p, "burn");
        static const char *const nums[] = {"requested_s", "elapsed_s", "tflops_first", "tflops_last", "tflops_min"};
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) (void)rj_num(v, b, nums[k], q, 0);
        (void)rj_int(v, b, "wrong", q, 0, LLONG_MAX, -1, 0);
        (void)rj_str(v, b, "why", q, 0);
        json_t *ch = rj_typed(v, b, "chunks", q, JSON_ARRAY, 0);
        for (size_t k = 0; ch && k < json_array_size(ch) && !v->failed; k++) {
            char qc[PATH_MAX_LEN];
            json_t *x = rj_elem_obj(v, ch, k, rj_kpath(c, q, "chunks"), qc);
            if (!x) break;
            (void)rj_num(v, x, "end_s", qc, 0);
            (void)rj_num(v, x, "tflops", qc, 0);
        }
    }
}

/* sustain (run/phase_sustain.c), which check's sustain busbw rule judges from the document: validated here, as
 * gpu_selftest is. */
void rj_read_sustain(vctx *v, nvs_run *r)
{
    json_t *t = rj_typed(v, r->root, "sustain", "", JSON_OBJECT, 0);
    if (!t) return;
    (void)rj_str(v, t, "collective", "sustain", 0);
    const char *m = rj_str(v, t, "measure", "sustain", 0);
    if (m && strcmp(m, "busbw") && strcmp(m, "algbw"))
        rj_fail(v, "sustain.measure: expected \"busbw\" or \"algbw\", got \"%.40s\"", m);
    (void)rj_bytes(v, t, "bytes", "sustain");
    (void)rj_int(v, t, "n", "sustain", 1, 1000000000, 0, 0);
    static const char *const nums[] = {"requested_s", "elapsed_s", "busbw_first_gbps", "busbw_last_gbps",
                                       "busbw_min_gbps"};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) (void)rj_num(v, t, nums[k], "sustain", 0);
    (void)rj_int(v, t, "wrong", "sustain", 0, LLONG_MAX, -1, 0);
    json_t *ch = rj_typed(v, t, "chunks", "sustain", JSON_ARRAY, 0);
    for (size_t k = 0; ch && k < json_array_size(ch) && !v->failed; k++) {
        char p[PATH_MAX_LEN];
        json_t *x = rj_elem_obj(v, ch, k, "sustain.chunks", p);
        if (!x) break;
        (void)rj_num(v, x, "end_s", p, 0);
        (void)rj_int(v, x, "iters", p, 0, LLONG_MAX, -1, 0);
        (void)rj_num(v, x, "busbw_gbps", p, 0);
        (void)rj_num(v, x, "algbw_gbps", p, 0);
        (void)rj_int(v, x, "wrong", p, 0, LLONG_MAX, -1, 0);
    }
}

/* health (health/health_json_read.c), which check's health rules judge: read through the section's own reader, which
 * names the bad field's path, so that a malformed section is bad input (exit 2), not "not measured". */
void rj_read_health(vctx *v, nvs_run *r)
{
    json_t *t = json_object_get(r->root, "health");
    if (!t || json_is_null(t)) return;
    nvs_health_report rep;
    char err[256];
    nvs_result_t res = nvs_health_from_json(t, &rep, err, sizeof err);
    if (res == NVS_ERR_NOMEM) {
        v->nomem = 1;
        rj_fail(v, "out of memory");
    } else if (res != NVS_OK)
        rj_fail(v, "%s", err);
    else
        nvs_health_report_free(&rep);
}
