#!/bin/sh
# '-' as an input: standard input where the input is read whole into memory (report's runs and projections, check's
# runs, --baseline and --rules, model's --preset-file and --calibrate, topo --hwloc-xml). Piped in, the output is
# the file's, with "standard input" where the file's name was, and so are the messages. Standard input is read once:
# a second '-' in one command is refused (exit 2, one message naming both). Where it cannot be read (accept --rules,
# a --model profile), '-' is refused (exit 2) instead of being opened as a file named '-', and so is a pipe through
# /dev/stdin, a named pipe or a device.
# (outputs named '-': dash_output.sh)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir d
nvs=$(pwd)/$NVS
R=tests/fixtures/runs/h200x2_nvlink.json
S=tests/fixtures/runs/h200x2_shm.json
C=tests/fixtures/check/run_h200x2.json
RULES=tests/fixtures/rules/h200x2.rules
X=tests/fixtures/topo/hgx8nic.xml
P=tests/fixtures/presets/good.txt
F=tests/fixtures/model/h200x2_nvlink_resnet50.json
M="model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model resnet50 --gpus 1,2"

from() { # FILE CMD...: CMD with FILE on standard input
    f=$1
    shift
    "$@" <"$f"
}
same() { # WHAT GOT WANT PATH [AS]: GOT is WANT with PATH read as "standard input" (or AS)
    sed "s|$4|${5:-standard input}|" "$3" >"$d/want"
    diff "$d/want" "$2" >"$d/diff" || fail "$1: not the output of the file itself: $(head -6 "$d/diff")"
}

# report: a run piped in gives the file's report; a second run piped in as the second of two; a model projection
expect_err 0 "" "$NVS" report --no-plots -o "$d/f" "$R"
expect_err 0 "" from "$R" "$NVS" report --no-plots -o "$d/s" - &&
    same "report -" "$d/s/report.md" "$d/f/report.md" "$R"
[ "$(cat "$OUT")" = "$d/s/report.md" ] || fail "report -: stdout is not the report's path"
expect_err 0 "" "$NVS" report --no-plots -o "$d/f2" "$R" "$S"
expect_err 0 "" from "$S" "$NVS" report --no-plots -o "$d/s2" "$R" - &&
    same "report RUN -" "$d/s2/report.md" "$d/f2/report.md" "$S"
"$NVS" $M --format json -o "$d/proj.json" || fail "model --format json failed"
expect_err 0 "" "$NVS" report --no-plots -o "$d/pf" "$d/proj.json"
expect_err 0 "" from "$d/proj.json" "$NVS" report --no-plots -o "$d/ps" - &&
    same "report - (projection)" "$d/ps/report.md" "$d/pf/report.md" "$d/proj.json"
# without -o: the current directory (a run from standard input has none of its own); a file named '-' there is
# not what is read
mkdir "$d/cwd" && cp "$S" "$d/cwd/-"
top=$(pwd)
(cd "$d/cwd" && "$nvs" report --no-plots - <"$top/$R" >/dev/null 2>"$top/$d/err") || fail "report - in a directory: $(cat "$d/err")"
if [ -f "$d/cwd/report.md" ]; then
    same "report - (no -o; a file named '-' there)" "$d/cwd/report.md" "$d/f/report.md" "$R"
else
    fail "report - wrote no ./report.md"
fi

# check: a run, a baseline and a rules file piped in
expect_err 0 "" "$NVS" check "$C" --rules "$RULES"
cp "$OUT" "$d/c.f"
expect_err 0 "" from "$C" "$NVS" check - --rules "$RULES" && same "check -" "$OUT" "$d/c.f" "$C"
expect_err 0 "" from "$RULES" "$NVS" check "$C" --rules - && same "check --rules -" "$OUT" "$d/c.f" "$RULES"
expect_err 0 "" "$NVS" check "$C" --baseline "$C" --max-below-baseline 10
cp "$OUT" "$d/b.f"
expect_err 0 "" from "$C" "$NVS" check "$C" --baseline - --max-below-baseline 10 &&
    same "check --baseline -" "$OUT" "$d/b.f" "baseline: $C" "baseline: standard input"

