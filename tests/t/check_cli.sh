#!/bin/sh
# nvscale check: usage and input errors. Every bad flag, missing file and malformed run.json exits 2 with a
# message that names the problem, and prints no verdict table.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
fx=tests/fixtures/check
good=$fx/run_h200x2.json
tmp_dir tmp
refused() { expect_err 2 "$@"; } # refused TEXT CMD...: exit 2, TEXT on stderr, nothing on stdout

"$NVS" check --help >"$OUT" 2>&1 || fail "check --help exits $?"
grep -q -- "--min-busbw COLL:SIZE:N:GBPS" "$OUT" || fail "--help does not list --min-busbw"
# the exit codes as docs/check.md gives them: a SKIP row exits 0 too (the help said "all pass (or warn)")
grep -q "or are$" "$OUT" && grep -q "^skipped: not checked), 3 when any fails" "$OUT" || fail "--help does not say SKIP exits 0"
# '-' reads standard input for RUN.json, --baseline and --rules (stdin_inputs.sh); the help said so for report only
grep -q "A RUN.json, BASE.json or rules FILE of '-' is read$" "$OUT" && grep -q "^from standard input (one of them)" "$OUT" ||
    fail "--help does not say that '-' reads standard input"
"$NVS" help | grep -q '^  check ' || fail "'nvscale help' does not list check"

refused "missing RUN.json" "$NVS" check --min-p2p 300
refused "nothing to check" "$NVS" check "$good"
refused "unknown option '--min-bw'" "$NVS" check "$good" --min-bw 3
refused "option --rules needs a value" "$NVS" check "$good" --rules
refused "other.json: No such file or directory" "$NVS" check "$good" other.json --min-p2p 1  # several runs are read (the fleet view): each must exist
refused "--baseline and --save-baseline take one RUN.json; two were given" "$NVS" check "$good" "$good" --save-baseline "$tmp/x.json"
refused "invalid value 'xml' for --format" "$NVS" check "$good" --min-p2p 1 --format xml
# output files checked before judging (were exit 1 after the verdicts were printed)
# a directory where nothing can be made, though access() says writable as root (was exit 1 after the verdicts,
# with the other outputs written)
refused "--junit /proc/nvscale-x.xml: cannot write in directory '/proc'" "$NVS" check "$good" --min-p2p 1 \
    --prometheus "$tmp/p0.prom" --save-baseline "$tmp/b0.json" --junit /proc/nvscale-x.xml
for f in p0.prom b0.json; do [ -e "$tmp/$f" ] && fail "$f was written although --junit was refused"; done
# ... said as what it is: creating a file there fails with ENOENT, and strerror's "No such file or directory"
# blamed /proc, which is there (as --out and report -o /proc/x say: no directory can be made there)
for out in "check $good --min-p2p 1 --junit" "check $good --min-p2p 1 --prometheus" "model --gpu rtx3090 --model resnet50 --gpus 1,2 -o"; do
    # shellcheck disable=SC2086 # out is words
    refused "/proc/nvscale-x: cannot write in directory '/proc': no file can be made there" "$NVS" $out /proc/nvscale-x &&
        grep -q "No such file" "$ERR" && fail "$out /proc/nvscale-x: still says No such file: $(cat "$ERR")"
done
# an export that fails while written (a full disk, NVS_TEST_WRITE_FAIL): neither is written; the verdict's exit
# code stays (3 for a FAIL: was 1)
expect_err 1 "cannot write $tmp/e1.xml" env NVS_TEST_WRITE_FAIL=1 "$NVS" check "$good" --min-p2p 1 --junit "$tmp/e1.xml" \
    --prometheus "$tmp/e1.prom"
expect_err 3 "cannot write $tmp/e3.xml" env NVS_TEST_WRITE_FAIL=1 "$NVS" check "$fx/run_slow.json" \
    --rules tests/fixtures/rules/h200x2.rules --junit "$tmp/e3.xml" --prometheus "$tmp/e3.prom"
# all or none: the Prometheus file is not renamed into place when the JUnit one cannot be written (/dev/full)
[ -c /dev/full ] && expect_err 1 "cannot write /dev/full: No space left on device" "$NVS" check "$good" --min-p2p 1 \
    --prometheus "$tmp/f.prom" --junit /dev/full
# the JSON's exit_code is the process's: the exports are written before it (was exit 1 under "exit_code": 0)
if [ -c /dev/full ]; then
    expect_err 1 "cannot write /dev/full" "$NVS" check "$good" --min-p2p 1 --format json --junit /dev/full
    [ "$(json_get "$OUT" "d['exit_code']")" = 1 ] || fail "check --junit /dev/full: the JSON says exit_code $(json_get "$OUT" "d['exit_code']"), the process 1"
