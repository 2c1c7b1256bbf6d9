#!/bin/sh
# tools/ddp_bench.py (the PyTorch DDP reference harness): it compiles, its flags are validated before PyTorch is
# imported (exit 2 with a message), it says so cleanly where PyTorch is missing (exit 1), and its lm290m model has
# the parameter count of tools/profiles/lm290m.prof. The measurement itself needs a GPU and PyTorch: not here.
cd "$(dirname "$0")/../.." || exit 1
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
B=tools/ddp_bench.py

python3 -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" \
    "$B" "$tmp/ddp_bench.pyc" || { echo "$B does not compile"; exit 1; }
python3 "$B" --help >"$tmp/help" 2>&1 || { echo "--help failed"; exit 1; }
grep -q -- "--bucket-cap-mb" "$tmp/help" || { echo "--help lacks --bucket-cap-mb"; exit 1; }

bad() { # expected message, then arguments: must exit 2 and print the message
    want=$1; shift
    python3 "$B" "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -q -- "$want" "$tmp/out"; then
        echo "ddp_bench.py $*: exit $rc, expected 2 and '$want':"; cat "$tmp/out"; exit 1
    fi
}
bad "invalid choice: 'vgg'" --model vgg --batch 8
bad "the following arguments are required: --batch" --model resnet50
bad "0: must be 1..1000000" --model lm290m --batch 0
bad "'x' is not a whole number" --model lm290m --batch x
bad "must be > 0" --model lm290m --batch 4 --bucket-cap-mb 0
bad "invalid choice: 'fp16'" --model lm290m --batch 4 --precision fp16
bad "does not exist or is not writable" --model lm290m --batch 4 --json "$tmp/no/such/dir/out.json"

# lm290m: the harness's parameter count is the profile's (the profile side is checked by test_profile)
python3 - "$B" <<'PY' || exit 1
import importlib.util, sys
spec = importlib.util.spec_from_file_location("ddp_bench", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)  # imports no torch at module level
want = 292794368  # tools/profiles/lm290m.prof total
if m.LM290M_PARAMS != want or m.lm290m_params(**m.LM290M) != want:
    sys.exit("ddp_bench lm290m has %d / %d parameters, profile %d" % (m.LM290M_PARAMS, m.lm290m_params(**m.LM290M), want))
PY

if python3 -c "import torch" 2>/dev/null; then
    echo "PyTorch is installed: the missing-PyTorch message is not checked here"; exit 0
fi
python3 "$B" --model lm290m --batch 2 >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "PyTorch is not installed" "$tmp/out" || { echo "without torch: exit $rc"; cat "$tmp/out"; exit 1; }
exit 0
