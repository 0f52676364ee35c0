"""The classifier's plan: what model a run trains, resolved once from what
the user typed (``Args``) and the label statistics of the counting pass,
before anything is built.

:func:`plan` is a pure function; every field of the :class:`Plan` it
returns carries its value, the rule that set it (a name of
``plan_rules.RULES``, or ``given``) and a one-line reason.  Training, the
memory check, the session and saving read the plan (``Plan.args`` gives
the options the model is trained and saved with); ``treexc supervised
-plan`` prints it without training.
"""

import math
from dataclasses import dataclass, replace

from ..loss.registry import AUTO, REBUILD_BY_LINES, REBUILD_ONCE, loss
from ..options import bad_option
from ..planning import GIVEN, Choice, PlanRows
from ..trees.capacity import fit_depth
from .plan_rules import (
    AUTO_PLT_MIN_LABELS_PER_LINE,
    AUTO_SOFTMAX_MAX_LABELS,
    AUTO_SOFTMAX_MIN_BUDGET,
    AUTO_SOFTMAX_MIN_EVENNESS,
    AUTO_SOFTMAX_UNEVEN_MAX_LABELS,
    AUTO_SOFTMAX_UNEVEN_MIN_BUDGET,
    DEFAULT_LR,
    DEFAULT_LR_HALVINGS,
    LEARNED_LR_HOLD,
    MASS_SLACK,
    PLT_TREE_UPDATES,
    SCORING_MEAN,
    SCORING_MEAN_MAX_LABELS,
    SCORING_MEAN_MIN_BUDGET,
    STATS_PER_REBUILD,
    TREE_UPDATES,
    UNUSED_ARITY,
    WIDE_ROOT_BUDGET_MEDIAN,
    WIDE_ROOT_MIN_EVENNESS,
    WIDE_ROOT_MIN_MEDIAN_COUNT,
    ZIPF_LR,
    ZIPF_MAX_EVENNESS,
    even_and_many_lined,
    label_spread,
    learned_tree_arity,
    usual_tree,
    wide_root_arity,
)



@dataclass(frozen=True)
class LabelStats:
    """What the counting pass knows of the labels: their counts (training
    occurrences, in the dictionary's order) and the mean number of distinct
    labels of a labelled line."""
    label_counts: tuple
    labels_per_line: float = 1.0

    @property
    def n_labels(self):
        return len(self.label_counts)

    @classmethod
    def of(cls, label_counts, labels_per_line=1.0):
        return cls(tuple(int(c) for c in label_counts), float(labels_per_line))


@dataclass(frozen=True)
class Plan(PlanRows):
    model: Choice         # the family (treexc supervised -model: supervised.choose_family)
    loss: Choice
    tree: Choice          # "" = the loss's own (what model files save)
    arity: Choice
    depth: Choice         # -depth: -1 the default (no limit, mass cap), 0 no limit
    mass_cap: Choice      # a subtree's share of its parent's label mass (0: none)
    tree_updates: Choice  # rebuilds in all, in the first half of training
    scoring: Choice       # tree or mean
    lr: Choice
    lr_hold: Choice       # fraction of training at a constant rate
    halvings: Choice      # times the rate is halved while training diverges

    @property
    def learns_tree(self):
        """Whether training rebuilds the tree (AssignLabels)."""
        return _learned(loss(self.loss.value), self.tree.value, self.tree_updates.value)

    def args(self, typed):
        """The options the model is trained and saved with: ``typed``
        with the planned values in place of the automatic ones.  The depth
        and the mass cap as model files have always spelled them: no limit
        and no cap is ``maxDepth 0``, the usual cap ``maxDepth -1``; only
        another cap is saved as ``massSlack``."""
        depth, cap = self.depth.value, self.mass_cap.value
        slack = cap if depth == -1 and cap not in (0.0, MASS_SLACK) else -1.0
        # -depth is a spelling of maxDepth (options.make_args): the saved one is kept
        return replace(typed, loss=self.loss.value, tree=self.tree.value, depth=0,
                       arity=self.arity.value, maxDepth=depth, massSlack=slack,
                       treeUpdates=self.tree_updates.value, scoring=self.scoring.value,
                       lr=self.lr.value)

    def report(self):
        """The lines training prints: the rules that chose something worth
        saying (a loss, a shape, a reading or a rate other than the usual)."""
        return [c.why for _, c in self.items() if c.rule in SAID]


