"""The classifier's options, with fastText's names and defaults.

Each field says its help, flags, checks and whether it is saved with the
model (``treexc.options``); the CLI's ``supervised`` flags and the Python
API's ``train_supervised(**flags)`` derive from them.  Names are fastText's
camelCase ones because users pass them as ``-wordNgrams`` on the command
line and as ``train_supervised(wordNgrams=2)`` in Python.
"""

import math
import numbers
from dataclasses import dataclass

from ..errors import TreexcError
from ..loss.registry import ALIASES as LOSS_ALIASES
from ..loss.registry import AUTO, KERNEL_NS, LOSSES, loss
from ..options import (
    IF_SET,
    TREES,
    bad_option,
    check_fields,
    check_integer,
    default_threads,  # noqa: F401 (classify.model takes it from here)
    flag_names,
    option,
    options_from_flags,
)
from ..weight_options import LABEL_WEIGHTS_OPTION, WEIGHT_BALANCED_OPTION, check_weight_flags
from .plan_rules import (
    AUTO_PLT_MIN_LABELS_PER_LINE,
    AUTO_SOFTMAX_MAX_LABELS,
    AUTO_SOFTMAX_MIN_BUDGET,
    AUTO_SOFTMAX_UNEVEN_MAX_LABELS,
    AUTO_SOFTMAX_UNEVEN_MIN_BUDGET,
    DEFAULT_LR,
    PLT_TREE_UPDATES,
    SCORING_MEAN,
    SCORING_MEAN_MAX_LABELS,
    SCORING_MEAN_MIN_BUDGET,
    STATS_PER_REBUILD,
    TREE_UPDATES,
    ZIPF_LR,
    takes_tree,
    usual_tree,
)

SHUFFLED = "shuffled"  # -order: a new random order each epoch (text.epoch_order)

LOSS_HELP = ("loss function: " + "; ".join(f"{entry.name} = {entry.help}"
                                           for entry in LOSSES.values())
             + f"; auto = plt where lines have {AUTO_PLT_MIN_LABELS_PER_LINE} labels or "
             f"more on average (with the tree -tree names), else the tree -tree names, else "
             f"the flat softmax for many-lined labels, up to {AUTO_SOFTMAX_MAX_LABELS:,} "
             f"trained {AUTO_SOFTMAX_MIN_BUDGET} rate-epochs or more (-lr x -epoch), or up "
             f"to {AUTO_SOFTMAX_UNEVEN_MAX_LABELS:,} uneven ones trained "
             f"{AUTO_SOFTMAX_UNEVEN_MIN_BUDGET} or more, else a learned tree")


