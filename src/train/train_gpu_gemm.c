/* The GPU executor's matrix products: each layer's GEMMs in cuBLAS, called as PyTorch's nn.Linear calls them
 * (its convolution in cuDNN instead where train_gpu_cudnn.c planned it), the bias gradients (cuBLAS, or the
 * framework's own reduction: train/reduce_kernels.h), and autocast's casts of the weights the GEMMs read and of
 * their gradients back into the gradients' type. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <limits.h>

#include "collectives/kernels.h"
#include "core/gpu_check.h"
#include "core/log.h"
#include "train/conv_cudnn.h"
#include "train/reduce_kernels.h"
#include "train/train_exec.h"
#include "train/train_gpu_priv.h"
#include "workload/framework.h"

/* Whether cuBLAS can write a product of the step's operands in the gradients' type: fp32 from any operands, bf16
 * from bf16 ones (else the product goes through fp32 scratch and a cast) */
static int blas_writes_grads(const nvs_train_plan *pl) { return pl->grad_bf16 ? elem_of(pl) == NVS_ELEM_BF16 : 1; }

/* The launches in which autocast casts layer ly's 16-bit gradients back into the fp32 gradients, one per tensor
 * (framework.h nvs_framework_cast_split): its weight's pieces (bias = 0) or its bias's; 0 where nothing is cast back
 * (fp32, bf16 gradients, a framework without weight casts, no such tensor) */
static int grad_cast_pieces(const nvs_train_plan *pl, const nvs_layer *ly, int bias)
{
    nvs_cast_split sp;
    if (pl->grad_bf16 || !nvs_framework_cast_split(pl->framework, ly, pl->precision, &sp)) return 0;
    return bias ? sp.b_pieces : sp.w_pieces;
}

static cudaDataType_t cuda_type_of(int elem)
{
    return elem == NVS_ELEM_BF16 ? CUDA_R_16BF : elem == NVS_ELEM_F16 ? CUDA_R_16F : CUDA_R_32F;
}

/* A cast of `elems` elements as `pieces` launches (0: one), one per tensor autocast casts (framework.h
 * nvs_framework_cast_split); element sizes from the types */
static nvs_result_t convert_pieces(const void *src, int src_el, void *dst, int dst_el, double elems, int pieces,
                                   cudaStream_t s)
{
    const size_t ss = src_el == NVS_ELEM_F32 ? 4 : 2, ds = dst_el == NVS_ELEM_F32 ? 4 : 2;
    for (int i = 0; i < (pieces > 0 ? pieces : 1); i++) {
        size_t first, count;
        nvs_cast_piece(elems, pieces > 0 ? pieces : 1, i, &first, &count);
        CUDA_TRY(nvs_kern_convert((const char *)src + first * ss, src_el, (char *)dst + first * ds, dst_el, count, s));
    }
    return NVS_OK;
}

/* Layer l's convolution in cuDNN: input (ws_x) and output (the layer's stored output) in NCHW. The weight
 * gradient goes straight into the layer's gradient slot when the types agree (an fp32 step with fp32 gradients,
 * bf16 with bf16) and the slot is aligned; otherwise cuDNN writes it in the data type into scratch, and it is
 * cast into the gradients as autograd does for autocast's cast weight. */
static nvs_result_t gconv(nvs_train_exec *x, int l, int kind)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    const int el = elem_of(pl);
    char *W = (char *)g->weights + pl->w_off[l] * g->es;
    char *Y = (char *)g->acts + pl->a_off[l] * g->es;
    if (kind == NVS_GEMM_FWD) return nvs_cudnn_fwd(x->dnn, l, g->ws_x, W, Y);
    if (kind == NVS_GEMM_DGRAD) return nvs_cudnn_dgrad(x->dnn, l, Y, W, g->ws_dx);
    size_t wn = (size_t)(ly->gemm_n * ly->gemm_k), ges = pl->grad_bf16 ? 2 : 4;
    int same_type = el == NVS_ELEM_BF16 ? pl->grad_bf16 : el == NVS_ELEM_F32 && !pl->grad_bf16;
    char *slot = (char *)g->grads + pl->grad_offset[l] * ges;
    /* gradients lie packed in bucket order, so a slot may start anywhere: straight in only where it is as
     * aligned as the buffers cuDNN's Find timed on */
    int direct = (size_t)ly->params >= wn && same_type && aligned(slot);
    NVS_CHECK(nvs_cudnn_wgrad(x->dnn, l, g->ws_x, Y, direct ? (void *)slot : (void *)g->ws_w));
    if (!direct && ly->params > 0) {
        size_t cnt = (size_t)ly->params < wn ? (size_t)ly->params : wn;
        NVS_CHECK(
            convert_pieces(g->ws_w, el, slot, pl->grad_bf16, (double)cnt, grad_cast_pieces(pl, ly, 0), g->compute));
    }
    return NVS_OK;
}

