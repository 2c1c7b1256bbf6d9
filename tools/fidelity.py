#!/usr/bin/env python3
"""Build the committed comparison of PyTorch DDP (tools/ddp_bench.py) and `nvscale train` (issue 9):
OUT.csv and OUT.md (default OUT: results/fidelity/ddp-vs-nvscale).

usage: tools/fidelity.py --pytorch TRANSPORT=FILE.jsonl [...] --nvscale TRANSPORT=RUN.json [...]
                         [--map NVSCALE_MODEL=HARNESS_MODEL ...] [--out OUT] [--eff-points 3] [--step-pct 15]
                         [--param-tol-pct 1] [--repeats]

TRANSPORT is nvlink, pcie, shm or net: what each input was measured over, said on the command line, never guessed;
or default (ddp_bench's --transport default, the environment as given): for lines measured at world size 1 on a
one-GPU machine, whose only rows (N=1) cross no link.
  --pytorch  a JSON Lines file of tools/ddp_bench.py (schema ddp_bench/2), every line of it measured with
             `--transport TRANSPORT` (its "transport" field must say so); several files per transport are fine
  --nvscale  a run.json of `nvscale train` (schema nvscale.run/1). Where it lists the transports NCCL used at the
             compared N ("transports": [{"n": 2, "summary": {"P2P": 24}, "link": "NVLink"}]), they must be the one
             named (P2P over NVLink = nvlink, P2P otherwise = pcie, SHM = shm, NET = net); where it does not, the
             Markdown says "not verified".
Matching rule, explicit: an nvscale run's train.model, mapped by --map (default: the same name; nvscale's names
are resnet50, lm290m (tools/profiles/lm290m.prof or a built-in), bert-large), its train.precision (fp32, tf32,
bf16, fp16: the same names on both sides), its transport and its train.batch must equal a ddp_bench line's
model, precision, transport and batch_per_gpu. Where both sides state them, what one sample is ("one 128-token
sequence") must be equal and the parameter counts within --param-tol-pct. Every nvscale run must find exactly one
such line that has no "error"; a PyTorch line without an nvscale run is listed as not compared.
--repeats: a configuration may have several nvscale runs and several PyTorch lines (repeated runs in one session,
the way to compare steps whose time follows a noisy host, docs/fidelity.md "Noise"); each side's step and
efficiency are then the medians over its runs, and runs_pytorch, runs_nvscale and the range of the run steps
(step_ms_*_range, "min-max") say how far they spread. Without it, two runs of one configuration are refused.

Rows: for each pair, N = 1 and N = the harness's world size W (--baseline ddp1, the default):
  step_ms_pytorch   N=1: step_ddp1_us (the same DDP program at world 1: what nvscale's N=1 is too, reducer and
                    1-rank all-reduce included); N=W: step_us (DDP)
  step_ms_nvscale   train.results[n=N].step_us
  eff_pytorch       N=1: 1; N=W: eff_ddp1 = step_ddp1_us / step_us
  (--baseline nodp: step_nodp_1_us and eff = step_nodp_1_us / step_us: against a plain GPU without DDP)
  A line measured in paired rounds (ddp_bench.py --rounds R > 1, --baseline ddp1) gives step_ddp1_us_paired,
  step_us_paired and eff_ddp1_paired instead: the medians over its rounds, each round's step(1) and step(W)
  timed back to back.
An nvscale run.json with several workloads ("trains") gives one pair per workload.
  eff_nvscale       train.results[n=N].efficiency (nvscale's own, step(1) / step(N); with --rounds the median of
                    its rounds' own)
  extra columns: batch, d_eff_points = 100 (eff_nvscale - eff_pytorch), step_err_pct = 100 (nvscale - pytorch) /
  pytorch, within_3pts (rows N > 1), within_15pct (rows N = 1), eff_ddp1_pytorch, step_ddp1_ms_pytorch,
  compute_ms_pytorch, params_pytorch, params_nvscale, transport_verified, pytorch_file, nvscale_file
Efficiencies are fractions in the CSV, percent in the Markdown. Nothing is computed that the inputs do not give.

Exit status: 0 written (whether or not every row meets the targets: the table says), 2 refused (a missing or
unreadable file, a file of the wrong kind, a mismatch or ambiguity; one message, nothing written), 1 cannot write.
"""
import argparse
import csv
import io
import json
import math
import os
import statistics
import sys

