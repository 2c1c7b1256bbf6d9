#!/bin/sh
# nvscale model with two configurations on machines of different GPU counts: the side-by-side table puts each
# configuration's efficiency under its own N (the rows were matched by position: a 4-GPU box's N=4 printed under
# the 8-GPU box's N=8), and the gap is split at an N both have, each configuration at its own shape there (the
# 8-GPU box was evaluated at the 4-GPU box's 4 x 4, so 'why' said 97.9 % where its row said 96.4 %; series of
# different lengths got no gap at all). Checked against the JSON points of the same run.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
need_nvscale
tmp_dir tmp
M="$NVS model"

# each side-by-side cell: the efficiency of that configuration's point at that N in the JSON ('-' where it has none)
side_by_side_ok() { # TEXT JSON
    python3 - "$1" "$2" <<'EOF'
import json, sys
text, doc = open(sys.argv[1]).read().splitlines(), json.load(open(sys.argv[2]))
eff = [{p["n"]: p["efficiency"] for p in c["points"]} for c in doc["configurations"]]
rows = text[text.index("efficiency % side by side") + 2:]
ns = set()
for line in rows:
    if not line.strip():
        break
    w = line.split()
    n = int(w[0])
    ns.add(n)
    for i, cell in enumerate(w[1:]):
        want = "-" if n not in eff[i] else "%.1f" % (100 * eff[i][n])
        if cell != want:
            sys.exit("N=%d, configuration %d: side by side says %s, its point %s" % (n, i, cell, want))
missing = set().union(*eff) - ns
if missing:
    sys.exit("side by side lacks N = %s" % sorted(missing))
EOF
}

# the gap's efficiencies are those of the two configurations' own points at its N
gap_ok() { # JSON N
    python3 - "$1" "$2" <<'EOF'
import json, sys
doc, n = json.load(open(sys.argv[1])), int(sys.argv[2])
g = doc.get("gap")
if not g:
    sys.exit("no gap")
if g["n"] != n:
    sys.exit("gap at N=%d, expected %d" % (g["n"], n))
for key, c in (("eff_a", doc["configurations"][0]), ("eff_b", doc["configurations"][1])):
    p = [p for p in c["points"] if p["n"] == n][0]
    if abs(g[key] - p["efficiency"]) > 1e-9:
        sys.exit("%s %.6f, but %s's point at N=%d says %.6f" % (key, g[key], c["label"], n, p["efficiency"]))
if abs(sum(g["shares"].values()) - g["gap"]) > 1e-9:
    sys.exit("shares do not add up to the gap")
EOF
}

check() { # NAME GAP_N ARGS...: text and JSON of one run
    name=$1 n=$2
    shift 2
    $M "$@" >"$tmp/$name.txt" 2>&1 || { fail "$name: exit $?: $(cat "$tmp/$name.txt")"; return; }
    $M "$@" --format json >"$tmp/$name.json" 2>&1 || { fail "$name: JSON: exit $?"; return; }
    side_by_side_ok "$tmp/$name.txt" "$tmp/$name.json" || fail "$name: side by side"
    gap_ok "$tmp/$name.json" "$n" || fail "$name: gap"
    # ... and the text says the gap at that N with the same efficiencies
    want=$(json_get "$tmp/$name.json" '"at %d GPUs: efficiency %.1f%% vs %.1f%%" % (d["gap"]["n"], 100 * d["gap"]["eff_b"], 100 * d["gap"]["eff_a"])' 2>/dev/null)
    [ -n "$want" ] && grep -qF "$want" "$tmp/$name.txt" || fail "$name: the text's gap is not '$want'"
}

B="--model resnet50 --batch 32 --net ib-hdr200"
# a 4-GPU and an 8-GPU box: 16 GPUs are 4 x 4 and 2 x 8
check shapes 16 --gpu rtx3090,rtxa6000 --machine pcie4-1s-4gpu-noswitch,pcie4-2s-8gpu-switch --pairs $B --gpus 1,16
# --nodes 1,2: N = 4, 8 on the one and 8, 16 on the other (the gap at the N both have: 8)
check nodes 8 --gpu rtxa6000,rtx3090 --machine pcie4-2s-8gpu-switch,pcie4-1s-4gpu-noswitch --pairs $B --nodes 1,2
# no network: N = 1, 2 on the 2-GPU box, 1, 2, 4, 8 on the other (the gap at 2)
check lengths 2 --gpu h200-sxm,h100-sxm --machine nvlink-2gpu,hgx-h100-8 --pairs --model resnet50 --batch 32
# one machine: unchanged (the gap at the largest N)
check one_machine 8 --gpu rtx3090,rtxa6000 --machine pcie4-2s-8gpu-switch --model resnet50 --batch 32

# docs/model.md's projection schema names the gap's shares and causes the JSON has (it listed link, batch, compute
# after host and overlap had been added)
python3 - "$tmp/one_machine.json" <<'EOF' || fail "docs/model.md's projection gap lists other shares than the JSON"
import json, re, sys
g = json.load(open(sys.argv[1]))["gap"]
doc = open("docs/model.md").read()
m = re.search(r'"gap": \{"n": 8, .*?"shares": \{([^}]*)\},\s*"cause": ([^}]*)\}\}', doc, re.S)
shares = re.findall(r'"(\w+)"', m.group(1)) if m else []
causes = re.findall(r'"(\w+)"', m.group(2)) if m else []
if sorted(shares) != sorted(g["shares"]) or sorted(causes) != sorted(g["shares"]):
    sys.exit("docs: shares %s, causes %s; JSON: %s" % (shares, causes, sorted(g["shares"])))
EOF

finish
