/* Loading a run for check and accept (check_load.h). */
#include "check/check_load.h"

#include "check/check_eval.h"
#include "core/log.h"
#include "core/out_file.h"

nvs_result_t nvs_check_load_run(const char *path, nvs_run *run)
{
    char err[256];
    nvs_result_t res = nvs_run_load(path, 0, run);
    if (res == NVS_OK && (res = nvs_check_run_names(run, err, sizeof err)) != NVS_OK) {
        nvs_error("%s: %s", nvs_input_name(path), err);
        nvs_run_free(run);
    }
    return res;
}
