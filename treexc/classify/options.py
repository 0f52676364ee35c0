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
from ..loss.registry import AUTO, KERNEL_TREE, LOSSES, loss
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
from .default_rate import DEFAULT_LR, ZIPF_LR
from .tree_shape import (
    AUTO_SOFTMAX_MAX_LABELS,
    PLT_TREE_UPDATES,
    SCORING_MEAN,
    SCORING_MEAN_MAX_LABELS,
    STATS_PER_REBUILD,
    TREE_UPDATES,
    WIDE_ROOT_MIN_EVENNESS,
    WIDE_ROOT_MIN_MEDIAN_COUNT,
    even_and_many_lined,
    label_spread,
    learned_tree_arity,
    tree_updates,
    wide_root_arity,
)

# -loss auto trains the flat softmax up to tree_shape.AUTO_SOFTMAX_MAX_LABELS
# labels, unless they are not exclusive: from this many distinct labels a
# labelled line on average, it trains a probabilistic label tree, which
# estimates each label's own probability (what precision@k ranks by) where
# the softmax estimates that of the one label drawn per update.  cooking
# (2.3) and debian_tags (3.7) gain 0.10-0.18 P@1 at the default flags and
# 0.03-0.06 at tuned ones; single-label sets are at 1.0 (wn_hypernym 1.02).
# docs/multilabel.md, "When treexc uses it".
AUTO_PLT_MIN_LABELS_PER_LINE = 1.5
SHUFFLED = "shuffled"  # -order: a new random order each epoch (text.epoch_order)

LOSS_HELP = ("loss function: " + "; ".join(f"{entry.name} = {entry.help}"
                                           for entry in LOSSES.values())
             + f"; auto = plt where lines have {AUTO_PLT_MIN_LABELS_PER_LINE} labels or "
             f"more on average (with the tree -tree names), else the tree -tree names, else "
             f"flat softmax up to {AUTO_SOFTMAX_MAX_LABELS:,} labels, a learned tree above (or "
             "when -arity is given)")


def usual_tree(loss_name):
    """The -tree a loss means when none is given: ``learned`` for a tree
    rebuilt while training, else its starting tree's name."""
    entry = loss(loss_name)
    return "learned" if entry.learned and entry.learned_by_default else entry.tree


def tree_softmax(loss_name):
    """Whether ``loss_name`` is a softmax over a tree (a flat softmax is a
    one-node tree): what ``-scoring mean`` reads two ways."""
    return loss(loss_name).kernel == KERNEL_TREE


def takes_tree(loss_name):
    """Whether ``-tree`` can change the output tree of ``loss_name``."""
    return loss_name == AUTO or usual_tree(loss_name) in TREES


