#!/bin/sh
# The built-in profiles committed as src/workload/profiles/*.c (and tools/profiles/lm290m.prof) are exactly what
# tools/gen_profiles.py generates from its architecture descriptions, whose parameter totals it asserts.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_cmd python3 "cannot run tools/gen_profiles.py"
tmp_dir tmp

out=$(python3 tools/gen_profiles.py --check 2>&1) || stop "committed profiles are stale: $out"

# --check must be able to fail: in an empty tree every output is missing, so it reports all of them stale
mkdir -p "$tmp/tree/tools"
cp tools/gen_profiles.py "$tmp/tree/tools/"
if python3 "$tmp/tree/tools/gen_profiles.py" --check >"$tmp/stale.out" 2>&1; then
    stop "gen_profiles.py --check passed on a tree without outputs"
fi
grep -q "src/workload/profiles/resnet50.c" "$tmp/stale.out" || { cat "$tmp/stale.out"; stop "stale list (above) lacks resnet50.c"; }

# generating into the empty tree gives byte-identical files
python3 "$tmp/tree/tools/gen_profiles.py" >/dev/null || stop "gen_profiles.py failed"
for f in src/workload/profiles/*.c src/workload/profiles/builtin.h tools/profiles/lm290m.prof; do
    cmp -s "$f" "$tmp/tree/$f" || stop "$f differs from a fresh generation"
done
n=$(ls "$tmp/tree/src/workload/profiles" | wc -l)
[ "$n" -eq "$(ls src/workload/profiles | wc -l)" ] || stop "src/workload/profiles has files the generator does not make"

# bad usage exits 2 with a message
python3 tools/gen_profiles.py --print no-such-model >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "unknown profile 'no-such-model'" "$tmp/err" || fail "--print bad name: rc $rc"
python3 tools/gen_profiles.py --summary | grep -q "^resnet50 *25557032 params" || fail "--summary wrong"
finish
