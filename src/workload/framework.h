/* What a training framework adds to the hardware's step (PLUG-IN TABLE, PURE data): the host work it does per
 * operation it dispatches, its data-parallel reducer's work per bucket, and the copies the reducer makes.
 * The synthetic step runs these for real (CPU work, copy kernels) so that their effects on the GPUs and between
 * ranks happen as they do in the framework; the numbers themselves are framework-specific, hence an explicit
 * option (--framework) with its parameters written into run.json. docs/fidelity.md says how they were measured.
 *
 *   ideal        the hardware alone: kernels queued as fast as the host can, gradients written straight into
 *                the buckets (like DDP's gradient_as_bucket_view=True), no host cost per operation.
 *   pytorch-ddp  PyTorch eager + DistributedDataParallel with its defaults: per operation (the profile's ops=
 *                and, under bf16/fp16 autocast, casts=) the host work of eager dispatch and autograd; per bucket
 *                the reducer's host work (its autograd hooks on the bucket's parameter tensors, tensors=, and the
 *                all-reduce's launch through ProcessGroupNCCL); on the GPU a copy of each gradient into its
 *                bucket, and after the all-reduces a copy back into the gradients (gradient_as_bucket_view=False,
 *                torch/nn/parallel/distributed.py; reducer.cpp); and around each convolution (conv=1) at bf16/fp16 the
 *                layout transforms cuDNN makes of PyTorch's default NCHW tensors, as copies of the layer's output;
 *                at fp16 its GradScaler (torch/amp/grad_scaler.py); at bf16/fp16 autocast's weight casts, and
 *                the fp32 residual stream and LayerNorms autocast keeps (ew32=) with their casts; its optimizer as
 *                foreach passes, its bias gradients in reduction kernels of their own, and copies through
 *                non-contiguous views (perm=) element by element. */
#ifndef NVS_FRAMEWORK_H
#define NVS_FRAMEWORK_H

#include "core/precision.h"
#include "workload/optimizer.h"
#include "workload/profile.h"

