"""treexc: fastText-style text classification with learned tree softmax.

Python API, mirroring fastText's::

    import treexc
    model = treexc.train_supervised(input="train.txt", epoch=25, wordNgrams=2)
    model.predict("how to bake bread", k=3)
    model.test("valid.txt")
    model.save_model("model.bin")
    model = treexc.load_model("model.bin")

    vectors = treexc.train_unsupervised(input="text.txt", model="skipgram")
    vectors.get_nearest_neighbors("bread")

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
__all__ = ["train_supervised", "train_linear", "plan_supervised", "train_unsupervised",
           "load_model", "train_lm", "plan_lm", "load_lm", "TreexcError"]

# Each function imports what it uses, inside its body: `import treexc` (and so
# `treexc --help`) imports neither numpy nor Numba.


def train_supervised(input, **flags):
    """Train a classifier on a fastText-format file; flags as fastText's
    (``lr``, ``dim``, ``epoch``, ``wordNgrams``, ``loss``, ...) and
    ``model="linear"|"embedding"|"auto"`` (the default: the sparse linear
    model unless a flag only the embedding model has is given; its own
    flags ``C``, ``prune``, ``beam``, ``leafSize``, ``ensemble``, ...).
    ``verbose`` defaults to 0 here.  With ``autotuneValidationFile`` (and
    ``autotuneMetric``, ``autotunePredictions``, ``autotuneDuration``), the
    embedding model of the flags that scored best on it within the
    duration.  With ``inputModel`` (or ``input_model``: a treexc embedding
    model's or a fastText ``.bin``'s path), that model trained further on
    ``input`` (docs/continued.md)."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .supervised import train_supervised as train

    jitstart.prepare()
    flags.setdefault("verbose", 0)
    return train(dict(flags, input=input), sys.stderr, live=False)


def train_linear(indptr, indices, data, labels_indptr, labels, label_names=None, **flags):
    """Train the sparse linear model on given features: a CSR matrix of
    ``n`` rows (``indptr`` of ``n + 1`` offsets, column ``indices``, float
    ``data``) and each row's label ids (``labels_indptr``, ``labels``, as a
    CSR); ``label_names`` (default ``"0", "1", ...``); flags as
    ``train_supervised``'s linear ones (``C``, ``arity``, ``leafSize``,
    ``prune``, ``beam``, ``tree``, ``ensemble``, ``thread``, ``seed``)."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .linear.given import train_given

    jitstart.prepare()
    flags.setdefault("verbose", 0)
    return train_given(indptr, indices, data, labels_indptr, labels, label_names, flags)


def plan_supervised(input, **flags):
    """The plan ``train_supervised(input, **flags)`` would follow (what it
    would train, the family first, each choice with its rule and reason:
    ``Plan.lines()``), from the input's counting pass, without training.
    A trained model's is its ``plan`` attribute."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .supervised import plan_of

    jitstart.prepare()
    return plan_of(dict(flags, input=input))


def load_model(path):
    """Load a model saved by ``treexc supervised``, ``skipgram``, ``cbow`` or
    ``save_model``, or fastText's ``.bin`` of any of those: a classifier, or
    a word vector model."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from .model_family import LINEAR, model_family

    if model_family(path) == LINEAR:
        # numpy alone until the kernels are worth their start and memory
        # (io/first_answers.py): `load_model(m).predict(line)` needs no Numba
        from .linear.first_model import load_before_kernels
        return load_before_kernels(path, _kernel_model(path, LINEAR))
    if _is_embedding_classifier(path):  # the same, with classify/firstlines.py
        from .classify import firstlines
        from .io.first_answers import FirstAnswers, ModelBeforeKernels
        from .model_family import EMBEDDING
        first = firstlines.load(path)
        return ModelBeforeKernels(EMBEDDING, first, _kernel_model(path, EMBEDDING),
                                  FirstAnswers(first.first_lines()))
    from . import jitstart
    from .supervised import load_model as load
    from .vectors.model import is_word_vector_file, load_vectors

    jitstart.prepare()
    return load_vectors(path) if is_word_vector_file(path) else load(path)


def _is_embedding_classifier(path):
    """A treexc embedding classifier's file (not fastText's, not word
    vectors), by its header; False when it cannot be read (its loader then
    says why)."""
    from .classify.stored import MODEL_KIND
    from .errors import TreexcError
    from .io import modelfile
    from .io.fasttext_model import starts_like_fasttext

    if starts_like_fasttext(path):
        return False
    try:
        return modelfile.load_header(path).get("kind") == MODEL_KIND
    except (TreexcError, OSError):
        return False


def _kernel_model(path, family):
    """The loader of the kernels' model of a file read already."""
    def kernel_model(first):
        # imported here, not above: Numba only when the kernels take over
        from . import jitstart
        from .model_family import LINEAR

        if family == LINEAR:
            from .linear.model import load_linear as load
        else:
            from .classify.model import load_model as load
        jitstart.prepare()
        return load(path, loaded=first.loaded)
    return kernel_model


def train_unsupervised(input, model="skipgram", **flags):
    """Train word vectors (fastText's ``train_unsupervised``): ``model``
    skipgram or cbow; flags as ``treexc skipgram``'s (``dim``, ``ws``,
    ``epoch``, ``minCount``, ``neg``, ``loss``, ``minn``, ``maxn``, ``t``,
    ...).  ``verbose`` defaults to 0 here."""
    # imported here, not above: `import treexc` loads neither numpy nor Numba
    from . import jitstart
    from .runtime import reporter_factory
    from .vectors.options import make_vector_args
    from .vectors.training import train_vectors

    jitstart.prepare()
    flags.setdefault("verbose", 0)
    args = make_vector_args(input=input, model=model, **flags)
    return train_vectors(args, reporter_factory(args.verbose, sys.stderr, live=False)())


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
