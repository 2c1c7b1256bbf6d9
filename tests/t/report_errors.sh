#!/bin/sh
# Every bad run.json or command line: exit 2, one message naming the file and what is wrong, no report written.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir tmp
B=tests/fixtures/runs/bad
expect2() { # MESSAGE-PART ARGS...: exit 2, the message on stderr, nothing on stdout, no report written
    want=$1
    shift
    expect_err 2 "$want" "$NVS" report --no-plots -o "$tmp/out" "$@"
    [ -e "$tmp/out/report.md" ] && fail "report $*: a report.md was written"
    rm -rf "$tmp/out"
}
expect2 "$B/not_json.json: not JSON" "$B/not_json.json"
expect2 "$B/empty.json: empty file" "$B/empty.json"
expect2 "$B/wrong_schema.json: schema is the string \"nvscale.run/2\"" "$B/wrong_schema.json"
expect2 "$B/no_schema.json: no \"schema\" key" "$B/no_schema.json"
expect2 "$B/no_collectives.json: nothing to report: no \"collectives\", no \"train\" results and no GPU pairs" "$B/no_collectives.json"
expect2 "$B/n_is_string.json: collectives[0].n: expected an integer" "$B/n_is_string.json"
expect2 "$B/negative_busbw.json: collectives[0].busbw_gbps" "$B/negative_busbw.json"
expect2 "$B/top_array.json: not a run.json" "$B/top_array.json"
expect2 "$B/bad_topology.json: topology.pairs[0].bound_gbps" "$B/bad_topology.json"
expect2 "$B/duplicate_key.json: not JSON: duplicate" "$B/duplicate_key.json"
expect2 "$B: is a directory" "$B"
expect2 "$tmp/nope.json: No such file" "$tmp/nope.json"
# one bad file among good ones still stops everything
expect2 "$B/empty.json: empty file" tests/fixtures/runs/minimal_coll.json "$B/empty.json"
# one run given twice (here under two names) is refused: it counted twice in the fleet's median, so a slow host given
# three times outvoted its peers and was no longer named
expect2 "tests/fixtures/runs/minimal_coll.json and tests/fixtures/runs/./minimal_coll.json are the same file" \
    tests/fixtures/runs/minimal_coll.json tests/fixtures/runs/h200x2_nvlink.json tests/fixtures/runs/./minimal_coll.json
# ... and so is a copy of one run under another file (the same host, start and duration: one run, collected twice)
R=tests/fixtures/check/run_h200x2.json
cp "$R" "$tmp/copy.json"
copy_msg="$R and $tmp/copy.json are the same run (host vm, started 2026-11-29T10:00:00Z, 42 s)"
expect2 "$copy_msg" "$R" tests/fixtures/runs/h200x2_nvlink.json "$tmp/copy.json"
expect_err 2 "$copy_msg" "$NVS" check "$R" "$tmp/copy.json" --min-busbw all_reduce:1M:2:1
# ... and a copy of a topo or p2p run.json (both made by nvs_cli_run_doc), which had no duration_s and was taken as
# two runs (results/h100x1-s64c/nvs-1/run.json: check's fleet rows counted it twice); two real runs of one host
# (here most likely started in the same second) are still two
X=tests/fixtures/topo/h200x2.xml
for k in 1 2; do
    expect_err 0 "" "$NVS" topo --hwloc-xml "$X" --format json --out "$tmp/topo$k" || stop "topo run $k"
done
python3 - "$tmp/topo1/run.json" <<'PY' || fail "topo's run.json lacks its start, duration or result"
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d.get("duration_s"), float) and 0 <= d["duration_s"] < 60, d.get("duration_s")
assert d.get("started_utc", "").endswith("Z"), d.get("started_utc")
assert d.get("result") == {"status": "ok", "exit_code": 0}, d.get("result")
PY
cp "$tmp/topo1/run.json" "$tmp/topo-copy.json"
expect_err 2 "$tmp/topo1/run.json and $tmp/topo-copy.json are the same run (host " \
    "$NVS" check "$tmp/topo1/run.json" "$tmp/topo-copy.json"
