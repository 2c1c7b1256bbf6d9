#!/usr/bin/env python3
"""Side by side: nvbandwidth's host<->device or GPU<->GPU copy tests (reference) and `nvscale p2p [--host]`, same machine.

usage: tools/vs_nvbandwidth.py --nvbandwidth NVB.json [...] --nvscale RUN.json [...] [--pairs] [--tol PCT] [--halves]
                               --out PREFIX

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

GPU pairs (--pairs: the --nvscale files are runs of plain `nvscale p2p`, its run.json p2p.pairs[]; the host rows
are then not made, and the nvbandwidth files need only the two tests below):
  d2d           nvbandwidth device_to_device_memcpy_write_ce, cell [src][dst]      nvscale pairs[].uni_gbps
  d2d-bidir     device_to_device_bidirectional_memcpy_write_ce, Total block [src][dst]   .bidir_gbps
  d2d-bidir-fwd (--halves) the same test's Write2 block [src][dst], src -> dst          .bidir_fwd_gbps
  d2d-bidir-rev (--halves) its Write1 block [src][dst], dst -> src                     .bidir_rev_gbps
one row per ordered pair (src -> dst) and copy. Which cell is which direction, read from nvbandwidth v0.8's code
(the printed labels mislead: the one-way test says "GPU(row) <- GPU(column)", and the bidirectional test's comment
about "srcBuffers (the copy's destination)" is copied from the read test):
  - testcases_ce.cpp DeviceToDeviceWriteCE::run: value(src, peer) = doMemcpy(srcBuffer on src, peerBuffer on peer);
    memcpy.cpp MemcpyOperation::doMemcpy(srcBuffer, dstBuffer) copies src -> dst. So cell [row][col] = row -> col.
  - DeviceToDeviceBidirWriteCE::run: doMemcpyVector(srcBuffers {peer1, src2}, dstBuffers {src1, peer2}); in
    memcpy.cpp doMemcpyCore copy i goes srcBuffers[i] -> dstBuffers[i], each timed from its own start to its own
    end event (both start together: copy 1's stream waits on copy 0's start), VECTOR_BW returns both rates.
    results[0] (Write1) is peer -> src = col -> row, results[1] (Write2) src -> peer = row -> col, and
    Total = Write1 + Write2. For nvscale's pair src -> dst (row src, column dst): fwd = Write2, rev = Write1,
    total = Total, all three from the one measurement of that ordered pair.
  - PeerValueMatrix::value(src, dst) (inline_common.h) is m_matrix[src * columns + dst]; json_output.cpp
    JsonOutput::addTestcaseResults writes value(row, col) row by row into bandwidth_matrix, cells as strings,
    "N/A" where there is no value (the diagonal; pairs without peer access). The bidirectional test calls it three
    times for the same test case, so its bandwidth_matrix has 3n rows: Write1 rows, Write2 rows, Total rows (its
    "sum" is the Total block's). The one-way test's has n.
  - Rows and columns are CUDA ordinals; nvscale's src/dst are topology indices. Where nvbandwidth's
    "GPU Device list" names PCI bus ids, each GPU is found by the run.json's src_pci_bus_id/dst_pci_bus_id (a pair
    without them is refused); where it names none, the index is taken as the ordinal.
Only pairs with path "P2P" are compared: nvscale stages the others through host memory, nvbandwidth has no such
path (its cells there are N/A); they are listed as not compared. Refused (exit 2, naming the file): a run.json
without p2p.pairs or with none, a pair whose src or dst is not a whole number >= 0, pairs of several hosts (a
run under mpirun: nvbandwidth measured one machine), one whose pairs are all staged, rounds with different
pairs, an nvbandwidth file without either D2D test passed or with a matrix of another shape, an N/A cell where
nvscale has a P2P pair.
The halves (--halves) need bidir_fwd_gbps / bidir_rev_gbps, written since December 2026: where a round's run.json
has them absent or null for a P2P pair (older than them) their rows are left out (said in the output), not refused,
so an older run still gives the other rows.
"""
import argparse
import json
import re
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


HOST_TESTS = {x for _, tests, _, _ in PAIRS for x in tests}


