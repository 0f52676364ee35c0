"""The language model's plan: what a run trains, resolved once from what
the user typed (``LMArgs``) and the vocabulary's size, before anything is
built: the rate, the tree's depth, arity, mass cap, rows per root slot and
rebuilds.

:func:`plan` is a pure function; each field of its :class:`Plan` carries
its value, the rule that set it (a name of :data:`RULES`, or ``given``)
and why.  Training reads it (``Plan.args``: the options the model is
trained and saved with), the model file keeps it, and ``treexc lm
-plan`` prints it without training.
"""

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from ..options import bad_option
from ..planning import GIVEN, Choice, PlanRows, Rule
from ..trees.capacity import fit_arity, fit_depth

TREE_LOSS = "tree"  # -loss tree: a tree softmax (else the flat softmax, tied embeddings)

BASE_LR, BASE_DIM = 0.1, 100
DEFAULT_ROOT_ROWS = 4
DEPTH2_MAX_WORDS = 131_072
DEPTH2_MASS_SLACK = 1.0
REBUILDS_PER_EPOCH = 50


def uses_tree(args):
    """Whether the output layer is a tree softmax."""
    return args.loss == TREE_LOSS


def learning_span(args):
    """The epochs a learned tree is rebuilt in: -treeEpochs, or the first
    half of training."""
    return args.treeEpochs if args.treeEpochs > 0 else args.epoch / 2.0


def rebuilds_per_epoch(per_epoch, span):
    """Rebuilds in all of ``per_epoch`` an epoch inside a ``span`` (its end
    excluded): the r-th after r/per_epoch epochs while that is inside it."""
    return max(0, math.ceil(per_epoch * span - 1e-9) - 1)


def rebuild_batches(updates, span, batches_per_epoch):
    """The batches (counted from the first epoch's first) before which a
    learned tree is rebuilt: ``updates`` U in all, the r-th after r/(U + 1)
    of the ``span`` (epochs), in exact arithmetic (the span as written: 0.3
    is 3/10): U = u x span - 1 gives the batches of u an epoch (``k x
    batches // u`` into each)."""
    whole = Fraction(repr(float(span))) * batches_per_epoch
    return {math.floor(whole * r / (updates + 1)) for r in range(1, updates + 1)}


def _tree_updates(args):
    """The rebuilds Choice of a tree softmax: -treeUpdates in all (or its
    older per-epoch spelling, the same plan), or the rule's."""
    span = learning_span(args)
    if args.tree != "learned":
        return Choice(0, "no-learned-tree", f"-tree {args.tree}: a fixed tree, no rebuilds")
    given = args.treeUpdates
    if args.treeUpdatesPerEpoch:  # -treeUpdatesPerEpoch u: one plan, one model file
        given = rebuilds_per_epoch(args.treeUpdatesPerEpoch, span)
    if given >= 0:
        return Choice(given, GIVEN, f"-treeUpdates {given}: rebuilds in all, evenly inside "
                      f"the {span:g}-epoch learning span")
    value = rebuilds_per_epoch(REBUILDS_PER_EPOCH, span)
    return Choice(value, "rebuilds-per-epoch", f"{REBUILDS_PER_EPOCH} an epoch of the "
                  f"{span:g}-epoch learning span, its end excluded: {value} in all")


def default_lr(dim):
    """The Adagrad rate -lr 0 stands for at this -dim."""
    return BASE_LR * min(1.0, BASE_DIM / dim)


def root_rows(args, arity):
    """Rows per root slot of a tree of ``arity``: ``-rootRows`` or the
    rule root-rows."""
    if args.rootRows > 1 and arity < 3:
        bad_option("rootRows", args.rootRows, f"the tree is {arity}-ary: a binary root is "
                   "one sigmoid")
    if args.rootRows:
        return args.rootRows
    return DEFAULT_ROOT_ROWS if arity >= 3 else 1


def tree_shape(args, n_words):
    """``(depth, arity, mass_slack)`` of the tree over ``n_words`` words:
    ``-depth``, ``-arity`` and ``-massSlack`` where given, else the rules
    (a negative ``-massSlack``: the cap on a two-level tree only)."""
    return tuple(c.value for c in _shape(args, n_words))