# two finished topo runs: both judged, each "run result ok" (without a result section, check took a finished
# discovery for a run that died: FAIL, "it did not finish")
out=$("$NVS" check "$tmp/topo1/run.json" "$tmp/topo2/run.json" 2>&1)
rc=$?
[ "$rc" -eq 0 ] || fail "check of two topo runs: exit $rc, expected 0: $out"
[ "$(printf '%s\n' "$out" | grep -c 'run result *ok *ok .*PASS')" -eq 2 ] || fail "check of two topo runs: $out"
# command line
expect2 "no run.json given"
expect2 "unknown option --bogus" --bogus tests/fixtures/runs/minimal_coll.json
expect2 "option --title needs a value" tests/fixtures/runs/minimal_coll.json --title
# a value given to a flag that takes none is named as typed (getopt's optopt named a "-P" that does not exist)
expect2 "option --no-plots takes no value (got --no-plots=1)" --no-plots=1 tests/fixtures/runs/minimal_coll.json
expect2 "unknown option --bogus=1" --bogus=1 tests/fixtures/runs/minimal_coll.json
# a usage error is one message and the help hint, as every subcommand's (was the message and the whole help)
for args in "" "--bogus tests/fixtures/runs/minimal_coll.json" "-x tests/fixtures/runs/minimal_coll.json"; do
    # shellcheck disable=SC2086 # args is words
    expect_err 2 "Try 'nvscale report --help'." "$NVS" report --no-plots $args &&
        [ "$(grep -c . "$ERR")" -ne 2 ] && fail "report $args: $(grep -c . "$ERR") lines on stderr, not 2: $(cat "$ERR")"
done
# ... and so is every usage error of report's flags, not only an unknown one (an empty -t or -o, one given twice, a
# missing value said the message alone, without the hint)
R=tests/fixtures/runs/minimal_coll.json
hinted() { # ARGS...: exit 2, the message and the hint: two lines
    expect_err 2 "Try 'nvscale report --help'." "$NVS" report --no-plots "$@" &&
        [ "$(grep -c . "$ERR")" -ne 2 ] && fail "report $*: $(grep -c . "$ERR") lines on stderr, not 2: $(cat "$ERR")"
}
hinted -t "" "$R"
hinted -o "" "$R"
hinted -t a -t b "$R"
hinted -o "$tmp/o1" -o "$tmp/o2" "$R"
hinted "$R" --title
: >"$tmp/afile"
expect_err 2 "not a directory" "$NVS" report --no-plots -o "$tmp/afile" tests/fixtures/runs/minimal_coll.json
# DIR/report.md a directory: report's usage error naming -o and the path, as model -o DIR's "is a directory, not a
# file" (was the writer's "nvscale: error: cannot write DIR/report.md: it is a directory"); beside the run without
# -o, and for model projections, alike
mkdir -p "$tmp/rd/report.md"
expect_err 2 "nvscale report: -o $tmp/rd: $tmp/rd/report.md is a directory, not a file" \
    "$NVS" report --no-plots -o "$tmp/rd" tests/fixtures/runs/minimal_coll.json
cp tests/fixtures/runs/minimal_coll.json "$tmp/rd/run.json"
expect_err 2 "nvscale report: $tmp/rd/report.md is a directory, not a file: give -o DIR" "$NVS" report "$tmp/rd/run.json"
"$NVS" model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model maskrcnn --format json -o "$tmp/proj.json" ||
    fail "model --format json -o: exit $?"
expect_err 2 "nvscale report: -o $tmp/rd: $tmp/rd/report.md is a directory" "$NVS" report -o "$tmp/rd" "$tmp/proj.json"
# ... and so is a file of the plots that is a directory in DIR (a data file, an image, its .tmp, the script), before
# anything is written: it was the writer's "nvscale: error: cannot write DIR/NAME: it is a directory" (or gnuplot's
# or a rename's failure), half-way, with report.md and some of the plots written (a stand-in gnuplot: they are drawn)
gp_path="$(cd "$tmp" && pwd)/gpbin:$PATH"
stand_in_gnuplot "${gp_path%%:*}"
for f in busbw_broadcast.dat efficiency.svg step_breakdown.png.tmp plots.gp; do
    rm -rf "$tmp/pd" && mkdir -p "$tmp/pd/$f"
    expect_err 2 "nvscale report: -o $tmp/pd: $tmp/pd/$f is a directory, not a file" \
        env PATH="$gp_path" "$NVS" report -o "$tmp/pd" tests/fixtures/runs/h200x2_nvlink.json &&
        grep -q "Try 'nvscale report --help'." "$ERR" || fail "report -o, $f a directory: no help hint: $(cat "$ERR")"
    [ "$(ls "$tmp/pd")" = "$f" ] || fail "report -o, $f a directory: wrote $(ls "$tmp/pd" | tr '\n' ' ')"
