"""What the PyTorch side of the kernel benchmarks (biasgrad_torch.py, viewcopy_torch.py, ln_torch.py) shares: a
shape argument of positive sizes joined by "x" (ROWSxCOLS, AxBxR) for argparse. No torch here: the parser is
checked without a GPU."""
import argparse


def dims(n, name):
    """An argparse type for n positive whole sizes joined by 'x'; `name` is what the message calls it"""

    def parse(s):
        try:
            v = tuple(int(p) for p in s.split("x"))
        except ValueError:
            v = ()
        if len(v) != n:
            raise argparse.ArgumentTypeError("%r: expected %s" % (s, name))
        if min(v) < 1:
            raise argparse.ArgumentTypeError("%r: expected positive sizes" % s)
        return v

    return parse
