/* Model presets (src/model/preset.c): --preset-file, merged over the built-ins as a user's file is. */
#include "fuzz/fuzz.h"
#include "model/preset.h"

NVS_FUZZ_TARGET(preset)
{
    char *text = nvs_fuzz_text(data, size);
    if (!text) return 0;
    nvs_presets ps;
    memset(&ps, 0, sizeof ps);
    char err[512];
    nvs_presets_parse(&ps, text, "fuzz.presets", err, sizeof err);
    nvs_presets_free(&ps);
    free(text);
    return 0;
}
