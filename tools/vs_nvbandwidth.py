#!/usr/bin/env python3
"""Side by side: nvbandwidth's host<->device copy tests (reference) and `nvscale p2p --host`, same machine, same call.

usage: tools/vs_nvbandwidth.py --nvbandwidth NVB.json [...] --nvscale RUN.json [...] [--tol PCT] [--halves] --out PREFIX

Each --nvbandwidth is one round's `nvbandwidth -j -t ...` output; each --nvscale one round's run.json. Writes
PREFIX.csv and PREFIX.md: per GPU and direction, the median over the rounds of each tool, both tools' ranges and
the difference (nvscale against nvbandwidth, in percent). Exit 0 when every row is within --tol (default 5) %, 1
when one is not, 2 on unusable input (a file that is not the tool's output, a round without a test, a GPU missing).

What is paired (both tools copy pinned host memory with the copy engines, cudaMemcpyAsync):
  h2d   nvbandwidth host_to_device_memcpy_ce          nvscale host_copies.gpus[g].single.h2d_gbps
  d2h   nvbandwidth device_to_host_memcpy_ce          nvscale .single.d2h_gbps
  bidir nvbandwidth host_to_device_bidirectional_memcpy_ce + device_to_host_bidirectional_memcpy_ce
                                                      nvscale .single.bidir_gbps
nvbandwidth's bidirectional tests report one direction while a copy the other way runs beside it (its
testcases_ce.cpp: the interfering copy is twice as large, so it spans the timed one); nvscale times both directions
of one round together and reports their sum, so the reference is the sum of nvbandwidth's two bidirectional tests.
--halves adds a row for each half (bidir-h2d, bidir-d2h: nvscale's bidir_h2d_gbps / bidir_d2h_gbps, written since
December 2026, against each bidirectional test alone). With more than one GPU, h2d-all / d2h-all pair host_to_all_memcpy_ce / all_to_host_memcpy_ce (every GPU at once)
with nvscale's .all.
"""
import argparse
import json
import statistics
import sys

# (row name, nvbandwidth tests summed, nvscale mode, nvscale key)
PAIRS = [
    ("h2d", ["host_to_device_memcpy_ce"], "single", "h2d_gbps"),
    ("d2h", ["device_to_host_memcpy_ce"], "single", "d2h_gbps"),
    ("bidir", ["host_to_device_bidirectional_memcpy_ce", "device_to_host_bidirectional_memcpy_ce"], "single",
     "bidir_gbps"),
    ("bidir-h2d", ["host_to_device_bidirectional_memcpy_ce"], "single", "bidir_h2d_gbps"),
    ("bidir-d2h", ["device_to_host_bidirectional_memcpy_ce"], "single", "bidir_d2h_gbps"),
    ("h2d-all", ["host_to_all_memcpy_ce"], "all", "h2d_gbps"),
    ("d2h-all", ["all_to_host_memcpy_ce"], "all", "d2h_gbps"),
]