TRANSPORT_LABELS = ("nvlink", "pcie", "shm", "net", "default")
MODEL_ORDER = ("resnet50", "lm290m", "bert-large")
PRECISION_ORDER = ("fp32", "tf32", "bf16", "fp16")
COLUMNS = ["model", "precision", "transport", "n", "step_ms_pytorch", "step_ms_nvscale", "eff_pytorch",
           "eff_nvscale", "batch", "d_eff_points", "step_err_pct", "within_3pts", "within_15pct", "eff_ddp1_pytorch",
           "step_ddp1_ms_pytorch", "compute_ms_pytorch", "params_pytorch", "params_nvscale", "transport_verified",
           "pytorch_file", "nvscale_file", "runs_pytorch", "runs_nvscale", "step_ms_pytorch_range",
           "step_ms_nvscale_range", "eff_pct_pytorch_range", "eff_pct_nvscale_range"]
# a line of ddp_bench.py --rounds R > 1: the medians over its paired rounds
PAIRED = ("step_ddp1_us_paired", "step_us_paired", "eff_ddp1_paired")
HARNESS_NEEDS = ("model", "precision", "batch_per_gpu", "world_size", "transport", "step_nodp_1_us", "step_ddp1_us",
                 "step_us", "eff", "eff_ddp1", "compute_us")


class Refuse(Exception):
    pass


def labelled(items, flag):
    out = []
    for it in items or []:
        label, sep, path = it.partition("=")
        if not sep or not path:
            raise Refuse("%s %s: expected TRANSPORT=FILE" % (flag, it))
        if label not in TRANSPORT_LABELS:
            raise Refuse("%s %s: unknown transport '%s' (known: %s)" % (flag, it, label, ", ".join(TRANSPORT_LABELS)))
        out.append((label, path))
    return out


def read_text(path):
    if not os.path.exists(path):
        raise Refuse("%s: no such file" % path)
    if os.path.isdir(path):
        raise Refuse("%s: is a directory" % path)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as e:
        raise Refuse("%s: cannot read: %s" % (path, e))


def number(v, what, positive=True):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or (positive and v <= 0):
        raise Refuse("%s: expected a %snumber, got %s" % (what, "positive " if positive else "", json.dumps(v)))
    return float(v)


def load_harness(label, path):
    """Lines of one ddp_bench JSON Lines file: [(line_no, dict)]."""
    text = read_text(path)
    lines = []
    for no, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            d = json.loads(raw)
        except ValueError as e:
            raise Refuse("%s:%d: not JSON (%s)" % (path, no, e))
        if not isinstance(d, dict) or d.get("tool") != "ddp_bench":
            raise Refuse("%s:%d: not a tools/ddp_bench.py line" % (path, no))
        if d.get("schema") != "ddp_bench/2":
            raise Refuse("%s:%d: schema %s, expected \"ddp_bench/2\" (made by an older tools/ddp_bench.py?)"
                         % (path, no, json.dumps(d.get("schema"))))
        if d.get("transport") != label:
            raise Refuse("%s:%d: measured with --transport %s, but given as --pytorch %s=%s"
                         % (path, no, d.get("transport"), label, path))
        if not d.get("error"):
            for k in HARNESS_NEEDS:
                if k not in d:
                    raise Refuse("%s:%d: no \"%s\"" % (path, no, k))
            for k in ("step_nodp_1_us", "step_ddp1_us", "step_us", "eff", "eff_ddp1", "compute_us"):
                number(d[k], "%s:%d: %s" % (path, no, k))
            if "eff_ddp1_paired" in d:  # ddp_bench.py --rounds
                for k in PAIRED:
                    number(d.get(k), "%s:%d: %s" % (path, no, k))
            if not isinstance(d["world_size"], int) or d["world_size"] < 1:
                raise Refuse("%s:%d: world_size: expected a whole number >= 1" % (path, no))
        lines.append((no, d))
    if not lines:
        raise Refuse("%s: no lines" % path)
    return lines


def nvscale_transports(run, n):
    """Transports NCCL reported at N in a run.json, as labels; None where the run does not say."""
    seen = None
    for t in run.get("transports") or []:
        if not isinstance(t, dict) or t.get("n") != n:
            continue
        summary = t.get("summary")
        if not isinstance(summary, dict) or not summary:
            continue
        seen = set()
        for k in summary:
            k = str(k).upper()
            if k == "P2P":
                link = str(t.get("link") or "")
                seen.add("nvlink" if (not link or "nvlink" in link.lower()) else "pcie")
            elif k == "SHM":
                seen.add("shm")
            elif k == "NET":
                seen.add("net")
            else:
                seen.add(k.lower())
    return seen


