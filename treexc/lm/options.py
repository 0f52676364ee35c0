"""Options of ``treexc lm``: each field says its help, flags, checks and
whether it is saved with the model (``treexc.options``), and the rules
that resolve the shape options left at 0 (``tree_shape``, ``root_rows``)."""

from dataclasses import dataclass

from ..options import (
    IF_SET,
    TREES,
    bad_option,
    check_fields,
    option,
    options_from_flags,
)
from ..trees.capacity import fit_arity, fit_depth

MODEL_KIND = "lm"

LOSSES = ("tree", "softmax")

# -lr 0 (the default): BASE_LR up to BASE_DIM dimensions, BASE_LR * BASE_DIM / dim
# above.  Adagrad moves each coordinate of a row by about lr per step, so a
# step changes a score (a dot product over dim coordinates) by about lr * dim:
# keeping lr * dim fixed keeps the step in score space as it was at the rate
# measured best at -dim 100.  At -dim 200, one epoch: KJV valid perplexity
# tree 43.15 -> 41.46, flat 41.76 -> 40.77 (lr 0.1 -> 0.05); confirmed on the
# first 1M tokens of gutenberg_lm and of gutenberg_small_lm, not used to
# choose: tree 91.37 -> 85.98 and 100.83 -> 95.46, flat 89.70 -> 85.18 and
# 98.52 -> 95.30 (docs/lm.md, "Learning rate").
BASE_LR, BASE_DIM = 0.1, 100


def default_lr(dim):
    """The Adagrad rate -lr 0 stands for at this -dim."""
    return BASE_LR * min(1.0, BASE_DIM / dim)


@dataclass
class LMArgs:
    input: str = option("", "training text (one paragraph or sentence per line; .gz "
                        "accepted)", saved=False, required=True)
    output: str = option("", "output path without extension (OUTPUT.bin is written)",
                         saved=False, required=True)
    valid: str = option("", "validation text: perplexity after each epoch", saved=False)
    test: str = option("", "test text: also evaluated at each evaluation (for learning "
                       "curves)", saved=False)
    log: str = option("", "write one JSON record per evaluation to this file (for `treexc "
                      "plot`; published with OUTPUT.bin when the run ends)", saved=False)
    name: str = option("", "run name in the log records (default: the -output name)")
    dim: int = option(200, "size of word embeddings and of the context vector", shape=True,
                      at_least=1, at_most=10000)
    context: int = option(4, "number of previous words in the context", shape=True,
                          at_least=1)
    batch: int = option(128, "mini-batch size (positions per Adagrad step)", at_least=1)
    lr: float = option(0.0, "Adagrad learning rate (0 = 0.1 up to -dim 100, 10/dim above: "
                       "0.05 at the default -dim 200)", at_least=0)
    epoch: int = option(5, "number of epochs", at_least=1)
    minCount: int = option(5, "words seen fewer times become <unk>", shape=True, at_least=1)
    loss: str = option("tree", "output layer: tree (tree softmax) or softmax (flat, tied "
                       "embeddings)", shape=True, choices=LOSSES)
    tree: str = option("learned", "tree for -loss tree: learned (rebuilt by AssignLabels), "
                       "huffman (over word counts), random or cluster (fixed)", shape=True,
                       choices=TREES)
    arity: int = option(0, "tree arity M (0 = the smallest with M^depth >= twice the "
                        "vocabulary where the mass cap is on, room for it, else the "
                        "vocabulary; at depth 2 at least 200, or the vocabulary size)",
                        shape=True)
    depth: int = option(0, "tree depth D: leaves at depth at most D (a Huffman "
                      "tree's depths follow the counts; 0 = 2 up to 131,072 words, "
                      "else 3)", shape=True, at_least=0)
    massSlack: float = option(-1.0, "learned tree: a subtree takes at most massSlack/arity "
                              "of its parent's word occurrences unless it holds one word "
                              "(0 = no limit; -1 = 1 on a two-level tree, 0 deeper)",
                              at_least=-1)
    treeUpdates: int = option(50, "-tree learned: rebuilds (AssignLabels) per epoch, "
                              "while it is learned (see -treeEpochs)", at_least=0)
    treeEpochs: float = option(0, "the learned tree is rebuilt during the first (fraction "
                               "of) epochs, then frozen (0 = the first half of training)",
                               at_least=0)
    rootRows: int = option(0, "rows per root slot: the root scores a group of words by the "
                           "log-sum-exp of this many rows (0 = 4 where the root is a "
                           "softmax, arity >= 3; 1 at a binary root)", at_least=0, at_most=64,
                           saved=IF_SET)  # a tree's is set; files before it: 1
    leafRows: int = option(1, "1: on a rebuild a word takes its leaf row (output vector) "
                           "along; 0: rows stay with the slot", choices=(0, 1))
    clusterEpoch: float = option(0.5, "epochs of the random-tree run whose vectors -tree "
                                 "cluster clusters", above=0, at_most=100)
    evalPerEpoch: int = option(1, "evaluations (and log records) per epoch", at_least=1)
    keepBest: int = option(1, "with -valid: save the weights of the evaluation with the "
                           "best validation perplexity, not the last (0: the last)",
                           choices=(0, 1), saved=False)
    patience: int = option(1, "with -valid and -keepBest 1: stop once this many epochs have "
                           "passed since the best validation perplexity (0 = train every "
                           "epoch)", at_least=0, saved=False)
    thread: int = option(0, "number of threads (0 = all cores)", at_least=1)
    seed: int = option(0, "random generator seed", at_least=0)
    verbose: int = option(2, "verbosity level: 0 silent, 1 results, 2 progress", saved=False)


