#!/usr/bin/env python3
"""The plainest DDP training loop, only to validate tools/ddp_bench.py (issue 9: the harness's 1-GPU steps must
agree with this within 5 %). Same models, shapes, optimizer and precisions, written independently of it.

  torchrun --standalone --nproc_per_node 1 tools/ddp_minimal.py MODEL PRECISION [--batch B] [--no-ddp]
      [--steps 20] [--warmup 5] [--json OUT.jsonl] [--against HARNESS.jsonl]

MODEL resnet50|lm290m|bert-large, PRECISION fp32|tf32|bf16|fp16. Prints one JSON line (rank 0): step_us = the
median step (at world > 1 the slowest rank's). Compare --no-ddp with the harness's step_nodp_1_us, DDP at world 1
with its step_ddp1_us, DDP at world W with its step_us: --against FILE does that with the last matching line of a
ddp_bench JSON Lines file and exits 3 if they differ by more than 5 % (1 if no line matches).
"""
import argparse, json, os, statistics, sys, time

ap = argparse.ArgumentParser(prog="ddp_minimal.py", description=__doc__.split("\n\n")[0])
ap.add_argument("model", choices=["resnet50", "lm290m", "bert-large"])
ap.add_argument("precision", choices=["fp32", "tf32", "bf16", "fp16"])
ap.add_argument("--batch", type=int, default=None)
ap.add_argument("--no-ddp", action="store_true", help="the bare model, no DDP wrapper")
ap.add_argument("--steps", type=int, default=20)
ap.add_argument("--warmup", type=int, default=5)
ap.add_argument("--json", help="append the JSON line to this file")
ap.add_argument("--against", help="a ddp_bench JSON Lines file to compare with")
a = ap.parse_args()
batch = a.batch if a.batch is not None else {"resnet50": 128, "lm290m": 8, "bert-large": 32}[a.model]
if batch < 1 or a.steps < 1 or a.warmup < 0:
    ap.error("--batch and --steps must be >= 1, --warmup >= 0")
if a.against and not os.path.isfile(a.against):
    ap.error("--against %s: no such file" % a.against)

for k, v in dict(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT="29512",
                 NCCL_NVLS_ENABLE="0", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1").items():
    os.environ.setdefault(k, v)
try:
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel as DDP
except ImportError as e:
    sys.exit("ddp_minimal: error: PyTorch is not installed here (%s): run this on the GPU machine" % e)

dev = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
torch.cuda.set_device(dev)
dist.init_process_group("nccl")
torch.backends.cudnn.benchmark = True
tf32 = a.precision == "tf32"  # TF32 off unless asked (the new API where PyTorch has it, else the old flags)
try:
    torch.backends.cuda.matmul.fp32_precision = torch.backends.cudnn.conv.fp32_precision = "tf32" if tf32 else "ieee"
except (AttributeError, AssertionError):
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = tf32
torch.manual_seed(1234)
extra = {}
if a.model == "resnet50":
    import torchvision
    model = torchvision.models.resnet50()
    x, y = torch.randn(batch, 3, 224, 224, device=dev), torch.randint(0, 1000, (batch,), device=dev)
    loss_fn = lambda m: F.cross_entropy(m(x), y)  # noqa: E731
elif a.model == "lm290m":  # 18 pre-LN encoder layers, non-causal, no mask
    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(32000, 1024), nn.Embedding(512, 1024)
            layer = nn.TransformerEncoderLayer(1024, 16, 4096, 0.0, "gelu", batch_first=True, norm_first=True)
            self.enc = nn.TransformerEncoder(layer, 18, enable_nested_tensor=False)
            self.norm, self.head = nn.LayerNorm(1024), nn.Linear(1024, 32000, bias=False)

        def forward(self, t):
            h = self.tok(t) + self.pos(torch.arange(t.size(1), device=t.device))
            return self.head(self.norm(self.enc(h)))
    model = LM()
    tok = torch.randint(0, 32000, (batch, 513), device=dev)
    x, y = tok[:, :-1], tok[:, 1:]
    loss_fn = lambda m: F.cross_entropy(m(x).reshape(-1, 32000), y.reshape(-1))  # noqa: E731
else:  # bert-large-uncased's config, MLM head, sequence 128, ~15 % of positions labelled
    import transformers
    cfg = transformers.BertConfig(vocab_size=30522, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                  intermediate_size=4096, max_position_embeddings=512, type_vocab_size=2)
    try:
        model = transformers.AutoModelForMaskedLM.from_config(cfg, attn_implementation="sdpa")
    except (TypeError, ValueError):
        model = transformers.BertForMaskedLM(cfg)
    extra["attn_implementation"] = getattr(model.config, "_attn_implementation", None)
    ids = torch.randint(0, 30522, (batch, 128), device=dev)
    labels = torch.where(torch.rand(batch, 128, device=dev) < 0.15, ids, torch.full_like(ids, -100))
    loss_fn = lambda m: m(input_ids=ids, labels=labels).loss  # noqa: E731
model = model.to(dev).train()
params = sum(p.numel() for p in model.parameters())
want = {"resnet50": 25_557_032, "lm290m": 292_794_368, "bert-large": 335_174_458}[a.model]  # as ddp_bench asserts
if params != want:
    print("ddp_minimal: WARNING: %s has %d parameters, ddp_bench's has %d" % (a.model, params, want), file=sys.stderr)
net = model if a.no_ddp else DDP(model, device_ids=[dev.index])
opt = torch.optim.SGD(net.parameters(), lr=1e-4, momentum=0.9)
amp = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(a.precision)
scaler = None
if a.precision == "fp16":
    scaler = torch.amp.GradScaler("cuda") if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler") \
        else torch.cuda.amp.GradScaler()

times = []
for i in range(a.warmup + a.steps):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=amp or torch.bfloat16, enabled=amp is not None):
        loss = loss_fn(net)
    if scaler is None:
        loss.backward()
        opt.step()
    else:
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    torch.cuda.synchronize()
    if i >= a.warmup:
        times.append((time.perf_counter() - t0) * 1e6)