def harness_transports(d):
    s = d.get("nccl_transports_seen")
    if not isinstance(s, dict) or not s:
        return None
    out = set()
    for k in s:
        k = str(k).upper()
        out.add({"P2P": "nvlink|pcie", "SHM": "shm", "NET": "net"}.get(k, k.lower()))
    return out


def load_nvscale(label, path):
    text = read_text(path)
    try:
        run = json.loads(text)
    except ValueError as e:
        raise Refuse("%s: not JSON (%s)" % (path, e))
    if not isinstance(run, dict) or run.get("schema") != "nvscale.run/1":
        raise Refuse("%s: not an nvscale run.json of schema nvscale.run/1" % path)
    trains = run.get("trains")
    if trains is None:
        trains = [run.get("train")]
    if not isinstance(trains, list) or not trains:
        raise Refuse("%s: trains: expected a non-empty list" % path)
    return [load_train(label, path, run, tr) for tr in trains]


def load_train(label, path, run, tr):
    """One workload of a run.json: its "train" object, or one entry of "trains" (several workloads per run)."""
    if not isinstance(tr, dict):
        raise Refuse("%s: no \"train\" object: not a run of `nvscale train`" % path)
    for k in ("model", "precision"):
        if not isinstance(tr.get(k), str) or not tr[k]:
            raise Refuse("%s: train.%s: expected a name" % (path, k))
    b = tr.get("batch")
    if isinstance(b, bool) or not isinstance(b, (int, float)) or b != int(b) or b < 1:
        raise Refuse("%s: train.batch: expected a whole number >= 1, got %s" % (path, json.dumps(b)))
    res = tr.get("results")
    if not isinstance(res, list) or not res:
        raise Refuse("%s: train.results: expected a non-empty list" % path)
    by_n = {}
    for i, r in enumerate(res):
        if not isinstance(r, dict) or isinstance(r.get("n"), bool) or not isinstance(r.get("n"), int):
            raise Refuse("%s: train.results[%d].n: expected a whole number" % (path, i))
        number(r.get("step_us"), "%s: train.results[%d].step_us" % (path, i))
        number(r.get("efficiency"), "%s: train.results[%d].efficiency" % (path, i))
        ref = r.get("efficiency_reference_n", 1)
        if ref != 1:
            raise Refuse("%s: train.results[%d]: efficiency is relative to N=%s, not N=1" % (path, i, ref))
        if r["n"] in by_n:
            raise Refuse("%s: train.results: N=%d twice" % (path, r["n"]))
        by_n[r["n"]] = r
    return dict(label=label, path=path, run=run, train=tr, by_n=by_n, batch=int(b))


# tools/ddp_bench.py's "optimizer" -> (nvscale's train.optimizer, whether the update is one fused pass). SGD's
# fusedness is not compared: PyTorch's SGD is always its foreach path, nvscale's under --framework ideal is fused.
HARNESS_OPTIMIZERS = {"SGD(momentum=0.9)": ("sgd", None), "AdamW": ("adamw", False),
                      "AdamW(fused=True)": ("adamw", True)}


def nvscale_optimizer(tr):
    name = tr.get("optimizer")
    if not isinstance(name, str):
        return None
    fused = tr.get("optimizer_fused")
    return "%s%s" % (name, "-fused" if name != "sgd" and fused is True else "")


def check_optimizer(h, tr, where):
    """The same update on both sides, where both state it: AdamW's step is milliseconds longer than SGD's."""
    ho = HARNESS_OPTIMIZERS.get(h.get("optimizer"))
    no = nvscale_optimizer(tr)
    if ho is None or no is None:
        return
    want = ho[0] + ("-fused" if ho[1] else "")
    if no != want:
        raise Refuse("%s: the optimizer is %s in PyTorch, --optimizer %s in nvscale: not the same step"
                     % (where, h["optimizer"], no))


