/* The training phase (phase_train.c): one workload loaded (rank 0 reads the profile, every rank gets its layers),
 * planned, given its executor and sized against every rank's free memory, refused up front when it does not fit. */
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "run/phase_train_priv.h"
#include "run/run.h"
#include "train/train.h"
#include "train/conv_cudnn.h"
#include "train/train_exec.h"

/* The profile's text travels from rank 0 so that a user's file need exist only where rank 0 runs. */
static nvs_result_t load_profile(nvs_ctx *run, const char *model, nvs_profile *p)
{
    char err[512] = "";
    nvs_result_t res = NVS_OK;
    if (run->rt->rank == 0) {
        res = nvs_profile_load(model, p, err, sizeof err);
        if (res != NVS_OK) nvs_error("%s", err);
    }
    double ok = res == NVS_OK;
    NVS_CHECK(nvs_allreduce_f64(run->rt, &ok, 1, NVS_RT_MIN, "loading the model profile"));
    if (!ok) return res != NVS_OK ? res : NVS_ERR_INPUT;
    /* ship the parsed layers: a fixed header and the layer array */
    struct {
        char name[64], source[256], sample[128];
        int default_batch, nlayers;
    } hdr;
    memset(&hdr, 0, sizeof hdr);
    if (run->rt->rank == 0) {
        memcpy(hdr.name, p->name, sizeof hdr.name);
        memcpy(hdr.source, p->source, sizeof hdr.source);
        memcpy(hdr.sample, p->sample, sizeof hdr.sample);
        hdr.default_batch = p->default_batch;
        hdr.nlayers = p->nlayers;
    }
    NVS_CHECK(nvs_bcast(run->rt, &hdr, sizeof hdr, 0, "model profile"));
    if (run->rt->rank != 0) {
        memset(p, 0, sizeof *p);
        memcpy(p->name, hdr.name, sizeof p->name);
        memcpy(p->source, hdr.source, sizeof p->source);
        memcpy(p->sample, hdr.sample, sizeof p->sample);
        p->default_batch = hdr.default_batch;
        p->nlayers = hdr.nlayers;
        p->layers = calloc((size_t)hdr.nlayers, sizeof *p->layers);
        if (!p->layers) return NVS_ERR_NOMEM;
    }
    NVS_CHECK(nvs_bcast(run->rt, p->layers, (size_t)hdr.nlayers * sizeof *p->layers, 0, "model profile layers"));
    p->total_params = p->fwd_flops_per_sample = 0;
    for (int l = 0; l < p->nlayers; l++) {
        p->total_params += p->layers[l].params;
        p->fwd_flops_per_sample += nvs_layer_fwd_flops(&p->layers[l]);
    }
    return NVS_OK;
}

/* Load, plan and size one workload on every rank, and refuse (one message, from rank 0, NVS_ERR_USAGE) what does
 * not fit in the smallest free memory of any rank. *have_exec says whether x needs its teardown. */
