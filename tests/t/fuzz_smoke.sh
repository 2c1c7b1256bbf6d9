#!/bin/sh
# Every libFuzzer harness of fuzz/ (profiles, rules, presets, run.json, hwloc XML, topology JSON, NCCL log, command
# line) built with clang and run a few seconds (FUZZ_SMOKE_S, default 3) on its corpus and seeds: nothing crashes,
# leaks, hangs or trips ASan/UBSan (fuzz/README.md). The long runs are `make fuzz FUZZ_S=N`; the inputs found so far
# are replayed by every make check in tests/unit/test_fuzz_corpus.c. Skipped under make check SAN=... (the plain
# make check runs it: the fuzz build is sanitized already) and where clang has no libFuzzer.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
[ -n "${ASAN_OPTIONS:-}" ] && skip "make check SAN=...: the fuzz harnesses run in the plain make check"
need_cmd clang "the fuzz harnesses are built with clang's libFuzzer (tools/install-deps.sh installs it)"
tmp_dir d
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$d/t.c"
clang -fsanitize=fuzzer "$d/t.c" -o "$d/t" 2>"$d/err" ||
    skip "clang cannot link libFuzzer here ($(head -n 1 "$d/err")): install libclang-rt-dev (tools/install-deps.sh)"
make -s -j2 fuzz-bins >"$d/build" 2>&1 || stop "make fuzz-bins failed: $(tail -n 5 "$d/build")"
out=$(fuzz/run.sh "${FUZZ_SMOKE_S:-3}" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || fail "a fuzz harness found something (inputs in build/fuzz/crash-*: add them to fuzz/corpus/)"
n=$(printf '%s\n' "$out" | grep -c 'executions in')
want=$(ls fuzz/fuzz_*.c | wc -l)
[ "$want" -ge 8 ] || fail "only $want harnesses in fuzz/ (8 when this was written)"
[ "$n" -eq "$want" ] || fail "$n harnesses ran, expected $want (one per fuzz/fuzz_*.c)"
finish
