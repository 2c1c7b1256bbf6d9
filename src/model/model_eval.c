/* Evaluation of one what-if configuration at a GPU count (model_eval.h). PURE. */
#include "model/model_eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nvs_model_config_init(nvs_model_config *c)
{
    memset(c, 0, sizeof *c);
    c->prec = NVS_PREC_FP32;
    c->grad_bytes = 4;
    /* PyTorch DistributedDataParallel defaults: bucket_cap_mb=25, and a first bucket of 1 MiB
     * (torch/nn/parallel/distributed.py, dist._DEFAULT_FIRST_BUCKET_BYTES) */
    c->bucket_first_bytes = 1048576;
    c->bucket_cap_bytes = 25.0 * 1048576;
    c->algo = NVS_ALGO_RING;
    c->ct = nvs_compute_defaults();
    c->dp = -1;
    c->overlap_penalty = NVS_OVERLAP_BY_TRANSPORT;
}

nvs_dp_mode nvs_model_dp(const nvs_model_config *c)
{
    if (c->dp >= 0 && c->dp < NVS_DP_COUNT) return (nvs_dp_mode)c->dp;
    return c->profile ? c->profile->dp : NVS_DP_DDP;
}

void nvs_gpu_spec_from(const nvs_preset *p, nvs_gpu_spec *g)
{
    memset(g, 0, sizeof *g);
    g->id = p->id;
    g->fp32_tflops = p->f[NVS_G_FP32_TFLOPS].v;
    g->tf32_tflops = p->f[NVS_G_TF32_TFLOPS].v;
    g->bf16_tflops = p->f[NVS_G_BF16_TFLOPS].v;
    g->mem_gbps = p->f[NVS_G_MEM_GBPS].v;
    g->memory_bytes = p->f[NVS_G_MEMORY_BYTES].v;
    g->p2p_pcie = p->f[NVS_G_P2P_PCIE].v != 0;
    g->nvlink_links = (int)p->f[NVS_G_NVLINK_LINKS].v;
    g->nvlink_gbps_per_link = p->f[NVS_G_NVLINK_GBPS].v;
    g->nvlink_gen = (int)p->f[NVS_G_NVLINK_GEN].v;
    g->compute_capability = p->f[NVS_G_COMPUTE_CAP].v;
}

void nvs_machine_spec_from(const nvs_preset *p, nvs_machine_spec *m)
{
    memset(m, 0, sizeof *m);
    m->id = p->id;
    m->gpus = (int)p->f[NVS_M_GPUS].v;
    m->sockets = (int)p->f[NVS_M_SOCKETS].v;
    m->gpus_per_switch = (int)p->f[NVS_M_GPUS_PER_SWITCH].v;
    m->switch_cascade = (int)p->f[NVS_M_SWITCH_CASCADE].v;
    m->nvlink = (int)p->f[NVS_M_NVLINK].v;
    m->p2p_level = (int)p->f[NVS_M_P2P_LEVEL].v;
    m->p2p_by_rules = m->p2p_level < 0; /* no override in the preset: NCCL's rule (model.h) */
    m->cpu = (int)p->f[NVS_M_CPU].v;
    m->host_gbps = p->f[NVS_M_HOST_GBPS].v;
    m->xsocket_shm_cost = p->f[NVS_M_XSOCKET_SHM_COST].v;
    m->host_mem_gbps = p->f[NVS_M_HOST_MEM_GBPS].v;
    m->nvls_gbps = p->f[NVS_M_NVLS_GBPS].v;
    m->gpu_link_gbps = p->f[NVS_M_GPU_LINK_GBPS].v;
    m->uplink_gbps = p->f[NVS_M_UPLINK_GBPS].v;
    m->socket_gbps = p->f[NVS_M_SOCKET_GBPS].v;
    m->shm_gbps = p->f[NVS_M_SHM_GBPS].v;
    m->nvlink_eff = p->f[NVS_M_NVLINK_EFF].v;
    m->nvlink_hop_us = p->f[NVS_M_NVLINK_HOP_US].v;
    m->p2p_hop_us = p->f[NVS_M_P2P_HOP_US].v;
    m->shm_hop_us = p->f[NVS_M_SHM_HOP_US].v;
    m->coll_base_us = p->f[NVS_M_COLL_BASE_US].v;
    m->net_local_gbps = p->f[NVS_M_NET_LOCAL_GBPS].v;
    m->net_local_hop_us = p->f[NVS_M_NET_LOCAL_HOP_US].v;
    m->nics = (int)p->f[NVS_M_NICS].v;
}