def read_nvb(path):
    """{test name: matrix} of the tests that passed: host tests as [GB/s per GPU] (a 1-row matrix, host is the row,
    GPUs the columns), any other as it is (read_d2d checks the GPU-pair tests' shape)."""
    d = load(path)
    nvb = d.get("nvbandwidth") if isinstance(d, dict) else None
    if not isinstance(nvb, dict) or not isinstance(nvb.get("testcases"), list):
        die("%s: not nvbandwidth -j output (no nvbandwidth.testcases)" % path)
    out = {}
    for t in nvb["testcases"]:
        if t.get("status") != "Passed":
            continue
        m = t.get("bandwidth_matrix")
        if t.get("name") not in HOST_TESTS:
            out[t.get("name")] = m
            continue
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
        die("%s: no p2p.host_copies.gpus (a run of `nvscale p2p --host`?%s)"
            % (path, " it has p2p.pairs: --pairs compares those" if isinstance(d, dict) and
               isinstance(d.get("p2p"), dict) and "pairs" in d["p2p"] else ""))
    return sorted(gpus, key=lambda g: g["gpu"]), d


def rng(v):
    return "%.1f-%.1f" % (min(v), max(v))


# GPU pairs: (row name, nvbandwidth test, block of its bandwidth_matrix, blocks in it, nvscale key); see the docstring
D2D = "device_to_device_memcpy_write_ce"
D2D_BIDIR = "device_to_device_bidirectional_memcpy_write_ce"
PAIR_ROWS = [
    ("d2d", D2D, 0, 1, "uni_gbps"),
    ("d2d-bidir", D2D_BIDIR, 2, 3, "bidir_gbps"),        # Total = Write1 + Write2
    ("d2d-bidir-fwd", D2D_BIDIR, 1, 3, "bidir_fwd_gbps"),  # Write2: row -> column = src -> dst
    ("d2d-bidir-rev", D2D_BIDIR, 0, 3, "bidir_rev_gbps"),  # Write1: column -> row = dst -> src
]
HALVES = ("bidir_fwd_gbps", "bidir_rev_gbps")


def read_d2d(path, tests, meta, name, blocks):
    """Test `name`'s bandwidth_matrix as `blocks` n x n matrices of GB/s (None where nvbandwidth wrote N/A)."""
    if name not in tests:
        st = [t.get("status") for t in meta["testcases"] if t.get("name") == name]
        die("%s: no passed test %s (%s); nvscale has GPU pairs to compare with it"
            % (path, name, "status %s" % st[0] if st else "not run"))
    m = tests[name]
    n = len(m[0]) if isinstance(m, list) and m and isinstance(m[0], list) else 0
    if n == 0 or len(m) != blocks * n or any(not isinstance(r, list) or len(r) != n for r in m):
        die("%s: test %s: expected a bandwidth_matrix of %d x n rows of n cells" % (path, name, blocks))
    try:
        cells = [[None if v == "N/A" else float(v) for v in r] for r in m]
    except (TypeError, ValueError):
        die("%s: test %s: a cell is neither a number nor N/A" % (path, name))
    return [cells[b * n:(b + 1) * n] for b in range(blocks)]


BUSID = re.compile(r"\(([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\)")


def nvb_ordinals(meta):
    """{(domain, bus, device): CUDA ordinal} from nvbandwidth's "GPU Device list" ("0: NAME (0000000d:bb:dd): (host)");
    empty when it does not name them."""
    out = {}
    for e in meta.get("GPU Device list") or []:
        m = re.match(r"(\d+): ", str(e))
        b = BUSID.findall(str(e))
        if m and b:
            out[tuple(int(x, 16) for x in b[-1])] = int(m.group(1))
    return out


def busid(s):
    """nvscale's "dddd:bb:dd.f" as (domain, bus, device); None when absent or of another form."""
    m = re.match(r"^([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\.[0-9a-fA-F]+$", str(s or ""))
    return tuple(int(x, 16) for x in m.groups()) if m else None


def read_pairs(path):
    """p2p.pairs of a `nvscale p2p` run.json, and the p2p section."""
    d = load(path)
    p2p = d.get("p2p") if isinstance(d, dict) else None
    pairs = p2p.get("pairs") if isinstance(p2p, dict) else None
    if not isinstance(pairs, list):
        die("%s: no p2p.pairs (a run of `nvscale p2p`, without --host?)" % path)
    if not pairs:
        die("%s: p2p.pairs is empty: nothing to compare" % path)
    for i, q in enumerate(pairs):
        # a negative index is read from the end of nvbandwidth's row (Python), and true is 1: neither is a GPU
        ok = isinstance(q, dict) and isinstance(q.get("path"), str) and \
            all(isinstance(q.get(k), int) and not isinstance(q.get(k), bool) and q[k] >= 0 for k in ("src", "dst"))
        if not ok:
            die("%s: p2p.pairs[%d] needs src and dst, whole numbers >= 0, and a path" % (path, i))
    # nvbandwidth measures one machine: another host's pairs would be read from its cells (by bus id, the same on
    # identical hosts), compared with a GPU they never touched
    hosts = sorted({q["host"] for q in pairs if isinstance(q.get("host"), str)})
    if len(hosts) > 1:
        die("%s: pairs of %d hosts (%s): nvbandwidth measures one machine; give a run of `nvscale p2p` on the "
            "machine nvbandwidth ran on" % (path, len(hosts), ", ".join(hosts)))
    return pairs, p2p


