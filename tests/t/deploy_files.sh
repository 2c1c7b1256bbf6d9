#!/bin/sh
# The launch recipes under deploy/, checked as far as can be done offline (nothing is built, submitted or
# applied here): the Dockerfile starts FROM a CUDA devel image (the ones with NCCL's headers), every `make`
# target it runs exists in the Makefile, and it installs where the manifest calls nvscale; the Kubernetes
# manifest parses as YAML (PyYAML) and is an MPIJob whose slots, GPUs, --map-by and -np agree; the sbatch
# script is valid shell whose tasks per node equal its GPUs per node. Without PyYAML the manifest part is skipped
# (exit 77, said on the last line); the rest still has to pass first.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
df=deploy/Dockerfile yml=deploy/kubernetes/mpijob.yaml sb=deploy/slurm/nvscale.sbatch
for f in $df $yml $sb; do [ -s "$f" ] || stop "$f missing"; done

# Dockerfile: the base image is a CUDA devel image (default of ARG CUDA_IMAGE, used by FROM)
base=$(sed -n 's/^ARG CUDA_IMAGE=//p' $df)
grep -q "^FROM \${CUDA_IMAGE}$" $df || fail "$df: FROM is not \${CUDA_IMAGE}"
case "$base" in nvidia/cuda:*-devel-*) ;; *) fail "$df: base '$base' is not an nvidia/cuda devel image" ;; esac
# every `make TARGET` of a RUN line is a Makefile target; `make -jN` alone builds the default target
targets=$(grep -v '^#' $df | grep -v apt-get | grep -o 'make [a-z][a-z-]*' | sed 's/^make //' | sort -u)
[ -n "$targets" ] || fail "$df runs no make target"
for t in $targets; do
    grep -q "^$t:" Makefile || fail "$df runs 'make $t', which the Makefile does not have"
done
grep -Eq 'make -j"?\$\(nproc\)"? ' $df || fail "$df does not build with make -j"
prefix=$(sed -n 's/.*make install PREFIX=\([^ ]*\).*/\1/p' $df)
[ -n "$prefix" ] || fail "$df has no make install PREFIX=..."
# the dependencies the image gets are CI's (tools/install-deps.sh through make deps), not a second list
grep -q 'make deps' $df || fail "$df does not use make deps"

# sbatch: shell syntax; one task per GPU
bash -n $sb || fail "$sb is not valid bash"
tpn=$(sed -n 's/^#SBATCH --ntasks-per-node=\([0-9]*\).*/\1/p' $sb)
gpn=$(sed -n 's/^#SBATCH --gpus-per-node=\([0-9]*\).*/\1/p' $sb)
[ -n "$tpn" ] && [ "$tpn" = "$gpn" ] || fail "$sb: --ntasks-per-node=$tpn, --gpus-per-node=$gpn"
grep -q 'srun --mpi=pmix' $sb || fail "$sb does not start ranks with srun --mpi=pmix"
# srun >= 22.05 does not inherit sbatch's --cpus-per-task: without it on the srun line each rank gets one CPU
if grep -q '^#SBATCH --cpus-per-task=' $sb; then
    grep -q 'srun .*--cpus-per-task=' $sb || fail "$sb: #SBATCH --cpus-per-task, but srun is not given it (Slurm >= 22.05)"
fi

[ "$fails" -eq 0 ] || finish
command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
    skip "Dockerfile and sbatch checked; PyYAML not installed: $yml not parsed"
python3 - "$yml" "$prefix/bin/nvscale" <<'PY' || fail "the MPIJob manifest"
import sys, yaml
path, binary = sys.argv[1], sys.argv[2]
d = yaml.safe_load(open(path))
errors = []
def want(cond, what):
    if not cond: errors.append(what)
want(d.get("apiVersion") == "kubeflow.org/v2beta1" and d.get("kind") == "MPIJob", "not a kubeflow.org/v2beta1 MPIJob")
spec = d["spec"]
slots = spec["slotsPerWorker"]
rs = spec["mpiReplicaSpecs"]
want(rs["Launcher"]["replicas"] == 1, "one launcher")
workers = rs["Worker"]["replicas"]
launcher = rs["Launcher"]["template"]["spec"]["containers"][0]
worker = rs["Worker"]["template"]["spec"]["containers"][0]
want(launcher["image"] == worker["image"], "launcher and workers run different images")
cmd = launcher["command"] + launcher["args"]
want(cmd[0] == "mpirun", "the launcher does not run mpirun")
np = int(cmd[cmd.index("-np") + 1]) if "-np" in cmd else None
want(np == slots * workers, "-np %s != slotsPerWorker %d x %d workers" % (np, slots, workers))
want("ppr:%d:node" % slots in cmd, "--map-by ppr:%d:node missing" % slots)
want(worker["resources"]["limits"].get("nvidia.com/gpu") == slots, "GPUs per worker != slotsPerWorker")
want(binary in cmd, "the launcher does not call %s (where the Dockerfile installs nvscale)" % binary)
i = cmd.index(binary) if binary in cmd else -1
want(i >= 0 and cmd[i + 1] in ("run", "coll", "train", "topo", "p2p"), "nvscale is given no measuring subcommand")
mounts = {m["mountPath"] for m in worker.get("volumeMounts", [])}
want("/dev/shm" in mounts, "workers have no /dev/shm volume (NCCL's SHM transport needs more than 64 MiB)")
if "--out" in cmd:
    out = cmd[cmd.index("--out") + 1]
    want(any(out.startswith(m + "/") for m in mounts), "--out %s is not on a volume of the workers" % out)
for e in errors:
    print("FAIL: %s: %s" % (path, e))
sys.exit(1 if errors else 0)
PY
echo "Dockerfile, sbatch and MPIJob consistent"
finish
