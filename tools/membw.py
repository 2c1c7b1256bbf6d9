#!/usr/bin/env python3
"""Host memory copy bandwidth of this machine with 1..T threads (a STREAM-like copy through PyTorch's CPU
kernels, which split a large copy over torch.set_num_threads threads). GB/s counts bytes read plus bytes written
(2 x the buffer per copy), as STREAM's "Copy" does. For issue 10: the host-memory budget that NCCL's SHM transport
shares (it moves data GPU -> pinned host memory -> GPU).

    python3 tools/membw.py [--gib 2] [--threads 1,2,4,8,16,32] [--json OUT]
"""
import argparse
import json
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gib", type=float, default=2.0, help="buffer size in GiB (default 2)")
    ap.add_argument("--threads", default="1,2,4,8,16,32")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    try:
        threads = [int(t) for t in a.threads.split(",")]
    except ValueError:
        ap.error("--threads %s: expected whole numbers, e.g. 1,2,4" % a.threads)
    if a.gib <= 0 or a.reps < 1 or not threads or min(threads) < 1:
        ap.error("--gib must be > 0, --reps >= 1, threads >= 1")
    try:
        import torch
    except ImportError as e:
        print("membw: PyTorch is not installed here (%s)" % e, file=sys.stderr)
        return 1
    n = int(a.gib * (1 << 30) / 4)
    src = torch.ones(n, dtype=torch.float32)
    dst = torch.empty(n, dtype=torch.float32)
    dst.copy_(src)  # touch every page
    rows = []
    for t in threads:
        torch.set_num_threads(t)
        times = []
        for _ in range(a.reps):
            t0 = time.perf_counter()
            dst.copy_(src)
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        gbps = 2.0 * n * 4 / med / 1e9
        rows.append({"threads": t, "copy_gbps": gbps, "median_s": med})
        print("threads %3d  copy %7.1f GB/s (read + write)" % (t, gbps))
    out = {"tool": "membw", "buffer_bytes": n * 4, "reps": a.reps, "rows": rows, "torch": torch.__version__}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
