#!/usr/bin/env python3
"""PyTorch DDP reference harness for nvscale's synthetic training step (a reference to compare with, not the
product).

    torchrun --standalone --nproc_per_node W tools/ddp_bench.py --configs LIST [--transport T] [--json OUT.jsonl]
        [--steps 20] [--warmup 5] [--profile [--profile-steps 4] [--trace-dir DIR]] [--max-seconds S] ...
    torchrun --standalone --nproc_per_node W tools/ddp_bench.py --model M [--batch B] [--precision P] ...

LIST is comma-separated MODEL:PRECISION[:BATCH], e.g.
    resnet50:fp32:128,resnet50:bf16:128,lm290m:fp32:8,lm290m:bf16:8,bert-large:fp32:32,bert-large:bf16:32
(plain `python3 tools/ddp_bench.py ...` runs it as one process: world size 1.)

What one launch at world size W measures, for each configuration in turn (memory freed in between):
  step_nodp_1_us  rank 0 ALONE, the plain model without DDP (the other ranks wait): the single-GPU baseline, what
                  a user runs on one GPU
  step_ddp1_us    rank 0 alone, the model in DDP over a 1-rank process group (dist.new_group([0])): DDP's own
                  cost (bucket copies, autograd hooks, the 1-rank all-reduce) with no peer
  step_us         DDP at world W: zero_grad, forward, backward with DDP's bucketed all-reduce overlapping it,
                  optimizer step (the slowest rank's median)
  compute_us      the same DDP step at world W inside ddp.no_sync() (no gradient all-reduce; the slowest rank's)
  exposed_comm_us step_us - compute_us
  eff             step_nodp_1_us / step_us: scaling efficiency against a plain single GPU at a fixed per-GPU batch,
                  T_1 / T_W, i.e. throughput(W) / (W throughput(1)) (what Lambda-style benchmarks report)
  eff_ddp1        step_ddp1_us / step_us (against DDP at world 1)
  ddp1_overhead_us  step_ddp1_us - step_nodp_1_us; compute_over_nodp1 = compute_us / step_nodp_1_us (how much
                  slower the world-W step is without its gradient all-reduce than a plain single GPU)
  flat_allreduce_us one all-reduce at world W of a flat fp32 buffer as large as all gradients
With --rounds R > 1 the two DDP steps are timed R times in turn (round 1 as above, then 1-rank DDP on rank 0 and
DDP at world W again, each after 2 untimed steps, the same two models throughout, world W first in the even
rounds), so that a host whose speed drifts between stretches of a few seconds slows both sides of each ratio
alike, and neither side is always the one timed first:
  round_ddp1_us, round_world_us  per round, step_ddp1_us's and step_us's median (world W: the slowest rank's)
  eff_ddp1_rounds  per round, round_ddp1_us / round_world_us
  eff_ddp1_paired  their median, the efficiency against DDP at world 1 that the rounds agree on
  step_ddp1_us_paired, step_us_paired  the medians of round_ddp1_us and round_world_us
(nvscale train --rounds does the same with its N = 1 and N = W: src/train/rounds.h.)
Every step time is the median over --steps timed steps (after --warmup untimed ones) of torch.cuda.synchronize +
time.perf_counter around one step; before each timed region the ranks meet at a barrier and synchronize. Each
phase trains its own copy of one initial model (copy.deepcopy), so no DDP wrapper ever sees another's parameters.
Also recorded: every rank's medians, every step of the 1-GPU phases (and the Unix time their first timed step
began, step_*_t0_unix; and per step, step_*_detail: its Unix start time t_unix, to line steps up with probes
sampled meanwhile, host issue time, main-thread CPU time, new cudaMalloc segments, GC collections, and a fixed
piece of interpreter work timed on the same thread just before the step, probe_us), the same per step on every
rank for the world-W phases (step_world_detail_per_rank: per rank, {"ddp": ..., "nosync": ...}, each with its
step_us list), the load average before and after (a step that is bound by host launch work, as bf16 steps can be, slows down next
to a busy CPU: never measure next to a build), OMP/torch threads, CUDA_DEVICE_MAX_CONNECTIONS
(--cuda-device-max-connections N sets it), the SDPA backends enabled (--sdpa pins one), fp16's GradScaler scale
before/after each timed region (fp16_steps_skipped: it skipped optimizer steps there), versions and the whole
NCCL environment.

--profile adds, per phase (1 GPU without DDP, 1 GPU with 1-rank DDP, world W DDP, world W no_sync), a
torch.profiler pass over --profile-steps more steps (one extra step first, discarded) on every rank taking part,
and reports per step: GPU time by kernel kind (gemm_conv: cuBLAS/cuDNN/CUTLASS GEMM and convolution kernels;
attention: flash/memory-efficient/cuDNN attention; nccl: NCCL kernels, i.e. kernel *resident* time, which
includes waiting for the peer; norm; copy; optimizer; other; memcpy; memset), NCCL kernels per step and their
mean duration, GEMM time overlapping NCCL kernels (gemm_overlap_nccl_us), GPU busy time (union of all kernel and
copy intervals) against the step's wall time (gpu_idle_frac: a launch-bound step leaves the GPU idle), kernel
launches and CUDA API time per step, the top kernels; and ratios of each kind between phases, e.g.
gemm_ratio.world_ddp = GEMM time per step at world W with DDP / on 1 GPU without DDP (the "GEMMs run slower
while NCCL kernels are resident" evidence). --trace-dir DIR keeps the chrome traces.

Models (synthetic data generated once on the GPU; parameter counts asserted):
  resnet50    torchvision.models.resnet50(weights=None), 224x224 images, 1000 classes, cross-entropy; batch 128
  lm290m      the model of tools/profiles/lm290m.prof: token + learned position embeddings, 18 x
              nn.TransformerEncoderLayer(d 1024, 16 heads, ffn 4096, GELU, norm_first, dropout 0), NON-causal,
              no mask (issue 9's reference LM) unless --lm-causal, final LayerNorm, untied Linear(1024, 32000,
              bias=False); random tokens, next-token cross-entropy, sequence 512; 292,794,368 parameters; batch 8
  bert-large  HF transformers BertForMaskedLM from a BertConfig equal to bert-large-uncased (vocab 30522, hidden
              1024, 24 layers, 16 heads, intermediate 4096, 512 positions, 2 token types; attention "sdpa" where
              the installed transformers accepts it; dropout 0.1 as in training, --dropout 0 to drop it), built
              from the config (never downloaded), sequence 128, random tokens, MLM loss on ~15 % of positions;
              335,174,458 parameters; batch 32
Optimizer: SGD with momentum 0.9 (nvscale's optimizer pass is SGD-momentum-like), --optimizer adamw (PyTorch's
default: foreach),
adamw-fused (AdamW(fused=True)).

Precision: fp32 = TF32 off for cuBLAS and cuDNN; tf32 = TF32 on; bf16 = torch.autocast(bfloat16); fp16 =
torch.autocast(float16) with torch.amp.GradScaler. Parameters, gradients (so DDP's all-reduce) and optimizer
state stay fp32 in every mode; TF32 is off under autocast. The TF32 behaviour actually observed is reported.

Transport (--transport, set in this process before NCCL starts, because NCCL reads its environment once per
process; NCCL_NVLS_ENABLE=0 always):
  nvlink   NCCL_P2P_DISABLE, NCCL_SHM_DISABLE and NCCL_HOSTID removed: NCCL's default, P2P over NVLink
  shm      NCCL_P2P_DISABLE=1: through host shared memory
  net      NCCL_HOSTID=nvs-vhost-<rank> (each rank looks like a separate host), NCCL_NET=Socket,
           NCCL_SOCKET_IFNAME=lo, NCCL_IB_DISABLE=1, NCCL_MNNVL_ENABLE=0: NET/Socket over loopback only
  default  the environment as given
NCCL's INFO log (NCCL_DEBUG=INFO, subsystems INIT,ENV, to a file: --nccl-log-dir, else a temporary one) is read
back and the transports NCCL reported ("via P2P/...", "via SHM/...", "via NET/...") are counted in
nccl_transports_seen, unless NCCL_DEBUG is already set or --no-nccl-log.

Output: one JSON object per configuration per line on stdout (rank 0), also appended to --json FILE (JSON
Lines); progress, settings and the profile tables on stderr. A configuration that fails (out of memory, NCCL
error, ...) gets a line with "error" naming it and the next one runs; with --max-seconds S no configuration
starts once S seconds have passed or once the longest configuration so far would not fit (those get an "error"
line too). An error on one rank only inside a world-W phase can leave NCCL's collectives out of step; the process
group's timeout (--timeout-s) then ends the run, keeping the lines already written.
Exit status: 0 every configuration measured, 1 runtime error or a configuration failed or was not run, 2 usage
error.
"""
import argparse
import bisect
import contextlib
import copy
import gc
import inspect
import json
import os
import re
import shutil
import socket
import statistics
import sys
import tempfile
import time
import traceback

