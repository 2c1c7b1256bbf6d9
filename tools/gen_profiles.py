#!/usr/bin/env python3
"""Generate nvscale's built-in model profiles from architecture descriptions.

    python3 tools/gen_profiles.py            write src/workload/profiles/<model>.c, src/workload/profiles/builtin.c and
                                             tools/profiles/lm290m.prof
    python3 tools/gen_profiles.py --check    regenerate in memory; exit 1 if a committed file differs
    python3 tools/gen_profiles.py --print resnet50     print one profile's text
    python3 tools/gen_profiles.py --summary  parameters and forward GFLOP per sample of every profile

Each model below is written out layer by layer from its reference implementation (named in its `source` line),
so the profiles are reproducible and reviewable: change an architecture here, rerun, commit the output.
Python 3 standard library only. The format is described in src/workload/profile.h and docs/profiles.md.

Conventions (docs/profiles.md explains them):
  * FLOPs: 2 per multiply-add. A layer's forward GEMM per sample is M x N x K (M = output pixels or tokens,
    N = output features, K = reduction); a convolution is its implicit GEMM: M = Hout*Wout, N = Cout,
    K = Cin*kh*kw. Attention over all heads is one FLOP-equivalent GEMM (M = queries, N = keys, K = d_model).
  * Normalisation layers (batch-norm, layer-norm) are their own small layers: params = 2*C (frozen
    batch-norm: 0), no GEMM; they carry the memory-bound passes that follow them (activation, residual add).
  * ew counts memory-bound passes over the layer's output, one pass = the output read once and written once
    (2 accesses); the per-operation costs are the constants below.
"""
import argparse
import contextlib
import os
import sys

# --- memory-bound passes: their cost, in passes over the layer's output (one pass = 2 accesses of its size), and
# the operations eager PyTorch dispatches for them, forward and backward (the framework's host cost is per
# operation: src/workload/framework.h). An Ew adds up both: NORM + UNARY = 2.5 passes in 2 + 2 operations.
class Ew(float):
    """Passes over a layer's output (the float), and the operations that make them (fwd, bwd)."""

    def __new__(cls, passes, fwd, bwd):
        o = float.__new__(cls, passes)
        o.fwd, o.bwd = fwd, bwd
        return o

    def __add__(self, other):
        f, b = ew_ops(other)
        return Ew(float(self) + float(other), self.fwd + f, self.bwd + b)

    __radd__ = __add__

    def __mul__(self, k):
        assert isinstance(k, int) and k >= 0, k
        return Ew(float(self) * k, self.fwd * k, self.bwd * k)

    __rmul__ = __mul__


def ew_ops(ew):
    """(forward, backward) operations of an ew value: an Ew's own, or one each for a bare number of passes (a
    pooling, a RoIAlign, a concatenation: one operation however many passes it makes)."""
    if isinstance(ew, Ew):
        return ew.fwd, ew.bwd
    return (1, 1) if ew else (0, 0)


UNARY = Ew(1.0, 1, 1)      # ReLU, GELU, dropout, scale, bias add in place, mask fill: read x, write y
ADD = Ew(1.5, 1, 1)        # out-of-place add (residual): read a, read b, write y = 3 accesses; backward: the
                           # gradient accumulated where the residual branch forked
NORM = Ew(1.5, 1, 1)       # layer-norm training forward: a read for the statistics, a read + a write to normalise
BN = Ew(1.5, 2, 1)         # batch-norm, the same passes (PyTorch's BN and LN CUDA kernels both read the input
                           # twice) + num_batches_tracked += 1, a second forward operation in training mode
FROZEN_BN = Ew(2.0, 2, 2)  # torchvision FrozenBatchNorm2d: x * scale + shift as two eager kernels (mul, add)
SOFTMAX = Ew(1.0, 1, 1)    # softmax over rows <= 1024 wide: PyTorch's warp softmax keeps the row in registers
WIDE_SOFTMAX = Ew(1.5, 2, 2)  # (log-)softmax over a vocabulary (rows >> 1024): a read for max/sum, a read + write;
                           # as cross-entropy: log_softmax and nll_loss
COPY = Ew(1.0, 1, 1)       # contiguous() after a permute of heads, a torch.cat, an embedding gather (row read, write)
CROSS_ENTROPY = Ew(1.0, 2, 2)  # over rows <= 1024 wide (classes): log_softmax and nll_loss, as SOFTMAX's passes

FIRST_LINE = "nvscale-profile 1"

# How the workload's training script all-reduces gradients (src/workload/profile.h, docs/profiles.md): ddp =
# buckets overlapping backward (PyTorch DDP, apex DDP default), delay = one all-reduce after backward (apex
# delay_allreduce=True), none = no gradient all-reduce (independent replicas)
DP_MODES = ("ddp", "delay", "none")


