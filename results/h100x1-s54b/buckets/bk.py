import json, sys
out = sys.argv[1]
recs = [json.loads(l) for l in open(out + "/ddp.jsonl") if l.strip()]
for r in recs:
    m = r.get("model")
    d = json.load(open("%s/nvs-%s/run.json" % (out, m)))
    nb = [b["bytes"] for b in d["train"]["buckets"]]
    pb = r.get("ddp_bucket_sizes")
    print("== %s %s: DDP (%s, %s): %d buckets, first %s, total %s" % (m, r.get("precision"), r.get("ddp_bucket_sizes_source"), r.get("ddp_bucket_sizes_error", "ok"), len(pb or []), (pb or [None])[0], sum(pb or [])))
    print("   nvscale: %d buckets, first %d, total %d" % (len(nb), nb[0], sum(nb)))
    print("   DDP     :", pb)
    print("   nvscale :", nb)