fi
# the second export's rename fails after the first's was made (NVS_TEST_WRITE_FAIL=2): the set stays the previous
# run's, the first put back as it was (this run's JUnit was left beside the previous run's Prometheus file; then
# removed, leaving the old Prometheus file alone)
echo old-junit >"$tmp/m.xml"
echo old-prom >"$tmp/m.prom"
expect_err 1 "$tmp/m.xml put back as it was: $tmp/m.prom could not be written" env NVS_TEST_WRITE_FAIL=2 "$NVS" \
    check "$good" --min-p2p 1 --junit "$tmp/m.xml" --prometheus "$tmp/m.prom"
[ "$(cat "$tmp/m.xml" 2>/dev/null)" = old-junit ] && [ "$(cat "$tmp/m.prom")" = old-prom ] ||
    fail "a failed export set is not the previous run's: m.xml '$(cat "$tmp/m.xml" 2>/dev/null)', m.prom '$(cat "$tmp/m.prom")'"
rm -f "$tmp/m.xml" "$tmp/m.prom"
# with no previous files the first is removed: none of this run's is left alone
expect_err 1 "$tmp/n.xml removed: $tmp/n.prom could not be written" env NVS_TEST_WRITE_FAIL=2 "$NVS" check "$good" \
    --min-p2p 1 --junit "$tmp/n.xml" --prometheus "$tmp/n.prom"
[ -e "$tmp/n.xml" ] || [ -e "$tmp/n.prom" ] && fail "an export was left although the other could not be written"
# and when every rename is made, the previous files are replaced and none of their copies stays
echo old-junit >"$tmp/m.xml"
echo old-prom >"$tmp/m.prom"
expect_err 0 "" "$NVS" check "$good" --min-p2p 1 --junit "$tmp/m.xml" --prometheus "$tmp/m.prom"
grep -q '<testsuites' "$tmp/m.xml" && grep -q '^nvscale_checks' "$tmp/m.prom" || fail "the exports were not replaced"
rm -f "$tmp/m.xml" "$tmp/m.prom"
for f in e1.xml e1.prom e3.xml e3.prom f.prom; do [ -e "$tmp/$f" ] && fail "$f was written although an export failed"; done
ls "$tmp" | grep -q 'tmp\.\|nvscale-old\.' && fail "an export's temporary or kept file was left: $(ls "$tmp")"
refused "--junit $tmp: is a directory, not a file" "$NVS" check "$good" --min-p2p 1 --junit "$tmp"
refused "the same file as another output" "$NVS" check "$good" --min-p2p 1 --junit "$tmp/o" --prometheus "$tmp/o"
refused "--junit given twice" "$NVS" check "$good" --min-p2p 1 --junit "$tmp/o1" --junit "$tmp/o2"
refused "expected COLL:SIZE:N:GBPS" "$NVS" check "$good" --min-busbw all_reduce:1G:300
refused "n=1: one GPU has no bus bandwidth" "$NVS" check "$good" --min-busbw all_reduce:2M:1:1
refused "expected COLL:SIZE:N:GBPS" "$NVS" check "$good" --min-busbw all_reduce:1G:2:300:4
refused "field '' is empty" "$NVS" check "$good" --min-busbw all_reduce::2:300
refused "field '1G n=2' is empty or holds a blank" "$NVS" check "$good" --min-busbw "all_reduce:1G n=2:2:300"
refused "--min-busbw 'allreduse:1G:2:300': unknown collective 'allreduse'" "$NVS" check "$good" --min-busbw allreduse:1G:2:300
refused "--min-busbw 'all_reduce:1Z:2:300': size: '1Z' is not a size" "$NVS" check "$good" --min-busbw all_reduce:1Z:2:300
refused "--min-busbw 'all_reduce:1G:two:300': n: 'two' is not a GPU count" "$NVS" check "$good" --min-busbw all_reduce:1G:two:300
# a decimal size reads as -b reads it (core/units.h nvs_parse_size_whole): one that is no whole number of bytes is
# refused saying so, one that is whole is taken as those bytes (1.5M: 1572864, the row that -b 1.5M sweeps; the
# fixture has none, so it is judged not measured: exit 3, not a refusal)
refused "--min-busbw 'all_reduce:1.3K:2:1': size: '1.3K': sizes are whole bytes with an optional K/M/G/T suffix (powers of 1024): 1331.2 bytes is no whole number" \
    "$NVS" check "$good" --min-busbw all_reduce:1.3K:2:1