@dataclass
class Args:
    input: str = option("", "training file path (fastText format; .gz accepted; - = stdin)",
                        saved=False, required=True)
    output: str = option("", "output file path, without extension (.bin and .vec are "
                         "written; needed unless -plan)", saved=False)
    plan: bool = option(False, "print the plan (the model training would build: the "
                        "family, then the embedding model's loss, tree, arity, depth, "
                        "rebuilds, scoring, rate from the input's counts, or the linear "
                        "model's defaults; each with the rule that chose it and why), "
                        "without training",
                        saved=False)
    lr: float = option(0.0, f"learning rate (0 = {DEFAULT_LR}, or {ZIPF_LR} for Zipf-"
                       "distributed labels such as words; halved and training started "
                       "again if it diverges; fastText's default is 0.1)", at_least=0)
    lrUpdateRate: int = option(100, "change the rate of updates for the learning rate "
                               "(tokens)", at_least=1)
    dim: int = option(100, "size of word vectors", shape=True, at_least=1, at_most=100000)
    ws: int = option(5, "size of the context window (unused in supervised mode)")
    epoch: int = option(5, "number of epochs", at_least=1)
    minCount: int = option(1, "minimal number of word occurrences", at_least=0)
    minCountLabel: int = option(0, "minimal number of label occurrences", at_least=0)
    neg: int = option(5, "number of negatives sampled (loss ns)", at_least=0)
    wordNgrams: int = option(1, "max length of word ngram", shape=True, at_least=1)
    loss: str = option(AUTO, LOSS_HELP, shape=True, choices=(AUTO, *LOSSES),
                       value_aliases=LOSS_ALIASES)
    bucket: int = option(2000000, "number of buckets for hashed n-grams", shape=True,
                         at_least=0)
    minn: int = option(0, "min length of char ngram", shape=True, at_least=0)
    maxn: int = option(0, "max length of char ngram", shape=True, at_least=0)
    thread: int = option(0, "number of threads (0 = all cores)", at_least=1)
    t: float = option(1e-4, "sampling threshold (unused in supervised mode)")
    label: str = option("__label__", "labels prefix", shape=True)
    verbose: int = option(2, "verbosity level: 0 silent, 1 summary, 2 progress", saved=False)
    pretrainedVectors: str = option("", "pretrained word vectors (.vec) for supervised "
                                    "learning", saved=False)
    cache: str = option("", "folder of the token cache (the training file encoded once, read "
                        "from disk by every epoch): kept there and reused when the same "
                        "file is trained again with the same encoding options; empty = a "
                        "temporary folder, removed after training", saved=False)
    saveOutput: bool = option(False, "also write the output matrix to OUTPUT.output")
    checkpoint: float = option(0.0, "write a checkpoint (OUTPUT.ckpt: weights, tree, "
                               "statistics, random states, place in the epoch) every this "
                               "many minutes of training, removed once the model is "
                               "published (0 = none; -model embedding only)", saved=False,
                               at_least=0)
    resume: bool = option(False, "continue the run whose checkpoint OUTPUT.ckpt is (same "
                          "input and options)", saved=False)
    seed: int = option(0, "random generator seed; with -thread 1 training is reproducible",
                       at_least=0)
    order: str = option(SHUFFLED, "order of the training lines: shuffled (a new seeded random "
                        "order every epoch, read 16 random blocks of the token cache at a "
                        "time, 8 MiB for all threads, so memory stays bounded; a file that "
                        "is not mixed, e.g. sorted by label, still trains) or file "
                        "(every epoch in the file's order, as fastText)", saved=IF_SET,
                        choices=("file", SHUFFLED))
    # Tree output layers (treexc's own options).
    arity: int = option(0, "tree arity M (0 = 2 for hs; for a learned tree the least M with "
                        "M^D >= labels, D = -depth or 2: a two-level tree of about "
                        "sqrt(labels), or of labels/5 with -depth 2 where the labels are "
                        "about equally frequent and many-lined; one node up to 6 labels; "
                        "never wider than the labels)", shape=True)
    # saved only when set: models without it keep their headers byte for byte
    tree: str = option("", "output tree: learned (rebuilt by AssignLabels: -loss tree), "
                       "huffman (fastText's: -loss hs), random or cluster (fixed); "
                       "empty = the loss's own", saved=IF_SET, choices=("", *TREES))
    treeUpdates: int = option(-1, "learned tree: rebuilds (AssignLabels) in all (not "
                              f"per epoch), spread over the first half of training (-1 = "
                              f"auto: one per {STATS_PER_REBUILD} lines a label in that half, "
                              f"1 to {TREE_UPDATES}; {PLT_TREE_UPDATES} for -loss plt)",
                              at_least=-1)
    depth: int = option(0, "tree depth D: leaves at depth at most D (0 = automatic: for "
                        "the default learned tree no limit, but a subtree holds at most "
                        "-massSlack/arity of its parent's label occurrences, so frequent "
                        "labels sit higher, as in a Huffman tree; with -arity given over "
                        "about equally frequent labels the least depth that holds them; a "
                        "Huffman tree's depths follow the counts; docs/defaults.md)",
                        saved=False, at_least=0)
    massSlack: float = option(-1.0, "learned tree without a depth limit: a subtree holds at "
                              "most massSlack/arity of its parent's label occurrences unless "
                              "it holds one label (-1 = automatic: 1 where the depth is "
                              "automatic; 0 = no cap: no depth limit at all)", at_least=-1,
                              saved=IF_SET)
    # saved under this name: -depth's older spelling, its values as they were
    maxDepth: int = option(-1, "the older spelling of -depth, meanings kept: -1 = "
                           "automatic, 0 = no limit and no mass cap, D = at most D",
                           shape=True)
    treeGradient: str = option("ll", "AssignLabels score: ll (log-likelihood) or plain "
                               "(J_n gradient)", choices=("ll", "plain"))
    # how the model answers: written in the model file's header ("scoring"),
    # not among its options
    scoring: str = option("auto", "how a tree softmax answers: tree (its probabilities), "
                          "mean (the geometric mean of those and of the flat softmax its "
                          "path scores sum to: more accurate where labels are about equally "
                          "frequent and many-lined, at a flat softmax's prediction cost), "
                          "auto (mean for -loss tree on such labels, up to "
                          f"{SCORING_MEAN_MAX_LABELS:,} of them, their wide root only "
                          f"trained {SCORING_MEAN_MIN_BUDGET} rate-epochs (-lr x -epoch) or "
                          "more, else tree)",
                          saved=False, choices=("auto", "tree", SCORING_MEAN))
    # label weights (treexc's own; text/label_weights.py, docs/weights.md)
    labelWeights: str = LABEL_WEIGHTS_OPTION()
    weightBalanced: bool = WEIGHT_BALANCED_OPTION()



