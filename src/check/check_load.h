/* A run or baseline for check and accept (check_load.c). */
#ifndef NVS_CHECK_LOAD_H
#define NVS_CHECK_LOAD_H

#include "core/err.h"
#include "runjson/runjson.h"

/* Through the shared reader (one message "FILE: key: what is wrong" and NVS_ERR_INPUT when bad), with the
 * collective names check compares rules against (nvs_check_run_names). */
nvs_result_t nvs_check_load_run(const char *path, nvs_run *run);

#endif
