/* nccl-tests' flags that nvscale does not take: named as such when refused, so that an nccl-tests command line
 * pasted into nvscale says what each left-over flag is and what nvscale does instead, not "unknown option". */
#ifndef NVS_NCCL_TESTS_FLAGS_H
#define NVS_NCCL_TESTS_FLAGS_H

#include <stddef.h>

/* `shown`: the option as nvs_cli_bad_option names it ("-p", "--parallel_init", "--run_cycles=2"). Writes
 * "-p is nccl-tests' --parallel_init, which nvscale does not take: WHY" to buf and returns 1 when it is one of
 * nccl-tests' (2.19.6 common.cu) that nvscale lacks; 0 otherwise. */
int nvs_nccl_tests_flag(const char *shown, char *buf, size_t len);

#endif