typedef struct {
    const char *name;
    const char *describe;
    double host_us_per_op;      /* host work per operation dispatched, in microseconds of this CPU alone */
    double reducer_us_per_bucket; /* the reducer's host work per bucket it all-reduces (hooks, the collective's
                                   * launch through the process group), when the bucket's last gradient is ready */
    int autocast;               /* at bf16/fp16, each of a layer's casts= is an operation forward and backward */
    int bucket_copy;            /* gradients copied into separate bucket buffers, and back after the all-reduce */
    /* at bf16/fp16, copies of each convolution's output (a profile's conv=1 layers) that the convolution library
     * makes to change layout around it, in the forward and in the backward pass: a framework that keeps NCHW
     * tensors hands cuDNN a layout its half-precision tensor-core kernels do not take (0: none, as with
     * channels_last) */
    double nchw_copies_fwd, nchw_copies_bwd;
    /* fp16 runs with a gradient scaler (PyTorch's torch.amp.GradScaler): the loss scaled (an operation forward and
     * one backward); before the optimizer every gradient unscaled and checked for inf/NaN in one pass (one
     * operation), then the host waits for that check (GradScaler.step reads found_inf with .item()); after the
     * optimizer the scale updated (one operation). bf16 needs none. */
    int grad_scaler;
    /* DDP's broadcast_buffers=True (its default): at every forward of a step that synchronises gradients (not
     * under no_sync(), whose forward clears require_forward_param_sync), the module's buffers (a batch norm's
     * running statistics) broadcast from rank 0, at any N, N = 1 included (torch/nn/parallel/distributed.py
     * will_sync_module_buffers has no test of the world size): per dtype, the buffers flattened into one tensor and
     * broadcast, then each copied back (torch/csrc/distributed/c10d/comm.cpp, broadcast_coalesced), an operation
     * each, before the forward's first kernel (nvs_framework_buffer_ops), at host_us_per_buffer_op each: C++
     * dispatches them, not the interpreter, so they cost less than host_us_per_op */
    int broadcast_buffers;
    double host_us_per_buffer_op;
    /* at bf16/fp16, autocast's casts on the GPU: before each forward GEMM (or convolution) the layer's fp32
     * parameters cast into a 16-bit copy, and in the backward pass the weight gradient computed in 16 bits, then
     * cast into the fp32 gradient (the cast's backward). Autocast casts again at every forward: its cache lives
     * only inside the autocast region (torch/amp/autocast_mode.py). 0: the GEMMs read a 16-bit copy that is never
     * refreshed and write fp32 weight gradients straight into the gradients */
    int weight_casts;
    /* the optimizer as separate passes over every parameter, as torch.optim.SGD with momentum runs on CUDA tensors
     * by default (foreach=None picks foreach, torch/optim/optimizer.py _default_to_fused_or_foreach; _multi_tensor_sgd
     * in torch/optim/sgd.py): momentum *= mu, momentum += grad, param += -lr * momentum, 32 bytes per fp32
     * parameter; 0: one fused pass (read param, momentum, grad; write param, momentum: 20 bytes) */
    int optimizer_foreach;
    /* at bf16/fp16, what autocast keeps in fp32 (a profile's ew32=, profile.h): those passes over fp32 data, and a
     * layer without a GEMM whose fp32 output a GEMM reads (its casts=) cast to 16 bits each forward and its gradient
     * cast back each backward. 0: every pass at the step's precision, nothing cast */
    int autocast_fp32;
    /* a GEMM layer's bias gradient summed from its output gradient in the framework's own reduction kernel, as
     * PyTorch's eager Linear backward does (TensorIterator's reduce_kernel, a launch per bias: train/reduce_kernels.h),
     * at the modelled share of the memory bandwidth (nvs_compute_terms.bias_reduce_eff); 0: a cuBLAS matrix-vector
     * product with a vector of ones, read at the memory's rate */
    int bias_reduce;
    /* a profile's perm= passes as copies through the permuted view, element by element, as PyTorch's TensorIterator
     * copies a non-contiguous tensor (its legacy elementwise_kernel: 128 threads, 4 elements a thread at 2 bytes, 2
     * at 4; no vector loads; each element's offset computed dimension by dimension: train/view_kernels.h), at the
     * modelled share of the memory bandwidth (nvs_compute_terms.view_copy_eff); 0: passes like the others */
    int view_copies;
    /* the optimizer's host time as torch.optim's, per parameter tensor (optimizer.h
     * nvs_optimizer_host_us_per_tensor, measured; its operations' dispatch included); 0: its operations at
     * host_us_per_op each */
    int optimizer_host_per_tensor;
    /* host work per cuDNN convolution the framework executes (a conv=1 layer's forward, and backward its input
     * gradient, unless it needs none, and its weight gradient: two executions inside one convolution_backward
     * operation), beyond that operation's host_us_per_op: the library's own front end (finding the execution plan
     * for the shape, binding the pointers, executing it), in microseconds of this CPU alone; 0: none */
    double host_us_per_conv_call;
    const char *source;         /* where the numbers come from */
} nvs_framework;

/* NULL when unknown. */
const nvs_framework *nvs_framework_find(const char *name);
const nvs_framework *nvs_framework_default(void);
/* "ideal|pytorch-ddp" for usage lines. */
const char *nvs_framework_choices(void);
/* FW without its host work (every host cost per operation, bucket, buffer operation, convolution and optimizer
 * tensor at 0): the GPU's share of its step alone, as the model's calibration fits it. One list of those costs,
 * so that a new one is not left out of one of its users. */
nvs_framework nvs_framework_gpu_only(const nvs_framework *fw);
/* Whether FW charges any host work (nvs_framework_gpu_only would change it) */
int nvs_framework_has_host_work(const nvs_framework *fw);

/* What the framework dispatches, counted the same way by the training step (train/step.c), which does that host
 * work, and by the what-if model (model/model_eval.c), which schedules it. */