def check_pair(h, r, where, args):
    """The same shape, model and optimizer on both sides, where both state them."""
    tr = r["train"]
    check_optimizer(h, tr, where)
    if h.get("sample") and tr.get("sample") and h["sample"] != tr["sample"]:
        raise Refuse("%s: one sample is \"%s\" in PyTorch, \"%s\" in nvscale: not the same shape"
                     % (where, h["sample"], tr["sample"]))
    pp, pn = h.get("params"), tr.get("params")
    if isinstance(pp, (int, float)) and isinstance(pn, (int, float)) and pp > 0 and \
            abs(pn - pp) > args.param_tol_pct / 100.0 * pp:
        raise Refuse("%s: %d parameters in PyTorch, %d in nvscale: more than %g %% apart: not the same model"
                     % (where, pp, pn, args.param_tol_pct))


def fmt(v, digits):
    return "" if v is None else ("%.*f" % (digits, v))


def build(args):
    pyt = labelled(args.pytorch, "--pytorch")
    nvs = labelled(args.nvscale, "--nvscale")
    if not pyt:
        raise Refuse("no --pytorch TRANSPORT=FILE given")
    if not nvs:
        raise Refuse("no --nvscale TRANSPORT=FILE given")
    mapping = {}
    for m in args.map or []:
        a, sep, b = m.partition("=")
        if not sep or not a or not b:
            raise Refuse("--map %s: expected NVSCALE_MODEL=HARNESS_MODEL" % m)
        if a in mapping and mapping[a] != b:
            raise Refuse("--map: %s mapped twice" % a)
        mapping[a] = b

    harness = []  # (label, path, line_no, dict)
    seen_files = set()
    for label, path in pyt:
        if os.path.abspath(path) in seen_files:
            raise Refuse("%s given twice" % path)
        seen_files.add(os.path.abspath(path))
        for no, d in load_harness(label, path):
            harness.append((label, path, no, d))
    runs = []
    for label, path in nvs:
        if os.path.abspath(path) in seen_files:
            raise Refuse("%s given twice" % path)
        seen_files.add(os.path.abspath(path))
        runs.extend(load_nvscale(label, path))

    rows, used, groups = [], set(), {}
    for r in runs:  # one group per configuration: several runs only with --repeats
        model = mapping.get(r["train"]["model"], r["train"]["model"])
        key = (model, r["train"]["precision"], r["label"], r["batch"])
        if key in groups and not args.repeats:
            raise Refuse("%s and %s: both are %s %s batch %d over %s (--repeats takes the median of such runs)" % (
                groups[key][0]["path"], r["path"], model, key[1], r["batch"], r["label"]))
        groups.setdefault(key, []).append(r)
    for (model, prec, label, batch), group in groups.items():
        r = group[0]
        tr, path = r["train"], r["path"]
        same = [h for h in harness if h[0] == label and h[3].get("model") == model and h[3].get("precision") == prec]
        if not same:
            hint = "" if model != tr["model"] else " (use --map %s=HARNESS_MODEL if the names differ)" % tr["model"]
            raise Refuse("%s: nvscale %s %s over %s: no --pytorch %s line has model %s and precision %s%s"
                         % (path, tr["model"], prec, label, label, model, prec, hint))
        match = [h for h in same if h[3].get("batch_per_gpu") == r["batch"]]
        if not match:
            raise Refuse("%s: batch %d per GPU, but the PyTorch lines for %s %s over %s have batch %s" % (
                path, r["batch"], model, prec, label,
                ", ".join(sorted({str(h[3].get("batch_per_gpu")) for h in same}))))
        good = [h for h in match if not h[3].get("error")]
        if not good:
            h = match[-1]
            raise Refuse("%s:%d: PyTorch %s failed there: %s" % (h[1], h[2], h[3].get("config"), h[3].get("error")))
        if len(good) > 1 and not args.repeats:
            raise Refuse("%s: %d PyTorch lines match (%s): keep one, or give --repeats" % (
                path, len(good), ", ".join("%s:%d" % (h[1], h[2]) for h in good)))
        w = good[0][3]["world_size"]
        if any(h[3]["world_size"] != w for h in good):
            raise Refuse("%s: the PyTorch lines for %s %s over %s ran at different world sizes (%s)" % (
                path, model, prec, label, ", ".join(sorted({str(h[3]["world_size"]) for h in good}))))
        pyt_seen, nv_ok, pt_ok = set(), w > 1, w > 1
        for _, hpath, hno, h in good:
            used.add((hpath, hno))
            for r in group:
                check_pair(h, r, "%s:%d and %s" % (hpath, hno, r["path"]), args)
            h_seen = harness_transports(h) if w > 1 else None
            if h_seen is None:
                pt_ok = False
            else:
                ok = {s for s in h_seen if label in s.split("|")}
                if ok != h_seen:
                    raise Refuse("%s:%d: NCCL reported %s, but the line is given as %s" % (
                        hpath, hno, ", ".join(sorted(h_seen)), label))
            pyt_seen.add("%s:%d" % (hpath, hno))
        for r in group:
            for n in sorted({1, w}):
                if n not in r["by_n"]:
                    raise Refuse("%s: no train.results entry for N=%d (PyTorch measured world size %d)"
                                 % (r["path"], n, w))
            nv_seen = nvscale_transports(r["run"], w) if w > 1 else None
            if nv_seen is None:
                nv_ok = False
            elif nv_seen != {label}:
                raise Refuse("%s: NCCL used %s at N=%d, but the run is given as --nvscale %s=..." % (
                    r["path"], ", ".join(sorted(nv_seen)), w, label))
        verified = (["nvscale"] if nv_ok else []) + (["pytorch"] if pt_ok else [])
        hs = [g[3] for g in good]
        h = hs[0]

        def paired(x):
            # a line of ddp_bench.py --rounds: its rounds' medians, against DDP at world 1 only
            return args.baseline == "ddp1" and "eff_ddp1_paired" in x
        pp, pn = h.get("params"), tr.get("params")
        for n in sorted({1, w}):
            # each side: the median over its runs (one run: that run's own median step)
            if n == 1:
                sps = [x["step_ddp1_us_paired"] if paired(x) else
                       x["step_ddp1_us" if args.baseline == "ddp1" else "step_nodp_1_us"] for x in hs]
                eps = [1.0]
            else:
                sps = [x["step_us_paired"] if paired(x) else x["step_us"] for x in hs]
                eps = [x["eff_ddp1_paired"] if paired(x) else x["eff_ddp1" if args.baseline == "ddp1" else "eff"]
                       for x in hs]
            sns = [g["by_n"][n]["step_us"] for g in group]
            ens = [g["by_n"][n]["efficiency"] for g in group]
            sp, ep = statistics.median(sps), statistics.median(eps)
            sn, en = statistics.median(sns), statistics.median(ens)
            eff_range = lambda es: "" if n == 1 else "%s-%s" % (fmt(100 * min(es), 1), fmt(100 * max(es), 1))
            d_eff = 100.0 * (en - ep)
            err = 100.0 * (sn - sp) / sp
            rows.append(dict(
                model=model, precision=prec, transport=label, n=n,
                step_ms_pytorch=fmt(sp / 1e3, 3), step_ms_nvscale=fmt(sn / 1e3, 3),
                eff_pytorch=fmt(ep, 4), eff_nvscale=fmt(en, 4), batch=r["batch"],
                d_eff_points=fmt(d_eff, 2), step_err_pct=fmt(err, 2),
                within_3pts="" if n == 1 else ("yes" if abs(d_eff) <= args.eff_points else "no"),
                within_15pct=("yes" if abs(err) <= args.step_pct else "no") if n == 1 else "",
                eff_ddp1_pytorch=fmt(statistics.median(x["eff_ddp1"] for x in hs), 4) if n > 1 else "",
                step_ddp1_ms_pytorch=fmt(statistics.median(x["step_ddp1_us"] for x in hs) / 1e3, 3)
                if n == 1 else "",
                compute_ms_pytorch=fmt(statistics.median(x["compute_us"] for x in hs) / 1e3, 3) if n > 1 else "",
                params_pytorch="" if pp is None else "%d" % pp, params_nvscale="" if pn is None else "%d" % pn,
                transport_verified="+".join(verified) if verified else ("" if n == 1 else "no"),
                pytorch_file=" ".join(sorted(pyt_seen)), nvscale_file=" ".join(g["path"] for g in group),
                runs_pytorch=len(hs), runs_nvscale=len(group),
                step_ms_pytorch_range="%s-%s" % (fmt(min(sps) / 1e3, 1), fmt(max(sps) / 1e3, 1)),
                step_ms_nvscale_range="%s-%s" % (fmt(min(sns) / 1e3, 1), fmt(max(sns) / 1e3, 1)),
                eff_pct_pytorch_range=eff_range(eps), eff_pct_nvscale_range=eff_range(ens)))

    def order(x):
        def idx(seq, v):
            return (seq.index(v), "") if v in seq else (len(seq), v)
        return (idx(MODEL_ORDER, x["model"]), idx(PRECISION_ORDER, x["precision"]),
                idx(TRANSPORT_LABELS, x["transport"]), x["batch"], x["n"])
    rows.sort(key=order)
    unmatched = [(lab, p, no, d) for lab, p, no, d in harness if (p, no) not in used]
    return rows, unmatched, harness, runs


