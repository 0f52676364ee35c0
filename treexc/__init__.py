"""treexc: fastText-style text classification with learned tree softmax.

Python API, mirroring fastText's::

    import treexc
    model = treexc.train_supervised(input="train.txt", epoch=25, wordNgrams=2)
    model.predict("how to bake bread", k=3)
    model.test("valid.txt")
    model.save_model("model.bin")
    model = treexc.load_model("model.bin")
"""

from .errors import TreexcError

__version__ = "0.1.0"
__all__ = ["train_supervised", "load_model", "TreexcError"]

# The functions import what they use: `import treexc` (and so `treexc
# --help`) imports neither numpy nor Numba.


def train_supervised(input, **flags):
    """Train a classifier on a fastText-format file; flags as fastText's
    (``lr``, ``dim``, ``epoch``, ``wordNgrams``, ``loss``, ...).  ``verbose``
    defaults to 0 here."""
    from . import jitstart
    from .classify.options import make_args
    from .classify.training import train_supervised as train

    jitstart.prepare()
    flags.setdefault("verbose", 0)
    args = make_args(input=input, **flags)
    reporter = None
    if args.verbose >= 1:
        import sys

        from .runtime import LineReporter, SummaryReporter
        reporter = LineReporter(sys.stderr) if args.verbose >= 2 else SummaryReporter(sys.stderr)
    return train(args, reporter)


def load_model(path):
    """Load a model saved by ``treexc supervised`` or ``save_model``."""
    from . import jitstart
    from .classify.model import load_model as load

    jitstart.prepare()
    return load(path)
