#!/bin/sh
# tools/device/bench_args.py, the shape argument of the kernel benchmarks' PyTorch sides (ln_torch.py,
# viewcopy_torch.py, biasgrad_torch.py): well-formed shapes parse, garbage is refused with a message naming it, and
# the three scripts compile. Their measurements need a GPU and PyTorch: not here.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the tree
need_cmd python3 "the benchmarks' PyTorch sides are Python"
tmp_dir tmp

for f in bench_args ln_torch viewcopy_torch biasgrad_torch; do
    python3 -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" \
        "tools/device/$f.py" "$tmp/$f.pyc" || fail "tools/device/$f.py does not compile"
done

python3 - >"$tmp/out" 2>&1 <<'PY' || { cat "$tmp/out"; fail "bench_args: a check failed (above)"; }
import argparse, sys
sys.path.insert(0, "tools/device")
from bench_args import dims

two, three = dims(2, "ROWSxCOLS"), dims(3, "AxBxR")
assert two("4096x1024") == (4096, 1024)
assert three("8x512x3072") == (8, 512, 3072)
bad = [(two, "4096", "expected ROWSxCOLS"), (two, "", "expected ROWSxCOLS"), (two, "1x2x3", "expected ROWSxCOLS"),
       (two, "ax3", "expected ROWSxCOLS"), (two, "4x", "expected ROWSxCOLS"), (two, "0x4", "positive"),
       (two, "-1x4", "positive"), (three, "8x512", "expected AxBxR"), (three, "8x0x1", "positive"),
       (two, "1e3x4", "expected ROWSxCOLS"), (two, "4x4\x00", "expected ROWSxCOLS")]
for parse, arg, want in bad:
    try:
        got = parse(arg)
    except argparse.ArgumentTypeError as e:
        assert want in str(e) and repr(arg) in str(e), (arg, str(e))
    else:
        raise AssertionError("%r accepted as %r" % (arg, got))
print("ok")
PY
grep -qx ok "$tmp/out" || fail "bench_args: no ok"
finish
