/* Text and JSON output of `nvscale model --list-presets` (model_out.h). */
#include <math.h>

#include "model/model_out_priv.h"

void nvs_model_print_presets(FILE *f, const nvs_presets *ps)
{
    fprintf(f, "GPUs (dense peaks; nvscale model --preset-file FILE adds or overrides presets)\n");
    fprintf(f, "  %-12s %-28s %8s %8s %8s %8s %8s %4s %s\n", "id", "name", "fp32_TF", "tf32_TF", "bf16_TF", "mem_GB/s",
            "mem_GB", "p2p", "nvlink");
    for (int i = 0; i < ps->kind[NVS_PK_GPU].n; i++) {
        const nvs_preset *p = &ps->kind[NVS_PK_GPU].v[i];
        char nv[48] = "-";
        if (p->f[NVS_G_NVLINK_LINKS].v > 0)
            snprintf(nv, sizeof nv, "gen%d x%d @ %.4g GB/s", (int)p->f[NVS_G_NVLINK_GEN].v,
                     (int)p->f[NVS_G_NVLINK_LINKS].v, p->f[NVS_G_NVLINK_GBPS].v);
        fprintf(f, "  %-12s %-28.28s %8.4g %8.4g %8.4g %8.4g %8.1f %4s %s\n", p->id, p->name,
                p->f[NVS_G_FP32_TFLOPS].v, p->f[NVS_G_TF32_TFLOPS].v, p->f[NVS_G_BF16_TFLOPS].v,
                p->f[NVS_G_MEM_GBPS].v, p->f[NVS_G_MEMORY_BYTES].v / 1e9, p->f[NVS_G_P2P_PCIE].v ? "yes" : "no", nv);
    }
    fprintf(f, "\nmachines (one node: GPUs, sockets, PCIe switches, NVLink)\n");
    for (int i = 0; i < ps->kind[NVS_PK_MACHINE].n; i++) {
        const nvs_preset *p = &ps->kind[NVS_PK_MACHINE].v[i];
        fprintf(f, "  %-24s %s\n", p->id, p->name);
    }
    fprintf(f, "\nnetworks (between nodes: --net)\n");
    for (int i = 0; i < ps->kind[NVS_PK_NET].n; i++) {
        const nvs_preset *p = &ps->kind[NVS_PK_NET].v[i];
        fprintf(f, "  %-12s %-36s %6.4g GB/s per adapter\n", p->id, p->name, p->f[NVS_N_GBPS].v);
    }
    fprintf(f, "\nEvery number's source: nvscale model --list-presets --format json\n");
}

json_t *nvs_model_json_presets(const nvs_presets *ps)
{
    static const char *const lists[NVS_PK_COUNT] = {"gpus", "machines", "networks"};
    static const int nfields[NVS_PK_COUNT] = {NVS_G_COUNT, NVS_M_COUNT, NVS_N_COUNT};
    json_t *o = nvs_model_json_envelope("presets");
    int bad = !o;
    for (int k = 0; k < NVS_PK_COUNT && !bad; k++) {
        json_t *a = json_array();
        for (int i = 0; i < ps->kind[k].n && !bad; i++) {
            const nvs_preset *p = &ps->kind[k].v[i];
            json_t *x = json_object(), *keys = json_object();
            bad |= jset(x, "id", json_string(p->id));
            bad |= jset(x, "name", json_string(p->name));
            if (k == NVS_PK_GPU) bad |= jset(x, "match", json_string(p->match));
            bad |= jset(x, "origin", json_string(p->origin));
            for (int fi = 0; fi < nfields[k] && !bad; fi++) {
                json_t *v = json_object();
                /* as the preset file writes it: counts and flags as integers (were 8.0), a choice by its name
                 * (were its index: "nvlink": 2.0, "cpu": 2.0), a byte count whole (at 10 digits a real wrote
                 * rtx3090's memory_bytes 25769803776 as 25769803780.0) */
                const char *name;
                int form = nvs_preset_value_form((nvs_preset_kind)k, fi, p->f[fi].v, &name);
                double fv = p->f[fi].v;
                int whole = form == NVS_PV_INTEGER || (k == NVS_PK_GPU && fi == NVS_G_MEMORY_BYTES);
                bad |= jset(v, "value", form == NVS_PV_NAME ? (name ? json_string(name) : json_null())
                                        : whole && isfinite(fv) ? json_integer((json_int_t)llround(fv))
                                                                 : jnum(fv));
                bad |= jset(v, "source", json_string(p->f[fi].src));
                bad |= jset(keys, nvs_preset_key_name((nvs_preset_kind)k, fi), v);
            }
            bad |= jset(x, "keys", keys);
            bad |= jpush(a, x);
        }
        bad |= jset(o, lists[k], a);
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
