"""Options of ``treexc lm``: each field says its help, flags, checks and
whether it is saved with the model (``treexc.options``).  What the options
leave automatic (0) is resolved by the plan (``lm/plan.py``)."""

from dataclasses import dataclass

from ..errors import TreexcError
from ..options import (
    IF_SET,
    TREES,
    bad_option,
    check_fields,
    option,
    options_from_flags,
)
from .plan import uses_tree

MODEL_KIND = "lm"

LOSSES = ("tree", "softmax")

@dataclass
class LMArgs:
    input: str = option("", "training text (one paragraph or sentence per line; .gz "
                        "accepted)", saved=False, required=True)
    output: str = option("", "output path without extension (OUTPUT.bin is written; "
                         "needed unless -plan)", saved=False)
    plan: bool = option(False, "read the text, count its vocabulary and print the plan (the "
                        "rate and the tree's shape training would use, each with the rule "
                        "that chose it and why), without training", saved=False)
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
                        "vocabulary)",
                        shape=True)
    depth: int = option(0, "tree depth D: leaves at depth at most D (a Huffman "
                      "tree's depths follow the counts; 0 = 2 up to 131,072 words, "
                      "else 3)", shape=True, at_least=0)
    massSlack: float = option(-1.0, "learned tree: a subtree takes at most massSlack/arity "
                              "of its parent's word occurrences unless it holds one word "
                              "(0 = no limit; -1 = 1 on a two-level tree, 0 deeper)",
                              at_least=-1)
    treeUpdates: int = option(-1, "-tree learned: rebuilds (AssignLabels) in all (not per "
                              "epoch), evenly inside the learning span (-treeEpochs), as "
                              "supervised's (-1 = auto: 50 an epoch of the span less one, "
                              "124 at -epoch 5; 0 = none)", at_least=-1)
    treeUpdatesPerEpoch: int = option(0, "the older meaning of -treeUpdates, rebuilds per "
                                      "epoch of the learning span: -treeUpdates (this x the "
                                      "span, rounded up) - 1, the same model (0 = not given)",
                                      at_least=0, saved=False)
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
    checkpoint: float = option(0.0, "write a checkpoint (OUTPUT.ckpt: weights, Adagrad "
                               "state, tree, statistics, records, place in the epoch) every "
                               "this many minutes of training, removed once the model is "
                               "published (0 = none)", saved=False, at_least=0)
    resume: bool = option(False, "continue the run whose checkpoint OUTPUT.ckpt is (same "
                          "input, -valid, -test and options)", saved=False)


# What a model file must hold (checked on load).


def make_lm_args(**flags):
    """LMArgs from keyword flags, validated."""
    args = options_from_flags(LMArgs, flags)
    if flags.get("treeUpdates") is not None and flags.get("treeUpdatesPerEpoch"):
        raise TreexcError("-treeUpdates and -treeUpdatesPerEpoch are the same option: give "
                          "one")
    validate(args)
    return args


def validate(args):
    """The checks of the fields, then those across fields."""
    check_fields(args)
    if args.arity == 1 or args.arity < 0:
        bad_option("arity", args.arity, "must be >= 2 (or 0: fit the vocabulary)")
    if not uses_tree(args) and args.tree != "learned":  # "learned": the default, unused
        bad_option("tree", args.tree, "-loss softmax has no tree (use -loss tree)")
    if not uses_tree(args) and args.rootRows > 1:
        bad_option("rootRows", args.rootRows, "-loss softmax has no tree (use -loss tree)")
    if args.arity == 2 and args.rootRows > 1:
        bad_option("rootRows", args.rootRows, "the tree is 2-ary: a binary root is one "
                   "sigmoid")
    return args