# model: a preset file and a calibration run piped in; topo: an hwloc XML piped in
expect_err 0 "" "$NVS" $M --preset-file "$P"
cp "$OUT" "$d/m.f"
expect_err 0 "" from "$P" "$NVS" $M --preset-file - && cmp -s "$OUT" "$d/m.f" || fail "model --preset-file -: not the file's output"
expect_err 0 "" "$NVS" model --calibrate "$F"
cp "$OUT" "$d/k.f"
sed "1s|$F|-|" "$d/k.f" >"$d/k.f1"
expect_err 0 "" from "$F" "$NVS" model --calibrate - && same "model --calibrate -" "$OUT" "$d/k.f1" "$F"
expect_err 0 "" "$NVS" topo --hwloc-xml "$X" --no-save
cp "$OUT" "$d/t.f"
# the table says where the topology came from in words ("hwloc-xml:standard input" read as a file of that name);
# run.json keeps its documented "hwloc-xml:<path>" form
expect_err 0 "" from "$X" "$NVS" topo --hwloc-xml - --no-save &&
    same "topo --hwloc-xml -" "$OUT" "$d/t.f" "hwloc-xml:$X" "hwloc XML from standard input"
expect_err 0 "" from "$X" "$NVS" topo --hwloc-xml - --no-save --format json &&
    grep -q '^  "source": "hwloc-xml:standard input",$' "$OUT" || fail "topo --hwloc-xml - --format json: source is not hwloc-xml:standard input"

# what is wrong with a piped input is said of "standard input", never of an empty name or '-'
echo '{' >"$d/bad.json"
: >"$d/empty"
printf 'nvscale-rules 1\nbogus\n' >"$d/bad.rules"
expect_err 2 "standard input: not JSON" from "$d/bad.json" "$NVS" report -
expect_err 2 "standard input: empty, not a run.json" from "$d/empty" "$NVS" report -
expect_err 2 "standard input: empty, not a run.json" from "$d/empty" "$NVS" check - --rules "$RULES"
expect_err 2 "standard input:2: unknown metric 'bogus'" from "$d/bad.rules" "$NVS" check "$C" --rules -
expect_err 2 "standard input: not JSON" from "$RULES" "$NVS" model --calibrate -

# standard input twice in one command: exit 2, one message naming both
twice() { # NAMES CMD...: refused naming NAMES ("A and for B")
    names=$1
    shift
    expect_err 2 "'-' (standard input) given twice, for $names" from "$C" "$@" || return
    n=$(grep -c '^nvscale' "$ERR")
    [ "$n" -eq 1 ] || fail "$*: $n error lines"
}
twice "argument 1 and for argument 2" "$NVS" report - -
twice "argument 2 and for argument 3" "$NVS" report "$R" - -
twice "--baseline and for RUN.json" "$NVS" check - --baseline - --max-below-baseline 10
twice "RUN.json 1 and for RUN.json 2" "$NVS" check - -
twice "--preset-file #1 and for --preset-file #2" "$NVS" $M --preset-file - --preset-file -
twice "--calibrate and for --preset-file #1" "$NVS" model --calibrate - --preset-file -
expect_err 2 "'-' (standard input) given twice, for --rules and for --rules" from "$RULES" "$NVS" check "$C" --rules - --rules -

# inputs that cannot take standard input refuse '-': nothing named '-' is looked for
refused() { # FLAG CMD...
    flag=$1
    shift
    expect_err 2 "'-' (standard input) is not supported for $flag" from "$C" "$@" || return
    n=$(grep -c '^nvscale' "$ERR")
    [ "$n" -eq 1 ] || fail "$*: $n error lines"
}
refused --rules "$NVS" accept --rules -
refused --model "$NVS" run --model -
refused --model "$NVS" train --model resnet50,-
refused --model "$NVS" model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model -

# the same inputs refuse what can be read once by any other name, with the same words naming the path: a pipe
# through /dev/stdin or /dev/fd/0 (accept --rules /dev/stdin was read by rank 0, and rank 1 alone said "/dev/stdin:
# empty"; --model said "not a regular file"), a named pipe, a character device. A file redirected with < is a file.
piped() { # FILE CMD...: CMD with FILE piped into it
    f=$1
    shift
    cat "$f" | "$@"
}
stream() { # PATH KIND FLAG CMD...
    p=$1 k=$2 flag=$3
    shift 3
    expect_err 2 "$flag reads a file; $p ($k) is not supported for $flag (" piped "$C" "$@" || return
    n=$(grep -c '^nvscale' "$ERR")
    [ "$n" -eq 1 ] || fail "$*: $n error lines"
}
mkfifo "$d/fifo" || fail "mkfifo failed"
PIPE="standard input, a pipe"
stream /dev/stdin "$PIPE" --rules "$NVS" accept --rules /dev/stdin
stream /dev/fd/0 "$PIPE" --rules "$NVS" accept --rules /dev/fd/0
stream "$d/fifo" "a named pipe" --rules "$NVS" accept --rules "$d/fifo"
stream /dev/null "a character device" --rules "$NVS" accept --rules /dev/null
stream /dev/stdin "$PIPE" --model "$NVS" run --model /dev/stdin
stream /dev/fd/0 "$PIPE" --model "$NVS" train --model resnet50,/dev/fd/0
stream /dev/stdin "$PIPE" --model "$NVS" model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model /dev/stdin
stream "$d/fifo" "a named pipe" --model "$NVS" model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model "$d/fifo"

