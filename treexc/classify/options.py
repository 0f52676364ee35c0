"""All training options in one place, with fastText's names and defaults.

The CLI reads its option defaults from :data:`SUPERVISED_DEFAULTS`, so a
default is written once.  Names are fastText's camelCase ones because users
pass them as ``-wordNgrams`` on the command line and as
``train_supervised(wordNgrams=2)`` in Python.
"""

import dataclasses
from dataclasses import dataclass

from ..options import (
    bad_option,
    check_number_ranges,
    default_threads,
    options_from_flags,
)

LOSSES = ("auto", "softmax", "hs", "ova", "ns", "tree")

# The default output layer, -loss auto: the exact flat softmax up to this many
# labels, where it is cheap, and the learned tree above, where it pays.  At
# well-trained flags the flat softmax was the more accurate of the two at
# every label count measured (gutenberg_books cut to its 100 to 2,972 most
# frequent labels: 0.04-0.06 P@1 better) for 1.6-8x the training time; up to
# 4,096 labels treexc's softmax still trains faster than fastText's default
# (its softmax).  docs/benchmarks-trees.md, "Default loss", has the figures.
AUTO_SOFTMAX_MAX_LABELS = 4096
LOSS_ALIASES = {"one-vs-all": "ova"}


@dataclass
class Args:
    input: str = ""
    output: str = ""
    lr: float = 0.1
    lrUpdateRate: int = 100
    dim: int = 100
    ws: int = 5
    epoch: int = 5
    minCount: int = 1
    minCountLabel: int = 0
    neg: int = 5
    wordNgrams: int = 1
    loss: str = "auto"
    bucket: int = 2000000
    minn: int = 0
    maxn: int = 0
    thread: int = dataclasses.field(default_factory=default_threads)
    t: float = 1e-4
    label: str = "__label__"
    verbose: int = 2
    pretrainedVectors: str = ""
    saveOutput: bool = False
    seed: int = 0
    # Tree output layers (treexc's own options).
    arity: int = 0            # 0: 2 for hs, 20 for tree
    treeUpdates: int = 50     # AssignLabels calls in the first half of training
    maxDepth: int = -1        # tree depth limit: -1 auto, 0 none
    treeGradient: str = "ll"  # "ll": log-likelihood variant, "plain": J_n gradient

    def effective_arity(self):
        if self.arity:
            return self.arity
        return 2 if self.loss == "hs" else 20

    def resolve_auto_loss(self, n_labels):
        """Turn ``-loss auto`` into the loss it stands for, once the number of
        labels is known: a learned tree where the user asked for one by
        giving ``-arity``, else by :data:`AUTO_SOFTMAX_MAX_LABELS`.  Returns a
        line saying what was chosen and why (None if the loss was given)."""
        if self.loss != "auto":
            return None
        if self.arity:
            self.loss, why = "tree", f"-arity {self.arity} given"
        elif n_labels <= AUTO_SOFTMAX_MAX_LABELS:
            self.loss, why = "softmax", f"{n_labels} labels <= {AUTO_SOFTMAX_MAX_LABELS}"
        else:
            self.loss, why = "tree", f"{n_labels} labels > {AUTO_SOFTMAX_MAX_LABELS}"
        self.arity = self.effective_arity()
        arity = f" of arity {self.arity}" if self.loss == "tree" else ""
        return f"output layer: {self.loss}{arity} (-loss auto: {why})"


SUPERVISED_DEFAULTS = Args(thread=0)  # thread 0 = all cores, resolved at run time

# Options that define the shape of a model (and so are saved with it).
SHAPE_OPTIONS = ("dim", "loss", "arity", "wordNgrams", "bucket", "minn", "maxn",
                 "label", "maxDepth")


def make_args(**flags):
    """Args from keyword flags, validated, with fastText's adjustments."""
    args = options_from_flags(Args, flags)
    args.loss = LOSS_ALIASES.get(args.loss, args.loss)
    if not args.arity and args.loss != "auto":  # auto: set with the loss
        args.arity = args.effective_arity()
    # fastText: without word or character n-grams the hashed buckets are unused
    if args.wordNgrams <= 1 and args.maxn == 0:
        args.bucket = 0
    validate(args)
    return args


def validate(args):
    bad = bad_option
    check_number_ranges(args)

    if args.loss not in LOSSES:
        bad("loss", args.loss, f"unknown loss (choose from {', '.join(LOSSES)}, one-vs-all)")
    if not args.lr > 0:
        bad("lr", args.lr, "must be > 0")
    for name in ("dim", "epoch", "thread", "lrUpdateRate", "wordNgrams"):
        if getattr(args, name) < 1:
            bad(name, getattr(args, name), "must be >= 1")
    for name in ("minCount", "minCountLabel", "bucket", "minn", "maxn", "neg",
                 "treeUpdates", "seed"):
        if getattr(args, name) < 0:
            bad(name, getattr(args, name), "must be >= 0")
    if args.maxn and args.minn > args.maxn:
        bad("minn", args.minn, f"must be <= -maxn ({args.maxn})")
    if args.maxn and args.minn < 1:
        bad("minn", args.minn, "must be >= 1 when -maxn is set")
    if (args.wordNgrams > 1 or args.maxn > 0) and args.bucket < 1:
        bad("bucket", args.bucket, "must be >= 1 when word or character n-grams are used")
    if args.loss == "ns" and args.neg < 1:
        bad("neg", args.neg, "must be >= 1 with -loss ns")
    if args.maxDepth < -1:
        bad("maxDepth", args.maxDepth, "must be -1 (auto), 0 (no limit) or a depth >= 1")
    if args.arity < 2 and not (args.loss == "auto" and args.arity == 0):
        bad("arity", args.arity, "must be >= 2")
    if args.treeGradient not in ("ll", "plain"):
        bad("treeGradient", args.treeGradient, "must be ll or plain")
    if not args.label:
        bad("label", repr(args.label), "the label prefix must not be empty")
    if any(c.isspace() for c in args.label):
        bad("label", repr(args.label), "the label prefix must not contain white space")
    if args.dim > 100000:
        bad("dim", args.dim, "must be <= 100000")
    return args


def to_dict(args):
    return dataclasses.asdict(args)


def from_dict(d):
    names = {f.name for f in dataclasses.fields(Args)}
    return Args(**{k: v for k, v in d.items() if k in names})