def _shape(args, n_words):
    """The depth, arity and mass cap Choices."""
    slack = args.massSlack
    if args.depth:
        depth = Choice(args.depth, GIVEN, f"-depth {args.depth}")
    elif args.arity:  # the least depth that holds them at this arity
        levels = fit_depth((1 if slack == 0 else 2) * n_words, args.arity)
        room = "twice the words (room for the mass cap)" if slack else "the words"
        if slack < 0 and levels > 2:  # no cap deeper, so no room needed for it
            levels, room = fit_depth(n_words, args.arity), "the words"
        depth = Choice(levels, "depth-fit-arity", f"-arity {args.arity}: the least depth "
                       f"that holds {room}")
    else:
        levels = 2 if n_words <= DEPTH2_MAX_WORDS else 3
        depth = Choice(levels, "depth-by-vocabulary", f"{n_words} words "
                       f"{'<=' if levels == 2 else '>'} {DEPTH2_MAX_WORDS:,}")
    if slack < 0:
        value = DEPTH2_MASS_SLACK if depth.value <= 2 else 0.0
        mass = Choice(value, "mass-cap-two-levels", "a two-level tree: the mass cap" if value
                      else "deeper than two levels: no mass cap")
    else:
        mass = Choice(slack, GIVEN, f"-massSlack {slack:g}")
    if args.arity:
        if args.arity > 2 * n_words:  # the most slots a tree over them can fill
            bad_option("arity", args.arity, f"wider than a tree over {n_words} words can "
                       f"fill (at most {2 * n_words} slots a node); lower it, or 0 fits "
                       "the vocabulary")
        return depth, Choice(args.arity, GIVEN, f"-arity {args.arity}"), mass
    value = fit_arity((2 if mass.value > 0 else 1) * n_words, depth.value)
    why = f"the least M with M^{depth.value} >= {'twice ' if mass.value > 0 else ''}the words"
    return depth, Choice(value, "arity-fit-words", why), mass


@dataclass(frozen=True)
class Plan(PlanRows):
    lr: Choice
    depth: Choice
    arity: Choice
    mass_cap: Choice
    root_rows: Choice
    tree_updates: Choice  # rebuilds in all, inside the learning span

    def args(self, typed):
        """The options the model is trained and saved with."""
        return replace(typed, lr=self.lr.value, depth=self.depth.value,
                       arity=self.arity.value, massSlack=self.mass_cap.value,
                       rootRows=self.root_rows.value, treeUpdates=self.tree_updates.value,
                       treeUpdatesPerEpoch=0)


def plan(args, n_words):
    """The :class:`Plan` of a run of ``args`` over ``n_words`` words."""
    lr = (Choice(args.lr, GIVEN, f"-lr {args.lr:g}") if args.lr else
          Choice(default_lr(args.dim), "dim-scaled-rate", f"-lr 0: {BASE_LR:g} up to -dim "
                 f"{BASE_DIM}, {BASE_LR * BASE_DIM:g}/dim above"))
    if not uses_tree(args):  # the flat softmax: the tree's fields as typed, arity 0
        none = "-loss softmax: no tree"
        return Plan(lr, Choice(args.depth, "no-tree", none), Choice(0, "no-tree", none),
                    Choice(args.massSlack, "no-tree", none),
                    Choice(args.rootRows, "no-tree", none), Choice(0, "no-tree", none))
    depth, arity, mass = _shape(args, n_words)
    rows = root_rows(args, arity.value)
    rows = (Choice(rows, GIVEN, f"-rootRows {rows}") if args.rootRows else
            Choice(rows, "root-rows", f"a {arity.value}-ary root: "
                   + ("a softmax, scored by the log-sum-exp of its slots' rows" if rows > 1
                      else "a binary root is one sigmoid")))
    return Plan(lr, depth, arity, mass, rows, _tree_updates(args))


# fields a model file saved before them lacks (planning.stored_plan)
ADDED = ("tree_updates",)


# measured by benchmarks/ablate_lm_rules.py; docs/defaults.md, "Ablations"
LM_ARITY_EVIDENCE = (
    "The fewest slots that hold the leaves: two levels cost about 2 x M output rows a "
    "position. A floor of 200 at two levels, chosen at -dim 100 with one row a root slot "
    "(validation perplexity, fitted / 200: KJV 43.68 / 43.09, the first 1M tokens of "
    "gutenberg_lm 89.66 / 88.95, of gutenberg_small_lm 98.59 / 97.96), gained nothing at "
    "today's defaults (-dim 200, with root-rows' four rows a root slot), medians of 3 "
    "seeds, "
    "-epoch 1: the first 1M tokens of gutenberg_lm (8,449 words) the fitted 130-ary tree "
    "118.08 / 118.23 for the 200-ary one (CPU 32.4 / 36.6 s, seed 2); not used to choose: "
    "the first 1M tokens of gutenberg_small_lm (8,256 words), 129-ary 128.34 / 128.09, "
    "seed by seed -0.37, -0.09, +0.25, in 0.88x the CPU (32.3 / 36.8 s): level, so the "
    "cheaper fitted root. docs/defaults.md, \"Ablations\".")