@dataclass
class AutotuneArgs:
    """fastText's autotune flags (``supervised`` only; never saved with the
    model: a tuned model's file is that of a plain run with the chosen flags).
    Each is spelled as fastText's command line (``-autotune-validation``),
    as its Python API (``autotuneValidationFile``) and in camelCase."""
    autotuneValidationFile: str = option(
        "", "autotune: validation file; searches the flags that score best on it",
        saved=False, flags=("autotune-validation", "autotuneValidation",
                            "autotuneValidationFile"))
    autotuneMetric: str = option(
        "f1", "autotune: metric to maximise: f1, f1:LABEL, precisionAtRecall:R[:LABEL] "
        "or recallAtPrecision:P[:LABEL] (R and P in percent)", saved=False,
        flags=("autotune-metric", "autotuneMetric"))
    autotunePredictions: int = option(
        1, "autotune: labels predicted per line when scoring (-1 = all)", saved=False,
        flags=("autotune-predictions", "autotunePredictions"))
    autotuneDuration: int = option(
        300, "autotune: search time in seconds", saved=False, at_least=1,
        flags=("autotune-duration", "autotuneDuration"))
    autotuneModelSize: str = option(
        "", "autotune: largest model file (e.g. 2M; needs quantize)", saved=False,
        flags=("autotune-modelsize", "autotuneModelSize"))


AUTOTUNE_FIELDS = tuple(AutotuneArgs.__dataclass_fields__)
AUTOTUNE_FLAGS = frozenset(name for field in AutotuneArgs.__dataclass_fields__.values()
                           for name in flag_names(field))

# The metrics' names: "f1" alone or with ":LABEL"; the curve metrics with a
# percentage and an optional ":LABEL" (fastText's Args::getAutotuneMetric).
CURVE_METRICS = ("precisionAtRecall", "recallAtPrecision")
SIZE_UNITS = {"k": 10 ** 3, "K": 10 ** 3, "m": 10 ** 6, "M": 10 ** 6, "g": 10 ** 9,
              "G": 10 ** 9}


def parse_metric(text):
    """``(name, value, label)`` of an ``-autotune-metric``: name ``f1`` or one
    of :data:`CURVE_METRICS`, value the fraction (the flag says percent),
    label the full label name or "" (all labels).  Refuses anything else."""
    def bad(why):
        raise TreexcError(f"-autotune-metric {text}: {why} (choose from f1, f1:LABEL, "
                          "precisionAtRecall:R[:LABEL], recallAtPrecision:P[:LABEL])")

    name, _, rest = text.partition(":")
    if name == "f1":
        if ":" in text and not rest:
            bad("the label after f1: is empty")
        return "f1", 0.0, rest
    if name not in CURVE_METRICS:
        bad("unknown metric")
    number, _, label = rest.partition(":")
    try:
        value = float(number)
    except ValueError:
        bad(f"{number!r} is not a percentage")
    if not 0.0 <= value <= 100.0:
        bad(f"{number} is not a percentage between 0 and 100")
    if rest.count(":") and not label:
        bad("the label after the percentage is empty")
    return name, value / 100.0, label


def parse_model_size(text):
    """Bytes of an ``-autotune-modelsize`` (``2M``, ``500k``, ``1G``, ``12345``)."""
    number = text[:-1] if text[-1:] in SIZE_UNITS else text
    if not number.isdigit() or int(number) == 0:
        raise TreexcError(f"-autotune-modelsize {text}: not a size (e.g. 2M, 500k, 1G)")
    return int(number) * SIZE_UNITS.get(text[-1:], 1)