# /dev/stdin, /dev/fd/0 and /proc/self/fd/0 are standard input, as '-' is: a second use in one command is refused
# naming both (each was read: the second found it empty, or a run piped in was read as the rules: "expected the
# header 'nvscale-rules 1'"), a pipe or a file redirected with < alike (each read shared its file position: the
# second, "/dev/stdin: empty", while '-' given twice was refused).
alias_twice() { # TEXT CMD...: CMD with the run piped in, refused with TEXT alone
    text=$1
    shift
    expect_err 2 "$text" piped "$C" "$@" || return
    n=$(grep -c '^nvscale' "$ERR")
    [ "$n" -eq 1 ] || fail "$*: $n error lines: $(cat "$ERR")"
}
alias_twice "standard input given twice, as '/dev/stdin' for --rules and as '-' for RUN.json: it can be read once" \
    "$NVS" check - --rules /dev/stdin
alias_twice "'-' (standard input) given twice, for --rules and for RUN.json" "$NVS" check - --rules -
expect_err 2 "'/dev/stdin' (standard input) given twice, for --rules and for --rules" \
    piped "$RULES" "$NVS" check "$C" --rules /dev/stdin --rules /dev/stdin
alias_twice "standard input given twice, as '/dev/fd/0' for --baseline and as '/proc/self/fd/0' for RUN.json" \
    "$NVS" check /proc/self/fd/0 --baseline /dev/fd/0 --max-below-baseline 10
alias_twice "standard input given twice, as '-' for RUN.json 1 and as '/dev/fd/0' for RUN.json 2" \
    "$NVS" check - /dev/fd/0 --rules "$RULES"
alias_twice "standard input given twice, as '-' for argument 1 and as '/dev/stdin' for argument 2" \
    "$NVS" report --no-plots -o "$d/twice" - /dev/stdin
alias_twice "standard input given twice, as '/dev/stdin' for --calibrate and as '-' for --preset-file #1" \
    "$NVS" model --calibrate /dev/stdin --preset-file -
expect 0 "result: PASS" from "$C" "$NVS" check /dev/stdin --rules "$RULES"
file_twice() { # FILE TEXT CMD...: CMD with FILE redirected (<) to it, refused with TEXT alone
    f=$1 text=$2
    shift 2
    expect_err 2 "$text" from "$f" "$@" || return
    n=$(grep -c '^nvscale' "$ERR")
    [ "$n" -eq 1 ] || fail "$* <$f: $n error lines: $(cat "$ERR")"
}
file_twice "$RULES" "'/dev/stdin' (standard input) given twice, for --rules and for --rules: it can be read once" \
    "$NVS" check "$C" --rules /dev/stdin --rules /dev/stdin
file_twice "$RULES" "standard input given twice, as '/dev/stdin' for --rules and as '-' for --rules" \
    "$NVS" check "$C" --rules /dev/stdin --rules -
file_twice "$C" "standard input given twice, as '-' for RUN.json 1 and as '/dev/stdin' for RUN.json 2" \
    "$NVS" check - /dev/stdin --rules "$RULES"
file_twice "$C" "standard input given twice, as '/dev/fd/0' for --baseline and as '/proc/self/fd/0' for RUN.json" \
    "$NVS" check /proc/self/fd/0 --baseline /dev/fd/0 --max-below-baseline 10
file_twice "$R" "standard input given twice, as '/dev/stdin' for argument 1 and as '/dev/fd/0' for argument 2" \
    "$NVS" report --no-plots -o "$d/ftwice" /dev/stdin /dev/fd/0
[ -e "$d/ftwice" ] && fail "report /dev/stdin /dev/fd/0 <FILE: refused, yet $d/ftwice was made"
file_twice "$P" "'/dev/stdin' (standard input) given twice, for --preset-file #1 and for --preset-file #2" \
    "$NVS" $M --preset-file /dev/stdin --preset-file /dev/stdin
