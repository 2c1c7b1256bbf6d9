/* Model profiles for the synthetic training step and the what-if model: per layer, in forward order, the
 * parameters and the forward GEMM per sample. Profiles are data: text in the format below, built into the
 * binary (src/workload/profiles/<name>.c, one per model, each citing its source) or read from a user's file.
 *
 *   nvscale-profile 1
 *   name resnet50
 *   source "torchvision resnet50 (He et al. 2016, Table 1), 224x224 input"
 *   sample "one 224x224 RGB image"
 *   batch 64                                   # default per-GPU batch
 *   dp ddp                                     # data-parallel mode: ddp | delay | none (below; default ddp)
 *   layer conv1 params=9408 gemm=12544,64,147 act=802816 ew=3
 *   repeat 3                                   # the block up to the matching `end`, 3 times
 *     layer ...
 *   end
 *
 * gemm=M,N,K is the forward matrix product per sample (2*M*N*K FLOPs; M = output pixels or tokens, N = output
 * features, K = reduction); a layer without one (embedding, norm) omits it. act = elements of the layer's
 * output per sample; ew = memory-bound forward passes over that output (batch-norm, activation, residual add,
 * softmax), each reading and writing it once. The backward pass runs two GEMMs of the forward's size (input
 * and weight gradients) and 2*ew passes.
 *
 * Optional, what an eager framework (PyTorch) dispatches for the layer, for the framework's host cost
 * (src/workload/framework.h; tools/gen_profiles.py writes them for the built-in profiles): ops=F,B = operations in
 * the forward and the backward pass (a convolution's backward is one operation, a linear layer's two matrix
 * products and a bias sum three), casts=C = tensors autocast casts to bf16/fp16 for it, tensors=T = parameter
 * tensors. Without them the training step counts its own kernels as operations, a GEMM layer's parameter
 * tensors as casts, and 2 tensors (weight, bias) per layer with parameters. ops, casts and tensors are whole
 * numbers up to 10000; tensors at most params; a nograd layer has no backward operations. conv=1 says the layer's
 * GEMM is a convolution's implicit GEMM (a layer with gemm= only); without it, a matrix product.
 * conv2d=H,W,R,S,U,P (implies conv=1) gives that convolution's geometry, in cuDNN's names: an input of H x W
 * pixels, an R x S filter, stride U and zero padding P on every side, dilation 1, one group. It must agree with
 * the GEMM: K = C * R * S for a whole number of input channels C, N = output channels, M = Hout * Wout with
 * Hout = (H + 2P - R) / U + 1 (Wout the same with W, S). With it, the GPU step can run the convolution itself
 * (cuDNN, src/train/conv_cudnn.h); without it, the implicit GEMM stands for the convolution.
 * bn=B says the layer is a 2-d batch norm over its output (C = params / 2 channels, act = C * pixels), B of its
 * ew passes being the norm's own (the rest: the ReLU, residual add that follow it). The GPU step may run those
 * in cuDNN's batch norm, as PyTorch does at fp32 and fp16; elsewhere they are passes like the others.
 * ln=L says the layer is a LayerNorm over the last dimension of its output (params / 2 features, act a whole number
 * of rows of them), L of its ew passes being the norm's own (the rest: what follows it, a dropout). The GPU step
 * runs those in LayerNorm kernels launched as PyTorch launches its own (src/train/ln_kernels.h): forward one kernel,
 * backward the input gradient and the weight and bias gradients (in place of the layer's gradient pass); in fp32
 * when the layer's ew32= runs over fp32 data (autocast runs layer_norm in fp32: then ew32 >= L), else at the
 * step's precision; elsewhere they are passes like the others.
 * ew32=F says F of the layer's ew passes (not a batch norm's own) run over fp32 data where an autocasting framework
 * runs the step at bf16/fp16: PyTorch's autocast runs layer_norm in fp32, and adding a half-precision output to an
 * fp32 tensor (the residual stream that an fp32 LayerNorm or embedding starts) gives fp32 (torch/amp autocast
 * op lists; type promotion). Under such a framework (framework.h autocast_fp32) the step runs those F passes, and
 * their 2F backward, at 4 bytes per element, and a layer without a GEMM that says ew32= and casts=C has its fp32
 * output cast to 16 bits C times forward (for the GEMM that reads it) and the cast's gradient back C times.
 * ewb=B adds B memory-bound passes over the output in the backward pass only, at the step's precision, beyond its
 * 2 ew: what autograd does to assemble the gradient of an output used through several views (nn.MultiheadAttention
 * splits its packed q/k/v projection into three views; their gradients are zero-filled tensors of the whole
 * output, a write each, summed by two adds, two reads and a write each: 3 x 0.5 + 2 x 1.5 = 4.5 passes). Any
 * framework runs them: they are how the model's backward is computed, not a framework's host cost.
 * perm=P says P of the layer's ew passes (at the step's precision: not its ew32=, nor a batch norm's own) are
 * copies through a permuted view, forward, and P of its 2 ew their gradients copied back: nn.MultiheadAttention
 * with batch_first works on a (sequence, batch) view of its input, so its head split and merge copy a tensor whose
 * batch and sequence dimensions are swapped (F.multi_head_attention_forward's .contiguous() calls). A layer with
 * a GEMM only: the view swaps the batch with the GEMM's M rows. Under a framework that copies through views
 * element by element (framework.h view_copies: PyTorch's TensorIterator) the step runs them so; elsewhere they are
 * passes like the others.
 *
 * Rules (src/workload/profile.c enforces them; docs/profiles.md is the user guide): the header line comes first; name
 * ([A-Za-z0-9._-], < 64 chars) and source are required, sample (default "one sample"), batch (default 1) and
 * dp (default ddp) optional; at least one layer. Numbers are plain or scientific decimals (4096, 2.5e7), never
 * negative, never with K/M suffixes; params, act and gemm are whole numbers, gemm has exactly 3 values >= 1, ew may be
 * fractional (1.5 = three accesses of the output). A layer needs at least one of params, gemm, act (not zero), and
 * act when it has ew; the profile some work (params, a GEMM or ew passes somewhere); nograd=1 (no backward: a
 * frozen stem autograd never reaches) only on a prefix of the layers and without params. repeat N (1..100000)
 * blocks nest 8 deep; at most NVS_PROFILE_MAX_LAYERS layers in all.
 * FLOPs count 2 per multiply-add. */
