#!/usr/bin/env python3
"""PyTorch DDP reference harness for nvscale's synthetic training step (a reference to compare with, not the
product).

    torchrun --standalone --nproc_per_node N tools/ddp_bench.py --model resnet50|lm290m --batch B
        [--precision fp32|tf32|bf16] [--steps 20] [--warmup 5] [--bucket-cap-mb 25] [--optimizer sgd|adamw]
        [--channels-last] [--json OUT]

(plain `python3 tools/ddp_bench.py ...` runs it as one DDP process.)

Models (synthetic data, generated once on the GPU):
  resnet50  torchvision.models.resnet50(weights=None), 224x224 images, 1000 classes, cross-entropy
  lm290m    GPT-style decoder, the model of tools/profiles/lm290m.prof: token + learned position embeddings,
            18 x nn.TransformerEncoderLayer(d 1024, 16 heads, ffn 4096, GELU, norm_first, dropout 0) with a
            causal mask, final LayerNorm, untied Linear(1024, 32000, bias=False); random tokens, next-token
            cross-entropy over the vocabulary, sequence 512
Optimizer: SGD with momentum 0.9 by default for both, because nvscale's optimizer pass is SGD-momentum-like
(read parameter, gradient and momentum, write parameter and momentum); --optimizer adamw for the usual LM
choice (one more state tensor per parameter).

Precision: fp32 = TF32 off for cuBLAS matmuls and cuDNN convolutions; tf32 = TF32 on for both; bf16 =
torch.autocast(bfloat16) with fp32 parameters (DDP all-reduces fp32 gradients), TF32 off. The settings and the
TF32 behaviour actually observed (a matmul and a convolution whose fp32 result differs under TF32) are printed
and reported.

Measured per step with torch.cuda.synchronize + time.perf_counter, medians over the timed steps:
  step_us     the DDP step: zero_grad, forward, backward with DDP's bucketed all-reduce overlapping it, optimizer
  compute_us  the same step inside model.no_sync() (no all-reduce)
Each is the slowest rank's median (all ranks' medians are gathered and listed). exposed_comm_us = step -
compute. flat_allreduce_us: one all-reduce of a flat fp32 buffer as large as all gradients (for comparison).
Output: one JSON object on stdout (rank 0) and in --json OUT; progress and settings on stderr.
Exit status: 0 ok, 1 runtime error (no PyTorch, no GPU, CUDA/NCCL failure), 2 usage error.
"""
import argparse
import contextlib
import json
import os
import socket
import statistics
import sys
import time

LM290M = dict(vocab=32000, d_model=1024, layers=18, heads=16, ffn=4096, seq=512)
RESNET50_PARAMS = 25_557_032  # torchvision resnet50 = nvscale's built-in resnet50 profile


def lm290m_params(vocab, d_model, layers, heads, ffn, seq):
    """Parameters of the lm290m model, counted from its definition below."""
    d = d_model
    per_layer = (3 * d * d + 3 * d) + (d * d + d) + (ffn * d + ffn) + (d * ffn + d) + 2 * (2 * d)
    return vocab * d + seq * d + layers * per_layer + 2 * d + d * vocab


LM290M_PARAMS = 292_794_368  # = lm290m_params(**LM290M) = total of tools/profiles/lm290m.prof
assert lm290m_params(**LM290M) == LM290M_PARAMS


def die(code, msg):
    print("ddp_bench: error: " + msg, file=sys.stderr)
    sys.exit(code)


