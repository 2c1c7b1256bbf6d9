#!/bin/sh
# tools/ddp_bench.py (the PyTorch DDP reference harness): it compiles (and so do ddp_minimal, fidelity, vs_ddp), its
# flags and --configs are validated before PyTorch is imported (exit 2 with a message), it says so cleanly where
# PyTorch is missing (exit 1), its lm290m model has the parameter count of tools/profiles/lm290m.prof and its
# bert-large that of HF BertForMaskedLM, and its torch-free parts (transport environments, NCCL log parsing, the
# profile analysis) give the expected answers on made-up inputs. The measurement itself needs a GPU: not here.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the tree
need_cmd python3 "the harness is Python"
tmp_dir tmp
B=tools/ddp_bench.py

python3 -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" \
    "$B" "$tmp/ddp_bench.pyc" || stop "$B does not compile"
python3 "$B" --help >"$tmp/help" 2>&1 || stop "--help failed"
grep -q -- "--bucket-cap-mb" "$tmp/help" || stop "--help lacks --bucket-cap-mb"
# DDP as a plain script makes it: bucket_cap_mb not passed, since PyTorch 2.x makes an explicit one the first
# bucket's size too (the harness passed 25 until 6 December 2026: a 25 MiB first bucket, where a plain script has 1 MiB)
grep -q "bucket_cap_mb (default: not passed" "$tmp/help" || stop "--help: --bucket-cap-mb has a default value passed to DDP"
grep -q 'if args.bucket_cap_mb is not None:' "$B" || stop "$B passes bucket_cap_mb to DDP unconditionally"
grep -q -- "--no-broadcast-buffers" "$tmp/help" || stop "--help lacks --no-broadcast-buffers"
grep -q -- "--rounds" "$tmp/help" || stop "--help lacks --rounds"

bad() { # expected message, then arguments: must exit 2 and print the message
    want=$1; shift
    python3 "$B" "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q -- "$want" "$tmp/out"; then
        cat "$tmp/out"
        stop "ddp_bench.py $*: exit $rc, expected 2 and '$want' (output above)"
    fi
}
bad "invalid choice: 'vgg'" --model vgg --batch 8
bad "give --configs LIST or --model MODEL"
bad "0: must be 1..1000000" --model lm290m --batch 0
bad "'x' is not a whole number" --model lm290m --batch x
bad "must be > 0" --model lm290m --batch 4 --bucket-cap-mb 0
bad "invalid choice: 'fp64'" --model lm290m --batch 4 --precision fp64
bad "does not exist or is not writable" --model lm290m --batch 4 --json "$tmp/no/such/dir/out.json"
bad "exclude each other" --configs lm290m:bf16:8 --model lm290m
bad "'lm290m:bf16:0': batch 0: must be 1..1000000" --configs lm290m:bf16:0
bad "unknown model 'gpt2'" --configs resnet50:fp32,gpt2:bf16
bad "unknown precision 'int8'" --configs lm290m:int8
bad "'lm290m:bf16:8' given twice" --configs lm290m:bf16:8,lm290m:bf16
bad "expected MODEL:PRECISION" --configs lm290m
bad "invalid choice: 'ib'" --model lm290m --transport ib
bad "--trace-dir needs --profile" --model lm290m --trace-dir "$tmp"
bad "must be >= 0" --model lm290m --max-seconds -5
bad "0: must be 1..1000000" --model lm290m --rounds 0
bad "'2x' is not a whole number" --model lm290m --rounds 2x
bad "invalid choice: 'xformers'" --model lm290m --sdpa xformers
for m in ddp_minimal fidelity vs_ddp; do
    python3 -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" \
        "tools/$m.py" "$tmp/$m.pyc" || stop "tools/$m.py does not compile"
done

# lm290m: the harness's parameter count is the profile's (the profile side is checked by test_profile)
python3 - "$B" <<'PY' || stop "the harness's torch-free parts (above)"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("ddp_bench", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)  # imports no torch at module level
want = 292794368  # tools/profiles/lm290m.prof total
if m.LM290M_PARAMS != want or m.lm290m_params(**m.LM290M) != want:
    sys.exit("ddp_bench lm290m has %d / %d parameters, profile %d" % (m.LM290M_PARAMS, m.lm290m_params(**m.LM290M), want))
# HF BertForMaskedLM with bert-large-uncased's config: 335,174,458 parameters (no pooler, tied decoder weight)
if m.bert_mlm_params(**m.BERT_LARGE) != 335174458 or m.BERT_LARGE_MLM_PARAMS != 335174458:
    sys.exit("bert-large count %d" % m.bert_mlm_params(**m.BERT_LARGE))