done
rm -rf "$tmp/pd" && mkdir -p "$tmp/pd/model_efficiency.dat"
expect_err 2 "nvscale report: -o $tmp/pd: $tmp/pd/model_efficiency.dat is a directory, not a file" \
    env PATH="$gp_path" "$NVS" report -o "$tmp/pd" "$tmp/proj.json"
[ "$(ls "$tmp/pd")" = model_efficiency.dat ] || fail "report -o, model_efficiency.dat a directory: wrote $(ls "$tmp/pd")"
# --no-plots writes none of them: no refusal
"$NVS" report --no-plots -o "$tmp/pd" tests/fixtures/runs/h200x2_nvlink.json >/dev/null 2>"$tmp/pd.err" ||
    fail "report --no-plots, a plot's name a directory: $(cat "$tmp/pd.err")"
# -o a symbolic link to nothing, or under one: said as such, naming the target (it was "nvscale: error: cannot create
# directory L: a file of that name exists"), refused as report's before the runs are read; nothing written or made
ln -s "$tmp/nowhere/x" "$tmp/dangling"
for o in "$tmp/dangling" "$tmp/dangling/sub"; do
    case $o in */sub) is="'$tmp/dangling' is " ;; *) is="" ;; esac
    expect_err 2 "nvscale report: -o $o: ${is}a symbolic link to '$tmp/nowhere/x', which does not exist" \
        "$NVS" report -o "$o" tests/fixtures/runs/minimal_coll.json
    grep -q "file of that name" "$ERR" && fail "report -o $o: still says a file of that name exists"
    [ -L "$tmp/dangling" ] && [ ! -e "$tmp/nowhere" ] || fail "report -o $o: the link or its target changed"
done
# an empty title (was the default title without a word) and an -o too long to hold the report's file names (was cut
# short silently: the cut directory made, then the report failed to be written)
expect2 "-t needs a title, got an empty string" -t "" tests/fixtures/runs/minimal_coll.json
long=$tmp/$(printf '%04000d' 0)
expect_err 2 "-o: a directory name of 4" "$NVS" report --no-plots -o "$long" tests/fixtures/runs/minimal_coll.json
[ -e "$(printf '%.4090s' "$long")" ] && fail "report -o TOO-LONG: a cut directory was made"
# a full disk (simulated: core/out_file.c) at the report's first or second file: exit 1, and the directory it made
# is not left behind empty or with the plots' data alone
for k in 1 2; do
    NVS_TEST_WRITE_FAIL=$k "$NVS" report -o "$tmp/full$k" tests/fixtures/runs/h200x2_nvlink.json >/dev/null 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "report, write $k failing: exit $rc, expected 1"
    [ ! -e "$tmp/full$k" ] || fail "report, write $k failing: left $tmp/full$k: $(ls "$tmp/full$k" | tr '\n' ' ')"
done
# -o DIR is a directory, made with its missing parents (as --out makes a run directory's, and as --help says); a
# single-file output (model -o, --junit) into a missing directory is refused instead (robust_outputs.sh). A report
# that fails then leaves none of the directories it made: --out's parents are removed as a failed run's are
# (runjson_write.c); report -o left "tree/a" (empty) behind, and for model projections the whole tree with the
# data files written before the failure
"$NVS" report --no-plots -o "$tmp/new/deeper" tests/fixtures/runs/h200x2_nvlink.json >/dev/null 2>"$tmp/new.err" ||
    fail "report -o into a missing directory tree: $(cat "$tmp/new.err")"
[ -s "$tmp/new/deeper/report.md" ] || fail "report -o into a missing directory tree: no report.md"
"$NVS" model --gpu rtx3090 --machine pcie4-2s-8gpu-switch --model resnet50 --gpus 1,2 --format json \
    -o "$tmp/proj.json" || fail "model --format json -o"