@dataclass
class Args:
    input: str = option("", "training file path (fastText format; .gz accepted; - = stdin)",
                        saved=False, required=True)
    output: str = option("", "output file path, without extension (.bin and .vec are "
                         "written)", saved=False, required=True)
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
    maxDepth: int = option(-1, "tree depth D: leaves at depth at most D (-1 = auto: no "
                           "limit, but a subtree holds at most 1/arity of its parent's "
                           "label occurrences, so frequent labels sit higher, as in a "
                           "Huffman tree; 0 = no limit; a Huffman tree's depths follow the "
                           "counts)", shape=True,
                           flags=("depth", "maxDepth"))
    treeGradient: str = option("ll", "AssignLabels score: ll (log-likelihood) or plain "
                               "(J_n gradient)", choices=("ll", "plain"))
    # how the model answers: written in the model file's header ("scoring"),
    # not among its options
    scoring: str = option("auto", "how a tree softmax answers: tree (its probabilities), "
                          "mean (the geometric mean of those and of the flat softmax its "
                          "path scores sum to: more accurate where labels are about equally "
                          "frequent and many-lined, at a flat softmax's prediction cost), "
                          "auto (mean for -loss tree on such labels, up to "
                          f"{SCORING_MEAN_MAX_LABELS:,} of them, else tree)",
                          saved=False, choices=("auto", "tree", SCORING_MEAN))

    def effective_arity(self, n_labels=None):
        """``-arity``, else the loss's: 2 for hs; for a learned tree the
        default of :func:`learned_tree_arity` once the labels are counted
        (0 until then)."""
        if self.arity:
            return self.arity
        entry = LOSSES.get(self.loss)  # None: a name validate refuses
        if entry is not None and entry.learned:
            depth = self.maxDepth if self.maxDepth > 0 else 2
            return 0 if n_labels is None else learned_tree_arity(n_labels, depth)
        # losses without a tree of their own: 20, what their model files
        # have always saved there (unused)
        return (entry and entry.arity) or 20

    def resolve_auto_loss(self, n_labels, labels_per_line=1.0, label_counts=None):
        """Turn ``-loss auto`` into the loss it stands for, once the labels
        are counted: a probabilistic label tree for multi-label data
        (:data:`AUTO_PLT_MIN_LABELS_PER_LINE`), with the tree ``-tree``
        names; else the tree ``-tree`` names (``hs`` for huffman), else a
        learned tree where the user asked for one by giving ``-arity``, else
        by :data:`AUTO_SOFTMAX_MAX_LABELS`.  Returns the lines saying what
        was chosen and why (none if nothing was left to choose).  Also sets
        a tree's default shape from the labels (``label_counts``: a wide
        root, :func:`wide_root_arity`), ``-treeUpdates -1`` and ``-scoring
        auto`` (to ``tree`` or ``mean``)."""
        why = self._choose_loss(n_labels, labels_per_line) if self.loss == AUTO else None
        # the label counts' spread decides a tree softmax's shape and reading
        spread = (label_spread(label_counts)
                  if self.loss == "tree" and label_counts is not None else None)
        shape = self._choose_wide_root(label_counts, spread)
        self.arity = self.effective_arity(n_labels)
        clamped = self._clamp_arity(n_labels)
        if self.treeUpdates == -1:
            self.treeUpdates = tree_updates(self.loss, n_labels, self.epoch, labels_per_line,
                                            label_counts, self.arity)
        scoring = self._choose_scoring(n_labels, spread)
        lines = []
        if why is not None:
            arity = f" of arity {self.arity}" if self.loss != "softmax" else ""
            lines.append(f"output layer: {self.loss}{arity} (-loss auto: {why})")
        return lines + [line for line in (shape, clamped, scoring) if line]

    def _clamp_arity(self, n_labels):
        """A tree wider than its labels has only empty slots beyond them, and
        each costs a row of weights and of AssignLabels' statistics (an
        ``-arity 100000`` over 732 labels took 1.6 GB): such an arity is cut
        to the label count, which builds the same tree less its empty
        slots.  Not refused, since ``-arity 20`` on a four-label file is an
        ordinary command.  Returns the line saying so, or None."""
        entry = LOSSES.get(self.loss)
        widest = max(2, n_labels)
        if entry is None or entry.tree in ("", "flat") or self.arity <= widest:
            return None
        given, self.arity = self.arity, widest
        return f"tree arity: {widest} ({n_labels} labels fill at most {widest} slots of a node, " \
               f"not {given})"

    def _choose_scoring(self, n_labels, spread):
        """Turn ``-scoring auto`` into ``tree`` or ``mean`` (the mean for a
        learned tree of arity above 2 and more than one node on even,
        many-lined labels, up to :data:`SCORING_MEAN_MAX_LABELS`); returns
        the line saying the mean was chosen (or, given past that limit, what
        it costs), or None.
        ``mean`` needs a tree softmax: validate refused the other losses
        given, this refuses -loss auto's choice of one."""
        if self.scoring == SCORING_MEAN and not tree_softmax(self.loss):
            bad_option("scoring", self.scoring, f"-loss auto chose {self.loss}, not a "
                       "tree softmax (give -loss tree)")
        if self.scoring == SCORING_MEAN and n_labels > SCORING_MEAN_MAX_LABELS:
            return (f"scoring: mean, as asked: every prediction scores all {n_labels:,} "
                    f"labels, as slow as a flat softmax (-scoring auto keeps the tree's own "
                    f"answers above {SCORING_MEAN_MAX_LABELS:,} labels)")
        if self.scoring != "auto":
            return None
        # a binary node is one sigmoid row (slot 0 has none): no path sums to a
        # logit; a tree of one node reads the same both ways
        if spread is None or n_labels > SCORING_MEAN_MAX_LABELS \
                or not 2 < self.arity < n_labels or not even_and_many_lined(spread):
            self.scoring = "tree"
            return None
        self.scoring = SCORING_MEAN
        evenness, median = spread
        return (f"scoring: mean of the tree's and the flat reading's probabilities (labels "
                f"about equally frequent, evenness {evenness:.2f}, and many-lined, median "
                f"{median:g})")

    def _choose_wide_root(self, label_counts, spread):
        """A tree softmax (``-loss tree``) given neither ``-arity`` nor
        ``-maxDepth`` gets a wide root where :func:`wide_root_arity` says so
        (sets both); returns the line saying so, or None.  ``spread``: the
        labels' :func:`label_spread`, None unless the loss is ``tree``."""
        if spread is None or self.arity or self.maxDepth != -1:
            return None
        evenness, median = spread
        wide = wide_root_arity(label_counts, spread)
        if not wide:
            return None
        self.arity, self.maxDepth = wide, 2
        return (f"tree shape: arity {wide}, depth 2 (labels about equally frequent, "
                f"evenness {evenness:.2f} >= {WIDE_ROOT_MIN_EVENNESS}, and many-lined, "
                f"median {median:g} >= {WIDE_ROOT_MIN_MEDIAN_COUNT}: a wide root)")

    def _choose_loss(self, n_labels, labels_per_line):
        """``-loss auto``'s choice (sets ``loss``, and ``tree`` when it is the
        loss's own); returns why."""
        if labels_per_line >= AUTO_PLT_MIN_LABELS_PER_LINE:
            self.loss, why = "plt", (f"{labels_per_line:.2f} labels a line >= "
                                     f"{AUTO_PLT_MIN_LABELS_PER_LINE}: multi-label")
        elif self.tree:
            self.loss = "hs" if self.tree == "huffman" else "tree"
            why = f"-tree {self.tree} given"
        elif self.arity:
            self.loss, why = "tree", f"-arity {self.arity} given"
        elif n_labels <= AUTO_SOFTMAX_MAX_LABELS:
            self.loss, why = "softmax", f"{n_labels} labels <= {AUTO_SOFTMAX_MAX_LABELS}"
        else:
            self.loss, why = "tree", f"{n_labels} labels > {AUTO_SOFTMAX_MAX_LABELS}"
        if self.tree == usual_tree(self.loss):
            self.tree = ""  # stored as with -loss given (choose_tree)
        return why


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
    ``maxDepth``), validated, with fastText's adjustments."""
    args = options_from_flags(Args, flags)
    choose_tree(args)
    if not args.arity and args.loss != AUTO:  # auto: set with the loss
        args.arity = args.effective_arity()
    # fastText: without word or character n-grams the hashed buckets are unused
    if args.wordNgrams <= 1 and args.maxn == 0:
        args.bucket = 0
    validate(args)
    return args