#ifndef NVS_PROFILE_H
#define NVS_PROFILE_H

#include <stddef.h>

#include "core/err.h"

/* Limits of the parser (src/workload/profile.c): layers after expanding every repeat block, and the size of a profile
 * file (a profile with repeat blocks is a few KB; 16 MiB leaves room for one written out flat). */
#define NVS_PROFILE_MAX_LAYERS 100000
#define NVS_PROFILE_MAX_FILE_BYTES (16 << 20)

typedef struct {
    char name[64];
    double params;              /* trainable parameters: gradient elements all-reduced */
    double gemm_m, gemm_n, gemm_k; /* per sample; 0,0,0 = no GEMM */
    double act_elems;           /* output activation elements per sample */
    double ew_passes;           /* memory-bound forward passes over the output */
    double bn_passes;           /* bn=: of those, a 2-d batch norm's own (0: not a batch norm) */
    double ln_passes;           /* ln=: of those, a LayerNorm's own over rows of params / 2 (0: not one) */
    double ew32_passes;         /* ew32=: of those, the passes autocast runs over fp32 data (0: none) */
    double ewb_passes;          /* ewb=: passes over the output in the backward pass only, beyond its 2 ew */
    double perm_passes;         /* perm=: of the ew passes, copies through a (batch, rows)-swapped view; as many
                                 * of the 2 ew backward */
    int nograd;                 /* 1: autograd never reaches the layer (a frozen stem): no backward, nothing
                                 * saved for it; only a prefix of the layers, without params */
    int conv;                   /* conv=1: the GEMM is a convolution (cuDNN), not a matrix product: a framework
                                 * that keeps NCHW tensors has them transposed around it at half precision
                                 * (src/workload/framework.h) */
    /* conv2d=H,W,R,S,U,P: the convolution's geometry (all 0 when not given; conv is then 1); the input channels
     * are gemm_k / (r * s), the output channels gemm_n */
    struct {
        int h, w, r, s, stride, pad;
    } geom;
    /* What an eager framework dispatches for the layer (optional keys; -1 = not given, and the training step's
     * framework model supplies its default, src/train/step.c): */
    double ops_fwd, ops_bwd;    /* ops=F,B: operations in the forward and the backward pass at full precision */
    double casts;               /* casts=C: tensors autocast casts to half precision for it (one operation
                                 * forward and one backward each) */
    double tensors;             /* tensors=T: parameter tensors (each gets a reducer hook in DDP) */
} nvs_layer;

