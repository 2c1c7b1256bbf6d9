/* Model profiles (src/workload/profile.c): the text format of docs/profiles.md. */
#include "fuzz/fuzz.h"
#include "workload/profile.h"

NVS_FUZZ_TARGET(profile)
{
    char *text = nvs_fuzz_text(data, size);
    if (!text) return 0;
    nvs_profile p;
    char err[512];
    if (nvs_profile_parse(text, "fuzz.prof", &p, err, sizeof err) == NVS_OK) nvs_profile_free(&p);
    free(text);
    return 0;
}
