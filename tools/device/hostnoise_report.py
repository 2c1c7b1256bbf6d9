#!/usr/bin/env python3
"""The figures docs/fidelity.md quotes from the hostnoise calls (issue 9), computed from their committed records.

    python3 tools/device/hostnoise_report.py [--gpu-csv results/h200x1-hostnoise2/gpu.csv]
        [--detail results/h200x1-hostnoise3] [--probe results/h200x1-hostnoise4]

--gpu-csv: the nvidia-smi samples (timestamps in UTC, the VM's zone) that fall inside the timed steps of the
pt-*.jsonl beside it (SM clock and clock event reasons, power range). --detail: per step, how long before the GPU's end the host finished issuing
(wall - host_us) and the main thread's CPU share of the issue time (cpu_us / host_us). --probe: per phase and
run, the correlation of the step with the interpreter probe before it (probe_us), and over all runs pooled.
Exit 0, 1 when a record is missing or malformed, 2 on usage.
"""
import argparse, collections, datetime, glob, json, math, os, statistics, sys

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--gpu-csv", default="results/h200x1-hostnoise2/gpu.csv")
ap.add_argument("--detail", default="results/h200x1-hostnoise3")
ap.add_argument("--probe", default="results/h200x1-hostnoise4")
a = ap.parse_args()
PHASES = ("nodp_1", "ddp1")


def lines(d):
    files = sorted(glob.glob(os.path.join(d, "pt-*.jsonl")))
    if not files:
        sys.exit("hostnoise_report: %s: no pt-*.jsonl" % d)
    try:
        return [(f, json.loads(x)) for f in files for x in open(f) if x.strip()]
    except (OSError, ValueError) as e:
        sys.exit("hostnoise_report: %s: %s" % (d, e))


def corr(x, y):
    mx, my = statistics.mean(x), statistics.mean(y)
    sx, sy = math.sqrt(sum((v - mx) ** 2 for v in x)), math.sqrt(sum((v - my) ** 2 for v in y))
    return sum((u - mx) * (v - my) for u, v in zip(x, y)) / (sx * sy) if sx and sy else float("nan")


try:
    # GPU samples inside timed steps: each phase's steps run from step_*_t0_unix for the sum of their times
    windows = [(d["step_%s_t0_unix" % p], d["step_%s_t0_unix" % p] + sum(d["step_%s_us_all" % p]) / 1e6)
               for _, d in lines(os.path.dirname(a.gpu_csv)) for p in PHASES]
    inside = []
    with open(a.gpu_csv) as f:
        next(f)
        for row in f:
            c = [x.strip() for x in row.split(",")]
            t = datetime.datetime.strptime(c[0], "%Y/%m/%d %H:%M:%S.%f").replace(
                tzinfo=datetime.timezone.utc).timestamp()
            if any(lo <= t <= hi for lo, hi in windows):
                inside.append((c[1], c[7], float(c[3].split()[0])))
    print("GPU samples inside timed steps: %d; (SM clock, event reasons): %s; power %.0f-%.0f W" % (
        len(inside), dict(collections.Counter((s, r) for s, r, _ in inside)), min(p for *_, p in inside),
        max(p for *_, p in inside)))

    gaps, shares = [], []
    for _, d in lines(a.detail):
        for p in PHASES:
            det = d["step_%s_detail" % p]
            gaps += [w - h for w, h in zip(d["step_%s_us_all" % p], det["host_us"])]
            shares += [c / h for c, h in zip(det["cpu_us"], det["host_us"])]
    print("host finished issuing at most %.2f ms before the step's end; main thread on the CPU %.0f-%.0f %% "
          "(median %.0f %%) of the issue time" % (max(gaps) / 1e3, 100 * min(shares), 100 * max(shares),
                                                 100 * statistics.median(shares)))

    pooled = collections.defaultdict(lambda: ([], []))
    for f, d in lines(a.probe):
        for p in PHASES:
            s, pr = d["step_%s_us_all" % p], d["step_%s_detail" % p]["probe_us"]
            pooled[(d["model"], p)][0].extend(s)
            pooled[(d["model"], p)][1].extend(pr)
            print("%s %s %s: step median %.1f ms, correlation with the probe %.2f" % (
                os.path.basename(f), d["model"], p, statistics.median(s) / 1e3, corr(s, pr)))
    for (m, p), (s, pr) in pooled.items():
        print("pooled %s %s: correlation %.2f" % (m, p, corr(s, pr)))
except (OSError, KeyError, ValueError, IndexError, StopIteration) as e:
    sys.exit("hostnoise_report: malformed or missing record: %s: %s" % (type(e).__name__, e))
