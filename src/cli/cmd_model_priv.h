/* PRIVATE to src/cli/: what nvscale model's files share; no other folder includes this header (commands.h has
 * cmd_model).
 *   cmd_model.c            the options, their checks across modes, the presets, the choice of mode
 *   cmd_model_config.c     flags -> a configuration (settings, batch), its GPU counts and its evaluation
 *   cmd_model_project.c    the projection (--gpu x --machine over N) and the gap between two GPUs
 *   cmd_model_lambda.c     --lambda [--fit]
 *   cmd_model_calibrate.c  --calibrate RUN.json (host check, projection, --tolerance)
 *   cmd_model_out.c        the output, rendered in memory and written whole or not at all */
#ifndef NVS_CMD_MODEL_PRIV_H
#define NVS_CMD_MODEL_PRIV_H

#include <jansson.h>
#include <stdio.h>

#include "cli/cli_common.h"
#include "model/model_out.h" /* nvs_model_series; the model and preset types */

#define MAX_LIST 64          /* entries of a --gpus / --nodes list */
#define MAX_CONFIGS 16       /* --gpu x --machine */
#define MAX_PRESET_FILES 16
#define MAX_TOTAL_GPUS 65536 /* a what-if, not a census: beyond this the alpha-beta model says nothing new */
#define MAX_BATCH NVS_MODEL_MAX_BATCH /* model.h: the bound --batch max has too */

/* a usage error: one message and the help hint (cli_common.h) */
#define usage_error(...) nvs_cli_usage("model", __VA_ARGS__)

/* The options as given (NULL: not given); checked where they are used. */
typedef struct {
    const char *gpu, *machine, *model, *batch, *gpus, *nodes, *gpn, *net, *precision, *grad, *algo, *p2p, *shm;
    const char *bucket_first, *bucket_cap, *calibrate, *format, *output, *tolerance, *overlap;
    const char *nccl, *dp, *step_cv, *host_mem, *framework, *optimizer;
    const char *output_flag; /* -o or --output, as given: for messages */
    const char *preset_files[MAX_PRESET_FILES];
    int npreset_files;
    int lambda, list, fit, pairs;
} opts;

/* cmd_model_config.c: each returns 0, or the exit code after its one message */
int nvs_cm_common_settings(const opts *o, const nvs_presets *ps, nvs_model_config *c);
int nvs_cm_set_batch(const opts *o, nvs_model_config *c, nvs_mem_estimate *mem);
int nvs_cm_eval_series(const opts *o, nvs_model_series *s);
const char *nvs_cm_projection_setting(const opts *o);
const char *nvs_cm_projection_flag(const opts *o);

/* cmd_model_out.c: print(f, arg) into memory for a table, or the JSON document (taken), to stdout or --output */
int nvs_cm_render_and_emit(const opts *o, int json, void (*print)(FILE *, const void *), const void *arg,
                           json_t *doc);

/* the modes: the command's exit code */
int nvs_cm_project(const opts *o, const nvs_presets *ps, int json);
int nvs_cm_lambda(const opts *o, const nvs_presets *ps, int json);
int nvs_cm_calibrate(const opts *o, const nvs_presets *ps, int json);

#endif
