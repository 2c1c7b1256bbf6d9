#!/usr/bin/env python3
"""Every kernel's duration from an Nsight Compute CSV (`$NCU --metrics gpu__time_duration.sum --csv --log-file F`,
tools/device/lib.sh), summed by kernel name and by the kind tools/ddp_bench.py gives PyTorch's kernels, so that
nvscale's step and PyTorch's profile (tools/device/kernel_census.py's by_kind_us and top_time) can be set side by
side.

    python3 tools/device/ncu_kernels.py CSV[.gz] [--div D] [--top 40]   one JSON line on stdout

--div D divides every total by D (a run of several steps: per step). Lines before the CSV header (ncu's ==PROF==
and ==WARNING== notes) are skipped. Exit 2 on a file with no such header or no kernel row.
"""
import argparse
import collections
import csv
import gzip
import io
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ddp_bench  # noqa: E402 - kernel_kind (no torch at import)

# ncu's units for a duration, in microseconds
UNITS = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as fh:
        lines = fh.read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith('"ID",'):
            return csv.DictReader(io.StringIO("\n".join(lines[i:])))
    raise ValueError("no ncu CSV header (a line starting with \"ID\",)")


def summarize(rows, div, top):
    name_us, name_n, kind_us = collections.Counter(), collections.Counter(), collections.Counter()
    for r in rows:
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        unit = UNITS.get((r.get("Metric Unit") or "").strip())
        if unit is None:
            raise ValueError("unknown unit %r for kernel %s" % (r.get("Metric Unit"), r.get("ID")))
        us = float((r.get("Metric Value") or "0").replace(",", "")) * unit
        name = (r.get("Kernel Name") or "?")[:160]
        kind = ddp_bench.kernel_kind(name)
        name_us[(kind, name)] += us
        name_n[(kind, name)] += 1
        kind_us[kind] += us
    if not name_n:
        raise ValueError("no kernel with gpu__time_duration.sum")
    return dict(div=div, kernels=sum(name_n.values()) / div, total_us=round(sum(kind_us.values()) / div, 1),
                by_kind_us={k: round(v / div, 1) for k, v in sorted(kind_us.items())},
                top_time=[dict(name=nm, kind=k, us=round(us / div, 1), calls=name_n[(k, nm)] / div)
                          for (k, nm), us in name_us.most_common(top)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--div", type=float, default=1.0)
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    if not a.div > 0:
        ap.error("--div must be > 0, not %g" % a.div)
    if a.top < 0:
        ap.error("--top must be >= 0, not %d" % a.top)
    try:
        res = summarize(read(a.csv), a.div, a.top)
    except (OSError, ValueError) as e:
        print("ncu_kernels: %s: %s" % (a.csv, e), file=sys.stderr)
        sys.exit(2)
    res["csv"] = os.path.basename(a.csv)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
