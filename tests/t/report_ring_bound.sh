#!/bin/sh
# The report's "% of bound" was of the ring in rank order (0-1-2-3), the run's Why of the best ring over the same
# GPUs (run/out_explain.c), which is the ring NCCL builds: on four GPUs whose NVLinks make 0-1-3-2 (NV4 at 100
# GB/s) where 0-1-2-3 crosses SYS twice (10 GB/s), the table said 800.0 under a Why of "80 % of the 100 GB/s
# bound". Both come from nvs_explain_facts_from_run now: the run's own explain entry where it has one, else the
# best ring over the file's pairs (core/ring.h, the search topo uses).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir dir

doc() { # $1: the explain section, or nothing
    cat <<JSON
{"schema": "nvscale.run/1", "host": "box", "world": {"size": 4, "nodes": 1},
 "topology": {"gpus": [{"index": 0}, {"index": 1}, {"index": 2}, {"index": 3}],
   "pairs": [{"a": 0, "b": 1, "class": "NV4", "bound_gbps": 100.0}, {"a": 0, "b": 2, "class": "NV4", "bound_gbps": 100.0},
             {"a": 0, "b": 3, "class": "SYS", "bound_gbps": 10.0}, {"a": 1, "b": 2, "class": "SYS", "bound_gbps": 10.0},
             {"a": 1, "b": 3, "class": "NV4", "bound_gbps": 100.0}, {"a": 2, "b": 3, "class": "NV4", "bound_gbps": 100.0}]},
 "scaling": [{"n": 4, "ranks": [0, 1, 2, 3], "gpus": [0, 1, 2, 3]}],
 "collectives": [{"collective": "all_reduce", "n": 4, "size": 1048576, "bytes": 1048576, "busbw_gbps": 80.0}]$1}
JSON
}

# no explain section (a checkpoint, a file by hand): the report finds the best ring itself
doc "" >"$dir/a.json"
expect_err 0 "" "$NVS" report --no-plots -o "$dir/a" "$dir/a.json" || fail "report of a run without explain"
grep -q '^| 1 MiB | .* | 80.00 | 80.0 | not checked |$' "$dir/a/report.md" || fail "% of bound is not of the best ring's 100 GB/s"
grep -q '80 % of the 100 GB/s bound' "$dir/a/report.md" || fail "the Why does not quote the best ring's bound"
grep -q '800.0' "$dir/a/report.md" && fail "% of bound of the ring in rank order (SYS, 10 GB/s)"

# the run's own explain entry (its live topology, the transport NCCL used): the table is of the bound it quotes
doc ', "explain": [{"n": 4, "slowest_hop": {"from_gpu": 3, "to_gpu": 2, "class": "NV4", "bound_gbps": 160.0},
   "text": "At 4 GPUs the ring runs over NVLink (NV4): all_reduce busbw is 80 GB/s at 1 MiB, 50 % of the 160 GB/s bound of that hop."}]' \
    >"$dir/b.json"
expect_err 0 "" "$NVS" report --no-plots -o "$dir/b" "$dir/b.json" || fail "report of a run with explain"
grep -q '^| 1 MiB | .* | 80.00 | 50.0 | not checked |$' "$dir/b/report.md" || fail "% of bound is not of the run's own bound"
grep -q '50 % of the 160 GB/s bound' "$dir/b/report.md" || fail "the Why is not the run's"
finish
