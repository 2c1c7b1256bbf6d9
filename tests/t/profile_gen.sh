#!/bin/sh
# The built-in profiles committed as src/workload/profiles/*.c (and tools/profiles/lm290m.prof) are exactly what
# tools/gen_profiles.py generates from its architecture descriptions, whose parameter totals it asserts.
cd "$(dirname "$0")/../.." || exit 1
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: cannot run tools/gen_profiles.py"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

out=$(python3 tools/gen_profiles.py --check 2>&1) || { echo "committed profiles are stale: $out"; exit 1; }

# --check must be able to fail: in an empty tree every output is missing, so it reports all of them stale
mkdir -p "$tmp/tree/tools"
cp tools/gen_profiles.py "$tmp/tree/tools/"
if python3 "$tmp/tree/tools/gen_profiles.py" --check >"$tmp/stale.out" 2>&1; then
    echo "gen_profiles.py --check passed on a tree without outputs"; exit 1
fi
grep -q "src/workload/profiles/resnet50.c" "$tmp/stale.out" || { echo "stale list lacks resnet50.c:"; cat "$tmp/stale.out"; exit 1; }

# generating into the empty tree gives byte-identical files
python3 "$tmp/tree/tools/gen_profiles.py" >/dev/null || { echo "gen_profiles.py failed"; exit 1; }
for f in src/workload/profiles/*.c src/workload/profiles/builtin.h tools/profiles/lm290m.prof; do
    cmp -s "$f" "$tmp/tree/$f" || { echo "$f differs from a fresh generation"; exit 1; }
done
n=$(ls "$tmp/tree/src/workload/profiles" | wc -l)
[ "$n" -eq "$(ls src/workload/profiles | wc -l)" ] || { echo "src/workload/profiles has files the generator does not make"; exit 1; }

# bad usage exits 2 with a message
python3 tools/gen_profiles.py --print no-such-model >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "unknown profile 'no-such-model'" "$tmp/err" || { echo "--print bad name: rc $rc"; exit 1; }
python3 tools/gen_profiles.py --summary | grep -q "^resnet50 *25557032 params" || { echo "--summary wrong"; exit 1; }
exit 0
