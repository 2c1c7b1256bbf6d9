#!/bin/sh
# Every bad run.json or command line: exit 2, one message naming the file and what is wrong, no report written.
cd "$(dirname "$0")/../.." || exit 1
NVS=./nvscale
[ -x "$NVS" ] || { echo "nvscale is not built"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
B=tests/fixtures/runs/bad
fail=0
expect2() { # MESSAGE-PART ARGS...
    want=$1
    shift
    "$NVS" report --no-plots -o "$tmp/out" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if [ $rc -ne 2 ]; then
        echo "FAIL report $*: exit $rc, expected 2"
        fail=1
    elif ! grep -qF -- "$want" "$tmp/stderr"; then
        echo "FAIL report $*: message lacks \"$want\": $(cat "$tmp/stderr")"
        fail=1
    fi
    [ -s "$tmp/stdout" ] && { echo "FAIL report $*: wrote to stdout"; fail=1; }
    [ -e "$tmp/out/report.md" ] && { echo "FAIL report $*: a report.md was written"; fail=1; }
    rm -rf "$tmp/out"
}
expect2 "$B/not_json.json: not JSON" "$B/not_json.json"
expect2 "$B/empty.json: empty file" "$B/empty.json"
expect2 "$B/wrong_schema.json: schema is the string \"nvscale.run/2\"" "$B/wrong_schema.json"
expect2 "$B/no_schema.json: no \"schema\" key" "$B/no_schema.json"
expect2 "$B/no_collectives.json: no \"collectives\" array" "$B/no_collectives.json"
expect2 "$B/n_is_string.json: collectives[0].n: expected an integer" "$B/n_is_string.json"
expect2 "$B/negative_busbw.json: collectives[0].busbw_gbps" "$B/negative_busbw.json"
expect2 "$B/top_array.json: not a run.json" "$B/top_array.json"
expect2 "$B/bad_topology.json: topology.pairs[0].bound_gbps" "$B/bad_topology.json"
expect2 "$B/duplicate_key.json: not JSON: duplicate" "$B/duplicate_key.json"
expect2 "$B: is a directory" "$B"
expect2 "$tmp/nope.json: No such file" "$tmp/nope.json"
# one bad file among good ones still stops everything
expect2 "$B/empty.json: empty file" tests/fixtures/runs/minimal_coll.json "$B/empty.json"
# command line
expect2 "no run.json given"
expect2 "unknown option --bogus" --bogus tests/fixtures/runs/minimal_coll.json
expect2 "option --title needs a value" tests/fixtures/runs/minimal_coll.json --title
: >"$tmp/afile"
"$NVS" report --no-plots -o "$tmp/afile" tests/fixtures/runs/minimal_coll.json >/dev/null 2>"$tmp/stderr"
rc=$?
[ $rc -eq 2 ] && grep -q "not a directory" "$tmp/stderr" || { echo "FAIL: -o FILE: exit $rc: $(cat "$tmp/stderr")"; fail=1; }
"$NVS" report --help >"$tmp/help" 2>&1 && grep -q "usage: nvscale report" "$tmp/help" || { echo "FAIL: --help"; fail=1; }
exit $fail
