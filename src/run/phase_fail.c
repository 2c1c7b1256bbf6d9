/* See phase_fail.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch_env.h"
#include "core/log.h"
#include "run/phase_fail.h"

static const struct {
    const char *hook, *said;
} phases[NVS_PF_COUNT] = {
    [NVS_PF_RANKS] = {"ranks", "gathering rank information"},
    [NVS_PF_TOPOLOGY] = {"topology", "topology gathering"},
    [NVS_PF_HEALTH] = {"health", "the health checks"},
    [NVS_PF_PREFLIGHT] = {"preflight", "the training step's preflight"},
    [NVS_PF_SELFTEST] = {"selftest", "the GPU self-test"},
    [NVS_PF_COPIES] = {"p2p", "the p2p/host copies"},
    [NVS_PF_SWEEP] = {"sweep", "the collective sweep"},
    [NVS_PF_TRAIN] = {"train", "the training step"},
    [NVS_PF_SUSTAIN] = {"sustain", "the sustained load"},
    [NVS_PF_TRANSPORTS] = {"transports", "transport attribution"},
    [NVS_PF_SPLIT] = {"split", "the collective sweep's communicator split"},
    /* no hook: a failure there is made on CPU by tests/fixtures/fake_gpu.c (tests/t/faults_nccl_init.sh) */
    [NVS_PF_BACKEND] = {NULL, "the backend's set-up"},
    [NVS_PF_COMM] = {"comm", "setting up the collective sweep's communicator"},
};

const char *nvs_phase_said(nvs_phase_id p) { return p > NVS_PF_NONE && p < NVS_PF_COUNT ? phases[p].said : "?"; }

nvs_result_t nvs_fail_hook_parse(const char *sub, const char *val, nvs_phase_id *phase, int *rank)
{
    *phase = NVS_PF_NONE;
    *rank = -1;
    if (!val || !*val) return NVS_OK;
    const char *colon = strchr(val, ':');
    size_t len = colon ? (size_t)(colon - val) : 0;
    for (int p = NVS_PF_NONE + 1; colon && p < NVS_PF_COUNT; p++)
        if (phases[p].hook && strlen(phases[p].hook) == len && !strncmp(val, phases[p].hook, len))
            *phase = (nvs_phase_id)p;
    char *end = NULL;
    long r = colon && colon[1] >= '0' && colon[1] <= '9' ? strtol(colon + 1, &end, 10) : -1;
    if (*phase == NVS_PF_NONE || r < 0 || r > (1 << 20) || !end || *end) {
        /* the names from the table above, so that the message lists exactly the phases that parse: a phase with
         * no hook (NVS_PF_BACKEND) is not one of them (it was listed as "(null)") */
        char names[160] = "";
        for (int p = NVS_PF_NONE + 1; p < NVS_PF_COUNT; p++)
            if (phases[p].hook)
                snprintf(names + strlen(names), sizeof names - strlen(names), " %s", phases[p].hook);
        /* SUB's refusal, "nvscale SUB: ...", as its flags' are (cli/cli_common.h nvs_cli_refuse, a layer above) */
        fprintf(nvs_stderr_once(), "nvscale %s: invalid value '%s' for environment variable NVS_TEST_FAIL: expected "
                                   "PHASE:RANK, PHASE one of%s\n", sub, val, names);
        *phase = NVS_PF_NONE;
        return NVS_ERR_USAGE;
    }
    *rank = (int)r;
    return NVS_OK;
}

int nvs_fail_injected(const nvs_ctx *run, nvs_phase_id p)
{
    if (run->fail_phase != (int)p || run->fail_rank != run->rt->rank) return 0;
    nvs_error("out of memory in %s (injected by NVS_TEST_FAIL=%s:%d)", nvs_phase_said(p), phases[p].hook,
              run->rt->rank);
    return 1;
}

char *nvs_fail_cause(nvs_result_t res, char *buf, size_t len) { return nvs_log_cause(res, buf, len); }

nvs_result_t nvs_phase_told(nvs_ctx *run, nvs_phase_id p, const char *at, nvs_result_t res)
{
    nvs_rt *rt = run->rt;
    if (nvs_exit_code(res) != 1 || res == NVS_ERR_TIMEOUT || res == NVS_ERR_ABORTED || res == NVS_ERR_INTERRUPTED ||
        rt->peer_failed || rt->agreed_failed)
        return res;
    char cause[NVS_LOG_LAST_LEN + 64], why[NVS_RT_WHY_LEN];
    snprintf(why, sizeof why, "rank %d (host %s) failed in %s%s: %s", rt->rank, rt->host, nvs_phase_said(p), at,
             nvs_fail_cause(res, cause, sizeof cause));
    nvs_rt_tell_failed(rt, nvs_utf8_trim(why));
    return res;
}