SCHEMA = "ddp_bench/2"

LM290M = dict(vocab=32000, d_model=1024, layers=18, heads=16, ffn=4096, seq=512)
RESNET50_PARAMS = 25_557_032  # torchvision resnet50 = nvscale's built-in resnet50 profile
BERT_LARGE = dict(vocab=30522, hidden=1024, layers=24, heads=16, intermediate=4096, max_position=512,
                  type_vocab=2)  # = bert-large-uncased's config.json
BERT_SEQ = 128
BERT_MLM_FRACTION = 0.15


def lm290m_params(vocab, d_model, layers, heads, ffn, seq):
    """Parameters of the lm290m model, counted from its definition below."""
    d = d_model
    per_layer = (3 * d * d + 3 * d) + (d * d + d) + (ffn * d + ffn) + (d * ffn + d) + 2 * (2 * d)
    return vocab * d + seq * d + layers * per_layer + 2 * d + d * vocab


def bert_mlm_params(vocab, hidden, layers, heads, intermediate, max_position, type_vocab):
    """Parameters of HF BertForMaskedLM (no pooler; the MLM decoder's weight is tied to the word embeddings, its
    bias is its own), counted from the architecture."""
    h = hidden
    embeddings = vocab * h + max_position * h + type_vocab * h + 2 * h  # word, position, token type, LayerNorm
    per_layer = (4 * (h * h + h)  # query, key, value, attention output dense
                 + 2 * h  # attention output LayerNorm
                 + (h * intermediate + intermediate) + (intermediate * h + h)  # intermediate, output dense
                 + 2 * h)  # output LayerNorm
    mlm_head = (h * h + h) + 2 * h + vocab  # transform dense, transform LayerNorm, decoder bias
    return embeddings + layers * per_layer + mlm_head


LM290M_PARAMS = 292_794_368  # = lm290m_params(**LM290M) = total of tools/profiles/lm290m.prof
assert lm290m_params(**LM290M) == LM290M_PARAMS
BERT_LARGE_MLM_PARAMS = 335_174_458  # = bert_mlm_params(**BERT_LARGE): HF bert-large-uncased BertForMaskedLM
assert bert_mlm_params(**BERT_LARGE) == BERT_LARGE_MLM_PARAMS

MODELS = {  # name: default batch per GPU, what one sample is
    "resnet50": dict(batch=128, sample="one 224x224 RGB image"),
    "lm290m": dict(batch=8, sample="one %d-token sequence" % LM290M["seq"]),
    "bert-large": dict(batch=32, sample="one %d-token sequence" % BERT_SEQ),
}
PRECISIONS = ("fp32", "tf32", "bf16", "fp16")
TRANSPORTS = ("nvlink", "shm", "net", "default")
PHASES = ("gpu1_nodp", "gpu1_ddp1", "world_ddp", "world_nosync")
KINDS = ("gemm_conv", "attention", "nccl", "norm", "copy", "optimizer", "other", "memcpy", "memset")


def py_probe(n=20000):
    """Microseconds this thread takes for a fixed piece of interpreter work (~2 ms: dict stores in a loop). On a
    VM whose vCPU changes speed from second to second, a launch-bound step's time follows this."""
    d, t0 = {}, time.perf_counter()
    for i in range(n):
        d[i & 255] = i
    return (time.perf_counter() - t0) * 1e6


def die(code, msg):
    print("ddp_bench: error: " + msg, file=sys.stderr, flush=True)
    sys.exit(code)


# ---------------------------------------------------------------------------------------------------------------
# Command line (no torch needed)

def parse_count(s, lo=1, what="value"):
    try:
        v = int(s)
    except ValueError:
        raise ValueError("'%s' is not a whole number" % s)
    if v < lo or v > 1_000_000:
        raise ValueError("%s: must be %d..1000000" % (s, lo))
    return v


def parse_configs(text):
    """'model:precision[:batch],...' -> [{'model', 'precision', 'batch', 'name'}]; ValueError with a message."""
    if not text or not text.strip():
        raise ValueError("empty list")
    out, seen = [], set()
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise ValueError("empty entry in '%s'" % text)
        parts = item.split(":")
        if len(parts) not in (2, 3):
            raise ValueError("'%s': expected MODEL:PRECISION[:BATCH]" % item)
        model, prec = parts[0].strip(), parts[1].strip()
        if model not in MODELS:
            raise ValueError("'%s': unknown model '%s' (known: %s)" % (item, model, ", ".join(MODELS)))
        if prec not in PRECISIONS:
            raise ValueError("'%s': unknown precision '%s' (known: %s)" % (item, prec, ", ".join(PRECISIONS)))
        try:
            batch = parse_count(parts[2].strip()) if len(parts) == 3 else MODELS[model]["batch"]
        except ValueError as e:
            raise ValueError("'%s': batch %s" % (item, e))
        name = "%s:%s:%d" % (model, prec, batch)
        if name in seen:
            raise ValueError("'%s' given twice" % name)
        seen.add(name)
        out.append(dict(model=model, precision=prec, batch=batch, name=name))
    return out


