/* nvscale model --gpu ... --machine ... --model ...: the projection of GPUs x machines over GPU counts, and
 * with two GPUs the gap between them explained (cmd_model_priv.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_common.h"
#include "cli/cmd_model_priv.h"
#include "core/units.h"
#include "model/model_gap.h"
#include "model/model_out.h"
#include "workload/profile.h"

typedef struct {
    const nvs_presets *ps;
    const nvs_model_series *s;
    int ns;
    const nvs_gap *gap;
    int gap_n;
} series_args;

static void print_series_cb(FILE *f, const void *a)
{
    const series_args *x = a;
    nvs_model_print_series(f, x->ps, x->s, x->ns, x->gap, x->gap_n);
}

/* The points of a and b at the largest N above 1 both have (returns 1 if there is one): the gap is explained there,
 * each configuration at its own shape (two boxes of 4 and 8 GPUs run 16 GPUs as 4 x 4 and 2 x 8; with --nodes their N
 * differ altogether), so that it splits the efficiencies their rows show */
static int gap_points(const nvs_model_series *a, const nvs_model_series *b, const nvs_model_point **pa,
                      const nvs_model_point **pb)
{
    for (int i = a->npts - 1; i >= 0; i--)
        for (int j = b->npts - 1; j >= 0 && a->pts[i].n > 1; j--)
            if (b->pts[j].n == a->pts[i].n) {
                *pa = &a->pts[i];
                *pb = &b->pts[j];
                return 1;
            }
    return 0;
}

int nvs_cm_project(const opts *o, const nvs_presets *ps, int json)
{
    char *gcopy = NULL, *mcopy = NULL, *gw[MAX_CONFIGS], *mw[MAX_CONFIGS];
    nvs_model_series s[MAX_CONFIGS];
    nvs_profile prof;
    int ns = 0, rc = 0, have_prof = 0;
    memset(s, 0, sizeof s);
    if (!o->gpu) return usage_error("%s", "--gpu is required (nvscale model --list-presets)");
    if (!o->machine) return usage_error("%s", "--machine is required (nvscale model --list-presets)");
    if (!o->model) return usage_error("%s", "--model is required (resnet50, bert-large, ... or a profile file)");
    if (o->gpus && o->nodes) return usage_error("%s", "--gpus and --nodes: give one of them");
    char why[160];
    int ng = nvs_list_split(o->gpu, &gcopy, gw, MAX_CONFIGS, why, sizeof why);
    int nm = ng < 0 ? -1 : nvs_list_split(o->machine, &mcopy, mw, MAX_CONFIGS, why, sizeof why);
    if (ng < 0 || nm < 0 || ng * nm > MAX_CONFIGS) {
        if (ng < 0 || nm < 0)
            rc = usage_error("--gpu and --machine: %s (comma-separated ids, at most 16 combinations)", why);
        else
            rc = usage_error("%s", "--gpu and --machine: comma-separated ids, at most 16 combinations");
        goto out;
    }
    if (o->pairs && ng != nm) {
        rc = usage_error("--pairs: %d --gpu value(s) and %d --machine value(s); pairs need as many of each", ng, nm);
        goto out;
    }
    char err[1024];
    if (nvs_profile_load(o->model, &prof, err, sizeof err) != NVS_OK) {
        fprintf(stderr, "nvscale model: --model: %s\n", err);
        rc = 2;
        goto out;
    }
    have_prof = 1;
    for (int i = 0; i < ng && !rc; i++) {
        const nvs_preset *gp = nvs_presets_find(ps, NVS_PK_GPU, gw[i]);
        if (!gp) {
            rc = usage_error("--gpu '%s': unknown GPU (nvscale model --list-presets)", gw[i]);
            break;
        }
        for (int j = 0; j < nm && !rc; j++) {
            if (o->pairs && j != i) continue; /* GPU i on machine i only */
            const nvs_preset *mp = nvs_presets_find(ps, NVS_PK_MACHINE, mw[j]);
            if (!mp) {
                rc = usage_error("--machine '%s': unknown machine (nvscale model --list-presets)", mw[j]);
                break;
            }
            /* the same GPU on the same machine twice (--gpu a,a, --machine x,x, or a pair given twice) would
             * print one configuration twice and explain a gap of nothing between them */
            int dup = 0;
            for (int k = 0; k < ns && !dup; k++)
                dup = !strcmp(s[k].cfg.gpu.id, gp->id) && !strcmp(s[k].cfg.machine.id, mp->id);
            if (dup) {
                rc = usage_error("--gpu '%s' on --machine '%s' given twice: each configuration once", gp->id,
                                 mp->id);
                break;
            }
            nvs_model_series *x = &s[ns++];
            nvs_model_config_init(&x->cfg);
            x->cfg.fw = nvs_framework_default(); /* as `nvscale train` runs its step; --framework changes it */
            nvs_gpu_spec_from(gp, &x->cfg.gpu);
            nvs_machine_spec_from(mp, &x->cfg.machine);
            x->cfg.profile = &prof;
            snprintf(x->cfg.label, sizeof x->cfg.label, "%s @ %s", gp->id, mp->id);
            if ((rc = nvs_cm_common_settings(o, ps, &x->cfg))) break;
            if (x->cfg.has_net) {
                size_t l = strlen(x->cfg.label);
                snprintf(x->cfg.label + l, sizeof x->cfg.label - l, " + %s", x->cfg.net.id);
            }
            if ((rc = nvs_cm_set_batch(o, &x->cfg, &x->mem))) break;
            if ((rc = nvs_cm_eval_series(o, x))) break;
        }
    }
    if (!rc) {
        nvs_gap gap, *gp = NULL;
        int gap_n = 0;
        const nvs_model_point *pa, *pb;
        if (ns == 2 && ng == 2 && gap_points(&s[0], &s[1], &pa, &pb) &&
            nvs_model_gap_at(&s[0].cfg, pa->nodes, pa->gpn, &s[1].cfg, pb->nodes, pb->gpn, &gap, err, sizeof err) ==
                NVS_OK) {
            gp = &gap;
            gap_n = pa->n;
        }
        series_args a = {ps, s, ns, gp, gap_n};
        rc = nvs_cm_render_and_emit(o, json, print_series_cb, &a,
                                    json ? nvs_model_json_series(ps, s, ns, gp, gap_n) : NULL);
    }
out:
    for (int i = 0; i < ns; i++) free(s[i].pts);
    if (have_prof) nvs_profile_free(&prof);
    free(gcopy);
    free(mcopy);
    return rc;
}