void nvs_net_spec_from(const nvs_preset *p, nvs_net_spec *n)
{
    memset(n, 0, sizeof *n);
    n->id = p->id;
    n->gbps = p->f[NVS_N_GBPS].v;
    n->hop_us = p->f[NVS_N_HOP_US].v;
    n->sharp = p->f[NVS_N_SHARP].v != 0;
}

static const nvs_meas_link *measured_link(const nvs_model_config *c, int n)
{
    for (int i = 0; i < c->nmeas; i++)
        if (c->meas[i].n == n) return &c->meas[i];
    return NULL;
}

nvs_result_t nvs_model_ar_params(const nvs_model_config *c, int nodes, int gpn, nvs_ar_params *ar,
                                 nvs_ring_links *rl, int *measured, char *err, size_t errlen)
{
    memset(ar, 0, sizeof *ar);
    memset(rl, 0, sizeof *rl);
    *measured = 0;
    if (nodes < 1 || gpn < 1) {
        snprintf(err, errlen, "a job needs at least one node and one GPU per node");
        return NVS_ERR_INPUT;
    }
    if (gpn > c->machine.gpus) {
        snprintf(err, errlen, "%d GPUs per node: machine '%s' has %d", gpn, c->machine.id ? c->machine.id : "?",
                 c->machine.gpus);
        return NVS_ERR_INPUT;
    }
    if (nodes > 1 && !c->has_net) {
        snprintf(err, errlen, "%d nodes need a network between them (--net)", nodes);
        return NVS_ERR_INPUT;
    }
    ar->nodes = nodes;
    ar->gpn = gpn;
    ar->algo = c->algo;
    ar->per_call_us = c->per_call_us;
    ar->base_us = c->machine.coll_base_us;
    if (gpn >= 2) {
        const nvs_meas_link *m = measured_link(c, gpn);
        if (!m && c->machine.measured_only) {
            snprintf(err, errlen, "%d GPUs per node were not measured and no machine preset describes the links: "
                     "give --machine", gpn);
            return NVS_ERR_INPUT;
        }
        nvs_result_t r = nvs_ring_links_of(&c->machine, &c->gpu, gpn, nvs_model_off(c), rl);
        if (r != NVS_OK) {
            if (rl->why[0])
                snprintf(err, errlen, "%s: a machine preset gives it (net_local_gbps, from NCCL's all_reduce with "
                         "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1; --preset-file, docs/model.md)", rl->why);
            else
                snprintf(err, errlen, "the ring inside the node cannot be modelled");
            return r;
        }
        rl->link_gbps = c->machine.measured_only ? 0 : rl->gbps;
        if (m) {
            ar->base_us = m->base_us;
            ar->intra_alpha_us = m->alpha_us;
            ar->intra_gbps = m->gbps;
            rl->gbps = m->gbps;
            rl->alpha_us = m->alpha_us;
            *measured = 1;
        } else {
            ar->intra_alpha_us = rl->alpha_us;
            ar->intra_gbps = rl->gbps;
        }
    }
    /* NVLink SHARP only where the GPU can do it too, and never above its own NVLink (model.h) */
    ar->nvls_gbps = nvs_nvls_gbps(&c->machine, &c->gpu, NULL);
    if (nodes > 1) {
        ar->inter_alpha_us = c->net.hop_us;
        ar->inter_gbps = nvs_inter_gbps(&c->machine, &c->net, gpn);
        /* in-network reduction only when asked for (NCCL: NCCL_COLLNET_ENABLE=1 and the SHARP plugin) */
        ar->sharp = c->net.sharp && c->algo == NVS_ALGO_COLLNET;
    }
    return NVS_OK;
}

/* the framework runs its update so, and the optimizer is not the one asked for fused */
int nvs_model_opt_foreach(const nvs_model_config *c)
{
    return c->fw && c->fw->optimizer_foreach && !(c->opt == NVS_OPT_ADAMW && c->adamw_fused);
}

