#!/usr/bin/env python3
"""PyTorch's copy of a transposed view timed on the shapes build/viewbench times nvscale's (tools/viewbench.c):
x.transpose(0, 1).contiguous() of an A x B x R tensor, as nn.MultiheadAttention with batch_first copies its heads
through a (sequence, batch) view. Its copy kernel's own time, from torch.profiler over 50 calls.

    python3 tools/device/viewcopy_torch.py [--elem bf16|fp32] AxBxR ...

One line per shape, as build/viewbench prints them: "shape elem torch_copy_kernel us GB/s kernel"."""
import argparse
import sys

import torch

from bench_args import dims

REPS = 50


shape = dims(3, "AxBxR")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elem", choices=("bf16", "fp32"), default="bf16")
    ap.add_argument("shapes", nargs="+", type=shape)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("viewcopy_torch: no CUDA device", file=sys.stderr)
        return 1
    dt = torch.bfloat16 if a.elem == "bf16" else torch.float32
    for s in a.shapes:
        x = torch.randn(*s, device="cuda", dtype=dt)
        y = x.transpose(0, 1).contiguous()
        assert torch.equal(y[1, 0], x[0, 1]) if min(s[:2]) > 1 else True
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(REPS):
                x.transpose(0, 1).contiguous()
            torch.cuda.synchronize()
        kern = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        gb = 2 * x.numel() * x.element_size() / 1e9
        name = "x".join(str(v) for v in s)
        if kern:
            kus = sum(e.time_range.elapsed_us() for e in kern) / REPS
            print("%s %s torch_copy_kernel %.2f %.1f %s" % (name, a.elem, kus, gb / (kus * 1e-6),
                                                            kern[0].name[:60].replace(" ", "_")))
        else:
            print("%s %s torch_copy_kernel - no kernel in the profile" % (name, a.elem))
        del x, y
    return 0


if __name__ == "__main__":
    sys.exit(main())