# rules whose line training prints (the others are said by -plan and the model's header)
SAID = ("auto-plt", "auto-arity-flag", "auto-softmax", "auto-softmax-uneven", "auto-tree",
        "wide-root", "arity-clamp", "scoring-mean", "scoring-mean-given", "zipf-rate")


# the family of a plan made below treexc supervised (autotune's trials, the
# family's own API): supervised.choose_family's Choice where it chose
EMBEDDING = Choice("embedding", GIVEN, "-model embedding")
# fields a model file saved before them lacks (planning.stored_plan)
ADDED = ("model",)


def plan(args, stats, family=EMBEDDING):
    """The :class:`Plan` of a run of ``args`` (what the user typed, checked
    by ``options.validate``) on labels of ``stats`` (:class:`LabelStats`);
    ``family``: the Choice of the model family."""
    n_labels = stats.n_labels
    lr, halvings = _rate(args, stats)
    budget = lr.value * args.epoch  # rate-epochs: the rate it trains at times the epochs
    loss_choice, tree = _loss(args, stats, lr.value, budget)
    name = loss_choice.value
    entry = loss(name)
    # the label counts' spread decides a tree softmax's shape and reading
    spread = label_spread(stats.label_counts) if entry.spread_shaped else None
    arity, depth = _shape(args, entry, stats, spread, budget)
    if loss_choice.rule != GIVEN:
        shown = f" of arity {arity.value}" if entry.tree != "flat" else ""
        loss_choice = replace(loss_choice, why=f"output layer: {name}{shown} (-loss auto: "
                                               f"{loss_choice.why})")
    updates = _tree_updates(args, entry, stats, arity.value)
    if _unlimited(args):
        mass = Choice(0.0, GIVEN, UNLIMITED)
    elif depth.value != -1 or not entry.learned:
        mass = Choice(0.0, "no-mass-cap", "a depth limit, or no learned tree: no mass cap")
    elif args.massSlack >= 0:
        mass = Choice(args.massSlack, GIVEN, f"-massSlack {args.massSlack:g}")
    elif not _learned(entry, tree.value, updates.value):
        mass = Choice(0.0, "no-mass-cap", "a tree not rebuilt while training: no mass cap")
    else:
        mass = Choice(MASS_SLACK, "mass-cap", f"no depth limit: a subtree holds at most "
                      f"{MASS_SLACK:g}/arity of its parent's label occurrences")
    scoring = _scoring(args, name, n_labels, arity, spread, budget)
    partial = Plan(family, loss_choice, tree, arity, depth, mass, updates, scoring, lr,
                   Choice(0.0, "", ""), halvings)
    hold = (Choice(LEARNED_LR_HOLD, "learned-schedule", f"a learned tree: the rate held for "
                   f"the first {LEARNED_LR_HOLD:g} of training while the tree is learned, "
                   "then decaying")
            if partial.learns_tree else
            Choice(0.0, "linear-decay", "fastText's schedule: the rate decays linearly"))
    return replace(partial, lr_hold=hold)


def _learned(entry, tree, tree_updates):
    """Whether a tree of loss ``entry``, ``tree`` (its Choice's value: "" the
    loss's own) and ``tree_updates`` rebuilds is rebuilt while training."""
    return (entry.learned and tree_updates > 0
            and (tree == "learned" or (tree == "" and entry.learned_by_default)))


# -massSlack 0 and its older spelling -maxDepth 0: one plan, one model file
UNLIMITED = "no depth limit and no mass cap (-massSlack 0, or -maxDepth 0)"