nvs_result_t nvs_pt_prepare(nvs_ctx *run, const char *model, nvs_profile *prof, nvs_train_plan *plan,
                            nvs_train_exec *x, int *have_exec, double *free_min_out)
{
    const nvs_config *cfg = run->cfg;
    nvs_rt *rt = run->rt;
    *have_exec = 0;
    NVS_CHECK(load_profile(run, model, prof));
    int batch = cfg->batch ? cfg->batch : prof->default_batch;
    if (batch < 1) batch = 1;
    NVS_CHECK(nvs_train_plan_make(prof, batch, cfg->precision, cfg->grad_bf16, cfg->bucket_first_bytes,
                                  cfg->bucket_cap_bytes, plan));
    nvs_train_plan_set_framework(plan, nvs_framework_find(cfg->framework));
    nvs_train_plan_set_optimizer(plan, (nvs_optimizer)cfg->optimizer, cfg->optimizer_fused);
    x->plan = plan;
    x->backend = &run->backend;
    x->cudnn_mode = (nvs_cudnn_mode)cfg->cudnn;
    const int gpu = !strcmp(run->backend.ops->name, "nccl");
    if (!gpu && cfg->cudnn == NVS_CUDNN_ON) {
        if (rt->rank == 0)
            nvs_error("--cudnn on: the %s backend runs the training step on the CPU, where the convolutions are "
                      "GEMMs; cuDNN needs the GPUs (NCCL backend)", run->backend.ops->name);
        return NVS_ERR_USAGE;
    }
    if (gpu && cfg->cudnn == NVS_CUDNN_ON && nvs_cudnn_layers(prof, cfg->precision, NULL, NULL, NULL)) {
        /* refused before anything is measured */
        char why[320];
        if (nvs_cudnn_probe(why, sizeof why) != NVS_OK) {
            if (rt->rank == 0) nvs_error("--cudnn on: cuDNN cannot run the convolutions and batch norms: %s", why);
            return NVS_ERR_UNSUPPORTED;
        }
    }
    NVS_CHECK(gpu ? nvs_train_exec_gpu(x) : nvs_train_exec_host(x));
    *have_exec = 1; /* teardown frees whatever setup got to */

    /* refuse up front what does not fit, naming the bytes needed and available: the smallest free memory of
     * any rank, and whose it is. The host executor's ranks on one machine share its memory (MemAvailable), each
     * allocating a whole plan: what counts is each rank's share of it. */
    double free_bytes = 0;
    NVS_CHECK(x->ops->memory(x, &free_bytes));
    const int sharing = gpu ? 1 : (rt->machine.local_size > 1 ? rt->machine.local_size : 1);
    double free_min = free_bytes, share_min = free_bytes / sharing, who = rt->rank;
    NVS_CHECK(nvs_allreduce_f64(rt, &free_min, 1, NVS_RT_MIN, "training memory check"));
    NVS_CHECK(nvs_allreduce_f64(rt, &share_min, 1, NVS_RT_MIN, "training memory check"));
    if (free_bytes / sharing != share_min) who = -1;
    NVS_CHECK(nvs_allreduce_f64(rt, &who, 1, NVS_RT_MAX, "training memory check"));
    double who_free = who == rt->rank ? free_bytes : 0, who_sharing = who == rt->rank ? sharing : 0;
    NVS_CHECK(nvs_allreduce_f64(rt, &who_free, 1, NVS_RT_MAX, "training memory check"));
    NVS_CHECK(nvs_allreduce_f64(rt, &who_sharing, 1, NVS_RT_MAX, "training memory check"));
    *free_min_out = free_min;
    if (plan->total_bytes <= share_min * 0.95) return NVS_OK; /* 5% headroom: NCCL and cuBLAS allocate too */
    if (rt->rank == 0) {
        const nvs_rank_info *ri = who >= 0 && who < rt->size && run->ranks ? &run->ranks[(int)who] : NULL;
        char all[96] = "";
        if (who_sharing > 1)
            snprintf(all, sizeof all, ", %.2f GiB for the %d ranks on its machine,",
                     plan->total_bytes * who_sharing / 1073741824.0, (int)who_sharing);
        /* every part plan->total_bytes counts (train_plan.c), so that the list adds up to it; the framework's
         * parts only where it has them */
        char extra[160] = "";
        int ne = 0;
        if (plan->bucket_bytes > 0)
            ne += snprintf(extra + ne, sizeof extra - ne, ", bucket copies %.2f", plan->bucket_bytes / 1073741824.0);
        if (plan->buffer_bytes > 0 && ne < (int)sizeof extra)
            ne += snprintf(extra + ne, sizeof extra - ne, ", buffers %.2f", plan->buffer_bytes / 1073741824.0);
        if (plan->f32_bytes > 0 && ne < (int)sizeof extra)
            snprintf(extra + ne, sizeof extra - ne, ", fp32 copies %.2f", plan->f32_bytes / 1073741824.0);
        nvs_error("%s at batch %d (%s) needs %.2f GiB per %s%s (weights %.2f, fp32 state %.2f, gradients %.2f, "
                  "activations %.2f, workspace %.2f%s GiB)%s but rank %d (%s%s%s) has %.2f GiB free: %s",
                  prof->name, batch, nvs_precision_name(cfg->precision), plan->total_bytes / 1073741824.0,
                  x->ops->name, who_sharing > 1 ? " rank" : "", plan->weight_bytes / 1073741824.0,
                  plan->master_bytes / 1073741824.0, plan->grad_bytes / 1073741824.0,
                  plan->act_bytes / 1073741824.0, plan->workspace_bytes / 1073741824.0, extra, all, (int)who,
                  ri ? ri->host : "?", ri && ri->pci_bus_id[0] ? ", GPU " : "",
                  ri && ri->pci_bus_id[0] ? ri->pci_bus_id : "", who_free / 1073741824.0,
                  batch > 1 ? "lower --batch" : "it does not fit even at batch 1 (a smaller model, or more memory)");
    }
    return NVS_ERR_USAGE;
}