def render_csv(rows):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return buf.getvalue()


def md_cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_md(rows, unmatched, harness, runs, args, argv):
    out = ["# PyTorch DDP vs `nvscale train`: training-step fidelity", ""]
    out.append("Generated by `tools/fidelity.py %s`; no number typed by hand. Made from:" % " ".join(argv))
    out.append("")
    files = {}
    for lab, p, no, d in harness:
        files.setdefault(("pytorch", lab, p), []).append(d)
    for (_, lab, p), ds in files.items():
        d = ds[0]
        out.append("- PyTorch over %s: `%s` (tools/ddp_bench.py, %d line(s); world size %s; %s; torch %s, NCCL %s; "
                   "first line measured %s)" % (lab, md_cell(p), len(ds), d.get("world_size"),
                                                md_cell(d.get("gpu", "?")), d.get("torch", "?"), d.get("nccl", "?"),
                                                d.get("time_utc", "?")))
    for r in runs:
        argv_n = (r["run"].get("command") or {}).get("argv")
        out.append("- nvscale over %s: `%s` (%s %s batch %d; started %s%s)" % (
            r["label"], md_cell(r["path"]), md_cell(r["train"]["model"]), r["train"]["precision"], r["batch"],
            r["run"].get("started_utc", "?"),
            "; `%s`" % md_cell(" ".join(str(a) for a in argv_n)) if isinstance(argv_n, list) else ""))
    base = ("the same DDP program at world 1 (`step_ddp1_us`: reducer, bucket copies and a 1-rank all-reduce, as "
            "nvscale's N=1 has them too)" if args.baseline == "ddp1" else
            "one GPU without DDP (`step_nodp_1_us`)")
    out += ["", "Efficiency = step(1) / step(N) at a fixed per-GPU batch. PyTorch's step(1) is %s, its step(N) DDP "
            "at world N, each the median of its timed steps (world N: the slowest rank's). nvscale's are its own "
            "`train.results`. Targets (issue 9): efficiency within ±%g points, N=1 step within ±%g %%; rows outside "
            "are marked **OUT**." % (base, args.eff_points, args.step_pct), ""]
    rep = any(r["runs_pytorch"] > 1 or r["runs_nvscale"] > 1 for r in rows)
    if rep:
        out += ["With --repeats: each side's step and efficiency are the medians over its runs (each run's own "
                "value being the median of its timed steps); the last columns give the runs and the range of their "
                "steps, and at N>1 the range of their efficiencies, PyTorch / nvscale: where a side's own runs "
                "spread wider than the target, one pair of medians cannot settle the row.", ""]
    out.append("| model | precision | batch | transport | N | PyTorch step (ms) | nvscale step (ms) | step diff | "
               "PyTorch eff. | nvscale eff. | diff (points) | PyTorch 1-rank-DDP step / eff. | transport verified | "
               "target |" + (" runs: step range (ms) | eff. range (%) |" if rep else ""))
    out.append("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|" + ("---|---|" if rep else ""))
    met = total = 0
    for r in rows:
        if r["n"] == 1:
            ok = r["within_15pct"] == "yes"
            ddp1 = "%s ms" % r["step_ddp1_ms_pytorch"]
        else:
            ok = r["within_3pts"] == "yes"
            ddp1 = "%.1f %%" % (100 * float(r["eff_ddp1_pytorch"]))
        total += 1
        met += ok
        out.append("| %s | %s | %d | %s | %d | %s | %s | %+.1f %% | %.1f %% | %.1f %% | %+.1f | %s | %s | %s |" % (
            md_cell(r["model"]), r["precision"], r["batch"], r["transport"], r["n"], r["step_ms_pytorch"], r["step_ms_nvscale"],
            float(r["step_err_pct"]), 100 * float(r["eff_pytorch"]), 100 * float(r["eff_nvscale"]),
            float(r["d_eff_points"]), ddp1, r["transport_verified"] or "-", "ok" if ok else "**OUT**") +
            (" %d: %s / %d: %s | %s |" % (r["runs_pytorch"], r["step_ms_pytorch_range"], r["runs_nvscale"],
                                          r["step_ms_nvscale_range"],
                                          "%s / %s" % (r["eff_pct_pytorch_range"], r["eff_pct_nvscale_range"])
                                          if r["n"] > 1 else "-") if rep else ""))
    out += ["", "%d of %d rows within target (N=1 rows: step time; N>1 rows: efficiency)." % (met, total)]
    if unmatched:
        out += ["", "PyTorch configurations without an nvscale run (not compared):", ""]
        for lab, p, no, d in unmatched:
            if d.get("error"):
                out.append("- `%s:%d` %s over %s: failed: %s" % (md_cell(p), no, d.get("config"), lab,
                                                               md_cell(d.get("error"))))
            else:
                out.append("- `%s:%d` %s over %s: step %.2f ms at N=1, %.2f ms at N=%d, efficiency %.1f %%" % (
                    md_cell(p), no, d.get("config"), lab, d["step_nodp_1_us"] / 1e3, d["step_us"] / 1e3,
                    d["world_size"], 100 * d["eff"]))
    return "\n".join(out) + "\n"


