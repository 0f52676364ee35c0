"""The sparse linear family's options (``treexc supervised -model linear``).

Names follow fastText's camelCase style (``-leafSize``, ``-C``), and the
defaults are those of the field's best tools where they apply (PECOS
XR-Linear: C = 1, weights below 0.1 pruned, beam 10), except the trees:
two of them (Omikuji trains three), each smaller than PECOS's one (32
branches, leaves of at most 25 labels, not 16 and 100), which scored
higher for about the same training on the sets they were tuned on
(docs/results/linear.md, "Two smaller trees").  The options the text encoding shares with the
embedding model (``-wordNgrams``, ``-minCount``, ``-bucket``, ``-label``,
``-cache``) keep their meaning; ``-wordNgrams`` defaults to 2 here
(unigrams and bigrams, as the peers' tf-idf features).

This module imports neither numpy nor Numba: ``treexc --help`` reads it.
"""

from dataclasses import dataclass

from ..errors import TreexcError
from ..options import bad_option, check_fields, option, options_from_flags
from ..weight_options import LABEL_WEIGHTS_OPTION, WEIGHT_BALANCED_OPTION, check_weight_flags

SOLVERS = ("svm", "lr")  # L2-loss SVM dual, or logistic regression dual
SCORERS = ("l3hinge", "sigmoid")
LINEAR_TREES = ("kmeans", "learned")


@dataclass
class LinearArgs:
    input: str = option("", "training file path (fastText format, or sparse 'labels f:v' / "
                        "Extreme Classification Repository lines; .gz accepted; - = stdin)",
                        saved=False, required=True)
    output: str = option("", "output file path, without extension (.bin is written)",
                         saved=False, required=True)
    wordNgrams: int = option(2, "max length of word ngram (features: words and their "
                             "n-grams)", shape=True, at_least=1)
    minCount: int = option(1, "minimal number of word occurrences", at_least=0)
    minCountLabel: int = option(0, "minimal number of label occurrences", at_least=0)
    minDf: int = option(2, "features seen in fewer training lines are dropped", at_least=1)
    bucket: int = option(2000000, "number of buckets for hashed n-grams", shape=True,
                         at_least=0)
    label: str = option("__label__", "labels prefix", shape=True)
    thread: int = option(0, "number of threads (0 = all cores)", at_least=1, saved=False)
    verbose: int = option(2, "verbosity level: 0 silent, 1 summary, 2 progress", saved=False)
    cache: str = option("", "folder of the token cache (kept and reused); empty = a "
                        "temporary folder", saved=False)
    seed: int = option(0, "random generator seed; with -thread 1 training is reproducible",
                       at_least=0)
    arity: int = option(32, "branches of each node of the label tree above its leaves",
                        shape=True, at_least=2, at_most=100000)
    leafSize: int = option(25, "most labels under one node of the tree's last level",
                           at_least=2, at_most=100000)
    tree: str = option("kmeans", "label tree: kmeans (balanced spherical k-means over the "
                       "labels' tf-idf centroids, fixed) or learned (then refined by "
                       "AssignLabels on the node classifiers' scores)",
                       choices=LINEAR_TREES)
    treeUpdates: int = option(1, "learned tree: rebuilds, each followed by retraining",
                              at_least=0)
    solver: str = option("svm", "node classifiers: svm (L2-loss SVM) or lr (logistic "
                         "regression), both by dual coordinate descent", choices=SOLVERS)
    C: float = option(1.0, "inverse regularisation strength of the node classifiers",
                      above=0.0)
    maxIter: int = option(20, "dual coordinate descent passes at most per classifier",
                          at_least=1)
    rootMaxIter: int = option(5, "passes at most per classifier of a node that most "
                              "training lines reach (the root; -maxIter if fewer)",
                              at_least=1)
    eps: float = option(0.1, "stopping tolerance of dual coordinate descent", above=0.0)
    prune: float = option(0.1, "node weights of smaller magnitude are dropped", at_least=0.0)
    beam: int = option(10, "nodes kept per tree level when predicting", at_least=1)
    scorer: str = option("l3hinge", "a child's score from its margin z: l3hinge "
                         "(exp(-max(0, 1 - z)^3)) or sigmoid; a label's score is the product "
                         "along its path", choices=SCORERS)
    ensemble: int = option(2, "trees trained with different seeds, their scores averaged "
                           "(one when the tree is a single node: one-vs-rest)",
                           at_least=1, at_most=64)
    labelWeights: str = LABEL_WEIGHTS_OPTION()
    weightBalanced: bool = WEIGHT_BALANCED_OPTION()

    # encoding options the token cache reads that this family keeps fixed
    minn = 0
    maxn = 0
    pretrainedVectors = ""


# the options the embedding model does not have (the rest are shared)
LINEAR_ONLY = ("minDf", "leafSize", "solver", "C", "maxIter", "rootMaxIter", "eps", "prune",
               "beam", "scorer", "ensemble")


def make_linear_args(**flags):
    """LinearArgs from keyword flags, checked."""
    args = options_from_flags(LinearArgs, flags)
    check_fields(args)
    check_weight_flags(args)
    if args.wordNgrams > 1 and args.bucket < 1:
        bad_option("bucket", args.bucket, "must be >= 1 when word n-grams are used")
    if not args.label or any(c.isspace() for c in args.label):
        raise TreexcError(f"-label {args.label!r}: the label prefix must not be empty or "
                          "contain white space")
    return args
