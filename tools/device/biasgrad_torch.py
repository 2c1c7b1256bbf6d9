#!/usr/bin/env python3
"""PyTorch's bias-gradient reduction timed on the shapes build/biasgrad times nvscale's (tools/biasgrad.c): x.sum(0)
of a rows x cols tensor, as Linear's backward sums grad_output over the tokens. Two times per shape: its reduction
kernel's own, from torch.profiler over 50 calls (the memset PyTorch launches before it apart), and the calls'
elapsed time by CUDA events, which a slow host makes launch-bound (each x.sum(0) costs the host ~15-35 us).

    python3 tools/device/biasgrad_torch.py [--elem bf16|fp32] ROWSxCOLS ...

One line per shape, as build/biasgrad prints them: "shape elem torch_reduce_kernel - us GB/s kernel", then
"shape elem torch_sum_events - us GB/s"."""
import argparse
import sys

import torch

from bench_args import dims

REPS = 50


shape = dims(2, "ROWSxCOLS")


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
            for _ in range(REPS):
                x.sum(0)
            torch.cuda.synchronize()
        kern = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                and "reduce" in e.name.lower()]
        gb = x.numel() * x.element_size() / 1e9
        if kern:
            kus = sum(e.time_range.elapsed_us() for e in kern) / REPS
            print("%dx%d %s torch_reduce_kernel - %.2f %.1f %s" % (r, c, a.elem, kus, gb / (kus * 1e-6),
                                                                 kern[0].name[:60].replace(" ", "_")))
        else:
            print("%dx%d %s torch_reduce_kernel - no reduction kernel in the profile" % (r, c, a.elem))
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(REPS):
            y = x.sum(0)
        e1.record()
        torch.cuda.synchronize()
        us = e0.elapsed_time(e1) * 1000.0 / REPS
        print("%dx%d %s torch_sum_events - %.2f %.1f" % (r, c, a.elem, us, gb / (us * 1e-6)))
        del x, y
    return 0


if __name__ == "__main__":
    sys.exit(main())