# configurations of one launch, default batches
c = m.parse_configs("resnet50:fp32:128,lm290m:bf16,bert-large:fp16")
assert [x["name"] for x in c] == ["resnet50:fp32:128", "lm290m:bf16:8", "bert-large:fp16:32"], c
a = m.parse_args(["--model", "bert-large", "--precision", "fp16"])
assert [x["name"] for x in a.config_list] == ["bert-large:fp16:32"], a.config_list
# transports: NVLS off in every mode; net = one virtual host per rank on loopback
for t in m.TRANSPORTS:
    assert m.transport_env(t, 0, {})[0]["NCCL_NVLS_ENABLE"] == "0", t
s, u = m.transport_env("shm", 1, {"NCCL_HOSTID": "x"})
assert s["NCCL_P2P_DISABLE"] == "1" and u == ["NCCL_HOSTID"], (s, u)
s, u = m.transport_env("net", 1, {})
assert (s["NCCL_HOSTID"], s["NCCL_SOCKET_IFNAME"], s["NCCL_IB_DISABLE"]) == ("nvs-vhost-1", "lo", "1"), s
assert m.transport_env("nvlink", 0, {"NCCL_P2P_DISABLE": "1"})[1] == ["NCCL_P2P_DISABLE"]
assert m.parse_nccl_transports("Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\nChannel 00/0 : 1[1] -> 0[0] via "
                               "SHM/direct/direct\n via NET/Socket/0") == {"P2P": 1, "SHM": 1, "NET": 1}
# the profile analysis on a made-up trace: 2 marked steps, the first discarded
ev = []
for i, t0 in enumerate((0.0, 1000.0)):
    ev.append(dict(ph="X", cat="user_annotation", name="nvs_step_%d" % i, ts=t0, dur=900.0))
    ev.append(dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", ts=t0 + 1, dur=5.0))
    ev.append(dict(ph="X", cat="kernel", name="nvjet_tst_gemm", ts=t0 + 10, dur=200.0))
    ev.append(dict(ph="X", cat="kernel", name="ncclDevKernel_AllReduce_Sum_f32_RING_LL", ts=t0 + 150, dur=200.0))
    ev.append(dict(ph="X", cat="kernel", name="pytorch_flash::flash_fwd_kernel", ts=t0 + 400, dur=50.0))
    ev.append(dict(ph="X", cat="gpu_memcpy", name="Memcpy DtoD", ts=t0 + 500, dur=40.0))
r = m.analyze_trace({"traceEvents": ev})
want = dict(steps=1, busy_us=430.0, nccl_kernels_per_step=1.0, nccl_kernel_mean_us=200.0, gemm_overlap_nccl_us=60.0,
            launches_per_step=1.0, wall_us=900.0)
for k, v in want.items():
    assert abs(r[k] - v) < 1e-9, (k, r[k], v)
assert r["by_kind_us"]["gemm_conv"] == 200.0 and r["by_kind_us"]["attention"] == 50.0, r["by_kind_us"]
assert abs(r["gpu_idle_frac"] - (1 - 430.0 / 900.0)) < 1e-9
prof = {"gpu1_nodp": {"rank0": r}, "world_ddp": {"rank0": dict(r, by_kind_us=dict(r["by_kind_us"], gemm_conv=280.0)),
                                                 "per_rank": [r, None]}}
ratios = m.phase_ratios(prof)
assert abs(ratios["world_ddp"]["gemm_conv"] - 1.4) < 1e-9 and ratios["world_ddp"]["gemm_conv_per_rank"] == [1.0, None]
assert "world_ddp" in m.profile_table("lm290m:bf16:8", dict(prof, ratios_vs_gpu1_nodp=ratios))
# Bench.run's per-step record, with a stand-in for torch (no GPU): one entry per step in every list, a step that
# allocates counted as cudaMalloc segments, probe and CPU times positive, start times increasing
import time, types
segs = [0]
fake = types.SimpleNamespace(device=lambda *a: "cuda:0", cuda=types.SimpleNamespace(
    synchronize=lambda: None, memory_stats=lambda dev: {"segment.all.allocated": segs[0]}))
b = m.Bench(None, fake, None, None, None, None)
def step():
    segs[0] += 2
    sum(range(20000))
times = b.run(step, 3)
d = b.detail
assert len(times) == 3 and all(t > 0 for t in times), times
assert all(len(v) == 3 for v in d.values()) and set(d) == {"t_unix", "host_us", "cpu_us", "cuda_mallocs",
                                                             "gc_collections", "probe_us"}, d
assert d["cuda_mallocs"] == [2, 2, 2] and all(x > 0 for x in d["probe_us"] + d["host_us"]), d
assert d["t_unix"] == sorted(d["t_unix"]) and abs(d["t_unix"][0] - time.time()) < 60, d["t_unix"]
PY

python3 -c "import torch" 2>/dev/null && finish "PyTorch is installed: the missing-PyTorch message is not checked here"
python3 "$B" --model lm290m --batch 2 >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "PyTorch is not installed" "$tmp/out" || { cat "$tmp/out"; fail "without torch: exit $rc (output above)"; }
finish
