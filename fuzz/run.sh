#!/bin/sh
# make fuzz FUZZ_S=N: run every harness of build/fuzz/ for N seconds, one after the other (the machines this runs
# on are shared: one core each time), and print the executions of each. Corpora: build/fuzz/corpus/<name>/
# (what libFuzzer finds, kept between runs, not committed), fuzz/corpus/<name>/ (committed: crash regressions
# and hand-made seeds), and the test fixtures of that format. A crash, leak, timeout (> 10 s for one input) or
# out-of-memory (> 2 GB) stops that harness and leaves build/fuzz/crash-<name>-* to add to fuzz/corpus/<name>/
# (tests/unit/test_fuzz_corpus.c replays it in make check). Exit: 0, or 1 if any harness found something.
#   FUZZ_ONLY=name   run only that harness
cd "$(dirname "$0")/.." || exit 1
s=${1:-60}
seeds() { sed -n "s/^$1 //p" fuzz/seeds.txt; }
# leaks inside the libraries (hwloc's XML import keeps objects of a malformed file: not nvscale's to free) are
# suppressed as in make check SAN=... (tests/lsan.supp); nvscale's own are not
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
status=0
for bin in build/fuzz/fuzz_*; do
    [ -x "$bin" ] || continue
    name=${bin##*/fuzz_}
    [ -n "${FUZZ_ONLY:-}" ] && [ "$FUZZ_ONLY" != "$name" ] && continue
    mkdir -p "build/fuzz/corpus/$name" "fuzz/corpus/$name"
    dict=""
    [ -f "fuzz/dict/$name.dict" ] && dict="-dict=fuzz/dict/$name.dict"
    log=build/fuzz/$name.log
    # -close_fd_mask=1: the printers' output (stdout) is not wanted; stderr keeps the parsers' messages and
    # any sanitizer report, in the log
    "$bin" -max_total_time="$s" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -close_fd_mask=1 -print_final_stats=1 \
        -artifact_prefix="build/fuzz/crash-$name-" $dict "build/fuzz/corpus/$name" "fuzz/corpus/$name" \
        $(seeds "$name") >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        printf '%-10s %12s executions in %s s (%s)\n' "$name" "${execs:-?}" "$s" "${cov:-cov: ?}"
    else
        status=1
        printf '%-10s FOUND SOMETHING (exit %d) after %s executions: %s\n' "$name" "$rc" "${execs:-?}" \
            "$(ls build/fuzz/crash-$name-* 2>/dev/null | head -n 1)"
        grep -m 3 -E 'ERROR|runtime error|SUMMARY' "$log" | sed 's/^/    /'
    fi
done
exit $status
