#!/bin/sh
# tools/lambda_iters.py (issue 10: the per-iteration figures of Lambda's Mask R-CNN logs quoted in docs/model.md):
# from made-up maskrcnn_benchmark lines it prints the medians of the windows after the first, the last running mean
# of the data wait and the total s/it; a log without such lines exits 1 with nothing printed; no log exits 2.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_cmd python3 "tools/lambda_iters.py is Python"
tmp_dir d
{
    echo "DLL - Training Iteration: 20  loss : 1.0  time : 9.0000 (9.5000)  data : 0.9000 (0.9500)"
    echo "DLL - Training Iteration: 40  loss : 1.0  time : 2.0000 (5.5000)  data : 0.1000 (0.5000)"
    echo "DLL - Training Iteration: 60  loss : 1.0  time : 2.2000 (4.4000)  data : 0.3000 (0.4000)"
    echo "DLL - Training Iteration: 80  loss : 1.0  time : 2.4000 (3.9000)  data : 0.2000 (0.3500)"
    echo "2021-01-01 maskrcnn_benchmark.trainer INFO: Total training time: 0:05:12.0 (3.9000 s / it)"
} >"$d/run.txt"
expect 0 "\| $d/run.txt \| 4 \| 2.200 \| 3.9000 \| 0.2000 \| 0.3500 \|" python3 tools/lambda_iters.py "$d/run.txt"
echo "no windows here" >"$d/bad.txt"
expect 1 "bad.txt: no \"time : ... data : ...\" windows" python3 tools/lambda_iters.py "$d/run.txt" "$d/bad.txt"
python3 tools/lambda_iters.py "$d/run.txt" "$d/bad.txt" 2>/dev/null | grep -q . && fail "a refused run printed a table"
expect 1 "nope.txt: No such file" python3 tools/lambda_iters.py "$d/nope.txt"
expect 2 "required: LOG" python3 tools/lambda_iters.py
finish