def write_atomic(pairs):
    """Write every (path, text) to a temporary file beside it, then rename them all into place."""
    tmps = []
    try:
        for path, text in pairs:
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            tmp = "%s.tmp.%d" % (path, os.getpid())
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            tmps.append((tmp, path))
        for tmp, path in tmps:
            os.replace(tmp, path)
    except OSError as e:
        for tmp, _ in tmps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        print("fidelity: error: cannot write: %s" % e, file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    doc = (__doc__ or "fidelity\n\n").split("\n\n", 1)

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            print("fidelity: error: %s" % message, file=sys.stderr)
            sys.exit(2)

    def pos_number(s):
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError("'%s' is not a number" % s)
        if not (v >= 0 and math.isfinite(v)):
            raise argparse.ArgumentTypeError("'%s': must be >= 0" % s)
        return v

    ap = Parser(prog="fidelity.py", description=doc[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog=doc[1])
    ap.add_argument("--pytorch", action="append", metavar="TRANSPORT=FILE.jsonl")
    ap.add_argument("--nvscale", action="append", metavar="TRANSPORT=RUN.json")
    ap.add_argument("--map", action="append", metavar="NVSCALE_MODEL=HARNESS_MODEL")
    ap.add_argument("--baseline", choices=["ddp1", "nodp"], default="ddp1",
                    help="PyTorch's N=1: ddp1 = the same DDP program at world 1 (default: nvscale's N=1 runs its "
                         "reducer too, and issue 9 compares 'a plain DDP script' at N=1), nodp = no DDP at all")
    ap.add_argument("--repeats", action="store_true",
                    help="several runs of one configuration (PyTorch lines, nvscale runs): each side is the median "
                         "of its runs, and the table shows their count and range")
    ap.add_argument("--out", default="results/fidelity/ddp-vs-nvscale", help="OUT.csv and OUT.md (default %(default)s)")
    ap.add_argument("--eff-points", type=pos_number, default=3.0, help="efficiency target, points (default 3)")
    ap.add_argument("--step-pct", type=pos_number, default=15.0, help="N=1 step target, percent (default 15)")
    ap.add_argument("--param-tol-pct", type=pos_number, default=1.0,
                    help="largest parameter-count difference accepted as the same model, percent (default 1)")
    args = ap.parse_args(argv)
    if os.path.isdir(args.out):
        print("fidelity: error: --out %s is a directory: give a path prefix (OUT.csv, OUT.md are written)" % args.out,
              file=sys.stderr)
        return 2
    try:
        rows, unmatched, harness, runs = build(args)
    except Refuse as e:
        print("fidelity: error: %s" % e, file=sys.stderr)
        return 2
    csv_text = render_csv(rows)
    md_text = render_md(rows, unmatched, harness, runs, args, argv)
    rc = write_atomic([(args.out + ".csv", csv_text), (args.out + ".md", md_text)])
    if rc == 0:
        out = sum(1 for r in rows if (r["within_15pct"] if r["n"] == 1 else r["within_3pts"]) != "yes")
        print("fidelity: %d rows to %s.csv and %s.md; %d outside the targets" % (len(rows), args.out, args.out, out),
              file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
