#!/usr/bin/env python3
"""PyTorch's bias-gradient reduction timed on the shapes build/biasgrad times nvscale's (tools/biasgrad.c): x.sum(0)
of a rows x cols tensor, as Linear's backward sums grad_output over the tokens, with CUDA events over 50 calls, and
the name of the kernel it launched (torch.profiler, one call).

    python3 tools/device/biasgrad_torch.py [--elem bf16|fp32] ROWSxCOLS ...

One line per shape, as build/biasgrad prints them: "shape elem torch_sum - us GB/s kernel"."""
import argparse
import sys

import torch

REPS = 50


def shape(s):
    try:
        r, c = (int(v) for v in s.split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("%r: expected ROWSxCOLS" % s)
    if r < 1 or c < 1:
        raise argparse.ArgumentTypeError("%r: expected positive sizes" % s)
    return r, c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elem", choices=("bf16", "fp32"), default="bf16")
    ap.add_argument("shapes", nargs="+", type=shape)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("biasgrad_torch: no CUDA device", file=sys.stderr)
        return 1
    dt = torch.bfloat16 if a.elem == "bf16" else torch.float32
    for r, c in a.shapes:
        x = torch.randn(r, c, device="cuda", dtype=dt)
        y = x.sum(0)
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            x.sum(0)
            torch.cuda.synchronize()
        names = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(REPS):
            y = x.sum(0)
        e1.record()
        torch.cuda.synchronize()
        us = e0.elapsed_time(e1) * 1000.0 / REPS
        gb = x.numel() * x.element_size() / 1e9
        print("%dx%d %s torch_sum - %.2f %.1f %s" % (r, c, a.elem, us, gb / (us * 1e-6),
                                                     (names[0] if names else "?")[:60].replace(" ", "_")))
        del x, y
    return 0


if __name__ == "__main__":
    sys.exit(main())
