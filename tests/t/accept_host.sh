#!/bin/sh
# nvscale accept without a GPU: the MPI host backend measures, the NVML stand-in (tests/fixtures/topo/fake_nvml.c)
# answers the health calls, so that every health FAIL path is proven here:
#   - level 1 healthy: every health check PASS, exit 0; JUnit and Prometheus files written and well formed
#   - each fault of the stand-in (FAKE_NVML_FAULT=FAULT:GPU): exit 3, the FAIL row names that GPU's bus id (retired:
#     a pre-Ampere GPU's retired pages, which NVML counts only for a non-NULL address buffer)
#   - PCIe replays, a lowered power limit, an NVLink state NVML cannot read: WARN, exit 0; no health calls at all:
#     SKIP "unsupported" (JUnit <skipped>, Prometheus -1), exit 0
#   - the XID event wait failing mid-run: WARN "not watched" with NVML's reason where no XID came before; an NVML
#     without event sets: SKIP "not watched" (was a WARN)
#   - a GPU lost (or needing a reset) during the run: every check of it FAILs with NVML's answer; a call NVML
#     refuses is named in the WARN of what it left unknown
#   - no NVML library: health skipped with the reason, a SKIP row per built-in rule left out (JSON too), exit 0
#   - a rules file overrides the built-in rules (severity=warn turns the ECC FAIL into a WARN, exit 0)
#   - level 2 and level 3: what a host backend cannot measure is said, not failed (the GPU self-test's rules are
#     skipped); under mpirun one table
#   - bad input: exit 2 before anything runs
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
need_cmd python3 "cannot parse the outputs"
has_gpu && skip "a real GPU and driver are here: the stand-in NVML would not be the one answering"
CC=${CC:-cc}
need_cmd "$CC" "no C compiler to build the stand-in NVML"
tmp_dir dir
mkdir -p "$dir/lib" "$dir/lib_nohealth" "$dir/empty"
"$CC" -shared -fPIC -o "$dir/lib/libnvidia-ml.so.1" tests/fixtures/topo/fake_nvml.c || exit 1
"$CC" -shared -fPIC -DFAKE_NO_HEALTH -o "$dir/lib_nohealth/libnvidia-ml.so.1" tests/fixtures/topo/fake_nvml.c || exit 1
export HWLOC_XMLFILE=tests/fixtures/topo/h200x2.xml
# health reads the GPU's own PCIe width from sysfs (bus/pci/devices/<bus id>/max_link_width): the stand-in's bus
# ids may be real devices of this machine, so every run reads an empty tree unless a case gives its own
mkdir -p "$dir/sys_none"
export NVS_TEST_SYSFS_ROOT="$dir/sys_none"