expect_err 3 "" "$NVS" check "$good" --min-busbw all_reduce:1.5M:2:1
grep -q "busbw all_reduce 1536 KiB n=2 .*not measured: no 1536 KiB row" "$OUT" ||
    fail "--min-busbw all_reduce:1.5M:2:1 not judged as the 1536 KiB row: $(grep busbw "$OUT")"
# ... and a whole decimal that names a measured row is judged on it (0.25G: the 256 MiB row)
expect_err 0 "" "$NVS" check "$good" --min-busbw all_reduce:0.25G:2:1
grep -q "busbw all_reduce 256 MiB n=2 .*PASS" "$OUT" || fail "--min-busbw all_reduce:0.25G:2:1 not judged on the 256 MiB row: $(grep busbw "$OUT")"
# a zero written as a decimal says what size 0 does (was "size: '0.0' is not a size")
refused "--min-busbw 'all_reduce:0.0:2:1': size: 0 bytes: collectives run at 1 byte or more" "$NVS" check "$good" --min-busbw all_reduce:0.0:2:1
refused "--min-busbw 'all_reduce:1G:2:-3': min: -3 GB/s out of range" "$NVS" check "$good" --min-busbw all_reduce:1G:2:-3
refused "--min-p2p 'fast'" "$NVS" check "$good" --min-p2p fast
refused "--min-p2p '3 min=1': expected a number" "$NVS" check "$good" --min-p2p "3 min=1"
refused "--min-efficiency '1.2': min: efficiency 1.2 out of range" "$NVS" check "$good" --min-efficiency 1.2
refused "--min-efficiency '200%'" "$NVS" check "$good" --min-efficiency 200%
refused "--max-below-baseline '100': below_baseline: 100 out of range" "$NVS" check "$good" --baseline "$good" --max-below-baseline 100
refused "--max-below-baseline 5: below_baseline needs --baseline FILE" "$NVS" check "$good" --max-below-baseline 5
refused "tests/fixtures/rules/baseline.rules:3: below_baseline needs --baseline FILE" "$NVS" check "$good" --rules tests/fixtures/rules/baseline.rules
refused "no rule compares with it" "$NVS" check "$good" --baseline "$good" --min-p2p 1
refused "--baseline given twice" "$NVS" check "$good" --baseline "$good" --baseline "$good" --max-below-baseline 1
# given twice, the first value was lost; --fleet-max-below with one run was dropped (all exit 0)
refused "--format given twice ('json' and 'table')" "$NVS" check "$good" --min-p2p 1 --format json --format table
refused "--fleet-max-below given twice ('10' and '20')" "$NVS" check "$good" "$good" --fleet-max-below 10 --fleet-max-below 20
refused "--fleet-max-below 10: the fleet view needs several runs; one was given" "$NVS" check "$good" --min-p2p 1 --fleet-max-below 10
# a short option inside a cluster is named alone (was the argument before it: the run's file name)
refused "unknown option '-Z'" "$NVS" check "$good" -Zq
refused "unknown option '-Z'" "$NVS" check "$good" --min-p2p 1 -Zh
# two thresholds for one check (each was evaluated): refused, naming both; a warn and a fail level stay allowed
refused "--min-busbw 'all_reduce:1G:2:100': the same check as --min-busbw all_reduce:1G:2:300 ('busbw all_reduce size=1G n=2 min=300')" \
    "$NVS" check "$good" --min-busbw all_reduce:1G:2:300 --min-busbw all_reduce:1G:2:100
refused "--min-p2p '1': the same check as tests/fixtures/rules/h200x2.rules:7 ('p2p uni min=350')" \
    "$NVS" check "$good" --rules tests/fixtures/rules/h200x2.rules --min-p2p 1
refused "tests/fixtures/rules/h200x2.rules:5: the same check as tests/fixtures/rules/h200x2.rules:5" \
    "$NVS" check "$good" --rules tests/fixtures/rules/h200x2.rules --rules tests/fixtures/rules/h200x2.rules
