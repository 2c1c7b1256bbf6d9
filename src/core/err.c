#include "core/err.h"

static const char *const names[] = {
#define NVS_X_NAME(name, text) #name,
    NVS_RESULTS(NVS_X_NAME)
#undef NVS_X_NAME
};
static const char *const texts[] = {
#define NVS_X_TEXT(name, text) text,
    NVS_RESULTS(NVS_X_TEXT)
#undef NVS_X_TEXT
};

const char *nvs_result_name(nvs_result_t r)
{
    return (unsigned)r < NVS_RESULT_COUNT ? names[r] : "NVS_ERR_UNKNOWN";
}

const char *nvs_result_text(nvs_result_t r)
{
    return (unsigned)r < NVS_RESULT_COUNT ? texts[r] : "unknown error";
}

int nvs_exit_code(nvs_result_t r)
{
    switch (r) {
    case NVS_OK: return 0;
    case NVS_ERR_USAGE:
    case NVS_ERR_INPUT: return 2;
    case NVS_ERR_WRONG:
    case NVS_ERR_CHECK: return 3;
    case NVS_ERR_INTERRUPTED: return 130; /* 128 + SIGINT, as shells report an interrupted command */
    default: return 1;
    }
}

int nvs_result_severity(nvs_result_t r)
{
    switch (nvs_exit_code(r)) {
    case 130: return 4; /* an interruption ends the run whatever else happened */
    case 1: return 3;
    case 3: return 2;
    case 2: return 1;
    default: return 0;
    }
}