int nvs_model_max_batch(const nvs_model_config *c, nvs_mem_estimate *mem)
{
    const nvs_profile *p = c->profile;
    nvs_memory_estimate(p->layers, p->nlayers, p->total_params, &c->gpu, c->prec, c->grad_bytes, c->opt,
                        nvs_model_opt_foreach(c), mem);
    return mem->max_batch;
}

/* One step of configuration c on the host's and the GPU's lanes (nvs_schedule_lanes), as the training step issues
 * it under c->fw (train/step.c): nb = 0 the compute-only step (no reducer: DDP's no_sync()), else the full step
 * with its nb buckets, all-reduced in ar_us (NULL: the all-reduces take no time), and penalty_us of interference
 * on the GPU's lane. */
static nvs_result_t step_lanes(const nvs_model_config *c, const nvs_model_bucket *b, int nb, const double *ar_us,
                               double penalty_us, nvs_step_times *t)
{
    const nvs_profile *p = c->profile;
    const nvs_framework *fw = c->fw;
    const int n = p->nlayers, half = nvs_precision_info_of(c->prec)->half;
    const double hs = c->host_scale > 0 ? c->host_scale : 1;
    const double esz = (double)nvs_precision_bytes(c->prec), op = fw ? hs * fw->host_us_per_op : 0;
    const int scaler = fw && fw->grad_scaler && c->prec == NVS_PREC_FP16;
    const int copies = fw && fw->bucket_copy && nb > 0;
    double *v = calloc((size_t)n * 4, sizeof *v);
    nvs_lane_item *after = calloc((size_t)nb + 4, sizeof *after);
    double *zero = calloc((size_t)nb + 1, sizeof *zero);
    if (!v || !after || !zero) {
        free(v);
        free(after);
        free(zero);
        return NVS_ERR_NOMEM;
    }
    double *fwd = v, *bwd = v + n, *hf = v + 2 * n, *hb = v + 3 * n;
    /* the bias gradients in the framework's own reduction kernel where it has one, else cuBLAS's (framework.h) */
    nvs_compute_terms ct = c->ct;
    if (!(fw && fw->bias_reduce)) ct.bias_reduce_eff = 0;
    /* the copies through views element by element where the framework makes them so, else passes (framework.h) */
    if (!(fw && fw->view_copies)) ct.view_copy_eff = 0;
    for (int i = 0; i < n; i++) {
        const nvs_layer *ly = &p->layers[i];
        nvs_layer_us(ly, nvs_layer_no_input_grad(p, i), c->batch, &c->gpu, c->prec, &ct, &fwd[i], &bwd[i]);
        if (!fw) continue;
        hf[i] = op * nvs_framework_layer_ops(fw, p, i, 0, c->prec);
        hb[i] = ly->nograd ? 0 : op * nvs_framework_layer_ops(fw, p, i, 1, c->prec);
        /* cuDNN's host work per convolution it executes (framework.h host_us_per_conv_call): once forward, and in
         * the backward the input gradient (unless the layer needs none) and the weight gradient */
        if (ly->conv) {
            const double cv = hs * fw->host_us_per_conv_call;
            hf[i] += cv;
            if (!ly->nograd) hb[i] += cv * (nvs_layer_no_input_grad(p, i) ? 1 : 2);
        }
        /* cuDNN's layout transforms around a convolution at half precision, each a read and a write of the
         * layer's output (workload/framework.h) */
        if (half && ly->conv && ly->act_elems > 0 && !(c->conv_native && nvs_layer_has_geom(ly))) {
            double one = nvs_mem_pass_us(2.0 * ly->act_elems * c->batch * esz, &c->gpu, &c->ct);
            fwd[i] += fw->nchw_copies_fwd * one;
            if (!ly->nograd) bwd[i] += fw->nchw_copies_bwd * one;
        }
        /* autocast's weight casts (framework.h weight_casts): the layer's fp32 parameters read and written in 16 bits
         * before its forward GEMM; backward, its 16-bit gradients read and written in fp32 (the matrix and a bias,
         * nvs_framework_cast_split, as the training step casts them; bytes only: the launches of a bias's few
         * elements cost the GPU microseconds the bandwidth term does not see) */
        nvs_cast_split sp;
        const double cast = nvs_framework_cast_split(fw, ly, c->prec, &sp) ? sp.w_elems + sp.b_elems : 0;
        if (cast > 0) {
            double one = nvs_mem_pass_us(cast * (4.0 + esz), &c->gpu, &c->ct);
            fwd[i] += one;
            if (!ly->nograd) bwd[i] += one;
        }
        /* autocast's fp32 tensors (framework.h autocast_fp32): the ew32= passes at 4 bytes an element where
         * nvs_layer_us counted the step's precision, and the casts of an fp32 output to 16 bits (a read of 4 bytes
         * and a write of esz), each way */
        const double f32 = nvs_framework_ew32_passes(fw, ly, c->prec);
        /* a LayerNorm in its kernels among them: its accesses at 4 bytes too (nvs_ln_us) */
        const double ln32 = f32 > 0 && ly->ln_passes > 0 && ct.ln_eff > 0 ? ly->ln_passes : 0;
        if (f32 - ln32 > 0) {
            double one = nvs_mem_pass_us(2.0 * ly->act_elems * c->batch * (4.0 - esz), &c->gpu, &c->ct);
            fwd[i] += (f32 - ln32) * one;
            if (!ly->nograd) bwd[i] += 2.0 * (f32 - ln32) * one;
        }
        if (ln32 > 0) {
            double lf, lb;
            nvs_ln_us(ly, c->batch, &c->gpu, 4.0 - esz, &ct, &lf, &lb);
            fwd[i] += lf;
            bwd[i] += lb;
        }
        const double acasts = nvs_framework_act_casts(fw, ly, c->prec);
        if (acasts > 0) {
            double one = nvs_mem_pass_us(ly->act_elems * c->batch * (4.0 + esz), &c->gpu, &c->ct);
            fwd[i] += acasts * one;
            if (!ly->nograd) bwd[i] += acasts * one;
        }
        /* the reducer copies the layer's gradients into its bucket */
        if (copies && !ly->nograd && ly->params > 0)
            bwd[i] += nvs_mem_pass_us(2.0 * ly->params * c->grad_bytes, &c->gpu, &c->ct);
    }
    int na = 0;
    for (int k = 0; copies && k < nb; k++) /* and back into the gradients after the all-reduces, one operation each */
        after[na++] = (nvs_lane_item){op, nvs_mem_pass_us(2.0 * b[k].bytes, &c->gpu, &c->ct), 0};
    double grads = p->total_params * c->grad_bytes;
    /* fused AdamW takes the scaler's found_inf into its kernel: the check without a wait, one operation more
     * (framework.h nvs_framework_scaler_in_kernel; the training step does the same) */
    const int amp_fused = scaler && nvs_framework_scaler_in_kernel(fw, c->opt, c->adamw_fused);
    if (scaler) /* unscale_ (or the check alone) with its inf/NaN check, one pass; the host then waits for found_inf */
        after[na++] = (nvs_lane_item){op, nvs_mem_pass_us(2.0 * grads, &c->gpu, &c->ct), !amp_fused};
    /* the optimizer's host time as the training step spends it (framework.h), fused AdamW's found_inf operation */
    after[na++] = (nvs_lane_item){hs * nvs_framework_optimizer_host_us(fw, c->opt, nvs_model_opt_foreach(c),
                                                                       nvs_profile_optimizer_tensors(p)) +
                                      op * amp_fused,
                                  nvs_optimizer_us(p->total_params, c->grad_bytes, nvs_model_opt_foreach(c), c->opt,
                                                   &c->gpu, &c->ct),
                                  0};
    if (scaler) after[na++] = (nvs_lane_item){op, 0, 0}; /* the scale's update */
    /* DDP's buffer broadcast (framework.h) before the forward of the step with the reducer; not under no_sync(),
     * the compute-only step (train/step.c says why) */
    double buffers = fw && nb > 0 && nvs_model_dp(c) == NVS_DP_DDP
                         ? hs * fw->host_us_per_buffer_op * nvs_framework_buffer_ops(fw, p)
                         : 0;
    nvs_lanes l = {n, fwd, bwd, fw ? hf : NULL, fw ? hb : NULL, scaler ? 2 * op : 0, b, nb, ar_us ? ar_us : zero,
                   fw && nb > 0 ? hs * fw->reducer_us_per_bucket : 0, after, na, buffers, penalty_us};
    nvs_schedule_lanes(&l, t);
    free(v);
    free(after);
    free(zero);
    return NVS_OK;
}