def _unlimited(args):
    return args.maxDepth == 0 or (args.maxDepth == -1 and args.massSlack == 0)


def _loss(args, stats, rate, budget):
    """``(loss, tree)`` Choices: ``-loss auto``'s choice of the loss (from
    ``budget`` rate-epochs at ``rate``, among others), and the tree ("" where
    it is the loss's own).  A ``-tree`` on single-label
    data spells its loss (``-tree huffman`` is ``-loss hs``, any other
    ``-loss tree``): the same plan, so the same model file."""
    n_labels, per_line = stats.n_labels, stats.labels_per_line
    multi = per_line >= AUTO_PLT_MIN_LABELS_PER_LINE
    if args.loss != AUTO or (args.tree and not multi):
        name = args.loss if args.loss != AUTO else "hs" if args.tree == "huffman" else "tree"
        return Choice(name, GIVEN, f"-loss {name}"), _tree(args, name)
    if multi:
        name, rule, why = "plt", "auto-plt", (f"{per_line:.2f} labels a line >= "
                                              f"{AUTO_PLT_MIN_LABELS_PER_LINE}: multi-label")
    elif args.arity:
        name, rule, why = "tree", "auto-arity-flag", f"-arity {args.arity} given"
    else:
        # the flat softmax gains on the tree only from long training over few labels
        name, rule, why = _auto_softmax(n_labels, budget, label_spread(stats.label_counts),
                                        f"(-lr {rate:g} x -epoch {args.epoch})")
    # the line says the arity too, which the shape rules set after (plan)
    return Choice(name, rule, why), _tree(args, name)


def _auto_softmax(n_labels, budget, spread, spent):
    """``(loss, rule, why)`` of -loss auto on single-label data: the flat
    softmax gains on the learned tree only from long training (``budget``
    rate-epochs: ``spent`` says how) over few, many-lined labels, and
    sooner where they are uneven (a tree of the mass cap, not a wide
    root)."""
    evenness, median = spread
    uneven = AUTO_SOFTMAX_MIN_EVENNESS <= evenness < WIDE_ROOT_MIN_EVENNESS
    most, least = ((AUTO_SOFTMAX_UNEVEN_MAX_LABELS, AUTO_SOFTMAX_UNEVEN_MIN_BUDGET) if uneven
                   else (AUTO_SOFTMAX_MAX_LABELS, AUTO_SOFTMAX_MIN_BUDGET))
    few, long = n_labels <= most, budget >= least
    many_lined = median >= WIDE_ROOT_MIN_MEDIAN_COUNT
    why = (f"{n_labels} labels {'<=' if few else '>'} {most}, {budget:g} rate-epochs "
           f"{spent} {'>=' if long else '<'} {least}"
           + (f" (uneven labels: evenness {evenness:.2f})" if uneven else ""))
    if few and long and not many_lined:
        return "tree", "auto-tree", (f"{why}, but a median of {median:g} lines a label < "
                                     f"{WIDE_ROOT_MIN_MEDIAN_COUNT}")
    if few and long:
        return "softmax", "auto-softmax-uneven" if uneven else "auto-softmax", why
    return "tree", "auto-tree", why


def _tree(args, name):
    """The tree Choice of loss ``name``: "" for its own (stored as with
    -loss given: options.choose_tree)."""
    tree = "" if args.tree == usual_tree(name) else args.tree
    return Choice(tree, GIVEN if tree else "loss-own",
                  f"-tree {tree}" if tree else
                  f"the tree of -loss {name} ({usual_tree(name) or 'none'})")