def parse_args(argv):
    def count(lo):
        def conv(s):
            try:
                return parse_count(s, lo)
            except ValueError as e:
                raise argparse.ArgumentTypeError(str(e))
        return conv

    def number(lo, hi, what, lo_open=False):
        def conv(s):
            try:
                v = float(s)
            except ValueError:
                raise argparse.ArgumentTypeError("'%s' is not a number" % s)
            if v != v or (v <= lo if lo_open else v < lo) or v > hi:
                raise argparse.ArgumentTypeError("%s: must be %s %g and <= %g (%s)"
                                                 % (s, ">" if lo_open else ">=", lo, hi, what))
            return v
        return conv

    doc = (__doc__ or "ddp_bench\n\n").split("\n\n", 1)
    ap = argparse.ArgumentParser(prog="ddp_bench.py", description=doc[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc[1])
    ap.add_argument("--configs", metavar="LIST", help="MODEL:PRECISION[:BATCH],... measured in this one launch")
    ap.add_argument("--model", choices=list(MODELS), help="one configuration: the model")
    ap.add_argument("--batch", type=count(1), help="with --model: samples per GPU per step (default: the model's)")
    ap.add_argument("--precision", choices=list(PRECISIONS), help="with --model (default fp32)")
    ap.add_argument("--transport", choices=list(TRANSPORTS), default="default",
                    help="NCCL transport between the ranks (default: the environment as given)")
    ap.add_argument("--steps", type=count(1), default=20, help="timed steps per phase (default 20)")
    ap.add_argument("--warmup", type=count(0), default=5, help="untimed steps before each phase (default 5)")
    ap.add_argument("--rounds", type=count(1), default=1,
                    help="time 1-rank DDP and world-W DDP this many times in turn (default 1; see above)")
    # not passed unless given: PyTorch 2.11's DDP keeps its 1 MiB first bucket (dist._DEFAULT_FIRST_BUCKET_BYTES)
    # only while bucket_cap_mb is None; an explicit bucket_cap_mb=25 makes the first bucket 25 MiB too
    # (torch/nn/parallel/distributed.py, "if self.bucket_bytes_cap_default"; results/h100x1-s54a/ddp-bucket.txt).
    # Records before 6 December 2026 passed 25 and so ran a 25 MiB first bucket, not a plain script's 1 MiB.
    ap.add_argument("--bucket-cap-mb", type=number(0, 65536, "MB", lo_open=True), default=None,
                    help="DDP bucket_cap_mb (default: not passed, DDP's own 25 MB with a 1 MiB first bucket; "
                         "PyTorch 2.x makes the first bucket this size too when it is passed)")
    ap.add_argument("--no-broadcast-buffers", action="store_true",
                    help="DDP broadcast_buffers=False (default True, as DDP's: the module's buffers broadcast from "
                         "rank 0 before each forward outside no_sync())")
    ap.add_argument("--optimizer", choices=["sgd", "adamw", "adamw-fused"], default="sgd")
    ap.add_argument("--channels-last", action="store_true", help="resnet50: NHWC memory format")
    ap.add_argument("--lm-causal", action="store_true",
                    help="lm290m: causal attention (float mask + is_causal hint) instead of the default non-causal")
    ap.add_argument("--dropout", type=number(0, 0.9, "probability"),
                    help="dropout of lm290m and bert-large (default: lm290m 0, bert-large 0.1 as HF)")
    ap.add_argument("--sdpa", choices=["auto", "flash", "efficient", "cudnn", "math"], default="auto",
                    help="allow only this scaled_dot_product_attention backend (default auto: PyTorch chooses)")
    ap.add_argument("--json", metavar="OUT", help="also append the JSON lines to OUT (rank 0)")
    ap.add_argument("--no-cudnn-benchmark", action="store_true",
                    help="leave torch.backends.cudnn.benchmark off (default: on, as training benchmarks with fixed "
                         "shapes run: NVIDIA DeepLearningExamples, Lambda's PyTorch benchmark)")
    ap.add_argument("--profile", action="store_true", help="torch.profiler breakdown of every phase (see above)")
    ap.add_argument("--breakdown", action="store_true", help=argparse.SUPPRESS)  # the old name of --profile
    ap.add_argument("--profile-steps", type=count(1), default=4, help="profiled steps per phase (default 4)")
    ap.add_argument("--trace-dir", metavar="DIR", help="with --profile: keep the chrome traces in DIR")
    ap.add_argument("--nccl-log-dir", metavar="DIR", help="keep NCCL's INFO logs in DIR (default: a temporary one)")
    ap.add_argument("--no-nccl-log", action="store_true", help="do not turn NCCL's INFO log on")
    ap.add_argument("--cuda-device-max-connections", type=count(1), metavar="N",
                    help="set CUDA_DEVICE_MAX_CONNECTIONS=N before CUDA starts (hardware work queues per device)")
    ap.add_argument("--timeout-s", type=count(30), default=300,
                    help="process-group timeout: a rank stuck in a collective this long ends the run (default 300)")
    ap.add_argument("--max-seconds", type=number(0, 1e7, "seconds"), default=0.0,
                    help="start no configuration after S seconds, nor one that the longest so far says would not "
                         "finish by then (default 0: no limit)")
    args = ap.parse_args(argv)
    if args.configs is not None:
        if args.model or args.batch or args.precision:
            ap.error("--configs and --model/--batch/--precision exclude each other")
        try:
            args.config_list = parse_configs(args.configs)
        except ValueError as e:
            ap.error("--configs: %s" % e)
    elif args.model:
        prec = args.precision or "fp32"
        batch = args.batch or MODELS[args.model]["batch"]
        args.config_list = [dict(model=args.model, precision=prec, batch=batch,
                                 name="%s:%s:%d" % (args.model, prec, batch))]
    else:
        ap.error("give --configs LIST or --model MODEL")
    args.profile = args.profile or args.breakdown
    if args.trace_dir and not args.profile:
        ap.error("--trace-dir needs --profile")
    for flag, path in (("--json", args.json and os.path.dirname(os.path.abspath(args.json))),
                       ("--trace-dir", args.trace_dir), ("--nccl-log-dir", args.nccl_log_dir)):
        if path and (not os.path.isdir(path) or not os.access(path, os.W_OK)):
            ap.error("%s: directory %s does not exist or is not writable" % (flag, path))
    return args


# ---------------------------------------------------------------------------------------------------------------
# Environment (no torch needed)

def transport_env(transport, rank, env):
    """The NCCL environment for a transport: (variables to set, variables to remove)."""
    set_, unset = {"NCCL_NVLS_ENABLE": "0"}, []
    if transport == "nvlink":
        unset = ["NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_HOSTID"]
    elif transport == "shm":
        set_["NCCL_P2P_DISABLE"] = "1"
        unset = ["NCCL_SHM_DISABLE", "NCCL_HOSTID"]
    elif transport == "net":
        set_.update(NCCL_HOSTID="nvs-vhost-%d" % rank, NCCL_NET="Socket", NCCL_SOCKET_IFNAME="lo",
                    NCCL_IB_DISABLE="1", NCCL_MNNVL_ENABLE="0")
    elif transport != "default":
        raise ValueError("unknown transport %r" % transport)
    return set_, [k for k in unset if k in env]


def parse_nccl_transports(text):
    """Count the channel connections NCCL's INFO log reports per transport ("... via P2P/CUMEM/read")."""
    seen = {}
    for m in re.finditer(r"\bvia (P2P|SHM|NET|COLLNET|NVLS|CollNet)\b", text):
        k = m.group(1).upper()
        seen[k] = seen.get(k, 0) + 1
    return seen


# ---------------------------------------------------------------------------------------------------------------
# Profile analysis (no torch needed: it reads the chrome trace that torch.profiler exports)

def kernel_kind(name):
    n = name.lower()
    if "nccl" in n:
        return "nccl"
    if any(k in n for k in ("flash", "fmha", "attention", "sdpa", "mha_")):
        return "attention"
    if any(k in n for k in ("layer_norm", "layernorm", "batch_norm", "batchnorm", "bn_fw", "bn_bw", "group_norm",
                            "rms_norm", "norm_kernel", "welford")):
        return "norm"
    if any(k in n for k in ("gemm", "gemv", "splitkreduce", "nvjet", "cutlass", "xmma", "cublas", "implicit", "dgrad",
                            "wgrad", "fprop", "winograd", "sm90_", "sm80_", "sm100_", "ampere_", "hopper_", "cudnn")) \
            or ("conv" in n and "convert" not in n):
        return "gemm_conv"
    if "multi_tensor_apply" in n or "fused_sgd" in n or "fused_adam" in n:
        return "optimizer"
    if "copy" in n or "cat_" in n:
        return "copy"
    return "other"


def merge_intervals(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return out


def intervals_total(merged):
    return sum(b - a for a, b in merged)


def intervals_intersection(x, y):
    """Length of the intersection of two merged interval lists."""
    i = j = 0
    tot = 0.0
    while i < len(x) and j < len(y):
        a, b = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if b > a:
            tot += b - a
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return tot


def analyze_trace(trace, skip_first=1, top=12, nsteps=1):
    """Per-step GPU breakdown of a torch.profiler chrome trace whose steps are marked by record_function
    annotations named nvs_step_<i> that include a torch.cuda.synchronize() at their end (the first skip_first of
    them discarded). Times in us. Without the marks: one window over all GPU activity, taken as nsteps steps."""
    evs = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    windows, gpu, api = [], [], []
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = str(e.get("cat", "")).lower()
        try:
            ts, dur = float(e["ts"]), float(e.get("dur", 0.0))
        except (KeyError, TypeError, ValueError):
            continue
        name = str(e.get("name", ""))
        if cat == "user_annotation" and name.startswith("nvs_step_"):
            windows.append((ts, ts + dur, name))
        elif cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            kind = {"gpu_memcpy": "memcpy", "gpu_memset": "memset"}.get(cat) or kernel_kind(name)
            gpu.append((ts, ts + dur, kind, name))
        elif cat in ("cuda_runtime", "cuda_driver"):
            api.append((ts, ts + dur, name))
    windows.sort()
    how = "annotations"
    if len(windows) > skip_first:
        windows = windows[skip_first:]
    elif gpu:  # no step marks: one window over all GPU activity
        how = "span"
        windows = [(min(g[0] for g in gpu), max(g[1] for g in gpu), "all")]
    else:
        return None
    starts = [w[0] for w in windows]
    per = [dict(iv={k: [] for k in KINDS}, dur={k: 0.0 for k in KINDS}, nccl_n=0, kernels=0, launches=0,
                api_us=0.0) for _ in windows]
    names = {}

    def owners(a, b):
        i = bisect.bisect_right(starts, a) - 1
        for j in (i, i + 1):
            if 0 <= j < len(windows):
                lo, hi = max(a, windows[j][0]), min(b, windows[j][1])
                if hi > lo:
                    yield j, lo, hi

    for a, b, kind, name in gpu:
        for j, lo, hi in owners(a, b):
            w = per[j]
            w["iv"][kind].append((lo, hi))
            w["dur"][kind] += hi - lo
            if kind not in ("memcpy", "memset"):
                w["kernels"] += 1
            if kind == "nccl":
                w["nccl_n"] += 1
            t = names.setdefault(name, [0.0, 0, kind])
            t[0] += hi - lo
            t[1] += 1
    for a, b, name in api:
        for j, lo, hi in owners(a, b):
            if "Synchronize" in name:
                continue
            per[j]["api_us"] += hi - lo
            if "LaunchKernel" in name or "cuLaunch" in name or "GraphLaunch" in name:
                per[j]["launches"] += 1
    steps = []
    for (a, b, _), w in zip(windows, per):
        merged = {k: merge_intervals(v) for k, v in w["iv"].items()}
        everything = merge_intervals([iv for v in w["iv"].values() for iv in v])
        compute = merge_intervals([iv for k, v in w["iv"].items() if k != "nccl" for iv in v])
        busy = intervals_total(everything)
        steps.append(dict(
            wall_us=b - a, busy_us=busy, kernels=w["kernels"], launches=w["launches"], cuda_api_us=w["api_us"],
            nccl_kernels=w["nccl_n"], by_kind=dict(w["dur"]),
            gemm_overlap_nccl_us=intervals_intersection(merged["gemm_conv"], merged["nccl"]),
            compute_overlap_nccl_us=intervals_intersection(compute, merged["nccl"]),
            compute_busy_us=intervals_total(compute)))
    k = len(steps) if how == "annotations" else max(1, nsteps)

    def mean(key):
        return sum(s[key] for s in steps) / k
    nccl_n = mean("nccl_kernels")
    by_kind = {kind: sum(s["by_kind"][kind] for s in steps) / k for kind in KINDS}
    out = dict(
        steps=k, windows=how,
        wall_us=statistics.median(s["wall_us"] for s in steps) * len(steps) / k,
        busy_us=mean("busy_us"),
        gpu_idle_frac=1.0 - sum(s["busy_us"] for s in steps) / max(1e-9, sum(s["wall_us"] for s in steps)),
        compute_busy_us=mean("compute_busy_us"),
        kernels_per_step=mean("kernels"), launches_per_step=mean("launches"), cuda_api_us=mean("cuda_api_us"),
        by_kind_us=by_kind,
        nccl_kernels_per_step=nccl_n,
        nccl_kernel_mean_us=(by_kind["nccl"] / nccl_n) if nccl_n else None,
        gemm_overlap_nccl_us=mean("gemm_overlap_nccl_us"),
        compute_overlap_nccl_us=mean("compute_overlap_nccl_us"),
    )
    if top:
        best = sorted(names.items(), key=lambda kv: -kv[1][0])[:top]
        out["top_kernels"] = [dict(name=n[:160], kind=v[2], us_per_step=v[0] / k, calls_per_step=v[1] / k)
                              for n, v in best]
    return out


def _ok(p):
    return isinstance(p, dict) and "by_kind_us" in p


def phase_ratios(profile):
    """Per-kind GPU time of each phase over the 1-GPU no-DDP phase (rank 0's, and every rank's GEMM ratio)."""
    base = (profile.get("gpu1_nodp") or {}).get("rank0")
    if not _ok(base):
        return None
    out = {}
    for ph in PHASES[1:]:
        p = profile.get(ph)
        if not p or not _ok(p.get("rank0")):
            continue
        r = {}
        for kind in KINDS:
            b = base["by_kind_us"].get(kind, 0.0)
            r[kind] = (p["rank0"]["by_kind_us"].get(kind, 0.0) / b) if b > 0 else None
        b = base["busy_us"]
        r["busy"] = p["rank0"]["busy_us"] / b if b > 0 else None
        g = base["by_kind_us"]["gemm_conv"]
        if p.get("per_rank"):
            r["gemm_conv_per_rank"] = [(x["by_kind_us"]["gemm_conv"] / g) if (_ok(x) and g > 0) else None
                                       for x in p["per_rank"]]
        out[ph] = r
    return out


def profile_table(cfg_name, profile):
    """The profile as text for stderr (rank 0's numbers), ms per step."""
    lines = ["profile %s (rank 0, per step, ms; nccl = NCCL kernel resident time):" % cfg_name,
             "  %-13s %7s %7s %6s %7s %7s %7s %5s %7s %6s %6s %6s %7s %7s %6s" % (
                 "phase", "wall", "busy", "idle%", "gemm", "attn", "nccl", "#nccl", "nccl/k", "norm", "copy",
                 "optim", "other", "g&nccl", "launch")]
    for ph in PHASES:
        p = (profile.get(ph) or {}).get("rank0")
        if not p:
            continue
        if not _ok(p):
            lines.append("  %-13s %s" % (ph, p.get("error", "no profile")))
            continue
        k = p["by_kind_us"]
        lines.append("  %-13s %7.2f %7.2f %6.1f %7.2f %7.2f %7.2f %5.0f %7.3f %6.2f %6.2f %6.2f %7.2f %7.2f %6.0f" % (
            ph, p["wall_us"] / 1e3, p["busy_us"] / 1e3, 100 * p["gpu_idle_frac"], k["gemm_conv"] / 1e3,
            k["attention"] / 1e3, k["nccl"] / 1e3, p["nccl_kernels_per_step"],
            (p["nccl_kernel_mean_us"] or 0) / 1e3, k["norm"] / 1e3, (k["copy"] + k["memcpy"]) / 1e3,
            k["optimizer"] / 1e3, (k["other"] + k["memset"]) / 1e3, p["gemm_overlap_nccl_us"] / 1e3,
            p["launches_per_step"]))
    ratios = profile.get("ratios_vs_gpu1_nodp") or {}
    for ph, r in ratios.items():
        lines.append("  %s / gpu1_nodp: gemm x%s, attention x%s, GPU busy x%s" % (
            ph, _fmt(r.get("gemm_conv")), _fmt(r.get("attention")), _fmt(r.get("busy"))))
    top = ((profile.get("world_ddp") or {}).get("rank0") or {}).get("top_kernels") or []
    if top:
        lines.append("  top kernels at world W with DDP (us/step, calls/step):")
        for t in top[:8]:
            lines.append("    %9.0f %6.1f  %-9s %s" % (t["us_per_step"], t["calls_per_step"], t["kind"],
                                                      t["name"][:100]))
    return "\n".join(lines)


def _fmt(v):
    return "-" if v is None else "%.3f" % v


# ---------------------------------------------------------------------------------------------------------------
# Models (torch passed in: nothing above imports it)

def build_lm(torch, nn, vocab, d_model, layers, heads, ffn, seq, causal=False, dropout=0.0):
    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok_emb = nn.Embedding(vocab, d_model)
            self.pos_emb = nn.Embedding(seq, d_model)
            block = nn.TransformerEncoderLayer(d_model, heads, ffn, dropout=dropout, activation="gelu",
                                               batch_first=True, norm_first=True)
            self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab, bias=False)
            # plain attributes, not buffers (DDP would broadcast buffers from rank 0 at every forward); made once
            # by prepare(), so that forward does no Python work beyond the modules'
            self.causal = causal
            self.positions = self.mask = None
            self.hint = {"is_causal": True} if "is_causal" in inspect.signature(self.blocks.forward).parameters \
                else {}  # PyTorch < 2.0: the mask alone

        def prepare(self, device):
            self.positions = torch.arange(seq, device=device)
            if self.causal:
                self.mask = nn.Transformer.generate_square_subsequent_mask(seq, device=device)

        def forward(self, tokens):
            h = self.tok_emb(tokens) + self.pos_emb(self.positions)
            if self.causal:
                # mask + is_causal hint: MultiheadAttention drops the mask and runs causal SDPA
                h = self.blocks(h, mask=self.mask, **self.hint)
            else:
                h = self.blocks(h)
            return self.head(self.norm(h))

    return LM()


def build_bert(dropout):
    """HF BertForMaskedLM from a bert-large-uncased config, SDPA attention where accepted. Returns (model, info)."""
    import transformers
    from transformers import BertConfig
    c = BERT_LARGE
    cfg = BertConfig(vocab_size=c["vocab"], hidden_size=c["hidden"], num_hidden_layers=c["layers"],
                     num_attention_heads=c["heads"], intermediate_size=c["intermediate"], hidden_act="gelu",
                     hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
                     max_position_embeddings=c["max_position"], type_vocab_size=c["type_vocab"],
                     initializer_range=0.02, layer_norm_eps=1e-12, pad_token_id=0)
    info = {"transformers": transformers.__version__}
    model = None
    try:
        from transformers import AutoModelForMaskedLM
        model = AutoModelForMaskedLM.from_config(cfg, attn_implementation="sdpa")
    except (TypeError, ValueError, ImportError, AttributeError) as e:
        info["attn_implementation_note"] = "sdpa not accepted (%s: %s); the default attention is used" % (
            type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        from transformers import BertForMaskedLM
        model = BertForMaskedLM(cfg)
    if type(model).__name__ != "BertForMaskedLM":
        raise RuntimeError("transformers built %s, not BertForMaskedLM" % type(model).__name__)
    info["attn_implementation"] = getattr(model.config, "_attn_implementation", None)
    return model, info


def _attr(obj, name):
    """getattr that also survives objects whose __getattr__ raises something else (torch.backends.cuda.matmul
    raises AssertionError for unknown names in old PyTorch)."""
    try:
        return getattr(obj, name, None)
    except Exception:  # noqa: BLE001
        return None


def set_tf32(torch, on):
    """TF32 for cuBLAS matmuls and cuDNN convolutions. PyTorch >= 2.9 has fp32_precision and deprecates the
    allow_tf32 flags (mixing the two is an error in places), so use the new one where it exists."""
    mm, conv = torch.backends.cuda.matmul, _attr(torch.backends.cudnn, "conv")
    if _attr(mm, "fp32_precision") is not None and _attr(conv, "fp32_precision") is not None:
        mm.fp32_precision = "tf32" if on else "ieee"
        conv.fp32_precision = "tf32" if on else "ieee"
        return {"api": "fp32_precision", "matmul": mm.fp32_precision, "cudnn_conv": conv.fp32_precision}
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on
    return {"api": "allow_tf32", "matmul": torch.backends.cuda.matmul.allow_tf32,
            "cudnn_conv": torch.backends.cudnn.allow_tf32}


def observe_tf32(torch, dev):
    """1 + 2^-12 needs more than TF32's 10 mantissa bits: a sum of 256 of them is 256.0625 in fp32, 256 in TF32."""
    x = 1.0 + 2.0 ** -12
    a = torch.full((64, 256), x, device=dev)
    mm = (a @ torch.ones((256, 64), device=dev))[0, 0].item()
    w = torch.full((8, 256, 1, 1), x, device=dev)
    cv = torch.nn.functional.conv2d(torch.ones((1, 256, 8, 8), device=dev), w)[0, 0, 0, 0].item()
    return {"matmul_tf32_observed": mm != 256 * x, "conv_tf32_observed": cv != 256 * x}


def set_sdpa(torch, which):
    """Allow only one scaled_dot_product_attention backend (or leave PyTorch's choice); report what is enabled."""
    cu = torch.backends.cuda
    flags = {"flash": "flash_sdp", "efficient": "mem_efficient_sdp", "math": "math_sdp", "cudnn": "cudnn_sdp"}
    if which != "auto":
        if not hasattr(cu, "enable_" + flags[which]):
            raise RuntimeError("this PyTorch has no torch.backends.cuda.enable_%s" % flags[which])
        for k, f in flags.items():
            if hasattr(cu, "enable_" + f):
                getattr(cu, "enable_" + f)(k == which)
    return {k: bool(getattr(cu, f + "_enabled")()) for k, f in flags.items() if hasattr(cu, f + "_enabled")}


# ---------------------------------------------------------------------------------------------------------------

class Bench:
    def __init__(self, args, torch, dist, nn, F, DDP):
        self.args, self.torch, self.dist, self.nn, self.F, self.DDP = args, torch, dist, nn, F, DDP
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.dev = torch.device("cuda", self.local_rank)
        self.rank = self.world = 0
        self.pg1 = None

    def log(self, msg):
        if self.rank == 0:
            print("ddp_bench: " + msg, file=sys.stderr, flush=True)

    # -- collectives used for control (default process group)
    def any_rank(self, flag):
        t = self.torch.tensor([1 if flag else 0], dtype=self.torch.int32, device=self.dev)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        return bool(t.item())

    def barrier(self):
        self.dist.barrier()
        self.torch.cuda.synchronize()

    def phase(self, name, fn, only_rank0=False):
        """Run fn on every rank (or rank 0 only); then all ranks learn whether any failed. Returns None or the
        error text (the same on every rank)."""
        err = None
        if not only_rank0 or self.rank == 0:
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - any failure of a configuration is reported and survived
                first = (str(e).strip().splitlines() or [""])[0]
                err = "%s: %s: %s" % (name, type(e).__name__, first[:400])
                print("ddp_bench: rank %d: %s" % (self.rank, err), file=sys.stderr, flush=True)
                traceback.print_exc(limit=6, file=sys.stderr)
        if not self.any_rank(err is not None):
            return None
        every = [None] * self.world
        self.dist.all_gather_object(every, err)
        return "; ".join("rank %d: %s" % (r, m) for r, m in enumerate(every) if m)

    # -- one configuration's model, data and loss
    def build(self, cfg, st):
        torch, nn, F, args = self.torch, self.nn, self.F, self.args
        torch.manual_seed(1234)  # the same initial weights on every rank
        model, info = cfg["model"], {}
        dropout = args.dropout
        if model == "resnet50":
            import torchvision
            net = torchvision.models.resnet50(weights=None)
            want = RESNET50_PARAMS
            info["torchvision"] = torchvision.__version__
        elif model == "lm290m":
            dropout = 0.0 if dropout is None else dropout
            net = build_lm(torch, nn, causal=args.lm_causal, dropout=dropout, **LM290M)
            want = LM290M_PARAMS
            info.update(attention="causal (float mask + is_causal hint)" if args.lm_causal else "non-causal, no mask")
        else:
            dropout = 0.1 if dropout is None else dropout
            net, more = build_bert(dropout)
            info.update(more)
            want = BERT_LARGE_MLM_PARAMS
        info["dropout"] = dropout
        params = sum(p.numel() for p in net.parameters())
        if params != want:
            hint = ""
            if model == "bert-large" and params == want + BERT_LARGE["vocab"] * BERT_LARGE["hidden"]:
                hint = " (the MLM decoder's weight is not tied to the word embeddings in this transformers)"
            raise RuntimeError("%s has %d parameters, expected %d%s: the model and its definition here (and "
                               "nvscale's profile) no longer match" % (model, params, want, hint))
        net = net.to(self.dev)
        if model == "resnet50" and args.channels_last:
            net = net.to(memory_format=torch.channels_last)
        if hasattr(net, "prepare"):
            net.prepare(self.dev)
        net.train()
        g = torch.Generator(device=self.dev)
        g.manual_seed(4321 + self.rank)
        b = cfg["batch"]
        if model == "resnet50":
            x = torch.randn(b, 3, 224, 224, device=self.dev, generator=g)
            if args.channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            y = torch.randint(0, 1000, (b,), device=self.dev, generator=g)

            def loss_fn(m):
                return F.cross_entropy(m(x), y)
        elif model == "lm290m":
            v, s = LM290M["vocab"], LM290M["seq"]
            tokens = torch.randint(0, v, (b, s + 1), device=self.dev, generator=g)
            x, y = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()

            def loss_fn(m):
                return F.cross_entropy(m(x).reshape(-1, v), y.reshape(-1))
        else:
            v = BERT_LARGE["vocab"]
            ids = torch.randint(0, v, (b, BERT_SEQ), device=self.dev, generator=g)
            masked = torch.rand(b, BERT_SEQ, device=self.dev, generator=g) < BERT_MLM_FRACTION
            masked[:, 0] = True  # at least one label per sequence
            labels = torch.where(masked, ids, torch.full_like(ids, -100))
            info["mlm_labels_fraction"] = float(masked.float().mean().item())

            def loss_fn(m):
                return m(input_ids=ids, labels=labels).loss
        st.update(base=net, loss_fn=loss_fn, params=params, info=info)

    def make_opt(self, params):
        if self.args.optimizer == "sgd":
            return self.torch.optim.SGD(params, lr=1e-4, momentum=0.9)
        # adamw-fused: torch.optim.AdamW(fused=True), nvscale's --optimizer adamw-fused (one fused kernel; under fp16's
        # GradScaler it takes found_inf itself, no host wait)
        if self.args.optimizer == "adamw-fused":
            return self.torch.optim.AdamW(params, lr=1e-4, fused=True)
        # adamw: PyTorch's default, fused and foreach both left None. Passing fused=False (as this harness did until 7
        # December 2026) turns the foreach path off too: torch/optim/adam.py picks foreach only when neither is given
        # ("Respect when the user inputs False/True for foreach or fused"), else runs _single_tensor_adam, a kernel per
        # tensor per pass: BERT-large's fp16 step launched 5,214 kernels against fused's 2,090, its CUDA API time 36.7
        # against 12.9 ms (results/h100x1-s60e, --profile)
        return self.torch.optim.AdamW(params, lr=1e-4)

    def make_scaler(self, precision):
        if precision != "fp16":
            return None
        amp = getattr(self.torch, "amp", None)
        if amp is not None and hasattr(amp, "GradScaler"):
            try:
                return amp.GradScaler("cuda")
            except TypeError:
                pass
        return self.torch.cuda.amp.GradScaler()

    def make_step(self, model, opt, scaler, loss_fn, precision, no_sync_of=None):
        """One training step as a closure: what a plain training loop does, nothing more."""
        torch = self.torch
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
        if dtype is None:
            amp = contextlib.nullcontext
        else:
            def amp():
                return torch.autocast("cuda", dtype=dtype)
        ns = no_sync_of.no_sync if no_sync_of is not None else contextlib.nullcontext
        if scaler is None:
            def step():
                opt.zero_grad(set_to_none=True)
                with ns():
                    with amp():
                        loss = loss_fn(model)
                    loss.backward()
                opt.step()
        else:
            def step():
                opt.zero_grad(set_to_none=True)
                with ns():
                    with amp():
                        loss = loss_fn(model)
                    scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
        return step

    def run(self, step, n):
        """n timed steps; returns their wall times (us). Also keeps, per step, in self.detail: when it began (t_unix,
        Unix time), how long the host took to issue it (host_us: until step() returned, before the final synchronize;
        close to the wall time when the step is bound by launches, well below it when the GPU is the bottleneck), the
        main thread's CPU time meanwhile (cpu_us: less than host_us when it blocked inside), the CUDA caching
        allocator's new cudaMalloc segments and the garbage collector's collections during the step; and, just before
        it, the time this thread takes for a fixed piece of interpreter work (probe_us, py_probe): the host's speed at
        that moment, as the step's own Python and dispatcher work would see it."""
        torch, sync, clock = self.torch, self.torch.cuda.synchronize, time.perf_counter
        times = []
        det = {"t_unix": [], "host_us": [], "cpu_us": [], "cuda_mallocs": [], "gc_collections": [], "probe_us": []}

        def counters():
            return (torch.cuda.memory_stats(self.dev).get("segment.all.allocated", 0),
                    sum(g["collections"] for g in gc.get_stats()))
        for _ in range(n):
            sync()
            det["probe_us"].append(py_probe())
            m0, g0 = counters()
            det["t_unix"].append(time.time())
            c0, t0 = time.thread_time(), clock()
            step()
            t1, c1 = clock(), time.thread_time()
            sync()
            times.append((clock() - t0) * 1e6)
            m1, g1 = counters()
            for k, v in (("host_us", (t1 - t0) * 1e6), ("cpu_us", (c1 - c0) * 1e6), ("cuda_mallocs", m1 - m0),
                         ("gc_collections", g1 - g0)):
                det[k].append(v)
        self.detail = det
        return times

    def profile(self, step, cfg, phase):
        """torch.profiler over profile_steps + 1 steps (the first discarded); the analysis of this rank's trace."""
        torch, args = self.torch, self.args
        from torch.profiler import ProfilerActivity, profile, record_function
        sync = torch.cuda.synchronize
        sync()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for i in range(args.profile_steps + 1):
                with record_function("nvs_step_%d" % i):
                    step()
                    sync()
        tag = re.sub(r"[^A-Za-z0-9_.-]", "_", cfg["name"])
        if args.trace_dir:
            path = os.path.join(args.trace_dir, "%s-%s-%s-rank%d.json" % (tag, args.transport, phase, self.rank))
        else:
            fd, path = tempfile.mkstemp(prefix="ddp_bench-%s-" % tag, suffix=".json")
            os.close(fd)
        try:
            prof.export_chrome_trace(path)
            del prof
            with open(path) as fh:
                trace = json.load(fh)
            res = analyze_trace(trace, skip_first=1, top=12 if self.rank == 0 else 0, nsteps=args.profile_steps + 1)
            del trace
        finally:
            if not args.trace_dir:
                with contextlib.suppress(OSError):
                    os.unlink(path)
        if res is None:
            raise RuntimeError("the profiler recorded no GPU activity")
        if args.trace_dir:
            res["trace"] = path
        return res

    def try_profile(self, step, cfg, phase):
        """The profile, or {"error": ...}: a profiler failure costs the breakdown, not the timings."""
        try:
            return self.profile(step, cfg, phase)
        except Exception as e:  # noqa: BLE001
            msg = "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[0][:300])
            print("ddp_bench: rank %d: profile of %s %s failed: %s" % (self.rank, cfg["name"], phase, msg),
                  file=sys.stderr, flush=True)
            return {"error": msg}

    def free(self):
        gc.collect()
        self.torch.cuda.empty_cache()

    # -- one configuration, all phases
    def run_config(self, cfg):
        torch, dist, DDP, args = self.torch, self.dist, self.DDP, self.args
        t0 = time.time()
        rec = dict(tool="ddp_bench", schema=SCHEMA, config=cfg["name"], model=cfg["model"],
                   precision=cfg["precision"], batch_per_gpu=cfg["batch"], sample=MODELS[cfg["model"]]["sample"],
                   world_size=self.world, transport=args.transport)
        rec["loadavg_start"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
        st, res, prof = {}, {}, {}
        torch.cuda.reset_peak_memory_stats(self.dev)
        lr = self.local_rank
        prec = cfg["precision"]

        def ddp(model, group=None):
            kw = dict(device_ids=[lr], output_device=lr, broadcast_buffers=not args.no_broadcast_buffers)
            if args.bucket_cap_mb is not None:
                kw["bucket_cap_mb"] = args.bucket_cap_mb
            if group is not None:
                kw["process_group"] = group
            return DDP(model, **kw)

        def alone(use_ddp):
            def fn():
                m = copy.deepcopy(st["base"])
                net = ddp(m, self.pg1) if use_ddp else m
                opt = self.make_opt(net.parameters())
                scaler = self.make_scaler(prec)
                step = self.make_step(net, opt, scaler, st["loss_fn"], prec)
                self.run(step, args.warmup)
                key = "ddp1" if use_ddp else "nodp1"
                if use_ddp and args.rounds > 1:
                    st["ddp1_step"] = step  # timed again in the later rounds (its model stays)
                s0 = scaler.get_scale() if scaler is not None else None
                res[key + "_t0"] = time.time()  # wall clock of the first timed step: to line steps up with probes
                res[key] = self.run(step, args.steps)
                res[key + "_detail"] = self.detail
                if scaler is not None:
                    res.setdefault("fp16_scale", {})[key] = [s0, scaler.get_scale()]
                if args.profile:
                    ph = "gpu1_ddp1" if use_ddp else "gpu1_nodp"
                    prof[ph] = {"rank0": self.try_profile(step, cfg, ph)}
            return fn

        def world():
            m = copy.deepcopy(st["base"])
            net = ddp(m)
            opt = self.make_opt(net.parameters())
            scaler = self.make_scaler(prec)
            step = self.make_step(net, opt, scaler, st["loss_fn"], prec)
            step_ns = self.make_step(net, opt, scaler, st["loss_fn"], prec, no_sync_of=net)
            # DDP first: its first iterations rebuild the buckets in the order gradients became ready
            for key, fn, ph in (("ddp", step, "world_ddp"), ("nosync", step_ns, "world_nosync")):
                self.barrier()
                self.run(fn, args.warmup)
                self.barrier()
                s0 = scaler.get_scale() if scaler is not None else None
                res[key] = self.run(fn, args.steps)
                res[key + "_detail"] = dict(self.detail, step_us=res[key])
                if scaler is not None:
                    res.setdefault("fp16_scale", {})[key] = [s0, scaler.get_scale()]
                if args.profile:
                    self.barrier()
                    prof[ph] = {"mine": self.try_profile(fn, cfg, ph)}
            # the buckets DDP really all-reduced, in bytes: the first-bucket rule changed between PyTorch versions,
            # so the record says what ran. DDP's logger keeps the construction's buckets ("bucket_sizes": one
            # bucket of everything in 2.x until the first backward) and, once its runtime stats were logged (at
            # iterations 10, 20, ...), those rebuilt in gradient-ready order ("rebuilt_bucket_sizes")
            try:
                log = net._get_ddp_logging_data()

                def sizes(key):
                    v = log.get(key)
                    if v is None or v == "":
                        return None
                    return [int(x) for x in v.split(",") if x.strip()] if isinstance(v, str) else [int(x) for x in v]
                res["ddp_bucket_sizes"] = sizes("rebuilt_bucket_sizes") or sizes("bucket_sizes")
                res["ddp_bucket_sizes_source"] = "rebuilt_bucket_sizes" if sizes("rebuilt_bucket_sizes") \
                    else "bucket_sizes"
            except Exception as e:  # a private API: its absence is said, never fatal
                res["ddp_bucket_sizes"] = None
                res["ddp_bucket_sizes_error"] = "%s: %s" % (type(e).__name__, e)
            if args.rounds > 1:
                st["world_step"] = step  # timed again in the later rounds (its model stays)
            del net, opt, step, step_ns, m
            self.free()
            flat = torch.ones(st["params"], dtype=torch.float32, device=self.dev)
            ar = []
            for i in range(2 + 5):
                self.barrier()
                t = time.perf_counter()
                dist.all_reduce(flat)
                torch.cuda.synchronize()
                if i >= 2:
                    ar.append((time.perf_counter() - t) * 1e6)
            res["flat_allreduce"] = statistics.median(ar)

        def again(key, world_phase):
            def fn():
                step = st["world_step" if world_phase else "ddp1_step"]
                if world_phase:
                    self.barrier()
                self.run(step, min(args.warmup, 2))
                if world_phase:
                    self.barrier()
                res.setdefault(key, []).append(statistics.median(self.run(step, args.steps)))
            return fn

        err = self.phase("build", lambda: self.build(cfg, st))
        phases = [("1 GPU without DDP", alone(False), True), ("1 GPU with 1-rank DDP", alone(True), True),
                  ("world %d DDP and no_sync" % self.world, world, False)]
        for r in range(2, args.rounds + 1):
            pair = [("round %d: 1 GPU with 1-rank DDP" % r, again("rounds_ddp1", False), True),
                    ("round %d: world %d DDP" % (r, self.world), again("rounds_world", True), False)]
            # the order alternates (round 1 as ever, 1-rank DDP first; round 2 world W first; ...): at world 1,
            # where both are one program, a fixed order read 2 points low (results/h200x1-paired9)
            phases += pair[::-1] if r % 2 == 0 else pair
        for name, fn, only0 in phases:
            if err:
                break
            self.free()
            err = self.phase(name, fn, only_rank0=only0)
        st.pop("ddp1_step", None)
        st.pop("world_step", None)
        self.free()

        # gather world numbers (every rank takes part, failed or not, so that the collectives stay in step)
        mine = [statistics.median(res[k]) if k in res else -1.0 for k in ("ddp", "nosync")]
        mine += [res.get("flat_allreduce", -1.0), float(torch.cuda.max_memory_allocated(self.dev))]
        # the later rounds' world-W medians (-1 where a round did not run), after the fixed four
        later = res.get("rounds_world", [])
        mine += [later[k] if k < len(later) else -1.0 for k in range(args.rounds - 1)]
        t = torch.tensor(mine, dtype=torch.float64, device=self.dev)
        every = [torch.zeros_like(t) for _ in range(self.world)]
        dist.all_gather(every, t)
        every = [x.tolist() for x in every]
        # every rank's steps of the world phases, each with its probe_us and start time: is a world-W step slow
        # when ANY rank's vCPU is in its slow state? (docs/fidelity.md, "At N=2")
        per_rank = [None] * self.world
        dist.all_gather_object(per_rank, {k: res[k + "_detail"] for k in ("ddp", "nosync") if k + "_detail" in res})
        if args.profile and not err:
            got = [None] * self.world
            dist.all_gather_object(got, {ph: prof[ph]["mine"] for ph in ("world_ddp", "world_nosync") if ph in prof})
            for ph in ("world_ddp", "world_nosync"):
                per = [g.get(ph) if g else None for g in got]
                prof[ph] = {"rank0": per[0], "per_rank": [
                    {k: v for k, v in p.items() if k != "top_kernels"} if p else None for p in per]}
        rec["params"] = st.get("params")
        rec.update(st.get("info") or {})
        st.clear()
        self.free()
        if self.rank != 0:
            return None, err
        if err:
            rec["error"] = err
        if "nodp1" in res:
            rec["step_nodp_1_us"] = statistics.median(res["nodp1"])
            rec["step_nodp_1_us_all"] = res["nodp1"]
            rec["step_nodp_1_t0_unix"] = res["nodp1_t0"]
            rec["step_nodp_1_detail"] = res["nodp1_detail"]
        if "ddp_bucket_sizes" in res:  # rank 0's: every rank buckets the same parameters alike
            rec["ddp_bucket_sizes"] = res["ddp_bucket_sizes"]
            rec["ddp_bucket_sizes_source"] = res.get("ddp_bucket_sizes_source")
            if res.get("ddp_bucket_sizes_error"):
                rec["ddp_bucket_sizes_error"] = res["ddp_bucket_sizes_error"]
        if "ddp1" in res:
            rec["step_ddp1_us"] = statistics.median(res["ddp1"])
            rec["step_ddp1_us_all"] = res["ddp1"]
            rec["step_ddp1_t0_unix"] = res["ddp1_t0"]
            rec["step_ddp1_detail"] = res["ddp1_detail"]
        if not err:
            step = max(r[0] for r in every)
            compute = max(r[1] for r in every)
            n1, d1 = rec["step_nodp_1_us"], rec["step_ddp1_us"]
            rec.update(
                step_us=step, compute_us=compute, exposed_comm_us=step - compute,
                eff=n1 / step, eff_ddp1=d1 / step,
                ddp1_overhead_us=d1 - n1, compute_over_nodp1=compute / n1,
                step_us_per_rank=[r[0] for r in every], compute_us_per_rank=[r[1] for r in every],
                samples_per_s_1=cfg["batch"] / (n1 / 1e6),
                samples_per_s=self.world * cfg["batch"] / (step / 1e6),
                step_world_detail_per_rank=per_rank,
                flat_allreduce_us=max(r[2] for r in every),
                max_memory_allocated_bytes=int(max(r[3] for r in every)))
            if args.rounds > 1:
                d1s = [d1] + res.get("rounds_ddp1", [])
                ws = [step] + [max(r[4 + k] for r in every) for k in range(args.rounds - 1)]
                effs = [a / b for a, b in zip(d1s, ws) if a > 0 and b > 0]
                rec.update(rounds=args.rounds, round_ddp1_us=d1s, round_world_us=ws, eff_ddp1_rounds=effs,
                           eff_ddp1_paired=statistics.median(effs) if effs else None,
                           step_ddp1_us_paired=statistics.median(d1s), step_us_paired=statistics.median(ws))
            if "fp16_scale" in res:
                # GradScaler's scale before and after each timed region (rank 0): a drop means it skipped
                # optimizer steps there (gradients overflowed), which makes those steps shorter
                rec["fp16_scale"] = res["fp16_scale"]
                rec["fp16_steps_skipped"] = any(b < a for a, b in res["fp16_scale"].values())
            if args.profile:
                prof = {ph: prof[ph] for ph in PHASES if ph in prof}
                prof["steps"] = args.profile_steps
                prof["ratios_vs_gpu1_nodp"] = phase_ratios(prof)
                r = prof["ratios_vs_gpu1_nodp"] or {}
                prof["gemm_ratio"] = {ph: (r.get(ph) or {}).get("gemm_conv") for ph in PHASES[1:]}
                rec["profile"] = prof
        rec["duration_s"] = time.time() - t0
        rec["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
        return rec, err

    def main(self):
        torch, dist, args = self.torch, self.dist, self.args
        import datetime
        if not torch.cuda.is_available():
            die(1, "no CUDA GPU is visible to PyTorch")
        if self.local_rank >= torch.cuda.device_count():
            die(1, "LOCAL_RANK %d but only %d GPUs visible" % (self.local_rank, torch.cuda.device_count()))
        torch.cuda.set_device(self.dev)
        try:
            dist.init_process_group("nccl", device_id=self.dev, timeout=datetime.timedelta(seconds=args.timeout_s))
        except TypeError:  # PyTorch before 2.3: no device_id
            dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=args.timeout_s))
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        # the 1-rank group for DDP without a peer: every rank must call new_group
        self.pg1 = dist.new_group([0])
        torch.cuda.synchronize()

        torch.backends.cudnn.benchmark = not args.no_cudnn_benchmark
        sdpa = set_sdpa(torch, args.sdpa)
        nccl = torch.cuda.nccl.version()
        common = dict(
            gpu=torch.cuda.get_device_name(self.dev), hostname=socket.gethostname(),
            torch=torch.__version__, cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
            nccl=".".join(str(v) for v in nccl) if isinstance(nccl, tuple) else str(nccl),
            optimizer={"sgd": "SGD(momentum=0.9)", "adamw": "AdamW", "adamw-fused": "AdamW(fused=True)"}[args.optimizer],
            grad_dtype="float32", cudnn_benchmark=bool(torch.backends.cudnn.benchmark),
            bucket_cap_mb=args.bucket_cap_mb, broadcast_buffers=not args.no_broadcast_buffers,
            # DDP's default first bucket where bucket_cap_mb was not passed; with it, the version decides (the
            # records' ddp_bucket_sizes say what ran)
            first_bucket_bytes=getattr(dist, "_DEFAULT_FIRST_BUCKET_BYTES", None) if args.bucket_cap_mb is None
            else None,
            channels_last=bool(args.channels_last), lm_causal=bool(args.lm_causal),
            steps=args.steps, warmup=args.warmup, sdpa_backends_enabled=sdpa, sdpa_choice=args.sdpa,
            env_nccl={k: v for k, v in sorted(os.environ.items()) if k.startswith("NCCL_")},
            nccl_hostid_per_rank="nvs-vhost-<rank>" if args.transport == "net" else None,
            cuda_device_max_connections=os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS"),
            omp_num_threads=os.environ.get("OMP_NUM_THREADS"), torch_num_threads=torch.get_num_threads(),
            cpu_count=os.cpu_count(), argv=sys.argv)
        self.log("world size %d, transport %s, %d configuration(s): %s; steps %d, warmup %d%s" % (
            self.world, args.transport, len(args.config_list), ", ".join(c["name"] for c in args.config_list),
            args.steps, args.warmup, ", profile" if args.profile else ""))
        self.log("NCCL environment: %s" % " ".join("%s=%s" % kv for kv in common["env_nccl"].items()))
        self.log("SDPA backends enabled: %s" % sdpa)

        started = time.time()
        longest = 0.0
        failed = []
        for i, cfg in enumerate(args.config_list):
            stop = False
            if self.rank == 0 and args.max_seconds > 0 and i > 0:
                spent = time.time() - started
                stop = spent >= args.max_seconds or spent + longest > args.max_seconds
            if self.any_rank(stop):
                left = args.config_list[i:]
                self.log("--max-seconds %g: %.0f s spent, the longest configuration took %.0f s: not starting %s"
                         % (args.max_seconds, time.time() - started, longest, ", ".join(c["name"] for c in left)))
                for c in left:
                    failed.append(c["name"])
                    if self.rank == 0:
                        self.emit(dict(tool="ddp_bench", schema=SCHEMA, config=c["name"], model=c["model"],
                                       precision=c["precision"], batch_per_gpu=c["batch"], world_size=self.world,
                                       transport=args.transport,
                                       error="not run: --max-seconds %g reached" % args.max_seconds))
                break
            prec = cfg["precision"]
            tf32 = set_tf32(torch, prec == "tf32")
            observed = observe_tf32(torch, self.dev)
            self.log("%s: %s, batch %d per GPU, %s" % (cfg["name"], MODELS[cfg["model"]]["sample"], cfg["batch"],
                                                        "TF32 observed: matmul %s, conv %s" % (
                                                            observed["matmul_tf32_observed"],
                                                            observed["conv_tf32_observed"])))
            if prec == "fp32" and (observed["matmul_tf32_observed"] or observed["conv_tf32_observed"]):
                self.log("WARNING: fp32 requested but TF32 was observed: the fp32 numbers are not fp32")
            t0 = time.time()
            rec, err = self.run_config(cfg)
            longest = max(longest, time.time() - t0)
            if err:
                failed.append(cfg["name"])
            if self.rank != 0:
                continue
            rec.update(common)
            rec["tf32"] = dict(tf32, **observed)
            rec["autocast_dtype"] = {"bf16": "bfloat16", "fp16": "float16"}.get(prec)
            rec["grad_scaler"] = prec == "fp16"
            rec["nccl_transports_seen"] = self.nccl_seen()
            rec["time_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            self.emit(rec)
            if err:
                self.log("%s FAILED: %s" % (cfg["name"], err))
            else:
                self.log("%s: 1 GPU %.2f ms, 1 GPU in 1-rank DDP %.2f ms (%+.2f), world %d DDP %.2f ms, no_sync "
                         "%.2f ms, exposed %.2f ms; eff %.1f %% (against 1-rank DDP %.1f %%); %.0f s" % (
                             cfg["name"], rec["step_nodp_1_us"] / 1e3, rec["step_ddp1_us"] / 1e3,
                             rec["ddp1_overhead_us"] / 1e3, self.world, rec["step_us"] / 1e3,
                             rec["compute_us"] / 1e3, rec["exposed_comm_us"] / 1e3, 100 * rec["eff"],
                             100 * rec["eff_ddp1"], rec["duration_s"]))
                if "profile" in rec:
                    print(profile_table(cfg["name"], rec["profile"]), file=sys.stderr, flush=True)
        dist.barrier()
        dist.destroy_process_group()
        if failed:
            self.log("%d of %d configuration(s) not measured: %s" % (len(failed), len(args.config_list),
                                                                     ", ".join(failed)))
            return 1
        return 0

    def nccl_seen(self):
        path = os.environ.get("NCCL_DEBUG_FILE")
        if not getattr(self, "nccl_log_ours", False) or not path:
            return None
        try:
            with open(path, errors="replace") as fh:
                return parse_nccl_transports(fh.read())
        except OSError:
            return None

    def emit(self, rec):
        text = json.dumps(rec, sort_keys=False, default=str)
        print(text, flush=True)
        if self.args.json:
            try:
                with open(self.args.json, "a") as fh:
                    fh.write(text + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as e:
                die(1, "cannot append to %s: %s" % (self.args.json, e))


def main(argv=None):
    args = parse_args(argv)
    # Everything NCCL and CUDA read once per process is set before torch starts either.
    if "RANK" not in os.environ:  # plain `python3 ddp_bench.py`: one process
        os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1",
                          MASTER_ADDR="127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29511")
    rank = int(os.environ["RANK"])
    set_, unset = transport_env(args.transport, rank, os.environ)
    for k in unset:
        del os.environ[k]
    os.environ.update(set_)
    log_dir = None
    ours = False
    if not args.no_nccl_log and "NCCL_DEBUG" not in os.environ:
        log_dir = args.nccl_log_dir or tempfile.mkdtemp(prefix="ddp_bench-nccl-")
        os.environ.update(NCCL_DEBUG="INFO", NCCL_DEBUG_FILE=os.path.join(log_dir, "nccl.rank%d.log" % rank))
        os.environ.setdefault("NCCL_DEBUG_SUBSYS", "INIT,ENV")
        ours = True
    if args.cuda_device_max_connections:
        os.environ["CUDA_DEVICE_MAX_CONNECTIONS"] = str(args.cuda_device_max_connections)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # bert-large is built from its config: nothing to download
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        try:
            import torch
            import torch.distributed as dist
            import torch.nn as nn
            import torch.nn.functional as F
            from torch.nn.parallel import DistributedDataParallel as DDP
        except ImportError as e:
            die(1, "PyTorch is not installed here (%s): run this on the GPU machine" % e)
        b = Bench(args, torch, dist, nn, F, DDP)
        b.nccl_log_ours = ours
        try:
            return b.main()
        except Exception as e:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            die(1, "rank %s: %s: %s" % (os.environ.get("RANK"), type(e).__name__,
                                       (str(e).strip().splitlines() or [""])[0]))
    finally:
        if log_dir and not args.nccl_log_dir:
            shutil.rmtree(log_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
