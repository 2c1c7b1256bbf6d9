#!/usr/bin/env python3
"""Issue 9: the fit of the pytorch-ddp framework's host costs (src/workload/framework.c), and its check on the other
models, from PyTorch's own 1-GPU steps at bf16.

    python3 tools/fidelity_fit.py --list FILE [--optim-list FILE2] [--out PREFIX]

FILE lists tools/ddp_bench.py records (.jsonl), one path per line ('#' comments). From every record of lm290m,
bert-large and resnet50 at bf16 it takes step_nodp_1_us (the plain model on one GPU) and step_ddp1_us (DDP at
world 1). On these VMs a host-bound step moves by +-30 % between runs (docs/fidelity.md, "Noise"), so the fit uses
medians over many runs:

  host_us_per_op        = (median(lm290m step_nodp_1) - SGD's update) / lm290m's operations per step at bf16
  reducer_us_per_bucket = median over runs of (step_ddp1 - step_nodp_1) / lm290m's buckets

and predicts the others' medians: operations x host_us_per_op + SGD's update, + buckets x reducer_us_per_bucket.
SGD's update is torch.optim's host time per parameter tensor (tools/optim_host_fit.py over FILE2, by default
results/fidelity/optim-host-inputs.txt; src/workload/optimizer.c) x the model's tensors. The operation counts are
tools/gen_profiles.py's (ops= forward + backward, casts= each way at bf16; the optimizer is its update); the
bucket counts are those tests/unit/test_train.c pins (DDP's 1 MiB first bucket, 25 MiB after, fp32 gradients).
A prediction only matters where the host sets the pace: resnet50's GPU work (~48 ms) outlasts its host work.
--out PREFIX writes PREFIX.md (the table, the command, the inputs). Exit 2 on a missing or unreadable input.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ddp_records  # noqa: E402 - the harness's records, read leniently
import gen_profiles  # noqa: E402 - the profiles' operation counts
import optim_host_fit  # noqa: E402 - torch.optim's host time per tensor

MODELS = (("lm290m", "lm290m", 29), ("bert-large", "bert-large-mlm128", 38), ("resnet50", "resnet50", 5))
FIT = "lm290m"


def ops_bf16():
    """Operations per step at bf16 (the optimizer's update apart) and parameter tensors of every profile, by key."""
    out = {}
    for make in gen_profiles.BUILTINS + [gen_profiles.make_lm290m]:
        P = make()
        f, b, c, t = P.ops
        out[P.key] = (f + b + 2 * c, t)
    return out


def load(paths):
    runs = {m: [] for m, _, _ in MODELS}
    for path in paths:
        for d in ddp_records.records(path):
            model, _, rest = str(d.get("config", "")).partition(":")
            a, b = d.get("step_nodp_1_us"), d.get("step_ddp1_us")
            if model in runs and rest.startswith("bf16") and isinstance(a, (int, float)) and \
                    isinstance(b, (int, float)) and a > 0 and b > 0:
                runs[model].append((a / 1e3, b / 1e3, path))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", required=True, metavar="FILE")
    ap.add_argument("--optim-list", default=optim_host_fit.DEFAULT_LIST, metavar="FILE2")
    ap.add_argument("--out", metavar="PREFIX")
    a = ap.parse_args()
    try:
        paths = optim_host_fit.read_list(a.list)
        runs = load(paths)
        sgd_us = optim_host_fit.fit(a.optim_list)["sgd"]
    except (OSError, ValueError) as e:
        print("fidelity_fit: %s" % e, file=sys.stderr)
        return 2
    if not runs[FIT]:
        print("fidelity_fit: no lm290m bf16 record in %s" % a.list, file=sys.stderr)
        return 2
    step_ops = ops_bf16()
    fit_ops, fit_tensors = step_ops["lm290m"]
    per_op = (statistics.median(r[0] for r in runs[FIT]) * 1e3 - sgd_us * fit_tensors) / fit_ops
    per_bucket = statistics.median(r[1] - r[0] for r in runs[FIT]) * 1e3 / MODELS[0][2]
    lines = ["| model | runs | operations / buckets | PyTorch median, no DDP (ms) | predicted (ms) | PyTorch median, "
             "DDP at world 1 (ms) | predicted (ms) | role |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for model, key, buckets in MODELS:
        r = runs[model]
        ops, tensors = step_ops[key]
        pn = (ops * per_op + sgd_us * tensors) / 1e3
        pd = pn + buckets * per_bucket / 1e3
        if r:
            mn, md = statistics.median(x[0] for x in r), statistics.median(x[1] for x in r)
            cells = ("%.1f" % mn, "%.1f" % pn, "%.1f" % md, "%.1f" % pd)
        else:
            cells = ("-", "%.1f" % pn, "-", "%.1f" % pd)
        role = "fitted" if model == FIT else "validation" if model != "resnet50" else \
            "host work only: the GPU's ~48 ms sets its pace"
        lines.append("| %s | %d | %d / %d | %s | %s | %s | %s | %s |" % ((key, len(r), ops, buckets) + cells + (role,)))
    head = ("host_us_per_op = %.1f us ((median no-DDP step - SGD's %.2f us x %d tensors) / %d operations), "
            "reducer_us_per_bucket = %.0f us (median DDP-at-world-1 cost / %d buckets)"
            % (per_op, sgd_us, fit_tensors, fit_ops, per_bucket, MODELS[0][2]))
    print(head)
    print("\n".join(lines))
    if a.out:
        files = sorted({x[2] for r in runs.values() for x in r})
        with open(a.out + ".md", "w") as fh:
            fh.write("# The pytorch-ddp framework's host costs: fit and check\n\nGenerated by `tools/fidelity_fit.py "
                     "--list %s --optim-list %s --out %s`; no number typed by hand. PyTorch 2.11 on H200 VMs (1x and 2x), "
                     "tools/ddp_bench.py at bf16, 1-GPU phases.\n\n%s\n\n%s\n\nInputs (%d files):\n\n%s\n"
                     % (a.list, a.optim_list, a.out, head, "\n".join(lines), len(files),
                        "\n".join("- `%s`" % f for f in files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
