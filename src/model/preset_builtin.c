/* The built-in preset families (one .c per family in src/model/presets/): loaded in this order. */
#include "model/preset.h"

extern const char nvs_presets_gpus[];
extern const char nvs_presets_machines[];
extern const char nvs_presets_networks[];

const nvs_preset_family nvs_builtin_preset_families[] = {
    {"gpus", nvs_presets_gpus},
    {"machines", nvs_presets_machines},
    {"networks", nvs_presets_networks},
    {NULL, NULL},
};
