#!/usr/bin/env python3
"""PyTorch's LayerNorm kernels timed on the shapes build/lnbench times nvscale's (tools/lnbench.c): the forward
(aten.native_layer_norm) and the backward (aten.native_layer_norm_backward, the input and both parameter gradients)
of a rows x cols input with a cols-wide weight and bias, eps 1e-5, called directly so that no autograd work is
timed. Each kernel's own time from torch.profiler over the calls (H200, 4096 x 1024 fp32, the step's LayerNorm
under autocast: vectorized_layer_norm_kernel 14.5 us, layer_norm_grad_input_kernel_vectorized 14.2,
GammaBetaBackwardCUDAKernelTemplate<float, float, 32, 32, 256, false, true, false> 22.6).

    python3 tools/device/ln_torch.py [--elem fp32|bf16|fp16] [--reps N] ROWSxCOLS ...

One line per shape and kernel, as build/lnbench prints them: "shape elem torch_kernel - us calls_per_op kernel"
(calls_per_op: the kernel's launches per forward or backward call; us: per launch)."""
import argparse
import sys
from collections import defaultdict

import torch

from bench_args import dims

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


shape = dims(2, "ROWSxCOLS")


def profile(fn, reps):
    """{kernel name: [total us, launches]} of reps calls of fn, memsets and copies apart"""
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    out = defaultdict(lambda: [0.0, 0])
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA or e.name.startswith(("Memset", "Memcpy")):
            continue
        out[e.name][0] += e.time_range.elapsed_us()
        out[e.name][1] += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elem", choices=sorted(DTYPES), default="fp32")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("shapes", nargs="+", type=shape)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("ln_torch: no CUDA device", file=sys.stderr)
        return 1
    dt = DTYPES[a.elem]
    for r, c in a.shapes:
        x = torch.randn(r, c, device="cuda", dtype=dt)
        dy = torch.randn(r, c, device="cuda", dtype=dt)
        w = 1 + 0.5 * torch.rand(c, device="cuda", dtype=dt)
        b = 0.5 * torch.rand(c, device="cuda", dtype=dt)
        y, mean, rstd = torch.ops.aten.native_layer_norm(x, [c], w, b, 1e-5)
        ref = torch.nn.functional.layer_norm(x.float(), [c], w.float(), b.float(), 1e-5)
        assert torch.allclose(y.float(), ref, atol=0.05, rtol=0.02), "layer_norm disagrees with itself"
        name = "%dx%d" % (r, c)

        def fwd():
            torch.ops.aten.native_layer_norm(x, [c], w, b, 1e-5)

        def bwd():
            torch.ops.aten.native_layer_norm_backward(dy, x, [c], mean, rstd, w, b, [True, True, True])

        for op, fn in (("ln_fwd", fwd), ("ln_bwd", bwd)):
            for kname, (us, n) in sorted(profile(fn, a.reps).items()):
                short = kname[5:] if kname.startswith("void ") else kname
                short = short.replace("(anonymous namespace)::", "").split("(")[0].replace(" ", "")[:120]
                print("%s %s torch_%s - %.2f %g %s" % (name, a.elem, op, us / n, n / a.reps, short))
        del x, dy, y, mean, rstd, ref
    return 0


if __name__ == "__main__":
    sys.exit(main())