/* How the workload's training script synchronises gradients (the `dp` directive):
 *   ddp    PyTorch DistributedDataParallel / apex DDP (delay_allreduce=False): gradients in buckets, each
 *          all-reduced as soon as backward has produced it, overlapping the rest of backward (the default)
 *   delay  apex DistributedDataParallel(delay_allreduce=True): one all-reduce of every gradient after backward,
 *          no overlap (NVIDIA DeepLearningExamples' Mask R-CNN)
 *   none   no gradient all-reduce: independent replicas (a script run without --multi_gpu) */
typedef enum { NVS_DP_DDP = 0, NVS_DP_DELAY, NVS_DP_NONE, NVS_DP_COUNT } nvs_dp_mode;

const char *nvs_dp_name(nvs_dp_mode m); /* "ddp" / "delay" / "none" */
int nvs_dp_parse(const char *s, nvs_dp_mode *out); /* 0, or -1 when s is none of them */

typedef struct {
    char name[64];
    char source[256];
    char sample[128];
    int default_batch;
    nvs_dp_mode dp;             /* data-parallel mode of the workload (default ddp) */
    int nlayers;
    nvs_layer *layers; /* forward order */
    double total_params;
    double fwd_flops_per_sample;
} nvs_profile;

/* Load a built-in profile by name, or a profile file by path (a name containing '/' or ending in .prof, or an
 * existing file). On a bad file: NVS_ERR_INPUT and `err` holds "FILE:LINE: what is wrong". */
nvs_result_t nvs_profile_load(const char *name_or_path, nvs_profile *p, char *err, size_t errlen);
/* 1 when nvs_profile_load takes NAME_OR_PATH as a built-in profile (no file is read), else 0. */
int nvs_profile_is_builtin(const char *name_or_path);
/* Parse profile text; `origin` names it in error messages. */
nvs_result_t nvs_profile_parse(const char *text, const char *origin, nvs_profile *p, char *err, size_t errlen);
void nvs_profile_free(nvs_profile *p);

/* NULL-terminated list of built-in profile names. */
const char *const *nvs_profile_builtin_names(void);

/* A layer whose convolution geometry is known (conv2d=): its input channels and output size. */
static inline int nvs_layer_has_geom(const nvs_layer *l) { return l->geom.r > 0; }
static inline int nvs_layer_geom_out(int in, int win, int stride, int pad) { return (in + 2 * pad - win) / stride + 1; }
/* its input channels (K = C * R * S) */
static inline double nvs_layer_geom_channels(const nvs_layer *l) { return l->gemm_k / ((double)l->geom.r * l->geom.s); }

static inline double nvs_layer_fwd_flops(const nvs_layer *l) { return 2.0 * l->gemm_m * l->gemm_n * l->gemm_k; }

/* A GEMM layer whose parameters are its N x K matrix and a bias of N (params = N*K + N): the bias's elements, N,
 * whose gradient backward sums the output gradient over its M rows (a read of it: PyTorch's Linear backward runs
 * that sum as a reduction kernel of its own, 72 per lm290m step: results/h200x1-tfm-census2); else 0. */
static inline double nvs_layer_bias_elems(const nvs_layer *l)
{
    return l->gemm_m > 0 && l->params > 0 && l->params == l->gemm_n * l->gemm_k + l->gemm_n ? l->gemm_n : 0;
}

#endif