/* Layer l needs no input gradient: it is the first layer, or the first after a frozen stem (profile.h). */
int nvs_layer_no_input_grad(const nvs_profile *p, int l);
/* A layer's parameter tensors: the profile's tensors=, else weight and bias (one when it has one parameter). */
double nvs_layer_param_tensors(const nvs_layer *ly);
/* The bias tensors of a GEMM layer with a bias (nvs_layer_bias_elems): half of its casts= tensors (else of its
 * parameter tensors), at least one, at most its bias elements (HF's query, key and value, one profile layer with
 * casts=6: three); 0 without a bias. A framework that sums each bias's gradient in a kernel of its own launches
 * one per tensor, over its share of the bias (nvs_cast_piece). */
int nvs_layer_bias_tensors(const nvs_layer *ly);
/* The elements of layer l's weight matrix that framework fw's autocast casts at precision prec, each way (weight_casts:
 * a layer with a GEMM and parameters, at half precision; its matrix, min(params, N x K): a bias stays out); 0 where it
 * casts none. The training step (train/step.c, the executors) and the what-if model (model/model_eval.c) both. */
double nvs_framework_weight_cast_elems(const nvs_framework *fw, const nvs_layer *ly, nvs_precision prec);
/* How autocast's casts of layer l's parameters launch: one cast per tensor, as autocast casts each parameter a
 * module passes to an op on its own (one _to_copy per tensor; PyTorch's profile of lm290m and BERT at bf16 counts
 * a bfloat16_copy_kernel forward and a copy back to fp32 backward for every Linear weight and bias,
 * results/h200x1-tfm-census6). The casts= tensors of a GEMM layer (else its parameter tensors): with a bias
 * (nvs_layer_bias_elems), half of them, at least one, are the bias's pieces, the rest the matrix's (HF's query,
 * key and value, one profile layer: three matrices and three biases). w_elems is
 * nvs_framework_weight_cast_elems; b_elems the bias (0 where the framework casts none). */
typedef struct {
    double w_elems, b_elems;
    int w_pieces, b_pieces;
} nvs_cast_split;
/* Returns w_pieces + b_pieces (0: nothing cast). */
int nvs_framework_cast_split(const nvs_framework *fw, const nvs_layer *ly, nvs_precision prec, nvs_cast_split *out);
/* Piece i of n of a run of `elems` elements: its first element and its count (the last takes the remainder). */
void nvs_cast_piece(double elems, int n, int i, size_t *first, size_t *count);
/* Under framework fw at precision prec: of layer l's ew passes, those over fp32 data (autocast_fp32: the profile's
 * ew32=, at half precision; else 0), and the casts of its fp32 output to 16 bits, each way (a layer without a GEMM
 * with ew32= and casts=; else 0). The training step (train/step.c) runs them, the what-if model
 * (model/model_eval.c) costs them. */
double nvs_framework_ew32_passes(const nvs_framework *fw, const nvs_layer *ly, nvs_precision prec);
double nvs_framework_act_casts(const nvs_framework *fw, const nvs_layer *ly, nvs_precision prec);
/* Of layer l's ew passes, forward (and as many of its 2 ew backward), the copies through a view that framework fw
 * makes element by element (view_copies: the profile's perm=; else 0). The training step runs them, the what-if
 * model costs them. */
double nvs_framework_view_passes(const nvs_framework *fw, const nvs_layer *ly);
/* Kernels an element-wise call of `passes` passes launches in the training step (train_gpu_pass.c: whole passes,
 * then a partial one). */
int nvs_ew_kernels(double passes);
/* The operations framework fw dispatches for layer l in the forward (backward = 0) or backward pass: the
 * profile's ops= or, where it does not say, the kernels the training step launches for the layer; and under
 * autocast at half precision one more per cast (casts=, else a GEMM layer's parameter tensors), each way. */
double nvs_framework_layer_ops(const nvs_framework *fw, const nvs_profile *p, int l, int backward, nvs_precision prec);