def parse_args(argv):
    def count(lo):
        def conv(s):
            try:
                v = int(s)
            except ValueError:
                raise argparse.ArgumentTypeError("'%s' is not a whole number" % s)
            if v < lo or v > 1_000_000:
                raise argparse.ArgumentTypeError("%s: must be %d..1000000" % (s, lo))
            return v
        return conv

    def mbytes(s):
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError("'%s' is not a number" % s)
        if not 0 < v <= 65536:
            raise argparse.ArgumentTypeError("%s: must be > 0 and <= 65536 (MB)" % s)
        return v

    doc = (__doc__ or "ddp_bench\n\n").split("\n\n", 1)
    ap = argparse.ArgumentParser(prog="ddp_bench.py", description=doc[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc[1])
    ap.add_argument("--model", choices=["resnet50", "lm290m"], required=True)
    ap.add_argument("--batch", type=count(1), required=True, help="samples per GPU per step")
    ap.add_argument("--precision", choices=["fp32", "tf32", "bf16"], default="fp32")
    ap.add_argument("--steps", type=count(1), default=20, help="timed steps per mode (default 20)")
    ap.add_argument("--warmup", type=count(0), default=5, help="untimed steps before each mode (default 5)")
    ap.add_argument("--bucket-cap-mb", type=mbytes, default=25.0, help="DDP bucket_cap_mb (default 25)")
    ap.add_argument("--optimizer", choices=["sgd", "adamw"], default="sgd")
    ap.add_argument("--channels-last", action="store_true", help="resnet50: NHWC memory format")
    ap.add_argument("--json", metavar="OUT", help="also write the JSON object to OUT (rank 0)")
    ap.add_argument("--no-cudnn-benchmark", action="store_true",
                    help="leave torch.backends.cudnn.benchmark off (default: on, as training benchmarks with fixed "
                         "shapes run: NVIDIA DeepLearningExamples, Lambda's PyTorch benchmark)")
    ap.add_argument("--breakdown", action="store_true",
                    help="profile 3 compute-only steps and report GPU time per kernel kind (rank 0)")
    args = ap.parse_args(argv)
    if args.json:
        parent = os.path.dirname(os.path.abspath(args.json))
        if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
            ap.error("--json %s: directory %s does not exist or is not writable" % (args.json, parent))
    return args


def build_lm(torch, nn, vocab, d_model, layers, heads, ffn, seq):
    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok_emb = nn.Embedding(vocab, d_model)
            self.pos_emb = nn.Embedding(seq, d_model)
            block = nn.TransformerEncoderLayer(d_model, heads, ffn, dropout=0.0, activation="gelu",
                                               batch_first=True, norm_first=True)
            self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab, bias=False)
            # plain attributes, not buffers: DDP would broadcast buffers from rank 0 at every forward
            self.causal = self.positions = None

        def forward(self, tokens):
            s = tokens.size(1)
            if self.causal is None or self.causal.device != tokens.device or self.causal.size(0) != s:
                self.causal = nn.Transformer.generate_square_subsequent_mask(s, device=tokens.device)
                self.positions = torch.arange(s, device=tokens.device)
            h = self.tok_emb(tokens) + self.pos_emb(self.positions)
            # mask + is_causal: PyTorch drops the mask and runs causal scaled_dot_product_attention
            h = self.blocks(h, mask=self.causal, is_causal=True)
            return self.head(self.norm(h))

    return LM()


def set_tf32(torch, on):
    """TF32 for cuBLAS matmuls and cuDNN convolutions. PyTorch >= 2.9 has fp32_precision and deprecates the
    allow_tf32 flags (mixing the two is an error in places), so use the new one where it exists."""
    mm, conv = torch.backends.cuda.matmul, getattr(torch.backends.cudnn, "conv", None)
    if hasattr(mm, "fp32_precision") and conv is not None and hasattr(conv, "fp32_precision"):
        mm.fp32_precision = "tf32" if on else "ieee"
        conv.fp32_precision = "tf32" if on else "ieee"
        return {"api": "fp32_precision", "matmul": mm.fp32_precision, "cudnn_conv": conv.fp32_precision}
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on
    return {"api": "allow_tf32", "matmul": torch.backends.cuda.matmul.allow_tf32,
            "cudnn_conv": torch.backends.cudnn.allow_tf32}