class Profile:
    """Builds a profile's text and, independently of nvscale's C parser, its totals."""

    def __init__(self, key, name, source, sample, batch, notes, dp="ddp"):
        self.key, self.name, self.source, self.sample, self.batch = key, name, source, sample, batch
        self.notes = notes
        assert dp in DP_MODES, dp
        self.dp = dp
        self.body = []
        self.mult = [1]
        self.frozen = False  # inside no_grad(): the layers autograd never reaches
        self.params = 0
        self.flops = 0
        self.nlayers = 0
        self.ops = [0, 0, 0, 0]  # totals of ops forward, backward, casts, tensors (--summary)
        self.conv_act = 0  # output elements per sample of the convolutions (conv=1): the NCHW layout copies' size

    def comment(self, text):
        self.body.append("  " * (len(self.mult) - 1) + "# " + text)

    @contextlib.contextmanager
    def no_grad(self):
        """Layers of a frozen stem: nograd=1 (no backward, nothing saved) and no parameters."""
        self.frozen = True
        yield
        self.frozen = False

    def layer(self, name, params=0, gemm=None, act=0, ew=0.0, gemm_ops=None, conv=False, tensors=None, casts=None,
              extra=(0, 0), bn=None, ew32=0.0, ewb=0.0, perm=0.0, ln=None):
        """One profile line. Besides the shapes, what eager PyTorch dispatches for the layer (the ops=, casts=,
        tensors= keys; docs/profiles.md):
          ops      forward: 1 for the GEMM + the ew operations; backward: the ew operations + the GEMM's: a
                   convolution's convolution_backward (conv=True) is 1, a matrix product's 2 (input and weight
                   gradient; 1 for the model's first layer, whose input needs none) + 1 for a bias gradient (a
                   sum); gemm_ops=(f, b) replaces the GEMM's share (a fused attention is 1 operation each way);
                   extra=(f, b) adds what the module's implementation dispatches beyond that (its copies of views,
                   zero-filled gradients, gradient accumulations), counted from a profiler trace and cited
          tensors  parameter tensors: a GEMM layer's weight, and its bias when params = N*K + N; a layer without
                   a GEMM (a norm) weight and bias; anything else must say (an embedding's tables, a tied weight)
          casts    what autocast casts to bf16/fp16 for the layer: a GEMM layer's weight and bias; a fp32 input
                   (an image, a LayerNorm's output) must be given, as must a tied weight
          ew32     of the ew passes, those autocast runs over fp32 data at bf16/fp16 (profile.h): an embedding's
                   gathers and adds (fp32 tables), LayerNorm (autocast's fp32 list) and what follows it before a
                   GEMM, and a residual add onto that fp32 stream (type promotion)
          ewb      passes over the output in the backward only, beyond 2 x ew (profile.h): autograd assembling the
                   gradient of an output used through several views (their operations go in extra=)
          perm     of the ew passes, copies through a view whose batch and rows (the GEMM's M) are swapped, one
                   forward and one of the backward's each (profile.h): nn.MultiheadAttention's head split and merge
                   under batch_first, which PyTorch copies element by element
          ln       of the ew passes, a LayerNorm's own over rows of params / 2 features (profile.h): the GPU step
                   runs them in LayerNorm kernels as PyTorch launches its own"""
        assert len(name) < 64 and " " not in name, name
        if self.frozen:
            params = 0
        for v in [params, act] + list(gemm or []):
            assert isinstance(v, int) and v >= 0, (name, v)
        if gemm:
            assert len(gemm) == 3 and min(gemm) >= 1, (name, gemm)
        assert params or gemm or act, name
        bias = bool(gemm) and params == gemm[1] * gemm[2] + gemm[1]
        if tensors is None:
            if not params:
                tensors = 0
            elif gemm:
                assert params in (gemm[1] * gemm[2], gemm[1] * gemm[2] + gemm[1]), (name, "say tensors=")
                tensors = 1 + bias
            else:
                tensors = 2  # a norm's weight and bias
        if casts is None:
            casts = tensors if gemm else 0
        fwd, bwd = ew_ops(ew)
        if gemm_ops:
            fwd, bwd = fwd + gemm_ops[0], bwd + gemm_ops[1]
        elif gemm:
            fwd += 1
            bwd += 1 if conv or self.nlayers == 0 else 2
            bwd += 1 if bias and not conv else 0
        if conv and bias:
            bwd += 1  # the bias gradient, a sum of its own after cuDNN's convolution backward
        fwd, bwd = fwd + extra[0], bwd + extra[1]
        if self.frozen:
            bwd = 0
        m = 1
        for r in self.mult:
            m *= r
        for i, v in enumerate((fwd, bwd, casts, tensors)):
            self.ops[i] += m * v
        self.params += m * params
        if conv:
            self.conv_act += m * act
        if gemm:
            self.flops += m * 2 * gemm[0] * gemm[1] * gemm[2]
        self.nlayers += m
        s = "layer " + name
        if params:
            s += " params=%d" % params
        if gemm:
            s += " gemm=%d,%d,%d" % tuple(gemm)
        if act:
            s += " act=%d" % act
        if ew:
            s += " ew=%s" % fmt_ew(ew)
        if ew32:
            assert float(ew32) <= float(ew) - float(bn or 0), (name, ew32, ew)
            s += " ew32=%s" % fmt_ew(ew32)
        if ewb:
            assert act and not self.frozen, (name, ewb)
            s += " ewb=%s" % fmt_ew(ewb)
        if perm:
            assert gemm and act % gemm[0] == 0 and float(perm) <= float(ew) - float(ew32), (name, perm, ew)
            s += " perm=%s" % fmt_ew(perm)
        if ln is not None:
            # a LayerNorm over the output's last dimension (params / 2 features); fp32 under autocast with its ew32
            assert params and not gemm and float(ln) <= float(ew) and act % (params // 2) == 0, (name, ln, ew)
            assert not ew32 or float(ew32) >= float(ln), (name, ln, ew32)
            s += " ln=%s" % fmt_ew(ln)
        if bn is not None:
            # a 2-d batch norm over the output (C = params / 2 channels): the share of ew that is its own
            assert params and not gemm and float(bn) <= float(ew) and act % (params // 2) == 0, (name, bn, ew)
            s += " bn=%s" % fmt_ew(bn)
        if self.frozen:
            s += " nograd=1"
        if isinstance(conv, tuple):
            # the convolution's geometry (input H, W, filter R, S, stride, padding): the GPU step runs it in cuDNN
            h, w, r, s_, u, p = conv
            assert gemm[2] % (r * s_) == 0 and gemm[0] == conv_out(h, r, u, p) * conv_out(w, s_, u, p), (name, conv)
            s += " conv2d=%d,%d,%d,%d,%d,%d" % conv
        elif conv:
            s += " conv=1"  # cuDNN's convolution: NCHW tensors are transposed around it at half precision
        s += " ops=%d,%d" % (fwd, bwd)
        if casts or gemm:  # absent means the step's default, a GEMM layer's tensors (profile.h)
            s += " casts=%d" % casts
        if params:
            s += " tensors=%d" % tensors
        self.body.append("  " * (len(self.mult) - 1) + s)

    @contextlib.contextmanager
    def repeat(self, n, what=None):
        assert 1 <= n <= 100000
        indent = "  " * (len(self.mult) - 1)
        self.body.append(indent + "repeat %d" % n + ("  # " + what if what else ""))
        self.mult.append(n)
        yield
        self.mult.pop()
        self.body.append(indent + "end")

    def text(self):
        # the limits of nvscale's parser (src/workload/profile.h: name[64], source[256], sample[128])
        assert len(self.name) < 64 and len(self.source) < 256 and len(self.sample) < 128, self.key
        out = [FIRST_LINE]
        out += ["# " + line if line else "#" for line in self.notes]
        out.append("# Generated by tools/gen_profiles.py: edit the generator, not this text.")
        out.append("name " + self.name)
        out.append('source "%s"' % self.source)
        out.append('sample "%s"' % self.sample)
        out.append("batch %d" % self.batch)
        out.append("dp " + self.dp)
        out += self.body
        return "\n".join(out) + "\n"


def fmt_ew(x):
    s = ("%.3f" % x).rstrip("0").rstrip(".")
    return s


# --- convolutional networks -------------------------------------------------------------------------------------
def conv_out(n, k, s, p):
    return (n + 2 * p - k) // s + 1


class Shape:
    def __init__(self, c, h, w):
        self.c, self.h, self.w = c, h, w

    def elems(self):
        return self.c * self.h * self.w


def conv(P, name, x, cout, k, s=1, p=0, bias=False, ew=0.0, casts=None):
    """Convolution as its implicit GEMM. cuDNN adds a bias as a separate in-place pass (UNARY)."""
    ho, wo = conv_out(x.h, k, s, p), conv_out(x.w, k, s, p)
    params = cout * x.c * k * k + (cout if bias else 0)
    P.layer(name, params=params, gemm=(ho * wo, cout, x.c * k * k), act=cout * ho * wo,
            ew=ew + (UNARY if bias else 0.0), conv=(x.h, x.w, k, k, s, p), casts=casts)
    return Shape(cout, ho, wo)


def norm2d(P, name, x, ew, frozen=False):
    """A BatchNorm2d (its BN passes the first of `ew`: bn=, which the GPU step may run in cuDNN, as PyTorch does at
    fp32 and fp16), or a frozen one (its own mul and add: no batch norm to run)."""
    P.layer(name, params=0 if frozen else 2 * x.c, act=x.elems(), ew=ew, bn=None if frozen else BN)


def pool(P, name, x, k, s, p):
    """Max pooling: reads its input once, writes its output once."""
    y = Shape(x.c, conv_out(x.h, k, s, p), conv_out(x.w, k, s, p))
    P.layer(name, act=y.elems(), ew=(x.elems() / y.elems() + 1) / 2)
    return y


def bottleneck(P, pre, x, planes, stride, downsample, frozen):
    """torchvision Bottleneck (ResNet v1.5: the stride sits on the 3x3 convolution)."""
    bn = FROZEN_BN if frozen else BN
    y = conv(P, pre + "conv1", x, planes, 1)
    norm2d(P, pre + "bn1", y, bn + UNARY, frozen)                # BN, ReLU
    y = conv(P, pre + "conv2", y, planes, 3, stride, 1)
    norm2d(P, pre + "bn2", y, bn + UNARY, frozen)                # BN, ReLU
    y = conv(P, pre + "conv3", y, planes * 4, 1)
    if downsample:
        norm2d(P, pre + "bn3", y, bn, frozen)
        d = conv(P, pre + "downsample.0", x, planes * 4, 1, stride)
        norm2d(P, pre + "downsample.1", d, bn + ADD + UNARY, frozen)  # BN, residual add, ReLU
    else:
        norm2d(P, pre + "bn3", y, bn + ADD + UNARY, frozen)          # BN, residual add, ReLU
    return y


def resnet50_body(P, x, prefix="", frozen=False, strides=(1, 2, 2, 2), nstages=4, frozen_at=0):
    """Stem and stages conv2_x..conv5_x of torchvision resnet50 (blocks 3, 4, 6, 3). Returns the stage outputs.
    frozen_at = k: the stem (k >= 1) and the first k-1 stages are frozen (maskrcnn-benchmark's
    MODEL.BACKBONE.FREEZE_CONV_BODY_AT): no parameters, and autograd never reaches them (nograd=1)."""
    bn = FROZEN_BN if frozen else BN
    with P.no_grad() if frozen_at >= 1 else contextlib.nullcontext():
        x = conv(P, prefix + "conv1", x, 64, 7, 2, 3, casts=2)  # the weight and the fp32 image
        norm2d(P, prefix + "bn1", x, bn + UNARY, frozen)
        x = pool(P, prefix + "maxpool", x, 3, 2, 1)
    outs = []
    for i, (planes, blocks) in enumerate([(64, 3), (128, 4), (256, 6), (512, 3)][:nstages]):
        pre = prefix + "layer%d." % (i + 1)
        with P.no_grad() if frozen_at >= i + 2 else contextlib.nullcontext():
            x = bottleneck(P, pre + "0.", x, planes, strides[i], True, frozen)
            with P.repeat(blocks - 1, "blocks %s1..%d" % (pre, blocks - 1)):
                x = bottleneck(P, pre + "x.", x, planes, 1, False, frozen)
        outs.append(x)
    return outs


def make_resnet50():
    P = Profile("resnet50", "resnet50",
                "torchvision.models.resnet50 (He et al. 2016, Table 1; v1.5: stride on the 3x3 conv), 224x224",
                "one 224x224 RGB image", 128, [
                    "ResNet-50 as torchvision builds it: 25,557,032 parameters, 4.09 GMAC = 8.18 GFLOP forward per",
                    "image (2 FLOPs per multiply-add). Each batch-norm is its own layer (2*C parameters) carrying",
                    "the ReLU and residual-add passes that follow it.",
                ])
    c5 = resnet50_body(P, Shape(3, 224, 224))[-1]
    P.layer("avgpool", act=c5.c, ew=(c5.elems() / c5.c + 1) / 2)
    P.layer("fc", params=2048 * 1000 + 1000, gemm=(1, 1000, 2048), act=1000, ew=CROSS_ENTROPY)
    return P


def make_ssd300():
    P = Profile("ssd300", "ssd300",
                "NVIDIA DeepLearningExamples PyTorch SSD300 v1.1 (ssd/model.py): ResNet-50 backbone to conv4_x "
                "with stride 1, 81 COCO classes, 8732 boxes, 300x300",
                "one 300x300 RGB image", 32, [
                    "SSD300 v1.1 as NVIDIA DeepLearningExamples/PyTorch/Detection/SSD builds it (Liu et al. 2016",
                    "with the ResNet-50 backbone of Huang et al. 2017): torchvision resnet50 children[:7] (through",
                    "layer3 = conv4_x, whose first block has stride 1, so it stays at 38x38), five extra blocks",
                    "(1x1 then 3x3 conv, batch-norm, ReLU) to 19, 10, 5, 3, 1, and a 3x3 loc and conf convolution",
                    "(4 or 6 default boxes, 81 classes) on each of the six feature maps. Not the MLPerf v0.7",
                    "SSD-ResNet34 variant. The loss (hard-negative mining sort, smooth L1) is one memory-bound",
                    "layer without GEMMs (approximate).",
                ])
    c4 = resnet50_body(P, Shape(3, 300, 300), strides=(1, 2, 1), nstages=3)[-1]
    feeds = [c4]
    x = c4
    for i, (cout, mid) in enumerate(zip([512, 512, 256, 256, 256], [256, 256, 128, 128, 128])):
        pre = "additional_blocks.%d." % i
        y = conv(P, pre + "0", x, mid, 1)
        norm2d(P, pre + "1", y, BN + UNARY)
        y = conv(P, pre + "3", y, cout, 3, 2 if i < 3 else 1, 1 if i < 3 else 0)
        norm2d(P, pre + "4", y, BN + UNARY)
        feeds.append(y)
        x = y
    boxes = 0
    for i, (f, nd) in enumerate(zip(feeds, [4, 6, 6, 6, 4, 4])):
        conv(P, "loc.%d" % i, f, nd * 4, 3, 1, 1, bias=True, ew=COPY)    # + torch.cat of all levels
        conv(P, "conf.%d" % i, f, nd * 81, 3, 1, 1, bias=True, ew=COPY)
        boxes += nd * f.h * f.w
    assert boxes == 8732, boxes
    P.layer("loss", act=(4 + 81) * boxes, ew=3.0)  # log-softmax, sort for hard negatives, smooth L1 (approx.)
    return P


def make_maskrcnn():
    return maskrcnn_profile(nvidia=False)


def make_maskrcnn_nvidia():
    return maskrcnn_profile(nvidia=True)


def maskrcnn_profile(nvidia):
    """torchvision's maskrcnn_resnet50_fpn, or NVIDIA DeepLearningExamples' maskrcnn-benchmark variant (81
    classes, stem and layer1 frozen, apex DDP with delay_allreduce=True): the same R50-FPN layers."""
    H, W = 800, 1344
    rois, pos = 512, 128
    if nvidia:
        return maskrcnn_layers(Profile(
            "maskrcnn-nvidia", "maskrcnn-nvidia",
            "NVIDIA DeepLearningExamples PyTorch Mask R-CNN (maskrcnn-benchmark R-50-FPN 1x, 81 COCO classes, "
            "stem and layer1 frozen), 800x1333 padded to 800x1344, apex DDP delay_allreduce=True",
            "one COCO image resized to 800x1333 and padded to 800x1344, 512 RoIs, 128 mask RoIs", 12, [
                "Mask R-CNN R-50-FPN as NVIDIA DeepLearningExamples/PyTorch/Segmentation/MaskRCNN (a fork of",
                "maskrcnn-benchmark) trains it, the script Lambda's PyTorch benchmark runs: the layers of the",
                "maskrcnn profile with maskrcnn-benchmark's defaults (maskrcnn_benchmark/config/defaults.py):",
                "NUM_CLASSES 81 (box, bbox and mask predictors), FREEZE_CONV_BODY_AT 2 (the stem and layer1 run",
                "forward only: nograd=1, no backward, nothing saved), ROI_HEADS.BATCH_SIZE_PER_IMAGE 512, POSITIVE_FRACTION",
                "0.25. Data parallel: tools/train_net.py wraps the model in apex",
                "DistributedDataParallel(model, delay_allreduce=True): every gradient is all-reduced after",
                "backward, with no overlap (dp delay).",
            ], dp="delay"), H, W, rois, pos, classes=81, frozen_at=2)
    P = Profile("maskrcnn", "maskrcnn",
                "torchvision.models.detection.maskrcnn_resnet50_fpn (He et al. 2017, Mask R-CNN R50-FPN, "
                "91 COCO classes), 800x1333 padded to 800x1344",
                "one COCO image resized to 800x1333 and padded to 800x1344, 512 RoIs, 128 mask RoIs", 2, [
                    "Mask R-CNN R50-FPN as torchvision's maskrcnn_resnet50_fpn builds it with a pretrained backbone",
                    "(its reference recipe: --weights-backbone ResNet50_Weights.IMAGENET1K_V1): 44,401,393",
                    "parameters, of which 44,178,993 train. Backbone: resnet50 with FrozenBatchNorm2d (no",
                    "parameters); the default trainable_backbone_layers=3 freezes conv1 and layer1 (222,400",
                    "weights, requires_grad=False): they run forward only (nograd=1: autograd never reaches them,",
                    "no backward, nothing saved), as in maskrcnn-nvidia.",
                    "Image: GeneralizedRCNNTransform min_size 800, max_size 1333, padded to a multiple of 32.",
                    "Approximation: only the GEMMs that dominate the heads are modelled. RPN: its 3x3 conv and",
                    "1x1 cls/bbox convs over all five levels (shared weights: one GEMM over the summed pixels);",
                    "anchor decoding, NMS and sampling are left out. Box head: 512 sampled RoIs per image (RoIAlign",
                    "7x7, fc6, fc7, predictors). Mask head: 128 positive RoIs (the upper bound: 25% of 512), RoIAlign",
                    "14x14, four 3x3 convs, 2x2 transposed conv (as a GEMM over input pixels), 1x1 logits.",
                ])
    return maskrcnn_layers(P, H, W, rois, pos, classes=91, frozen_at=2)


def maskrcnn_layers(P, H, W, rois, pos, classes, frozen_at):
    c = resnet50_body(P, Shape(3, H, W), prefix="backbone.body.", frozen=True, frozen_at=frozen_at)
    # FPN (torchvision FeaturePyramidNetwork.forward): top-down from C5; inner 1x1 and layer 3x3 convs with bias
    p = [None] * 4
    for lvl in range(3, -1, -1):
        # lower levels: nearest upsample of the coarser map (reads 1/4, writes 1) and the add (1.5): ~2 passes
        conv(P, "backbone.fpn.inner_blocks.%d" % lvl, c[lvl], 256, 1, bias=True, ew=0.0 if lvl == 3 else 2.0)
        p[lvl] = conv(P, "backbone.fpn.layer_blocks.%d" % lvl, Shape(256, c[lvl].h, c[lvl].w), 256, 3, 1, 1,
                      bias=True)
    p6 = Shape(256, conv_out(p[3].h, 1, 2, 0), conv_out(p[3].w, 1, 2, 0))  # LastLevelMaxPool (kernel 1, stride 2)
    P.layer("backbone.fpn.extra_blocks", act=p6.elems(), ew=UNARY)
    levels = p + [p6]
    pixels = sum(l.h * l.w for l in levels)
    # RPN head, shared over the levels: 3x3 conv + ReLU, then 1x1 objectness (3 anchors) and deltas (12)
    P.layer("rpn.head.conv", params=256 * 256 * 9 + 256, gemm=(pixels, 256, 256 * 9), act=256 * pixels,
            ew=UNARY + UNARY, conv=True)
    P.layer("rpn.head.cls_logits", params=256 * 3 + 3, gemm=(pixels, 3, 256), act=3 * pixels, ew=UNARY, conv=True)
    P.layer("rpn.head.bbox_pred", params=256 * 12 + 12, gemm=(pixels, 12, 256), act=12 * pixels, ew=UNARY,
            conv=True)
    # Box head: MultiScaleRoIAlign 7x7 (bilinear samples of the input: ~2 passes), TwoMLPHead, FastRCNNPredictor
    P.layer("roi_heads.box_roi_pool", act=rois * 256 * 49, ew=2.0)
    P.layer("roi_heads.box_head.fc6", params=256 * 49 * 1024 + 1024, gemm=(rois, 1024, 256 * 49), act=rois * 1024,
            ew=UNARY)
    P.layer("roi_heads.box_head.fc7", params=1024 * 1024 + 1024, gemm=(rois, 1024, 1024), act=rois * 1024, ew=UNARY)
    k, kb = classes, 4 * classes
    P.layer("roi_heads.box_predictor.cls_score", params=1024 * k + k, gemm=(rois, k, 1024), act=rois * k,
            ew=SOFTMAX)
    P.layer("roi_heads.box_predictor.bbox_pred", params=1024 * kb + kb, gemm=(rois, kb, 1024), act=rois * kb,
            ew=UNARY)
    # Mask head: RoIAlign 14x14 on the positive RoIs, 4 x (3x3 conv + ReLU), deconv 2x2/2 + ReLU, 1x1 logits
    m14 = pos * 14 * 14
    P.layer("roi_heads.mask_roi_pool", act=m14 * 256, ew=2.0)
    with P.repeat(4, "mask_head.mask_fcn1..4"):
        P.layer("roi_heads.mask_head.x", params=256 * 256 * 9 + 256, gemm=(m14, 256, 256 * 9), act=m14 * 256,
                ew=UNARY + UNARY, conv=True)
    # the 2x2 transposed convolution as a GEMM over input pixels: N = 4 * 256 outputs, bias 256
    P.layer("roi_heads.mask_predictor.conv5_mask", params=256 * 256 * 4 + 256, gemm=(m14, 256 * 4, 256),
            act=pos * 28 * 28 * 256, ew=UNARY + UNARY, conv=True, tensors=2)
    P.layer("roi_heads.mask_predictor.mask_fcn_logits", params=256 * k + k, gemm=(pos * 784, k, 256),
            act=pos * 784 * k, ew=UNARY + UNARY, conv=True)  # bias, then the per-class sigmoid cross-entropy gather
    return P


# --- transformers -----------------------------------------------------------------------------------------------
# HF's and DLE's BERT read a LayerNorm's output with three Linear modules (query, key, value), and autocast casts
# that fp32 output once for each: PyTorch's BERT-large bf16 step launches 390 fp32-to-bf16 casts forward, 146
# weights, 146 biases and 98 LayerNorm outputs (results/h200x1-tfm-census6, census-nodp.txt)
QKV_CASTS = 3


def bert_encoder(P, s, d, h, f, L, V):
    """BertEmbeddings (word, position 512, token type 2) and L post-LayerNorm encoder layers."""
    # fp32 under autocast (here and below: ew32=) from the fp32 tables to the next GEMM, which casts the output
    P.layer("embeddings", params=V * d + 512 * d + 2 * d, act=s * d, ew=3 * COPY + 2 * ADD,  # 3 gathers, 2 adds
            tensors=3, ew32=3 * COPY + 2 * ADD)
    # + dropout; autocast keeps LayerNorm in fp32, so each GEMM that reads the output casts it (here and below):
    # query, key and value, three casts (QKV_CASTS)
    P.layer("embeddings.LayerNorm", params=2 * d, act=s * d, ew=NORM + UNARY, ln=NORM, casts=QKV_CASTS, ew32=NORM + UNARY)
    with P.repeat(L - 1, "encoder.layer.0..%d" % (L - 2)):
        bert_layer(P, s, d, h, f, QKV_CASTS)
    bert_layer(P, s, d, h, f, 1)  # the last layer: its output goes to the head's one GEMM (and the pooler's slice)


def bert_layer(P, s, d, h, f, out_casts):
    """One post-LayerNorm encoder layer; out_casts: the GEMMs that read its output (the next layer's three)."""
    # query, key and value are three Linear modules (HF BertSelfAttention, DLE modeling.py): one GEMM of
    # their total size here, 3 operations forward and 3 x 3 backward, 6 tensors
    P.layer("layer.attention.qkv", params=3 * d * d + 3 * d, gemm=(s, 3 * d, d), act=3 * s * d,
            gemm_ops=(3, 9), tensors=6, casts=6)
    # scores = Q K^T over all heads; scale, mask add, softmax, dropout
    P.layer("layer.attention.scores", gemm=(s, s, d), act=h * s * s, ew=UNARY + ADD + SOFTMAX + UNARY)
    P.layer("layer.attention.context", gemm=(s, d, s), act=s * d, ew=COPY)  # probs x V, merge heads
    bert_layer_rest(P, s, d, f, out_casts)


def bert_layer_rest(P, s, d, f, out_casts):
    """An encoder layer after its attention: output projection, LayerNorm, feed-forward, LayerNorm (both BERTs)."""
    # dropout on the bf16 output, then the residual add onto the fp32 stream (the last LayerNorm's output)
    P.layer("layer.attention.output.dense", params=d * d + d, gemm=(s, d, d), act=s * d, ew=UNARY + ADD,
            ew32=ADD)
    P.layer("layer.attention.output.LayerNorm", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)
    P.layer("layer.intermediate.dense", params=d * f + f, gemm=(s, f, d), act=s * f, ew=UNARY)  # GELU
    P.layer("layer.output.dense", params=f * d + d, gemm=(s, d, f), act=s * d, ew=UNARY + ADD, ew32=ADD)
    # read by the next layer's query, key and value (three casts), the last layer's by the head's one GEMM
    P.layer("layer.output.LayerNorm", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=out_casts, ew32=NORM)


def make_bert_large_squad():
    s, d, h, f, L = 384, 1024, 16, 4096, 24
    V = 30528  # 30522 padded to a multiple of 8 (DLE run_squad.py: config.vocab_size += 8 - vocab_size % 8)
    P = Profile("bert-large-squad", "bert-large-squad",
                "BERT-large SQuAD v1.1 fine-tuning as NVIDIA DeepLearningExamples run_squad.py runs it "
                "(BertForQuestionAnswering, bert-large-uncased, seq 384, vocab padded to 30528)",
                "one 384-token question + context window", 8, [
                    "BERT-large (Devlin et al. 2019) fine-tuned on SQuAD v1.1 as NVIDIA DeepLearningExamples",
                    "PyTorch/LanguageModeling/BERT/run_squad.py builds it, the script Lambda's PyTorch benchmark runs",
                    "(lambdal/deeplearning-benchmark pytorch/scripts/patch/run_squad.py): max_seq_length 384, the",
                    "vocabulary padded from 30522 to 30528 (a multiple of 8). 335,150,082 parameters, the",
                    "model_weights_num its logs print. The pooler's output is unused by the QA head, so its 1,049,600",
                    "weights get no gradient (apex DDP skips them; counted here, 0.3 % of the all-reduce). Post-",
                    "LayerNorm; attention unfused as in the reference. Head: qa_outputs Linear(1024, 2), start/end",
                    "log-softmax over the 384 positions. Data parallel: apex DistributedDataParallel with default",
                    "arguments (delay_allreduce=False): buckets overlap backward.",
                ], dp="ddp")
    bert_encoder(P, s, d, h, f, L, V)
    P.layer("pooler.dense", params=d * d + d, gemm=(1, d, d), act=d, ew=UNARY)  # first token, tanh (no gradient)
    P.layer("qa_outputs", params=2 * d + 2, gemm=(s, 2, d), act=2 * s, ew=COPY + WIDE_SOFTMAX)  # split, log-softmax
    return P


def make_bert_large():
    s, d, h, f, L, V = 512, 1024, 16, 4096, 24, 30522
    P = Profile("bert-large", "bert-large",
                "BERT-large (Devlin et al. 2019) as HF BertForPreTraining / NVIDIA DeepLearningExamples: 24 layers, "
                "d 1024, 16 heads, ffn 4096, seq 512, vocab 30522, MLM + NSP heads",
                "one 512-token sequence", 8, [
                    "BERT-large pretraining (phase 2, sequence 512): 335,141,888 parameters in BertModel (with the",
                    "pooler), 336,226,108 with the pretraining heads (MLM transform + decoder bias; decoder weight",
                    "tied to the word embeddings; NSP). Post-LayerNorm. Attention as written in the reference",
                    "(unfused): scores and probabilities are materialised. The MLM decoder runs over all 512",
                    "positions as HF's BertForPreTraining does (NVIDIA's version gathers the <=80 masked ones).",
                ])
    bert_encoder(P, s, d, h, f, L, V)
    P.layer("pooler.dense", params=d * d + d, gemm=(1, d, d), act=d, ew=UNARY)  # first token, tanh
    P.layer("cls.predictions.transform.dense", params=d * d + d, gemm=(s, d, d), act=s * d, ew=UNARY)  # GELU
    P.layer("cls.predictions.transform.LayerNorm", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)
    # decoder: weight tied to the word embeddings (its gradient lands there), own bias; log-softmax over vocab
    P.layer("cls.predictions.decoder", params=V, gemm=(s, V, d), act=s * V, ew=WIDE_SOFTMAX, tensors=1, casts=2)
    P.layer("cls.seq_relationship", params=2 * d + 2, gemm=(1, 2, d), act=2, ew=CROSS_ENTROPY)
    return P


def make_bert_large_mlm128():
    """HF BertForMaskedLM (bert-large-uncased config) at sequence 128, as tools/ddp_bench.py --model bert-large
    builds it: no pooler, MLM head over all positions, SDPA (fused) attention, dropout 0.1."""
    s, d, h, f, L, V = 128, 1024, 16, 4096, 24, 30522
    P = Profile("bert-large-mlm128", "bert-large-mlm128",
                "HF transformers BertForMaskedLM with bert-large-uncased's config (24 layers, d 1024, 16 heads, ffn "
                "4096, vocab 30522), sequence 128, SDPA attention: tools/ddp_bench.py --model bert-large",
                "one 128-token sequence", 32, [
                    "BERT-large masked-LM training at sequence 128 (BERT pretraining phase 1's length): 335,174,458",
                    "parameters (BertModel without the pooler + MLM transform, LayerNorm and decoder bias; the decoder",
                    "weight is tied to the word embeddings). Post-LayerNorm; dropout 0.1 after attention probabilities",
                    "(inside the fused kernel), attention output and FFN output. Attention through PyTorch's fused SDPA",
                    "(transformers' default): scores stay on chip. The MLM decoder runs over all 128 positions.",
                ])
    P.layer("embeddings", params=V * d + 512 * d + 2 * d, act=s * d, ew=3 * COPY + 2 * ADD, tensors=3,
            ew32=3 * COPY + 2 * ADD)  # fp32 under autocast (ew32=) up to the next GEMM, as in bert_encoder
    P.layer("embeddings.LayerNorm", params=2 * d, act=s * d, ew=NORM + UNARY, ln=NORM, casts=QKV_CASTS,  # + dropout
            ew32=NORM + UNARY)

    def layer(out_casts):
        # query, key, value: three Linear modules (as bert_encoder); HF's backward dispatches per layer about 8
        # operations beyond these layers' count (fp32: 951 backward kernels per step, ~38 per layer, against 28
        # counted, 2 of them LayerNorm's second kernel; results/h200x1-census). The heads are views (view +
        # transpose, an operation each way without a kernel): SDPA reads them strided and writes its output in
        # (batch, sequence) order, so merging the heads back is a view too; PyTorch's profile has no copy of
        # either (results/h200x1-tfm-census9, census-nodp.txt), so neither has a pass here (ew=COPY before
        # 4 December, which the GPU step ran and PyTorch does not)
        P.layer("layer.attention.qkv", params=3 * d * d + 3 * d, gemm=(s, 3 * d, d), act=3 * s * d,
                gemm_ops=(3, 9), tensors=6, casts=6, extra=(1, 9))
        # fused SDPA, one head's scratch: one operation each way, its two products counted here
        P.layer("layer.attention.scores", gemm=(s, s, d), act=s * s, gemm_ops=(1, 1))
        P.layer("layer.attention.context", gemm=(s, d, s), act=s * d, gemm_ops=(1, 1))  # merge heads: a view
        bert_layer_rest(P, s, d, f, out_casts)

    with P.repeat(L - 1, "encoder.layer.0..22"):
        layer(QKV_CASTS)
    layer(1)  # encoder.layer.23
    P.layer("cls.predictions.transform.dense", params=d * d + d, gemm=(s, d, d), act=s * d, ew=UNARY)  # GELU
    P.layer("cls.predictions.transform.LayerNorm", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)
    # decoder: weight tied to the word embeddings (its gradient lands there), own bias; cross-entropy over vocab
    P.layer("cls.predictions.decoder", params=V, gemm=(s, V, d), act=s * V, ew=WIDE_SOFTMAX, tensors=1, casts=2)
    return P


def make_gpt2_xl():
    s, d, h, L, V = 1024, 1600, 25, 48, 50257
    f = 4 * d
    P = Profile("gpt2-xl", "gpt2-xl",
                "GPT-2 XL (Radford et al. 2019) as HF GPT2LMHeadModel: 48 layers, d 1600, 25 heads, seq 1024, "
                "vocab 50257, LM head tied to wte",
                "one 1024-token sequence", 4, [
                    "GPT-2 XL: 1,557,611,200 parameters (HF gpt2-xl). Pre-LayerNorm, learned positions, the",
                    "LM head shares the token embedding (its GEMM has no parameters of its own: the gradient lands",
                    "in wte). Attention as in HF's eager implementation: full 1024x1024 scores, causal mask applied",
                    "after the product. GELU (tanh approximation) counted as one fused pass.",
                ])
    P.layer("transformer.wte+wpe", params=V * d + s * d, act=s * d, ew=2 * COPY + ADD + UNARY,  # + dropout
            tensors=2, ew32=2 * COPY + ADD + UNARY)  # fp32 tables: fp32 under autocast up to ln_1
    with P.repeat(L, "transformer.h.0..47"):
        P.layer("h.ln_1", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)  # its fp32 output cast for c_attn
        P.layer("h.attn.c_attn", params=d * 3 * d + 3 * d, gemm=(s, 3 * d, d), act=3 * s * d)
        P.layer("h.attn.scores", gemm=(s, s, d), act=h * s * s, ew=UNARY + UNARY + SOFTMAX + UNARY)  # scale, mask
        P.layer("h.attn.context", gemm=(s, d, s), act=s * d, ew=COPY)
        P.layer("h.attn.c_proj", params=d * d + d, gemm=(s, d, d), act=s * d, ew=UNARY + ADD,  # dropout, residual
                ew32=ADD)  # onto the fp32 residual stream
        P.layer("h.ln_2", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)
        P.layer("h.mlp.c_fc", params=d * f + f, gemm=(s, f, d), act=s * f, ew=UNARY)  # GELU
        P.layer("h.mlp.c_proj", params=f * d + d, gemm=(s, d, f), act=s * d, ew=UNARY + ADD, ew32=ADD)
    P.layer("transformer.ln_f", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)
    # tied: gradient goes to wte (whose weight autocast casts here); cross-entropy
    P.layer("lm_head", gemm=(s, V, d), act=s * V, ew=WIDE_SOFTMAX, casts=1)
    return P


def make_transformer_xl_large():
    q, m, d, h, f, L = 384, 384, 1024, 16, 4096, 18
    k = q + m
    cutoffs = [0, 20000, 40000, 200000, 267735]
    div = 4
    # Assumed share of the 384 targets per adaptive-softmax cluster (rough Zipf estimate for WT103's vocabulary,
    # not measured): head 351, then 15, 15 and 3 tokens. The tails are < 2% of the softmax FLOPs.
    tokens = [351, 15, 15, 3]
    assert sum(tokens) == q
    P = Profile("transformer-xl-large", "transformer-xl-large",
                "Transformer-XL large, WT103 (Dai et al. 2019; kimiyoung/transformer-xl pytorch/run_wt103_large.sh): "
                "18 layers, d 1024, 16 heads, ffn 4096, tgt_len 384, mem_len 384, adaptive softmax div_val 4",
                "one 384-token segment attending to a 384-token memory", 8, [
                    "Transformer-XL large (WT103) as the authors' PyTorch code builds it with run_wt103_large.sh:",
                    "counting its parameters gives 285,170,506 (the paper's Table 1 says 257M; the profile follows",
                    "the code). Relative attention: qkv_net runs over memory + segment (768 tokens); the AC and BD",
                    "score terms are one FLOP-equivalent GEMM with K = 2*d (q+u against k, q+v against r);",
                    "r_net runs once per batch on 768 position encodings (not per sample) and is left out of the",
                    "GEMMs (its weights are kept). Post-LayerNorm, ReLU FFN, dropout 0.2.",
                    "Adaptive input/softmax (cutoffs 20000/40000/200000, div_val 4, tied weights, projections",
                    "tied except the head's): approximated by assuming %d/%d/%d/%d of the 384 targets fall in the"
                    % tuple(tokens),
                    "head and the three tail clusters; each tail is modelled by its logits GEMM only.",
                ])
    for i in range(4):
        de = d // div ** i
        n = cutoffs[i + 1] - cutoffs[i]
        # gather (COPY), projection to d, index_copy into the output (COPY)
        P.layer("word_emb.%d" % i, params=n * de + d * de, gemm=(tokens[i], d, de), act=tokens[i] * d,
                ew=2 * COPY, tensors=2, casts=2)  # the table and the projection; the fp32 gather, cast
    P.layer("word_emb.scale+drop", act=q * d, ew=UNARY + UNARY)
    P.layer("r_w_bias+r_r_bias", params=2 * h * (d // h))  # shared by all layers: gradient ready last
    with P.repeat(L, "layers.0..17"):
        P.layer("dec_attn.qkv_net", params=3 * d * d, gemm=(k, 3 * d, d), act=k * 3 * d, ew=0.5)  # cat(mems, w)
        P.layer("dec_attn.r_net", params=d * d, tensors=1)
        # AC + BD: bias adds on q, rel_shift copy, sum, scale, mask fill (float), softmax, dropatt, permutes
        P.layer("dec_attn.scores", gemm=(q, k, 2 * d), act=h * q * k,
                ew=COPY + ADD + UNARY + UNARY + SOFTMAX + UNARY + COPY)
        P.layer("dec_attn.context", gemm=(q, d, k), act=q * d, ew=COPY)
        # post-LayerNorm: the residual add onto the last LayerNorm's fp32 output is fp32 under autocast (ew32=)
        P.layer("dec_attn.o_net", params=d * d, gemm=(q, d, d), act=q * d, ew=UNARY + ADD, ew32=ADD)
        P.layer("dec_attn.layer_norm", params=2 * d, act=q * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)
        P.layer("pos_ff.CoreNet.0", params=d * f + f, gemm=(q, f, d), act=q * f, ew=UNARY + UNARY)  # ReLU, dropout
        P.layer("pos_ff.CoreNet.3", params=f * d + d, gemm=(q, d, f), act=q * d, ew=UNARY + ADD, ew32=ADD)
        P.layer("pos_ff.layer_norm", params=2 * d, act=q * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)
    P.layer("drop", act=q * d, ew=UNARY)
    # head cluster: untied projection (tie_projs[0] is False), then logits over 20000 words + 3 cluster tokens
    P.layer("crit.out_projs.0", params=d * d, gemm=(q, d, d), act=q * d)
    P.layer("crit.head", params=cutoffs[1] + 3 * d + 3, gemm=(q, cutoffs[1] + 3, d), act=q * (cutoffs[1] + 3),
            ew=WIDE_SOFTMAX, tensors=3, casts=2)  # out_layers[0].bias, cluster_weight, cluster_bias; weight tied
    for i in range(1, 4):
        de = d // div ** i
        n = cutoffs[i + 1] - cutoffs[i]
        P.layer("crit.tail.%d" % i, params=n, gemm=(tokens[i], n, de), act=tokens[i] * n, ew=WIDE_SOFTMAX,
                tensors=1, casts=2)  # the bias; the weight is tied
    return P


def lm290m_profile(P, s, d, h, f, L, V):
    """The lm290m model of tools/ddp_bench.py (nn.TransformerEncoderLayer, norm_first, GELU, dropout 0,
    NON-causal scaled_dot_product_attention, as the fidelity issue's reference LM): keep the two in step."""
    # fp32 under autocast (ew32=): the fp32 tables' gathers and sum, the LayerNorms, the residual adds onto that
    # stream; each LayerNorm's output cast to bf16 by the GEMM that reads it (casts=1)
    P.layer("tok_emb+pos_emb", params=V * d + s * d, act=s * d, ew=2 * COPY + ADD, tensors=2, ew32=2 * COPY + ADD)
    with P.repeat(L, "blocks.layers.0..%d" % (L - 1)):
        P.layer("norm1", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)  # fp32: in_proj casts it
        # nn.MultiheadAttention's backward dispatches per block about 18 operations beyond its GEMMs and passes:
        # copies of the q/k/v views' gradients, zero-filled gradients, gradient accumulations (fp32 backward:
        # 751 kernels per step, ~41 per block, against 20 counted from the layers below; results/h200x1-census).
        # With batch_first its input is a transposed view, so the projection's bias is added by a kernel of its
        # own (18 strided bf16 adds per step beside 18 GEMMs without a bias epilogue, 0.55 ms), and the output is
        # copied to split the heads (the strided copies, 36 forward and 54 backward: 1.73 ms;
        # results/h200x1-tfm-census2): ADD + COPY, one of its operations and one of the backward's among extra;
        # the copy is through the (sequence, batch) view (perm=), with context's merge the 36 forward copies.
        # Backward, the q/k/v views' gradients are each a zero-filled tensor of the whole output, summed by two
        # adds (54 bf16 fills and 36 bf16 adds per step, 0.45 + 0.59 ms; results/h200x1-tfm-census6,
        # census-nodp.txt): ewb = 3 x 0.5 (a write) + 2 x 1.5 (two reads, a write), their operations among extra
        P.layer("self_attn.in_proj", params=3 * d * d + 3 * d, gemm=(s, 3 * d, d), act=3 * s * d, ew=ADD + COPY,
                extra=(0, 17), ewb=3 * 0.5 + 2 * 1.5, perm=COPY)
        # fused attention (flash SDPA): every score computed, none written to memory; the output of this
        # FLOP-equivalent GEMM is one head's worth (s x s), the scratch the synthetic step writes into
        # (one operation each way, counted here)
        P.layer("self_attn.scores", gemm=(s, s, d), act=s * s, gemm_ops=(1, 1))
        # the heads merged back through the (sequence, batch) view: attn_output.permute(2, 0, 1, 3).contiguous()
        P.layer("self_attn.context", gemm=(s, d, s), act=s * d, ew=COPY, gemm_ops=(0, 0), perm=COPY)
        P.layer("self_attn.out_proj", params=d * d + d, gemm=(s, d, d), act=s * d, ew=ADD, ew32=ADD)  # residual
        P.layer("norm2", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)
        P.layer("linear1", params=d * f + f, gemm=(s, f, d), act=s * f, ew=UNARY)  # GELU
        P.layer("linear2", params=f * d + d, gemm=(s, d, f), act=s * d, ew=ADD, ew32=ADD)  # residual
    P.layer("norm", params=2 * d, act=s * d, ew=NORM, ln=NORM, casts=1, ew32=NORM)
    P.layer("head", params=d * V, gemm=(s, V, d), act=s * V, ew=WIDE_SOFTMAX)  # untied, no bias; cross-entropy


def make_lm290m():
    s, d, h, f, L, V = 512, 1024, 16, 4096, 18, 32000
    P = Profile("lm290m", "lm290m",
                "nvscale tools/ddp_bench.py --model lm290m: GPT-style decoder, 18 layers, d 1024, 16 heads, "
                "ffn 4096, seq 512, vocab 32000, pre-LayerNorm, untied embedding and output projection",
                "one 512-token sequence", 8, [
                    "The reference model of tools/ddp_bench.py: 292,794,368 parameters (ddp_bench.py asserts the",
                    "same count). Token + learned position embeddings, 18 nn.TransformerEncoderLayer blocks",
                    "(norm_first, GELU, dropout 0, no mask -> PyTorch's fused scaled_dot_product_attention:",
                    "scores are not written to memory; non-causal, as issue 9's reference LM), final LayerNorm,",
                    "Linear(1024, 32000, bias=False) head and cross-entropy.",
                ])
    lm290m_profile(P, s, d, h, f, L, V)
    return P


# Reference parameter totals: exact where a published or counted number exists (the checks below and
# tests/unit/test_profile.c use the same numbers, derived independently of this generator's layer lists).
EXPECTED_PARAMS = {
    "resnet50": 25557032,              # torchvision resnet50: sum(p.numel())
    "ssd300": None,                    # no published exact number; checked to be within 22-26M
    "maskrcnn": 44401393 - 222400,     # torchvision maskrcnn_resnet50_fpn (its docs: 44,401,393) less the
                                       # frozen conv1 and layer1 (trainable_backbone_layers=3)
    "bert-large": 336226108,           # HF BertForPreTraining bert-large-uncased (BertModel: 335,141,888)
    "bert-large-mlm128": 335174458,    # HF BertForMaskedLM bert-large-uncased (tools/ddp_bench.py asserts it)
    "bert-large-squad": 335150082,     # model_weights_num in Lambda's BERT-large SQuAD logs (DLE run_squad.py)
    "maskrcnn-nvidia": None,           # not logged; checked to be within 43-45M
    "transformer-xl-large": 285170506, # counted from mem_transformer.py with run_wt103_large.sh's settings
    "gpt2-xl": 1557611200,             # HF gpt2-xl
    "lm290m": 292794368,               # tools/ddp_bench.py LM290M_PARAMS
}

BUILTINS = [make_resnet50, make_ssd300, make_maskrcnn, make_bert_large, make_bert_large_mlm128,
            make_transformer_xl_large, make_gpt2_xl, make_bert_large_squad, make_maskrcnn_nvidia]


def c_ident(key):
    return "nvs_profile_text_" + key.replace("-", "_")


C_COLUMNS = 120  # the sources' width (tests/t/line_length.sh)


def c_literal_lines(esc):
    """One escaped profile line as adjacent C literals of at most C_COLUMNS columns: split after a space (never
    inside an escape, which holds none), the continuation indented 4 more, so the compiled bytes are the line's."""
    out, indent = [], "    "
    while len(indent) + len(esc) + 2 > C_COLUMNS:
        room = C_COLUMNS - len(indent) - 2
        cut = esc.rfind(" ", 0, room)
        if cut <= 0:
            break  # one word longer than the width: left whole
        out.append('%s"%s"' % (indent, esc[:cut + 1]))
        esc, indent = esc[cut + 1:], "        "
    out.append('%s"%s"' % (indent, esc))
    return out


def c_string_lines(text):
    out = []
    for line in text.splitlines():
        esc = line.replace("\\", "\\\\").replace('"', '\\"') + "\\n"
        out.extend(c_literal_lines(esc))
    return "\n".join(out)


def c_file(P):
    return ("/* GENERATED by tools/gen_profiles.py from its description of %s: do not edit by hand; change the\n"
            " * generator, run `python3 tools/gen_profiles.py` and commit both. Source: see the `source` line. */\n"
            "#include \"workload/profiles/builtin.h\"\n\n"
            "const char %s[] =\n%s;\n" % (P.key, c_ident(P.key), c_string_lines(P.text())))


def builtin_h(profiles):
    decls = "\n".join("extern const char %s[];" % c_ident(P.key) for P in profiles)
    return ("/* GENERATED by tools/gen_profiles.py: the built-in model profiles (text in src/workload/profiles/<model>.c).\n"
            " * Internal to src/workload/profile_load.c; everyone else uses src/workload/profile.h. */\n"
            "#ifndef NVS_PROFILES_BUILTIN_H\n#define NVS_PROFILES_BUILTIN_H\n\n"
            "%s\n\n"
            "/* The profile text of built-in `name`, or NULL if there is none. */\n"
            "const char *nvs_profile_builtin_text(const char *name);\n"
            "/* NULL-terminated list of the built-in names, in table order. */\n"
            "const char *const *nvs_profile_builtin_list(void);\n\n#endif\n" % decls)


def builtin_c(profiles):
    rows = "\n".join('    {"%s", %s},' % (P.key, c_ident(P.key)) for P in profiles)
    names = "\n".join('    "%s",' % P.key for P in profiles)
    return ("/* GENERATED by tools/gen_profiles.py: the table of built-in model profiles. To add one, describe the\n"
            " * model in the generator, add it to BUILTINS there and rerun it. */\n"
            "#include \"workload/profiles/builtin.h\"\n\n#include <string.h>\n\n"
            "static const struct {\n    const char *name;\n    const char *text;\n} table[] = {\n%s\n};\n\n"
            "static const char *const names[] = {\n%s\n    NULL,\n};\n\n"
            "const char *nvs_profile_builtin_text(const char *name)\n{\n"
            "    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)\n"
            "        if (!strcmp(table[i].name, name)) return table[i].text;\n"
            "    return NULL;\n}\n\n"
            "const char *const *nvs_profile_builtin_list(void) { return names; }\n" % (rows, names))


def check_totals(P):
    want = EXPECTED_PARAMS[P.key]
    if want is None and P.key == "maskrcnn-nvidia":
        assert 43e6 <= P.params <= 45e6, (P.key, P.params)
    elif want is None:
        assert 22e6 <= P.params <= 26e6, (P.key, P.params)
    else:
        assert P.params == want, "%s: %d parameters, expected %d" % (P.key, P.params, want)
    assert P.nlayers <= 100000


def outputs(root):
    profiles = [make() for make in BUILTINS]
    lm = make_lm290m()
    for P in profiles + [lm]:
        check_totals(P)
    files = {os.path.join(root, "src/workload/profiles/%s.c" % P.key.replace("-", "_")): c_file(P) for P in profiles}
    files[os.path.join(root, "src/workload/profiles/builtin.h")] = builtin_h(profiles)
    files[os.path.join(root, "src/workload/profiles/builtin.c")] = builtin_c(profiles)
    files[os.path.join(root, "tools/profiles/lm290m.prof")] = lm.text()
    return profiles + [lm], files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a committed file differs from the output")
    ap.add_argument("--print", metavar="NAME", help="print one profile's text")
    ap.add_argument("--summary", action="store_true", help="parameters and GFLOP per sample of each profile")
    args = ap.parse_args()
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    profiles, files = outputs(root)
    if args.print:
        for P in profiles:
            if P.key == args.print:
                sys.stdout.write(P.text())
                return 0
        print("gen_profiles: unknown profile '%s' (%s)" % (args.print, ", ".join(P.key for P in profiles)),
              file=sys.stderr)
        return 2
    if args.summary:
        for P in profiles:
            f, b, c, t = P.ops
            # operations a step dispatches (src/train/step.c: + 1 for the optimizer; at half precision each cast
            # is one forward and one backward operation), compared with PyTorch's kernels in docs/fidelity.md
            print("%-22s %14d params  %9.2f GFLOP fwd/sample  %6d layers  batch %d  ops fwd %d bwd %d casts %d "
                  "tensors %d: per step %d (fp32) %d (bf16)  conv output %d elements/sample"
                  % (P.key, P.params, P.flops / 1e9, P.nlayers, P.batch, f, b, c, t, f + b + 1, f + b + 2 * c + 1,
                     P.conv_act))
        return 0
    stale = []
    for path, text in sorted(files.items()):
        try:
            with open(path, encoding="utf-8") as fh:
                old = fh.read()
        except FileNotFoundError:
            old = None
        if old == text:
            continue
        if args.check:
            stale.append(os.path.relpath(path, root))
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
        print("wrote " + os.path.relpath(path, root))
    if stale:
        print("gen_profiles: out of date (rerun tools/gen_profiles.py): " + " ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