def ordinal(path, ords, q, end, nvs_path):
    """nvbandwidth's row/column of nvscale pair q's GPU `end` ("src" or "dst")."""
    b = busid(q.get(end + "_pci_bus_id"))
    if not ords:
        return q[end]
    if b is None:  # nvbandwidth numbers its GPUs by bus id: an index here may name another GPU than the pair's
        die("%s: GPU %d of its pair %d -> %d has no %s_pci_bus_id (%r) to find it by in the GPU Device list of %s"
            % (nvs_path, q[end], q["src"], q["dst"], end, q.get(end + "_pci_bus_id"), path))
    if b not in ords:
        die("%s: GPU %d (%s) of nvscale's pair %d -> %d is not in its GPU Device list"
            % (path, q[end], q.get(end + "_pci_bus_id"), q["src"], q["dst"]))
    return ords[b]


def compare(label, ref, ours):
    """(reference median, nvscale median, diff %, both ranges) of one row; LABEL names it if there is no reference."""
    r, o = statistics.median(ref), statistics.median(ours)
    if r <= 0:
        die("%s: nvbandwidth's median is %g GB/s: no reference to compare with" % (label, r))
    return (r, o, 100.0 * (o - r) / r, rng(ref), rng(ours))


def write_tables(a, rows, csv_head, csv_row, title, intro, md_head, md_row, notes=()):
    """PREFIX.csv and PREFIX.md of ROWS (each ending in compare()'s five), the notes; exit status 0 when every row is
    within --tol, else 1."""
    ok = all(abs(x[-3]) <= a.tol for x in rows)
    with open(a.out + ".csv", "w") as f:
        f.write(csv_head + "\n")
        for x in rows:
            f.write(csv_row % x + "\n")
    with open(a.out + ".md", "w") as f:
        f.write("# %s\n\n%s\n\n" % (title, intro))
        f.write("| %s | copy | nvbandwidth GB/s | nvscale GB/s | diff | nvbandwidth range | nvscale range |\n" % md_head)
        f.write("|---|---|---|---|---|---|---|\n")
        for x in rows:
            f.write(md_row % x + "\n")
        for x in notes:
            f.write("\n%s\n" % x)
        f.write("\nEvery row within +-%g %%: %s\n" % (a.tol, "yes" if ok else "NO"))
    for x in notes:
        print(x)
    print("%d rows, every one within +-%g %%: %s" % (len(rows), a.tol, "yes" if ok else "no"))
    return 0 if ok else 1


