#!/bin/sh
# A message on stderr is one write(2): written piece by piece (prefix, text, newline) on the unbuffered stderr, the
# lines of two ranks forwarded by mpirun interleaved mid-line (faults_args.sh failed 1 run in 4 on "were s" +
# rank 1's line + "tarted with ..."). Checked with strace on a warning of `nvscale model`.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd strace "cannot count the write calls"
strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not allowed)"
tmp_dir d
# LeakSanitizer cannot work under ptrace (it says so on stderr, and the process exits 1): off for this traced run
# of the sanitizer build, whose leaks the other tests check
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -e trace=write -o "$d/trace" "$NVS" model --gpu rtx3090 --machine hgx-h100-8 --model bert-large \
    --batch 100000 >/dev/null 2>"$d/err" || fail "nvscale model exited $?: $(cat "$d/err")"
grep -q "warning: batch 100000" "$d/err" || fail "the warning is not on stderr: $(cat "$d/err")"
w=$(grep -c 'write(2, ' "$d/trace")
[ "$w" -eq 1 ] || fail "the one-line warning took $w writes to stderr: $(grep 'write(2, ' "$d/trace" | head -n 4)"
finish
