#!/bin/bash
# Why a GPU rank takes seconds to stop after a signal (results/h200x1-final4: mpirun's SIGKILL came first even at
# N=1): Ctrl-C to a one-process training step (no launcher, nothing kills it), the stacks of its threads 0.5 and
# 1.5 s after the signal, and the time to exit. Then the GPU tests of the collectives.
# Usage: tools/device/diag-stop.sh DIR
. "$(dirname "$0")/lib.sh"
R=$1
O=${OUT:-/tmp}
mkdir -p "$R"
trap 'tar czf "$O/diag-stop.tar.gz" "$R"' EXIT
gpu_build "$R"
describe "$R"
commands_header
stacks() { # stacks PID LABEL
    echo "--- $2"
    if command -v gdb >/dev/null; then
        timeout 20 gdb -p "$1" -batch -ex "thread apply all bt 25" 2>/dev/null | grep -E '^(Thread|#)' | head -150
    else
        for t in /proc/$1/task/*; do echo "task ${t##*/} $(cat $t/comm) wchan=$(cat $t/wchan 2>/dev/null) syscall=$(cut -d' ' -f1 $t/syscall 2>/dev/null)"; cat $t/stack 2>/dev/null | head -8; done
    fi
}
for phase in "step" "all-reduces"; do
    name=int-${phase%%-*}
    tools/as-fg ./nvscale train --model resnet50 --steps 400 --warmup-steps 2 -v --out "$R/$name" >"$R/$name.txt" 2>&1 &
    p=$!
    # until that phase of the N=1 step runs
    for i in $(seq 1 600); do grep -q "N=1: $phase 1/400" "$R/$name.txt" && break; sleep 0.1; done
    sleep 2
    t0=$(date +%s.%N)
    kill -INT $p
    sleep 0.5
    stacks $p "0.5 s after SIGINT" >"$R/$name.stacks" 2>&1
    sleep 1
    kill -0 $p 2>/dev/null && stacks $p "1.5 s after SIGINT (+ gdb time)" >>"$R/$name.stacks" 2>&1
    for i in $(seq 1 300); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
    kill -0 $p 2>/dev/null && { echo "still running 30 s after SIGINT: killed" >>"$R/$name.txt"; kill -9 $p; }
    wait $p
    echo "exit $? after $(python3 -c "import time,sys; print(round(time.time()-float(sys.argv[1]),1))" $t0) s" >>"$R/$name.txt"
    printf '| %s | `./nvscale train --model resnet50 --steps 400 --warmup-steps 2 -v --out %s` (SIGINT 2 s into "%s") | %s | see %s.txt | `%s.txt`, `%s.stacks` |\n' "$name" "$R/$name" "$phase" "$(date -u +%FT%TZ)" "$name" "$name" "$name" >>"$R/COMMANDS.md"
    tail -4 "$R/$name.txt"
done
rec gpu-coll-test timeout 90 tests/run.sh gpu_coll
step done