def _shape(args, entry, stats, spread, budget):
    """``(arity, depth)`` Choices: the wide root (``budget``: the planned
    rate times -epoch), a learned tree's default arity, the loss's own, the
    clamp to the labels."""
    n_labels = stats.n_labels
    if _unlimited(args):
        depth = Choice(0, GIVEN, UNLIMITED)
    elif args.maxDepth != -1:
        depth = Choice(args.maxDepth, GIVEN, f"-depth {args.maxDepth}")
    else:
        depth = (Choice(-1, "depth-auto", "no depth limit (the mass cap shapes depth)")
                 if entry.learned else Choice(-1, "loss-own", "no learned tree to limit"))
    wide = 0
    if spread is not None and not args.arity and args.maxDepth == -1:
        wide = wide_root_arity(stats.label_counts, budget, spread)
    if wide:
        evenness, median = spread
        trained = (f"median {median:g} < {WIDE_ROOT_BUDGET_MEDIAN}"
                   if median < WIDE_ROOT_BUDGET_MEDIAN else
                   f"{budget:g} rate-epochs >= {SCORING_MEAN_MIN_BUDGET}")
        why = (f"tree shape: arity {wide}, depth 2 (labels about equally frequent, "
               f"evenness {evenness:.2f} >= {WIDE_ROOT_MIN_EVENNESS}, and many-lined, "
               f"median {median:g} >= {WIDE_ROOT_MIN_MEDIAN_COUNT}; {trained}: a wide root)")
        return Choice(wide, "wide-root", why), Choice(2, "wide-root", why)
    if args.arity:
        arity = Choice(args.arity, GIVEN, f"-arity {args.arity}")
    elif entry.learned:
        levels = args.maxDepth if args.maxDepth > 0 else 2
        value = learned_tree_arity(n_labels, levels)
        arity = (Choice(value, "one-node", f"{n_labels} labels: a tree of one node (the flat "
                        "softmax) saves nothing over a deeper one")
                 if value >= n_labels else
                 Choice(value, "learned-arity", f"the least M with M^{levels} >= {n_labels} "
                        "labels"))
    else:
        value = entry.arity or UNUSED_ARITY
        arity = Choice(value, "loss-own", f"-loss {entry.name}'s arity" if entry.arity else
                       "no tree of arity: the value model files have always saved (unused)")
    widest = max(2, n_labels)
    if entry.tree not in ("", "flat") and arity.value > widest:
        arity = Choice(widest, "arity-clamp", f"tree arity: {widest} ({n_labels} labels fill "
                       f"at most {widest} slots of a node, not {arity.value})")
    # even labels give the mass cap no frequency structure to shape depth with
    if args.arity and args.maxDepth == -1 and args.massSlack < 0 \
            and entry.rebuilds == REBUILD_BY_LINES and args.tree in ("", "learned") \
            and spread is not None and spread[0] >= WIDE_ROOT_MIN_EVENNESS:
        levels = fit_depth(n_labels, arity.value)
        depth = Choice(levels, "depth-fit-arity", f"-arity {args.arity} given over labels "
                       f"about equally frequent (evenness {spread[0]:.2f} >= "
                       f"{WIDE_ROOT_MIN_EVENNESS}): the least depth that holds {n_labels} "
                       "labels, no mass cap")
    return arity, depth


