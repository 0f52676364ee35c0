"""Options of ``treexc lm``, with their defaults and checks."""

import math
from dataclasses import dataclass

from ..options import bad_option as bad
from ..options import check_number_ranges, options_from_flags

MODEL_KIND = "lm"


LOSSES = ("tree", "softmax")



TREES = ("learned", "random", "cluster")



@dataclass
class LMArgs:
    input: str = ""
    output: str = ""
    valid: str = ""
    test: str = ""
    log: str = ""
    name: str = ""
    dim: int = 200
    context: int = 4
    batch: int = 128
    lr: float = 0.1
    epoch: int = 5
    minCount: int = 5
    loss: str = "tree"
    tree: str = "learned"
    arity: int = 0             # 0: the smallest M with M ** depth >= vocabulary
    depth: int = 3
    massSlack: float = 0.0     # learned tree: a child holds at most massSlack/arity of
                               # its parent's word count, unless alone (0: no limit)
    treeUpdates: int = 50      # AssignLabels calls per epoch (learned tree)
    treeEpochs: float = 0      # the learned tree is rebuilt during these first epochs
                               # (0: the first half of training), then frozen
    leafRows: int = 1          # 1: a word's leaf row moves with the word on a rebuild
    clusterEpoch: float = 0.5  # length of the run that gives the clustering tree's vectors
    evalPerEpoch: int = 1
    thread: int = 0            # 0: all cores
    seed: int = 0
    verbose: int = 2



LM_DEFAULTS = LMArgs()



# What defines a model's shape (saved with it).
SHAPE_OPTIONS = ("dim", "context", "loss", "tree", "arity", "depth", "minCount")



def make_lm_args(**flags):
    args = options_from_flags(LMArgs, flags)
    validate(args)
    return args



def validate(args):
    check_number_ranges(args)
    if args.loss not in LOSSES:
        bad("loss", args.loss, f"unknown loss (choose from {', '.join(LOSSES)})")
    if args.leafRows not in (0, 1):
        bad("leafRows", args.leafRows, "must be 0 or 1")
    if args.tree not in TREES:
        bad("tree", args.tree, f"unknown tree (choose from {', '.join(TREES)})")
    if not args.lr > 0 or not math.isfinite(args.lr):
        bad("lr", args.lr, "must be > 0")
    for name in ("dim", "context", "batch", "epoch", "thread", "minCount", "depth",
                 "evalPerEpoch"):
        if getattr(args, name) < 1:
            bad(name, getattr(args, name), "must be >= 1")
    for name in ("treeUpdates", "seed"):
        if getattr(args, name) < 0:
            bad(name, getattr(args, name), "must be >= 0")
    if args.arity == 1 or args.arity < 0:
        bad("arity", args.arity, "must be >= 2 (or 0: fit the vocabulary)")
    for name in ("treeEpochs", "massSlack"):
        value = getattr(args, name)
        if not value >= 0 or not math.isfinite(value):
            bad(name, value, "must be >= 0")
    if not 0 < args.clusterEpoch <= 100:
        bad("clusterEpoch", args.clusterEpoch, "must be > 0")
    if args.dim > 10000:
        bad("dim", args.dim, "must be <= 10000")
    return args

