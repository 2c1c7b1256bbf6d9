/* The test hooks' environment variables (NVS_TEST_*: a stall, a corruption, a failing write, a stand-in /sys),
 * read with the options and refused as the subcommand's. */
#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_common.h"
#include "cli/options_priv.h"
#include "core/out_file.h"
#include "core/units.h"

int nvs_cli_sysfs_root_env_ok(const char *sub)
{
    const char *sys = getenv("NVS_TEST_SYSFS_ROOT"); /* read by topo/topo_pci_sysfs.c: where /sys is, for tests */
    struct stat st;
    if (!sys || !*sys || (!stat(sys, &st) && S_ISDIR(st.st_mode))) return 0;
    nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_SYSFS_ROOT: expected a directory (a "
                        "stand-in for /sys)", sys);
    return -1;
}

int nvs_cli_write_fail_env_ok(const char *sub)
{
    long k_unused;
    if (!nvs_outfile_fail_env(&k_unused)) return 0;
    nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_WRITE_FAIL: expected the number of the "
                        "first file write to fail (1, 2, ...)", getenv("NVS_TEST_WRITE_FAIL"));
    return -1;
}

/* The test hooks' refusals are the subcommand's, "nvscale SUB: ...", as its flags' are (they said "nvscale: ...",
 * the form of a runtime error); no help hint: the help does not list them. SUB: the subcommand typed, which may
 * not be c->subcommand (compare reads them for its runs). */
nvs_result_t nvs_opt_test_hooks_env(nvs_config *c, const char *sub)
{
    const char *k = getenv("NVS_TEST_CORRUPT");
    if (k && *k && nvs_opt_int_range(k, 0, 1 << 20, &c->corrupt_rank)) {
        nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_CORRUPT: expected a rank", k);
        return NVS_ERR_USAGE;
    }
    if (nvs_cli_write_fail_env_ok(sub)) return NVS_ERR_USAGE;
    const char *slow = getenv("NVS_TEST_SLOW_STOP");
    if (slow && *slow && nvs_opt_int_range(slow, 1, 600, &c->slow_stop_s)) {
        nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_SLOW_STOP: expected seconds, 1 to "
                            "600", slow);
        return NVS_ERR_USAGE;
    }
    const char *tf = getenv("NVS_TEST_TRAIN_FAIL");
    if (tf && *tf) {
        char rk[32];
        const char *at = strchr(tf, ':');
        size_t rl = at ? (size_t)(at - tf) : 0;
        if (rl < sizeof rk) {
            memcpy(rk, tf, rl);
            rk[rl] = '\0';
        }
        if (!at || rl >= sizeof rk || nvs_opt_int_range(rk, 0, 1 << 20, &c->train_fail_rank) ||
            nvs_opt_int_range(at + 1, 1, 1 << 20, &c->train_fail_n)) {
            nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_TRAIN_FAIL: expected RANK:N", tf);
            return NVS_ERR_USAGE;
        }
    }
    if (nvs_cli_sysfs_root_env_ok(sub)) return NVS_ERR_USAGE;
    const char *s = getenv("NVS_TEST_STALL");
    if (!s || !*s) return NVS_OK;
    char buf[64];
    const char *colon = strchr(s, ':');
    if (!colon || strlen(s) >= sizeof buf) goto fail;
    memcpy(buf, s, (size_t)(colon - s));
    buf[colon - s] = '\0';
    if (nvs_opt_int_range(buf, 0, 1 << 20, &c->stall_rank) || nvs_parse_size(colon + 1, &c->stall_bytes)) goto fail;
    return NVS_OK;
fail:
    nvs_cli_refuse(sub, "invalid value '%s' for environment variable NVS_TEST_STALL: expected RANK:SIZE", s);
    return NVS_ERR_USAGE;
}

nvs_result_t nvs_cli_test_hooks_env(nvs_config *c) { return nvs_opt_test_hooks_env(c, c->subcommand); }