RULES = (
    Rule("dim-scaled-rate", "lr", "-lr 0", "BASE_LR up to BASE_DIM dimensions, BASE_LR x "
         "BASE_DIM / dim above", (("BASE_LR", BASE_LR), ("BASE_DIM", BASE_DIM)),
         "Adagrad moves each coordinate of a row by about lr per step, so a step changes a "
         "score by about lr x dim: keeping lr x dim fixed keeps the step in score space as "
         "at the rate measured best at -dim 100. At -dim 200, one epoch: KJV valid "
         "perplexity tree 43.15 -> 41.46, flat 41.76 -> 40.77 (lr 0.1 -> 0.05); confirmed on "
         "the first 1M tokens of gutenberg_lm and of gutenberg_small_lm, not used to "
         "choose: tree 91.37 -> 85.98 and 100.83 -> 95.46, flat 89.70 -> 85.18 and 98.52 -> "
         "95.30 (docs/lm.md, \"Learning rate\")."),
    Rule("depth-by-vocabulary", "depth", "-depth 0 and -arity 0", "2 up to "
         "DEPTH2_MAX_WORDS words, else 3", (("DEPTH2_MAX_WORDS", DEPTH2_MAX_WORDS),),
         "Two wide levels while they cost at most 2 x sqrt(2 x 131,072) = 1,024 output "
         "rows per position, three above (docs/lm.md, \"Default shape\"). Validation "
         "perplexity, medians of 3 seeds, -epoch 1, two levels (the fitted tree) / three: "
         "the first 1M tokens of gutenberg_lm 118.08 / 122.52, of gutenberg_small_lm (not "
         "used to choose) 128.34 / 133.55 for 32.3 / 34.7 CPU s, lower on every seed."),
    Rule("depth-fit-arity", "depth", "-depth 0, -arity given", "the least depth that holds "
         "the words (twice them where the mass cap is on)", (),
         "Room for the mass cap's moves; deeper than two levels there is no cap."),
    Rule("mass-cap-two-levels", "mass_cap", "-massSlack -1", "DEPTH2_MASS_SLACK on a "
         "two-level tree, 0 deeper", (("DEPTH2_MASS_SLACK", DEPTH2_MASS_SLACK),),
         "On two levels, validation perplexity, medians of 3 seeds, -epoch 1, the first 1M "
         "tokens of gutenberg_lm: the fitted trees with / without it (130-ary / 92-ary, "
         "each the least that holds its leaves) 118.08 / 119.39, lower on every seed, for "
         "1.1x the CPU (32.4 s, seed 2, against 29.0); the 200-ary tree 118.23 / 119.25 "
         "(docs/defaults.md, "
         "\"Ablations\"). Deeper, it measured no better (gutenberg_small_lm, depth 3, "
         "arity 40: 134.6 without, 134.7 with; all of gutenberg_lm: the paper's uncapped "
         "65-ary tree 166.2, the capped 81-ary one 168.2) and it needs room for twice the "
         "vocabulary."),
    Rule("arity-fit-words", "arity", "-arity 0", "the least M with M^depth >= the words "
         "(twice them under the mass cap)", (), LM_ARITY_EVIDENCE),
    Rule("root-rows", "root_rows", "-rootRows 0", "DEFAULT_ROOT_ROWS rows a root slot where "
         "the root is a softmax (arity >= 3), 1 at a binary root",
         (("DEFAULT_ROOT_ROWS", DEFAULT_ROOT_ROWS),),
         "The root is where the tree loses to the flat softmax. Trained (-dim 100 -epoch 1, "
         "validation perplexity, rows 1 / 2 / 4 / 6, flat): KJV 43.33 / 41.62 / 40.66 / "
         "40.22, 42.80; first 1M tokens of gutenberg_lm 89.29 / 86.24 / 84.63 / 84.42, "
         "88.96; first 5M tokens 88.47 / 84.32 / 80.66, 88.27: four is where the gains "
         "flatten; ms per training batch, rows 1 / 2 / 4, flat: 1M tokens 1.96 / 3.1 / 4.6, "
         "13-16 (docs/lm.md, \"Several rows per root slot\")."),
    Rule("rebuilds-per-epoch", "tree_updates", "-treeUpdates -1 and -tree learned",
         "REBUILDS_PER_EPOCH an epoch of the learning span, its end excluded: ceil("
         "REBUILDS_PER_EPOCH x span) - 1 in all, the r-th after r/(that + 1) of the span",
         (("REBUILDS_PER_EPOCH", REBUILDS_PER_EPOCH),),
         "The rebuilds the language model's schedule has always made (it counted them per "
         "epoch; -treeUpdatesPerEpoch is that spelling): the same batches wherever the span "
         "ends on a batch, at every -epoch (with -treeEpochs, where 50 times it is whole). "
         "Not ablated here."),
    Rule("no-learned-tree", "tree_updates", "-tree huffman, random or cluster", "0",
         (), "A fixed tree is not rebuilt."),
    Rule("no-tree", "depth, arity, mass_cap, root_rows, tree_updates", "-loss softmax",
         "as typed; arity 0 and no rebuilds (what model files save)", (),
         "The flat softmax has no tree."),
)