def main_pairs(a, nvb):
    nvs = [read_pairs(p) for p in a.nvscale]
    key = [(q["src"], q["dst"], q["path"]) for q in nvs[0][0]]
    for p, (pairs, _) in zip(a.nvscale, nvs):
        if [(q["src"], q["dst"], q["path"]) for q in pairs] != key:
            die("%s: its pairs (src, dst, path) differ from %s's" % (p, a.nvscale[0]))
    p2p = [i for i, k in enumerate(key) if k[2] == "P2P"]
    if not p2p:
        die("%s: no pair has path P2P (every one is staged through host memory): nvbandwidth's device-to-device "
            "tests have nothing to compare with" % a.nvscale[0])
    notes = []
    for path in sorted({k[2] for k in key} - {"P2P"}):
        notes.append("Not compared, path %s (%s; nvbandwidth measures peer copies only): %s"
                     % (path, "staged through pinned host memory, no peer access" if path == "host" else "not P2P",
                        ", ".join("%d -> %d" % k[:2] for k in key if k[2] == path)))
    halves = a.halves
    if halves:
        old = [p for p, (pairs, _) in zip(a.nvscale, nvs)
               if any(not isinstance(pairs[i].get(h), (int, float)) for i in p2p for h in HALVES)]
        if old:
            halves = False
            # the file's last two parts only: a committed table made elsewhere must regenerate the same
            notes.append("d2d-bidir-fwd/-rev left out: %s has no bidir_fwd_gbps/bidir_rev_gbps (absent or null: "
                         "written before nvscale recorded the two halves, or re-written from such a file)" % "/".join(old[0].split("/")[-2:]))
    mats = {}
    for p, (t, meta) in zip(a.nvbandwidth, nvb):
        ords = nvb_ordinals(meta)
        m = {name: read_d2d(p, t, meta, test, blocks) for name, test, _, blocks, _ in PAIR_ROWS
             if halves or not name.startswith("d2d-bidir-")}
        mats[p] = (m, ords)
    rows = []
    for name, test, block, _, k in PAIR_ROWS:
        if name.startswith("d2d-bidir-") and not halves:
            continue
        for i in p2p:
            ref = []
            for p in a.nvbandwidth:
                m, ords = mats[p]
                q = nvs[0][0][i]
                r, c = ordinal(p, ords, q, "src", a.nvscale[0]), ordinal(p, ords, q, "dst", a.nvscale[0])
                n = len(m[name][block])
                if r >= n or c >= n:
                    die("%s: test %s has %d GPUs, nvscale's pair %d -> %d needs %d"
                        % (p, test, n, q["src"], q["dst"], max(r, c) + 1))
                v = m[name][block][r][c]
                if v is None:
                    die("%s: test %s: cell [%d][%d] is N/A, nvscale's pair %d -> %d is P2P"
                        % (p, test, r, c, q["src"], q["dst"]))
                ref.append(v)
            ours = []
            for p, (pairs, _) in zip(a.nvscale, nvs):
                v = pairs[i].get(k)
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    die("%s: pair %d -> %d: %s absent or not a number" % (p, pairs[i]["src"], pairs[i]["dst"], k))
                ours.append(float(v))
            src, dst = key[i][0], key[i][1]
            rows.append((src, dst, name) + compare("pair %d -> %d %s" % (src, dst, name), ref, ours))
    meta, sec = nvb[0][1], nvs[0][1]
    intro = ("nvbandwidth %s (driver %s), its defaults but the tests named; nvscale: %d-byte copies x %d. %d round(s) "
             "each, interleaved; each cell is the median over the rounds, the range beside it. d2d: nvbandwidth's "
             "%s [src][dst]; d2d-bidir: %s, its Total (the sum of both directions' rates)%s. Made by "
             "tools/vs_nvbandwidth.py --pairs."
             % (meta.get("version", "?"), meta.get("Driver Version", "?"), sec.get("copy_bytes", 0),
                sec.get("iters", 0), len(nvb), D2D, D2D_BIDIR,
                "; -fwd its Write2 (src -> dst), -rev its Write1 (dst -> src)" if halves else ""))
    return write_tables(a, rows, "src,dst,copy,nvbandwidth_gbps,nvscale_gbps,diff_pct,nvbandwidth_range,nvscale_range",
                        "%d,%d,%s,%.2f,%.2f,%.2f,%s,%s", "nvbandwidth vs nvscale p2p: GPU pairs", intro, "pair",
                        "| %d -> %d | %s | %.1f | %.1f | %+.1f %% | %s | %s |", notes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nvbandwidth", nargs="+", required=True)
    ap.add_argument("--nvscale", nargs="+", required=True)
    ap.add_argument("--tol", type=float, default=5.0)
    ap.add_argument("--halves", action="store_true", help="a row for each half of bidir too")
    ap.add_argument("--pairs", action="store_true", help="GPU pairs: the --nvscale files are `nvscale p2p` runs")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not a.tol > 0 or a.tol == float("inf"):  # NaN too
        die("--tol %g: must be > 0" % a.tol)
    nvb = [read_nvb(p) for p in a.nvbandwidth]
    if a.pairs:
        return main_pairs(a, nvb)
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
            rows.append((gpu, name) + compare("GPU %d %s" % (gpu, name), ref, ours))
    meta = nvb[0][1]
    hc = nvs[0][1]["p2p"]["host_copies"]
    # not its git_version: built from a `git archive` inside another repository, CMake's `git describe` names that
    # repository's commit (tools/device/vs-nvbandwidth.sh)
    intro = ("nvbandwidth %s (driver %s), its defaults but the tests named; nvscale: %d-byte copies x %d, median of "
             "%s blocks. %d round(s) each, interleaved; each cell is the median over the rounds, the range beside "
             "it. Made by tools/vs_nvbandwidth.py."
             % (meta.get("version", "?"), meta.get("Driver Version", "?"), hc.get("copy_bytes", 0),
                hc.get("iters", 0), hc.get("samples", "?"), len(nvb)))
    return write_tables(a, rows, "gpu,copy,nvbandwidth_gbps,nvscale_gbps,diff_pct,nvbandwidth_range,nvscale_range",
                        "%d,%s,%.2f,%.2f,%.2f,%s,%s", "nvbandwidth vs nvscale p2p --host", intro, "GPU",
                        "| %d | %s | %.1f | %.1f | %+.1f %% | %s | %s |")


if __name__ == "__main__":
    sys.exit(main())
