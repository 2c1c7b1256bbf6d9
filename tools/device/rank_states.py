#!/usr/bin/env python3
"""Issue 9, the N=2 question of docs/fidelity.md: is a host-bound DDP step at world W slow whenever ANY rank's
vCPU is in its slow state? Reads tools/ddp_bench.py records (JSON lines) that carry per-step probes on every rank
(step_world_detail_per_rank, and step_ddp1_detail / step_nodp_1_detail for the 1-GPU phases) and prints, per
configuration and phase, how the steps split by host state and what the efficiency is within one state.

    python3 tools/device/rank_states.py [--split-us 1100] RECORD.jsonl...

A step's host state comes from ddp_bench's probe_us, the time of a fixed piece of interpreter work on the stepping
thread just before the step: fast below --split-us, slow above (on the 1x H200 machine the two states read
0.72-0.9 ms and 1.3-1.8 ms: results/h200x1-probe-compare). A world-W step counts as slow when any rank's probe
before it was slow. The step time of a world-W step is the slowest rank's time for that step index.

Columns: steps, the share of slow steps (per rank, and "any"), the median step over all steps / fast steps / slow
steps (ms), and, for the world-W DDP phase, efficiency against DDP at world 1 taken overall (medians of all steps,
as tools/fidelity.py does) and within the fast state (fast world-W steps against fast world-1 steps): if the
two differ by much, the loss at world W is the host's state, not the GPUs or the link.
"""
import argparse, json, statistics, sys

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("records", nargs="+", metavar="RECORD.jsonl")
ap.add_argument("--split-us", type=float, default=1100.0, help="probe time dividing fast from slow (default 1100)")
a = ap.parse_args()
if not a.split_us > 0:
    ap.error("--split-us %g: must be > 0" % a.split_us)


def med(xs):
    return statistics.median(xs) if xs else None


def fmt(v, scale=1e-3, digits=1):
    return "-" if v is None else "%.*f" % (digits, v * scale)


def series(detail, what):
    """A phase's per-step lists, checked: step_us (or the given times) and probe_us of equal length."""
    if not isinstance(detail, dict):
        raise ValueError("%s: not an object" % what)
    us, pr = detail.get("step_us"), detail.get("probe_us")
    ok = lambda xs: isinstance(xs, list) and xs and all(isinstance(x, (int, float)) and x > 0 for x in xs)
    if not ok(us) or not ok(pr) or len(us) != len(pr):
        raise ValueError("%s: needs step_us and probe_us lists of one length, positive numbers" % what)
    return us, pr


def split(step, slow, shares):
    """A phase's row: per-step times and slow flags; shares = each rank's share of slow probes."""
    return dict(steps=len(step), slow_share=shares, any_slow=sum(slow) / len(slow), all_ms=med(step),
                fast=med([u for u, s in zip(step, slow) if not s]), slow=med([u for u, s in zip(step, slow) if s]))


def one_rank(us, pr):
    slow = [p > a.split_us for p in pr]
    return split(us, slow, [sum(slow) / len(slow)])


def world(per_rank, phase, what):
    ranks = []
    for r, d in enumerate(per_rank):
        if not isinstance(d, dict) or phase not in d:
            raise ValueError("%s: rank %d has no %s phase" % (what, r, phase))
        ranks.append(series(d[phase], "%s rank %d %s" % (what, r, phase)))
    n = min(len(us) for us, _ in ranks)
    if any(len(us) != n for us, _ in ranks):
        raise ValueError("%s %s: the ranks timed different numbers of steps" % (what, phase))
    step = [max(us[i] for us, _ in ranks) for i in range(n)]
    slow = [any(pr[i] > a.split_us for _, pr in ranks) for i in range(n)]
    return split(step, slow, [sum(p > a.split_us for p in pr) / n for _, pr in ranks])


def main():
    print("| configuration | phase | steps | slow share per rank | any rank slow | median step all / fast / slow (ms) "
          "| eff. vs DDP world 1: overall / fast state |")
    print("|---|---|---:|---|---:|---|---|")
    seen, probes = 0, []
    for path in a.records:
        try:
            lines = [x for x in open(path) if x.strip()]
        except OSError as e:
            ap.error("%s: %s" % (path, e.strerror))
        for ln, text in enumerate(lines, 1):
            what = "%s:%d" % (path, ln)
            try:
                rec = json.loads(text)
            except ValueError as e:
                ap.error("%s: not JSON (%s)" % (what, e))
            if not isinstance(rec, dict) or rec.get("tool") != "ddp_bench":
                ap.error("%s: not a ddp_bench record" % what)
            if "step_world_detail_per_rank" not in rec or "step_ddp1_detail" not in rec:
                continue  # an older record, or a failed configuration: nothing to split
            try:
                d1 = rec["step_ddp1_detail"]
                rows = [("1 GPU, no DDP", one_rank(*series(dict(rec["step_nodp_1_detail"],
                                                                 step_us=rec["step_nodp_1_us_all"]), what))),
                        ("1 GPU, DDP", one_rank(*series(dict(d1, step_us=rec["step_ddp1_us_all"]), what)))]
                per = rec["step_world_detail_per_rank"]
                if not isinstance(per, list) or not per:
                    raise ValueError("%s: step_world_detail_per_rank is not a list of ranks" % what)
                for ph, name in (("ddp", "world %d, DDP" % len(per)), ("nosync", "world %d, no_sync" % len(per))):
                    rows.append((name, world(per, ph, what)))
            except (KeyError, TypeError) as e:
                ap.error("%s: incomplete record (%s)" % (what, e))
            except ValueError as e:
                ap.error(str(e))
            seen += 1
            probes += rec["step_nodp_1_detail"]["probe_us"] + d1["probe_us"]
            probes += [p for d in per for ph in ("ddp", "nosync") for p in d[ph]["probe_us"]]
            base = rows[1][1]
            for name, r in rows:
                eff = ""
                if name.endswith(", DDP") and name.startswith("world"):
                    f = "%.1f %%" % (100 * base["fast"] / r["fast"]) if base["fast"] and r["fast"] else "-"
                    eff = "%.1f %% / %s" % (100 * base["all_ms"] / r["all_ms"], f)
                print("| %s %s | %s | %d | %s | %.0f %% | %s / %s / %s | %s |" % (
                    rec.get("config"), rec.get("transport"), name, r["steps"],
                    " / ".join("%.0f %%" % (100 * s) for s in r["slow_share"]), 100 * r["any_slow"],
                    fmt(r["all_ms"]), fmt(r["fast"]), fmt(r["slow"]), eff))
    if not seen:
        ap.error("no record with per-rank world-phase probes (ddp_bench's step_world_detail_per_rank)")
    probes.sort()
    q = lambda f: probes[min(len(probes) - 1, int(f * len(probes)))]
    print("\nprobes: %d, above %g us (slow): %.0f %%; p10 %.0f, p50 %.0f, p90 %.0f us" % (
        len(probes), a.split_us, 100 * sum(p > a.split_us for p in probes) / len(probes), q(0.1), q(0.5), q(0.9)))


main()
