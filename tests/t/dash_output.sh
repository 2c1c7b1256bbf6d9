#!/bin/sh
# '-' as an output: nvscale never reads it as standard output (check's and accept's table already go there, and
# /dev/stdout is written through: robust_outputs.sh), so a single file (model -o, check --junit, --prometheus,
# --save-baseline), a report or compare directory (report -o, compare --out) and a run directory (topo, accept
# --out) named '-' are refused, exit 2, one message naming the flag and saying what to give instead. `model -o -`
# wrote a file named '-' in the current directory, exit 0. './-' still names a file of that name.
# Standard input by its other names (/dev/stdin, /dev/fd/0, /proc/self/fd/0), which nvscale reads as '-'
# (stdin_inputs.sh), is no output either: refused the same way, whatever standard input is. A file redirected
# there (check - --junit /dev/stdin < run.json) had the JUnit XML appended to it: the input itself, exit 3.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir d
nvs=$(pwd)/$NVS
R=$(pwd)/tests/fixtures/check/run_h200x2.json
XML=$(pwd)/tests/fixtures/topo/hgx8nic.xml
M="model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model resnet50 --gpus 1,2"

# each command runs in an empty directory: refused with one message, and nothing named '-' left there
in_d() { (cd "$d" && exec "$@"); }
refused() { # FLAG CMD...: exit 2, the message names FLAG -, no file or directory '-' made
    flag=$1
    shift
    expect_err 2 "'-' is not standard output here" in_d "$@"
    grep -q -- "$flag" "$ERR" || fail "$*: the message does not name $flag: $(cat "$ERR")"
    [ -e "$d/-" ] && { fail "$*: made '-'"; rm -rf "$d/-"; }
    n=$(grep -c '^nvscale' "$ERR")
    [ "$n" -eq 1 ] || fail "$*: $n error lines"
}
refused -o "$nvs" $M -o -
refused --output "$nvs" $M --output -
refused --save-baseline "$nvs" check "$R" --save-baseline -
refused --junit "$nvs" check "$R" --min-busbw all_reduce:1G:2:1 --junit -
refused --prometheus "$nvs" check "$R" --min-busbw all_reduce:1G:2:1 --prometheus -
refused -o "$nvs" report "$R" -o -
refused --out "$nvs" compare --report-only --out -
refused --out "$nvs" accept --out -
refused --out "$nvs" topo --hwloc-xml "$XML" --out -
# standard input by another name: refused, the input redirected there untouched
stdin_out() { # FLAG ALIAS CMD...: CMD with a copy of the run on standard input
    flag=$1 alias=$2
    shift 2
    cp "$R" "$d/in.json"
    expect_err 2 "standard input is not an output" sh -c '"$@" <"$0"' "$d/in.json" "$@"
    grep -q -- "$flag" "$ERR" && grep -q "$alias" "$ERR" || fail "$*: the message names not $flag $alias: $(cat "$ERR")"
    cmp -s "$R" "$d/in.json" || fail "$*: wrote into the file on standard input"
    n=$(grep -c '^nvscale' "$ERR")
    [ "$n" -eq 1 ] || fail "$*: $n error lines"
}
stdin_out --junit /dev/stdin "$nvs" check - --min-busbw all_reduce:1G:2:1 --junit /dev/stdin
stdin_out --prometheus /dev/fd/0 "$nvs" check - --min-busbw all_reduce:1G:2:1 --prometheus /dev/fd/0
stdin_out --save-baseline /proc/self/fd/0 "$nvs" check "$R" --save-baseline /proc/self/fd/0
stdin_out -o /dev/stdin "$nvs" $M -o /dev/stdin
stdin_out -o /dev/stdin "$nvs" report - -o /dev/stdin
stdin_out --out /dev/fd/0 "$nvs" topo --hwloc-xml "$XML" --out /dev/fd/0
# a file named '-' is still there to be had, through a name that is not '-'
(cd "$d" && "$nvs" $M -o ./- >/dev/null 2>&1) || fail "model -o ./- failed"
grep -q rtx3090 "$d/-" 2>/dev/null || fail "model -o ./- wrote no file '-'"
finish