/* DDP's module buffers in profile p: each 2-d batch norm (bn=) holds running_mean and running_var (C = params / 2
 * floats each) and num_batches_tracked (one int64); the profiles know no other buffers. Returns their count, and
 * (where not NULL) in *floats the float elements among them, in *longs the int64 buffers, and in bytes[] each
 * buffer's size in the order DDP's broadcast copies them back: the floats (per batch norm, running_mean then
 * running_var), then the int64s (broadcast_coalesced groups them by dtype). */
int nvs_profile_buffers(const nvs_profile *p, double *floats, int *longs, size_t *bytes);
/* The operations framework fw dispatches for its buffer broadcast before a full step's forward (0 without one): per
 * dtype among the buffers (float, int64) a flatten and a broadcast, and each buffer copied back. */
double nvs_framework_buffer_ops(const nvs_framework *fw, const nvs_profile *p);
/* The operations framework fw dispatches for optimizer o's update, foreach as the step runs it (train_plan.c
 * nvs_train_plan_opt_foreach; the model's the same): under a framework whose optimizer is torch.optim's
 * (optimizer_foreach), PyTorch's calls (optimizer.h nvs_optimizer_host_ops: foreach, or fused=True for
 * --optimizer adamw-fused); else (ideal, NULL) one, the update's one kernel. The training step (train/step.c) does
 * that host work, the what-if model (model/model_eval.c) schedules it. */
double nvs_framework_optimizer_ops(const nvs_framework *fw, nvs_optimizer o, int foreach);
/* The host time, in microseconds of the fit's CPU, framework fw spends on optimizer o's update (foreach as above) of
 * `tensors` parameter tensors: per tensor where it is torch.optim's (optimizer_host_per_tensor), else its operations
 * (nvs_framework_optimizer_ops) at host_us_per_op; 0 without a framework. The training step and the model charge
 * it, the step counting the operations all the same. */
double nvs_framework_optimizer_host_us(const nvs_framework *fw, nvs_optimizer o, int foreach, double tensors);
/* The rate per tensor that charge uses (0 where the framework charges the update's operations instead, or none) */
double nvs_framework_optimizer_us_per_tensor(const nvs_framework *fw, nvs_optimizer o, int foreach);
/* The parameter tensors the optimizer updates: those of every layer autograd reaches (not nograd=1), as
 * nvs_layer_param_tensors counts them */
double nvs_profile_optimizer_tensors(const nvs_profile *p);
/* Whether, under framework fw's gradient scaler (fp16), optimizer o takes the scaler's grad_scale and found_inf into
 * its own kernels: PyTorch's fused AdamW (fused = --optimizer adamw-fused), an optimizer with
 * _step_supports_amp_scaling. GradScaler.step (torch/amp/grad_scaler.py) then launches the inf/NaN check alone
 * (_check_inf_per_device: _amp_foreach_non_finite_check_and_unscale_ with a dummy inv_scale of 1.0, still one
 * pass over the gradients) and never calls found_inf.item(): the host does not wait for the GPU before the update,
 * and torch/optim/adam.py _fused_adam adds one operation, _foreach_sub_(state_steps, found_inf). Every other
 * optimizer goes through _maybe_opt_step's found_inf.item(), a wait. 0 without a scaler. The training step
 * (train/step.c) and the what-if model (model/model_eval.c) both follow it. */
int nvs_framework_scaler_in_kernel(const nvs_framework *fw, nvs_optimizer o, int fused);

/* Whether a profile's batch norms (bn=) run in cuDNN at this precision, as PyTorch runs them: at fp32 (and tf32) and
 * fp16 it calls cuDNN's (cudnn::bn_fw_tr_1C11 and bn_bw_1C11 kernels in its ResNet-50 step), at bf16 its own
 * (batch_norm_collect_statistics, batch_norm_transform_input: results/h200x1-census, -census-fp16). The training
 * step runs them so (train/train_gpu_cudnn.c) and the what-if model costs them so (model/model.c). */
int nvs_bn_in_cudnn(nvs_precision prec);

#endif