for k in 1 2; do
    NVS_TEST_WRITE_FAIL=$k "$NVS" report -o "$tmp/tree$k/a/b" tests/fixtures/runs/h200x2_nvlink.json >/dev/null 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "report -o tree, write $k failing: exit $rc, expected 1"
    [ ! -e "$tmp/tree$k" ] || fail "report -o tree, write $k failing: left $(find "$tmp/tree$k" | tr '\n' ' ')"
    NVS_TEST_WRITE_FAIL=$k "$NVS" report -o "$tmp/mtree$k/a/b" "$tmp/proj.json" >/dev/null 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "report -o tree of a projection, write $k failing: exit $rc, expected 1"
    [ ! -e "$tmp/mtree$k" ] || fail "report -o tree of a projection, write $k failing: left $(find "$tmp/mtree$k" | tr '\n' ' ')"
done
# a directory that was there keeps itself and what it held
mkdir -p "$tmp/kept"
echo mine >"$tmp/kept/mine.txt"
NVS_TEST_WRITE_FAIL=1 "$NVS" report -o "$tmp/kept/a/b" "$tmp/proj.json" >/dev/null 2>&1
[ -s "$tmp/kept/mine.txt" ] && [ ! -e "$tmp/kept/a" ] || fail "report -o kept/a/b failing: $(find "$tmp/kept" | tr '\n' ' ')"
# also where the name's text says otherwise: x/../kept is kept, there before, only x was made (a walk of the text
# took kept for made and removed it with its file; review of 4eb7bf0f), for a run and for a projection
for in in tests/fixtures/runs/h200x2_nvlink.json "$tmp/proj.json"; do
    NVS_TEST_WRITE_FAIL=1 "$NVS" report --no-plots -o "$tmp/x/../kept" "$in" >/dev/null 2>&1
    [ -s "$tmp/kept/mine.txt" ] && [ ! -e "$tmp/x" ] ||
        fail "report -o x/../kept failing ($in): kept/mine.txt gone or x left: $(find "$tmp/kept" "$tmp/x" 2>/dev/null | tr '\n' ' ')"
done
# -o NEW/. and NEW/sub/.. name NEW, made for the report: it goes with the data files written before the failure (it
# was left with them: only the deepest name's own mkdir counted as making the directory -o names)
for k in 2 3; do
    for o in "dot$k/new/." "dot$k/new/sub/.."; do
        NVS_TEST_WRITE_FAIL=$k "$NVS" report -o "$tmp/$o" tests/fixtures/runs/h200x2_nvlink.json >/dev/null 2>&1
        rc=$?
        [ $rc -eq 1 ] || fail "report -o $o, write $k failing: exit $rc, expected 1"
        [ ! -e "$tmp/dot$k" ] || fail "report -o $o, write $k failing: left $(find "$tmp/dot$k" | tr '\n' ' ')"
    done
done
# -o whose last name cannot be made (longer than NAME_MAX) under a directory the report made: that directory goes
# too, without a word about removing what was never made (it was left, with "could not remove ..., made for the
# report that failed: File name too long")
long=$(printf '%300s' '' | tr ' ' x)
for in in tests/fixtures/runs/h200x2_nvlink.json "$tmp/proj.json"; do
    "$NVS" report --no-plots -o "$tmp/made/$long" "$in" >/dev/null 2>"$tmp/long.err"
    rc=$?
    [ $rc -eq 2 ] || fail "report -o made/LONG ($in): exit $rc, expected 2"
    # refused as report's, before the inputs are read (was "nvscale: error: cannot create directory ...")
    grep -q "^nvscale report: -o $tmp/made/x*: path too long" "$tmp/long.err" ||
        fail "report -o made/LONG ($in): not report's refusal: $(head -n 1 "$tmp/long.err" | cut -c1-100)"
    [ ! -e "$tmp/made" ] || fail "report -o made/LONG ($in): left $tmp/made"
    grep -q "could not remove" "$tmp/long.err" && fail "report -o made/LONG ($in): $(grep 'could not remove' "$tmp/long.err" | cut -c1-120)"
