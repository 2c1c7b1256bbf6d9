#!/bin/sh
# tools/device/hostnoise_report.py recomputes, from the committed records of results/h200x1-hostnoise2, -3 and -4,
# the figures docs/fidelity.md quotes ("What moves it"): the in-step GPU samples, the host's issue margin and CPU
# share, the probe correlations. A record that is not one is refused with exit 1.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_cmd python3 "the report is Python"
tmp_dir d
R=tools/device/hostnoise_report.py
expect 0 "inside timed steps: 220; \(SM clock, event reasons\): \{\('1980 MHz', '0x0000000000000000'\): 220\}" \
    python3 $R
expect 0 "at most 1.84 ms before the step's end; main thread on the CPU 33-58 % \(median 43 %\)" python3 $R
expect 0 "pt-0.jsonl lm290m nodp_1: step median 49.7 ms, correlation with the probe 0.82" python3 $R
expect 0 "pooled lm290m ddp1: correlation 0.43" python3 $R
echo '{"model": "lm290m"}' >"$d/pt-0.jsonl"
expect 1 "malformed or missing record" python3 $R --probe "$d"
expect 1 "no pt-\*.jsonl" python3 $R --detail "$d/none"
finish