nvs_result_t nvs_tg_gemm(nvs_train_exec *x, int l, int kind)
{
    if (x->conv_native && x->conv_native[l]) return gconv(x, l, kind);
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    double rows = ly->gemm_m * pl->batch;
    if (rows > INT_MAX || ly->gemm_n > INT_MAX || ly->gemm_k > INT_MAX) {
        nvs_error("layer %s: a GEMM dimension exceeds what cuBLAS takes (2^31-1): lower --batch", ly->name);
        return NVS_ERR_USAGE;
    }
    int m = (int)rows, n = (int)ly->gemm_n, k = (int)ly->gemm_k;
    const int el = elem_of(pl);
    cudaDataType_t ab = cuda_type_of(el);
    cublasComputeType_t ct = pl->precision == NVS_PREC_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const float one = 1.0f, zero = 0.0f;
    char *W = (char *)g->weights + pl->w_off[l] * g->es;
    char *Y = (char *)g->acts + pl->a_off[l] * g->es;
    /* PyTorch's layouts, as nn.Linear calls cuBLAS (column-major): X [m x k] and Y [m x n] row-major, the weight
     * [n x k] row-major. Forward y = x W^T: Y^T (n x m, ld n) = op_T(W: k x n, ld k) X^T (k x m, ld k); input
     * gradient dX = dY W: dX^T (k x m, ld k) = W (k x n) dY^T (n x m, ld n); weight gradient dW = dY^T X: dW^T
     * (k x n, ld k) = X^T (k x m) op_T(dY^T). The leading dimensions are the features, not the rows: cuBLAS picks
     * its kernels by them (a vocabulary of 30,522 makes BERT's decoder rows 4-byte aligned, and cuBLAS runs
     * slower kernels for it, as under PyTorch). The data are random: only shapes, layouts, precision matter. */
    switch (kind) {
    case NVS_GEMM_FWD:
        BLAS_TRY(cublasGemmEx(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, W, ab, k, g->ws_x, ab, k, &zero, Y,
                              ab, n, ct, CUBLAS_GEMM_DEFAULT));
        break;
    case NVS_GEMM_DGRAD:
        BLAS_TRY(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, k, m, n, &one, W, ab, k, Y, ab, n, &zero, g->ws_dx,
                              ab, k, ct, CUBLAS_GEMM_DEFAULT));
        break;
    default: {
        /* A layer without parameters (attention's second operand): an activation's gradient, in the step's type.
         * Under autocast (weight_casts, half precision) the weight's gradient is computed in 16 bits, as autograd
         * does for the 16-bit copy, then cast into the fp32 gradient (the cast's backward). Otherwise straight into
         * the layer's gradient slot when its parameters hold the whole matrix and cuBLAS can write the gradients'
         * type (fp32 from any operands; bf16 from bf16), else fp32 scratch cast into them (bf16 gradients of an
         * fp32 or fp16 step). */
        size_t slot = (size_t)ly->params, kn = (size_t)k * (size_t)n;
        const int pieces = grad_cast_pieces(pl, ly, 0), cast16 = pieces > 0;
        const int direct = slot >= kn && !cast16 && blas_writes_grads(pl);
        char *gslot = (char *)g->grads + pl->grad_offset[l] * (pl->grad_bf16 ? 2 : 4);
        const int out_el = direct ? grad_elem_of(pl) : (slot == 0 || cast16 ? el : NVS_ELEM_F32);
        BLAS_TRY(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_T, k, n, m, &one, g->ws_x, ab, k, Y, ab, n, &zero,
                              direct ? (void *)gslot : g->ws_w, cuda_type_of(out_el), k, ct, CUBLAS_GEMM_DEFAULT));
        if (!direct && slot > 0) /* under autocast one cast per weight tensor, else one */
            NVS_CHECK(convert_pieces(g->ws_w, out_el, gslot, grad_elem_of(pl), (double)(slot < kn ? slot : kn), pieces,
                                     g->compute));
        break;
    }
    }
    return NVS_OK;
}

/* Autocast's cast of layer l's fp32 parameters (the master copy) into the 16-bit weights its forward reads: the
 * matrix's share of them (framework.h: the weights buffer holds the matrix only). */