done
# a what-if projection is not a run: said so, not "another nvscale version"
"$NVS" model --lambda --format json >"$tmp/lambda.json" || fail "model --lambda --format json"
expect_err 2 "a what-if projection (nvscale model --format json), not a measurement" "$NVS" report --no-plots \
    -o "$tmp/rep" "$tmp/lambda.json"
# a run that measured only training (nvscale train) or only GPU pairs (nvscale p2p) has a report: what it measured
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for k in ('collectives', 'sweep'): d.pop(k)
json.dump(d, open(sys.argv[2], 'w'))
for k in ('train', 'scaling', 'transports'): d.pop(k)
d['p2p'] = {'copy_bytes': 268435456, 'pairs': [{'src': 0, 'dst': 1, 'path': 'P2P', 'class': 'NV18', 'uni_gbps': 390.1,
            'bidir_gbps': 760.2, 'latency_us': 2.1, 'bound_gbps': 478.1, 'pct_of_bound': 81.6, 'wrong': 0}]}
json.dump(d, open(sys.argv[3], 'w'))
d['p2p'] = {'pairs': [], 'skipped': [{'host': 'vm', 'what': 'p2p', 'why': 'one GPU'}]}
json.dump(d, open(sys.argv[4], 'w'))" tests/fixtures/runs/h200x2_nvlink.json "$tmp/train_only.json" "$tmp/p2p_only.json" \
    "$tmp/p2p_none.json" || stop "cannot make the partial runs"
"$NVS" report --no-plots -o "$tmp/tr" "$tmp/train_only.json" >/dev/null 2>"$tmp/tr.err" || fail "train-only run: $(cat "$tmp/tr.err")"
grep -q "^### Training step" "$tmp/tr/report.md" || fail "train-only run: no training section"
grep -q "busbw" "$tmp/tr/report.md" && fail "train-only run: a busbw table out of nothing"
"$NVS" report --no-plots -o "$tmp/pp" "$tmp/p2p_only.json" >/dev/null 2>"$tmp/pp.err" || fail "p2p-only run: $(cat "$tmp/pp.err")"
grep -q "^| 0 -> 1 | P2P | NV18 | 390.1 | 760.2 |" "$tmp/pp/report.md" || fail "p2p-only run: no pair row"
expect2 "p2p_none.json: nothing to report" "$tmp/p2p_none.json"
# a workload that lists an N twice (two conflicting results at N=2) is refused by every reader, naming the workload,
# the N and both places: report printed both rows and check judged one of them (PASS or FAIL depending on which),
# where model --calibrate already refused the file
python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/model/h200x2_nvlink_resnet50.json"))
r = dict(d["train"]["results"][1])
r["step_us"] *= 3
r["efficiency"] /= 3
d["train"]["results"].append(r)
json.dump(d, open(sys.argv[1] + "/dup-n.json", "w"))
PY
dup_msg="$tmp/dup-n.json: train.results[2].n: N=2 given twice (first at train.results[1]) for workload resnet50"
expect2 "$dup_msg" "$tmp/dup-n.json"
expect_err 2 "$dup_msg" "$NVS" check "$tmp/dup-n.json" --min-efficiency 90%
# ... and so is a collective row given twice (the same collective, N, size, type, op, root and placement, here with
# another busbw): the reader took it, check judged it as another variant ("worst of 2 rows") and report listed both;
# one that differs in its placement alone (the fixture's in-place rows) is another measurement, read as before
python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/check/run_h200x2.json"))
c = d["collectives"]
i = next(k for k, x in enumerate(c) if x["collective"] == "all_reduce" and x["n"] == 2 and x["bytes"] == 1 << 30
         and not x["inplace"])
r = dict(c[i])
r["busbw_gbps"] /= 2
c.insert(i + 3, r)
json.dump(d, open(sys.argv[1] + "/dup-row.json", "w"))
print(i, file=open(sys.argv[1] + "/dup-row.at", "w"))
PY
at=$(cat "$tmp/dup-row.at")
row_msg="$tmp/dup-row.json: collectives[$((at + 3))]: all_reduce N=2 size 1073741824 float sum out-of-place given twice"
row_msg="$row_msg (first at collectives[$at]): one row per collective, N, size and variant"
expect2 "$row_msg" "$tmp/dup-row.json"
expect_err 2 "$row_msg" "$NVS" check "$tmp/dup-row.json" --min-busbw all_reduce:1G:2:1
expect_err 0 "" "$NVS" check tests/fixtures/check/run_h200x2.json --min-busbw all_reduce:1G:2:1 &&
    grep -q "worst of 2 rows: in-place" "$OUT" || fail "in-place and out-of-place rows: not read as two variants"