printf 'nvscale-rules 1\np2p uni min=300 severity=warn\np2p uni min=200\n' >"$tmp/tiers.rules"
expect 0 "PASS" "$NVS" check "$good" --rules "$tmp/tiers.rules"
# a rules file saved with a UTF-8 byte-order mark (Notepad's "UTF-8 with BOM") reads as without it (was: "expected
# the header 'nvscale-rules 1' before any rule", not saying what it had found)
printf '\357\273\277nvscale-rules 1\r\np2p uni min=200\r\n' >"$tmp/bom.rules"
expect 0 "PASS" "$NVS" check "$good" --rules "$tmp/bom.rules"
refused "cannot open tests/fixtures/rules/none.rules" "$NVS" check "$good" --rules tests/fixtures/rules/none.rules
# an empty file name is named as the flag's value (was "cannot open : No such file or directory")
refused "--rules needs a file name, got ''" "$NVS" check "$good" --rules ''
refused "$fx/none.json: No such file or directory" "$NVS" check "$fx/none.json" --min-p2p 1
refused "$fx/none.json: No such file or directory" "$NVS" check "$good" --baseline "$fx/none.json" --max-below-baseline 1
refused "that is an input file" "$NVS" check "$good" --save-baseline "$good"
# an output naming an input or another output, by any name: refused before anything is judged or written (were
# exit 0 with the run.json, the rules file or the baseline replaced by the XML afterwards)
cp "$good" "$tmp/R.json"
cp tests/fixtures/rules/h200x2.rules "$tmp/r.rules"
refused "--junit $tmp/R.json: that is an input file (the run $tmp/R.json)" "$NVS" check "$tmp/R.json" --min-p2p 1 --junit "$tmp/R.json"
refused "--prometheus $tmp/./R.json: that is an input file (the run $tmp/R.json)" "$NVS" check "$tmp/R.json" --min-p2p 1 --prometheus "$tmp/./R.json"
refused "--junit $tmp/r.rules: that is an input file (--rules $tmp/r.rules)" "$NVS" check "$tmp/R.json" --rules "$tmp/r.rules" --junit "$tmp/r.rules"
refused "--prometheus $tmp/R.json: that is an input file (--baseline $tmp/R.json)" "$NVS" check "$good" --baseline "$tmp/R.json" --max-below-baseline 5 --prometheus "$tmp/R.json"
ln -s R.json "$tmp/link.json"
refused "--junit $tmp/link.json: that is an input file (the run $tmp/R.json)" "$NVS" check "$tmp/R.json" --min-p2p 1 --junit "$tmp/link.json"
refused "--save-baseline $tmp/b.json: the same file as another output (--junit $tmp/b.json)" "$NVS" check "$tmp/R.json" --min-p2p 1 --junit "$tmp/b.json" --save-baseline "$tmp/b.json"
nvs=$(cd "$(dirname "$NVS")" && pwd)/$(basename "$NVS")
refused "--prometheus j.xml: the same file as another output (--junit ./j.xml)" sh -c "cd '$tmp' && '$nvs' check R.json --min-p2p 1 --junit ./j.xml --prometheus j.xml"
cmp -s "$good" "$tmp/R.json" || fail "an input run.json was overwritten by an output"
cmp -s tests/fixtures/rules/h200x2.rules "$tmp/r.rules" || fail "an input rules file was overwritten by an output"
for f in b.json j.xml; do [ -e "$tmp/$f" ] && fail "$f was written although the command was refused"; done
refused "--save-baseline: $fx/run_wrong.json has result status 'wrong'" "$NVS" check "$fx/run_wrong.json" --save-baseline "$tmp/base.json"
[ -e "$tmp/base.json" ] && fail "a baseline was written from a run with wrong results"

# malformed run files: the file and the field in the message
refused "$fx/bad_schema.json: schema is the string \"nvscale.run/9\", expected \"nvscale.run/1\"" "$NVS" check "$fx/bad_schema.json" --min-p2p 1
refused "$fx/bad_coll_n.json: collectives[3].n: expected an integer from 1 to 1000000, got 0" "$NVS" check "$fx/bad_coll_n.json" --min-p2p 1
refused "$fx/bad_busbw.json: collectives[2].busbw_gbps: expected a number, got the string \"fast\"" "$NVS" check "$fx/bad_busbw.json" --min-p2p 1
refused "$fx/bad_coll_name.json: collectives[0].collective: unknown collective 'all_reduec'" "$NVS" check "$fx/bad_coll_name.json" --min-p2p 1
refused "$fx/bad_p2p.json: p2p.pairs[0].dst: missing" "$NVS" check "$fx/bad_p2p.json" --min-p2p 1
refused "$fx/bad_status.json: result.status: expected \"ok\", \"wrong\", \"failed\", \"interrupted\" or \"running\", got the string \"maybe\"" "$NVS" check "$fx/bad_status.json" --min-p2p 1
refused "$fx/bad_syntax.json: not JSON: ']' expected near end of file (line 2" "$NVS" check "$fx/bad_syntax.json" --min-p2p 1
refused "$fx/bad_array.json: not a run.json: the top level is an array, expected an object" "$NVS" check "$fx/bad_array.json" --min-p2p 1
refused "$fx/bad_schema.json: schema" "$NVS" check "$good" --baseline "$fx/bad_schema.json" --max-below-baseline 1
refused "tests/fixtures/rules: is a directory, not a run.json file" "$NVS" check tests/fixtures/rules --min-p2p 1

finish "check: every bad input exits 2 with its message"