def make_autotune_args(**flags):
    """AutotuneArgs from keyword flags (any spelling), checked."""
    tune = options_from_flags(AutotuneArgs, flags)
    check_fields(tune)
    given = [name for name, value in flags.items() if value is not None]
    if given and not tune.autotuneValidationFile:
        raise TreexcError(f"-{given[0]} needs -autotune-validation FILE (the file the "
                          "search scores its trials on)")
    parse_metric(tune.autotuneMetric)
    if tune.autotunePredictions < 1 and tune.autotunePredictions != -1:
        bad_option("autotune-predictions", tune.autotunePredictions,
                   "must be >= 1, or -1 for all labels")
    if tune.autotuneModelSize:
        parse_model_size(tune.autotuneModelSize)
    return tune


def make_args(**flags):
    """Args from keyword flags (any spelling of a flag: ``depth`` or
    ``maxDepth``), validated, with fastText's adjustments; what the flags
    leave automatic stays so (0, -1, auto) until the plan
    (``classify/plan.py``) resolves it."""
    args = options_from_flags(Args, flags)
    if flags.get("depth") is not None and flags.get("maxDepth") is not None:
        raise TreexcError("-depth and -maxDepth are the same option: give one")
    if args.depth:  # one field below: -depth D is -maxDepth D; -depth 0 is automatic (-1)
        args.maxDepth = args.depth
    choose_tree(args)
    # fastText: without word or character n-grams the hashed buckets are unused
    if args.wordNgrams <= 1 and args.maxn == 0:
        args.bucket = 0
    validate(args)
    return args


def choose_tree(args):
    """A loss's own tree is stored as "" (the old spellings ``-loss hs``
    and ``-loss tree`` give the same model files as ``-tree huffman`` and
    ``-tree learned``).  With ``-loss auto`` the loss, and so whether the
    tree is its own, waits for the labels (the plan: ``-tree learned`` on
    multi-label data is the learned PLT)."""
    if args.tree not in TREES or args.loss not in LOSSES:
        return  # validate names what is wrong; auto: the plan
    if args.tree == usual_tree(args.loss):
        args.tree = ""


def validate(args):
    """The checks of the fields, then those across fields."""
    bad = bad_option
    check_fields(args)
    if args.tree and not takes_tree(args.loss):
        bad("tree", args.tree, f"-loss {args.loss} has no tree (use -loss hs or tree)")
    if args.tree == "learned" and args.loss != AUTO and not loss(args.loss).learned:
        bad("tree", args.tree, f"-loss {args.loss} keeps its tree fixed (use -loss tree)")
    if args.maxn and args.minn > args.maxn:
        bad("minn", args.minn, f"must be <= -maxn ({args.maxn})")
    if args.maxn and args.minn < 1:
        bad("minn", args.minn, "must be >= 1 when -maxn is set")
    if (args.wordNgrams > 1 or args.maxn > 0) and args.bucket < 1:
        bad("bucket", args.bucket, "must be >= 1 when word or character n-grams are used")
    if args.loss in LOSSES and loss(args.loss).kernel == KERNEL_NS and args.neg < 1:
        bad("neg", args.neg, f"must be >= 1 with -loss {args.loss}")
    if args.maxDepth < -1:
        bad("maxDepth", args.maxDepth, "must be -1 (auto), 0 (no limit) or a depth >= 1")
    # 0: chosen by the plan once the labels are counted
    if args.arity < 2 and args.arity != 0:
        bad("arity", args.arity, "must be >= 2 (or 0: the loss's own, or fitted to the "
            "labels)")
    if args.scoring == SCORING_MEAN and args.loss != AUTO and not loss(args.loss).tree_softmax:
        bad("scoring", args.scoring, f"-loss {args.loss} is not a tree softmax (-loss tree, "
            "hs or softmax)")
    check_weight_flags(args)
    if not args.label:
        bad("label", repr(args.label), "the label prefix must not be empty")
    if any(c.isspace() for c in args.label):
        bad("label", repr(args.label), "the label prefix must not contain white space")
    return args


def check_k_threshold(k, threshold):
    """``predict``'s and ``test``'s K and THRESHOLD, for the command line and
    the Python API alike: K an integer >= 1 or -1 (every label, as
    fastText), THRESHOLD a probability (NaN would let every label pass).
    A wrong type is a TypeError (:func:`options.check_integer`)."""
    check_integer("k", k)
    if k < 1 and k != -1:
        raise TreexcError(f"k {k}: must be >= 1, or -1 for all labels")
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real):
        raise TypeError(f"threshold must be a number, not {type(threshold).__name__}")
    if not 0.0 <= threshold <= 1.0 or math.isnan(threshold):
        raise TreexcError(f"threshold {threshold}: must be between 0 and 1")
