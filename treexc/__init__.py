"""treexc: fastText-style text classification with learned tree softmax.

Python API, mirroring fastText's::

    import treexc
    model = treexc.train_supervised(input="train.txt", epoch=25, wordNgrams=2)
    model.predict("how to bake bread", k=3)
    model.test("valid.txt")
    model.save_model("model.bin")
    model = treexc.load_model("model.bin")

    lm = treexc.train_lm(input="corpus.txt", epoch=5)    # a language model
    lm.predict_next(["the", "old"], k=3)
    treexc.plan_supervised(input="train.txt").lines()    # what would be trained, and why
    lm.perplexity("valid.txt")
    lm.save_model("lm.bin")
    lm = treexc.load_lm("lm.bin")
"""

import sys

from .errors import TreexcError

__version__ = "0.1.0"
__all__ = ["train_supervised", "plan_supervised", "load_model", "train_lm", "plan_lm",
           "load_lm", "TreexcError"]

# Each function imports what it uses, inside its body: `import treexc` (and so
# `treexc --help`) imports neither numpy nor Numba.


def train_supervised(input, **flags):
    """Train a classifier on a fastText-format file; flags as fastText's
    (``lr``, ``dim``, ``epoch``, ``wordNgrams``, ``loss``, ...).  ``verbose``
    defaults to 0 here.  With ``autotuneValidationFile`` (and
    ``autotuneMetric``, ``autotunePredictions``, ``autotuneDuration``), the
    model of the flags that scored best on it within the duration."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .classify.autotune.search import autotune, manual_fields
    from .classify.options import AUTOTUNE_FLAGS, make_args, make_autotune_args
    from .classify.training import train_supervised as train
    from .runtime import reporter_factory

    jitstart.prepare()
    flags.setdefault("verbose", 0)
    tune_flags = {name: flags.pop(name) for name in list(flags) if name in AUTOTUNE_FLAGS}
    args = make_args(input=input, **flags)
    tune = make_autotune_args(**tune_flags)
    if tune.autotuneValidationFile:  # fastText's autotune: the best flags' model
        return autotune(args, tune, manual_fields(flags), sys.stderr)
    return train(args, reporter_factory(args.verbose, sys.stderr, live=False)())


def plan_supervised(input, **flags):
    """The plan ``train_supervised(input, **flags)`` would follow (what it
    would train, each choice with its rule and reason: ``Plan.lines()``),
    from the input's counting pass, without training.  A trained model's
    is its ``plan`` attribute."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .classify.options import make_args
    from .classify.training import plan_of_input

    jitstart.prepare()
    return plan_of_input(make_args(input=input, **flags))


def load_model(path):
    """Load a model saved by ``treexc supervised`` or ``save_model``."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .classify.model import load_model as load

    jitstart.prepare()
    return load(path)


def train_lm(input, **flags):
    """Train a language model on a text file (one sentence or paragraph a
    line); flags as ``treexc lm``'s (``dim``, ``context``, ``epoch``, ``lr``,
    ``loss``, ``tree``, ``arity``, ``depth``, ``valid``, ...).  ``verbose``
    defaults to 0 here."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .lm.options import make_lm_args
    from .lm.training import train_lm as train
    from .runtime import reporter_factory

    jitstart.prepare()
    flags.setdefault("verbose", 0)
    args = make_lm_args(input=input, **flags)
    echo = (lambda line: print(line, file=sys.stderr)) if args.verbose >= 1 else None
    model, _ = train(args, reporter_factory(args.verbose, sys.stderr, summary=False,
                                            live=False), echo)
    return model


def plan_lm(input, **flags):
    """The plan ``train_lm(input, **flags)`` would follow (``Plan.lines()``:
    the rate and the tree's shape, each with its rule and reason), from the
    text's vocabulary, without training."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .lm.options import make_lm_args
    from .lm.training import plan_of_input

    jitstart.prepare()
    return plan_of_input(make_lm_args(input=input, **flags))


def load_lm(path):
    """Load a language model saved by ``treexc lm`` or ``save_model``."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .lm.model import load_lm as load

    jitstart.prepare()
    return load(path)
