#!/bin/sh
# Issue 14, numbers and lists: ONE decimal parser for flags and files (core/units.h), empty list items refused
# everywhere, no float -> integer overflow, flags never silently ignored, `model` with a profile without `act`.
# Each line was accepted (exit 0, or a run) or crashed by UBSan before the fix; NVS=/path/to/old/nvscale shows it.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
out=$TMP/robust_numbers.$$
rm -rf "$out"
mkdir -p "$out"
# a tiny sweep, so that a value the old code accepted runs for a second, not minutes
small="--backend mpi -b 8 -e 64 -n 1 -w 0 --no-save"

# hex, tiny or signed numbers: one message naming the flag and the value, exit 2, nothing run
expect 2 "invalid value '0x10' for -f" $NVS coll $small -f 0x10
expect 2 "invalid value '0x10' for --timeout" $NVS coll $small --timeout 0x10
expect 2 "invalid value '1e-300' for --timeout" $NVS coll $small --timeout 1e-300
expect 2 "invalid value 'inf' for --timeout" $NVS coll $small --timeout inf
expect 2 "invalid value '\+8' for -b" $NVS coll --backend mpi -e 64 -n 1 -w 0 --no-save -b +8
expect 2 "invalid value '0x10' for -n" $NVS coll --backend mpi -b 8 -e 64 -w 0 --no-save -n 0x10
# 2^64 - 1 bytes per step: refused (it reached a double -> size_t conversion outside the range: undefined)
expect 2 "invalid value '18446744073709551615' for -i" $NVS coll $small -i 18446744073709551615 -e 1M
expect 2 "invalid value '2T' for -e" $NVS coll --backend mpi -b 8 -n 1 -w 0 --no-save -e 2T

# empty list items
expect 2 "empty item in 'all_reduce,,broadcast'" $NVS coll $small --coll all_reduce,,broadcast
expect 2 "empty item" $NVS coll $small --coll all_reduce,
expect 2 "empty item" $NVS coll $small -d ,float
expect 2 "invalid value '1,,2' for --gpus" $NVS coll $small --gpus 1,,2
expect 2 "empty item" $NVS train --backend mpi --no-save --steps 1 --warmup-steps 0 --model resnet50,,bert-large
expect 2 "empty item" $NVS model --gpu a100-sxm,,h100-sxm --machine hgx-a100-8 --model resnet50
expect 2 "empty item" $NVS model --gpu a100-sxm --machine hgx-a100-8 --model resnet50 --gpus 1,,8

# flags that were silently ignored are refused by name
expect 2 "is not one of coll's" $NVS coll $small --hwloc-xml /nonexistent
run=tests/fixtures/model/h200x2_shm_bert.json
expect 2 "--overlap-penalty 'abc': expected a fraction" $NVS model --calibrate $run --overlap-penalty abc
expect 2 "--overlap-penalty with --calibrate sets a projection" $NVS model --calibrate $run --overlap-penalty 0.3
expect 0 "" $NVS model --calibrate $run

# rules: size=0 and hex are refused with FILE:LINE
printf 'nvscale-rules 1\nbusbw all_reduce size=0 n=2 min=1\n' >"$out/zero.rules"
expect 2 "zero.rules:2: size: 0 bytes" $NVS check tests/fixtures/check/run_h200x2.json --rules "$out/zero.rules"
printf 'nvscale-rules 1\nbusbw all_reduce size=1M n=2 min=0x10\n' >"$out/hex.rules"
expect 2 "hex.rules:2: min: '0x10' is not a number" $NVS check tests/fixtures/check/run_h200x2.json --rules "$out/hex.rules"

# a valid profile whose layers have no `act`: the model sizes the batch from the GEMM outputs (was: "0.0 MB per
# sample" and "does not fit even at batch 1")
cat >"$out/noact.prof" <<'PROF'
nvscale-profile 1
name noact
source "issue 14: a profile whose layers have no act"
sample "one vector of 4096"
batch 8
layer fc1 params=16777216 gemm=4096,4096,4096
layer fc2 params=16777216 gemm=4096,4096,4096
PROF
expect 0 "batch [0-9]+ per GPU \(the largest that fits" $NVS model --gpu a100-sxm --machine hgx-a100-8 --model "$out/noact.prof" --gpus 1,8
rm -rf "$out"
finish