def die(msg):
    print("vs_nvbandwidth: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die("%s: %s" % (path, e))


def read_nvb(path):
    """{test name: [GB/s per GPU]} of the tests that passed; a 1-row matrix (host is the row, GPUs the columns)."""
    d = load(path)
    nvb = d.get("nvbandwidth") if isinstance(d, dict) else None
    if not isinstance(nvb, dict) or not isinstance(nvb.get("testcases"), list):
        die("%s: not nvbandwidth -j output (no nvbandwidth.testcases)" % path)
    out = {}
    for t in nvb["testcases"]:
        if t.get("status") != "Passed":
            continue
        m = t.get("bandwidth_matrix")
        if not isinstance(m, list) or len(m) != 1 or not isinstance(m[0], list):
            die("%s: test %s: expected a 1-row bandwidth_matrix" % (path, t.get("name")))
        try:
            out[t["name"]] = [float(v) for v in m[0]]
        except (TypeError, ValueError):
            die("%s: test %s: a cell is not a number: %r" % (path, t.get("name"), m[0]))
    return out, nvb


def read_nvs(path):
    """[{mode: {key: GB/s}} per GPU] from p2p.host_copies.gpus."""
    d = load(path)
    try:
        gpus = d["p2p"]["host_copies"]["gpus"]
    except (KeyError, TypeError):
        die("%s: no p2p.host_copies.gpus (a run of `nvscale p2p --host`?)" % path)
    return sorted(gpus, key=lambda g: g["gpu"]), d


def rng(v):
    return "%.1f-%.1f" % (min(v), max(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nvbandwidth", nargs="+", required=True)
    ap.add_argument("--nvscale", nargs="+", required=True)
    ap.add_argument("--tol", type=float, default=5.0)
    ap.add_argument("--halves", action="store_true", help="a row for each half of bidir too")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not a.tol > 0 or a.tol == float("inf"):  # NaN too
        die("--tol %g: must be > 0" % a.tol)
    nvb = [read_nvb(p) for p in a.nvbandwidth]
    nvs = [read_nvs(p) for p in a.nvscale]
    ngpu = len(nvs[0][0])
    if ngpu == 0:
        die("%s: p2p.host_copies.gpus is empty: nothing to compare" % a.nvscale[0])
    for p, (g, _) in zip(a.nvscale, nvs):
        if len(g) != ngpu:
            die("%s: %d GPUs, %s has %d" % (p, len(g), a.nvscale[0], ngpu))
    rows = []
    for name, tests, mode, key in PAIRS:
        if mode == "all" and ngpu < 2:
            continue  # one GPU: "all at once" is that GPU alone (nvscale writes null)
        if name.startswith("bidir-") and not a.halves:
            continue
        for gpu in range(ngpu):
            ref = []
            for p, (t, _) in zip(a.nvbandwidth, nvb):
                missing = [x for x in tests if x not in t]
                if missing:
                    die("%s: no passed test %s" % (p, ", ".join(missing)))
                if any(len(t[x]) != ngpu for x in tests):
                    die("%s: %s has %d GPUs, nvscale %d" % (p, tests[0], len(t[tests[0]]), ngpu))
                ref.append(sum(t[x][gpu] for x in tests))
            ours = []
            for p, (g, _) in zip(a.nvscale, nvs):
                m = g[gpu].get(mode)
                if not isinstance(m, dict) or not isinstance(m.get(key), (int, float)):
                    die("%s: gpus[%d].%s.%s absent or not a number" % (p, gpu, mode, key))
                ours.append(float(m[key]))
            r, o = statistics.median(ref), statistics.median(ours)
            if r <= 0:
                die("GPU %d %s: nvbandwidth's median is %g GB/s: no reference to compare with" % (gpu, name, r))
            rows.append((gpu, name, r, o, 100.0 * (o - r) / r, rng(ref), rng(ours)))
    ok = all(abs(x[4]) <= a.tol for x in rows)
    with open(a.out + ".csv", "w") as f:
        f.write("gpu,copy,nvbandwidth_gbps,nvscale_gbps,diff_pct,nvbandwidth_range,nvscale_range\n")
        for x in rows:
            f.write("%d,%s,%.2f,%.2f,%.2f,%s,%s\n" % x)
    meta = nvb[0][1]
    hc = nvs[0][1]["p2p"]["host_copies"]
    with open(a.out + ".md", "w") as f:
        f.write("# nvbandwidth vs nvscale p2p --host\n\n")
        # not its git_version: built from a `git archive` inside another repository, CMake's `git describe` names
        # that repository's commit (tools/device/vs-nvbandwidth.sh)
        f.write("nvbandwidth %s (driver %s), its defaults but the tests named; nvscale: %d-byte copies x %d, median of "
                "%s blocks. %d round(s) each, interleaved; each cell is the median over the rounds, the range beside "
                "it. Made by tools/vs_nvbandwidth.py.\n\n"
                % (meta.get("version", "?"), meta.get("Driver Version", "?"), hc.get("copy_bytes", 0),
                   hc.get("iters", 0), hc.get("samples", "?"), len(nvb)))
        f.write("| GPU | copy | nvbandwidth GB/s | nvscale GB/s | diff | nvbandwidth range | nvscale range |\n")
        f.write("|---|---|---|---|---|---|---|\n")
        for x in rows:
            f.write("| %d | %s | %.1f | %.1f | %+.1f %% | %s | %s |\n" % x)
        f.write("\nEvery row within +-%g %%: %s\n" % (a.tol, "yes" if ok else "NO"))
    print("%d rows, every one within +-%g %%: %s" % (len(rows), a.tol, "yes" if ok else "no"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
