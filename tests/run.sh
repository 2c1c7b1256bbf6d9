#!/bin/sh
# The whole test suite: every unit-test binary (TAP) and every end-to-end script in tests/t/.
# A script exits 0 = pass, 77 = skipped (it prints why on its last line), anything else = fail.
# Skips are counted and listed, never folded into passes. Exit status: 0 only if nothing failed.
# Usage: tests/run.sh [PATTERN]   (only tests whose name contains PATTERN)
cd "$(dirname "$0")/.." || exit 1
pattern=${1:-}
pass=0 fail=0 skip=0
failed_list="" skipped_list=""
mkdir -p tests/tmp
log=tests/tmp/last-run.log
: >"$log"

for bin in build/tests/test_*; do
    [ -x "$bin" ] || continue
    name=$(basename "$bin")
    case "$name" in *"$pattern"*) ;; *) continue ;; esac
    out=$("$bin" 2>&1)
    rc=$?
    printf '%s\n' "== $name" "$out" >>"$log"
    # each TAP line counts: ok / not ok / ok # SKIP
    p=$(printf '%s\n' "$out" | grep -c '^ok .*' )
    s=$(printf '%s\n' "$out" | grep -c '^ok .* # SKIP')
    f=$(printf '%s\n' "$out" | grep -c '^not ok')
    p=$((p - s))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi # crashed
    pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
    if [ "$f" -gt 0 ]; then
        echo "FAIL $name"
        printf '%s\n' "$out" | grep -E '^(not ok|#)' | sed 's/^/     /'
        [ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$out" | grep -c '^not ok')" -eq 0 ] && echo "     exited with $rc"
        failed_list="$failed_list $name"
    else
        echo "ok   $name ($p passed${s:+, $s skipped})" | sed 's/, 0 skipped//'
    fi
    printf '%s\n' "$out" | grep ' # SKIP' | sed "s/^ok [0-9]* - /skip $name: /"
    if [ "$s" -gt 0 ]; then skipped_list="$skipped_list $name"; fi
done

for t in tests/t/*.sh; do
    [ -f "$t" ] || continue
    name=$(basename "$t" .sh)
    case "$name" in *"$pattern"*) ;; *) continue ;; esac
    out=$(sh "$t" 2>&1)
    rc=$?
    printf '%s\n' "== $name (exit $rc)" "$out" >>"$log"
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1))
        echo "ok   $name"
    elif [ "$rc" -eq 77 ]; then
        skip=$((skip + 1))
        echo "skip $name: $(printf '%s\n' "$out" | tail -n 1)"
        skipped_list="$skipped_list $name"
    else
        fail=$((fail + 1))
        echo "FAIL $name (exit $rc)"
        printf '%s\n' "$out" | tail -n 25 | sed 's/^/     /'
        failed_list="$failed_list $name"
    fi
done

echo "----"
echo "passed: $pass   failed: $fail   skipped: $skip   (full log: $log)"
[ -n "$skipped_list" ] && echo "skipped:$skipped_list"
[ -n "$failed_list" ] && echo "failed:$failed_list"
[ "$fail" -eq 0 ] && [ $((pass + skip)) -gt 0 ]
