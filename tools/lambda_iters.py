#!/usr/bin/env python3
"""Per-iteration figures of Lambda's Mask R-CNN logs (issue 10, docs/model.md "What Lambda's Mask R-CNN logs say").

    tools/lambda_iters.py --git DIR [--commit REV] LOG...    (LOG relative to pytorch/results/, read with git show)
    tools/lambda_iters.py FILE...                            (log files on disk)

maskrcnn_benchmark prints, every 20 iterations, "time : MEDIAN (MEAN)  data : MEDIAN (MEAN)": the median over
the last 20 iterations and the running mean since the start, of the whole iteration and of its wait for the
next batch. For each log this prints the median of the window medians after the first window (the first holds
the start-up), the last running mean of the data wait, and the seconds per iteration of "Total training time"
(what Lambda's throughput is made from). Exit 0, 1 when a log cannot be read or holds no such lines, 2 on usage.
"""
import argparse, re, statistics, subprocess, sys

WINDOW = re.compile(r"time : ([0-9.]+) \(([0-9.]+)\)  data : ([0-9.]+) \(([0-9.]+)\)")
TOTAL = re.compile(r"Total training time: .*\(([0-9.]+) s / it\)")

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--git", metavar="DIR", help="a clone of lambdal/deeplearning-benchmark (a bare one will do)")
ap.add_argument("--commit", default="ca7c1f2c4b69e89028cf9b03ac2aaead3971673b",
                help="the commit src/model/lambda.c cites (default %(default)s)")
ap.add_argument("logs", nargs="+", metavar="LOG")
a = ap.parse_args()


def read(log):
    if a.git:
        p = subprocess.run(["git", "-C", a.git, "show", "%s:pytorch/results/%s" % (a.commit, log)],
                           capture_output=True, text=True)
        if p.returncode:
            sys.exit("lambda_iters: %s: %s" % (log, p.stderr.strip() or "git show failed"))
        return p.stdout
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        sys.exit("lambda_iters: %s: %s" % (log, e.strerror))


out = ["| log | windows | iteration median | s/it (total) | data median | data mean |",
       "|---|---:|---:|---:|---:|---:|"]
for log in a.logs:
    text = read(log)
    w = WINDOW.findall(text)
    t = TOTAL.search(text)
    if len(w) < 2 or not t:
        sys.exit("lambda_iters: %s: no \"time : ... data : ...\" windows or no \"Total training time\"" % log)
    rest = w[1:]
    out.append("| %s | %d | %.3f | %.4f | %.4f | %.4f |" % (
        log, len(w), statistics.median(float(x[0]) for x in rest), float(t.group(1)),
        statistics.median(float(x[2]) for x in rest), float(w[-1][3])))
print("\n".join(out))  # only once every log is read: a refused run prints no table