/* 1 when the measured ring at gpn GPUs per node went over NCCL's sockets (nvs_meas_link.net) */
static int ml_net(const nvs_model_config *c, int gpn)
{
    const nvs_meas_link *ml = gpn >= 2 ? measured_link(c, gpn) : NULL;
    return ml && ml->net;
}

/* The point's transport (its ring's slowest hop; NET where the network binds or the measured ring went over
 * sockets) and its bottleneck's words. */
static void name_bottleneck(const nvs_model_config *c, int nodes, int gpn, nvs_dp_mode dp, int nbuckets,
                            int measured, const nvs_ar_params *ar, const nvs_ring_links *rl, nvs_algo largest_algo,
                            nvs_model_point *out)
{
    out->transport = gpn >= 2 ? rl->transport : NVS_TR_NONE;
    if (ml_net(c, gpn)) out->transport = NVS_TR_NET; /* the run's ring went over sockets, whatever the links are */
    out->cls = rl->cls;
    /* nothing all-reduced: no link or network binds anything, whatever the node's ring or NICs would do (the
     * words below named a link, or across nodes the network, for a row with no busbw and no algorithm) */
    if (out->n <= 1) {
        snprintf(out->bottleneck, sizeof out->bottleneck, "one GPU: nothing to all-reduce");
        return;
    }
    if (dp == NVS_DP_NONE) {
        snprintf(out->bottleneck, sizeof out->bottleneck, "no gradient all-reduce (dp none: independent replicas)");
        return;
    }
    if (nbuckets == 0) {
        snprintf(out->bottleneck, sizeof out->bottleneck,
                 "no gradients (no trainable parameters): nothing crosses a link");
        return;
    }
    if (gpn >= 2 && measured)
        snprintf(out->bottleneck, sizeof out->bottleneck, "measured ring at %d GPUs: %.3g GB/s", gpn, ar->intra_gbps);
    else if (gpn >= 2)
        snprintf(out->bottleneck, sizeof out->bottleneck, "%s", rl->why);
    /* across nodes the phases pipeline: the smaller bandwidth names the bottleneck, the node's ring (B_i) or
     * NVLS, or the node's NICs together (B_net) */
    int collnet = largest_algo == NVS_ALGO_COLLNET;
    int nvls = largest_algo == NVS_ALGO_NVLS || largest_algo == NVS_ALGO_NVLSTREE || (collnet && ar->nvls_gbps > 0);
    double node_bw = nvls ? ar->nvls_gbps * 2.0 * (gpn - 1) / gpn : ar->intra_gbps;
    double net_bw = ar->inter_gbps * (nodes == 2 && (largest_algo == NVS_ALGO_TREE || largest_algo == NVS_ALGO_NVLSTREE)
                                         ? 2 : 1);
    if (collnet) { /* compared as algbw: the switches reduce, each node sends its sum once */
        node_bw = nvls ? ar->nvls_gbps : ar->intra_gbps;
        net_bw = ar->inter_gbps;
    }
    if (nvls && collnet && node_bw < net_bw)
        snprintf(out->bottleneck, sizeof out->bottleneck,
                 "NVLink SHARP in the node (%.3g GB/s algbw per GPU), below the network's %.3g with SHARP",
                 ar->nvls_gbps, net_bw);
    else if (nvls && (nodes == 1 || node_bw < net_bw))
        snprintf(out->bottleneck, sizeof out->bottleneck,
                 "NVLink SHARP: the NVSwitch reduces, %.3g GB/s algbw per GPU (%d GPUs: busbw %.3g)", ar->nvls_gbps,
                 gpn, node_bw);
    else if (nodes > 1 && (gpn < 2 || !(node_bw > 0) || net_bw <= node_bw)) {
        out->transport = NVS_TR_NET;
        out->cls = -1;
        int nics = c->machine.nics > 0 ? c->machine.nics : 1, used = nvs_inter_nics(&c->machine, gpn);
        char what[112];
        /* more NICs than GPUs: the GPUs' own PCIe links bind (nvs_inter_gbps) */
        double per_nic = c->machine.gpu_link_gbps > 0 && c->machine.gpu_link_gbps < c->net.gbps
                             ? c->machine.gpu_link_gbps : c->net.gbps;
        if (ar->inter_gbps < used * per_nic * (1 - 1e-12))
            snprintf(what, sizeof what, "%d NIC%s, bound by the %s: %d x %.3g GB/s", used, used == 1 ? "" : "s",
                     gpn == 1 ? "GPU's PCIe link" : "GPUs' PCIe links", gpn, ar->inter_gbps / gpn);
        else
            snprintf(what, sizeof what, "%d NIC%s%s x %.3g GB/s", used, used == 1 ? "" : "s",
                     used < nics ? (gpn == 1 ? " (the one beside its GPU)" : " (those beside its GPUs)") : "",
                     per_nic);
        snprintf(out->bottleneck, sizeof out->bottleneck, "network %s: %s = %.3g GB/s per node%s",
                 c->net.id ? c->net.id : "?", what, ar->inter_gbps,
                 collnet ? " (SHARP: each node sends its sum once)"
                 : net_bw > ar->inter_gbps ? " (x2 on 2 nodes: half the tree's traffic crosses it)" : "");
    }
}