# What a model file must hold (checked on load).


def make_lm_args(**flags):
    """LMArgs from keyword flags, validated."""
    args = options_from_flags(LMArgs, flags)
    validate(args)
    if args.lr == 0:
        args.lr = default_lr(args.dim)
    return args


def validate(args):
    """The checks of the fields, then those across fields."""
    check_fields(args)
    if args.arity == 1 or args.arity < 0:
        bad_option("arity", args.arity, "must be >= 2 (or 0: fit the vocabulary)")
    if args.loss == "softmax" and args.tree != "learned":  # "learned": the default, unused
        bad_option("tree", args.tree, "-loss softmax has no tree (use -loss tree)")
    if args.loss == "softmax" and args.rootRows > 1:
        bad_option("rootRows", args.rootRows, "-loss softmax has no tree (use -loss tree)")
    if args.arity == 2:
        root_rows(args, 2)
    return args


# -rootRows 0 (the default): four rows per root slot where the root is a
# softmax.  The root is where the tree loses to the flat softmax (one row
# scores a group of words that the flat softmax scores with a row each);
# fitted offline on KJV's context vectors, -log p(group) fell 2.649 -> 2.615
# -> 2.583 nats with 1, 2, 4 rows, the flat softmax's group sums 2.605.
# Trained (-dim 100 -epoch 1, validation perplexity, rows 1 / 2 / 4 / 6,
# flat): KJV 43.33 / 41.62 / 40.66 / 40.22, 42.80; first 1M tokens of
# gutenberg_lm 89.29 / 86.24 / 84.63 / 84.42, 88.96; first 5M tokens 88.47 /
# 84.32 / 80.66, 88.27: four is where the gains flatten.  With the root's
# rows scored by BLAS products (lm/engines.py), one thread, ms per training
# batch, rows 1 / 2 / 4, flat: 1M tokens (8,385 words) 1.96 / 3.1 / 4.6,
# 13-16; 5M tokens (20,035 words) 3.1-3.5 / - / 4.3-4.6, 33-39 (docs/lm.md,
# "Several rows per root slot"; confirmed on corpora not used to choose).
DEFAULT_ROOT_ROWS = 4


def root_rows(args, arity):
    """Rows per root slot of a tree of ``arity``: ``-rootRows`` or the
    default above."""
    if args.rootRows > 1 and arity < 3:
        bad_option("rootRows", args.rootRows, f"the tree is {arity}-ary: a binary root is "
                   "one sigmoid")
    if args.rootRows:
        return args.rootRows
    return DEFAULT_ROOT_ROWS if arity >= 3 else 1


# The default tree shape (docs/lm.md, "Default shape"): two wide levels while
# they cost at most 2 * sqrt(2 * 131,072) = 1,024 output rows per position,
# three above; leaves for twice the vocabulary, so the mass cap has room.
DEPTH2_MAX_WORDS = 131_072
# Two levels are never narrower than this (below 20,000 words): a narrower
# root saves little (the output rows are a small part of a batch there) and
# measured worse on three small corpora.
DEPTH2_MIN_ARITY = 200
# The mass cap by default: on two-level trees only.  Deeper, it measured no
# better (gutenberg_small_lm, depth 3, arity 40: 134.6 without, 134.7 with;
# all of gutenberg_lm: the paper's uncapped 65-ary tree 166.2, the capped
# 81-ary one 168.2) and it needs room for twice the vocabulary (a wider tree).
DEPTH2_MASS_SLACK = 1.0


def tree_shape(args, n_words):
    """``(depth, arity, mass_slack)`` of the tree over ``n_words`` words:
    ``-depth``, ``-arity`` and ``-massSlack`` where given, else the default
    rule (a negative ``-massSlack``: the cap on a two-level tree only)."""
    slack = args.massSlack
    if args.depth:
        depth = args.depth
    elif args.arity:  # the least depth that holds them at this arity
        depth = fit_depth((1 if slack == 0 else 2) * n_words, args.arity)
        if slack < 0 and depth > 2:  # no cap deeper, so no room needed for it
            depth = fit_depth(n_words, args.arity)
    else:
        depth = 2 if n_words <= DEPTH2_MAX_WORDS else 3
    if slack < 0:
        slack = DEPTH2_MASS_SLACK if depth <= 2 else 0.0
    if args.arity:
        if args.arity > 2 * n_words:  # the most slots a tree over them can fill
            bad_option("arity", args.arity, f"wider than a tree over {n_words} words can "
                       f"fill (at most {2 * n_words} slots a node); lower it, or 0 fits "
                       "the vocabulary")
        return depth, args.arity, slack
    arity = fit_arity((2 if slack > 0 else 1) * n_words, depth)
    if depth == 2:  # at most one slot per word at the root
        arity = max(arity, min(DEPTH2_MIN_ARITY, n_words))
    return depth, arity, slack