file_twice "$F" "standard input given twice, as '/dev/stdin' for --calibrate and as '/dev/fd/0' for --preset-file #1" \
    "$NVS" model --calibrate /dev/stdin --preset-file /dev/fd/0

# a pipe through /dev/stdin or /dev/fd/0 is read as '-' reads it, wherever '-' is taken: the same output, the
# input named "standard input" (check's runs and report's refused it: "/dev/stdin: is a FIFO (named pipe), not a
# regular file", though '-' read it)
as_dash() { # WHAT FILE CMD...: CMD (with /dev/stdin or /dev/fd/0) piped FILE, gives what CMD with '-' gave ($d/dash)
    w=$1 f=$2
    shift 2
    expect_err 0 "" piped "$f" "$@" && { cmp -s "$OUT" "$d/dash" || fail "$w: not what '-' gave: $(diff "$d/dash" "$OUT" | head -6)"; }
}
expect_err 0 "" piped "$C" "$NVS" check - --rules "$RULES" && cp "$OUT" "$d/dash"
as_dash "check /dev/stdin" "$C" "$NVS" check /dev/stdin --rules "$RULES"
as_dash "check /dev/fd/0" "$C" "$NVS" check /dev/fd/0 --rules "$RULES"
expect_err 0 "" piped "$C" "$NVS" check "$C" --baseline - --max-below-baseline 10 && cp "$OUT" "$d/dash"
as_dash "check --baseline /dev/stdin" "$C" "$NVS" check "$C" --baseline /dev/stdin --max-below-baseline 10
expect_err 0 "" piped "$F" "$NVS" model --calibrate - && sed 1d "$OUT" >"$d/dash"
expect_err 0 "" piped "$F" "$NVS" model --calibrate /dev/fd/0 && sed -i 1d "$OUT" &&
    { cmp -s "$OUT" "$d/dash" || fail "model --calibrate /dev/fd/0: not what '-' gave"; }
expect_err 0 "" piped "$X" "$NVS" topo --hwloc-xml - --no-save && cp "$OUT" "$d/dash"
as_dash "topo --hwloc-xml /dev/stdin" "$X" "$NVS" topo --hwloc-xml /dev/stdin --no-save
expect_err 0 "" piped "$R" "$NVS" report --no-plots -o "$d/pd" /dev/stdin &&
    same "report /dev/stdin (piped)" "$d/pd/report.md" "$d/f/report.md" "$R"
# accept takes no '-', and a file redirected to /dev/stdin is a file there, whole each time it is named (the second
# --rules found it empty): the same rules twice, refused as a file given twice is
expect_err 2 "standard input:5: the same check as standard input:5" \
    from "$RULES" "$NVS" accept --rules /dev/stdin --rules /dev/stdin

# what is wrong with an hwloc XML piped in is said of the XML from standard input, not of a file of that name
expect_err 2 "nvscale topo: hwloc XML from standard input is empty" from "$d/empty" "$NVS" topo --hwloc-xml - --no-save
expect_err 2 "nvscale topo: standard input is not an hwloc XML topology (no <topology>" \
    from "$d/bad.json" "$NVS" topo --hwloc-xml - --no-save
sed 's/<topology version="2.0">/<topology version="3.0">/' "$X" >"$d/v3.xml"
expect_err 2 "nvscale topo: hwloc XML from standard input is version 3.x" from "$d/v3.xml" "$NVS" topo --hwloc-xml - --no-save
grep -q "'standard input'" "$ERR" && fail "topo --hwloc-xml -: standard input quoted as a file name: $(cat "$ERR")"

# standard input closed (<&-): said so, by each of its names, not "cannot read standard input: Invalid argument"
# (main.c holds a closed descriptor 0 on /dev/null opened for writing, which fdopen for reading refused)
closed() { "$@" <&-; }
for a in - /dev/stdin /dev/fd/0; do
    expect_err 2 "nvscale check: standard input is closed" closed "$NVS" check "$a" --rules "$RULES"
    expect_err 2 "nvscale check: standard input is closed" closed "$NVS" check "$C" --rules "$a"
done

PR=tests/fixtures/profiles/good_minimal.prof
expect_err 0 "" "$NVS" model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model "$PR"
cp "$OUT" "$d/pr.f"
expect_err 0 "" from "$PR" "$NVS" model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model /dev/stdin &&
    same "model --model /dev/stdin <FILE" "$OUT" "$d/pr.f" "$PR" /dev/stdin
finish