nvs_result_t nvs_model_eval(const nvs_model_config *c, int nodes, int gpn, nvs_model_point *out, char *err,
                            size_t errlen)
{
    memset(out, 0, sizeof *out);
    const nvs_profile *p = c->profile;
    if (!p || p->nlayers <= 0 || c->batch < 1) {
        snprintf(err, errlen, "no model profile or no batch");
        return NVS_ERR_INPUT;
    }
    nvs_ar_params ar;
    nvs_ring_links rl;
    int measured = 0;
    NVS_CHECK(nvs_model_ar_params(c, nodes, gpn, &ar, &rl, &measured, err, errlen));

    int maxb = p->nlayers + 1;
    nvs_model_bucket *b = malloc((size_t)maxb * sizeof *b);
    double *arus = malloc((size_t)maxb * sizeof *arus);
    if (!b || !arus) {
        free(b);
        free(arus);
        snprintf(err, errlen, "out of memory");
        return NVS_ERR_NOMEM;
    }
    nvs_dp_mode dp = nvs_model_dp(c);
    int nb = 0;
    if (dp == NVS_DP_DDP)
        nb = nvs_assign_buckets(p->layers, p->nlayers, c->grad_bytes, c->bucket_first_bytes, c->bucket_cap_bytes, b,
                                maxb);
    else if (dp == NVS_DP_DELAY && p->total_params > 0) {
        /* apex delay_allreduce=True: after backward, the gradients of one type flattened into one all-reduce
         * (apex/parallel/distributed.py allreduce_fallback): one bucket, ready when backward ends (layer 0) */
        b[0] = (nvs_model_bucket){p->total_params * c->grad_bytes, p->nlayers - 1, 0, p->nlayers};
        nb = 1;
    } /* none: independent replicas, nothing to all-reduce */
    double largest = 0;
    nvs_algo largest_algo = NVS_ALGO_RING;
    for (int k = 0; k < nb; k++) {
        nvs_algo used;
        arus[k] = nvs_allreduce_us(&ar, b[k].bytes, &used);
        if (b[k].bytes > largest) {
            largest = b[k].bytes;
            largest_algo = used;
        }
    }
    out->n = nodes * gpn;
    name_bottleneck(c, nodes, gpn, dp, nb, measured, &ar, &rl, largest_algo, out);
    /* interference: the compute and the all-reduces beside it contend for SMs and memory (NCCL's kernels); the
     * lane on the step's critical path is slowed, by a share of their overlap per transport
     * (model/interference.h) unless the configuration sets its own. Where the GPU waits for the host, the
     * overlap is only its busy time: slack absorbs the rest. */
    /* Across nodes the share stays the node's transport's even where the network binds the rate (transport NET):
     * every chunk still crosses the node on NVLink, P2P or SHM in the same NCCL kernel (src/device/all_reduce.h:
     * one kernel per algorithm, the NIC side driven by the proxy thread), so its CTAs hold the GPU's SMs and
     * memory for the whole all-reduce. NET's share was fitted on sockets between two GPUs of one box (2 channels,
     * ~3.4 GB/s: interference.c), where the kernel mostly waits; charged on an NVLink node behind a 384 GB/s
     * network it made 8 x 8 GPUs scale better than one node (94.6 -> 99.2 %) and a faster network lower the
     * efficiency (EDR -> HDR at 2 x 2 H100: 97.4 -> 91.6 %), the share jumping from 0.021 to 0.675 when the
     * bottleneck moved back into the node (tests/unit/test_model_props.c). */
    out->share_transport = gpn >= 2 && !ml_net(c, gpn) ? rl.transport : out->transport;
    out->interference_share =
        out->n > 1 && nb > 0 ? nvs_interference_share(c->overlap_penalty, out->share_transport, rl.link_gbps) : 0;
    /* the step without the reducer (compute), with it but no communication (the reducer's cost), whole without
     * interference (the exposed comm; its overlap), and whole: the interference, share x overlap, scheduled on the
     * GPU's lane, so that it lengthens the step only as far as the GPU's lane ends it. Added to the step after the
     * schedule, a step the host's lane ended paid it in full beside the GPU's slack, and where a faster link had
     * the larger share (interference.c) such a step got slower with the faster link: a100-sxm @ hgx-a100-8,
     * resnet50 bf16, batch 1, N 4, every link twice as fast, SGD costed at its 3 foreach calls: 22528.7 ->
     * 22532.5 us (test_model_props.c P8). */
    nvs_step_times compute, quiet, bare;
    nvs_result_t r = step_lanes(c, b, 0, NULL, 0, &compute);
    if (r == NVS_OK) r = step_lanes(c, b, nb, NULL, 0, &quiet);
    if (r == NVS_OK) r = step_lanes(c, b, nb, arus, 0, &bare);
    if (r == NVS_OK) r = step_lanes(c, b, nb, arus, out->interference_share * bare.overlap_us, &out->t);
    free(b);
    free(arus);
    if (r != NVS_OK) {
        snprintf(err, errlen, "out of memory");
        return r;
    }
    out->t.compute_us = compute.step_us;
    out->t.reducer_us = quiet.step_us - compute.step_us > 0 ? quiet.step_us - compute.step_us : 0;
    out->t.exposed_us = bare.step_us - out->t.compute_us - out->t.reducer_us;
    if (out->t.exposed_us < 0) out->t.exposed_us = 0;
    /* what the interference added: share x overlap where the GPU's lane ends the step, less where the host's does */
    out->t.penalty_us = out->t.step_us - bare.step_us;
    double step1 = quiet.step_us; /* at one GPU every all-reduce is empty: compute + reducer */
    out->dp = dp;

    out->nodes = nodes;
    out->gpn = gpn;
    out->step1_us = step1;
    out->nbuckets = nb;
    out->largest_bucket_bytes = largest;
    out->algo_used = largest_algo;
    out->allreduce_busbw = largest > 0 ? nvs_allreduce_busbw(&ar, largest, NULL) : 0;
    out->intra_gbps = gpn >= 2 ? ar.intra_gbps : 0;
    out->intra_alpha_us = gpn >= 2 ? ar.intra_alpha_us : 0;
    out->inter_gbps = nodes > 1 ? ar.inter_gbps : 0;
    out->link_measured = measured;
    if (c->step_cv > 0 && nb > 0 && out->n > 1) {
        /* every all-reduce waits for the slowest rank's backward; without one (dp none, no trainable parameters:
         * 0 buckets) no rank waits for another (was charged at 0 buckets under ddp: 89 % at 8 GPUs, --step-cv 0.1) */
        out->t.sync_us = c->step_cv * (out->t.fwd_us + out->t.bwd_us) * nvs_expected_max_normal(out->n);
        out->t.step_us += out->t.sync_us;
    }
    out->efficiency = out->t.step_us > 0 ? out->step1_us / out->t.step_us : 0;
    out->samples_per_s = out->t.step_us > 0 ? out->n * (double)c->batch / (out->t.step_us * 1e-6) : 0;
    return NVS_OK;
}
