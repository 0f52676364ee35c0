"""``-model``, the choice of model family, and how ``supervised``'s flags
divide between the families (``treexc/supervised.py`` dispatches).

The embedding model's flags are ``classify.options.Args``'s; the linear
family's own are those of ``linear.options.LinearArgs`` the embedding
model does not have (``-C``, ``-prune``, ``-beam``, ...).  A flag both
understand (``-wordNgrams``, ``-minCount``, ``-arity``, ``-thread``, ...)
goes to whichever trains; one only the embedding model understands
(``-dim``, ``-lr``, ``-epoch``, ``-loss``, ``-pretrainedVectors``, ...),
given explicitly, makes ``-model auto`` train the embedding model, one
only the linear family understands the linear model.

This module imports neither numpy nor Numba: ``treexc --help`` reads it.
"""

import dataclasses
from dataclasses import dataclass

from .classify.options import Args
from .linear.options import LINEAR_ONLY, LinearArgs
from .options import option

AUTO, LINEAR, EMBEDDING = "auto", "linear", "embedding"
FAMILIES = (AUTO, LINEAR, EMBEDDING)
# Args fields the linear family reads too (same name, same meaning)
SHARED = ("input", "output", "wordNgrams", "minCount", "minCountLabel", "bucket", "label",
          "thread", "verbose", "cache", "seed", "arity", "tree", "treeUpdates",
          "labelWeights", "weightBalanced")
# Args fields that leave -model auto's choice alone, though only the embedding
# model has them (the linear family refuses them with one line)
NEUTRAL = ("checkpoint", "resume")
EMBEDDING_ONLY = tuple(f.name for f in dataclasses.fields(Args)
                       if f.name not in SHARED and f.name not in NEUTRAL)
# -tree values only one family builds
LINEAR_TREES_ONLY = ("kmeans",)
EMBEDDING_TREES_ONLY = ("huffman", "random", "cluster")


@dataclass
class FamilyArgs:
    model: str = option(AUTO, "model family: linear (sparse tf-idf features, a k-means label "
                        "tree of linear classifiers, as PECOS/Parabel), embedding (fastText's "
                        "averaged word vectors, every -loss), auto (linear unless a flag only "
                        "the embedding model has is given)", saved=False, choices=FAMILIES)
    inputModel: str = option("", "continue training this embedding model (treexc's, or a "
                             "fastText .bin) on -input: its new words and labels added, the "
                             "rate restarted from -lr, its shape options kept "
                             "(docs/continued.md)", saved=False,
                             flags=("inputModel", "input_model"))


def _linear_only_fields():
    fields = {f.name: f for f in dataclasses.fields(LinearArgs)}
    return [(name, fields[name].type, dataclasses.field(default=fields[name].default,
                                                        metadata=fields[name].metadata))
            for name in LINEAR_ONLY]


# the linear family's own flags, as a dataclass for the command line's options
LinearOnlyArgs = dataclasses.make_dataclass("LinearOnlyArgs", _linear_only_fields())
