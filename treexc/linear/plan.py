"""The linear family's plan: the model family (chosen above the families,
``supervised.choose_family``) and the linear model's own defaults (the
tree, its branches and leaves, the node classifiers, the beam), each with
the rule that set it (a name of :data:`RULES`, or ``given``) and why.

The linear model has no automatic rule that reads the data: each default
is one value, taken from ``LinearArgs``, so the plan is what the options
say.  ``treexc supervised -plan`` prints it; the model file keeps it and
``treexc dump model.bin args`` shows it.
"""

from dataclasses import dataclass, fields

from ..planning import GIVEN, Choice, PlanRows, Rule, shown
from .options import LinearArgs

_DEFAULT = {f.name: f.default for f in fields(LinearArgs)}

# (plan field, LinearArgs field, rule, why the default, evidence)
_DEFAULTS = (
    ("tree", "tree", "kmeans-tree", "a fixed tree of balanced spherical k-means over the "
     "labels' tf-idf centroids",
     "At the defaults the learned tree (-tree learned, one rebuild) scored P@1/P@5 "
     "0.6972/0.2961 against 0.6965/0.2955 on cooking and the same 0.4796/0.1364 on "
     "wn_hypernym (medians of 3 seeds), 0.8459 against 0.8462 P@1 on debian_tags, for about "
     "twice the training CPU (docs/results/linear.md, \"Learned against fixed k-means "
     "tree\")."),
    ("arity", "arity", "arity-32", "branches of a node above the leaves",
     "With leaves of at most 25 labels and two trees: medians of 3 seeds, P@1/P@5, cooking "
     "0.6965/0.2955 and wn_hypernym 0.4796/0.1364 against 0.690/0.291 and 0.4767/0.1342 for "
     "PECOS's one tree of 16 branches and leaves of 100; confirmed on gutenberg_books "
     "(0.4365/0.1194 against 0.421/0.113) and debian_tags (level) (docs/results/linear.md, "
     "\"Two smaller trees\")."),
    ("leaf_size", "leafSize", "leaf-size-25", "labels of a last-level node at most",
     "One tree of leaves of 400 scored 0.7019/0.2947 on cooking but took 2.7 times the "
     "training on wn_hypernym; two trees of leaves of 25 (0.6965/0.2955) train in about "
     "the time of one tree of leaves of 100 (debian_tags: 63 against 67 CPU s) "
     "(docs/results/linear.md, \"Two smaller trees\")."),
    ("solver", "solver", "svm-nodes", "L2-loss SVM node classifiers (dual coordinate "
     "descent), PECOS's", "PECOS XR-Linear's default; -solver lr not measured on real data."),
    ("C", "C", "c-1", "inverse regularisation of the node classifiers, PECOS's",
     "PECOS XR-Linear's default; not ablated here."),
    ("prune", "prune", "prune-0.1", "node weights of smaller magnitude dropped, PECOS's",
     "PECOS XR-Linear's default; not ablated here."),
    ("beam", "beam", "beam-10", "nodes kept a level when predicting, PECOS's",
     "PECOS XR-Linear's default; not ablated here."),
    ("ensemble", "ensemble", "two-trees", "two trees of different seeds, their "
     "probabilities averaged (one where the tree is a single node)",
     "On cooking, medians of 3 seeds: one tree of 32 branches and leaves of 25 "
     "0.6838/0.2914, two 0.6965/0.2955, three 0.6905/0.2968 (docs/results/linear.md, "
     "\"Two smaller trees\")."),
)


@dataclass(frozen=True)
class Plan(PlanRows):
    model: Choice
    tree: Choice
    arity: Choice
    leaf_size: Choice
    solver: Choice
    C: Choice
    prune: Choice
    beam: Choice
    ensemble: Choice


def plan(args, given, model):
    """The :class:`Plan` of ``args`` (``LinearArgs``); ``given``: the
    LinearArgs fields the user set; ``model``: the family's Choice."""
    rows = {}
    for name, field, rule, why, _ in _DEFAULTS:
        value = getattr(args, field)
        rows[name] = (Choice(value, GIVEN, f"-{field} {shown(value)}") if field in given else
                      Choice(value, rule, f"-{field} {shown(value)}: {why}"))
    return Plan(model=model, **rows)


RULES = tuple(Rule(rule, name, f"-{field} not given", shown(_DEFAULT[field]), (), evidence)
              for name, field, rule, _, evidence in _DEFAULTS)
