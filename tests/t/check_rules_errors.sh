#!/bin/sh
# nvscale check: every malformed rules file in tests/fixtures/rules/bad_*.rules exits 2 and names FILE:LINE and
# what is wrong, with no verdict table. Each fixture's first line says what must be printed: "# expect: LINE:
# MESSAGE". The message is a usage error as a bad threshold flag's is, for check and accept alike: "nvscale
# SUB: FILE:LINE: ..." and the help hint (was the bare FILE:LINE line).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
run=tests/fixtures/check/run_h200x2.json
# hint SUB FILE: the last refusal ended with SUB's help hint
hint() { grep -qxF "Try 'nvscale $1 --help'." "$ERR" || fail "$1 --rules $2: no help hint"; }
n=0
for f in tests/fixtures/rules/bad_*.rules; do
    n=$((n + 1))
    expect=$(sed -n '1s/^# expect: //p' "$f")
    if [ -n "$expect" ]; then
        msg="$f:$expect"
    else
        msg="$f: empty: expected the header 'nvscale-rules 1'"
    fi
    expect_err 2 "nvscale check: $msg" "$NVS" check "$run" --rules "$f" && hint check "$f"
    expect_err 2 "nvscale accept: $msg" "$NVS" accept --rules "$f" && hint accept "$f"
done
[ "$n" -ge 30 ] || fail "only $n bad rules fixtures found"
# a rules file that cannot be read: why, and the same hint
for sub in check accept; do
    a=$run
    [ $sub = accept ] && a=
    # shellcheck disable=SC2086 # a is empty for accept
    expect_err 2 "cannot open $TMP/no-such.rules: No such file or directory" "$NVS" $sub $a --rules "$TMP/no-such.rules" &&
        hint $sub no-such.rules
    # shellcheck disable=SC2086
    expect_err 2 "$TMP: is a directory" "$NVS" $sub $a --rules "$TMP" && hint $sub "$TMP"
done
# a value quoted from the file or the command line: control and reordering characters shown as visible text
# (core/escape.h), as in every other message (were written raw: U+202E turned the rest of the line around on the
# terminal, DEL and a stray byte were invisible)
tmp_dir bd
printf 'nvscale-rules 1\np2p uni\342\200\256 min=1\n' >"$bd/bidi.rules"
for sub in check accept; do
    a=$run
    [ $sub = accept ] && a=
    # shellcheck disable=SC2086
    expect_err 2 "$bd/bidi.rules:2: p2p: unknown direction 'uni\\u{202e}'" "$NVS" $sub $a --rules "$bd/bidi.rules"
    grep -q "$(printf '\342\200\256')" "$ERR" && fail "$sub: U+202E of a rules file written raw to the terminal"
done
expect_err 2 "--min-p2p '1\\x7f': min: '1\\x7f' is not a number" "$NVS" check "$run" --min-p2p "$(printf '1\177')"
grep -q "$(printf '\177')" "$ERR" && fail "check: DEL of a flag's value written raw to the terminal"
expect_err 2 "unknown option '--\\xff'" "$NVS" check "$run" "$(printf -- '--\377')"
grep -q "$(printf '\377')" "$ERR" && fail "check: a byte that is not UTF-8 written raw to the terminal"
finish "all $n malformed rules files rejected with their line"
