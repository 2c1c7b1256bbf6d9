# Shared by the evidence scripts (sourced). Every measurement is recorded in $R/COMMANDS.md with the exact
# command, when it ran, its exit status and where its output went.
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
MPIRUN="mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE -x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE"
step() { echo "== $(date +%T) $*"; }

build() {
    local jh=""
    pkg-config --exists jansson || jh="JANSSON_HOME=.deps/jansson"
    if [ ! -x ./nvscale ] || [ -n "$(find src topo collectives -newer ./nvscale -name '*.[ch]' 2>/dev/null | head -1)" ]; then
        make -j16 $jh >"$1/build.log" 2>&1 || { tail -40 "$1/build.log"; exit 1; }
    fi
}

# The folder of the cuDNN that PyTorch's environment carries (its pip wheel's site-packages/nvidia/cudnn/lib), for
# LD_LIBRARY_PATH; empty when there is none
pytorch_cudnn_lib() { ls -d /opt/*/.venv/lib/python3*/site-packages/nvidia/cudnn/lib 2>/dev/null | head -1; }

# nvcc targets of the GPU machine's H200 only (sm_90): a fast build
SM90_GENCODE="-gencode=arch=compute_90,code=sm_90"

# gpu_build DIR [TARGET...]: nvscale and the test binaries for the H200 (sm_90 only: a fast build), or only the
# TARGETs given; log in DIR/build.log
gpu_build() {
    local d=$1 jh
    shift
    jh=$(pkg-config --exists jansson || echo JANSSON_HOME=.deps/jansson)
    if [ $# -gt 0 ]; then
        make -j32 "$@" NVCC_GENCODE="$SM90_GENCODE" $jh >"$d/build.log" 2>&1 ||
            { tail -30 "$d/build.log"; exit 1; }
        return
    fi
    make -j32 NVCC_GENCODE="$SM90_GENCODE" $jh >"$d/build.log" 2>&1 &&
        make -j32 test-bins NVCC_GENCODE="$SM90_GENCODE" $jh >>"$d/build.log" 2>&1 ||
        { tail -30 "$d/build.log"; exit 1; }
}

# nccl_tests_build DIR: nccl-tests from .ref/nccl-tests (a git archive of NVIDIA/nccl-tests, carried; git-ignored),
# without MPI, for the H200 only; its binaries in $NT_BIN, its log in DIR/nccl-tests-build.log, its version in
# DIR/MACHINE.md
nccl_tests_build() {
    local d=$1 ch
    ch=$(dirname "$(dirname "$(command -v nvcc)")")
    step "nccl-tests build"
    make -C .ref/nccl-tests -j16 CUDA_HOME="$ch" NVCC_GENCODE="$SM90_GENCODE" >"$d/nccl-tests-build.log" 2>&1 ||
        { tail -20 "$d/nccl-tests-build.log"; exit 1; }
    NT_BIN=.ref/nccl-tests/build
    echo "nccl-tests: $(grep -ho 'NCCL_TESTS_VERSION.*' .ref/nccl-tests/src/*.h 2>/dev/null | head -1) (.ref/nccl-tests, built here)" >>"$d/MACHINE.md"
}

# machine and versions, once per results directory
describe() {
    local d=$1
    {
        echo "# Machine and software"
        echo
        echo '```'
        date -u
        uname -a
        nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.max.sm --format=csv
        echo
        ./nvscale version
        python3 -c "import torch, torchvision; print('torch', torch.__version__, 'torchvision', torchvision.__version__, 'cuDNN', torch.backends.cudnn.version(), 'NCCL (torch)', torch.cuda.nccl.version())" 2>&1
        echo "CPU cores: $(nproc)"
        echo '```'
        echo "commit: $(cat .nvs-rev 2>/dev/null || echo unknown)"
    } >"$d/MACHINE.md" 2>&1
}

# The suite's GPU tests (tests/run.sh gpu) and the training fault tests, recorded in $R
gpu_suite() {
    step "GPU tests"
    rec gpu-tests timeout 240 tests/run.sh gpu
    rec faults-train timeout 100 tests/run.sh faults_train
}

# rec NAME COMMAND...: run it, output to $R/NAME.txt, record the command line and the status
rec() {
    local name=$1
    shift
    local t0 rc
    t0=$(date -u +%FT%TZ)
    "$@" >"$R/$name.txt" 2>&1
    rc=$?
    printf '| %s | `%s` | %s | %s | `%s.txt` |\n' "$name" "$(env | grep -E '^NCCL_(P2P|SHM)_DISABLE=' | tr '\n' ' ')$*" "$t0" "$rc" "$name" >>"$R/COMMANDS.md"
    echo "$name: exit $rc"
    return $rc
}

commands_header() {
    [ -f "$R/COMMANDS.md" ] && return
    printf '# Commands\n\nRun on the GPU machine from the repository root (see MACHINE.md), in this order.\n\n| name | command (with NCCL_*_DISABLE when set) | started (UTC) | exit | output |\n|---|---|---|---|---|\n' >"$R/COMMANDS.md"
}

# wait_train_point RUNJSON TRIES: poll (every 0.1 s, TRIES times) until that checkpoint holds a training point
wait_train_point() {
    local i
    for i in $(seq 1 "$2"); do
        [ -s "$1" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if (d.get('trains') or [{}])[0].get('results') else 1)" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# hit_job HOW PID PATTERN LOG: HOW = int (SIGINT to the launcher PID) or kill9 (kill -9 of the rank-1 process
# whose command line matches PATTERN, said in LOG)
hit_job() {
    local q
    if [ "$1" = int ]; then
        kill -INT "$2"
    else
        for q in $(pgrep -f "$3"); do
            tr '\0' '\n' <"/proc/$q/environ" | grep -qx OMPI_COMM_WORLD_RANK=1 && kill -9 "$q" && echo "killed rank 1 (pid $q)" >>"$4"
        done
    fi
}

# Nsight Compute without its default --clock-control base, which locks the SM clock while it profiles: clocks
# are never changed on the GPU machine (developers' brief). Use "$NCU ..." rather than plain ncu.
NCU="ncu --clock-control none"
