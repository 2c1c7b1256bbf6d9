#!/bin/sh
# nvscale check: usage and input errors. Every bad flag, missing file and malformed run.json exits 2 with a
# message that names the problem, and prints no verdict table.
cd "$(dirname "$0")/../.." || exit 1
nvs=${NVSCALE:-./nvscale}
[ -x "$nvs" ] || { echo "no $nvs: run make first"; exit 1; }
fx=tests/fixtures/check
good=$fx/run_h200x2.json
tmp=tests/tmp/check_cli.$$
mkdir -p tests/tmp
fail=0

# expect EXIT "TEXT ON STDERR" nvscale-arguments...
expect() {
    want_rc=$1 want=$2
    shift 2
    "$nvs" "$@" >"$tmp.out" 2>"$tmp.err"
    rc=$?
    if [ "$rc" -ne "$want_rc" ]; then
        echo "FAIL: nvscale $*: exit $rc, expected $want_rc"; sed 's/^/   /' "$tmp.err"; fail=1; return
    fi
    if [ -n "$want" ] && ! grep -qF -- "$want" "$tmp.err"; then
        echo "FAIL: nvscale $*: stderr lacks '$want'"; sed 's/^/   /' "$tmp.err"; fail=1; return
    fi
    if [ "$want_rc" -eq 2 ] && [ -s "$tmp.out" ]; then
        echo "FAIL: nvscale $*: printed on stdout although the input was rejected"; fail=1
    fi
}

"$nvs" check --help >"$tmp.out" 2>&1 || { echo "FAIL: check --help exits $?"; fail=1; }
grep -q -- "--min-busbw COLL:SIZE:N:GBPS" "$tmp.out" || { echo "FAIL: --help does not list --min-busbw"; fail=1; }
"$nvs" help | grep -q '^  check ' || { echo "FAIL: 'nvscale help' does not list check"; fail=1; }

expect 2 "missing RUN.json" check --min-p2p 300
expect 2 "nothing to check" check "$good"
expect 2 "unknown option '--min-bw'" check "$good" --min-bw 3
expect 2 "option --rules needs a value" check "$good" --rules
expect 2 "unexpected argument 'other.json'" check "$good" other.json --min-p2p 1
expect 2 "invalid value 'xml' for --format" check "$good" --min-p2p 1 --format xml
expect 2 "expected COLL:SIZE:N:GBPS" check "$good" --min-busbw all_reduce:1G:300
expect 2 "expected COLL:SIZE:N:GBPS" check "$good" --min-busbw all_reduce:1G:2:300:4
expect 2 "field '' is empty" check "$good" --min-busbw all_reduce::2:300
expect 2 "field '1G n=2' is empty or holds a blank" check "$good" --min-busbw "all_reduce:1G n=2:2:300"
expect 2 "--min-busbw 'allreduse:1G:2:300': unknown collective 'allreduse'" check "$good" --min-busbw allreduse:1G:2:300
expect 2 "--min-busbw 'all_reduce:1Z:2:300': size: '1Z' is not a size" check "$good" --min-busbw all_reduce:1Z:2:300
expect 2 "--min-busbw 'all_reduce:1G:two:300': n: 'two' is not a GPU count" check "$good" --min-busbw all_reduce:1G:two:300
expect 2 "--min-busbw 'all_reduce:1G:2:-3': min: -3 GB/s out of range" check "$good" --min-busbw all_reduce:1G:2:-3
expect 2 "--min-p2p 'fast'" check "$good" --min-p2p fast
expect 2 "--min-p2p '3 min=1': expected a number" check "$good" --min-p2p "3 min=1"
expect 2 "--min-efficiency '1.2': min: efficiency 1.2 out of range" check "$good" --min-efficiency 1.2
expect 2 "--min-efficiency '200%'" check "$good" --min-efficiency 200%
expect 2 "--max-below-baseline '100': below_baseline: 100 out of range" check "$good" --baseline "$good" --max-below-baseline 100
expect 2 "--max-below-baseline 5: below_baseline needs --baseline FILE" check "$good" --max-below-baseline 5
expect 2 "tests/fixtures/rules/baseline.rules:3: below_baseline needs --baseline FILE" check "$good" --rules tests/fixtures/rules/baseline.rules
expect 2 "no rule compares with it" check "$good" --baseline "$good" --min-p2p 1
expect 2 "--baseline given twice" check "$good" --baseline "$good" --baseline "$good" --max-below-baseline 1
expect 2 "cannot open tests/fixtures/rules/none.rules" check "$good" --rules tests/fixtures/rules/none.rules
expect 2 "$fx/none.json: No such file or directory" check "$fx/none.json" --min-p2p 1
expect 2 "$fx/none.json: No such file or directory" check "$good" --baseline "$fx/none.json" --max-below-baseline 1
expect 2 "that is an input file" check "$good" --save-baseline "$good"
expect 2 "--save-baseline: $fx/run_wrong.json has result status 'wrong'" check "$fx/run_wrong.json" --save-baseline "$tmp.base.json"
[ -e "$tmp.base.json" ] && { echo "FAIL: a baseline was written from a run with wrong results"; fail=1; }

# malformed run files: the file and the field in the message
expect 2 "$fx/bad_schema.json: schema is the string \"nvscale.run/9\", expected \"nvscale.run/1\"" check "$fx/bad_schema.json" --min-p2p 1
expect 2 "$fx/bad_coll_n.json: collectives[3].n: expected an integer from 1 to 1000000, got 0" check "$fx/bad_coll_n.json" --min-p2p 1
expect 2 "$fx/bad_busbw.json: collectives[2].busbw_gbps: expected a number, got the string \"fast\"" check "$fx/bad_busbw.json" --min-p2p 1
expect 2 "$fx/bad_coll_name.json: collectives[0].collective: unknown collective 'all_reduec'" check "$fx/bad_coll_name.json" --min-p2p 1
expect 2 "$fx/bad_p2p.json: p2p.pairs[0].dst: missing" check "$fx/bad_p2p.json" --min-p2p 1
expect 2 "$fx/bad_status.json: result.status: expected \"ok\", \"wrong\" or \"error\", got the string \"maybe\"" check "$fx/bad_status.json" --min-p2p 1
expect 2 "$fx/bad_syntax.json: not JSON: ']' expected near end of file (line 2" check "$fx/bad_syntax.json" --min-p2p 1
expect 2 "$fx/bad_array.json: not a run.json: the top level is an array, expected an object" check "$fx/bad_array.json" --min-p2p 1
expect 2 "$fx/bad_schema.json: schema" check "$good" --baseline "$fx/bad_schema.json" --max-below-baseline 1
expect 2 "tests/fixtures/rules: is a directory, not a run.json file" check tests/fixtures/rules --min-p2p 1

rm -f "$tmp.out" "$tmp.err" "$tmp.base.json"
[ "$fail" -eq 0 ] && echo "check: every bad input exits 2 with its message"
exit $fail
