#!/usr/bin/env python3
"""Issue 9: which C workload slows down the way Python does when the vCPU changes speed (docs/fidelity.md,
"What moves it"). On ONE thread pinned to one vCPU, for S seconds, sample after sample: ddp_bench's interpreter
probe (py_probe: 20,000 dict stores), then build/libcpuprobe.so's three kinds for MS ms each (0 nvscale's work
unit, the L1-resident pointer walk; 1 interpreter-like dispatch; 2 a 512 MiB walk). Prints one JSON line per
sample and, last, a summary: per kind, the correlation of its time per unit with Python's probe time, and the
spread (p90/p10) of each. A kind that tracks Python's speed has correlation near 1 and the same spread.

    python3 tools/device/probe_compare.py [--cpu 2] [--seconds 90] [--ms 5] [--lib build/libcpuprobe.so]
    python3 tools/device/probe_compare.py --report SAMPLES.jsonl [--fast-us 1000] [--slow-us 1300]

--report reads such a record back (no probing) and prints the table of docs/fidelity.md: the samples split by
the Python probe into fast (under --fast-us) and slow (over --slow-us) states, each kind's median rate in both
and how much slower the slow state is, and how long the states held.
"""
import argparse, ctypes, json, math, os, statistics, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ddp_bench  # noqa: E402 - its py_probe, the very probe the harness records (no torch at import)

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--cpu", type=int, default=2)
ap.add_argument("--seconds", type=float, default=90.0)
ap.add_argument("--ms", type=float, default=5.0)
ap.add_argument("--lib", default="build/libcpuprobe.so")
ap.add_argument("--report", metavar="SAMPLES.jsonl")
ap.add_argument("--fast-us", type=float, default=1000.0)
ap.add_argument("--slow-us", type=float, default=1300.0)
a = ap.parse_args()
KINDS = ("unit_l1", "interp", "mem512")


def report(path):
    try:
        rows = [json.loads(x) for x in open(path) if x.strip() and '"summary"' not in x]
    except OSError as e:
        ap.error("--report %s: %s" % (path, e.strerror))
    except ValueError as e:
        ap.error("--report %s: not a probe_compare record (%s)" % (path, e))
    if not rows or any(not isinstance(r, dict) or not isinstance(r.get(k), (int, float))
                       for r in rows for k in ("t", "py_us") + KINDS):
        ap.error("--report %s: not a probe_compare record" % path)
    fast = [r for r in rows if r["py_us"] < a.fast_us]
    slow = [r for r in rows if r["py_us"] > a.slow_us]
    if not fast or not slow:
        ap.error("--report %s: no samples in one of the states" % path)
    print("%d samples: %d fast (python probe < %g us), %d slow (> %g us)" % (len(rows), len(fast), a.fast_us,
                                                                              len(slow), a.slow_us))
    print("| work | fast state | slow state | slower by |")
    print("|---|---:|---:|---:|")
    f, s_ = statistics.median(r["py_us"] for r in fast), statistics.median(r["py_us"] for r in slow)
    print("| python probe (us) | %.0f | %.0f | %.2fx |" % (f, s_, s_ / f))
    for k in KINDS:  # rates: higher is faster
        f, s_ = statistics.median(r[k] for r in fast), statistics.median(r[k] for r in slow)
        print("| %s (per us) | %.2f | %.2f | %.2fx |" % (k, f, s_, f / s_))
    # how long a state held: runs of consecutive samples on one side of the thresholds
    period = (rows[-1]["t"] - rows[0]["t"]) / max(1, len(rows) - 1)
    held, state, count = [], None, 0
    for r in rows:
        st = "fast" if r["py_us"] < a.fast_us else "slow" if r["py_us"] > a.slow_us else None
        if st != state:
            if state and count:
                held.append(count * period)
            state, count = st, 0
        count += 1
    long_ = [h for h in held if h >= 0.5]
    print("a sample every %.1f ms; states held for 0.5 s or more: %d times, longest %.1f s"
          % (period * 1e3, len(long_), max(long_) if long_ else 0.0))


if a.report:
    report(a.report)
    sys.exit(0)
if not (a.seconds > 0 and a.ms > 0):
    ap.error("--seconds and --ms must be > 0")
if not os.path.isfile(a.lib):
    ap.error("%s: no such file (make build/libcpuprobe.so)" % a.lib)
os.sched_setaffinity(0, {a.cpu})
lib = ctypes.CDLL(os.path.abspath(a.lib))
lib.cpuprobe_sample.restype = ctypes.c_double
lib.cpuprobe_sample.argtypes = [ctypes.c_int, ctypes.c_double]
rows, end = [], time.time() + a.seconds
while time.time() < end:
    r = {"t": time.time(), "py_us": ddp_bench.py_probe()}
    for k, name in enumerate(KINDS):
        r[name] = lib.cpuprobe_sample(k, a.ms)  # units per microsecond
    rows.append(r)
    print(json.dumps(r), flush=True)


def corr(x, y):
    mx, my = statistics.mean(x), statistics.mean(y)
    sx = math.sqrt(sum((v - mx) ** 2 for v in x))
    sy = math.sqrt(sum((v - my) ** 2 for v in y))
    return sum((u - mx) * (v - my) for u, v in zip(x, y)) / (sx * sy) if sx > 0 and sy > 0 else float("nan")


def spread(x):
    q = statistics.quantiles(x, n=10)
    return q[-1] / q[0]


py = [r["py_us"] for r in rows]
summary = {"samples": len(rows), "cpu": a.cpu, "py_probe_us": {"p10": statistics.quantiles(py, n=10)[0],
           "median": statistics.median(py), "p90": statistics.quantiles(py, n=10)[-1], "spread": spread(py)}}
for name in KINDS:
    per_unit = [1.0 / r[name] for r in rows]  # time per unit: grows when the vCPU slows, as py_us does
    summary[name] = {"corr_with_py": corr(per_unit, py), "spread": spread(per_unit),
                     "median_rate": statistics.median(r[name] for r in rows)}
print(json.dumps({"summary": summary}), flush=True)