med = torch.tensor([statistics.median(times)], dtype=torch.float64, device=dev)
dist.all_reduce(med, op=dist.ReduceOp.MAX)
world = dist.get_world_size()
rc = 0
if dist.get_rank() == 0:
    out = dict(tool="ddp_minimal", model=a.model, precision=a.precision, batch_per_gpu=batch, world_size=world,
               ddp=not a.no_ddp, params=params, step_us=med.item(), step_us_rank0_all=times, steps=a.steps,
               warmup=a.warmup, torch=torch.__version__, gpu=torch.cuda.get_device_name(dev),
               time_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **extra)
    if a.against:
        key = "step_nodp_1_us" if a.no_ddp else ("step_ddp1_us" if world == 1 else "step_us")
        ref = None
        with open(a.against) as fh:
            for line in fh:
                try:
                    h = json.loads(line)
                except ValueError:
                    continue
                if (h.get("model"), h.get("precision"), h.get("batch_per_gpu")) == (a.model, a.precision, batch) \
                        and not h.get("error") and key in h and (key != "step_us" or h.get("world_size") == world):
                    ref = h
        if ref is None:
            print("ddp_minimal: no line of %s has %s for %s %s batch %d" % (a.against, key, a.model, a.precision,
                                                                             batch), file=sys.stderr)
            rc = 1
        else:
            diff = 100.0 * (ref[key] - out["step_us"]) / out["step_us"]
            out.update(against=a.against, against_key=key, against_us=ref[key], diff_pct=diff,
                       within_5pct=abs(diff) <= 5.0)
            print("ddp_minimal: %s %s: minimal %.2f ms, ddp_bench %s %.2f ms: %+.1f %% (%s)" % (
                a.model, a.precision, out["step_us"] / 1e3, key, ref[key] / 1e3, diff,
                "within 5 %" if abs(diff) <= 5.0 else "OUTSIDE 5 %"), file=sys.stderr)
            rc = 0 if abs(diff) <= 5.0 else 3
    text = json.dumps(out)
    print(text, flush=True)
    if a.json:
        with open(a.json, "a") as fh:
            fh.write(text + "\n")
dist.destroy_process_group()
sys.exit(rc)