# ... and so is a GPU pair given twice in the topology (here in the other order, with a quarter of the bound): the
# reader kept the first silently, so which bound report's matrix and check's percentages used hung on the order
python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/check/run_h200x2.json"))
r = dict(d["topology"]["pairs"][0], a=1, b=0)
r["bound_gbps"] /= 4
d["topology"]["pairs"].append(r)
json.dump(d, open(sys.argv[1] + "/dup-pair.json", "w"))
PY
pair_msg="$tmp/dup-pair.json: topology.pairs[1]: GPUs 0 and 1 given twice (first at topology.pairs[0]): one entry per pair"
expect2 "$pair_msg" "$tmp/dup-pair.json"
expect_err 2 "$pair_msg" "$NVS" check "$tmp/dup-pair.json" --min-busbw all_reduce:1G:2:1
# ... and so is a GPU given twice in topology.gpus (the same index, here GPU 1's entry again as GPU 0): the lookups
# by index took the first, so which GPU's bus, links and bounds a row used hung on the order
python3 - "$tmp" <<'PY'
import json, sys
d = json.load(open("tests/fixtures/check/run_h200x2.json"))
g = dict(d["topology"]["gpus"][1], index=0)
d["topology"]["gpus"].append(g)
json.dump(d, open(sys.argv[1] + "/dup-gpu.json", "w"))
PY
gpu_msg="$tmp/dup-gpu.json: topology.gpus[2].index: GPU 0 given twice (first at topology.gpus[0]): one entry per GPU"
expect2 "$gpu_msg" "$tmp/dup-gpu.json"
expect_err 2 "$gpu_msg" "$NVS" check "$tmp/dup-gpu.json" --min-busbw all_reduce:1G:2:1
# a run (or model projection) whose file is where the report goes, DIR/report.md, is refused before anything is
# written: the report replaced the input it was made from and exited 0 (check refuses --junit and the others on an
# input); the run is left as it was, and one under another name in that directory is reported there as before
mkdir -p "$tmp/rin" && cp tests/fixtures/runs/h200x2_nvlink.json "$tmp/rin/report.md" || stop "cannot copy a run"
expect_err 2 "$tmp/rin/report.md is an input (argument 1) and where the report goes: give -o DIR for the report" \
    "$NVS" report --no-plots "$tmp/rin/report.md"
cmp -s tests/fixtures/runs/h200x2_nvlink.json "$tmp/rin/report.md" || fail "report over its input: the run replaced"
expect_err 2 "-o $tmp/rin/.: its report.md is an input (argument 2, $tmp/rin/report.md): give another directory" \
    "$NVS" report --no-plots -o "$tmp/rin/." tests/fixtures/runs/minimal_coll.json "$tmp/rin/report.md"
cmp -s tests/fixtures/runs/h200x2_nvlink.json "$tmp/rin/report.md" || fail "report -o over its input: the run replaced"
"$NVS" model --gpu h100-sxm --machine hgx-h100-8 --model resnet50 --format json >"$tmp/rin/p.json" 2>/dev/null || fail "model --format json"
mkdir -p "$tmp/m" && cp "$tmp/rin/p.json" "$tmp/m/report.md" || stop "cp"
expect_err 2 "$tmp/m/report.md is an input (argument 1) and where the report goes" "$NVS" report --no-plots \
    "$tmp/m/report.md"
cmp -s "$tmp/rin/p.json" "$tmp/m/report.md" || fail "report over its model projection: the input replaced"
mv "$tmp/rin/report.md" "$tmp/rin/run.json" && "$NVS" report --no-plots "$tmp/rin/run.json" >/dev/null 2>&1 &&
    [ -s "$tmp/rin/report.md" ] || fail "a run beside no report: no report.md"
"$NVS" report --help >"$tmp/help" 2>&1 && grep -q "usage: nvscale report" "$tmp/help" || fail "--help"
finish
