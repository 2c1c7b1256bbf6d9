#!/usr/bin/env python3
"""Issue 9: how many kernels PyTorch launches per training step, and from which pass, read from the chrome
traces that `tools/ddp_bench.py --profile --trace-dir DIR` keeps. nvscale's framework model charges host work
per framework kernel (src/workload/framework.h); this census is what its per-layer counts (tools/gen_profiles.py)
are checked against.

    python3 tools/device/kernel_census.py TRACE.json... [--top 40]   one JSON line per trace on stdout

Per trace, over the steps marked nvs_step_<i> (the first dropped, as ddp_bench's own analysis does):
  kernels_per_step          every kernel (memcpy and memset not counted: they are not kernel launches)
  by_pass                   kernels per step by the thread that launched them: "main" (forward, loss, optimizer,
                            zero_grad: the Python thread) and "autograd" (the backward pass: autograd's engine
                            thread on the GPU's device); "optimizer" (multi_tensor_apply / fused optimizer
                            kernels) is split out of "main"
  by_kind                   kernels per step by ddp_bench.kernel_kind
  top                       the most frequent kernel names, calls per step and pass
  by_kind_us                GPU time per step by kind (kernels' durations summed, overlaps counted twice)
  top_time                  the kernel names that take the most GPU time: us and calls per step, kind and pass
A kernel is matched to its launch by the trace's correlation id; one with no launch found is counted under
"unmatched". Exit 2 on a file that is not such a trace.
"""
import argparse
import bisect
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ddp_bench  # noqa: E402 - kernel_kind, the harness's own kernel classes (no torch at import)


def census(trace, top):
    evs = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(evs, list):
        raise ValueError("no traceEvents list")
    windows, launches, kernels = [], {}, []
    main_tid = None
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = str(e.get("cat", "")).lower()
        name = str(e.get("name", ""))
        try:
            ts, dur = float(e["ts"]), float(e.get("dur", 0.0))
        except (KeyError, TypeError, ValueError):
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if cat == "user_annotation" and name.startswith("nvs_step_"):
            windows.append((ts, ts + dur))
            main_tid = e.get("tid")  # the step is annotated on the Python thread
        elif cat in ("cuda_runtime", "cuda_driver") and "correlation" in args:
            launches[args["correlation"]] = e.get("tid")
        elif cat == "kernel":
            kernels.append((ts, name, args.get("correlation"), dur))
    windows.sort()
    if len(windows) < 2:
        raise ValueError("fewer than 2 nvs_step_ marks")
    windows = windows[1:]
    starts = [w[0] for w in windows]
    n = len(windows)
    by_pass, by_kind = collections.Counter(), collections.Counter()
    names = collections.Counter()
    kind_us, name_us, name_n = collections.Counter(), collections.Counter(), collections.Counter()
    for ts, name, corr, dur in kernels:
        i = bisect.bisect_right(starts, ts) - 1
        if i < 0 or ts > windows[i][1]:
            continue
        kind = ddp_bench.kernel_kind(name)
        tid = launches.get(corr, "?")
        if tid == "?":
            p = "unmatched"
        elif kind == "optimizer":
            p = "optimizer"
        else:
            p = "main" if tid == main_tid else "autograd"
        by_pass[p] += 1
        by_kind[kind] += 1
        names[(p, name[:120])] += 1
        kind_us[kind] += dur
        name_us[(kind, p, name[:160])] += dur
        name_n[(kind, p, name[:160])] += 1
    total = sum(by_pass.values())
    return dict(steps=n, kernels_per_step=total / n,
                by_pass={k: v / n for k, v in sorted(by_pass.items())},
                by_kind={k: v / n for k, v in sorted(by_kind.items())},
                top=[dict(name=nm, passname=p, per_step=c / n) for (p, nm), c in names.most_common(top)],
                by_kind_us={k: round(v / n, 1) for k, v in sorted(kind_us.items())},
                top_time=[dict(name=nm, kind=k, passname=p, us_per_step=round(us / n, 1),
                               calls_per_step=name_n[(k, p, nm)] / n)
                          for (k, p, nm), us in name_us.most_common(top)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    if a.top < 0:
        ap.error("--top must be >= 0, not %d" % a.top)
    for path in a.traces:
        try:
            with open(path) as fh:
                res = census(json.load(fh), a.top)
        except (OSError, ValueError) as e:
            print("kernel_census: %s: %s" % (path, e), file=sys.stderr)
            sys.exit(2)
        res["trace"] = os.path.basename(path)
        print(json.dumps(res))


if __name__ == "__main__":
    main()