# acc NAME LIBDIR WANT_EXIT [accept args...]: runs accept with the stand-in, JSON verdicts in $dir/NAME.json; on the
# host backend asked for (--backend mpi), as a CPU-only machine is accepted (without it, no GPU is a FAIL: below)
acc() {
    name=$1 lib=$2 want=$3
    shift 3
    LD_LIBRARY_PATH="$lib" "$NVS" accept --backend mpi --no-save -q --format json "$@" >"$dir/$name.json" 2>"$dir/$name.err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "accept $name exited $rc, expected $want"
        tail -5 "$dir/$name.err" | sed 's/^/    /'
        return 1
    fi
    return 0
}
# verdict NAME METRIC-SUBSTRING VERDICT [NOTE-SUBSTRING]: some row matches
verdict() {
    python3 - "$dir/$1.json" "$2" "$3" "${4:-}" <<'PY' || { fails=$((fails + 1)); return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
rows = [v for v in d["verdicts"] if sys.argv[2] in v["metric"] and v["verdict"] == sys.argv[3] and sys.argv[4] in v["note"]]
if not rows:
    print("FAIL: %s: no %s row for '%s' with note '%s'; rows: %s" % (sys.argv[1], sys.argv[3], sys.argv[2], sys.argv[4],
          [(v["metric"], v["verdict"], v["note"][:60]) for v in d["verdicts"] if sys.argv[2] in v["metric"]]))
    sys.exit(1)
PY
}

# healthy, level 1, with the machine outputs
acc healthy "$dir/lib" 0 --level 1 --junit "$dir/healthy.xml" --prometheus "$dir/healthy.prom"
python3 - "$dir" <<'PY' || fails=$((fails + 1))
import json, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
j = json.load(open(d + "/healthy.json"))
errors = []
health = [v for v in j["verdicts"] if v["kind"] == "health"]
if len(health) != 20 or any(v["verdict"] != "PASS" for v in health):
    errors.append("healthy: %d health rows, not all PASS: %s" % (len(health), [(v["metric"], v["verdict"]) for v in health if v["verdict"] != "PASS"]))
if j["result"] != "PASS" or j["exit_code"] != 0:
    errors.append("healthy: result %s" % j["result"])
t = ET.parse(d + "/healthy.xml").getroot()
cases = list(t.iter("testcase"))
if len(cases) != len(j["verdicts"]) or t.get("failures") != "0":
    errors.append("junit: %d testcases for %d verdicts, failures %s" % (len(cases), len(j["verdicts"]), t.get("failures")))
line = re.compile(r'^nvscale_[a-z_]+\{([a-z_]+="([^"\\]|\\.)*",?)*\} -?[0-9.e+-]+$')
series = set()
for l in open(d + "/healthy.prom"):
    l = l.rstrip("\n")
    if l.startswith("# HELP nvscale_") or l.startswith("# TYPE nvscale_"):
        continue
    if not line.match(l):
        errors.append("prometheus: bad line %r" % l)
    key = l.rsplit(" ", 1)[0]
    if key in series:
        errors.append("prometheus: series twice: %s" % key)
    series.add(key)
if sum(1 for s in series if s.startswith("nvscale_check_status{")) != len(j["verdicts"]):
    errors.append("prometheus: not one status sample per verdict")
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY

# every FAIL path of the health checks, one fault at a time on GPU 1 (bus id 0000:00:07.0) or GPU 0 (06)
for f in ecc:1:ecc:uncorrectable xid:1:xid:XID\ 79 throttle:1:throttle:HW\ slowdown \
    hot:0:temperature:slowdown\ threshold x8:1:pcie:x8\ of\ x16 linkdown:1:nvlink:17\ of\ 18 \
    recovery:0:nvlink_errors:recover crc:1:nvlink_errors:CRC\ errors retired:1:memory:64\ pages\ retired; do
    fault=$(echo "$f" | cut -d: -f1-2) check=$(echo "$f" | cut -d: -f3) note=$(echo "$f" | cut -d: -f4)
    gpu=${fault#*:}
    FAKE_NVML_FAULT=$fault acc "fault_$check$gpu" "$dir/lib" 3 --level 1 &&
        verdict "fault_$check$gpu" "$check 0000:00:0$((6 + gpu)).0" FAIL "$note" &&
        verdict "fault_$check$gpu" "$check 0000:00:0$((7 - gpu)).0" PASS
done
# a GPU that falls off the bus during the run (NVML answers GPU_IS_LOST) or needs a reset: every check of it FAILs
# naming NVML's answer, whatever was read before it went; the other GPU still passes
FAKE_NVML_FAULT=lost:1 acc lost "$dir/lib" 3 --level 1 &&
    verdict lost "ecc 0000:00:07.0" FAIL 'answered "GPU is lost" (NVML 15)' &&
    verdict lost "nvlink 0000:00:07.0" FAIL "fell off the bus" && verdict lost "ecc 0000:00:06.0" PASS
# and is not asked again after the run (on a GPU off the bus every call can wait for the driver's timeout): its
# "after" is null, the other GPU's is read. Level 2, whose run lasts seconds: level 1's could end before the
# sampler's first reading (every 100 ms), the GPU then lost during the after-reading itself (1 run in 8 here)
FAKE_NVML_FAULT=lost:1 LD_LIBRARY_PATH="$dir/lib" "$NVS" accept --backend mpi --level 2 --out "$dir/lostrun" -q >/dev/null 2>&1
json_get "$dir/lostrun/run.json" "[g['after'] is None for g in d['health']['gpus']] == [False, True] and d['health']['gpus'][1]['lost']['code'] == 15" |
    grep -qx True || fail "a lost GPU was read again after the run, or the healthy one was not"
FAKE_NVML_FAULT=reset:0 acc reset "$dir/lib" 3 --level 1 &&
    verdict reset "pcie 0000:00:06.0" FAIL 'answered "GPU requires reset" (NVML 16)' &&
    verdict reset "pcie 0000:00:07.0" PASS
# a call NVML refuses (no permission) is not "does not report it": the row names the call and NVML's answer
FAKE_NVML_FAULT=perm:1 acc perm "$dir/lib" 0 --level 1 &&
    verdict perm "pcie_replay 0000:00:07.0" WARN "nvmlDeviceGetPcieReplayCounter: Insufficient Permissions" &&
    verdict perm "pcie_replay 0000:00:06.0" PASS
# WARN paths: the run still passes (a row remap pending alone: the GPU still runs work, as NVML and DCGM's health
# watch say; after an uncorrectable error it is a FAIL, DCGM's "drain the GPU and reset it")
FAKE_NVML_FAULT=replay:1,powercap:0,remap:1 acc warn "$dir/lib" 0 --level 1 &&
    verdict warn "pcie_replay 0000:00:07.0" WARN "PCIe replays" && verdict warn "power 0000:00:06.0" WARN "lowered to 500 W" &&
    verdict warn "memory 0000:00:07.0" WARN "can still run work"
# a x16 GPU (the stand-in is an H200) in a x8 slot: NVML's maximum width is the slot's, x8 of x8 passed; a WARN
FAKE_NVML_FAULT=slot8:1 acc slot8 "$dir/lib" 0 --level 1 &&
    verdict slot8 "pcie 0000:00:07.0" WARN "slot-limited" && verdict slot8 "pcie 0000:00:06.0" PASS
# a gen5 GPU in a gen4 slot: NVML's maximum generation is the slot's, gen4 of gen4 passed; the GPU's own
# (nvmlDeviceGetGpuMaxPcieLinkGeneration) says gen5: a WARN naming both
FAKE_NVML_FAULT=slotgen4:0 acc slotgen4 "$dir/lib" 0 --level 1 &&
    verdict slotgen4 "pcie 0000:00:06.0" WARN "generation (GPU and slot together) is gen4, the GPU is gen5" &&
    verdict slotgen4 "pcie 0000:00:07.0" PASS
# the GPU's own width from sysfs (max_link_width, its Link Capabilities) is preferred over the datasheet table
mkdir -p "$dir/sys/bus/pci/devices/0000:00:07.0"
echo 16 >"$dir/sys/bus/pci/devices/0000:00:07.0/max_link_width"
NVS_TEST_SYSFS_ROOT="$dir/sys" FAKE_NVML_FAULT=slot8:1 acc slot8sys "$dir/lib" 0 --level 1 &&
    verdict slot8sys "pcie 0000:00:07.0" WARN "the GPU is x16 (its Link Capabilities: sysfs max_link_width)"
FAKE_NVML_FAULT=remap:0,ecc:0 acc remap_unc "$dir/lib" 3 --level 1 &&
    verdict remap_unc "memory 0000:00:06.0" FAIL "drain the GPU and reset it" && verdict remap_unc "memory 0000:00:07.0" PASS
# the XID watch failing mid-run: a GPU with no XID yet is "not watched" with NVML's reason (not a clean PASS), one
# that reported an XID before still FAILs
FAKE_NVML_FAULT=eventwait:0 acc eventwait "$dir/lib" 0 --level 1 &&
    verdict eventwait "xid 0000:00:06.0" WARN "nvmlEventSetWait_v2 failed" &&
    verdict eventwait "xid 0000:00:07.0" WARN "nvmlEventSetWait_v2 failed"
FAKE_NVML_FAULT=xid:1,eventwait:0 acc eventwait_xid "$dir/lib" 3 --level 1 &&
    verdict eventwait_xid "xid 0000:00:07.0" FAIL "XID 79" &&
    verdict eventwait_xid "xid 0000:00:06.0" WARN "nvmlEventSetWait_v2 failed"
# a link whose state NVML answers with an error (link 7, Unknown Error, on both GPUs): a WARN naming it (was left
# out of the list: "17 links up" of 17, PASS)
FAKE_NVML_MODE=linkerr acc linkerr "$dir/lib" 0 --level 1 &&
    verdict linkerr "nvlink 0000:00:06.0" WARN "the state of link 7 was not read (nvmlDeviceGetNvLinkState: " &&
    verdict linkerr "nvlink 0000:00:07.0" WARN "link 7 was not read"
# what NVML does not report is not checked: SKIP in every output, never a pass (was a WARN, in JUnit a passing
# testcase with skipped="0")
acc nohealth "$dir/lib_nohealth" 0 --level 1 --junit "$dir/nohealth.xml" --prometheus "$dir/nohealth.prom" &&
    verdict nohealth "ecc 0000:00:06.0" SKIP "cannot be checked" &&
    verdict nohealth "xid 0000:00:07.0" SKIP "not watched (this NVML has no event sets)"
python3 - "$dir" <<'PY' || fails=$((fails + 1))
import json, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
j = json.load(open(d + "/nohealth.json"))
skips = [v for v in j["verdicts"] if v["verdict"] == "SKIP"]
errors = []
if not skips or j["skipped"] != len(skips) or j["result"] != "PASS":
    errors.append("json: %d SKIP rows, skipped %s, result %s" % (len(skips), j.get("skipped"), j["result"]))
suite = ET.parse(d + "/nohealth.xml").getroot().find("testsuite")
sk = [c for c in suite.iter("testcase") if c.find("skipped") is not None]
if suite.get("skipped") != str(len(skips)) or len(sk) != len(skips):
    errors.append("junit: skipped=%s, %d <skipped> for %d SKIP rows" % (suite.get("skipped"), len(sk), len(skips)))
elif "cannot be checked" not in "".join(c.find("skipped").get("message") for c in sk):
    errors.append("junit: <skipped> without the reason")
prom = open(d + "/nohealth.prom").read()
if 'nvscale_checks{verdict="SKIP"} %d\n' % len(skips) not in prom or prom.count("} -1\n") != len(skips):
    errors.append("prometheus: not one -1 status per SKIP row, or no SKIP count")
if errors:
    print("FAIL: " + "\n      ".join(errors))
    sys.exit(1)
PY
# no NVML: nothing to judge but the run; the reason is printed under the table
LD_LIBRARY_PATH="$dir/empty" "$NVS" accept --backend mpi --level 1 --no-save -q >"$dir/nonvml.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "accept without NVML exited $rc"
# (the table lists the SKIP rows that blame no one under it, one group per reason, every check named)
grep -q "^SKIP (10): health ecc, health memory, health xid," "$dir/nonvml.txt" &&
    grep -q "^    skipped: unsupported: libnvidia-ml.so.1 not loaded" "$dir/nonvml.txt" ||
    { fail "accept without NVML does not say why health was skipped"; cat "$dir/nonvml.txt"; }
grep -q "^health ecc .*SKIP" "$dir/nonvml.txt" && fail "accept without NVML: a SKIP row in the table's columns"
# the built-in rules it left out are SKIP rows, counted as such: PASS overall, exit 0 (the JSON had the run result
# alone, nothing saying health was skipped)
grep -q "^result: PASS (12 checks; 11 skipped: not checked, see their notes)$" "$dir/nonvml.txt" ||
    { fail "accept without NVML: no 'result: PASS (12 checks; 11 skipped ...)' line"; grep '^result' "$dir/nonvml.txt"; }
acc nonvml "$dir/empty" 0 --level 1 &&
    verdict nonvml "health ecc" SKIP "skipped: unsupported: libnvidia-ml.so.1 not loaded"
# --no-save removes its run.json once judged: no output names it (the table's first line and the JSON's "run" named a
# /tmp path that was gone)
[ "$(head -n 1 "$dir/nonvml.txt")" = "nvscale accept: (--no-save: not kept)" ] ||
    fail "accept --no-save: first line names no kept run: $(head -n 1 "$dir/nonvml.txt")"
grep -q '"run": "(--no-save: not kept)"' "$dir/nonvml.json" ||
    fail "accept --no-save --format json: \"run\" is not the --no-save label: $(grep '"run":' "$dir/nonvml.json")"

# a rules file overrides the built-in rules
printf 'nvscale-rules 1\nhealth ecc severity=warn\nhealth xid\n' >"$dir/warn.rules"
FAKE_NVML_FAULT=ecc:1 acc override "$dir/lib" 0 --level 1 --rules "$dir/warn.rules" &&
    verdict override "ecc 0000:00:07.0" WARN "uncorrectable" &&
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if len(d['verdicts']) == 5 else 1)" \
        "$dir/override.json" || fail "the rules file did not replace the built-in rules"

# level 2: collectives and the training step run on the host backend; GPU copies are skipped with the reason
LD_LIBRARY_PATH="$dir/lib" "$NVS" accept --backend mpi --level 2 --no-save -q >"$dir/l2.txt" 2>"$dir/l2.err"
rc=$?
[ "$rc" -eq 0 ] || { fail "accept --level 2 exited $rc"; tail -5 "$dir/l2.err"; cat "$dir/l2.txt"; }
grep -q "skipped: p2p and host copies on host .*: no GPU: the host (MPI) backend runs" "$dir/l2.txt" ||
    fail "level 2 on the host backend does not say that copies were skipped"
# the per-GPU self-test's rules are skipped there (no GPU), SKIP rows, not "not measured" FAILs
grep "^gpu \(membw\|gemm\)" "$dir/l2.txt" | grep -qv " SKIP .*skipped: no GPU" &&
    { fail "level 2 on the host backend judges the GPU self-test"; cat "$dir/l2.txt"; }
grep -q "^ *\(SKIP ([0-9]*): \)\?.*gpu membw min_peer=90% min_bound=70%," "$dir/l2.txt" &&
    grep -A5 "gpu membw min_peer" "$dir/l2.txt" | grep -q "^    skipped: no GPU: the host backend ran$" ||
    { fail "level 2 on the host backend: no SKIP for gpu membw"; cat "$dir/l2.txt"; }
"$NVS" accept --level 2 --print-rules >"$dir/l2.rules"
grep -qx "gpu membw min_peer=90% min_bound=70%" "$dir/l2.rules" && grep -qx "gpu gemm min_peer=90% min_bound=60%" "$dir/l2.rules" ||
    fail "--print-rules lacks the level 2 GPU self-test rules"
# under mpirun: every rank measures, one verdict table (rank 0), the health of the host read once
if command -v mpirun >/dev/null 2>&1; then
    $MPIRUN -np 2 -x HWLOC_XMLFILE -x LD_LIBRARY_PATH="$dir/lib" -x FAKE_NVML_FAULT=xid:1 \
        "$NVS" accept --backend mpi --level 1 --no-save -q >"$dir/mpi.txt" 2>"$dir/mpi.err"
    rc=$?
    [ "$rc" -eq 3 ] || { fail "mpirun -np 2 accept --level 1 with an XID exited $rc, expected 3"; tail -5 "$dir/mpi.err"; }
    [ "$(grep -c '^result: ' "$dir/mpi.txt")" -eq 1 ] || { fail "not exactly one verdict table under mpirun"; cat "$dir/mpi.txt"; }
    [ "$(grep -c '^xid ' "$dir/mpi.txt")" -eq 2 ] || { fail "the host's GPUs counted twice under mpirun"; cat "$dir/mpi.txt"; }
    # a rules file that cannot be read: its message once, as every other input's (was: once per rank)
    $MPIRUN -np 3 "$NVS" accept --level 1 --rules "$dir/none.rules" --no-save >/dev/null 2>"$dir/mpi_rules.err"
    rc=$?
    [ "$rc" -eq 2 ] || { fail "mpirun -np 3 accept --rules MISSING exited $rc, expected 2"; tail -5 "$dir/mpi_rules.err"; }
    [ "$(grep -c "cannot open $dir/none.rules" "$dir/mpi_rules.err")" -eq 1 ] ||
        { fail "mpirun -np 3 accept --rules MISSING: not exactly one message"; cat "$dir/mpi_rules.err"; }
fi
# level 3: every collective, the sustained load (its drop is not judged on a shared CPU host: said, not failed)
LD_LIBRARY_PATH="$dir/lib" "$NVS" accept --backend mpi --level 3 --sustain 2 --out "$dir/l3" -q >"$dir/l3.txt" 2>"$dir/l3.err"
rc=$?
[ "$rc" -eq 0 ] || { fail "accept --level 3 exited $rc"; tail -5 "$dir/l3.err"; }
json_get "$dir/l3/run.json" "len(set(c['collective'] for c in d['collectives'])) == 7 and d['sustain']['measure'] == 'algbw' and len(d['sustain']['chunks']) >= 3" |
    grep -q True || fail "level 3 lacks a collective or the sustained load"
"$NVS" accept --level 3 --print-rules | grep -q "^sustain busbw max_drop=10%" ||
    fail "--print-rules lacks the level 3 rule"
# ... every one of them as a rule, none as "# skipped" (level 3's GEMM burn rule was, so a rules file begun from
# this output lost it)
"$NVS" accept --level 3 --print-rules | grep -q "^sustain gemm max_drop=10%" ||
    fail "--print-rules level 3: the GEMM burn rule is not a rule: $("$NVS" accept --level 3 --print-rules | grep gemm)"
# the run's sections that check judges from the document, hand-edited: bad input naming the field (exit 2), not a
# row "not measured" (exit 3, as before 3 December 2026); the file as written still judges (exit 0)
printf 'nvscale-rules 1\nhealth ecc\n' >"$dir/ecc.rules"
expect 0 "result: PASS" "$NVS" check "$dir/l3/run.json" --rules "$dir/ecc.rules"
# and says why it has no pair to name (was "the run has no p2p section" beside a p2p section that said why)
expect 0 "slowest pair: not measured \(skipped on host [^:]+: no GPU: the host \(MPI\) backend runs\)" \
    "$NVS" check "$dir/l3/run.json" --rules "$dir/ecc.rules"
# a rule over every pair too (was "the run measured no GPU pair", the reason only under pair=)
printf 'nvscale-rules 1\np2p uni min=1\n' >"$dir/p2p.rules"
expect 3 "not measured: the run measured no GPU pair: skipped on host [^:]+: no GPU: the host \(MPI\) backend runs" \
    "$NVS" check "$dir/l3/run.json" --rules "$dir/p2p.rules"
edit() { # edit NAME PYTHON: $dir/NAME.json = the level 3 run with d changed by PYTHON
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2; json.dump(d, open(sys.argv[2], 'w'))" \
        "$dir/l3/run.json" "$dir/$1.json" || fail "cannot write $1.json"
}
edit h_ecc "d['health']['gpus'][1]['after']['ecc']['uncorrected_volatile'] = 'many'"
expect 2 "h_ecc.json: health.gpus\[1\].after.ecc.uncorrected_volatile: expected an integer >= 0 or null, got \"many\"" \
    "$NVS" check "$dir/h_ecc.json" --rules "$dir/ecc.rules"
edit h_name "d['health']['gpus'][0]['name'] = 7"
expect 2 "h_name.json: health.gpus\[0\].name: expected a string or null, got 7" "$NVS" check "$dir/h_name.json" --rules "$dir/ecc.rules"
edit h_link "del d['health']['gpus'][0]['after']['nvlink'][0]['active']"
expect 2 "h_link.json: health.gpus\[0\].after.nvlink\[0\].active: expected true, false or null \(not read\)" \
    "$NVS" check "$dir/h_link.json" --rules "$dir/ecc.rules"
edit s_first "d['sustain']['busbw_first_gbps'] = 'fast'"
expect 2 "s_first.json: sustain.busbw_first_gbps: expected a number" "$NVS" check "$dir/s_first.json" --rules "$dir/ecc.rules"
edit s_measure "d['sustain']['measure'] = 'latency'"
expect 2 "s_measure.json: sustain.measure: expected \"busbw\" or \"algbw\", got \"latency\"" "$NVS" check "$dir/s_measure.json" --rules "$dir/ecc.rules"
edit p_skip "d['p2p']['skipped'][0]['why'] = 5"
expect 2 "p_skip.json: p2p.skipped\[0\].why: expected a string" "$NVS" check "$dir/p_skip.json" --rules "$dir/ecc.rules"
edit p_hc "d['p2p']['host_copies'] = {'gpus': [{'gpu': 0, 'single': {'h2d_gbps': -3}}]}"
expect 2 "p_hc.json: p2p.host_copies.gpus\[0\].single.h2d_gbps: expected a number from 0" "$NVS" check "$dir/p_hc.json" --rules "$dir/ecc.rules"

# no GPU usable and no --backend asked for: the host backend measures, and acceptance FAILs on "gpus on HOST" with
# CUDA's reason (was PASS, exit 0: a GPU node whose driver CUDA cannot use was accepted, every GPU rule left out)
acc_auto() { # acc without --backend mpi
    name=$1 want=$2
    shift 2
    LD_LIBRARY_PATH="$dir/lib" "$NVS" accept --no-save -q --format json "$@" >"$dir/$name.json" 2>"$dir/$name.err"
    rc=$?
    [ "$rc" -eq "$want" ] || { fail "accept $name exited $rc, expected $want"; tail -5 "$dir/$name.err"; return 1; }
}
acc_auto nogpu 3 --level 1 && verdict nogpu "gpus on " FAIL "no GPU found (" && verdict nogpu "gpus on " FAIL "NVML lists 2"
acc_auto nogpu_l2 3 --level 2 && verdict nogpu_l2 "gpus on " FAIL "--backend mpi accepts a host without GPUs"
# --expect-gpus N: the rule's count, in the built-in rules and beside a rules file
acc_auto expect_rules 3 --level 1 --rules "$dir/ecc.rules" --expect-gpus 2 &&
    verdict expect_rules "gpus on " FAIL "NVML lists 2" && verdict expect_rules "ecc 0000:00:06.0" PASS
expect 0 "^gpus per_host min=8$" "$NVS" accept --print-rules --expect-gpus 8
expect 0 "^gpus per_host min=1$" "$NVS" accept --print-rules --level 1
printf 'nvscale-rules 1\ngpus per_host min=1\n' >"$dir/gpus.rules"
expect 2 "--expect-gpus 2 and .*gpus.rules:2 \('gpus per_host min=1'\) set the same check" \
    "$NVS" accept --rules "$dir/gpus.rules" --expect-gpus 2
expect 2 "--expect-gpus 2 with --backend mpi: the host backend runs on no GPU" "$NVS" accept --expect-gpus 2 --backend mpi
expect 2 "invalid value '0' for --expect-gpus" "$NVS" accept --expect-gpus 0
expect 2 "invalid value '2x' for --expect-gpus" "$NVS" accept --expect-gpus 2x

# bad input: exit 2, nothing measured
expect 2 "invalid value '$dir/nosys' for environment variable NVS_TEST_SYSFS_ROOT: expected a directory" \
    env NVS_TEST_SYSFS_ROOT="$dir/nosys" "$NVS" accept --level 1 --no-save
expect 2 "invalid value '4' for --level" "$NVS" accept --level 4
expect 2 "cannot write in directory '$dir/nowhere'" "$NVS" accept --junit "$dir/nowhere/x.xml"
# found before measuring, not after (were exit 1 once the run was done): a directory, a parent that is a file,
# one file for two outputs; and --timeout in the measuring commands' range
expect 2 "--junit $dir: is a directory, not a file" "$NVS" accept --level 1 --junit "$dir" --no-save
: >"$dir/afile"
expect 2 "'$dir/afile' is not a directory" "$NVS" accept --prometheus "$dir/afile/x.prom"
expect 2 "the same file as another output" "$NVS" accept --junit "$dir/o.xml" --prometheus "$dir/o.xml"
expect 2 "--junit $dir/./o.xml: the same file as another output \(--prometheus $dir/o.xml\)" \
    "$NVS" accept --level 1 --prometheus "$dir/o.xml" --junit "$dir/./o.xml" --no-save
# an output over an input (was: the rules file replaced by the verdicts, exit 0)
cp tests/fixtures/rules/h200x2.rules "$dir/in.rules"
expect 2 "--junit $dir/in.rules: that is an input file \(--rules $dir/in.rules\)" \
    "$NVS" accept --level 1 --rules "$dir/in.rules" --junit "$dir/in.rules" --no-save
cmp -s tests/fixtures/rules/h200x2.rules "$dir/in.rules" || fail "accept replaced its rules file with an output"
expect 2 "--prometheus given twice" "$NVS" accept --prometheus "$dir/o1" --prometheus "$dir/o2"
# a below_baseline rule: accept takes no baseline (was: the whole level measured, then a FAIL "below_baseline
# needs a baseline (--baseline FILE)", a flag accept does not have, exit 3)
printf 'nvscale-rules 1\np2p uni min=1\nbusbw * n=* below_baseline<=5%%\n' >"$dir/below.rules"
expect_err 2 "$dir/below.rules:3: below_baseline needs a baseline, which accept does not take" \
    "$NVS" accept --backend mpi --level 1 --out "$dir/below_run" --rules "$dir/below.rules"
[ -e "$dir/below_run" ] && fail "accept measured although its rules file was refused"
# every other flag given twice: the first value was lost (accept --level 1 --level 2 ran level 2, exit 0)
for f in "--level 1" "--out $dir/o1" "--format json" "--backend mpi" "--timeout 9" "--sustain 9" "--expect-gpus 2" "-q"; do
    # shellcheck disable=SC2086 # f is a flag and its value
    expect 2 "option ${f%% *} given twice" "$NVS" accept --level 3 $f $f
done
[ -e "$dir/o1" ] && fail "a refused accept left $dir/o1"
# --print-rules prints the level's built-in rules: any other flag was ignored (exit 0)
for f in "--rules tests/fixtures/rules/h200x2.rules" "--format json" "--out $dir/o1" "--junit $dir/o1" "--no-save"; do
    # shellcheck disable=SC2086
    expect_err 2 "--print-rules with ${f%% *}: it takes only --level" "$NVS" accept --print-rules $f
done
expect 0 "^nvscale-rules 1" "$NVS" accept --print-rules --level 3
# a short option inside a cluster is named alone (was 'accept', or the whole cluster)
expect 2 "unknown option '-Z'" "$NVS" accept -Zq
expect 2 "unknown option '-Z'" "$NVS" accept --level 1 -qZ
# a directory where nothing can be made (root passes access() on /proc): refused before the run (was exit 1
# after it, with the other outputs written)
expect 2 "--junit /proc/nvscale-x.xml: cannot write in directory '/proc'" "$NVS" accept --level 1 --no-save \
    --prometheus "$dir/p0.prom" --junit /proc/nvscale-x.xml
[ -e "$dir/p0.prom" ] && fail "accept wrote --prometheus although --junit was refused"
# --out DIR/ is DIR (was refused as existing, an empty DIR left); DIR/. is refused, nothing left
expect 0 "" "$NVS" accept --backend mpi --level 1 --out "$dir/slash/"
[ -s "$dir/slash/run.json" ] || fail "accept --out DIR/: no DIR/run.json"
expect 2 "--out $dir/dot/new/.: ends in '.'" "$NVS" accept --level 1 --out "$dir/dot/new/."
[ -e "$dir/dot" ] && fail "accept --out NEW/.: left $dir/dot"
expect 2 "invalid value '0.01' for --timeout" "$NVS" accept --timeout 0.01 --no-save
expect 2 "--sustain is for --level 3" "$NVS" accept --sustain 10
# the host backend's own default of --sustain (10 s, not the GPUs' 120: a level 3 without --sustain ran 10 s on a
# CPU box while --help and docs/accept.md said 120) is in the help
expect 0 "default 120\) with clocks" "$NVS" accept --help
expect 0 "--sustain default 10$" "$NVS" accept --help
# a run of PASS, WARN and SKIP rows exits 0 (the help said "every check PASS or WARN")
expect 0 "^Exit 0: every check PASS, WARN or SKIP" "$NVS" accept --help
printf 'nvscale-rules 1\nhealth eccs\n' >"$dir/bad.rules"
expect 2 "bad.rules:2: health: unknown check 'eccs'" "$NVS" accept --rules "$dir/bad.rules"
expect 2 "unexpected argument 'run.json'" "$NVS" accept run.json
expect 2 "--rules needs a file name, got ''" "$NVS" accept --rules ''

# --no-save stopped before the run wrote anything (--backend nccl, no GPU here): the temporary directory is
# removed, no run.json named (was: "what was measured is kept in /tmp/nvscale-accept-X/run/run.json", a file
# that was never written, and the empty directory left in /tmp)
expect_err 1 "--backend nccl needs a GPU" "$NVS" accept --level 1 --no-save --backend nccl
grep -q "is kept in" "$ERR" && fail "accept --no-save --backend nccl: names a run.json it did not write"
grep -q "on the host backend" "$ERR" && fail "accept --backend nccl: announces the host backend it will not run on"
tdir=$(sed -n 's|.*results in \(/tmp/nvscale-accept-[^ ]*\)/run (--no-save.*|\1|p' "$ERR")
[ -n "$tdir" ] || fail "accept --no-save --backend nccl: does not name its directory"
[ -n "$tdir" ] && [ -e "$tdir" ] && fail "accept --no-save --backend nccl: left $tdir" && rm -rf "$tdir"

# --no-save measures into a temporary directory that it names: removed once judged; kept, and named again, when
# the run stops before a verdict (Ctrl-C: what was measured is not lost with the directory)
"$NVS" accept --backend mpi --level 1 --no-save >"$dir/ns.out" 2>"$dir/ns.err" || fail "accept --no-save: $(tail -3 "$dir/ns.err")"
tdir=$(sed -n 's|.*results in \(/tmp/nvscale-accept-[^ ]*\)/run (--no-save: removed once judged)$|\1|p' "$dir/ns.err")
[ -n "$tdir" ] || fail "--no-save does not name its directory: $(head -2 "$dir/ns.err")"
[ -n "$tdir" ] && [ -e "$tdir" ] && fail "--no-save left $tdir"
# an earlier run's exports are there: an interrupted accept replaces them with its own FAIL (a textfile
# collector went on reporting the old PASS)
echo 'nvscale_check_status{check="old"} 0' >"$dir/nsi.prom"
echo '<testsuites name="old"/>' >"$dir/nsi.xml"
as_fg "$NVS" accept --level 2 --no-save --junit "$dir/nsi.xml" --prometheus "$dir/nsi.prom" >"$dir/nsi.out" 2>"$dir/nsi.err" &
pid=$!
i=0
tdir=""
while [ $i -lt 300 ] && [ -z "$tdir" ]; do # until the directory's first checkpoint
    t=$(sed -n 's|.*results in \(/tmp/nvscale-accept-[^ ]*\)/run (--no-save.*|\1|p' "$dir/nsi.err")
    [ -n "$t" ] && { [ -s "$t/run.partial/run.json" ] || [ -s "$t/run/run.json" ]; } && tdir=$t
    sleep 0.1
    i=$((i + 1))
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -ne 0 ] || fail "accept interrupted: exit 0"
if [ $rc -eq 130 ]; then
    grep -q 'check="old"' "$dir/nsi.prom" && fail "accept interrupted: the earlier run's --prometheus file was left"
    grep -q '^nvscale_check_status{check="run result",kind="run".*} 2$' "$dir/nsi.prom" ||
        fail "accept interrupted: --prometheus lacks the failed run result: $(cat "$dir/nsi.prom")"
    grep -q '<failure message="measured interrupted, expected ok' "$dir/nsi.xml" ||
        fail "accept interrupted: --junit lacks the failed run result: $(cat "$dir/nsi.xml")"
fi
if [ -z "$tdir" ]; then
    fail "accept --no-save: no checkpoint within 30 s: $(tail -3 "$dir/nsi.err")"
elif [ -s "$tdir/run/run.json" ] || [ -s "$tdir/run.partial/run.json" ]; then
    rm -rf "$tdir"
else
    fail "accept --no-save interrupted: nothing kept in $tdir"
fi
finish