nvs_result_t nvs_tg_cast(nvs_train_exec *x, int l)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    nvs_cast_split sp;
    if (!nvs_framework_cast_split(pl->framework, ly, pl->precision, &sp)) return NVS_OK;
    const float *m = g->master + pl->grad_offset[l];
    NVS_CHECK(convert_pieces(m, NVS_ELEM_F32, (char *)g->weights + pl->w_off[l] * g->es, elem_of(pl), sp.w_elems,
                             sp.w_pieces, g->compute));
    /* the bias's 16-bit copy: nvscale's GEMM has no bias epilogue, so it lands in the weight-gradient scratch,
     * free until this layer's backward */
    if (sp.b_pieces)
        NVS_CHECK(convert_pieces(m + (size_t)(ly->gemm_n * ly->gemm_k), NVS_ELEM_F32, g->ws_w, elem_of(pl), sp.b_elems,
                                 sp.b_pieces, g->compute));
    return NVS_OK;
}

/* The bias's gradient: the output gradient summed over its m rows, into the bias's part of the layer's slot,
 * after the N x K matrix. Under a framework with its own reduction (framework.h bias_reduce: PyTorch's eager
 * Linear) in that kernel, launched as PyTorch launches it, over the gradient's bytes read as PyTorch holds them
 * (tokens x features, the features contiguous: train/reduce_kernels.h; the step's values are synthetic, the
 * bytes and the access pattern are what it reproduces); else as one matrix-vector product of the m x n
 * column-major gradient with a vector of ones (cuBLAS reads the gradient once), through the fp32 scratch where
 * cuBLAS cannot write the gradients' type (blas_writes_grads). */
nvs_result_t nvs_tg_bias(nvs_train_exec *x, int l)
{
    struct gpu_impl *g = G(x);
    const nvs_train_plan *pl = x->plan;
    const nvs_layer *ly = &pl->profile->layers[l];
    double rows = ly->gemm_m * pl->batch, n = nvs_layer_bias_elems(ly);
    if (rows > (double)pl->max_bias_rows || rows > INT_MAX || n <= 0 || n > INT_MAX)
        return not_sized(l, "a bias gradient's rows");
    const int el = elem_of(pl), m = (int)rows;
    /* under autocast (weight_casts, half precision, fp32 gradients) the bias's gradient is summed in 16 bits, as
     * autograd does for the cast bias (PyTorch's reduce_kernel over bf16), then cast into fp32, one launch per
     * bias tensor (nvs_framework_cast_split) */
    const int pieces = grad_cast_pieces(pl, ly, 1), cast16 = pieces > 0;
    const int own = pl->framework->bias_reduce;
    const int direct = !cast16 && (own || blas_writes_grads(pl));
    const int out_el = direct ? grad_elem_of(pl) : cast16 ? el : NVS_ELEM_F32;
    cudaDataType_t ab = cuda_type_of(el);
    cublasComputeType_t ct = pl->precision == NVS_PREC_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const float one = 1.0f, zero = 0.0f;
    const char *Y = (const char *)g->acts + pl->a_off[l] * g->es;
    char *gb = (char *)g->grads + (pl->grad_offset[l] + (size_t)(ly->gemm_n * ly->gemm_k)) * (pl->grad_bf16 ? 2 : 4);
    if (own) {
        /* a launch per bias tensor, over its columns (HF's query, key and value: three), as autograd sums each
         * Linear's bias on its own */
        const int tensors = nvs_layer_bias_tensors(ly);
        char *dst = direct ? gb : (char *)g->ws_w;
        const size_t oes = out_el == NVS_ELEM_F32 ? 4 : 2;
        for (int i = 0; i < tensors; i++) {
            size_t first, count;
            nvs_cast_piece(n, tensors, i, &first, &count);
            CUDA_TRY(nvs_kern_outer_sum(Y + first * g->es, el, m, (int)count, (long long)n, dst + first * oes, out_el,
                                        g->bias_staging, g->bias_staging_elems, g->bias_sems, g->bias_nsems, g->sm,
                                        g->compute));
        }
    } else
        /* Y row-major [m x n] (nvs_tg_gemm): Y^T (n x m, ld n) times a column of ones */
        BLAS_TRY(cublasGemmEx(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, 1, m, &one, Y, ab, (int)n, g->ones, ab, m,
                              &zero, direct ? (void *)gb : g->ws_w, cuda_type_of(out_el), (int)n, ct,
                              CUBLAS_GEMM_DEFAULT));
    if (!direct)
        NVS_CHECK(convert_pieces(g->ws_w, out_el, gb, grad_elem_of(pl), n, pieces, g->compute));
    return NVS_OK;
}