def choose_tree(args):
    """A loss's own tree is stored as "" (the old spellings ``-loss hs``
    and ``-loss tree`` give the same model files as ``-tree huffman`` and
    ``-tree learned``).  With ``-loss auto`` the loss, and so whether the
    tree is its own, waits for the labels (:meth:`Args.resolve_auto_loss`:
    ``-tree learned`` on multi-label data is the learned PLT)."""
    if args.tree not in TREES or args.loss not in LOSSES:
        return  # validate names what is wrong; auto: resolve_auto_loss
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
    if args.loss == "ns" and args.neg < 1:
        bad("neg", args.neg, "must be >= 1 with -loss ns")
    if args.maxDepth < -1:
        bad("depth", args.maxDepth, "must be -1 (auto), 0 (no limit) or a depth >= 1")
    # 0: chosen once the labels are counted (auto, or a learned tree's default)
    learned = args.loss in LOSSES and LOSSES[args.loss].learned
    if args.arity < 2 and not ((args.loss == AUTO or learned) and args.arity == 0):
        bad("arity", args.arity, "must be >= 2")
    if args.scoring == SCORING_MEAN and args.loss != AUTO and not tree_softmax(args.loss):
        bad("scoring", args.scoring, f"-loss {args.loss} is not a tree softmax (-loss tree, "
            "hs or softmax)")
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