def observe_tf32(torch, dev):
    """1 + 2^-12 needs more than TF32's 10 mantissa bits: a sum of 256 of them is 256.0625 in fp32, 256 in TF32."""
    x = 1.0 + 2.0 ** -12
    a = torch.full((64, 256), x, device=dev)
    mm = (a @ torch.ones((256, 64), device=dev))[0, 0].item()
    w = torch.full((8, 256, 1, 1), x, device=dev)
    cv = torch.nn.functional.conv2d(torch.ones((1, 256, 8, 8), device=dev), w)[0, 0, 0, 0].item()
    return {"matmul_tf32_observed": mm != 256 * x, "conv_tf32_observed": cv != 256 * x}


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch
        import torch.distributed as dist
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.nn.parallel import DistributedDataParallel as DDP
    except ImportError as e:
        die(1, "PyTorch is not installed here (%s): run this on the GPU machine" % e)
    if not torch.cuda.is_available():
        die(1, "no CUDA GPU is visible to PyTorch")
    if "RANK" not in os.environ:  # plain `python3 ddp_bench.py`: one DDP process
        os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29511")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if local_rank >= torch.cuda.device_count():
        die(1, "LOCAL_RANK %d but only %d GPUs visible" % (local_rank, torch.cuda.device_count()))
    dev = torch.device("cuda", local_rank)
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", device_id=dev)
    rank, world = dist.get_rank(), dist.get_world_size()

    def log(msg):
        if rank == 0:
            print("ddp_bench: " + msg, file=sys.stderr, flush=True)

    # cuDNN autotuning for fixed input shapes: without it cuDNN's heuristics pick legacy FP32 convolution kernels
    # (dgrad_engine, wgrad_alg0_engine) that take most of a ResNet-50 step on Hopper
    torch.backends.cudnn.benchmark = not args.no_cudnn_benchmark
    tf32 = set_tf32(torch, args.precision == "tf32")
    observed = observe_tf32(torch, dev)
    autocast = (lambda: torch.autocast("cuda", dtype=torch.bfloat16)) if args.precision == "bf16" else \
        contextlib.nullcontext

    torch.manual_seed(1234 + rank)
    if args.model == "resnet50":
        import torchvision
        model = torchvision.models.resnet50(weights=None)
        want_params = RESNET50_PARAMS
        x = torch.randn(args.batch, 3, 224, 224, device=dev)
        y = torch.randint(0, 1000, (args.batch,), device=dev)
        if args.channels_last:
            model = model.to(memory_format=torch.channels_last)
            x = x.contiguous(memory_format=torch.channels_last)
        sample = "one 224x224 RGB image"
        versions = {"torchvision": torchvision.__version__}

        def loss_fn(out):
            return F.cross_entropy(out, y)
    else:
        model = build_lm(torch, nn, **LM290M)
        want_params = LM290M_PARAMS
        tokens = torch.randint(0, LM290M["vocab"], (args.batch, LM290M["seq"] + 1), device=dev)
        x, y = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()
        sample = "one %d-token sequence" % LM290M["seq"]
        versions = {}

        def loss_fn(out):
            return F.cross_entropy(out.reshape(-1, out.size(-1)).float(), y.reshape(-1))
    params = sum(p.numel() for p in model.parameters())
    if params != want_params:
        die(1, "%s has %d parameters, expected %d: the model and its nvscale profile no longer match"
            % (args.model, params, want_params))
    model = model.to(dev)
    ddp = DDP(model, device_ids=[local_rank], bucket_cap_mb=args.bucket_cap_mb)
    if args.optimizer == "sgd":
        opt = torch.optim.SGD(ddp.parameters(), lr=1e-4, momentum=0.9)
    else:
        opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)

    log("model %s, %d parameters, world size %d, batch %d per GPU, precision %s, optimizer %s, bucket cap %g MB"
        % (args.model, params, world, args.batch, args.precision, args.optimizer, args.bucket_cap_mb))
    log("TF32 settings (%s): matmul %s, cuDNN conv %s; observed: matmul %s, conv %s"
        % (tf32["api"], tf32["matmul"], tf32["cudnn_conv"],
           "TF32" if observed["matmul_tf32_observed"] else "fp32",
           "TF32" if observed["conv_tf32_observed"] else "fp32"))
    if args.precision == "fp32" and (observed["matmul_tf32_observed"] or observed["conv_tf32_observed"]):
        log("WARNING: fp32 requested but TF32 was observed: the fp32 numbers are not fp32")

    def steps(n, sync):
        times = []
        for _ in range(n):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            with (contextlib.nullcontext() if sync else ddp.no_sync()):
                opt.zero_grad(set_to_none=True)
                with autocast():
                    loss = loss_fn(ddp(x))
                loss.backward()
            opt.step()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e6)
        return times

    # DDP first: its first iterations rebuild the buckets in the order gradients became ready
    dist.barrier()
    steps(args.warmup, True)
    dist.barrier()
    step_us = statistics.median(steps(args.steps, True))
    dist.barrier()
    steps(args.warmup, False)
    dist.barrier()
    compute_us = statistics.median(steps(args.steps, False))

    breakdown = None
    if args.breakdown:
        # Where PyTorch's GPU time goes, by kernel kind: to compare with nvscale's GEMM / memory-bound split.
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            steps(3, False)
        kinds = {"gemm_conv": 0.0, "norm": 0.0, "elementwise_other": 0.0, "nccl": 0.0}
        for ev in prof.key_averages():
            t = getattr(ev, "device_time_total", None)
            if t is None:
                t = getattr(ev, "cuda_time_total", 0.0)
            name = ev.key.lower()
            if ev.key.startswith("aten::") or ev.key.startswith("ProfilerStep") or not t:
                continue
            if "nccl" in name:
                kinds["nccl"] += t
            elif any(k in name for k in ("gemm", "conv", "cutlass", "xmma", "cudnn", "implicit", "dgrad", "wgrad",
                                         "sm90", "sm80", "fprop", "flash", "attention", "fmha")):
                kinds["gemm_conv"] += t
            elif "norm" in name:
                kinds["norm"] += t
            else:
                kinds["elementwise_other"] += t
        breakdown = {k: v / 3.0 for k, v in kinds.items()}  # us per step
        top = sorted(prof.key_averages(), key=lambda e: -(getattr(e, "device_time_total", 0.0) or 0.0))[:12]
        log("breakdown per compute-only step (us): %s" % json.dumps({k: round(v) for k, v in breakdown.items()}))
        for e in top:
            log("  %10.0f us/step  %s" % ((getattr(e, "device_time_total", 0.0) or 0.0) / 3.0, e.key[:110]))

    flat = torch.ones(params, dtype=torch.float32, device=dev)
    ar = []
    for i in range(3 + 10):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        dist.all_reduce(flat)
        torch.cuda.synchronize()
        if i >= 3:
            ar.append((time.perf_counter() - t0) * 1e6)
    del flat
    mine = torch.tensor([step_us, compute_us, statistics.median(ar), torch.cuda.max_memory_allocated(dev)],
                        dtype=torch.float64, device=dev)
    every = [torch.zeros_like(mine) for _ in range(world)]
    dist.all_gather(every, mine)
    every = [t.tolist() for t in every]

    if rank == 0:
        step = max(r[0] for r in every)
        compute = max(r[1] for r in every)
        nccl = torch.cuda.nccl.version()
        out = {
            "tool": "ddp_bench",
            "model": args.model,
            "sample": sample,
            "params": params,
            "world_size": world,
            "batch_per_gpu": args.batch,
            "precision": args.precision,
            "autocast_dtype": "bfloat16" if args.precision == "bf16" else None,
            "grad_dtype": "float32",
            "tf32": dict(tf32, **observed),
            "optimizer": "SGD(momentum=0.9)" if args.optimizer == "sgd" else "AdamW",
            "channels_last": bool(args.channels_last and args.model == "resnet50"),
            "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
            "bucket_cap_mb": args.bucket_cap_mb,
            "broadcast_buffers": True,  # DDP default: resnet50's batch-norm statistics go out at each forward
            "first_bucket_bytes": getattr(dist, "_DEFAULT_FIRST_BUCKET_BYTES", None),
            "steps": args.steps,
            "warmup": args.warmup,
            "step_us": step,
            "compute_us": compute,
            "exposed_comm_us": step - compute,
            "step_us_per_rank": [r[0] for r in every],
            "compute_us_per_rank": [r[1] for r in every],
            "samples_per_s": world * args.batch / (step / 1e6),
            "samples_per_s_compute": world * args.batch / (compute / 1e6),
            "flat_allreduce_bytes": params * 4,
            "flat_allreduce_us": max(r[2] for r in every),
            "max_memory_allocated_bytes": int(max(r[3] for r in every)),
            "gpu": torch.cuda.get_device_name(dev),
            "hostname": socket.gethostname(),
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
            "nccl": ".".join(str(v) for v in nccl) if isinstance(nccl, tuple) else str(nccl),
            "env_nccl": {k: v for k, v in sorted(os.environ.items()) if k.startswith("NCCL_")},
            "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        out.update(versions)
        if breakdown is not None:
            out["breakdown_us_per_step"] = breakdown
        text = json.dumps(out, sort_keys=False)
        print(text, flush=True)
        if args.json:
            tmp = args.json + ".tmp.%d" % os.getpid()
            try:
                with open(tmp, "w") as fh:
                    fh.write(text + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, args.json)
            except OSError as e:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                die(1, "cannot write %s: %s" % (args.json, e))
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
