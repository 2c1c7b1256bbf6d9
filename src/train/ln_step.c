/* The training step's LayerNorm buffers (ln_step.h). */
#include "train/ln_step.h"

#include <stdio.h>
#include <stdlib.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "core/log.h"
#include "train/ln_plan.h"

int nvs_ln_cols(const nvs_layer *ly) { return ly->ln_passes > 0 ? (int)(ly->params / 2) : 0; }

long long nvs_ln_rows(const nvs_layer *ly, int batch)
{
    int cols = nvs_ln_cols(ly);
    return cols > 0 ? (long long)(ly->act_elems / cols) * batch : 0;
}

static nvs_result_t ln_alloc(void **p, size_t bytes, const char *what)
{
    char w[96];
    const size_t b = bytes ? bytes : 256;
    cudaError_t e = cudaMalloc(p, b);
    if (e == cudaSuccess) return NVS_OK;
    *p = NULL;
    snprintf(w, sizeof w, "the LayerNorms' %s", what);
    return nvs_cuda_alloc_fail(b, w, e);
}

nvs_result_t nvs_ln_bufs_setup(nvs_ln_bufs *b, const nvs_train_plan *pl, nvs_sm_shape sm, cudaStream_t s)
{
    b->sm = sm;
    const int nl = pl->profile->nlayers;
    b->param_at = calloc(nl > 0 ? (size_t)nl : 1, sizeof *b->param_at);
    if (!b->param_at) return nvs_error("out of host memory for the LayerNorms' parameter offsets"), NVS_ERR_NOMEM;
    for (int l = 0; l < nl; l++) {
        const nvs_layer *ly = &pl->profile->layers[l];
        long long rows = nvs_ln_rows(ly, pl->batch);
        if (rows <= 0) continue;
        if (rows > b->rows) b->rows = rows;
        b->param_at[l] = b->params_floats;
        b->params_floats += nvs_ln_param_floats(nvs_ln_cols(ly));
        struct nvs_ln_plan lp;
        /* 4-byte elements: the most scratch either type asks (an fp32 LayerNorm under autocast) */
        if (nvs_ln_make_plan(rows, nvs_ln_cols(ly), 4, sm, &lp)) continue; /* the kernels refuse it, said then */
        if (lp.scratch_floats > b->scratch_floats) b->scratch_floats = lp.scratch_floats;
        if (lp.sems > b->nsems) b->nsems = lp.sems;
    }
    if (b->rows == 0) return NVS_OK;
    NVS_CHECK(ln_alloc((void **)&b->stats, 2 * (size_t)b->rows * sizeof(float), "row statistics"));
    /* finite statistics before the first forward writes them */
    CUDA_TRY(cudaMemsetAsync(b->stats, 0, 2 * (size_t)b->rows * sizeof(float), s));
    if (b->scratch_floats > 0)
        NVS_CHECK(ln_alloc((void **)&b->scratch, b->scratch_floats * sizeof(float), "partial sums"));
    if (b->nsems > 0) {
        NVS_CHECK(ln_alloc((void **)&b->sems, (size_t)b->nsems * sizeof(unsigned), "semaphores"));
        CUDA_TRY(cudaMemsetAsync(b->sems, 0, (size_t)b->nsems * sizeof(unsigned), s));
    }
    NVS_CHECK(ln_alloc((void **)&b->params, b->params_floats * sizeof(float), "weights and biases"));
    CUDA_TRY(cudaMemsetAsync(b->params, 0, b->params_floats * sizeof(float), s)); /* the biases: 0 */
    for (int l = 0; l < nl; l++) {
        int cols = nvs_ln_cols(&pl->profile->layers[l]);
        if (cols > 0 && nvs_ln_rows(&pl->profile->layers[l], pl->batch) > 0)
            CUDA_TRY(
                nvs_kern_axpb(b->params + b->param_at[l], (size_t)cols, NVS_ELEM_F32, 0.0f, 1.0f, s)); /* weights */
    }
    return NVS_OK;
}

void nvs_ln_params(const nvs_ln_bufs *b, int l, int cols, const float **gamma, const float **beta)
{
    *gamma = b->params + b->param_at[l];
    *beta = *gamma + nvs_ln_beta_at(cols);
}

void nvs_ln_bufs_free(nvs_ln_bufs *b)
{
    void *p[] = {b->stats, b->scratch, b->sems, b->params};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (p[i]) CUDA_CLEANUP(cudaFree(p[i]));
    b->stats = b->scratch = b->params = NULL;
    b->sems = NULL;
    free(b->param_at);
    b->param_at = NULL;
    b->params_floats = 0;
    b->rows = 0;
    b->scratch_floats = 0;
    b->nsems = 0;
}