def _tree_updates(args, entry, stats, arity):
    """-treeUpdates -1: none for a tree of one node, once for a PLT, one
    per :data:`STATS_PER_REBUILD` lines a label for a tree softmax."""
    if args.treeUpdates != -1:
        return Choice(args.treeUpdates, GIVEN, f"-treeUpdates {args.treeUpdates}")
    n_labels = stats.n_labels
    if entry.learned and 0 < n_labels <= arity:
        return Choice(0, "one-node", "a tree of one node: AssignLabels could only reorder "
                      "its slots")
    if entry.rebuilds == REBUILD_ONCE:
        return Choice(PLT_TREE_UPDATES, "plt-once", "a probabilistic label tree: rebuilt "
                      "once, from the first half's statistics")
    if entry.rebuilds != REBUILD_BY_LINES:
        return Choice(TREE_UPDATES, "no-learned-tree", "no learned tree (the value model "
                      "files have always saved)")
    lines = math.fsum(stats.label_counts) / max(stats.labels_per_line, 1.0)
    per_label = lines * args.epoch / 2 / max(n_labels, 1)
    value = int(min(TREE_UPDATES, max(1, per_label // STATS_PER_REBUILD)))
    return Choice(value, "rebuilds-by-lines", f"{per_label:.0f} lines a label in the first "
                  f"half: one rebuild per {STATS_PER_REBUILD}, 1 to {TREE_UPDATES}")


def _scoring(args, name, n_labels, arity, spread, budget):
    """-scoring auto: the mean of the two readings for a learned tree of
    arity above 2 and several nodes on even, many-lined labels, a wide root
    only when trained :data:`SCORING_MEAN_MIN_BUDGET` rate-epochs or more
    (``budget``: the planned rate times -epoch; ``arity``: its Choice)."""
    if args.scoring == SCORING_MEAN and not loss(name).tree_softmax:
        bad_option("scoring", args.scoring, f"-loss auto chose {name}, not a tree softmax "
                   "(give -loss tree)")
    if args.scoring == SCORING_MEAN and n_labels > SCORING_MEAN_MAX_LABELS:
        return Choice(SCORING_MEAN, "scoring-mean-given", (
            f"scoring: mean, as asked: every prediction scores all {n_labels:,} labels, as "
            f"slow as a flat softmax (-scoring auto keeps the tree's own answers above "
            f"{SCORING_MEAN_MAX_LABELS:,} labels)"))
    if args.scoring != "auto":
        return Choice(args.scoring, GIVEN, f"-scoring {args.scoring}")
    # a binary node is one sigmoid row (slot 0 has none): no path sums to a
    # logit; a tree of one node reads the same both ways
    if spread is None or n_labels > SCORING_MEAN_MAX_LABELS \
            or not 2 < arity.value < n_labels or not even_and_many_lined(spread):
        return Choice("tree", "scoring-tree", "the tree's own probabilities")
    if arity.rule == "wide-root" and budget < SCORING_MEAN_MIN_BUDGET:
        return Choice("tree", "scoring-tree", (
            f"the tree's own probabilities (a wide root trained {budget:g} rate-epochs, -lr "
            f"x -epoch, < {SCORING_MEAN_MIN_BUDGET:g}: the mean gains only from longer "
            "training)"))
    evenness, median = spread
    return Choice(SCORING_MEAN, "scoring-mean", (
        f"scoring: mean of the tree's and the flat reading's probabilities (labels about "
        f"equally frequent, evenness {evenness:.2f}, and many-lined, median {median:g})"))


def _rate(args, stats):
    """``(lr, halvings)`` Choices: -lr 0's rate from the labels' evenness,
    halved at most :data:`DEFAULT_LR_HALVINGS` times while it diverges."""
    if args.lr:
        return (Choice(args.lr, GIVEN, f"-lr {args.lr:g}"),
                Choice(0, GIVEN, "a rate given is kept"))
    halvings = Choice(DEFAULT_LR_HALVINGS, "halve-on-divergence", f"-lr 0: halved and "
                      f"training started again while it diverges, at most "
                      f"{DEFAULT_LR_HALVINGS} times")
    return default_rate(stats.label_counts), halvings


def default_rate(label_counts):
    """The Choice of the rate ``-lr 0`` trains at for these label counts."""
    evenness, _ = label_spread(label_counts)
    if evenness >= ZIPF_MAX_EVENNESS:
        return Choice(DEFAULT_LR, "default-rate", f"-lr 0: labels not Zipf-distributed "
                      f"(evenness {evenness:.3f} >= {ZIPF_MAX_EVENNESS})")
    return Choice(ZIPF_LR, "zipf-rate", (
        f"learning rate: {ZIPF_LR:g} (-lr 0: Zipf-distributed labels, evenness "
        f"{evenness:.3f} < {ZIPF_MAX_EVENNESS}; {DEFAULT_LR:g} otherwise)"))
