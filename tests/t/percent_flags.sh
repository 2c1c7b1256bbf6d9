#!/bin/sh
# Every percentage flag of every subcommand reads its value alike (core/units.h nvs_parse_percent): "N" and "N%"
# give the same verdict, output and exit code, and "N%%" is refused naming the value (model --tolerance and check
# --fleet-max-below refused "5%" while check --min-efficiency and --max-below-baseline took it). Every flag that a
# --help lists with a PCT value must be one checked here.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot write the fixtures"
tmp_dir dir
ref=tests/fixtures/check/run_h200x2.json
cal=tests/fixtures/model/h200x2_nvlink_resnet50.json

# three hosts' copies of one run, node2's all_reduce 25 % slower (as check_fleet.sh's)
python3 - "$ref" "$dir" <<'PY'
import copy, json, sys
ref, d = json.load(open(sys.argv[1])), sys.argv[2]
for i, host in enumerate(["node0", "node1", "node2"]):
    r = copy.deepcopy(ref)
    r["host"] = host
    r["started_utc"] = "2026-11-29T1%d:00:00Z" % i
    for k in r["ranks"]:
        k["host"] = host
    for g in r["topology"]["gpus"]:
        g["host"] = host
    for c in r["collectives"]:
        if c["collective"] == "all_reduce" and c["busbw_gbps"] is not None and host == "node2":
            c["busbw_gbps"] *= 0.75
    json.dump(r, open("%s/%s.json" % (d, host), "w"))
PY
fleet="$dir/node0.json $dir/node1.json $dir/node2.json"

# same_out A B: the same stdout but for check's "rules:" line, which echoes the flags as typed
same_out() { [ "$(grep -v '^rules: ' "$1")" = "$(grep -v '^rules: ' "$2")" ]; }
# same CODE FLAG VALUE CMD...: CMD with FLAG VALUE and with FLAG VALUE% exits CODE both times, the same stdout
same() {
    code=$1 flag=$2 v=$3
    shift 3
    "$@" "$flag" "$v" >"$dir/bare.out" 2>/dev/null
    rc=$?
    [ $rc -eq "$code" ] || fail "$* $flag $v: exit $rc, expected $code"
    expect_err "$code" "" "$@" "$flag" "$v%" || return
    same_out "$dir/bare.out" "$OUT" || fail "$* $flag $v%: stdout differs from $flag $v's"
    expect_err 2 "'$v%%'" "$@" "$flag" "$v%%"
}
covered=""
# shellcheck disable=SC2086 # fleet is words
{
    same 0 --fleet-max-below 30 "$NVS" check $fleet
    same 3 --fleet-max-below 10 "$NVS" check $fleet
    same 0 --max-below-baseline 5 "$NVS" check "$dir/node0.json" --baseline "$dir/node1.json"
    same 3 --max-below-baseline 5 "$NVS" check "$dir/node2.json" --baseline "$dir/node1.json"
}
covered="$covered --fleet-max-below --max-below-baseline"
same 0 --tolerance 50 "$NVS" model --calibrate "$cal"
same 3 --tolerance 0.001 "$NVS" model --calibrate "$cal"
covered="$covered --tolerance"
# --min-efficiency F|PCT: a fraction, or a percent with its '%' (rules.c): 0.9 is 90%
expect_err 3 "" "$NVS" check "$cal" --min-efficiency 0.999 && cp "$OUT" "$dir/frac.out"
expect_err 3 "" "$NVS" check "$cal" --min-efficiency 99.9% && same_out "$dir/frac.out" "$OUT" ||
    fail "check --min-efficiency 99.9%: not as 0.999"
covered="$covered --min-efficiency"

# every PCT flag of every subcommand's --help is one of the above
for sub in run coll train topo p2p accept check compare report model; do
    "$NVS" "$sub" --help 2>&1 | grep -oE -- '--[a-z-]+ (F\|)?PCT' | sed "s/^/$sub /"
done | sort -u >"$dir/pct_flags"
grep -q . "$dir/pct_flags" || fail "no --help lists a PCT flag: the listing is not read right"
while read -r sub flag _; do
    case " $covered " in *" $flag "*) ;; *) fail "$sub $flag takes a PCT: not checked here" ;; esac
    # ... and its help says that the '%' may be written, with an example of both ("5 or 5%"): the help of
    # --fleet-max-below, --max-below-baseline and --tolerance did not say it
    "$NVS" "$sub" --help 2>&1 | awk -v f="$flag" '
        $0 ~ "^ +(-[a-z], )?" f " " { on = 1; print; next }
        on && /^                    / && $1 !~ /^-/ { print; next }
        { on = 0 }' | tr '\n' ' ' | grep -qE '[0-9.]+ or [0-9.]+%' ||
        fail "$sub --help: $flag does not say that a trailing '%' is taken (as '5 or 5%')"
done <"$dir/pct_flags"
finish
