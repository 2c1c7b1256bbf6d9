"""The records of tools/ddp_bench.py in a JSON Lines file, leniently: a line that is not JSON, or not a ddp_bench
record, is skipped (the files also hold NCCL's and the harness's own lines). For the tools that pool many runs
(fidelity_fit.py, model_vs_pytorch.py); tools/fidelity.py reads one run strictly and refuses such lines."""
import json


def records(path):
    """The ddp_bench records (dicts) of the file at path, in order. OSError when it cannot be read."""
    with open(path) as fh:
        for line in fh:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and d.get("tool") == "ddp_bench":
                yield d
