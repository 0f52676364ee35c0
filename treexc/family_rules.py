"""The rules of ``treexc supervised``'s first choice, the model family
(``-model auto``), the first row of either family's plan: a table of
``planning.Rule`` rows, from which docs/defaults.md is written.
``supervised.choose_family`` applies them.

This module imports neither numpy nor Numba: ``treexc --help`` reads it.
"""

from .planning import Rule

AUTO_EMBEDDING = "auto-embedding-flag"
AUTO_LINEAR = "auto-linear"
INPUT_MODEL = "input-model"

RULES = (
    Rule(AUTO_EMBEDDING, "model", "-model auto and a flag only the embedding model has given "
         "(-dim, -lr, -epoch, -loss, -pretrainedVectors, an -autotune flag, -tree huffman, "
         "...)", "embedding", (),
         "A fastText command line keeps training fastText's model (docs/linear.md, \"When "
         "auto picks it\")."),
    Rule(AUTO_LINEAR, "model", "-model auto and no flag only the embedding model has",
         "linear", (),
         "The sparse linear model scored above the embedding model's defaults on every "
         "shared set measured, P@1: cooking 0.691 against 0.632, wn_hypernym 0.475 against "
         "0.289, gutenberg_books 0.437 against 0.144 (the learned tree the embedding model's "
         "auto-softmax budget picks there), debian_tags 0.846 against 0.804, agnews_testonly "
         "0.864 against 0.853 (docs/results/linear.md, \"Against the peers, at the defaults\" "
         "and \"Two smaller trees\"; docs/defaults.md, \"Ablations\"), so the rule reads no "
         "statistic of the data."),
    Rule(INPUT_MODEL, "model", "-inputModel given", "the input model's family (embedding)", (),
         "Continued training keeps the model's shape; only the embedding model is trained "
         "further (docs/continued.md)."),
)
